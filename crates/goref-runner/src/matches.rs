//! `goref match`: what a match is (two engines, so many games, the settings), how it can stop,
//! and how it runs: as the two-engine case of the tournament runner (one scheduler for both),
//! with the match's table ([`crate::summary`]), its SPRT on wins, losses and draws, and its
//! stop at an engine that cannot start.

use std::path::PathBuf;
use std::time::Duration;

use std::time::Instant;

use goref_match::game::{Contestant, GameSettings};
use goref_tournament::stats::{Sprt, SprtCounts, SprtDecision};
use goref_tournament::GameLine;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::summary::{Stop, Summary};
use crate::tournament::{
    read_results, run_tournament, Entrant, Flow, Restart, TournamentConfig, TournamentError,
};
use goref_tournament::plan::Format;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The two engines; engine 0 has Black in odd-numbered games (game 1, 3, …).
    pub players: [Contestant; 2],
    /// Games to play.
    pub games: usize,
    /// Games at once.
    pub jobs: usize,
    /// Every game's settings.
    pub settings: GameSettings,
    /// The output directory (records, logs, `results.jsonl`).
    pub out: PathBuf,
    /// Stop when this SPRT on wins, losses and draws decides (the trinomial model).
    pub sprt: Option<Sprt>,
    /// Draw a progress bar on standard error.
    pub progress: bool,
}

/// A match that could not go on: the tournament runner's error, a match being a tournament of
/// two.
#[derive(Debug)]
pub struct MatchError(pub TournamentError);

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            e @ TournamentError::Engine { .. } => write!(f, "match stopped: {e}"),
            // The tournament's text starts "stopped:" too: said once.
            TournamentError::Game(m) => write!(f, "match stopped: {m}"),
            other => write!(f, "{other}"),
        }
    }
}

impl std::error::Error for MatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// CPU time goref itself has used (user + system), for the referee's share of wall time.
#[must_use]
pub fn own_cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return Duration::ZERO;
        }
        usage
    };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

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
                per_game: Vec::new(),
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

/// The table of match `config` with the games `reports`.
#[must_use]
pub fn summary_of(config: &MatchConfig, reports: Vec<GameLine>) -> Summary {
    let s = &config.settings;
    Summary {
        names: [
            config.players[0].name.clone(),
            config.players[1].name.clone(),
        ],
        reports,
        games_planned: config.games,
        description: format!(
            "{}x{}, {} rules, komi {}, {}, end {}",
            s.width, s.height, s.game.rules, s.game.rules.komi, s.game.time, s.game.end
        ),
        sprt: config.sprt,
        stop: Stop::Complete,
        wall: Duration::ZERO,
        resumed: 0,
        signal: None,
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
        .cloned()
        .collect();
    let resumed = reports.len();
    let mut summary = summary_of(&config, reports);
    if let Some(sprt) = &config.sprt {
        if sprt.decision(SprtCounts::Games(&summary.wld(0))) != SprtDecision::Continue {
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
        summary.add(line.clone());
        bar.inc(1);
        bar.set_message(summary.score_line());
        match &sprt {
            Some(sprt)
                if sprt.decision(SprtCounts::Games(&summary.wld(0))) != SprtDecision::Continue =>
            {
                sprt_decided = true;
                Flow::Stop
            }
            _ => Flow::Continue,
        }
    })
    .await;
    bar.finish_and_clear();
    let finished = finished.map_err(MatchError)?;
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
