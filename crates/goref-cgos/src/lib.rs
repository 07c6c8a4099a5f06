//! CGOS, the Computer Go Server, for goref: its protocol typed, and an engine client.
//!
//! CGOS's programs have joined it for twenty years through its clients (`cgosclient.py`,
//! `cgosGtp`). This crate speaks the same wire, learnt from the protocol's code (zakki/cgos),
//! so that goref can meet those programs unchanged:
//!
//! - [`protocol`]: every line of the dialogue as a Rust value ([`ServerMessage`],
//!   [`ClientMessage`]) that reads a line and prints it back exactly; CGOS's results
//!   ([`CgosResult`]: `B+2.5`, `W+Resign`, `B+Time`, `W+Illegal`, `Draw`) with goref's
//!   [`Outcome`](goref_rules::Outcome); bounded, cancel-safe line reading ([`LineReader`]).
//! - [`client`]: an engine client that logs in to a CGOS server and plays its games with a GTP
//!   engine ([`client::run`] over TCP, [`client::play_session`] over any byte streams).
//!
//! ```
//! use goref_cgos::{CgosResult, ClientMessage, Expect, ServerMessage};
//!
//! let line = "setup 12 9 7.0 300000 alpha(1800?) beta(1650) D5 299000 C3 298500\r\n";
//! let ServerMessage::Setup(setup) = ServerMessage::parse(line).unwrap() else { panic!() };
//! assert_eq!((setup.size, setup.white.name.as_str(), setup.moves.len()), (9, "alpha", 2));
//! assert_eq!(ServerMessage::Setup(setup).to_string(), line.trim_end());
//!
//! // A result reads as goref's outcome and prints as CGOS prints it.
//! let result = CgosResult::parse("B+2").unwrap();
//! assert_eq!(result.to_string(), "B+2.0");
//! assert_eq!(result.to_sgf(), "B+2");
//!
//! // A client's line is read in the context of what the server asked.
//! let answer = ClientMessage::parse("d4 {\"winrate\":0.5}", Expect::Move { analyze: true });
//! assert_eq!(answer.unwrap().to_string(), "D4 {\"winrate\":0.5}");
//! assert!(ClientMessage::parse("d4 x", Expect::Move { analyze: false }).is_err());
//! ```

#![deny(missing_docs)]

pub mod client;
pub mod protocol;

pub use client::{
    play_session, run, stop_on_signals, ClientConfig, ClientError, GameRecord, Progress,
    SessionEnd, MAX_ANALYSIS,
};
pub use protocol::{
    Answer, CgosError, CgosMove, CgosResult, CgosWin, ClientKind, ClientMessage, Date, Expect,
    Gameover, IllegalReason, LineReader, Rating, ReadError, Seat, ServerMessage, Setup, TimedMove,
    Vertex, MAX_LINE,
};
