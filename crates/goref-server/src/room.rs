//! One game as the server referees it: the rules (goref-rules), the end-of-game protocol
//! (goref-end), the clocks, and the log of events that rebuilds it all after a restart.
//!
//! Nothing here does I/O. The server asks [`Room::prepare`] to turn a player's message into an
//! [`Event`] (refusing it, with nothing changed, when it is not allowed), stores the event, and
//! only then applies it with [`Room::commit`]; a restart replays the stored events through
//! `commit` alone.

use std::fmt::Write as _;
use std::sync::Arc;

use goref_end::marking::{area_without, Dead};
use goref_end::tromp::{Agreement, Choice, Step};
use goref_end::{Action as Settle, Protocol, Settlement};
use goref_rules::{Color, End, Game, Geometry, Illegal, Komi, Move, Point, Preset, Ruleset, Score};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::clock::{charged_ms, PlayerClock, TimeControl};

/// The end-of-game protocols offered to people.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EndProtocol {
    /// Reference 003: alternating mark / dispute / done.
    #[default]
    Tromp,
    /// Every stone on the board counts (TT rules 8-9).
    AllAlive,
    /// Reference 000, "Chinese rules": both players give their dead lists; if they differ,
    /// play on; four passes score the board as it stands.
    Chinese,
}

impl EndProtocol {
    /// The protocol of goref-end.
    #[must_use]
    pub fn protocol(self) -> Protocol {
        match self {
            EndProtocol::Tromp => Protocol::Tromp,
            EndProtocol::AllAlive => Protocol::AllAlive,
            EndProtocol::Chinese => Protocol::Chinese,
        }
    }
}

/// A side, as messages and stored events name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    B,
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
    pub width: usize,
    pub height: usize,
    /// Preset name: `tromp-taylor`, `nstt`, `olympiad`.
    pub rules: String,
    pub komi: f64,
    pub time: TimeControl,
    pub end: EndProtocol,
    pub black: String,
    pub white: String,
}

/// The longest player name accepted, in characters.
pub const MAX_NAME: usize = 40;

/// What a request to create a game may say; everything has a default.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRequest {
    pub width: Option<usize>,
    pub height: Option<usize>,
    pub rules: Option<String>,
    pub komi: Option<f64>,
    pub time: Option<TimeControl>,
    pub end: Option<EndProtocol>,
    pub black: Option<String>,
    pub white: Option<String>,
}

impl CreateRequest {
    /// The configuration, or why it is refused.
    pub fn config(&self) -> Result<GameConfig, String> {
        let width = self.width.unwrap_or(19);
        let height = self.height.unwrap_or(width);
        if !(2..=goref_rules::MAX_SIDE).contains(&width)
            || !(2..=goref_rules::MAX_SIDE).contains(&height)
        {
            return Err(format!(
                "board {width}x{height}: sides must be 2 to {}",
                goref_rules::MAX_SIDE
            ));
        }
        let rules_name = self.rules.as_deref().unwrap_or("tromp-taylor");
        let preset: Preset = rules_name.parse()?;
        let komi = match self.komi {
            Some(k) => {
                let komi = Komi::from_f64(k)?;
                if komi.half_points().abs() > 2 * 1000 {
                    return Err(format!("komi {k} is outside -1000 to 1000"));
                }
                komi
            }
            None => Ruleset::preset(preset).komi,
        };
        let time = self.time.unwrap_or(TimeControl::None);
        time.validate()?;
        let name = |given: &Option<String>, default: &str| -> Result<String, String> {
            let name = given.as_deref().unwrap_or(default).trim().to_string();
            if name.chars().count() > MAX_NAME {
                return Err(format!("player names are at most {MAX_NAME} characters"));
            }
            if name.chars().any(char::is_control) {
                return Err("player names may not hold control characters".into());
            }
            Ok(if name.is_empty() {
                default.to_string()
            } else {
                name
            })
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
        })
    }
}

impl GameConfig {
    /// The ruleset: the preset with this komi.
    pub fn ruleset(&self) -> Result<Ruleset, String> {
        let preset: Preset = self.rules.parse()?;
        Ok(Ruleset::preset(preset).with_komi(Komi::from_f64(self.komi)?))
    }
}

/// What a player (or the server, for a timeout) does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Act {
    /// A stone at column `x` from the left, row `y` from the top.
    Play {
        x: usize,
        y: usize,
    },
    Pass,
    Resign,
    /// Reference 003: mark the string through this stone dead.
    Mark {
        x: usize,
        y: usize,
    },
    /// Reference 003: dispute the marked string through this stone.
    Dispute {
        x: usize,
        y: usize,
    },
    /// Reference 003: done.
    Done,
    /// Chinese protocol: the stones this player considers dead.
    DeadList {
        points: Vec<[usize; 2]>,
    },
    /// The server: the player whose clock runs is out of time.
    Timeout,
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
    pub act: Act,
    /// Both clocks after the event, Black's first.
    pub clocks: [PlayerClock; 2],
}

/// Why a message was refused. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// A stable code for programs: `illegal`, `not_your_turn`, `wrong_phase`, ...
    pub code: &'static str,
    /// A sentence for people.
    pub message: String,
}

impl Refusal {
    pub fn new(code: &'static str, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

/// Where the game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Play,
    /// Reference 003 marking.
    Marking,
    /// Chinese protocol: waiting for both dead lists.
    DeadLists,
    Over,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Play => "play",
            Phase::Marking => "marking",
            Phase::DeadLists => "dead_lists",
            Phase::Over => "over",
        }
    }
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished {
    /// SGF `RE`.
    pub result: String,
    /// `agreement`, `four-passes`, `all-alive`, `resignation`, `time`, `long-cycle`.
    pub ending: String,
    /// Stones removed before scoring.
    pub dead: Dead,
    /// Area scores (Black, White) when scored.
    pub score: Option<[u32; 2]>,
}

/// For each point of `board`: 1 for an empty point that reaches only Black (TT rule 9),
/// -1 for one that reaches only White, 0 otherwise (stones, neutral points).
fn territory(board: &goref_rules::Board) -> Vec<i32> {
    let geometry = board.geometry();
    let mut owner = vec![0i32; geometry.len()];
    let mut seen = vec![false; geometry.len()];
    for start in geometry.points() {
        if seen[start.index()] || board.get(start).is_some() {
            continue;
        }
        let mut region = vec![start];
        seen[start.index()] = true;
        let mut reaches = [false; 2];
        let mut at = 0;
        while at < region.len() {
            for &n in geometry.neighbors(region[at]) {
                match board.get(n) {
                    Some(c) => reaches[c.index()] = true,
                    None if !seen[n.index()] => {
                        seen[n.index()] = true;
                        region.push(n);
                    }
                    None => {}
                }
            }
            at += 1;
        }
        let sign = match reaches {
            [true, false] => 1,
            [false, true] => -1,
            _ => 0,
        };
        for p in region {
            owner[p.index()] = sign;
        }
    }
    owner
}

/// One game being refereed.
#[derive(Clone, Debug)]
pub struct Room {
    config: GameConfig,
    created_ms: u64,
    game: Game,
    settlement: Settlement,
    agreement: Option<Agreement>,
    lists: [Option<Dead>; 2],
    phase: Phase,
    finished: Option<Finished>,
    clocks: [PlayerClock; 2],
    turn_started_ms: u64,
    version: u64,
    /// Notes for the record: after how many moves, and what happened (marking history).
    notes: Vec<(usize, String)>,
}

impl Room {
    /// A new game (the configuration must have passed [`CreateRequest::config`]).
    pub fn new(config: GameConfig, created_ms: u64) -> Result<Room, String> {
        let rules = config.ruleset()?;
        let geometry = Geometry::rect(config.width, config.height).map_err(|e| e.to_string())?;
        let game = Game::new(Arc::new(geometry), rules);
        let clock = config.time.initial();
        Ok(Room {
            settlement: Settlement::new(config.end.protocol()),
            config,
            created_ms,
            game,
            agreement: None,
            lists: [None, None],
            phase: Phase::Play,
            finished: None,
            clocks: [clock; 2],
            turn_started_ms: created_ms,
            version: 0,
            notes: Vec::new(),
        })
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    /// Events applied so far.
    #[must_use]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The phase.
    #[must_use]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The rules' game.
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// How it ended, once over.
    #[must_use]
    pub fn finished(&self) -> Option<&Finished> {
        self.finished.as_ref()
    }

    /// The stones marked dead in the marking phase.
    #[must_use]
    pub fn marked(&self) -> Dead {
        self.agreement
            .as_ref()
            .map(|a| a.marked().clone())
            .unwrap_or_default()
    }

    /// The notes for the record.
    #[must_use]
    pub fn notes(&self) -> &[(usize, String)] {
        &self.notes
    }

    /// Both clocks as of the last event.
    #[must_use]
    pub fn clocks(&self) -> [PlayerClock; 2] {
        self.clocks
    }

    /// After a restart: the clock that runs starts again now, as it was at the last event.
    pub fn restart_turn_at(&mut self, now_ms: u64) {
        self.turn_started_ms = now_ms;
    }

    /// The player whose clock runs, if any: the clocks start with Black's first move and stop
    /// while dead lists are collected and once the game is over.
    #[must_use]
    pub fn running(&self) -> Option<Color> {
        if !self.config.time.is_timed() || self.game.moves().is_empty() {
            return None;
        }
        match self.phase {
            Phase::Play => Some(self.game.to_move()),
            Phase::Marking => self.agreement.as_ref().map(Agreement::to_act),
            Phase::DeadLists | Phase::Over => None,
        }
    }

    /// When (unix ms) the running player loses on time, lag allowance included.
    #[must_use]
    pub fn deadline_ms(&self, lag_allowance_ms: u64) -> Option<u64> {
        let c = self.running()?;
        let available = self.config.time.available_ms(self.clocks[c.index()])?;
        Some(self.turn_started_ms + available + lag_allowance_ms)
    }

    fn point(&self, x: usize, y: usize) -> Result<Point, Refusal> {
        self.game.geometry().at(x, y).ok_or_else(|| {
            Refusal::new(
                "off_board",
                format!(
                    "({x}, {y}) is off the {}x{} board",
                    self.config.width, self.config.height
                ),
            )
        })
    }

    fn name(&self, p: Point) -> String {
        self.game.geometry().name(p)
    }

    /// Turns a message from `by` into the event to store, or refuses it (nothing changes).
    pub fn prepare(
        &self,
        by: Color,
        act: Act,
        now_ms: u64,
        think_ms: Option<u64>,
        lag_allowance_ms: u64,
    ) -> Result<Event, Refusal> {
        if self.phase == Phase::Over {
            return Err(Refusal::new("over", "the game is over"));
        }
        let turn = match &act {
            Act::Play { x, y } => {
                let p = self.point(*x, *y)?;
                self.check_move(by, Move::Play(p))?;
                true
            }
            Act::Pass => {
                self.check_move(by, Move::Pass)?;
                true
            }
            Act::Resign => false,
            Act::Mark { x, y } | Act::Dispute { x, y } => {
                let p = self.point(*x, *y)?;
                let choice = match act {
                    Act::Mark { .. } => Choice::Mark(p),
                    _ => Choice::Dispute(p),
                };
                self.check_choice(by, choice)?;
                true
            }
            Act::Done => {
                self.check_choice(by, Choice::Done)?;
                true
            }
            Act::DeadList { points } => {
                if self.phase != Phase::DeadLists {
                    return Err(self.wrong_phase());
                }
                if self.lists[by.index()].is_some() {
                    return Err(Refusal::new(
                        "already_sent",
                        "you have already given your dead stones",
                    ));
                }
                if points.len() > self.game.geometry().len() {
                    return Err(Refusal::new("malformed", "more points than the board has"));
                }
                for &[x, y] in points {
                    self.point(x, y)?;
                }
                false
            }
            Act::Timeout => return Err(Refusal::new("malformed", "only the server times out")),
        };
        let mut clocks = self.clocks;
        if let Some(running) = self.running() {
            let elapsed = now_ms.saturating_sub(self.turn_started_ms);
            let tc = self.config.time;
            let i = running.index();
            if turn && running == by {
                let used = charged_ms(elapsed, think_ms, lag_allowance_ms);
                clocks[i] = tc.charge(clocks[i], used).ok_or_else(|| {
                    Refusal::new("out_of_time", "your time ran out before this arrived")
                })?;
            } else {
                clocks[i] = tc.running(clocks[i], elapsed);
            }
        }
        Ok(Event {
            seq: self.version + 1,
            at_ms: now_ms,
            by: Some(by.into()),
            act,
            clocks,
        })
    }

    /// The server's timeout event, when the running player's time (plus the lag allowance)
    /// is up at `now_ms`.
    #[must_use]
    pub fn prepare_timeout(&self, now_ms: u64, lag_allowance_ms: u64) -> Option<Event> {
        if self.phase == Phase::Over || now_ms < self.deadline_ms(lag_allowance_ms)? {
            return None;
        }
        let running = self.running()?;
        let mut clocks = self.clocks;
        clocks[running.index()] = PlayerClock {
            main_ms: 0,
            periods: 0,
        };
        Some(Event {
            seq: self.version + 1,
            at_ms: now_ms,
            by: None,
            act: Act::Timeout,
            clocks,
        })
    }

    fn wrong_phase(&self) -> Refusal {
        let message = match self.phase {
            Phase::Play => "the game is in play: play a stone, pass or resign",
            Phase::Marking => "dead stones are being marked: mark, dispute or done",
            Phase::DeadLists => "waiting for both players' dead stones",
            Phase::Over => "the game is over",
        };
        Refusal::new("wrong_phase", message)
    }

    fn check_move(&self, by: Color, mv: Move) -> Result<(), Refusal> {
        if self.phase != Phase::Play {
            return Err(self.wrong_phase());
        }
        if by != self.game.to_move() {
            return Err(Refusal::new(
                "not_your_turn",
                format!("it is {}'s turn", self.game.to_move()),
            ));
        }
        self.game.legality(mv).map_err(|reason| {
            let code = match reason {
                Illegal::GameOver => "over",
                Illegal::OffBoard => "off_board",
                Illegal::Occupied => "occupied",
                Illegal::Suicide => "suicide",
                Illegal::Ko { .. } => "ko",
                Illegal::Superko { .. } => "superko",
            };
            let at = match mv {
                Move::Play(p) => self.name(p),
                Move::Pass => "pass".into(),
            };
            Refusal::new("illegal", format!("{at} is illegal ({code}): {reason}"))
        })
    }

    fn check_choice(&self, by: Color, choice: Choice) -> Result<(), Refusal> {
        let Some(agreement) = self
            .agreement
            .as_ref()
            .filter(|_| self.phase == Phase::Marking)
        else {
            return Err(self.wrong_phase());
        };
        let mut trial = agreement.clone();
        trial
            .choose(by, choice)
            .map(|_| ())
            .map_err(|r| Refusal::new("refused", r.to_string()))
    }

    /// Applies a stored event. Events that [`Room::prepare`] made always apply; an event that
    /// does not (a damaged log) is reported and changes nothing.
    pub fn commit(&mut self, event: &Event) -> Result<(), String> {
        if event.seq != self.version + 1 {
            return Err(format!(
                "event {} does not follow version {}",
                event.seq, self.version
            ));
        }
        if self.phase == Phase::Over {
            return Err("event after the end".into());
        }
        let by: Option<Color> = event.by.map(Color::from);
        match (&event.act, by) {
            (Act::Play { x, y }, Some(by)) => {
                let p = self.point(*x, *y).map_err(|r| r.message)?;
                self.play(by, Move::Play(p))?;
            }
            (Act::Pass, Some(by)) => self.play(by, Move::Pass)?,
            (Act::Resign, Some(by)) => {
                self.game.end_by(End::Resignation { by });
                let result = self.game.outcome().to_sgf();
                self.note(format!("{by} resigns: {result}"));
                self.finish(result, "resignation", Dead::new(), None);
            }
            (Act::Timeout, None) => {
                let by = self.running().ok_or("timeout with no clock running")?;
                self.game.end_by(End::Time { by });
                let result = self.game.outcome().to_sgf();
                self.note(format!("{by} ran out of time: {result}"));
                self.finish(result, "time", Dead::new(), None);
            }
            (Act::Mark { x, y }, Some(by)) => {
                let p = self.point(*x, *y).map_err(|r| r.message)?;
                self.choose(by, Choice::Mark(p))?;
            }
            (Act::Dispute { x, y }, Some(by)) => {
                let p = self.point(*x, *y).map_err(|r| r.message)?;
                self.choose(by, Choice::Dispute(p))?;
            }
            (Act::Done, Some(by)) => self.choose(by, Choice::Done)?,
            (Act::DeadList { points }, Some(by)) => {
                if self.phase != Phase::DeadLists || self.lists[by.index()].is_some() {
                    return Err("dead list out of place".into());
                }
                let list: Vec<Point> = points
                    .iter()
                    .filter_map(|&[x, y]| self.game.geometry().at(x, y))
                    .collect();
                let dead = goref_end::marking::normalize(self.game.board(), list);
                self.note(format!(
                    "{by} gives dead stones: {}",
                    self.names(&dead, "none")
                ));
                self.lists[by.index()] = Some(dead);
                if let [Some(b), Some(w)] = &self.lists {
                    let (b, w): (Vec<Point>, Vec<Point>) =
                        (b.iter().copied().collect(), w.iter().copied().collect());
                    let action = self
                        .settlement
                        .on_dead_lists(&self.game, Some(&b), Some(&w));
                    self.lists = [None, None];
                    self.follow(action);
                }
            }
            _ => return Err("event with the wrong actor".into()),
        }
        self.clocks = event.clocks;
        self.turn_started_ms = event.at_ms;
        self.version = event.seq;
        Ok(())
    }

    fn play(&mut self, by: Color, mv: Move) -> Result<(), String> {
        if self.phase != Phase::Play || by != self.game.to_move() {
            return Err("move out of turn".into());
        }
        let played = self.game.play(mv).map_err(|e| e.to_string())?;
        match played.ended {
            Some(End::TwoPasses) => {
                let action = self.settlement.on_two_passes(&self.game);
                self.follow(action);
            }
            Some(End::LongCycle {
                first_after_turns,
                captures,
            }) => {
                let result = self.game.outcome().to_sgf();
                self.note(format!(
                    "long cycle: the position after move {first_after_turns} recurs; captures since then \
                     Black {} White {}: {result}",
                    captures[0], captures[1]
                ));
                self.finish(result, "long-cycle", Dead::new(), None);
            }
            _ => {}
        }
        Ok(())
    }

    fn choose(&mut self, by: Color, choice: Choice) -> Result<(), String> {
        let agreement = self.agreement.as_mut().ok_or("no marking phase")?;
        let step = agreement.choose(by, choice).map_err(|r| r.to_string())?;
        let text = match choice {
            Choice::Mark(p) => {
                let marked = goref_end::marking::mark(agreement.board(), p);
                format!(
                    "{by} marks {} dead: {}",
                    self.name(p),
                    self.names(&marked, "")
                )
            }
            Choice::Dispute(p) => format!(
                "{by} disputes {}: marks cleared, play resumes",
                self.name(p)
            ),
            Choice::Done => format!("{by} done"),
        };
        self.note(text);
        match step {
            Step::Continue => {}
            Step::Agreed(dead) => {
                let action = self.settlement.on_marking_agreed(dead);
                self.follow(action);
            }
            Step::Disputed => {
                let action = self.settlement.on_marking_disputed(&self.game);
                self.follow(action);
            }
        }
        Ok(())
    }

    /// Follows what the settlement says.
    fn follow(&mut self, action: Settle) {
        match action {
            Settle::Finish { dead, ending } => {
                let [black, white] = area_without(self.game.board(), &dead);
                let score = Score {
                    black,
                    white,
                    komi: self.game.rules().komi,
                };
                let result = score.outcome().to_sgf();
                let text = match ending.name() {
                    "four-passes" => "four passes: the board is scored as it stands".to_string(),
                    "all-alive" => "two passes: every stone is alive".to_string(),
                    _ => format!("agreed dead: {}", self.names(&dead, "none")),
                };
                self.note(format!(
                    "{text}; Black {black}, White {white} + komi {}: {result}",
                    self.game.rules().komi
                ));
                self.finish(result, ending.name(), dead, Some([black, white]));
            }
            Settle::StartMarking { first } => {
                self.agreement = Some(Agreement::new(self.game.board().clone(), first));
                self.phase = Phase::Marking;
                self.note(format!("two passes: marking dead stones, {first} first"));
            }
            Settle::AskDeadLists => {
                self.phase = Phase::DeadLists;
                self.lists = [None, None];
                self.note("two passes: both players give their dead stones".into());
            }
            Settle::Resume { first, .. } => {
                self.agreement = None;
                self.game.resume();
                self.phase = Phase::Play;
                debug_assert_eq!(self.game.to_move(), first);
                self.note(format!("play resumes, {first} to move"));
            }
            // Not reached by the three protocols offered; score all alive.
            Settle::PlayOutOnCopy { .. } | Settle::AskReferee { .. } => {
                self.follow(Settle::Finish {
                    dead: Dead::new(),
                    ending: goref_end::Ending::AllAlive,
                });
            }
        }
    }

    fn finish(&mut self, result: String, ending: &str, dead: Dead, score: Option<[u32; 2]>) {
        self.phase = Phase::Over;
        self.agreement = None;
        self.finished = Some(Finished {
            result,
            ending: ending.to_string(),
            dead,
            score,
        });
    }

    fn note(&mut self, text: String) {
        self.notes.push((self.game.moves().len(), text));
    }

    fn names(&self, points: &Dead, empty: &str) -> String {
        if points.is_empty() {
            return empty.to_string();
        }
        let names: Vec<String> = points.iter().map(|&p| self.name(p)).collect();
        names.join(" ")
    }

    /// The whole state, as the page shows it, at `now_ms`.
    #[must_use]
    pub fn view(&self, id: &str, now_ms: u64) -> Value {
        let geometry = self.game.geometry();
        let board = self
            .agreement
            .as_ref()
            .map_or(self.game.board(), |a| a.board());
        let sign = |c: Option<Color>| match c {
            Some(Color::Black) => 1,
            Some(Color::White) => -1,
            None => 0,
        };
        let rows: Vec<Vec<i32>> = (0..self.config.height)
            .map(|y| {
                (0..self.config.width)
                    .map(|x| sign(board.get(geometry.at(x, y).expect("on board"))))
                    .collect()
            })
            .collect();
        let xy = |p: Point| {
            let (x, y) = geometry.coords(p).expect("rect");
            json!([x, y])
        };
        let moves: Vec<Value> = self
            .game
            .moves()
            .iter()
            .map(|&(c, m)| match m {
                Move::Pass => json!({"color": Side::from(c), "point": null, "name": "pass"}),
                Move::Play(p) => {
                    json!({"color": Side::from(c), "point": xy(p), "name": self.name(p)})
                }
            })
            .collect();
        let marked = self.marked();
        let dead = self.finished.as_ref().map_or(&marked, |f| &f.dead);
        let cleared = goref_end::marking::without(board, dead);
        let [black, white] = cleared.area();
        let owners = territory(&cleared);
        let territory: Vec<Vec<i32>> = (0..self.config.height)
            .map(|y| {
                (0..self.config.width)
                    .map(|x| owners[geometry.at(x, y).expect("on board").index()])
                    .collect()
            })
            .collect();
        let score = Score {
            black,
            white,
            komi: self.game.rules().komi,
        };
        let running = self.running();
        let elapsed = now_ms.saturating_sub(self.turn_started_ms);
        let clock = |c: Color| {
            let stored = self.clocks[c.index()];
            let shown = if running == Some(c) {
                self.config.time.running(stored, elapsed)
            } else {
                stored
            };
            json!({"main_ms": shown.main_ms, "periods": shown.periods})
        };
        let captures = self.game.captures();
        json!({
            "type": "state",
            "id": id,
            "version": self.version,
            "config": self.config,
            "time_text": self.config.time.describe(),
            "created_ms": self.created_ms,
            "phase": self.phase.name(),
            "board": rows,
            "to_move": Side::from(self.game.to_move()),
            "to_act": self.agreement.as_ref().map(|a| Side::from(a.to_act())),
            "moves": moves,
            "captures": {"B": captures[0], "W": captures[1]},
            "ko": self.game.ko().map(|k| xy(k.point)),
            "marked": marked.iter().map(|&p| xy(p)).collect::<Vec<_>>(),
            "dead": dead.iter().map(|&p| xy(p)).collect::<Vec<_>>(),
            "territory": territory,
            "score": {"B": black, "W": white, "komi": self.game.rules().komi.as_f64(),
                      "result": score.outcome().to_sgf()},
            "lists_given": {"B": self.lists[0].is_some(), "W": self.lists[1].is_some()},
            "clocks": {"B": clock(Color::Black), "W": clock(Color::White),
                       "running": running.map(Side::from)},
            "result": self.finished.as_ref().map(|f| f.result.clone()),
            "ending": self.finished.as_ref().map(|f| f.ending.clone()),
            "notes": self.notes.iter().map(|(n, t)| json!({"after": n, "text": t})).collect::<Vec<_>>(),
        })
    }

    /// The game record: moves, result, and the notes (marking history) as comments on the
    /// move they follow; notes before the first move go in the first move's comment.
    #[must_use]
    pub fn sgf(&self) -> String {
        let mut record = goref_sgf::GameRecord::new(self.config.width, self.config.height);
        record.komi = Some(self.game.rules().komi);
        record.rules = Some(self.config.rules.clone());
        record.black_player = Some(self.config.black.clone());
        record.white_player = Some(self.config.white.clone());
        record.result = self.finished.as_ref().map(|f| f.result.clone());
        record.moves = self
            .game
            .moves()
            .iter()
            .map(|&(color, mv)| goref_sgf::RecordedMove {
                color,
                mv,
                line: 0,
                comment: None,
            })
            .collect();
        for (after, text) in &self.notes {
            if let Some(m) = record.moves.get_mut(after.saturating_sub(1)) {
                let comment = m.comment.get_or_insert_with(String::new);
                if !comment.is_empty() {
                    comment.push('\n');
                }
                let _ = write!(comment, "{text}");
            }
        }
        goref_sgf::write(&record)
    }
}
