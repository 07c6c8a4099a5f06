//! `goref score`: replay a game record under the rules and print its result.
//!
//! The first line of standard output is the result in SGF `RE` form; scripts rely on it.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use goref_rules::{Color, End, Game, Komi, Move, Outcome, Preset, Ruleset, WinBy};
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
    /// Dead stones: `none` (every stone counts) or `judge` (first remove the blocks the
    /// Olympiad's default removal, 001 §3.9.2, removes when every block is disputed).
    #[arg(long, value_enum, default_value_t = Dead::None)]
    dead: Dead,
}

/// Which stones `goref score` removes before counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Dead {
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
    /// Stones removed by `--dead judge`.
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
    let preset = args
        .rules
        .or_else(|| record.preset())
        .unwrap_or(Preset::TrompTaylor);
    let komi = args.komi.or(record.komi).unwrap_or(Komi::ZERO);
    let rules = Ruleset::preset(preset).with_komi(komi);
    let game = match replay(&record, rules) {
        Ok(game) => game,
        Err(message) => {
            eprintln!("goref: {name}: {message}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut report = report(&game, preset);
    if args.dead == Dead::Judge && matches!(game.end(), Some(End::TwoPasses) | None) {
        let judge = goref_judge::Judge::of_game(&game, goref_judge::Budget::default());
        let removal = goref_judge::default_removal(&judge, goref_judge::Disputes::All);
        let outcome = removal.score.outcome();
        report.result = outcome.to_sgf();
        report.winner = outcome.winner().map(Color::letter);
        report.black = removal.score.black;
        report.white = removal.score.white;
        report.margin = f64::from(removal.score.margin_half_points()) / 2.0;
        report.removed = Some(removal.removed.len());
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

/// Replays the record's main line; an illegal move is described in one line.
pub fn replay(record: &GameRecord, rules: Ruleset) -> Result<Game, String> {
    let start = record.start_board().map_err(|e| e.to_string())?;
    let first = record
        .first_player
        .or_else(|| record.moves.first().map(|m| m.color))
        .unwrap_or(Color::Black);
    let mut game = Game::from_position(start, first, rules);
    for (i, m) in record.moves.iter().enumerate() {
        let number = i + 1;
        let point = match m.mv {
            Move::Pass => "pass".to_string(),
            Move::Play(p) => game.geometry().name(p),
        };
        let place = format!("line {}: move {number} ({} {point})", m.line, m.color);
        // Play that goes on after two passes is a resumption by a dead-stone protocol
        // (reference 000, Chinese rules; Olympiad 3.7.4): replay it as such.
        if game.end() == Some(End::TwoPasses) {
            game.resume();
        }
        if m.color != game.to_move() {
            return Err(format!(
                "{place} is out of turn: it is {}'s turn",
                game.to_move()
            ));
        }
        game.play(m.mv)
            .map_err(|e| format!("{place} is illegal: {}", e.reason))?;
    }
    Ok(game)
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
                    black: captures[0],
                    white: captures[1],
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
        margin: match outcome {
            Outcome::Win {
                by: WinBy::LongCycle { .. },
                ..
            } => 0.0,
            _ => f64::from(score.margin_half_points()) / 2.0,
        },
        moves: game.moves().len(),
        end,
        rules: preset.name().to_string(),
        captures: Captures {
            black: captures[0],
            white: captures[1],
        },
        long_cycle,
        removed: None,
    }
}
