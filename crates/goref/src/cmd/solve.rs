//! `goref solve`: the exact result of a position under perfect play (issue 27), from the
//! empty board or from the end of a record's main line, with its history.
//!
//! The first line of standard output is the value in SGF `RE` form (`B+6`, `W+4`, `0`; `B+`
//! for a win by the long cycle rule), or `undecided` when the budget ran out.
//!
//! `--certificate FILE` writes the value with a strategy for each side (issue 41, the format
//! of [`goref_solve::certificate`]); `--check FILE` verifies one by the literal rules: exit
//! status 0 when it proves its value, 1 with the line that fails and why, 2 when the file is
//! not a certificate (with the line and what is wrong there).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use goref_rules::{Game, Geometry, KoRule, Komi, Move, Preset, Ruleset};
use goref_solve::certificate::{self, Certificate};
use goref_solve::{Options, Report, Value, Verdict};
use serde::Serialize;

/// Arguments of `goref solve`.
#[derive(clap::Args)]
pub struct Args {
    /// An SGF record or a JSON graph record (as `goref score` reads), `-` for standard input:
    /// the position at the end of its main line, with its history.
    #[arg(conflicts_with_all = ["size", "graph"], required_unless_present_any = ["size", "graph", "check"])]
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
    /// Also write a certificate of the value to FILE, in JSON Lines: a header (board, rules,
    /// komi, the moves from the empty board, the value), then Black's strategy proving "at
    /// least the value" and White's proving "at most", a line for each turn of the prover that
    /// its strategy reaches, every reply of the other side followed. For rectangular boards
    /// from the empty board, of up to about a dozen points (3×3 takes some 8,000 lines under nstt).
    #[arg(long, value_name = "FILE", conflicts_with = "graph")]
    certificate: Option<PathBuf>,
    /// The most lines a certificate may have (beyond it, none is written).
    #[arg(long, value_name = "N", default_value_t = goref_solve::MAX_CERTIFICATE_LINES)]
    certificate_lines: usize,
    /// Verify the certificate in FILE (`-`: standard input) by the literal rules, sharing
    /// nothing with the search: exit status 0 when it proves its value, 1 with the line that
    /// fails and why (an illegal or wrong play, a missing reply, a false value), 2 when the
    /// file is not a certificate.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "size", "graph", "rules", "ko", "komi", "budget", "certificate", "progress"])]
    check: Option<PathBuf>,
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
    /// With `--certificate`: the file written and its strategies' lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    certificate: Option<CertificateSummary>,
}

/// The certificate written, in `--json`'s report.
#[derive(Serialize)]
struct CertificateSummary {
    file: String,
    black_lines: usize,
    white_lines: usize,
    /// Nodes searched to extract the strategies (beyond the proof's).
    strategy_nodes: u64,
}

/// What `--check --json` prints.
#[derive(Serialize)]
struct CheckReport {
    /// `verified` or `refused`.
    verdict: &'static str,
    /// The value the certificate states, in SGF `RE` form.
    value: String,
    /// When refused: the line that fails (the header is line 1) and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// When verified: each strategy's lines and the ends of the game scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    black_lines: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    white_lines: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ends: Option<u64>,
    seconds: f64,
}

/// Writes `certificate` to `path`, a line each.
fn write_certificate(path: &Path, certificate: &Certificate) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("--certificate {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    for line in certificate.to_lines() {
        writeln!(out, "{line}")?;
    }
    out.flush()
        .with_context(|| format!("--certificate {}", path.display()))?;
    Ok(())
}

/// `goref solve --check FILE`.
fn check(path: &Path, json: bool) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let (name, text) = super::score::read_input(Some(&path.to_path_buf()))?;
    let read = Certificate::parse(&text).with_context(|| name.clone())?;
    let verdict = certificate::check(&read);
    let value = read.header.value.to_sgf();
    let seconds = start.elapsed().as_secs_f64();
    let report = match &verdict {
        Ok(checked) => CheckReport {
            verdict: "verified",
            value,
            line: None,
            reason: None,
            black_lines: Some(checked.black_lines),
            white_lines: Some(checked.white_lines),
            ends: Some(checked.ends),
            seconds,
        },
        Err(refutation) => CheckReport {
            verdict: "refused",
            value,
            line: Some(refutation.line),
            reason: Some(refutation.to_string()),
            black_lines: None,
            white_lines: None,
            ends: None,
            seconds,
        },
    };
    if json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        match &verdict {
            Ok(checked) => println!(
                "verified: {} (Black's strategy {}, White's {}; {} scored; {:.3} s)",
                report.value,
                goref_runner::count(checked.black_lines, "line"),
                goref_runner::count(checked.white_lines, "line"),
                goref_runner::count(checked.ends as usize, "game end"),
                seconds
            ),
            Err(refutation) => println!("refused: {name} {refutation}"),
        }
    }
    Ok(if verdict.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Runs `goref solve`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.check {
        return check(path, args.json);
    }
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
    let (report, certified) = match &args.certificate {
        None => (
            goref_solve::solve(&game, &options).map_err(|e| anyhow::anyhow!("{e}"))?,
            None,
        ),
        Some(path) => {
            let certified =
                goref_solve::certify(&game, preset, &options, args.certificate_lines.max(1))
                    .map_err(|e| anyhow::anyhow!("--certificate: {e}"))?;
            write_certificate(path, &certified.certificate)?;
            let lines = &certified.certificate.lines;
            let black_lines = lines
                .iter()
                .filter(|l| l.proves == goref_rules::Color::Black)
                .count();
            let summary = CertificateSummary {
                file: path.display().to_string(),
                black_lines,
                white_lines: lines.len() - black_lines,
                strategy_nodes: certified.strategy_nodes,
            };
            (certified.report, Some(summary))
        }
    };
    let mut json = json_report(&game, &report, preset, komi);
    json.certificate = certified;
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
        if let Some(c) = &json.certificate {
            println!(
                "certificate: {} (Black's strategy {}, White's {}; {} nodes to extract them)",
                c.file,
                goref_runner::count(c.black_lines, "line"),
                goref_runner::count(c.white_lines, "line"),
                c.strategy_nodes
            );
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
        certificate: None,
    }
}
