//! Running tournaments and matches of GTP engines: the games spread over `jobs` workers (or
//! over machines, through [`tournament::RemoteGames`]), engines kept running between games,
//! one line a game in `results.jsonl` ([`goref_tournament::GameLine`]), resume from the output
//! directory, the standings, and the HTML report.
//!
//! - [`tournament`]: the scheduler ([`run_tournament`], [`run_tournament_with`]): who plays
//!   (crate goref-tournament's [`goref_tournament::Plan`]), one game at a time on engines from
//!   a pool (crate goref-match plays it), signals, resume, the SPRT on game pairs.
//! - [`matches`]: `goref match`, the tournament of two: [`MatchConfig`], [`Stop`],
//!   [`run_match`].
//! - [`summary`]: the match's table.
//! - [`report`]: the tournament's `report.html`.

pub mod matches;
pub mod report;
pub mod summary;
pub mod tournament;

pub use matches::{run_match, MatchConfig, MatchError, Stop};
pub use summary::Summary;
pub use tournament::{
    run_tournament, run_tournament_with, Entrant, Flow, Games, Job, RemoteGames, Restart,
    TournamentConfig, RESULTS_FILE,
};
