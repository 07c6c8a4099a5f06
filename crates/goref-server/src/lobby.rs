//! Players on the server: logging in, the lobby (who is here, open challenges, accepting
//! one), continuous pairing of the players who wait (as CGOS does), and ratings.
//!
//! The lobby is one WebSocket per page or program, `/api/lobby/ws?token=…`. The server sends
//! `lobby` (the whole lobby, each time it changes) and `game` (a game of yours has started, or
//! is still on when you connect); the client sends `challenge`, `cancel`, `accept` and `wait`.
//! The README documents the messages.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use goref_rules::Color;
use goref_tournament::continuous::{pair_waiting, Waiting};
use goref_tournament::rating::{fit, Anchor, FitOptions, Game as RatedGame, GameResult};
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::accounts::{self, Account, LoginError};
use crate::error::{ApiError, Missing, NoSession};
use crate::limits::{ClientAddr, Limited};
use crate::protocol::{
    ChallengeView, ColorChoice, GameStart, LobbyAck, LobbyClientMessage, LobbyServerMessage,
    LoginAnswer, MeAnswer, OnlinePlayer, PlayerAnswer, PlayerLine, PlayerList,
};
use crate::room::{CreateRequest, GameConfig, Players, Side};
use crate::server::{hash_secret, now_ms, open_game, random_hex, AppState};
use crate::store::{NewAccount, StoreError};

/// The rating of a player without rated games, and the mean the fit is anchored to.
pub const BASE_RATING: f64 = 1500.0;
/// The most open challenges of one account.
pub const MAX_CHALLENGES_EACH: usize = 3;
/// The most open challenges in all.
pub const MAX_CHALLENGES: usize = 500;
/// Lobby connections of one account at once.
pub const MAX_LOBBY_CONNECTIONS: usize = 8;
/// The jitter of continuous pairing: each waiting player's rating is moved by up to this many
/// Elo either way before sorting.
pub const PAIRING_JITTER: f64 = 100.0;

/// The server's continuous pairing.
#[derive(Clone, Debug)]
pub struct PairingOptions {
    /// How often the waiting players are paired; `None`: never.
    pub interval: Option<Duration>,
    /// The games it starts (players' names are filled in).
    pub game: CreateRequest,
}

impl Default for PairingOptions {
    /// Every 15 s: 9×9, the Olympiad's rules, 5 minutes each, Tromp's marking protocol.
    fn default() -> PairingOptions {
        PairingOptions {
            interval: Some(Duration::from_secs(15)),
            game: CreateRequest {
                width: Some(9),
                height: Some(9),
                rules: Some("olympiad".into()),
                time: Some(goref_clock::TimeControl::SuddenDeath {
                    main: Duration::from_secs(300),
                }),
                end: Some(goref_referee::Protocol::Tromp),
                ..CreateRequest::default()
            },
        }
    }
}

/// One lobby connection.
struct Conn {
    account: Account,
    tx: mpsc::Sender<Arc<str>>,
    /// Waiting to be paired.
    waiting: bool,
}

/// An open challenge: as the lobby shows it, and the settings it was checked as.
#[derive(Clone, Debug)]
struct Challenge {
    view: ChallengeView,
    request: CreateRequest,
}

pub use crate::protocol::Rating;

/// The last game of a player: against whom, with which colour.
#[derive(Clone, Debug)]
struct Last {
    opponent: String,
    black: bool,
}

/// Everything the lobby holds in memory. Challenges and waiting flags live as long as the
/// connection that made them.
pub struct Lobby {
    next_conn: u64,
    conns: HashMap<u64, Conn>,
    challenges: Vec<Challenge>,
    /// Per account (lower case): its last game.
    last: HashMap<String, Last>,
    /// Every rated result: Black, White, how it ended.
    rated: Vec<(String, String, GameResult)>,
    /// Per account (lower case).
    ratings: HashMap<String, Rating>,
}

fn key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// The result of a game as ratings count it, from SGF `RE`; `None` for no result (void).
fn rated_result(re: &str) -> Option<GameResult> {
    match re.chars().next()? {
        'B' | 'b' => Some(GameResult::BlackWins),
        'W' | 'w' => Some(GameResult::WhiteWins),
        '0' | 'D' | 'd' => Some(GameResult::Draw),
        _ => None,
    }
}

impl Lobby {
    /// A lobby with the ratings of these stored results (Black, White, `RE`).
    #[must_use]
    pub fn new(results: &[(String, String, String)]) -> Lobby {
        let mut lobby = Lobby {
            next_conn: 0,
            conns: HashMap::new(),
            challenges: Vec::new(),
            last: HashMap::new(),
            rated: Vec::new(),
            ratings: HashMap::new(),
        };
        for (black, white, re) in results {
            if let Some(r) = rated_result(re) {
                lobby.rated.push((black.clone(), white.clone(), r));
            }
            lobby.remember(black, white);
        }
        lobby.refit();
        lobby
    }

    fn remember(&mut self, black: &str, white: &str) {
        self.last.insert(
            key(black),
            Last {
                opponent: key(white),
                black: true,
            },
        );
        self.last.insert(
            key(white),
            Last {
                opponent: key(black),
                black: false,
            },
        );
    }

    /// Fits every rating again from all rated results.
    fn refit(&mut self) {
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut names: Vec<String> = Vec::new();
        let mut games = Vec::with_capacity(self.rated.len());
        for (black, white, result) in &self.rated {
            let mut id = |name: &String| {
                *index.entry(key(name)).or_insert_with(|| {
                    names.push(name.clone());
                    names.len() - 1
                })
            };
            let (b, w) = (id(black), id(white));
            games.push(RatedGame {
                black: b,
                white: w,
                result: *result,
            });
        }
        let options = FitOptions {
            anchor: Anchor::Mean(BASE_RATING),
            ..FitOptions::default()
        };
        self.ratings.clear();
        let Ok(fitted) = fit(names.len(), &games, &options) else {
            return;
        };
        for (i, name) in names.iter().enumerate() {
            let mut r = Rating {
                name: name.clone(),
                rating: fitted.ratings[i],
                interval: fitted.intervals[i],
                games: 0,
                wins: 0,
                losses: 0,
                draws: 0,
            };
            for g in games.iter().filter(|g| g.black == i || g.white == i) {
                r.games += 1;
                let score = if g.black == i {
                    g.result.black_score()
                } else {
                    g.result.white_score()
                };
                match score {
                    s if s > 0.75 => r.wins += 1,
                    s if s < 0.25 => r.losses += 1,
                    _ => r.draws += 1,
                }
            }
            self.ratings.insert(key(name), r);
        }
    }

    /// A player's rating, [`BASE_RATING`] before any rated game.
    fn rating(&self, name: &str) -> f64 {
        self.ratings
            .get(&key(name))
            .map_or(BASE_RATING, |r| r.rating)
    }

    /// The whole lobby, as sent to every connection.
    fn snapshot(&self) -> Arc<str> {
        let mut online: Vec<OnlinePlayer> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for c in self.conns.values() {
            if seen.insert(key(&c.account.name)) {
                let waiting = self
                    .conns
                    .values()
                    .any(|o| o.waiting && key(&o.account.name) == key(&c.account.name));
                online.push(OnlinePlayer {
                    name: c.account.name.clone(),
                    program: c.account.program,
                    rating: self
                        .ratings
                        .get(&key(&c.account.name))
                        .map(|r| r.rating.round()),
                    waiting,
                });
            }
        }
        online.sort_by(|a, b| a.name.cmp(&b.name));
        LobbyServerMessage::Lobby {
            online,
            challenges: self.challenges.iter().map(|c| c.view.clone()).collect(),
        }
        .to_text()
        .into()
    }

    /// Sends the lobby to every connection (a connection too slow to take it misses it; the
    /// next one carries everything).
    fn broadcast(&self) {
        let text = self.snapshot();
        for c in self.conns.values() {
            let _ = c.tx.try_send(text.clone());
        }
    }

    /// Tells every lobby connection of `name`.
    fn tell(&self, name: &str, text: &Arc<str>) {
        for c in self.conns.values() {
            if key(&c.account.name) == key(name) {
                let _ = c.tx.try_send(text.clone());
            }
        }
    }

    /// The ratings of every rated player, best first.
    #[must_use]
    pub fn standings(&self) -> Vec<Rating> {
        let mut all: Vec<Rating> = self.ratings.values().cloned().collect();
        all.sort_by(|a, b| b.rating.total_cmp(&a.rating).then(a.name.cmp(&b.name)));
        all
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoginRequest {
    name: String,
    password: String,
    /// Creating an account: a program.
    #[serde(default)]
    program: bool,
    /// Create the account when nobody has the name (CGOS's way; `goref connect` asks for it).
    #[serde(default)]
    create: bool,
}

/// `POST /api/login {name, password, program, create}`: a session token. Logins are limited
/// per client address as game creation is (429 `rate_limited`).
pub(crate) async fn login(
    State(state): State<Arc<AppState>>,
    client: ClientAddr,
    body: Bytes,
) -> Result<Response, ApiError> {
    if let Err(retry_after) = state.logins.check(&client.key(), std::time::Instant::now()) {
        return Err(Limited::LoginRate { retry_after }.into());
    }
    let request: LoginRequest =
        serde_json::from_slice(&body).map_err(|e| ApiError::Malformed(e.to_string()))?;
    let (token, account) = log_in(&state, request, &client.key()).await?;
    Ok(axum::Json(LoginAnswer { token, account }).into_response())
}

/// Logs `request` in from the client address `address` (its limits key). A guess is counted
/// before its password is hashed, per name and address and per address (crate::throttle): an
/// attacker is throttled, never the owner logging in from elsewhere.
async fn log_in(
    state: &Arc<AppState>,
    request: LoginRequest,
    address: &str,
) -> Result<(String, Account), LoginError> {
    accounts::check_name(&request.name)?;
    accounts::check_password(&request.password)?;
    let storage = |e: StoreError| LoginError::Storage(format!("{e:#}"));
    let now = now_ms();
    let guess = state
        .throttle
        .begin(&request.name, address, now)
        .map_err(|_| LoginError::TooManyAttempts)?;
    let account = match state.store.account(&request.name).await.map_err(storage)? {
        Some((account, phc)) => {
            if !state.hasher.verify(&request.password, &phc).await {
                state.throttle.failed(guess);
                return Err(LoginError::WrongPassword);
            }
            state.throttle.succeeded(guess);
            account
        }
        None if request.create => {
            state.throttle.succeeded(guess);
            let phc =
                state.hasher.hash(&request.password).await.ok_or_else(|| {
                    LoginError::Storage("the password could not be hashed".into())
                })?;
            let new = NewAccount {
                name: request.name.clone(),
                phc,
                program: request.program,
                created_ms: now,
            };
            state
                .store
                .create_account(new, state.opts.td.clone())
                .await
                .map_err(storage)?
                // Taken since we looked: the other login won.
                .ok_or(LoginError::WrongPassword)?
        }
        None => {
            // Asking after names that do not exist is guessing too.
            state.throttle.failed(guess);
            return Err(LoginError::UnknownAccount);
        }
    };
    let token = random_hex(32);
    state
        .store
        .create_session(hash_secret(&token), account.name.clone(), now)
        .await
        .map_err(storage)?;
    Ok((token, account))
}

/// The account of a session token, or why not.
pub(crate) async fn account_of_token(
    state: &Arc<AppState>,
    token: &str,
) -> Result<Account, ApiError> {
    if token.len() > 128 {
        return Err(ApiError::BadToken(NoSession::Unknown));
    }
    match state.store.session(&hash_secret(token)).await {
        Ok(Some(account)) => Ok(account),
        Ok(None) => Err(ApiError::BadToken(NoSession::Ended)),
        Err(e) => Err(ApiError::storage(&e)),
    }
}

/// The account of the request's `Authorization: Bearer TOKEN`, or why not.
pub(crate) async fn account_of_request(
    state: &Arc<AppState>,
    headers: &HeaderMap,
) -> Result<Account, ApiError> {
    match bearer(headers) {
        Some(token) => account_of_token(state, token).await,
        None => Err(ApiError::BadToken(NoSession::NoToken)),
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
}

/// `GET /api/me` (with `Authorization: Bearer TOKEN`): the account.
pub(crate) async fn me(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let account = account_of_request(&state, &headers).await?;
    let rating = state
        .lobby
        .lock()
        .expect("lobby")
        .ratings
        .get(&key(&account.name))
        .cloned();
    Ok(axum::Json(MeAnswer { account, rating }).into_response())
}

/// `GET /api/players`: every account with its rating, rated players best first.
pub(crate) async fn players(State(state): State<Arc<AppState>>) -> Result<Response, ApiError> {
    let accounts = state
        .store
        .accounts()
        .await
        .map_err(|e| ApiError::storage(&e))?;
    let standings = state.lobby.lock().expect("lobby").standings();
    let program: HashMap<String, bool> =
        accounts.iter().map(|a| (key(&a.name), a.program)).collect();
    let rated = standings.iter().map(|r| PlayerLine {
        name: r.name.clone(),
        program: program.get(&key(&r.name)).copied().unwrap_or(false),
        rating: Some(r.rating.round()),
        interval: Some([r.interval.0.round(), r.interval.1.round()]),
        games: r.games,
        wins: Some(r.wins),
        losses: Some(r.losses),
        draws: Some(r.draws),
    });
    let unrated = accounts
        .iter()
        .filter(|a| !standings.iter().any(|r| key(&r.name) == key(&a.name)))
        .map(|a| PlayerLine {
            name: a.name.clone(),
            program: a.program,
            rating: None,
            interval: None,
            games: 0,
            wins: None,
            losses: None,
            draws: None,
        });
    let players = rated.chain(unrated).collect();
    Ok(axum::Json(PlayerList { players }).into_response())
}

/// `GET /api/players/{name}`: the account, its rating and its games, newest first.
pub(crate) async fn player(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    if accounts::check_name(&name).is_err() {
        return Err(ApiError::NotFound(Missing::Player));
    }
    let account = match state.store.account(&name).await {
        Ok(Some((a, _))) => a,
        Ok(None) => return Err(ApiError::NotFound(Missing::Player)),
        Err(e) => return Err(ApiError::storage(&e)),
    };
    let games = state
        .store
        .games_of(&name, 200)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    let rating = state
        .lobby
        .lock()
        .expect("lobby")
        .ratings
        .get(&key(&name))
        .cloned();
    Ok(axum::Json(PlayerAnswer {
        account,
        rating,
        games,
    })
    .into_response())
}

#[derive(Deserialize)]
pub(crate) struct LobbyQuery {
    token: Option<String>,
}

/// `GET /api/lobby/ws?token=…`: the lobby's WebSocket.
pub(crate) async fn lobby_ws(
    State(state): State<Arc<AppState>>,
    Query(q): Query<LobbyQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    // As the game socket: a page of another site may not open it with the visitor's token.
    crate::guard::check_origin(&headers, &state.opts.allowed_origins)?;
    let Some(token) = q.token.filter(|t| !t.is_empty()) else {
        return Err(ApiError::BadToken(NoSession::NoToken));
    };
    let account = account_of_token(&state, &token).await?;
    let open = {
        let lobby = state.lobby.lock().expect("lobby");
        lobby
            .conns
            .values()
            .filter(|c| key(&c.account.name) == key(&account.name))
            .count()
    };
    if open >= MAX_LOBBY_CONNECTIONS {
        return Err(ApiError::TooManyLobbyConnections {
            max: MAX_LOBBY_CONNECTIONS,
        });
    }
    Ok(ws
        .max_message_size(16 * 1024)
        .max_frame_size(16 * 1024)
        .read_buffer_size(4096)
        .on_upgrade(move |socket| lobby_connection(state, account, socket)))
}

/// Removes a connection (and its challenges, when it was its account's last) when dropped.
struct InLobby(Arc<AppState>, u64);

impl Drop for InLobby {
    fn drop(&mut self) {
        let mut lobby = self.0.lobby.lock().expect("lobby");
        if let Some(conn) = lobby.conns.remove(&self.1) {
            let name = key(&conn.account.name);
            if !lobby.conns.values().any(|c| key(&c.account.name) == name) {
                lobby.challenges.retain(|c| key(&c.view.by) != name);
            }
        }
        lobby.broadcast();
    }
}

async fn lobby_connection(state: Arc<AppState>, account: Account, mut socket: WebSocket) {
    let (tx, mut rx) = mpsc::channel::<Arc<str>>(32);
    let id = {
        let mut lobby = state.lobby.lock().expect("lobby");
        lobby.next_conn += 1;
        let id = lobby.next_conn;
        lobby.conns.insert(
            id,
            Conn {
                account: account.clone(),
                tx,
                waiting: false,
            },
        );
        id
    };
    let _in = InLobby(state.clone(), id);
    let hello = LobbyServerMessage::Hello {
        account: account.clone(),
    }
    .to_text();
    if socket.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    // The games this account is playing: after a network break, the program goes back to them.
    if let Ok(live) = state.store.live_games_of(&account.name).await {
        for game in live {
            if let Some(text) = game_message(&state, &game, &account.name).await {
                if socket
                    .send(Message::Text(text.as_ref().into()))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        }
    }
    state.lobby.lock().expect("lobby").broadcast();
    let mut bucket_at = std::time::Instant::now();
    let mut tokens = 2.0 * f64::from(state.opts.messages_per_second.max(1));
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let Some(Ok(msg)) = incoming else { break };
                let text = match msg {
                    Message::Text(t) => t,
                    Message::Close(_) => break,
                    _ => continue,
                };
                let rate = f64::from(state.opts.messages_per_second.max(1));
                let now = std::time::Instant::now();
                tokens = (tokens + now.duration_since(bucket_at).as_secs_f64() * rate).min(2.0 * rate);
                bucket_at = now;
                let reply = if tokens < 1.0 {
                    lobby_refusal("rate_limited", "too many messages: slow down")
                } else {
                    tokens -= 1.0;
                    lobby_message(&state, id, &account, text.as_str()).await
                };
                if socket.send(Message::Text(reply.to_text().into())).await.is_err() {
                    break;
                }
            }
            out = rx.recv() => {
                let Some(text) = out else { break };
                if socket.send(Message::Text(text.as_ref().into())).await.is_err() {
                    break;
                }
            }
        }
    }
}

fn lobby_refusal(code: &str, message: impl Into<String>) -> LobbyServerMessage {
    LobbyServerMessage::Error {
        code: code.to_string(),
        message: message.into(),
    }
}

fn ack(ack: LobbyAck) -> LobbyServerMessage {
    LobbyServerMessage::Ack(ack)
}

async fn lobby_message(
    state: &Arc<AppState>,
    conn: u64,
    account: &Account,
    text: &str,
) -> LobbyServerMessage {
    let msg = match LobbyClientMessage::parse(text) {
        Ok(m) => m,
        Err(e) => return lobby_refusal(e.code(), e.to_string()),
    };
    match msg {
        LobbyClientMessage::Wait { on } => {
            let mut lobby = state.lobby.lock().expect("lobby");
            if let Some(c) = lobby.conns.get_mut(&conn) {
                c.waiting = on;
            }
            lobby.broadcast();
            ack(LobbyAck::Waiting { waiting: on })
        }
        LobbyClientMessage::Challenge { .. } | LobbyClientMessage::Accept { .. }
            if state
                .creations
                .check(
                    &format!("account:{}", key(&account.name)),
                    std::time::Instant::now(),
                )
                .is_err() =>
        {
            lobby_refusal(
                "rate_limited",
                "too many games and challenges from this account lately: try later",
            )
        }
        LobbyClientMessage::Challenge { game, color, rated } => {
            let request: CreateRequest = match serde_json::from_value(game.clone()) {
                Ok(r) => r,
                Err(e) => return lobby_refusal("invalid", e.to_string()),
            };
            if request.black.is_some() || request.white.is_some() {
                return lobby_refusal(
                    "invalid",
                    "the players of a challenge are its challenger and who accepts it",
                );
            }
            if let Err(e) = request.config() {
                return lobby_refusal("invalid", e);
            }
            let mut lobby = state.lobby.lock().expect("lobby");
            let mine = lobby
                .challenges
                .iter()
                .filter(|c| key(&c.view.by) == key(&account.name))
                .count();
            if mine >= MAX_CHALLENGES_EACH || lobby.challenges.len() >= MAX_CHALLENGES {
                return lobby_refusal(
                    "too_many_challenges",
                    format!("at most {MAX_CHALLENGES_EACH} open challenges each"),
                );
            }
            let id = random_hex(6);
            lobby.challenges.push(Challenge {
                view: ChallengeView {
                    id: id.clone(),
                    by: account.name.clone(),
                    program: account.program,
                    color: color.unwrap_or_default(),
                    rated: rated.unwrap_or(true),
                    game,
                },
                request,
            });
            lobby.broadcast();
            ack(LobbyAck::Challenge { challenge: id })
        }
        LobbyClientMessage::Cancel { challenge } => {
            let mut lobby = state.lobby.lock().expect("lobby");
            let before = lobby.challenges.len();
            lobby
                .challenges
                .retain(|c| !(c.view.id == challenge && key(&c.view.by) == key(&account.name)));
            if lobby.challenges.len() == before {
                return lobby_refusal("not_found", "you have no open challenge with this id");
            }
            lobby.broadcast();
            ack(LobbyAck::Cancelled {
                cancelled: challenge,
            })
        }
        LobbyClientMessage::Accept { challenge } => {
            let taken = {
                let mut lobby = state.lobby.lock().expect("lobby");
                match lobby.challenges.iter().position(|c| c.view.id == challenge) {
                    Some(i) if key(&lobby.challenges[i].view.by) == key(&account.name) => {
                        return lobby_refusal(
                            "own_challenge",
                            "you cannot accept your own challenge",
                        )
                    }
                    Some(i) => lobby.challenges.remove(i),
                    None => return lobby_refusal("not_found", "no open challenge with this id"),
                }
            };
            let challenger_black = match taken.view.color {
                ColorChoice::Black => true,
                ColorChoice::White => false,
                ColorChoice::Random => random_bool(),
            };
            let players = if challenger_black {
                Players {
                    black: taken.view.by.clone(),
                    white: account.name.clone(),
                }
            } else {
                Players {
                    black: account.name.clone(),
                    white: taken.view.by.clone(),
                }
            };
            let creator = format!("account:{}", key(&taken.view.by));
            match start_game(state, &taken.request, players, taken.view.rated, &creator).await {
                Ok(id) => ack(LobbyAck::Game { game: id }),
                Err(e) => lobby_refusal("invalid", e),
            }
        }
    }
}

fn random_bool() -> bool {
    let mut b = [0u8; 1];
    getrandom::fill(&mut b).expect("operating system randomness");
    b[0] & 1 == 1
}

/// A uniform draw in `[-1, 1]`.
fn random_unit() -> f64 {
    let mut b = [0u8; 4];
    getrandom::fill(&mut b).expect("operating system randomness");
    f64::from(u32::from_le_bytes(b)) / f64::from(u32::MAX) * 2.0 - 1.0
}

/// The `game` message for account `name` in game `id`.
async fn game_message(state: &Arc<AppState>, id: &str, name: &str) -> Option<Arc<str>> {
    let (stored, _) = state.store.load(id).await.ok()??;
    let players = stored.config.players.as_ref()?;
    let color = players.color_of(name)?;
    let start = GameStart {
        id: id.to_string(),
        color: Side::from(color),
        opponent: players.of(color.opponent()).to_string(),
        config: stored.config.clone(),
    };
    Some(LobbyServerMessage::Game(start).to_text().into())
}

/// Starts a game between two accounts with the settings of `request`; tells both.
pub(crate) async fn start_game(
    state: &Arc<AppState>,
    request: &CreateRequest,
    players: Players,
    rated: bool,
    creator: &str,
) -> Result<String, String> {
    let mut request = request.clone();
    request.black = Some(players.black.clone());
    request.white = Some(players.white.clone());
    let mut config: GameConfig = request.config()?;
    config.players = Some(players.clone());
    config.rated = rated;
    let (id, _) = open_game(state, config, creator.to_string())
        .await
        .map_err(|_| "the game could not be created".to_string())?;
    {
        let mut lobby = state.lobby.lock().expect("lobby");
        for color in Color::ALL {
            for c in lobby.conns.values_mut() {
                if key(&c.account.name) == key(players.of(color)) {
                    c.waiting = false;
                }
            }
        }
        lobby.broadcast();
    }
    for color in Color::ALL {
        if let Some(text) = game_message(state, &id, players.of(color)).await {
            state
                .lobby
                .lock()
                .expect("lobby")
                .tell(players.of(color), &text);
        }
    }
    Ok(id)
}

/// A game between accounts ended with `result`: remember who met whom, refit the ratings.
pub(crate) fn game_over(state: &Arc<AppState>, config: &GameConfig, result: &str) {
    let Some(players) = &config.players else {
        return;
    };
    let mut lobby = state.lobby.lock().expect("lobby");
    lobby.remember(&players.black, &players.white);
    if config.rated {
        if let Some(r) = rated_result(result) {
            lobby
                .rated
                .push((players.black.clone(), players.white.clone(), r));
            lobby.refit();
        }
    }
    let over: Arc<str> = LobbyServerMessage::GameOver {
        black: players.black.clone(),
        white: players.white.clone(),
        result: result.to_string(),
    }
    .to_text()
    .into();
    for color in Color::ALL {
        lobby.tell(players.of(color), &over);
    }
    lobby.broadcast();
}

/// Starts the task that pairs the waiting players every interval.
pub(crate) fn start_pairing(state: &Arc<AppState>) {
    let Some(interval) = state.opts.pairing.interval else {
        return;
    };
    let state = state.clone();
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        loop {
            ticks.tick().await;
            pair_round(&state).await;
        }
    });
}

/// One round of continuous pairing (by the server that leads, when several share a database).
async fn pair_round(state: &Arc<AppState>) {
    if !state.leads() {
        return;
    }
    let candidates: Vec<String> = {
        let lobby = state.lobby.lock().expect("lobby");
        let mut names: Vec<String> = lobby
            .conns
            .values()
            .filter(|c| c.waiting)
            .map(|c| c.account.name.clone())
            .collect();
        names.sort_by_key(|n| key(n));
        names.dedup_by_key(|n| key(n));
        names
    };
    if candidates.len() < 2 {
        return;
    }
    // One game at a time: a player whose game is still on waits.
    let mut free = Vec::with_capacity(candidates.len());
    for name in candidates {
        if state
            .store
            .live_games_of(&name)
            .await
            .is_ok_and(|g| g.is_empty())
        {
            free.push(name);
        }
    }
    let pairs: Vec<Players> = {
        let lobby = state.lobby.lock().expect("lobby");
        let waiting: Vec<Waiting> = free
            .iter()
            .map(|name| {
                let last = lobby.last.get(&key(name));
                Waiting {
                    rating: lobby.rating(name),
                    jitter: PAIRING_JITTER * random_unit(),
                    last_opponent: last
                        .and_then(|l| free.iter().position(|n| key(n) == l.opponent)),
                    had_black_last: last.map(|l| l.black),
                }
            })
            .collect();
        pair_waiting(&waiting)
            .into_iter()
            .map(|(b, w)| Players {
                black: free[b].clone(),
                white: free[w].clone(),
            })
            .collect()
    };
    for players in pairs {
        if let Err(e) = start_game(state, &state.opts.pairing.game, players, true, "pairing").await
        {
            eprintln!("goref serve: pairing: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_count_as_the_rating_fit_reads_them() {
        assert_eq!(rated_result("B+R"), Some(GameResult::BlackWins));
        assert_eq!(rated_result("W+3.5"), Some(GameResult::WhiteWins));
        assert_eq!(rated_result("0"), Some(GameResult::Draw));
        assert_eq!(rated_result("Draw"), Some(GameResult::Draw));
        assert_eq!(rated_result("Void"), None);
        assert_eq!(rated_result("?"), None);
    }

    #[test]
    fn the_winner_of_every_game_rates_above_the_loser() {
        let results: Vec<(String, String, String)> = (0..6)
            .map(|i| {
                if i % 2 == 0 {
                    ("a".into(), "b".into(), "B+R".into())
                } else {
                    ("b".into(), "a".into(), "W+1.5".into())
                }
            })
            .collect();
        let lobby = Lobby::new(&results);
        let s = lobby.standings();
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].name.as_str(), s[0].wins, s[0].losses), ("a", 6, 0));
        assert!(s[0].rating > s[1].rating + 100.0);
        assert!(((s[0].rating + s[1].rating) / 2.0 - BASE_RATING).abs() < 1e-6);
        assert_eq!(lobby.last["a"].opponent, "b");
        assert!(
            !lobby.last["a"].black,
            "the last game was b (Black) against a"
        );
        assert!(lobby.last["b"].black);
    }
}
