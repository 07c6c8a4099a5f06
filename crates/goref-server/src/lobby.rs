//! The lobby: who is here (people and programs, on any server of the database), open
//! challenges, accepting one, and continuous pairing of the players who wait (as CGOS does).
//!
//! Its state lives in the store, so that every server shows the same lobby and any server
//! serves any player: each connection is a [`Presence`] with a lease its server renews (a dead
//! server's players leave within [`Options::presence_lease`]); challenges are stored rows (made
//! on one server, accepted on another); the leading server pairs the waiting players and
//! expires dead presences. When the lobby changes, [`BusEvent::Lobby`] tells every server to
//! read its lists again.
//!
//! **Messages go to the connections they concern.** A game's start and end
//! ([`GameEvent::Started`], [`GameEvent::Finished`], heard on the bus) go to its two players'
//! connections only, in a queue of their own that never drops one: a connection that lets
//! [`PERSONAL_QUEUE`] of them wait is closed instead (back, it is told its games still on
//! first). The lists (who is here, the open challenges) are read again at most every
//! [`LIST_EVERY`] when something changed, and only what changed is sent (`lobby_delta`), once,
//! shared by every connection that follows the lists; a connection that falls behind them is
//! sent the whole lobby again. Programs need not follow the lists (`?list=0`; CGOS's door never
//! does): what a pairing round costs then grows with the players it pairs, not with the
//! connections.
//!
//! **Entry point for other doors** (the WebSocket here; a CGOS door, say): [`Lobby::join`]
//! makes a [`Member`] for an account — [`Member::recv`] gives what it is told (`game` when a
//! game of the account starts, `game_over`, the lobby when it follows the lists),
//! [`Member::next_game`] waits for its next game only, and [`Member::handle`] answers what it
//! sends ([`LobbyClientMessage`]: `wait`, `challenge`, `cancel`, `accept`). A program that
//! waits is paired by the leader and told `game`; it then plays through [`Games`] like any
//! other seat. The member leaves the lobby when dropped.
//!
//! The lobby's WebSocket is `/api/lobby/ws?token=…`; the book's docs/src/reference/api.md
//! documents the messages.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use goref_rules::Color;
use goref_tournament::continuous::{pair_waiting, Waiting};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc};

use crate::bus::{BusEvent, GameEvent};
use crate::error::{ApiError, NoSession};
use crate::games::Games;
use crate::limits::{MessageBucket, RateLimiter};
use crate::metrics::ConnectionKind;
use crate::options::Options;
pub use crate::options::PairingOptions;
use crate::room::{ConfigError, CreateRequest, GameConfig, Players, Side};
use crate::sessions::{account_of_token, random_hex};
use crate::store::{Presence, Store, StoredChallenge, Taken};
use crate::wire::{
    Account, ChallengeView, ColorChoice, GameStart, LobbyAck, LobbyClientMessage,
    LobbyServerMessage, OnlinePlayer, PoolGame, PoolList, PoolView, Rating, BASE_RATING,
    DEFAULT_POOL, MAX_POOLS, MAX_POOL_NAME,
};

/// The most open challenges of one account.
pub const MAX_CHALLENGES_EACH: usize = 3;
/// The most open challenges in all.
pub const MAX_CHALLENGES: usize = 500;
/// Lobby connections of one account at once (on all servers).
pub const MAX_LOBBY_CONNECTIONS: usize = 8;
/// Messages for one connection alone (its games' starts and ends) that may wait to be sent;
/// one more closes the connection (it is told its games still on when it comes back).
pub const PERSONAL_QUEUE: usize = 256;
/// The lists are read again and their changes sent at most this often.
pub const LIST_EVERY: Duration = Duration::from_millis(200);
/// Changes of the lists a follower may fall behind by before it is sent the whole lobby again.
const LIST_BACKLOG: usize = 64;
/// The jitter of continuous pairing: each waiting player's rating is moved by up to this many
/// Elo either way before sorting.
pub const PAIRING_JITTER: f64 = 100.0;

fn key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// How the id of a CGOS door's connection goes on after its server's id (`ID-cgosN`): its
/// presence says, on every server, that it is paired only for the CGOS game.
const CGOS_CONN: &str = "cgos";

fn is_cgos_conn(conn: &str) -> bool {
    conn.split_once('-')
        .is_some_and(|(_, n)| n.starts_with(CGOS_CONN))
}

/// Why [`Lobby::start_game`] started no game.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The settings are not a game's.
    #[error("{0}")]
    Settings(#[from] ConfigError),
    /// The game could not be stored.
    #[error("the game could not be created")]
    NotCreated,
}

/// Whether two games fit: the same board, rules, komi, clock, handicap, end, third party and
/// early adjudication (a CGOS game's terms aside).
fn fits(a: &CreateRequest, b: &CreateRequest) -> bool {
    match (a.config(), b.config()) {
        (Ok(a), Ok(b)) => {
            (
                a.width,
                a.height,
                &a.rules,
                a.komi,
                a.time,
                a.end,
                a.handicap,
                a.third_party,
                a.adjudicate,
            ) == (
                b.width,
                b.height,
                &b.rules,
                b.komi,
                b.time,
                b.end,
                b.handicap,
                b.third_party,
                b.adjudicate,
            )
        }
        _ => false,
    }
}

/// A connection of this server and where its own messages go.
struct Local {
    conn: String,
    tx: mpsc::Sender<ToMember>,
}

/// What a [`Member`] is told.
#[derive(Clone, Debug)]
pub enum ToMember {
    /// A message for this member alone (`game`, `game_over`, an empty first `lobby`).
    Own(Box<LobbyServerMessage>),
    /// The lobby's lists (its first `lobby`, or again) or their changes (`lobby_delta`), shared by
    /// every member that follows them.
    List(Arc<str>),
}

impl ToMember {
    /// As text on the wire.
    #[must_use]
    pub fn text(&self) -> Arc<str> {
        match self {
            ToMember::Own(m) => m.to_text().into(),
            ToMember::List(t) => t.clone(),
        }
    }
}

/// The lobby's lists as last sent, and the stream of their changes.
struct Lists {
    /// By account (lower case).
    online: BTreeMap<String, OnlinePlayer>,
    /// By id.
    challenges: BTreeMap<String, ChallengeView>,
    /// Texts of `lobby_delta`, to the members that follow the lists.
    tx: broadcast::Sender<Arc<str>>,
    /// The text of [`Lists::whole`] while the lists do not change: one copy for every
    /// member that fell behind (at 8,000 followers falling behind together, a copy each,
    /// a megabyte each, took the server from 2 to 7 GB).
    whole_text: Option<Arc<str>>,
}

impl Lists {
    /// The text of [`Lists::whole`], made once while the lists do not change.
    fn whole_text(&mut self) -> Arc<str> {
        if let Some(text) = &self.whole_text {
            return text.clone();
        }
        let text: Arc<str> = self.whole().to_text().into();
        self.whole_text = Some(text.clone());
        text
    }

    /// The whole lobby as a message.
    fn whole(&self) -> LobbyServerMessage {
        LobbyServerMessage::Lobby {
            online: self.online.values().cloned().collect(),
            challenges: self.challenges.values().cloned().collect(),
            list: true,
        }
    }
}

/// A challenge as the store keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct ChallengeBody {
    view: ChallengeView,
    request: CreateRequest,
}

/// The lobby feature; see the [module](self).
pub struct Lobby {
    games: Arc<Games>,
    /// This server's id among those sharing the store (connections are `ID-N`).
    instance: String,
    next_conn: AtomicU64,
    /// This server's connections, by account (lower case).
    locals: Mutex<HashMap<String, Vec<Local>>>,
    /// The lists as last sent.
    lists: Mutex<Lists>,
    /// Whether the lists may have changed since they were last read.
    dirty: AtomicBool,
    /// Challenges and acceptances, by account (as creating games is limited by address).
    creations: RateLimiter,
    pairing: PairingOptions,
    /// The pools its pairing pairs in, the default first.
    pools: Vec<Pool>,
    /// Where this server's CGOS doors listen, by pool.
    doors: Mutex<HashMap<String, std::net::SocketAddr>>,
    /// Games between accounts not begun this long after they were made are voided.
    start_timeout: Duration,
    /// Whether this server, leading without a CGOS door, said that it leaves the door
    /// players of other servers unpaired ([`Lobby::pair_round`]): once.
    told_no_cgos: AtomicBool,
    lease: Duration,
    messages_per_second: u32,
    allowed_origins: Vec<String>,
    /// Games not begun whose players were told of them again ([`Lobby::pair_round`]): once.
    told_again: Mutex<std::collections::HashSet<String>>,
}

/// A pool as the lobby pairs in it.
struct Pool {
    name: String,
    /// The game its players are paired for.
    game: CreateRequest,
    /// The game CGOS's door of the pool pairs its players for, when this server has the door
    /// ([`crate::options::PoolOptions::cgos`]).
    cgos_game: Option<CreateRequest>,
}

impl Pool {
    /// Whether players waiting in `pools` (empty: the default pool) wait in this one.
    fn takes(&self, pools: &[String]) -> bool {
        if pools.is_empty() {
            self.name == DEFAULT_POOL
        } else {
            pools.contains(&self.name)
        }
    }

    /// Pairs its game for the players `names`, of CGOS's door when `cgos`.
    fn game(&self, cgos: bool) -> &CreateRequest {
        match &self.cgos_game {
            Some(g) if cgos => g,
            _ => &self.game,
        }
    }
}

/// Games [`Lobby::told_again`] remembers at most (then it forgets them all).
const TOLD_AGAIN: usize = 10_000;

impl Lobby {
    /// The feature over the games service, with the server's settings.
    #[must_use]
    pub fn new(games: Arc<Games>, opts: &Options) -> Arc<Lobby> {
        Arc::new(Lobby {
            games,
            instance: random_hex(6),
            next_conn: AtomicU64::new(0),
            locals: Mutex::new(HashMap::new()),
            lists: Mutex::new(Lists {
                online: BTreeMap::new(),
                challenges: BTreeMap::new(),
                tx: broadcast::channel(LIST_BACKLOG).0,
                whole_text: None,
            }),
            dirty: AtomicBool::new(true),
            creations: RateLimiter::new(
                opts.create_burst,
                opts.create_per_minute,
                crate::limits::MAX_LIMITER_KEYS,
            ),
            pairing: opts.pairing.clone(),
            pools: opts
                .all_pools()
                .into_iter()
                .map(|p| Pool {
                    name: p.name,
                    game: p.game,
                    cgos_game: p.cgos.map(|c| c.game),
                })
                .collect(),
            doors: Mutex::new(HashMap::new()),
            start_timeout: opts.start_timeout,
            told_no_cgos: AtomicBool::new(false),
            lease: opts.presence_lease.max(Duration::from_millis(30)),
            messages_per_second: opts.messages_per_second,
            allowed_origins: opts.allowed_origins.clone(),
            told_again: Mutex::new(std::collections::HashSet::new()),
        })
    }

    /// `GET /api/lobby/ws`, `GET /api/pools`.
    pub fn routes(self: Arc<Lobby>) -> Router {
        Router::new()
            .route("/api/lobby/ws", get(lobby_ws))
            .route("/api/pools", get(pools_route))
            .with_state(self)
    }

    /// This server's CGOS door of `pool` listens on `addr` (`GET /api/pools` shows it).
    pub fn door_opened(&self, pool: &str, addr: std::net::SocketAddr) {
        self.doors
            .lock()
            .expect("doors")
            .insert(pool.to_string(), addr);
    }

    /// The pools, the default first ([`PoolList`]).
    #[must_use]
    pub fn pools(&self) -> PoolList {
        let doors = self.doors.lock().expect("doors");
        let settings = |g: &CreateRequest| g.config().ok().map(|c| PoolGame::from(&c));
        PoolList {
            pools: self
                .pools
                .iter()
                .filter_map(|p| {
                    Some(PoolView {
                        name: p.name.clone(),
                        game: settings(&p.game)?,
                        cgos: doors.get(&p.name).map(ToString::to_string),
                        cgos_game: p.cgos_game.as_ref().and_then(settings),
                    })
                })
                .collect(),
        }
    }

    fn store(&self) -> &Arc<dyn Store> {
        self.games.store()
    }

    fn now_ms(&self) -> u64 {
        self.games.now_ms()
    }

    fn lease_end(&self) -> u64 {
        self.now_ms() + u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX / 4)
    }

    /// Enters `account` into the lobby: a [`Member`] told what concerns it
    /// ([`Member::recv`]), leaving when dropped. The account's games still on are told first (a
    /// program back after a break goes back to them), then the whole lobby, then (when `list`)
    /// the lists' changes; without `list`, the lobby comes once, empty, saying so.
    ///
    /// # Errors
    ///
    /// 429 when the account has [`MAX_LOBBY_CONNECTIONS`] already; 500 for the store.
    pub async fn join(self: &Arc<Lobby>, account: Account, list: bool) -> Result<Member, ApiError> {
        self.join_as(account, None, list).await
    }

    /// As [`Lobby::join`], for a player of the CGOS door of `pool`: paired only in that pool,
    /// for its CGOS game ([`crate::options::CgosOptions::game`]), with any player waiting in
    /// the pool whose game fits it.
    ///
    /// # Errors
    ///
    /// As [`Lobby::join`].
    pub async fn join_cgos(
        self: &Arc<Lobby>,
        account: Account,
        pool: &str,
    ) -> Result<Member, ApiError> {
        self.join_as(account, Some(pool.to_string()), false).await
    }

    async fn join_as(
        self: &Arc<Lobby>,
        account: Account,
        door: Option<String>,
        list: bool,
    ) -> Result<Member, ApiError> {
        let cgos = door.is_some();
        let storage = |e: crate::store::StoreError| ApiError::storage(&e);
        let open = self
            .store()
            .lobby_connections(&account.name, self.now_ms())
            .await
            .map_err(storage)?;
        if open >= MAX_LOBBY_CONNECTIONS {
            return Err(ApiError::TooManyLobbyConnections {
                max: MAX_LOBBY_CONNECTIONS,
            });
        }
        let n = self.next_conn.fetch_add(1, Ordering::Relaxed);
        let conn = if cgos {
            format!("{}-{CGOS_CONN}{n}", self.instance)
        } else {
            format!("{}-{n}", self.instance)
        };
        let (tx, rx) = mpsc::channel::<ToMember>(PERSONAL_QUEUE);
        // Games still on, before anything else (a few: one game at a time is paired).
        if let Ok(live) = self.store().live_games_of(&account.name).await {
            for game in live.into_iter().take(PERSONAL_QUEUE / 2) {
                if let Some(msg) = self.game_message(&game, &account.name).await {
                    let _ = tx.try_send(ToMember::Own(Box::new(msg)));
                }
            }
        }
        // Then the lobby, and its changes from the same moment on.
        let changes = if list {
            // The shared text: not a copy of the lists for each follower that joins.
            let mut lists = self.lists.lock().expect("lists");
            let _ = tx.try_send(ToMember::List(lists.whole_text()));
            Some(lists.tx.subscribe())
        } else {
            if !cgos {
                let _ = tx.try_send(ToMember::Own(Box::new(LobbyServerMessage::Lobby {
                    online: Vec::new(),
                    challenges: Vec::new(),
                    list: false,
                })));
            }
            None
        };
        self.locals
            .lock()
            .expect("lobby")
            .entry(key(&account.name))
            .or_default()
            .push(Local {
                conn: conn.clone(),
                tx,
            });
        let pools: Vec<String> = door.iter().cloned().collect();
        let member = Member {
            lobby: self.clone(),
            conn: conn.clone(),
            account: account.clone(),
            door,
            own: rx,
            changes,
        };
        let presence = Presence {
            conn,
            instance: self.instance.clone(),
            name: account.name.clone(),
            program: account.program,
            waiting: false,
            pools,
        };
        self.store()
            .enter_lobby(presence, self.lease_end())
            .await
            .map_err(storage)?;
        self.games.bus().publish(BusEvent::Lobby).await;
        Ok(member)
    }

    /// The lists as the store has them now.
    async fn read_lists(
        &self,
    ) -> Option<(
        BTreeMap<String, OnlinePlayer>,
        BTreeMap<String, ChallengeView>,
    )> {
        let store = self.store();
        let (present, challenges) = match store.lobby(self.now_ms()).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("goref serve: the lobby not read: {e:#}");
                return None;
            }
        };
        let ratings: HashMap<String, f64> = store
            .ratings(DEFAULT_POOL)
            .await
            .unwrap_or_default()
            .into_iter()
            .map(|r| (key(&r.name), r.rating))
            .collect();
        let mut online: BTreeMap<String, OnlinePlayer> = BTreeMap::new();
        for p in &present {
            online
                .entry(key(&p.name))
                .and_modify(|o| o.waiting |= p.waiting)
                .or_insert_with(|| OnlinePlayer {
                    name: p.name.clone(),
                    program: p.program,
                    rating: ratings.get(&key(&p.name)).map(|r| r.round()),
                    waiting: p.waiting,
                });
        }
        let challenges = challenges
            .iter()
            .filter_map(|c| serde_json::from_str::<ChallengeBody>(&c.body).ok())
            .map(|c| (c.view.id.clone(), c.view))
            .collect();
        Some((online, challenges))
    }

    /// Reads the lists again if they may have changed, and sends what changed to the members
    /// that follow them (once, shared); whether anything changed. Nothing is read while no
    /// member here follows them.
    pub async fn publish_lists(&self) -> bool {
        // Nobody here follows the lists: they are not read (10,000 connections' rows, five
        // times a second, for nobody). They stay due; one who comes is sent the last whole
        // lobby read, then its changes since, within a LIST_EVERY.
        let followers = self.lists.lock().expect("lists").tx.receiver_count();
        if followers == 0 {
            return false;
        }
        if !self.dirty.swap(false, Ordering::SeqCst) {
            return false;
        }
        let Some((online, challenges)) = self.read_lists().await else {
            self.dirty.store(true, Ordering::SeqCst);
            return false;
        };
        let mut lists = self.lists.lock().expect("lists");
        let came: Vec<OnlinePlayer> = online
            .iter()
            .filter(|(k, p)| lists.online.get(*k) != Some(*p))
            .map(|(_, p)| p.clone())
            .collect();
        let gone: Vec<String> = lists
            .online
            .iter()
            .filter(|(k, _)| !online.contains_key(*k))
            .map(|(_, p)| p.name.clone())
            .collect();
        let opened: Vec<ChallengeView> = challenges
            .iter()
            .filter(|(id, _)| !lists.challenges.contains_key(*id))
            .map(|(_, c)| c.clone())
            .collect();
        let withdrawn: Vec<String> = lists
            .challenges
            .keys()
            .filter(|id| !challenges.contains_key(*id))
            .cloned()
            .collect();
        if came.is_empty() && gone.is_empty() && opened.is_empty() && withdrawn.is_empty() {
            return false;
        }
        lists.online = online;
        lists.challenges = challenges;
        lists.whole_text = None;
        let delta = LobbyServerMessage::LobbyDelta {
            online: came,
            gone,
            challenges: opened,
            withdrawn,
        };
        let _ = lists.tx.send(delta.to_text().into());
        true
    }

    /// The lists may have changed: they are read again at the next [`LIST_EVERY`].
    fn lists_changed(&self) {
        self.dirty.store(true, Ordering::SeqCst);
    }

    /// The whole lobby and its changes from now on, for a member that fell behind them.
    fn lists_again(&self) -> (Arc<str>, broadcast::Receiver<Arc<str>>) {
        let mut lists = self.lists.lock().expect("lists");
        (lists.whole_text(), lists.tx.subscribe())
    }

    /// Tells every connection here of account `name` (never dropped: a connection whose
    /// queue is full is closed instead).
    fn tell(&self, name: &str, msg: &LobbyServerMessage) {
        let mut locals = self.locals.lock().expect("lobby");
        let Some(conns) = locals.get_mut(&key(name)) else {
            return;
        };
        conns.retain(
            |local| match local.tx.try_send(ToMember::Own(Box::new(msg.clone()))) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    eprintln!(
                    "goref serve: lobby connection {} of {name} does not read its messages: closed",
                    local.conn
                );
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            },
        );
    }

    /// Closes every connection here of account `name` (banned): each [`Member`] is told
    /// nothing more ([`Member::recv`] and [`Member::next_game`] give `None`), and leaves.
    fn close_account(&self, name: &str) {
        let closed = self.locals.lock().expect("lobby").remove(&key(name));
        if closed.is_some() {
            self.lists_changed();
        }
    }

    /// Closes the connections here of accounts banned meanwhile (after this server may have
    /// missed a ban: its listener connecting, at the start too, or falling behind the bus).
    async fn close_banned_accounts(&self) {
        let names: Vec<String> = self.locals.lock().expect("lobby").keys().cloned().collect();
        for name in names {
            if self.store().is_banned(&name).await.unwrap_or(false) {
                self.close_account(&name);
            }
        }
    }

    /// Tells every connection here its account's games still on again (after this server
    /// fell behind the bus and may have missed a start).
    async fn tell_live_games_again(&self) {
        let names: Vec<String> = self.locals.lock().expect("lobby").keys().cloned().collect();
        for name in names {
            let Ok(live) = self.store().live_games_of(&name).await else {
                continue;
            };
            for id in live {
                if let Some(msg) = self.game_message(&id, &name).await {
                    self.tell(&name, &msg);
                }
            }
        }
    }

    /// The `game` message for account `name` in game `id` (read from the store).
    async fn game_message(&self, id: &str, name: &str) -> Option<LobbyServerMessage> {
        let (stored, _) = self.store().load(id).await.ok()??;
        start_message(id, &stored.config, name)
    }

    /// Starts a game between two accounts with the settings of `request` (through
    /// [`Games::open`]; the bus tells both players); they no longer wait.
    ///
    /// # Errors
    ///
    /// The settings are not a game's, or the game could not be stored.
    pub async fn start_game(
        &self,
        request: &CreateRequest,
        players: Players,
        rated: bool,
        creator: &str,
    ) -> Result<String, StartError> {
        let id = self.open_between(request, &players, rated, creator).await?;
        self.stopped_waiting(vec![players.black, players.white])
            .await;
        Ok(id)
    }

    /// Opens the game of `request` between `players` (through [`Games::open`]; the bus tells
    /// both): its id.
    async fn open_between(
        &self,
        request: &CreateRequest,
        players: &Players,
        rated: bool,
        creator: &str,
    ) -> Result<String, StartError> {
        self.open_in(request, players, rated, creator, None).await
    }

    /// As [`Lobby::open_between`], the game of pool `pool` (`None` or the default: a game
    /// of the default pool).
    async fn open_in(
        &self,
        request: &CreateRequest,
        players: &Players,
        rated: bool,
        creator: &str,
        pool: Option<&str>,
    ) -> Result<String, StartError> {
        let mut config = request.config_between(players, rated)?;
        config.pool = pool.filter(|p| *p != DEFAULT_POOL).map(str::to_string);
        let opened = self
            .games
            .open(config, creator.to_string())
            .await
            .map_err(|_| StartError::NotCreated)?;
        Ok(opened.id)
    }

    /// Players given a game no longer wait (one store call for all), and the lobby is told.
    async fn stopped_waiting(&self, names: Vec<String>) {
        if let Err(e) = self.store().stop_waiting(names).await {
            eprintln!("goref serve: pairing: waiting flags not cleared: {e:#}");
        }
        self.games.bus().publish(BusEvent::Lobby).await;
    }

    /// Listens to the bus until the server stops (tells players of their games, sends the
    /// lobby again when it changed), renews this server's leases, and, when leading, pairs
    /// the waiting players and expires dead presences.
    pub async fn run(self: Arc<Lobby>) {
        let mut bus = self.games.subscribe();
        let renew = self.lease / 3;
        let mut leases = tokio::time::interval(renew.max(Duration::from_millis(10)));
        leases.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut lists = tokio::time::interval(LIST_EVERY);
        lists.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut pairing = self.pairing.interval.map(|every| {
            let mut t = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            t
        });
        loop {
            let pair_tick = async {
                match pairing.as_mut() {
                    Some(t) => {
                        t.tick().await;
                    }
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                event = bus.recv() => match event {
                    Ok(event) => self.on_event(&event).await,
                    Err(RecvError::Lagged(_)) => {
                        // Starts and bans may have been missed: every connection here is
                        // told its games still on again, and banned accounts' are closed.
                        self.lists_changed();
                        self.close_banned_accounts().await;
                        self.tell_live_games_again().await;
                    }
                    Err(RecvError::Closed) => return,
                },
                _ = lists.tick() => {
                    self.publish_lists().await;
                }
                _ = leases.tick() => self.upkeep().await,
                () = pair_tick => {
                    if self.games.leads() {
                        self.pair_round().await;
                    }
                }
            }
        }
    }

    /// What the lobby does with one event of the bus: a game started (tell its players
    /// here), a game finished (tell them; the lists may change), the lobby or the ratings
    /// changed (the lists are read again at the next [`LIST_EVERY`]). Costs what the event
    /// concerns: no store is read here.
    pub async fn on_event(&self, event: &BusEvent) {
        match event {
            BusEvent::Game(GameEvent::Started { id, config }) => {
                if let Some(players) = &config.players {
                    for color in Color::ALL {
                        let name = players.of(color);
                        if let Some(msg) = start_message(id, config, name) {
                            self.tell(name, &msg);
                        }
                    }
                }
            }
            BusEvent::Game(GameEvent::Finished { config, result, .. }) => {
                if let Some(players) = &config.players {
                    let over = LobbyServerMessage::GameOver {
                        black: players.black.clone(),
                        white: players.white.clone(),
                        result: result.to_sgf(),
                    };
                    for color in Color::ALL {
                        self.tell(players.of(color), &over);
                    }
                    self.lists_changed();
                }
            }
            BusEvent::Lobby | BusEvent::Ratings => self.lists_changed(),
            BusEvent::Missed => {
                self.lists_changed();
                self.close_banned_accounts().await;
                self.tell_live_games_again().await;
            }
            BusEvent::Banned { name } => self.close_account(name),
            BusEvent::Game(GameEvent::Changed { .. }) | BusEvent::Tournament { .. } => {}
        }
    }

    /// Renews this server's leases; the leader removes the presences whose server died.
    async fn upkeep(&self) {
        if let Err(e) = self
            .store()
            .renew_lobby(&self.instance, self.lease_end())
            .await
        {
            eprintln!("goref serve: lobby leases not renewed: {e:#}");
        }
        if self.games.leads() {
            match self.store().expire_lobby(self.now_ms()).await {
                Ok(0) => {}
                Ok(_) => self.games.bus().publish(BusEvent::Lobby).await,
                Err(e) => eprintln!("goref serve: lobby not expired: {e:#}"),
            }
        }
    }

    /// One round of continuous pairing (by the leading server) over the players waiting on
    /// every server. CGOS's door's players are paired for the CGOS game: with the others when
    /// it fits the pairing game (a game with one of them is played under CGOS's terms), else
    /// among themselves; not at all by a server without a CGOS door, which knows no CGOS game.
    pub async fn pair_round(&self) {
        self.games.metrics().paired();
        let store = self.store();
        let Ok((present, _)) = store.lobby(self.now_ms()).await else {
            return;
        };
        // Each account once (its CGOS door's connection first: it is paired for its game).
        let mut candidates: Vec<(String, bool, Vec<String>)> = present
            .iter()
            .filter(|p| p.waiting)
            .map(|p| (p.name.clone(), is_cgos_conn(&p.conn), p.pools.clone()))
            .collect();
        candidates.sort_by_key(|(n, cgos, _)| (key(n), !cgos));
        candidates.dedup_by_key(|(n, _, _)| key(n));
        if candidates.len() < 2 {
            return;
        }
        // One game at a time: a player whose game is still on waits. One who waits while a
        // game of theirs has not begun is told of it again, once: its start may have gone
        // unheard (a leader that died between storing it and telling of it).
        // A game of theirs nobody has begun within the start timeout is voided: they are free.
        let mut free = Vec::with_capacity(candidates.len());
        for (name, cgos, pools) in candidates {
            let Ok(games) = store.live_games_of(&name).await else {
                continue;
            };
            let mut on = Vec::new();
            for id in games {
                match self.games.void_if_not_begun(&id, self.start_timeout).await {
                    Ok(true) => {}
                    Ok(false) => on.push(id),
                    Err(e) => {
                        eprintln!("goref serve: pairing: game {id} not read: {e:#}");
                        on.push(id);
                    }
                }
            }
            if on.is_empty() {
                free.push((name, cgos, pools));
            } else {
                self.tell_again(on).await;
            }
        }
        // Pool by pool, the default first: a player waiting in several is paired in the
        // first of them where it finds an opponent this round.
        let mut paired = std::collections::HashSet::new();
        for pool in &self.pools {
            let (cgos, others): (Vec<_>, Vec<_>) = free
                .iter()
                .filter(|(n, _, pools)| pool.takes(pools) && !paired.contains(&key(n)))
                .partition(|(_, c, _)| *c);
            let cgos: Vec<String> = cgos.into_iter().map(|(n, _, _)| n.clone()).collect();
            let others: Vec<String> = others.into_iter().map(|(n, _, _)| n.clone()).collect();
            for name in self.pair_pool(pool, &cgos, &others).await {
                paired.insert(key(&name));
            }
        }
        if !paired.is_empty() {
            self.stopped_waiting(paired.into_iter().collect()).await;
        }
    }

    /// Pairs the players waiting in `pool` (`cgos`: those of its CGOS door; `others`); the
    /// names paired.
    async fn pair_pool(&self, pool: &Pool, cgos: &[String], others: &[String]) -> Vec<String> {
        let cgos_fits = pool.cgos_game.as_ref().is_some_and(|g| fits(g, &pool.game));
        if cgos_fits {
            let all: Vec<String> = cgos.iter().chain(others).cloned().collect();
            self.pair_among(pool, &all, cgos).await
        } else {
            let mut paired = self.pair_among(pool, others, &[]).await;
            if pool.cgos_game.is_some() {
                paired.extend(self.pair_among(pool, cgos, cgos).await);
            } else if !cgos.is_empty() && !self.told_no_cgos.swap(true, Ordering::Relaxed) {
                // Another server's door players, and no CGOS game known here: a game of this
                // server's pairing game would be one their door cannot play (it follows games
                // under CGOS's terms only), voided unplayed and paired again, round after
                // round. They wait (for a leader that knows the CGOS game).
                eprintln!(
                    "goref serve: pairing: CGOS's players of another server are not paired while \
                     this server leads without --cgos (give every server of the database the \
                     same --cgos flags)"
                );
            }
            paired
        }
    }

    /// Tells the players of those of `games` that have not begun of them again (a game's
    /// start, on the bus), once each.
    async fn tell_again(&self, games: Vec<String>) {
        for id in games {
            {
                let mut told = self.told_again.lock().expect("told again");
                if told.len() >= TOLD_AGAIN {
                    told.clear();
                }
                if !told.insert(id.clone()) {
                    continue;
                }
            }
            if let Ok(Some((stored, events))) = self.store().load(&id).await {
                if events.is_empty() {
                    let started = GameEvent::Started {
                        id,
                        config: Box::new(stored.config),
                    };
                    self.games.bus().publish(BusEvent::Game(started)).await;
                }
            }
        }
    }

    /// Pairs the players `free` in `pool` (those of CGOS's door among them in `cgos`): the
    /// names of those given a game.
    async fn pair_among(&self, pool: &Pool, free: &[String], cgos: &[String]) -> Vec<String> {
        if free.len() < 2 {
            return Vec::new();
        }
        let store = self.store();
        let ratings: Vec<Rating> = store.ratings(&pool.name).await.unwrap_or_default();
        let mut waiting = Vec::with_capacity(free.len());
        for name in free {
            // The last game between accounts: against whom, with which colour.
            let last = store
                .games_of(name, 1)
                .await
                .ok()
                .and_then(|g| g.into_iter().next())
                .filter(|g| g.accounts);
            let last_opponent = last.as_ref().and_then(|g| {
                let other = if key(&g.black) == key(name) {
                    &g.white
                } else {
                    &g.black
                };
                free.iter().position(|n| key(n) == key(other))
            });
            waiting.push(Waiting {
                rating: ratings
                    .iter()
                    .find(|r| key(&r.name) == key(name))
                    .map_or(BASE_RATING, |r| r.rating),
                jitter: PAIRING_JITTER * random_unit(),
                last_opponent,
                had_black_last: last.map(|g| key(&g.black) == key(name)),
            });
        }
        // Two anchors meet in one pairing of ten (as CGOS keeps such games rare).
        let anchors: std::collections::HashSet<String> = store
            .anchors(&pool.name)
            .await
            .unwrap_or_default()
            .into_iter()
            .map(|(name, _)| key(&name))
            .collect();
        let is_anchor: Vec<bool> = free.iter().map(|n| anchors.contains(&key(n))).collect();
        let pairs = rare_anchor_pairs(pair_waiting(&waiting), &is_anchor, || {
            (random_unit() + 1.0) / 2.0
        });
        // The games, opened together: their stores share the writer's commits (one after
        // the other, a round of 500 games waited for 500 commits, behind the moves' own).
        // The caller clears the paired players' waiting at once and tells the lobby.
        let opened = futures_util::future::join_all(pairs.into_iter().map(|(b, w)| async move {
            let players = Players {
                black: free[b].clone(),
                white: free[w].clone(),
            };
            let with_cgos = cgos
                .iter()
                .any(|n| key(n) == key(&players.black) || key(n) == key(&players.white));
            let game = pool.game(with_cgos);
            let opened = self
                .open_in(game, &players, true, "pairing", Some(&pool.name))
                .await;
            (players, opened)
        }))
        .await;
        let mut paired = Vec::new();
        for (players, opened) in opened {
            match opened {
                Ok(_) => paired.extend([players.black, players.white]),
                Err(e) => eprintln!("goref serve: pairing in pool {}: {e}", pool.name),
            }
        }
        paired
    }

    /// The pools a `wait` names, each once, all of this server's; else the refusal.
    fn pools_named(&self, named: Vec<String>) -> Result<Vec<String>, Box<LobbyServerMessage>> {
        if named.len() > MAX_POOLS {
            return Err(Box::new(refusal(
                "invalid",
                format!("at most {MAX_POOLS} pools (GET /api/pools lists them)"),
            )));
        }
        let mut pools: Vec<String> = Vec::with_capacity(named.len());
        for name in named {
            if !self.pools.iter().any(|p| p.name == name) {
                return Err(Box::new(refusal(
                    "invalid",
                    format!(
                        "no pool is named {:?} (GET /api/pools lists them)",
                        name.chars().take(MAX_POOL_NAME + 1).collect::<String>()
                    ),
                )));
            }
            if !pools.contains(&name) {
                pools.push(name);
            }
        }
        if pools == [DEFAULT_POOL] {
            pools.clear();
        }
        Ok(pools)
    }

    async fn message(&self, member: &Member, msg: LobbyClientMessage) -> LobbyServerMessage {
        let account = &member.account;
        let storage = |e: crate::store::StoreError| refusal("storage", format!("{e:#}"));
        match msg {
            LobbyClientMessage::Wait { on, pools } => {
                let pools = match &member.door {
                    // A door's player waits in its door's pool, whatever it says.
                    Some(door) => vec![door.clone()],
                    None => match self.pools_named(pools) {
                        Ok(pools) => pools,
                        Err(refused) => return *refused,
                    },
                };
                if let Err(e) = self.store().set_waiting(&member.conn, on, pools).await {
                    return storage(e);
                }
                self.games.bus().publish(BusEvent::Lobby).await;
                LobbyServerMessage::Ack(LobbyAck::Waiting { waiting: on })
            }
            LobbyClientMessage::Challenge { .. } | LobbyClientMessage::Accept { .. }
                if self
                    .creations
                    .check(
                        &format!("account:{}", key(&account.name)),
                        std::time::Instant::now(),
                    )
                    .is_err() =>
            {
                refusal(
                    "rate_limited",
                    "too many games and challenges from this account lately: try later",
                )
            }
            LobbyClientMessage::Challenge { game, color, rated } => {
                let request: CreateRequest = match serde_json::from_value(game.clone()) {
                    Ok(r) => r,
                    Err(e) => return refusal("invalid", e.to_string()),
                };
                if request.black.is_some() || request.white.is_some() {
                    return refusal(
                        "invalid",
                        "the players of a challenge are its challenger and who accepts it",
                    );
                }
                if let Err(e) = request.config().and_then(|c| self.games.accepts(&c)) {
                    return refusal("invalid", e.to_string());
                }
                let id = random_hex(6);
                let body = ChallengeBody {
                    view: ChallengeView {
                        id: id.clone(),
                        by: account.name.clone(),
                        program: account.program,
                        color: color.unwrap_or_default(),
                        rated: rated.unwrap_or(true),
                        game,
                    },
                    request,
                };
                let stored = StoredChallenge {
                    id: id.clone(),
                    by: account.name.clone(),
                    created_ms: self.now_ms(),
                    body: serde_json::to_string(&body).expect("challenges serialise"),
                };
                match self
                    .store()
                    .add_challenge(stored, MAX_CHALLENGES_EACH, MAX_CHALLENGES)
                    .await
                {
                    Ok(true) => {}
                    Ok(false) => {
                        return refusal(
                            "too_many_challenges",
                            format!("at most {MAX_CHALLENGES_EACH} open challenges each"),
                        )
                    }
                    Err(e) => return storage(e),
                }
                self.games.bus().publish(BusEvent::Lobby).await;
                LobbyServerMessage::Ack(LobbyAck::Challenge { challenge: id })
            }
            LobbyClientMessage::Cancel { challenge } => {
                match self
                    .store()
                    .cancel_challenge(&challenge, &account.name)
                    .await
                {
                    Ok(true) => {}
                    Ok(false) => {
                        return refusal("not_found", "you have no open challenge with this id")
                    }
                    Err(e) => return storage(e),
                }
                self.games.bus().publish(BusEvent::Lobby).await;
                LobbyServerMessage::Ack(LobbyAck::Cancelled {
                    cancelled: challenge,
                })
            }
            LobbyClientMessage::Accept { challenge } => {
                let taken = match self.store().take_challenge(&challenge, &account.name).await {
                    Ok(Taken::Taken(c)) => c,
                    Ok(Taken::Own) => {
                        return refusal("own_challenge", "you cannot accept your own challenge")
                    }
                    Ok(Taken::Missing) => {
                        return refusal("not_found", "no open challenge with this id")
                    }
                    Err(e) => return storage(e),
                };
                let Ok(body) = serde_json::from_str::<ChallengeBody>(&taken.body) else {
                    return refusal("invalid", "the challenge cannot be read");
                };
                let challenger_black = match body.view.color {
                    ColorChoice::Black => true,
                    ColorChoice::White => false,
                    ColorChoice::Random => random_bool(),
                };
                let (black, white) = if challenger_black {
                    (body.view.by.clone(), account.name.clone())
                } else {
                    (account.name.clone(), body.view.by.clone())
                };
                let players = Players { black, white };
                let creator = format!("account:{}", key(&body.view.by));
                match self
                    .start_game(&body.request, players, body.view.rated, &creator)
                    .await
                {
                    Ok(id) => LobbyServerMessage::Ack(LobbyAck::Game { game: id }),
                    Err(e) => refusal("invalid", e.to_string()),
                }
            }
        }
    }
}

/// The `game` message for account `name` in game `id` with `config`.
fn start_message(id: &str, config: &GameConfig, name: &str) -> Option<LobbyServerMessage> {
    let players = config.players.as_ref()?;
    let color = players.color_of(name)?;
    let start = GameStart {
        id: id.to_string(),
        color: Side::from(color),
        opponent: players.of(color.opponent()).to_string(),
        config: config.clone(),
    };
    Some(LobbyServerMessage::Game(start))
}

fn refusal(code: &str, message: impl Into<String>) -> LobbyServerMessage {
    LobbyServerMessage::Error {
        code: code.to_string(),
        message: message.into(),
    }
}

fn random_bool() -> bool {
    let mut b = [0u8; 1];
    getrandom::fill(&mut b).expect("operating system randomness");
    b[0] & 1 == 1
}

/// A uniform draw in `[-1, 1]`.
/// The share of pairings of two anchors that are played; the others are left unpaired this
/// round (CGOS keeps anchor-against-anchor games to about one in ten).
pub const ANCHOR_PAIRS: f64 = 0.1;

/// `pairs` without those of two anchors (`is_anchor` by player) for which `draw` (uniform in
/// `[0, 1)`) is not below [`ANCHOR_PAIRS`].
fn rare_anchor_pairs(
    pairs: Vec<(usize, usize)>,
    is_anchor: &[bool],
    mut draw: impl FnMut() -> f64,
) -> Vec<(usize, usize)> {
    pairs
        .into_iter()
        .filter(|&(b, w)| !(is_anchor[b] && is_anchor[w]) || draw() < ANCHOR_PAIRS)
        .collect()
}

fn random_unit() -> f64 {
    let mut b = [0u8; 4];
    getrandom::fill(&mut b).expect("operating system randomness");
    f64::from(u32::from_le_bytes(b)) / f64::from(u32::MAX) * 2.0 - 1.0
}

/// An account in the lobby, through any door; see the [module](self). Leaves when dropped.
pub struct Member {
    lobby: Arc<Lobby>,
    conn: String,
    account: Account,
    /// The pool of the CGOS door it came through, when it did.
    door: Option<String>,
    /// What concerns this member alone.
    own: mpsc::Receiver<ToMember>,
    /// The lists' changes, when it follows them.
    changes: Option<broadcast::Receiver<Arc<str>>>,
}

impl Member {
    /// The next thing this member is told: its own messages first, then the lists' changes
    /// (the whole lobby again after it fell behind them); `None` when the lobby closed it
    /// (it let too many messages of its own wait).
    pub async fn recv(&mut self) -> Option<ToMember> {
        let changes = async {
            match self.changes.as_mut() {
                Some(rx) => rx.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            own = self.own.recv() => own,
            change = changes => match change {
                Ok(text) => Some(ToMember::List(text)),
                Err(RecvError::Lagged(_)) => {
                    let (whole, rx) = self.lobby.lists_again();
                    self.changes = Some(rx);
                    Some(ToMember::List(whole))
                }
                Err(RecvError::Closed) => None,
            },
        }
    }

    /// Waits for this member's next game (its own messages only): `None` when the lobby
    /// closed it.
    pub async fn next_game(&mut self) -> Option<GameStart> {
        while let Some(msg) = self.own.recv().await {
            if let ToMember::Own(own) = msg {
                if let LobbyServerMessage::Game(start) = *own {
                    return Some(start);
                }
            }
        }
        None
    }

    /// The account.
    #[must_use]
    pub fn account(&self) -> &Account {
        &self.account
    }

    /// Answers one message of the member (an `ack` or an `error`).
    pub async fn handle(&self, msg: LobbyClientMessage) -> LobbyServerMessage {
        self.lobby.message(self, msg).await
    }

    /// Answers one text of the member (malformed: an `error`).
    pub async fn handle_text(&self, text: &str) -> LobbyServerMessage {
        match LobbyClientMessage::parse(text) {
            Ok(m) => self.handle(m).await,
            Err(e) => refusal(e.code(), e.to_string()),
        }
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        {
            let mut locals = self.lobby.locals.lock().expect("lobby");
            let name = key(&self.account.name);
            if let Some(conns) = locals.get_mut(&name) {
                conns.retain(|l| l.conn != self.conn);
                if conns.is_empty() {
                    locals.remove(&name);
                }
            }
        }
        let lobby = self.lobby.clone();
        let conn = self.conn.clone();
        // Within the runtime (a member lives in a task); its challenges go with its account's
        // last connection.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = lobby.store().leave_lobby(&conn).await {
                    eprintln!("goref serve: a lobby connection not removed: {e:#}");
                }
                lobby.games.bus().publish(BusEvent::Lobby).await;
            });
        }
    }
}

#[derive(Deserialize)]
struct LobbyQuery {
    token: Option<String>,
    /// `0` or `false`: the lists are not followed (a program that only plays).
    list: Option<String>,
}

/// `GET /api/pools`: the server's pools ([`Lobby::pools`]).
async fn pools_route(State(lobby): State<Arc<Lobby>>) -> axum::Json<PoolList> {
    axum::Json(lobby.pools())
}

/// `GET /api/lobby/ws?token=…`: the lobby's WebSocket.
async fn lobby_ws(
    State(lobby): State<Arc<Lobby>>,
    Query(q): Query<LobbyQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    // As the game socket: a page of another site may not open it with the visitor's token.
    crate::guard::check_origin(&headers, &lobby.allowed_origins)?;
    let Some(token) = q.token.filter(|t| !t.is_empty()) else {
        return Err(ApiError::BadToken(NoSession::NoToken));
    };
    let account = account_of_token(lobby.store().as_ref(), &token).await?;
    let list = !matches!(q.list.as_deref(), Some("0" | "false"));
    let member = lobby.join(account, list).await?;
    // Banned while it joined (after the check above, before its ban closed the members
    // here): refused now.
    account_of_token(lobby.store().as_ref(), &token).await?;
    let connected = lobby.games.metrics().connected(ConnectionKind::Lobby);
    Ok(ws
        .max_message_size(16 * 1024)
        .max_frame_size(16 * 1024)
        .read_buffer_size(4096)
        .on_upgrade(move |socket| async move {
            let _connected = connected;
            lobby_connection(lobby, member, socket).await;
        }))
}

async fn lobby_connection(lobby: Arc<Lobby>, mut member: Member, mut socket: WebSocket) {
    let hello = LobbyServerMessage::Hello {
        account: member.account.clone(),
    }
    .to_text();
    if socket.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    let mut bucket = MessageBucket::new(lobby.messages_per_second, lobby.now_ms());
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let Some(Ok(msg)) = incoming else { break };
                let text = match msg {
                    Message::Text(t) => t,
                    Message::Close(_) => break,
                    _ => continue,
                };
                let reply = if bucket.take(lobby.now_ms()) {
                    member.handle_text(text.as_str()).await
                } else {
                    refusal("rate_limited", "too many messages: slow down")
                };
                if socket.send(Message::Text(reply.to_text().into())).await.is_err() {
                    break;
                }
            }
            out = member.recv() => {
                let Some(out) = out else { break };
                if socket.send(Message::Text(out.text().as_ref().into())).await.is_err() {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The lobby's logic driven by bus events, on tokio's paused clock: no sockets, no sleeps.
    use super::*;
    use crate::app::App;
    use crate::clock::Clock;
    use crate::store::SqliteStore;

    async fn app(dir: &tempfile::TempDir) -> App {
        let store = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        let opts = Options {
            clock: Clock::tokio(),
            ..Options::default()
        };
        App::new(store, opts).await.unwrap()
    }

    fn account(name: &str) -> Account {
        Account {
            name: name.into(),
            program: true,
            td: false,
            created_ms: 0,
        }
    }

    /// What `member` was told and has not read, if anything (without waiting).
    /// (Outside tokio's cooperative budget: a test reads many channels in one task.)
    fn try_next(member: &mut Member) -> Option<LobbyServerMessage> {
        use futures_util::FutureExt;
        let told = tokio::task::unconstrained(member.recv()).now_or_never()??;
        Some(serde_json::from_str(&told.text()).unwrap())
    }

    fn next(member: &mut Member) -> LobbyServerMessage {
        try_next(member).expect("a message")
    }

    fn started(id: &str, black: &str, white: &str) -> BusEvent {
        let players = Players {
            black: black.into(),
            white: white.into(),
        };
        let config = CreateRequest::default()
            .config_between(&players, true)
            .unwrap();
        BusEvent::Game(GameEvent::Started {
            id: id.into(),
            config: Box::new(config),
        })
    }

    #[tokio::test(start_paused = true)]
    async fn a_started_game_is_told_to_its_players_here_and_its_end_too() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(&dir).await;
        let lobby = &app.lobby;
        let mut alice = lobby.join(account("alice"), true).await.unwrap();
        let mut bob = lobby.join(account("Bob"), true).await.unwrap();
        let mut carol = lobby.join(account("carol"), true).await.unwrap();
        for m in [&mut alice, &mut bob, &mut carol] {
            assert!(matches!(
                next(m),
                LobbyServerMessage::Lobby { list: true, .. }
            ));
        }
        let players = Players {
            black: "bob".into(),
            white: "alice".into(),
        };
        let config = CreateRequest::default()
            .config_between(&players, true)
            .unwrap();
        lobby
            .on_event(&BusEvent::Game(GameEvent::Started {
                id: "g1".into(),
                config: Box::new(config.clone()),
            }))
            .await;
        let LobbyServerMessage::Game(to_alice) = next(&mut alice) else {
            panic!("alice is told of her game");
        };
        assert_eq!(
            (
                to_alice.id.as_str(),
                to_alice.color,
                to_alice.opponent.as_str()
            ),
            ("g1", Side::W, "bob")
        );
        let LobbyServerMessage::Game(to_bob) = next(&mut bob) else {
            panic!("Bob is told too (names without case)");
        };
        assert_eq!(to_bob.color, Side::B);
        assert_eq!(try_next(&mut carol), None, "carol does not play");
        lobby
            .on_event(&BusEvent::Game(GameEvent::Finished {
                id: "g1".into(),
                config: Box::new(config),
                result: "W+R".parse().unwrap(),
            }))
            .await;
        for m in [&mut alice, &mut bob] {
            assert_eq!(
                next(m),
                LobbyServerMessage::GameOver {
                    black: "bob".into(),
                    white: "alice".into(),
                    result: "W+R".into(),
                }
            );
        }
        assert_eq!(try_next(&mut carol), None, "nor is she told of its end");
        // The lists are read again once, and what changed goes to everyone who follows them.
        assert!(lobby.publish_lists().await);
        for m in [&mut alice, &mut bob, &mut carol] {
            let told = next(m);
            let LobbyServerMessage::LobbyDelta { online, gone, .. } = told else {
                panic!("the lists' changes: {told:?}");
            };
            assert_eq!(online.len(), 3);
            assert!(gone.is_empty());
            assert_eq!(try_next(m), None);
        }
        assert!(!lobby.publish_lists().await, "nothing changed since");
        carol.handle(LobbyClientMessage::wait(true)).await;
        lobby.lists_changed();
        assert!(lobby.publish_lists().await);
        let LobbyServerMessage::LobbyDelta { online, gone, .. } = next(&mut alice) else {
            panic!("the lists' changes");
        };
        assert_eq!(online.len(), 1, "only what changed: {online:?}");
        assert!(online[0].name == "carol" && online[0].waiting);
        assert!(gone.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_queue_closes_the_connection_and_never_drops_a_start() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(&dir).await;
        let lobby = &app.lobby;
        // Dan's connection reads nothing while his games start (a slow consumer).
        let mut dan = lobby.join(account("dan"), false).await.unwrap();
        let told = PERSONAL_QUEUE + 10;
        for i in 0..told {
            lobby
                .on_event(&started(&format!("g{i}"), "dan", "eve"))
                .await;
        }
        // What he reads is every start in order, then the end of the connection: none skipped
        // while it stays open.
        assert!(matches!(
            next(&mut dan),
            LobbyServerMessage::Lobby { list: false, .. }
        ));
        let mut ids = Vec::new();
        loop {
            use futures_util::FutureExt;
            let told = tokio::task::unconstrained(dan.recv())
                .now_or_never()
                .expect("ready");
            match told.map(|t| match t {
                ToMember::Own(own) => *own,
                ToMember::List(text) => panic!("only his games: {text}"),
            }) {
                Some(LobbyServerMessage::Game(start)) => ids.push(start.id),
                Some(other) => panic!("only his games: {other:?}"),
                None => break,
            }
        }
        let expected: Vec<String> = (0..ids.len()).map(|i| format!("g{i}")).collect();
        assert_eq!(ids, expected);
        assert!(ids.len() < told, "closed when full, not skipping");
        // Back, a connection is told its games still on first (here: the one stored).
        let players = Players {
            black: "dan".into(),
            white: "eve".into(),
        };
        let id = lobby
            .start_game(&CreateRequest::default(), players, true, "test")
            .await
            .unwrap();
        let mut again = lobby.join(account("dan"), false).await.unwrap();
        let LobbyServerMessage::Game(start) = next(&mut again) else {
            panic!("his game first");
        };
        assert_eq!(start.id, id);
    }

    /// A ban stored where this server did not hear it (its listener was still connecting
    /// when another server told it: CI saw it on PostgreSQL) closes the account's lobby
    /// connection once the bus says it may have missed events, and a game connection's watch
    /// asks the store then too.
    #[tokio::test(start_paused = true)]
    async fn a_ban_the_bus_did_not_tell_closes_connections_once_the_bus_says_it_missed_events() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(&dir).await;
        let (lobby, store) = (&app.lobby, app.games.store());
        let new = crate::store::NewAccount {
            name: "mallory".into(),
            phc: "x".into(),
            program: true,
            created_ms: 0,
        };
        store.create_account(new, None).await.unwrap().unwrap();
        let mut mallory = lobby.join(account("mallory"), false).await.unwrap();
        let mut other = lobby.join(account("other"), false).await.unwrap();
        let mut watch = app.games.bus().watch_bans().of("mallory");
        assert!(matches!(
            next(&mut mallory),
            LobbyServerMessage::Lobby { .. }
        ));
        // Stored; no `Banned` told here.
        assert!(store.set_banned("mallory", true).await.unwrap().is_some());
        lobby.on_event(&BusEvent::Missed).await;
        let told = tokio::time::timeout(Duration::from_secs(5), mallory.recv()).await;
        assert!(matches!(told, Ok(None)), "closed");
        assert!(lobby.locals.lock().unwrap().contains_key("other"));
        assert!(matches!(next(&mut other), LobbyServerMessage::Lobby { .. }));
        app.games.bus().publish(BusEvent::Missed).await;
        tokio::time::timeout(Duration::from_secs(5), watch.banned())
            .await
            .expect("the watch asked the store");
    }

    #[tokio::test(start_paused = true)]
    async fn a_follower_that_falls_behind_the_lists_gets_the_whole_lobby_again() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(&dir).await;
        let lobby = &app.lobby;
        let mut slow = lobby.join(account("slow"), true).await.unwrap();
        assert!(matches!(next(&mut slow), LobbyServerMessage::Lobby { .. }));
        lobby.publish_lists().await;
        let mut others = Vec::new();
        for i in 0..LIST_BACKLOG + 5 {
            others.push(lobby.join(account(&format!("p{i}")), false).await.unwrap());
            lobby.lists_changed();
            assert!(lobby.publish_lists().await);
        }
        let LobbyServerMessage::Lobby { online, list, .. } = next(&mut slow) else {
            panic!("the whole lobby again");
        };
        assert!(list);
        assert_eq!(online.len(), LIST_BACKLOG + 6, "everyone, slow included");
        assert_eq!(try_next(&mut slow), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_pairing_round_tells_each_paired_player_once_and_nobody_else() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(&dir).await;
        let lobby = &app.lobby;
        let seats = 1000;
        let mut members = Vec::new();
        for i in 0..seats {
            let m = lobby.join(account(&format!("w{i}")), false).await.unwrap();
            m.handle(LobbyClientMessage::wait(true)).await;
            members.push(m);
        }
        // And one who follows the lists without waiting.
        let mut watcher = lobby.join(account("watcher"), true).await.unwrap();
        lobby.publish_lists().await;
        while try_next(&mut watcher).is_some() {}
        for m in &mut members {
            assert!(matches!(
                next(m),
                LobbyServerMessage::Lobby { list: false, .. }
            ));
            assert_eq!(try_next(m), None);
        }
        let mut bus = app.games.subscribe();
        lobby.pair_round().await;
        let mut games = 0;
        while let Ok(event) = bus.try_recv() {
            if matches!(event, BusEvent::Game(GameEvent::Started { .. })) {
                games += 1;
            }
            lobby.on_event(&event).await;
        }
        assert_eq!(games, seats / 2);
        for m in &mut members {
            let LobbyServerMessage::Game(start) = next(m) else {
                panic!("{} is told of its game", m.account.name);
            };
            assert_ne!(start.opponent, m.account.name);
            assert_eq!(try_next(m), None, "one message for a paired player");
        }
        // The lists' follower: one change for the whole round.
        assert_eq!(
            try_next(&mut watcher),
            None,
            "no lists before they are read"
        );
        assert!(lobby.publish_lists().await);
        let LobbyServerMessage::LobbyDelta { online, .. } = next(&mut watcher) else {
            panic!("the round's changes");
        };
        assert_eq!(online.len(), seats, "each paired player stopped waiting");
        assert_eq!(try_next(&mut watcher), None);
    }

    // Issue 38 §2: players wait in the pools they name (none: the default); a round pairs
    // each pool for its game, among its own players, a player waiting in two in one of them;
    // a door's player waits in its door's pool whatever it says; an unknown pool is refused.
    #[tokio::test(start_paused = true)]
    async fn each_pool_pairs_its_own_players_for_its_game() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        // Pool big's game is its door's but for CGOS's terms: door players and others meet.
        let pool = |name: &str, size: usize, cgos: bool| {
            let game = CreateRequest {
                width: Some(size),
                rules: Some("nstt".into()),
                end: Some(goref_referee::Protocol::AllAlive),
                time: Some(goref_clock::TimeControl::SuddenDeath {
                    main: Duration::from_secs(60),
                }),
                ..CreateRequest::default()
            };
            crate::options::PoolOptions {
                name: name.into(),
                cgos: cgos.then(|| {
                    crate::options::CgosOptions::new("127.0.0.1:0", &game, "nstt", Duration::ZERO)
                        .unwrap()
                }),
                game,
            }
        };
        let opts = Options {
            clock: Clock::tokio(),
            pools: vec![pool("small", 7, false), pool("big", 13, true)],
            ..Options::default()
        };
        let app = App::new(store, opts).await.unwrap();
        let lobby = &app.lobby;
        let names: Vec<String> = lobby.pools().pools.into_iter().map(|p| p.name).collect();
        assert_eq!(names, [DEFAULT_POOL, "small", "big"]);
        let wait = |pools: &[&str]| LobbyClientMessage::Wait {
            on: true,
            pools: pools.iter().map(ToString::to_string).collect(),
        };
        let mut members = Vec::new();
        let mut join = async |name: &str, pools: &[&str]| {
            let m = lobby.join(account(name), false).await.unwrap();
            let ack = m.handle(wait(pools)).await;
            assert!(matches!(ack, LobbyServerMessage::Ack(_)), "{name}: {ack:?}");
            members.push(m);
        };
        join("d1", &[]).await;
        join("d2", &[DEFAULT_POOL]).await;
        join("s1", &["small"]).await;
        join("s2", &["small", "big"]).await;
        join("b1", &["big"]).await;
        join("b2", &["big"]).await;
        join("b3", &["big"]).await;
        // A CGOS door's player of pool big, whatever it names.
        let door = lobby.join_cgos(account("c1"), "big").await.unwrap();
        door.handle(wait(&["small"])).await;
        let refused = unknown_pool_refusal(lobby).await;
        assert!(refused.contains("no pool is named \"huge\""), "{refused}");

        let round = async || {
            let mut bus = app.games.subscribe();
            lobby.pair_round().await;
            let mut games = Vec::new();
            while let Ok(event) = bus.try_recv() {
                if let BusEvent::Game(GameEvent::Started { config, .. }) = event {
                    let p = config.players.clone().unwrap();
                    let mut pair = [p.black, p.white];
                    pair.sort();
                    games.push((
                        pair,
                        config.width,
                        config.pool.clone(),
                        config.cgos.is_some(),
                    ));
                }
            }
            games.sort();
            games
        };
        let games = round().await;
        let pairs: Vec<[&str; 2]> = games
            .iter()
            .map(|g| [g.0[0].as_str(), g.0[1].as_str()])
            .collect();
        // s2 waits in small and big: paired in small, the first.
        assert_eq!(pairs.len(), 4, "{games:?}");
        assert!(pairs.contains(&["d1", "d2"]) && pairs.contains(&["s1", "s2"]));
        for (pair, width, pool, cgos) in &games {
            let expected = match pair[0].as_str() {
                "d1" => (9, None),
                "s1" => (7, Some("small".to_string())),
                _ => (13, Some("big".to_string())),
            };
            assert_eq!((*width, pool.clone()), expected, "{pair:?}");
            assert_eq!(*cgos, pair.contains(&"c1".to_string()), "{pair:?}");
        }
        let in_big: Vec<&str> = games
            .iter()
            .filter(|g| g.1 == 13)
            .flat_map(|g| g.0.iter().map(String::as_str))
            .collect();
        assert_eq!(in_big.len(), 4);
        for name in ["b1", "b2", "b3", "c1"] {
            assert!(in_big.contains(&name), "{name} in big: {games:?}");
        }
        // Alone in the first pool it names, a player is paired in the next.
        join("x1", &["small", "big"]).await;
        join("x2", &["big"]).await;
        let games = round().await;
        assert_eq!(games.len(), 1, "{games:?}");
        assert_eq!(games[0].0, ["x1".to_string(), "x2".to_string()]);
        assert_eq!(games[0].2.as_deref(), Some("big"));
    }

    // Issue 38 §4: a pairing of two anchors is played one time in ten; others always.
    #[test]
    fn two_anchors_meet_one_time_in_ten() {
        let pairs = vec![(0, 1), (2, 3), (4, 5)];
        let anchors = [true, true, true, false, false, false];
        let mut draws = [0.05, 0.95].into_iter();
        assert_eq!(
            rare_anchor_pairs(pairs.clone(), &anchors, || draws.next().unwrap()),
            pairs,
            "a low draw keeps the anchors' pairing; the others draw nothing"
        );
        let mut draws = [0.1].into_iter();
        assert_eq!(
            rare_anchor_pairs(pairs, &anchors, || draws.next().unwrap()),
            [(2, 3), (4, 5)]
        );
        // Over draws spread evenly on [0, 1), one in ten.
        let kept = (0..10_000)
            .filter(|&i| {
                let d = f64::from(i) / 10_000.0;
                !rare_anchor_pairs(vec![(0, 1)], &[true, true], || d).is_empty()
            })
            .count();
        assert_eq!(kept, 1_000);
    }

    /// What the lobby answers a program that waits in a pool it does not have.
    async fn unknown_pool_refusal(lobby: &Arc<Lobby>) -> String {
        let m = lobby.join(account("stranger"), false).await.unwrap();
        let refused = m
            .handle(LobbyClientMessage::Wait {
                on: true,
                pools: vec!["small".into(), "huge".into()],
            })
            .await;
        let LobbyServerMessage::Error { message, .. } = refused else {
            panic!("an unknown pool is refused: {refused:?}");
        };
        message
    }

    /// Pairs `cgos` door players and `others` (all waiting) once, with the CGOS game made from
    /// `pairing`: the games started, as (black, white, under CGOS's terms).
    async fn pair_with_cgos(
        pairing: CreateRequest,
        cgos: &[&str],
        others: &[&str],
    ) -> Vec<(String, String, bool)> {
        pair_with_cgos_on(true, pairing, cgos, others).await
    }

    /// As [`pair_with_cgos`], by a server with a CGOS door (`door`) or without one: then the
    /// door players are another server's (their presences say so, as these do).
    async fn pair_with_cgos_on(
        door: bool,
        pairing: CreateRequest,
        cgos: &[&str],
        others: &[&str],
    ) -> Vec<(String, String, bool)> {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        let cgos_options = crate::options::CgosOptions::new(
            "127.0.0.1:0",
            &pairing,
            "nstt",
            Duration::from_millis(250),
        )
        .unwrap();
        let opts = Options {
            clock: Clock::tokio(),
            pairing: PairingOptions {
                interval: None,
                game: pairing,
            },
            cgos: door.then_some(cgos_options),
            ..Options::default()
        };
        let app = App::new(store, opts).await.unwrap();
        let mut members = Vec::new();
        for (names, door) in [(cgos, true), (others, false)] {
            for name in names {
                let m = if door {
                    app.lobby
                        .join_cgos(account(name), DEFAULT_POOL)
                        .await
                        .unwrap()
                } else {
                    app.lobby.join(account(name), false).await.unwrap()
                };
                m.handle(LobbyClientMessage::wait(true)).await;
                members.push(m);
            }
        }
        let mut bus = app.games.subscribe();
        app.lobby.pair_round().await;
        let mut started = Vec::new();
        while let Ok(event) = bus.try_recv() {
            if let BusEvent::Game(GameEvent::Started { config, .. }) = event {
                let p = config.players.clone().unwrap();
                started.push((p.black, p.white, config.cgos.is_some()));
            }
        }
        started
    }

    #[tokio::test(start_paused = true)]
    async fn cgos_players_are_paired_with_others_only_when_the_games_fit() {
        let five_minutes = Some(goref_clock::TimeControl::SuddenDeath {
            main: Duration::from_secs(300),
        });
        // The default pairing game (olympiad, Tromp's marking) does not fit CGOS's (nstt, all
        // alive): each kind among its own.
        let started =
            pair_with_cgos(PairingOptions::default().game, &["c1", "c2"], &["p1", "p2"]).await;
        assert_eq!(started.len(), 2);
        for (b, w, terms) in &started {
            let door = |n: &str| n.starts_with('c');
            assert_eq!(door(b), door(w), "{b} against {w}");
            assert_eq!(*terms, door(b), "CGOS's terms only between its players");
        }
        // One of each kind: no game when they do not fit.
        let started = pair_with_cgos(PairingOptions::default().game, &["c1"], &["p1"]).await;
        assert!(started.is_empty());
        // A pairing game of the same board, rules, komi, clock and end fits: one game, under
        // CGOS's terms.
        let fitting = CreateRequest {
            width: Some(9),
            height: Some(9),
            rules: Some("nstt".into()),
            komi: Some(7.5),
            time: five_minutes,
            end: Some(goref_referee::Protocol::AllAlive),
            ..CreateRequest::default()
        };
        let started = pair_with_cgos(fitting.clone(), &["c1"], &["p1"]).await;
        assert_eq!(started.len(), 1);
        assert!(started[0].2, "played under CGOS's terms");
        // The same but for the end (a dead-stone phase): no game.
        let mut marking = fitting;
        marking.end = Some(goref_referee::Protocol::Tromp);
        let started = pair_with_cgos(marking, &["c1"], &["p1"]).await;
        assert!(started.is_empty());
    }

    /// Issue 38: a leading server without a CGOS door (it knows no CGOS game) paired the
    /// door players of another server for its own pairing game, with no CGOS terms: a game
    /// their door cannot play, voided unplayed after the start timeout, and paired again,
    /// round after round. It leaves them waiting, and pairs the others as ever.
    #[tokio::test(start_paused = true)]
    async fn a_leader_without_a_cgos_door_leaves_cgos_players_unpaired() {
        let five_minutes = Some(goref_clock::TimeControl::SuddenDeath {
            main: Duration::from_secs(300),
        });
        let started = pair_with_cgos_on(
            false,
            PairingOptions::default().game,
            &["c1", "c2"],
            &["p1", "p2"],
        )
        .await;
        assert_eq!(started.len(), 1, "{started:?}");
        let (b, w, terms) = &started[0];
        assert!(
            b.starts_with('p') && w.starts_with('p') && !terms,
            "{started:?}"
        );
        // Nor with others when the pairing game is CGOS's own.
        let cgos_like = CreateRequest {
            width: Some(9),
            rules: Some("nstt".into()),
            komi: Some(7.5),
            time: five_minutes,
            end: Some(goref_referee::Protocol::AllAlive),
            ..CreateRequest::default()
        };
        let started = pair_with_cgos_on(false, cgos_like, &["c1"], &["p1"]).await;
        assert!(started.is_empty(), "{started:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_paired_game_nobody_begins_is_voided_after_the_start_timeout_and_both_wait_again() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(&dir).await;
        let lobby = &app.lobby;
        let mut members = Vec::new();
        for name in ["p1", "p2"] {
            let m = lobby.join(account(name), false).await.unwrap();
            m.handle(LobbyClientMessage::wait(true)).await;
            members.push(m);
        }
        lobby.pair_round().await;
        let first = app.games.store().live_games_of("p1").await.unwrap();
        assert_eq!(first.len(), 1);
        // They wait again without playing: within the timeout, not paired again.
        for m in &members {
            m.handle(LobbyClientMessage::wait(true)).await;
        }
        // (Time passes as it does on a server: the presences' leases renewed.)
        let pass = |d: Duration| async move {
            let step = Duration::from_secs(1);
            let mut left = d;
            while !left.is_zero() {
                tokio::time::advance(step.min(left)).await;
                left = left.saturating_sub(step);
                lobby.upkeep().await;
            }
        };
        pass(Options::default().start_timeout / 2).await;
        lobby.pair_round().await;
        assert_eq!(app.games.store().live_games_of("p1").await.unwrap(), first);
        // Past it: the game is voided, with the reason in its record, and they are paired anew.
        pass(Options::default().start_timeout).await;
        lobby.pair_round().await;
        let room = app.games.room(&first[0]).await.unwrap().unwrap();
        let finished = room.finished().expect("voided");
        assert_eq!(finished.result, goref_rules::Outcome::Void);
        assert!(
            room.sgf().contains("no move within 2 min"),
            "{}",
            room.sgf()
        );
        // Both are back in the lobby, waiting, with no game on (the pairing avoids giving them
        // each other again at once).
        for name in ["p1", "p2"] {
            assert!(app
                .games
                .store()
                .live_games_of(name)
                .await
                .unwrap()
                .is_empty());
        }
        let (present, _) = app.games.store().lobby(app.games.now_ms()).await.unwrap();
        assert!(present.iter().all(|p| p.waiting), "{present:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn the_leader_pairs_waiting_players_but_not_one_whose_game_is_on() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(&dir).await;
        let lobby = &app.lobby;
        let mut members = Vec::new();
        for name in ["p1", "p2", "p3"] {
            let m = lobby.join(account(name), false).await.unwrap();
            let ack = m.handle(LobbyClientMessage::wait(true)).await;
            assert_eq!(
                ack,
                LobbyServerMessage::Ack(LobbyAck::Waiting { waiting: true })
            );
            members.push(m);
        }
        let mut bus = app.games.subscribe();
        lobby.pair_round().await;
        let mut started = Vec::new();
        while let Ok(event) = bus.try_recv() {
            if let BusEvent::Game(GameEvent::Started { config, .. }) = event {
                started.push(config.players.clone().unwrap());
            }
        }
        assert_eq!(started.len(), 1, "three waiting: one game, one waits");
        let (present, _) = app.games.store().lobby(app.games.now_ms()).await.unwrap();
        let still: Vec<&str> = present
            .iter()
            .filter(|p| p.waiting)
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(still.len(), 1, "the paired stop waiting: {still:?}");
        assert!(!still.contains(&started[0].black.as_str()));
        // The paired wait again while their game is on: not paired again; their game, not
        // begun, is told again (once: its start may have gone unheard, its leader dead).
        for m in &members {
            m.handle(LobbyClientMessage::wait(true)).await;
        }
        let first = {
            let live = app.games.store().live_games_of(&started[0].black).await;
            live.unwrap().pop().unwrap()
        };
        for round in 0..2 {
            lobby.pair_round().await;
            let again: Vec<String> = std::iter::from_fn(|| bus.try_recv().ok())
                .filter_map(|e| match e {
                    BusEvent::Game(GameEvent::Started { id, .. }) => Some(id),
                    _ => None,
                })
                .collect();
            let told: &[String] = if round == 0 {
                std::slice::from_ref(&first)
            } else {
                &[]
            };
            assert_eq!(again, told, "one game at a time, told again once");
        }
    }
}
