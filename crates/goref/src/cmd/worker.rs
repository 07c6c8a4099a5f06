//! Tournaments played by workers on many machines, through PostgreSQL (crate goref-queue):
//! `goref tournament --queue URL` hands the games out and follows them (the `queued` module),
//! `goref worker --queue URL` plays them (here).
//!
//! A worker rebuilds the tournament's configuration exactly as the coordinator built it: the
//! coordinator stores its command line and the files it read (the `--config` file, the
//! openings), the worker parses them with the same code, and the two fingerprints must agree.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use clap::Parser;
use goref_gtp::{Engine, EngineSpec};
use goref_queue::{QueueErrorKind, Worker, WorkerInfo};
use goref_runner::tournament::{play_job, Pool};
use goref_runner::TournamentConfig;

use super::queued::{fingerprint, Spec};
use super::tournament;

/// Arguments of `goref worker`.
#[derive(clap::Args)]
pub struct Args {
    /// The PostgreSQL database of the queue (`postgres://user:password@host/db`; `PG*`
    /// variables fill what it leaves out).
    #[arg(long, value_name = "URL")]
    queue: String,
    /// Games played at once.
    #[arg(long, short = 'j', default_value_t = 1)]
    jobs: usize,
    /// Play only this tournament (default: the oldest one with games to play).
    #[arg(long)]
    tournament: Option<String>,
    /// Run an engine with another command on this machine: `NAME=COMMAND` (repeat).
    #[arg(long, value_name = "NAME=COMMAND")]
    engine_command: Vec<String>,
    /// How long a claimed game stays this worker's without a renewal (renewed every third of
    /// it while the game runs); a worker that dies loses its games after this.
    #[arg(long, default_value = "30s")]
    lease: String,
    /// Exit when no tournament has games to hand out (default: wait for one).
    #[arg(long)]
    until_idle: bool,
}

#[derive(Parser)]
struct Stored {
    #[command(flatten)]
    args: tournament::Args,
}

/// The tournament's configuration rebuilt from its stored spec, its files in `dir`, the
/// records going to `dir/out`.
fn rebuild(spec: &str, dir: &Path) -> anyhow::Result<TournamentConfig> {
    let spec: Spec = serde_json::from_str(spec).context("the stored tournament")?;
    let mut args =
        Stored::try_parse_from(std::iter::once("tournament".to_string()).chain(spec.argv))
            .map_err(|e| anyhow!("the stored command line: {e}"))?
            .args;
    if let Some(text) = &spec.config {
        let path = dir.join("tournament.toml");
        std::fs::write(&path, text)?;
        args.config = Some(path);
    }
    if !spec.openings.is_empty() {
        let openings = dir.join("openings");
        std::fs::create_dir_all(&openings)?;
        for (name, text) in &spec.openings {
            let name = Path::new(name)
                .file_name()
                .ok_or_else(|| anyhow!("an opening without a file name"))?;
            std::fs::write(openings.join(name), text)?;
        }
        args.openings = Some(openings);
    }
    args.out = Some(dir.join("out"));
    tournament::config(&args)
}

fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// Each engine's name and the version it gives over GTP.
async fn engine_versions(config: &TournamentConfig) -> anyhow::Result<Vec<(String, String)>> {
    let mut versions = Vec::with_capacity(config.entrants.len());
    for e in &config.entrants {
        let mut engine = Engine::start(&e.player.spec, &e.player.name, None)
            .await
            .map_err(|err| anyhow!("engine {}: {err}", e.player.name))?;
        let info = engine
            .check(config.settings.command_timeout)
            .await
            .map_err(|err| anyhow!("engine {}: {err}", e.player.name))?
            .clone();
        engine.shutdown(config.settings.grace).await;
        versions.push((
            e.player.name.clone(),
            format!("{} {}", info.name, info.version).trim().to_string(),
        ));
    }
    Ok(versions)
}

/// Runs `goref worker`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let lease = goref_clock::parse_duration(&args.lease).map_err(|e| anyhow!("--lease: {e}"))?;
    if lease < Duration::from_secs(1) {
        bail!("--lease: at least 1s");
    }
    let mut overrides = Vec::new();
    for o in &args.engine_command {
        let (name, command) = o
            .split_once('=')
            .ok_or_else(|| anyhow!("--engine-command {o}: expected NAME=COMMAND"))?;
        let spec =
            EngineSpec::parse(command).map_err(|e| anyhow!("--engine-command {name}: {e}"))?;
        overrides.push((name.to_string(), spec));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(work(args, lease, &overrides))
}

async fn work(
    args: &Args,
    lease: Duration,
    overrides: &[(String, EngineSpec)],
) -> anyhow::Result<ExitCode> {
    let base = WorkerInfo {
        id: goref_queue::random_id(),
        host: host_name(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        engines: Vec::new(),
    };
    eprintln!(
        "goref worker {}: on {}, {} game(s) at once",
        base.id,
        base.host,
        args.jobs.max(1)
    );
    let scratch = std::env::temp_dir().join(format!("goref-worker-{}", base.id));
    let lookout = Worker::new(
        goref_queue::connect(&args.queue)
            .await
            .map_err(|e| anyhow!("{e}"))?,
        base.clone(),
        lease,
    )
    .await
    .map_err(|e| anyhow!("{e}"))?;
    loop {
        let Some(stored) = lookout
            .tournament(args.tournament.as_deref())
            .await
            .map_err(|e| anyhow!("{e}"))?
        else {
            if args.until_idle {
                let _ = std::fs::remove_dir_all(&scratch);
                return Ok(ExitCode::SUCCESS);
            }
            lookout.pause(Duration::from_secs(2)).await;
            continue;
        };
        let dir = scratch.join(&stored.id);
        std::fs::create_dir_all(&dir)?;
        let mut config = rebuild(&stored.spec, &dir)?;
        if fingerprint(&config) != stored.fingerprint {
            bail!(
                "tournament {}: the configuration rebuilt here differs from the coordinator's",
                stored.id
            );
        }
        for (name, spec) in overrides {
            let entrant = config
                .entrants
                .iter_mut()
                .find(|e| e.player.name == *name)
                .ok_or_else(|| {
                    anyhow!("--engine-command: the tournament has no engine '{name}'")
                })?;
            entrant.player.spec = spec.clone();
        }
        let records = config.out.join(&config.records);
        std::fs::create_dir_all(&records)
            .with_context(|| format!("creating {}", records.display()))?;
        let engines = engine_versions(&config).await?;
        let config = Arc::new(config);
        let pool = Arc::new(Pool::default());
        let mut tasks = Vec::new();
        for k in 0..args.jobs.max(1) {
            let info = WorkerInfo {
                id: format!("{}-{k}", base.id),
                engines: engines.clone(),
                ..base.clone()
            };
            let conn = goref_queue::connect(&args.queue)
                .await
                .map_err(|e| anyhow!("{e}"))?;
            let mut worker = Worker::new(conn, info, lease)
                .await
                .map_err(|e| anyhow!("{e}"))?;
            if let Err(e) = worker.register(&stored.id).await {
                if let QueueErrorKind::EngineVersions(_) = e.kind() {
                    eprintln!("goref worker: tournament {}: {e}", stored.id);
                    return Ok(ExitCode::from(2));
                }
                return Err(anyhow!("{e}"));
            }
            let (config, pool, id) = (config.clone(), pool.clone(), stored.id.clone());
            tasks.push(tokio::spawn(async move {
                job_loop(Arc::new(worker), &id, &config, &pool, lease).await
            }));
        }
        for t in tasks {
            t.await.map_err(|e| anyhow!("{e}"))??;
        }
        pool.close(config.settings.grace).await;
        eprintln!(
            "goref worker: tournament {}: no game left to play",
            stored.id
        );
    }
}

/// Claims and plays games of `tournament` until none is left to hand out.
async fn job_loop(
    worker: Arc<Worker>,
    tournament: &str,
    config: &TournamentConfig,
    pool: &Pool,
    lease: Duration,
) -> anyhow::Result<()> {
    loop {
        let Some(claim) = worker.claim(tournament).await.map_err(|e| anyhow!("{e}"))? else {
            if !worker
                .open_work(tournament)
                .await
                .map_err(|e| anyhow!("{e}"))?
            {
                return Ok(());
            }
            worker.pause(Duration::from_secs(1)).await;
            continue;
        };
        let renewer = {
            let (worker, claim) = (worker.clone(), claim.clone());
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(lease / 3).await;
                    if !matches!(worker.renew(&claim).await, Ok(true)) {
                        return;
                    }
                }
            })
        };
        let played = play_job(config, pool, claim.job).await;
        renewer.abort();
        let line = played.map_err(|e| anyhow!("game {}: {e}", claim.job.number))?;
        let record = line
            .sgf
            .as_ref()
            .and_then(|p| std::fs::read_to_string(config.out.join(p)).ok());
        let stored = worker
            .complete(&claim, &line, record)
            .await
            .map_err(|e| anyhow!("{e}"))?;
        if !stored {
            eprintln!(
                "goref worker: game {} of {tournament}: the lease was lost; another worker plays it",
                claim.job.number
            );
        }
    }
}
