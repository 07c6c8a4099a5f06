//! Tournaments of Go programs, the part that plays no game: who plays whom ([`pairing`],
//! [`plan`], [`continuous`]), the record of a finished game ([`line`]), what the results say
//! ([`standings`], tie-breaks, [`rating`]) and the match statistics ([`stats`]: Elo, LOS and
//! the SPRT). Running the games on engines is crate goref-runner's.
//!
//! A tournament from its plan to its standings, whoever plays the games:
//!
//! ```
//! use goref_referee::Ending;
//! use goref_rules::{Color, Outcome, WinBy};
//! use goref_tournament::standings::standings;
//! use goref_tournament::{Format, GameLine, Plan};
//!
//! let names = ["a", "b", "c"].map(String::from);
//! let format = Format::RoundRobin { games_per_pair: 2 };
//! let mut plan = Plan::new(&format, names.len());
//! assert_eq!(plan.total(), 6);
//! let mut lines = Vec::new();
//! loop {
//!     let batch = plan.next_batch();
//!     if batch.is_empty() {
//!         break;
//!     }
//!     for (number, pairing) in batch {
//!         // Here the engine seeded higher always wins, by resignation.
//!         let winner = if pairing.black < pairing.white { Color::Black } else { Color::White };
//!         let who = [pairing.black, pairing.white].map(|i| names[i].clone());
//!         let won = Outcome::win(winner, WinBy::Resignation);
//!         let line = GameLine::of(number, &pairing, who, won, Ending::Resignation);
//!         plan.record(number, &line);
//!         lines.push(line);
//!     }
//! }
//! let table = standings(format.name(), &names, &lines, plan.byes());
//! assert_eq!(table.engines[0].name, "a");
//! assert_eq!(table.engines[0].points, 4.0);
//! ```

pub mod continuous;
pub mod line;
pub mod pairing;
pub mod plan;
pub mod rating;
pub mod standings;
pub mod stats;

pub use line::GameLine;
pub use plan::{Format, Plan};
