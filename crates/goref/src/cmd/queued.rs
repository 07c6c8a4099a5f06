//! `goref tournament --queue URL`, the coordinator's side of tournaments played by workers on
//! many machines through PostgreSQL (crate goref-queue): it stores the tournament's spec (what
//! a worker rebuilds its configuration from), hands the games out, follows them, and closes
//! the queue; `--status` shows the queue. The workers' side is the `worker` module.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{anyhow, Context};
use goref_queue::Queue;
use goref_runner::tournament::Fingerprint;
use goref_runner::{TournamentConfig, Venue};
use serde::{Deserialize, Serialize};

/// How a worker rebuilds the configuration.
#[derive(Serialize, Deserialize)]
pub(crate) struct Spec {
    /// `goref tournament`'s arguments as given.
    pub(crate) argv: Vec<String>,
    /// The `--config` file's text.
    pub(crate) config: Option<String>,
    /// The openings' files: name and text.
    pub(crate) openings: Vec<(String, String)>,
}

/// The stored queue of an output directory: the tournament's id.
#[derive(Serialize, Deserialize)]
struct QueueFile {
    tournament: String,
}

const QUEUE_FILE: &str = "queue.json";

pub(crate) fn fingerprint(config: &TournamentConfig) -> String {
    serde_json::to_string(&Fingerprint::of(config)).expect("a fingerprint serialises")
}

/// The coordinator: opens (or resumes) the queue of the tournament in `config.out`.
pub async fn coordinate(
    url: &str,
    config_text: Option<String>,
    openings: Vec<(String, String)>,
    config: &TournamentConfig,
) -> anyhow::Result<Venue> {
    std::fs::create_dir_all(&config.out)
        .with_context(|| format!("creating {}", config.out.display()))?;
    let file = config.out.join(QUEUE_FILE);
    let id = match std::fs::read_to_string(&file) {
        Ok(text) => {
            serde_json::from_str::<QueueFile>(&text)
                .with_context(|| format!("reading {}", file.display()))?
                .tournament
        }
        Err(_) => goref_queue::random_id(),
    };
    let argv: Vec<String> = std::env::args()
        .skip_while(|a| a != "tournament")
        .skip(1)
        .collect();
    let spec = Spec {
        argv,
        config: config_text,
        openings,
    };
    let conn = goref_queue::connect(url)
        .await
        .map_err(|e| anyhow!("{e}"))?;
    let queue = Queue::open(
        conn,
        &id,
        &serde_json::to_string(&spec)?,
        &fingerprint(config),
    )
    .await
    .map_err(|e| anyhow!("{e}"))?;
    std::fs::write(
        &file,
        serde_json::to_string(&QueueFile {
            tournament: id.clone(),
        })?,
    )
    .with_context(|| format!("writing {}", file.display()))?;
    eprintln!("goref: tournament {id} queued: `goref worker --queue URL` plays its games");
    Ok(Venue::Remote(Arc::new(queue)))
}

/// The coordinator, every game in: the queue hands out nothing more.
pub async fn finish(url: &str, out: &Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(out.join(QUEUE_FILE))?;
    let id = serde_json::from_str::<QueueFile>(&text)?.tournament;
    let conn = goref_queue::connect(url)
        .await
        .map_err(|e| anyhow!("{e}"))?;
    goref_queue::finish_tournament(&conn.client, &id)
        .await
        .map_err(|e| anyhow!("{e}"))?;
    Ok(())
}

/// `goref tournament --queue URL --status`.
pub fn print_status(url: &str) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let status = rt.block_on(async {
        let conn = goref_queue::connect(url)
            .await
            .map_err(|e| anyhow!("{e}"))?;
        goref_queue::status(&conn.client)
            .await
            .map_err(|e| anyhow!("{e}"))
    })?;
    outln!(
        "{:<18} {:<8} {:>7} {:>7} {:>7}",
        "tournament",
        "state",
        "queued",
        "running",
        "done"
    );
    for t in &status.tournaments {
        outln!(
            "{:<18} {:<8} {:>7} {:>7} {:>7}",
            t.id,
            t.state,
            t.queued,
            t.running,
            t.done
        );
    }
    outln!(
        "{:<22} {:<16} {:<10} {:<18} {:>6} {:>9} {:>9}  refused",
        "worker",
        "host",
        "version",
        "tournament",
        "games",
        "games/min",
        "seen (s)"
    );
    for w in &status.workers {
        outln!(
            "{:<22} {:<16} {:<10} {:<18} {:>6} {:>9.1} {:>9.1}  {}",
            w.id,
            w.host,
            w.version,
            w.tournament,
            w.games,
            w.games_per_minute,
            w.seen_seconds_ago,
            w.refused.as_deref().unwrap_or("")
        );
    }
    Ok(ExitCode::SUCCESS)
}
