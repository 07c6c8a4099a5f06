//! One game as the server referees it: goref-referee's [`Referee`], its version, the events
//! that rebuild it after a restart, and the view the page shows.
//!
//! Nothing here does I/O. The server asks [`Room::prepare`] to apply a player's message to a
//! copy of the room (refusing it, with nothing changed, when it is not allowed), stores the
//! event, and only then swaps the copy in; a restart replays the stored events through
//! [`Room::commit`].

use std::sync::Arc;
use std::time::Duration;

use goref_clock::TimeError;
use goref_clock::{PlayerClock, TimeControl};
use goref_referee::handicap::HandicapError;
use goref_referee::handicap::{fixed_handicap, HANDICAP_KOMI};
use goref_referee::marking::Dead;
pub use goref_referee::Phase;
use goref_referee::{
    ClockStart, Ending, IllegalPolicy, Input, Moment, Need, PlayerInfo, RecordInfo, Referee,
    Refusal as RefereeRefusal, SettingError, Settings,
};
use goref_rules::{
    Board, ByColor, Color, Geometry, GeometryError, Komi, Move, Outcome, ParseError, Point, Preset,
    Ruleset,
};
use serde::{Deserialize, Serialize};

pub use crate::wire::{
    Act, CgosTerms, Closing, CreateRequest, GameConfig, Players, Side, TdAction, ThirdParty,
    MAX_COMMENT, MAX_NAME, MAX_REASON, MAX_SECONDS,
};
use crate::wire::{
    Cell, ClockView, ClocksView, CopyView, MoveView, MovedView, Need as NeedView, NoteView,
    ScoreView, StateView, Xy,
};

/// A grid's value for a point's colour: 1 Black, -1 White, 0 none.
fn sign(c: Option<Color>) -> i8 {
    match c {
        Some(Color::Black) => 1,
        Some(Color::White) => -1,
        None => 0,
    }
}

/// A point as `[x, y]`.
fn xy(geometry: &Geometry, p: Point) -> Xy {
    let (x, y) = geometry.coords(p).expect("rect");
    [x, y]
}

/// A move as the state shows it.
fn move_view(geometry: &Geometry, &(c, m): &(Color, Move)) -> MoveView {
    match m {
        Move::Pass => MoveView {
            color: Side::from(c),
            point: None,
            name: "pass".into(),
        },
        Move::Play(p) => MoveView {
            color: Side::from(c),
            point: Some(xy(geometry, p)),
            name: geometry.name(p),
        },
    }
}

/// An area score as the state shows it.
fn score_view(score: &goref_rules::Score) -> ScoreView {
    ScoreView {
        black: score.black,
        white: score.white,
        komi: score.komi.as_f64(),
        result: score.outcome().to_sgf(),
    }
}

/// Why a game's settings are refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A side outside 2 to 25.
    #[error("board {width}x{height}: sides must be 2 to {}", goref_rules::MAX_SIDE)]
    Board {
        /// Columns asked for.
        width: usize,
        /// Rows asked for.
        height: usize,
    },
    /// A board the rules cannot build.
    #[error("{0}")]
    Geometry(#[from] GeometryError),
    /// A handicap this board has no fixed placement for.
    #[error("{0}")]
    Handicap(#[from] HandicapError),
    /// Rules that are not a preset's name.
    #[error("{0}")]
    Rules(ParseError),
    /// A komi that is not a whole or half number.
    #[error("{0}")]
    Komi(ParseError),
    /// A komi beyond ±1000.
    #[error("komi {0} is outside -1000 to 1000")]
    KomiRange(f64),
    /// A clock the server does not run.
    #[error("{0}")]
    Time(#[from] TimeError),
    /// A player's name longer than [`MAX_NAME`].
    #[error("player names are at most {MAX_NAME} characters")]
    NameTooLong,
    /// A player's name with a control character.
    #[error("player names may not hold control characters")]
    NameControl,
    /// Settings the referee refuses.
    #[error("{0}")]
    Referee(#[from] SettingError),
    /// Perfect play asked with no node to search.
    #[error("perfect play needs a budget of at least one node")]
    NoNodes,
    /// An early adjudication other than `off` or `exact`.
    #[error("unknown adjudication '{0}': expected off or exact")]
    Adjudicate(String),
    /// Perfect play asked with more nodes than the server allows a game (its option
    /// `max_perfect_nodes`, `goref serve --max-perfect-nodes`).
    #[error("perfect play may search at most {max} nodes on this server, not {nodes}")]
    TooManyNodes {
        /// Nodes asked for.
        nodes: u64,
        /// The server's cap.
        max: u64,
    },
}

/// Why a stored event cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The event's number is not the next version.
    #[error("event {seq} does not follow version {version}")]
    OutOfOrder {
        /// The event's number.
        seq: u64,
        /// The room's version.
        version: u64,
    },
    /// The room refuses the event.
    #[error("{0}")]
    Refused(MessageRefusal),
}

impl CreateRequest {
    /// The settings of a game between the accounts `players` (their names filled in),
    /// rated or not.
    ///
    /// # Errors
    ///
    /// As [`CreateRequest::config`].
    pub fn config_between(
        &self,
        players: &Players,
        rated: bool,
    ) -> Result<GameConfig, ConfigError> {
        let mut request = self.clone();
        request.black = Some(players.black.clone());
        request.white = Some(players.white.clone());
        let mut config = request.config()?;
        config.players = Some(players.clone());
        config.rated = rated;
        Ok(config)
    }

    /// The configuration, or why it is refused.
    ///
    /// # Errors
    ///
    /// A board side outside 2 to 25, a handicap the board cannot place, unknown rules, a komi
    /// that is not a half point or beyond ±1000, a clock over the limits, a bad player name,
    /// perfect play with no node (the server's cap on nodes is checked by
    /// [`GameConfig::within`]).
    pub fn config(&self) -> Result<GameConfig, ConfigError> {
        let width = self.width.unwrap_or(19);
        let height = self.height.unwrap_or(width);
        if !(2..=goref_rules::MAX_SIDE).contains(&width)
            || !(2..=goref_rules::MAX_SIDE).contains(&height)
        {
            return Err(ConfigError::Board { width, height });
        }
        let handicap = self.handicap.unwrap_or(0);
        if handicap > 0 {
            let g = Geometry::rect(width, height)?;
            fixed_handicap(&g, handicap)?;
        }
        let rules_name = self.rules.as_deref().unwrap_or("tromp-taylor");
        let preset: Preset = rules_name.parse().map_err(ConfigError::Rules)?;
        let komi = match self.komi {
            Some(k) => {
                let komi = Komi::from_f64(k).map_err(ConfigError::Komi)?;
                if komi.half_points().abs() > 2 * 1000 {
                    return Err(ConfigError::KomiRange(k));
                }
                komi
            }
            None if handicap > 0 => Komi::from_half_points((2.0 * HANDICAP_KOMI) as i32),
            None => Ruleset::preset(preset).komi,
        };
        let time = self.time.unwrap_or(TimeControl::None);
        time.validate(Duration::from_secs(MAX_SECONDS))?;
        let name = |given: &Option<String>, default: &str| -> Result<String, ConfigError> {
            let name = given.as_deref().unwrap_or(default).trim().to_string();
            if name.chars().count() > MAX_NAME {
                return Err(ConfigError::NameTooLong);
            }
            if name.chars().any(char::is_control) {
                return Err(ConfigError::NameControl);
            }
            Ok(if name.is_empty() {
                default.to_string()
            } else {
                name
            })
        };
        let third_party = self.third_party.unwrap_or_default();
        if third_party == (ThirdParty::PerfectPlay { nodes: 0 }) {
            return Err(ConfigError::NoNodes);
        }
        let adjudicate = match self.adjudicate.as_deref().map(str::trim) {
            None | Some("off") => false,
            Some("exact") => true,
            Some(other) => return Err(ConfigError::Adjudicate(other.chars().take(40).collect())),
        };
        Ok(GameConfig {
            width,
            height,
            rules: preset.name().to_string(),
            komi: komi.as_f64(),
            time,
            end: self.end.unwrap_or_default(),
            black: name(&self.black, "Black")?,
            white: name(&self.white, "White")?,
            handicap,
            players: None,
            rated: false,
            cgos: self.cgos,
            third_party,
            adjudicate,
            pool: None,
        })
    }
}

impl GameConfig {
    /// The ruleset: the preset with this komi.
    ///
    /// # Errors
    ///
    /// Unknown rules or a komi that is not a half point (a configuration
    /// [`CreateRequest::config`] did not make).
    pub fn ruleset(&self) -> Result<Ruleset, ConfigError> {
        let preset: Preset = self.rules.parse().map_err(ConfigError::Rules)?;
        let komi = Komi::from_f64(self.komi).map_err(ConfigError::Komi)?;
        Ok(Ruleset::preset(preset).with_komi(komi))
    }

    /// Whether the game asks no more of the server than it allows: perfect play of at most
    /// `max_nodes` nodes (a larger request is refused, not cut down: the settings a game
    /// shows are the ones it is played under).
    ///
    /// # Errors
    ///
    /// [`ConfigError::TooManyNodes`].
    pub fn within(&self, max_nodes: u64) -> Result<(), ConfigError> {
        match self.third_party {
            ThirdParty::PerfectPlay { nodes } if nodes > max_nodes => {
                Err(ConfigError::TooManyNodes {
                    nodes,
                    max: max_nodes,
                })
            }
            _ => Ok(()),
        }
    }
}

/// One stored event: what happened, when, and the clocks after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// The room's version after this event (the first event is 1).
    pub seq: u64,
    /// Unix time in milliseconds.
    pub at_ms: u64,
    /// Who acted; `None` for the server.
    pub by: Option<Side>,
    /// What happened.
    pub act: Act,
    /// How long the player thought, by its own measure (for the lag credit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_ms: Option<u64>,
    /// A comment the player sent with its move (a program's analysis), kept in the record
    /// on the move (at most [`MAX_COMMENT`] bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Both clocks after the event, Black's first.
    pub clocks: [PlayerClock; 2],
}

impl Event {
    /// When the game last saw activity after this event (unix ms): its time, except for a
    /// resume of the clocks (`None`), which no player made.
    #[must_use]
    pub fn activity_ms(&self) -> Option<u64> {
        (!matches!(self.act, Act::Resume)).then_some(self.at_ms)
    }
}

/// Why the server refused a player's message to a game (the referee's [`RefereeRefusal`] among
/// others: off the board, stale, too large, ...). Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageRefusal {
    /// The referee refused the action.
    Referee(RefereeRefusal),
    /// A point off the board.
    OffBoard {
        /// Column given.
        x: usize,
        /// Row given.
        y: usize,
        /// The board's columns.
        width: usize,
        /// The board's rows.
        height: usize,
    },
    /// A message that cannot be read or is not allowed in this form.
    Malformed(String),
    /// A message over the size limit.
    TooLarge {
        /// Its size in bytes.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// A spectator tried to act.
    Spectator,
    /// The message answers an older state.
    Stale {
        /// The version it answers.
        version: u64,
        /// The game's version.
        current: u64,
    },
    /// The player's time ran out before the move arrived (the loss is recorded).
    OutOfTime,
    /// Too many messages on this connection.
    RateLimited,
    /// The action could not be stored.
    Storage(String),
}

impl MessageRefusal {
    /// A stable code for programs (the wire format).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            MessageRefusal::Referee(r) => r.code(),
            MessageRefusal::OffBoard { .. } => "off_board",
            MessageRefusal::Malformed(_) => "malformed",
            MessageRefusal::TooLarge { .. } => "too_large",
            MessageRefusal::Spectator => "spectator",
            MessageRefusal::Stale { .. } => "stale",
            MessageRefusal::OutOfTime => "out_of_time",
            MessageRefusal::RateLimited => "rate_limited",
            MessageRefusal::Storage(_) => "storage",
        }
    }
}

impl std::fmt::Display for MessageRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MessageRefusal::Referee(r) => write!(f, "{r}"),
            MessageRefusal::OffBoard {
                x,
                y,
                width,
                height,
            } => write!(f, "({x}, {y}) is off the {width}x{height} board"),
            MessageRefusal::Malformed(m) => f.write_str(m),
            MessageRefusal::TooLarge { bytes, max } => {
                write!(f, "message of {bytes} bytes refused: at most {max} bytes")
            }
            MessageRefusal::Spectator => {
                f.write_str("spectators cannot play: open a seat link to play")
            }
            MessageRefusal::Stale { version, current } => write!(
                f,
                "this message answers version {version} but the game is at version {current}: \
                 refused (old or repeated message)"
            ),
            MessageRefusal::OutOfTime => f.write_str("your time ran out before this arrived"),
            MessageRefusal::RateLimited => f.write_str("too many messages: slow down"),
            MessageRefusal::Storage(e) => {
                write!(f, "the move could not be stored, nothing changed: {e}")
            }
        }
    }
}

impl From<RefereeRefusal> for MessageRefusal {
    fn from(r: RefereeRefusal) -> MessageRefusal {
        MessageRefusal::Referee(r)
    }
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished {
    /// The result (SGF `RE` with [`Outcome::to_sgf`]).
    pub result: Outcome,
    /// How the settlement ended after two passes (`agreement`, `four-passes`, ...), else how
    /// the game did (`resignation`, `time`, `long-cycle`, ...).
    pub ending: String,
    /// Stones removed before scoring.
    pub dead: Dead,
}

/// A duration in words for notes: `300 ms`, `90 s`, `15 min`, `2 h`, `3 days`.
fn duration_text(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        _ if ms < 1000 => format!("{ms} ms"),
        _ if s < 120 => format!("{s} s"),
        _ if s < 2 * 3600 => format!("{} min", s / 60),
        _ if s < 2 * 86_400 => format!("{} h", s / 3600),
        _ => format!("{} days", s / 86_400),
    }
}

/// The director's reason as the record says it (`: REASON`, or nothing), or the refusal of
/// one that is too long or not on one line.
fn td_why(action: &TdAction) -> Result<String, MessageRefusal> {
    let reason = action.reason();
    if reason.chars().count() > MAX_REASON || reason.chars().any(char::is_control) {
        return Err(MessageRefusal::Malformed(format!(
            "a reason is at most {MAX_REASON} characters on one line"
        )));
    }
    Ok(if reason.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", reason.trim())
    })
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// One game being refereed.
#[derive(Clone, Debug)]
pub struct Room {
    config: GameConfig,
    created_ms: u64,
    referee: Referee,
    version: u64,
    /// The version after the last event that was not a resume of the clocks ([`Act::Resume`]):
    /// a message answering any version from it on answers the game as it is.
    acted_version: u64,
    /// When the last event happened (unix ms), resumes of the clocks left out; `None` before
    /// the first.
    last_event_ms: Option<u64>,
    /// Set when the server closed the game without a result.
    closed: Option<Closing>,
    /// When each move of the game was played (unix ms: its event's time), in order.
    move_ms: Vec<u64>,
}

impl Room {
    /// A new game (the configuration must have passed [`CreateRequest::config`]); `lag_ms` is
    /// the lag allowance of each turn.
    ///
    /// # Errors
    ///
    /// Settings [`CreateRequest::config`] would refuse.
    pub fn new(config: GameConfig, created_ms: u64, lag_ms: u64) -> Result<Room, ConfigError> {
        let rules = config.ruleset()?;
        let geometry = Arc::new(Geometry::rect(config.width, config.height)?);
        let mut settings = Settings::new(rules);
        settings.end = config.end;
        settings.illegal = IllegalPolicy::Refuse;
        settings.time = config.time;
        settings.lag = Duration::from_millis(lag_ms);
        settings.clock_start = ClockStart::AfterFirstMove;
        if config.adjudicate {
            settings.adjudicate = goref_referee::Adjudicate::Exact;
        }
        if let Some(terms) = config.cgos {
            settings.lag = Duration::from_millis(terms.time_gift_ms);
            settings.illegal = IllegalPolicy::Strict;
            settings.clock_start = ClockStart::AtOnce;
        }
        if config.handicap > 0 {
            settings.handicap = fixed_handicap(&geometry, config.handicap)?;
        }
        let referee = Referee::new(geometry, settings, Duration::from_millis(created_ms))?;
        Ok(Room {
            config,
            created_ms,
            referee,
            version: 0,
            acted_version: 0,
            last_event_ms: None,
            closed: None,
            move_ms: Vec::new(),
        })
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    /// When each move of the game (its record's, as [`Room::moves`] counts them) was played:
    /// its event's time, unix ms (the moves a third party plays out share their event's).
    #[must_use]
    pub fn move_times_ms(&self) -> &[u64] {
        &self.move_ms
    }

    /// Events applied so far.
    #[must_use]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The phase.
    #[must_use]
    pub fn phase(&self) -> Phase {
        if self.closed.is_some() {
            return Phase::Over;
        }
        self.referee.phase()
    }

    /// When the game was created (unix ms).
    #[must_use]
    pub fn created_ms(&self) -> u64 {
        self.created_ms
    }

    /// Whether a message answering `version` answers the game as it is: `version` is the
    /// current one, or older by resumes of the clocks only (they change no position, no
    /// phase: a player's move that crossed one is not stale).
    #[must_use]
    pub fn answers(&self, version: u64) -> bool {
        (self.acted_version..=self.version).contains(&version)
    }

    /// When the last event happened (unix ms), resumes of the clocks left out; `None` before
    /// the first.
    #[must_use]
    pub fn last_event_ms(&self) -> Option<u64> {
        self.last_event_ms
    }

    /// Why the server closed the game, if it did.
    #[must_use]
    pub fn closed(&self) -> Option<Closing> {
        self.closed
    }

    /// The referee.
    #[must_use]
    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    /// Turns played on the board.
    #[must_use]
    pub fn moves(&self) -> usize {
        self.referee.game().moves().len()
    }

    /// How it ended, once over.
    #[must_use]
    pub fn finished(&self) -> Option<Finished> {
        if let Some(why) = self.closed {
            return Some(Finished {
                result: Outcome::Void,
                ending: why.name().to_string(),
                dead: Dead::new(),
            });
        }
        let r = self.referee.result()?;
        Some(Finished {
            result: r.outcome,
            ending: r
                .settled
                .map_or_else(|| r.ending.name().to_string(), |s| s.name().to_string()),
            dead: r.removed.clone(),
        })
    }

    /// The clock that runs starts again at `now_ms` (replaying a database from before resumes
    /// were events of the games' logs: [`crate::store::Store::legacy_resumes`]).
    pub fn restart_turn_at(&mut self, now_ms: u64) {
        self.referee.restart_clock(Duration::from_millis(now_ms));
    }

    /// When (unix ms) the running player loses on time, lag allowance included.
    #[must_use]
    pub fn deadline_ms(&self) -> Option<u64> {
        if self.closed.is_some() {
            return None;
        }
        self.referee.clock().deadline().map(ms)
    }

    fn point(&self, x: usize, y: usize) -> Result<Point, MessageRefusal> {
        self.referee
            .game()
            .geometry()
            .at(x, y)
            .ok_or(MessageRefusal::OffBoard {
                x,
                y,
                width: self.config.width,
                height: self.config.height,
            })
    }

    /// The referee's input for an act.
    fn input(&self, by: Option<Color>, act: &Act) -> Result<Input, MessageRefusal> {
        let seat = || by.ok_or_else(|| MessageRefusal::Malformed("players act from a seat".into()));
        let points = |points: &[[usize; 2]]| -> Result<Vec<Point>, MessageRefusal> {
            if points.len() > self.referee.game().geometry().len() {
                return Err(MessageRefusal::Malformed(
                    "more points than the board has".into(),
                ));
            }
            points.iter().map(|&[x, y]| self.point(x, y)).collect()
        };
        Ok(match act {
            Act::Play { x, y } => Input::Play {
                by: seat()?,
                mv: Move::Play(self.point(*x, *y)?),
            },
            Act::Pass => Input::Play {
                by: seat()?,
                mv: Move::Pass,
            },
            Act::Unreadable { reply } => Input::Unreadable {
                by: seat()?,
                reply: reply.chars().take(100).collect(),
            },
            Act::Resign => Input::Resign { by: seat()? },
            Act::Mark { x, y } => Input::Mark {
                by: seat()?,
                at: self.point(*x, *y)?,
            },
            Act::Dispute { x, y } => Input::Dispute {
                by: seat()?,
                at: self.point(*x, *y)?,
            },
            Act::Done => Input::Done { by: seat()? },
            Act::DeadList { points: p } => Input::DeadList {
                by: seat()?,
                stones: Some(points(p)?),
            },
            Act::Timeout
            | Act::Adjudicate { .. }
            | Act::PlayOut { .. }
            | Act::Td { .. }
            | Act::Close { .. }
            | Act::Resume
                if by.is_some() =>
            {
                return Err(MessageRefusal::Malformed(
                    "only the server does that".into(),
                ))
            }
            Act::Timeout => Input::Timeout,
            Act::Adjudicate { points: p, note } => Input::Adjudicate {
                dead: Some(points(p)?),
                note: note.clone(),
            },
            Act::PlayOut { moves, note } => Input::PlayOut {
                moves: moves
                    .iter()
                    .map(|m| match m {
                        None => Ok(Move::Pass),
                        Some([x, y]) => self.point(*x, *y).map(Move::Play),
                    })
                    .collect::<Result<_, _>>()?,
                note: note.clone(),
            },
            Act::Td { td, action } => self.td_input(td, action)?,
            Act::Close { .. } | Act::Resume => {
                return Err(MessageRefusal::Malformed(
                    "closing and resuming are the server's, not the referee's".into(),
                ))
            }
        })
    }

    fn td_input(&self, td: &str, action: &TdAction) -> Result<Input, MessageRefusal> {
        let why = td_why(action)?;
        Ok(match action {
            TdAction::Result { result, .. } => Input::Decide {
                outcome: result.parse().map_err(|e: goref_rules::ParseError| {
                    MessageRefusal::Malformed(e.to_string())
                })?,
                note: format!("decided by the TD ({td}){why}"),
            },
            TdAction::Time { color, seconds, .. } => {
                if *seconds == 0 || *seconds > MAX_SECONDS {
                    return Err(MessageRefusal::Malformed(format!(
                        "time granted is 1 to {MAX_SECONDS} seconds"
                    )));
                }
                let color = Color::from(*color);
                Input::GrantTime {
                    color,
                    extra: Duration::from_secs(*seconds),
                    note: format!("the TD ({td}) grants {color} {seconds} s{why}"),
                }
            }
            TdAction::Pass { .. } => Input::Play {
                by: self.referee.board_in_play().to_move(),
                mv: Move::Pass,
            },
            TdAction::Abort { .. } => {
                return Err(MessageRefusal::Malformed(
                    "an abort closes the game: it is no referee's input".into(),
                ))
            }
        })
    }

    /// Applies `act` by `by` at `now_ms` to a copy of the room: the event to store and the
    /// room after it, or the refusal (nothing changes). Store the event, then take the copy.
    pub fn prepare(
        &self,
        by: Option<Color>,
        act: Act,
        now_ms: u64,
        think_ms: Option<u64>,
    ) -> Result<(Event, Room), MessageRefusal> {
        self.prepare_commented(by, act, now_ms, think_ms, None)
    }

    /// As [`prepare`](Room::prepare), the event carrying `comment` for the record (a note
    /// after the move it makes).
    pub fn prepare_commented(
        &self,
        by: Option<Color>,
        act: Act,
        now_ms: u64,
        think_ms: Option<u64>,
        comment: Option<String>,
    ) -> Result<(Event, Room), MessageRefusal> {
        if let Some(text) = &comment {
            if text.len() > MAX_COMMENT {
                return Err(MessageRefusal::TooLarge {
                    bytes: text.len(),
                    max: MAX_COMMENT,
                });
            }
        }
        if self.closed.is_some() {
            return Err(MessageRefusal::Referee(RefereeRefusal::Over));
        }
        let mut next = self.clone();
        match &act {
            Act::Close { .. } | Act::Resume if by.is_some() => {
                return Err(MessageRefusal::Malformed(
                    "only the server does that".into(),
                ))
            }
            Act::Resume => {
                if self.phase() == Phase::Over {
                    return Err(MessageRefusal::Referee(RefereeRefusal::Over));
                }
                // The running turn is charged from the resume, never from later than it was.
                let since = self.referee.clock().since().map(ms);
                if since.is_some_and(|since| now_ms > since) {
                    next.referee.restart_clock(Duration::from_millis(now_ms));
                }
            }
            Act::Close { why, note } => {
                if self.phase() == Phase::Over {
                    return Err(MessageRefusal::Referee(RefereeRefusal::Over));
                }
                next.closed = Some(*why);
                next.referee.note(note.clone());
            }
            // The TD aborts the game: closed without a result, as the server closes one.
            Act::Td {
                td,
                action: action @ TdAction::Abort { .. },
            } if by.is_none() => {
                if self.phase() == Phase::Over {
                    return Err(MessageRefusal::Referee(RefereeRefusal::Over));
                }
                let why = td_why(action)?;
                next.closed = Some(Closing::Aborted);
                next.referee
                    .note(format!("aborted by the TD ({td}) without a result{why}"));
            }
            _ => {
                let input = self.input(by, &act)?;
                next.referee.apply(
                    input,
                    Moment {
                        now: Duration::from_millis(now_ms),
                        think: think_ms.map(Duration::from_millis),
                    },
                )?;
                if let Act::Td {
                    td,
                    action: TdAction::Pass { reason },
                } = &act
                {
                    let color = self.referee.board_in_play().to_move();
                    let why = if reason.trim().is_empty() {
                        String::new()
                    } else {
                        format!(": {}", reason.trim())
                    };
                    next.referee.note(format!(
                        "the TD ({td}) passes for {color} in place of its move (001 3.10.2){why}"
                    ));
                }
            }
        }
        if let Some(text) = &comment {
            next.referee.note(text.clone());
        }
        let moves = next.moves();
        next.move_ms.truncate(moves);
        next.move_ms.resize(moves, now_ms);
        next.version += 1;
        if !matches!(act, Act::Resume) {
            next.acted_version = next.version;
            next.last_event_ms = Some(now_ms);
        }
        let clocks = next.referee.clock().both().into_array();
        let event = Event {
            seq: next.version,
            at_ms: now_ms,
            by: by.map(Side::from),
            act,
            think_ms,
            comment,
            clocks,
        };
        Ok((event, next))
    }

    /// The server's timeout event, when the running player's time (plus the lag allowance)
    /// is up at `now_ms`.
    #[must_use]
    pub fn prepare_timeout(&self, now_ms: u64) -> Option<(Event, Room)> {
        if now_ms < self.deadline_ms()? {
            return None;
        }
        self.prepare(None, Act::Timeout, now_ms, None).ok()
    }

    /// The server's resume of the clocks at `now_ms` (the leading server started or took
    /// over): `None` when no clock runs, or the running turn began at or after `now_ms`
    /// (nothing to forgive).
    #[must_use]
    pub fn prepare_resume(&self, now_ms: u64) -> Option<(Event, Room)> {
        let since = ms(self.referee.clock().since()?);
        if self.phase() == Phase::Over || now_ms <= since {
            return None;
        }
        self.prepare(None, Act::Resume, now_ms, None).ok()
    }

    /// The game's third party when the referee needs an adjudication now; `None` when it
    /// needs none.
    #[must_use]
    pub fn third_party_due(&self) -> Option<ThirdParty> {
        let needed =
            self.closed.is_none() && matches!(self.referee.need(), Need::Adjudication { .. });
        needed.then_some(self.config.third_party)
    }

    /// The server's adjudication by Olympiad 3.9's default removal when the referee needs one
    /// (whatever the game's [`ThirdParty`]: perfect play is searched by the caller, off the
    /// async runtime, and given to [`Room::prepare_adjudicated`]).
    #[must_use]
    pub fn prepare_adjudication(&self, now_ms: u64) -> Option<(Event, Room)> {
        let decided = goref_referee::adjudicate::by_default_removal(&self.referee)?;
        self.prepare_adjudicated(decided, now_ms)
    }

    /// The server's event for its third party's decision, `decided` as goref-referee's
    /// adjudication gives it: dead stones ([`Input::Adjudicate`], stored as
    /// [`Act::Adjudicate`]) or a play-out ([`Input::PlayOut`], stored as [`Act::PlayOut`]).
    /// `None` for any other input, or one the referee refuses now.
    #[must_use]
    pub fn prepare_adjudicated(&self, decided: Input, now_ms: u64) -> Option<(Event, Room)> {
        let g = self.referee.game().geometry().clone();
        let xy = |p: Point| g.coords(p).map(|(x, y)| [x, y]);
        let act = match decided {
            Input::Adjudicate { dead, note } => Act::Adjudicate {
                points: dead
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(xy)
                    .collect(),
                note,
            },
            Input::PlayOut { moves, note } => Act::PlayOut {
                moves: moves
                    .into_iter()
                    .map(|mv| match mv {
                        Move::Pass => Some(None),
                        Move::Play(p) => xy(p).map(Some),
                    })
                    .collect::<Option<_>>()?,
                note,
            },
            _ => return None,
        };
        self.prepare(None, act, now_ms, None).ok()
    }

    /// The server's closing event when the game is due to be closed at `now_ms`: never
    /// started (no event) `unstarted_ms` after its creation, or no event for `idle_ms`.
    #[must_use]
    pub fn prepare_close(
        &self,
        now_ms: u64,
        unstarted_ms: u64,
        idle_ms: u64,
    ) -> Option<(Event, Room)> {
        let (why, since, after) = match self.last_event_ms {
            None => (Closing::NeverStarted, self.created_ms, unstarted_ms),
            Some(last) => (Closing::Abandoned, last, idle_ms),
        };
        if self.phase() == Phase::Over || now_ms < since.saturating_add(after) {
            return None;
        }
        let note = if why == Closing::NeverStarted {
            format!(
                "closed by the server without a result: no move within {} of its creation",
                duration_text(after)
            )
        } else {
            format!(
                "closed by the server without a result: abandoned, nothing happened for {}",
                duration_text(after)
            )
        };
        self.prepare(None, Act::Close { why, note }, now_ms, None)
            .ok()
    }

    /// Whether a player's move just lost on time instead of being played.
    #[must_use]
    pub fn lost_on_time(&self, by: Color) -> bool {
        self.referee
            .result()
            .is_some_and(|r| r.ending == Ending::Time && r.outcome.winner() == Some(by.opponent()))
            || matches!(
                self.referee.need(),
                Need::Adjudication {
                    reason: goref_referee::Adjudication::Timing { by: b },
                    ..
                } if b == by
            )
    }

    /// Applies a stored event (replaying the log after a restart).
    ///
    /// # Errors
    ///
    /// The event is not the next one, or the room refuses it.
    pub fn commit(&mut self, event: &Event) -> Result<(), ReplayError> {
        if event.seq != self.version + 1 {
            return Err(ReplayError::OutOfOrder {
                seq: event.seq,
                version: self.version,
            });
        }
        let (_, next) = self
            .prepare_commented(
                event.by.map(Color::from),
                event.act.clone(),
                event.at_ms,
                event.think_ms,
                event.comment.clone(),
            )
            .map_err(ReplayError::Refused)?;
        *self = next;
        Ok(())
    }

    /// What the moves since `before` (this game, earlier) changed, for a client that holds
    /// `before`'s state: `None` unless both are in the play phase on the main board with the
    /// same notes, this one moves on from `before` by moves only, and nothing else that the
    /// state shows changed (then the whole state is sent). `before.view(..)` with the result
    /// applied ([`StateView::apply`]) is `self.view(..)` at the same `now_ms`.
    #[must_use]
    pub fn moved_since(&self, before: &Room, now_ms: u64) -> Option<MovedView> {
        let (r, was) = (&self.referee, &before.referee);
        let (game, old) = (r.game(), was.game());
        let in_play = |room: &Room| {
            room.phase() == Phase::Play
                && room.referee.copy().is_none()
                && room.referee.agreement().is_none()
                && matches!(room.referee.need(), Need::Move { .. })
        };
        if !in_play(self)
            || !in_play(before)
            || r.notes().len() != was.notes().len()
            || self.config != before.config
            || game.moves().len() <= old.moves().len()
            || game.moves()[..old.moves().len()] != old.moves()[..]
        {
            return None;
        }
        let geometry = game.geometry();
        let cells = |a: &dyn Fn(Point) -> i8, b: &dyn Fn(Point) -> i8| -> Vec<Cell> {
            let mut changed = Vec::new();
            for y in 0..self.config.height {
                for x in 0..self.config.width {
                    let p = geometry.at(x, y).expect("on board");
                    let v = b(p);
                    if a(p) != v {
                        changed.push(Cell(x, y, v));
                    }
                }
            }
            changed
        };
        let (owners, owned) = (old.board().territory(), game.board().territory());
        Some(MovedView {
            from: before.version,
            version: self.version,
            need: self.need_view(),
            to_move: Side::from(r.board_in_play().to_move()),
            moves: game.moves()[old.moves().len()..]
                .iter()
                .map(|m| move_view(geometry, m))
                .collect(),
            board: cells(&|p| sign(old.board().get(p)), &|p| {
                sign(game.board().get(p))
            }),
            territory: cells(&|p| sign(owners[p.index()]), &|p| sign(owned[p.index()])),
            captures: game.captures().into(),
            ko: r.board_in_play().ko().map(|k| xy(geometry, k.point)),
            score: score_view(&goref_referee::area_score(game, &Dead::new())),
            clocks: self.clocks_view(now_ms),
        })
    }

    /// What the referee waits for, as the state shows it.
    fn need_view(&self) -> NeedView {
        match self.referee.need() {
            Need::Move {
                color,
                resumed,
                cleanup,
            } => NeedView::Move {
                color: Side::from(color),
                resumed,
                cleanup,
            },
            Need::PlayOutOnCopy { color } => NeedView::PlayOut {
                color: Side::from(color),
            },
            Need::DeadLists { missing } => NeedView::DeadLists {
                missing: missing.into(),
            },
            Need::Marking { to_act } => NeedView::Marking {
                color: Side::from(to_act),
            },
            Need::Adjudication { .. } => NeedView::Adjudication,
            Need::Over => NeedView::Over,
        }
    }

    /// The clocks as shown at `now_ms`.
    fn clocks_view(&self, now_ms: u64) -> ClocksView {
        let r = &self.referee;
        let now = Duration::from_millis(now_ms);
        let clock = |c: Color| {
            let shown = r.clock().shown(c, now);
            ClockView {
                main_ms: ms(shown.main),
                periods: shown.periods,
            }
        };
        ClocksView {
            black: clock(Color::Black),
            white: clock(Color::White),
            running: r
                .clock()
                .running()
                .filter(|_| self.closed.is_none())
                .map(Side::from),
        }
    }

    /// The whole state, as the page shows it, at `now_ms`.
    #[must_use]
    pub fn view(&self, id: &str, now_ms: u64) -> StateView {
        let r = &self.referee;
        let game = r.game();
        let geometry = game.geometry();
        let grid = |f: &dyn Fn(Point) -> i8| -> Vec<Vec<i8>> {
            (0..self.config.height)
                .map(|y| {
                    (0..self.config.width)
                        .map(|x| f(geometry.at(x, y).expect("on board")))
                        .collect()
                })
                .collect()
        };
        let rows = |board: &Board| grid(&|p| sign(board.get(p)));
        let marked: Dead = r
            .agreement()
            .map(|a| a.marked().clone())
            .unwrap_or_default();
        let finished = self.finished();
        let dead = finished.as_ref().map_or(&marked, |f| &f.dead);
        let cleared = goref_referee::marking::without(game.board(), dead);
        let score = goref_referee::area_score(game, dead);
        let owners = cleared.territory();
        let in_play = r.board_in_play();
        let (lists_given, disputed) = match r.need() {
            Need::DeadLists { missing } => (missing.map(|m| !m), Dead::new()),
            Need::Adjudication { disputed, .. } => (ByColor::default(), disputed),
            _ => (ByColor::default(), Dead::new()),
        };
        let copy = r.copy().map(|c| CopyView {
            board: rows(c.board()),
            moves: c.moves()[game.moves().len()..]
                .iter()
                .map(|m| move_view(geometry, m))
                .collect(),
        });
        let points = |dead: &Dead| dead.iter().map(|&p| xy(geometry, p)).collect();
        StateView {
            id: id.to_string(),
            need: self.need_view(),
            version: self.version,
            config: self.config.clone(),
            time_text: self.config.time.to_string(),
            created_ms: self.created_ms,
            phase: self.phase().name().to_string(),
            board: rows(game.board()),
            copy,
            to_move: Side::from(in_play.to_move()),
            to_act: r.agreement().map(|a| Side::from(a.to_act())),
            moves: game
                .moves()
                .iter()
                .map(|m| move_view(geometry, m))
                .collect(),
            captures: game.captures().into(),
            ko: in_play.ko().map(|k| xy(geometry, k.point)),
            marked: points(&marked),
            dead: points(dead),
            disputed: points(&disputed),
            territory: grid(&|p| sign(owners[p.index()])),
            score: score_view(&score),
            lists_given: lists_given.into(),
            clocks: self.clocks_view(now_ms),
            result: finished.as_ref().map(|f| f.result.to_sgf()),
            ending: finished.as_ref().map(|f| f.ending.clone()),
            notes: r
                .notes()
                .iter()
                .map(|n| NoteView {
                    after: n.after,
                    text: n.text.clone(),
                })
                .collect(),
        }
    }

    /// The game record (goref-referee's, for every front end).
    #[must_use]
    pub fn sgf(&self) -> String {
        let mut record = self.referee.record(&RecordInfo {
            black: PlayerInfo::named(self.config.black.clone()),
            white: PlayerInfo::named(self.config.white.clone()),
            game_name: None,
            date: Some(goref_referee::sgf_date(self.created_ms / 1000)),
        });
        if let Some(why) = self.closed {
            let void = Outcome::Void.to_sgf();
            record.result = Some(void.clone());
            let rest = record
                .comment
                .as_deref()
                .and_then(|c| c.strip_prefix("unfinished"))
                .unwrap_or_default();
            record.comment = Some(format!("{void} ({}){rest}", why.name()));
        }
        goref_sgf::write(&record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A change sent for a move ([`Room::moved_since`]), applied to the state before it
        /// ([`StateView::apply`]), is the state after it, field by field, on random games
        /// (with captures, kos, passes, byo-yomi clocks, and ends); and every move that leaves
        /// the game in play with nothing else changed is sent as a change, not as the whole.
        #[test]
        fn a_moves_change_applied_to_the_state_before_it_is_the_state_after_it(
            seed in any::<u64>(),
            width in 2usize..8,
            height in 2usize..8,
            rules in prop::sample::select(vec!["tromp-taylor", "nstt", "olympiad"]),
        ) {
            let request = CreateRequest {
                width: Some(width),
                height: Some(height),
                rules: Some(rules.to_string()),
                time: Some(TimeControl::ByoYomi {
                    main: Duration::from_secs(20),
                    period: Duration::from_secs(5),
                    periods: 3,
                }),
                ..CreateRequest::default()
            };
            let mut room = Room::new(request.config().unwrap(), 1_000, 0).unwrap();
            let mut rng = goref_rules::playout::Rng::new(seed);
            let mut candidates = Vec::new();
            let (mut now, mut changes) = (1_000u64, 0usize);
            for _ in 0..200 {
                if room.phase() != Phase::Play {
                    break;
                }
                let by = room.referee().game().to_move();
                let act = match rng.below(10) {
                    0 => Act::Pass,
                    _ => match goref_rules::playout::random_move(
                        room.referee().game(),
                        &mut rng,
                        &mut candidates,
                    ) {
                        Move::Pass => Act::Pass,
                        Move::Play(p) => {
                            let (x, y) = room.referee().game().geometry().coords(p).unwrap();
                            Act::Play { x, y }
                        }
                    },
                };
                // Now and then a turn overruns a byo-yomi period, or the last one.
                let longest = if rng.below(20) == 0 { 20_000 } else { 4_000 };
                now += rng.below(longest) as u64;
                let Ok((_, next)) = room.prepare(Some(by), act, now, None) else {
                    break;
                };
                let after = next.view("g", now);
                match next.moved_since(&room, now) {
                    Some(moved) => {
                        let mut state = room.view("g", now);
                        prop_assert!(state.apply(&moved));
                        prop_assert_eq!(&state, &after);
                        // A client at another version is told nothing.
                        prop_assert!(!state.apply(&moved));
                        changes += 1;
                    }
                    None => prop_assert!(
                        next.phase() != Phase::Play
                            || next.referee().notes().len() != room.referee().notes().len(),
                        "a plain move was sent whole: {:?}",
                        after.moves.last()
                    ),
                }
                room = next;
            }
            prop_assert!(changes > 0 || width * height < 3);
        }
    }

    fn room() -> Room {
        let request = CreateRequest {
            width: Some(5),
            ..CreateRequest::default()
        };
        Room::new(request.config().unwrap(), 1_000, 0).unwrap()
    }

    /// Issue 23 §5: a resume of the clocks is the server's event: the running turn is
    /// charged from it (never from later), it moves no position (a message answering the
    /// version before it is not stale) and is no activity; replayed, the same.
    #[test]
    fn a_resume_charges_the_running_turn_from_it_and_changes_nothing_else() {
        let request = CreateRequest {
            width: Some(5),
            time: Some(TimeControl::SuddenDeath {
                main: Duration::from_secs(60),
            }),
            ..CreateRequest::default()
        };
        let room = Room::new(request.config().unwrap(), 1_000, 0).unwrap();
        assert!(room.prepare_resume(5_000).is_none(), "no clock runs yet");
        let (e1, room) = room
            .prepare(Some(Color::Black), Act::Play { x: 2, y: 2 }, 2_000, None)
            .unwrap();
        assert!(
            room.prepare(Some(Color::White), Act::Resume, 7_000, None)
                .is_err(),
            "the server's only"
        );
        assert!(room.prepare_resume(2_000).is_none(), "nothing to forgive");
        let (e2, room) = room.prepare_resume(7_000).unwrap();
        assert_eq!((e2.act.clone(), e2.activity_ms()), (Act::Resume, None));
        assert_eq!(room.version(), 2);
        assert_eq!(room.last_event_ms(), Some(2_000), "no activity");
        assert!(room.answers(1) && room.answers(2) && !room.answers(0));
        assert!(room.prepare_resume(6_000).is_none(), "never back");
        assert_eq!(room.view("g", 10_000).clocks.white.main_ms, 57_000);
        let (e3, room) = room
            .prepare(Some(Color::White), Act::Play { x: 1, y: 1 }, 10_000, None)
            .unwrap();
        assert_eq!(e3.clocks[1].main, Duration::from_secs(57));
        assert!(!room.answers(2), "a move came since");
        let mut replayed = Room::new(request.config().unwrap(), 1_000, 0).unwrap();
        for e in [&e1, &e2, &e3] {
            replayed.commit(e).unwrap();
        }
        assert_eq!(replayed.view("g", 12_000), room.view("g", 12_000));
    }

    /// A 9x9 game under CGOS's terms, 10 s each, a 250 ms gift, created at 1 s.
    fn cgos_room() -> Room {
        let request = CreateRequest {
            width: Some(9),
            rules: Some("nstt".into()),
            time: Some(TimeControl::SuddenDeath {
                main: Duration::from_secs(10),
            }),
            end: Some(goref_referee::Protocol::AllAlive),
            cgos: Some(CgosTerms { time_gift_ms: 250 }),
            ..CreateRequest::default()
        };
        Room::new(request.config().unwrap(), 1_000, 1_000).unwrap()
    }

    /// Plays `act` for `by` at `at_ms` as the CGOS door does (no thinking time reported).
    fn door_act(room: &Room, by: Color, act: Act, at_ms: u64) -> (Event, Room) {
        room.prepare(Some(by), act, at_ms, Some(0)).unwrap()
    }

    #[test]
    fn under_cgos_terms_each_move_has_its_time_gift_and_the_first_clock_runs_at_once() {
        let r = cgos_room();
        // Black's clock runs from the game's creation (CGOS's genmove), not its first move.
        assert_eq!(r.deadline_ms(), Some(1_000 + 10_000 + 250));
        // 200 ms: within the gift, charged nothing.
        let (_, r) = door_act(&r, Color::Black, Act::Play { x: 4, y: 4 }, 1_200);
        assert_eq!(
            r.referee().clock().left(Color::Black).main,
            Duration::from_secs(10)
        );
        // 1,250 ms: charged 1,000 ms.
        let (_, r) = door_act(&r, Color::White, Act::Play { x: 2, y: 2 }, 2_450);
        assert_eq!(
            r.referee().clock().left(Color::White).main,
            Duration::from_millis(9_000)
        );
        // Black loses when its 10 s and the gift are spent, not the server's 1 s of lag.
        assert_eq!(r.deadline_ms(), Some(2_450 + 10_000 + 250));
        assert!(r.prepare_timeout(2_450 + 10_249).is_none());
        let (_, over) = r.prepare_timeout(2_450 + 10_250).unwrap();
        assert_eq!(over.finished().unwrap().result.to_sgf(), "W+T");
        // A move 1 ms past its time and gift loses too.
        let late = r.prepare(Some(Color::Black), Act::Pass, 2_450 + 10_251, Some(0));
        let (_, late) = late.unwrap();
        assert_eq!(late.finished().unwrap().result.to_sgf(), "W+T");
    }

    #[test]
    fn under_cgos_terms_an_illegal_or_unreadable_move_loses() {
        let r = cgos_room();
        let (_, r) = door_act(&r, Color::Black, Act::Play { x: 4, y: 4 }, 1_100);
        let (_, occupied) = door_act(&r, Color::White, Act::Play { x: 4, y: 4 }, 1_200);
        let f = occupied.finished().unwrap();
        assert_eq!(
            (f.result.to_sgf().as_str(), f.ending.as_str()),
            ("B+F", "illegal")
        );
        let unreadable = Act::Unreadable {
            reply: "xyz".into(),
        };
        let (event, lost) = door_act(&r, Color::White, unreadable, 1_200);
        assert_eq!(lost.finished().unwrap().result.to_sgf(), "B+F");
        assert!(lost.sgf().contains("xyz"), "{}", lost.sgf());
        // The event replays to the same end.
        let mut replayed = cgos_room();
        let (first, _) = door_act(&cgos_room(), Color::Black, Act::Play { x: 4, y: 4 }, 1_100);
        replayed.commit(&first).unwrap();
        replayed.commit(&event).unwrap();
        assert_eq!(replayed.finished().unwrap().result.to_sgf(), "B+F");
        // Without CGOS's terms an illegal move is refused and nothing changes.
        let plain = room();
        let (_, plain) = plain
            .prepare(Some(Color::Black), Act::Play { x: 0, y: 0 }, 2_000, None)
            .unwrap();
        assert!(plain
            .prepare(Some(Color::White), Act::Play { x: 0, y: 0 }, 2_100, None)
            .is_err());
    }

    #[test]
    fn a_moves_comment_goes_to_the_record_and_replays_bounded() {
        let r = cgos_room();
        let (event, r) = r
            .prepare_commented(
                Some(Color::Black),
                Act::Play { x: 4, y: 4 },
                1_100,
                Some(0),
                Some("{\"winrate\":0.52}".into()),
            )
            .unwrap();
        assert!(r.sgf().contains("winrate"), "{}", r.sgf());
        let mut replayed = cgos_room();
        replayed.commit(&event).unwrap();
        assert_eq!(replayed.sgf(), r.sgf());
        let long = "x".repeat(MAX_COMMENT + 1);
        assert!(matches!(
            r.prepare_commented(Some(Color::White), Act::Pass, 1_200, Some(0), Some(long)),
            Err(MessageRefusal::TooLarge { .. })
        ));
    }

    #[test]
    fn a_game_never_started_closes_void_with_a_note_once_due_and_replays() {
        let r = room();
        assert!(
            r.prepare_close(1_000 + 59_999, 60_000, 1).is_none(),
            "not yet"
        );
        let (event, closed) = r.prepare_close(1_000 + 60_000, 60_000, 1).unwrap();
        assert_eq!(event.by, None);
        assert!(matches!(
            event.act,
            Act::Close {
                why: Closing::NeverStarted,
                ..
            }
        ));
        assert_eq!(closed.phase(), Phase::Over);
        assert_eq!(closed.deadline_ms(), None);
        let f = closed.finished().unwrap();
        assert_eq!(
            (f.result.to_sgf().as_str(), f.ending.as_str()),
            ("Void", "never-started")
        );
        let view = closed.view("g", 70_000);
        assert_eq!(view.result.as_deref(), Some("Void"));
        assert!(view.notes[0]
            .text
            .contains("no move within 60 s of its creation"));
        let sgf = closed.sgf();
        assert!(sgf.contains("RE[Void]"), "{sgf}");
        // Nothing more happens to it, by a player or by the server.
        let refused = closed.prepare(Some(Color::Black), Act::Pass, 80_000, None);
        assert_eq!(refused.unwrap_err().code(), "over");
        assert!(closed.prepare_close(u64::MAX, 0, 0).is_none());
        // The stored event rebuilds it.
        let json = serde_json::to_string(&event).unwrap();
        let mut replayed = room();
        replayed
            .commit(&serde_json::from_str(&json).unwrap())
            .unwrap();
        assert_eq!(replayed.finished(), closed.finished());
        assert_eq!(replayed.sgf(), closed.sgf());
    }

    /// The TD aborts a game in play: over without a result (`RE[Void]`, ending `aborted`),
    /// the reason in the record, which replays (goref-sgf) to the same `Void`; the stored
    /// events rebuild it. Only the server (for the TD) aborts, once, with a reason on one line.
    #[test]
    fn the_td_aborts_a_game_void_with_the_reason_in_the_record_and_it_replays() {
        let abort = |reason: &str| Act::Td {
            td: "td".into(),
            action: TdAction::Abort {
                reason: reason.into(),
            },
        };
        let mut events = Vec::new();
        let mut r = room();
        for (i, (by, x, y)) in [
            (Color::Black, 2, 2),
            (Color::White, 1, 1),
            (Color::Black, 3, 3),
        ]
        .into_iter()
        .enumerate()
        {
            let (e, next) = r
                .prepare(Some(by), Act::Play { x, y }, 2_000 + i as u64, None)
                .unwrap();
            events.push(e);
            r = next;
        }
        let refused = r.prepare(Some(Color::White), abort("mine"), 9_000, None);
        assert_eq!(refused.unwrap_err().code(), "malformed", "a player cannot");
        let refused = r.prepare(None, abort(&"x".repeat(MAX_REASON + 1)), 9_000, None);
        assert_eq!(refused.unwrap_err().code(), "malformed", "too long");
        let refused = r.prepare(None, abort("two\nlines"), 9_000, None);
        assert_eq!(refused.unwrap_err().code(), "malformed", "one line");
        let (event, aborted) = r
            .prepare(None, abort(" the players' connection broke "), 9_000, None)
            .unwrap();
        events.push(event);
        assert_eq!(aborted.phase(), Phase::Over);
        assert_eq!(aborted.closed(), Some(Closing::Aborted));
        assert_eq!(aborted.deadline_ms(), None);
        let f = aborted.finished().unwrap();
        assert_eq!(
            (f.result, f.ending.as_str()),
            (goref_rules::Outcome::Void, "aborted")
        );
        let view = aborted.view("g", 10_000);
        assert_eq!(view.result.as_deref(), Some("Void"));
        assert_eq!(view.ending.as_deref(), Some("aborted"));
        let note = "aborted by the TD (td) without a result: the players' connection broke";
        assert_eq!(view.notes.last().unwrap().text, note);
        let refused = aborted.prepare(None, abort("again"), 11_000, None);
        assert_eq!(refused.unwrap_err().code(), "over");
        let refused = aborted.prepare(Some(Color::White), Act::Pass, 11_000, None);
        assert_eq!(refused.unwrap_err().code(), "over");
        // The record: RE[Void], the reason, the moves; goref-sgf reads it and replays the
        // moves, and its result is the same Void.
        let sgf = aborted.sgf();
        assert!(sgf.contains("RE[Void]"), "{sgf}");
        assert!(sgf.contains("the players' connection broke"), "{sgf}");
        let record = goref_sgf::parse(&sgf).unwrap();
        let game = record
            .replay(goref_rules::Ruleset::preset(
                goref_rules::Preset::TrompTaylor,
            ))
            .unwrap();
        assert_eq!(game.moves().len(), 3);
        let re: goref_rules::Outcome = record.result.as_deref().unwrap().parse().unwrap();
        assert_eq!(re, f.result);
        // The stored events (as JSON) rebuild it.
        let mut replayed = room();
        for e in &events {
            let json = serde_json::to_string(e).unwrap();
            replayed
                .commit(&serde_json::from_str(&json).unwrap())
                .unwrap();
        }
        assert_eq!(replayed.finished(), aborted.finished());
        assert_eq!(replayed.sgf(), sgf);
        // A game nobody began is aborted alike.
        let (_, unbegun) = room().prepare(None, abort(""), 3_000, None).unwrap();
        assert_eq!(unbegun.finished().unwrap().ending, "aborted");
        assert_eq!(
            unbegun.view("g", 3_000).notes[0].text,
            "aborted by the TD (td) without a result"
        );
    }

    #[test]
    fn a_started_game_is_abandoned_after_its_last_event_and_players_cannot_close() {
        let r = room();
        let (_, r) = r
            .prepare(Some(Color::Black), Act::Play { x: 2, y: 2 }, 5_000, None)
            .unwrap();
        assert_eq!(r.last_event_ms(), Some(5_000));
        assert!(r.prepare_close(5_000 + 9_999, 1, 10_000).is_none());
        let (_, closed) = r.prepare_close(5_000 + 10_000, 1, 10_000).unwrap();
        assert_eq!(closed.closed(), Some(Closing::Abandoned));
        assert_eq!(closed.finished().unwrap().ending, "abandoned");
        let close = Act::Close {
            why: Closing::Abandoned,
            note: "mine".into(),
        };
        let refused = r.prepare(Some(Color::White), close, 20_000, None);
        assert_eq!(refused.unwrap_err().code(), "malformed");
    }

    /// `"adjudicate": "exact"`: on 2×2 with komi 7.5 White's win is certain from the first
    /// move (Black can count at most 4 points), and the game ends there, `decided`; without
    /// it the game goes on; any other value is refused; the config writes it only when on.
    #[test]
    fn exact_adjudication_ends_a_decided_game_in_the_room() {
        let request = |adjudicate: Option<&str>| CreateRequest {
            width: Some(2),
            rules: Some("nstt".into()),
            komi: Some(7.5),
            adjudicate: adjudicate.map(str::to_string),
            ..CreateRequest::default()
        };
        let play = |config: GameConfig| {
            let room = Room::new(config, 1_000, 0).unwrap();
            let (_, room) = room
                .prepare(Some(Color::Black), Act::Play { x: 0, y: 0 }, 2_000, None)
                .unwrap();
            room.finished()
        };
        let on = request(Some("exact")).config().unwrap();
        assert!(on.adjudicate);
        assert!(serde_json::to_string(&on)
            .unwrap()
            .contains("\"adjudicate\":true"));
        let done = play(on).unwrap();
        assert_eq!(
            (done.result.to_sgf().as_str(), done.ending.as_str()),
            ("W+3.5", "decided")
        );
        let off = request(Some("off")).config().unwrap();
        assert!(!serde_json::to_string(&off).unwrap().contains("adjudicate"));
        assert!(play(off).is_none());
        assert!(play(request(None).config().unwrap()).is_none());
        assert!(matches!(
            request(Some("perfect")).config(),
            Err(ConfigError::Adjudicate(_))
        ));
    }

    /// 001 §3.9 in the room: the game's third party is asked for only when the referee needs
    /// an adjudication; a play-out is the server's event (a player's is refused), it must be
    /// legal from the position, and it replays as its moves.
    #[test]
    fn a_play_out_is_the_servers_legal_and_replays_as_its_moves() {
        let request = CreateRequest {
            width: Some(3),
            rules: Some("nstt".into()),
            komi: Some(0.5),
            end: Some(goref_referee::Protocol::Referee),
            third_party: Some(ThirdParty::PerfectPlay { nodes: 100_000 }),
            ..CreateRequest::default()
        };
        let mut room = Room::new(request.config().unwrap(), 1_000, 0).unwrap();
        let mut events = Vec::new();
        for (by, act) in [
            (Color::Black, Act::Play { x: 1, y: 1 }),
            (Color::White, Act::Play { x: 2, y: 0 }),
            (Color::Black, Act::Play { x: 2, y: 1 }),
            (Color::White, Act::Pass),
            (Color::Black, Act::Pass),
            (
                Color::Black,
                Act::DeadList {
                    points: vec![[2, 0]],
                },
            ),
        ] {
            assert_eq!(room.third_party_due(), None, "no adjudication needed yet");
            let (event, next) = room.prepare(Some(by), act, 2_000, None).unwrap();
            events.push(event);
            room = next;
        }
        assert_eq!(room.third_party_due(), None);
        let (event, room) = room
            .prepare(
                Some(Color::White),
                Act::DeadList { points: vec![] },
                3_000,
                None,
            )
            .unwrap();
        events.push(event);
        assert_eq!(
            room.third_party_due(),
            Some(ThirdParty::PerfectPlay { nodes: 100_000 })
        );
        let refused = |act: Act, by: Option<Color>| room.prepare(by, act, 4_000, None).unwrap_err();
        let play_out = |moves: Vec<Option<Xy>>| Act::PlayOut {
            moves,
            note: String::new(),
        };
        assert_eq!(
            refused(play_out(vec![None, None]), Some(Color::White)).code(),
            "malformed"
        );
        assert_eq!(
            refused(play_out(vec![Some([1, 1])]), None).code(),
            "illegal"
        );
        assert_eq!(
            refused(play_out(vec![Some([3, 0])]), None).code(),
            "off_board"
        );
        let decided = goref_referee::adjudicate::by_perfect_play(room.referee(), 100_000).unwrap();
        let Input::PlayOut { moves, .. } = &decided else {
            panic!("{decided:?}")
        };
        let played = moves.len();
        let (event, done) = room.prepare_adjudicated(decided, 4_000).unwrap();
        assert!(matches!(&event.act, Act::PlayOut { moves, .. } if moves.len() == played));
        assert_eq!(done.moves(), room.moves() + played);
        assert_eq!(done.third_party_due(), None, "over");
        assert_eq!(done.finished().unwrap().ending, "adjudicated");
        events.push(event);
        let json = serde_json::to_string(&events).unwrap();
        let mut replayed = Room::new(request.config().unwrap(), 1_000, 0).unwrap();
        for e in serde_json::from_str::<Vec<Event>>(&json).unwrap() {
            replayed.commit(&e).unwrap();
        }
        assert_eq!(replayed.finished(), done.finished());
        assert_eq!(replayed.view("g", 5_000), done.view("g", 5_000));
        // Anything but a decision of the third party is no adjudication.
        assert!(room.prepare_adjudicated(Input::Timeout, 4_000).is_none());
    }

    #[test]
    fn durations_in_words() {
        assert_eq!(duration_text(300), "300 ms");
        assert_eq!(duration_text(90_000), "90 s");
        assert_eq!(duration_text(3_600_000), "60 min");
        assert_eq!(duration_text(7 * 86_400_000), "7 days");
    }
}
