//! One game under a referee: what it needs next, what it accepts, and how it ends.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use goref_clock::{GameClock, TimeControl};
use goref_rules::{
    Board, ByColor, Color, End, Game, Geometry, Illegal, Move, Outcome, Point, Ruleset, Score,
};

use crate::marking::{mark, normalize, without, Dead};
use crate::settle::{Action, Settled, Settlement};
use crate::tromp::{Agreement, Choice, Refused, Step};
use crate::Protocol;

/// What happens to an illegal move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum IllegalPolicy {
    /// The move is refused and nothing changes: the player tries again (people on a board).
    #[default]
    Refuse,
    /// Olympiad 3.10.2: the first illegal move of a player is replaced by a pass, a second one
    /// loses.
    Olympiad,
    /// The first illegal move loses.
    Strict,
}

impl std::str::FromStr for IllegalPolicy {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let choices = [
            ("refuse", IllegalPolicy::Refuse),
            ("olympiad", IllegalPolicy::Olympiad),
            ("strict", IllegalPolicy::Strict),
        ];
        goref_rules::words::one_of(s, &choices).ok_or_else(|| {
            SettingError::new(format!(
                "illegal-move policy '{s}': expected olympiad, strict or refuse"
            ))
        })
    }
}

/// What a play that would invoke the long-cycle rule does (Olympiad 3.6, 3.10.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum LongCyclePolicy {
    /// The play stands and ends the game (Olympiad 3.6).
    #[default]
    End,
    /// The tournament director replaces it by a pass (3.10.2), with a note.
    Pass,
}

impl std::str::FromStr for LongCyclePolicy {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let choices = [
            ("end", LongCyclePolicy::End),
            ("pass", LongCyclePolicy::Pass),
        ];
        goref_rules::words::one_of(s, &choices).ok_or_else(|| {
            SettingError::new(format!("long-cycle policy '{s}': expected end or pass"))
        })
    }
}

/// When the first clock starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClockStart {
    /// With the game: the first player's clock runs from the start (engines).
    #[default]
    AtOnce,
    /// With the first move: the first player is not timed until the game has begun (people
    /// who open the page at different moments).
    AfterFirstMove,
}

/// A setting that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingError(String);

impl SettingError {
    fn new(message: String) -> SettingError {
        SettingError(message)
    }
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SettingError {}

/// How the referee runs one game.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The rules, komi included.
    pub rules: Ruleset,
    /// How the game ends after two passes: the end-of-game protocol (`end` in goref's command
    /// line, TOML files and the server's API).
    pub end: Protocol,
    /// What an illegal move does.
    pub illegal: IllegalPolicy,
    /// The clocks.
    pub time: TimeControl,
    /// Each player's own time control instead of `time` (time odds between programs).
    pub own_time: Option<ByColor<TimeControl>>,
    /// Lag allowance of each turn (see [`GameClock`]).
    pub lag: Duration,
    /// When the first clock starts.
    pub clock_start: ClockStart,
    /// Turns after which the game stops and is scored as it stands, every stone alive.
    pub move_limit: Option<usize>,
    /// 001 §1: a player whose time runs out after at least this many moves of its own does not
    /// lose; the game is adjudicated instead.
    pub min_moves: Option<usize>,
    /// What a play that would invoke the long-cycle rule does.
    pub long_cycle: LongCyclePolicy,
    /// Early adjudication: with [`Adjudicate::Exact`] the game ends as soon as its winner is
    /// certain, whatever the opponent plays (crate goref-judge, `decided`).
    pub adjudicate: Adjudicate,
    /// Black's handicap stones, placed before the first move; White then moves first.
    pub handicap: Vec<Point>,
    /// An opening: moves played before the game proper (a tournament's opening book), in
    /// turn from the first player; no clock runs for them.
    pub opening: Vec<Move>,
}

impl Settings {
    /// `rules` with every other setting at its default: the Tromp marking protocol, illegal
    /// moves refused, no clock, no move limit, no handicap.
    #[must_use]
    pub fn new(rules: Ruleset) -> Settings {
        Settings {
            rules,
            end: Protocol::default(),
            illegal: IllegalPolicy::default(),
            time: TimeControl::None,
            own_time: None,
            lag: Duration::ZERO,
            clock_start: ClockStart::default(),
            move_limit: None,
            min_moves: None,
            long_cycle: LongCyclePolicy::default(),
            adjudicate: Adjudicate::Off,
            handicap: Vec::new(),
            opening: Vec::new(),
        }
    }
}

/// Whether the referee ends a game early when its winner is certain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Adjudicate {
    /// Games are played to their end.
    #[default]
    Off,
    /// After each move, the game ends when the area each side is sure of (pass-alive blocks
    /// and their one-point eyes) leaves one side a positive margin whatever the opponent plays
    /// ([`goref_judge::decided`]): [`Ending::Decided`], the winner by the certain margin.
    Exact,
    /// As `Exact`, and else, on boards small enough for the solver (crate goref-solve), the
    /// game ends once the value under perfect play from the position is proved within `nodes`
    /// nodes: [`Ending::Decided`], the result that value (001 §3.9: "perfect hypothetical
    /// play-out").
    Perfect {
        /// The solver's budget after each move.
        nodes: u64,
    },
}

impl Adjudicate {
    /// The names accepted by [`std::str::FromStr`] (`perfect` also as `perfect:NODES`).
    pub const NAMES: [&'static str; 3] = ["off", "exact", "perfect"];

    /// The solver's budget of `perfect` without `:NODES`.
    pub const PERFECT_NODES: u64 = 100_000;
}

impl fmt::Display for Adjudicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Adjudicate::Off => "off",
            Adjudicate::Exact => "exact",
            Adjudicate::Perfect { nodes } => return write!(f, "perfect:{nodes}"),
        })
    }
}

impl std::str::FromStr for Adjudicate {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<Adjudicate, SettingError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "none" | "no" => Ok(Adjudicate::Off),
            "exact" => Ok(Adjudicate::Exact),
            "perfect" => Ok(Adjudicate::Perfect {
                nodes: Adjudicate::PERFECT_NODES,
            }),
            other => match other.strip_prefix("perfect:").map(str::parse::<u64>) {
                Some(Ok(nodes)) if nodes > 0 => Ok(Adjudicate::Perfect { nodes }),
                _ => Err(SettingError::new(format!(
                    "unknown adjudication '{s}': expected off, exact, perfect or perfect:NODES"
                ))),
            },
        }
    }
}

/// 001 §1: the fewest moves a program must have played for a loss on time to go to the
/// tournament director instead: 30 on 9×9, 60 on 13×13, 125 on 19×19; other sizes in
/// proportion to their points from 19×19.
#[must_use]
pub fn olympiad_min_moves(width: usize, height: usize) -> usize {
    match (width, height) {
        (9, 9) => 30,
        (13, 13) => 60,
        (19, 19) => 125,
        _ => (125 * width * height).div_ceil(361),
    }
}

/// Why the referee asks the third party.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adjudication {
    /// Olympiad 3.7.5 / 3.9, reference 000 "third-party mediation": the players' dead lists
    /// disagree; only the disputed stones are decided.
    Dispute,
    /// 001 §1: `by` ran out of time after the minimum number of moves; every block is decided
    /// (3.9's default removal of every block, then 3.8 scoring).
    Timing {
        /// The player concerned.
        by: Color,
    },
}

/// What the referee needs next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Need {
    /// A move from `color` on the game's board. `resumed`: play resumed after two passes (a
    /// program that will not resume is taken to pass, Olympiad 3.7.4); `cleanup`: the KGS
    /// clean-up phase (engines capture what they think dead).
    Move {
        /// The player to move.
        color: Color,
        /// Play resumed after two passes.
        resumed: bool,
        /// The KGS clean-up phase.
        cleanup: bool,
    },
    /// Reference 000, "Japanese rules": a move from `color` on the copy of the board where the
    /// dispute is played out.
    PlayOutOnCopy {
        /// The player to move.
        color: Color,
    },
    /// The dead lists of the players marked `true` (001 3.7.2).
    DeadLists {
        /// Whose list is still awaited.
        missing: ByColor<bool>,
    },
    /// Reference 003: `to_act` marks, disputes or says done.
    Marking {
        /// The player who acts.
        to_act: Color,
    },
    /// The third party's dead stones among `disputed`.
    Adjudication {
        /// The stones to decide.
        disputed: Dead,
        /// Why.
        reason: Adjudication,
    },
    /// The game is over: see [`Referee::result`].
    Over,
}

/// A fault that forfeits the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The program exited (its output closed).
    Crash,
    /// No reply within the hang timeout.
    Hang,
    /// Another failure: a refused command, a reply that breaks the protocol.
    Other,
}

/// Something a player (or the referee's surroundings) says or does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// `by` makes `mv` (on the copy of the board while a dispute is played out).
    Play {
        /// The player concerned.
        by: Color,
        /// The move.
        mv: Move,
    },
    /// `by` answered with something that is no move on this board (a program's reply).
    Unreadable {
        /// The player concerned.
        by: Color,
        /// What the player answered.
        reply: String,
    },
    /// `by` resigns.
    Resign {
        /// The player concerned.
        by: Color,
    },
    /// `by`'s dead stones; `None` for a player that gave none (it then removes nothing and is
    /// never penalised: 001 3.7.2, reference 000).
    DeadList {
        /// The player concerned.
        by: Color,
        /// Stones asked for (or given).
        stones: Option<Vec<Point>>,
    },
    /// Reference 003: `by` marks the string through `at` dead.
    Mark {
        /// The player concerned.
        by: Color,
        /// The point.
        at: Point,
    },
    /// Reference 003: `by` disputes the marked string through `at`.
    Dispute {
        /// The player concerned.
        by: Color,
        /// The point.
        at: Point,
    },
    /// Reference 003: `by` is done.
    Done {
        /// The player concerned.
        by: Color,
    },
    /// The third party's dead stones; `None` when it gave no answer (no disputed stone is
    /// removed). `note` says who decided and how, for the record.
    Adjudicate {
        /// The stones named dead.
        dead: Option<Vec<Point>>,
        /// Who decided and how, for the record.
        note: String,
    },
    /// The running player's time is up (a timer fired).
    Timeout,
    /// `by` forfeits by a fault; `detail` says what happened.
    Forfeit {
        /// The player concerned.
        by: Color,
        /// What went wrong.
        fault: Fault,
        /// What happened, in words.
        detail: String,
    },
    /// The third party decides an adjudication by a hypothetical play-out (001 §3.9: "the
    /// tournament director may decide the outcome of the game based on perfect hypothetical
    /// play-out"): `moves` are played on the board from the position (play resumed after two
    /// passes), and the board is then scored with every stone alive (3.8), or by the long
    /// cycle rule when the play-out ends in one (3.6). The moves stay in the record, after the
    /// players', so that replaying it gives the result. `note` says who decided and how.
    PlayOut {
        /// The moves, in turn from the player to move.
        moves: Vec<Move>,
        /// Who decided and how, for the record.
        note: String,
    },
    /// The tournament director decides the game (a timing dispute, 001 §1; an illegal move
    /// that cannot be undone, 3.10.2; any dispute): `outcome`, for the reason in `note`.
    Decide {
        /// The result.
        outcome: Outcome,
        /// Who decided and why, for the record.
        note: String,
    },
    /// The tournament director grants `color` `extra` time (001 3.10.3).
    GrantTime {
        /// The player given time.
        color: Color,
        /// How much.
        extra: Duration,
        /// Who granted it and why, for the record.
        note: String,
    },
}

impl Input {
    /// The player whose turn this input ends (its clock is charged).
    fn turn_of(&self) -> Option<Color> {
        match *self {
            Input::Play { by, .. }
            | Input::Unreadable { by, .. }
            | Input::Mark { by, .. }
            | Input::Dispute { by, .. }
            | Input::Done { by } => Some(by),
            _ => None,
        }
    }
}

/// When an input arrives: `now` (since any fixed moment the caller keeps), and the player's own
/// measure of its thinking time when it reports one (for the lag credit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moment {
    /// The time of arrival.
    pub now: Duration,
    /// The player's report of how long it thought.
    pub think: Option<Duration>,
}

impl From<Duration> for Moment {
    fn from(now: Duration) -> Moment {
        Moment { now, think: None }
    }
}

/// Why an input was refused. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The game is over.
    Over,
    /// Another player acts now.
    NotYourTurn {
        /// The player who acts.
        to_act: Color,
    },
    /// The game is not in the phase this input belongs to.
    WrongPhase {
        /// The current phase.
        now: Phase,
    },
    /// An illegal move, under the policy that refuses them.
    Illegal {
        /// The point.
        at: String,
        /// Why.
        reason: Illegal,
    },
    /// A reply that is no move on this board, under the policy that refuses them.
    Unreadable {
        /// What the player answered.
        reply: String,
    },
    /// This player's dead list is already in.
    AlreadyGiven,
    /// The marking phase refused the choice.
    Marking(Refused),
    /// A timeout before the running player's time is up.
    NotDue,
    /// Time granted to a player without a clock.
    Untimed,
}

impl Refusal {
    /// A stable code for programs (the server's wire format).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Over => "over",
            Refusal::NotYourTurn { .. } => "not_your_turn",
            Refusal::WrongPhase { .. } => "wrong_phase",
            Refusal::Illegal { .. } | Refusal::Unreadable { .. } => "illegal",
            Refusal::AlreadyGiven => "already_sent",
            Refusal::Marking(_) => "refused",
            Refusal::NotDue => "not_due",
            Refusal::Untimed => "no_clock",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Over => f.write_str("the game is over"),
            Refusal::NotYourTurn { to_act } => write!(f, "it is {to_act}'s turn"),
            Refusal::WrongPhase { now } => f.write_str(match now {
                Phase::Play | Phase::PlayOut => "the game is in play: play a stone, pass or resign",
                Phase::Marking => "dead stones are being marked: mark, dispute or done",
                Phase::DeadLists => "waiting for both players' dead stones",
                Phase::Adjudication => "waiting for the referee's decision",
                Phase::Over => "the game is over",
            }),
            Refusal::Illegal { at, reason } => write!(f, "{at} is illegal: {reason}"),
            Refusal::Unreadable { reply } => write!(f, "'{reply}' is not a move on this board"),
            Refusal::AlreadyGiven => f.write_str("you have already given your dead stones"),
            Refusal::Marking(r) => write!(f, "{r}"),
            Refusal::NotDue => f.write_str("the running player's time is not up"),
            Refusal::Untimed => f.write_str("this player has no clock"),
        }
    }
}

impl std::error::Error for Refusal {}

/// Where the game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Alternate moving on the board.
    Play,
    /// Reference 000, Japanese: the dispute is played out on a copy.
    PlayOut,
    /// Both players' dead lists are awaited.
    DeadLists,
    /// Reference 003 marking.
    Marking,
    /// The third party decides.
    Adjudication,
    /// Over.
    Over,
}

impl Phase {
    /// The name in the server's messages.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Phase::Play => "play",
            Phase::PlayOut => "play_out",
            Phase::DeadLists => "dead_lists",
            Phase::Marking => "marking",
            Phase::Adjudication => "adjudication",
            Phase::Over => "over",
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Ending {
    /// Two passes and the settlement of the protocol; scored on the board.
    TwoPasses,
    /// A resignation.
    Resignation,
    /// The long-cycle rule (Olympiad 3.6).
    LongCycle,
    /// The move limit; scored as it stands.
    MoveLimit,
    /// A loss on time.
    Time,
    /// 001 §1: time ran out after the minimum number of moves; the game was adjudicated and
    /// scored on the board. Also a game decided by the third party's play-out (001 §3.9,
    /// [`Input::PlayOut`]), scored on the board after it.
    Adjudicated,
    /// The program exited.
    Crash,
    /// The program did not answer.
    Hang,
    /// An illegal move (a second one under Olympiad 3.10.2, or the first under strict).
    Illegal,
    /// Another fault.
    Fault,
    /// The tournament director's decision.
    Decision,
    /// Exact early adjudication ([`Adjudicate::Exact`]): the winner was certain whatever was
    /// played; the result is the winner by the certain margin, which `goref score` of the
    /// record gives by the same test.
    Decided,
}

impl Ending {
    /// The name in results files.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Ending::TwoPasses => "two-passes",
            Ending::Resignation => "resignation",
            Ending::LongCycle => "long-cycle",
            Ending::MoveLimit => "move-limit",
            Ending::Time => "time",
            Ending::Adjudicated => "adjudicated",
            Ending::Crash => "crash",
            Ending::Hang => "hang",
            Ending::Illegal => "illegal",
            Ending::Fault => "fault",
            Ending::Decision => "decision",
            Ending::Decided => "decided",
        }
    }

    /// Whether the loser forfeited (`T` or `F`).
    #[must_use]
    pub fn is_forfeit(self) -> bool {
        matches!(
            self,
            Ending::Time | Ending::Crash | Ending::Hang | Ending::Illegal | Ending::Fault
        )
    }

    /// Whether the result was scored on the board (two passes, the move limit, a long cycle
    /// or an adjudication), so that replaying the record gives it.
    #[must_use]
    pub fn on_the_board(self) -> bool {
        matches!(
            self,
            Ending::TwoPasses | Ending::LongCycle | Ending::MoveLimit | Ending::Adjudicated
        )
    }
}

/// The move that lost a game under the strict illegal-move policy (or Olympiad 3.10.2's second
/// illegal move): what was tried, and why the rules refused it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalAttempt {
    /// A move the rules forbid.
    Move {
        /// The move tried.
        mv: Move,
        /// Why it is illegal.
        why: Illegal,
    },
    /// A reply that is no move on this board.
    Unreadable {
        /// The reply (at most what the input carried).
        reply: String,
    },
}

/// The result of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// Who won and how (SGF `RE` with [`Outcome::to_sgf`]).
    pub outcome: Outcome,
    /// How the game ended.
    pub ending: Ending,
    /// How the dead-stone settlement ended, after two passes.
    pub settled: Option<Settled>,
    /// The stones removed before scoring.
    pub removed: Dead,
    /// The area score, when the result was scored on the board.
    pub score: Option<Score>,
    /// Why, in words, for forfeits, long cycles and adjudications.
    pub detail: Option<String>,
}

/// A note for the record: what happened, after how many moves of the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Moves of the game played when it happened.
    pub after: usize,
    /// What happened.
    pub text: String,
}

/// What an accepted input did that the players' programs must hear of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// `mv` now stands for `color`: tell the opponent. With `replaced`, the referee put a pass
    /// in place of what `color` tried (an illegal move, or a long cycle the director does not
    /// allow), so `color`'s own program must be set back to the position.
    Moved {
        /// The player to move.
        color: Color,
        /// The move.
        mv: Move,
        /// Whether the referee put a pass in its place.
        replaced: bool,
    },
    /// Nothing to tell (a list, a mark, the end of the game).
    Recorded,
}

#[derive(Clone, Debug)]
enum State {
    Play,
    PlayOut {
        copy: Box<Game>,
    },
    DeadLists {
        given: ByColor<Option<Option<Dead>>>,
    },
    Marking(Box<Agreement>),
    Adjudication {
        disputed: Dead,
        reason: Adjudication,
    },
    Over,
}

/// One game under a referee: the rules, the end protocol, the clocks, the illegal-move policy,
/// the notes, and the result. Front ends ask [`need`](Referee::need), feed
/// [`apply`](Referee::apply) what the players do, and take the [`result`](Referee::result) and
/// the [`record`](Referee::record).
#[derive(Clone, Debug)]
pub struct Referee {
    settings: Settings,
    game: Game,
    clock: GameClock,
    settlement: Settlement,
    state: State,
    resumed: bool,
    cleanup: bool,
    illegal: ByColor<u32>,
    /// The illegal move that lost the game, if one did.
    lost_by: Option<IllegalAttempt>,
    notes: Vec<Note>,
    /// For each move of the game: the mover's clock after it (SGF `BL`/`WL`, `OB`/`OW`).
    left: Vec<Option<(f64, Option<u32>)>>,
    lists: ByColor<Option<Dead>>,
    result: Option<GameResult>,
}

impl Referee {
    /// A game on `geometry` under `settings`, starting at `now`.
    ///
    /// # Errors
    ///
    /// When a handicap stone is off the board or named twice.
    pub fn new(
        geometry: Arc<Geometry>,
        settings: Settings,
        now: Duration,
    ) -> Result<Referee, SettingError> {
        let mut colors = vec![None; geometry.len()];
        for &p in &settings.handicap {
            match colors.get_mut(p.index()) {
                Some(c @ None) => *c = Some(Color::Black),
                Some(Some(_)) => {
                    return Err(SettingError::new(format!(
                        "handicap stone {} is named twice",
                        geometry.name(p)
                    )))
                }
                None => {
                    return Err(SettingError::new(format!(
                        "handicap stone #{} is off the board",
                        p.index()
                    )))
                }
            }
        }
        let first = if settings.handicap.is_empty() {
            Color::Black
        } else {
            Color::White
        };
        let board = Board::from_colors(geometry, &colors)
            .map_err(|e| SettingError::new(format!("handicap stones: {e}")))?;
        let mut game = Game::from_position(board, first, settings.rules);
        for (i, &mv) in settings.opening.iter().enumerate() {
            let color = game.to_move();
            let played = game.play(mv).map_err(|e| {
                SettingError::new(format!(
                    "opening move {} ({color} {}) is illegal: {}",
                    i + 1,
                    move_name(game.geometry(), mv),
                    e.reason
                ))
            })?;
            if played.ended.is_some() {
                return Err(SettingError::new(format!(
                    "the opening ends the game at move {}",
                    i + 1
                )));
            }
        }
        let opening = settings.opening.len();
        let controls = settings
            .own_time
            .unwrap_or(ByColor::new(settings.time, settings.time));
        let clock = GameClock::with_controls(controls, settings.lag);
        let mut referee = Referee {
            settlement: Settlement::new(settings.end),
            settings,
            game,
            clock,
            state: State::Play,
            resumed: false,
            cleanup: false,
            illegal: ByColor::default(),
            lost_by: None,
            notes: Vec::new(),
            left: Vec::new(),
            lists: ByColor::default(),
            result: None,
        };
        if opening > 0 {
            referee.left = vec![None; opening];
            referee.note(format!("the first {opening} moves are the opening"));
        }
        referee.sync_clock(now);
        Ok(referee)
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The game on the board (the original while a dispute is played out on a copy).
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The copy of the board while a dispute is played out on it (reference 000, Japanese).
    #[must_use]
    pub fn copy(&self) -> Option<&Game> {
        match &self.state {
            State::PlayOut { copy } => Some(copy),
            _ => None,
        }
    }

    /// The game where moves are played now: the copy during a play-out, else the game.
    #[must_use]
    pub fn board_in_play(&self) -> &Game {
        self.copy().unwrap_or(&self.game)
    }

    /// The clocks.
    #[must_use]
    pub fn clock(&self) -> &GameClock {
        &self.clock
    }

    /// The running turn starts again at `now` (a match runner about to ask its engine; a
    /// server that restarted).
    pub fn restart_clock(&mut self, now: Duration) {
        self.clock.restart(now);
    }

    /// The phase.
    #[must_use]
    pub fn phase(&self) -> Phase {
        match self.state {
            State::Play => Phase::Play,
            State::PlayOut { .. } => Phase::PlayOut,
            State::DeadLists { .. } => Phase::DeadLists,
            State::Marking(_) => Phase::Marking,
            State::Adjudication { .. } => Phase::Adjudication,
            State::Over => Phase::Over,
        }
    }

    /// What the referee needs next.
    #[must_use]
    pub fn need(&self) -> Need {
        match &self.state {
            State::Play => Need::Move {
                color: self.game.to_move(),
                resumed: self.resumed,
                cleanup: self.cleanup,
            },
            State::PlayOut { copy } => Need::PlayOutOnCopy {
                color: copy.to_move(),
            },
            State::DeadLists { given } => Need::DeadLists {
                missing: given.as_ref().map(Option::is_none),
            },
            State::Marking(a) => Need::Marking { to_act: a.to_act() },
            State::Adjudication { disputed, reason } => Need::Adjudication {
                disputed: disputed.clone(),
                reason: *reason,
            },
            State::Over => Need::Over,
        }
    }

    /// The marking phase's agreement, while it runs.
    #[must_use]
    pub fn agreement(&self) -> Option<&Agreement> {
        match &self.state {
            State::Marking(a) => Some(a),
            _ => None,
        }
    }

    /// The result, once the game is over.
    #[must_use]
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// The illegal move that lost the game ([`Ending::Illegal`]), typed: what was tried and
    /// why the rules refused it.
    #[must_use]
    pub fn illegal_attempt(&self) -> Option<&IllegalAttempt> {
        self.lost_by.as_ref()
    }

    /// The notes so far, in order.
    #[must_use]
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// Adds a note of the front end's (why a program was taken to pass, what a referee engine
    /// said) after the moves played so far.
    pub fn note(&mut self, text: impl Into<String>) {
        self.notes.push(Note {
            after: self.game.moves().len(),
            text: text.into(),
        });
    }

    /// Illegal moves of each player replaced by a pass (Olympiad 3.10.2).
    #[must_use]
    pub fn illegal_passes(&self) -> ByColor<u32> {
        self.illegal
    }

    /// Times play resumed after two passes.
    #[must_use]
    pub fn resumptions(&self) -> u32 {
        self.settlement.resumptions()
    }

    /// The last dead lists the players gave (`None` for one that gave none or was not asked).
    #[must_use]
    pub fn dead_lists(&self) -> &ByColor<Option<Dead>> {
        &self.lists
    }

    /// For each move of the game, the mover's clock after it (seconds, and periods or stones
    /// in overtime).
    #[must_use]
    pub fn clock_after_moves(&self) -> &[Option<(f64, Option<u32>)>] {
        &self.left
    }

    /// Whether `input` would be accepted now (time aside: a move that comes too late is
    /// accepted and loses on time).
    ///
    /// # Errors
    ///
    /// The [`Refusal`] that [`apply`](Referee::apply) would give.
    pub fn check(&self, input: &Input) -> Result<(), Refusal> {
        let phase = self.phase();
        if phase == Phase::Over {
            return Err(Refusal::Over);
        }
        let wrong = || Err(Refusal::WrongPhase { now: phase });
        match input {
            Input::Play { by, mv } => {
                let game = match &self.state {
                    State::Play => &self.game,
                    State::PlayOut { copy } => copy,
                    _ => return wrong(),
                };
                if *by != game.to_move() {
                    return Err(Refusal::NotYourTurn {
                        to_act: game.to_move(),
                    });
                }
                if self.settings.illegal == IllegalPolicy::Refuse {
                    game.legality(*mv).map_err(|reason| Refusal::Illegal {
                        at: move_name(game.geometry(), *mv),
                        reason,
                    })?;
                }
                Ok(())
            }
            Input::Unreadable { by, reply } => {
                let game = match &self.state {
                    State::Play => &self.game,
                    State::PlayOut { copy } => copy,
                    _ => return wrong(),
                };
                if *by != game.to_move() {
                    return Err(Refusal::NotYourTurn {
                        to_act: game.to_move(),
                    });
                }
                if self.settings.illegal == IllegalPolicy::Refuse {
                    return Err(Refusal::Unreadable {
                        reply: reply.clone(),
                    });
                }
                Ok(())
            }
            Input::DeadList { by, .. } => match &self.state {
                State::DeadLists { given } if given[*by].is_some() => Err(Refusal::AlreadyGiven),
                State::DeadLists { .. } => Ok(()),
                _ => wrong(),
            },
            Input::Mark { by, at } | Input::Dispute { by, at } => {
                let choice = match input {
                    Input::Mark { .. } => Choice::Mark(*at),
                    _ => Choice::Dispute(*at),
                };
                self.check_choice(*by, choice)
            }
            Input::Done { by } => self.check_choice(*by, Choice::Done),
            Input::Adjudicate { .. } => match self.state {
                State::Adjudication { .. } => Ok(()),
                _ => wrong(),
            },
            Input::PlayOut { moves, .. } => match self.state {
                State::Adjudication { .. } => {
                    let mut game = self.game.clone();
                    game.resume();
                    for &mv in moves {
                        game.play(mv).map_err(|e| Refusal::Illegal {
                            at: move_name(game.geometry(), mv),
                            reason: e.reason,
                        })?;
                    }
                    Ok(())
                }
                _ => wrong(),
            },
            Input::Timeout => match self.clock.deadline() {
                Some(_) => Ok(()),
                None => Err(Refusal::NotDue),
            },
            Input::Resign { .. } | Input::Forfeit { .. } | Input::Decide { .. } => Ok(()),
            Input::GrantTime { color, .. } => {
                if self.clock.control(*color).is_timed() {
                    Ok(())
                } else {
                    Err(Refusal::Untimed)
                }
            }
        }
    }

    fn check_choice(&self, by: Color, choice: Choice) -> Result<(), Refusal> {
        let State::Marking(agreement) = &self.state else {
            return Err(Refusal::WrongPhase { now: self.phase() });
        };
        agreement
            .clone()
            .choose(by, choice)
            .map(|_| ())
            .map_err(Refusal::Marking)
    }

    /// Applies `input`, arrived at `at` (a [`Duration`] since the caller's fixed moment, or a
    /// [`Moment`] with the player's own thinking time).
    ///
    /// # Errors
    ///
    /// A [`Refusal`] when the input is not accepted now; nothing changed.
    pub fn apply(&mut self, input: Input, at: impl Into<Moment>) -> Result<Applied, Refusal> {
        let at = at.into();
        self.check(&input)?;
        if let Input::Timeout = input {
            if self.clock.deadline().is_some_and(|d| at.now < d) {
                return Err(Refusal::NotDue);
            }
            let by = self.clock.flag().expect("a clock runs");
            self.out_of_time(by, format!("{by} ran out of time"), at.now);
            return Ok(Applied::Recorded);
        }
        if let Some(by) = input.turn_of() {
            if let Err(flag) = self.clock.charge(by, at.now, at.think) {
                let detail = format!(
                    "{by} ran out of time at move {}: took {:.3}s with {:.3}s left",
                    self.board_in_play().moves().len() + 1,
                    flag.used.as_secs_f64(),
                    flag.available.as_secs_f64()
                );
                self.out_of_time(by, detail, at.now);
                return Ok(Applied::Recorded);
            }
        }
        let applied = match input {
            Input::Play { by, mv } => self.play(by, Ok(mv)),
            Input::Unreadable { by, reply } => self.play(by, Err(reply)),
            Input::Resign { by } => {
                self.end_by(Ending::Resignation, by, None);
                Applied::Recorded
            }
            Input::Forfeit { by, fault, detail } => {
                let ending = match fault {
                    Fault::Crash => Ending::Crash,
                    Fault::Hang => Ending::Hang,
                    Fault::Other => Ending::Fault,
                };
                self.end_by(ending, by, Some(detail));
                Applied::Recorded
            }
            Input::DeadList { by, stones } => {
                self.dead_list(by, stones);
                Applied::Recorded
            }
            Input::Mark { by, at } => self.choose(by, Choice::Mark(at)),
            Input::Dispute { by, at } => self.choose(by, Choice::Dispute(at)),
            Input::Done { by } => self.choose(by, Choice::Done),
            Input::Adjudicate { dead, note } => {
                self.adjudicated(dead, note);
                Applied::Recorded
            }
            Input::PlayOut { moves, note } => {
                self.played_out(&moves, note);
                Applied::Recorded
            }
            Input::Decide { outcome, note } => {
                self.finish(GameResult {
                    outcome,
                    ending: Ending::Decision,
                    settled: None,
                    removed: Dead::new(),
                    score: None,
                    detail: Some(note),
                });
                Applied::Recorded
            }
            Input::GrantTime { color, extra, note } => {
                self.clock.grant(color, extra);
                self.note(note);
                Applied::Recorded
            }
            Input::Timeout => unreachable!("handled above"),
        };
        self.sync_clock(at.now);
        Ok(applied)
    }

    /// The clock of whoever must act runs from `now`; none runs while lists are collected, a
    /// referee decides, or the game is over (Olympiad 3.10.3).
    fn sync_clock(&mut self, now: Duration) {
        let actor = match self.need() {
            Need::Move { color, .. } | Need::PlayOutOnCopy { color } => Some(color),
            Need::Marking { to_act } => Some(to_act),
            _ => None,
        };
        let waiting =
            self.settings.clock_start == ClockStart::AfterFirstMove && self.game.moves().is_empty();
        match actor {
            Some(color) if !waiting => self.clock.start(color, now),
            _ => self.clock.stop(),
        }
    }

    fn play(&mut self, by: Color, mv: Result<Move, String>) -> Applied {
        let on_copy = matches!(self.state, State::PlayOut { .. });
        let game = match &mut self.state {
            State::PlayOut { copy } => copy,
            _ => &mut self.game,
        };
        let number = game.moves().len() + 1;
        let geometry = game.geometry().clone();
        let tried = match mv {
            Ok(mv) => match game.legality(mv) {
                Ok(()) => Ok(mv),
                Err(why) => Err((
                    format!("{} ({why})", move_name(&geometry, mv)),
                    IllegalAttempt::Move { mv, why },
                )),
            },
            Err(reply) => Err((
                format!("'{reply}' (not a move on this board)"),
                IllegalAttempt::Unreadable { reply },
            )),
        };
        let (mv, replaced) = match tried {
            Ok(mv) => match game.long_cycle(mv) {
                Some(after) if self.settings.long_cycle == LongCyclePolicy::Pass => {
                    let text = format!(
                        "move {number}: {by} {} would repeat the position after move {after} (long cycle, Olympiad 3.6): replaced by a pass, as the tournament director allows (3.10.2)",
                        move_name(&geometry, mv)
                    );
                    self.notes.push(Note {
                        after: self.game.moves().len(),
                        text,
                    });
                    (Move::Pass, true)
                }
                _ => (mv, false),
            },
            Err((what, attempt)) => {
                if !self.illegal_move(by, number, &what) {
                    self.lost_by = Some(attempt);
                    return Applied::Recorded;
                }
                (Move::Pass, true)
            }
        };
        let game = match &mut self.state {
            State::PlayOut { copy } => copy,
            _ => &mut self.game,
        };
        let played = game.play(mv).expect("checked legal");
        let left = self.clock.sgf_left(by);
        if on_copy {
            let limit = self
                .settings
                .move_limit
                .is_some_and(|l| self.copy().is_some_and(|c| c.moves().len() >= l));
            match played.ended {
                Some(_) => self.copy_played_out(None),
                None if limit => self.copy_played_out(Some("the move limit")),
                None => {}
            }
            return Applied::Moved {
                color: by,
                mv,
                replaced,
            };
        }
        self.left.push(left);
        if replaced {
            // The note of the replaced move goes on the pass itself.
            if let Some(last) = self.notes.last_mut() {
                if last.after + 1 == self.game.moves().len() {
                    last.after += 1;
                }
            }
        }
        match played.ended {
            Some(End::TwoPasses) => {
                let action = self.settlement.on_two_passes(&self.game);
                self.follow(action);
            }
            Some(End::LongCycle {
                first_after_turns,
                captures,
            }) => {
                let outcome = self.game.outcome();
                let detail = format!(
                    "move {number} ({by} {}) repeats the position after move {first_after_turns}: long cycle (Olympiad 3.6); captures since then Black {} White {}",
                    move_name(&geometry, mv),
                    captures.black,
                    captures.white
                );
                self.finish(GameResult {
                    outcome,
                    ending: Ending::LongCycle,
                    settled: None,
                    removed: Dead::new(),
                    score: None,
                    detail: Some(detail),
                });
            }
            _ => {
                let decision = match self.settings.adjudicate {
                    Adjudicate::Off => None,
                    Adjudicate::Exact => {
                        goref_judge::decided(&self.game).map(|d| (d.outcome(), d.explanation()))
                    }
                    Adjudicate::Perfect { nodes } => goref_judge::decided(&self.game)
                        .map(|d| (d.outcome(), d.explanation()))
                        .or_else(|| crate::adjudicate::perfect_value(&self.game, nodes)),
                };
                if let Some((outcome, detail)) = decision {
                    {
                        self.finish(GameResult {
                            outcome,
                            ending: Ending::Decided,
                            settled: None,
                            removed: Dead::new(),
                            score: None,
                            detail: Some(detail),
                        });
                        return Applied::Moved {
                            color: by,
                            mv,
                            replaced,
                        };
                    }
                }
                if let Some(limit) = self.settings.move_limit {
                    if self.game.moves().len() >= limit {
                        let detail = format!(
                            "move limit of {limit} turns reached: scored as it stands, all stones alive"
                        );
                        self.finish(GameResult {
                            outcome: self.game.outcome(),
                            ending: Ending::MoveLimit,
                            settled: None,
                            removed: Dead::new(),
                            score: Some(self.game.score()),
                            detail: Some(detail),
                        });
                    }
                }
            }
        }
        Applied::Moved {
            color: by,
            mv,
            replaced,
        }
    }

    /// Olympiad 3.10.2 (or the strict policy): returns whether the move becomes a pass.
    fn illegal_move(&mut self, by: Color, number: usize, what: &str) -> bool {
        match self.settings.illegal {
            IllegalPolicy::Strict | IllegalPolicy::Refuse => {
                let detail = format!(
                    "{by} played an illegal move at move {number}: {what}; loses under the strict policy"
                );
                self.end_by(Ending::Illegal, by, Some(detail));
                false
            }
            IllegalPolicy::Olympiad if self.illegal[by] >= 1 => {
                let detail = format!(
                    "{by} played a second illegal move at move {number}: {what}; loses (Olympiad 3.10.2)"
                );
                self.end_by(Ending::Illegal, by, Some(detail));
                false
            }
            IllegalPolicy::Olympiad => {
                self.illegal[by] += 1;
                let text =
                    format!("illegal move {what} by {by} replaced by a pass (Olympiad 3.10.2)");
                self.note(text);
                true
            }
        }
    }

    fn dead_list(&mut self, by: Color, stones: Option<Vec<Point>>) {
        let list = stones.map(|s| normalize(self.game.board(), s));
        let text = match &list {
            Some(l) => format!("{by} calls dead: {}", names(self.game.geometry(), l)),
            None => format!("{by} gave no dead list: taken to remove nothing"),
        };
        self.note(text);
        self.lists[by].clone_from(&list);
        let State::DeadLists { given } = &mut self.state else {
            return;
        };
        given[by] = Some(list);
        if let ByColor {
            black: Some(black),
            white: Some(white),
        } = given.clone()
        {
            let b: Option<Vec<Point>> = black.map(|d| d.into_iter().collect());
            let w: Option<Vec<Point>> = white.map(|d| d.into_iter().collect());
            let action = self
                .settlement
                .on_dead_lists(&self.game, b.as_deref(), w.as_deref());
            self.follow(action);
        }
    }

    fn choose(&mut self, by: Color, choice: Choice) -> Applied {
        let State::Marking(agreement) = &mut self.state else {
            return Applied::Recorded;
        };
        let Ok(step) = agreement.choose(by, choice) else {
            return Applied::Recorded;
        };
        let g = self.game.geometry().clone();
        let text = match choice {
            Choice::Mark(p) => {
                let marked = mark(agreement.board(), p);
                format!("{by} marks {} dead: {}", g.name(p), names(&g, &marked))
            }
            Choice::Dispute(p) => {
                format!("{by} disputes {}: marks cleared, play resumes", g.name(p))
            }
            Choice::Done => format!("{by} done"),
        };
        self.note(text);
        let action = match step {
            Step::Continue => return Applied::Recorded,
            Step::Agreed(dead) => self.settlement.on_marking_agreed(dead),
            Step::Disputed => self.settlement.on_marking_disputed(&self.game),
        };
        self.follow(action);
        Applied::Recorded
    }

    fn adjudicated(&mut self, dead: Option<Vec<Point>>, note: String) {
        let State::Adjudication { reason, .. } = &self.state else {
            return;
        };
        let reason = *reason;
        if !note.is_empty() {
            self.note(note.clone());
        }
        match reason {
            Adjudication::Dispute => {
                let action = self.settlement.on_referee(&self.game, dead.as_deref());
                self.follow(action);
            }
            Adjudication::Timing { by } => {
                let removed = normalize(self.game.board(), dead.unwrap_or_default());
                let score = area_score(&self.game, &removed);
                let mut detail = format!(
                    "{by} ran out of time after at least {} moves: adjudicated by the tournament director (001 §1, 3.9, 3.8): removed {}",
                    self.settings.min_moves.unwrap_or(0),
                    names(self.game.geometry(), &removed)
                );
                // Who decided and how (the default removal, perhaps in place of perfect play).
                if !note.is_empty() {
                    detail.push_str(" (");
                    detail.push_str(&note);
                    detail.push(')');
                }
                self.finish(GameResult {
                    outcome: score.outcome(),
                    ending: Ending::Adjudicated,
                    settled: None,
                    removed,
                    score: Some(score),
                    detail: Some(detail),
                });
            }
        }
    }

    /// An adjudication decided by a play-out (001 §3.9), checked legal: the moves are played
    /// on the game, which is then scored on the board, every stone alive.
    fn played_out(&mut self, moves: &[Move], note: String) {
        let State::Adjudication { reason, .. } = &self.state else {
            return;
        };
        let reason = *reason;
        if !note.is_empty() {
            self.note(note);
        }
        self.game.resume();
        let from = self.game.moves().len();
        for &mv in moves {
            self.game.play(mv).expect("checked legal");
            self.left.push(None);
        }
        let g = self.game.geometry().clone();
        let line: Vec<String> = self.game.moves()[from..]
            .iter()
            .map(|&(_, mv)| move_name(&g, mv))
            .collect();
        let removed = Dead::new();
        let score = area_score(&self.game, &removed);
        let (outcome, how) = match self.game.end() {
            Some(End::LongCycle { .. }) => (self.game.outcome(), "ended by a long cycle (3.6)"),
            Some(End::TwoPasses) => (score.outcome(), "ended by two passes, scored (3.8)"),
            _ => (score.outcome(), "scored as it stands (3.8)"),
        };
        let why = match reason {
            Adjudication::Dispute => "disputed stones".to_string(),
            Adjudication::Timing { by } => format!(
                "{by} ran out of time after at least {} moves (001 §1)",
                self.settings.min_moves.unwrap_or(0)
            ),
        };
        let detail = format!(
            "{why}: adjudicated by the tournament director's perfect play-out (001 §3.9), moves {}-{}: {}; {how}",
            from + 1,
            self.game.moves().len(),
            if line.is_empty() { "none".to_string() } else { line.join(" ") },
        );
        self.finish(GameResult {
            outcome,
            ending: Ending::Adjudicated,
            settled: None,
            removed,
            score: Some(score),
            detail: Some(detail),
        });
    }

    /// `by`'s time ran out (its clock already empty): a loss, or under 001 §1 after the
    /// minimum number of moves an adjudication.
    fn out_of_time(&mut self, by: Color, detail: String, now: Duration) {
        let played = self.game.moves().iter().filter(|(c, _)| *c == by).count();
        match self.settings.min_moves {
            Some(min) if played >= min => {
                self.note(format!(
                    "{detail} after {played} moves of its own (at least {min}): the game goes to the tournament director (001 §1)"
                ));
                let disputed: Dead = self
                    .game
                    .geometry()
                    .points()
                    .filter(|&p| self.game.board().get(p).is_some())
                    .collect();
                self.state = State::Adjudication {
                    disputed,
                    reason: Adjudication::Timing { by },
                };
                self.sync_clock(now);
            }
            _ => self.end_by(Ending::Time, by, Some(detail)),
        }
    }

    /// Ends the game by a loss of `by` that is not scored on the board.
    fn end_by(&mut self, ending: Ending, by: Color, detail: Option<String>) {
        self.game.end_by(match ending {
            Ending::Resignation => End::Resignation { by },
            Ending::Time => End::Time { by },
            _ => End::Forfeit { by },
        });
        self.finish(GameResult {
            outcome: self.game.outcome(),
            ending,
            settled: None,
            removed: Dead::new(),
            score: None,
            detail,
        });
    }

    fn finish(&mut self, result: GameResult) {
        if result.ending != Ending::TwoPasses {
            let text = match &result.detail {
                Some(d) => format!("{}: {}", d, result.outcome.to_sgf()),
                None => format!("{}: {}", result.ending.name(), result.outcome.to_sgf()),
            };
            self.note(text);
        }
        self.state = State::Over;
        self.clock.stop();
        self.result = Some(result);
    }

    /// Follows what the settlement says.
    fn follow(&mut self, action: Action) {
        let g = self.game.geometry().clone();
        match action {
            Action::AskDeadLists => {
                self.note("two passes: both players give their dead stones");
                self.state = State::DeadLists {
                    given: ByColor::default(),
                };
            }
            Action::Resume { first, cleanup } => {
                self.note(format!(
                    "play resumes with {first} to move{} (resumption {})",
                    if cleanup {
                        ": each side captures what it thinks dead (kgs-genmove_cleanup)"
                    } else {
                        ""
                    },
                    self.settlement.resumptions()
                ));
                self.game.resume();
                self.resumed = true;
                self.cleanup |= cleanup;
                self.state = State::Play;
            }
            Action::PlayOutOnCopy { first } => {
                self.note(format!(
                    "the dispute is played out on a copy of the board, {first} to move"
                ));
                let mut copy = self.game.clone();
                copy.resume();
                self.resumed = true;
                self.state = State::PlayOut {
                    copy: Box::new(copy),
                };
            }
            Action::StartMarking { first } => {
                self.note(format!("two passes: marking dead stones, {first} first"));
                self.state =
                    State::Marking(Box::new(Agreement::new(self.game.board().clone(), first)));
            }
            Action::AskReferee { disputed } => {
                self.note(format!(
                    "disputed stones go to the referee: {}",
                    names(&g, &disputed)
                ));
                self.state = State::Adjudication {
                    disputed,
                    reason: Adjudication::Dispute,
                };
            }
            Action::Finish { dead, ending } => {
                let score = area_score(&self.game, &dead);
                let outcome = score.outcome();
                self.note(format!(
                    "game ends by {} ({} protocol): removed {}; Black {}, White {} + komi {}: {}",
                    ending.name(),
                    self.settings.end,
                    names(&g, &dead),
                    score.black,
                    score.white,
                    score.komi,
                    outcome.to_sgf()
                ));
                {
                    let list = |l: &Option<Dead>| match l {
                        None => "none given".to_string(),
                        Some(l) => names(&g, l),
                    };
                    self.note(format!(
                        "dead lists: Black {}; White {}; removed: {}",
                        list(&self.lists.black),
                        list(&self.lists.white),
                        names(&g, &dead)
                    ));
                }
                self.finish(GameResult {
                    outcome,
                    ending: Ending::TwoPasses,
                    settled: Some(ending),
                    removed: dead,
                    score: Some(score),
                    detail: None,
                });
            }
        }
    }

    /// The play-out on the copy ended (by two passes, or `stopped` by something else).
    fn copy_played_out(&mut self, stopped: Option<&str>) {
        let State::PlayOut { copy } = std::mem::replace(&mut self.state, State::Play) else {
            return;
        };
        let turns = self.game.moves().len();
        let g = copy.geometry().clone();
        let line: Vec<String> = copy.moves()[turns..]
            .iter()
            .map(|&(c, mv)| format!("{} {}", c.letter(), move_name(&g, mv)))
            .collect();
        self.note(format!("played on the copy: {}", line.join(", ")));
        if let Some(why) = stopped {
            self.note(format!("play on the copy stopped by {why}"));
        } else if let Some(End::LongCycle { .. }) = copy.end() {
            self.note("play on the copy stopped by long-cycle");
        }
        let action = self.settlement.on_copy_played_out(copy.board());
        self.follow(action);
    }
}

/// The area score (TT rule 9, Olympiad 3.8) of the game's board with `dead` removed.
#[must_use]
pub fn area_score(game: &Game, dead: &Dead) -> Score {
    let goref_rules::ByColor { black, white } = without(game.board(), dead).area();
    Score {
        black,
        white,
        komi: game.rules().komi,
    }
}

/// A move as GTP and people name it: a vertex, or `pass`.
#[must_use]
pub fn move_name(geometry: &Geometry, mv: Move) -> String {
    match mv {
        Move::Pass => "pass".into(),
        Move::Play(p) if geometry.contains(p) => geometry.name(p),
        Move::Play(p) => format!("point #{}", p.index()),
    }
}

/// Vertex names of stones, or `nothing`.
fn names(geometry: &Geometry, points: &Dead) -> String {
    if points.is_empty() {
        return "nothing".into();
    }
    points
        .iter()
        .map(|&p| geometry.name(p))
        .collect::<Vec<_>>()
        .join(" ")
}
