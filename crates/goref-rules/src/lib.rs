//! Exact rules of Go, on any board, with no I/O and no dependencies beyond `std`.
//!
//! The rules follow the texts goref referees by: Tromp-Taylor (a move colours a point, clears
//! the opponent, clears its own colour; positional superko; area scoring), No-Suicide
//! Tromp-Taylor, and the Computer Olympiad rules (suicide illegal, basic ko that passes do not
//! lift, the long cycle rule).
//!
//! ```
//! use goref_rules::{Game, Move, Ruleset, Illegal};
//!
//! // Reference 004, rule 6: on 2×2, after 1.B[a2] 2.W[b2] 3.B[a1] 4.W[b1] 5.B[a2] 6.W[a1],
//! // Black may not play 7.B[a2]: it would recreate the position after move 1.
//! let mut game = Game::rect(2, 2, Ruleset::TROMP_TAYLOR).unwrap();
//! for name in ["a2", "b2", "a1", "b1", "a2", "a1"] {
//!     let p = game.geometry().parse_point(name).unwrap();
//!     game.play(Move::Play(p)).unwrap();
//! }
//! let a2 = game.geometry().parse_point("a2").unwrap();
//! assert_eq!(game.legality(Move::Play(a2)), Err(Illegal::Superko { repeats_after_turns: 1 }));
//! game.play(Move::Pass).unwrap();
//! game.play(Move::Pass).unwrap();
//! // Rule 10: White has 3 stones and 1 point of territory; Black has nothing.
//! assert_eq!(game.outcome().to_sgf(), "W+4");
//! ```

mod board;
mod color;
mod game;
mod geometry;
mod graph_spec;
pub mod history;
mod outcome;
pub mod perft;
pub mod playout;
mod ruleset;
pub mod words;

pub use board::{Board, Effect, SetupError, StringStones, Undo};
pub use color::{ByColor, Color};
pub use game::{End, Game, Illegal, IllegalMove, KoBan, Move, Played};
pub use geometry::{Geometry, GeometryError, Point, Shape, MAX_POINTS, MAX_SIDE};
pub use graph_spec::{graph_reads_back, graph_text, parse_graph, GraphMisread, GraphSpecError};
pub use outcome::{Outcome, Score, WinBy};
pub use ruleset::{KoRule, Komi, ParseError, Preset, Ruleset};
