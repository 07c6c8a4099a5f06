//! Storage behind a trait: games and their event logs. [`SqliteStore`] keeps them in one
//! SQLite file in WAL mode, [`PgStore`] in PostgreSQL ([`pg`]); both keep the same promises
//! (one test suite, `store/suite.rs`, checks them on both):
//!
//! - `append` returns only once the event is durable, and refuses an event whose `seq` is
//!   already taken (so two writers cannot both extend a game);
//! - an event and the game's result are written together.

use goref_rules::{ByColor, Outcome};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use anyhow::{anyhow, Context, Result};
use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;

pub use crate::metrics::LiveCount;
use crate::room::{Event, GameConfig};
pub use crate::wire::GameSummary;
use crate::wire::{Account, Rating, RatingPoint, DEFAULT_POOL};

pub mod counted;
pub mod pg;
pub use counted::Counted;
pub use pg::PgStore;

/// A boxed future, so that the trait can be used as `dyn Store`.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store call failed.
#[derive(Debug)]
pub enum StoreError {
    /// [`Store::append`]: the event's `seq` is stored already (another writer extended the
    /// game first).
    SeqTaken(SeqTaken),
    /// The database failed, or what it holds cannot be read.
    Database(anyhow::Error),
}

impl std::fmt::Display for StoreError {
    /// The alternate form (`{:#}`) gives the causes too.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::SeqTaken(t) => write!(f, "{t}"),
            StoreError::Database(e) if f.alternate() => write!(f, "{e:#}"),
            StoreError::Database(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::SeqTaken(_) => None,
            StoreError::Database(e) => e.source(),
        }
    }
}

impl From<SeqTaken> for StoreError {
    fn from(t: SeqTaken) -> StoreError {
        StoreError::SeqTaken(t)
    }
}

impl From<anyhow::Error> for StoreError {
    fn from(e: anyhow::Error) -> StoreError {
        StoreError::Database(e)
    }
}

/// Errors of the database and of reading what it holds.
macro_rules! database_errors {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> StoreError {
                StoreError::Database(e.into())
            }
        }
    )*};
}

database_errors!(
    rusqlite::Error,
    serde_json::Error,
    tokio_postgres::Error,
    tokio::task::JoinError
);

/// A game as stored: its configuration and the hashes of the seat secrets.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// The game's id.
    pub id: String,
    /// When it was created (unix ms).
    pub created_ms: u64,
    /// Its settings.
    pub config: GameConfig,
    /// SHA-256 (hex) of Black's and White's secrets.
    pub secret_hashes: ByColor<String>,
    /// Who created it, as the server's limits key it (`addr:…` for a client address); empty
    /// when unknown.
    pub creator: String,
}

/// The error of [`Store::append`] when the event's `seq` is already stored: another writer
/// extended the game first (with several servers on one database, the room this server holds
/// is stale). Both back ends return it, so that a caller can tell it from a failing store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqTaken {
    /// The game.
    pub id: String,
    /// The event number already stored.
    pub seq: u64,
}

impl std::fmt::Display for SeqTaken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "game {}: event {} is already stored (another writer extended the game)",
            self.id, self.seq
        )
    }
}

impl std::error::Error for SeqTaken {}

/// What [`Store::create_limited`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Created {
    /// The game is stored.
    Stored,
    /// Nothing stored: its creator already has this many unfinished games.
    CreatorFull(usize),
}

impl GameSummary {
    /// The line of game `id`, created at `created_ms` with `config`, after `moves` moves, with
    /// its result once over (both back ends build it so).
    ///
    /// # Errors
    ///
    /// The end protocol does not serialise to a name (it always does).
    pub fn of(
        id: String,
        created_ms: u64,
        config: GameConfig,
        moves: u64,
        result: Option<String>,
    ) -> Result<GameSummary> {
        Ok(GameSummary {
            id,
            created_ms,
            width: config.width,
            height: config.height,
            end: serde_json::to_value(config.end)?
                .as_str()
                .unwrap_or_default()
                .to_string(),
            rules: config.rules,
            black: config.black,
            white: config.white,
            rated: config.rated,
            accounts: config.players.is_some(),
            moves,
            result,
            pool: config.pool,
        })
    }
}

/// What a shared store announces ([`Store::notes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// Event `seq` of game `id` was stored (by any server).
    Appended {
        /// The game.
        id: String,
        /// The event's number: the game's version after it.
        seq: u64,
    },
    /// A server published this ([`Store::publish`]).
    Published(String),
    /// The listener connected (again): notes may have been missed meanwhile.
    Missed,
}

/// A finished rated game between accounts, as ratings read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatedResult {
    /// Black's account.
    pub black: String,
    /// White's account.
    pub white: String,
    /// The result.
    pub result: Outcome,
}

impl RatedResult {
    /// A stored row (Black, White, SGF `RE`); `None` when the text is no result.
    fn read((black, white, re): (String, String, String)) -> Option<RatedResult> {
        let result = re.parse().ok()?;
        Some(RatedResult {
            black,
            white,
            result,
        })
    }
}

/// Where games live.
pub trait Store: Send + Sync {
    /// Stores a new game.
    fn create(&self, game: StoredGame) -> StoreFuture<'_, ()>;
    /// Stores a new game unless its creator already has `max_unfinished` unfinished games
    /// (checked and stored in one step, so that simultaneous requests cannot overshoot).
    fn create_limited(&self, game: StoredGame, max_unfinished: usize) -> StoreFuture<'_, Created>;
    /// Appends an event durably, with the number of moves after it (for the list). Fails when
    /// the event's `seq` is taken, with [`StoreError::SeqTaken`]. A resume of the clocks
    /// ([`Act::Resume`](crate::room::Act::Resume)) leaves the game's last activity as it was
    /// (an abandoned game is closed as if it had not come).
    fn append(&self, id: &str, event: &Event, moves: u64) -> StoreFuture<'_, ()>;
    /// Records the result of a game that is over (the events say so already; this is the
    /// index the list and the restart read).
    fn finish(&self, id: &str, result: Outcome) -> StoreFuture<'_, ()>;
    /// A game and its events in order.
    fn load(&self, id: &str) -> StoreFuture<'_, Option<(StoredGame, Vec<Event>)>>;
    /// The events of game `id` after the first `after`, in order (none: no such game, or none
    /// yet): what a server holding the game at version `after` has to apply to catch up.
    fn events_after(&self, id: &str, after: u64) -> StoreFuture<'_, Vec<Event>>;
    /// The ids of every game not yet over.
    fn unfinished(&self) -> StoreFuture<'_, Vec<String>>;
    /// The ids of the games not yet over that have begun (at least one event): the ones whose
    /// clocks may run.
    fn started(&self) -> StoreFuture<'_, Vec<String>>;
    /// At most `limit` ids of games not yet over that are due to be closed: without any event
    /// and created before `unstarted_before_ms`, or whose last event is older than
    /// `idle_before_ms` (unix ms).
    fn due_to_close(
        &self,
        unstarted_before_ms: u64,
        idle_before_ms: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<String>>;
    /// The most recent games, newest first.
    fn list(&self, limit: usize) -> StoreFuture<'_, Vec<GameSummary>>;
    /// The games of pool `pool` created from `from_ms` (included) to `to_ms` (excluded),
    /// oldest first, at most `limit`.
    fn pool_games(
        &self,
        pool: &str,
        from_ms: u64,
        to_ms: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<GameSummary>>;

    /// The account named `name` (without regard to case) and its password hash.
    fn account(&self, name: &str) -> StoreFuture<'_, Option<(Account, String)>>;
    /// Creates an account with the password hash `phc`; `None` when the name is taken. It is
    /// the tournament director when `td` names it, or when `td` is `None` and it is the first
    /// account.
    fn create_account(
        &self,
        account: NewAccount,
        td: Option<String>,
    ) -> StoreFuture<'_, Option<Account>>;
    /// Stores a session: the SHA-256 (hex) of its token, for account `name`.
    fn create_session(&self, token_hash: String, name: String, now_ms: u64) -> StoreFuture<'_, ()>;
    /// The account of a session token's hash.
    fn session(&self, token_hash: &str) -> StoreFuture<'_, Option<Account>>;
    /// Every account.
    fn accounts(&self) -> StoreFuture<'_, Vec<Account>>;
    /// Bans account `name` (without regard to case), or lifts its ban: its name as stored,
    /// `None` when no account has it. A ban ends the account's sessions (lifted, it logs in
    /// again), and while it holds [`Store::session`] finds none of its tokens.
    fn set_banned(&self, name: &str, banned: bool) -> StoreFuture<'_, Option<String>>;
    /// Whether account `name` is banned (`false` for no such account).
    fn is_banned(&self, name: &str) -> StoreFuture<'_, bool>;
    /// The games not over, counted by board size: `(width, height, games)`, smallest first.
    fn live_games_by_size(&self) -> StoreFuture<'_, Vec<LiveCount>>;
    /// A trivial query (the health check): `Ok` when the store answers, reads and writes.
    fn ping(&self) -> StoreFuture<'_, ()>;
    /// Every finished rated game: Black's account, White's, the result (SGF `RE`), oldest first.
    fn rated_results(&self, pool: &str) -> StoreFuture<'_, Vec<RatedResult>>;
    /// The games account `name` played or plays, newest first.
    fn games_of(&self, name: &str, limit: usize) -> StoreFuture<'_, Vec<GameSummary>>;
    /// The unfinished games account `name` plays.
    fn live_games_of(&self, name: &str) -> StoreFuture<'_, Vec<String>>;
    /// Stores a tournament (its whole state as JSON) if what is stored under `id` is still
    /// `previous` (compare-and-swap): a new one when `previous` is `None` and none is stored
    /// under `id`; else the body replaces `previous` (the creation time is kept). Answers
    /// whether it was stored (`false`: another change came first; read it again).
    fn save_tournament(
        &self,
        id: &str,
        created_ms: u64,
        body: String,
        previous: Option<String>,
    ) -> StoreFuture<'_, bool>;
    /// Every tournament's stored JSON, oldest first.
    fn tournaments(&self) -> StoreFuture<'_, Vec<String>>;
    /// Replaces every stored rating of `pool` with `ratings` (the leader's refit).
    fn save_ratings(&self, pool: &str, ratings: Vec<Rating>) -> StoreFuture<'_, ()>;
    /// Every stored rating of `pool`, best first (equal ones by name).
    fn ratings(&self, pool: &str) -> StoreFuture<'_, Vec<Rating>>;
    /// Fixes account `name`'s rating in `pool` at `rating` (an anchor), or frees it (`None`).
    fn set_anchor(&self, pool: &str, name: &str, rating: Option<f64>) -> StoreFuture<'_, ()>;
    /// The anchors of `pool`: (account, rating), by name.
    fn anchors(&self, pool: &str) -> StoreFuture<'_, Vec<(String, f64)>>;
    /// Adds to the rating histories of `pool`: each account's point.
    fn append_history(&self, pool: &str, points: Vec<(String, RatingPoint)>)
        -> StoreFuture<'_, ()>;
    /// Account `name`'s rating history in `pool` (any case), oldest first: its newest
    /// `limit` points.
    fn history(&self, pool: &str, name: &str, limit: usize) -> StoreFuture<'_, Vec<RatingPoint>>;

    /// When the clocks were resumed before resumes were events of the games' own logs
    /// ([`Act::Resume`](crate::room::Act::Resume)): unix ms, oldest first, from the table
    /// `clock_resumes` that older servers wrote and no server writes any more. Replaying a
    /// game, a turn that ran across one of them is charged from it, as it was when played.
    fn legacy_resumes(&self) -> StoreFuture<'_, Vec<u64>>;

    /// A lobby connection enters; its server's lease runs until `lease_ms` (unix ms) at least.
    fn enter_lobby(&self, presence: Presence, lease_ms: u64) -> StoreFuture<'_, ()>;
    /// Connection `conn` waits to be paired in `pools` (empty: the default pool), or stops;
    /// whether it is there.
    fn set_waiting(&self, conn: &str, on: bool, pools: Vec<String>) -> StoreFuture<'_, bool>;
    /// No connection of these accounts waits any more (they were paired).
    fn stop_waiting(&self, names: Vec<String>) -> StoreFuture<'_, ()>;
    /// Connection `conn` leaves; when it was its account's last, the account's challenges go
    /// too.
    fn leave_lobby(&self, conn: &str) -> StoreFuture<'_, ()>;
    /// Server `instance` renews its lease until `lease_ms`: all its connections live until then
    /// (one row, whatever the connections).
    fn renew_lobby(&self, instance: &str, lease_ms: u64) -> StoreFuture<'_, ()>;
    /// Removes the connections whose server's lease ended before `now_ms` (it died), and
    /// the challenges of accounts left without a connection; how many connections went.
    fn expire_lobby(&self, now_ms: u64) -> StoreFuture<'_, usize>;
    /// The lobby at `now_ms`: the live connections (by account name, then id) and the open
    /// challenges of accounts with one (oldest first).
    fn lobby(&self, now_ms: u64) -> StoreFuture<'_, (Vec<Presence>, Vec<StoredChallenge>)>;
    /// How many live connections account `name` (in any case) has in the lobby at `now_ms`,
    /// on every server: what [`Store::lobby`] would list of it, without reading the others.
    fn lobby_connections(&self, name: &str, now_ms: u64) -> StoreFuture<'_, usize>;
    /// Adds a challenge unless its maker has `max_each` open already or there are `max_all`
    /// in all (checked and stored in one step); whether it was added.
    fn add_challenge(
        &self,
        challenge: StoredChallenge,
        max_each: usize,
        max_all: usize,
    ) -> StoreFuture<'_, bool>;
    /// Removes challenge `id` if `by` made it; whether it did.
    fn cancel_challenge(&self, id: &str, by: &str) -> StoreFuture<'_, bool>;
    /// Takes challenge `id` for `taker` (one taker wins: it is removed as it is read).
    fn take_challenge(&self, id: &str, taker: &str) -> StoreFuture<'_, Taken>;
    /// For a store that several servers share: what the database announces to every server
    /// on it, as it is committed (events appended by any server, messages published by any
    /// server, this one included). `None` (the default) when this server is the only one, as
    /// with SQLite.
    fn notes(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<Note>> {
        None
    }

    /// For a store that several servers share: tells every server on it (this one too)
    /// `payload` (under 8000 bytes), as a [`Note::Published`]. Nothing (the default) when
    /// this server is the only one.
    fn publish(&self, payload: String) -> StoreFuture<'_, ()> {
        drop(payload);
        Box::pin(async { Ok(()) })
    }

    /// For a store that several servers share: whether this server is the one that fires the
    /// clocks' timers, closes expired games and pairs the lobby (exactly one at a time; another
    /// takes over when it dies). `None` (the default): this server is the only one.
    fn leader(&self) -> Option<tokio::sync::watch::Receiver<bool>> {
        None
    }
}

/// The sessions an account keeps; a login beyond them ends the oldest.
pub const MAX_SESSIONS: usize = 20;

/// An account to create.
#[derive(Clone, Debug)]
pub struct NewAccount {
    /// Its name.
    pub name: String,
    /// The Argon2 PHC string of its password.
    pub phc: String,
    /// A program.
    pub program: bool,
    /// Unix milliseconds.
    pub created_ms: u64,
}

/// A lobby connection as stored: who, on which server, waiting or not. It lives while its
/// server renews its lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Presence {
    /// The connection's id (unique across servers: its server's id, a dash, a number).
    pub conn: String,
    /// The server holding it.
    pub instance: String,
    /// The account.
    pub name: String,
    /// A program.
    pub program: bool,
    /// Waiting to be paired.
    pub waiting: bool,
    /// The pools it waits in, by name; empty: the default pool.
    pub pools: Vec<String>,
}

/// [`Presence::pools`] as stored: the names joined by commas (a pool's name has none).
fn pools_text(pools: &[String]) -> String {
    pools.join(",")
}

/// [`Presence::pools`] from the stored text.
fn pools_of(text: &str) -> Vec<String> {
    text.split(',')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// An open challenge as stored: its id, who made it, when, and its body (the lobby's JSON).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChallenge {
    /// Its id.
    pub id: String,
    /// The challenger's account.
    pub by: String,
    /// When it was made (unix ms).
    pub created_ms: u64,
    /// What the lobby keeps of it (JSON).
    pub body: String,
}

/// What [`Store::take_challenge`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Taken {
    /// The challenge, now removed.
    Taken(StoredChallenge),
    /// The taker made it: left open.
    Own,
    /// No open challenge has this id.
    Missing,
}

type Job = Box<dyn FnOnce(&Connection) -> Result<()> + Send>;
/// A job whose errors are typed (a taken `seq`).
type TypedJob = Box<dyn FnOnce(&Connection) -> Result<(), StoreError> + Send>;
type Answer = oneshot::Sender<Result<(), StoreError>>;

/// SQLite in WAL mode. Writes go through one thread that commits whatever has queued up in
/// one transaction (group commit) with `synchronous=FULL`, so an acknowledged event survives a
/// crash of the process or of the machine; reads use a connection of their own.
pub struct SqliteStore {
    writer: mpsc::Sender<(TypedJob, Answer)>,
    reader: Arc<Mutex<Connection>>,
    path: PathBuf,
    /// Dropped with the store: its checkpointing thread then ends.
    _checkpoints: mpsc::Sender<()>,
}

/// How often the checkpointing thread looks at the log's size.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(1);
/// The writer checkpoints the log when it reaches this many pages (of 4 KiB), so that a page
/// the moves rewrite is written back once for many of them; the log then starts again.
const WRITER_CHECKPOINT_PAGES: u64 = 10_000;
/// The checkpointing thread copies the log's pages into the database, beside the writer, from
/// half that: the writer's own checkpoint then has only the last pages to copy.
const CHECKPOINT_FROM: u64 = WRITER_CHECKPOINT_PAGES / 2 * 4096;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created_ms INTEGER NOT NULL,
    config TEXT NOT NULL,
    black_secret TEXT NOT NULL,
    white_secret TEXT NOT NULL,
    moves INTEGER NOT NULL DEFAULT 0,
    result TEXT
);
CREATE INDEX IF NOT EXISTS games_created ON games (created_ms);
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    password TEXT NOT NULL,
    program INTEGER NOT NULL,
    td INTEGER NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    created_ms INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS pool_ratings (
    pool TEXT NOT NULL,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (pool, name)
);
CREATE TABLE IF NOT EXISTS rating_history (
    pool TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE,
    at_ms INTEGER NOT NULL,
    rating REAL NOT NULL,
    games INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS rating_history_name ON rating_history (pool, name, at_ms);
CREATE TABLE IF NOT EXISTS pool_anchors (
    pool TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE,
    rating REAL NOT NULL,
    PRIMARY KEY (pool, name)
);
CREATE TABLE IF NOT EXISTS lobby_presence (
    conn TEXT PRIMARY KEY,
    instance TEXT NOT NULL,
    name TEXT NOT NULL,
    program INTEGER NOT NULL,
    waiting INTEGER NOT NULL,
    lease_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS lobby_presence_instance ON lobby_presence (instance);
CREATE INDEX IF NOT EXISTS lobby_presence_name ON lobby_presence (name COLLATE NOCASE);
-- Each server's lease: its lobby connections live while it renews it (one row a server, not
-- one a connection: renewing 10,000 connections' rows every 2 s held the writer up).
CREATE TABLE IF NOT EXISTS lobby_leases (
    instance TEXT PRIMARY KEY,
    lease_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS clock_resumes (
    at_ms INTEGER PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS lobby_challenges (
    id TEXT PRIMARY KEY,
    by_name TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    token TEXT PRIMARY KEY,
    name TEXT NOT NULL REFERENCES accounts (name),
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
";

/// Columns and indexes added after the first schema: who created a game (for the cap on
/// unfinished games), when its last event happened (for expiry), filled in for old games;
/// the accounts that play it and whether it is rated.
fn migrate(conn: &Connection) -> Result<()> {
    let mut columns = Vec::new();
    {
        let mut stmt = conn.prepare("PRAGMA table_info(games)")?;
        let names = stmt.query_map([], |r| r.get::<_, String>(1))?;
        for name in names {
            columns.push(name?);
        }
    }
    if !columns.iter().any(|c| c == "creator") {
        conn.execute_batch("ALTER TABLE games ADD COLUMN creator TEXT NOT NULL DEFAULT ''")?;
    }
    for (column, kind) in [
        ("black_account", "TEXT"),
        ("white_account", "TEXT"),
        ("rated", "INTEGER NOT NULL DEFAULT 0"),
    ] {
        if !columns.iter().any(|c| c == column) {
            conn.execute_batch(&format!("ALTER TABLE games ADD COLUMN {column} {kind}"))?;
        }
    }
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS games_black ON games (black_account COLLATE NOCASE);
         CREATE INDEX IF NOT EXISTS games_white ON games (white_account COLLATE NOCASE);",
    )?;
    if !columns.iter().any(|c| c == "last_ms") {
        conn.execute_batch(
            "ALTER TABLE games ADD COLUMN last_ms INTEGER;
             UPDATE games SET last_ms = (SELECT MAX(json_extract(body, '$.at_ms'))
                                         FROM events WHERE game_id = games.id);",
        )?;
    }
    let banned: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('accounts') WHERE name = 'banned')",
        [],
        |r| r.get(0),
    )?;
    if !banned {
        conn.execute_batch("ALTER TABLE accounts ADD COLUMN banned INTEGER NOT NULL DEFAULT 0")?;
    }
    if !columns.iter().any(|c| c == "pool") {
        conn.execute_batch(&format!(
            "ALTER TABLE games ADD COLUMN pool TEXT NOT NULL DEFAULT '{DEFAULT_POOL}'"
        ))?;
    }
    let presence_pools: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('lobby_presence') WHERE name = 'pools')",
        [],
        |r| r.get(0),
    )?;
    if !presence_pools {
        conn.execute_batch("ALTER TABLE lobby_presence ADD COLUMN pools TEXT NOT NULL DEFAULT ''")?;
    }
    // Connections stored before servers had leases of their own live as long as their own.
    conn.execute_batch(
        "INSERT OR IGNORE INTO lobby_leases (instance, lease_ms) \
         SELECT instance, MAX(lease_ms) FROM lobby_presence GROUP BY instance",
    )?;
    // The ratings of the one pool there was, before pools, are the default pool's.
    let old_ratings: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ratings')",
        [],
        |r| r.get(0),
    )?;
    if old_ratings {
        conn.execute(
            "INSERT OR IGNORE INTO pool_ratings (pool, name, body) SELECT ?1, name, body FROM ratings",
            params![DEFAULT_POOL],
        )?;
        conn.execute_batch("DROP TABLE ratings")?;
    }
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS games_pool_created ON games (pool, created_ms);
         CREATE INDEX IF NOT EXISTS games_live_by_creator ON games (creator) WHERE result IS NULL;
         CREATE INDEX IF NOT EXISTS games_live_created ON games (created_ms) WHERE result IS NULL;
         CREATE INDEX IF NOT EXISTS games_live_last ON games (last_ms) WHERE result IS NULL;",
    )?;
    Ok(())
}

fn insert_game(conn: &Connection, game: &StoredGame, config: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO games (id, created_ms, config, black_secret, white_secret, creator, \
         black_account, white_account, rated, pool) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            game.id,
            game.created_ms as i64,
            config,
            game.secret_hashes.black,
            game.secret_hashes.white,
            game.creator,
            game.config.players.as_ref().map(|p| p.black.clone()),
            game.config.players.as_ref().map(|p| p.white.clone()),
            game.config.rated,
            game.config.pool(),
        ],
    )?;
    Ok(())
}

fn ids(conn: &Connection, sql: &str, args: impl rusqlite::Params) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let ids = stmt
        .query_map(args, |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(ids)
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        let conn = Connection::open(path)
            .with_context(|| format!("opening database {}", path.display()))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // FULL: an acknowledged event survives a power cut too. GOREF_SQLITE_SYNCHRONOUS=NORMAL
        // trades that for speed (it still survives the process being killed).
        let synchronous = match std::env::var("GOREF_SQLITE_SYNCHRONOUS").as_deref() {
            Ok("NORMAL") | Ok("normal") => "NORMAL",
            _ => "FULL",
        };
        conn.pragma_update(None, "synchronous", synchronous)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // A move rewrites the same few pages (its game's row, the end of its events): the
        // writer keeps them in memory (64 MiB) and checkpoints the log every 10,000 pages.
        // A thread of its own copies most of the log before that (PASSIVE: beside the
        // writer), so that the writer's checkpoint, which holds every commit behind it, has
        // little left to copy. (Only the writer's checkpoint, between its transactions, lets
        // the log start again: the thread's alone, under a steady flow of commits, never
        // catches the log's end, and the log grew by gigabytes.)
        conn.pragma_update(None, "cache_size", -65_536)?;
        conn.pragma_update(None, "wal_autocheckpoint", WRITER_CHECKPOINT_PAGES)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        migrate(&conn)?;
        let reader = Connection::open(path)?;
        reader.busy_timeout(std::time::Duration::from_secs(5))?;
        let checkpointer = Connection::open(path)?;
        checkpointer.pragma_update(None, "synchronous", synchronous)?;
        checkpointer.busy_timeout(std::time::Duration::from_secs(5))?;
        let (tx, rx) = mpsc::channel::<(TypedJob, Answer)>();
        std::thread::Builder::new()
            .name("goref-sqlite-writer".into())
            .spawn(move || writer_loop(conn, rx))?;
        let (checkpoints, stop) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("goref-sqlite-checkpoints".into())
            .spawn({
                let wal = wal_path(path);
                move || checkpoint_loop(&checkpointer, &wal, &stop)
            })?;
        Ok(SqliteStore {
            writer: tx,
            reader: Arc::new(Mutex::new(reader)),
            path: path.to_path_buf(),
            _checkpoints: checkpoints,
        })
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&self, job: Job) -> StoreFuture<'_, ()> {
        self.write_typed(Box::new(move |conn| job(conn).map_err(StoreError::from)))
    }

    /// A write whose job answers a value.
    fn write_value<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T> + Send + 'static,
    ) -> StoreFuture<'_, T> {
        let (tx, rx) = oneshot::channel();
        let done = self.write(Box::new(move |conn| {
            let _ = tx.send(f(conn)?);
            Ok(())
        }));
        Box::pin(async move {
            done.await?;
            Ok(rx.await.map_err(|_| anyhow!("the write did not answer"))?)
        })
    }

    fn write_typed(&self, job: TypedJob) -> StoreFuture<'_, ()> {
        let (tx, rx) = oneshot::channel();
        let sent = self.writer.send((job, tx));
        Box::pin(async move {
            sent.map_err(|_| anyhow!("the database writer has stopped"))?;
            rx.await
                .map_err(|_| anyhow!("the database writer has stopped"))?
        })
    }

    fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T> + Send + 'static,
    ) -> StoreFuture<'_, T> {
        let reader = self.reader.clone();
        Box::pin(async move {
            let read = tokio::task::spawn_blocking(move || {
                let conn = reader.lock().map_err(|_| anyhow!("reader poisoned"))?;
                f(&conn)
            })
            .await?;
            Ok(read?)
        })
    }
}

/// The write-ahead log of the database at `path` (`PATH-wal`).
fn wal_path(path: &Path) -> PathBuf {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    PathBuf::from(wal)
}

/// Every [`CHECKPOINT_EVERY`], copies the log's pages into the database when the log `wal`
/// has reached [`CHECKPOINT_FROM`] bytes; the store dropped (`stop` disconnected), once more
/// and ends. The log's pages already copied are not copied again by the next checkpoint.
fn checkpoint_loop(conn: &Connection, wal: &Path, stop: &mpsc::Receiver<()>) {
    loop {
        let last = matches!(
            stop.recv_timeout(CHECKPOINT_EVERY),
            Err(mpsc::RecvTimeoutError::Disconnected) | Ok(())
        );
        let size = std::fs::metadata(wal).map_or(0, |m| m.len());
        if last || size >= CHECKPOINT_FROM {
            // PASSIVE: as much as the readers and the writer let it, waiting for neither.
            if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                eprintln!("goref serve: the database's log not checkpointed: {e}");
            }
        }
        if last {
            return;
        }
    }
}

/// Commits queued writes in batches: each job in a savepoint of its own (a failing job
/// does not undo the others), the batch in one transaction, answers after the commit.
fn writer_loop(mut conn: Connection, rx: mpsc::Receiver<(TypedJob, Answer)>) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < 1024 {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let mut answers = Vec::with_capacity(batch.len());
        let outcome = (|| -> Result<()> {
            let tx = conn.transaction()?;
            for (job, answer) in batch {
                // The savepoint's statements are cached: parsed once, not once a job.
                let result = (|| -> Result<(), StoreError> {
                    tx.prepare_cached("SAVEPOINT job")?.execute([])?;
                    let done = job(&tx);
                    if done.is_err() {
                        tx.prepare_cached("ROLLBACK TO job")?.execute([])?;
                    }
                    tx.prepare_cached("RELEASE job")?.execute([])?;
                    done
                })();
                answers.push((answer, result));
            }
            tx.commit()?;
            Ok(())
        })();
        for (answer, result) in answers {
            let result = match (&outcome, result) {
                (Err(e), _) => Err(StoreError::Database(anyhow!("commit failed: {e}"))),
                (Ok(()), r) => r,
            };
            let _ = answer.send(result);
        }
    }
}

impl Store for SqliteStore {
    fn create(&self, game: StoredGame) -> StoreFuture<'_, ()> {
        let config = serde_json::to_string(&game.config);
        self.write(Box::new(move |conn| insert_game(conn, &game, &config?)))
    }

    fn create_limited(&self, game: StoredGame, max_unfinished: usize) -> StoreFuture<'_, Created> {
        let config = serde_json::to_string(&game.config);
        // What the job did, told apart from its failing.
        let (tx, rx) = oneshot::channel();
        let done = self.write(Box::new(move |conn| {
            let unfinished: i64 = conn.query_row(
                "SELECT COUNT(*) FROM games WHERE creator = ?1 AND result IS NULL",
                params![game.creator],
                |r| r.get(0),
            )?;
            let unfinished = usize::try_from(unfinished).unwrap_or(usize::MAX);
            if unfinished >= max_unfinished {
                let _ = tx.send(Created::CreatorFull(unfinished));
                return Ok(());
            }
            insert_game(conn, &game, &config?)?;
            let _ = tx.send(Created::Stored);
            Ok(())
        }));
        Box::pin(async move {
            done.await?;
            Ok(rx.await.map_err(|_| anyhow!("the game was not written"))?)
        })
    }

    fn append(&self, id: &str, event: &Event, moves: u64) -> StoreFuture<'_, ()> {
        let id = id.to_string();
        let seq = event.seq as i64;
        let at_ms = event.activity_ms().map(|ms| ms as i64);
        let body = serde_json::to_string(event);
        self.write_typed(Box::new(move |conn| {
            // Cached: a statement parsed once, not once a move.
            let inserted = conn
                .prepare_cached("INSERT INTO events (game_id, seq, body) VALUES (?1, ?2, ?3)")?
                .execute(params![id, seq, body?]);
            if let Err(rusqlite::Error::SqliteFailure(f, _)) = &inserted {
                if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY {
                    return Err(StoreError::SeqTaken(SeqTaken {
                        id,
                        seq: seq as u64,
                    }));
                }
            }
            inserted?;
            conn.prepare_cached(
                "UPDATE games SET moves = ?2, last_ms = COALESCE(?3, last_ms) WHERE id = ?1",
            )?
            .execute(params![id, moves as i64, at_ms])?;
            Ok(())
        }))
    }

    fn finish(&self, id: &str, result: Outcome) -> StoreFuture<'_, ()> {
        let id = id.to_string();
        let result = result.to_sgf();
        self.write(Box::new(move |conn| {
            conn.execute(
                "UPDATE games SET result = ?2 WHERE id = ?1",
                params![id, result],
            )?;
            Ok(())
        }))
    }

    fn load(&self, id: &str) -> StoreFuture<'_, Option<(StoredGame, Vec<Event>)>> {
        let id = id.to_string();
        self.read(move |conn| {
            let row = conn
                .query_row(
                    "SELECT created_ms, config, black_secret, white_secret, creator \
                     FROM games WHERE id = ?1",
                    params![id],
                    |r| {
                        Ok((
                            r.get::<_, i64>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, String>(3)?,
                            r.get::<_, String>(4)?,
                        ))
                    },
                )
                .optional()?;
            let Some((created_ms, config, black, white, creator)) = row else {
                return Ok(None);
            };
            let game = StoredGame {
                id: id.clone(),
                created_ms: created_ms as u64,
                config: serde_json::from_str(&config).context("stored configuration")?,
                secret_hashes: ByColor::new(black, white),
                creator,
            };
            let mut stmt =
                conn.prepare_cached("SELECT body FROM events WHERE game_id = ?1 ORDER BY seq")?;
            let events = stmt
                .query_map(params![id], |r| r.get::<_, String>(0))?
                .map(|body| serde_json::from_str::<Event>(&body?).context("stored event"))
                .collect::<Result<Vec<Event>>>()?;
            Ok(Some((game, events)))
        })
    }

    fn events_after(&self, id: &str, after: u64) -> StoreFuture<'_, Vec<Event>> {
        let id = id.to_string();
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT body FROM events WHERE game_id = ?1 AND seq > ?2 ORDER BY seq",
            )?;
            let events = stmt
                .query_map(params![id, after], |r| r.get::<_, String>(0))?
                .map(|body| serde_json::from_str::<Event>(&body?).context("stored event"))
                .collect::<Result<Vec<Event>>>()?;
            Ok(events)
        })
    }

    fn unfinished(&self) -> StoreFuture<'_, Vec<String>> {
        self.read(|conn| ids(conn, "SELECT id FROM games WHERE result IS NULL", []))
    }

    fn started(&self) -> StoreFuture<'_, Vec<String>> {
        self.read(|conn| {
            ids(
                conn,
                "SELECT id FROM games WHERE result IS NULL AND last_ms IS NOT NULL",
                [],
            )
        })
    }

    fn due_to_close(
        &self,
        unstarted_before_ms: u64,
        idle_before_ms: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<String>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let as_i64 = |ms: u64| i64::try_from(ms).unwrap_or(i64::MAX);
        let (unstarted, idle) = (as_i64(unstarted_before_ms), as_i64(idle_before_ms));
        self.read(move |conn| {
            ids(
                conn,
                "SELECT id FROM games WHERE result IS NULL AND last_ms IS NULL AND created_ms < ?1 \
                 UNION ALL \
                 SELECT id FROM games WHERE result IS NULL AND last_ms < ?2 \
                 LIMIT ?3",
                params![unstarted, idle, limit],
            )
        })
    }

    fn list(&self, limit: usize) -> StoreFuture<'_, Vec<GameSummary>> {
        self.read(move |conn| {
            summaries(
                conn,
                "SELECT id, created_ms, config, moves, result FROM games \
                 ORDER BY created_ms DESC, id LIMIT ?1",
                params![limit as i64],
            )
        })
    }

    fn pool_games(
        &self,
        pool: &str,
        from_ms: u64,
        to_ms: u64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<GameSummary>> {
        let pool = pool.to_string();
        self.read(move |conn| {
            summaries(
                conn,
                "SELECT id, created_ms, config, moves, result FROM games \
                 WHERE pool = ?1 AND created_ms >= ?2 AND created_ms < ?3 \
                 ORDER BY created_ms, id LIMIT ?4",
                params![
                    pool,
                    i64::try_from(from_ms).unwrap_or(i64::MAX),
                    i64::try_from(to_ms).unwrap_or(i64::MAX),
                    limit as i64
                ],
            )
        })
    }

    fn account(&self, name: &str) -> StoreFuture<'_, Option<(Account, String)>> {
        let name = name.to_string();
        self.read(move |conn| {
            Ok(conn
                .query_row(
                    &format!("SELECT {ACCOUNT_COLUMNS}, password FROM accounts WHERE name = ?1"),
                    params![name],
                    |r| Ok((account_row(r)?, r.get::<_, String>(4)?)),
                )
                .optional()?)
        })
    }

    fn create_account(
        &self,
        account: NewAccount,
        td: Option<String>,
    ) -> StoreFuture<'_, Option<Account>> {
        let (tx, rx) = oneshot::channel();
        let job = self.write(Box::new(move |conn| {
            let taken: bool = conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM accounts WHERE name = ?1)",
                params![account.name],
                |r| r.get(0),
            )?;
            if taken {
                let _ = tx.send(None);
                return Ok(());
            }
            let td = match &td {
                Some(td) => td.eq_ignore_ascii_case(&account.name),
                None => conn.query_row("SELECT NOT EXISTS (SELECT 1 FROM accounts)", [], |r| {
                    r.get(0)
                })?,
            };
            conn.execute(
                "INSERT INTO accounts (name, password, program, td, created_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    account.name,
                    account.phc,
                    account.program,
                    td,
                    account.created_ms as i64
                ],
            )?;
            let _ = tx.send(Some(Account {
                name: account.name,
                program: account.program,
                td,
                created_ms: account.created_ms,
            }));
            Ok(())
        }));
        Box::pin(async move {
            job.await?;
            Ok(rx
                .await
                .map_err(|_| anyhow!("the account was not written"))?)
        })
    }

    fn create_session(&self, token_hash: String, name: String, now_ms: u64) -> StoreFuture<'_, ()> {
        self.write(Box::new(move |conn| {
            conn.execute(
                "INSERT INTO sessions (token, name, created_ms) VALUES (?1, ?2, ?3)",
                params![token_hash, name, now_ms as i64],
            )?;
            // An account keeps its latest sessions only: logging in again and again does not
            // grow the table.
            conn.execute(
                "DELETE FROM sessions WHERE name = ?1 AND token NOT IN \
                 (SELECT token FROM sessions WHERE name = ?1 ORDER BY created_ms DESC, token \
                  LIMIT ?2)",
                params![name, MAX_SESSIONS as i64],
            )?;
            Ok(())
        }))
    }

    fn session(&self, token_hash: &str) -> StoreFuture<'_, Option<Account>> {
        let token_hash = token_hash.to_string();
        self.read(move |conn| {
            Ok(conn
                .query_row(
                    &format!(
                        "SELECT {ACCOUNT_COLUMNS} FROM accounts \
                         WHERE name = (SELECT name FROM sessions WHERE token = ?1) \
                         AND NOT banned"
                    ),
                    params![token_hash],
                    account_row,
                )
                .optional()?)
        })
    }

    fn accounts(&self) -> StoreFuture<'_, Vec<Account>> {
        self.read(|conn| {
            let mut stmt = conn.prepare(&format!(
                "SELECT {ACCOUNT_COLUMNS} FROM accounts ORDER BY created_ms"
            ))?;
            let accounts = stmt
                .query_map([], account_row)?
                .collect::<rusqlite::Result<Vec<Account>>>()?;
            Ok(accounts)
        })
    }

    fn set_banned(&self, name: &str, banned: bool) -> StoreFuture<'_, Option<String>> {
        let name = name.to_string();
        self.write_value(move |conn| {
            let stored: Option<String> = conn
                .query_row(
                    "UPDATE accounts SET banned = ?2 WHERE name = ?1 RETURNING name",
                    params![name, banned],
                    |r| r.get(0),
                )
                .optional()?;
            if let (Some(stored), true) = (&stored, banned) {
                conn.execute("DELETE FROM sessions WHERE name = ?1", params![stored])?;
            }
            Ok(stored)
        })
    }

    fn is_banned(&self, name: &str) -> StoreFuture<'_, bool> {
        let name = name.to_string();
        self.read(move |conn| {
            Ok(conn
                .query_row(
                    "SELECT banned FROM accounts WHERE name = ?1",
                    params![name],
                    |r| r.get::<_, bool>(0),
                )
                .optional()?
                .unwrap_or(false))
        })
    }

    fn live_games_by_size(&self) -> StoreFuture<'_, Vec<LiveCount>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT pool, json_extract(config, '$.width'), json_extract(config, '$.height'), \
                 COUNT(*) FROM games WHERE result IS NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
            )?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<(String, i64, i64, i64)>>>()?;
            Ok(by_size(rows))
        })
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        let one = |conn: &Connection| -> Result<()> {
            conn.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))?;
            Ok(())
        };
        let read = self.read(one);
        // Through the writer too: its thread answers (an empty transaction, nothing written).
        let write = self.write(Box::new(one));
        Box::pin(async move {
            read.await?;
            write.await
        })
    }

    fn rated_results(&self, pool: &str) -> StoreFuture<'_, Vec<RatedResult>> {
        let pool = pool.to_string();
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT black_account, white_account, result FROM games \
                 WHERE rated AND result IS NOT NULL AND black_account IS NOT NULL \
                 AND white_account IS NOT NULL AND pool = ?1 ORDER BY created_ms, id",
            )?;
            let rows = stmt
                .query_map(params![pool], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<Vec<(String, String, String)>>>()?;
            Ok(rows.into_iter().filter_map(RatedResult::read).collect())
        })
    }

    fn games_of(&self, name: &str, limit: usize) -> StoreFuture<'_, Vec<GameSummary>> {
        let name = name.to_string();
        self.read(move |conn| {
            summaries(
                conn,
                "SELECT id, created_ms, config, moves, result FROM games \
                 WHERE black_account = ?1 COLLATE NOCASE OR white_account = ?1 COLLATE NOCASE \
                 ORDER BY created_ms DESC, id LIMIT ?2",
                params![name, limit as i64],
            )
        })
    }

    fn live_games_of(&self, name: &str) -> StoreFuture<'_, Vec<String>> {
        let name = name.to_string();
        self.read(move |conn| {
            let mut stmt = conn.prepare(
                "SELECT id FROM games WHERE result IS NULL AND \
                 (black_account = ?1 COLLATE NOCASE OR white_account = ?1 COLLATE NOCASE) \
                 ORDER BY created_ms",
            )?;
            let ids = stmt
                .query_map(params![name], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(ids)
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
        self.write_value(move |conn| {
            let stored = match previous {
                None => conn.execute(
                    "INSERT INTO tournaments (id, created_ms, body) VALUES (?1, ?2, ?3) \
                     ON CONFLICT (id) DO NOTHING",
                    params![id, created_ms as i64, body],
                )?,
                Some(previous) => conn.execute(
                    "UPDATE tournaments SET body = ?2 WHERE id = ?1 AND body = ?3",
                    params![id, body, previous],
                )?,
            };
            Ok(stored == 1)
        })
    }

    fn tournaments(&self) -> StoreFuture<'_, Vec<String>> {
        self.read(|conn| {
            let mut stmt = conn.prepare("SELECT body FROM tournaments ORDER BY created_ms, id")?;
            let rows = stmt
                .query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(rows)
        })
    }

    fn save_ratings(&self, pool: &str, ratings: Vec<Rating>) -> StoreFuture<'_, ()> {
        let bodies: Result<Vec<(String, String)>, serde_json::Error> = ratings
            .iter()
            .map(|r| Ok((r.name.clone(), serde_json::to_string(r)?)))
            .collect();
        let pool = pool.to_string();
        self.write(Box::new(move |conn| {
            conn.execute("DELETE FROM pool_ratings WHERE pool = ?1", params![pool])?;
            let mut insert = conn.prepare_cached(
                "INSERT INTO pool_ratings (pool, name, body) VALUES (?1, ?2, ?3)",
            )?;
            for (name, body) in bodies? {
                insert.execute(params![pool, name, body])?;
            }
            Ok(())
        }))
    }

    fn ratings(&self, pool: &str) -> StoreFuture<'_, Vec<Rating>> {
        let pool = pool.to_string();
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached("SELECT body FROM pool_ratings WHERE pool = ?1")?;
            let rows = stmt
                .query_map(params![pool], |r| r.get::<_, String>(0))?
                .map(|body| serde_json::from_str::<Rating>(&body?).context("stored rating"))
                .collect::<Result<Vec<Rating>>>()?;
            Ok(best_first(rows))
        })
    }

    fn set_anchor(&self, pool: &str, name: &str, rating: Option<f64>) -> StoreFuture<'_, ()> {
        let (pool, name) = (pool.to_string(), name.to_string());
        self.write(Box::new(move |conn| {
            match rating {
                Some(r) => conn.execute(
                    "INSERT INTO pool_anchors (pool, name, rating) VALUES (?1, ?2, ?3) \
                     ON CONFLICT (pool, name) DO UPDATE SET rating = excluded.rating",
                    params![pool, name, r],
                )?,
                None => conn.execute(
                    "DELETE FROM pool_anchors WHERE pool = ?1 AND name = ?2",
                    params![pool, name],
                )?,
            };
            Ok(())
        }))
    }

    fn anchors(&self, pool: &str) -> StoreFuture<'_, Vec<(String, f64)>> {
        let pool = pool.to_string();
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT name, rating FROM pool_anchors WHERE pool = ?1 ORDER BY name",
            )?;
            let rows = stmt
                .query_map(params![pool], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<Vec<(String, f64)>>>()?;
            Ok(rows)
        })
    }

    fn append_history(
        &self,
        pool: &str,
        points: Vec<(String, RatingPoint)>,
    ) -> StoreFuture<'_, ()> {
        let pool = pool.to_string();
        self.write(Box::new(move |conn| {
            let mut insert = conn.prepare_cached(
                "INSERT INTO rating_history (pool, name, at_ms, rating, games) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (name, p) in points {
                insert.execute(params![
                    pool,
                    name,
                    i64::try_from(p.at_ms).unwrap_or(i64::MAX),
                    p.rating,
                    p.games
                ])?;
            }
            Ok(())
        }))
    }

    fn history(&self, pool: &str, name: &str, limit: usize) -> StoreFuture<'_, Vec<RatingPoint>> {
        let (pool, name) = (pool.to_string(), name.to_string());
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT at_ms, rating, games FROM rating_history WHERE pool = ?1 AND name = ?2 \
                 ORDER BY at_ms DESC, rowid DESC LIMIT ?3",
            )?;
            let mut points = stmt
                .query_map(params![pool, name, limit as i64], |r| {
                    Ok(RatingPoint {
                        at_ms: u64::try_from(r.get::<_, i64>(0)?).unwrap_or(0),
                        rating: r.get(1)?,
                        games: r.get(2)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<RatingPoint>>>()?;
            points.reverse();
            Ok(points)
        })
    }

    fn enter_lobby(&self, p: Presence, lease_ms: u64) -> StoreFuture<'_, ()> {
        self.write(Box::new(move |conn| {
            conn.execute(
                "INSERT INTO lobby_presence (conn, instance, name, program, waiting, lease_ms, \
                 pools) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (conn) DO UPDATE SET \
                 waiting = excluded.waiting, lease_ms = excluded.lease_ms, pools = excluded.pools",
                params![
                    p.conn,
                    p.instance,
                    p.name,
                    p.program,
                    p.waiting,
                    lease_ms as i64,
                    pools_text(&p.pools),
                ],
            )?;
            conn.execute(
                "INSERT INTO lobby_leases (instance, lease_ms) VALUES (?1, ?2) \
                 ON CONFLICT (instance) DO UPDATE SET lease_ms = MAX(lease_ms, excluded.lease_ms)",
                params![p.instance, lease_ms as i64],
            )?;
            Ok(())
        }))
    }

    fn set_waiting(&self, conn_id: &str, on: bool, pools: Vec<String>) -> StoreFuture<'_, bool> {
        let id = conn_id.to_string();
        self.write_value(move |conn| {
            Ok(conn.execute(
                "UPDATE lobby_presence SET waiting = ?2, pools = ?3 WHERE conn = ?1",
                params![id, on, pools_text(&pools)],
            )? > 0)
        })
    }

    fn stop_waiting(&self, names: Vec<String>) -> StoreFuture<'_, ()> {
        self.write(Box::new(move |conn| {
            for name in names {
                conn.execute(
                    "UPDATE lobby_presence SET waiting = 0 WHERE name = ?1 COLLATE NOCASE",
                    params![name],
                )?;
            }
            Ok(())
        }))
    }

    fn leave_lobby(&self, conn_id: &str) -> StoreFuture<'_, ()> {
        let id = conn_id.to_string();
        self.write(Box::new(move |conn| {
            let name: Option<String> = conn
                .query_row(
                    "DELETE FROM lobby_presence WHERE conn = ?1 RETURNING name",
                    params![id],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(name) = name {
                conn.execute(
                    "DELETE FROM lobby_challenges WHERE by_name = ?1 COLLATE NOCASE AND NOT EXISTS \
                     (SELECT 1 FROM lobby_presence WHERE name = ?1 COLLATE NOCASE)",
                    params![name],
                )?;
            }
            Ok(())
        }))
    }

    fn renew_lobby(&self, instance: &str, lease_ms: u64) -> StoreFuture<'_, ()> {
        let instance = instance.to_string();
        self.write(Box::new(move |conn| {
            conn.execute(
                "INSERT INTO lobby_leases (instance, lease_ms) VALUES (?1, ?2) \
                 ON CONFLICT (instance) DO UPDATE SET lease_ms = excluded.lease_ms",
                params![instance, lease_ms as i64],
            )?;
            Ok(())
        }))
    }

    fn expire_lobby(&self, now_ms: u64) -> StoreFuture<'_, usize> {
        self.write_value(move |conn| {
            let gone = conn.execute(
                "DELETE FROM lobby_presence WHERE NOT EXISTS (SELECT 1 FROM lobby_leases l \
                 WHERE l.instance = lobby_presence.instance AND l.lease_ms >= ?1)",
                params![now_ms as i64],
            )?;
            conn.execute(
                "DELETE FROM lobby_leases WHERE lease_ms < ?1",
                params![now_ms as i64],
            )?;
            conn.execute(
                "DELETE FROM lobby_challenges WHERE NOT EXISTS (SELECT 1 FROM lobby_presence p \
                 WHERE p.name = lobby_challenges.by_name COLLATE NOCASE)",
                [],
            )?;
            Ok(gone)
        })
    }

    fn lobby_connections(&self, name: &str, now_ms: u64) -> StoreFuture<'_, usize> {
        let name = name.to_string();
        self.read(move |conn| {
            let n: i64 = conn
                .prepare_cached(
                    "SELECT COUNT(*) FROM lobby_presence p JOIN lobby_leases l \
                     ON l.instance = p.instance WHERE p.name = ?1 COLLATE NOCASE \
                     AND l.lease_ms >= ?2",
                )?
                .query_row(params![name, now_ms as i64], |r| r.get(0))?;
            Ok(usize::try_from(n).unwrap_or(0))
        })
    }

    fn lobby(&self, now_ms: u64) -> StoreFuture<'_, (Vec<Presence>, Vec<StoredChallenge>)> {
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT p.conn, p.instance, p.name, p.program, p.waiting, p.pools \
                 FROM lobby_presence p JOIN lobby_leases l ON l.instance = p.instance \
                 WHERE l.lease_ms >= ?1 ORDER BY p.name COLLATE NOCASE, p.conn",
            )?;
            let present = stmt
                .query_map(params![now_ms as i64], |r| {
                    Ok(Presence {
                        conn: r.get(0)?,
                        instance: r.get(1)?,
                        name: r.get(2)?,
                        program: r.get(3)?,
                        waiting: r.get(4)?,
                        pools: pools_of(&r.get::<_, String>(5)?),
                    })
                })?
                .collect::<rusqlite::Result<Vec<Presence>>>()?;
            let mut stmt = conn.prepare_cached(
                "SELECT id, by_name, created_ms, body FROM lobby_challenges c WHERE EXISTS \
                 (SELECT 1 FROM lobby_presence p JOIN lobby_leases l ON l.instance = p.instance \
                  WHERE p.name = c.by_name COLLATE NOCASE AND l.lease_ms >= ?1) \
                 ORDER BY created_ms, id",
            )?;
            let challenges = stmt
                .query_map(params![now_ms as i64], |r| {
                    Ok(StoredChallenge {
                        id: r.get(0)?,
                        by: r.get(1)?,
                        created_ms: r.get::<_, i64>(2)? as u64,
                        body: r.get(3)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<StoredChallenge>>>()?;
            Ok((present, challenges))
        })
    }

    fn add_challenge(
        &self,
        c: StoredChallenge,
        max_each: usize,
        max_all: usize,
    ) -> StoreFuture<'_, bool> {
        self.write_value(move |conn| {
            let (mine, all): (i64, i64) = conn.query_row(
                "SELECT COUNT(*) FILTER (WHERE by_name = ?1 COLLATE NOCASE), COUNT(*) \
                 FROM lobby_challenges",
                params![c.by],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            if mine as usize >= max_each || all as usize >= max_all {
                return Ok(false);
            }
            conn.execute(
                "INSERT INTO lobby_challenges (id, by_name, created_ms, body) \
                 VALUES (?1, ?2, ?3, ?4)",
                params![c.id, c.by, c.created_ms as i64, c.body],
            )?;
            Ok(true)
        })
    }

    fn cancel_challenge(&self, id: &str, by: &str) -> StoreFuture<'_, bool> {
        let (id, by) = (id.to_string(), by.to_string());
        self.write_value(move |conn| {
            Ok(conn.execute(
                "DELETE FROM lobby_challenges WHERE id = ?1 AND by_name = ?2 COLLATE NOCASE",
                params![id, by],
            )? > 0)
        })
    }

    fn take_challenge(&self, id: &str, taker: &str) -> StoreFuture<'_, Taken> {
        let (id, taker) = (id.to_string(), taker.to_string());
        self.write_value(move |conn| {
            let found = conn
                .query_row(
                    "SELECT id, by_name, created_ms, body FROM lobby_challenges WHERE id = ?1",
                    params![id],
                    |r| {
                        Ok(StoredChallenge {
                            id: r.get(0)?,
                            by: r.get(1)?,
                            created_ms: r.get::<_, i64>(2)? as u64,
                            body: r.get(3)?,
                        })
                    },
                )
                .optional()?;
            Ok(match found {
                None => Taken::Missing,
                Some(c) if c.by.eq_ignore_ascii_case(&taker) => Taken::Own,
                Some(c) => {
                    conn.execute("DELETE FROM lobby_challenges WHERE id = ?1", params![id])?;
                    Taken::Taken(c)
                }
            })
        })
    }

    fn legacy_resumes(&self) -> StoreFuture<'_, Vec<u64>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached("SELECT at_ms FROM clock_resumes ORDER BY at_ms")?;
            let rows = stmt
                .query_map([], |r| r.get::<_, i64>(0))?
                .map(|r| r.map(|v| v as u64))
                .collect::<rusqlite::Result<Vec<u64>>>()?;
            Ok(rows)
        })
    }
}

const ACCOUNT_COLUMNS: &str = "name, program, td, created_ms";

fn account_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Account> {
    Ok(Account {
        name: r.get(0)?,
        program: r.get(1)?,
        td: r.get(2)?,
        created_ms: r.get::<_, i64>(3)? as u64,
    })
}

/// Rows of `(width, height, games)` as the store read them, those that are sizes.
fn by_size(rows: Vec<(String, i64, i64, i64)>) -> Vec<LiveCount> {
    rows.into_iter()
        .filter_map(|(pool, w, h, n)| {
            Some(LiveCount {
                pool,
                width: usize::try_from(w).ok()?,
                height: usize::try_from(h).ok()?,
                games: u64::try_from(n).ok()?,
            })
        })
        .collect()
}

/// Ratings best first, equal ones by name.
#[must_use]
pub fn best_first(mut ratings: Vec<Rating>) -> Vec<Rating> {
    ratings.sort_by(|a, b| b.rating.total_cmp(&a.rating).then(a.name.cmp(&b.name)));
    ratings
}

/// Lines of the list of games from a query of `id, created_ms, config, moves, result`.
fn summaries(
    conn: &Connection,
    query: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<GameSummary>> {
    let mut stmt = conn.prepare_cached(query)?;
    let rows = stmt
        .query_map(params, |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|(id, created_ms, config, moves, result)| {
            let config: GameConfig = serde_json::from_str(&config)?;
            GameSummary::of(id, created_ms as u64, config, moves as u64, result)
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod suite;
