//! `goref serve`: games of Go served to people over HTTP and WebSocket.
//!
//! - [`room`]: one game as the server referees it (rules from goref-rules, the end-of-game
//!   protocols and clocks of goref-referee), driven by stored events;
//! - [`store`]: storage behind a trait, SQLite (WAL) by default;
//! - [`server`]: the axum server: REST for creating and listing games and downloading records,
//!   one WebSocket per page for moves and live updates;
//! - [`client`]: a small client for tests, load tests and scripts;
//! - the web page, built ahead from `web/` and embedded ([`assets`]).

pub mod accounts;
pub mod assets;
pub mod client;
pub mod guard;
pub mod limits;
pub mod lobby;
pub mod net;
pub mod room;
pub mod server;
pub mod store;
pub mod tournament;

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};

pub use server::{start, Options, Running};
pub use store::{SqliteStore, Store};

/// Serves on `listen` with the database at `db` until interrupted (Ctrl-C or SIGTERM).
/// Prints `goref serve: listening on http://ADDR` once ready.
pub fn run(listen: &str, db: &Path, mut opts: Options) -> Result<()> {
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
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(db)?);
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("listening on {listen}"))?;
        let running = start(listener, store, opts).await?;
        println!(
            "goref serve: listening on http://{} (database {})",
            running.addr,
            db.display()
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
