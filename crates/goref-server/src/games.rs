//! The games service: one owner for every game the server holds — the rooms in memory, their
//! clocks' timers, the store handle and the leader's role among servers sharing a database.
//!
//! Everything that changes a game goes through [`Games`]: [`Games::open`] (a game the server
//! makes: a challenge accepted, a pairing, a tournament's), [`Games::act`] (a player's move
//! from a seat), [`Games::act_as_server`] (the server or the TD), and the clocks' timers and
//! the upkeep inside. After an event is stored the service *publishes* it on the [`Bus`]
//! ([`GameEvent`]: started, changed, finished); the lobby, ratings and tournaments subscribe
//! ([`Games::subscribe`]) and are never called from here.
//!
//! Its routes ([`Games::routes`]): `GET|POST /api/games`, `GET /api/games/{id}`,
//! `/api/games/{id}/sgf` and the game's WebSocket `/api/games/{id}/ws`.
//!
//! Time is read from the injected [`Clock`]: what a room shows, what it stores and when its
//! timer flags are all computed from the stored events at that clock's now.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Result;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use goref_rules::{ByColor, Color};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::bus::{Bus, BusEvent, GameEvent};
use crate::clock::Clock;
use crate::error::{ApiError, Missing};
use crate::limits::{ClientAddr, Limited, RateLimiter};
use crate::metrics::Metrics;
use crate::options::Options;
use crate::room::{
    Act, CreateRequest, Event, GameConfig, MessageRefusal, Phase, Room, Side, ThirdParty,
};
use crate::sessions::{hash_secret, random_hex, same};
use crate::store::{Created, Store, StoreError, StoredGame};
use crate::wire::{
    ClientMessage, GameCreated, GameList, ProtocolError, ProtocolErrorKind, SeatLink, ServerMessage,
};

mod routes;
mod upkeep;
mod ws;

/// Perfect-play searches the server runs at once (each on one thread, its table up to tens
/// of megabytes); more games needing one wait their turn.
const PERFECT_PLAY_AT_ONCE: usize = 2;

/// A game the server made: its id and the seat secrets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The game's id.
    pub id: String,
    /// Black's and White's seat secrets (the store keeps only their hashes).
    pub secrets: ByColor<String>,
}

/// The games service; see the [module](self).
pub struct Games {
    store: Arc<dyn Store>,
    bus: Arc<Bus>,
    clock: Clock,
    opts: Options,
    rooms: Mutex<HashMap<String, Arc<RoomHandle>>>,
    /// Events stored here or heard of from other servers, counted: a room read from the
    /// store while this changed is read again once it is in `rooms` (see [`load_room`]).
    appends: AtomicU64,
    /// When the clocks were resumed before resumes were events of the games' logs (unix ms,
    /// oldest first; [`Store::legacy_resumes`]): replaying an old game, a turn that ran
    /// across one is charged from it, as it was when played. Nothing adds to them.
    legacy_resumes: Vec<u64>,
    /// Games created over HTTP, by client address.
    creations: RateLimiter,
    /// The clock timer of each game whose clock runs, by game id. A timer holds the game's
    /// id, not its room: a room nobody holds leaves memory even while its clock runs.
    timers: Mutex<HashMap<String, JoinHandle<()>>>,
    /// With a store several servers share: whether this one fires timers, closes expired
    /// games, pairs the lobby, refits ratings and runs tournaments (see [`Store::leader`]);
    /// `None`: it is the only one.
    leader: Option<tokio::sync::watch::Receiver<bool>>,
    /// Permits for perfect-play searches ([`PERFECT_PLAY_AT_ONCE`]).
    solves: tokio::sync::Semaphore,
    /// The server's counters (moves stored, their relay; the features count theirs).
    metrics: Arc<Metrics>,
}

impl Games {
    /// The service over `store`, publishing on `bus`; its background work (timers after a
    /// restart, the upkeep, following the leadership and other servers' changes) starts with
    /// [`Games::run`].
    ///
    /// # Errors
    ///
    /// The store cannot be read.
    pub async fn new(
        store: Arc<dyn Store>,
        bus: Arc<Bus>,
        opts: Options,
    ) -> Result<Arc<Games>, StoreError> {
        Games::with_metrics(store, bus, opts, Arc::new(Metrics::new())).await
    }

    /// As [`Games::new`], counting in `metrics` (the server's, which the features and the
    /// store count in too).
    ///
    /// # Errors
    ///
    /// The store cannot be read.
    pub async fn with_metrics(
        store: Arc<dyn Store>,
        bus: Arc<Bus>,
        opts: Options,
        metrics: Arc<Metrics>,
    ) -> Result<Arc<Games>, StoreError> {
        let leader = store.leader();
        let clock = opts.clock.clone();
        let legacy_resumes = store.legacy_resumes().await?;
        let games = Arc::new(Games {
            creations: RateLimiter::new(
                opts.create_burst,
                opts.create_per_minute,
                crate::limits::MAX_LIMITER_KEYS,
            ),
            legacy_resumes,
            store,
            bus,
            clock,
            opts,
            rooms: Mutex::new(HashMap::new()),
            appends: AtomicU64::new(0),
            timers: Mutex::new(HashMap::new()),
            leader,
            solves: tokio::sync::Semaphore::new(PERFECT_PLAY_AT_ONCE),
            metrics,
        });
        // Before answering anyone: whether this server leads (the first answer of the
        // leader's lock, at most 2 s). If so, the clocks of the started games resume as of
        // its start in the background ([`Games::run`]), each game by an event of its log: the
        // server answers at once, whatever the number of games (a view given meanwhile
        // charges the time nobody fired the clocks, as the log then says, on every server).
        if let Some(mut leader) = games.leader.clone() {
            let _ = tokio::time::timeout(Duration::from_secs(2), leader.changed()).await;
        }
        Ok(games)
    }

    /// The background work, until the server stops: follows the leadership and the other
    /// servers' changes, resumes the started games when leading, and does the upkeep.
    pub async fn run(self: Arc<Games>) {
        tokio::spawn(follow_leadership(Arc::downgrade(&self)));
        if let Some(appended) = self.bus.take_appended() {
            tokio::spawn(follow_changes(Arc::downgrade(&self), appended));
        }
        upkeep::run(self).await;
    }

    /// The store.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The bus the service publishes on.
    #[must_use]
    pub fn bus(&self) -> &Arc<Bus> {
        &self.bus
    }

    /// Everything published on the bus from now on: games started, finished, and the
    /// features' own news (games' `Changed`: [`Games::subscribe_changes`]).
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<BusEvent> {
        self.bus.subscribe()
    }

    /// Games' `Changed` from now on: one a move stored, by any server.
    #[must_use]
    pub fn subscribe_changes(&self) -> broadcast::Receiver<BusEvent> {
        self.bus.subscribe_changes()
    }

    /// The server's settings.
    #[must_use]
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// The server's counters.
    #[must_use]
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Unix ms now, by the injected clock.
    #[must_use]
    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// Whether this server takes a game with `config`: what it asks of the server within the
    /// server's caps (perfect play within [`Options::max_perfect_nodes`]). Every game the
    /// server makes is checked so; challenges and tournaments when they are made.
    ///
    /// # Errors
    ///
    /// [`ConfigError::TooManyNodes`](crate::room::ConfigError::TooManyNodes).
    pub fn accepts(&self, config: &GameConfig) -> Result<(), crate::room::ConfigError> {
        config.within(self.opts.max_perfect_nodes)
    }

    /// Whether this server leads: fires the clocks' timers, closes expired games, and (the
    /// features ask) pairs the lobby, refits the ratings and runs the tournaments.
    #[must_use]
    pub fn leads(&self) -> bool {
        self.leader.as_ref().is_none_or(|l| *l.borrow())
    }

    /// Drives `feature` from the bus until the server stops: each event goes to
    /// [`Follower::on_event`]; the leading server calls [`Follower::catch_up`] at start, on
    /// taking the lead, and when the feature fell behind the bus (events were lost to it).
    pub async fn follow<F: Follower>(&self, feature: &F) {
        let mut bus = self.subscribe();
        if self.leads() {
            feature.catch_up().await;
        }
        let mut leadership = self.leadership();
        loop {
            let lead_changed = async {
                match leadership.as_mut() {
                    Some(l) => l.changed().await.is_ok(),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                event = bus.recv() => match event {
                    Ok(event) => feature.on_event(&event).await,
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        if self.leads() {
                            feature.catch_up().await;
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                changed = lead_changed => {
                    if !changed {
                        leadership = None;
                    } else if self.leads() {
                        feature.catch_up().await;
                    }
                }
            }
        }
    }

    /// Follows the leadership: `None` when this server is the only one (it always leads).
    #[must_use]
    pub fn leadership(&self) -> Option<tokio::sync::watch::Receiver<bool>> {
        self.leader.clone()
    }

    /// Opens a game the server makes (a challenge accepted, a pairing, a tournament's) with
    /// `config` (its players' accounts in `config.players`), `creator` naming who asked:
    /// stored, then published as [`GameEvent::Started`] (the lobby tells both players).
    ///
    /// # Errors
    ///
    /// 400 for settings no room can have, 500 when it cannot be stored.
    pub async fn open(&self, config: GameConfig, creator: String) -> Result<Opened, ApiError> {
        self.create(config, creator, None, None).await
    }

    /// Opens the game the server makes under `id` (as [`Games::open`]) unless a game is
    /// stored under it already: then that one is taken as it is (a leader that died opened it,
    /// and its successor opens it again) and told again — started, or finished — so that
    /// whoever missed it hears of it. Idempotent: of servers opening it at once, one stores
    /// it. The game's id (its players play it from their accounts, not by secrets).
    ///
    /// # Errors
    ///
    /// 400 for settings no room can have or an id that is not 1-64 letters and digits, 500
    /// when it cannot be stored or read.
    pub async fn open_once(
        self: &Arc<Games>,
        id: &str,
        config: GameConfig,
        creator: String,
    ) -> Result<String, ApiError> {
        if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(ApiError::Invalid(format!("{id:?} is no game id")));
        }
        let mut refused = None;
        for _ in 0..2 {
            if let Some(room) = self.room(id).await.map_err(|e| ApiError::storage(&e))? {
                let event = match room.finished() {
                    Some(f) => GameEvent::Finished {
                        id: id.to_string(),
                        config: Box::new(room.config().clone()),
                        result: f.result,
                    },
                    None => GameEvent::Started {
                        id: id.to_string(),
                        config: Box::new(room.config().clone()),
                    },
                };
                self.bus.publish(BusEvent::Game(event)).await;
                return Ok(id.to_string());
            }
            // Not stored: stored now, unless another server stores it first (then taken).
            match self
                .create(config.clone(), creator.clone(), None, Some(id.to_string()))
                .await
            {
                Ok(_) => return Ok(id.to_string()),
                Err(e) => refused = Some(e),
            }
        }
        Err(refused.expect("tried"))
    }

    /// Stores a new game under `id` (a fresh one when `None`), refused when `max_unfinished`
    /// is given and its creator has that many unfinished games, then publishes it.
    async fn create(
        &self,
        config: GameConfig,
        creator: String,
        max_unfinished: Option<usize>,
        id: Option<String>,
    ) -> Result<Opened, ApiError> {
        let created_ms = self.now_ms();
        // Checked here; the room is made when someone opens the game.
        Room::new(config.clone(), created_ms, self.opts.lag_allowance_ms)
            .and_then(|_| self.accepts(&config))
            .map_err(|e| ApiError::Invalid(e.to_string()))?;
        let id = id.unwrap_or_else(|| random_hex(6));
        let secrets = ByColor::new(random_hex(16), random_hex(16));
        let stored = StoredGame {
            id: id.clone(),
            created_ms,
            config: config.clone(),
            secret_hashes: ByColor::new(hash_secret(&secrets.black), hash_secret(&secrets.white)),
            creator,
        };
        match max_unfinished {
            None => self
                .store
                .create(stored)
                .await
                .map_err(|e| ApiError::storage(&e))?,
            Some(max) => match self.store.create_limited(stored, max).await {
                Ok(Created::Stored) => {}
                Ok(Created::CreatorFull(_)) => {
                    return Err(Limited::TooManyUnfinished { max }.into())
                }
                Err(e) => return Err(ApiError::storage(&e)),
            },
        }
        self.bus
            .publish(BusEvent::Game(GameEvent::Started {
                id: id.clone(),
                config: Box::new(config),
            }))
            .await;
        Ok(Opened { id, secrets })
    }

    /// A player acts on game `id` from `seat` (`None`: a spectator, refused), answering
    /// `version`: the new version once the event is stored (and published), or the refusal
    /// with the version it stays at.
    ///
    /// # Errors
    ///
    /// The refusal (a stale version, an illegal move, the store failing, ...).
    pub async fn act(
        self: &Arc<Games>,
        id: &str,
        seat: Option<Color>,
        act: Act,
        version: Option<u64>,
        think_ms: Option<u64>,
    ) -> Result<u64, (MessageRefusal, u64)> {
        self.act_commented(id, seat, act, version, think_ms, None)
            .await
    }

    /// As [`Games::act`], the move carrying `comment` for the record (a program's analysis,
    /// at most [`crate::room::MAX_COMMENT`] bytes).
    ///
    /// # Errors
    ///
    /// As [`Games::act`].
    pub async fn act_commented(
        self: &Arc<Games>,
        id: &str,
        seat: Option<Color>,
        act: Act,
        version: Option<u64>,
        think_ms: Option<u64>,
        comment: Option<String>,
    ) -> Result<u64, (MessageRefusal, u64)> {
        let handle = room_to_act_on(self, id).await?;
        act_on(self, &handle, seat, act, version, think_ms, comment).await
    }

    /// A player acts on game `id` from `seat` as it is now: `make` reads the room (held, as
    /// the act is stored) and gives the act, which answers the room's version; the move
    /// carries `comment` for the record. For a door whose players answer the game as it is
    /// (CGOS's): one read of the room and one check of the move, by the referee.
    ///
    /// # Errors
    ///
    /// As [`Games::act`].
    pub async fn act_now(
        self: &Arc<Games>,
        id: &str,
        seat: Color,
        make: impl FnOnce(&Room) -> Act,
        think_ms: Option<u64>,
        comment: Option<String>,
    ) -> Result<u64, (MessageRefusal, u64)> {
        let arrived_us = self.clock.now_us();
        let handle = room_to_act_on(self, id).await?;
        let mut inner = handle.inner.lock().await;
        let act = make(&inner.room);
        let moved = is_move(&act);
        let version = Some(inner.room.version());
        let acted = act_locked(
            self,
            &handle,
            &mut inner,
            Some(seat),
            act,
            version,
            think_ms,
            comment,
        )
        .await;
        relayed(self, moved && acted.is_ok(), arrived_us);
        acted
    }

    /// Voids game `id` if nobody has begun it within `within` of its creation (a pairing
    /// whose players never both came): `Void`, the reason in its record. Whether it did.
    ///
    /// # Errors
    ///
    /// The store failed, or the stored game cannot be replayed.
    pub async fn void_if_not_begun(self: &Arc<Games>, id: &str, within: Duration) -> Result<bool> {
        let Some(handle) = load_room(self, id).await? else {
            return Ok(false);
        };
        let mut inner = handle.inner.lock().await;
        if inner.room.last_event_ms().is_some() {
            return Ok(false);
        }
        let within = u64::try_from(within.as_millis()).unwrap_or(u64::MAX);
        let Some((event, next)) = inner.room.prepare_close(self.now_ms(), within, u64::MAX) else {
            return Ok(false);
        };
        store_and_apply(self, &handle, &mut inner, event, next).await?;
        Ok(true)
    }

    /// Follows game `id` as it changes on this server ([`RoomWatch`]); `None` when there is
    /// no such game.
    ///
    /// # Errors
    ///
    /// The store failed, or the stored game cannot be replayed.
    pub async fn watch_room(self: &Arc<Games>, id: &str) -> Result<Option<RoomWatch>> {
        let Some(handle) = load_room(self, id).await? else {
            return Ok(None);
        };
        let version = handle.version.subscribe();
        Ok(Some(RoomWatch { handle, version }))
    }

    /// A copy of game `id`'s room as it is now (read from the store when not held); `None`
    /// when there is no such game.
    ///
    /// # Errors
    ///
    /// The store failed, or the stored game cannot be replayed.
    pub async fn room(self: &Arc<Games>, id: &str) -> Result<Option<Room>> {
        let Some(handle) = load_room(self, id).await? else {
            return Ok(None);
        };
        let inner = handle.inner.lock().await;
        Ok(Some(inner.room.clone()))
    }

    /// The SGF record of game `id` as stored, its events replayed (the room is not kept in
    /// memory: for reading many finished games, as the archive does); `None` when there is no
    /// such game.
    ///
    /// # Errors
    ///
    /// The store failed, or its events do not replay.
    pub async fn stored_sgf(self: &Arc<Games>, id: &str) -> Result<Option<String>> {
        Ok(replay(self, id).await?.map(|(_, room)| room.sgf()))
    }

    /// The server (or the TD through it) acts on game `id`: the new version, or why not (404
    /// for no such game, 409 with the refusal's code).
    ///
    /// # Errors
    ///
    /// As said.
    pub async fn act_as_server(self: &Arc<Games>, id: &str, act: Act) -> Result<u64, ApiError> {
        let handle = room_or_404(self, id).await?;
        let mut inner = handle.inner.lock().await;
        let (event, next) = inner.room.prepare(None, act, self.now_ms(), None)?;
        store_and_apply(self, &handle, &mut inner, event, next)
            .await
            .map_err(|e| ApiError::storage(&e))
    }

    /// The result of game `id` as its stored events say, once over; `None` while
    /// it goes on (or when there is no such game).
    ///
    /// # Errors
    ///
    /// The store failed, or the stored game cannot be replayed.
    pub async fn result(self: &Arc<Games>, id: &str) -> Result<Option<goref_rules::Outcome>> {
        let Some(handle) = load_room(self, id).await? else {
            return Ok(None);
        };
        let inner = handle.inner.lock().await;
        Ok(inner.room.finished().map(|f| f.result))
    }

    /// The leading server resumes the clocks at `at` (it starts, or takes over from a server
    /// that died): an [`Act::Resume`] event at `at` in the log of every started game whose
    /// clock runs (unless a later event is there already), ordered with its moves by the
    /// log's sequence, so that every server shows, stores and flags from that log alone. Each
    /// game's timer is armed; a game waiting for its third party is decided. How many games
    /// it resumed or decided.
    pub(crate) async fn resume_clocks(self: &Arc<Games>, at: u64) -> usize {
        upkeep::resume_started(self, at).await
    }

    /// Resumes the clock of game `id` at `at` (see [`Games::resume_clocks`]); whether an
    /// event was stored. A move stored first by another server is read, and the resume made
    /// on it when still due. A game whose referee waits for the third party (a server
    /// stopped between the game's last event and the decision, which a search may take
    /// seconds to reach) is decided now.
    async fn resume_game(self: &Arc<Games>, handle: &Arc<RoomHandle>, at: u64) -> bool {
        let mut inner = handle.inner.lock().await;
        for _ in 0..MAX_TRIES {
            let prepared = match inner.room.prepare_resume(at) {
                Some(resume) => Some(resume),
                None => adjudication(self, &inner.room).await,
            };
            let Some((event, next)) = prepared else {
                return false;
            };
            match store_and_apply(self, handle, &mut inner, event, next).await {
                Ok(_) => return true,
                Err(StoreError::SeqTaken(_)) => continue,
                Err(e) => {
                    eprintln!("goref serve: game {}: resume not stored: {e:#}", handle.id);
                    return false;
                }
            }
        }
        false
    }
}

/// Times an event is prepared again after another server stored one first (then read).
const MAX_TRIES: usize = 8;

struct RoomHandle {
    id: String,
    secret_hashes: ByColor<String>,
    inner: tokio::sync::Mutex<RoomInner>,
    tx: broadcast::Sender<Shown>,
    /// Open connections that take whole states only (they did not ask for changes).
    wholes: AtomicUsize,
    /// The room's version each time its room changes (stored here, or read again after
    /// another server stored an event): what [`RoomWatch`] wakes on. A watch, never a queue:
    /// a follower that falls behind reads the room as it is now, and misses nothing.
    version: tokio::sync::watch::Sender<u64>,
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
        let _ = self.tx.send(Shown::All(text.into()));
        counts.iter().sum()
    }
}

struct RoomInner {
    room: Room,
}

impl RoomHandle {
    /// Takes `room` as the room's state now (the caller holds `inner`) and wakes its
    /// [`RoomWatch`]es; returns the room before.
    fn set_room(&self, inner: &mut RoomInner, room: Room) -> Room {
        let before = std::mem::replace(&mut inner.room, room);
        self.version.send_replace(inner.room.version());
        before
    }

    /// Shows the room to the game's WebSockets here, if any is open (a game only programs of
    /// CGOS's door play makes no text per move): what the moves since `before` changed to the
    /// connections that asked for changes, when it is only moves
    /// ([`Room::moved_since`]), and the whole state to the others (made only if one is open).
    fn show(&self, before: Option<&Room>, room: &Room, now_ms: u64) {
        let open = self.tx.receiver_count();
        if open == 0 {
            return;
        }
        let wholes = self.wholes.load(Ordering::SeqCst);
        let change = before
            .filter(|_| open > wholes)
            .and_then(|before| room.moved_since(before, now_ms));
        let whole = || -> Arc<str> { state_text(room, &self.id, now_ms).into() };
        let _ = self.tx.send(match change {
            Some(change) => Shown::Moved {
                change: ServerMessage::Moved(Box::new(change)).to_text().into(),
                whole: (wholes > 0).then(whole),
            },
            None => Shown::All(whole()),
        });
    }
}

/// What a room's connections are sent.
#[derive(Clone, Debug)]
enum Shown {
    /// The same text for every connection: who is there, or the whole state after a change
    /// that is not only moves.
    All(Arc<str>),
    /// After moves: their change, and the whole state (made only when a connection that did
    /// not ask for changes was open).
    Moved {
        change: Arc<str>,
        whole: Option<Arc<str>>,
    },
}

/// Counts a connection that takes whole states only while it lives.
struct TakesWholes(Arc<RoomHandle>);

impl TakesWholes {
    fn new(handle: Arc<RoomHandle>) -> TakesWholes {
        handle.wholes.fetch_add(1, Ordering::SeqCst);
        TakesWholes(handle)
    }
}

impl Drop for TakesWholes {
    fn drop(&mut self) {
        self.0.wholes.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A game followed as it changes, on this server, whoever stored the change (this server or
/// another on the same database): [`RoomWatch::changed`] returns once the room held here is at
/// a newer version than the one last read, and [`RoomWatch::read`] reads it. A follower that
/// falls behind misses no state: it reads the room as it is now. Holds the room in memory while
/// it lives. Made by [`Games::watch_room`].
pub struct RoomWatch {
    handle: Arc<RoomHandle>,
    version: tokio::sync::watch::Receiver<u64>,
}

impl RoomWatch {
    /// Waits until the room changes after the last [`RoomWatch::read`] (at once if it changed
    /// already); `false` when it never will (the service is gone).
    pub async fn changed(&mut self) -> bool {
        self.version.changed().await.is_ok()
    }

    /// Reads the room as it is now (marking its version seen).
    pub async fn read<T>(&mut self, f: impl FnOnce(&Room) -> T) -> T {
        let inner = self.handle.inner.lock().await;
        self.version.mark_unchanged();
        f(&inner.room)
    }

    /// The game's id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.handle.id
    }
}

fn new_handle(stored: StoredGame, room: Room) -> Arc<RoomHandle> {
    let (tx, _) = broadcast::channel(64);
    let (version, _) = tokio::sync::watch::channel(room.version());
    Arc::new(RoomHandle {
        id: stored.id,
        secret_hashes: stored.secret_hashes,
        inner: tokio::sync::Mutex::new(RoomInner { room }),
        tx,
        wholes: AtomicUsize::new(0),
        version,
        present: Mutex::new([0; 3]),
    })
}

/// Game `id` as stored, its events replayed into a room: the clocks as the log says, the
/// running one charged from its last event or resume ([`Act::Resume`]) — the same on every
/// server. An old database's resumes ([`Store::legacy_resumes`]) are replayed as they were
/// played: a turn that ran across one is charged from it.
async fn replay(state: &Arc<Games>, id: &str) -> Result<Option<(StoredGame, Room)>> {
    let Some((stored, events)) = state.store.load(id).await? else {
        return Ok(None);
    };
    let mut room = Room::new(
        stored.config.clone(),
        stored.created_ms,
        state.opts.lag_allowance_ms,
    )
    .map_err(anyhow::Error::msg)?;
    let legacy = &state.legacy_resumes;
    let from = legacy.partition_point(|&r| r <= stored.created_ms);
    let mut resumes = legacy[from..].iter().copied().peekable();
    for event in &events {
        // A turn that ran across a resume is charged from it, as it was when played.
        while let Some(r) = resumes.next_if(|&r| r < event.at_ms) {
            if room.last_event_ms().is_some_and(|last| r > last) {
                room.restart_turn_at(r);
            }
        }
        room.commit(event)
            .map_err(|e| anyhow::anyhow!("event {}: {e}", event.seq))?;
    }
    if let Some(r) = resumes.last() {
        if room.phase() != Phase::Over && room.last_event_ms().is_some_and(|last| r > last) {
            room.restart_turn_at(r);
        }
    }
    Ok(Some((stored, room)))
}

/// Game `id`'s room after the events stored since `room`'s version (another server's), read
/// from the store and applied to a copy: `None` when there are none. Should one not apply (the
/// log is not this room's continuation), the whole log is replayed instead.
async fn caught_up(state: &Arc<Games>, id: &str, room: &Room) -> Result<Option<Room>> {
    let events = state.store.events_after(id, room.version()).await?;
    if events.is_empty() {
        return Ok(None);
    }
    let mut next = room.clone();
    for event in &events {
        if next.commit(event).is_err() {
            return Ok(replay(state, id)
                .await?
                .map(|(_, r)| r)
                .filter(|r| r.version() > room.version()));
        }
    }
    Ok(Some(next))
}

/// Brings the room held here up to the events other servers stored since its version: its
/// timer armed again and everyone connected here shown it (a failure to read is logged).
async fn catch_up_room(state: &Arc<Games>, handle: &Arc<RoomHandle>, inner: &mut RoomInner) {
    match caught_up(state, &handle.id, &inner.room).await {
        Ok(Some(room)) => {
            let before = handle.set_room(inner, room);
            schedule_timer(state, handle, inner);
            handle.show(Some(&before), &inner.room, state.now_ms());
        }
        Ok(None) => {}
        Err(e) => eprintln!("goref serve: game {}: not read again: {e:#}", handle.id),
    }
}

/// Follows the leadership among servers sharing a database: taking it, this server arms the
/// timers of every game it holds and resumes the started ones (as after a restart); losing
/// it, it disarms its timers.
async fn follow_leadership(state: std::sync::Weak<Games>) {
    let Some(mut leader) = state.upgrade().and_then(|s| s.leader.clone()) else {
        return;
    };
    // What it is now, then every change (read and marked seen in one step: none is missed).
    let mut leads = *leader.borrow_and_update();
    loop {
        let Some(state) = state.upgrade() else { return };
        if leads {
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
        drop(state);
        if leader.changed().await.is_err() {
            return;
        }
        leads = *leader.borrow_and_update();
    }
}

/// Follows what the database announces of every game's log (shared store): each event stored,
/// by any server this one included, in the order stored. A game held here is read again when
/// the event is newer than its room, and shown to everyone connected here; then — and only
/// then — the event is told on this server's bus ([`GameEvent::Changed`]), so that whoever
/// reads the room on hearing of it finds it at that version at least (a game not held here is
/// read from the store, where the event is). After missed notes: every game held is read again.
async fn follow_changes(
    state: std::sync::Weak<Games>,
    mut appended: tokio::sync::mpsc::UnboundedReceiver<(String, u64)>,
) {
    // Missed events come as an empty id.
    while let Some((id, seq)) = appended.recv().await {
        let Some(state) = state.upgrade() else { return };
        state.appends.fetch_add(1, Ordering::SeqCst);
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
            catch_up_room(&state, &handle, &mut inner).await;
        }
        if !id.is_empty() {
            state
                .bus
                .changed_here(GameEvent::Changed { id, version: seq });
        }
    }
}

/// The room of game `id`, loaded from the store (events replayed) when not in memory.
async fn load_room(state: &Arc<Games>, id: &str) -> Result<Option<Arc<RoomHandle>>> {
    if let Some(h) = state.rooms.lock().expect("rooms").get(id) {
        return Ok(Some(h.clone()));
    }
    if id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Ok(None);
    }
    let appends = state.appends.load(Ordering::SeqCst);
    let Some((stored, room)) = replay(state, id).await? else {
        return Ok(None);
    };
    if let (Phase::Over, Some(f)) = (room.phase(), room.finished()) {
        // The result may not have reached the games table before a crash.
        state.store.finish(id, f.result).await?;
    }
    let ours = new_handle(stored, room);
    let handle = {
        let mut rooms = state.rooms.lock().expect("rooms");
        rooms.entry(id.to_string()).or_insert(ours.clone()).clone()
    };
    let mut inner = handle.inner.lock().await;
    if Arc::ptr_eq(&handle, &ours) && state.appends.load(Ordering::SeqCst) != appends {
        // An event may have been stored (through a room of this game that has left memory
        // since, or by another server, whose note found no room here) after the replay read
        // the log and before this room was in `rooms`, where every later event finds it.
        if let Some((_, room)) = replay(state, id).await? {
            if room.version() > inner.room.version() {
                handle.set_room(&mut inner, room);
            }
        }
    }
    if inner.room.phase() != Phase::Over {
        schedule_timer(state, &handle, &mut inner);
    }
    drop(inner);
    Ok(Some(handle))
}

/// The room of game `id` for a player's act, or the refusal (no such game, the store failed).
async fn room_to_act_on(
    state: &Arc<Games>,
    id: &str,
) -> Result<Arc<RoomHandle>, (MessageRefusal, u64)> {
    match load_room(state, id).await {
        Ok(Some(h)) => Ok(h),
        Ok(None) => Err((MessageRefusal::Malformed("no such game".into()), 0)),
        Err(e) => Err((MessageRefusal::Storage(format!("{e:#}")), 0)),
    }
}

async fn room_or_404(state: &Arc<Games>, id: &str) -> Result<Arc<RoomHandle>, ApiError> {
    match load_room(state, id).await {
        Ok(Some(h)) => Ok(h),
        Ok(None) => Err(ApiError::NotFound(Missing::Game)),
        Err(e) => Err(ApiError::storage(&e)),
    }
}

/// The whole state of the room as a message.
fn state_text(room: &Room, id: &str, now_ms: u64) -> String {
    ServerMessage::State(Box::new(room.view(id, now_ms))).to_text()
}

/// Validates, stores, applies and broadcasts one action. Returns the new version, or the
/// refusal and the (unchanged) version.
async fn act_on(
    state: &Arc<Games>,
    handle: &Arc<RoomHandle>,
    seat: Option<Color>,
    act: Act,
    version: Option<u64>,
    think_ms: Option<u64>,
    comment: Option<String>,
) -> Result<u64, (MessageRefusal, u64)> {
    let arrived_us = state.clock.now_us();
    let moved = is_move(&act);
    let mut inner = handle.inner.lock().await;
    let acted = act_locked(
        state, handle, &mut inner, seat, act, version, think_ms, comment,
    )
    .await;
    relayed(state, moved && acted.is_ok(), arrived_us);
    acted
}

/// Whether `act` is a move: a stone or a pass by a player (what `goref_moves_total` counts
/// and the relay's histogram times).
fn is_move(act: &Act) -> bool {
    matches!(act, Act::Play { .. } | Act::Pass)
}

/// A move that arrived at `arrived_us` was stored and sent to the game's connections here
/// (the room's WebSockets and watchers, by [`store_and_apply`]) when `sent`: its relay is
/// timed, now, by the server's clock.
fn relayed(state: &Games, sent: bool, arrived_us: u64) {
    if sent {
        state.metrics.relayed(arrived_us, state.clock.now_us());
    }
}

/// [`act_on`] with the room held.
#[allow(clippy::too_many_arguments)]
async fn act_locked(
    state: &Arc<Games>,
    handle: &Arc<RoomHandle>,
    inner: &mut RoomInner,
    seat: Option<Color>,
    act: Act,
    version: Option<u64>,
    think_ms: Option<u64>,
    comment: Option<String>,
) -> Result<u64, (MessageRefusal, u64)> {
    let current = inner.room.version();
    let Some(by) = seat else {
        return Err((MessageRefusal::Spectator, current));
    };
    let Some(version) = version else {
        return Err((
            MessageRefusal::Malformed(
                "every action carries the version of the game it answers".into(),
            ),
            current,
        ));
    };
    let turn = matches!(
        act,
        Act::Play { .. } | Act::Pass | Act::Mark { .. } | Act::Dispute { .. } | Act::Done
    );
    for _ in 0..MAX_TRIES {
        let current = inner.room.version();
        // Older by resumes of the clocks only, it answers the game as it is.
        if !inner.room.answers(version) {
            return Err((MessageRefusal::Stale { version, current }, current));
        }
        let now = state.now_ms();
        let (event, next) = match inner.room.prepare_commented(
            Some(by),
            act.clone(),
            now,
            think_ms,
            comment.clone(),
        ) {
            Ok(prepared) => prepared,
            Err(r) => return Err((r, current)),
        };
        let late = turn && next.lost_on_time(by);
        match store_and_apply(state, handle, inner, event, next).await {
            // The flag fell before the move arrived: the loss is recorded, the move refused.
            Ok(v) if late => return Err((MessageRefusal::OutOfTime, v)),
            Ok(v) => return Ok(v),
            // The game went on elsewhere (now read again): a resume of the clocks came first
            // (the move is made after it), or this answers an older state.
            Err(StoreError::SeqTaken(_)) => continue,
            Err(e) => return Err((MessageRefusal::Storage(format!("{e:#}")), current)),
        }
    }
    let current = inner.room.version();
    Err((MessageRefusal::Stale { version, current }, current))
}

/// Stores `event`, then takes `next` (the room with the event applied), then tells everyone.
/// Nothing changes if storing fails. When the referee then needs an adjudication, the server's
/// third party decides (the game's [`ThirdParty`]: Olympiad 3.9's default removal, or perfect
/// play, searched here while the room is held), stored the same way.
async fn store_and_apply(
    state: &Arc<Games>,
    handle: &Arc<RoomHandle>,
    inner: &mut RoomInner,
    event: Event,
    next: Room,
) -> Result<u64, StoreError> {
    let mut pending = Some((event, next));
    // The room before the first event, that the connections were shown.
    let mut shown: Option<Room> = None;
    while let Some((event, next)) = pending.take() {
        let stored = state
            .store
            .append(&handle.id, &event, next.moves() as u64)
            .await;
        if let Err(e) = stored {
            if let StoreError::SeqTaken(_) = e {
                // Another writer (a server on the same database) extended the game: this room
                // is stale. It takes the stored events, and everyone here is told.
                catch_up_room(state, handle, inner).await;
            }
            return Err(e);
        }
        state.appends.fetch_add(1, Ordering::SeqCst);
        if event.by.is_some() && is_move(&event.act) {
            state.metrics.moved();
        }
        let before = handle.set_room(inner, next);
        shown.get_or_insert(before);
        state
            .bus
            .publish(BusEvent::Game(GameEvent::Changed {
                id: handle.id.clone(),
                version: inner.room.version(),
            }))
            .await;
        pending = adjudication(state, &inner.room).await;
    }
    if let Some(f) = inner.room.finished() {
        if let Err(e) = state.store.finish(&handle.id, f.result).await {
            eprintln!("goref serve: game {}: result not stored: {e:#}", handle.id);
        }
        state
            .bus
            .publish(BusEvent::Game(GameEvent::Finished {
                id: handle.id.clone(),
                config: Box::new(inner.room.config().clone()),
                result: f.result,
            }))
            .await;
    }
    schedule_timer(state, handle, inner);
    handle.show(shown.as_ref(), &inner.room, state.now_ms());
    Ok(inner.room.version())
}

/// The server's third party's decision when the referee of `room` needs one (by the game's
/// [`ThirdParty`]): the event to store and the room after it.
async fn adjudication(state: &Arc<Games>, room: &Room) -> Option<(Event, Room)> {
    match room.third_party_due()? {
        ThirdParty::DefaultRemoval => room.prepare_adjudication(state.now_ms()),
        ThirdParty::PerfectPlay { nodes } => {
            let decided = perfect_play(state, room, nodes).await?;
            room.prepare_adjudicated(decided, state.now_ms())
        }
    }
}

/// The third party's decision by perfect play on `room`, within `nodes` and the server's cap
/// (`None` when it needs no adjudication): searched once, here, off the async runtime's
/// threads (at most [`PERFECT_PLAY_AT_ONCE`] searches at a time), while the caller holds the
/// room; the event stored carries the moves, so that a replay does not search again. A search
/// that does not prove the value gives the default removal (goref-referee's `by_perfect_play`
/// says why in its note); so does a search task that dies.
async fn perfect_play(state: &Arc<Games>, room: &Room, nodes: u64) -> Option<goref_referee::Input> {
    let referee = room.referee().clone();
    let budget = nodes.min(state.opts.max_perfect_nodes);
    let _permit = state.solves.acquire().await.expect("never closed");
    let solved = tokio::task::spawn_blocking(move || {
        goref_referee::adjudicate::by_perfect_play(&referee, budget)
    })
    .await;
    match solved {
        Ok(decided) => decided,
        Err(_) => goref_referee::adjudicate::by_default_removal(room.referee()),
    }
}

/// Arms the timer that flags the running player when their time (plus the lag allowance) is
/// up; disarms the previous one.
fn schedule_timer(state: &Arc<Games>, handle: &Arc<RoomHandle>, inner: &mut RoomInner) {
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
        let wait = deadline.saturating_sub(state.now_ms()) + 5;
        tokio::time::sleep(Duration::from_millis(wait)).await;
        // Boxed: a sleeping timer then takes a few bytes, not the size of what follows.
        Box::pin(timer_due(state, id, version)).await;
    });
    timers.insert(handle.id.clone(), timer);
}

/// A clock timer is due: the running player of game `id` at `version` loses on time (if
/// nothing happened meanwhile).
async fn timer_due(state: Arc<Games>, id: String, version: u64) {
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
    if let Some((event, next)) = inner.room.prepare_timeout(state.now_ms()) {
        // Taking the timer out first: store_and_apply would abort this very task.
        state.timers.lock().expect("timers").remove(&id);
        if let Err(e) = store_and_apply(&state, &handle, &mut inner, event, next).await {
            eprintln!("goref serve: game {id}: timeout not stored: {e:#}");
        }
    }
}

/// A feature the bus drives (ratings, tournaments): what it does with each event, and what the
/// leading server does to catch up with what it may have missed. See [`Games::follow`].
pub trait Follower: Send + Sync {
    /// One event of the bus.
    fn on_event(&self, event: &BusEvent) -> impl std::future::Future<Output = ()> + Send;
    /// The leader's catching up (at start, on taking the lead, after events were lost).
    fn catch_up(&self) -> impl std::future::Future<Output = ()> + Send;
}

#[cfg(test)]
mod tests {
    //! The games service on tokio's paused clock: no sockets, no sleeps; time moves when the
    //! test says.
    use super::*;
    use crate::clock::Clock;
    use crate::store::SqliteStore;

    async fn games(dir: &tempfile::TempDir) -> Arc<Games> {
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        let opts = Options {
            clock: Clock::tokio(),
            lag_allowance_ms: 100,
            ..Options::default()
        };
        Games::new(store.clone(), Bus::new(store), opts)
            .await
            .unwrap()
    }

    fn clocked(main_s: u64) -> GameConfig {
        CreateRequest {
            width: Some(5),
            time: Some(goref_clock::TimeControl::SuddenDeath {
                main: Duration::from_secs(main_s),
            }),
            ..CreateRequest::default()
        }
        .config()
        .unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn the_timer_flags_when_time_and_lag_allowance_are_up_and_publishes_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let games = games(&dir).await;
        let mut bus = games.subscribe();
        let mut changes = games.subscribe_changes();
        let opened = games.open(clocked(2), "test".into()).await.unwrap();
        let id = opened.id.clone();
        assert!(matches!(
            bus.try_recv(),
            Ok(BusEvent::Game(GameEvent::Started { .. }))
        ));
        let v = games
            .act(
                &id,
                Some(Color::Black),
                Act::Play { x: 2, y: 2 },
                Some(0),
                None,
            )
            .await
            .unwrap();
        assert_eq!(v, 1);
        assert_eq!(
            changes.try_recv().unwrap(),
            BusEvent::Game(GameEvent::Changed {
                id: id.clone(),
                version: 1
            })
        );
        let moved = games.now_ms();
        // White's 2 s and the 100 ms lag allowance: nothing at 2.05 s.
        tokio::time::advance(Duration::from_millis(2_050)).await;
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        assert_eq!(games.result(&id).await.unwrap(), None);
        assert!(bus.try_recv().is_err(), "nothing happened");
        tokio::time::advance(Duration::from_millis(100)).await;
        // The timer stores the flag (the store's thread answers; no timer is left to move the
        // paused clock meanwhile) and publishes the end.
        let finished = loop {
            match bus.recv().await.unwrap() {
                BusEvent::Game(GameEvent::Finished { result, .. }) => break result,
                _ => continue,
            }
        };
        assert_eq!(finished.to_sgf(), "B+T");
        assert_eq!(
            games
                .result(&id)
                .await
                .unwrap()
                .map(|r| r.to_sgf())
                .as_deref(),
            Some("B+T")
        );
        let (_, events) = games.store().load(&id).await.unwrap().unwrap();
        let flag = events.last().unwrap();
        assert_eq!(flag.act, Act::Timeout);
        assert!(
            (moved + 2_100..=moved + 2_150).contains(&flag.at_ms),
            "flagged at +{} ms",
            flag.at_ms - moved
        );
    }

    /// `by` acts on game `id`, answering the version it is at.
    async fn act_now(games: &Arc<Games>, id: &str, by: Color, act: Act) -> u64 {
        let version = games.room(id).await.unwrap().unwrap().version();
        games
            .act(id, Some(by), act.clone(), Some(version), None)
            .await
            .unwrap_or_else(|e| panic!("{by} {act:?}: {e:?}"))
    }

    /// A 3×3 game under the Olympiad's rules and end protocol, komi 0.5, whose third party
    /// plays perfectly.
    fn perfect_3x3(nodes: u64) -> CreateRequest {
        CreateRequest {
            width: Some(3),
            rules: Some("olympiad".into()),
            komi: Some(0.5),
            end: Some(goref_referee::Protocol::Olympiad),
            third_party: Some(ThirdParty::PerfectPlay { nodes }),
            ..CreateRequest::default()
        }
    }

    /// 001 3.7.4-3.7.5 and §3.9 on the server: the players' dead lists differ four times
    /// (play resumes three times), the tournament director decides, and this game's third
    /// party plays perfectly: the result is the value goref-solve proves for the position
    /// with its history, the log holds the play-out (the moves, not a request to search),
    /// a server replaying the stored log gets the same game without searching, and the
    /// record the server exports scores to its RE as `goref score` reads it.
    #[tokio::test(start_paused = true)]
    async fn perfect_play_decides_the_olympiads_fourth_dispute_and_the_log_replays_it() {
        let dir = tempfile::tempdir().unwrap();
        let games = games(&dir).await;
        let config = perfect_3x3(1_000_000).config().unwrap();
        let id = games.open(config, "test".into()).await.unwrap().id;
        // B a1, W b3, both pass: each player calls the other's stone dead.
        for (by, act) in [
            (Color::Black, Act::Play { x: 0, y: 2 }),
            (Color::White, Act::Play { x: 1, y: 0 }),
            (Color::Black, Act::Pass),
            (Color::White, Act::Pass),
        ] {
            act_now(&games, &id, by, act).await;
        }
        let lists = [
            (
                Color::Black,
                Act::DeadList {
                    points: vec![[1, 0]],
                },
            ),
            (
                Color::White,
                Act::DeadList {
                    points: vec![[0, 2]],
                },
            ),
        ];
        for resumption in 1..=3 {
            for (by, act) in lists.clone() {
                act_now(&games, &id, by, act).await;
            }
            let room = games.room(&id).await.unwrap().unwrap();
            assert_eq!(room.referee().resumptions(), resumption);
            let first = room.referee().board_in_play().to_move();
            act_now(&games, &id, first, Act::Pass).await;
            act_now(&games, &id, first.opponent(), Act::Pass).await;
        }
        // What goref-solve proves from here (play resumed), searched apart from the server.
        let before = games.room(&id).await.unwrap().unwrap();
        let mut position = before.referee().game().clone();
        position.resume();
        let solved = goref_solve::solve(&position, &goref_solve::Options::default()).unwrap();
        let goref_solve::Verdict::Proven(value) = solved.verdict else {
            panic!("{solved:?}")
        };
        // What the default removal would give (neither lone stone is removed): the third
        // party decides this game.
        let mut by_default = before.clone();
        for (by, act) in lists.clone() {
            by_default = by_default.prepare(Some(by), act, 0, None).unwrap().1;
        }
        let by_default = by_default.prepare_adjudication(0).unwrap().1;
        assert_ne!(
            by_default.finished().unwrap().result.to_sgf(),
            value.to_sgf()
        );
        // The fourth disagreement: the server's third party decides at once.
        for (by, act) in lists {
            act_now(&games, &id, by, act).await;
        }
        let room = games.room(&id).await.unwrap().unwrap();
        let finished = room.finished().expect("decided");
        assert_eq!(finished.result.to_sgf(), value.to_sgf());
        assert_eq!(finished.ending, "adjudicated");
        assert_eq!(games.result(&id).await.unwrap(), Some(finished.result));
        // The log's last event is the server's play-out, its moves on the board after the
        // players' moves.
        let (stored, events) = games.store().load(&id).await.unwrap().unwrap();
        let last = events.last().unwrap();
        let Act::PlayOut { moves, note } = &last.act else {
            panic!("{:?}", last.act)
        };
        assert_eq!(last.by, None);
        assert!(
            note.starts_with("perfect play (001 §3.9, goref solve): "),
            "{note}"
        );
        assert!(note.contains(&value.to_sgf()), "{note}");
        assert_eq!(
            room.moves(),
            before.moves() + moves.len(),
            "the play-out's moves are the game's"
        );
        assert_eq!(
            room.referee().game().end(),
            Some(goref_rules::End::TwoPasses),
            "played out to the end"
        );
        // The game's view shows the note.
        let view = room.view(&id, games.now_ms());
        assert_eq!(
            view.result.as_deref(),
            Some(finished.result.to_sgf().as_str())
        );
        assert!(
            view.notes.iter().any(|n| &n.text == note),
            "{:?}",
            view.notes
        );
        // A fresh room from the stored log, and another server on the store: the same game.
        let mut replayed = Room::new(stored.config, stored.created_ms, 100).unwrap();
        for e in &events {
            replayed.commit(e).unwrap();
        }
        assert_eq!(replayed.finished(), Some(finished.clone()));
        assert_eq!(replayed.sgf(), room.sgf());
        let other = on_manual(games.store().clone(), &Clock::manual(games.now_ms())).await;
        let there = other.room(&id).await.unwrap().unwrap();
        assert_eq!(there.finished(), Some(finished.clone()));
        assert_eq!(there.version(), room.version());
        // The record: the play-out's moves and the note, and it scores to its RE.
        let sgf = room.sgf();
        assert!(
            sgf.contains("perfect play (001 §3.9, goref solve)"),
            "{sgf}"
        );
        let record = goref_sgf::parse(&sgf).unwrap();
        assert_eq!(
            record.result.as_deref(),
            Some(finished.result.to_sgf().as_str())
        );
        assert_eq!(record.moves.len(), room.moves());
        let rules =
            goref_rules::Ruleset::preset(record.preset().unwrap()).with_komi(record.komi.unwrap());
        let game = record.replay(rules).unwrap();
        assert_eq!(game.end(), Some(goref_rules::End::TwoPasses));
        let scored = record
            .final_score(&game)
            .map_or_else(|| game.outcome(), |f| f.score.outcome());
        assert_eq!(scored.to_sgf(), finished.result.to_sgf(), "{sgf}");
    }

    /// A server that stopped after storing the event that sent a game to its third party, and
    /// before storing the decision: the leading server decides it when it starts (as it
    /// resumes the started games), once.
    #[tokio::test(start_paused = true)]
    async fn a_game_left_waiting_for_its_third_party_is_decided_at_the_restart() {
        let dir = tempfile::tempdir().unwrap();
        let games = games(&dir).await;
        let request = CreateRequest {
            end: Some(goref_referee::Protocol::Referee),
            ..perfect_3x3(100_000)
        };
        let id = games
            .open(request.config().unwrap(), "test".into())
            .await
            .unwrap()
            .id;
        // The events as the stopped server stored them: the moves and the lists, no decision.
        let (stored, _) = games.store().load(&id).await.unwrap().unwrap();
        let mut room = Room::new(stored.config, stored.created_ms, 100).unwrap();
        for (by, act) in [
            (Color::Black, Act::Play { x: 0, y: 2 }),
            (Color::White, Act::Play { x: 1, y: 0 }),
            (Color::Black, Act::Pass),
            (Color::White, Act::Pass),
            (
                Color::Black,
                Act::DeadList {
                    points: vec![[1, 0]],
                },
            ),
            (
                Color::White,
                Act::DeadList {
                    points: vec![[0, 2]],
                },
            ),
        ] {
            let (event, next) = room.prepare(Some(by), act, games.now_ms(), None).unwrap();
            games
                .store()
                .append(&id, &event, next.moves() as u64)
                .await
                .unwrap();
            room = next;
        }
        assert!(
            room.third_party_due().is_some(),
            "waiting for the third party"
        );
        let restarted = on_manual(games.store().clone(), &Clock::manual(games.now_ms())).await;
        assert_eq!(restarted.resume_clocks(restarted.now_ms()).await, 1);
        assert_eq!(restarted.resume_clocks(restarted.now_ms()).await, 0, "once");
        let (_, events) = restarted.store().load(&id).await.unwrap().unwrap();
        assert_eq!(events.len(), 7);
        assert!(
            matches!(events[6].act, Act::PlayOut { .. }),
            "{:?}",
            events[6].act
        );
        assert_eq!(
            restarted.result(&id).await.unwrap(),
            restarted
                .room(&id)
                .await
                .unwrap()
                .unwrap()
                .finished()
                .map(|f| f.result)
        );
        assert!(restarted.result(&id).await.unwrap().is_some(), "over");
    }

    /// A game may not ask perfect play of more nodes than the server allows: refused with
    /// the cap named, by the service (every game it makes) and by `POST /api/games`'s
    /// settings; none is refused too.
    #[tokio::test(start_paused = true)]
    async fn perfect_play_beyond_the_servers_cap_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let games = games(&dir).await;
        let cap = games.options().max_perfect_nodes;
        assert_eq!(cap, crate::options::DEFAULT_MAX_PERFECT_NODES);
        let config = perfect_3x3(cap + 1).config().unwrap();
        let refused = games.open(config, "test".into()).await.unwrap_err();
        let ApiError::Invalid(message) = refused else {
            panic!("{refused:?}")
        };
        assert_eq!(
            message,
            format!(
                "perfect play may search at most {cap} nodes on this server, not {}",
                cap + 1
            )
        );
        assert!(
            games.store().list(10).await.unwrap().is_empty(),
            "nothing stored"
        );
        assert!(games
            .open(perfect_3x3(cap).config().unwrap(), "test".into())
            .await
            .is_ok());
        assert_eq!(
            perfect_3x3(0).config().unwrap_err(),
            crate::room::ConfigError::NoNodes
        );
    }

    /// White's main time left as game `id`'s room on `games` shows it now.
    async fn white_left(games: &Arc<Games>, id: &str) -> u64 {
        let handle = load_room(games, id).await.unwrap().unwrap();
        let inner = handle.inner.lock().await;
        inner.room.view(id, games.now_ms()).clocks.white.main_ms
    }

    /// Moves are counted once stored, and their relay timed by the server's clock (a manual
    /// one here, which does not move: 0 s); refusals, resignations and the server's events
    /// are neither.
    #[tokio::test(start_paused = true)]
    async fn moves_are_counted_and_their_relay_timed_by_the_servers_clock() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        let clock = Clock::manual(1_000_000);
        let games = on_manual(store, &clock).await;
        let id = games.open(clocked(60), "test".into()).await.unwrap().id;
        act_now(&games, &id, Color::Black, Act::Play { x: 2, y: 2 }).await;
        let refused = games
            .act(
                &id,
                Some(Color::Black),
                Act::Play { x: 3, y: 3 },
                Some(1),
                None,
            )
            .await;
        assert!(refused.is_err(), "out of turn");
        act_now(&games, &id, Color::White, Act::Pass).await;
        let grant = Act::Td {
            td: "td".into(),
            action: crate::wire::TdAction::Time {
                color: Side::B,
                seconds: 5,
                reason: String::new(),
            },
        };
        games.act_as_server(&id, grant).await.unwrap();
        act_now(&games, &id, Color::Black, Act::Resign).await;
        assert_eq!(games.metrics().moves(), 2);
        let text = games.metrics().render(&[], games.leads());
        let scrape =
            prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap();
        let relay = scrape
            .samples
            .iter()
            .find(|s| s.metric == "goref_move_relay_seconds")
            .unwrap();
        let prometheus_parse::Value::Histogram(buckets) = &relay.value else {
            panic!("{:?}", relay.value);
        };
        assert_eq!(
            (buckets[0].less_than, buckets[0].count),
            (0.0005, 2.0),
            "two relays, in no time by the manual clock"
        );
    }

    /// A server on `store` whose time is `clock` (moved by hand).
    async fn on_manual(store: Arc<dyn Store>, clock: &Clock) -> Arc<Games> {
        let opts = Options {
            clock: clock.clone(),
            lag_allowance_ms: 100,
            ..Options::default()
        };
        Games::new(store.clone(), Bus::new(store), opts)
            .await
            .unwrap()
    }

    /// Issue 23 §5: a resume of the clocks is an event of the game's own log; live and
    /// replayed, a turn that ran across it is charged from it. On a manual clock: with
    /// tokio's paused clock, every wait for the store's thread would let tokio jump to
    /// White's timer.
    #[tokio::test]
    async fn a_resume_of_the_clocks_is_an_event_of_the_log_charged_alike_live_and_replayed() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        let clock = Clock::manual(1_000_000);
        let games = on_manual(store, &clock).await;
        let mut changes = games.subscribe_changes();
        let id = games.open(clocked(60), "test".into()).await.unwrap().id;
        games
            .act(
                &id,
                Some(Color::Black),
                Act::Play { x: 2, y: 2 },
                Some(0),
                None,
            )
            .await
            .unwrap();
        // White thinks 5 s, the clocks are resumed (a failover), White thinks 3 s more and
        // plays: charged 3 s.
        clock.advance(5_000);
        assert_eq!(games.resume_clocks(games.now_ms()).await, 1);
        assert_eq!(
            games.resume_clocks(games.now_ms()).await,
            0,
            "resumed once at that time"
        );
        clock.advance(3_000);
        assert_eq!(white_left(&games, &id).await, 57_000);
        let changed: Vec<BusEvent> = std::iter::from_fn(|| changes.try_recv().ok()).collect();
        assert_eq!(
            changed.last(),
            Some(&BusEvent::Game(GameEvent::Changed {
                id: id.clone(),
                version: 2
            })),
            "the resume is published as the game's change: {changed:?}"
        );
        // White's move answers version 1, the position it saw: the resume (version 2)
        // changed no position, so the move is not stale.
        let v = games
            .act(
                &id,
                Some(Color::White),
                Act::Play { x: 1, y: 1 },
                Some(1),
                None,
            )
            .await
            .unwrap();
        assert_eq!(v, 3);
        assert_eq!(white_left(&games, &id).await, 57_000);
        // A move answering version 1 now is stale: a move came since.
        let stale = games
            .act(&id, Some(Color::Black), Act::Pass, Some(1), None)
            .await
            .unwrap_err();
        assert!(
            matches!(stale.0, MessageRefusal::Stale { current: 3, .. }),
            "{stale:?}"
        );
        // Another server (or this one restarted) replays the stored game: the same clocks.
        let store = games.store().clone();
        let other = on_manual(store, &clock).await;
        assert_eq!(white_left(&other, &id).await, 57_000);
        let (_, events) = other.store().load(&id).await.unwrap().unwrap();
        let acts: Vec<&Act> = events.iter().map(|e| &e.act).collect();
        assert_eq!(
            acts,
            [
                &Act::Play { x: 2, y: 2 },
                &Act::Resume,
                &Act::Play { x: 1, y: 1 }
            ],
            "the restart resumed nothing: Black's turn began at White's move"
        );
        assert_eq!(events[1].at_ms, 1_005_000);
        assert_eq!(events[2].clocks[1].main, Duration::from_secs(57));
    }

    /// A database from before resumes were events: the resumes an older server stored in
    /// `clock_resumes` still charge the turns that ran across them, as when played.
    #[tokio::test]
    async fn an_old_databases_resumes_still_charge_its_games() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).unwrap());
        let clock = Clock::manual(1_000_000);
        let games = on_manual(store.clone(), &clock).await;
        let id = games.open(clocked(60), "test".into()).await.unwrap().id;
        games
            .act(
                &id,
                Some(Color::Black),
                Act::Play { x: 2, y: 2 },
                Some(0),
                None,
            )
            .await
            .unwrap();
        drop(games);
        // An older server restarted 5 s later and recorded its resume in the table.
        clock.advance(5_000);
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute("INSERT INTO clock_resumes (at_ms) VALUES (1005000)", [])
            .unwrap();
        assert_eq!(store.legacy_resumes().await.unwrap(), [1_005_000]);
        let games = on_manual(store.clone(), &clock).await;
        clock.advance(3_000);
        assert_eq!(white_left(&games, &id).await, 57_000);
        games
            .act(
                &id,
                Some(Color::White),
                Act::Play { x: 1, y: 1 },
                Some(1),
                None,
            )
            .await
            .unwrap();
        let (_, events) = store.load(&id).await.unwrap().unwrap();
        assert_eq!(events.len(), 2, "no resume event: the old one covers it");
        assert_eq!(events[1].clocks[1].main, Duration::from_secs(57));
    }

    /// Issue 23 §5, the race: on two servers sharing one PostgreSQL database, one server's
    /// resume of the clocks and a player's move on the other come at once, turn after turn.
    /// Whichever the log puts first, both servers then show the same time left and the same
    /// deadline as the stored events alone give. Both read one manual clock. Skipped without
    /// PostgreSQL, unless GOREF_REQUIRE_PG is set.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_resume_racing_a_move_on_another_server_leaves_one_clock_truth() {
        if !goref_pg::testing::postgres_there() {
            return;
        }
        let (first, schema) = crate::store::suite::pg_store().await;
        let second = crate::store::suite::pg_store_in(&schema).await;
        let clock = Clock::manual(1_000_000);
        let one = on_manual(first.clone(), &clock).await;
        let two = on_manual(second, &clock).await;
        for games in [&one, &two] {
            tokio::spawn(games.clone().run());
        }
        let id = one.open(clocked(600), "test".into()).await.unwrap().id;
        let (mut resumes_first, mut moves_first) = (0, 0);
        for turn in 0..12usize {
            let color = if turn % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            clock.advance(1_000 + 37 * turn as u64);
            let at = one.now_ms();
            // The move answers the version the second server shows its player.
            let seen = two.room(&id).await.unwrap().unwrap().version();
            let play = Act::Play {
                x: turn % 5,
                y: turn / 5,
            };
            let (resumed, moved) = if turn % 3 == 1 {
                // The resume stored just before: the move reaches a server that has (or has
                // not yet) heard of it, and is made after it either way.
                let resumed = one.resume_clocks(at).await;
                (
                    resumed,
                    two.act(&id, Some(color), play, Some(seen), None).await,
                )
            } else {
                tokio::join!(
                    one.resume_clocks(at),
                    two.act(&id, Some(color), play, Some(seen), None)
                )
            };
            let moved = moved.unwrap_or_else(|e| panic!("turn {turn}: {e:?}"));
            let (stored, events) = first.load(&id).await.unwrap().unwrap();
            assert_eq!(
                moved,
                events.len() as u64,
                "the move is the log's last event"
            );
            match events
                .iter()
                .position(|e| e.act == Act::Resume && e.at_ms == at)
            {
                Some(r) => {
                    assert_eq!(r + 2, events.len(), "the resume, then the move");
                    assert_eq!(resumed, 1);
                    resumes_first += 1;
                }
                None => {
                    assert_eq!(resumed, 0, "the move came first: nothing left to resume");
                    moves_first += 1;
                }
            }
            // What the stored events alone give.
            let mut replayed = Room::new(stored.config, stored.created_ms, 100).unwrap();
            for e in &events {
                replayed.commit(e).unwrap();
            }
            // Both servers read the log to its end (the other one is told by NOTIFY).
            for games in [&one, &two] {
                let handle = load_room(games, &id).await.unwrap().unwrap();
                let mut told = handle.tx.subscribe();
                tokio::time::timeout(Duration::from_secs(10), async {
                    while handle.inner.lock().await.room.version() < moved {
                        let _ = told.recv().await;
                    }
                })
                .await
                .expect("the server read the log within 10 s");
            }
            clock.advance(250);
            let now = one.now_ms();
            let shown = |room: &Room| {
                let view = room.view(&id, now);
                (
                    view.clocks.black.main_ms,
                    view.clocks.white.main_ms,
                    room.deadline_ms(),
                )
            };
            let on_one = one.room(&id).await.unwrap().unwrap();
            let on_two = two.room(&id).await.unwrap().unwrap();
            assert_eq!(shown(&on_one), shown(&replayed), "turn {turn}: one server");
            assert_eq!(shown(&on_two), shown(&replayed), "turn {turn}: the other");
        }
        eprintln!("resumes stored first: {resumes_first}; moves first: {moves_first}");
        assert!(resumes_first >= 4, "turns 1, 4, 7 and 10 at least");
        crate::store::suite::drop_schema(&schema).await;
    }
}
