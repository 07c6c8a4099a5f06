//! A tournament's games in PostgreSQL, played by workers on many machines.
//!
//! PostgreSQL is the coordinator, as job queues such as graphile-worker, River and Oban use it:
//! - the coordinating `goref tournament --queue URL` stores the tournament (how a worker
//!   rebuilds its configuration, and the configuration's fingerprint) and hands out its games
//!   batch by batch ([`Queue`] is its [`RemoteGames`]: the pairings, the SPRT and the results
//!   file stay in goref-tournament's runner);
//! - a worker ([`Worker`]) claims a game with `FOR UPDATE SKIP LOCKED` and a lease, renews the
//!   lease while the game runs, and completes it only if it still holds the lease: a worker that
//!   dies loses its lease, another plays the game again, and the game lands exactly once;
//! - a completed game is announced with `NOTIFY goref_queue`, which the coordinator `LISTEN`s to
//!   (and it looks every second anyway).
//!
//! The schema is versioned ([`migrate`]) and applied by whoever connects first.
//!
//! ```no_run
//! # async fn example() -> Result<(), goref_queue::QueueError> {
//! let client = goref_queue::connect("postgres://goref@db/goref").await?;
//! goref_queue::migrate(&client.client).await?;
//! # Ok(())
//! # }
//! ```

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use goref_runner::tournament::{BoxFuture, Landed, RemoteError};
use goref_runner::{Job, RemoteGames};
use goref_tournament::GameLine;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;
use tokio_postgres::{AsyncMessage, Client, NoTls};

/// The channel completed games are announced on.
pub const CHANNEL: &str = "goref_queue";

/// What went wrong with the queue.
#[derive(Debug)]
pub struct QueueError {
    kind: QueueErrorKind,
}

/// The kinds of [`QueueError`].
#[derive(Debug)]
pub enum QueueErrorKind {
    /// The database refused or failed.
    Database(String),
    /// The tournament in the database is another one than this configuration.
    Mismatch(String),
    /// This worker's engines are not the versions the tournament plays with.
    EngineVersions(String),
    /// Stored data that cannot be read.
    Corrupt(String),
}

impl QueueError {
    /// The kind.
    #[must_use]
    pub fn kind(&self) -> &QueueErrorKind {
        &self.kind
    }

    fn db(e: tokio_postgres::Error) -> QueueError {
        QueueError {
            kind: QueueErrorKind::Database(
                e.as_db_error()
                    .map_or_else(|| e.to_string(), |d| d.message().to_string()),
            ),
        }
    }

    fn corrupt(e: impl std::fmt::Display) -> QueueError {
        QueueError {
            kind: QueueErrorKind::Corrupt(e.to_string()),
        }
    }
}

impl std::fmt::Display for QueueError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            QueueErrorKind::Database(m) => write!(f, "database: {m}"),
            QueueErrorKind::Mismatch(m) => write!(f, "the queue holds another tournament: {m}"),
            QueueErrorKind::EngineVersions(m) => write!(f, "refused: {m}"),
            QueueErrorKind::Corrupt(m) => write!(f, "stored data cannot be read: {m}"),
        }
    }
}

impl std::error::Error for QueueError {}

/// A connection, with the notifications it receives.
pub struct Connection {
    /// The client.
    pub client: Client,
    /// Woken at every `NOTIFY goref_queue`.
    pub notified: Arc<Notify>,
}

/// Connects to PostgreSQL (`postgres://user:password@host/db`, or `host=… dbname=…`; the
/// usual `PG*` variables fill what the URL leaves out, as `pg_virtualenv` sets them), and
/// listens to [`CHANNEL`].
///
/// # Errors
///
/// The connection fails.
pub async fn connect(url: &str) -> Result<Connection, QueueError> {
    let config = pg_config(url)?;
    let (client, mut connection) = config.connect(NoTls).await.map_err(QueueError::db)?;
    let notified = Arc::new(Notify::new());
    let wake = notified.clone();
    tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(_)) => wake.notify_waiters(),
                Ok(_) => {}
                Err(_) => break,
            }
        }
    });
    client
        .batch_execute(&format!("LISTEN {CHANNEL}"))
        .await
        .map_err(QueueError::db)?;
    Ok(Connection { client, notified })
}

/// The connection settings of `url`, completed from the `PG*` environment variables.
fn pg_config(url: &str) -> Result<tokio_postgres::Config, QueueError> {
    goref_pg::config(url).map_err(QueueError::db)
}

/// The schema, version by version; [`migrate`] applies those not yet applied.
const MIGRATIONS: &[&str] = &["
CREATE TABLE queue_tournaments (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'running',
    engine_versions TEXT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE queue_games (
    tournament TEXT NOT NULL REFERENCES queue_tournaments (id),
    number INTEGER NOT NULL,
    job TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued',
    worker TEXT,
    lease_until TIMESTAMPTZ,
    attempts INTEGER NOT NULL DEFAULT 0,
    line TEXT,
    record TEXT,
    finished_at TIMESTAMPTZ,
    PRIMARY KEY (tournament, number)
);
CREATE INDEX queue_games_open ON queue_games (tournament, state, number);
CREATE TABLE queue_workers (
    id TEXT PRIMARY KEY,
    tournament TEXT NOT NULL,
    host TEXT NOT NULL,
    version TEXT NOT NULL,
    engines TEXT NOT NULL,
    refused TEXT,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    games INTEGER NOT NULL DEFAULT 0
);
"];

/// The advisory lock held while migrating (the server's store holds another).
const MIGRATION_LOCK: i64 = 7_216_403;

/// Applies the schema's versions not yet applied, each in a transaction of its own, under an
/// advisory lock (two processes starting at once do not both apply one): goref-pg's
/// [`goref_pg::migrate`] on table `goref_queue_migrations`.
///
/// # Errors
///
/// A database error, or a schema newer than this goref knows.
pub async fn migrate(client: &Client) -> Result<(), QueueError> {
    goref_pg::migrate(client, MIGRATION_LOCK, "goref_queue_migrations", MIGRATIONS)
        .await
        .map_err(|e| QueueError {
            kind: QueueErrorKind::Database(e.to_string()),
        })
}

/// A tournament as stored for its workers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredTournament {
    /// Its id.
    pub id: String,
    /// How a worker rebuilds the configuration (the command line's arguments and files).
    pub spec: String,
    /// The configuration's fingerprint (JSON), which a worker's rebuilt one must equal.
    pub fingerprint: String,
    /// `running`, `stopped` (no more games handed out) or `done`.
    pub state: String,
}

/// The coordinator's side: a tournament's games handed to the workers.
pub struct Queue {
    conn: Connection,
    tournament: String,
    /// Handed out in this run and not yet landed.
    waiting: Mutex<BTreeSet<i32>>,
}

impl Queue {
    /// Opens the queue of tournament `id` (created with `spec` and `fingerprint` when new).
    ///
    /// # Errors
    ///
    /// A database error, or [`QueueErrorKind::Mismatch`] when `id` holds a tournament with
    /// another fingerprint.
    pub async fn open(
        conn: Connection,
        id: &str,
        spec: &str,
        fingerprint: &str,
    ) -> Result<Queue, QueueError> {
        migrate(&conn.client).await?;
        conn.client
            .execute(
                "INSERT INTO queue_tournaments (id, spec, fingerprint) VALUES ($1, $2, $3) \
                 ON CONFLICT (id) DO NOTHING",
                &[&id, &spec, &fingerprint],
            )
            .await
            .map_err(QueueError::db)?;
        let row = conn
            .client
            .query_one(
                "SELECT fingerprint FROM queue_tournaments WHERE id = $1",
                &[&id],
            )
            .await
            .map_err(QueueError::db)?;
        let stored: String = row.get(0);
        if stored != fingerprint {
            return Err(QueueError {
                kind: QueueErrorKind::Mismatch(format!(
                    "tournament {id} was queued with other settings"
                )),
            });
        }
        // Started again: hand games out again.
        conn.client
            .execute(
                "UPDATE queue_tournaments SET state = 'running' WHERE id = $1",
                &[&id],
            )
            .await
            .map_err(QueueError::db)?;
        Ok(Queue {
            conn,
            tournament: id.to_string(),
            waiting: Mutex::new(BTreeSet::new()),
        })
    }

    async fn enqueue_jobs(&self, jobs: Vec<Job>) -> Result<(), QueueError> {
        for job in jobs {
            let number = i32::try_from(job.number).map_err(QueueError::corrupt)?;
            let text = serde_json::to_string(&job).map_err(QueueError::corrupt)?;
            self.conn
                .client
                .execute(
                    "INSERT INTO queue_games (tournament, number, job) VALUES ($1, $2, $3) \
                     ON CONFLICT (tournament, number) DO NOTHING",
                    &[&self.tournament, &number, &text],
                )
                .await
                .map_err(QueueError::db)?;
            self.waiting.lock().expect("waiting").insert(number);
        }
        Ok(())
    }

    async fn next_landed(&self) -> Result<Option<Landed>, QueueError> {
        loop {
            let waiting: Vec<i32> = self
                .waiting
                .lock()
                .expect("waiting")
                .iter()
                .copied()
                .collect();
            if waiting.is_empty() {
                return Ok(None);
            }
            let notified = self.conn.notified.notified();
            let row = self
                .conn
                .client
                .query_opt(
                    "SELECT number, line, record FROM queue_games \
                     WHERE tournament = $1 AND state = 'done' AND number = ANY($2) \
                     ORDER BY finished_at, number LIMIT 1",
                    &[&self.tournament, &waiting],
                )
                .await
                .map_err(QueueError::db)?;
            if let Some(row) = row {
                let number: i32 = row.get(0);
                let line: String = row.get(1);
                let record: Option<String> = row.get(2);
                let line: GameLine = serde_json::from_str(&line).map_err(QueueError::corrupt)?;
                self.waiting.lock().expect("waiting").remove(&number);
                return Ok(Some((line, record)));
            }
            // Stopped: only the games running can still land.
            let row = self
                .conn
                .client
                .query_one(
                    "SELECT t.state, (SELECT COUNT(*) FROM queue_games g WHERE g.tournament = t.id \
                     AND g.state = 'running' AND g.number = ANY($2)) FROM queue_tournaments t \
                     WHERE t.id = $1",
                    &[&self.tournament, &waiting],
                )
                .await
                .map_err(QueueError::db)?;
            let state: String = row.get(0);
            let running: i64 = row.get(1);
            if state != "running" && running == 0 {
                return Ok(None);
            }
            let _ = tokio::time::timeout(Duration::from_secs(1), notified).await;
        }
    }

    /// Marks the tournament done: every game is in.
    ///
    /// # Errors
    ///
    /// A database error.
    pub async fn finish(&self) -> Result<(), QueueError> {
        finish_tournament(&self.conn.client, &self.tournament).await
    }
}

/// Marks tournament `id` done: every game is in, and no more are handed out (the coordinator
/// closing a queue it did not open in this run).
///
/// # Errors
///
/// A database error.
pub async fn finish_tournament(client: &Client, id: &str) -> Result<(), QueueError> {
    client
        .execute(
            "UPDATE queue_tournaments SET state = 'done' WHERE id = $1",
            &[&id],
        )
        .await
        .map_err(QueueError::db)?;
    Ok(())
}

impl RemoteGames for Queue {
    fn enqueue(&self, jobs: Vec<Job>) -> BoxFuture<'_, Result<(), RemoteError>> {
        Box::pin(async move { self.enqueue_jobs(jobs).await.map_err(RemoteError::from) })
    }

    fn next(&self) -> BoxFuture<'_, Result<Option<Landed>, RemoteError>> {
        Box::pin(async move { self.next_landed().await.map_err(RemoteError::from) })
    }

    fn stop(&self) -> BoxFuture<'_, Result<(), RemoteError>> {
        Box::pin(async move {
            self.conn
                .client
                .execute(
                    "UPDATE queue_tournaments SET state = 'stopped' WHERE id = $1 AND state = 'running'",
                    &[&self.tournament],
                )
                .await
                .map(|_| ())
                .map_err(|e| RemoteError::from(QueueError::db(e)))
        })
    }
}

/// A game a worker claimed.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The tournament.
    pub tournament: String,
    /// The game.
    pub job: Job,
}

/// What a worker says about itself.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkerInfo {
    /// A unique id for this run of the worker.
    pub id: String,
    /// The machine's name.
    pub host: String,
    /// goref's version.
    pub version: String,
    /// Each engine's name and the version it gave over GTP, in seeding order.
    pub engines: Vec<(String, String)>,
}

/// The worker's side of the queue.
pub struct Worker {
    conn: Connection,
    /// Who this worker is.
    pub info: WorkerInfo,
    lease: Duration,
}

/// A random id.
#[must_use]
pub fn random_id() -> String {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("operating system randomness");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Worker {
    /// A worker whose claims hold for `lease` unless renewed.
    ///
    /// # Errors
    ///
    /// A database error.
    pub async fn new(
        conn: Connection,
        info: WorkerInfo,
        lease: Duration,
    ) -> Result<Worker, QueueError> {
        migrate(&conn.client).await?;
        Ok(Worker { conn, info, lease })
    }

    /// The oldest tournament still handing out games (or `id`'s).
    ///
    /// # Errors
    ///
    /// A database error.
    pub async fn tournament(
        &self,
        id: Option<&str>,
    ) -> Result<Option<StoredTournament>, QueueError> {
        let rows = self
            .conn
            .client
            .query(
                "SELECT id, spec, fingerprint, state FROM queue_tournaments \
                 WHERE state = 'running' AND ($1::TEXT IS NULL OR id = $1) ORDER BY created_at, id LIMIT 1",
                &[&id],
            )
            .await
            .map_err(QueueError::db)?;
        Ok(rows.first().map(|r| StoredTournament {
            id: r.get(0),
            spec: r.get(1),
            fingerprint: r.get(2),
            state: r.get(3),
        }))
    }

    /// Registers this worker for `tournament` and checks its engines: the first worker's
    /// engine versions are the tournament's; a worker with others is refused (and recorded so).
    ///
    /// # Errors
    ///
    /// [`QueueErrorKind::EngineVersions`], or a database error.
    pub async fn register(&mut self, tournament: &str) -> Result<(), QueueError> {
        let engines = serde_json::to_string(&self.info.engines).map_err(QueueError::corrupt)?;
        let tx = self
            .conn
            .client
            .transaction()
            .await
            .map_err(QueueError::db)?;
        let row = tx
            .query_one(
                "SELECT engine_versions FROM queue_tournaments WHERE id = $1 FOR UPDATE",
                &[&tournament],
            )
            .await
            .map_err(QueueError::db)?;
        let stored: Option<String> = row.get(0);
        let refused = match &stored {
            None => {
                tx.execute(
                    "UPDATE queue_tournaments SET engine_versions = $2 WHERE id = $1",
                    &[&tournament, &engines],
                )
                .await
                .map_err(QueueError::db)?;
                None
            }
            Some(s) if *s == engines => None,
            Some(s) => Some(format!(
                "this worker's engines are {engines}, the tournament's are {s}"
            )),
        };
        tx.execute(
            "INSERT INTO queue_workers (id, tournament, host, version, engines, refused) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO UPDATE SET \
             tournament = excluded.tournament, engines = excluded.engines, refused = excluded.refused, seen_at = now()",
            &[&self.info.id, &tournament, &self.info.host, &self.info.version, &engines, &refused],
        )
        .await
        .map_err(QueueError::db)?;
        tx.commit().await.map_err(QueueError::db)?;
        match refused {
            Some(why) => Err(QueueError {
                kind: QueueErrorKind::EngineVersions(why),
            }),
            None => Ok(()),
        }
    }

    /// Claims the next game of `tournament` that is queued or whose lease has run out.
    ///
    /// # Errors
    ///
    /// A database error.
    pub async fn claim(&self, tournament: &str) -> Result<Option<Claim>, QueueError> {
        let lease_ms = i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX);
        let row = self
            .conn
            .client
            .query_opt(
                "UPDATE queue_games SET state = 'running', worker = $2, attempts = attempts + 1, \
                 lease_until = now() + $3::float8 * interval '1 millisecond' \
                 WHERE (tournament, number) = (SELECT g.tournament, g.number FROM queue_games g \
                   JOIN queue_tournaments t ON t.id = g.tournament AND t.state = 'running' \
                   WHERE g.tournament = $1 AND (g.state = 'queued' OR (g.state = 'running' AND g.lease_until < now())) \
                   ORDER BY g.number LIMIT 1 FOR UPDATE OF g SKIP LOCKED) \
                 RETURNING job",
                &[&tournament, &self.info.id, &(lease_ms as f64)],
            )
            .await
            .map_err(QueueError::db)?;
        let Some(row) = row else { return Ok(None) };
        let job: String = row.get(0);
        Ok(Some(Claim {
            tournament: tournament.to_string(),
            job: serde_json::from_str(&job).map_err(QueueError::corrupt)?,
        }))
    }

    /// Renews the lease of a claimed game; `false` when this worker no longer holds it.
    ///
    /// # Errors
    ///
    /// A database error.
    pub async fn renew(&self, claim: &Claim) -> Result<bool, QueueError> {
        let lease_ms = i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX);
        let number = i32::try_from(claim.job.number).map_err(QueueError::corrupt)?;
        let n = self
            .conn
            .client
            .execute(
                "UPDATE queue_games SET lease_until = now() + $4::float8 * interval '1 millisecond' \
                 WHERE tournament = $1 AND number = $2 AND worker = $3 AND state = 'running'",
                &[&claim.tournament, &number, &self.info.id, &(lease_ms as f64)],
            )
            .await
            .map_err(QueueError::db)?;
        self.conn
            .client
            .execute(
                "UPDATE queue_workers SET seen_at = now() WHERE id = $1",
                &[&self.info.id],
            )
            .await
            .map_err(QueueError::db)?;
        Ok(n == 1)
    }

    /// Stores a played game, if this worker still holds its claim (else another worker has it
    /// and this result is dropped: each game lands once), and announces it. Returns whether
    /// it was stored. One statement: the game, the worker's count and the notification
    /// commit together.
    ///
    /// # Errors
    ///
    /// A database error.
    pub async fn complete(
        &self,
        claim: &Claim,
        line: &GameLine,
        record: Option<String>,
    ) -> Result<bool, QueueError> {
        let number = i32::try_from(claim.job.number).map_err(QueueError::corrupt)?;
        let text = serde_json::to_string(line).map_err(QueueError::corrupt)?;
        let row = self
            .conn
            .client
            .query_one(
                "WITH done AS (UPDATE queue_games SET state = 'done', line = $4, record = $5, \
                   finished_at = now() \
                   WHERE tournament = $1 AND number = $2 AND worker = $3 AND state = 'running' \
                   RETURNING number), \
                 counted AS (UPDATE queue_workers SET games = games + 1, seen_at = now() \
                   WHERE id = $3 AND EXISTS (SELECT 1 FROM done) RETURNING id) \
                 SELECT COUNT(*) FROM done, LATERAL (SELECT pg_notify($6, $1)) AS notified",
                &[
                    &claim.tournament,
                    &number,
                    &self.info.id,
                    &text,
                    &record,
                    &CHANNEL,
                ],
            )
            .await
            .map_err(QueueError::db)?;
        let stored: i64 = row.get(0);
        Ok(stored == 1)
    }

    /// Whether `tournament` still hands out games (its coordinator may add a batch at any time:
    /// a Swiss round, a knockout's next games).
    ///
    /// # Errors
    ///
    /// A database error.
    pub async fn open_work(&self, tournament: &str) -> Result<bool, QueueError> {
        let row = self
            .conn
            .client
            .query_opt(
                "SELECT state = 'running' FROM queue_tournaments WHERE id = $1",
                &[&tournament],
            )
            .await
            .map_err(QueueError::db)?;
        Ok(row.is_some_and(|r| r.get(0)))
    }

    /// Waits for a notification or `d`, whichever comes first.
    pub async fn pause(&self, d: Duration) {
        let _ = tokio::time::timeout(d, self.conn.notified.notified()).await;
    }
}

/// A tournament's progress.
#[derive(Clone, Debug, Serialize)]
pub struct Progress {
    /// Its id.
    pub id: String,
    /// `running`, `stopped` or `done`.
    pub state: String,
    /// Games waiting for a worker.
    pub queued: i64,
    /// Games being played.
    pub running: i64,
    /// Games in.
    pub done: i64,
}

/// A worker as the queue knows it.
#[derive(Clone, Debug, Serialize)]
pub struct WorkerStatus {
    /// Its id (one per game slot).
    pub id: String,
    /// Its machine.
    pub host: String,
    /// Its goref version.
    pub version: String,
    /// The tournament it works for.
    pub tournament: String,
    /// Games it completed.
    pub games: i32,
    /// Seconds since it was last heard of.
    pub seen_seconds_ago: f64,
    /// Games a minute, from its start to when it was last heard of.
    pub games_per_minute: f64,
    /// Why it was refused, if it was.
    pub refused: Option<String>,
}

/// Progress of the tournaments in the queue, for `--status`.
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    /// The tournaments, oldest first.
    pub tournaments: Vec<Progress>,
    /// The workers, oldest first.
    pub workers: Vec<WorkerStatus>,
}

/// The queue's progress.
///
/// # Errors
///
/// A database error.
pub async fn status(client: &Client) -> Result<Status, QueueError> {
    migrate(client).await?;
    let tournaments = client
        .query(
            "SELECT t.id, t.state, \
               COUNT(g.number) FILTER (WHERE g.state = 'queued'), \
               COUNT(g.number) FILTER (WHERE g.state = 'running'), \
               COUNT(g.number) FILTER (WHERE g.state = 'done') \
             FROM queue_tournaments t LEFT JOIN queue_games g ON g.tournament = t.id \
             GROUP BY t.id, t.state, t.created_at ORDER BY t.created_at",
            &[],
        )
        .await
        .map_err(QueueError::db)?
        .iter()
        .map(|r| Progress {
            id: r.get(0),
            state: r.get(1),
            queued: r.get(2),
            running: r.get(3),
            done: r.get(4),
        })
        .collect();
    let workers = client
        .query(
            "SELECT id, host, version, tournament, games, \
               EXTRACT(EPOCH FROM now() - seen_at)::FLOAT8, refused, \
               EXTRACT(EPOCH FROM seen_at - started_at)::FLOAT8 \
             FROM queue_workers ORDER BY started_at, id",
            &[],
        )
        .await
        .map_err(QueueError::db)?
        .iter()
        .map(|r| WorkerStatus {
            id: r.get(0),
            host: r.get(1),
            version: r.get(2),
            tournament: r.get(3),
            games: r.get(4),
            seen_seconds_ago: r.get(5),
            refused: r.get(6),
            games_per_minute: {
                let (games, seconds): (i32, f64) = (r.get(4), r.get(7));
                if seconds > 0.0 {
                    60.0 * f64::from(games) / seconds
                } else {
                    0.0
                }
            },
        })
        .collect();
    Ok(Status {
        tournaments,
        workers,
    })
}

/// Against a real PostgreSQL cluster (`pg_virtualenv -t cargo test -p goref-queue`); without
/// one each test says it skips, and fails under `GOREF_REQUIRE_PG`.
#[cfg(test)]
mod tests {
    use super::*;
    use goref_referee::Ending;
    use goref_rules::{Color, Outcome, WinBy};
    use goref_tournament::pairing::{Pairing, Round};

    async fn fresh(name: &str) -> Option<Connection> {
        let url = goref_pg::testing::fresh_database("goref_queue_test", name)?;
        Some(connect(&url).await.expect("connects"))
    }

    fn worker_info(id: &str) -> WorkerInfo {
        WorkerInfo {
            id: id.to_string(),
            host: "here".to_string(),
            version: "test".to_string(),
            engines: vec![("a".into(), "1".into()), ("b".into(), "1".into())],
        }
    }

    fn job(number: usize) -> Job {
        Job {
            number,
            pairing: Pairing::new(Round::FIRST, (number + 1) % 2, number % 2),
            opening: None,
        }
    }

    /// Migrating again applies nothing; two processes migrating at once both succeed (the
    /// advisory lock); a schema newer than this goref is refused, not written over.
    #[tokio::test]
    async fn the_schema_is_applied_once_and_a_newer_one_is_refused() {
        let Some(first) = fresh("migrate").await else {
            return;
        };
        let url =
            goref_pg::testing::fresh_database("goref_queue_test", "migrate_two").expect("there");
        let (a, b) = (connect(&url).await.unwrap(), connect(&url).await.unwrap());
        let (ra, rb) = tokio::join!(migrate(&a.client), migrate(&b.client));
        ra.unwrap();
        rb.unwrap();
        migrate(&first.client).await.unwrap();
        migrate(&first.client).await.unwrap();
        for conn in [&first, &a] {
            let rows = conn
                .client
                .query(
                    "SELECT version FROM goref_queue_migrations ORDER BY version",
                    &[],
                )
                .await
                .unwrap();
            let versions: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
            assert_eq!(versions, (1..=MIGRATIONS.len() as i32).collect::<Vec<_>>());
        }
        first
            .client
            .execute(
                "INSERT INTO goref_queue_migrations (version) VALUES ($1)",
                &[&(MIGRATIONS.len() as i32 + 1)],
            )
            .await
            .unwrap();
        let err = migrate(&first.client).await.unwrap_err();
        assert!(
            matches!(err.kind(), QueueErrorKind::Database(m) if m.contains("newer than this goref knows")),
            "{err}"
        );
    }

    /// Games handed out are claimed once each, in number order; a worker that lost its
    /// claim cannot complete the game; a completed game lands at the coordinator with its
    /// line and record, once.
    #[tokio::test]
    async fn a_claimed_game_lands_once() {
        let Some(conn) = fresh("lands").await else {
            return;
        };
        let queue = Queue::open(conn, "t1", "{}", "fp").await.unwrap();
        // Another fingerprint under the same id is refused.
        let again = connect(&db_url("lands")).await.unwrap();
        let refused = Queue::open(again, "t1", "{}", "other").await.err().unwrap();
        assert!(
            matches!(refused.kind(), QueueErrorKind::Mismatch(_)),
            "{refused}"
        );

        queue.enqueue(vec![job(1), job(2)]).await.unwrap();
        let (w1, w2) = (worker("lands", "w1").await, worker("lands", "w2").await);
        let c1 = w1.claim("t1").await.unwrap().expect("game 1");
        let c2 = w2.claim("t1").await.unwrap().expect("game 2");
        assert_eq!((c1.job, c2.job), (job(1), job(2)));
        assert!(w1.claim("t1").await.unwrap().is_none(), "nothing left");

        let won = Outcome::win(Color::White, WinBy::Resignation);
        let names = ["a".to_string(), "b".to_string()];
        let line = GameLine::of(1, &c1.job.pairing, names, won, Ending::Resignation);
        // w2 does not hold game 1: its result is dropped.
        let stolen = Claim {
            tournament: "t1".into(),
            job: c1.job,
        };
        assert!(!w2.complete(&stolen, &line, None).await.unwrap());
        assert!(w1.renew(&c1).await.unwrap());
        assert!(!w2.renew(&stolen).await.unwrap());
        assert!(w1
            .complete(&c1, &line, Some("(;GM[1])".into()))
            .await
            .unwrap());
        assert!(!w1.complete(&c1, &line, None).await.unwrap(), "once");
        let (landed, record) = queue.next().await.unwrap().expect("game 1 landed");
        assert_eq!(landed, line);
        assert_eq!(record.as_deref(), Some("(;GM[1])"));
        // Game 2 is still running: stopping leaves it to land or not.
        queue.stop().await.unwrap();
        assert!(!w2.open_work("t1").await.unwrap());
    }

    /// A worker with a lease of a minute on database `db` of [`fresh`].
    async fn worker(db: &str, id: &str) -> Worker {
        let conn = connect(&db_url(db)).await.unwrap();
        Worker::new(conn, worker_info(id), Duration::from_secs(60))
            .await
            .unwrap()
    }

    fn db_url(name: &str) -> String {
        format!("postgres:///goref_queue_test_{}_{name}", std::process::id())
    }
}
