//! `goref match`: the two-engine case of the tournament runner (one scheduler for both), with
//! the match's table, its SPRT on wins, losses and draws, and its stop at an engine that
//! cannot start.

use std::time::Instant;

use goref_match::runner::{MatchConfig, MatchError, Stop};
use goref_match::stats::SprtState;
use goref_match::Summary;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::plan::Format;
use crate::runner::TournamentError;
use crate::runner::{read_results, run_tournament, Entrant, Flow, Restart, TournamentConfig};

/// The tournament a match is: two engines, `games` games with colours alternating (engine 0
/// Black in game 1). An engine whose command names the game or the colour (`{game}`,
/// `{color}`) is started afresh for every game; the others stay running between games.
#[must_use]
pub fn as_tournament(config: &MatchConfig) -> TournamentConfig {
    let entrants = config
        .players
        .iter()
        .map(|p| {
            let command = p.spec.to_string();
            let restart = if command.contains("{game}") || command.contains("{color}") {
                Restart::Always
            } else {
                Restart::Auto
            };
            Entrant {
                player: p.clone(),
                init: Vec::new(),
                restart,
                time: None,
            }
        })
        .collect();
    TournamentConfig {
        entrants,
        format: Format::RoundRobin {
            games_per_pair: config.games,
        },
        settings: config.settings.clone(),
        jobs: config.jobs,
        out: config.out.clone(),
        max_failures: usize::MAX,
        openings: Vec::new(),
        kind: "match",
        records: String::new(),
        sprt: None,
    }
}

/// Plays the match, resuming from the results already in `config.out`.
///
/// # Errors
///
/// When an engine cannot start, or the directory holds another match.
pub async fn run_match(config: MatchConfig) -> Result<Summary, MatchError> {
    let started = Instant::now();
    let done = read_results(&config.out).unwrap_or_default();
    let reports: Vec<_> = done
        .values()
        .filter(|l| l.game <= config.games)
        .map(crate::runner::report)
        .collect();
    let resumed = reports.len();
    let mut summary = Summary::new(&config, reports);
    if let Some(sprt) = &config.sprt {
        if sprt.state(&summary.wld(0)) != SprtState::Continue {
            summary.stop = Stop::Sprt;
            summary.resumed = resumed;
            return Ok(summary);
        }
    }
    let bar = if config.progress {
        ProgressBar::with_draw_target(
            Some(config.games as u64),
            ProgressDrawTarget::stderr_with_hz(4),
        )
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games {elapsed_precise} eta {eta} {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_position(resumed as u64);
    bar.set_message(summary.score_line());
    let sprt = config.sprt;
    let mut sprt_decided = false;
    let tournament = as_tournament(&config);
    let finished = run_tournament(tournament, |line, _, _| {
        if line.game > config.games || summary.reports.iter().any(|r| r.game == line.game) {
            return Flow::Continue;
        }
        summary.add(crate::runner::report(line));
        bar.inc(1);
        bar.set_message(summary.score_line());
        match &sprt {
            Some(sprt) if sprt.state(&summary.wld(0)) != SprtState::Continue => {
                sprt_decided = true;
                Flow::Stop
            }
            _ => Flow::Continue,
        }
    })
    .await;
    bar.finish_and_clear();
    let finished = finished.map_err(|e| match e {
        e @ (TournamentError::Engine { .. } | TournamentError::Game(_)) => {
            MatchError::Start(goref_match::game::StartError::general(e.to_string()))
        }
        other => MatchError::Io(other.to_string()),
    })?;
    if sprt_decided {
        summary.stop = Stop::Sprt;
    } else if finished.interrupted {
        summary.stop = Stop::Interrupted;
    }
    summary.signal = finished.signal;
    summary.wall = started.elapsed();
    summary.resumed = resumed;
    Ok(summary)
}
