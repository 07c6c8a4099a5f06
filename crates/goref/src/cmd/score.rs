//! `goref score`: replay a game record under the rules and print its result.
//!
//! The first line of standard output is the result in SGF `RE` form; scripts rely on it.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use goref_rules::{Color, End, Game, Komi, Preset, Ruleset, Score};
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
    #[arg(long, allow_hyphen_values = true)]
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
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!("{}", report.result);
        println!(
            "black {} white {} komi {} ({}, {} moves, {})",
            report.black, report.white, komi, preset, report.moves, report.end
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn read_input(file: Option<&PathBuf>) -> anyhow::Result<(String, String)> {
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
