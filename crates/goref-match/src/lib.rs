//! One game between two Go programs, goref refereeing every move with the rules core.
//!
//! - [`game`]: one game: the seats (engines started, checked, kept between games), set-up,
//!   `genmove`/`play` with every move checked, clocks, faults (Olympiad 3.10.2 for illegal
//!   moves), the dead-stone settlement after two passes (the [`Protocol`] of `GameSettings::end`,
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
//!
//! What a user does with it: say how the games are played, name the engines, play one game.
//!
//! ```
//! use goref_match::goref_gtp::EngineSpec;
//! use goref_match::{Contestant, GameSettings, Protocol, TimeControl};
//! use goref_rules::{Preset, Ruleset};
//!
//! let mut settings = GameSettings::new(9, 9);
//! settings.game.rules = Ruleset::preset(Preset::TrompTaylor);
//! settings.game.time = TimeControl::None;
//! settings.game.end = Protocol::AllAlive;
//! // What the referee is told for each game (no handicap stones here).
//! let referee = settings.referee_settings(Vec::new());
//! assert_eq!(referee.end, Protocol::AllAlive);
//! let spec = EngineSpec::parse("gnugo --mode gtp --level 0").unwrap();
//! let gnugo = Contestant { id: 0, name: "gnugo".into(), spec };
//! assert_eq!(gnugo.spec.to_string(), "gnugo --mode gtp --level 0");
//! ```
//!
//! Then [`play_game`] plays it (here GNU Go against itself, as game 1, engine 0 Black) and
//! gives its record, the SGF and the engines' log written in the folder:
//!
//! ```no_run
//! # async fn demo(settings: goref_match::GameSettings, a: goref_match::Contestant,
//! #               b: goref_match::Contestant) -> Result<(), goref_match::game::StartError> {
//! use goref_tournament::pairing::{Pairing, Round};
//!
//! let line = goref_match::play_game(1, &Pairing::new(Round::FIRST, 0, 1), &a, &b, &settings,
//!                                   std::path::Path::new("games")).await?;
//! println!("{} in {} moves", line.result, line.moves);
//! # Ok(()) }
//! ```

pub mod clock;
pub mod config;
pub mod game;

pub use clock::TimeControl;
pub use game::{play_game, Contestant, Ending, GameSettings, IllegalPolicy, RefereeSpec};
pub use goref_gtp;
pub use goref_referee::{self, Protocol};
pub use goref_tournament::GameLine;
