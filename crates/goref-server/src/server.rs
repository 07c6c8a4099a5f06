//! The HTTP and WebSocket server (axum): game rooms, seat links, spectators, timers.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Result;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use goref_rules::{ByColor, Color};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::assets;
use crate::error::{ApiError, Missing};
use crate::limits::{ClientAddr, Limited, RateLimiter};
use crate::lobby::{self, Lobby, PairingOptions};
use crate::protocol::{
    ClientMessage, GameCreated, GameList, ProtocolError, ProtocolErrorKind, SeatLink, ServerMessage,
};
use crate::room::{Act, CreateRequest, Event, GameConfig, Phase, Refusal, Room, Side};
use crate::store::{Created, Store, StoreError, StoredGame};
use crate::tournament::{self, Tournaments};

mod upkeep;

/// Server settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Time forgiven per turn for network lag (see [`crate::clock`]).
    pub lag_allowance_ms: u64,
    /// The largest WebSocket message accepted; larger ones are refused with an error.
    pub max_message_bytes: usize,
    /// Messages a connection may send a second on average (bursts of twice as many); more are
    /// refused with `rate_limited`.
    pub messages_per_second: u32,
    /// Continuous pairing of the players waiting in the lobby.
    pub pairing: PairingOptions,
    /// The tournament director's account; `None`: the first account created.
    pub td: Option<String>,
    /// Games one client address may create at once; then `create_per_minute` (more get 429
    /// `rate_limited` with `Retry-After`).
    pub create_burst: u32,
    /// Games one client address may create a minute after its burst (0: no limit).
    pub create_per_minute: u32,
    /// Unfinished games one creator may have (more get 429 `too_many_unfinished`).
    pub max_unfinished_per_creator: usize,
    /// A game without any move this long after its creation is closed without a result
    /// (`Void`, with a note).
    pub unstarted_expiry: Duration,
    /// A started game in which nothing happens for this long is closed without a result
    /// (games with a clock are normally finished by it first).
    pub abandoned_expiry: Duration,
    /// How often games due to close are looked for, and idle games leave memory.
    pub upkeep_interval: Duration,
    /// Open connections at most (WebSockets included); more get a short 503 and are closed.
    pub max_connections: usize,
    /// Open connections at most from one client address (an IPv4 address or an IPv6 /64).
    pub max_connections_per_address: usize,
    /// A request's head must arrive within this (slow clients are closed); also the longest
    /// wait for the next request on a kept-alive connection.
    pub header_timeout: Duration,
    /// A connection on which nothing moves for this long is closed (not WebSockets: those
    /// are pinged).
    pub idle_timeout: Duration,
    /// A request (body included) must be answered within this, or gets 408.
    pub request_timeout: Duration,
    /// A WebSocket is pinged after this long without a message from its client.
    pub ping_interval: Duration,
    /// A WebSocket whose client misses this many pings in a row is closed.
    pub missed_pings: u32,
    /// Origins besides the server's own whose pages may open games' WebSockets (exact, such
    /// as `https://club.example`). Requests without `Origin` (programs) are always let in.
    pub allowed_origins: Vec<String>,
    /// Behind a reverse proxy on the same machine: the client of a request from a loopback
    /// address is the last entry of its `X-Forwarded-For` (for the limits on creating games),
    /// and loopback connections are not capped per address.
    pub trust_forwarded_for: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            lag_allowance_ms: 1_000,
            max_message_bytes: 4_096,
            messages_per_second: 20,
            pairing: PairingOptions::default(),
            td: None,
            create_burst: 20,
            create_per_minute: 60,
            max_unfinished_per_creator: 50,
            unstarted_expiry: Duration::from_secs(3600),
            abandoned_expiry: Duration::from_secs(7 * 86_400),
            upkeep_interval: Duration::from_secs(60),
            max_connections: 4_096,
            max_connections_per_address: 256,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(30),
            ping_interval: Duration::from_secs(30),
            missed_pings: 2,
            allowed_origins: Vec::new(),
            trust_forwarded_for: false,
        }
    }
}

impl Options {
    fn conn_limits(&self) -> crate::net::ConnLimits {
        crate::net::ConnLimits {
            max_connections: self.max_connections,
            max_per_address: self.max_connections_per_address,
            header_timeout: self.header_timeout,
            idle_timeout: self.idle_timeout,
            request_timeout: self.request_timeout,
            trust_forwarded_for: self.trust_forwarded_for,
        }
    }
}

/// Client addresses (or accounts) the creation limiter keeps at most.
const MAX_LIMITER_KEYS: usize = 100_000;

/// The largest request body (game creation).
const MAX_BODY: usize = 16 * 1024;
/// Frames larger than this close the connection (before any JSON is read).
const MAX_FRAME: usize = 64 * 1024;

pub(crate) struct AppState {
    pub(crate) store: Arc<dyn Store>,
    rooms: Mutex<HashMap<String, Arc<RoomHandle>>>,
    pub(crate) opts: Options,
    /// Who is in the lobby, open challenges, ratings.
    pub(crate) lobby: Mutex<Lobby>,
    /// Password hashing is slow and memory-hard: a few at a time, each in a reused memory.
    pub(crate) hasher: crate::accounts::Hasher,
    /// Failed logins, per name and address and per address.
    pub(crate) throttle: crate::throttle::Throttle,
    /// The tournaments on the server.
    pub(crate) tournaments: tokio::sync::Mutex<Tournaments>,
    /// When this server started (unix ms): the clocks of games resumed after a restart run
    /// again from then.
    started_ms: u64,
    /// Games created, by client address.
    pub(crate) creations: RateLimiter,
    /// Logins (each an Argon2 hash, and maybe a new account), by client address.
    pub(crate) logins: RateLimiter,
    /// The clock timer of each game whose clock runs, by game id. A timer holds the game's
    /// id, not its room: a room nobody holds leaves memory even while its clock runs.
    timers: Mutex<HashMap<String, JoinHandle<()>>>,
    /// With a store several servers share: whether this one fires timers, closes expired
    /// games and pairs the lobby (see [`Store::leader`]); `None`: it is the only one.
    leader: Option<tokio::sync::watch::Receiver<bool>>,
}

struct RoomHandle {
    id: String,
    secret_hashes: ByColor<String>,
    inner: tokio::sync::Mutex<RoomInner>,
    tx: broadcast::Sender<Arc<str>>,
    /// Open connections: Black's, White's, spectators'.
    present: Mutex<[usize; 3]>,
}

impl RoomHandle {
    /// Counts a connection in or out and tells everyone who is there; returns how many
    /// connections are left.
    fn presence(&self, seat: Option<Color>, joined: bool) -> usize {
        let counts = {
            let mut present = self.present.lock().expect("presence");
            let i = seat.map_or(2, Color::index);
            present[i] = if joined {
                present[i] + 1
            } else {
                present[i].saturating_sub(1)
            };
            *present
        };
        let text = ServerMessage::Presence {
            black: counts[0],
            white: counts[1],
            spectators: counts[2],
        }
        .to_text();
        let _ = self.tx.send(text.into());
        counts.iter().sum()
    }
}

/// Counts a connection out when it ends, however it ends; a finished game nobody watches
/// leaves memory (it is read again from the store when asked for).
struct Presence(Arc<AppState>, Arc<RoomHandle>, Option<Color>);

impl Drop for Presence {
    fn drop(&mut self) {
        let (state, handle) = (&self.0, &self.1);
        if handle.presence(self.2, false) > 0 {
            return;
        }
        let over = handle
            .inner
            .try_lock()
            .is_ok_and(|inner| inner.room.phase() == Phase::Over);
        if over {
            let mut rooms = state.rooms.lock().expect("rooms");
            if rooms
                .get(&handle.id)
                .is_some_and(|h| Arc::ptr_eq(h, handle))
            {
                rooms.remove(&handle.id);
            }
        }
    }
}

struct RoomInner {
    room: Room,
}

/// Unix time in milliseconds.
#[must_use]
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

pub(crate) fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("operating system randomness");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn hash_secret(secret: &str) -> String {
    let digest = Sha256::digest(secret.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two strings in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// A running server.
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The server task.
    pub task: JoinHandle<()>,
}

/// Starts answering requests on `listener` at once; in the background, closes the games of
/// `store` due to close, then resumes the started ones (clocks as at the last stored event,
/// the running one starting again now), and keeps doing the upkeep. Other games are read
/// from the store when asked for.
pub async fn start(
    listener: tokio::net::TcpListener,
    store: Arc<dyn Store>,
    opts: Options,
) -> Result<Running> {
    let lobby = Lobby::new(&store.rated_results().await?);
    let tournaments = Tournaments::load(store.as_ref()).await?;
    let store_leader = store.leader();
    let creations = RateLimiter::new(opts.create_burst, opts.create_per_minute, MAX_LIMITER_KEYS);
    // Logins share the creation limits: a club's page logs in now and then, a flood is refused.
    let opts_logins = (opts.create_burst, opts.create_per_minute);
    let state = Arc::new(AppState {
        store,
        rooms: Mutex::new(HashMap::new()),
        opts,
        started_ms: now_ms(),
        creations,
        logins: RateLimiter::new(opts_logins.0, opts_logins.1, MAX_LIMITER_KEYS),
        timers: Mutex::new(HashMap::new()),
        leader: store_leader,
        lobby: Mutex::new(lobby),
        hasher: crate::accounts::Hasher::new(2),
        throttle: crate::throttle::Throttle::new(crate::throttle::ThrottleLimits::default()),
        tournaments: tokio::sync::Mutex::new(tournaments),
    });
    lobby::start_pairing(&state);
    tokio::spawn(follow_leadership(Arc::downgrade(&state)));
    if let Some(changes) = state.store.changes() {
        tokio::spawn(follow_changes(Arc::downgrade(&state), changes));
    }
    let addr = listener.local_addr()?;
    let app = router(state.clone());
    let limits = state.opts.conn_limits();
    let task = tokio::spawn(async move {
        tokio::join!(crate::net::serve(listener, app, limits), upkeep::run(state));
    });
    Ok(Running { addr, task })
}

fn router(state: Arc<AppState>) -> Router {
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
        .route("/api/games", get(list_games).post(create_game))
        .route("/api/games/{id}", get(game_state))
        .route("/api/games/{id}/sgf", get(game_sgf))
        .route("/api/games/{id}/ws", get(game_ws))
        .route("/api/login", axum::routing::post(lobby::login))
        .route("/api/me", get(lobby::me))
        .route("/api/players", get(lobby::players))
        .route("/api/players/{name}", get(lobby::player))
        .route("/api/lobby/ws", get(lobby::lobby_ws))
        .route(
            "/api/games/{id}/td",
            axum::routing::post(tournament::td_act),
        )
        .route(
            "/api/tournaments",
            get(tournament::list).post(tournament::create),
        )
        .route("/api/tournaments/{id}", get(tournament::show))
        .route(
            "/api/tournaments/{id}/join",
            axum::routing::post(tournament::join),
        )
        .route(
            "/api/tournaments/{id}/start",
            axum::routing::post(tournament::start),
        )
        .route(
            "/api/tournaments/{id}/withdraw",
            axum::routing::post(tournament::withdraw),
        )
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::map_response(common_headers))
        .layer(axum::middleware::from_fn(crate::guard::cross_site))
        .with_state(state)
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

#[derive(Deserialize)]
struct ListQuery {
    limit: Option<usize>,
}

async fn list_games(
    State(state): State<Arc<AppState>>,
    Query(q): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let limit = q.limit.unwrap_or(100).clamp(1, 1000);
    let games = state
        .store
        .list(limit)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    Ok(axum::Json(GameList { games }).into_response())
}

async fn create_game(
    State(state): State<Arc<AppState>>,
    client: ClientAddr,
    body: Bytes,
) -> Result<Response, ApiError> {
    let creator = client.key();
    if let Err(retry_after) = state.creations.check(&creator, std::time::Instant::now()) {
        return Err(Limited::CreationRate { retry_after }.into());
    }
    let request: CreateRequest =
        serde_json::from_slice(&body).map_err(|e| ApiError::Malformed(e.to_string()))?;
    let config = request.config().map_err(ApiError::Invalid)?;
    let id = random_hex(6);
    let secrets = ByColor::new(random_hex(16), random_hex(16));
    let created_ms = now_ms();
    // Checked here; the room is made when someone opens the game.
    Room::new(config.clone(), created_ms, state.opts.lag_allowance_ms)
        .map_err(ApiError::Invalid)?;
    let stored = StoredGame {
        id: id.clone(),
        created_ms,
        config,
        secret_hashes: ByColor::new(hash_secret(&secrets.black), hash_secret(&secrets.white)),
        creator,
    };
    let max = state.opts.max_unfinished_per_creator;
    match state.store.create_limited(stored, max).await {
        Ok(Created::Stored) => {}
        Ok(Created::CreatorFull(_)) => return Err(Limited::TooManyUnfinished { max }.into()),
        Err(e) => return Err(ApiError::storage(&e)),
    }
    let seat = |secret: &str| SeatLink {
        secret: secret.to_string(),
        link: format!("/g/{id}#seat={secret}"),
    };
    let created = GameCreated {
        black: seat(&secrets.black),
        white: seat(&secrets.white),
        spectator: format!("/g/{id}"),
        id,
    };
    Ok((StatusCode::CREATED, axum::Json(created)).into_response())
}

/// Stores a new game the server makes (a challenge accepted, a pairing, a tournament's),
/// `creator` naming who asked for it: its id and the two seat secrets. The room is made when
/// someone opens the game.
pub(crate) async fn open_game(
    state: &Arc<AppState>,
    config: GameConfig,
    creator: String,
) -> Result<(String, ByColor<String>), ApiError> {
    let created_ms = now_ms();
    Room::new(config.clone(), created_ms, state.opts.lag_allowance_ms)
        .map_err(ApiError::Invalid)?;
    let id = random_hex(6);
    let secrets = ByColor::new(random_hex(16), random_hex(16));
    let stored = StoredGame {
        id: id.clone(),
        created_ms,
        config,
        secret_hashes: ByColor::new(hash_secret(&secrets.black), hash_secret(&secrets.white)),
        creator,
    };
    state
        .store
        .create(stored)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    Ok((id, secrets))
}

fn new_handle(stored: StoredGame, room: Room) -> Arc<RoomHandle> {
    let (tx, _) = broadcast::channel(64);
    Arc::new(RoomHandle {
        id: stored.id,
        secret_hashes: stored.secret_hashes,
        inner: tokio::sync::Mutex::new(RoomInner { room }),
        tx,
        present: Mutex::new([0; 3]),
    })
}

/// Game `id` as stored, its events replayed into a room; the clocks as they were at the last
/// stored event, the running one started again from this server's start (or the last event,
/// if later).
async fn replay(state: &Arc<AppState>, id: &str) -> Result<Option<(StoredGame, Room)>> {
    let Some((stored, events)) = state.store.load(id).await? else {
        return Ok(None);
    };
    let mut room = Room::new(
        stored.config.clone(),
        stored.created_ms,
        state.opts.lag_allowance_ms,
    )
    .map_err(anyhow::Error::msg)?;
    for event in &events {
        room.commit(event)
            .map_err(|e| anyhow::anyhow!("event {}: {e}", event.seq))?;
    }
    if room.phase() != Phase::Over {
        room.restart_turn_at(state.started_ms.max(room.last_event_ms().unwrap_or(0)));
    }
    Ok(Some((stored, room)))
}

impl AppState {
    /// Whether this server fires timers, closes expired games and pairs the lobby.
    pub(crate) fn leads(&self) -> bool {
        self.leader.as_ref().is_none_or(|l| *l.borrow())
    }
}

/// Follows the leadership among servers sharing a database: taking it, this server arms the
/// timers of every game it holds and resumes the started ones (as after a restart); losing
/// it, it disarms its timers.
async fn follow_leadership(state: std::sync::Weak<AppState>) {
    let Some(mut leader) = state.upgrade().and_then(|s| s.leader.clone()) else {
        return;
    };
    while leader.changed().await.is_ok() {
        let Some(state) = state.upgrade() else { return };
        if *leader.borrow() {
            eprintln!("goref serve: this server now fires the clocks and the upkeep");
            let held: Vec<Arc<RoomHandle>> = state
                .rooms
                .lock()
                .expect("rooms")
                .values()
                .cloned()
                .collect();
            for handle in held {
                let mut inner = handle.inner.lock().await;
                schedule_timer(&state, &handle, &mut inner);
            }
            upkeep::take_over(&state).await;
        } else {
            for (_, t) in state.timers.lock().expect("timers").drain() {
                t.abort();
            }
        }
    }
}

/// Games other servers on the same database extended: each one held here is read again and
/// shown to everyone connected here (an empty id: every game held).
async fn follow_changes(
    state: std::sync::Weak<AppState>,
    mut changes: tokio::sync::mpsc::UnboundedReceiver<(String, u64)>,
) {
    while let Some((id, seq)) = changes.recv().await {
        let Some(state) = state.upgrade() else { return };
        let held: Vec<Arc<RoomHandle>> = {
            let rooms = state.rooms.lock().expect("rooms");
            if id.is_empty() {
                rooms.values().cloned().collect()
            } else {
                rooms.get(&id).cloned().into_iter().collect()
            }
        };
        for handle in held {
            let mut inner = handle.inner.lock().await;
            if !id.is_empty() && inner.room.version() >= seq {
                continue; // stored here, or already read
            }
            match replay(&state, &handle.id).await {
                Ok(Some((_, room))) if room.version() > inner.room.version() => {
                    inner.room = room;
                    schedule_timer(&state, &handle, &mut inner);
                    let view: Arc<str> = state_text(&inner.room, &handle.id).into();
                    let _ = handle.tx.send(view);
                }
                Ok(_) => {}
                Err(e) => eprintln!("goref serve: game {}: not read again: {e:#}", handle.id),
            }
        }
    }
}

/// The room of game `id`, loaded from the store (events replayed) when not in memory.
async fn load_room(state: &Arc<AppState>, id: &str) -> Result<Option<Arc<RoomHandle>>> {
    if let Some(h) = state.rooms.lock().expect("rooms").get(id) {
        return Ok(Some(h.clone()));
    }
    if id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Ok(None);
    }
    let Some((stored, room)) = replay(state, id).await? else {
        return Ok(None);
    };
    let over = room.phase() == Phase::Over;
    if let (true, Some(f)) = (over, room.finished()) {
        // The result may not have reached the games table before a crash.
        state.store.finish(id, f.result.clone()).await?;
    }
    let handle = new_handle(stored, room);
    let handle = {
        let mut rooms = state.rooms.lock().expect("rooms");
        rooms.entry(id.to_string()).or_insert(handle).clone()
    };
    if !over {
        let mut inner = handle.inner.lock().await;
        schedule_timer(state, &handle, &mut inner);
    }
    Ok(Some(handle))
}

async fn room_or_404(state: &Arc<AppState>, id: &str) -> Result<Arc<RoomHandle>, ApiError> {
    match load_room(state, id).await {
        Ok(Some(h)) => Ok(h),
        Ok(None) => Err(ApiError::NotFound(Missing::Game)),
        Err(e) => Err(ApiError::storage(&e)),
    }
}

async fn game_state(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    match room_or_404(&state, &id).await {
        Ok(h) => {
            let inner = h.inner.lock().await;
            axum::Json(ServerMessage::State(Box::new(
                inner.room.view(&h.id, now_ms()),
            )))
            .into_response()
        }
        Err(e) => e.into_response(),
    }
}

async fn game_sgf(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    match room_or_404(&state, &id).await {
        Ok(h) => {
            let sgf = h.inner.lock().await.room.sgf();
            (
                [
                    (
                        header::CONTENT_TYPE,
                        "application/x-go-sgf; charset=utf-8".to_string(),
                    ),
                    (
                        header::CONTENT_DISPOSITION,
                        format!("attachment; filename=\"goref-{}.sgf\"", h.id),
                    ),
                ],
                sgf,
            )
                .into_response()
        }
        Err(e) => e.into_response(),
    }
}

#[derive(Deserialize)]
struct WsQuery {
    secret: Option<String>,
    /// A session token: the seat of the account, if it plays this game.
    token: Option<String>,
}

async fn game_ws(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Query(q): Query<WsQuery>,
    headers: axum::http::HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    if let Err(refused) = crate::guard::check_origin(&headers, &state.opts.allowed_origins) {
        return refused.into_response();
    }
    let handle = match room_or_404(&state, &id).await {
        Ok(h) => h,
        Err(e) => return e.into_response(),
    };
    let by_token = match q.token.as_deref().filter(|t| !t.is_empty()) {
        None => None,
        Some(token) => match lobby::account_of_token(&state, token).await {
            Ok(account) => {
                let inner = handle.inner.lock().await;
                let players = inner.room.config().players.as_ref();
                players.and_then(|p| p.color_of(&account.name))
            }
            Err(e) => return e.into_response(),
        },
    };
    let seat = match q.secret.as_deref().filter(|s| !s.is_empty()) {
        None => by_token,
        Some(secret) => {
            let hash = hash_secret(secret);
            match Color::ALL
                .into_iter()
                .find(|c| same(&hash, &handle.secret_hashes[*c]))
            {
                Some(c) => Some(c),
                None => return ApiError::WrongSecret.into_response(),
            }
        }
    };
    // Small read buffers: the default (128 KiB, zeroed as it is used) costs more than the
    // messages, which are a few hundred bytes.
    ws.max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .read_buffer_size(4096)
        .on_upgrade(move |socket| connection(state, handle, seat, socket))
}

/// The whole state of the room as a message.
fn state_text(room: &Room, id: &str) -> String {
    ServerMessage::State(Box::new(room.view(id, now_ms()))).to_text()
}

/// The answer refusing a message.
fn refusal_text(r: &Refusal, id: Option<Value>, version: u64) -> String {
    ServerMessage::Error {
        code: r.code().to_string(),
        message: r.to_string(),
        id,
        version,
    }
    .to_text()
}

async fn connection(
    state: Arc<AppState>,
    handle: Arc<RoomHandle>,
    seat: Option<Color>,
    mut socket: WebSocket,
) {
    let mut rx = handle.tx.subscribe();
    let (hello, view) = {
        let inner = handle.inner.lock().await;
        let version = inner.room.version();
        (
            ServerMessage::Hello {
                seat: seat.map(Side::from),
                version,
                lag_allowance_ms: state.opts.lag_allowance_ms,
            }
            .to_text(),
            state_text(&inner.room, &handle.id),
        )
    };
    if socket.send(Message::Text(hello.into())).await.is_err()
        || socket.send(Message::Text(view.into())).await.is_err()
    {
        return;
    }
    handle.presence(seat, true);
    let _present = Presence(state.clone(), handle.clone(), seat);
    let mut bucket = Bucket::new(state.opts.messages_per_second);
    // Keep-alive: a ping after `ping_interval` without a message from the client; closed
    // after `missed_pings` of them in a row.
    let quiet = state.opts.ping_interval.max(Duration::from_millis(10));
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + quiet, quiet);
    let mut missed = 0u32;
    loop {
        tokio::select! {
            _ = ping.tick() => {
                if missed >= state.opts.missed_pings {
                    let _ = socket.send(Message::Close(Some(axum::extract::ws::CloseFrame {
                        code: axum::extract::ws::close_code::AWAY,
                        reason: "no answer to pings".into(),
                    }))).await;
                    break;
                }
                missed += 1;
                if socket.send(Message::Ping(Bytes::new())).await.is_err() {
                    break;
                }
            }
            incoming = socket.recv() => {
                let Some(Ok(msg)) = incoming else { break };
                missed = 0;
                ping.reset();
                let reply = match msg {
                    Message::Text(_) | Message::Binary(_) if !bucket.take() => Some(refusal_text(
                        &Refusal::RateLimited,
                        None,
                        current_version(&handle).await,
                    )),
                    Message::Text(text) => Some(handle_text(&state, &handle, seat, text.as_str()).await),
                    Message::Binary(_) => Some(refusal_text(
                        &Refusal::Malformed(ProtocolError { kind: ProtocolErrorKind::Binary, id: None }.to_string()),
                        None,
                        current_version(&handle).await,
                    )),
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => None,
                };
                if let Some(reply) = reply {
                    if socket.send(Message::Text(reply.into())).await.is_err() {
                        break;
                    }
                }
            }
            update = rx.recv() => {
                let text: Arc<str> = match update {
                    Ok(t) => t,
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        let inner = handle.inner.lock().await;
                        state_text(&inner.room, &handle.id).into()
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                if socket.send(Message::Text(text.as_ref().into())).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// A token bucket: `rate` messages a second on average, bursts of twice that.
struct Bucket {
    rate: f64,
    tokens: f64,
    at: std::time::Instant,
}

impl Bucket {
    fn new(rate: u32) -> Bucket {
        let rate = f64::from(rate.max(1));
        Bucket {
            rate,
            tokens: 2.0 * rate,
            at: std::time::Instant::now(),
        }
    }

    fn take(&mut self) -> bool {
        let now = std::time::Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(2.0 * self.rate);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

async fn current_version(handle: &RoomHandle) -> u64 {
    handle.inner.lock().await.room.version()
}

/// Answers one text message: an `ack` once the event is stored, or an `error`.
async fn handle_text(
    state: &Arc<AppState>,
    handle: &Arc<RoomHandle>,
    seat: Option<Color>,
    text: &str,
) -> String {
    if text.len() > state.opts.max_message_bytes {
        return refusal_text(
            &Refusal::TooLarge {
                bytes: text.len(),
                max: state.opts.max_message_bytes,
            },
            None,
            current_version(handle).await,
        );
    }
    let msg = match ClientMessage::parse(text) {
        Ok(m) => m,
        Err(e) => {
            let refusal = Refusal::Malformed(e.to_string());
            return refusal_text(&refusal, e.id, current_version(handle).await);
        }
    };
    let Some(act) = msg.command.act() else {
        let inner = handle.inner.lock().await;
        return state_text(&inner.room, &handle.id);
    };
    match act_on(state, handle, seat, act, msg.version, msg.think_ms).await {
        Ok(version) => ServerMessage::Ack {
            id: msg.id,
            version,
        }
        .to_text(),
        Err((r, version)) => refusal_text(&r, msg.id, version),
    }
}

/// Validates, stores, applies and broadcasts one action. Returns the new version, or the
/// refusal and the (unchanged) version.
async fn act_on(
    state: &Arc<AppState>,
    handle: &Arc<RoomHandle>,
    seat: Option<Color>,
    act: Act,
    version: Option<u64>,
    think_ms: Option<u64>,
) -> Result<u64, (Refusal, u64)> {
    let mut inner = handle.inner.lock().await;
    let current = inner.room.version();
    let Some(by) = seat else {
        return Err((Refusal::Spectator, current));
    };
    let Some(version) = version else {
        return Err((
            Refusal::Malformed("every action carries the version of the game it answers".into()),
            current,
        ));
    };
    if version != current {
        return Err((Refusal::Stale { version, current }, current));
    }
    let now = now_ms();
    let turn = matches!(
        act,
        Act::Play { .. } | Act::Pass | Act::Mark { .. } | Act::Dispute { .. } | Act::Done
    );
    let (event, next) = match inner.room.prepare(Some(by), act, now, think_ms) {
        Ok(prepared) => prepared,
        Err(r) => return Err((r, current)),
    };
    let late = turn && next.lost_on_time(by);
    match store_and_apply(state, handle, &mut inner, event, next).await {
        // The flag fell before the move arrived: the loss is recorded, the move refused.
        Ok(v) if late => Err((Refusal::OutOfTime, v)),
        Ok(v) => Ok(v),
        // The game went on elsewhere: this answers an older state (now read again).
        Err(StoreError::SeqTaken(_)) => {
            let current = inner.room.version();
            Err((Refusal::Stale { version, current }, current))
        }
        Err(e) => Err((Refusal::Storage(format!("{e:#}")), current)),
    }
}

/// The server (or the TD through it) acts on game `id`: the new version, or why not (404
/// for no such game, 409 with the refusal's code).
pub(crate) async fn act_as_server(
    state: &Arc<AppState>,
    id: &str,
    act: Act,
) -> Result<u64, ApiError> {
    let handle = room_or_404(state, id).await?;
    let mut inner = handle.inner.lock().await;
    let (event, next) = inner.room.prepare(None, act, now_ms(), None)?;
    store_and_apply(state, &handle, &mut inner, event, next)
        .await
        .map_err(|e| ApiError::storage(&e))
}

/// Stores `event`, then takes `next` (the room with the event applied), then tells everyone.
/// Nothing changes if storing fails. When the referee then needs an adjudication, the server's
/// third party (Olympiad 3.9's default removal) decides, stored the same way.
async fn store_and_apply(
    state: &Arc<AppState>,
    handle: &Arc<RoomHandle>,
    inner: &mut RoomInner,
    event: Event,
    next: Room,
) -> Result<u64, StoreError> {
    let mut pending = Some((event, next));
    while let Some((event, next)) = pending.take() {
        let stored = state
            .store
            .append(&handle.id, &event, next.moves() as u64)
            .await;
        if let Err(e) = stored {
            if let StoreError::SeqTaken(_) = e {
                // Another writer (a server on the same database) extended the game: this room
                // is stale. The stored game takes its place, and everyone here is told.
                match replay(state, &handle.id).await {
                    Ok(Some((_, room))) => {
                        inner.room = room;
                        schedule_timer(state, handle, inner);
                        let view: Arc<str> = state_text(&inner.room, &handle.id).into();
                        let _ = handle.tx.send(view);
                    }
                    Ok(None) => {}
                    Err(reload) => {
                        eprintln!(
                            "goref serve: game {}: not read again: {reload:#}",
                            handle.id
                        );
                    }
                }
            }
            return Err(e);
        }
        inner.room = next;
        pending = inner.room.prepare_adjudication(now_ms());
    }
    if let Some(f) = inner.room.finished() {
        if let Err(e) = state.store.finish(&handle.id, f.result.clone()).await {
            eprintln!("goref serve: game {}: result not stored: {e:#}", handle.id);
        }
        lobby::game_over(state, inner.room.config(), &f.result);
        crate::tournament::game_over(state, &handle.id, &f.result);
    }
    schedule_timer(state, handle, inner);
    let view: Arc<str> = state_text(&inner.room, &handle.id).into();
    let _ = handle.tx.send(view);
    Ok(inner.room.version())
}

/// Arms the timer that flags the running player when their time (plus the lag allowance) is
/// up; disarms the previous one.
fn schedule_timer(state: &Arc<AppState>, handle: &Arc<RoomHandle>, inner: &mut RoomInner) {
    let mut timers = state.timers.lock().expect("timers");
    if let Some(t) = timers.remove(&handle.id) {
        t.abort();
    }
    if !state.leads() {
        return;
    }
    let Some(deadline) = inner.room.deadline_ms() else {
        return;
    };
    let version = inner.room.version();
    let state = state.clone();
    let id = handle.id.clone();
    let timer = tokio::spawn(async move {
        let wait = deadline.saturating_sub(now_ms()) + 5;
        tokio::time::sleep(Duration::from_millis(wait)).await;
        // Boxed: a sleeping timer then takes a few bytes, not the size of what follows.
        Box::pin(timer_due(state, id, version)).await;
    });
    timers.insert(handle.id.clone(), timer);
}

/// A clock timer is due: the running player of game `id` at `version` loses on time (if
/// nothing happened meanwhile).
async fn timer_due(state: Arc<AppState>, id: String, version: u64) {
    let in_memory = state.rooms.lock().expect("rooms").get(&id).cloned();
    let Some(handle) = in_memory else {
        // Read again from the store: that arms a timer of its own, due at once, in place of
        // this one.
        if let Err(e) = load_room(&state, &id).await {
            eprintln!("goref serve: game {id}: not read for its clock: {e:#}");
        }
        return;
    };
    let mut inner = handle.inner.lock().await;
    if inner.room.version() != version {
        return;
    }
    if let Some((event, next)) = inner.room.prepare_timeout(now_ms()) {
        // Taking the timer out first: store_and_apply would abort this very task.
        state.timers.lock().expect("timers").remove(&id);
        if let Err(e) = store_and_apply(&state, &handle, &mut inner, event, next).await {
            eprintln!("goref serve: game {id}: timeout not stored: {e:#}");
        }
    }
}
