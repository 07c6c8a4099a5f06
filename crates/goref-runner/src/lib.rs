//! Running tournaments and matches of GTP engines: the games spread over `jobs` workers (or
//! over machines, through [`tournament::RemoteGames`]), engines kept running between games,
//! one line a game in `results.jsonl` ([`goref_tournament::GameLine`]), resume from the output
//! directory, the standings, and the HTML report.
//!
//! - [`tournament`]: the scheduler ([`run_tournament`], [`run_tournament_with`]): who plays
//!   (crate goref-tournament's [`goref_tournament::Plan`]), one game at a time on engines from
//!   a pool (crate goref-match plays it), signals, resume, the SPRT on game pairs.
//! - [`matches`](mod@matches): `goref match`, the tournament of two: [`MatchConfig`], [`Stop`],
//!   [`run_match`].
//! - [`summary`]: the match's table.
//! - [`report`]: the tournament's `report.html`.
//!
//! A match is a round-robin of two engines, colours alternating, through the same scheduler
//! as any tournament:
//!
//! ```
//! use goref_match::goref_gtp::EngineSpec;
//! use goref_match::{Contestant, GameSettings};
//! use goref_runner::matches::as_tournament;
//! use goref_runner::MatchConfig;
//! use goref_tournament::stats::Sprt;
//! use goref_tournament::{Format, Plan};
//!
//! let engine = |id, name: &str, cmd: &str| Contestant {
//!     id,
//!     name: name.into(),
//!     spec: EngineSpec::parse(cmd).unwrap(),
//! };
//! let config = MatchConfig {
//!     players: [
//!         engine(0, "gnugo", "gnugo --mode gtp --level 0"),
//!         engine(1, "random", "goref engine random --seed {game}"),
//!     ],
//!     games: 6,
//!     jobs: 2,
//!     settings: GameSettings::new(9, 9),
//!     out: "gnugo-vs-random".into(),
//!     sprt: Some(Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap()),
//!     progress: false,
//! };
//! let tournament = as_tournament(&config);
//! assert_eq!(tournament.format, Format::RoundRobin { games_per_pair: 6 });
//! assert_eq!(Plan::new(&tournament.format, 2).total(), 6);
//! // `goref_runner::run_match(config).await` plays it, resuming from `out`.
//! ```

pub mod matches;
pub mod report;
pub mod summary;
pub mod tournament;

pub use matches::{run_match, summary_of, MatchConfig, MatchError};

/// `n` and `word`, plural unless `n` is 1: `1 game`, `2 games`, `0 moves` (words whose
/// plural takes an `s`).
///
/// ```
/// assert_eq!(goref_runner::count(1, "game"), "1 game");
/// assert_eq!(goref_runner::count(0, "move"), "0 moves");
/// ```
#[must_use]
pub fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
pub use summary::{Stop, Summary};
pub use tournament::{
    run_tournament, run_tournament_with, Entrant, Flow, Job, RemoteGames, Restart,
    TournamentConfig, Venue, RESULTS_FILE,
};
