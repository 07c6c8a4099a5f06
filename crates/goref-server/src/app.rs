//! The application: the games service and the features beside it, each with its state and
//! routes, merged into one router and served.
//!
//! The modules' imports form a tree: `wire` ← `room` ← `store` ← `bus` ← `games` ←
//! {`accounts`, `lobby`, `ratings`, `tournaments`, `archive`} ← `cgos` ← `ops` ← `app` (with `sessions`,
//! `error`, `limits`, `clock`, `options`, `metrics` below games for all). Nothing below calls
//! up: the features hear of games on the bus.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Result;
use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::task::JoinHandle;

use crate::accounts::Accounts;
use crate::assets;
use crate::bus::Bus;
use crate::games::Games;
use crate::lobby::Lobby;
use crate::metrics::Metrics;
pub use crate::options::Options;
use crate::ratings::Ratings;
use crate::store::{Counted, Store};
use crate::tournaments::Tournaments;

/// The largest request body (game creation).
const MAX_BODY: usize = 16 * 1024;

/// A running server.
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The server task.
    pub task: JoinHandle<()>,
    /// Its games service (whether it leads, ...).
    pub games: Arc<Games>,
    /// Where CGOS's door of the default pool listens, when it is open ([`Options::cgos`]).
    pub cgos_addr: Option<SocketAddr>,
    /// Where each pool's CGOS door listens, by pool, the default first
    /// ([`crate::options::PoolOptions::cgos`]).
    pub cgos_doors: Vec<(String, SocketAddr)>,
}

/// The services of one server, built over a store: the games service and its features.
pub struct App {
    /// The games.
    pub games: Arc<Games>,
    /// Logins.
    pub accounts: Arc<Accounts>,
    /// The lobby (the entry point of programs that wait to be paired).
    pub lobby: Arc<Lobby>,
    /// Ratings.
    pub ratings: Arc<Ratings>,
    /// Tournaments.
    pub tournaments: Arc<Tournaments>,
}

impl App {
    /// Builds the services over `store` (call within a tokio runtime: the bus listens).
    ///
    /// # Errors
    ///
    /// The store cannot be read.
    pub async fn new(store: Arc<dyn Store>, opts: Options) -> Result<App> {
        opts.check_pools()?;
        let metrics = Arc::new(Metrics::new());
        // Every service's store calls, their failures counted.
        let store: Arc<dyn Store> = Arc::new(Counted::new(store, metrics.clone()));
        let bus = Bus::new(store.clone());
        let accounts = Accounts::new(store.clone(), bus.clone(), &opts);
        let games = Games::with_metrics(store, bus, opts.clone(), metrics).await?;
        Ok(App {
            lobby: Lobby::new(games.clone(), &opts),
            ratings: Ratings::new(games.clone()),
            tournaments: Tournaments::new(games.clone()),
            accounts,
            games,
        })
    }

    /// Every route, merged.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/", get(index))
            .route("/g/{id}", get(index))
            .route("/lobby", get(index))
            .route("/players", get(index))
            .route("/players/{name}", get(index))
            .route("/tournaments", get(index))
            .route("/t/{id}", get(index))
            .route("/assets/app.js", get(app_js))
            .route("/assets/app.css", get(app_css))
            .merge(self.games.clone().routes())
            .merge(self.accounts.clone().routes())
            .merge(self.lobby.clone().routes())
            .merge(self.ratings.clone().routes())
            .merge(crate::archive::Archive::new(self.games.clone()).routes())
            .merge(self.tournaments.clone().routes())
            .merge(crate::ops::routes(self.games.clone()))
            .layer(DefaultBodyLimit::max(MAX_BODY))
            .layer(axum::middleware::map_response(|response: Response| async move {
                crate::error::uniform_refusal(response, MAX_BODY)
            }))
            .layer(axum::middleware::map_response(common_headers))
            .layer(axum::middleware::from_fn(crate::guard::cross_site))
    }

    /// The background work of every service, until the server stops.
    pub async fn run(self) {
        tokio::join!(
            self.games.run(),
            self.lobby.run(),
            self.ratings.run(),
            self.tournaments.run(),
        );
    }
}

/// Starts answering requests on `listener` at once; in the background (when it leads),
/// closes the games of `store` due to close, then resumes the started ones as of its start (a
/// resume in each one's log: the running clock charged from it), and keeps doing the upkeep.
/// Other games are read from the store when asked for.
///
/// # Errors
///
/// The listener has no address.
pub async fn start(
    listener: tokio::net::TcpListener,
    store: Arc<dyn Store>,
    opts: Options,
) -> Result<Running> {
    let limits = opts.conn_limits();
    let pools = opts.all_pools();
    let app = App::new(store, opts).await?;
    let mut cgos_doors = Vec::new();
    for pool in pools {
        if let Some(options) = &pool.cgos {
            let addr = crate::cgos::open(
                app.games.clone(),
                app.accounts.clone(),
                app.lobby.clone(),
                &pool.name,
                options,
            )
            .await?;
            app.lobby.door_opened(&pool.name, addr);
            cgos_doors.push((pool.name, addr));
        }
    }
    let cgos_addr = cgos_doors
        .iter()
        .find(|(pool, _)| pool == crate::wire::DEFAULT_POOL)
        .map(|(_, addr)| *addr);
    let addr = listener.local_addr()?;
    let router = app.router();
    let games = app.games.clone();
    let task = tokio::spawn(async move {
        tokio::join!(crate::net::serve(listener, router, limits), app.run());
    });
    Ok(Running {
        addr,
        task,
        games,
        cgos_addr,
        cgos_doors,
    })
}

async fn common_headers(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

async fn index() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; \
                 connect-src 'self'; script-src 'self'; base-uri 'none'; frame-ancestors 'none'",
            ),
        ],
        assets::INDEX_HTML,
    )
        .into_response()
}

async fn app_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        assets::APP_JS,
    )
        .into_response()
}

async fn app_css() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        assets::APP_CSS,
    )
        .into_response()
}
