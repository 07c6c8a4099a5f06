//! `goref score`: replay a game record under the rules and print its result.
//!
//! The first line of standard output is the result in SGF `RE` form; scripts rely on it.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use goref_rules::{Color, End, Game, Komi, Move, Outcome, Preset, Ruleset, Score, WinBy};
use goref_sgf::GameRecord;
use serde::Serialize;

/// The game scored when no file is given: reference 004's 2×2 superko game, White wins by 4.
pub const BUNDLED_EXAMPLE: &str = include_str!("../../../../examples/tt-2x2-superko.sgf");

/// Arguments of `goref score`.
#[derive(clap::Args)]
pub struct Args {
    /// The SGF file to score, `-` for standard input (default: a bundled example game).
    file: Option<PathBuf>,
    /// Rules preset (default: the file's RU when recognised, else tromp-taylor).
    #[arg(long, value_parser = super::parse_preset)]
    rules: Option<Preset>,
    /// Komi (default: the file's KM, else 0).
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_komi)]
    komi: Option<Komi>,
    /// Print one JSON object instead of the result line.
    #[arg(long)]
    json: bool,
    /// Dead stones, for a game that ended by two passes: `record` (the stones on the other
    /// side's TB/TW territory, as goref writes them; none when the file has no TB/TW), `none`
    /// (every stone counts) or `judge` (the blocks the Olympiad's default removal, 001 §3.9.2,
    /// removes when every block is disputed).
    #[arg(long, value_enum, default_value_t = Dead::Record)]
    dead: Dead,
}

/// Which stones `goref score` removes before counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Dead {
    /// The record's: stones on the other colour's TB/TW points.
    Record,
    /// None: all stones alive.
    None,
    /// The blocks 3.9.2 removes (see `goref judge`).
    Judge,
}

/// What `--json` prints.
#[derive(Serialize)]
struct Report {
    result: String,
    winner: Option<char>,
    black: u32,
    white: u32,
    komi: f64,
    margin: f64,
    moves: usize,
    end: &'static str,
    rules: String,
    captures: Captures,
    #[serde(skip_serializing_if = "Option::is_none")]
    long_cycle: Option<LongCycle>,
    /// Stones removed (`--dead judge`, or `--dead record` when the file has TB/TW).
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<usize>,
}

#[derive(Serialize)]
struct Captures {
    black: u32,
    white: u32,
}

#[derive(Serialize)]
struct LongCycle {
    repeats_position_after_move: usize,
    captures_between: Captures,
}

/// Runs `goref score`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let (name, text) = read_input(args.file.as_ref())?;
    if text.trim_start().starts_with('{') {
        return score_graph_record(args, &name, &text);
    }
    let record = goref_sgf::parse(&text).with_context(|| name.clone())?;
    let preset = default_preset(args.rules, &record);
    let komi = args.komi.or(record.komi).unwrap_or(Komi::ZERO);
    let rules = Ruleset::preset(preset).with_komi(komi);
    let game = match record.replay(rules) {
        Ok(game) => game,
        Err(e) => {
            eprintln!("goref: {name}: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut report = report(&game, preset);
    match args.dead {
        Dead::Judge if matches!(game.end(), Some(End::TwoPasses) | None) => {
            let judge = goref_judge::Judge::of_game(&game, goref_judge::Budget::default());
            let removal = goref_judge::default_removal(&judge, goref_judge::Disputes::All);
            report.rescore(&removal.score, removal.removed.len());
        }
        Dead::Record if record.territory.is_some() => {
            if let Some(scored) = record.final_score(&game) {
                report.rescore(&scored.score, scored.removed.len());
            }
        }
        _ => {}
    }
    // A game closed without a result (RE[Void]: never begun, abandoned, aborted by the TD),
    // whatever its board: no result; the board only gives the counts.
    let re = record
        .result
        .as_deref()
        .and_then(|re| re.parse::<Outcome>().ok());
    if re == Some(Outcome::Void) {
        report.result = Outcome::Void.to_sgf();
        report.winner = None;
        report.margin = 0.0;
        report.end = "void";
    }
    // A game that ended off the board (resignation, time, forfeit, a TD's decision of one of
    // those): the record's RE is the result; the board only gives the counts.
    else if game.end().is_none() {
        if let Some(outcome) = record
            .result
            .as_deref()
            .and_then(|re| re.parse::<Outcome>().ok())
        {
            let end = match outcome {
                Outcome::Win {
                    by: WinBy::Resignation,
                    ..
                } => Some("resignation"),
                Outcome::Win {
                    by: WinBy::Time, ..
                } => Some("time"),
                Outcome::Win {
                    by: WinBy::Forfeit, ..
                } => Some("forfeit"),
                // Exact early adjudication (`--adjudicate exact`): the record's last move
                // left a position whose winner is certain, and RE is that winner by the
                // certain margin. The same test on the replayed game (its history included)
                // must say so.
                Outcome::Win {
                    by: WinBy::Points { .. },
                    ..
                } if goref_judge::decided(&game).is_some_and(|d| d.outcome() == outcome) => {
                    Some("decided")
                }
                // `--adjudicate perfect:NODES`: the value under perfect play from the last
                // position, proved again by the solver with the nodes the record names.
                Outcome::Win {
                    by: WinBy::Points { .. } | WinBy::LongCycle { .. },
                    ..
                }
                | Outcome::Draw
                    if perfect_play_gives(&record, &game, outcome) =>
                {
                    Some("decided")
                }
                _ => None,
            };
            if let Some(end) = end {
                report.result = outcome.to_sgf();
                report.winner = outcome.winner().map(Color::letter);
                report.end = end;
                if let Outcome::Win {
                    winner,
                    by: WinBy::Points { half_points },
                } = outcome
                {
                    let sign = if winner == Color::Black { 1.0 } else { -1.0 };
                    report.margin = sign * f64::from(half_points) / 2.0;
                }
                if outcome == Outcome::Draw {
                    report.margin = 0.0;
                }
            }
        }
    }
    print_report(args, &report, komi, preset)
}

/// Whether the record ended by `--adjudicate perfect` ("proved in N nodes" in its comment)
/// and the solver proves `outcome` from its last position (its history included) within
/// those nodes again.
fn perfect_play_gives(record: &GameRecord, game: &Game, outcome: Outcome) -> bool {
    let Some(comment) = record.comment.as_deref() else {
        return false;
    };
    let Some(rest) = comment.split("decided by perfect play").nth(1) else {
        return false;
    };
    let nodes = rest
        .split("proved in ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok());
    nodes.is_some_and(|n| {
        goref_referee::adjudicate::perfect_value(game, n).is_some_and(|(o, _)| o == outcome)
    })
}

/// The result line (`RE` form, what scripts read) and the counts, or one JSON object.
fn print_report(
    args: &Args,
    report: &Report,
    komi: Komi,
    preset: Preset,
) -> anyhow::Result<ExitCode> {
    if args.json {
        println!("{}", serde_json::to_string(report)?);
    } else {
        println!("{}", report.result);
        println!(
            "black {} white {} komi {} ({}, {}, {})",
            report.black,
            report.white,
            komi,
            preset,
            goref_runner::count(report.moves, "move"),
            report.end
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The name and text of a record: a file, `-` for standard input, or the bundled example.
pub(crate) fn read_input(file: Option<&PathBuf>) -> anyhow::Result<(String, String)> {
    match file {
        None => Ok(("bundled example".into(), BUNDLED_EXAMPLE.into())),
        Some(path) if path.as_os_str() == "-" => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .context("reading standard input")?;
            Ok((
                "<stdin>".into(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ))
        }
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            Ok((
                path.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ))
        }
    }
}

/// The rules `score` and `judge` use: `--rules`, else the file's `RU` when it names a preset,
/// else Tromp-Taylor.
pub fn default_preset(rules: Option<Preset>, record: &GameRecord) -> Preset {
    rules
        .or_else(|| record.preset())
        .unwrap_or(Preset::TrompTaylor)
}

impl Report {
    /// The result, scores and margin of `score`, after `removed` stones were taken off.
    fn rescore(&mut self, score: &Score, removed: usize) {
        let outcome = score.outcome();
        self.result = outcome.to_sgf();
        self.winner = outcome.winner().map(Color::letter);
        self.black = score.black;
        self.white = score.white;
        self.margin = f64::from(score.margin_half_points()) / 2.0;
        self.removed = Some(removed);
    }
}

fn report(game: &Game, preset: Preset) -> Report {
    let score = game.score();
    let outcome = game.outcome();
    let (end, long_cycle) = match game.end() {
        Some(End::TwoPasses) => ("two-passes", None),
        Some(End::LongCycle {
            first_after_turns,
            captures,
        }) => (
            "long-cycle",
            Some(LongCycle {
                repeats_position_after_move: first_after_turns,
                captures_between: Captures {
                    black: captures.black,
                    white: captures.white,
                },
            }),
        ),
        _ => ("record-ended", None),
    };
    let captures = game.captures();
    Report {
        result: outcome.to_sgf(),
        winner: outcome.winner().map(Color::letter),
        black: score.black,
        white: score.white,
        komi: score.komi.as_f64(),
        // A long cycle is won or drawn by captures (001 §3.6), not by a margin of points.
        margin: if matches!(game.end(), Some(End::LongCycle { .. })) {
            0.0
        } else {
            f64::from(score.margin_half_points()) / 2.0
        },
        moves: game.moves().len(),
        end,
        rules: preset.name().to_string(),
        captures: Captures {
            black: captures.black,
            white: captures.white,
        },
        long_cycle,
        removed: None,
    }
}

/// A game on a board graph, which SGF cannot carry: `{"graph": SHAPE-OR-TEXT, "rules": PRESET,
/// "komi": K, "moves": [POINT | "pass", ...]}` (points numbered from 0, Black first, turns
/// alternating; play after two passes is a resumption, as in SGF records).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphRecord {
    graph: String,
    rules: Option<String>,
    komi: Option<f64>,
    moves: Vec<GraphMove>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum GraphMove {
    Point(usize),
    Word(String),
}

/// `goref score` of a graph record.
fn score_graph_record(args: &Args, name: &str, text: &str) -> anyhow::Result<ExitCode> {
    let (game, preset, komi) = match replay_graph_record(name, text, args.rules, args.komi)? {
        Ok(replayed) => replayed,
        Err(message) => {
            eprintln!("goref: {message}");
            return Ok(ExitCode::from(1));
        }
    };
    let report = report(&game, preset);
    print_report(args, &report, komi, preset)
}

/// A graph record replayed under `rules` and `komi` (default: the record's, else
/// tromp-taylor and 0): the game, its preset and komi; or why a move cannot be played.
pub(crate) fn replay_graph_record(
    name: &str,
    text: &str,
    rules: Option<Preset>,
    komi: Option<Komi>,
) -> anyhow::Result<Result<(Game, Preset, Komi), String>> {
    let record: GraphRecord =
        serde_json::from_str(text).with_context(|| format!("{name}: a graph record"))?;
    let geometry = goref_rules::parse_graph(&record.graph)
        .map_err(|e| anyhow::anyhow!("{name}: graph: {e}"))?;
    let preset = match (rules, &record.rules) {
        (Some(p), _) => p,
        (None, Some(r)) => r.parse().map_err(|e| anyhow::anyhow!("{name}: {e}"))?,
        (None, None) => Preset::TrompTaylor,
    };
    let komi = match (komi, record.komi) {
        (Some(k), _) => k,
        (None, Some(k)) => Komi::from_f64(k).map_err(|e| anyhow::anyhow!("{name}: {e}"))?,
        (None, None) => Komi::ZERO,
    };
    let mut game = Game::new(
        std::sync::Arc::new(geometry),
        Ruleset::preset(preset).with_komi(komi),
    );
    for (i, m) in record.moves.iter().enumerate() {
        let mv = match m {
            GraphMove::Point(p) if *p < game.geometry().len() => {
                Move::Play(goref_rules::Point::new(*p))
            }
            GraphMove::Point(p) => {
                return Ok(Err(format!(
                    "{name}: move {}: point {p} is not on the {}-point graph",
                    i + 1,
                    game.geometry().len()
                )));
            }
            GraphMove::Word(w) if w.eq_ignore_ascii_case("pass") => Move::Pass,
            GraphMove::Word(w) => {
                return Ok(Err(format!(
                    "{name}: move {}: '{w}' is neither a point number nor pass",
                    i + 1
                )));
            }
        };
        if game.end() == Some(End::TwoPasses) {
            game.resume();
        }
        if let Err(e) = game.play(mv) {
            return Ok(Err(format!(
                "{name}: move {} ({} {}) is illegal: {}",
                i + 1,
                e.color,
                match mv {
                    Move::Pass => "pass".to_string(),
                    Move::Play(p) => format!("point {}", p.index()),
                },
                e.reason
            )));
        }
    }
    Ok(Ok((game, preset, komi)))
}
