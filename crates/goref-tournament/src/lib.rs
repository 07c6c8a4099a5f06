//! Tournaments of Go programs: who plays whom (pairings), running the games under goref's
//! referee with engines kept between games, and what the results say (standings, tie-breaks,
//! ratings).

pub mod continuous;
pub mod line;
pub mod pairing;
pub mod plan;
pub mod rating;
#[cfg(feature = "engines")]
pub mod report;
#[cfg(feature = "engines")]
pub mod runner;
pub mod standings;
#[cfg(feature = "engines")]
pub mod two;

pub use line::GameLine;
pub use plan::{Format, Plan};
#[cfg(feature = "engines")]
pub use runner::{
    run_tournament, run_tournament_with, Entrant, Flow, Games, Job, RemoteGames, Restart,
    TournamentConfig,
};
#[cfg(feature = "engines")]
pub use two::run_match;
