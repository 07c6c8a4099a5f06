//! Matches between Go programs: goref referees every move with the rules core.
//!
//! - [`game`]: one game: set-up, `genmove`/`play` with every move checked, clocks, faults
//!   (Olympiad 3.10.2 for illegal moves), the dead-stone settlement after two passes (the
//!   [`Protocol`] of `Settings::end`, refereed by [`goref_referee::Referee`]: dead lists by
//!   `final_status_list dead`, resumed play, KGS clean-up, play-out on a copy, Tromp's
//!   marking, a referee engine or the Olympiad 3.9 default removal of crate goref-judge; the
//!   clocks stop during the agreement steps, Olympiad 3.10.3), the SGF record and the
//!   engines' log.
//! - [`runner`]: what a match is and how it stops; the tournament runner (crate
//!   goref-tournament) schedules its games, a match being a tournament of two.
//! - [`clock`], [`stats`], [`summary`], [`config`].

pub mod clock;
pub mod config;
pub mod game;
pub mod runner;
pub mod stats;
pub mod summary;

pub use clock::TimeControl;
pub use game::{play_game, Ending, GameReport, IllegalPolicy, Player, RefereeSpec, Settings};
pub use goref_gtp;
pub use goref_referee::{self, Protocol};
pub use runner::{MatchConfig, MatchError, Stop};
pub use stats::{Sprt, Wld};
pub use summary::Summary;
