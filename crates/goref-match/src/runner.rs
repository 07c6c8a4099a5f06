//! The match: games scheduled over `--jobs` workers, each game its own engine processes;
//! results appended to `results.jsonl` (the resume file) as each game ends; Ctrl-C stops
//! cleanly; an SPRT can stop the match early.

use std::collections::{BTreeMap, VecDeque};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio::sync::{mpsc, watch};

use crate::game::{play_game, GameReport, Player, Settings, StartError};
use crate::stats::{Sprt, SprtState};
use crate::summary::Summary;

/// The name of the results file in the output directory.
pub const RESULTS_FILE: &str = "results.jsonl";
/// The match's settings, kept to refuse a resume with other settings.
pub const SETTINGS_FILE: &str = "match.json";

/// What a resumed match must agree on, one line a setting: the engines' commands and each
/// game's settings (the number of games may grow).
#[must_use]
pub fn fingerprint(config: &MatchConfig) -> Vec<(String, String)> {
    let s = &config.settings;
    vec![
        ("first engine".into(), config.players[0].spec.to_string()),
        ("second engine".into(), config.players[1].spec.to_string()),
        ("board".into(), format!("{}x{}", s.width, s.height)),
        ("rules".into(), s.rules.to_string()),
        ("time".into(), s.time.to_string()),
        ("end".into(), s.end.to_string()),
        ("handicap".into(), s.handicap.to_string()),
    ]
}

/// Checks that `out` holds no other match (writing this one's settings when it is new).
///
/// # Errors
///
/// [`MatchError::Io`] naming the setting that differs.
pub fn claim_directory(out: &Path, config: &MatchConfig) -> Result<(), MatchError> {
    let path = out.join(SETTINGS_FILE);
    let mine = fingerprint(config);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let stored: Vec<(String, String)> = serde_json::from_str(&text).map_err(|e| {
                MatchError::Io(format!(
                    "{} is not a match's settings ({e})",
                    path.display()
                ))
            })?;
            let empty = read_results(out)?.is_empty();
            for ((key, theirs), (_, ours)) in stored.iter().zip(&mine) {
                if theirs != ours && !empty {
                    return Err(MatchError::Io(format!(
                        "{} holds another match ({key}: '{ours}' here, '{theirs}' there): use another --out",
                        out.display()
                    )));
                }
            }
            // A directory where no game was recorded is free to take.
            std::fs::write(
                &path,
                serde_json::to_string_pretty(&mine).expect("serialises"),
            )
            .map_err(|e| MatchError::Io(format!("cannot write {}: {e}", path.display())))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if out.join(RESULTS_FILE).exists() {
                return Err(MatchError::Io(format!(
                    "{} holds results of something else (no {SETTINGS_FILE}): use another --out",
                    out.display()
                )));
            }
            std::fs::write(
                &path,
                serde_json::to_string_pretty(&mine).expect("serialises"),
            )
            .map_err(|e| MatchError::Io(format!("cannot write {}: {e}", path.display())))
        }
        Err(e) => Err(MatchError::Io(format!("{}: {e}", path.display()))),
    }
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The two engines; engine 0 has Black in odd-numbered games (game 1, 3, …).
    pub players: [Player; 2],
    pub games: usize,
    pub jobs: usize,
    pub settings: Settings,
    pub out: PathBuf,
    pub sprt: Option<Sprt>,
    /// Draw a progress bar on standard error.
    pub progress: bool,
}

/// Why a match stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every game was played.
    Complete,
    /// Ctrl-C: running games were finished (or abandoned after a second Ctrl-C).
    Interrupted,
    /// The SPRT decided.
    Sprt,
}

/// A match that could not go on.
#[derive(Debug)]
pub enum MatchError {
    /// An engine could not start: the match stopped.
    Start(StartError),
    /// The output directory or results file.
    Io(String),
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchError::Start(e) => write!(f, "match stopped: {e}"),
            MatchError::Io(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for MatchError {}

/// The results already in `out`, by game number; a line that does not parse (a write cut off
/// by a crash) is skipped, so that game is played again.
pub fn read_results(out: &Path) -> Result<BTreeMap<usize, GameReport>, MatchError> {
    let path = out.join(RESULTS_FILE);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(MatchError::Io(format!("{}: {e}", path.display()))),
    };
    let mut done = BTreeMap::new();
    for line in BufReader::new(file).lines() {
        let line = line.map_err(|e| MatchError::Io(format!("{}: {e}", path.display())))?;
        if let Ok(report) = serde_json::from_str::<GameReport>(&line) {
            done.insert(report.game, report);
        }
    }
    Ok(done)
}

/// The players of game `index` (from 0): colours alternate, engine 0 Black in even indices.
#[must_use]
pub fn colours(players: &[Player; 2], index: usize) -> (&Player, &Player) {
    if index.is_multiple_of(2) {
        (&players[0], &players[1])
    } else {
        (&players[1], &players[0])
    }
}

/// Plays the match, resuming from the results already in `out`.
pub async fn run_match(config: MatchConfig) -> Result<Summary, MatchError> {
    let started = Instant::now();
    let out = config.out.clone();
    std::fs::create_dir_all(&out)
        .map_err(|e| MatchError::Io(format!("cannot create {}: {e}", out.display())))?;
    claim_directory(&out, &config)?;
    let mut reports = read_results(&out)?;
    reports.retain(|&n, _| n <= config.games);
    let resumed = reports.len();
    let mut summary = Summary::new(&config, reports.values().cloned().collect());
    if let Some(sprt) = &config.sprt {
        if sprt.state(&summary.wld(0)) != SprtState::Continue {
            summary.stop = Stop::Sprt;
            return Ok(summary);
        }
    }
    let queue: VecDeque<usize> = (0..config.games)
        .filter(|i| !reports.contains_key(&(i + 1)))
        .collect();
    let bar = if config.progress {
        ProgressBar::with_draw_target(
            Some(config.games as u64),
            ProgressDrawTarget::stderr_with_hz(4),
        )
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games {elapsed_precise} eta {eta} {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_position(resumed as u64);
    bar.set_message(summary.score_line());

    let queue = Arc::new(Mutex::new(queue));
    let stop = Arc::new(AtomicBool::new(false));
    let (abandon_tx, abandon_rx) = watch::channel(false);
    let (tx, mut rx) = mpsc::unbounded_channel::<Result<GameReport, StartError>>();
    let config = Arc::new(config);
    let mut workers = Vec::new();
    for _ in 0..config.jobs.max(1) {
        let (queue, stop, tx, config) = (queue.clone(), stop.clone(), tx.clone(), config.clone());
        let mut abandon = abandon_rx.clone();
        workers.push(tokio::spawn(async move {
            loop {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Some(index) = queue.lock().ok().and_then(|mut q| q.pop_front()) else {
                    break;
                };
                let (black, white) = colours(&config.players, index);
                let game = play_game(index, black, white, &config.settings, &config.out);
                tokio::select! {
                    result = game => {
                        if tx.send(result).is_err() {
                            break;
                        }
                    }
                    _ = abandon.wait_for(|&a| a) => break,
                }
            }
        }));
    }
    drop(tx);

    let interrupted = Arc::new(AtomicBool::new(false));
    let signals = {
        let (stop, interrupted, bar) = (stop.clone(), interrupted.clone(), bar.clone());
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            stop.store(true, Ordering::SeqCst);
            interrupted.store(true, Ordering::SeqCst);
            bar.println(
                "goref: interrupted: finishing the running games (Ctrl-C again to abandon them)",
            );
            if tokio::signal::ctrl_c().await.is_ok() {
                bar.println("goref: abandoning the running games; `goref match` on the same --out plays them again");
                let _ = abandon_tx.send(true);
            }
        })
    };

    let path = out.join(RESULTS_FILE);
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| MatchError::Io(format!("cannot open {}: {e}", path.display())))?;
    // A line cut off by a crash stays, skipped when read; the next result starts a new line.
    let ends_cleanly = std::fs::read(&path)
        .map(|bytes| bytes.last().is_none_or(|&b| b == b'\n'))
        .unwrap_or(true);
    if !ends_cleanly {
        writeln!(file)
            .map_err(|e| MatchError::Io(format!("cannot write {}: {e}", path.display())))?;
    }
    let mut fatal = None;
    while let Some(result) = rx.recv().await {
        match result {
            Ok(report) => {
                let line = serde_json::to_string(&report).expect("a report serialises");
                writeln!(file, "{line}")
                    .and_then(|()| file.sync_data())
                    .map_err(|e| MatchError::Io(format!("cannot write {}: {e}", path.display())))?;
                tracing::info!(
                    game = report.game,
                    result = %report.result,
                    end = report.end.name(),
                    "game over"
                );
                summary.add(report);
                bar.inc(1);
                bar.set_message(summary.score_line());
                if let Some(sprt) = &config.sprt {
                    if sprt.state(&summary.wld(0)) != SprtState::Continue {
                        summary.stop = Stop::Sprt;
                        stop.store(true, Ordering::SeqCst);
                    }
                }
            }
            Err(e) => {
                tracing::warn!("{e}");
                stop.store(true, Ordering::SeqCst);
                fatal.get_or_insert(e);
            }
        }
    }
    for w in workers {
        let _ = w.await;
    }
    signals.abort();
    bar.finish_and_clear();
    if let Some(e) = fatal {
        return Err(MatchError::Start(e));
    }
    if interrupted.load(Ordering::SeqCst) {
        summary.stop = Stop::Interrupted;
    }
    summary.wall = started.elapsed();
    summary.resumed = resumed;
    Ok(summary)
}

/// CPU time goref itself has used (user + system), for the referee's share of wall time.
#[must_use]
pub fn own_cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return Duration::ZERO;
        }
        usage
    };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}
