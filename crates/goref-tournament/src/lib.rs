//! Tournaments of Go programs: who plays whom (pairings), running the games under goref's
//! referee with engines kept between games, and what the results say (standings, tie-breaks,
//! ratings).

pub mod pairing;
pub mod plan;
pub mod rating;
pub mod report;
pub mod runner;
pub mod standings;
pub mod two;

pub use plan::{Format, Plan};
pub use runner::{run_tournament, Entrant, Flow, GameLine, Restart, TournamentConfig};
pub use two::run_match;
