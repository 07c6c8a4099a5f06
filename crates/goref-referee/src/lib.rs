//! One game of Go under a referee, for every front end: goref's match runner (engines over
//! GTP) and its server (people in browsers) drive the same [`Referee`].
//!
//! The referee owns the rules' [`Game`](goref_rules::Game), the end-of-game protocol, the
//! clocks, the illegal-move policy, the notes and the result, the way KataGo's `BoardHistory`
//! owns rules, end phases and result. It does no I/O and reads no clock: time comes in as a
//! value. A front end asks what it [`need`](Referee::need)s, turns that into a question for
//! the player whose turn it is, and [`apply`](Referee::apply)s the answer:
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use goref_referee::{Input, Need, Protocol, Referee, Settings};
//! use goref_rules::{Color, Geometry, Move, Ruleset};
//!
//! let mut settings = Settings::new(Ruleset::TROMP_TAYLOR);
//! settings.end = Protocol::Chinese;
//! let geometry = Arc::new(Geometry::rect(5, 5).unwrap());
//! let t = Duration::from_secs;
//! let mut referee = Referee::new(geometry.clone(), settings, t(0)).unwrap();
//! let c3 = geometry.parse_point("c3").unwrap();
//! referee.apply(Input::Play { by: Color::Black, mv: Move::Play(c3) }, t(1)).unwrap();
//! referee.apply(Input::Play { by: Color::White, mv: Move::Pass }, t(2)).unwrap();
//! referee.apply(Input::Play { by: Color::Black, mv: Move::Pass }, t(3)).unwrap();
//! // Two passes: the Chinese protocol asks both players for their dead stones.
//! assert!(matches!(referee.need(), Need::DeadLists { .. }));
//! // A move now is refused, with a typed reason and a stable code.
//! let refused = referee.apply(Input::Play { by: Color::White, mv: Move::Pass }, t(4));
//! assert_eq!(refused.unwrap_err().code(), "wrong_phase");
//! for by in Color::ALL {
//!     referee.apply(Input::DeadList { by, stones: Some(vec![]) }, t(5)).unwrap();
//! }
//! // Equal lists: the board is scored (TT rule 9).
//! assert_eq!(referee.result().unwrap().outcome.to_sgf(), "B+25");
//! ```
//!
//! - [`Protocol`]: the seven ways the texts give to end a game after two passes;
//! - [`settle`], [`tromp`], [`marking`]: the settlement state machines the referee drives;
//! - [`handicap`]: GTP's fixed handicap placement;
//! - [`adjudicate`]: goref's own third party (Olympiad 3.9's default removal).

pub mod adjudicate;
pub mod handicap;
pub mod marking;
mod protocol;
mod record;
mod referee;
pub mod settle;
pub mod tromp;

pub use protocol::{Protocol, UnknownProtocol};
pub use record::{sgf_date, PlayerInfo, RecordInfo};
pub use referee::{
    area_score, move_name, olympiad_min_moves, Adjudicate, Adjudication, Applied, ClockStart,
    Ending, Fault, GameResult, IllegalAttempt, IllegalPolicy, Input, LongCyclePolicy, Moment, Need,
    Note, Phase, Referee, Refusal, SettingError, Settings,
};
pub use settle::{Action, Settled, Settlement};
