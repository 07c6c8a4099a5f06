//! `goref loadtest`: many CGOS bots and web programs playing random moves on one's own
//! `goref serve`, and the figures of a measured window (moves a second, the server's CPU and
//! memory, relay and ack latencies, pairing waits, games, errors).
//!
//! It is an instrument for a server one runs oneself, on this machine: every connection goes
//! to the addresses given (`--cgos`, `--web`) and nowhere else, and it stops by itself after
//! the warm-up and the measured seconds, closing every connection. Towards a loopback server
//! each participant connects from an address of its own (`--bind-from` counting up:
//! 127.0.0.2, 127.0.0.3, …), so that the server's caps per address do not refuse it.
//!
//! - A **CGOS bot** logs in through the CGOS door as `P-cgos-K` (the door creates the account
//!   at its first login), answers `genmove` at once with a random legal move (goref-rules'
//!   [`random_move`]: uniform among the legal moves that do not fill one of its own one-point
//!   eyes, else a pass) on a board it keeps from `setup` and `play`, and answers `gameover`
//!   with `ready`.
//! - A **web program** logs in as `P-web-K` (`POST /api/login`, a program's account, created
//!   at its first login), waits in the lobby (`{"type":"wait","on":true}`), plays every game
//!   the lobby tells it of over the game's WebSocket with the same random moves (a pass for a
//!   play-out, no dead stones, `done` when marking), and waits again after each game.
//! - An **idle program** (`--idle`) logs in as `P-idle-K` and only keeps the lobby open, as a
//!   program between its games does: what it is sent is counted (`--idle-lists`: it follows
//!   the lobby's lists as a player's page does), to show what a crowd of connections costs.
//!
//! The relay latency of CGOS is from a bot writing its move to the opponent bot (in this
//! process) reading the matching `play` (same game, same move number); the ack latency of the
//! web is from a program sending its move to the server's `ack`; a pairing wait is from a
//! participant starting to wait (logged in, `ready`, `wait` sent) to being told of its game.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::Args as ClapArgs;
use futures_util::{SinkExt, StreamExt};
use goref_cgos::{
    Answer, CgosMove, CgosResult, CgosWin, ClientKind, ClientMessage as CgosClientMessage,
    LineReader, ReadError, ServerMessage as CgosServerMessage,
};
use goref_rules::playout::{random_move, Rng};
use goref_rules::{Color, Game, Move, Point, Preset, Ruleset};
use goref_server::wire::{ClientMessage, Command, GameStart, MoveView, Need, Side};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The CGOS door of the server under test (HOST:PORT, as given to `goref serve --cgos`);
    /// several doors (pools, instances) separated by commas or repeated: the bots are dealt
    /// to them in turn.
    #[arg(long, requires = "cgos_bots", value_delimiter = ',')]
    pub cgos: Vec<String>,
    /// How many CGOS bots log in through --cgos.
    #[arg(long, default_value_t = 0)]
    pub cgos_bots: usize,
    /// The web address of the server under test (`http://127.0.0.1:8080`).
    #[arg(long, requires = "programs")]
    pub web: Option<String>,
    /// How many programs log in through --web and wait in its lobby.
    #[arg(long, default_value_t = 0)]
    pub programs: usize,
    /// How many more programs log in through --web and only keep the lobby open, never
    /// waiting: the crowd a server holds between its games (what they are sent is counted).
    #[arg(long, default_value_t = 0, requires = "web")]
    pub idle: usize,
    /// The idle programs follow the lobby's lists (who is here, the open challenges), as a
    /// player's page does; without it they do not (`list=0`), as programs need not.
    #[arg(long, requires = "idle")]
    pub idle_lists: bool,
    /// How long each participant thinks before it moves, in milliseconds (each time drawn
    /// between half and one and a half of it); 0: at once. Bots that think load the server as
    /// CGOS's do, below its saturation, where latencies mean what they say.
    #[arg(long, default_value_t = 0)]
    pub think_ms: u64,
    /// The measured window, in seconds (after the warm-up).
    #[arg(long, default_value_t = 30.0)]
    pub seconds: f64,
    /// Seconds of play before the window opens (logins, first pairings).
    #[arg(long, default_value_t = 10.0)]
    pub warmup: f64,
    /// The server's process id: its CPU time (utime + stime) and memory (VmRSS) are read from
    /// /proc at the window's start and end. Several (instances), separated by commas or
    /// repeated: their CPU times and memories are summed.
    #[arg(long, value_delimiter = ',')]
    pub server_pid: Vec<u32>,
    /// Towards a loopback server, the first participant's source address; each next one takes
    /// the next address (127.0.0.2, 127.0.0.3, …), so that no cap per address is reached.
    #[arg(long, default_value = "127.0.0.2")]
    pub bind_from: Ipv4Addr,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Account names are PREFIX-cgos-K and PREFIX-web-K.
    #[arg(long, default_value = "load")]
    pub name_prefix: String,
    /// The accounts' password (accounts are created at their first login).
    #[arg(long, default_value = "loadtest-password")]
    pub password: String,
}

/// A game told after this long without its first move is counted as never begun.
const NEVER_BEGUN: Duration = Duration::from_secs(30);
/// The longest wait for a connection to open or a login to be answered.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// After a failed connection or a dropped one, a participant waits this long to try again.
const RETRY: Duration = Duration::from_secs(1);
/// How long a bot waits for the CGOS server's first line before it connects again.
const GREETING: Duration = Duration::from_secs(30);
/// At most this many kinds of error are told apart; the others are counted as `other`.
const MAX_ERROR_KINDS: usize = 40;
/// How the bots name their client after `e1`.
const CLIENT_ID: &str = "goref-loadtest";

pub fn run(args: &Args) -> Result<ExitCode> {
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        bail!("--seconds must be more than 0");
    }
    if !(args.warmup >= 0.0 && args.warmup.is_finite()) {
        bail!("--warmup must be 0 or more");
    }
    if args.cgos_bots + args.programs == 0 {
        bail!("nothing to run: give --cgos ADDR --cgos-bots N and/or --web URL --programs N");
    }
    if args.cgos_bots > 0 && args.cgos.is_empty() {
        bail!("--cgos-bots needs --cgos HOST:PORT");
    }
    if args.programs + args.idle > 0 && args.web.is_none() {
        bail!("--programs and --idle need --web URL");
    }
    let longest = format!(
        "{}-cgos-{}",
        args.name_prefix,
        args.cgos_bots.max(args.programs).max(args.idle)
    );
    if longest.len() > 24 || args.name_prefix.is_empty() {
        bail!("--name-prefix: account names are 1-24 characters ({longest} is too long)");
    }
    raise_open_files();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let report = runtime.block_on(load(args))?;
    if args.json {
        outln!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(ExitCode::SUCCESS)
}

// ------------------------------------------------------------------------------------------
// What is recorded

/// A game, by the door it was told through (a CGOS game number, a web game id).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum GameKey {
    Cgos(u64),
    Web(String),
}

/// The measured window.
#[derive(Clone, Copy, Debug)]
struct Window {
    start: Instant,
    end: Instant,
}

impl Window {
    fn contains(&self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }
}

/// Everything the participants saw, with the times that decide whether it is in the window.
#[derive(Default)]
struct Figures {
    cgos_moves: u64,
    web_moves: u64,
    relay: Vec<Duration>,
    ack: Vec<Duration>,
    waits: Vec<Duration>,
    started: HashSet<GameKey>,
    finished: HashSet<GameKey>,
    time_losses: HashSet<GameKey>,
    /// When each game was first told, and its first move.
    told: HashMap<GameKey, Instant>,
    first_move: HashMap<GameKey, Instant>,
    errors: u64,
    error_kinds: BTreeMap<String, u64>,
    /// By participant: told of a game or played a move in the window.
    busy: Vec<bool>,
    /// Bytes of the lobby's messages received in the window, by the waiting programs and by
    /// the idle ones, and the lobby's messages the idle ones received.
    lobby_bytes: u64,
    idle_bytes: u64,
    idle_messages: u64,
}

/// What the participants share: the window, the figures, and the CGOS moves on their way.
struct Shared {
    window: Window,
    figures: Mutex<Figures>,
    /// A CGOS move written (game, move number) and when, until its opponent reads it.
    in_flight: Mutex<HashMap<(u64, usize), Instant>>,
    /// Idle programs whose lobby is open now.
    idle_open: std::sync::atomic::AtomicUsize,
}

impl Shared {
    fn figures(&self) -> std::sync::MutexGuard<'_, Figures> {
        self.figures.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn in_flight(&self) -> std::sync::MutexGuard<'_, HashMap<(u64, usize), Instant>> {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An error of `kind` (counted over the whole run, warm-up included).
    fn error(&self, kind: &str, detail: &dyn std::fmt::Display) {
        tracing::debug!("loadtest: {kind}: {detail}");
        let mut f = self.figures();
        f.errors += 1;
        let kind: String = kind.chars().take(80).collect();
        if f.error_kinds.contains_key(&kind) || f.error_kinds.len() < MAX_ERROR_KINDS {
            *f.error_kinds.entry(kind).or_default() += 1;
        } else {
            *f.error_kinds.entry("other".into()).or_default() += 1;
        }
    }

    /// Participant `who` was told of game `key`; it had waited since `waiting`.
    fn told(&self, who: usize, key: GameKey, waiting: Option<Instant>) {
        let now = Instant::now();
        let mut f = self.figures();
        if self.window.contains(now) {
            f.busy[who] = true;
            if let Some(since) = waiting {
                f.waits.push(now - since);
            }
            f.started.insert(key.clone());
        }
        f.told.entry(key).or_insert(now);
    }

    /// A move of game `key` was played or seen.
    fn moved(&self, key: &GameKey) {
        let now = Instant::now();
        let mut f = self.figures();
        if !f.first_move.contains_key(key) {
            f.first_move.insert(key.clone(), now);
        }
    }

    /// Participant `who` played a move (CGOS: written; web: acknowledged `sent` ago).
    fn played(&self, who: usize, cgos: bool, sent: Option<Instant>) {
        let now = Instant::now();
        if !self.window.contains(now) {
            return;
        }
        let mut f = self.figures();
        f.busy[who] = true;
        if cgos {
            f.cgos_moves += 1;
        } else {
            f.web_moves += 1;
        }
        if let Some(sent) = sent {
            f.ack.push(now - sent);
        }
    }

    /// Game `key` ended; `on_time` when a clock decided it.
    fn finished(&self, key: GameKey, on_time: bool) {
        let now = Instant::now();
        if !self.window.contains(now) {
            return;
        }
        let mut f = self.figures();
        if on_time {
            f.time_losses.insert(key.clone());
        }
        f.finished.insert(key);
    }

    /// A CGOS move is written: move `n` of game `game`.
    fn sent(&self, game: u64, n: usize) {
        self.in_flight().insert((game, n), Instant::now());
    }

    /// A CGOS move is read: move `n` of game `game`.
    fn relayed(&self, game: u64, n: usize) {
        let now = Instant::now();
        let Some(sent) = self.in_flight().remove(&(game, n)) else {
            return;
        };
        if self.window.contains(now) {
            self.figures().relay.push(now - sent);
        }
    }

    /// A lobby message of `bytes` was received, by an idle program or by one that plays.
    fn lobby_message(&self, idle: bool, bytes: usize) {
        if !self.window.contains(Instant::now()) {
            return;
        }
        let mut f = self.figures();
        if idle {
            f.idle_bytes += bytes as u64;
            f.idle_messages += 1;
        } else {
            f.lobby_bytes += bytes as u64;
        }
    }

    /// Game `game` is over: its moves still on their way will never be read.
    fn forget(&self, game: u64) {
        self.in_flight().retain(|(g, _), _| *g != game);
    }
}

// ------------------------------------------------------------------------------------------
// The report

/// Percentiles of latencies or waits, in milliseconds (`null` without samples).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Spread {
    /// How many samples.
    pub count: usize,
    /// The median.
    pub p50_ms: Option<f64>,
    /// The 99th percentile (nearest rank).
    pub p99_ms: Option<f64>,
    /// The largest.
    pub max_ms: Option<f64>,
}

impl Spread {
    fn of(mut samples: Vec<Duration>) -> Spread {
        samples.sort_unstable();
        let rank = |p: usize| -> Option<f64> {
            if samples.is_empty() {
                return None;
            }
            let i = (samples.len() * p).div_ceil(100).max(1) - 1;
            Some(samples[i.min(samples.len() - 1)].as_secs_f64() * 1000.0)
        };
        Spread {
            count: samples.len(),
            p50_ms: rank(50),
            p99_ms: rank(99),
            max_ms: rank(100),
        }
    }

    fn text(&self, with_max: bool) -> String {
        let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} ms"));
        let mut s = format!("p50 {}  p99 {}", ms(self.p50_ms), ms(self.p99_ms));
        if with_max {
            s.push_str(&format!("  max {}", ms(self.max_ms)));
        }
        s.push_str(&format!("  ({} samples)", self.count));
        s
    }
}

/// The figures of a run (`--json` prints this).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// CGOS bots run.
    pub cgos_bots: usize,
    /// Web programs run.
    pub programs: usize,
    /// Idle programs run (`--idle`), and whether they followed the lobby's lists.
    pub idle: usize,
    /// Whether the idle programs followed the lobby's lists (`--idle-lists`).
    pub idle_lists: bool,
    /// Idle programs whose lobby was open at the window's start and at its end.
    pub idle_connected_start: usize,
    /// See `idle_connected_start`.
    pub idle_connected_end: usize,
    /// The warm-up, in seconds.
    pub warmup_s: f64,
    /// The measured window, in seconds.
    pub seconds: f64,
    /// Moves played in the window (CGOS moves written, web moves acknowledged).
    pub moves: u64,
    /// Of which by CGOS bots.
    pub cgos_moves: u64,
    /// Of which by web programs.
    pub web_moves: u64,
    /// Moves a second over the window.
    pub moves_per_s: f64,
    /// The server's CPU time (user + system) over the window, with --server-pid.
    pub server_cpu_s: Option<f64>,
    /// The server's CPU seconds per 1,000 moves.
    pub cpu_s_per_1000_moves: Option<f64>,
    /// The server's VmRSS at the window's start, MiB.
    pub rss_start_mib: Option<f64>,
    /// The server's VmRSS at the window's end, MiB.
    pub rss_end_mib: Option<f64>,
    /// This load generator's own CPU time over the window: with the server's, whether the
    /// machine's cores were saturated (then latencies include waiting for a core).
    pub generator_cpu_s: Option<f64>,
    /// Bytes a second of lobby messages received by the waiting programs, in all.
    pub lobby_bytes_per_s: f64,
    /// Bytes a second of lobby messages received by the idle programs, in all.
    pub idle_bytes_per_s: f64,
    /// Lobby messages a second received by the idle programs, in all.
    pub idle_messages_per_s: f64,
    /// CGOS: a bot's move written to the opponent bot's `play` read.
    pub relay: Spread,
    /// Web: a move sent to its `ack`.
    pub ack: Spread,
    /// From starting to wait to being told of a game.
    pub pairing_wait: Spread,
    /// Participants told of no game and playing none during the window.
    pub never_paired: usize,
    /// Games told of during the window.
    pub games_started: usize,
    /// Games whose end was told during the window.
    pub games_finished: usize,
    /// Games told during the window whose first move did not come within 30 s (games told in
    /// the window's last 30 s without a move yet are not judged).
    pub games_never_begun: usize,
    /// Games of the window ended by a clock (`+Time`).
    pub time_losses: usize,
    /// Errors over the whole run, warm-up included: connections refused or dropped, lines
    /// or messages that do not read, moves refused.
    pub errors: u64,
    /// The errors by kind.
    pub error_kinds: BTreeMap<String, u64>,
}

impl Report {
    fn table(&self) -> String {
        let mut out = String::new();
        let mut row = |what: &str, value: String| {
            out.push_str(&format!("{what:<28}{value}\n"));
        };
        row(
            "participants",
            format!(
                "{} CGOS bots, {} web programs, {} idle; {} s measured after {} s of warm-up",
                self.cgos_bots, self.programs, self.idle, self.seconds, self.warmup_s
            ),
        );
        row(
            "moves",
            format!(
                "{} ({:.1}/s; CGOS {}, web {})",
                self.moves, self.moves_per_s, self.cgos_moves, self.web_moves
            ),
        );
        if let Some(cpu) = self.server_cpu_s {
            let per = self
                .cpu_s_per_1000_moves
                .map_or("-".into(), |c| format!("{c:.3} s"));
            row("server CPU", format!("{cpu:.2} s ({per} per 1,000 moves)"));
        }
        if let (Some(a), Some(b)) = (self.rss_start_mib, self.rss_end_mib) {
            row(
                "server VmRSS",
                format!("{a:.1} MiB at start, {b:.1} MiB at end"),
            );
        }
        if let Some(cpu) = self.generator_cpu_s {
            row("load generator CPU", format!("{cpu:.2} s"));
        }
        if self.idle > 0 {
            row(
                "idle programs",
                format!(
                    "{} ({} lists), {} connected at the start, {} at the end; received {:.0} B/s \
                     ({:.1} messages/s) in all",
                    self.idle,
                    if self.idle_lists {
                        "following the"
                    } else {
                        "not following the"
                    },
                    self.idle_connected_start,
                    self.idle_connected_end,
                    self.idle_bytes_per_s,
                    self.idle_messages_per_s
                ),
            );
        }
        if self.programs > 0 {
            row(
                "lobby traffic",
                format!(
                    "{:.0} B/s to the waiting programs in all",
                    self.lobby_bytes_per_s
                ),
            );
        }
        row("CGOS relay latency", self.relay.text(true));
        row("web ack latency", self.ack.text(false));
        row("pairing wait", self.pairing_wait.text(true));
        row("never paired", self.never_paired.to_string());
        row(
            "games",
            format!(
                "{} started, {} finished, {} told but never begun, {} lost on time",
                self.games_started, self.games_finished, self.games_never_begun, self.time_losses
            ),
        );
        let kinds: Vec<String> = self
            .error_kinds
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect();
        row(
            "errors",
            if kinds.is_empty() {
                self.errors.to_string()
            } else {
                format!("{} ({})", self.errors, kinds.join("; "))
            },
        );
        out
    }
}

// ------------------------------------------------------------------------------------------
// The server's process

/// The CPU seconds (user + system) and VmRSS (MiB) of process `pid`.
/// A process's CPU seconds and resident memory (MiB), when read.
type Sample = (Option<f64>, Option<f64>);

/// [`process_sample`] of each process, summed (`None` in one makes the sum `None`); `None`
/// for no process.
fn processes_sample(pids: &[u32]) -> Option<Sample> {
    if pids.is_empty() {
        return None;
    }
    let samples: Vec<Sample> = pids.iter().map(|&pid| process_sample(pid)).collect();
    let cpu = samples.iter().map(|s| s.0).sum::<Option<f64>>();
    let rss = samples.iter().map(|s| s.1).sum::<Option<f64>>();
    Some((cpu, rss))
}

fn process_sample(pid: u32) -> Sample {
    let cpu = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| cpu_seconds(&stat));
    let rss = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0);
    (cpu, rss)
}

/// utime + stime of a /proc/PID/stat line, in seconds (the fields after the command's `)`).
fn cpu_seconds(stat: &str) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After ")": state is field 3 of the line; utime and stime are fields 14 and 15.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks = if ticks > 0 { ticks as f64 } else { 100.0 };
    Some((utime + stime) as f64 / ticks)
}

/// Raises the limit on open files to the hard limit (a participant holds up to three sockets).
fn raise_open_files() {
    #[cfg(unix)]
    // SAFETY: getrlimit/setrlimit on a local struct.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

// ------------------------------------------------------------------------------------------
// The run

/// Participant `k`'s source address towards `target`: `--bind-from` plus `k` when the target
/// is loopback (IPv4), else none (the system chooses).
fn source(bind_from: Ipv4Addr, k: usize, target: SocketAddr) -> Result<Option<IpAddr>> {
    if !matches!(target.ip(), IpAddr::V4(ip) if ip.is_loopback()) {
        return Ok(None);
    }
    let n = u32::try_from(k)
        .ok()
        .and_then(|k| u32::from(bind_from).checked_add(k))
        .map(Ipv4Addr::from)
        .filter(Ipv4Addr::is_loopback)
        .ok_or_else(|| anyhow!("--bind-from {bind_from}: no loopback address for the {k}th"))?;
    Ok(Some(IpAddr::V4(n)))
}

async fn resolve(host: &str) -> Result<SocketAddr> {
    tokio::net::lookup_host(host)
        .await
        .with_context(|| format!("resolving {host}"))?
        .next()
        .ok_or_else(|| anyhow!("{host}: no address"))
}

/// The web server's `host:port` (for URLs and `Host`) and its address.
async fn web_target(url: &str) -> Result<(String, SocketAddr)> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| anyhow!("--web '{url}' does not start with http://"))?;
    let host = rest.split('/').next().unwrap_or_default().to_string();
    let addr = resolve(&host).await?;
    Ok((host, addr))
}

async fn load(args: &Args) -> Result<Report> {
    let mut cgos = Vec::with_capacity(args.cgos.len());
    if args.cgos_bots > 0 {
        for door in &args.cgos {
            cgos.push(resolve(door).await?);
        }
    }
    let web = match &args.web {
        Some(url) if args.programs + args.idle > 0 => Some(web_target(url).await?),
        _ => None,
    };
    let participants = args.cgos_bots + args.programs + args.idle;
    let t0 = Instant::now();
    let warmup = Duration::from_secs_f64(args.warmup);
    let seconds = Duration::from_secs_f64(args.seconds);
    let window = Window {
        start: t0 + warmup,
        end: t0 + warmup + seconds,
    };
    let shared = Arc::new(Shared {
        window,
        figures: Mutex::new(Figures {
            busy: vec![false; participants],
            ..Figures::default()
        }),
        in_flight: Mutex::new(HashMap::new()),
        idle_open: std::sync::atomic::AtomicUsize::new(0),
    });
    let (stop_tx, stop) = watch::channel(false);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let mut tasks = Vec::with_capacity(participants);
    if !cgos.is_empty() {
        for k in 0..args.cgos_bots {
            let addr = cgos[k % cgos.len()];
            let bot = Bot {
                who: k,
                think_ms: args.think_ms,
                addr,
                bind: source(args.bind_from, k, addr)?,
                name: format!("{}-cgos-{}", args.name_prefix, k + 1),
                password: args.password.clone(),
                shared: shared.clone(),
                rng: Rng::new(seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            };
            tasks.push(tokio::spawn(bot.run(stop.clone())));
        }
    }
    if let Some((host, addr)) = web {
        for k in 0..args.programs + args.idle {
            let who = args.cgos_bots + k;
            let idle = k >= args.programs;
            let program = Program {
                who,
                idle: idle.then_some(args.idle_lists),
                think_ms: args.think_ms,
                addr,
                host: host.clone(),
                bind: source(args.bind_from, who, addr)?,
                name: if idle {
                    format!("{}-idle-{}", args.name_prefix, k - args.programs + 1)
                } else {
                    format!("{}-web-{}", args.name_prefix, k + 1)
                },
                password: args.password.clone(),
                shared: shared.clone(),
                rng: Rng::new(seed ^ (who as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            };
            tasks.push(tokio::spawn(program.run(stop.clone())));
        }
    }
    drop(stop);
    let idle_open = || shared.idle_open.load(std::sync::atomic::Ordering::Relaxed);
    let own = [std::process::id()];
    tokio::time::sleep_until(window.start.into()).await;
    let before = processes_sample(&args.server_pid);
    let generator_before = processes_sample(&own);
    let idle_connected_start = idle_open();
    tokio::time::sleep_until(window.end.into()).await;
    let after = processes_sample(&args.server_pid);
    let generator_after = processes_sample(&own);
    let idle_connected_end = idle_open();
    let _ = stop_tx.send(true);
    // Every participant closes its connections; those that have not within 10 s are dropped.
    let deadline = Instant::now() + Duration::from_secs(10);
    while tasks.iter().any(|t| !t.is_finished()) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for task in &tasks {
        task.abort();
    }
    for task in tasks {
        let _ = task.await;
    }
    let mut f = std::mem::take(&mut *shared.figures());
    let moves = f.cgos_moves + f.web_moves;
    let (cpu0, rss0) = before.unwrap_or((None, None));
    let (cpu1, rss1) = after.unwrap_or((None, None));
    let server_cpu_s = cpu0.zip(cpu1).map(|(a, b)| b - a);
    let generator_cpu_s = generator_before
        .and_then(|s| s.0)
        .zip(generator_after.and_then(|s| s.0))
        .map(|(a, b)| b - a);
    let never_begun = f
        .told
        .iter()
        .filter(|(_, told)| window.contains(**told))
        .filter(|(key, told)| match f.first_move.get(*key) {
            Some(first) => first.saturating_duration_since(**told) > NEVER_BEGUN,
            None => window.end.saturating_duration_since(**told) >= NEVER_BEGUN,
        })
        .count();
    Ok(Report {
        cgos_bots: args.cgos_bots,
        programs: args.programs,
        idle: args.idle,
        idle_lists: args.idle_lists,
        idle_connected_start,
        idle_connected_end,
        warmup_s: args.warmup,
        seconds: args.seconds,
        moves,
        cgos_moves: f.cgos_moves,
        web_moves: f.web_moves,
        moves_per_s: moves as f64 / args.seconds,
        server_cpu_s,
        cpu_s_per_1000_moves: server_cpu_s
            .filter(|_| moves > 0)
            .map(|c| c * 1000.0 / moves as f64),
        rss_start_mib: rss0,
        rss_end_mib: rss1,
        generator_cpu_s,
        lobby_bytes_per_s: f.lobby_bytes as f64 / args.seconds,
        idle_bytes_per_s: f.idle_bytes as f64 / args.seconds,
        idle_messages_per_s: f.idle_messages as f64 / args.seconds,
        relay: Spread::of(std::mem::take(&mut f.relay)),
        ack: Spread::of(std::mem::take(&mut f.ack)),
        pairing_wait: Spread::of(std::mem::take(&mut f.waits)),
        never_paired: f.busy[..args.cgos_bots + args.programs]
            .iter()
            .filter(|b| !**b)
            .count(),
        games_started: f.started.len(),
        games_finished: f.finished.len(),
        games_never_begun: never_begun,
        time_losses: f.time_losses.len(),
        errors: f.errors,
        error_kinds: f.error_kinds,
    })
}

/// A TCP connection to `addr` from `bind` (any port), when given.
async fn connect_from(bind: Option<IpAddr>, addr: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    if let Some(ip) = bind {
        socket.bind(SocketAddr::new(ip, 0))?;
    }
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, socket.connect(addr))
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "connect timed out"))??;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// Waits `delay`, or less when told to stop; `true` when told to stop.
async fn pause(delay: Duration, stop: &mut watch::Receiver<bool>) -> bool {
    if *stop.borrow() {
        return true;
    }
    tokio::select! {
        () = tokio::time::sleep(delay) => *stop.borrow(),
        _ = stop.changed() => true,
    }
}

/// How a session ended.
enum End {
    /// The run is over.
    Stopped,
    /// The connection closed or failed (counted): connect again.
    Dropped,
}

// ------------------------------------------------------------------------------------------
// CGOS bots

struct Bot {
    who: usize,
    think_ms: u64,
    addr: SocketAddr,
    bind: Option<IpAddr>,
    name: String,
    password: String,
    shared: Arc<Shared>,
    rng: Rng,
}

/// Thinks for about `think_ms` (half to one and a half of it); whether the run stopped
/// meanwhile.
async fn think(think_ms: u64, rng: &mut Rng, stop: &mut watch::Receiver<bool>) -> bool {
    if think_ms == 0 {
        return false;
    }
    let spread = usize::try_from(think_ms).unwrap_or(usize::MAX).max(1);
    let ms = think_ms / 2 + rng.below(spread) as u64;
    pause(Duration::from_millis(ms), stop).await
}

/// A CGOS game in progress, as a bot keeps it.
struct BotGame {
    id: u64,
    color: Color,
    game: Game,
}

impl Bot {
    async fn run(mut self, mut stop: watch::Receiver<bool>) {
        loop {
            if *stop.borrow() {
                return;
            }
            match connect_from(self.bind, self.addr).await {
                Ok(stream) => {
                    if let End::Stopped = self.session(stream, &mut stop).await {
                        return;
                    }
                }
                Err(e) => self.shared.error("cgos: cannot connect", &e),
            }
            if pause(RETRY, &mut stop).await {
                return;
            }
        }
    }

    async fn session(&mut self, stream: TcpStream, stop: &mut watch::Receiver<bool>) -> End {
        let (reader, mut writer) = stream.into_split();
        let mut lines = LineReader::new(BufReader::new(reader));
        let mut current: Option<BotGame> = None;
        let mut waiting: Option<Instant> = None;
        let mut candidates: Vec<Point> = Vec::new();
        let mut greeted = false;
        loop {
            // The server speaks first: a connection it never greets (one the kernel completed
            // but the server never accepted) is given up and made again.
            let greeting = async {
                if greeted {
                    std::future::pending().await
                } else {
                    tokio::time::sleep(GREETING).await;
                }
            };
            let line = tokio::select! {
                line = lines.next_line() => line,
                () = greeting => {
                    self.shared.error("cgos: no greeting", &format!("within {GREETING:?}"));
                    return End::Dropped;
                }
                _ = stop.changed() => {
                    let _ = writer.write_all(b"quit\n").await;
                    let _ = writer.shutdown().await;
                    return End::Stopped;
                }
            };
            greeted = true;
            let line = match line {
                Ok(Some(line)) => line,
                Ok(None) => {
                    if !*stop.borrow() {
                        self.shared
                            .error("cgos: the server closed the connection", &"");
                    }
                    return End::Dropped;
                }
                Err(ReadError::Io(e)) => {
                    self.shared.error("cgos: connection failed", &e);
                    return End::Dropped;
                }
                Err(ReadError::Line(e)) => {
                    self.shared.error("cgos: unreadable line", &e);
                    continue;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            let message = match CgosServerMessage::parse(&line) {
                Ok(m) => m,
                Err(e) => {
                    self.shared.error("cgos: unreadable line", &e);
                    continue;
                }
            };
            let reply = match message {
                CgosServerMessage::Protocol { .. } => Some(CgosClientMessage::Hello {
                    kind: ClientKind::Engine,
                    client: CLIENT_ID.into(),
                    genmove_analyze: false,
                }),
                CgosServerMessage::Username => Some(CgosClientMessage::Username(self.name.clone())),
                CgosServerMessage::Password => {
                    waiting = Some(Instant::now());
                    Some(CgosClientMessage::Password {
                        password: self.password.clone(),
                        new_password: None,
                    })
                }
                CgosServerMessage::Info(text) => {
                    if text.starts_with(goref_cgos::client::REPLACED_INFO) {
                        self.shared.error("cgos: replaced by another login", &text);
                    }
                    None
                }
                CgosServerMessage::Error(text) => {
                    self.shared.error(&format!("cgos: refused: {text}"), &"");
                    return End::Dropped;
                }
                CgosServerMessage::Setup(setup) => {
                    current = self.setup(setup, waiting.take());
                    None
                }
                CgosServerMessage::Genmove { color, .. } => {
                    if think(self.think_ms, &mut self.rng, stop).await {
                        let _ = writer.write_all(b"quit\n").await;
                        let _ = writer.shutdown().await;
                        return End::Stopped;
                    }
                    match self.genmove(current.as_mut(), color, &mut candidates) {
                        Some(answer) => Some(answer),
                        None => {
                            self.shared
                                .error("cgos: genmove out of turn", &format!("{color:?}"));
                            Some(CgosClientMessage::Move {
                                answer: Answer::Move(CgosMove::Pass),
                                analysis: None,
                            })
                        }
                    }
                }
                CgosServerMessage::Play { color, mv, .. } => {
                    self.play(current.as_mut(), color, mv);
                    None
                }
                CgosServerMessage::Gameover(over) => {
                    if let Some(game) = current.take() {
                        let on_time = matches!(
                            over.result,
                            CgosResult::Win {
                                by: CgosWin::Time,
                                ..
                            }
                        );
                        self.shared.finished(GameKey::Cgos(game.id), on_time);
                        self.shared.forget(game.id);
                    }
                    waiting = Some(Instant::now());
                    Some(CgosClientMessage::Ready)
                }
            };
            if let Some(reply) = reply {
                let line = format!("{reply}\n");
                if let Err(e) = writer.write_all(line.as_bytes()).await {
                    self.shared.error("cgos: connection failed", &e);
                    return End::Dropped;
                }
            }
        }
    }

    /// A game begins (or resumes with its moves so far).
    fn setup(&mut self, setup: goref_cgos::Setup, waiting: Option<Instant>) -> Option<BotGame> {
        let Some(color) = setup.color_of(&self.name) else {
            self.shared
                .error("cgos: a setup of others' game", &setup.game_id);
            return None;
        };
        let size = usize::from(setup.size);
        let rules = Ruleset::preset(Preset::Nstt).with_komi(setup.komi);
        let mut game = match Game::rect(size, size, rules) {
            Ok(g) => g,
            Err(e) => {
                self.shared.error("cgos: a setup's board", &e);
                return None;
            }
        };
        let key = GameKey::Cgos(setup.game_id);
        self.shared.told(self.who, key.clone(), waiting);
        for timed in &setup.moves {
            let mv = timed.mv.to_move(game.geometry());
            apply(&mut game, mv, &self.shared);
        }
        if !setup.moves.is_empty() {
            self.shared.moved(&key);
        }
        Some(BotGame {
            id: setup.game_id,
            color,
            game,
        })
    }

    /// The answer to `genmove`: a random move, written down as on its way.
    fn genmove(
        &mut self,
        current: Option<&mut BotGame>,
        color: Color,
        candidates: &mut Vec<Point>,
    ) -> Option<CgosClientMessage> {
        let g = current.filter(|g| g.color == color)?;
        if g.game.is_over() {
            g.game.resume();
        }
        let mv = if g.game.to_move() == color {
            random_move(&g.game, &mut self.rng, candidates)
        } else {
            Move::Pass
        };
        let cgos = CgosMove::from_move(g.game.geometry(), mv).unwrap_or(CgosMove::Pass);
        let n = g.game.moves().len();
        self.shared.sent(g.id, n);
        self.shared.moved(&GameKey::Cgos(g.id));
        self.shared.played(self.who, true, None);
        apply(&mut g.game, Some(mv), &self.shared);
        Some(CgosClientMessage::Move {
            answer: Answer::Move(cgos),
            analysis: None,
        })
    }

    /// The opponent's move.
    fn play(&mut self, current: Option<&mut BotGame>, color: Color, mv: CgosMove) {
        let Some(g) = current.filter(|g| g.color != color) else {
            self.shared
                .error("cgos: play out of turn", &format!("{color:?} {mv}"));
            return;
        };
        self.shared.relayed(g.id, g.game.moves().len());
        self.shared.moved(&GameKey::Cgos(g.id));
        if g.game.is_over() {
            g.game.resume();
        }
        let m = mv.to_move(g.game.geometry());
        apply(&mut g.game, m, &self.shared);
    }
}

/// Plays `mv` on a participant's board; one the board refuses (or off it) is an error, and
/// the board stays as it was.
fn apply(game: &mut Game, mv: Option<Move>, shared: &Shared) {
    let Some(mv) = mv else {
        shared.error("a move off the board", &"");
        return;
    };
    if game.is_over() {
        game.resume();
    }
    if let Err(e) = game.play(mv) {
        shared.error("a move the board refuses", &e);
    }
}

// ------------------------------------------------------------------------------------------
// Web programs

type Ws = WebSocketStream<TcpStream>;

struct Program {
    who: usize,
    /// An idle program (`--idle`): it keeps the lobby open and never waits; `true` when it
    /// follows the lobby's lists.
    idle: Option<bool>,
    think_ms: u64,
    addr: SocketAddr,
    host: String,
    bind: Option<IpAddr>,
    name: String,
    password: String,
    shared: Arc<Shared>,
    rng: Rng,
}

/// What the lobby says, read without the lobby's lists.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum LobbyMessage {
    Game(Box<GameStart>),
    Lobby,
    Error {
        code: String,
        message: String,
    },
    #[serde(other)]
    Other,
}

/// What a game says, read without the parts a random player does not need.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum GameMessage {
    Hello {
        seat: Option<Side>,
    },
    State(Box<LightState>),
    Moved(Box<LightMoved>),
    Ack,
    Error {
        code: String,
        message: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct LightState {
    version: u64,
    need: Need,
    moves: Vec<MoveView>,
    result: Option<String>,
}

/// What moves changed (`moved`), read as [`LightState`] is.
#[derive(Deserialize)]
struct LightMoved {
    from: u64,
    version: u64,
    need: Need,
    moves: Vec<MoveView>,
}

/// A web game in progress.
struct WebGame {
    id: String,
    mine: Side,
    ws: Ws,
    /// The board, and how many of the server's moves it has.
    board: Game,
    applied: usize,
    /// The latest state, and the version answered.
    last: Option<LightState>,
    acted: Option<u64>,
    /// When the move waiting for its ack was sent.
    sent: Option<Instant>,
}

/// The login's answer: the token.
#[derive(Deserialize)]
struct LoginAnswer {
    token: String,
}

impl Program {
    async fn run(mut self, mut stop: watch::Receiver<bool>) {
        loop {
            if *stop.borrow() {
                return;
            }
            let token = tokio::select! {
                token = self.login() => token,
                _ = stop.changed() => return,
            };
            match token {
                Ok(Ok(token)) => {
                    if let End::Stopped = self.session(&token, &mut stop).await {
                        return;
                    }
                }
                Ok(Err((status, retry_after))) => {
                    let kind = if status == 503 {
                        "web: login deferred 503 (the server is busy with logins)"
                    } else {
                        "web: login refused 429"
                    };
                    self.shared.error(kind, &"");
                    // Spread over a second, so the crowd does not come back at once.
                    let jitter = Duration::from_millis(self.rng.next_u64() % 1000);
                    if pause(retry_after + jitter, &mut stop).await {
                        return;
                    }
                    continue;
                }
                Err(e) => self.shared.error("web: login failed", &format!("{e:#}")),
            }
            if pause(RETRY, &mut stop).await {
                return;
            }
        }
    }

    /// `POST /api/login`, from the program's own address: the token, or the status of a 429
    /// or 503 and how long it asks to wait.
    async fn login(&self) -> Result<Result<String, (u16, Duration)>> {
        let body = serde_json::json!({
            "name": self.name,
            "password": self.password,
            "program": true,
            "create": true,
        })
        .to_string();
        let request = format!(
            "POST /api/login HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.host,
            body.len()
        );
        let mut stream = connect_from(self.bind, self.addr).await?;
        stream.write_all(request.as_bytes()).await?;
        let mut raw = Vec::new();
        tokio::time::timeout(CONNECT_TIMEOUT, stream.read_to_end(&mut raw))
            .await
            .context("no answer to the login")??;
        let text = String::from_utf8_lossy(&raw);
        let (head, body) = text
            .split_once("\r\n\r\n")
            .ok_or_else(|| anyhow!("no HTTP head in the login's answer"))?;
        let status: u16 = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| anyhow!("no HTTP status in the login's answer"))?;
        // 429: this address logs in too often; 503: the server has a crowd of logins to
        // check. Both say when to come back.
        if status == 429 || status == 503 {
            let seconds = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.trim()
                        .eq_ignore_ascii_case("retry-after")
                        .then(|| value.trim().parse::<u64>().ok())?
                })
                .unwrap_or(1);
            return Ok(Err((status, Duration::from_secs(seconds.clamp(1, 60)))));
        }
        if status != 200 {
            bail!(
                "HTTP {status}: {}",
                body.chars().take(200).collect::<String>()
            );
        }
        let answer: LoginAnswer =
            serde_json::from_str(body.trim()).context("no token in the login's answer")?;
        Ok(Ok(answer.token))
    }

    async fn open(&self, path: &str) -> Result<Ws> {
        let stream = connect_from(self.bind, self.addr).await?;
        let url = format!("ws://{}{path}", self.host);
        let (ws, _) = tokio::time::timeout(
            CONNECT_TIMEOUT,
            tokio_tungstenite::client_async_with_config(url, stream, Some(super::small_reads())),
        )
        .await
        .context("the WebSocket's handshake timed out")??;
        Ok(ws)
    }

    async fn session(&mut self, token: &str, stop: &mut watch::Receiver<bool>) -> End {
        let mut lobby = match self
            .open(&format!(
                "/api/lobby/ws?token={token}&list={}",
                u8::from(self.idle == Some(true))
            ))
            .await
        {
            Ok(ws) => ws,
            Err(e) => {
                self.shared
                    .error("web: the lobby does not open", &format!("{e:#}"));
                return End::Dropped;
            }
        };
        let mut game: Option<WebGame> = None;
        let mut done: HashSet<String> = HashSet::new();
        let mut waiting: Option<Instant> = None;
        let mut announced = false;
        let end = loop {
            tokio::select! {
                _ = stop.changed() => break End::Stopped,
                message = lobby.next() => {
                    let text = match message {
                        Some(Ok(Message::Text(t))) => t,
                        Some(Ok(Message::Close(_))) | None => {
                            self.shared.error("web: the server closed the lobby", &"");
                            break End::Dropped;
                        }
                        Some(Err(e)) => {
                            self.shared.error("web: the lobby failed", &e);
                            break End::Dropped;
                        }
                        Some(Ok(_)) => continue,
                    };
                    self.shared.lobby_message(self.idle.is_some(), text.len());
                    if self.idle.is_some() {
                        if !announced {
                            announced = true;
                            self.shared.idle_open.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        continue;
                    }
                    let message = match serde_json::from_str::<LobbyMessage>(text.as_str()) {
                        Ok(m) => m,
                        Err(e) => {
                            self.shared.error("web: a lobby message does not read", &e);
                            continue;
                        }
                    };
                    match message {
                        // The first lobby comes after the games still on: now wait.
                        LobbyMessage::Lobby if !announced => {
                            announced = true;
                            waiting = Some(Instant::now());
                            if !send_wait(&mut lobby).await {
                                self.shared.error("web: the lobby failed", &"writing");
                                break End::Dropped;
                            }
                        }
                        LobbyMessage::Game(start) if !done.contains(&start.id) => {
                            if game.as_ref().is_some_and(|g| g.id == start.id) {
                                continue;
                            }
                            if let Some(old) = game.take() {
                                self.shared.error("web: a game told while another is on", &old.id);
                                done.insert(old.id);
                            }
                            self.shared.told(self.who, GameKey::Web(start.id.clone()), waiting.take());
                            game = self.join(*start, token).await;
                        }
                        LobbyMessage::Error { code, message } => {
                            self.shared.error(&format!("web: lobby refused: {code}"), &message);
                        }
                        _ => {}
                    }
                }
                message = next_in(&mut game) => {
                    let over = match message {
                        Some(Ok(Message::Text(t))) => self.on_game(game.as_mut(), t.as_str()).await,
                        Some(Ok(Message::Close(_))) | None => {
                            self.shared.error("web: the server closed a game's WebSocket", &"");
                            true
                        }
                        Some(Err(e)) => {
                            self.shared.error("web: a game's WebSocket failed", &e);
                            true
                        }
                        Some(Ok(_)) => false,
                    };
                    if over {
                        if let Some(mut g) = game.take() {
                            let _ = g.ws.close(None).await;
                            done.insert(g.id);
                        }
                        waiting = Some(Instant::now());
                        if !send_wait(&mut lobby).await {
                            self.shared.error("web: the lobby failed", &"writing");
                            break End::Dropped;
                        }
                    }
                }
            }
        };
        if let Some(mut g) = game {
            let _ = g.ws.close(None).await;
        }
        if self.idle.is_some() && announced {
            self.shared
                .idle_open
                .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        }
        let _ = lobby.close(None).await;
        end
    }

    /// Opens the game's WebSocket.
    async fn join(&mut self, start: GameStart, token: &str) -> Option<WebGame> {
        let board = match start
            .config
            .ruleset()
            .map_err(|e| anyhow!("{e}"))
            .and_then(|rules| Ok(Game::rect(start.config.width, start.config.height, rules)?))
        {
            Ok(board) => board,
            Err(e) => {
                self.shared
                    .error("web: a game this program cannot play", &e);
                return None;
            }
        };
        let path = format!("/api/games/{}/ws?token={token}&changes=1", start.id);
        match self.open(&path).await {
            Ok(ws) => Some(WebGame {
                id: start.id,
                mine: start.color,
                ws,
                board,
                applied: 0,
                last: None,
                acted: None,
                sent: None,
            }),
            Err(e) => {
                self.shared
                    .error("web: a game's WebSocket does not open", &format!("{e:#}"));
                None
            }
        }
    }

    /// A message of the game; `true` when the game is over for this program.
    async fn on_game(&mut self, game: Option<&mut WebGame>, text: &str) -> bool {
        let Some(g) = game else { return false };
        let message = match serde_json::from_str::<GameMessage>(text) {
            Ok(m) => m,
            Err(e) => {
                self.shared.error("web: a game message does not read", &e);
                return false;
            }
        };
        match message {
            GameMessage::Hello { seat } => {
                if seat != Some(g.mine) {
                    self.shared.error("web: not seated in its game", &g.id);
                    return true;
                }
                false
            }
            GameMessage::Moved(change) => {
                match g.last.as_mut() {
                    // Already in the state this connection was sent.
                    Some(last) if change.version <= last.version => return false,
                    Some(last) if last.version == change.from => {
                        last.version = change.version;
                        last.need = change.need;
                        last.moves.extend(change.moves);
                    }
                    // A change of a state it has not: the whole state, please.
                    _ => {
                        let sync = ClientMessage::new(Command::Sync, change.from);
                        let text = serde_json::to_string(&sync).expect("messages serialise");
                        return g.ws.send(Message::text(text)).await.is_err();
                    }
                }
                self.shared.moved(&GameKey::Web(g.id.clone()));
                let version = change.version;
                if g.acted != Some(version) {
                    return !self.answer(g).await;
                }
                false
            }
            GameMessage::State(state) => {
                if let Some(result) = &state.result {
                    let r = result.to_ascii_lowercase();
                    let on_time = r.ends_with("+t") || r.ends_with("+time");
                    self.shared.finished(GameKey::Web(g.id.clone()), on_time);
                    return true;
                }
                if !state.moves.is_empty() {
                    self.shared.moved(&GameKey::Web(g.id.clone()));
                }
                let version = state.version;
                g.last = Some(*state);
                if g.acted != Some(version) {
                    return !self.answer(g).await;
                }
                false
            }
            GameMessage::Ack => {
                if let Some(sent) = g.sent.take() {
                    self.shared.played(self.who, false, Some(sent));
                }
                false
            }
            GameMessage::Error { code, message } => {
                self.shared
                    .error(&format!("web: move refused: {code}"), &message);
                g.sent = None;
                match code.as_str() {
                    // A newer state is on its way: it is answered.
                    "stale" => {
                        g.acted = None;
                        false
                    }
                    "rate_limited" => {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        g.acted = None;
                        !self.answer(g).await
                    }
                    _ => {
                        // Refused for another reason (illegal here?): the board is read again
                        // from the server's moves and the turn passed.
                        g.applied = usize::MAX;
                        g.acted = None;
                        !self.answer_with_pass(g).await
                    }
                }
            }
            GameMessage::Other => false,
        }
    }

    /// Brings the board to the server's moves (again from the start when it does not extend).
    fn sync(&self, g: &mut WebGame, moves: &[MoveView]) {
        if g.applied > moves.len() {
            g.board.reset();
            g.applied = 0;
        }
        for m in &moves[g.applied..] {
            let mv = match m.point {
                Some([x, y]) => g.board.geometry().at(x, y).map(Move::Play),
                None => Some(Move::Pass),
            };
            apply(&mut g.board, mv, &self.shared);
        }
        g.applied = moves.len();
    }

    /// Answers the latest state, if it asks this program anything; `false` when the game's
    /// WebSocket cannot be written to.
    async fn answer(&mut self, g: &mut WebGame) -> bool {
        let Some(state) = g.last.take() else {
            return true;
        };
        let command = match &state.need {
            Need::Move { color, .. } if *color == g.mine => {
                if self.think_ms > 0 {
                    let spread = usize::try_from(self.think_ms).unwrap_or(usize::MAX).max(1);
                    let ms = self.think_ms / 2 + self.rng.below(spread) as u64;
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                }
                self.sync(g, &state.moves);
                if g.board.is_over() {
                    g.board.resume();
                }
                let mine = match g.mine {
                    Side::B => Color::Black,
                    Side::W => Color::White,
                };
                let mut candidates = Vec::new();
                let mv = if g.board.to_move() == mine {
                    random_move(&g.board, &mut self.rng, &mut candidates)
                } else {
                    Move::Pass
                };
                let xy = match mv {
                    Move::Play(p) => g.board.geometry().coords(p),
                    Move::Pass => None,
                };
                Some(match xy {
                    Some((x, y)) => Command::Play { x, y },
                    None => Command::Pass,
                })
            }
            Need::PlayOut { color } if *color == g.mine => Some(Command::Pass),
            Need::DeadLists { missing } if *missing.of(g.mine) => {
                Some(Command::DeadList { points: Vec::new() })
            }
            Need::Marking { color } if *color == g.mine => Some(Command::Done),
            _ => None,
        };
        let version = state.version;
        g.last = Some(state);
        match command {
            Some(command) => self.send(g, command, version).await,
            None => true,
        }
    }

    /// Passes in answer to the latest state, when it asks this program for a move.
    async fn answer_with_pass(&mut self, g: &mut WebGame) -> bool {
        let Some(state) = &g.last else { return true };
        let mine = match &state.need {
            Need::Move { color, .. } | Need::PlayOut { color } => *color == g.mine,
            _ => false,
        };
        if !mine {
            return true;
        }
        let version = state.version;
        self.send(g, Command::Pass, version).await
    }

    async fn send(&mut self, g: &mut WebGame, command: Command, version: u64) -> bool {
        let is_move = matches!(command, Command::Play { .. } | Command::Pass);
        let Ok(text) = serde_json::to_string(&ClientMessage::new(command, version)) else {
            return false;
        };
        g.acted = Some(version);
        g.sent = is_move.then(Instant::now);
        if let Err(e) = g.ws.send(Message::text(text)).await {
            self.shared.error("web: a game's WebSocket failed", &e);
            return false;
        }
        true
    }
}

/// Asks the lobby to pair this program; `false` when the lobby cannot be written to.
async fn send_wait(lobby: &mut Ws) -> bool {
    let wait = goref_server::wire::LobbyClientMessage::wait(true);
    let Ok(text) = serde_json::to_string(&wait) else {
        return false;
    };
    lobby.send(Message::text(text)).await.is_ok()
}

/// The next message of the game in progress; never, without one.
async fn next_in(
    game: &mut Option<WebGame>,
) -> Option<Result<Message, tokio_tungstenite::tungstenite::Error>> {
    match game {
        Some(g) => g.ws.next().await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_ranks() {
        let samples: Vec<Duration> = (1..=200).map(Duration::from_millis).collect();
        let s = Spread::of(samples);
        assert_eq!(s.count, 200);
        assert_eq!(s.p50_ms, Some(100.0));
        assert_eq!(s.p99_ms, Some(198.0));
        assert_eq!(s.max_ms, Some(200.0));
        let one = Spread::of(vec![Duration::from_millis(7)]);
        assert_eq!(
            (one.p50_ms, one.p99_ms, one.max_ms),
            (Some(7.0), Some(7.0), Some(7.0))
        );
        assert_eq!(Spread::of(Vec::new()).p50_ms, None);
    }

    #[test]
    fn cpu_time_is_read_after_the_command_name() {
        // A command name with spaces and parentheses; utime 250, stime 50 ticks.
        let stat = "1234 (goref (x) y) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 9 0 100";
        // SAFETY: sysconf has no preconditions.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        assert_eq!(cpu_seconds(stat), Some(300.0 / ticks));
        assert_eq!(cpu_seconds("garbage"), None);
        // This process's own.
        let own = std::fs::read_to_string("/proc/self/stat").unwrap();
        assert!(cpu_seconds(&own).is_some());
    }

    #[test]
    fn sources_count_up_on_loopback_only() {
        let local: SocketAddr = "127.0.0.1:6867".parse().unwrap();
        let from: Ipv4Addr = "127.0.0.2".parse().unwrap();
        assert_eq!(
            source(from, 0, local).unwrap(),
            Some("127.0.0.2".parse().unwrap())
        );
        assert_eq!(
            source(from, 300, local).unwrap(),
            Some("127.0.1.46".parse().unwrap())
        );
        let remote: SocketAddr = "192.0.2.1:6867".parse().unwrap();
        assert_eq!(source(from, 5, remote).unwrap(), None);
        let last: Ipv4Addr = "127.255.255.255".parse().unwrap();
        assert!(source(last, 1, local).is_err());
    }
}
