//! Matches between Go programs: goref referees every move with the rules core.
//!
//! - [`game`]: one game: set-up, `genmove`/`play` with every move checked, clocks, faults
//!   (Olympiad 3.10.2 for illegal moves), the SGF record and the engines' log.
//! - [`runner`]: the match: parallel games, the append-only results file used to resume,
//!   Ctrl-C, the SPRT.
//! - [`clock`], [`stats`], [`summary`], [`config`].

pub mod clock;
pub mod config;
pub mod game;
pub mod runner;
pub mod stats;
pub mod summary;

pub use clock::{Clock, TimeControl};
pub use game::{play_game, EndKind, GameReport, IllegalPolicy, Player, Settings};
pub use runner::{run_match, MatchConfig, MatchError, Stop};
pub use stats::{Sprt, Wld};
pub use summary::Summary;
