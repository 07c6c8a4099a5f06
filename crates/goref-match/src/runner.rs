//! What a match is (two engines, so many games, the settings) and how it can stop. The games
//! are scheduled by the tournament runner (crate goref-tournament, `run_match`): a match is
//! its two-engine case.

use std::path::PathBuf;
use std::time::Duration;

use crate::game::{Player, Settings, StartError};
use crate::stats::Sprt;

/// The name of the results file in the output directory.
pub const RESULTS_FILE: &str = "results.jsonl";
/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The two engines; engine 0 has Black in odd-numbered games (game 1, 3, …).
    pub players: [Player; 2],
    pub games: usize,
    pub jobs: usize,
    pub settings: Settings,
    pub out: PathBuf,
    pub sprt: Option<Sprt>,
    /// Draw a progress bar on standard error.
    pub progress: bool,
}

/// Why a match stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every game was played.
    Complete,
    /// Ctrl-C: running games were finished (or abandoned after a second Ctrl-C).
    Interrupted,
    /// The SPRT decided.
    Sprt,
}

/// A match that could not go on.
#[derive(Debug)]
pub enum MatchError {
    /// An engine could not start: the match stopped.
    Start(StartError),
    /// The output directory or results file.
    Io(String),
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchError::Start(e) => write!(f, "match stopped: {e}"),
            MatchError::Io(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for MatchError {}

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
