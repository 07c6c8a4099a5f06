//! Tournaments of Go programs, the part that plays no game: who plays whom ([`pairing`],
//! [`plan`], [`continuous`]), the record of a finished game ([`line`]), what the results say
//! ([`standings`], tie-breaks, [`rating`]) and the match statistics ([`stats`]: Elo, LOS and
//! the SPRT). Running the games on engines is crate goref-runner's.

pub mod continuous;
pub mod line;
pub mod pairing;
pub mod plan;
pub mod rating;
pub mod standings;
pub mod stats;

pub use line::GameLine;
pub use plan::{Format, Plan};
