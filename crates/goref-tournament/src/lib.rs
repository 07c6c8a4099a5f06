//! Tournaments of Go programs: who plays whom (pairings), and what the results say (standings,
//! tie-breaks, ratings).

pub mod pairing;
pub mod rating;
