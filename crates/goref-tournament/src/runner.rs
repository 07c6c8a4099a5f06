//! Running a tournament: games over `jobs` workers, engines kept running between games (or
//! restarted, as each engine's policy says), one line a game in `results.jsonl`, resume from
//! the directory, and the standings.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use goref_match::game::{play_game_on, start_seat, Seat};
use goref_match::{Ending, GameReport, Player, Settings};
use goref_rules::{ByColor, Color};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

pub use crate::line::GameLine;
use crate::pairing::Pairing;
use crate::plan::{Format, Plan};

/// The results file in the output directory.
pub const RESULTS_FILE: &str = "results.jsonl";
/// The tournament's settings, kept to refuse a resume with other settings (a match keeps
/// `match.json`).
pub const SETTINGS_FILE: &str = "tournament.json";
/// The standings, rewritten as games land.
pub const STANDINGS_FILE: &str = "standings.json";

/// When an engine is started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Restart {
    /// Kept running between games (`clear_board`, `boardsize`, `komi` before each), started
    /// again after it crashed, hung or faulted.
    #[default]
    Auto,
    /// Started afresh for every game.
    Always,
}

impl std::str::FromStr for Restart {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Restart::Auto),
            "always" => Ok(Restart::Always),
            _ => Err(format!("restart policy '{s}': expected auto or always")),
        }
    }
}

/// One engine of the tournament.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Its name in the tournament, and how to run it (`id` is its index, in seeding order).
    pub player: Player,
    /// GTP commands sent once after it starts.
    pub init: Vec<String>,
    /// When it is started.
    pub restart: Restart,
    /// Its own time control instead of the game's (time odds).
    pub time: Option<goref_match::TimeControl>,
}

/// Everything a tournament needs.
#[derive(Clone, Debug)]
pub struct TournamentConfig {
    /// The engines, in seeding order.
    pub entrants: Vec<Entrant>,
    /// Who plays whom.
    pub format: Format,
    /// Each game's settings.
    pub settings: Settings,
    /// Games at once.
    pub jobs: usize,
    /// The output directory.
    pub out: PathBuf,
    /// Failures to start in a row after which an engine is withdrawn.
    pub max_failures: usize,
    /// Openings (name, moves): each pair's games go through them in turn, each opening twice
    /// with colours swapped.
    pub openings: Vec<(String, Vec<goref_rules::Move>)>,
    /// What this is, in messages and the settings file's name (`tournament`, `match`).
    pub kind: &'static str,
    /// The folder of the records and logs in `out` (empty: `out` itself).
    pub records: String,
    /// Stop at the first engine that cannot start (a match), instead of a forfeit.
    pub stop_on_start_failure: bool,
    /// With two engines: stop when the SPRT on game pairs (the same opening, colours swapped)
    /// decides; `(elo0, elo1, alpha, beta)` for the first engine.
    pub sprt: Option<(f64, f64, f64, f64)>,
}

/// The game as the match runner's table counts it.
pub(crate) fn report(line: &GameLine) -> GameReport {
    GameReport {
        game: line.game,
        black: line.black,
        white: line.white,
        black_name: line.black_name.clone(),
        white_name: line.white_name.clone(),
        result: line.result.clone(),
        winner: line.winner,
        end: line.end,
        detail: line.detail.clone(),
        moves: line.moves,
        genmoves: line.genmoves,
        seconds: line.seconds,
        illegal_passes: line.illegal_passes,
        sgf: line.sgf.clone().unwrap_or_default(),
        ending: line.ending.clone(),
        resumptions: line.resumptions,
        dead_lists: line.dead_lists.clone(),
        removed: line.removed.clone(),
    }
}

impl GameLine {
    /// The engine that won, if any.
    #[must_use]
    pub fn winner_id(&self) -> Option<usize> {
        match self.winner {
            Some('B') => Some(self.black),
            Some('W') => Some(self.white),
            _ => None,
        }
    }
}

/// A tournament that could not go on.
#[derive(Debug)]
pub enum TournamentError {
    /// The directory holds a tournament with other settings.
    Mismatch(String),
    /// Files.
    Io(String),
    /// An engine could not start, and the run stops at that (a match).
    Start(String),
    /// The games played elsewhere could not be handed out or collected.
    Remote(String),
}

impl std::fmt::Display for TournamentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TournamentError::Mismatch(m) | TournamentError::Io(m) => f.write_str(m),
            TournamentError::Start(m) => write!(f, "match stopped: {m}"),
            TournamentError::Remote(m) => write!(f, "the queue failed: {m}"),
        }
    }
}

impl std::error::Error for TournamentError {}

/// What a finished (or interrupted) run gives back.
#[derive(Clone, Debug)]
pub struct Finished {
    /// Every game, by number.
    pub games: Vec<GameLine>,
    /// Games that were already in the directory.
    pub resumed: usize,
    /// Whether Ctrl-C stopped it.
    pub interrupted: bool,
    /// Wall time of this run.
    pub wall: Duration,
    /// Swiss byes, one entry a bye.
    pub byes: Vec<usize>,
    /// Engines withdrawn after failing to start `max_failures` times in a row.
    pub withdrawn: Vec<usize>,
    /// A knockout's champion.
    pub champion: Option<usize>,
    /// The SPRT's decision and the pentanomial counts it saw, when one ran.
    pub sprt: Option<(crate::rating::SprtDecision, crate::rating::Pentanomial)>,
}

/// What a resumed directory must agree on: the engines, each game's settings and the format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Name and command of each engine, in seeding order.
    pub engines: Vec<(String, String)>,
    /// The board.
    pub size: String,
    /// The rules and komi.
    pub rules: String,
    /// The clock.
    pub time: String,
    /// The end protocol.
    pub end: String,
    /// The format and its numbers.
    pub format: String,
    /// The openings' names and lengths.
    #[serde(default)]
    pub openings: Vec<(String, usize)>,
}

impl Fingerprint {
    /// The fingerprint of a configuration.
    #[must_use]
    pub fn of(config: &TournamentConfig) -> Fingerprint {
        let s = &config.settings;
        Fingerprint {
            engines: config
                .entrants
                .iter()
                .map(|e| {
                    let command = match e.time {
                        Some(t) => format!("{} [time {t}]", e.player.spec),
                        None => e.player.spec.to_string(),
                    };
                    (e.player.name.clone(), command)
                })
                .collect(),
            size: format!("{}x{}", s.width, s.height),
            rules: s.rules.to_string(),
            time: s.time.to_string(),
            end: s.end.to_string(),
            // A match may be extended by more games; a tournament's schedule depends on them.
            format: if config.kind == "match" {
                config.format.name().to_string()
            } else {
                format!("{:?}", config.format)
            },
            openings: config
                .openings
                .iter()
                .map(|(n, m)| (n.clone(), m.len()))
                .collect(),
        }
    }

    /// What differs from `other`, in words, or `None`.
    #[must_use]
    pub fn difference(&self, other: &Fingerprint) -> Option<String> {
        let field = |name: &str, a: &str, b: &str| {
            (a != b).then(|| format!("{name}: '{b}' here, '{a}' in the directory"))
        };
        let engines = |f: &Fingerprint| {
            f.engines
                .iter()
                .map(|(n, c)| format!("{n}={c}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        field("engines", &engines(self), &engines(other))
            .or_else(|| field("board", &self.size, &other.size))
            .or_else(|| field("rules", &self.rules, &other.rules))
            .or_else(|| field("time", &self.time, &other.time))
            .or_else(|| field("end", &self.end, &other.end))
            .or_else(|| field("format", &self.format, &other.format))
            .or_else(|| {
                let names = |f: &Fingerprint| {
                    f.openings
                        .iter()
                        .map(|(n, len)| format!("{n} ({len})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                field("openings", &names(self), &names(other))
            })
    }
}

/// Checks `out` holds no other tournament or match (writing this one's fingerprint, in
/// `KIND.json`, when it is new). A directory where no game was recorded is free to take.
///
/// # Errors
///
/// [`TournamentError::Mismatch`] naming what differs.
pub fn claim_directory(
    out: &Path,
    records: &str,
    kind: &str,
    fingerprint: &Fingerprint,
) -> Result<(), TournamentError> {
    std::fs::create_dir_all(out.join(records))
        .map_err(|e| TournamentError::Io(format!("cannot create {}: {e}", out.display())))?;
    let path = out.join(format!("{kind}.json"));
    let write = || {
        let text = serde_json::to_string_pretty(fingerprint).expect("serialises");
        std::fs::write(&path, text)
            .map_err(|e| TournamentError::Io(format!("cannot write {}: {e}", path.display())))
    };
    let empty = read_results(out)?.is_empty();
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let stored: Option<Fingerprint> = serde_json::from_str(&text).ok();
            match stored.map(|s| s.difference(fingerprint)) {
                Some(None) => Ok(()),
                _ if empty => write(),
                Some(Some(what)) => Err(TournamentError::Mismatch(format!(
                    "{} holds another {kind} ({what}): use another --out",
                    out.display()
                ))),
                None => Err(TournamentError::Mismatch(format!(
                    "{} is not a {kind}'s settings: use another --out",
                    path.display()
                ))),
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !empty {
                return Err(TournamentError::Mismatch(format!(
                    "{} holds results of something else (no {kind}.json): use another --out",
                    out.display()
                )));
            }
            write()
        }
        Err(e) => Err(TournamentError::Io(format!("{}: {e}", path.display()))),
    }
}

/// The games already in `out`, by number; a line that does not read (cut off by a crash, even
/// inside a character) is skipped, and that game is played again.
///
/// # Errors
///
/// When the file cannot be read.
pub fn read_results(out: &Path) -> Result<BTreeMap<usize, GameLine>, TournamentError> {
    let path = out.join(RESULTS_FILE);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(TournamentError::Io(format!("{}: {e}", path.display()))),
    };
    let mut done = BTreeMap::new();
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| TournamentError::Io(format!("{}: {e}", path.display())))?;
        if let Ok(game) = serde_json::from_slice::<GameLine>(&line) {
            done.insert(game.game, game);
        }
    }
    Ok(done)
}

/// Engines kept running between games, by entrant, and their start failures.
#[derive(Default)]
pub struct Pool {
    idle: Mutex<HashMap<usize, Vec<Seat>>>,
    /// Start failures in a row, by entrant.
    failures: Mutex<HashMap<usize, usize>>,
}

impl Pool {
    fn take(&self, id: usize) -> Option<Seat> {
        self.idle.lock().ok()?.get_mut(&id)?.pop()
    }

    fn put(&self, id: usize, seat: Seat) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.entry(id).or_default().push(seat);
        }
    }

    fn withdrawn(&self, id: usize, max: usize) -> bool {
        self.failures
            .lock()
            .is_ok_and(|f| f.get(&id).copied().unwrap_or(0) >= max)
    }

    fn failed(&self, id: usize, yes: bool) {
        if let Ok(mut f) = self.failures.lock() {
            let n = f.entry(id).or_default();
            *n = if yes { *n + 1 } else { 0 };
        }
    }

    /// Shuts every idle engine down.
    pub async fn close(&self, grace: Duration) {
        let all: Vec<Seat> = self
            .idle
            .lock()
            .map(|mut idle| idle.drain().flat_map(|(_, v)| v).collect())
            .unwrap_or_default();
        for seat in all {
            seat.engine.shutdown(grace).await;
        }
    }
}

/// A seat for `entrant`: an idle engine of it, or one started (with its `init` commands).
async fn seat_for(
    pool: &Pool,
    entrant: &Entrant,
    number: usize,
    color: Color,
    settings: &Settings,
) -> Result<Seat, String> {
    if entrant.restart == Restart::Auto {
        if let Some(seat) = pool.take(entrant.player.id) {
            if !seat.engine.is_closed() {
                return Ok(seat);
            }
            seat.engine.shutdown(settings.grace).await;
        }
    }
    let mut seat = start_seat(&entrant.player, number, color, settings)
        .await
        .map_err(|e| e.to_string())?;
    for command in &entrant.init {
        if let Err(e) = seat.engine.command(command, settings.command_timeout).await {
            seat.engine.shutdown(settings.grace).await;
            return Err(format!("'{command}' at start-up: {e}"));
        }
    }
    Ok(seat)
}

/// A game that was not played: `loser` forfeits.
fn forfeit(
    number: usize,
    pairing: &Pairing,
    entrants: &[Entrant],
    loser: Color,
    why: String,
) -> GameLine {
    let winner = loser.opponent();
    GameLine {
        detail: Some(why),
        ..GameLine::new(
            number,
            pairing,
            names_of(pairing, entrants),
            format!("{}+F", winner.letter()),
            Some(winner.letter()),
            Ending::Fault,
        )
    }
}

/// The tournament names of a pairing's engines, Black's and White's.
fn names_of(pairing: &Pairing, entrants: &[Entrant]) -> [String; 2] {
    [pairing.black, pairing.white].map(|i| entrants[i].player.name.clone())
}

/// One game to play: its number, who plays whom, and its opening (an index into the
/// configuration's openings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// The game's number, from 1.
    pub number: usize,
    /// Who plays whom, in which round.
    pub pairing: Pairing,
    /// The opening, if any.
    pub opening: Option<usize>,
}

/// Plays one game of the tournament on this machine with `pool`'s engines (a worker's way in):
/// its line, the record written under `config.out`.
///
/// # Errors
///
/// An engine that cannot start when `config.stop_on_start_failure` is set.
pub async fn play_job(
    config: &TournamentConfig,
    pool: &Pool,
    job: Job,
) -> Result<GameLine, String> {
    play(config, pool, job.number, job.pairing, job.opening).await
}

/// A boxed future, for [`RemoteGames`] as a trait object.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// A game played elsewhere: its line and its record (SGF text).
pub type Landed = (GameLine, Option<String>);

/// Games played elsewhere (by workers on other machines): the tournament hands them out and
/// takes the results as they land. The scheduling (pairings, resumption, the SPRT, the
/// results file) stays in [`run_tournament_with`].
pub trait RemoteGames: Send + Sync {
    /// Hands these games out. Handing out a game again (after a restart) keeps it as it is.
    fn enqueue(&self, jobs: Vec<Job>) -> BoxFuture<'_, Result<(), String>>;
    /// The next game played among those handed out, with its record (SGF text); `None` when no
    /// game handed out is left to land (all landed, or [`RemoteGames::stop`] was called and
    /// none is running).
    fn next(&self) -> BoxFuture<'_, Result<Option<Landed>, String>>;
    /// Hands out no more games; those running may still land.
    fn stop(&self) -> BoxFuture<'_, Result<(), String>>;
}

/// Where the games are played.
#[derive(Clone, Default)]
pub enum Games {
    /// Here, `config.jobs` at a time.
    #[default]
    Local,
    /// By workers elsewhere.
    Remote(Arc<dyn RemoteGames>),
}

/// Plays one game of the tournament.
async fn play(
    config: &TournamentConfig,
    pool: &Pool,
    number: usize,
    pairing: Pairing,
    opening: Option<usize>,
) -> Result<GameLine, String> {
    let entrants = &config.entrants;
    let own = ByColor::new(entrants[pairing.black].time, entrants[pairing.white].time);
    let game_settings;
    let opening_moves = opening.and_then(|i| config.openings.get(i));
    let settings = if opening_moves.is_some() || own.black.is_some() || own.white.is_some() {
        let mut s = config.settings.clone();
        if let Some((_, moves)) = opening_moves {
            s.opening.clone_from(moves);
        }
        if own.black.is_some() || own.white.is_some() {
            s.own_time = Some(own.map(|t| t.unwrap_or(config.settings.time)));
        }
        game_settings = s;
        &game_settings
    } else {
        &config.settings
    };
    let opening_name = opening
        .and_then(|i| config.openings.get(i))
        .map(|(n, _)| n.clone());
    let ids = ByColor::new(pairing.black, pairing.white);
    for color in Color::ALL {
        if pool.withdrawn(ids[color], config.max_failures) {
            let name = &entrants[ids[color]].player.name;
            return Ok(forfeit(
                number,
                &pairing,
                entrants,
                color,
                format!(
                    "{name} was withdrawn after {} failures to start",
                    config.max_failures
                ),
            ));
        }
    }
    let mut seats: Vec<Seat> = Vec::with_capacity(2);
    for color in Color::ALL {
        match seat_for(pool, &entrants[ids[color]], number, color, settings).await {
            Ok(seat) => {
                pool.failed(ids[color], false);
                seats.push(seat);
            }
            Err(e) => {
                pool.failed(ids[color], true);
                for seat in seats {
                    pool.put(ids.black, seat);
                }
                if config.stop_on_start_failure {
                    return Err(e);
                }
                let name = &entrants[ids[color]].player.name;
                return Ok(forfeit(
                    number,
                    &pairing,
                    entrants,
                    color,
                    format!("{name} could not start: {e}"),
                ));
            }
        }
    }
    let w = seats.pop().expect("two");
    let b = seats.pop().expect("two");
    let mut seats = ByColor::new(b, w);
    let games = config.out.join(&config.records);
    let black = &entrants[pairing.black].player;
    let white = &entrants[pairing.white].player;
    let versions = seats.as_ref().map(|s| {
        Some(
            s.engine
                .info()
                .version
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_string(),
        )
        .filter(|v| !v.is_empty())
    });
    let report = play_game_on(&mut seats, number - 1, black, white, settings, &games).await;
    let line = match report {
        Ok(report) => GameLine {
            opening: opening_name,
            ..line_of(
                &config.records,
                number,
                &pairing,
                entrants,
                &report,
                versions,
            )
        },
        Err(e) => {
            // The board was refused: the engine that refused it is started again next time.
            let ByColor { black: b, white: w } = seats;
            tokio::join!(
                b.engine.shutdown(settings.grace),
                w.engine.shutdown(settings.grace)
            );
            if config.stop_on_start_failure {
                return Err(e.to_string());
            }
            return Ok(forfeit(
                number,
                &pairing,
                entrants,
                Color::Black,
                e.to_string(),
            ));
        }
    };
    let ByColor { black: b, white: w } = seats;
    for (color, seat) in [(Color::Black, b), (Color::White, w)] {
        let entrant = &entrants[ids[color]];
        let faulted = line.end.is_forfeit()
            && line.winner == Some(color.opponent().letter())
            && line.end != Ending::Time;
        if entrant.restart == Restart::Always || faulted || seat.engine.is_closed() {
            seat.engine.shutdown(settings.grace).await;
        } else {
            pool.put(ids[color], seat);
        }
    }
    Ok(line)
}

fn line_of(
    records: &str,
    number: usize,
    pairing: &Pairing,
    entrants: &[Entrant],
    report: &GameReport,
    versions: ByColor<Option<String>>,
) -> GameLine {
    GameLine {
        black_version: versions.black,
        white_version: versions.white,
        detail: report.detail.clone(),
        moves: report.moves,
        seconds: report.seconds,
        genmoves: report.genmoves,
        sgf: Some(if records.is_empty() {
            report.sgf.clone()
        } else {
            format!("{records}/{}", report.sgf)
        }),
        illegal_passes: report.illegal_passes,
        ending: report.ending.clone(),
        resumptions: report.resumptions,
        dead_lists: report.dead_lists.clone(),
        removed: report.removed.clone(),
        ..GameLine::new(
            number,
            pairing,
            names_of(pairing, entrants),
            report.result.clone(),
            report.winner,
            report.end,
        )
    }
}

/// The pentanomial counts of engine 0's game pairs against engine 1: its games in number order,
/// two by two (each pair the same opening with colours swapped, as the schedule makes them).
#[must_use]
pub fn paired_results(games: &[GameLine]) -> crate::rating::Pentanomial {
    use crate::rating::GameResult;
    let mut sorted: Vec<&GameLine> = games
        .iter()
        .filter(|g| (g.black == 0 && g.white == 1) || (g.black == 1 && g.white == 0))
        .collect();
    sorted.sort_by_key(|g| g.game);
    let result = |g: &GameLine| match g.winner {
        Some('B') => GameResult::BlackWins,
        Some('W') => GameResult::WhiteWins,
        _ => GameResult::Draw,
    };
    let pairs: Vec<(GameResult, GameResult)> = sorted
        .chunks_exact(2)
        .filter_map(|two| match (two[0].black, two[1].black) {
            (0, 1) => Some((result(two[0]), result(two[1]))),
            (1, 0) => Some((result(two[1]), result(two[0]))),
            _ => None,
        })
        .collect();
    crate::rating::pentanomial(&pairs)
}

/// What the caller of [`run_tournament`] wants after a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Play on.
    Continue,
    /// Stop: finish the running games, start no other (a match's SPRT decided).
    Stop,
}

/// Plays the tournament, resuming from what `config.out` already holds; `on_game` sees each
/// game as it lands, with every game so far and the byes (for progress and standings).
///
/// # Errors
///
/// When the directory holds another tournament, or files cannot be written.
pub async fn run_tournament(
    config: TournamentConfig,
    on_game: impl FnMut(&GameLine, &[GameLine], &[usize]) -> Flow,
) -> Result<Finished, TournamentError> {
    run_tournament_with(config, Games::Local, on_game).await
}

/// [`run_tournament`], with the games played where `games` says.
///
/// # Errors
///
/// When the directory holds another tournament, files cannot be written, or the remote games
/// fail.
pub async fn run_tournament_with(
    config: TournamentConfig,
    where_played: Games,
    mut on_game: impl FnMut(&GameLine, &[GameLine], &[usize]) -> Flow,
) -> Result<Finished, TournamentError> {
    let started = Instant::now();
    claim_directory(
        &config.out,
        &config.records,
        config.kind,
        &Fingerprint::of(&config),
    )?;
    let done = read_results(&config.out)?;
    let resumed = done.len();
    let path = config.out.join(RESULTS_FILE);
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| TournamentError::Io(format!("cannot open {}: {e}", path.display())))?;
    let ends_cleanly = std::fs::read(&path)
        .map(|bytes| bytes.last().is_none_or(|&b| b == b'\n'))
        .unwrap_or(true);
    if !ends_cleanly {
        writeln!(file)
            .map_err(|e| TournamentError::Io(format!("cannot write {}: {e}", path.display())))?;
    }
    let config = Arc::new(config);
    let pool = Arc::new(Pool::default());
    let stop = Arc::new(AtomicBool::new(false));
    let signals = {
        let stop = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("goref: interrupted: finishing the running games");
                stop.store(true, Ordering::SeqCst);
            }
        })
    };
    let mut plan = Plan::new(&config.format, config.entrants.len());
    // Games each pair has been handed so far: which opening comes next for it.
    let mut meetings: HashMap<(usize, usize), usize> = HashMap::new();
    let mut games: Vec<GameLine> = Vec::new();
    let mut interrupted = false;
    let mut stopped = false;
    let mut fatal: Option<String> = None;
    let mut sprt = None;
    loop {
        let batch = plan.next_batch();
        if batch.is_empty() {
            break;
        }
        let mut queue = VecDeque::new();
        for (number, pairing) in batch {
            let key = (
                pairing.black.min(pairing.white),
                pairing.black.max(pairing.white),
            );
            let met = meetings.entry(key).or_insert(0usize);
            let opening = (!config.openings.is_empty()).then(|| (*met / 2) % config.openings.len());
            *met += 1;
            match done.get(&number) {
                Some(line) if line.black == pairing.black && line.white == pairing.white => {
                    plan.record(number, line);
                    games.push(line.clone());
                }
                _ => queue.push_back((number, pairing, opening)),
            }
        }
        if let Some((elo0, elo1, alpha, beta)) = config.sprt {
            // Resumed games may already decide the test.
            let counts = paired_results(&games);
            if let Some(test) = counts.sprt(elo0, elo1, alpha, beta) {
                if test.decision() != crate::rating::SprtDecision::Continue {
                    sprt = Some((test.decision(), counts));
                    break;
                }
            }
        }
        if queue.is_empty() {
            continue;
        }
        if stop.load(Ordering::SeqCst) {
            interrupted = true;
            break;
        }
        let (tx, mut rx) = mpsc::unbounded_channel::<Result<GameLine, String>>();
        let mut workers = Vec::new();
        match &where_played {
            Games::Local => {
                let queue = Arc::new(Mutex::new(queue));
                for _ in 0..config.jobs.max(1) {
                    let (queue, tx, config, pool, stop) = (
                        queue.clone(),
                        tx.clone(),
                        config.clone(),
                        pool.clone(),
                        stop.clone(),
                    );
                    workers.push(tokio::spawn(async move {
                        loop {
                            if stop.load(Ordering::SeqCst) {
                                break;
                            }
                            let Some((number, pairing, opening)) =
                                queue.lock().ok().and_then(|mut q| q.pop_front())
                            else {
                                break;
                            };
                            let line = play(&config, &pool, number, pairing, opening).await;
                            if tx.send(line).is_err() {
                                break;
                            }
                        }
                    }));
                }
            }
            Games::Remote(remote) => {
                let jobs: Vec<Job> = queue
                    .iter()
                    .map(|&(number, pairing, opening)| Job {
                        number,
                        pairing,
                        opening,
                    })
                    .collect();
                let expected = jobs.len();
                remote
                    .enqueue(jobs)
                    .await
                    .map_err(TournamentError::Remote)?;
                let (remote, tx, config, stop) =
                    (remote.clone(), tx.clone(), config.clone(), stop.clone());
                workers.push(tokio::spawn(async move {
                    let mut stopped = false;
                    for _ in 0..expected {
                        if stop.load(Ordering::SeqCst) && !stopped {
                            stopped = true;
                            if let Err(e) = remote.stop().await {
                                let _ = tx.send(Err(e));
                                return;
                            }
                        }
                        let landed = match remote.next().await {
                            Ok(Some(landed)) => landed,
                            Ok(None) => return,
                            Err(e) => {
                                let _ = tx.send(Err(e));
                                return;
                            }
                        };
                        let (line, record) = landed;
                        if let (Some(path), Some(text)) = (&line.sgf, record) {
                            let path = config.out.join(path);
                            if let Some(dir) = path.parent() {
                                let _ = std::fs::create_dir_all(dir);
                            }
                            if let Err(e) = std::fs::write(&path, text) {
                                let _ = tx.send(Err(format!("{}: {e}", path.display())));
                                return;
                            }
                        }
                        if tx.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                }));
            }
        }
        drop(tx);
        while let Some(line) = rx.recv().await {
            let line = match line {
                Ok(line) => line,
                Err(e) => {
                    stop.store(true, Ordering::SeqCst);
                    fatal.get_or_insert(e);
                    continue;
                }
            };
            let text = serde_json::to_string(&line).expect("a line serialises");
            writeln!(file, "{text}")
                .and_then(|()| file.sync_data())
                .map_err(|e| {
                    TournamentError::Io(format!("cannot write {}: {e}", path.display()))
                })?;
            plan.record(line.game, &line);
            games.push(line.clone());
            if on_game(&line, &games, plan.byes()) == Flow::Stop {
                stopped = true;
                stop.store(true, Ordering::SeqCst);
            }
            if let Some((elo0, elo1, alpha, beta)) = config.sprt {
                let counts = paired_results(&games);
                if let Some(test) = counts.sprt(elo0, elo1, alpha, beta) {
                    let decision = test.decision();
                    if decision != crate::rating::SprtDecision::Continue {
                        sprt = Some((decision, counts));
                        stop.store(true, Ordering::SeqCst);
                    }
                }
            }
        }
        for w in workers {
            let _ = w.await;
        }
        if stop.load(Ordering::SeqCst) {
            interrupted = sprt.is_none() && !stopped && fatal.is_none();
            break;
        }
    }
    signals.abort();
    if let Some(e) = fatal {
        pool.close(config.settings.grace).await;
        return Err(match where_played {
            Games::Local => TournamentError::Start(e),
            Games::Remote(_) => TournamentError::Remote(e),
        });
    }
    pool.close(config.settings.grace).await;
    games.sort_by_key(|g| g.game);
    let sprt = sprt.or_else(|| {
        let (elo0, elo1, alpha, beta) = config.sprt?;
        let counts = paired_results(&games);
        Some((counts.sprt(elo0, elo1, alpha, beta)?.decision(), counts))
    });

    Ok(Finished {
        games,
        resumed,
        interrupted,
        wall: started.elapsed(),
        byes: plan.byes().to_vec(),
        withdrawn: (0..config.entrants.len())
            .filter(|&i| pool.withdrawn(i, config.max_failures))
            .collect(),
        champion: plan.champion(),
        sprt,
    })
}
