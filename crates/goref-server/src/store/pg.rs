//! [`PgStore`]: the server's games in PostgreSQL (`goref serve --db postgres://…`).
//!
//! It keeps the promises of [`Store`] as [`SqliteStore`](super::SqliteStore) does:
//!
//! - every write is one PostgreSQL transaction, and a call returns only once it is committed;
//!   each connection sets `synchronous_commit = on`, so a commit is answered once its WAL is
//!   flushed (an acknowledged event survives the server, or PostgreSQL, being killed);
//!   PostgreSQL groups the flushes of concurrent commits itself;
//! - `append` stores the event and updates its game in one statement; the primary key
//!   `(game_id, seq)` refuses a taken `seq`, the foreign key an unknown game. Once it is
//!   committed, the event is announced to every server on the database (`NOTIFY
//!   goref_events`) by an announcer of its own ([`announce`]), not in the event's transaction:
//!   a transaction that notifies holds PostgreSQL's one notification lock until its commit is
//!   flushed, so that appends that notified committed one at a time (no group commit);
//! - `create_limited` counts the creator's unfinished games and inserts the new one in one
//!   transaction holding a transaction-scoped advisory lock keyed by the creator: two creations
//!   by one creator (from this server or another on the same database) run one after the
//!   other, and the count, taken under the lock in READ COMMITTED, sees every game committed
//!   before it. A row lock would not do: there may be no row to lock, and a `FOR UPDATE` read
//!   does not see rows inserted meanwhile. The same kind of lock makes "the first account is
//!   the tournament director" and "an account keeps its latest [`MAX_SESSIONS`] sessions" exact.
//!
//! The schema is versioned ([`MIGRATIONS`]) and applied at start under an advisory lock, each
//! version in a transaction of its own, as goref-queue does. Connections come from a small pool
//! ([`POOL_SIZE`], or `GOREF_PG_POOL`); a closed one is replaced on the next use.

use std::collections::HashMap;
use std::sync::Mutex;

use anyhow::{anyhow, Context, Result};
use goref_rules::{ByColor, Outcome};
use tokio::sync::{Semaphore, SemaphorePermit};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, NoTls, Row, Statement};

use super::{
    Created, GameSummary, NewAccount, Note, Presence, RatedResult, SeqTaken, Store, StoreError,
    StoreFuture, StoredChallenge, StoredGame, Taken, MAX_SESSIONS,
};
use crate::room::{Event, GameConfig};
use crate::wire::{Account, Rating};

/// Connections to the database at most, unless `GOREF_PG_POOL` says otherwise (1-1000).
pub const POOL_SIZE: usize = 8;

fn pool_size() -> Result<usize> {
    match std::env::var("GOREF_PG_POOL") {
        Err(_) => Ok(POOL_SIZE),
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| {
                anyhow!("GOREF_PG_POOL={v:?}: expected a number of connections, 1-1000")
            }),
    }
}

/// The advisory lock held while migrating (distinct from goref-queue's 7216403).
const MIGRATION_LOCK: i64 = 7216404;
/// The first key of the two-key advisory locks: creations by one creator, account creation,
/// an account's sessions. (Two-key locks live apart from one-key ones.)
const LOCK_CREATOR: i32 = 4_711_001;
const LOCK_ACCOUNTS: i32 = 4_711_002;
const LOCK_SESSIONS: i32 = 4_711_003;
const LOCK_CHALLENGES: i32 = 4_711_004;

/// The schema, version by version; [`PgStore::connect`] applies those not yet applied. Names
/// are compared without regard to (ASCII) case, as SQLite's `NOCASE` does: account names are
/// ASCII, and the indexes are on `lower(…)`.
pub const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    created_ms BIGINT NOT NULL,
    config TEXT NOT NULL,
    black_secret TEXT NOT NULL,
    white_secret TEXT NOT NULL,
    creator TEXT NOT NULL DEFAULT '',
    black_account TEXT,
    white_account TEXT,
    rated BOOLEAN NOT NULL DEFAULT false,
    moves BIGINT NOT NULL DEFAULT 0,
    last_ms BIGINT,
    result TEXT
);
CREATE INDEX games_created ON games (created_ms);
CREATE INDEX games_black ON games (lower(black_account));
CREATE INDEX games_white ON games (lower(white_account));
CREATE INDEX games_live_by_creator ON games (creator) WHERE result IS NULL;
CREATE INDEX games_live_created ON games (created_ms) WHERE result IS NULL;
CREATE INDEX games_live_last ON games (last_ms) WHERE result IS NULL;
CREATE TABLE events (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE accounts (
    name TEXT PRIMARY KEY,
    password TEXT NOT NULL,
    program BOOLEAN NOT NULL,
    td BOOLEAN NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE UNIQUE INDEX accounts_lower_name ON accounts (lower(name));
CREATE TABLE sessions (
    token TEXT PRIMARY KEY,
    name TEXT NOT NULL REFERENCES accounts (name),
    created_ms BIGINT NOT NULL
);
CREATE INDEX sessions_name ON sessions (name, created_ms);
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    created_ms BIGINT NOT NULL,
    body TEXT NOT NULL
);
",
    "
CREATE TABLE ratings (
    name TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
CREATE TABLE lobby_presence (
    conn TEXT PRIMARY KEY,
    instance TEXT NOT NULL,
    name TEXT NOT NULL,
    program BOOLEAN NOT NULL,
    waiting BOOLEAN NOT NULL,
    lease_ms BIGINT NOT NULL
);
CREATE INDEX lobby_presence_instance ON lobby_presence (instance);
CREATE INDEX lobby_presence_name ON lobby_presence (lower(name));
CREATE TABLE clock_resumes (
    at_ms BIGINT PRIMARY KEY
);
CREATE TABLE lobby_challenges (
    id TEXT PRIMARY KEY,
    by_name TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    body TEXT NOT NULL
);
",
    "
ALTER TABLE accounts ADD COLUMN banned BOOLEAN NOT NULL DEFAULT false;
",
    // Pools: each game's, each waiting connection's, and ratings by pool (those before pools
    // are the default pool's).
    "
ALTER TABLE games ADD COLUMN pool TEXT NOT NULL DEFAULT 'default';
CREATE INDEX games_pool_created ON games (pool, created_ms);
ALTER TABLE lobby_presence ADD COLUMN pools TEXT NOT NULL DEFAULT '';
CREATE TABLE pool_ratings (
    pool TEXT NOT NULL,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (pool, name)
);
INSERT INTO pool_ratings (pool, name, body) SELECT 'default', name, body FROM ratings;
DROP TABLE ratings;
",
    // Anchors: accounts whose rating in a pool the tournament director fixes.
    "
CREATE TABLE pool_anchors (
    pool TEXT NOT NULL,
    name TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (pool, name)
);
CREATE TABLE rating_history (
    id BIGSERIAL PRIMARY KEY,
    pool TEXT NOT NULL,
    name TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL
);
CREATE INDEX rating_history_name ON rating_history (pool, lower(name), at_ms);
",
    // Each server's lease, one row a server: its lobby connections live while it renews it
    // (renewing every connection's row held the database up at 10,000 connections).
    "
CREATE TABLE lobby_leases (
    instance TEXT PRIMARY KEY,
    lease_ms BIGINT NOT NULL
);
INSERT INTO lobby_leases (instance, lease_ms)
    SELECT instance, MAX(lease_ms) FROM lobby_presence GROUP BY instance;
",
];

/// A database error as one line: PostgreSQL's message and detail when it sent them.
fn db(e: tokio_postgres::Error) -> anyhow::Error {
    match e.as_db_error() {
        Some(d) => match d.detail() {
            Some(detail) => anyhow!("PostgreSQL: {} ({detail})", d.message()),
            None => anyhow!("PostgreSQL: {}", d.message()),
        },
        None => anyhow!("PostgreSQL: {e}"),
    }
}

fn int(v: u64, what: &str) -> Result<i64> {
    i64::try_from(v).map_err(|_| anyhow!("{what} {v} is too large to store"))
}

fn uint(v: i64, what: &str) -> Result<u64> {
    u64::try_from(v).map_err(|_| anyhow!("stored {what} {v} is negative"))
}

/// `url` without the password it may hold (`postgres://user:…@host/db`), for messages.
#[must_use]
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rsplit_once('@') {
        Some((userinfo, _)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:…{}", &rest[userinfo.len()..]),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

/// The connection settings of `url` (`postgres://…`, `postgresql://…` or `key=value …`),
/// completed from the `PG*` environment variables as libpq would (as `pg_virtualenv` sets
/// them; [`goref_pg::config`]), with the operating system's user when neither names one, and
/// the application name `goref serve`.
pub fn pg_config(url: &str) -> Result<tokio_postgres::Config> {
    let mut config = goref_pg::config(url)
        .map_err(|e| anyhow!("the database address {} cannot be read: {e}", redacted(url)))?;
    if config.get_user().is_none() {
        if let Some(u) = std::env::var("USER").ok().filter(|v| !v.is_empty()) {
            config.user(&u);
        }
    }
    if config.get_application_name().is_none() {
        config.application_name("goref serve");
    }
    Ok(config)
}

/// One connection and the statements prepared on it.
struct Conn {
    client: Client,
    statements: HashMap<&'static str, Statement>,
}

impl Conn {
    async fn prepare(&mut self, sql: &'static str) -> Result<Statement> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql).await.map_err(db)?;
        self.statements.insert(sql, s.clone());
        Ok(s)
    }

    async fn query(&mut self, sql: &'static str, args: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>> {
        let s = self.prepare(sql).await?;
        self.client.query(&s, args).await.map_err(db)
    }

    async fn execute(&mut self, sql: &'static str, args: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        let s = self.prepare(sql).await?;
        self.client.execute(&s, args).await.map_err(db)
    }
}

/// A connection taken from the pool, given back when dropped (unless it is closed).
struct Pooled<'a> {
    pool: &'a Pool,
    conn: Option<Conn>,
    _permit: SemaphorePermit<'a>,
}

impl std::ops::Deref for Pooled<'_> {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        self.conn.as_ref().expect("held until dropped")
    }
}

impl std::ops::DerefMut for Pooled<'_> {
    fn deref_mut(&mut self) -> &mut Conn {
        self.conn.as_mut().expect("held until dropped")
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // A transaction left open by a cancelled call has its ROLLBACK queued by
            // tokio-postgres before the connection is used again.
            if !conn.client.is_closed() {
                if let Ok(mut idle) = self.pool.idle.lock() {
                    idle.push(conn);
                }
            }
        }
    }
}

struct Pool {
    config: tokio_postgres::Config,
    idle: Mutex<Vec<Conn>>,
    permits: Semaphore,
}

impl Pool {
    async fn connect(&self) -> Result<Conn> {
        let (client, connection) = self.config.connect(NoTls).await.map_err(db)?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                eprintln!("goref serve: the connection to PostgreSQL ended: {e}");
            }
        });
        // Acknowledge nothing before its WAL is on disk, whatever the server's default.
        client
            .batch_execute("SET synchronous_commit = on")
            .await
            .map_err(db)?;
        Ok(Conn {
            client,
            statements: HashMap::new(),
        })
    }

    async fn get(&self) -> Result<Pooled<'_>> {
        let permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| anyhow!("the PostgreSQL pool is closed"))?;
        let idle = loop {
            let next = self
                .idle
                .lock()
                .map_err(|_| anyhow!("the PostgreSQL pool is poisoned"))?
                .pop();
            match next {
                Some(conn) if conn.client.is_closed() => continue,
                other => break other,
            }
        };
        let conn = match idle {
            Some(conn) => conn,
            None => self.connect().await.context("connecting to PostgreSQL")?,
        };
        Ok(Pooled {
            pool: self,
            conn: Some(conn),
            _permit: permit,
        })
    }
}

/// The advisory lock held by the server that fires timers.
const LEADER_LOCK: i64 = 7_216_405;

/// Tries every 0.5 s to take the leader's lock on a connection of its own, and holds it while
/// that connection lives: the lock is the session's, so PostgreSQL releases it when the
/// server dies or its connection breaks, and another server takes it.
async fn lead(config: tokio_postgres::Config, tx: tokio::sync::watch::Sender<bool>) {
    // The first answer is told even when it is "no": a server starting waits for it.
    let mut told = false;
    loop {
        if let Ok((client, connection)) = config.connect(NoTls).await {
            let mut driver = tokio::spawn(connection);
            loop {
                let taken = client
                    .query_one("SELECT pg_try_advisory_lock($1)", &[&LEADER_LOCK])
                    .await
                    .map(|row| row.get::<_, bool>(0));
                match taken {
                    Ok(true) => {
                        told = true;
                        let _ = tx.send(true);
                        // Held until the connection ends; checked now and then, so that a
                        // broken network is noticed.
                        loop {
                            tokio::select! {
                                _ = &mut driver => break,
                                () = tokio::time::sleep(std::time::Duration::from_secs(5)) => {
                                    if client.simple_query("SELECT 1").await.is_err() {
                                        break;
                                    }
                                }
                            }
                        }
                        let _ = tx.send(false);
                        break;
                    }
                    Ok(false) => {
                        if !told {
                            told = true;
                            let _ = tx.send(false);
                        }
                    }
                    Err(_) => break,
                }
                if tx.is_closed() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            }
            driver.abort();
        }
        if tx.is_closed() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

/// Announces the events appended (`game:seq`, in the order given) on `goref_events`, in
/// batches (all that queued up meanwhile, one statement and one transaction each), on a
/// connection of its own whose commits do not wait for the disk (a notification is not kept
/// anyway): the notification lock is held a moment, not through a flush. A batch that fails is
/// announced again on a new connection. Ends when the store is dropped.
async fn announce(
    config: tokio_postgres::Config,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    /// Payloads in one statement at most.
    const BATCH: usize = 1_000;
    let mut batch: Vec<String> = Vec::new();
    let mut connected: Option<(Client, Statement)> = None;
    loop {
        if batch.is_empty() {
            match rx.recv().await {
                Some(payload) => batch.push(payload),
                None => return,
            }
        }
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(payload) => batch.push(payload),
                Err(_) => break,
            }
        }
        if connected.as_ref().is_none_or(|(c, _)| c.is_closed()) {
            connected = None;
            let opened = async {
                let (client, connection) = config.connect(NoTls).await?;
                tokio::spawn(connection);
                client.batch_execute("SET synchronous_commit = off").await?;
                let statement = client
                    .prepare("SELECT pg_notify('goref_events', p) FROM unnest($1::text[]) AS p")
                    .await?;
                Ok::<_, tokio_postgres::Error>((client, statement))
            };
            match opened.await {
                Ok(c) => connected = Some(c),
                Err(e) => {
                    eprintln!(
                        "goref serve: the announcer cannot reach PostgreSQL: {}",
                        db(e)
                    );
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                    continue;
                }
            }
        }
        let (client, statement) = connected.as_ref().expect("connected");
        match client.execute(statement, &[&batch]).await {
            Ok(_) => batch.clear(),
            Err(e) => {
                eprintln!("goref serve: events not announced (again): {}", db(e));
                connected = None;
            }
        }
    }
}

/// Listens to `goref_events` (events appended: `game:seq`) and `goref_bus` (messages
/// published) on a connection of its own and passes them on; after a lost connection it
/// connects again and says that some may have been missed.
async fn listen(config: tokio_postgres::Config, tx: tokio::sync::mpsc::UnboundedSender<Note>) {
    use futures_util::StreamExt;
    loop {
        if let Ok((client, mut connection)) = config.connect(NoTls).await {
            let (notes_tx, mut notes) = tokio::sync::mpsc::unbounded_channel();
            let driver = tokio::spawn(async move {
                let mut messages =
                    futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                while let Some(Ok(message)) = messages.next().await {
                    if let tokio_postgres::AsyncMessage::Notification(n) = message {
                        let _ = notes_tx.send((n.channel().to_string(), n.payload().to_string()));
                    }
                }
            });
            if client
                .batch_execute("LISTEN goref_events; LISTEN goref_bus")
                .await
                .is_ok()
            {
                // Connected (again): what happened meanwhile is read from the store.
                if tx.send(Note::Missed).is_err() {
                    return;
                }
                while let Some((channel, payload)) = notes.recv().await {
                    let note = if channel == "goref_bus" {
                        Note::Published(payload)
                    } else {
                        let Some((id, seq)) = payload.rsplit_once(':') else {
                            continue;
                        };
                        let Ok(seq) = seq.parse() else { continue };
                        Note::Appended {
                            id: id.to_string(),
                            seq,
                        }
                    };
                    if tx.send(note).is_err() {
                        return;
                    }
                }
            }
            driver.abort();
        }
        if tx.is_closed() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

/// The server's store in PostgreSQL; see the [module](self).
pub struct PgStore {
    pool: Pool,
    /// Where, for messages (without the password).
    name: String,
    /// The events appended (`game:seq`) to announce ([`announce`]), started at the first.
    announcer: std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<String>>,
}

impl PgStore {
    /// Connects to `url` (completed from the `PG*` variables) and applies the migrations not
    /// yet applied.
    ///
    /// # Errors
    ///
    /// The address cannot be read, the database cannot be reached, or a migration fails.
    pub async fn connect(url: &str) -> Result<PgStore> {
        PgStore::connect_config(pg_config(url)?).await
    }

    /// As [`connect`](Self::connect), with settings already made.
    ///
    /// # Errors
    ///
    /// The database cannot be reached, or a migration fails.
    pub async fn connect_config(config: tokio_postgres::Config) -> Result<PgStore> {
        let name = describe(&config);
        let store = PgStore {
            pool: Pool {
                config,
                idle: Mutex::new(Vec::new()),
                permits: Semaphore::new(pool_size()?),
            },
            name,
            announcer: std::sync::OnceLock::new(),
        };
        let mut conn = store
            .pool
            .get()
            .await
            .with_context(|| format!("opening database {}", store.name))?;
        migrate(&mut conn.client)
            .await
            .with_context(|| format!("migrating database {}", store.name))?;
        drop(conn);
        Ok(store)
    }

    /// Announces `game:seq` to every server on the database, this one included.
    fn announce(&self, payload: String) {
        let announcer = self.announcer.get_or_init(|| {
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            tokio::spawn(announce(self.pool.config.clone(), rx));
            tx
        });
        let _ = announcer.send(payload);
    }

    /// The database, as `postgres://user@host:port/dbname` (no password).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
}

fn describe(config: &tokio_postgres::Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => String::new(),
    };
    let port = config
        .get_ports()
        .first()
        .map_or(String::new(), |p| format!(":{p}"));
    let user = config.get_user().map_or(String::new(), |u| format!("{u}@"));
    let db = config.get_dbname().unwrap_or_default();
    format!("postgres://{user}{host}{port}/{db}")
}

/// Applies the versions of [`MIGRATIONS`] not yet applied, each in a transaction, under an
/// advisory lock (servers starting together do not both apply one): goref-pg's one runner.
async fn migrate(client: &mut Client) -> Result<()> {
    goref_pg::migrate(
        client,
        MIGRATION_LOCK,
        "goref_server_migrations",
        MIGRATIONS,
    )
    .await?;
    Ok(())
}

const INSERT_GAME: &str = "INSERT INTO games (id, created_ms, config, black_secret, \
    white_secret, creator, black_account, white_account, rated, pool) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";

/// The parameters of [`INSERT_GAME`].
struct GameRow {
    id: String,
    created_ms: i64,
    config: String,
    black: String,
    white: String,
    creator: String,
    black_account: Option<String>,
    white_account: Option<String>,
    rated: bool,
    pool: String,
}

impl GameRow {
    fn new(game: &StoredGame) -> Result<GameRow> {
        Ok(GameRow {
            id: game.id.clone(),
            created_ms: int(game.created_ms, "creation time")?,
            config: serde_json::to_string(&game.config)?,
            black: game.secret_hashes.black.clone(),
            white: game.secret_hashes.white.clone(),
            creator: game.creator.clone(),
            black_account: game.config.players.as_ref().map(|p| p.black.clone()),
            white_account: game.config.players.as_ref().map(|p| p.white.clone()),
            rated: game.config.rated,
            pool: game.config.pool().to_string(),
        })
    }

    fn args(&self) -> [&(dyn ToSql + Sync); 10] {
        [
            &self.id,
            &self.created_ms,
            &self.config,
            &self.black,
            &self.white,
            &self.creator,
            &self.black_account,
            &self.white_account,
            &self.rated,
            &self.pool,
        ]
    }
}

fn account_row(r: &Row) -> Result<Account> {
    Ok(Account {
        name: r.try_get(0)?,
        program: r.try_get(1)?,
        td: r.try_get(2)?,
        created_ms: uint(r.try_get(3)?, "account creation time")?,
    })
}

fn challenge_row(r: &Row) -> Result<StoredChallenge> {
    Ok(StoredChallenge {
        id: r.try_get(0)?,
        by: r.try_get(1)?,
        created_ms: uint(r.try_get(2)?, "challenge time")?,
        body: r.try_get(3)?,
    })
}

fn ids(rows: &[Row]) -> Result<Vec<String>> {
    rows.iter()
        .map(|r| r.try_get::<_, String>(0).map_err(Into::into))
        .collect()
}

/// Lines of the list of games from rows of `id, created_ms, config, moves, result`.
fn summaries(rows: &[Row]) -> Result<Vec<GameSummary>> {
    rows.iter()
        .map(|r| {
            let id: String = r.try_get(0)?;
            let config: String = r.try_get(2)?;
            let config: GameConfig = serde_json::from_str(&config)
                .with_context(|| format!("the stored configuration of game {id}"))?;
            GameSummary::of(
                id,
                uint(r.try_get(1)?, "creation time")?,
                config,
                uint(r.try_get(3)?, "move count")?,
                r.try_get(4)?,
            )
        })
        .collect()
}

/// A store call of [`PgStore`]: its errors are the database's.
fn boxed<'a, T>(f: impl std::future::Future<Output = Result<T>> + Send + 'a) -> StoreFuture<'a, T> {
    Box::pin(async move { f.await.map_err(StoreError::Database) })
}

fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Store for PgStore {
    fn leader(&self) -> Option<tokio::sync::watch::Receiver<bool>> {
        let (tx, rx) = tokio::sync::watch::channel(false);
        tokio::spawn(lead(self.pool.config.clone(), tx));
        Some(rx)
    }

    fn notes(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<Note>> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let config = self.pool.config.clone();
        tokio::spawn(listen(config, tx));
        Some(rx)
    }

    fn publish(&self, payload: String) -> StoreFuture<'_, ()> {
        boxed(async move {
            let mut conn = self.pool.get().await?;
            conn.execute("SELECT pg_notify('goref_bus', $1)", &[&payload])
                .await
                .context("publishing to the other servers")?;
            Ok(())
        })
    }

    fn create(&self, game: StoredGame) -> StoreFuture<'_, ()> {
        boxed(async move {
            let row = GameRow::new(&game)?;
            let mut conn = self.pool.get().await?;
            conn.execute(INSERT_GAME, &row.args())
                .await
                .with_context(|| format!("storing game {}", game.id))?;
            Ok(())
        })
    }

    fn create_limited(&self, game: StoredGame, max_unfinished: usize) -> StoreFuture<'_, Created> {
        boxed(async move {
            let row = GameRow::new(&game)?;
            let mut conn = self.pool.get().await?;
            let insert = conn.prepare(INSERT_GAME).await?;
            let lock = conn
                .prepare("SELECT pg_advisory_xact_lock($1, hashtext($2))")
                .await?;
            let count = conn
                .prepare("SELECT COUNT(*) FROM games WHERE creator = $1 AND result IS NULL")
                .await?;
            let tx = conn.client.transaction().await.map_err(db)?;
            tx.execute(&lock, &[&LOCK_CREATOR, &game.creator])
                .await
                .map_err(db)?;
            // READ COMMITTED: this statement's snapshot is taken after the lock is held, so it
            // sees every creation by this creator that finished before.
            let unfinished: i64 = tx
                .query_one(&count, &[&game.creator])
                .await
                .map_err(db)?
                .get(0);
            let unfinished = usize::try_from(unfinished).unwrap_or(usize::MAX);
            if unfinished >= max_unfinished {
                tx.rollback().await.map_err(db)?;
                return Ok(Created::CreatorFull(unfinished));
            }
            tx.execute(&insert, &row.args())
                .await
                .map_err(db)
                .with_context(|| format!("storing game {}", game.id))?;
            tx.commit().await.map_err(db)?;
            Ok(Created::Stored)
        })
    }

    fn append(&self, id: &str, event: &Event, moves: u64) -> StoreFuture<'_, ()> {
        let id = id.to_string();
        let event_seq = event.seq;
        let event = (
            int(event.seq, "sequence number"),
            event
                .activity_ms()
                .map(|ms| int(ms, "event time"))
                .transpose(),
            serde_json::to_string(event),
        );
        Box::pin(async move {
            let (seq, at_ms, body) = (event.0?, event.1?, event.2?);
            let moves = int(moves, "move count")?;
            let mut conn = self.pool.get().await?;
            let statement = conn
                .prepare(
                    "WITH e AS (INSERT INTO events (game_id, seq, body) VALUES ($1, $2, $3) \
                     RETURNING game_id) \
                     UPDATE games SET moves = $4, last_ms = COALESCE($5, last_ms) \
                     WHERE id = (SELECT game_id FROM e)",
                )
                .await?;
            // One statement, one transaction: the event and its game's line together; then
            // the other servers on this database are told.
            let done = conn
                .client
                .execute(&statement, &[&id, &seq, &body, &moves, &at_ms])
                .await;
            match done {
                Ok(_) => {
                    self.announce(format!("{id}:{event_seq}"));
                    Ok(())
                }
                Err(e)
                    if e.as_db_error().is_some_and(|d| {
                        *d.code() == tokio_postgres::error::SqlState::UNIQUE_VIOLATION
                            && d.constraint() == Some("events_pkey")
                    }) =>
                {
                    Err(SeqTaken { id, seq: event_seq }.into())
                }
                Err(e) => Err(StoreError::Database(
                    db(e).context(format!("storing event {seq} of game {id}")),
                )),
            }
        })
    }

    fn finish(&self, id: &str, result: Outcome) -> StoreFuture<'_, ()> {
        let id = id.to_string();
        let result = result.to_sgf();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            conn.execute(
                "UPDATE games SET result = $2 WHERE id = $1",
                &[&id, &result],
            )
            .await
            .with_context(|| format!("storing the result of game {id}"))?;
            Ok(())
        })
    }

    fn load(&self, id: &str) -> StoreFuture<'_, Option<(StoredGame, Vec<Event>)>> {
        let id = id.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT created_ms, config, black_secret, white_secret, creator \
                     FROM games WHERE id = $1",
                    &[&id],
                )
                .await?;
            let Some(r) = rows.first() else {
                return Ok(None);
            };
            let config: String = r.try_get(1)?;
            let game = StoredGame {
                id: id.clone(),
                created_ms: uint(r.try_get(0)?, "creation time")?,
                config: serde_json::from_str(&config)
                    .with_context(|| format!("the stored configuration of game {id}"))?,
                secret_hashes: ByColor::new(r.try_get(2)?, r.try_get(3)?),
                creator: r.try_get(4)?,
            };
            let rows = conn
                .query(
                    "SELECT seq, body FROM events WHERE game_id = $1 ORDER BY seq",
                    &[&id],
                )
                .await?;
            let events = rows
                .iter()
                .map(|r| {
                    let seq: i64 = r.try_get(0)?;
                    let body: String = r.try_get(1)?;
                    serde_json::from_str::<Event>(&body)
                        .with_context(|| format!("stored event {seq} of game {id}"))
                })
                .collect::<Result<Vec<Event>>>()?;
            Ok(Some((game, events)))
        })
    }

    fn events_after(&self, id: &str, after: u64) -> StoreFuture<'_, Vec<Event>> {
        let id = id.to_string();
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT seq, body FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq",
                    &[&id, &after],
                )
                .await?;
            rows.iter()
                .map(|r| {
                    let seq: i64 = r.try_get(0)?;
                    let body: String = r.try_get(1)?;
                    serde_json::from_str::<Event>(&body)
                        .with_context(|| format!("stored event {seq} of game {id}"))
                })
                .collect::<Result<Vec<Event>>>()
        })
    }
    fn unfinished(&self) -> StoreFuture<'_, Vec<String>> {
        boxed(async move {
            let mut conn = self.pool.get().await?;
            ids(&conn
                .query("SELECT id FROM games WHERE result IS NULL", &[])
                .await?)
        })
    }

    fn started(&self) -> StoreFuture<'_, Vec<String>> {
        boxed(async move {
            let mut conn = self.pool.get().await?;
            ids(&conn
                .query(
                    "SELECT id FROM games WHERE result IS NULL AND last_ms IS NOT NULL",
                    &[],
                )
                .await?)
        })
    }

    fn due_to_close(
        &self,
        unstarted_before_ms: u64,
        idle_before_ms: u64,
        n: usize,
    ) -> StoreFuture<'_, Vec<String>> {
        let as_i64 = |ms: u64| i64::try_from(ms).unwrap_or(i64::MAX);
        let (unstarted, idle, n) = (
            as_i64(unstarted_before_ms),
            as_i64(idle_before_ms),
            limit(n),
        );
        boxed(async move {
            let mut conn = self.pool.get().await?;
            ids(&conn
                .query(
                    "(SELECT id FROM games WHERE result IS NULL AND last_ms IS NULL \
                      AND created_ms < $1 \
                     UNION ALL \
                     SELECT id FROM games WHERE result IS NULL AND last_ms < $2) \
                     LIMIT $3",
                    &[&unstarted, &idle, &n],
                )
                .await?)
        })
    }

    fn list(&self, n: usize) -> StoreFuture<'_, Vec<GameSummary>> {
        boxed(async move {
            let mut conn = self.pool.get().await?;
            summaries(
                &conn
                    .query(
                        "SELECT id, created_ms, config, moves, result FROM games \
                         ORDER BY created_ms DESC, id COLLATE \"C\" LIMIT $1",
                        &[&limit(n)],
                    )
                    .await?,
            )
        })
    }

    fn pool_games(
        &self,
        pool: &str,
        from_ms: u64,
        to_ms: u64,
        n: usize,
    ) -> StoreFuture<'_, Vec<GameSummary>> {
        let pool = pool.to_string();
        boxed(async move {
            let (from, to) = (int(from_ms, "time")?, int(to_ms, "time")?);
            let mut conn = self.pool.get().await?;
            summaries(
                &conn
                    .query(
                        "SELECT id, created_ms, config, moves, result FROM games \
                         WHERE pool = $1 AND created_ms >= $2 AND created_ms < $3 \
                         ORDER BY created_ms, id COLLATE \"C\" LIMIT $4",
                        &[&pool, &from, &to, &limit(n)],
                    )
                    .await?,
            )
        })
    }

    fn account(&self, name: &str) -> StoreFuture<'_, Option<(Account, String)>> {
        let name = name.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT name, program, td, created_ms, password FROM accounts \
                     WHERE lower(name) = lower($1)",
                    &[&name],
                )
                .await?;
            match rows.first() {
                Some(r) => Ok(Some((account_row(r)?, r.try_get(4)?))),
                None => Ok(None),
            }
        })
    }

    fn create_account(
        &self,
        account: NewAccount,
        td: Option<String>,
    ) -> StoreFuture<'_, Option<Account>> {
        boxed(async move {
            let created_ms = int(account.created_ms, "account creation time")?;
            let mut conn = self.pool.get().await?;
            let tx = conn.client.transaction().await.map_err(db)?;
            // One account created at a time: "the first account" is then well defined.
            tx.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_ACCOUNTS])
                .await
                .map_err(db)?;
            let taken: bool = tx
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM accounts WHERE lower(name) = lower($1))",
                    &[&account.name],
                )
                .await
                .map_err(db)?
                .get(0);
            if taken {
                tx.rollback().await.map_err(db)?;
                return Ok(None);
            }
            let td = match &td {
                Some(td) => td.eq_ignore_ascii_case(&account.name),
                None => tx
                    .query_one("SELECT NOT EXISTS (SELECT 1 FROM accounts)", &[])
                    .await
                    .map_err(db)?
                    .get(0),
            };
            tx.execute(
                "INSERT INTO accounts (name, password, program, td, created_ms) \
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    &account.name,
                    &account.phc,
                    &account.program,
                    &td,
                    &created_ms,
                ],
            )
            .await
            .map_err(db)
            .with_context(|| format!("creating account {}", account.name))?;
            tx.commit().await.map_err(db)?;
            Ok(Some(Account {
                name: account.name,
                program: account.program,
                td,
                created_ms: account.created_ms,
            }))
        })
    }

    fn create_session(&self, token_hash: String, name: String, now_ms: u64) -> StoreFuture<'_, ()> {
        boxed(async move {
            let now = int(now_ms, "session time")?;
            let keep = limit(MAX_SESSIONS);
            let mut conn = self.pool.get().await?;
            let tx = conn.client.transaction().await.map_err(db)?;
            tx.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext(lower($2)))",
                &[&LOCK_SESSIONS, &name],
            )
            .await
            .map_err(db)?;
            // The account's own spelling of its name, as the foreign key wants it.
            let stored = tx
                .execute(
                    "INSERT INTO sessions (token, name, created_ms) \
                     SELECT $1, name, $3 FROM accounts WHERE lower(name) = lower($2)",
                    &[&token_hash, &name, &now],
                )
                .await
                .map_err(db)
                .with_context(|| format!("storing a session of {name}"))?;
            if stored == 0 {
                return Err(anyhow!("storing a session: no account is named {name}"));
            }
            // An account keeps its latest sessions only.
            tx.execute(
                "DELETE FROM sessions WHERE lower(name) = lower($1) AND token NOT IN \
                 (SELECT token FROM sessions WHERE lower(name) = lower($1) \
                  ORDER BY created_ms DESC, token COLLATE \"C\" LIMIT $2)",
                &[&name, &keep],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(())
        })
    }

    fn session(&self, token_hash: &str) -> StoreFuture<'_, Option<Account>> {
        let token_hash = token_hash.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT a.name, a.program, a.td, a.created_ms FROM sessions s \
                     JOIN accounts a ON a.name = s.name WHERE s.token = $1 AND NOT a.banned",
                    &[&token_hash],
                )
                .await?;
            rows.first().map(account_row).transpose()
        })
    }

    fn accounts(&self) -> StoreFuture<'_, Vec<Account>> {
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT name, program, td, created_ms FROM accounts ORDER BY created_ms",
                    &[],
                )
                .await?;
            rows.iter().map(account_row).collect()
        })
    }

    fn set_banned(&self, name: &str, banned: bool) -> StoreFuture<'_, Option<String>> {
        let name = name.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let tx = conn.client.transaction().await.map_err(db)?;
            let rows = tx
                .query(
                    "UPDATE accounts SET banned = $2 WHERE lower(name) = lower($1) RETURNING name",
                    &[&name, &banned],
                )
                .await
                .map_err(db)?;
            let stored: Option<String> = rows.first().map(|r| r.try_get(0)).transpose()?;
            if let (Some(stored), true) = (&stored, banned) {
                tx.execute("DELETE FROM sessions WHERE name = $1", &[stored])
                    .await
                    .map_err(db)?;
            }
            tx.commit().await.map_err(db)?;
            Ok(stored)
        })
    }

    fn is_banned(&self, name: &str) -> StoreFuture<'_, bool> {
        let name = name.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT banned FROM accounts WHERE lower(name) = lower($1)",
                    &[&name],
                )
                .await?;
            Ok(match rows.first() {
                Some(r) => r.try_get(0)?,
                None => false,
            })
        })
    }

    fn live_games_by_size(&self) -> StoreFuture<'_, Vec<super::LiveCount>> {
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT pool, (config::json->>'width')::bigint, \
                     (config::json->>'height')::bigint, COUNT(*) FROM games \
                     WHERE result IS NULL GROUP BY 1, 2, 3 ORDER BY pool COLLATE \"C\", 2, 3",
                    &[],
                )
                .await?;
            let rows = rows
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?)))
                .collect::<Result<Vec<(String, i64, i64, i64)>>>()?;
            Ok(super::by_size(rows))
        })
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        boxed(async move {
            let mut conn = self.pool.get().await?;
            conn.query("SELECT 1", &[]).await?;
            Ok(())
        })
    }

    fn rated_results(&self, pool: &str) -> StoreFuture<'_, Vec<RatedResult>> {
        let pool = pool.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT black_account, white_account, result FROM games \
                     WHERE rated AND result IS NOT NULL AND black_account IS NOT NULL \
                     AND white_account IS NOT NULL AND pool = $1 \
                     ORDER BY created_ms, id COLLATE \"C\"",
                    &[&pool],
                )
                .await?;
            let rows = rows
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
                .collect::<Result<Vec<(String, String, String)>, tokio_postgres::Error>>()?;
            Ok(rows.into_iter().filter_map(RatedResult::read).collect())
        })
    }

    fn games_of(&self, name: &str, n: usize) -> StoreFuture<'_, Vec<GameSummary>> {
        let name = name.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            summaries(
                &conn
                    .query(
                        "SELECT id, created_ms, config, moves, result FROM games \
                         WHERE lower(black_account) = lower($1) \
                         OR lower(white_account) = lower($1) \
                         ORDER BY created_ms DESC, id COLLATE \"C\" LIMIT $2",
                        &[&name, &limit(n)],
                    )
                    .await?,
            )
        })
    }

    fn live_games_of(&self, name: &str) -> StoreFuture<'_, Vec<String>> {
        let name = name.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            ids(&conn
                .query(
                    "SELECT id FROM games WHERE result IS NULL AND \
                     (lower(black_account) = lower($1) OR lower(white_account) = lower($1)) \
                     ORDER BY created_ms",
                    &[&name],
                )
                .await?)
        })
    }

    fn save_tournament(
        &self,
        id: &str,
        created_ms: u64,
        body: String,
        previous: Option<String>,
    ) -> StoreFuture<'_, bool> {
        let id = id.to_string();
        boxed(async move {
            let created_ms = int(created_ms, "tournament creation time")?;
            let mut conn = self.pool.get().await?;
            let stored = match previous {
                None => {
                    conn.execute(
                        "INSERT INTO tournaments (id, created_ms, body) VALUES ($1, $2, $3) \
                         ON CONFLICT (id) DO NOTHING",
                        &[&id, &created_ms, &body],
                    )
                    .await
                }
                Some(previous) => {
                    conn.execute(
                        "UPDATE tournaments SET body = $2 WHERE id = $1 AND body = $3",
                        &[&id, &body, &previous],
                    )
                    .await
                }
            }
            .with_context(|| format!("storing tournament {id}"))?;
            Ok(stored == 1)
        })
    }

    fn tournaments(&self) -> StoreFuture<'_, Vec<String>> {
        boxed(async move {
            let mut conn = self.pool.get().await?;
            ids(&conn
                .query(
                    "SELECT body FROM tournaments ORDER BY created_ms, id COLLATE \"C\"",
                    &[],
                )
                .await?)
        })
    }

    fn save_ratings(&self, pool: &str, ratings: Vec<Rating>) -> StoreFuture<'_, ()> {
        let pool = pool.to_string();
        boxed(async move {
            let bodies = ratings
                .iter()
                .map(|r| Ok((r.name.clone(), serde_json::to_string(r)?)))
                .collect::<Result<Vec<(String, String)>>>()?;
            let mut conn = self.pool.get().await?;
            let tx = conn.client.transaction().await.map_err(db)?;
            tx.execute("DELETE FROM pool_ratings WHERE pool = $1", &[&pool])
                .await
                .map_err(db)?;
            let insert = tx
                .prepare("INSERT INTO pool_ratings (pool, name, body) VALUES ($1, $2, $3)")
                .await
                .map_err(db)?;
            for (name, body) in &bodies {
                tx.execute(&insert, &[&pool, name, body])
                    .await
                    .map_err(db)?;
            }
            tx.commit().await.map_err(db)?;
            Ok(())
        })
    }

    fn ratings(&self, pool: &str) -> StoreFuture<'_, Vec<Rating>> {
        let pool = pool.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query("SELECT body FROM pool_ratings WHERE pool = $1", &[&pool])
                .await?;
            let ratings = rows
                .iter()
                .map(|r| {
                    let body: String = r.try_get(0)?;
                    serde_json::from_str::<Rating>(&body).context("stored rating")
                })
                .collect::<Result<Vec<Rating>>>()?;
            Ok(super::best_first(ratings))
        })
    }

    fn set_anchor(&self, pool: &str, name: &str, rating: Option<f64>) -> StoreFuture<'_, ()> {
        // Names are kept as accounts spell them; matched without regard to case.
        let (pool, name) = (pool.to_string(), name.to_string());
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let tx = conn.client.transaction().await.map_err(db)?;
            tx.execute(
                "DELETE FROM pool_anchors WHERE pool = $1 AND lower(name) = lower($2)",
                &[&pool, &name],
            )
            .await
            .map_err(db)?;
            if let Some(r) = rating {
                tx.execute(
                    "INSERT INTO pool_anchors (pool, name, rating) VALUES ($1, $2, $3)",
                    &[&pool, &name, &r],
                )
                .await
                .map_err(db)?;
            }
            tx.commit().await.map_err(db)?;
            Ok(())
        })
    }

    fn anchors(&self, pool: &str) -> StoreFuture<'_, Vec<(String, f64)>> {
        let pool = pool.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT name, rating FROM pool_anchors WHERE pool = $1 \
                     ORDER BY lower(name) COLLATE \"C\"",
                    &[&pool],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<Result<Vec<(String, f64)>, tokio_postgres::Error>>()?)
        })
    }

    fn append_history(
        &self,
        pool: &str,
        points: Vec<(String, crate::wire::RatingPoint)>,
    ) -> StoreFuture<'_, ()> {
        let pool = pool.to_string();
        boxed(async move {
            if points.is_empty() {
                return Ok(());
            }
            let mut names = Vec::with_capacity(points.len());
            let mut at = Vec::with_capacity(points.len());
            let mut ratings = Vec::with_capacity(points.len());
            let mut games = Vec::with_capacity(points.len());
            for (name, p) in &points {
                names.push(name.clone());
                at.push(int(p.at_ms, "time")?);
                ratings.push(p.rating);
                games.push(i32::try_from(p.games).unwrap_or(i32::MAX));
            }
            let mut conn = self.pool.get().await?;
            conn.execute(
                "INSERT INTO rating_history (pool, name, at_ms, rating, games) \
                 SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::float8[], $5::int[])",
                &[&pool, &names, &at, &ratings, &games],
            )
            .await?;
            Ok(())
        })
    }

    fn history(
        &self,
        pool: &str,
        name: &str,
        n: usize,
    ) -> StoreFuture<'_, Vec<crate::wire::RatingPoint>> {
        let (pool, name) = (pool.to_string(), name.to_string());
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT at_ms, rating, games FROM rating_history \
                     WHERE pool = $1 AND lower(name) = lower($2) \
                     ORDER BY at_ms DESC, id DESC LIMIT $3",
                    &[&pool, &name, &limit(n)],
                )
                .await?;
            let mut points = rows
                .iter()
                .map(|r| {
                    Ok(crate::wire::RatingPoint {
                        at_ms: uint(r.try_get(0)?, "time")?,
                        rating: r.try_get(1)?,
                        games: u32::try_from(r.try_get::<_, i32>(2)?).unwrap_or(0),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            points.reverse();
            Ok(points)
        })
    }

    fn enter_lobby(&self, p: Presence, lease_ms: u64) -> StoreFuture<'_, ()> {
        boxed(async move {
            let lease = int(lease_ms, "lease")?;
            let mut conn = self.pool.get().await?;
            conn.execute(
                "INSERT INTO lobby_leases (instance, lease_ms) VALUES ($1, $2) \
                 ON CONFLICT (instance) DO UPDATE SET \
                 lease_ms = GREATEST(lobby_leases.lease_ms, excluded.lease_ms)",
                &[&p.instance, &lease],
            )
            .await?;
            conn.execute(
                "INSERT INTO lobby_presence (conn, instance, name, program, waiting, lease_ms, \
                 pools) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (conn) DO UPDATE SET \
                 waiting = excluded.waiting, lease_ms = excluded.lease_ms, pools = excluded.pools",
                &[
                    &p.conn,
                    &p.instance,
                    &p.name,
                    &p.program,
                    &p.waiting,
                    &lease,
                    &super::pools_text(&p.pools),
                ],
            )
            .await?;
            Ok(())
        })
    }

    fn set_waiting(&self, conn_id: &str, on: bool, pools: Vec<String>) -> StoreFuture<'_, bool> {
        let id = conn_id.to_string();
        let pools = super::pools_text(&pools);
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let n = conn
                .execute(
                    "UPDATE lobby_presence SET waiting = $2, pools = $3 WHERE conn = $1",
                    &[&id, &on, &pools],
                )
                .await?;
            Ok(n > 0)
        })
    }

    fn stop_waiting(&self, names: Vec<String>) -> StoreFuture<'_, ()> {
        boxed(async move {
            let lower: Vec<String> = names.iter().map(|n| n.to_ascii_lowercase()).collect();
            let mut conn = self.pool.get().await?;
            conn.execute(
                "UPDATE lobby_presence SET waiting = false WHERE lower(name) = ANY($1)",
                &[&lower],
            )
            .await?;
            Ok(())
        })
    }

    fn leave_lobby(&self, conn_id: &str) -> StoreFuture<'_, ()> {
        let id = conn_id.to_string();
        boxed(async move {
            let mut conn = self.pool.get().await?;
            conn.execute(
                "WITH gone AS (DELETE FROM lobby_presence WHERE conn = $1 RETURNING name) \
                 DELETE FROM lobby_challenges c USING gone \
                 WHERE lower(c.by_name) = lower(gone.name) AND NOT EXISTS \
                 (SELECT 1 FROM lobby_presence p WHERE lower(p.name) = lower(gone.name) \
                  AND p.conn <> $1)",
                &[&id],
            )
            .await?;
            Ok(())
        })
    }

    fn renew_lobby(&self, instance: &str, lease_ms: u64) -> StoreFuture<'_, ()> {
        let instance = instance.to_string();
        boxed(async move {
            let lease = int(lease_ms, "lease")?;
            let mut conn = self.pool.get().await?;
            conn.execute(
                "INSERT INTO lobby_leases (instance, lease_ms) VALUES ($1, $2) \
                 ON CONFLICT (instance) DO UPDATE SET lease_ms = excluded.lease_ms",
                &[&instance, &lease],
            )
            .await?;
            Ok(())
        })
    }

    fn expire_lobby(&self, now_ms: u64) -> StoreFuture<'_, usize> {
        boxed(async move {
            let now = int(now_ms, "time")?;
            let mut conn = self.pool.get().await?;
            let gone = conn
                .execute(
                    "DELETE FROM lobby_presence p WHERE NOT EXISTS (SELECT 1 FROM lobby_leases l \
                     WHERE l.instance = p.instance AND l.lease_ms >= $1)",
                    &[&now],
                )
                .await?;
            conn.execute("DELETE FROM lobby_leases WHERE lease_ms < $1", &[&now])
                .await?;
            conn.execute(
                "DELETE FROM lobby_challenges c WHERE NOT EXISTS (SELECT 1 FROM lobby_presence p \
                 WHERE lower(p.name) = lower(c.by_name))",
                &[],
            )
            .await?;
            Ok(usize::try_from(gone).unwrap_or(usize::MAX))
        })
    }

    fn lobby_connections(&self, name: &str, now_ms: u64) -> StoreFuture<'_, usize> {
        let name = name.to_string();
        boxed(async move {
            let now = int(now_ms, "time")?;
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT COUNT(*) FROM lobby_presence p JOIN lobby_leases l \
                     ON l.instance = p.instance WHERE lower(p.name) = lower($1) \
                     AND l.lease_ms >= $2",
                    &[&name, &now],
                )
                .await?;
            let n: i64 = match rows.first() {
                Some(row) => row.try_get(0)?,
                None => 0,
            };
            Ok(usize::try_from(n).unwrap_or(0))
        })
    }

    fn lobby(&self, now_ms: u64) -> StoreFuture<'_, (Vec<Presence>, Vec<StoredChallenge>)> {
        boxed(async move {
            let now = int(now_ms, "time")?;
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query(
                    "SELECT p.conn, p.instance, p.name, p.program, p.waiting, p.pools \
                     FROM lobby_presence p JOIN lobby_leases l ON l.instance = p.instance \
                     WHERE l.lease_ms >= $1 ORDER BY lower(p.name), p.conn COLLATE \"C\"",
                    &[&now],
                )
                .await?;
            let present = rows
                .iter()
                .map(|r| {
                    Ok(Presence {
                        conn: r.try_get(0)?,
                        instance: r.try_get(1)?,
                        name: r.try_get(2)?,
                        program: r.try_get(3)?,
                        waiting: r.try_get(4)?,
                        pools: super::pools_of(&r.try_get::<_, String>(5)?),
                    })
                })
                .collect::<Result<Vec<Presence>>>()?;
            let rows = conn
                .query(
                    "SELECT id, by_name, created_ms, body FROM lobby_challenges c WHERE EXISTS \
                     (SELECT 1 FROM lobby_presence p JOIN lobby_leases l \
                      ON l.instance = p.instance WHERE lower(p.name) = lower(c.by_name) \
                      AND l.lease_ms >= $1) ORDER BY created_ms, id COLLATE \"C\"",
                    &[&now],
                )
                .await?;
            let challenges = rows.iter().map(challenge_row).collect::<Result<Vec<_>>>()?;
            Ok((present, challenges))
        })
    }

    fn add_challenge(
        &self,
        c: StoredChallenge,
        max_each: usize,
        max_all: usize,
    ) -> StoreFuture<'_, bool> {
        boxed(async move {
            let created = int(c.created_ms, "challenge time")?;
            let mut conn = self.pool.get().await?;
            let tx = conn.client.transaction().await.map_err(db)?;
            // One challenge added at a time: the counts are then exact.
            tx.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_CHALLENGES])
                .await
                .map_err(db)?;
            let row = tx
                .query_one(
                    "SELECT COUNT(*) FILTER (WHERE lower(by_name) = lower($1)), COUNT(*) \
                     FROM lobby_challenges",
                    &[&c.by],
                )
                .await
                .map_err(db)?;
            let (mine, all): (i64, i64) = (row.get(0), row.get(1));
            if usize::try_from(mine).unwrap_or(usize::MAX) >= max_each
                || usize::try_from(all).unwrap_or(usize::MAX) >= max_all
            {
                tx.rollback().await.map_err(db)?;
                return Ok(false);
            }
            tx.execute(
                "INSERT INTO lobby_challenges (id, by_name, created_ms, body) \
                 VALUES ($1, $2, $3, $4)",
                &[&c.id, &c.by, &created, &c.body],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(true)
        })
    }

    fn cancel_challenge(&self, id: &str, by: &str) -> StoreFuture<'_, bool> {
        let (id, by) = (id.to_string(), by.to_string());
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let n = conn
                .execute(
                    "DELETE FROM lobby_challenges WHERE id = $1 AND lower(by_name) = lower($2)",
                    &[&id, &by],
                )
                .await?;
            Ok(n > 0)
        })
    }

    fn take_challenge(&self, id: &str, taker: &str) -> StoreFuture<'_, Taken> {
        let (id, taker) = (id.to_string(), taker.to_string());
        boxed(async move {
            let mut conn = self.pool.get().await?;
            // Removed as it is read: of two takers at once, one gets it.
            let rows = conn
                .query(
                    "DELETE FROM lobby_challenges WHERE id = $1 AND lower(by_name) <> lower($2) \
                     RETURNING id, by_name, created_ms, body",
                    &[&id, &taker],
                )
                .await?;
            if let Some(r) = rows.first() {
                return Ok(Taken::Taken(challenge_row(r)?));
            }
            let own = conn
                .query("SELECT 1 FROM lobby_challenges WHERE id = $1", &[&id])
                .await?;
            Ok(if own.is_empty() {
                Taken::Missing
            } else {
                Taken::Own
            })
        })
    }

    fn legacy_resumes(&self) -> StoreFuture<'_, Vec<u64>> {
        boxed(async move {
            let mut conn = self.pool.get().await?;
            let rows = conn
                .query("SELECT at_ms FROM clock_resumes ORDER BY at_ms", &[])
                .await?;
            rows.iter()
                .map(|r| uint(r.try_get(0)?, "resume time"))
                .collect()
        })
    }
}
