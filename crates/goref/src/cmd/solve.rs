//! `goref solve`: the exact result of a position under perfect play (issue 27), from the
//! empty board or from the end of a record's main line, with its history.
//!
//! The first line of standard output is the value in SGF `RE` form (`B+6`, `W+4`, `0`; `B+`
//! for a win by the long cycle rule), or `undecided` when the budget ran out.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use goref_rules::{Game, Geometry, KoRule, Komi, Move, Preset, Ruleset};
use goref_solve::{Options, Report, Value, Verdict};
use serde::Serialize;

/// Arguments of `goref solve`.
#[derive(clap::Args)]
pub struct Args {
    /// An SGF record or a JSON graph record (as `goref score` reads), `-` for standard input:
    /// the position at the end of its main line, with its history.
    #[arg(conflicts_with_all = ["size", "graph"], required_unless_present_any = ["size", "graph"])]
    file: Option<PathBuf>,
    /// The empty board `WxH` (or `N`).
    #[arg(long, value_parser = super::parse_size, conflicts_with = "graph")]
    size: Option<(usize, usize)>,
    /// The empty board on a graph: a file in the graph format, or `path:N`, `cycle:N`,
    /// `grid:WxH`, `torus:WxH`.
    #[arg(long)]
    graph: Option<String>,
    /// Rules preset (default: the file's RU when recognised, else tromp-taylor).
    #[arg(long, value_parser = super::parse_preset)]
    rules: Option<Preset>,
    /// Another ko rule for the preset: positional, situational or long-cycle.
    #[arg(long)]
    ko: Option<KoRule>,
    /// Komi (default: the file's KM, else 0).
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_komi)]
    komi: Option<Komi>,
    /// Stop after this many nodes and print `undecided` with the bounds proved.
    #[arg(long)]
    budget: Option<u64>,
    /// Results the transposition table may hold (about 130 bytes each); beyond that, new
    /// results replace old ones.
    #[arg(long, default_value_t = 1 << 22)]
    table: usize,
    /// Threads searching together, sharing the table (default: the cores available). The
    /// value does not depend on it; the nodes, the time and the principal variation may.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
    /// Print the bounds proved on standard error as the search goes.
    #[arg(long)]
    progress: bool,
    /// Print one JSON object instead of lines.
    #[arg(long)]
    json: bool,
}

/// What `--json` prints.
#[derive(Serialize)]
struct JsonReport {
    /// The value in SGF `RE` form, or `undecided`.
    result: String,
    /// Black's margin in points (komi included); absent for a long-cycle win or undecided.
    #[serde(skip_serializing_if = "Option::is_none")]
    margin: Option<f64>,
    /// When undecided: the bounds proved, in `RE` form (absent where none was).
    #[serde(skip_serializing_if = "Option::is_none")]
    lower: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    upper: Option<String>,
    /// The principal variation: `B A2`, `W pass`, ...
    pv: Vec<String>,
    nodes: u64,
    pv_nodes: u64,
    seconds: f64,
    rules: String,
    ko: String,
    komi: f64,
    to_move: char,
    moves_played: usize,
}

/// Runs `goref solve`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let (game, preset, komi) = match load(args)? {
        Ok(loaded) => loaded,
        Err(message) => {
            eprintln!("goref: {message}");
            return Ok(ExitCode::from(1));
        }
    };
    let options = Options {
        budget: args.budget,
        table_entries: args.table.max(1),
        principal_variation: true,
        progress: args.progress.then_some(|p: &goref_solve::Progress| {
            let show = |v: Option<Value>| v.map_or("(none)".into(), |v| v.to_sgf());
            eprintln!(
                "proved: at least {}, at most {} ({} nodes, {:.1} s)",
                show(p.lower),
                show(p.upper),
                p.nodes,
                p.elapsed.as_secs_f64()
            );
        }),
        threads: args.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            |n| n as usize,
        ),
    };
    let report = goref_solve::solve(&game, &options).map_err(|e| anyhow::anyhow!("{e}"))?;
    let json = json_report(&game, &report, preset, komi);
    if args.json {
        println!("{}", serde_json::to_string(&json)?);
    } else {
        println!("{}", json.result);
        if matches!(report.verdict, Verdict::Undecided { .. }) {
            println!(
                "bounds proved: at least {}, at most {}",
                json.lower.as_deref().unwrap_or("(none)"),
                json.upper.as_deref().unwrap_or("(none)")
            );
        }
        if matches!(report.verdict, Verdict::Proven(_)) {
            println!("pv: {}", json.pv.join(" "));
        }
        println!(
            "nodes {} (pv {}), {:.3} s, {} ko={} komi {}, {} to move after {}",
            report.nodes,
            report.pv_nodes,
            json.seconds,
            preset,
            game.rules().ko,
            komi,
            game.to_move(),
            goref_runner::count(game.moves().len(), "move")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The game to solve and its rules, or why the record cannot be replayed.
fn load(args: &Args) -> anyhow::Result<Result<(Game, Preset, Komi), String>> {
    let with_ko = |rules: Ruleset| match args.ko {
        Some(ko) => Ruleset { ko, ..rules },
        None => rules,
    };
    let empty = |geometry: Geometry| {
        let preset = args.rules.unwrap_or(Preset::TrompTaylor);
        let komi = args.komi.unwrap_or(Komi::ZERO);
        let rules = with_ko(Ruleset::preset(preset).with_komi(komi));
        Ok(Ok((Game::new(Arc::new(geometry), rules), preset, komi)))
    };
    if let Some((w, h)) = args.size {
        return empty(Geometry::rect(w, h)?);
    }
    if let Some(graph) = &args.graph {
        return empty(super::read_graph(graph)?);
    }
    let (name, text) = super::score::read_input(args.file.as_ref())?;
    if text.trim_start().starts_with('{') {
        return Ok(
            super::score::replay_graph_record(&name, &text, args.rules, args.komi)?.map(
                |(game, preset, komi)| {
                    let rules = with_ko(*game.rules());
                    rebuild(&game, rules).map(|game| (game, preset, komi))
                },
            ),
        )
        .map(|r| r.and_then(|r| r.map_err(|e| format!("{name}: {e}"))));
    }
    let record = goref_sgf::parse(&text).with_context(|| name.clone())?;
    let preset = super::score::default_preset(args.rules, &record);
    let komi = args.komi.or(record.komi).unwrap_or(Komi::ZERO);
    let rules = with_ko(Ruleset::preset(preset).with_komi(komi));
    Ok(record
        .replay(rules)
        .map(|game| (game, preset, komi))
        .map_err(|e| format!("{name}: {e}")))
}

/// The same game under other rules (another ko rule): its moves replayed from its start.
fn rebuild(game: &Game, rules: Ruleset) -> Result<Game, goref_rules::IllegalMove> {
    if rules == *game.rules() {
        return Ok(game.clone());
    }
    let mut again = Game::from_position(game.start().clone(), game.first_player(), rules);
    for &(_, mv) in game.moves() {
        if again.end() == Some(goref_rules::End::TwoPasses) {
            again.resume();
        }
        again.play(mv)?;
    }
    Ok(again)
}

fn json_report(game: &Game, report: &Report, preset: Preset, komi: Komi) -> JsonReport {
    let sgf = |v: Value| v.to_sgf();
    let (result, margin, lower, upper) = match report.verdict {
        Verdict::Proven(v) => (
            sgf(v),
            v.half_points().map(|h| f64::from(h) / 2.0),
            None,
            None,
        ),
        Verdict::Undecided { lower, upper } => (
            "undecided".to_string(),
            None,
            lower.map(sgf),
            upper.map(sgf),
        ),
    };
    let mut color = game.to_move();
    let pv = report
        .pv
        .iter()
        .map(|&mv| {
            let text = match mv {
                Move::Pass => format!("{} pass", color.letter()),
                Move::Play(p) => format!("{} {}", color.letter(), game.geometry().name(p)),
            };
            color = color.opponent();
            text
        })
        .collect();
    JsonReport {
        result,
        margin,
        lower,
        upper,
        pv,
        nodes: report.nodes,
        pv_nodes: report.pv_nodes,
        seconds: report.elapsed.as_secs_f64(),
        rules: preset.name().to_string(),
        ko: game.rules().ko.to_string(),
        komi: komi.as_f64(),
        to_move: game.to_move().letter(),
        moves_played: game.moves().len(),
    }
}
