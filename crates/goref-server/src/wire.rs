//! The wire, typed: every message of the game WebSocket and of the lobby WebSocket, both
//! directions, the game's state as the page shows it ([`StateView`]), and the bodies of the
//! HTTP answers programs read. The server, [`crate::client`] and `goref connect` use these
//! types; the JSON they read and write is the one the book's docs/src/reference/api.md
//! documents (and the web page reads): round-trip tests check it against what the untyped code
//! wrote.
//!
//! - Game WebSocket `/api/games/ID/ws`: a client sends a [`ClientMessage`] (a [`Command`] in
//!   an envelope of `version`, `think_ms` and `id`); the server sends [`ServerMessage`]s.
//! - Lobby WebSocket `/api/lobby/ws`: a client sends [`LobbyClientMessage`]s; the server sends
//!   [`LobbyServerMessage`]s.
//!
//! Every message is a JSON object tagged by its `type`. A message a client sends that cannot
//! be read is a [`ProtocolError`], answered with the code `malformed`.
//!
//! ```
//! use goref_server::wire::{ClientMessage, Command};
//!
//! let msg = ClientMessage::parse(r#"{"type":"play","x":2,"y":3,"version":7}"#).unwrap();
//! assert_eq!(msg.command, Command::Play { x: 2, y: 3 });
//! assert_eq!(msg.version, Some(7));
//! let refused = ClientMessage::parse(r#"{"type":"teleport","id":5}"#).unwrap_err();
//! assert_eq!(refused.code(), "malformed");
//! assert_eq!(refused.id, Some(serde_json::json!(5)));
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use goref_clock::TimeControl;
use goref_referee::Protocol;
use goref_rules::Color;

/// Something for Black and for White, named `B` and `W` on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerSide<T> {
    /// Black's.
    #[serde(rename = "B")]
    pub black: T,
    /// White's.
    #[serde(rename = "W")]
    pub white: T,
}

impl<T> PerSide<T> {
    /// The value of `side`.
    pub fn of(&self, side: Side) -> &T {
        match side {
            Side::B => &self.black,
            Side::W => &self.white,
        }
    }
}

impl<T> From<goref_rules::ByColor<T>> for PerSide<T> {
    fn from(b: goref_rules::ByColor<T>) -> PerSide<T> {
        PerSide {
            black: b.black,
            white: b.white,
        }
    }
}

/// A point as `[x, y]`: column from the left, row from the top.
pub type Xy = [usize; 2];

// ---------------------------------------------------------------------------------------------
// The game WebSocket: client to server.

/// What a player asks for on the game WebSocket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// A stone at column `x` from the left, row `y` from the top.
    Play {
        /// Column, from the left (0 first).
        x: usize,
        /// Row, from the top (0 first).
        y: usize,
    },
    /// A pass.
    Pass,
    /// Resigning.
    Resign,
    /// Reference 003: mark the string through this stone dead.
    Mark {
        /// Column, from the left.
        x: usize,
        /// Row, from the top.
        y: usize,
    },
    /// Reference 003: dispute the marked string through this stone.
    Dispute {
        /// Column, from the left.
        x: usize,
        /// Row, from the top.
        y: usize,
    },
    /// Reference 003: done.
    Done,
    /// The stones this player considers dead.
    DeadList {
        /// The dead stones, as `[x, y]`.
        points: Vec<Xy>,
    },
    /// Send the whole state again (no action).
    Sync,
}

impl Command {
    /// The action for the room; `None` for [`Command::Sync`].
    #[must_use]
    pub fn act(&self) -> Option<Act> {
        Some(match self {
            Command::Play { x, y } => Act::Play { x: *x, y: *y },
            Command::Pass => Act::Pass,
            Command::Resign => Act::Resign,
            Command::Mark { x, y } => Act::Mark { x: *x, y: *y },
            Command::Dispute { x, y } => Act::Dispute { x: *x, y: *y },
            Command::Done => Act::Done,
            Command::DeadList { points } => Act::DeadList {
                points: points.clone(),
            },
            Command::Sync => return None,
        })
    }

    /// The name of its `type`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Command::Play { .. } => "play",
            Command::Pass => "pass",
            Command::Resign => "resign",
            Command::Mark { .. } => "mark",
            Command::Dispute { .. } => "dispute",
            Command::Done => "done",
            Command::DeadList { .. } => "dead_list",
            Command::Sync => "sync",
        }
    }
}

/// A message of a page or a program on the game WebSocket: the [`Command`], the version of
/// the state it answers (required for actions), how long the player thought by its own
/// measure (for the lag allowance), and an `id` of the client's choice echoed in the answer.
///
/// On the wire the envelope's fields sit beside the command's:
/// `{"type":"play","x":2,"y":3,"version":7,"think_ms":850,"id":"m12"}`. Fields a command does
/// not use are allowed (and ignored) when they are known to some command; unknown fields are
/// refused. Read it with [`ClientMessage::parse`] to keep the `id` of a refused message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "WireClientMessage", into = "WireClientMessage")]
pub struct ClientMessage {
    /// What is asked.
    pub command: Command,
    /// The room version this message answers.
    pub version: Option<u64>,
    /// How long the player thought, in milliseconds.
    pub think_ms: Option<u64>,
    /// Echoed in the answer (any JSON value).
    pub id: Option<Value>,
}

impl ClientMessage {
    /// A message with `command` answering `version`, without `think_ms` or `id`.
    #[must_use]
    pub fn new(command: Command, version: u64) -> ClientMessage {
        ClientMessage {
            command,
            version: Some(version),
            think_ms: None,
            id: None,
        }
    }

    /// Reads a message as the server does: a typed error for anything it cannot take, with
    /// the message's `id` when that much could be read.
    ///
    /// # Errors
    ///
    /// Not JSON, not an object of the known fields, an unknown `type`, or a command without
    /// the fields it needs.
    pub fn parse(text: &str) -> Result<ClientMessage, ProtocolError> {
        let wire: WireClientMessage = serde_json::from_str(text).map_err(|e| ProtocolError {
            kind: ProtocolErrorKind::Unreadable(e.to_string()),
            id: None,
        })?;
        ClientMessage::try_from(wire)
    }
}

/// The envelope as the wire holds it: every field any command may carry.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireClientMessage {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    x: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    y: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    points: Option<Vec<Xy>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    version: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    think_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<Value>,
}

impl TryFrom<WireClientMessage> for ClientMessage {
    type Error = ProtocolError;

    fn try_from(w: WireClientMessage) -> Result<ClientMessage, ProtocolError> {
        let refuse = |kind| ProtocolError {
            kind,
            id: w.id.clone(),
        };
        let xy = |name: &'static str| match (w.x, w.y) {
            (Some(x), Some(y)) => Ok((x, y)),
            _ => Err(refuse(ProtocolErrorKind::Missing {
                command: name,
                needs: "x and y",
            })),
        };
        let command = match w.kind.as_str() {
            "sync" => Command::Sync,
            "play" => xy("play").map(|(x, y)| Command::Play { x, y })?,
            "mark" => xy("mark").map(|(x, y)| Command::Mark { x, y })?,
            "dispute" => xy("dispute").map(|(x, y)| Command::Dispute { x, y })?,
            "pass" => Command::Pass,
            "resign" => Command::Resign,
            "done" => Command::Done,
            "dead_list" => Command::DeadList {
                points: w.points.clone().ok_or_else(|| {
                    refuse(ProtocolErrorKind::Missing {
                        command: "dead_list",
                        needs: "points",
                    })
                })?,
            },
            other => {
                return Err(refuse(ProtocolErrorKind::UnknownType(
                    other.chars().take(32).collect(),
                )))
            }
        };
        Ok(ClientMessage {
            command,
            version: w.version,
            think_ms: w.think_ms,
            id: w.id,
        })
    }
}

impl From<ClientMessage> for WireClientMessage {
    fn from(m: ClientMessage) -> WireClientMessage {
        let (x, y, points) = match &m.command {
            Command::Play { x, y } | Command::Mark { x, y } | Command::Dispute { x, y } => {
                (Some(*x), Some(*y), None)
            }
            Command::DeadList { points } => (None, None, Some(points.clone())),
            _ => (None, None, None),
        };
        WireClientMessage {
            kind: m.command.name().to_string(),
            x,
            y,
            points,
            version: m.version,
            think_ms: m.think_ms,
            id: m.id,
        }
    }
}

/// A client's message the server cannot take (answered with the code `malformed`).
#[derive(Clone, Debug, PartialEq)]
pub struct ProtocolError {
    /// What is wrong.
    pub kind: ProtocolErrorKind,
    /// The message's `id`, when it could be read (echoed in the answer).
    pub id: Option<Value>,
}

/// What is wrong with a client's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolErrorKind {
    /// Not JSON, or not an object of the known fields with values of their types (serde's
    /// words).
    Unreadable(String),
    /// A `type` no command has (its first 32 characters).
    UnknownType(String),
    /// A command without a field it needs.
    Missing {
        /// The command's `type`.
        command: &'static str,
        /// The fields it needs.
        needs: &'static str,
    },
    /// A binary frame: messages are JSON text.
    Binary,
}

impl ProtocolError {
    /// The code on the wire: always `malformed`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        "malformed"
    }
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ProtocolErrorKind::Unreadable(e) => write!(f, "malformed message: {e}"),
            ProtocolErrorKind::UnknownType(t) => write!(f, "unknown message type '{t}'"),
            ProtocolErrorKind::Missing { command, needs } => {
                write!(f, "'{command}' needs {needs}")
            }
            ProtocolErrorKind::Binary => f.write_str("messages are JSON text"),
        }
    }
}

impl std::error::Error for ProtocolError {}

// ---------------------------------------------------------------------------------------------
// The game WebSocket: server to client.

/// What the server sends on the game WebSocket.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The greeting: the seat of this connection (`null`: a spectator), the game's version,
    /// the time forgiven per turn for network lag.
    Hello {
        /// The seat of this connection; `None` for a spectator.
        seat: Option<Side>,
        /// The game's version.
        version: u64,
        /// The time forgiven per turn for network lag, in ms.
        lag_allowance_ms: u64,
    },
    /// The whole state, on connecting and after every change (also the body of
    /// `GET /api/games/ID`); to a connection that asked for changes (`?changes=1`), after
    /// every change that is not a [`ServerMessage::Moved`].
    State(Box<StateView>),
    /// What a move or pass of the play phase changed, sent in place of the whole state to a
    /// connection that asked for changes (`?changes=1`): applied to the state at `from`
    /// ([`StateView::apply`]) it gives the state at `version`. A client holding another
    /// version sends `sync` and gets the whole state.
    Moved(Box<MovedView>),
    /// Who is connected: Black's and White's connections, and spectators.
    Presence {
        #[serde(rename = "B")]
        /// Connections on Black's seat.
        black: usize,
        #[serde(rename = "W")]
        /// Connections on White's seat.
        white: usize,
        /// Spectators' connections.
        spectators: usize,
    },
    /// The message with this `id` is stored: the game is at `version`.
    Ack {
        /// The message's `id`, as the client sent it.
        id: Option<Value>,
        /// The game's version after it.
        version: u64,
    },
    /// The message with this `id` is refused, nothing changed: a stable `code` for programs,
    /// a `message` for people, the game's `version`.
    Error {
        /// A stable code for programs.
        code: String,
        /// Words for people.
        message: String,
        /// The message's `id`, as the client sent it.
        id: Option<Value>,
        /// The game's version (unchanged).
        version: u64,
    },
}

impl ServerMessage {
    /// The message as JSON text.
    #[must_use]
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("messages serialise")
    }

    /// Reads a message of the server.
    ///
    /// # Errors
    ///
    /// Not JSON, or not a message this client knows.
    pub fn parse(text: &str) -> Result<ServerMessage, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// The whole state of a game, as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateView {
    /// The game's id.
    pub id: String,
    /// What the referee waits for.
    pub need: Need,
    /// The number of stored events.
    pub version: u64,
    /// The game's settings.
    pub config: GameConfig,
    /// The time control in words.
    pub time_text: String,
    /// When it was created (unix ms).
    pub created_ms: u64,
    /// The referee's phase (`play`, `marking`, `dead_lists`, `play_out`, `over`, ...).
    pub phase: String,
    /// Rows from the top, columns from the left: 1 Black, -1 White, 0 empty.
    pub board: Vec<Vec<i8>>,
    /// The copy of the board disputes are played out on, when there is one.
    pub copy: Option<CopyView>,
    /// Who moves next on the board in play.
    pub to_move: Side,
    /// Who acts next in an agreement phase.
    pub to_act: Option<Side>,
    /// The game's moves.
    pub moves: Vec<MoveView>,
    /// Stones each side has captured.
    pub captures: PerSide<u32>,
    /// The point the basic-ko rule forbids now.
    pub ko: Option<Xy>,
    /// Stones marked dead in the marking phase.
    pub marked: Vec<Xy>,
    /// The stones scored as dead (the result's, once over).
    pub dead: Vec<Xy>,
    /// Points disputed before an adjudication.
    pub disputed: Vec<Xy>,
    /// Who owns each point with the dead stones off: 1 Black, -1 White, 0 neither.
    pub territory: Vec<Vec<i8>>,
    /// The area score of the board with the dead stones off.
    pub score: ScoreView,
    /// Whose dead lists are in.
    pub lists_given: PerSide<bool>,
    /// The clocks as shown now.
    pub clocks: ClocksView,
    /// SGF `RE`, once over.
    pub result: Option<String>,
    /// How it ended, once over.
    pub ending: Option<String>,
    /// Notes for the record.
    pub notes: Vec<NoteView>,
}

impl StateView {
    /// Applies a change: `true` when it was made (this state was at `moved.from`), `false`
    /// when this state is at another version (nothing is changed: ask for the whole state).
    pub fn apply(&mut self, moved: &MovedView) -> bool {
        if self.version != moved.from {
            return false;
        }
        let set = |grid: &mut Vec<Vec<i8>>, cells: &[Cell]| {
            for &Cell(x, y, v) in cells {
                if let Some(c) = grid.get_mut(y).and_then(|row| row.get_mut(x)) {
                    *c = v;
                }
            }
        };
        set(&mut self.board, &moved.board);
        set(&mut self.territory, &moved.territory);
        self.version = moved.version;
        self.need = moved.need.clone();
        self.to_move = moved.to_move;
        self.moves.extend(moved.moves.iter().cloned());
        self.captures = moved.captures;
        self.ko = moved.ko;
        self.score = moved.score.clone();
        self.clocks = moved.clocks;
        true
    }
}

/// What moves of the play phase changed ([`ServerMessage::Moved`]): every field of the state
/// that they change, the rest (the phase, the settings, the notes, ...) unchanged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MovedView {
    /// The version this applies to.
    pub from: u64,
    /// The version it gives.
    pub version: u64,
    /// What the referee waits for now.
    pub need: Need,
    /// Who moves next.
    pub to_move: Side,
    /// The moves played since `from`, in order (appended to the state's).
    pub moves: Vec<MoveView>,
    /// The points of the board that changed, as they are now: the stone played and those it
    /// captured.
    pub board: Vec<Cell>,
    /// The points whose owner changed (as [`StateView::territory`]).
    pub territory: Vec<Cell>,
    /// Stones each side has captured.
    pub captures: PerSide<u32>,
    /// The point the basic-ko rule forbids now.
    pub ko: Option<Xy>,
    /// The area score now.
    pub score: ScoreView,
    /// The clocks as shown now.
    pub clocks: ClocksView,
}

/// A point and what it holds, `[x, y, v]` on the wire: column from the left, row from the
/// top, and the grid's value there (1 Black, -1 White, 0 empty or no one's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell(pub usize, pub usize, pub i8);

/// What the referee waits for (so a program answers `need` and nothing else).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Need {
    /// A move of `color`; `resumed` after the end protocol sent the game back to play,
    /// `cleanup` when dead stones must now be captured.
    Move {
        /// The colour to move.
        color: Side,
        /// Whether the end protocol sent the game back to play.
        resumed: bool,
        /// Whether dead stones must now be captured.
        cleanup: bool,
    },
    /// A move of `color` on the play-out copy.
    PlayOut {
        /// The colour to move on the copy.
        color: Side,
    },
    /// The dead lists still missing.
    DeadLists {
        /// Which lists are missing, by side.
        missing: PerSide<bool>,
    },
    /// A mark, dispute or done of `color`.
    Marking {
        /// The colour to act.
        color: Side,
    },
    /// The third party's decision.
    Adjudication,
    /// Nothing: the game is over.
    Over,
}

/// The play-out copy of the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyView {
    /// As [`StateView::board`].
    pub board: Vec<Vec<i8>>,
    /// The moves played on the copy.
    pub moves: Vec<MoveView>,
}

/// One move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveView {
    /// Who played it.
    pub color: Side,
    /// Where; `null` for a pass.
    pub point: Option<Xy>,
    /// The point's name (`C3`), or `pass`.
    pub name: String,
}

/// An area score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreView {
    /// Black's points.
    #[serde(rename = "B")]
    pub black: u32,
    /// White's points, komi not included.
    #[serde(rename = "W")]
    pub white: u32,
    /// The komi.
    pub komi: f64,
    /// The result it gives, in SGF `RE` form.
    pub result: String,
}

/// Both clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClocksView {
    /// Black's.
    #[serde(rename = "B")]
    pub black: ClockView,
    /// White's.
    #[serde(rename = "W")]
    pub white: ClockView,
    /// Whose runs.
    pub running: Option<Side>,
}

impl ClocksView {
    /// The clock of `side`.
    #[must_use]
    pub fn of(&self, side: Side) -> ClockView {
        match side {
            Side::B => self.black,
            Side::W => self.white,
        }
    }
}

/// One clock as shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// Main time left (or the current period's), in milliseconds.
    pub main_ms: u64,
    /// Periods left.
    pub periods: u32,
}

/// A note for the record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteView {
    /// Moves of the game played when it happened.
    pub after: usize,
    /// What happened.
    pub text: String,
}

// ---------------------------------------------------------------------------------------------
// The lobby WebSocket.

/// The challenger's colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColorChoice {
    /// The challenger takes Black.
    Black,
    /// The challenger takes White.
    White,
    #[default]
    /// Drawn at random when the challenge is accepted.
    Random,
}

/// What a client sends on the lobby WebSocket.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LobbyClientMessage {
    /// Open a challenge: the game's settings (as `POST /api/games` takes them, without the
    /// players' names; kept as given, shown to everyone as given, and checked by the server,
    /// `invalid` when they are not settings), the challenger's colour (default `random`),
    /// whether it is rated (default yes).
    Challenge {
        /// The game's settings, as given.
        game: Value,
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        /// The challenger's colour (default random).
        color: Option<ColorChoice>,
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        /// Whether the game is rated (default yes).
        rated: Option<bool>,
    },
    /// Withdraw one of your challenges.
    Cancel {
        /// The challenge's id.
        challenge: String,
    },
    /// Accept someone's challenge: the game starts.
    Accept {
        /// The challenge's id.
        challenge: String,
    },
    /// Wait to be paired (or stop waiting), in the pools named (`GET /api/pools`; none: the
    /// default pool only).
    Wait {
        /// Whether to wait.
        on: bool,
        /// The pools to be paired in, by name (at most [`MAX_POOLS`]); empty: the default pool.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pools: Vec<String>,
    },
}

impl LobbyClientMessage {
    /// Waiting (or not) in the default pool.
    #[must_use]
    pub fn wait(on: bool) -> LobbyClientMessage {
        LobbyClientMessage::Wait {
            on,
            pools: Vec::new(),
        }
    }
}

/// The name of the pool the pairing flags define (`goref serve --pairing-…`), where a
/// program that names no pool waits.
pub const DEFAULT_POOL: &str = "default";

/// The most pools a server has (the default pool included).
pub const MAX_POOLS: usize = 16;

/// The longest pool name, in characters.
pub const MAX_POOL_NAME: usize = 32;

/// Whether `name` may name a pool: 1 to [`MAX_POOL_NAME`] ASCII letters, digits, `-`, `_` or
/// `.` (it is a path segment of the API: `/api/pools/{pool}/standings`).
#[must_use]
pub fn is_pool_name(name: &str) -> bool {
    (1..=MAX_POOL_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// `GET /api/pools`: the server's pools, the default first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoolList {
    /// One per pool.
    pub pools: Vec<PoolView>,
}

/// A pool: the game its players are paired for, and where CGOS's programs join it on the
/// server that answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoolView {
    /// Its name.
    pub name: String,
    /// The game it pairs for (players' names aside).
    pub game: PoolGame,
    /// Where this server's CGOS door of the pool listens, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgos: Option<String>,
    /// The game CGOS's programs are paired for in it, when it has a door (its board, komi and
    /// clock, under CGOS's terms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgos_game: Option<PoolGame>,
}

/// `GET /api/pools/{pool}/archive/{YYYY-MM-DD}`: the pool's games created that day (UTC),
/// oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArchiveDay {
    /// The pool.
    pub pool: String,
    /// The day, `YYYY-MM-DD`.
    pub day: String,
    /// Its games, with their results (`null` while played).
    pub games: Vec<GameSummary>,
    /// More games were created that day than the list holds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// The game a pool pairs for, as `GET /api/pools` shows it (its `GameConfig` without the
/// players).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoolGame {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Preset name.
    pub rules: String,
    /// Komi.
    pub komi: f64,
    /// The clock.
    pub time: TimeControl,
    /// The end-of-game protocol.
    pub end: Protocol,
}

impl From<&GameConfig> for PoolGame {
    fn from(c: &GameConfig) -> PoolGame {
        PoolGame {
            width: c.width,
            height: c.height,
            rules: c.rules.clone(),
            komi: c.komi,
            time: c.time,
            end: c.end,
        }
    }
}

/// A field that may be left out but not be `null`.
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

impl LobbyClientMessage {
    /// Reads a lobby message as the server does.
    ///
    /// # Errors
    ///
    /// Not JSON, an unknown `type`, unknown fields or fields of the wrong type.
    pub fn parse(text: &str) -> Result<LobbyClientMessage, ProtocolError> {
        serde_json::from_str(text).map_err(|e| ProtocolError {
            kind: ProtocolErrorKind::Unreadable(e.to_string()),
            id: None,
        })
    }

    /// The message as JSON text.
    #[must_use]
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("messages serialise")
    }
}

/// What the server sends on the lobby WebSocket.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
// Each message is made to be written once: the size of the largest (a game's settings) is
// immaterial.
#[allow(clippy::large_enum_variant)]
pub enum LobbyServerMessage {
    /// The greeting: the account of the session.
    Hello {
        /// The session's account.
        account: Account,
    },
    /// A game of the account has started (or is still on when it connects).
    Game(GameStart),
    /// The whole lobby: the first message after the account's games still on, and again
    /// when a connection fell too far behind the changes (then its state starts again from
    /// this). A connection that does not follow the list (`?list=0`) gets it once, empty, with
    /// `list: false`.
    Lobby {
        /// The players online.
        online: Vec<OnlinePlayer>,
        /// The open challenges.
        challenges: Vec<ChallengeView>,
        /// Whether the lists are there (and changes follow as `lobby_delta`).
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        list: bool,
    },
    /// What changed in the lobby since the last `lobby` or `lobby_delta` (sent at most a few
    /// times a second, only what changed): apply in order.
    LobbyDelta {
        /// Players who came or whose line changed (waiting, rating): their whole line.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        online: Vec<OnlinePlayer>,
        /// Players who left (names).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        gone: Vec<String>,
        /// Challenges opened.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        challenges: Vec<ChallengeView>,
        /// Challenges withdrawn or taken (ids).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        withdrawn: Vec<String>,
    },
    /// A game of the account has ended.
    GameOver {
        /// Black's name.
        black: String,
        /// White's name.
        white: String,
        /// The result, in SGF `RE` form.
        result: String,
    },
    /// A message was taken.
    Ack(LobbyAck),
    /// A message was refused: a stable `code`, a `message` for people.
    Error {
        /// A stable code for programs.
        code: String,
        /// Words for people.
        message: String,
    },
}

impl LobbyServerMessage {
    /// The message as JSON text.
    #[must_use]
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("messages serialise")
    }

    /// Reads a message of the server.
    ///
    /// # Errors
    ///
    /// Not JSON, or not a message this client knows.
    pub fn parse(text: &str) -> Result<LobbyServerMessage, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Its `type`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            LobbyServerMessage::Hello { .. } => "hello",
            LobbyServerMessage::Game(_) => "game",
            LobbyServerMessage::Lobby { .. } => "lobby",
            LobbyServerMessage::LobbyDelta { .. } => "lobby_delta",
            LobbyServerMessage::GameOver { .. } => "game_over",
            LobbyServerMessage::Ack(_) => "ack",
            LobbyServerMessage::Error { .. } => "error",
        }
    }
}

/// A game of the account: its id, the account's colour, the opponent, the settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameStart {
    /// The game's id.
    pub id: String,
    /// The account's colour.
    pub color: Side,
    /// The opponent's account.
    pub opponent: String,
    /// The settings.
    pub config: GameConfig,
}

/// One player in the lobby.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OnlinePlayer {
    /// The account.
    pub name: String,
    /// A program.
    pub program: bool,
    /// Its rating, rounded; `null` before its first rated game.
    pub rating: Option<f64>,
    /// Waiting to be paired.
    pub waiting: bool,
}

fn yes() -> bool {
    true
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_true(b: &bool) -> bool {
    *b
}

/// An open challenge as the lobby shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChallengeView {
    /// Its id.
    pub id: String,
    /// The challenger.
    pub by: String,
    /// Whether the challenger is a program.
    pub program: bool,
    /// The challenger's colour.
    pub color: ColorChoice,
    /// Whether it is rated.
    pub rated: bool,
    /// The game's settings, as the challenger gave them.
    pub game: Value,
}

/// What a lobby `ack` says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LobbyAck {
    /// Now waiting (or not).
    Waiting {
        /// Whether the account now waits.
        waiting: bool,
    },
    /// The challenge is open, with this id.
    Challenge {
        /// The challenge's id.
        challenge: String,
    },
    /// The challenge is withdrawn.
    Cancelled {
        /// The withdrawn challenge's id.
        cancelled: String,
    },
    /// The challenge is accepted: the game.
    Game {
        /// The game's id.
        game: String,
    },
}

// ---------------------------------------------------------------------------------------------
// HTTP bodies programs read.

/// The body of every HTTP error: a stable code and a message for people.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The code (`not_found`, `rate_limited`, ...).
    pub error: String,
    /// In words.
    pub message: String,
}

/// `POST /api/login`'s answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginAnswer {
    /// The session token.
    pub token: String,
    /// The account.
    pub account: Account,
}

/// The answer of `GET /healthz`: `ok` when the store answered a trivial query (200), else
/// why not (503).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// Whether the server can serve: its store answers.
    pub ok: bool,
    /// Whether this server leads (fires the clocks, pairs the lobby, ...).
    pub leads: bool,
    /// Why not, for programs (`store`); absent when `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why not, for people; absent when `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The answer of `POST /api/accounts/{name}/ban` and `/unban`: the account as stored, and
/// whether it is banned now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BanAnswer {
    /// The account's name, as stored.
    pub name: String,
    /// Whether it is banned now.
    pub banned: bool,
}

/// A seat of a new game: its secret and the page's link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatLink {
    /// The seat's secret.
    pub secret: String,
    /// `/g/ID#seat=SECRET`.
    pub link: String,
}

/// `POST /api/games`'s answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameCreated {
    /// The game's id.
    pub id: String,
    /// Black's seat.
    pub black: SeatLink,
    /// White's seat.
    pub white: SeatLink,
    /// The spectators' link.
    pub spectator: String,
}

/// The rating of a player without rated games, and the mean the fit is anchored to.
pub const BASE_RATING: f64 = 1500.0;

/// A player's rating, from every rated game (goref-tournament's joint fit), as `/api/me`
/// and `/api/players/NAME` show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The account.
    pub name: String,
    /// Elo, the mean of rated players at [`BASE_RATING`].
    pub rating: f64,
    /// The 95% interval.
    pub interval: (f64, f64),
    /// Rated games, wins, losses, draws.
    pub games: u32,
    /// Rated games won.
    pub wins: u32,
    /// Rated games lost.
    pub losses: u32,
    /// Rated games drawn.
    pub draws: u32,
}

impl Rating {
    /// Not yet established: the 95% interval reaches further than ±[`PROVISIONAL_ELO`].
    #[must_use]
    pub fn provisional(&self) -> bool {
        (self.interval.1 - self.interval.0) / 2.0 > PROVISIONAL_ELO
    }
}

/// `GET /api/me`'s answer: the session's account and its rating (`null` before its first
/// rated game).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeAnswer {
    /// The account.
    pub account: Account,
    /// Its rating.
    pub rating: Option<Rating>,
}

/// `GET /api/players/NAME`'s answer: the account, its rating, its games (newest first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerAnswer {
    /// The account.
    pub account: Account,
    /// Its rating in the default pool (`null` before its first rated game there).
    pub rating: Option<Rating>,
    /// Its ratings in the server's other pools where it has one, by pool.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pools: BTreeMap<String, Rating>,
    /// Its games.
    pub games: Vec<GameSummary>,
}

/// `GET /api/players`'s answer: rated players best first, then the others.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerList {
    /// One line per account.
    pub players: Vec<PlayerLine>,
}

/// One account in the list of players. A rated one has its rating (rounded), its 95%
/// interval and its results; an unrated one `"rating": null` and `"games": 0` only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerLine {
    /// The account.
    pub name: String,
    /// A program.
    pub program: bool,
    /// Its rating, rounded.
    pub rating: Option<f64>,
    /// The 95% interval, rounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<[f64; 2]>,
    /// Rated games.
    pub games: u32,
    /// Rated games won.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wins: Option<u32>,
    /// Rated games lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub losses: Option<u32>,
    /// Rated games drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draws: Option<u32>,
    /// A rating not yet established: its 95% interval is wider than ±[`PROVISIONAL_ELO`]
    /// (CGOS's `?`); `false` (and not written) for an established or an unrated one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
    /// An anchor: its rating is fixed by the tournament director (not written when not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub anchor: bool,
}

/// `GET /api/players/{name}/history[?pool=P]`: the account's rating after each refit in
/// which it had played, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingHistory {
    /// The account.
    pub name: String,
    /// The pool.
    pub pool: String,
    /// Its ratings, oldest first (at most [`MAX_HISTORY`], the newest).
    pub points: Vec<RatingPoint>,
}

/// The most points of a rating history answered.
pub const MAX_HISTORY: usize = 2_000;

/// A rating at a moment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingPoint {
    /// When (unix ms).
    pub at_ms: u64,
    /// The rating then.
    pub rating: f64,
    /// Its rated games then.
    pub games: u32,
}

/// `GET /api/pools/{pool}/anchors`: the accounts whose rating in the pool the tournament
/// director fixed, by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnchorList {
    /// The pool.
    pub pool: String,
    /// One per anchor.
    pub anchors: Vec<AnchorView>,
}

/// An anchor: an account and the rating fixed for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnchorView {
    /// The account.
    pub name: String,
    /// Its rating, fixed.
    pub rating: f64,
}

/// `PUT /api/pools/{pool}/anchors/{name}`'s body: the rating to fix.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnchorRequest {
    /// The rating, in Elo (at most [`MAX_ANCHOR_ELO`] from 0 either way).
    pub rating: f64,
}

/// The farthest from 0 an anchor's rating may be.
pub const MAX_ANCHOR_ELO: f64 = 10_000.0;

/// A rating whose 95% interval reaches further than this many Elo on either side is
/// provisional ([`PlayerLine::provisional`]).
pub const PROVISIONAL_ELO: f64 = 100.0;

/// `GET /api/players/{name}/crosstable`: the account's rated results against each opponent,
/// by the colour it played, most games first (equal ones by name).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Crosstable {
    /// The account, as stored.
    pub name: String,
    /// One line per opponent.
    pub opponents: Vec<CrossLine>,
}

/// The results against one opponent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrossLine {
    /// The opponent.
    pub name: String,
    /// The opponent's rating, rounded (`null`: none stored yet).
    pub rating: Option<f64>,
    /// Rated games between them.
    pub games: u32,
    /// The account's results with Black.
    pub as_black: Tally,
    /// The account's results with White.
    pub as_white: Tally,
}

/// Wins, losses and draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
}

/// `GET /api/games/{id}/analysis`: what the programs said of their moves
/// (`genmove_analyze`, kept as the moves' comments), as Black's chances, move by move.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// One per move whose comment gave a win rate or a score, in the order played.
    pub points: Vec<AnalysisPoint>,
}

/// A move's analysis, from Black's side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalysisPoint {
    /// The move's number (1: the first move).
    pub number: usize,
    /// Who played it.
    pub color: Side,
    /// Black's chance to win as its player saw it (0 to 1), when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winrate: Option<f64>,
    /// Black's lead in points as its player saw it, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

impl AnalysisPoint {
    /// The analysis a program sent with move `number` of `color`, as CGOS's
    /// `genmove_analyze` gives it: JSON whose `winrate` (0 to 1) and `score` (or `scoreLead`)
    /// are the mover's, at the top or in its first `moves` entry. `None` when it says
    /// neither (or is not JSON). Turned to Black's side.
    #[must_use]
    pub fn read(number: usize, color: Side, comment: &str) -> Option<AnalysisPoint> {
        let value: Value = serde_json::from_str(comment).ok()?;
        let field = |names: &[&str]| -> Option<f64> {
            let first = value.get("moves").and_then(|m| m.get(0));
            names.iter().find_map(|n| {
                value
                    .get(*n)
                    .or_else(|| first.and_then(|f| f.get(*n)))
                    .and_then(Value::as_f64)
                    .filter(|v| v.is_finite())
            })
        };
        let winrate = field(&["winrate"]).filter(|w| (0.0..=1.0).contains(w));
        let score = field(&["score", "scoreLead"]);
        if winrate.is_none() && score.is_none() {
            return None;
        }
        let black = color == Side::B;
        Some(AnalysisPoint {
            number,
            color,
            winrate: winrate.map(|w| if black { w } else { 1.0 - w }),
            score: score.map(|s| if black { s } else { -s }),
        })
    }
}

/// `GET /api/games`'s answer: the newest games first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameList {
    /// One line per game.
    pub games: Vec<GameSummary>,
}

/// The longest account name, in characters.
pub const MAX_ACCOUNT_NAME: usize = 24;
/// The shortest password.
pub const MIN_PASSWORD: usize = 4;
/// The longest password, in bytes (hashing is costly; nobody needs more).
pub const MAX_PASSWORD: usize = 256;

/// Why a login is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoginError {
    /// The name is empty, too long, or holds other than letters, digits, `-`, `_`, `.`.
    BadName,
    /// The password is shorter than [`MIN_PASSWORD`] or longer than [`MAX_PASSWORD`].
    BadPassword,
    /// No account has this name (and the request did not ask to create one).
    UnknownAccount,
    /// The password does not match.
    WrongPassword,
    /// Too many failed logins for this name or address: try later.
    TooManyAttempts,
    /// The server has more passwords to check than it can in a few seconds (a crowd logging
    /// in at once): try again after `retry_after_s`.
    Busy {
        /// Whole seconds to wait.
        retry_after_s: u64,
    },
    /// The tournament director banned the account.
    Banned,
    /// The account could not be read or written.
    Storage(String),
}

impl LoginError {
    /// A stable code for the wire.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            LoginError::BadName => "bad_name",
            LoginError::BadPassword => "bad_password",
            LoginError::UnknownAccount => "unknown_account",
            LoginError::WrongPassword => "wrong_password",
            LoginError::TooManyAttempts => "too_many_attempts",
            LoginError::Busy { .. } => "busy",
            LoginError::Banned => "banned",
            LoginError::Storage(_) => "storage",
        }
    }
}

impl std::fmt::Display for LoginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoginError::BadName => write!(
                f,
                "names are 1 to {MAX_ACCOUNT_NAME} letters, digits, '-', '_' or '.'"
            ),
            LoginError::BadPassword => write!(
                f,
                "passwords are {MIN_PASSWORD} to {MAX_PASSWORD} bytes long"
            ),
            LoginError::UnknownAccount => f.write_str("no account has this name"),
            LoginError::WrongPassword => f.write_str("wrong password for this account"),
            LoginError::TooManyAttempts => f.write_str("too many failed logins: try later"),
            LoginError::Busy { retry_after_s } => write!(
                f,
                "the server is busy with other logins: try again in {retry_after_s} s"
            ),
            LoginError::Banned => f.write_str("this account is banned"),
            LoginError::Storage(e) => write!(f, "accounts could not be read or written: {e}"),
        }
    }
}

/// Checks an account name.
///
/// # Errors
///
/// [`LoginError::BadName`].
pub fn check_name(name: &str) -> Result<(), LoginError> {
    let ok = !name.is_empty()
        && name.chars().count() <= MAX_ACCOUNT_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(LoginError::BadName)
    }
}

/// Checks a password's length.
///
/// # Errors
///
/// [`LoginError::BadPassword`].
pub fn check_password(password: &str) -> Result<(), LoginError> {
    if (MIN_PASSWORD..=MAX_PASSWORD).contains(&password.len()) {
        Ok(())
    } else {
        Err(LoginError::BadPassword)
    }
}

/// An account as the server shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// The name, as first given (names are unique without regard to case).
    pub name: String,
    /// A program (logs in with `goref connect`), not a person.
    pub program: bool,
    /// The tournament director's role.
    pub td: bool,
    /// When it was created, unix milliseconds.
    pub created_ms: u64,
}

// The game's settings and acts, as the wire and the stored events name them.

/// The largest main time, period or increment accepted (one day).
pub const MAX_SECONDS: u64 = 86_400;

/// A side, as messages and stored events name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    /// Black.
    B,
    /// White.
    W,
}

impl From<Color> for Side {
    fn from(c: Color) -> Side {
        match c {
            Color::Black => Side::B,
            Color::White => Side::W,
        }
    }
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::B => Color::Black,
            Side::W => Color::White,
        }
    }
}

/// How a game is set up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameConfig {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Preset name: `tromp-taylor`, `nstt`, `olympiad`.
    pub rules: String,
    /// Komi, in points (a whole or half number).
    pub komi: f64,
    /// The clock.
    pub time: TimeControl,
    /// The end-of-game protocol (all seven of goref-referee).
    pub end: Protocol,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// Black's handicap stones on GTP's fixed points (0: none); White then moves first.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub handicap: usize,
    /// The accounts that play it; none for a game between guests with seat links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Players>,
    /// Whether the result counts for the players' ratings.
    #[serde(default, skip_serializing_if = "is_false")]
    pub rated: bool,
    /// Played under CGOS's terms (games of the CGOS door): see [`CgosTerms`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgos: Option<CgosTerms>,
    /// How the server's third party decides an adjudication (not written when it is the
    /// default removal: a config stored before the field reads as before).
    #[serde(default, skip_serializing_if = "ThirdParty::is_default")]
    pub third_party: ThirdParty,
    /// Exact early adjudication (`"adjudicate": "exact"` in the request): the game ends as soon
    /// as its winner is certain whatever the opponent plays (goref-referee's
    /// `Adjudicate::Exact`). Not written when off: a config stored before the field reads as
    /// before.
    #[serde(default, skip_serializing_if = "is_false")]
    pub adjudicate: bool,
    /// The pool whose pairing made it, when not the default pool ([`DEFAULT_POOL`]): its
    /// result counts for that pool's ratings. Set by the server, never by a request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
}

impl GameConfig {
    /// The pool whose ratings it counts for: the default pool unless its pairing was
    /// another's.
    #[must_use]
    pub fn pool(&self) -> &str {
        self.pool.as_deref().unwrap_or(DEFAULT_POOL)
    }
}

/// How the server's third party decides when the referee needs an adjudication (disputed
/// dead stones after the Olympiad's three resumptions or under the `referee` protocol, a
/// loss on time past the minimum number of moves; 001 §1, 3.7.5, 3.9).
///
/// On the wire `{"type": "default_removal"}` or `{"type": "perfect_play", "nodes": 200000}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ThirdParty {
    /// The Olympiad's default removal (001 3.9.2, crate goref-judge): the disputed blocks the
    /// judge finds dead are removed, and the board is scored.
    #[default]
    DefaultRemoval,
    /// Perfect play from the position, with its history (001 §3.9: "the tournament director
    /// may decide the outcome of the game based on perfect hypothetical play-out", crate
    /// goref-solve): when the value is proved within `nodes` nodes of search (and the
    /// server's own cap), the server plays a perfect line out to the end of the game, kept
    /// in the record ([`Act::PlayOut`]); else, or on a board over 32 points, the default
    /// removal decides, and its note says why.
    PerfectPlay {
        /// The nodes the search may take (1 to the server's cap).
        nodes: u64,
    },
}

impl ThirdParty {
    /// Whether it is the default, [`ThirdParty::DefaultRemoval`].
    #[must_use]
    pub fn is_default(&self) -> bool {
        *self == ThirdParty::DefaultRemoval
    }
}

/// CGOS's terms for a game: every move's first `time_gift_ms` are free (the lag allowance of
/// each turn, the door reporting no thinking time: a turn is charged its time less the gift,
/// never below zero), an illegal or unreadable move loses at once (the strict policy), and the
/// first player's clock runs from the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CgosTerms {
    /// The time gift of each move, ms.
    pub time_gift_ms: u64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The accounts seated in a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Players {
    /// Black's account.
    pub black: String,
    /// White's account.
    pub white: String,
}

impl Players {
    /// The account of `color`.
    #[must_use]
    pub fn of(&self, color: Color) -> &str {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// The colour `name` plays (names compare without regard to case, as accounts do).
    #[must_use]
    pub fn color_of(&self, name: &str) -> Option<Color> {
        Color::ALL
            .into_iter()
            .find(|&c| self.of(c).eq_ignore_ascii_case(name))
    }
}

/// The longest player name accepted, in characters.
pub const MAX_NAME: usize = 40;

/// What a request to create a game may say; everything has a default.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRequest {
    /// Columns (default 19).
    pub width: Option<usize>,
    /// Rows (default: as many as columns).
    pub height: Option<usize>,
    /// Preset name (default `tromp-taylor`).
    pub rules: Option<String>,
    /// Komi (default: the preset's, or ½ with a handicap).
    pub komi: Option<f64>,
    /// The clock (default none).
    pub time: Option<TimeControl>,
    /// The end-of-game protocol (default `tromp`: reference 003)
    pub end: Option<Protocol>,
    /// Black's name (default `Black`).
    pub black: Option<String>,
    /// White's name (default `White`).
    pub white: Option<String>,
    /// Black's handicap stones (default 0).
    pub handicap: Option<usize>,
    /// CGOS's terms ([`CgosTerms`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgos: Option<CgosTerms>,
    /// How the third party decides an adjudication (default: the default removal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub third_party: Option<ThirdParty>,
    /// Early adjudication: `off` (default) or `exact` (the game ends once its winner is
    /// certain whatever the opponent plays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudicate: Option<String>,
}

/// What a player (or the server) does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Act {
    /// A stone at column `x` from the left, row `y` from the top.
    Play {
        /// Column, from the left.
        x: usize,
        /// Row, from the top.
        y: usize,
    },
    /// A pass.
    Pass,
    /// Resigning.
    Resign,
    /// A program's answer that is no move on this board (it loses under the strict policy).
    Unreadable {
        /// The reply as the program sent it.
        reply: String,
    },
    /// Reference 003: mark the string through this stone dead.
    Mark {
        /// Column, from the left.
        x: usize,
        /// Row, from the top.
        y: usize,
    },
    /// Reference 003: dispute the marked string through this stone.
    Dispute {
        /// Column, from the left.
        x: usize,
        /// Row, from the top.
        y: usize,
    },
    /// Reference 003: done.
    Done,
    /// The stones this player considers dead (001 3.7.2; reference 000).
    DeadList {
        /// The dead stones, as `[x, y]`.
        points: Vec<[usize; 2]>,
    },
    /// The server: the player whose clock runs is out of time.
    Timeout,
    /// The server: its third party names the dead stones (Olympiad 3.9's default removal, also
    /// when perfect play proves nothing within its nodes).
    Adjudicate {
        /// The dead stones, as `[x, y]`.
        points: Vec<[usize; 2]>,
        /// How they were found, for the record.
        note: String,
    },
    /// The server: its third party decides an adjudication by perfect play
    /// ([`ThirdParty::PerfectPlay`], 001 §3.9): `moves` (`[x, y]`, `null` for a pass) are
    /// played out from the position to the end of the game, and the board is scored. The
    /// moves are the event's truth: a server replaying the log plays them, it does not
    /// search again.
    PlayOut {
        /// The moves, in turn from the player to move; `null`: a pass.
        moves: Vec<Option<[usize; 2]>>,
        /// How they were found, for the record.
        note: String,
    },
    /// The tournament director (account `td`) acts.
    Td {
        /// The director's account.
        td: String,
        /// What the director does.
        action: TdAction,
    },
    /// The server closes a game nobody plays, without a result (SGF `RE[Void]`); `note` says
    /// why, for the record.
    Close {
        /// Why the game is closed.
        why: Closing,
        /// Why, in words, for the record.
        note: String,
    },
    /// The server: the clocks resume at this event's time (the leading server started, or
    /// took over from one that died): the running turn is charged from then, not from
    /// before (that time was the servers', not the player's). An event of the game's own log,
    /// ordered with its moves; it changes nothing else.
    Resume,
}

/// What a tournament director does to a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum TdAction {
    /// Decides the game: `result` in SGF `RE` form (`B+R`, `W+T`, `B+F`, `W+3.5`, `0`), for
    /// `reason` (a timing dispute, 001 §1; an illegal move, 3.10.2; any dispute).
    Result {
        /// The result, in SGF `RE` form.
        result: String,
        /// Why, for the record.
        reason: String,
    },
    /// Grants `color` `seconds` more (001 3.10.3).
    Time {
        /// Whose clock gets the time.
        color: Side,
        /// How many seconds more.
        seconds: u64,
        /// Why, for the record.
        reason: String,
    },
    /// Passes for the player to move, in place of its illegal move or long-cycle play
    /// (001 3.10.2: the TD may let the move be undone and a pass made instead).
    Pass {
        /// Why, for the record.
        reason: String,
    },
    /// Aborts the game: it ends without a result (SGF `RE[Void]`, ending `aborted`, as a
    /// game the server closes), for `reason` (in the record). Rated games so aborted count
    /// for nobody.
    Abort {
        /// Why, for the record.
        reason: String,
    },
}

impl TdAction {
    /// The reason the director gave.
    #[must_use]
    pub fn reason(&self) -> &str {
        match self {
            TdAction::Result { reason, .. }
            | TdAction::Time { reason, .. }
            | TdAction::Pass { reason }
            | TdAction::Abort { reason } => reason,
        }
    }
}

/// The longest reason a TD may give, in characters.
pub const MAX_REASON: usize = 500;

/// The longest comment the server keeps on a move, in bytes.
pub const MAX_COMMENT: usize = 4096;

/// Why the server closed a game without a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Closing {
    /// Nobody moved within the time allowed after its creation.
    NeverStarted,
    /// Nobody acted for a long time (a game between guests left unfinished).
    Abandoned,
    /// The tournament director aborted it ([`TdAction::Abort`]).
    Aborted,
}

impl Closing {
    /// The name shown as the game's ending.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Closing::NeverStarted => "never-started",
            Closing::Abandoned => "abandoned",
            Closing::Aborted => "aborted",
        }
    }
}

/// One line of the list of games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameSummary {
    /// The game's id.
    pub id: String,
    /// When it was created (unix ms).
    pub created_ms: u64,
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Preset name.
    pub rules: String,
    /// The end-of-game protocol's name.
    pub end: String,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// Whether it counts for ratings.
    pub rated: bool,
    /// Whether Black and White are accounts (else guests' names).
    pub accounts: bool,
    /// Moves played.
    pub moves: u64,
    /// The result in SGF `RE` form; `None` while it is played.
    pub result: Option<String>,
    /// The pool whose pairing made it, when not the default pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
}

impl GameSummary {
    /// The pool it counts for ([`GameConfig::pool`]).
    #[must_use]
    pub fn pool(&self) -> &str {
        self.pool.as_deref().unwrap_or(DEFAULT_POOL)
    }
}

#[cfg(test)]
mod tests;
