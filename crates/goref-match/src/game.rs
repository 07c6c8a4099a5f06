//! One game between two engines, refereed move by move with the rules core.

use std::fs::File;
use std::io::LineWriter;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use goref_end::marking::{area_without, Dead};
use goref_end::tromp::{Agreement, Choice, Step};
use goref_end::{Action, Ending, Protocol, Settlement};
use goref_gtp::controller::log_line;
use goref_gtp::{
    color_arg, format_move, parse_genmove, parse_move, Engine, EngineSpec, GenMove, GtpError, Log,
};
use goref_rules::{Color, End, Game, Move, Outcome, Point, Ruleset, Score};
use goref_sgf::{GameRecord, RecordedMove};
use serde::{Deserialize, Serialize};

use crate::clock::{Announce, Clock, TimeControl};

/// What happens to an illegal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IllegalPolicy {
    /// Olympiad 3.10.2: the first illegal move of a program is replaced by a pass (both engines
    /// are told), a second one loses.
    Olympiad,
    /// The first illegal move loses.
    Strict,
}

impl std::str::FromStr for IllegalPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "olympiad" => Ok(IllegalPolicy::Olympiad),
            "strict" => Ok(IllegalPolicy::Strict),
            _ => Err(format!(
                "illegal-move policy '{s}': expected olympiad or strict"
            )),
        }
    }
}

/// Who settles dead stones the players dispute (Olympiad 3.7.5, reference 000 "third-party
/// mediation").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefereeSpec {
    /// goref's own judgement: the Olympiad's default removal of 3.9 (crate goref-judge).
    Builtin,
    /// A third GTP engine, fed the game and asked `final_status_list dead`.
    Engine(EngineSpec),
}

impl std::fmt::Display for RefereeSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RefereeSpec::Builtin => f.write_str("builtin"),
            RefereeSpec::Engine(spec) => write!(f, "{spec}"),
        }
    }
}

/// Settings shared by every game of a match.
#[derive(Clone, Debug)]
pub struct Settings {
    pub width: usize,
    pub height: usize,
    pub rules: Ruleset,
    pub time: TimeControl,
    /// Overrun of the clock forgiven on each move (transmission lag).
    pub lag: Duration,
    /// Turns after which the game is stopped and scored as it stands.
    pub move_limit: usize,
    pub illegal: IllegalPolicy,
    /// Limit for every command but `genmove`.
    pub command_timeout: Duration,
    /// Limit for a `genmove` reply regardless of the clock: past it the engine hangs.
    pub hang_timeout: Option<Duration>,
    /// Time an engine has to exit after `quit` before it is killed.
    pub grace: Duration,
    /// How a game ends after two passes (crate goref-end).
    pub end: Protocol,
    /// Who settles disputed stones under the `olympiad` and `referee` protocols.
    pub referee: RefereeSpec,
}

impl Settings {
    /// Defaults for a board: Olympiad rules and clock, 7.5 komi.
    #[must_use]
    pub fn new(width: usize, height: usize) -> Settings {
        Settings {
            width,
            height,
            rules: Ruleset::OLYMPIAD,
            time: TimeControl::olympiad(width, height),
            lag: Duration::from_millis(500),
            move_limit: 3 * width * height + 100,
            illegal: IllegalPolicy::Olympiad,
            command_timeout: Duration::from_secs(10),
            hang_timeout: None,
            grace: Duration::from_secs(1),
            end: Protocol::Olympiad,
            referee: RefereeSpec::Builtin,
        }
    }
}

/// One of the two engines of a match.
#[derive(Clone, Debug)]
pub struct Player {
    /// 0 for the first engine (`--black` in game 1), 1 for the second.
    pub id: usize,
    /// A short name for tables and errors.
    pub name: String,
    pub spec: EngineSpec,
}

/// How a game ended, for the results file and the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndKind {
    TwoPasses,
    Resignation,
    LongCycle,
    MoveLimit,
    /// Loss on time.
    Time,
    /// The engine's output closed (it exited).
    Crash,
    /// No reply within the hang timeout.
    Hang,
    /// An illegal move (a second one under Olympiad 3.10.2, or the first under strict).
    Illegal,
    /// Another fault: a refused `genmove`, a legal move the engine would not take.
    Fault,
}

impl EndKind {
    /// Whether the loser forfeited (`F` or `T`).
    #[must_use]
    pub fn is_forfeit(self) -> bool {
        matches!(
            self,
            EndKind::Time | EndKind::Crash | EndKind::Hang | EndKind::Illegal | EndKind::Fault
        )
    }

    /// The name in the results file.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EndKind::TwoPasses => "two-passes",
            EndKind::Resignation => "resignation",
            EndKind::LongCycle => "long-cycle",
            EndKind::MoveLimit => "move-limit",
            EndKind::Time => "time",
            EndKind::Crash => "crash",
            EndKind::Hang => "hang",
            EndKind::Illegal => "illegal",
            EndKind::Fault => "fault",
        }
    }
}

/// One line of the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameReport {
    /// Game number, from 1.
    pub game: usize,
    /// Which engine (0 or 1) had Black, and which White.
    pub black: usize,
    pub white: usize,
    /// Names the engines gave over GTP.
    pub black_name: String,
    pub white_name: String,
    /// SGF `RE`.
    pub result: String,
    /// `B`, `W` or none for a draw.
    pub winner: Option<char>,
    pub end: EndKind,
    /// Why, in words, for forfeits and illegal moves.
    pub detail: Option<String>,
    /// Turns played.
    pub moves: usize,
    /// `genmove` replies and seconds spent in them, Black and White.
    pub genmoves: [u32; 2],
    pub seconds: [f64; 2],
    /// Illegal moves replaced by a pass (Olympiad 3.10.2), Black and White.
    pub illegal_passes: [u32; 2],
    /// The record, relative to the output directory.
    pub sgf: String,
    /// How the dead-stone settlement ended (`agreement`, `four-passes`, `cleanup-passes`,
    /// `played-out-on-copy`, `referee`, `all-alive`); none when the game did not end by
    /// passes.
    #[serde(default)]
    pub ending: Option<String>,
    /// Times play resumed after two passes.
    #[serde(default)]
    pub resumptions: u32,
    /// The last dead lists of Black and White (`final_status_list dead`), none for a player
    /// that gave none.
    #[serde(default)]
    pub dead_lists: [Option<Vec<String>>; 2],
    /// The stones removed before scoring.
    #[serde(default)]
    pub removed: Vec<String>,
}

impl GameReport {
    /// The engine (0 or 1) that won, if any.
    #[must_use]
    pub fn winner_id(&self) -> Option<usize> {
        match self.winner {
            Some('B') => Some(self.black),
            Some('W') => Some(self.white),
            _ => None,
        }
    }
}

/// A problem that stops the match: an engine that cannot start or cannot be set up.
#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

struct Referee<'a> {
    settings: &'a Settings,
    log: Option<Log>,
    game: Game,
    clocks: [Clock; 2],
    illegal: [u32; 2],
    genmoves: [u32; 2],
    seconds: [f64; 2],
    comments: Vec<Option<String>>,
    left: Vec<Option<(f64, Option<u32>)>>,
    end: Option<(EndKind, Option<String>)>,
    /// Play resumed after two passes (or goes on on a copy): a refused genmove is a pass.
    resumed: bool,
    /// KGS clean-up phase: `kgs-genmove_cleanup` where the engine has it.
    cleanup: bool,
    resumptions: u32,
    /// What happened after the passes, in order, for the record.
    notes: Vec<String>,
    dead_lists: [Option<Vec<Point>>; 2],
    removed: Dead,
    ending: Option<Ending>,
}

/// Plays game `index` (from 0) between `black` and `white`, writes its SGF and log into `out`,
/// and reports it. Only an engine that cannot start (or refuses the board) is an error.
pub async fn play_game(
    index: usize,
    black: &Player,
    white: &Player,
    settings: &Settings,
    out: &Path,
) -> Result<GameReport, StartError> {
    let number = index + 1;
    let log_path = out.join(format!("game-{number:04}.log"));
    let log: Option<Log> = File::create(&log_path)
        .ok()
        .map(|f| Arc::new(Mutex::new(LineWriter::new(f))) as Log);
    let players = [black, white];
    let mut engines = Vec::with_capacity(2);
    for color in Color::ALL {
        let p = players[color.index()];
        let label = format!("{color} engine '{}'", p.name);
        let spec = p
            .spec
            .substitute("game", &number.to_string())
            .substitute("color", color_arg(color));
        let mut engine = Engine::start(&spec, &label, log.clone())
            .await
            .map_err(|e| StartError(format!("game {number}: {e}")))?;
        engine
            .check(settings.command_timeout.max(Duration::from_secs(5)))
            .await
            .map_err(|e| {
                StartError(format!(
                    "game {number}: {label} ({spec}) failed the start-up check: {e}"
                ))
            })?;
        setup(&mut engine, settings)
            .await
            .map_err(|e| StartError(format!("game {number}: {e}")))?;
        engines.push(engine);
    }
    let mut engines: [Engine; 2] = engines.try_into().map_err(|_| StartError("two".into()))?;
    let names = [0, 1].map(|i| first_line(&engines[i].info().name));

    let game = Game::rect(settings.width, settings.height, settings.rules)
        .map_err(|e| StartError(e.to_string()))?;
    let mut referee = Referee {
        settings,
        log: log.clone(),
        game,
        clocks: [Clock::new(settings.time); 2],
        illegal: [0; 2],
        genmoves: [0; 2],
        seconds: [0.0; 2],
        comments: Vec::new(),
        left: Vec::new(),
        end: None,
        resumed: false,
        cleanup: false,
        resumptions: 0,
        notes: Vec::new(),
        dead_lists: [None, None],
        removed: Dead::new(),
        ending: None,
    };
    referee.play(&mut engines).await;

    let outcome = referee.outcome();
    let (end, detail) = referee.end.clone().unwrap_or((EndKind::MoveLimit, None));
    if let Some(d) = &detail {
        log_line(&log, "[goref]", d);
    }
    log_line(
        &log,
        "[goref]",
        &format!("result {outcome} ({})", end.name()),
    );
    let [b, w] = engines;
    let grace = settings.grace;
    tokio::join!(b.shutdown(grace), w.shutdown(grace));

    let sgf_name = format!("game-{number:04}.sgf");
    let sgf = referee.sgf(number, &names, &outcome, end, detail.as_deref());
    let tmp = out.join(format!("{sgf_name}.tmp"));
    let written =
        std::fs::write(&tmp, sgf).and_then(|()| std::fs::rename(&tmp, out.join(&sgf_name)));
    if let Err(e) = written {
        log_line(&log, "[goref]", &format!("cannot write {sgf_name}: {e}"));
    }
    Ok(GameReport {
        game: number,
        black: black.id,
        white: white.id,
        black_name: names[0].clone(),
        white_name: names[1].clone(),
        result: outcome.to_sgf(),
        winner: outcome.winner().map(Color::letter),
        end,
        detail,
        moves: referee.game.moves().len(),
        genmoves: referee.genmoves,
        seconds: referee.seconds,
        illegal_passes: referee.illegal,
        sgf: sgf_name,
        ending: referee.ending.map(|e| e.name().to_string()),
        resumptions: referee.resumptions,
        dead_lists: referee
            .dead_lists
            .clone()
            .map(|l| l.map(|l| referee.names(&l))),
        removed: referee.names(&referee.removed),
    })
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").trim().to_string()
}

/// `boardsize`, `clear_board`, `komi` (all required), then rules and time hints where the
/// engine lists them.
async fn setup(engine: &mut Engine, s: &Settings) -> Result<(), GtpError> {
    let t = s.command_timeout;
    let size = if s.width == s.height {
        format!("boardsize {}", s.width)
    } else {
        format!("rectangular_boardsize {} {}", s.width, s.height)
    };
    engine.command(&size, t).await?;
    engine.command("clear_board", t).await?;
    engine.command(&format!("komi {}", s.rules.komi), t).await?;
    let info = engine.info().clone();
    let hint = |r: Result<String, GtpError>| match r {
        Err(e) if e.is_fatal() => Err(e),
        _ => Ok(()),
    };
    if let Some(preset) = s.rules.preset_name() {
        if info.supports("goref-rules") {
            hint(engine.command(&format!("goref-rules {preset}"), t).await)?;
        } else if info.supports("kgs-rules") {
            let name = match preset {
                goref_rules::Preset::Olympiad => "chinese",
                _ => "new_zealand",
            };
            hint(engine.command(&format!("kgs-rules {name}"), t).await)?;
        }
    }
    if s.time != TimeControl::None {
        if info.supports("kgs-time_settings") {
            hint(engine.command(&s.time.kgs_time_settings(), t).await)?;
        } else if let Some(cmd) = s.time.time_settings() {
            if info.supports("time_settings") {
                hint(engine.command(&cmd, t).await)?;
            }
        }
    }
    Ok(())
}

impl Referee<'_> {
    fn finish(&mut self, kind: EndKind, loser: Option<Color>, detail: Option<String>) {
        if let Some(by) = loser {
            self.game.end_by(match kind {
                EndKind::Time => End::Time { by },
                EndKind::Resignation => End::Resignation { by },
                _ => End::Forfeit { by },
            });
        }
        self.end = Some((kind, detail));
    }

    /// Forfeit of `color` after an engine error.
    fn engine_fault(&mut self, color: Color, err: &GtpError, what: &str) {
        let kind = match err {
            GtpError::Closed { .. } => EndKind::Crash,
            GtpError::Timeout { .. } => EndKind::Hang,
            _ => EndKind::Fault,
        };
        let number = self.game.moves().len() + 1;
        let detail = format!("{color} forfeits at move {number} ({what}): {err}");
        self.finish(kind, Some(color), Some(detail));
    }

    /// The game: alternate moving, then, after two passes, the dead-stone settlement of the
    /// protocol (crate goref-end) until it finishes. The clocks stop while the engines are
    /// asked for dead stones, mark, or wait for a referee (Olympiad 3.10.3): those commands
    /// run under the command timeout and are charged to no clock.
    async fn play(&mut self, engines: &mut [Engine; 2]) {
        self.play_moves(engines).await;
        if !self.stopped_by_passes() {
            return;
        }
        let mut settlement = Settlement::new(self.settings.end);
        let mut action = settlement.on_two_passes(&self.game);
        // Every branch either finishes or resumes play, and play is bounded by the move limit
        // (which counts the turns on a copy of the board too); the Olympiad resumes at most
        // three times; Chinese, KGS and Tromp end at the first two immediate passes.
        loop {
            action = match action {
                Action::AskDeadLists => {
                    let [black, white] = self.ask_dead_lists(engines).await;
                    settlement.on_dead_lists(&self.game, black.as_deref(), white.as_deref())
                }
                Action::Resume { first, cleanup } => {
                    self.resumptions = settlement.resumptions();
                    self.note(format!(
                        "play resumes with {first} to move{} (resumption {})",
                        if cleanup {
                            ": each side captures what it thinks dead (kgs-genmove_cleanup)"
                        } else {
                            ""
                        },
                        self.resumptions
                    ));
                    self.game.resume();
                    self.end = None;
                    self.resumed = true;
                    self.cleanup |= cleanup;
                    self.play_moves(engines).await;
                    if !self.stopped_by_passes() {
                        return;
                    }
                    settlement.on_two_passes(&self.game)
                }
                Action::PlayOutOnCopy { first } => {
                    let copy = self.play_on_copy(engines, first).await;
                    match copy {
                        Some(board) => settlement.on_copy_played_out(&board),
                        None => return,
                    }
                }
                Action::StartMarking { first } => {
                    let [black, white] = self.ask_dead_lists(engines).await;
                    let lists = [black, white].map(|l| {
                        goref_end::marking::normalize(self.game.board(), l.unwrap_or_default())
                    });
                    let (step, record) = run_marking(self.game.board().clone(), first, &lists);
                    let names = record
                        .iter()
                        .map(|(c, choice)| {
                            let g = self.game.geometry();
                            match choice {
                                Choice::Mark(p) => format!("{c} marks {}", g.name(*p)),
                                Choice::Dispute(p) => format!("{c} disputes {}", g.name(*p)),
                                Choice::Done => format!("{c} done"),
                            }
                        })
                        .collect::<Vec<_>>();
                    self.note(format!("marking (reference 003): {}", names.join(", ")));
                    match step {
                        Step::Agreed(dead) => settlement.on_marking_agreed(dead),
                        _ => settlement.on_marking_disputed(&self.game),
                    }
                }
                Action::AskReferee { disputed } => {
                    let named = self.ask_referee(&disputed).await;
                    settlement.on_referee(&self.game, named.as_deref())
                }
                Action::Finish { dead, ending } => {
                    self.resumptions = settlement.resumptions();
                    let names = self.names(&dead);
                    self.note(format!(
                        "game ends by {} ({} protocol): removed {}",
                        ending.name(),
                        self.settings.end,
                        if names.is_empty() {
                            "nothing".to_string()
                        } else {
                            names.join(" ")
                        }
                    ));
                    self.removed = dead;
                    self.ending = Some(ending);
                    return;
                }
            };
        }
    }

    /// The settlement for the record: every step noted, then the lists and the removal.
    fn settlement_text(&self) -> String {
        if self.notes.is_empty() {
            return String::new();
        }
        let mut parts = self.notes.clone();
        if self.ending.is_some() {
            let list = |l: &Option<Vec<Point>>| match l {
                None => "none given".to_string(),
                Some(l) if l.is_empty() => "nothing".to_string(),
                Some(l) => self.names(l).join(" "),
            };
            parts.push(format!(
                "dead lists: Black {}; White {}; removed: {}",
                list(&self.dead_lists[0]),
                list(&self.dead_lists[1]),
                if self.removed.is_empty() {
                    "nothing".to_string()
                } else {
                    self.names(&self.removed).join(" ")
                }
            ));
        }
        parts.join("; ")
    }

    fn stopped_by_passes(&self) -> bool {
        matches!(self.end, Some((EndKind::TwoPasses, _)))
    }

    fn note(&mut self, text: String) {
        log_line(&self.log, "[goref]", &text);
        self.notes.push(text);
    }

    /// Vertex names of stones, in point order.
    fn names(
        &self,
        points: impl IntoIterator<Item = impl std::borrow::Borrow<Point>>,
    ) -> Vec<String> {
        let g = self.game.geometry();
        points.into_iter().map(|p| g.name(*p.borrow())).collect()
    }

    /// The result: after a settlement, the area score with the dead stones removed (Olympiad
    /// 3.8); otherwise the game's own result.
    fn outcome(&self) -> Outcome {
        if self.ending.is_some() && self.game.end() == Some(End::TwoPasses) {
            let [black, white] = area_without(self.game.board(), &self.removed);
            Score {
                black,
                white,
                komi: self.settings.rules.komi,
            }
            .outcome()
        } else {
            self.game.outcome()
        }
    }

    /// Asks both engines `final_status_list dead` (Olympiad 3.7.2). An engine without the
    /// command, or one that fails or times out, is taken to remove nothing and is never
    /// penalised for it (3.7.2; reference 000, "Considerations").
    async fn ask_dead_lists(&mut self, engines: &mut [Engine; 2]) -> [Option<Vec<Point>>; 2] {
        let t = self.settings.command_timeout;
        let mut lists = [None, None];
        for color in Color::ALL {
            let engine = &mut engines[color.index()];
            let list = if !engine.info().supports("final_status_list") {
                self.note(format!(
                    "{color} has no final_status_list: taken to remove nothing"
                ));
                None
            } else {
                match engine.command("final_status_list dead", t).await {
                    Ok(text) => Some(parse_vertices(self.game.geometry(), &text)),
                    Err(e) => {
                        self.note(format!(
                            "{color} gave no dead list ({e}): taken to remove nothing"
                        ));
                        None
                    }
                }
            };
            let list = list.map(|l| {
                goref_end::marking::normalize(self.game.board(), l)
                    .into_iter()
                    .collect::<Vec<_>>()
            });
            if let Some(l) = &list {
                let names = self.names(l);
                self.note(format!(
                    "{color} calls dead: {}",
                    if names.is_empty() {
                        "nothing".to_string()
                    } else {
                        names.join(" ")
                    }
                ));
            }
            lists[color.index()] = list;
        }
        self.dead_lists.clone_from(&lists);
        lists
    }

    /// Reference 000, "Japanese rules": the dispute is played out on a copy of the position
    /// (the engines play on; goref keeps the copy apart from the record), then the game ends
    /// on the original, so the engines' boards need no restoring. Returns the copy's final
    /// board, or `None` when a player forfeited on the copy (the forfeit stands).
    async fn play_on_copy(
        &mut self,
        engines: &mut [Engine; 2],
        first: Color,
    ) -> Option<goref_rules::Board> {
        let original = self.game.clone();
        let turns = original.moves().len();
        self.note(format!(
            "the dispute is played out on a copy of the board, {first} to move"
        ));
        self.game.resume();
        self.end = None;
        self.resumed = true;
        self.play_moves(engines).await;
        let copy = std::mem::replace(&mut self.game, original);
        self.comments.truncate(turns);
        self.left.truncate(turns);
        let g = copy.geometry().clone();
        let line: Vec<String> = copy.moves()[turns..]
            .iter()
            .map(|&(c, mv)| format!("{} {}", c.letter(), format_move(&g, mv)))
            .collect();
        self.note(format!("played on the copy: {}", line.join(", ")));
        match self.end.clone() {
            Some((kind, detail)) if kind.is_forfeit() || kind == EndKind::Resignation => {
                if let Some(end) = copy.end() {
                    self.game.end_by(end);
                }
                self.end = Some((
                    kind,
                    detail.map(|d| format!("{d} (on the copy of the board)")),
                ));
                None
            }
            other => {
                if let Some((kind, _)) = other {
                    if kind != EndKind::TwoPasses {
                        self.note(format!("play on the copy stopped by {}", kind.name()));
                    }
                }
                self.end = Some((EndKind::TwoPasses, None));
                Some(copy.board().clone())
            }
        }
    }

    /// The third party's dead stones among `disputed`: goref's default removal (Olympiad
    /// 3.9.2) or a referee engine fed the game. No answer removes no disputed stone.
    async fn ask_referee(&mut self, disputed: &Dead) -> Option<Vec<Point>> {
        let names = self.names(disputed);
        match self.settings.referee.clone() {
            RefereeSpec::Builtin => {
                let disputed: Vec<Point> = disputed.iter().copied().collect();
                let game = &self.game;
                let judged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let judge = goref_judge::Judge::of_game(game, goref_judge::Budget::default());
                    let removal = goref_judge::default_removal(
                        &judge,
                        goref_judge::Disputes::Lists {
                            black: &disputed,
                            white: &[],
                        },
                    );
                    let verdicts: Vec<String> = removal
                        .disputed
                        .iter()
                        .map(|v| {
                            format!(
                                "{} {}",
                                game.geometry().name(v.block.anchor()),
                                v.verdict.name()
                            )
                        })
                        .collect();
                    (removal.removed, verdicts)
                }));
                match judged {
                    Ok((removed, verdicts)) => {
                        self.note(format!(
                            "disputed {}: default removal (Olympiad 3.9.2): {}",
                            names.join(" "),
                            verdicts.join(", ")
                        ));
                        Some(removed)
                    }
                    Err(_) => {
                        self.note("the default removal failed: no disputed stone removed".into());
                        None
                    }
                }
            }
            RefereeSpec::Engine(spec) => {
                let answer = self.referee_engine(&spec).await;
                match answer {
                    Ok(list) => {
                        let named = self.names(&list);
                        self.note(format!(
                            "disputed {}: the referee engine calls dead {}",
                            names.join(" "),
                            if named.is_empty() {
                                "nothing".to_string()
                            } else {
                                named.join(" ")
                            }
                        ));
                        Some(list)
                    }
                    Err(e) => {
                        self.note(format!(
                            "disputed {}: the referee engine gave no answer ({e}): no disputed stone removed",
                            names.join(" ")
                        ));
                        None
                    }
                }
            }
        }
    }

    /// Starts the referee engine, feeds it the game and asks `final_status_list dead`.
    async fn referee_engine(&mut self, spec: &EngineSpec) -> Result<Vec<Point>, String> {
        let s = self.settings;
        let t = s.command_timeout;
        let mut engine = Engine::start(spec, "referee engine", self.log.clone())
            .await
            .map_err(|e| e.to_string())?;
        let asked = async {
            engine.check(t.max(Duration::from_secs(5))).await?;
            setup(&mut engine, s).await?;
            let g = self.game.geometry().clone();
            for &(c, mv) in self.game.moves() {
                let cmd = format!("play {} {}", color_arg(c), format_move(&g, mv));
                engine.command(&cmd, t).await?;
            }
            engine.command("final_status_list dead", t).await
        }
        .await;
        engine.shutdown(s.grace).await;
        asked
            .map(|text| parse_vertices(self.game.geometry(), &text))
            .map_err(|e| e.to_string())
    }

    /// Alternate moving until the game stops (two passes, or any other end).
    async fn play_moves(&mut self, engines: &mut [Engine; 2]) {
        let s = self.settings;
        while !self.game.is_over() {
            if self.game.moves().len() >= s.move_limit {
                let detail = format!(
                    "move limit of {} turns reached: scored as it stands, all stones alive",
                    s.move_limit
                );
                self.end = Some((EndKind::MoveLimit, Some(detail)));
                return;
            }
            let color = self.game.to_move();
            let c = color.index();
            let clock = self.clocks[c];
            if let Some((secs, stones)) = clock.time_left() {
                if engines[c].info().supports("time_left") {
                    let cmd = format!("time_left {} {secs} {stones}", color_arg(color));
                    if let Err(e) = engines[c].command(&cmd, s.command_timeout).await {
                        if e.is_fatal() {
                            self.engine_fault(color, &e, "time_left");
                            return;
                        }
                    }
                }
            }
            let by_clock = clock.allowance().map(|a| a.saturating_add(s.lag));
            let (limit, clock_binds) = match (by_clock, s.hang_timeout) {
                (Some(c), Some(h)) if h < c => (h, false),
                (Some(c), _) => (c, true),
                (None, Some(h)) => (h, false),
                (None, None) => (Duration::from_secs(3600), false),
            };
            let verb = if self.cleanup && engines[c].info().supports("kgs-genmove_cleanup") {
                "kgs-genmove_cleanup"
            } else {
                "genmove"
            };
            let command = format!("{verb} {}", color_arg(color));
            let started = Instant::now();
            let reply = engines[c].send(&command, limit).await;
            let used = started.elapsed();
            self.genmoves[c] += 1;
            self.seconds[c] += used.as_secs_f64();
            let number = self.game.moves().len() + 1;
            let reply = match reply {
                Err(GtpError::Timeout { .. }) if clock_binds => {
                    self.clocks[c].charge(used, s.lag);
                    let detail = format!(
                        "{color} ran out of time at move {number}: no move within {:.1}s left",
                        clock.allowance().unwrap_or_default().as_secs_f64()
                    );
                    self.finish(EndKind::Time, Some(color), Some(detail));
                    return;
                }
                Err(e) => {
                    self.engine_fault(color, &e, "genmove");
                    return;
                }
                Ok(r) => r,
            };
            if !self.clocks[c].charge(used, s.lag) {
                let detail = format!(
                    "{color} ran out of time at move {number}: took {:.3}s with {:.3}s left",
                    used.as_secs_f64(),
                    clock.allowance().unwrap_or_default().as_secs_f64()
                );
                self.finish(EndKind::Time, Some(color), Some(detail));
                return;
            }
            let mut note = None;
            let text = if reply.success {
                reply.text
            } else if self.resumed {
                // Olympiad 3.7.4: a program that will not resume is assumed to pass.
                let n = format!(
                    "{color} refused '{command}' in resumed play ({}): taken to pass (Olympiad 3.7.4)",
                    reply.text
                );
                log_line(&self.log, "[goref]", &format!("move {number}: {n}"));
                note = Some(n);
                "pass".to_string()
            } else {
                let detail = format!(
                    "{color} forfeits at move {number}: {} refused '{command}': {}",
                    engines[c].label(),
                    reply.text
                );
                self.finish(EndKind::Fault, Some(color), Some(detail));
                return;
            };
            let geometry = self.game.geometry().clone();
            let mv = match parse_genmove(&geometry, &text) {
                Some(GenMove::Resign) => {
                    self.finish(EndKind::Resignation, Some(color), None);
                    return;
                }
                Some(GenMove::Move(mv)) => match self.game.legality(mv) {
                    Ok(()) => Ok(mv),
                    Err(reason) => Err(format!("{} ({reason})", format_move(&geometry, mv))),
                },
                None => Err(format!("'{text}' (not a move on this board)")),
            };
            let mv = match mv {
                Ok(mv) => mv,
                Err(what) => {
                    if !self.illegal_move(engines, color, &what).await {
                        return;
                    }
                    continue;
                }
            };
            let played = self.game.play(mv).expect("checked legal");
            self.comments.push(note);
            self.left.push(self.clocks[c].sgf_left());
            let vertex = format_move(&geometry, mv);
            let opponent = color.opponent();
            let cmd = format!("play {} {vertex}", color_arg(color));
            if played.ended == Some(End::TwoPasses) && s.end != Protocol::AllAlive {
                // The opponent hears the last pass too: it may be asked for its dead stones
                // or play on.
                if let Err(e) = engines[opponent.index()]
                    .command(&cmd, s.command_timeout)
                    .await
                {
                    log_line(&self.log, "[goref]", &format!("told '{cmd}': {e}"));
                }
            }
            if played.ended.is_none() {
                if let Err(e) = engines[opponent.index()]
                    .command(&cmd, s.command_timeout)
                    .await
                {
                    self.engine_fault(opponent, &e, &format!("told '{cmd}'"));
                    return;
                }
            }
            match played.ended {
                Some(End::TwoPasses) => self.end = Some((EndKind::TwoPasses, None)),
                Some(End::LongCycle {
                    first_after_turns, ..
                }) => {
                    let detail = format!(
                        "move {number} ({color} {vertex}) repeats the position after move {first_after_turns}: long cycle (Olympiad 3.6)"
                    );
                    self.end = Some((EndKind::LongCycle, Some(detail)));
                }
                _ => {}
            }
        }
    }

    /// Olympiad 3.10.2: the first illegal move is replaced by a pass and the engines are told;
    /// a second one (or any, under the strict policy, or when the engine cannot be brought back
    /// in step) loses. Returns whether the game goes on.
    async fn illegal_move(&mut self, engines: &mut [Engine; 2], color: Color, what: &str) -> bool {
        let c = color.index();
        let number = self.game.moves().len() + 1;
        self.illegal[c] += 1;
        let label = engines[c].label().to_string();
        if self.settings.illegal == IllegalPolicy::Strict {
            let detail = format!("{color} ({label}) played an illegal move at move {number}: {what}; loses under the strict policy");
            self.finish(EndKind::Illegal, Some(color), Some(detail));
            self.illegal[c] -= 1;
            return false;
        }
        if self.illegal[c] >= 2 {
            let detail = format!("{color} ({label}) played a second illegal move at move {number}: {what}; loses (Olympiad 3.10.2)");
            self.finish(EndKind::Illegal, Some(color), Some(detail));
            self.illegal[c] -= 1;
            return false;
        }
        let note = format!("illegal move {what} by {color} replaced by a pass (Olympiad 3.10.2)");
        log_line(&self.log, "[goref]", &format!("move {number}: {note}"));
        let played = self.game.play(Move::Pass).expect("a pass is legal");
        self.comments.push(Some(note));
        self.left.push(self.clocks[c].sgf_left());
        // Bring the offender back in step: the board as goref has it, then the pass.
        let t = self.settings.command_timeout;
        let geometry = self.game.geometry().clone();
        let moves = self.game.moves().to_vec();
        let resync = async {
            engines[c].command("clear_board", t).await?;
            for (col, mv) in moves {
                let cmd = format!("play {} {}", color_arg(col), format_move(&geometry, mv));
                engines[c].command(&cmd, t).await?;
            }
            Ok::<(), GtpError>(())
        };
        if let Err(e) = resync.await {
            let detail = format!("{color} played an illegal move at move {number} ({what}) and could not be set back to the position with a pass: {e}; loses (Olympiad 3.10.2)");
            self.finish(EndKind::Illegal, Some(color), Some(detail));
            return false;
        }
        let opponent = color.opponent();
        if played.ended.is_none() {
            let cmd = format!("play {} pass", color_arg(color));
            if let Err(e) = engines[opponent.index()].command(&cmd, t).await {
                self.engine_fault(opponent, &e, &format!("told '{cmd}'"));
                return false;
            }
        } else {
            self.end = Some((EndKind::TwoPasses, None));
            if self.settings.end != Protocol::AllAlive {
                let cmd = format!("play {} pass", color_arg(color));
                if let Err(e) = engines[opponent.index()].command(&cmd, t).await {
                    log_line(&self.log, "[goref]", &format!("told '{cmd}': {e}"));
                }
            }
        }
        true
    }

    fn sgf(
        &self,
        number: usize,
        names: &[String; 2],
        outcome: &Outcome,
        end: EndKind,
        detail: Option<&str>,
    ) -> String {
        let s = self.settings;
        let mut record = GameRecord::new(s.width, s.height);
        record.komi = Some(s.rules.komi);
        record.rules = Some(s.rules.to_string());
        record.black_player = Some(names[0].clone());
        record.white_player = Some(names[1].clone());
        record.result = Some(outcome.to_sgf());
        let last = self.game.moves().len().checked_sub(1);
        let settlement = self.settlement_text();
        record.moves = self
            .game
            .moves()
            .iter()
            .enumerate()
            .map(|(i, &(color, mv))| {
                let mut comment = self.comments.get(i).cloned().flatten();
                if Some(i) == last && !settlement.is_empty() {
                    // The final node: each side's dead list, what was removed, the ending.
                    comment = Some(match comment {
                        Some(c) => format!("{c}; {settlement}"),
                        None => settlement.clone(),
                    });
                }
                RecordedMove {
                    color,
                    mv,
                    line: 0,
                    comment: comment.map(|c| one_line(&c)),
                }
            })
            .collect();
        let text = goref_sgf::write(&record);
        let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        let mut root = format!("GN[game {number}]AP[goref:{}]", env!("CARGO_PKG_VERSION"));
        if let Some((tm, ot)) = s.time.sgf_properties() {
            root.push_str(&format!("TM[{tm}]"));
            if let Some(ot) = ot {
                root.push_str(&format!("OT[{}]", escape(&ot)));
            }
        }
        let mut comment = match self.ending {
            Some(ending) => format!(
                "{} ({}, {} by {})",
                outcome.to_sgf(),
                end.name(),
                s.end,
                ending.name()
            ),
            None => format!("{} ({})", outcome.to_sgf(), end.name()),
        };
        if let Some(d) = detail {
            comment.push_str(": ");
            comment.push_str(d);
        }
        root.push_str(&format!("C[{}]", escape(&one_line(&comment))));
        lines[0].push_str(&root);
        for (i, left) in self.left.iter().enumerate() {
            let (Some(line), Some((secs, count))) = (lines.get_mut(i + 1), left) else {
                continue;
            };
            let color = self.game.moves()[i].0.letter();
            line.push_str(&format!("{color}L[{secs:.3}]"));
            if let Some(n) = count {
                line.push_str(&format!("O{color}[{n}]"));
            }
        }
        lines.join("\n")
    }
}

/// The vertices in a GTP reply (`final_status_list`: stones separated by spaces and lines);
/// anything that is not a point on the board is ignored.
#[must_use]
pub fn parse_vertices(geometry: &goref_rules::Geometry, text: &str) -> Vec<Point> {
    text.split_whitespace()
        .filter_map(|w| match parse_move(geometry, w) {
            Some(Move::Play(p)) => Some(p),
            _ => None,
        })
        .collect()
}

/// Reference 003 between two engines: each side's choices made from its dead list
/// ([`Agreement::choice_for`]) until two dones or a dispute. Marks only grow, so this takes at
/// most two turns per string plus two; the cap is a safeguard that counts as a dispute.
fn run_marking(
    board: goref_rules::Board,
    first: Color,
    lists: &[Dead; 2],
) -> (Step, Vec<(Color, Choice)>) {
    let cap = 2 * board.geometry().len() + 4;
    let mut agreement = Agreement::new(board, first);
    for _ in 0..cap {
        let by = agreement.to_act();
        let choice = agreement.choice_for(&lists[by.index()]);
        match agreement.choose(by, choice) {
            Ok(Step::Continue) => {}
            Ok(step) => return (step, agreement.choices().to_vec()),
            Err(_) => break,
        }
    }
    (Step::Disputed, agreement.choices().to_vec())
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

/// The path of a game's record in `out`.
#[must_use]
pub fn sgf_path(out: &Path, report: &GameReport) -> PathBuf {
    out.join(&report.sgf)
}
