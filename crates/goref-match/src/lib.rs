//! One game between two Go programs, goref refereeing every move with the rules core.
//!
//! - [`game`]: one game: the seats (engines started, checked, kept between games), set-up,
//!   `genmove`/`play` with every move checked, clocks, faults (Olympiad 3.10.2 for illegal
//!   moves), the dead-stone settlement after two passes (the [`Protocol`] of `GameSettings::protocol`,
//!   refereed by [`goref_referee::Referee`]: dead lists by `final_status_list dead`, resumed
//!   play, KGS clean-up, play-out on a copy, Tromp's marking, a referee engine or the
//!   Olympiad 3.9 default removal of crate goref-judge; the clocks stop during the agreement
//!   steps, Olympiad 3.10.3), the SGF record, the engines' log, and the game's record
//!   ([`GameLine`], crate goref-tournament's).
//! - [`clock`]: time controls as the command line and the TOML file give them.
//! - [`config`]: the TOML file of a match or a tournament.
//!
//! A match (so many games between two engines) and a tournament are run by crate
//! goref-runner, a match being a tournament of two.

pub mod clock;
pub mod config;
pub mod game;

pub use clock::TimeControl;
pub use game::{play_game, Contestant, Ending, GameSettings, IllegalPolicy, RefereeSpec};
pub use goref_gtp;
pub use goref_referee::{self, Protocol};
pub use goref_tournament::GameLine;
