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

use goref_match::game::{check_player, play_game_on, start_seat, Seat, StartError};
use goref_match::{Contestant, Ending, GameSettings};
use goref_rules::{ByColor, Color, Outcome, WinBy};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::count;
use goref_tournament::pairing::Pairing;
use goref_tournament::plan::{Format, Plan};
use goref_tournament::stats::{pentanomial, Pentanomial, Sprt, SprtCounts, SprtDecision};
pub use goref_tournament::GameLine;

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

/// A restart policy that is neither `auto` nor `always`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRestart(pub String);

impl std::fmt::Display for UnknownRestart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "restart policy '{}': expected auto or always", self.0)
    }
}

impl std::error::Error for UnknownRestart {}

impl std::str::FromStr for Restart {
    type Err = UnknownRestart;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let choices = [("auto", Restart::Auto), ("always", Restart::Always)];
        goref_rules::words::one_of(s, &choices).ok_or_else(|| UnknownRestart(s.to_string()))
    }
}

/// One engine of the tournament.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Its name in the tournament, and how to run it (`id` is its index, in seeding order).
    pub player: Contestant,
    /// GTP commands sent once after it starts.
    pub init: Vec<String>,
    /// GTP commands sent before each of its games, to an engine kept running as to one just
    /// started (after `init`): `goref tune --set` gives a running engine its parameters so.
    pub per_game: Vec<String>,
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
    pub settings: GameSettings,
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
    /// With two engines: stop when the SPRT on game pairs (the same opening, colours swapped;
    /// the pentanomial model) decides, for the first engine.
    pub sprt: Option<Sprt>,
}

/// A tournament that could not go on.
#[derive(Debug)]
pub enum TournamentError {
    /// The directory holds a tournament with other settings: what differs, in words.
    Mismatch(String),
    /// A file of the output directory.
    Io {
        /// What was done: `create`, `open`, `write`, or empty for reading.
        doing: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// An engine failed the check before the first game: it cannot start or does not answer.
    /// Nothing was played.
    Engine {
        /// The engine's name in the tournament.
        name: String,
        /// Its command.
        command: String,
        /// Why: "command not found", "exited with status 1", "no answer to 'name' in 5s".
        why: StartError,
    },
    /// A game could not be made at all (no engine's fault: the board or the settings).
    Game(StartError),
    /// The games played elsewhere could not be handed out or collected.
    Remote(RemoteError),
}

impl TournamentError {
    fn io(doing: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> TournamentError {
        let path = path.to_path_buf();
        move |source| TournamentError::Io {
            doing,
            path,
            source,
        }
    }
}

impl std::fmt::Display for TournamentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TournamentError::Mismatch(m) => f.write_str(m),
            TournamentError::Io {
                doing: "",
                path,
                source,
            } => write!(f, "{}: {source}", path.display()),
            TournamentError::Io {
                doing,
                path,
                source,
            } => write!(f, "cannot {doing} {}: {source}", path.display()),
            TournamentError::Engine { name, command, why } => {
                write!(f, "engine '{name}' ({command}) cannot play: {why}")
            }
            TournamentError::Game(m) => write!(f, "stopped: {m}"),
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
    /// What each engine said of itself at the check before the first game, in seeding order
    /// (empty when the games were played elsewhere).
    pub engines: Vec<goref_match::goref_gtp::EngineInfo>,
    /// Games that were already in the directory.
    pub resumed: usize,
    /// Whether a signal stopped it (Ctrl-C, SIGTERM, SIGHUP).
    pub interrupted: bool,
    /// The signal that stopped it, when one did: exit with `128 + signal`, as a shell would.
    pub signal: Option<i32>,
    /// Wall time of this run.
    pub wall: Duration,
    /// Swiss byes, one entry a bye.
    pub byes: Vec<usize>,
    /// Engines withdrawn after failing to start `max_failures` times in a row.
    pub withdrawn: Vec<usize>,
    /// A knockout's champion.
    pub champion: Option<usize>,
    /// The SPRT's decision and the pentanomial counts it saw, when one ran.
    pub sprt: Option<(SprtDecision, Pentanomial)>,
}

/// What a resumed directory must agree on: the engines, each game's settings and the format.
/// The number of games per pair (round-robin, gauntlet) and of rounds (Swiss) may grow: a
/// finished tournament is extended by the new games only.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Name and command of each engine, in seeding order.
    pub engines: Vec<(String, String)>,
    /// The board.
    pub size: String,
    /// The rules.
    pub rules: String,
    /// The clock.
    pub time: String,
    /// The end protocol.
    pub end: String,
    /// The format and the numbers that cannot change.
    pub format: String,
    /// The number that may grow: games per pair (round-robin, gauntlet, a match's games) or
    /// rounds (Swiss). Absent in directories written before it was kept.
    #[serde(default)]
    pub grows: Option<usize>,
    /// The openings' names and lengths.
    #[serde(default)]
    pub openings: Vec<(String, usize)>,
    /// A digest of the openings' moves (FNV-1a), so that an opening edited in place is seen.
    #[serde(default)]
    pub openings_digest: Option<String>,
    /// Every other setting that changes the games, by name (komi, handicap, min-moves, …).
    #[serde(default)]
    pub game: Option<Vec<(String, String)>>,
    /// The format as directories written before `grows` was kept named it.
    #[serde(skip)]
    legacy_format: String,
}

impl PartialEq for Fingerprint {
    fn eq(&self, other: &Fingerprint) -> bool {
        // What is written; the legacy form is only for reading old directories.
        serde_json::to_value(self).ok() == serde_json::to_value(other).ok()
    }
}

/// The settings that change a game, besides board, rules, clock and end protocol, by name.
fn game_settings(s: &GameSettings) -> Vec<(String, String)> {
    let ms = |d: std::time::Duration| format!("{}s", d.as_secs_f64());
    [
        ("komi", s.game.rules.komi.to_string()),
        ("handicap", s.handicap.to_string()),
        (
            "handicap style",
            format!("{:?}", s.handicap_style).to_lowercase(),
        ),
        (
            "min-moves",
            s.game
                .min_moves
                .map_or_else(|| "none".into(), |n| n.to_string()),
        ),
        (
            "long-cycle",
            format!("{:?}", s.game.long_cycle).to_lowercase(),
        ),
        ("illegal", format!("{:?}", s.game.illegal).to_lowercase()),
        ("lag", ms(s.game.lag)),
        (
            "move-limit",
            s.game
                .move_limit
                .map_or_else(|| "none".into(), |n| n.to_string()),
        ),
        ("adjudicate", s.game.adjudicate.to_string()),
        (
            "hang-timeout",
            s.hang_timeout.map_or_else(|| "none".into(), ms),
        ),
        ("referee", s.referee.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Every setting of a run, by name, as the report shows them: board, rules, komi, clock, end
/// protocol, format, openings and the other settings that change the games.
#[must_use]
pub fn described(config: &TournamentConfig) -> Vec<(String, String)> {
    let s = &config.settings;
    let mut all: Vec<(String, String)> = [
        ("board", format!("{}x{}", s.width, s.height)),
        ("rules", s.game.rules.to_string()),
        ("clock", s.game.time.to_string()),
        ("end", s.game.end.to_string()),
        (
            "format",
            match config.format {
                Format::RoundRobin { games_per_pair } => {
                    format!("round-robin, {} per pair", count(games_per_pair, "game"))
                }
                Format::Gauntlet {
                    seeds,
                    games_per_pair,
                } => format!(
                    "gauntlet, {}, {} per pair",
                    count(seeds, "seed"),
                    count(games_per_pair, "game")
                ),
                Format::Swiss { rounds } => format!("swiss, {}", count(rounds, "round")),
                Format::Knockout { games, max_replays } => format!(
                    "knockout, {} a match, at most {}",
                    count(games, "game"),
                    count(max_replays, "replay")
                ),
            },
        ),
        (
            "openings",
            if config.openings.is_empty() {
                "none".to_string()
            } else {
                config
                    .openings
                    .iter()
                    .map(|(name, moves)| format!("{name} ({})", count(moves.len(), "move")))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let own: Vec<String> = config
        .entrants
        .iter()
        .filter_map(|e| Some(format!("{}: {}", e.player.name, e.time?)))
        .collect();
    if !own.is_empty() {
        all.push(("own clocks".to_string(), own.join(", ")));
    }
    all.extend(game_settings(s));
    all
}

/// FNV-1a over the openings' names and moves: stable across versions and machines.
fn openings_digest(openings: &[(String, Vec<goref_rules::Move>)]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for (name, moves) in openings {
        eat(name.as_bytes());
        eat(b"\0");
        for m in moves {
            eat(format!("{m:?};").as_bytes());
        }
        eat(b"\n");
    }
    format!("{h:016x}")
}

impl Fingerprint {
    /// The fingerprint of a configuration.
    #[must_use]
    pub fn of(config: &TournamentConfig) -> Fingerprint {
        let s = &config.settings;
        let (format, grows) = match config.format {
            Format::RoundRobin { games_per_pair } => {
                ("round-robin".to_string(), Some(games_per_pair))
            }
            Format::Gauntlet {
                seeds,
                games_per_pair,
            } => (format!("gauntlet seeds={seeds}"), Some(games_per_pair)),
            Format::Swiss { rounds } => ("swiss".to_string(), Some(rounds)),
            Format::Knockout { games, max_replays } => (
                format!("knockout games={games} max-replays={max_replays}"),
                None,
            ),
        };
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
            rules: s.game.rules.to_string(),
            time: s.game.time.to_string(),
            end: s.game.end.to_string(),
            format,
            grows,
            openings: config
                .openings
                .iter()
                .map(|(n, m)| (n.clone(), m.len()))
                .collect(),
            openings_digest: Some(openings_digest(&config.openings)),
            game: Some(game_settings(s)),
            legacy_format: if config.kind == "match" {
                config.format.name().to_string()
            } else {
                format!("{:?}", config.format)
            },
        }
    }

    /// What differs from `other` (the directory's), in words, or `None`. `may_shrink`: the
    /// growing number may also be smaller (a match asked for fewer games counts the first).
    #[must_use]
    pub fn difference(&self, other: &Fingerprint) -> Option<String> {
        self.difference_with(other, true)
    }

    fn difference_with(&self, stored: &Fingerprint, may_shrink: bool) -> Option<String> {
        let field = |name: &str, here: &str, there: &str| {
            (here != there).then(|| format!("{name}: '{here}' here, '{there}' in the directory"))
        };
        let engines = |f: &Fingerprint| {
            f.engines
                .iter()
                .map(|(n, c)| format!("{n}={c}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let format = || match stored.grows {
            // Written before the growing number was kept apart: the whole format as it was.
            None if stored.format != self.format => {
                field("format", &self.legacy_format, &stored.format)
            }
            None => None,
            Some(there) => {
                field("format", &self.format, &stored.format).or_else(|| match self.grows {
                    Some(here) if here < there && !may_shrink => Some(format!(
                        "format: {here} games per pair or rounds here, {there} in the directory \
                         (a tournament may grow, not shrink)"
                    )),
                    _ => None,
                })
            }
        };
        let game = || {
            let (Some(here), Some(there)) = (&self.game, &stored.game) else {
                return None;
            };
            here.iter().find_map(|(name, value)| {
                let stored = there.iter().find(|(n, _)| n == name).map(|(_, v)| v)?;
                field(name, value, stored)
            })
        };
        field("engines", &engines(self), &engines(stored))
            .or_else(|| field("board", &self.size, &stored.size))
            .or_else(|| field("rules", &self.rules, &stored.rules))
            .or_else(|| field("time", &self.time, &stored.time))
            .or_else(|| field("end", &self.end, &stored.end))
            .or_else(format)
            .or_else(|| {
                let names = |f: &Fingerprint| {
                    f.openings
                        .iter()
                        .map(|(n, len)| format!("{n} ({len})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                field("openings", &names(self), &names(stored))
            })
            .or_else(|| match (&self.openings_digest, &stored.openings_digest) {
                (Some(here), Some(there)) if here != there => {
                    Some("openings: their moves differ from the directory's".to_string())
                }
                _ => None,
            })
            .or_else(game)
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
    std::fs::create_dir_all(out.join(records)).map_err(TournamentError::io("create", out))?;
    let path = out.join(format!("{kind}.json"));
    let write = || {
        let text = serde_json::to_string_pretty(fingerprint).expect("serialises");
        std::fs::write(&path, text).map_err(TournamentError::io("write", &path))
    };
    let empty = read_results(out)?.is_empty();
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let stored: Option<Fingerprint> = serde_json::from_str(&text).ok();
            let may_shrink = kind == "match";
            match stored.map(|s| (fingerprint.difference_with(&s, may_shrink), s)) {
                // The same, or grown (more games per pair, more rounds): kept up to date.
                Some((None, s)) if s == *fingerprint => Ok(()),
                Some((None, _)) => write(),
                _ if empty => write(),
                Some((Some(what), _)) => Err(TournamentError::Mismatch(format!(
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
        Err(e) => Err(TournamentError::io("", &path)(e)),
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
        Err(e) => return Err(TournamentError::io("", &path)(e)),
    };
    let mut done = BTreeMap::new();
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(TournamentError::io("", &path))?;
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
    settings: &GameSettings,
) -> Result<Seat, StartError> {
    if entrant.restart == Restart::Auto {
        if let Some(seat) = pool.take(entrant.player.id) {
            if !seat.engine.is_closed() && !seat.engine.is_awaiting_reply() {
                return send_all(seat, &entrant.per_game, "before the game", color, settings).await;
            }
            seat.engine.shutdown(settings.grace).await;
        }
    }
    let seat = start_seat(&entrant.player, number, color, settings).await?;
    let seat = send_all(seat, &entrant.init, "at start-up", color, settings).await?;
    send_all(seat, &entrant.per_game, "before the game", color, settings).await
}

/// Sends `commands` to `seat`'s engine in turn: the seat, or (the engine stopped) the first
/// command that failed, `when` it was sent.
async fn send_all(
    mut seat: Seat,
    commands: &[String],
    when: &str,
    color: Color,
    settings: &GameSettings,
) -> Result<Seat, StartError> {
    for command in commands {
        if let Err(e) = seat.engine.command(command, settings.command_timeout).await {
            seat.engine.shutdown(settings.grace).await;
            return Err(StartError::of(color, format!("'{command}' {when}: {e}")));
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
        ..GameLine::of(
            number,
            pairing,
            names_of(pairing, entrants),
            Outcome::win(winner, WinBy::Forfeit),
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
/// its line, the record written under `config.out`. An engine that cannot start or be set up
/// forfeits the game.
///
/// # Errors
///
/// When the game cannot be made at all (no engine's fault: the board or the settings).
pub async fn play_job(
    config: &TournamentConfig,
    pool: &Pool,
    job: Job,
) -> Result<GameLine, StartError> {
    play(config, pool, job.number, job.pairing, job.opening).await
}

/// A boxed future, for [`RemoteGames`] as a trait object.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// A game played elsewhere: its line and its record (SGF text).
pub type Landed = (GameLine, Option<String>);

/// Why games played elsewhere could not be handed out or collected: the queue's own error.
pub type RemoteError = Box<dyn std::error::Error + Send + Sync>;

/// Games played elsewhere (by workers on other machines): the tournament hands them out and
/// takes the results as they land. The scheduling (pairings, resumption, the SPRT, the
/// results file) stays in [`run_tournament_with`].
pub trait RemoteGames: Send + Sync {
    /// Hands these games out. Handing out a game again (after a restart) keeps it as it is.
    fn enqueue(&self, jobs: Vec<Job>) -> BoxFuture<'_, Result<(), RemoteError>>;
    /// The next game played among those handed out, with its record (SGF text); `None` when no
    /// game handed out is left to land (all landed, or [`RemoteGames::stop`] was called and
    /// none is running).
    fn next(&self) -> BoxFuture<'_, Result<Option<Landed>, RemoteError>>;
    /// Hands out no more games; those running may still land.
    fn stop(&self) -> BoxFuture<'_, Result<(), RemoteError>>;
}

/// Where the games are played.
#[derive(Clone, Default)]
pub enum Venue {
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
) -> Result<GameLine, StartError> {
    let entrants = &config.entrants;
    let own = ByColor::new(entrants[pairing.black].time, entrants[pairing.white].time);
    let game_settings;
    let opening_moves = opening.and_then(|i| config.openings.get(i));
    let settings = if opening_moves.is_some() || own.black.is_some() || own.white.is_some() {
        let mut s = config.settings.clone();
        if let Some((_, moves)) = opening_moves {
            s.game.opening.clone_from(moves);
        }
        if own.black.is_some() || own.white.is_some() {
            s.game.own_time = Some(own.map(|t| t.unwrap_or(config.settings.game.time)));
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
    let played = play_game_on(&mut seats, number, &pairing, black, white, settings, &games).await;
    let line = match played {
        Ok(line) => GameLine {
            opening: opening_name,
            sgf: line.sgf.as_ref().map(|sgf| {
                if config.records.is_empty() {
                    sgf.clone()
                } else {
                    format!("{}/{sgf}", config.records)
                }
            }),
            ..line
        },
        Err(e) => {
            // The engine that could not be set up forfeits this game and is started again
            // for its next one; the other is kept.
            let ByColor { black: b, white: w } = seats;
            for (color, seat) in [(Color::Black, b), (Color::White, w)] {
                if Some(color) == e.culprit || !reusable(&entrants[ids[color]], &seat) {
                    seat.engine.shutdown(settings.grace).await;
                } else {
                    pool.put(ids[color], seat);
                }
            }
            let Some(culprit) = e.culprit else {
                return Err(e);
            };
            let name = &entrants[ids[culprit]].player.name;
            return Ok(forfeit(
                number,
                &pairing,
                entrants,
                culprit,
                format!("{name} could not be set up: {e}"),
            ));
        }
    };
    let ByColor { black: b, white: w } = seats;
    for (color, seat) in [(Color::Black, b), (Color::White, w)] {
        let entrant = &entrants[ids[color]];
        let faulted = line.end.is_forfeit()
            && line.winner() == Some(color.opponent())
            && line.end != Ending::Time;
        if faulted || !reusable(entrant, &seat) {
            seat.engine.shutdown(settings.grace).await;
        } else {
            pool.put(ids[color], seat);
        }
    }
    Ok(line)
}

/// Whether `seat` may play `entrant`'s next game: kept running by its policy, still open, and
/// owing no reply (an engine that lost on time, or whose game ended while it thought, may
/// never answer: it is started again).
fn reusable(entrant: &Entrant, seat: &Seat) -> bool {
    entrant.restart == Restart::Auto && !seat.engine.is_closed() && !seat.engine.is_awaiting_reply()
}

/// Starts every engine once and asks `protocol_version`, `name`, `version` and
/// `list_commands` (gomill's ringmaster checks its players too): an engine that cannot start or
/// answer stops the run before any game. Warns (on stderr) of an engine that cannot be told
/// that the rules allow suicide. Returns what each engine said of itself, in seeding order.
///
/// # Errors
///
/// [`TournamentError::Engine`] for the first engine, in seeding order, that failed.
pub async fn check_engines(
    config: &TournamentConfig,
) -> Result<Vec<goref_match::goref_gtp::EngineInfo>, TournamentError> {
    // All at once: a slow starter costs its own start-up time, not everyone's.
    let mut checks = tokio::task::JoinSet::new();
    for (i, e) in config.entrants.iter().enumerate() {
        let (player, settings) = (e.player.clone(), config.settings.clone());
        checks.spawn(async move { (i, check_player(&player, &settings).await) });
    }
    let mut results: Vec<Option<Result<_, StartError>>> =
        config.entrants.iter().map(|_| None).collect();
    while let Some(joined) = checks.join_next().await {
        if let Ok((i, result)) = joined {
            results[i] = Some(result);
        }
    }
    let mut infos = Vec::with_capacity(config.entrants.len());
    for (entrant, result) in config.entrants.iter().zip(results) {
        let result = result
            .unwrap_or_else(|| Err(StartError::general("the check did not finish".to_string())));
        let info = result.map_err(|e| TournamentError::Engine {
            name: entrant.player.name.clone(),
            command: entrant.player.spec.to_string(),
            why: e,
        })?;
        let rules = &config.settings.game.rules;
        if rules.suicide_allowed && !goref_match::game::can_be_told_rules(&info) {
            eprintln!(
                "goref: warning: {} allows suicide; engine '{}' ({}) has no command to be told \
                 so (goref-rules, kgs-rules): it may refuse a legal suicide, which forfeits its \
                 game (nstt forbids suicide)",
                rules
                    .preset_name()
                    .map_or_else(|| rules.to_string(), |p| p.to_string()),
                entrant.player.name,
                info.name.lines().next().unwrap_or("").trim()
            );
        }
        infos.push(info);
    }
    Ok(infos)
}

/// The pentanomial counts of engine 0's game pairs against engine 1: its games in number order,
/// two by two (each pair the same opening with colours swapped, as the schedule makes them).
#[must_use]
pub fn paired_results(games: &[GameLine]) -> Pentanomial {
    use goref_tournament::pairing::Scored;
    let mut sorted: Vec<&GameLine> = games
        .iter()
        .filter(|g| (g.black == 0 && g.white == 1) || (g.black == 1 && g.white == 0))
        .collect();
    sorted.sort_by_key(|g| g.game);
    let result = |g: &GameLine| g.scored();
    let pairs: Vec<(Scored, Scored)> = sorted
        .chunks_exact(2)
        .filter_map(|two| match (two[0].black, two[1].black) {
            (0, 1) => Some((result(two[0]), result(two[1]))),
            (1, 0) => Some((result(two[1]), result(two[0]))),
            _ => None,
        })
        .collect();
    pentanomial(&pairs)
}

/// The signals that stopped a run: the first one's number, and whether the running games are
/// abandoned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stopping {
    signal: i32,
    abandon: bool,
}

/// Waits for the signals that stop a run: the first Ctrl-C sets `stop` (running games finish);
/// SIGTERM, SIGHUP or a second Ctrl-C also abandon the running games.
async fn watch_signals(stop: Arc<AtomicBool>, state: tokio::sync::watch::Sender<Option<Stopping>>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        // The numbers are the same on every Unix.
        const SIGHUP: i32 = 1;
        const SIGINT: i32 = 2;
        const SIGTERM: i32 = 15;
        let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) else {
            return;
        };
        loop {
            let number = tokio::select! {
                _ = int.recv() => SIGINT,
                _ = term.recv() => SIGTERM,
                _ = hup.recv() => SIGHUP,
            };
            let again = stop.swap(true, Ordering::SeqCst);
            let first = state.borrow().map_or(number, |s| s.signal);
            if number == SIGINT && !again {
                eprintln!(
                    "goref: interrupted: finishing the running games (Ctrl-C again abandons them)"
                );
                let _ = state.send(Some(Stopping {
                    signal: first,
                    abandon: false,
                }));
                continue;
            }
            eprintln!("goref: stopping: the running games are abandoned (played again on resume)");
            let _ = state.send(Some(Stopping {
                signal: first,
                abandon: true,
            }));
            return;
        }
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("goref: interrupted: finishing the running games");
            stop.store(true, Ordering::SeqCst);
            let _ = state.send(Some(Stopping {
                signal: 2,
                abandon: false,
            }));
        }
    }
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
    run_tournament_with(config, Venue::Local, on_game).await
}

/// [`run_tournament`], with the games played where `games` says.
///
/// # Errors
///
/// When the directory holds another tournament, files cannot be written, or the remote games
/// fail.
pub async fn run_tournament_with(
    config: TournamentConfig,
    where_played: Venue,
    mut on_game: impl FnMut(&GameLine, &[GameLine], &[usize]) -> Flow,
) -> Result<Finished, TournamentError> {
    let started = Instant::now();
    claim_directory(
        &config.out,
        &config.records,
        config.kind,
        &Fingerprint::of(&config),
    )?;
    // Played here: every engine is checked before the first game (workers check their own).
    let engines = match where_played {
        Venue::Local => check_engines(&config).await?,
        Venue::Remote(_) => Vec::new(),
    };
    let done = read_results(&config.out)?;
    let resumed = done.len();
    let path = config.out.join(RESULTS_FILE);
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(TournamentError::io("open", &path))?;
    let ends_cleanly = std::fs::read(&path)
        .map(|bytes| bytes.last().is_none_or(|&b| b == b'\n'))
        .unwrap_or(true);
    if !ends_cleanly {
        writeln!(file).map_err(TournamentError::io("write", &path))?;
    }
    let config = Arc::new(config);
    let pool = Arc::new(Pool::default());
    let stop = Arc::new(AtomicBool::new(false));
    // Ctrl-C: finish the running games, start no other. SIGTERM, SIGHUP or a second Ctrl-C:
    // abandon the running games now (they are played again on resume) and end every engine.
    let (abort_tx, mut abort_rx) = tokio::sync::watch::channel(None::<Stopping>);
    let signals = tokio::spawn(watch_signals(stop.clone(), abort_tx));
    let mut plan = Plan::new(&config.format, config.entrants.len());
    // Games each pair has been handed so far: which opening comes next for it.
    let mut meetings: HashMap<(usize, usize), usize> = HashMap::new();
    let mut games: Vec<GameLine> = Vec::new();
    let mut interrupted = false;
    let mut stopped = false;
    let mut fatal: Option<TournamentError> = None;
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
        if let Some(test) = config.sprt {
            // Resumed games may already decide the test.
            let counts = paired_results(&games);
            let decision = test.decision(SprtCounts::Pairs(&counts));
            if decision != SprtDecision::Continue {
                sprt = Some((decision, counts));
                break;
            }
        }
        if queue.is_empty() {
            continue;
        }
        if stop.load(Ordering::SeqCst) {
            interrupted = true;
            break;
        }
        let (tx, mut rx) = mpsc::unbounded_channel::<Result<GameLine, TournamentError>>();
        let mut workers = Vec::new();
        match &where_played {
            Venue::Local => {
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
                            let line = play(&config, &pool, number, pairing, opening)
                                .await
                                .map_err(TournamentError::Game);
                            if tx.send(line).is_err() {
                                break;
                            }
                        }
                    }));
                }
            }
            Venue::Remote(remote) => {
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
                                let _ = tx.send(Err(TournamentError::Remote(e)));
                                return;
                            }
                        }
                        let landed = match remote.next().await {
                            Ok(Some(landed)) => landed,
                            Ok(None) => return,
                            Err(e) => {
                                let _ = tx.send(Err(TournamentError::Remote(e)));
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
                                let why = format!("{}: {e}", path.display());
                                let _ = tx.send(Err(TournamentError::Remote(why.into())));
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
        loop {
            let line = tokio::select! {
                line = rx.recv() => line,
                _ = abort_rx.wait_for(|s| s.is_some_and(|s| s.abandon)) => None,
            };
            let Some(line) = line else {
                break;
            };
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
                .map_err(TournamentError::io("write", &path))?;
            plan.record(line.game, &line);
            games.push(line.clone());
            if on_game(&line, &games, plan.byes()) == Flow::Stop {
                stopped = true;
                stop.store(true, Ordering::SeqCst);
            }
            if let Some(test) = config.sprt {
                let counts = paired_results(&games);
                let decision = test.decision(SprtCounts::Pairs(&counts));
                if decision != SprtDecision::Continue {
                    sprt = Some((decision, counts));
                    stop.store(true, Ordering::SeqCst);
                }
            }
        }
        let aborted = abort_rx.borrow().is_some_and(|s| s.abandon);
        for w in workers {
            if aborted {
                // Dropping a game's engines kills their process groups.
                w.abort();
            }
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
        return Err(e);
    }
    pool.close(config.settings.grace).await;
    let signal = abort_rx.borrow().map(|s| s.signal);
    games.sort_by_key(|g| g.game);
    let sprt = sprt.or_else(|| {
        let test = config.sprt?;
        let counts = paired_results(&games);
        Some((test.decision(SprtCounts::Pairs(&counts)), counts))
    });

    Ok(Finished {
        games,
        engines,
        resumed,
        interrupted,
        signal,
        wall: started.elapsed(),
        byes: plan.byes().to_vec(),
        withdrawn: (0..config.entrants.len())
            .filter(|&i| pool.withdrawn(i, config.max_failures))
            .collect(),
        champion: plan.champion(),
        sprt,
    })
}
