//! One game between two engines: the loop that turns what the referee (crate goref-referee)
//! needs into GTP commands, and the engines' answers into the referee's inputs.

use std::fs::File;
use std::io::LineWriter;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use goref_gtp::controller::log_line;
use goref_gtp::{
    color_arg, format_move, parse_genmove, parse_move, Engine, EngineInfo, EngineSpec, GenMove,
    GtpError, Log,
};
use goref_referee::handicap::{fixed_handicap, HandicapStyle};
use goref_referee::marking::{normalize, Dead};
use goref_referee::{
    Applied, Fault, Input, LongCyclePolicy, Need, PlayerInfo, Protocol, RecordInfo, Referee,
};
use goref_rules::{ByColor, Color, Game, Geometry, Move, Point, Ruleset};
use goref_tournament::pairing::Pairing;
use goref_tournament::GameLine;

use crate::clock::{Announce, TimeControl};

pub use goref_referee::{Ending, IllegalPolicy};

/// Who settles dead stones the players dispute (Olympiad 3.7.5, reference 000 "third-party
/// mediation").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefereeSpec {
    /// goref's own judgement: the Olympiad's default removal of 3.9 (crate goref-judge).
    Builtin,
    /// A third GTP engine, fed the game and asked `final_status_list dead`.
    Engine(EngineSpec),
    /// Perfect play from the position (001 §3.9, crate goref-solve), when proved within
    /// `budget` nodes; else the default removal, as `Builtin`.
    Perfect {
        /// Nodes the search may take.
        budget: u64,
    },
}

impl RefereeSpec {
    /// The node budget of `perfect` without one.
    pub const PERFECT_BUDGET: u64 = 1_000_000;
}

impl std::fmt::Display for RefereeSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RefereeSpec::Builtin => f.write_str("builtin"),
            RefereeSpec::Engine(spec) => write!(f, "{spec}"),
            RefereeSpec::Perfect { budget } => write!(f, "perfect:{budget}"),
        }
    }
}

/// The settings of every game of a match or a tournament: the referee's own [`Settings`]
/// (rules, end protocol, clocks, limits, opening: one shape from the command line and the TOML
/// file down to the referee), the board, and what only a game between engine processes needs
/// (command timeouts, the third party, how handicap stones are placed).
///
/// [`Settings`]: goref_referee::Settings
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// Board columns.
    pub width: usize,
    /// Board rows.
    pub height: usize,
    /// How the referee runs each game: rules and komi, the end protocol (`--end`, `end` in the
    /// TOML file and the server's API), illegal moves, clocks (each player's own for time
    /// odds), lag allowance, move limit, 001 §1's minimum moves, the long-cycle policy and the
    /// opening. Its handicap stones are placed per game ([`GameSettings::referee_settings`]).
    pub game: goref_referee::Settings,
    /// Limit for every command but `genmove`.
    pub command_timeout: Duration,
    /// Limit for a `genmove` reply regardless of the clock: past it the engine hangs.
    pub hang_timeout: Option<Duration>,
    /// Time an engine has to exit after `quit` before it is killed.
    pub grace: Duration,
    /// Bytes of an engine's output logged per game, at most.
    pub log_cap: u64,
    /// Who settles disputed stones under the `olympiad` and `referee` protocols, and decides
    /// games sent to the tournament director by `min_moves`.
    pub referee: RefereeSpec,
    /// Handicap stones for Black (0: none).
    pub handicap: usize,
    /// How the handicap stones are placed.
    pub handicap_style: HandicapStyle,
}

impl GameSettings {
    /// Defaults for a board: Olympiad rules and clock, 7.5 komi, the Olympiad's end protocol
    /// and illegal-move policy, a move limit of three times the board plus 100.
    #[must_use]
    pub fn new(width: usize, height: usize) -> GameSettings {
        let mut game = goref_referee::Settings::new(Ruleset::OLYMPIAD);
        game.time = TimeControl::olympiad(width, height);
        game.lag = Duration::from_millis(500);
        game.move_limit = Some(3 * width * height + 100);
        game.illegal = IllegalPolicy::Olympiad;
        game.end = Protocol::Olympiad;
        game.long_cycle = LongCyclePolicy::End;
        GameSettings {
            width,
            height,
            game,
            command_timeout: Duration::from_secs(10),
            hang_timeout: None,
            grace: Duration::from_secs(1),
            log_cap: 16 << 20,
            referee: RefereeSpec::Builtin,
            handicap: 0,
            handicap_style: HandicapStyle::Fixed,
        }
    }

    /// The referee's settings for one game with these handicap stones.
    #[must_use]
    pub fn referee_settings(&self, handicap: Vec<Point>) -> goref_referee::Settings {
        goref_referee::Settings {
            handicap,
            ..self.game.clone()
        }
    }
}

/// One of the two engines of a match.
#[derive(Clone, Debug)]
pub struct Contestant {
    /// 0 for the first engine (`--black` in game 1), 1 for the second.
    pub id: usize,
    /// A short name for tables and errors.
    pub name: String,
    /// How to run its engine.
    pub spec: EngineSpec,
}

/// An engine that could not start, or could not be set up for a game: the game is not played.
#[derive(Debug)]
pub struct StartError {
    /// The engine at fault, by the colour it was to play; `None` when no one engine is (the
    /// board cannot be made).
    pub culprit: Option<Color>,
    /// What went wrong, naming the engine and the command.
    pub message: String,
}

impl StartError {
    /// An error of the engine playing `color`.
    #[must_use]
    pub fn of(color: Color, message: impl Into<String>) -> StartError {
        StartError {
            culprit: Some(color),
            message: message.into(),
        }
    }

    /// An error that is no engine's fault.
    #[must_use]
    pub fn general(message: impl Into<String>) -> StartError {
        StartError {
            culprit: None,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StartError {}

/// Where an engine's log lines go: each game's log in turn, for an engine kept running between
/// games, and at most `cap` bytes a game (a chatty engine cannot fill the disk).
pub struct LogSwitch {
    target: Option<Log>,
    written: u64,
    cap: u64,
    cut: bool,
}

impl LogSwitch {
    /// A switch writing nowhere yet, `cap` bytes a game at most.
    #[must_use]
    pub fn new(cap: u64) -> LogSwitch {
        LogSwitch {
            target: None,
            written: 0,
            cap,
            cut: false,
        }
    }

    /// From now on, lines go to `target` (a game's log), counted afresh.
    pub fn point_to(&mut self, target: Option<Log>) {
        self.target = target;
        self.written = 0;
        self.cut = false;
    }
}

impl std::io::Write for LogSwitch {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Some(target) = &self.target else {
            return Ok(buf.len());
        };
        if self.written + buf.len() as u64 > self.cap {
            if !self.cut {
                self.cut = true;
                if let Ok(mut t) = target.lock() {
                    let _ = writeln!(
                        t,
                        "[goref] engine output past {} bytes not logged",
                        self.cap
                    );
                }
            }
            return Ok(buf.len());
        }
        self.written += buf.len() as u64;
        match target.lock() {
            Ok(mut t) => t.write(buf),
            Err(_) => Ok(buf.len()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &self.target {
            Some(t) => t.lock().map_or(Ok(()), |mut t| t.flush()),
            None => Ok(()),
        }
    }
}

/// An engine started for one player, which may be kept running between games.
pub struct Seat {
    /// The engine.
    pub engine: Engine,
    /// Where its output is logged.
    pub log: Arc<Mutex<LogSwitch>>,
    /// The command it runs, as the record names it.
    pub command: String,
}

/// Starts `player`'s engine for game `number` as `color` (`{game}` and `{color}` in its command
/// are substituted) and checks that it speaks GTP.
///
/// # Errors
///
/// When it cannot start or fails the start-up check.
pub async fn start_seat(
    player: &Contestant,
    number: usize,
    color: Color,
    settings: &GameSettings,
) -> Result<Seat, StartError> {
    let label = format!("{color} engine '{}'", player.name);
    let spec = player
        .spec
        .substitute("game", &number.to_string())
        .substitute("color", color_arg(color));
    let log = Arc::new(Mutex::new(LogSwitch::new(settings.log_cap)));
    let mut engine = Engine::start(&spec, &label, Some(log.clone() as Log))
        .await
        .map_err(|e| StartError::of(color, format!("game {number}: {e}")))?;
    engine
        .check(settings.command_timeout.max(Duration::from_secs(5)))
        .await
        .map_err(|e| {
            StartError::of(
                color,
                format!("game {number}: {label} ({spec}) failed the start-up check: {e}"),
            )
        })?;
    Ok(Seat {
        engine,
        log,
        command: spec.to_string(),
    })
}

/// Plays game `number` (from 1) of `pairing` between `black` and `white` (the players the
/// pairing names), each engine started for this game and stopped after it; writes its SGF and
/// log into `out`, and gives its record. Only an engine that cannot start (or refuses the
/// board) is an error.
///
/// # Errors
///
/// When an engine cannot start or refuses the board.
pub async fn play_game(
    number: usize,
    pairing: &Pairing,
    black: &Contestant,
    white: &Contestant,
    settings: &GameSettings,
    out: &Path,
) -> Result<GameLine, StartError> {
    let b = start_seat(black, number, Color::Black, settings).await?;
    let w = match start_seat(white, number, Color::White, settings).await {
        Ok(w) => w,
        Err(e) => {
            b.engine.shutdown(settings.grace).await;
            return Err(e);
        }
    };
    let mut seats = ByColor::new(b, w);
    let report = play_game_on(&mut seats, number, pairing, black, white, settings, out).await;
    let ByColor { black: b, white: w } = seats;
    let grace = settings.grace;
    tokio::join!(b.engine.shutdown(grace), w.engine.shutdown(grace));
    report
}

/// Plays game `number` (from 1) of `pairing` on engines already running (kept between games,
/// or just started): sets the board up (`boardsize`, `clear_board`, `komi`, rules and time),
/// plays, writes the SGF and the log into `out`, and gives its record (its `sgf` relative to
/// `out`; the players' names, the versions their engines gave). The engines keep running.
///
/// # Errors
///
/// When an engine refuses the board.
pub async fn play_game_on(
    seats: &mut ByColor<Seat>,
    number: usize,
    pairing: &Pairing,
    black: &Contestant,
    white: &Contestant,
    settings: &GameSettings,
    out: &Path,
) -> Result<GameLine, StartError> {
    let log_path = out.join(format!("game-{number:04}.log"));
    let log: Option<Log> = File::create(&log_path)
        .ok()
        .map(|f| Arc::new(Mutex::new(LineWriter::new(f))) as Log);
    let players = ByColor::new(black, white);
    for color in Color::ALL {
        let seat = &mut seats[color];
        if let Ok(mut switch) = seat.log.lock() {
            switch.point_to(log.clone());
        }
        seat.engine
            .set_label(format!("{color} engine '{}'", players[color].name));
        setup(&mut seat.engine, settings, Some(color))
            .await
            .map_err(|e| StartError::of(color, format!("game {number}: {e}")))?;
    }
    let commands = seats.as_ref().map(|s| s.command.clone());
    let game = Fixture {
        number,
        pairing,
        players,
    };
    let report = play_set_up(seats, &game, settings, out, log, commands).await;
    for color in Color::ALL {
        if let Ok(mut switch) = seats[color].log.lock() {
            switch.point_to(None);
        }
    }
    report
}

/// Which game is played, between whom.
struct Fixture<'a> {
    number: usize,
    pairing: &'a Pairing,
    players: ByColor<&'a Contestant>,
}

async fn play_set_up(
    seats: &mut ByColor<Seat>,
    game: &Fixture<'_>,
    settings: &GameSettings,
    out: &Path,
    log: Option<Log>,
    commands: ByColor<String>,
) -> Result<GameLine, StartError> {
    let number = game.number;
    let mut engines = ByColor::new(&mut seats.black.engine, &mut seats.white.engine);
    let geometry = Arc::new(
        Geometry::rect(settings.width, settings.height)
            .map_err(|e| StartError::general(e.to_string()))?,
    );
    let handicap = place_handicap(&mut engines, settings, &geometry)
        .await
        .map_err(|(culprit, e)| StartError {
            culprit,
            message: format!("game {number}: {e}"),
        })?;
    let info = ByColor::from_fn(|c| {
        let i = engines[c].info();
        PlayerInfo {
            name: first_line(&i.name),
            version: Some(first_line(&i.version)).filter(|v| !v.is_empty()),
            command: Some(commands[c].clone()),
        }
    });
    let epoch = Instant::now();
    let referee = Referee::new(
        geometry,
        settings.referee_settings(handicap),
        Duration::ZERO,
    )
    .map_err(|e| StartError::general(format!("game {number}: {e}")))?;
    if !referee.game().moves().is_empty() {
        // The opening: each engine's board set to the position as the referee has it.
        for color in Color::ALL {
            replay_into(engines[color], &referee, settings.command_timeout)
                .await
                .map_err(|e| {
                    StartError::of(color, format!("game {number}: telling the opening: {e}"))
                })?;
        }
    }
    let mut driver = Driver {
        settings,
        log: log.clone(),
        referee,
        epoch,
        genmoves: ByColor::default(),
        seconds: ByColor::default(),
        logged: 0,
        marking_lists: None,
    };
    driver.run(&mut engines).await;

    let result = driver.referee.result().cloned().expect("the game is over");
    log_line(
        &log,
        "[goref]",
        &format!("result {} ({})", result.outcome, result.ending.name()),
    );

    let sgf_name = format!("game-{number:04}.sgf");
    let sgf = driver.referee.sgf(&RecordInfo {
        black: info.black.clone(),
        white: info.white.clone(),
        game_name: Some(format!("game {number}")),
        date: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| goref_referee::sgf_date(d.as_secs())),
    });
    let tmp = out.join(format!("{sgf_name}.tmp"));
    let written =
        std::fs::write(&tmp, sgf).and_then(|()| std::fs::rename(&tmp, out.join(&sgf_name)));
    if let Err(e) = written {
        log_line(&log, "[goref]", &format!("cannot write {sgf_name}: {e}"));
    }
    let referee = &driver.referee;
    let g = referee.game().geometry().clone();
    let names = |d: &Dead| d.iter().map(|&p| g.name(p)).collect::<Vec<_>>();
    let names_of = game.players.map(|p| p.name.clone()).into_array();
    let line = GameLine::of(
        number,
        game.pairing,
        names_of,
        result.outcome,
        result.ending,
    );
    Ok(GameLine {
        black_version: info.black.version.clone(),
        white_version: info.white.version.clone(),
        detail: result.detail.clone(),
        moves: referee.game().moves().len(),
        genmoves: driver.genmoves.into_array(),
        seconds: driver.seconds.into_array(),
        illegal_passes: referee.illegal_passes().into_array(),
        sgf: Some(sgf_name),
        ending: result.settled.map(|e| e.name().to_string()),
        resumptions: referee.resumptions(),
        dead_lists: referee
            .dead_lists()
            .clone()
            .map(|l| l.map(|l| names(&l)))
            .into_array(),
        removed: names(&result.removed),
        ..line
    })
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").trim().to_string()
}

/// `boardsize`, `clear_board`, `komi` (all required), then rules and time hints where the
/// engine lists them.
async fn setup(
    engine: &mut Engine,
    s: &GameSettings,
    color: Option<Color>,
) -> Result<(), GtpError> {
    // The engine's own clock (time odds), or the game's.
    let time = match (s.game.own_time, color) {
        (Some(own), Some(color)) => own[color],
        _ => s.game.time,
    };
    setup_engine(
        engine,
        (s.width, s.height),
        &s.game.rules,
        time,
        s.command_timeout,
    )
    .await
}

/// Sets an engine up for a new game on a `width`×`height` board: `boardsize` (or
/// `rectangular_boardsize`), `clear_board`, `komi` (all required: an error is returned), then
/// the rules (`goref-rules`, else `kgs-rules`) and the clock (`kgs-time_settings`, else
/// `time_settings`) where the engine lists them (their failures are ignored). Each command
/// waits at most `limit`.
///
/// # Errors
///
/// The first required command's error, or a fatal one (the engine is gone).
pub async fn setup_engine(
    engine: &mut Engine,
    (width, height): (usize, usize),
    rules: &goref_rules::Ruleset,
    time: TimeControl,
    limit: Duration,
) -> Result<(), GtpError> {
    let t = limit;
    let size = if width == height {
        format!("boardsize {width}")
    } else {
        format!("rectangular_boardsize {width} {height}")
    };
    engine.command(&size, t).await?;
    engine.command("clear_board", t).await?;
    engine.command(&format!("komi {}", rules.komi), t).await?;
    let info = engine.info().clone();
    let hint = |r: Result<String, GtpError>| match r {
        Err(e) if e.is_fatal() => Err(e),
        _ => Ok(()),
    };
    if let Some(preset) = rules.preset_name() {
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
    if time != TimeControl::None {
        if info.supports("kgs-time_settings") {
            hint(engine.command(&time.kgs_time_settings(), t).await)?;
        } else if let Some(cmd) = time.time_settings() {
            if info.supports("time_settings") {
                hint(engine.command(&cmd, t).await)?;
            }
        }
    }
    Ok(())
}

/// The handicap stones, told to both engines: GTP's fixed points (`fixed_handicap`, or
/// `set_free_handicap` with the same points for an engine without it), or Black's
/// `place_free_handicap` told to White with `set_free_handicap`.
async fn place_handicap(
    engines: &mut ByColor<&mut Engine>,
    s: &GameSettings,
    geometry: &Geometry,
) -> Result<Vec<Point>, (Option<Color>, String)> {
    if s.handicap == 0 {
        return Ok(Vec::new());
    }
    let t = s.command_timeout;
    let stones = match s.handicap_style {
        HandicapStyle::Fixed => {
            fixed_handicap(geometry, s.handicap).map_err(|e| (None, e.to_string()))?
        }
        HandicapStyle::Free => {
            let reply = engines
                .black
                .command(&format!("place_free_handicap {}", s.handicap), t)
                .await
                .map_err(|e| {
                    (
                        Some(Color::Black),
                        format!("Black's place_free_handicap: {e}"),
                    )
                })?;
            let stones = parse_vertices(geometry, &reply);
            let mut seen = stones.clone();
            seen.sort();
            seen.dedup();
            if stones.is_empty() || seen.len() != stones.len() || stones.len() > s.handicap {
                return Err((
                    Some(Color::Black),
                    format!(
                        "Black's place_free_handicap {} answered '{reply}': not {} distinct points",
                        s.handicap, s.handicap
                    ),
                ));
            }
            stones
        }
    };
    let vertices: Vec<String> = stones.iter().map(|&p| geometry.name(p)).collect();
    let free = format!("set_free_handicap {}", vertices.join(" "));
    for color in Color::ALL {
        if color == Color::Black && s.handicap_style == HandicapStyle::Free {
            continue;
        }
        let engine = &mut engines[color];
        let fixed =
            s.handicap_style == HandicapStyle::Fixed && engine.info().supports("fixed_handicap");
        let command = if fixed {
            format!("fixed_handicap {}", s.handicap)
        } else {
            free.clone()
        };
        let reply = engine
            .command(&command, t)
            .await
            .map_err(|e| (Some(color), format!("{color} engine: '{command}': {e}")))?;
        if fixed {
            let mut placed = parse_vertices(geometry, &reply);
            let mut expected = stones.clone();
            placed.sort();
            expected.sort();
            if placed != expected {
                return Err((
                    Some(color),
                    format!(
                        "{color} engine placed '{reply}' for fixed_handicap {}, not {} (GTP 2 §4.1.1)",
                        s.handicap,
                        vertices.join(" ")
                    ),
                ));
            }
        }
    }
    Ok(stones)
}

/// Sets an engine's board to the game as the referee has it: `clear_board`, the handicap,
/// then every move.
async fn replay_into(engine: &mut Engine, referee: &Referee, t: Duration) -> Result<(), GtpError> {
    let game = referee.game();
    let g = game.geometry().clone();
    engine.command("clear_board", t).await?;
    let handicap: Vec<String> = g
        .points()
        .filter(|&p| game.start().get(p).is_some())
        .map(|p| g.name(p))
        .collect();
    if !handicap.is_empty() {
        engine
            .command(&format!("set_free_handicap {}", handicap.join(" ")), t)
            .await?;
    }
    for &(c, mv) in game.moves() {
        let cmd = format!("play {} {}", color_arg(c), format_move(&g, mv));
        engine.command(&cmd, t).await?;
    }
    Ok(())
}

/// Why an engine may have refused `color`'s move `mv`, which the rules of `game` accepted
/// (`game` is the position after it): a legal suicide under rules that allow it, which many
/// engines refuse (GNU Go among them), or a move its own ko or superko rule forbids.
#[must_use]
pub fn refused_legal_move(game: &Game, engine: &EngineInfo, color: Color, mv: Move) -> String {
    let name = Some(first_line(&engine.name))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "the engine".to_string());
    let rules = game.rules();
    let rules_name = rules
        .preset_name()
        .map_or_else(|| rules.to_string(), |p| p.to_string());
    let Move::Play(p) = mv else {
        return format!("{name} refused {color}'s pass");
    };
    let at = game.geometry().name(p);
    // A suicide leaves the point empty: the mover's own stones were taken off.
    if rules.suicide_allowed && game.board().get(p).is_none() {
        format!(
            "{name} refused {color}'s legal suicide at {at}; {rules_name} allows suicide, this \
             engine does not: nstt forbids it"
        )
    } else {
        format!(
            "{name} refused {color}'s move at {at}, legal under {rules_name} (its own ko or \
             superko rule may differ)"
        )
    }
}

/// Whether goref can tell an engine the rules (`goref-rules`, or `kgs-rules` whose
/// `new_zealand` allows suicide): an engine that cannot be told may refuse a legal suicide.
#[must_use]
pub fn can_be_told_rules(engine: &EngineInfo) -> bool {
    engine.supports("goref-rules") || engine.supports("kgs-rules")
}

/// Starts `player`'s engine once, asks `protocol_version`, `name`, `version` and
/// `list_commands`, and stops it: the check before a match's or tournament's first game (as
/// gomill's ringmaster does). The error says why in a few words ("command not found", "exited
/// with exit status: 1", "no answer to 'name' in 5.000s"), with the last lines of the engine's
/// standard error when it closed.
///
/// # Errors
///
/// The engine cannot start, or does not answer each command.
pub async fn check_player(
    player: &Contestant,
    settings: &GameSettings,
) -> Result<EngineInfo, StartError> {
    let spec = player
        .spec
        .substitute("game", "1")
        .substitute("color", color_arg(Color::Black));
    let label = format!("engine '{}'", player.name);
    let why = |e: &GtpError| match e {
        GtpError::Spawn { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            "command not found".to_string()
        }
        GtpError::Spawn { source, .. } => format!("cannot start: {source}"),
        GtpError::Connect {
            address, message, ..
        } => format!("cannot connect to {address}: {message}"),
        GtpError::Timeout { command, after, .. } => {
            format!("no answer to '{command}' in {:.1}s", after.as_secs_f64())
        }
        GtpError::Closed {
            command, status, ..
        } => match status {
            Some(status) => format!("exited with {status} (at '{command}'){}", e.stderr_note()),
            None => format!("closed its output at '{command}'{}", e.stderr_note()),
        },
        GtpError::Failure {
            command, message, ..
        } => format!("'{command}' failed: {message}"),
        GtpError::BadCommand { command, .. } => format!("cannot send {command:?}"),
    };
    let mut engine = Engine::start(&spec, &label, None)
        .await
        .map_err(|e| StartError::general(why(&e)))?;
    let checked = engine
        .check(settings.command_timeout.max(Duration::from_secs(5)))
        .await
        .cloned()
        .map_err(|e| StartError::general(why(&e)));
    engine.shutdown(settings.grace).await;
    checked
}

/// Drives one game: asks the engines what the referee needs.
struct Driver<'a> {
    settings: &'a GameSettings,
    log: Option<Log>,
    referee: Referee,
    /// The referee's time is measured from here.
    epoch: Instant,
    genmoves: ByColor<u32>,
    seconds: ByColor<f64>,
    /// Notes already written to the log.
    logged: usize,
    /// Each side's dead list while the marking phase runs (reference 003 between engines).
    marking_lists: Option<ByColor<Dead>>,
}

impl Driver<'_> {
    fn now(&self) -> Duration {
        self.epoch.elapsed()
    }

    /// Applies an input and logs the notes it added. A refusal (never expected from this
    /// driver) is logged and turned into a forfeit so that the game ends.
    fn apply(&mut self, input: Input) -> Option<Applied> {
        let now = self.now();
        let applied = match self.referee.apply(input.clone(), now) {
            Ok(a) => Some(a),
            Err(refusal) => {
                log_line(
                    &self.log,
                    "[goref]",
                    &format!("referee refused {input:?}: {refusal}"),
                );
                None
            }
        };
        self.flush_notes();
        applied
    }

    fn note(&mut self, text: String) {
        self.referee.note(text);
        self.flush_notes();
    }

    fn flush_notes(&mut self) {
        for n in &self.referee.notes()[self.logged..] {
            log_line(&self.log, "[goref]", &n.text);
        }
        self.logged = self.referee.notes().len();
    }

    /// Until the game is over: a move, dead lists, marking choices or an adjudication, as the
    /// referee needs them.
    async fn run(&mut self, engines: &mut ByColor<&mut Engine>) {
        loop {
            let need = self.referee.need();
            if !matches!(need, Need::Marking { .. }) {
                self.marking_lists = None;
            }
            match need {
                Need::Over => return,
                Need::Move {
                    color,
                    resumed,
                    cleanup,
                } => self.turn(engines, color, resumed, cleanup).await,
                Need::PlayOutOnCopy { color } => self.turn(engines, color, true, false).await,
                Need::DeadLists { missing } => {
                    for color in Color::ALL {
                        if missing[color] {
                            let stones = self.ask_dead_list(engines[color], color).await;
                            self.apply(Input::DeadList { by: color, stones });
                        }
                    }
                }
                Need::Marking { to_act } => {
                    if self.marking_lists.is_none() {
                        let mut lists = ByColor::<Dead>::default();
                        for color in Color::ALL {
                            let list = self.ask_dead_list(engines[color], color).await;
                            lists[color] =
                                normalize(self.referee.game().board(), list.unwrap_or_default());
                        }
                        self.marking_lists = Some(lists);
                    }
                    let lists = self.marking_lists.as_ref().expect("asked");
                    let agreement = self.referee.agreement().expect("marking");
                    let input = match agreement.choice_for(&lists[to_act]) {
                        goref_referee::tromp::Choice::Mark(at) => Input::Mark { by: to_act, at },
                        goref_referee::tromp::Choice::Dispute(at) => {
                            Input::Dispute { by: to_act, at }
                        }
                        goref_referee::tromp::Choice::Done => Input::Done { by: to_act },
                    };
                    if self.apply(input).is_none() {
                        return;
                    }
                }
                Need::Adjudication { disputed, .. } => {
                    let input = match self.settings.referee.clone() {
                        RefereeSpec::Builtin => {
                            goref_referee::adjudicate::by_default_removal(&self.referee)
                                .expect("an adjudication is needed")
                        }
                        RefereeSpec::Engine(spec) => {
                            self.ask_referee_engine(&spec, &disputed).await
                        }
                        RefereeSpec::Perfect { budget } => {
                            // The search takes seconds: off the runtime's threads.
                            let referee = self.referee.clone();
                            tokio::task::spawn_blocking(move || {
                                goref_referee::adjudicate::by_perfect_play(&referee, budget)
                            })
                            .await
                            .ok()
                            .flatten()
                            .unwrap_or_else(|| Input::Adjudicate {
                                dead: None,
                                note: "perfect play failed: no disputed stone removed".into(),
                            })
                        }
                    };
                    if self.apply(input).is_none() {
                        return;
                    }
                }
            }
        }
    }

    /// Forfeit of `color` after an engine error.
    fn engine_fault(&mut self, color: Color, err: &GtpError, what: &str) {
        let fault = match err {
            GtpError::Closed { .. } => Fault::Crash,
            GtpError::Timeout { .. } => Fault::Hang,
            _ => Fault::Other,
        };
        let number = self.referee.board_in_play().moves().len() + 1;
        let detail = format!("{color} forfeits at move {number} ({what}): {err}");
        self.apply(Input::Forfeit {
            by: color,
            fault,
            detail,
        });
    }

    /// One move of `color`: `time_left`, `genmove` under the clock, the reply to the referee,
    /// and the move told to the opponent.
    async fn turn(
        &mut self,
        engines: &mut ByColor<&mut Engine>,
        color: Color,
        resumed: bool,
        cleanup: bool,
    ) {
        let s = self.settings;
        if let Some((secs, stones)) = self.referee.clock().gtp_time_left(color) {
            if engines[color].info().supports("time_left") {
                let cmd = format!("time_left {} {secs} {stones}", color_arg(color));
                if let Err(e) = engines[color].command(&cmd, s.command_timeout).await {
                    if e.is_fatal() {
                        self.engine_fault(color, &e, "time_left");
                        return;
                    }
                }
            }
        }
        let by_clock = self
            .referee
            .clock()
            .available(color)
            .map(|a| a.saturating_add(s.game.lag));
        let (limit, clock_binds) = match (by_clock, s.hang_timeout) {
            (Some(c), Some(h)) if h < c => (h, false),
            (Some(c), _) => (c, true),
            (None, Some(h)) => (h, false),
            (None, None) => (Duration::from_secs(3600), false),
        };
        let verb = if cleanup && engines[color].info().supports("kgs-genmove_cleanup") {
            "kgs-genmove_cleanup"
        } else {
            "genmove"
        };
        let command = format!("{verb} {}", color_arg(color));
        self.referee.restart_clock(self.now());
        let started = Instant::now();
        let reply = engines[color].send(&command, limit).await;
        self.genmoves[color] += 1;
        self.seconds[color] += started.elapsed().as_secs_f64();
        let number = self.referee.board_in_play().moves().len() + 1;
        let reply = match reply {
            Err(GtpError::Timeout { .. }) if clock_binds => {
                let at = self
                    .referee
                    .clock()
                    .deadline()
                    .unwrap_or_default()
                    .max(self.now());
                if let Err(r) = self.referee.apply(Input::Timeout, at) {
                    log_line(&self.log, "[goref]", &format!("timeout refused: {r}"));
                }
                self.flush_notes();
                return;
            }
            Err(e) => {
                self.engine_fault(color, &e, "genmove");
                return;
            }
            Ok(r) => r,
        };
        let mut refused = None;
        let text = if reply.success {
            reply.text
        } else if resumed {
            // Olympiad 3.7.4: a program that will not resume is assumed to pass.
            refused = Some(format!(
                "{color} refused '{command}' in resumed play ({}): taken to pass (Olympiad 3.7.4)",
                reply.text
            ));
            "pass".to_string()
        } else {
            let detail = format!(
                "{color} forfeits at move {number}: {} refused '{command}': {}",
                engines[color].label(),
                reply.text
            );
            self.apply(Input::Forfeit {
                by: color,
                fault: Fault::Other,
                detail,
            });
            return;
        };
        let geometry = self.referee.game().geometry().clone();
        let input = match parse_genmove(&geometry, &text) {
            Some(GenMove::Resign) => Input::Resign { by: color },
            Some(GenMove::Move(mv)) => Input::Play { by: color, mv },
            None => Input::Unreadable {
                by: color,
                reply: text.clone(),
            },
        };
        let Some(applied) = self.apply(input) else {
            return;
        };
        if let Some(n) = refused {
            self.note(n);
        }
        let Applied::Moved {
            color,
            mv,
            replaced,
        } = applied
        else {
            return;
        };
        let t = s.command_timeout;
        if replaced {
            // Bring the mover back in step: the board as the referee has it.
            if let Err(e) = self.resync(engines[color]).await {
                let detail = format!(
                    "{color} could not be set back to the position after its move {number} was replaced by a pass: {e}"
                );
                self.apply(Input::Forfeit {
                    by: color,
                    fault: Fault::Other,
                    detail,
                });
                return;
            }
        }
        if self.referee.need() == Need::Over {
            return;
        }
        let opponent = color.opponent();
        let cmd = format!("play {} {}", color_arg(color), format_move(&geometry, mv));
        if let Err(e) = engines[opponent].command(&cmd, t).await {
            match (self.referee.need(), &e, mv) {
                (Need::Move { .. } | Need::PlayOutOnCopy { .. }, GtpError::Failure { .. }, _) => {
                    // The rules accepted the move: say why this engine may not have.
                    let why = refused_legal_move(
                        self.referee.board_in_play(),
                        engines[opponent].info(),
                        color,
                        mv,
                    );
                    let number = self.referee.board_in_play().moves().len() + 1;
                    self.apply(Input::Forfeit {
                        by: opponent,
                        fault: Fault::Other,
                        detail: format!("{opponent} forfeits at move {number}: {why} ({e})"),
                    });
                }
                (Need::Move { .. } | Need::PlayOutOnCopy { .. }, _, _) => {
                    self.engine_fault(opponent, &e, &format!("told '{cmd}'"));
                }
                _ => log_line(&self.log, "[goref]", &format!("told '{cmd}': {e}")),
            }
        }
    }

    /// Sets `engine` to the position in play (the copy's moves too, during a play-out).
    async fn resync(&self, engine: &mut Engine) -> Result<(), GtpError> {
        let t = self.settings.command_timeout;
        replay_into(engine, &self.referee, t).await?;
        if let Some(copy) = self.referee.copy() {
            let g = copy.geometry().clone();
            for &(c, mv) in &copy.moves()[self.referee.game().moves().len()..] {
                let cmd = format!("play {} {}", color_arg(c), format_move(&g, mv));
                engine.command(&cmd, t).await?;
            }
        }
        Ok(())
    }

    /// Asks `final_status_list dead` (Olympiad 3.7.2). An engine without the command, or one
    /// that fails or times out, is taken to remove nothing and is never penalised for it
    /// (3.7.2; reference 000, "Considerations").
    async fn ask_dead_list(&mut self, engine: &mut Engine, color: Color) -> Option<Vec<Point>> {
        if !engine.info().supports("final_status_list") {
            self.note(format!(
                "{color} has no final_status_list: taken to remove nothing"
            ));
            return None;
        }
        let t = self.settings.command_timeout;
        match engine.command("final_status_list dead", t).await {
            Ok(text) => {
                let list = parse_vertices(self.referee.game().geometry(), &text);
                if self.referee.phase() == goref_referee::Phase::Marking {
                    let g = self.referee.game().geometry().clone();
                    let dead = normalize(self.referee.game().board(), list.iter().copied());
                    let names: Vec<String> = dead.iter().map(|&p| g.name(p)).collect();
                    self.note(format!(
                        "{color} calls dead: {}",
                        if names.is_empty() {
                            "nothing".to_string()
                        } else {
                            names.join(" ")
                        }
                    ));
                }
                Some(list)
            }
            Err(e) => {
                self.note(format!(
                    "{color} gave no dead list ({e}): taken to remove nothing"
                ));
                None
            }
        }
    }

    /// A referee engine's dead stones among `disputed` (or of every block, for a game sent to
    /// the tournament director by the minimum-moves rule). No answer removes nothing.
    async fn ask_referee_engine(&mut self, spec: &EngineSpec, disputed: &Dead) -> Input {
        let g = self.referee.game().geometry().clone();
        let names: Vec<String> = disputed.iter().map(|&p| g.name(p)).collect();
        match self.referee_engine(spec).await {
            Ok(list) => {
                let named: Vec<String> = list.iter().map(|&p| g.name(p)).collect();
                Input::Adjudicate {
                    dead: Some(list),
                    note: format!(
                        "disputed {}: the referee engine calls dead {}",
                        names.join(" "),
                        if named.is_empty() {
                            "nothing".to_string()
                        } else {
                            named.join(" ")
                        }
                    ),
                }
            }
            Err(e) => Input::Adjudicate {
                dead: None,
                note: format!(
                    "disputed {}: the referee engine gave no answer ({e}): no disputed stone removed",
                    names.join(" ")
                ),
            },
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
            setup(&mut engine, s, None).await?;
            replay_into(&mut engine, &self.referee, t).await?;
            engine.command("final_status_list dead", t).await
        }
        .await;
        engine.shutdown(s.grace).await;
        asked
            .map(|text| parse_vertices(self.referee.game().geometry(), &text))
            .map_err(|e| e.to_string())
    }
}

/// The vertices in a GTP reply (`final_status_list`: stones separated by spaces and lines);
/// anything that is not a point on the board is ignored.
#[must_use]
pub fn parse_vertices(geometry: &Geometry, text: &str) -> Vec<Point> {
    text.split_whitespace()
        .filter_map(|w| match parse_move(geometry, w) {
            Some(Move::Play(p)) => Some(p),
            _ => None,
        })
        .collect()
}

/// The path of a game's record in `out`, if it has one.
#[must_use]
pub fn sgf_path(out: &Path, line: &GameLine) -> Option<PathBuf> {
    line.sgf.as_ref().map(|sgf| out.join(sgf))
}

#[cfg(test)]
mod tests {
    use super::*;
    use goref_rules::Preset;
    use goref_tournament::pairing::Round;
    use std::io::Write as _;

    use goref_gtp::testing::{gnugo_there as have_gnugo, GNUGO};

    fn contestant(id: usize, name: &str, command: &str) -> Contestant {
        Contestant {
            id,
            name: name.to_string(),
            spec: EngineSpec::parse(command).unwrap(),
        }
    }

    fn out_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("goref-match-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A game between two GNU Go gives its record: the pairing's numbers and names, the
    /// result the SGF file says, the moves and replies counted.
    #[tokio::test]
    async fn a_game_gives_its_record_and_writes_its_sgf() {
        if !have_gnugo() {
            return;
        }
        let command = format!("{GNUGO} --mode gtp --level 0 --capture-all-dead");
        let (a, b) = (contestant(0, "a", &command), contestant(1, "b", &command));
        let mut settings = GameSettings::new(7, 7);
        settings.game.rules = Ruleset::preset(Preset::TrompTaylor);
        settings.game.time = TimeControl::None;
        settings.game.end = Protocol::AllAlive;
        let out = out_dir("record");
        // Game 3, round 2, engine 1 has Black.
        let pairing = Pairing::new(Round::new(2).unwrap(), 1, 0);
        let line = play_game(3, &pairing, &b, &a, &settings, &out)
            .await
            .unwrap();
        assert_eq!(
            (line.game, line.round.number(), line.black, line.white),
            (3, 2, 1, 0)
        );
        assert_eq!(
            (line.black_name.as_str(), line.white_name.as_str()),
            ("b", "a")
        );
        assert!(line.black_version.is_some(), "GNU Go gives its version");
        assert!(line.moves > 0 && line.genmoves[0] > 0, "{line:?}");
        let sgf = std::fs::read_to_string(sgf_path(&out, &line).unwrap()).unwrap();
        assert!(
            sgf.contains(&format!("RE[{}]", line.result.to_sgf())),
            "{sgf}"
        );
        assert!(line.result.is_decided());
        assert_eq!(line.winner_id(), line.winner().map(|c| line.id_of(c)));
        assert!(out.join("game-0003.log").exists());
        let _ = std::fs::remove_dir_all(&out);
    }

    /// An engine that cannot start is charged with it, by colour; the game is not played.
    #[tokio::test]
    async fn an_engine_that_cannot_start_is_the_culprit() {
        let missing = contestant(0, "ghost", "/nonexistent/engine --gtp");
        let other = contestant(1, "other", "/nonexistent/other --gtp");
        let out = out_dir("culprit");
        let err = play_game(
            1,
            &Pairing::new(Round::FIRST, 0, 1),
            &missing,
            &other,
            &GameSettings::new(9, 9),
            &out,
        )
        .await
        .unwrap_err();
        assert_eq!(err.culprit, Some(Color::Black));
        assert!(err.message.contains("ghost"), "{err}");
        assert!(!out.join("game-0001.sgf").exists());
        let _ = std::fs::remove_dir_all(&out);
    }

    /// An engine's log holds at most `cap` bytes a game, then one line saying the rest was
    /// not logged; pointed at the next game's log, it counts afresh.
    #[test]
    fn a_log_switch_cuts_a_chatty_engine_at_its_cap() {
        let first: Arc<Mutex<Vec<u8>>> = Arc::new(Mutex::new(Vec::new()));
        let second: Arc<Mutex<Vec<u8>>> = Arc::new(Mutex::new(Vec::new()));
        let mut switch = LogSwitch::new(10);
        switch.write_all(b"nowhere yet\n").unwrap();
        switch.point_to(Some(first.clone() as Log));
        switch.write_all(b"12345").unwrap();
        switch.write_all(b"67890").unwrap();
        switch.write_all(b"x").unwrap();
        switch.write_all(b"y").unwrap();
        let text = String::from_utf8(first.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            "1234567890[goref] engine output past 10 bytes not logged\n"
        );
        switch.point_to(Some(second.clone() as Log));
        switch.write_all(b"again").unwrap();
        assert_eq!(&second.lock().unwrap()[..], b"again");
    }
}
