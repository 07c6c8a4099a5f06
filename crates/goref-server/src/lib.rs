//! `goref serve`: games of Go served to people and programs over HTTP and WebSocket, by one
//! server or several on one PostgreSQL database.
//!
//! ```
//! use std::sync::Arc;
//!
//! use goref_server::client::{create_game, Player};
//! use goref_server::{start, Options, SqliteStore};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> anyhow::Result<()> {
//! // A server on a fresh SQLite database, on a free port.
//! let dir = tempfile::tempdir()?;
//! let store = Arc::new(SqliteStore::open(&dir.path().join("goref.db"))?);
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let server = start(listener, store, Options::default()).await?;
//!
//! // A 9×9 game: the answer holds each seat's secret (its link) and the spectators' page.
//! let created = create_game(server.addr, &json!({"width": 9, "komi": 7})).await?;
//! let id = created["id"].as_str().unwrap();
//! let mut black = Player::connect(server.addr, id, created["black"]["secret"].as_str()).await?;
//! // Black plays C7 (columns and rows from the top-left corner): the game's first event.
//! assert_eq!(black.must(json!({"type": "play", "x": 2, "y": 2})).await?, 1);
//! // Playing again out of turn is refused, and nothing changes.
//! let refused = black.act(json!({"type": "play", "x": 3, "y": 3})).await?;
//! assert_eq!(refused["type"], "error");
//! server.task.abort();
//! # Ok(())
//! # }
//! ```
//!
//! The modules, bottom up (each imports only those below it):
//! - [`wire`]: the wire, typed: every message of the game and lobby WebSockets, both
//!   directions, the game's state ([`wire::StateView`]) and the HTTP bodies programs read;
//! - [`room`]: one game as the server referees it (rules from goref-rules, the end-of-game
//!   protocols and clocks of goref-referee), driven by stored events;
//! - [`store`]: storage behind a trait, SQLite (WAL) by default, or PostgreSQL: games and
//!   their events, accounts, sessions, the lobby's presences and challenges, ratings,
//!   tournaments (one contract suite for both);
//! - [`clock`], [`options`], [`error`], [`limits`], [`guard`], [`net`], [`throttle`],
//!   [`sessions`], [`metrics`]: the time (injected), the settings, refusals, limits,
//!   connections, tokens, the operator's counters;
//! - [`bus`]: [`bus::GameEvent`]s and the features' news, to every server on the database
//!   (PostgreSQL `LISTEN/NOTIFY`; SQLite: in-process broadcast);
//! - [`games`]: the games service — rooms, timers, the leader's role — that stores and then
//!   publishes every event, with the games' routes;
//! - features beside it, each with its state (in the store) and its routes, hearing of games
//!   on the bus and starting them through [`games::Games::open`]: [`accounts`] (logins),
//!   [`lobby`] (presence, waiting, challenges, pairing), [`ratings`], [`tournaments`];
//! - [`cgos`]: CGOS's door (`--cgos`), a door to the lobby and the games beside the
//!   WebSockets, for CGOS's programs;
//! - [`ops`]: the operator's routes, `GET /metrics` and `GET /healthz`;
//! - [`app`]: builds them over a store and merges their routers;
//! - [`client`]: a small client for tests, load tests and scripts;
//! - the web page, built ahead from `web/` and embedded ([`assets`]).

pub mod accounts;
pub mod app;
pub mod archive;
pub mod assets;
pub mod bus;
pub mod cgos;
pub mod client;
pub mod clock;
pub mod error;
pub mod games;
pub mod guard;
pub mod limits;
pub mod lobby;
pub mod metrics;
pub mod net;
pub mod ops;
pub mod options;
pub mod ratings;
pub mod room;
pub mod sessions;
pub mod store;
pub mod throttle;
pub mod tournaments;

#[cfg(test)]
pub(crate) mod test_http;
pub mod wire;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};

pub use app::{start, Options, Running};
pub use store::{PgStore, SqliteStore, Store};

/// Where the server keeps its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// An SQLite file (created if missing).
    Sqlite(PathBuf),
    /// A PostgreSQL database: `postgres://…` or `postgresql://…`, completed from the `PG*`
    /// variables.
    Postgres(String),
}

impl Database {
    /// `postgres://…` and `postgresql://…` name PostgreSQL; anything else is an SQLite file.
    #[must_use]
    pub fn from_arg(arg: &Path) -> Database {
        match arg.to_str() {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Database::Postgres(url.to_string())
            }
            _ => Database::Sqlite(arg.to_path_buf()),
        }
    }

    /// Opens the store (PostgreSQL: connects and applies the migrations).
    ///
    /// # Errors
    ///
    /// The database cannot be opened.
    pub async fn open(&self) -> Result<Arc<dyn Store>> {
        Ok(match self {
            Database::Sqlite(path) => Arc::new(SqliteStore::open(path)?),
            Database::Postgres(url) => Arc::new(PgStore::connect(url).await?),
        })
    }
}

impl std::fmt::Display for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite(path) => write!(f, "{}", path.display()),
            // Without the password a URL may hold.
            Database::Postgres(url) => write!(f, "{}", store::pg::redacted(url)),
        }
    }
}

/// Serves on `listen` with the database `db` until interrupted (Ctrl-C or SIGTERM).
/// Prints `goref serve: listening on http://ADDR` once ready.
pub fn run(listen: &str, db: &Database, mut opts: Options) -> Result<()> {
    // Every connection takes a file descriptor: keep the cap below the limit on them.
    if let Some(files) = net::raise_open_files_limit() {
        let room = usize::try_from(files.saturating_sub(64)).unwrap_or(usize::MAX);
        if opts.max_connections > room {
            eprintln!(
                "goref serve: at most {room} connections (the limit on open files is {files})"
            );
            opts.max_connections = room.max(1);
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let store = db.open().await?;
        let listener = crate::net::listen(listen)
            .await
            .with_context(|| format!("listening on {listen}"))?;
        let running = start(listener, store, opts).await?;
        // ", CGOS on A" for the default pool's door, ", CGOS POOL on B" for another's.
        let cgos: String = running
            .cgos_doors
            .iter()
            .map(|(pool, addr)| {
                if pool == crate::wire::DEFAULT_POOL {
                    format!(", CGOS on {addr}")
                } else {
                    format!(", CGOS {pool} on {addr}")
                }
            })
            .collect();
        println!(
            "goref serve: listening on http://{} (database {}){cgos}",
            running.addr, db
        );
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        tokio::select! {
            _ = running.task => {}
            _ = shutdown_signal() => {
                println!("goref serve: stopping");
            }
        }
        Ok(())
    })
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
