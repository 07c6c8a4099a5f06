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
//! - [`door`]: the server side: a CGOS door to a server (`goref serve --cgos`), acting on it
//!   through a narrow interface ([`Host`]);
//! - [`viewer`]: CGOS's viewers on the door (`v1`): the games listed and announced (`match`),
//!   ended (`gameover`), and observed move by move (`observe`, `setup`, `update`), from the
//!   host's bounded streams ([`Observation`]);
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
//!
//! A program joins a CGOS server (CGOS's or, later, `goref serve`) through [`client::run`]: the
//! engine starts, logs in, plays until its games are played or a signal asks it to stop (the
//! game in progress is finished first), and connects again when the connection drops:
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use goref_cgos::{run, stop_on_signals, ClientConfig};
//! use goref_gtp::EngineSpec;
//!
//! let spec = EngineSpec::parse("/usr/games/gnugo --mode gtp --chinese-rules --capture-all-dead")?;
//! let mut config = ClientConfig::new("gnugo-l10", "secret");
//! config.games = Some(10);
//! let games = run("127.0.0.1:6867", &spec, &config, stop_on_signals()?).await?;
//! println!("won {} of {}", games.iter().filter(|g| g.won()).count(), games.len());
//! # Ok(())
//! # }
//! ```
//!
//! What differs from CGOS's own client, `cgosclient.py`: one engine per client (no engine
//! rotation, no observer engine, no SGF files: the server keeps the records); a signal instead
//! of a kill file; an engine reply that is no vertex is answered `resign` (CGOS would count it
//! illegal); analysis only from `cgos-genmove_analyze` (not `kata-`/`lz-genmove_analyze`).

pub mod client;
pub mod door;
pub mod protocol;
pub mod viewer;

pub use client::{
    play_session, run, stop_on_signals, ClientConfig, ClientError, GameRecord, Progress,
    SessionEnd, MAX_ANALYSIS,
};
pub use door::{Door, DoorConfig, Ended, Entry, GameView, Host, Refused, Submitted};
pub use protocol::{
    Answer, CgosError, CgosMove, CgosResult, CgosWin, ClientKind, ClientMessage, Date, Expect,
    Gameover, IllegalReason, LineReader, Match, Rating, ReadError, Seat, ServerMessage, Setup,
    Started, TimeOfDay, TimedMove, Update, Vertex, ViewedMove, ViewerMessage, ViewerSetup,
    MAX_LINE,
};
pub use viewer::Observation;
