//! `goref connect URL --engine CMD --name NAME --password P`: a GTP engine plays on a goref
//! server, over the same WebSocket API as the page (docs/src/reference/api.md documents it).
//!
//! It logs in (the first login of a new name creates the account), waits in the lobby to be
//! paired (and keeps a challenge open, with `--challenge`), and plays every game the server
//! starts for it: the engine is told the board, komi, rules and clock, every move, asked
//! `genmove` on its turn and `final_status_list dead` when the end protocol needs the dead
//! stones. After a network break it connects again and goes on with its game (the server's
//! clock runs meanwhile); given several URLs (instances of one server), it goes to the next
//! instance when one stops answering. An engine that crashes resigns its game and is started again for
//! the next one.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args as ClapArgs;
use futures_util::{SinkExt, StreamExt};
use goref_gtp::vertex::{format_move, parse_genmove, parse_move, GenMove};
use goref_gtp::{Engine, EngineSpec, GtpError};
use goref_referee::marking::Dead;
use goref_referee::tromp::{choice, Choice};
use goref_rules::{Geometry, Move, Point};
use goref_server::client::http;
use goref_server::room::{GameConfig, Side};
use goref_server::wire::{
    ClientMessage, Command, GameStart, LobbyClientMessage, LobbyServerMessage, LoginAnswer,
    MoveView, Need, ServerMessage, StateView,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

#[derive(ClapArgs)]
pub struct Args {
    /// The server: `http://host:port`; or several instances of one server (on one database),
    /// separated by commas, `http://a:8080,http://b:8080`: the first is used until it stops
    /// answering, then the next, and the game goes on there.
    pub url: String,
    /// The engine's command line (`/usr/games/gnugo --mode gtp`) or `tcp://host:port`.
    #[arg(long)]
    pub engine: String,
    /// The account's name (created at the first login).
    #[arg(long)]
    pub name: String,
    /// The account's password (or the environment variable GOREF_PASSWORD).
    #[arg(long, env = "GOREF_PASSWORD", hide_env_values = true)]
    pub password: String,
    /// Do not wait to be paired; play only accepted challenges.
    #[arg(long)]
    pub no_pairing: bool,
    /// A pool to be paired in (repeatable; `GET /api/pools` lists the server's); none: the
    /// server's default pool.
    #[arg(long = "pool", value_name = "NAME")]
    pub pools: Vec<String>,
    /// Keep a challenge open in the lobby: the game's settings as JSON, as `POST /api/games`
    /// takes them (`{"width": 9, "rules": "olympiad", "end": "tromp"}`).
    #[arg(long)]
    pub challenge: Option<String>,
    /// Join this tournament of the server (its id) after logging in.
    #[arg(long)]
    pub join: Vec<String>,
    /// Stop after this many games (default: never).
    #[arg(long)]
    pub games: Option<usize>,
    /// The longest an engine command may take, in seconds, before the engine is taken as hung.
    #[arg(long, default_value_t = 600)]
    pub command_timeout: u64,
}

/// How long to wait before trying the network again.
const RETRY: Duration = Duration::from_millis(500);
/// How long to wait before logging in again.
const LOGIN_RETRY: Duration = Duration::from_secs(2);
/// How long the server may not answer (a login, the lobby, a game's connection) before goref
/// connect gives up.
const GIVE_UP: Duration = Duration::from_secs(600);

/// The retries of one thing that needs the server (the login, the lobby, a game): the first
/// failure says how often and for how long it is retried, later ones only a new reason (a
/// dead server's "Connection refused" was printed at every try, for 10 minutes); after
/// [`GIVE_UP`] without an answer, it gives up.
struct Retries {
    what: String,
    every: Duration,
    since: Option<std::time::Instant>,
    last: Option<String>,
}

impl Retries {
    fn new(what: impl Into<String>, every: Duration) -> Retries {
        Retries {
            what: what.into(),
            every,
            since: None,
            last: None,
        }
    }

    /// `why` it failed: says so (see [`Retries`]) and waits before the next try.
    ///
    /// # Errors
    ///
    /// When the server has not answered for [`GIVE_UP`].
    async fn failed(&mut self, why: &str) -> Result<()> {
        let since = *self.since.get_or_insert_with(std::time::Instant::now);
        if since.elapsed() >= GIVE_UP {
            bail!(
                "{}: no answer for {}, giving up: {why}",
                self.what,
                minutes(GIVE_UP)
            );
        }
        match &self.last {
            None => eprintln!(
                "goref connect: {}: {why}; retrying every {} s, giving up after {}",
                self.what,
                self.every.as_secs_f64(),
                minutes(GIVE_UP)
            ),
            Some(last) if last != why => {
                eprintln!("goref connect: {}: {why}; still retrying", self.what);
            }
            Some(_) => {}
        }
        self.last = Some(why.to_string());
        tokio::time::sleep(self.every).await;
        Ok(())
    }

    /// The server answered: the next failure starts the count again.
    fn succeeded(&mut self) {
        self.since = None;
        self.last = None;
    }
}

/// `10 min`.
fn minutes(d: Duration) -> String {
    format!("{} min", d.as_secs() / 60)
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(connect(args))?;
    Ok(ExitCode::SUCCESS)
}

/// The instances of the URL argument, in order. Requests go to the current one; when it does
/// not answer, the next becomes current (instances share one database: sessions, games and
/// clocks are the same on each).
struct Servers {
    all: Vec<Server>,
    current: std::sync::atomic::AtomicUsize,
}

impl Servers {
    /// Resolves every URL of `urls` (separated by commas).
    async fn resolve(urls: &str) -> Result<Servers> {
        let mut all = Vec::new();
        for url in urls.split(',').map(str::trim).filter(|u| !u.is_empty()) {
            all.push(resolve(url).await?);
        }
        if all.is_empty() {
            bail!("no server URL in '{urls}'");
        }
        Ok(Servers {
            all,
            current: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    fn current(&self) -> &Server {
        let i = self.current.load(std::sync::atomic::Ordering::SeqCst);
        &self.all[i % self.all.len()]
    }

    /// `server` did not answer: the next instance becomes current (once, whoever noticed).
    fn failed(&self, server: &Server) {
        if self.all.len() < 2 {
            return;
        }
        let i = self.current.load(std::sync::atomic::Ordering::SeqCst);
        if std::ptr::eq(&self.all[i % self.all.len()], server)
            && self
                .current
                .compare_exchange(
                    i,
                    i + 1,
                    std::sync::atomic::Ordering::SeqCst,
                    std::sync::atomic::Ordering::SeqCst,
                )
                .is_ok()
        {
            eprintln!(
                "goref connect: {} does not answer; going to {}",
                server.host,
                self.current().host
            );
        }
    }

    /// [`open`] on the current instance; a failure other than a refused session moves on.
    async fn open(&self, path: &str) -> Result<Socket, OpenError> {
        let server = self.current();
        let opened = open(server, path).await;
        if let Err(OpenError::Other(_)) = &opened {
            self.failed(server);
        }
        opened
    }
}

/// The server's address and the `host:port` for its URLs.
struct Server {
    addr: SocketAddr,
    host: String,
}

async fn resolve(url: &str) -> Result<Server> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("ws://"))
        .ok_or_else(|| anyhow!("the server URL '{url}' does not start with http://"))?;
    let host = rest.split('/').next().unwrap_or_default().to_string();
    let addr = tokio::net::lookup_host(&host)
        .await
        .with_context(|| format!("resolving {host}"))?
        .next()
        .ok_or_else(|| anyhow!("{host}: no address"))?;
    Ok(Server { addr, host })
}

/// The body of `POST /api/login`: a program's account, created at the first login.
#[derive(Serialize)]
struct LoginRequest<'a> {
    name: &'a str,
    password: &'a str,
    program: bool,
    create: bool,
}

async fn login(servers: &Servers, args: &Args) -> Result<String> {
    let body = serde_json::to_string(&LoginRequest {
        name: &args.name,
        password: &args.password,
        program: true,
        create: true,
    })?;
    let mut retries = Retries::new("login", LOGIN_RETRY);
    loop {
        let server = servers.current();
        let why = match http(server.addr, "POST", "/api/login", Some(&body)).await {
            Ok((200, text)) => {
                let answer: LoginAnswer =
                    serde_json::from_str(&text).context("login answer without token")?;
                return Ok(answer.token);
            }
            Ok((status, text)) if (400..500).contains(&status) && status != 429 => {
                bail!("login refused ({status}): {text}")
            }
            Ok((status, text)) => format!("{status} {text}"),
            Err(e) => {
                servers.failed(server);
                format!("{e:#}")
            }
        };
        retries.failed(&why).await?;
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Why a WebSocket did not open.
#[derive(Debug)]
enum OpenError {
    /// The server refused the session token (HTTP 401): log in again.
    Unauthorized,
    /// Anything else (the network, the server down, a timeout): try again later.
    Other(anyhow::Error),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Unauthorized => f.write_str("the session is not known (HTTP 401)"),
            OpenError::Other(e) => write!(f, "{e:#}"),
        }
    }
}

async fn open(server: &Server, path: &str) -> Result<Socket, OpenError> {
    use tokio_tungstenite::tungstenite::Error as WsError;
    let url = format!("ws://{}{path}", server.host);
    let opened = tokio::time::timeout(
        Duration::from_secs(10),
        tokio_tungstenite::connect_async_with_config(&url, Some(super::small_reads()), false),
    )
    .await
    .map_err(|_| OpenError::Other(anyhow!("connecting to {url}: timed out")))?;
    match opened {
        Ok((socket, _)) => Ok(socket),
        Err(WsError::Http(response))
            if response.status()
                == tokio_tungstenite::tungstenite::http::StatusCode::UNAUTHORIZED =>
        {
            Err(OpenError::Unauthorized)
        }
        Err(e) => Err(OpenError::Other(anyhow!("connecting to {url}: {e}"))),
    }
}

/// The next message, `None` when the connection ends (or the server sends what is not
/// JSON). JSON this client does not know (a newer server's message) is skipped.
async fn next_message<T: DeserializeOwned>(socket: &mut Socket) -> Option<T> {
    loop {
        match socket.next().await? {
            Ok(Message::Text(t)) => {
                let value: Value = serde_json::from_str(t.as_str()).ok()?;
                match T::deserialize(&value) {
                    Ok(message) => return Some(message),
                    Err(e) => eprintln!("goref connect: a message skipped ({e}): {value}"),
                }
            }
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

async fn send<T: Serialize>(socket: &mut Socket, message: &T) -> bool {
    let Ok(text) = serde_json::to_string(message) else {
        return false;
    };
    socket.send(Message::Text(text.into())).await.is_ok()
}

async fn connect(args: &Args) -> Result<()> {
    let servers = Servers::resolve(&args.url).await?;
    let spec = EngineSpec::parse(&args.engine).map_err(|e| anyhow!("--engine: {e}"))?;
    let challenge: Option<Value> = match &args.challenge {
        Some(text) => Some(serde_json::from_str(text).context("--challenge is not JSON")?),
        None => None,
    };
    let limit = Duration::from_secs(args.command_timeout);
    let mut engine: Option<Engine> = None;
    let mut token = login(&servers, args).await?;
    for tournament in &args.join {
        let path = format!("/api/tournaments/{tournament}/join");
        let (status, body) = goref_server::client::http_as(
            servers.current().addr,
            "POST",
            &path,
            None,
            Some(&token),
        )
        .await?;
        if status != 200 {
            bail!("joining tournament {tournament}: {status} {body}");
        }
        eprintln!("goref connect: joined tournament {tournament}");
    }
    let mut played = 0usize;
    let mut finished: HashSet<String> = HashSet::new();
    let mut lobby_retries = Retries::new("lobby", RETRY);
    loop {
        if args.games.is_some_and(|n| played >= n) {
            if let Some(e) = engine.take() {
                e.shutdown(Duration::from_secs(2)).await;
            }
            return Ok(());
        }
        // The lobby: wait for a game.
        let mut lobby = match servers
            .open(&format!("/api/lobby/ws?token={token}&list=0"))
            .await
        {
            Ok(s) => s,
            Err(OpenError::Unauthorized) => {
                token = login(&servers, args).await?;
                continue;
            }
            Err(e) => {
                lobby_retries.failed(&e.to_string()).await?;
                continue;
            }
        };
        lobby_retries.succeeded();
        let mut announced = false;
        let game: Option<GameStart> = loop {
            let Some(msg) = next_message(&mut lobby).await else {
                break None;
            };
            match msg {
                LobbyServerMessage::Game(start) if !finished.contains(&start.id) => {
                    break Some(start);
                }
                // The first lobby comes after the games still on: now say what we want.
                LobbyServerMessage::Lobby { .. } if !announced => {
                    announced = true;
                    if !args.no_pairing
                        && !send(
                            &mut lobby,
                            &LobbyClientMessage::Wait {
                                on: true,
                                pools: args.pools.clone(),
                            },
                        )
                        .await
                    {
                        break None;
                    }
                    if let Some(game) = &challenge {
                        let m = LobbyClientMessage::Challenge {
                            game: game.clone(),
                            color: None,
                            rated: None,
                        };
                        if !send(&mut lobby, &m).await {
                            break None;
                        }
                    }
                }
                LobbyServerMessage::Error { message, .. } => {
                    eprintln!("goref connect: lobby: {message:?}");
                }
                _ => {}
            }
        };
        let _ = lobby.close(None).await;
        let Some(game) = game else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        let GameStart {
            id,
            color: mine,
            opponent,
            config,
        } = game;
        eprintln!(
            "goref connect: game {id}: {} against {opponent}",
            match mine {
                Side::B => "Black",
                Side::W => "White",
            },
        );
        if engine.as_ref().is_none_or(Engine::is_closed) {
            let mut e = Engine::start(&spec, &args.name, None).await?;
            e.check(limit).await?;
            engine = Some(e);
        }
        let mut table = Table {
            server: &servers,
            token: &token,
            id: id.clone(),
            config,
            mine,
            limit,
            engine: engine.take().expect("started"),
            engine_moves: None,
        };
        let outcome = table.play().await;
        engine = Some(table.engine);
        match outcome {
            Ok(result) => eprintln!("goref connect: game {id}: {result}"),
            Err(e) => eprintln!("goref connect: game {id}: {e:#}"),
        }
        finished.insert(id);
        played += 1;
        if engine.as_ref().is_some_and(Engine::is_closed) {
            engine = None;
        }
    }
}

/// A move as the server lists it: the colour (`B` or `W`) and the point, none for a pass.
type Turn = (char, Option<(usize, usize)>);

/// One game being played.
struct Table<'a> {
    server: &'a Servers,
    token: &'a str,
    id: String,
    config: GameConfig,
    mine: Side,
    limit: Duration,
    engine: Engine,
    /// The moves the engine has on its board (colour, point), `None` before its setup.
    engine_moves: Option<Vec<Turn>>,
}

/// What the player sends for one state of the game.
enum Reply {
    Nothing,
    Send(Command),
}

impl Table<'_> {
    fn geometry(&self) -> Geometry {
        Geometry::rect(self.config.width, self.config.height).expect("the server's board")
    }

    /// The colour as GTP names it: `b` or `w`.
    fn gtp_color(&self) -> char {
        match self.mine {
            Side::B => 'b',
            Side::W => 'w',
        }
    }

    /// Plays until the game is over; returns its result.
    async fn play(&mut self) -> Result<String> {
        let mut retries = Retries::new(format!("game {}", self.id), RETRY);
        loop {
            // Changes after moves, not the whole state each time.
            let path = format!("/api/games/{}/ws?token={}&changes=1", self.id, self.token);
            let mut socket = match self.server.open(&path).await {
                Ok(s) => s,
                Err(e) => {
                    retries
                        .failed(&e.to_string())
                        .await
                        .context("the server cannot be reached")?;
                    continue;
                }
            };
            retries.succeeded();
            // The version we acted at, so that one state is answered once.
            let mut acted: Option<u64> = None;
            // The state as the server sent it and its changes made it.
            let mut view: Option<StateView> = None;
            while let Some(msg) = next_message::<ServerMessage>(&mut socket).await {
                let msg = match msg {
                    ServerMessage::State(whole) => {
                        view = Some(*whole);
                        None
                    }
                    ServerMessage::Moved(change) => match view.as_mut() {
                        // Already in the state this connection was sent.
                        Some(v) if change.version <= v.version => continue,
                        Some(v) if v.version == change.from => {
                            v.apply(&change);
                            None
                        }
                        // A change of a state this connection has not: the whole, please.
                        _ => {
                            let sync = ClientMessage::new(Command::Sync, change.from);
                            if !send(&mut socket, &sync).await {
                                break;
                            }
                            continue;
                        }
                    },
                    other => Some(other),
                };
                match msg {
                    Some(ServerMessage::Hello { seat, .. }) if seat != Some(self.mine) => {
                        bail!("the server does not seat this account in game {}", self.id)
                    }
                    None => {
                        let view = view.as_ref().expect("a state was just taken");
                        if let Some(result) = &view.result {
                            return Ok(result.clone());
                        }
                        let version = view.version;
                        if acted == Some(version) {
                            continue;
                        }
                        match self.answer(view).await {
                            Ok(Reply::Nothing) => {}
                            Ok(Reply::Send(command)) => {
                                acted = Some(version);
                                if !send(&mut socket, &ClientMessage::new(command, version)).await {
                                    break;
                                }
                            }
                            Err(e) if e.is_fatal() => {
                                let m = ClientMessage::new(Command::Resign, version);
                                let _ = send(&mut socket, &m).await;
                                return Err(anyhow!("the engine failed, game resigned: {e}"));
                            }
                            Err(e) => {
                                // A refused command: pass rather than stop the game.
                                eprintln!("goref connect: game {}: {e}", self.id);
                                acted = Some(version);
                                let m = ClientMessage::new(Command::Pass, version);
                                if !send(&mut socket, &m).await {
                                    break;
                                }
                            }
                        }
                    }
                    Some(ServerMessage::Error {
                        code,
                        message,
                        version,
                        ..
                    }) => {
                        if code != "stale" {
                            eprintln!("goref connect: game {}: refused: {message:?}", self.id);
                        }
                        if matches!(code.as_str(), "illegal" | "off_board") {
                            // The engine's move was refused: the engine is resynchronised and
                            // passes instead.
                            self.engine_moves = None;
                            acted = Some(version);
                            let m = ClientMessage::new(Command::Pass, version);
                            if !send(&mut socket, &m).await {
                                break;
                            }
                        } else {
                            acted = None;
                        }
                    }
                    _ => {}
                }
            }
            retries
                .failed("connection lost")
                .await
                .context("the server cannot be reached")?;
        }
    }

    /// The moves the engine should have for this state: the game's, and the play-out copy's.
    fn target_moves(state: &StateView) -> Vec<Turn> {
        let turn = |m: &MoveView| -> Turn {
            let c = match m.color {
                Side::B => 'B',
                Side::W => 'W',
            };
            (c, m.point.map(|[x, y]| (x, y)))
        };
        let mut moves: Vec<Turn> = state.moves.iter().map(turn).collect();
        if let (Need::PlayOut { .. }, Some(copy)) = (&state.need, &state.copy) {
            moves.extend(copy.moves.iter().map(turn));
        }
        moves
    }

    fn gtp_move(&self, (c, p): Turn) -> String {
        let g = self.geometry();
        let mv = p
            .and_then(|(x, y)| g.at(x, y))
            .map_or(Move::Pass, Move::Play);
        format!("play {} {}", c.to_ascii_lowercase(), format_move(&g, mv))
    }

    /// Brings the engine's board to `target`: the missing moves, or from a new board.
    async fn sync(&mut self, target: &[Turn]) -> Result<(), GtpError> {
        let extends = self
            .engine_moves
            .as_ref()
            .is_some_and(|have| have.len() <= target.len() && target.starts_with(have));
        if !extends {
            let rules = self.config.ruleset().map_err(|message| GtpError::Failure {
                engine: self.engine.label().to_string(),
                command: "rules".into(),
                message: message.to_string(),
            })?;
            goref_match::game::setup_engine(
                &mut self.engine,
                (self.config.width, self.config.height),
                &rules,
                self.config.time,
                self.limit,
            )
            .await?;
            if self.config.handicap > 0 {
                self.engine
                    .command(
                        &format!("fixed_handicap {}", self.config.handicap),
                        self.limit,
                    )
                    .await?;
            }
            self.engine_moves = Some(Vec::new());
        }
        let have = self.engine_moves.as_ref().map_or(0, Vec::len);
        for &m in &target[have..] {
            let command = self.gtp_move(m);
            self.engine.command(&command, self.limit).await?;
            self.engine_moves.get_or_insert_with(Vec::new).push(m);
        }
        Ok(())
    }

    /// The stones the engine believes dead, as whole strings of the board in `state`.
    async fn dead_stones(
        &mut self,
        state: &StateView,
    ) -> Result<HashSet<(usize, usize)>, GtpError> {
        let reply = self
            .engine
            .command("final_status_list dead", self.limit)
            .await?;
        let g = self.geometry();
        let board = |x: usize, y: usize| -> i8 {
            state
                .board
                .get(y)
                .and_then(|row| row.get(x))
                .copied()
                .unwrap_or(0)
        };
        let mut dead = HashSet::new();
        for word in reply.split_whitespace() {
            let Some(Move::Play(p)) = parse_move(&g, word) else {
                continue;
            };
            let Some(start) = g.coords(p) else { continue };
            let color = board(start.0, start.1);
            if color == 0 || dead.contains(&start) {
                continue;
            }
            // The whole string through it.
            let mut stack = vec![start];
            dead.insert(start);
            while let Some((x, y)) = stack.pop() {
                let mut around = vec![(x + 1, y), (x, y + 1)];
                if x > 0 {
                    around.push((x - 1, y));
                }
                if y > 0 {
                    around.push((x, y - 1));
                }
                for (nx, ny) in around {
                    if nx < self.config.width
                        && ny < self.config.height
                        && board(nx, ny) == color
                        && dead.insert((nx, ny))
                    {
                        stack.push((nx, ny));
                    }
                }
            }
        }
        Ok(dead)
    }

    /// The engine's dead stones; none (every stone alive) when it cannot say
    /// (`final_status_list` unknown or failing), so that the end protocol still ends.
    async fn dead_or_none(
        &mut self,
        state: &StateView,
    ) -> Result<HashSet<(usize, usize)>, GtpError> {
        match self.dead_stones(state).await {
            Err(e) if !e.is_fatal() => {
                eprintln!(
                    "goref connect: game {}: {e}: every stone taken as alive",
                    self.id
                );
                Ok(HashSet::new())
            }
            other => other,
        }
    }

    /// What to send for this state, if anything.
    async fn answer(&mut self, state: &StateView) -> Result<Reply, GtpError> {
        let mine = self.mine;
        match &state.need {
            Need::Move { color, cleanup, .. } if *color == mine => {
                self.genmove(state, *cleanup).await
            }
            Need::PlayOut { color } if *color == mine => self.genmove(state, false).await,
            Need::DeadLists { missing } if *missing.of(mine) => {
                let target = Self::target_moves(state);
                self.sync(&target).await?;
                let dead = self.dead_or_none(state).await?;
                let points: Vec<[usize; 2]> = dead.into_iter().map(|(x, y)| [x, y]).collect();
                Ok(Reply::Send(Command::DeadList { points }))
            }
            Need::Marking { color } if *color == mine => {
                let target = Self::target_moves(state);
                self.sync(&target).await?;
                let dead = self.dead_or_none(state).await?;
                let g = self.geometry();
                let points = |set: &mut dyn Iterator<Item = (usize, usize)>| -> Dead {
                    set.filter_map(|(x, y)| g.at(x, y)).collect()
                };
                let marked = points(&mut state.marked.iter().map(|&[x, y]| (x, y)));
                let dead = points(&mut dead.into_iter());
                let xy = |p: Point| g.coords(p).expect("rect");
                Ok(Reply::Send(match choice(&marked, &dead) {
                    Choice::Dispute(p) => {
                        let (x, y) = xy(p);
                        Command::Dispute { x, y }
                    }
                    Choice::Mark(p) => {
                        let (x, y) = xy(p);
                        Command::Mark { x, y }
                    }
                    Choice::Done => Command::Done,
                }))
            }
            _ => Ok(Reply::Nothing),
        }
    }

    /// The engine's move on its turn (`kgs-genmove_cleanup` when dead stones must now be
    /// captured and the engine knows the command), after it is told the moves and its time.
    async fn genmove(&mut self, state: &StateView, cleanup: bool) -> Result<Reply, GtpError> {
        let target = Self::target_moves(state);
        self.sync(&target).await?;
        let gtp = self.gtp_color();
        if self.config.time != goref_clock::TimeControl::None
            && self.engine.info().supports("time_left")
        {
            let clock = state.clocks.of(self.mine);
            let command = format!("time_left {gtp} {} {}", clock.main_ms / 1000, clock.periods);
            let _ = self.engine.command(&command, self.limit).await;
        }
        let cleanup = cleanup && self.engine.info().supports("kgs-genmove_cleanup");
        let verb = if cleanup {
            "kgs-genmove_cleanup"
        } else {
            "genmove"
        };
        let reply = self
            .engine
            .command(&format!("{verb} {gtp}"), self.limit)
            .await?;
        let g = self.geometry();
        let c = gtp.to_ascii_uppercase();
        Ok(Reply::Send(match parse_genmove(&g, &reply) {
            Some(GenMove::Resign) => Command::Resign,
            Some(GenMove::Move(Move::Pass)) | None => {
                self.engine_moves
                    .get_or_insert_with(Vec::new)
                    .push((c, None));
                Command::Pass
            }
            Some(GenMove::Move(Move::Play(p))) => {
                let (x, y) = g.coords(p).expect("rect");
                self.engine_moves
                    .get_or_insert_with(Vec::new)
                    .push((c, Some((x, y))));
                Command::Play { x, y }
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refused session is told from the network failing by the HTTP status, not by words.
    #[tokio::test]
    async fn a_refused_token_is_unauthorized_and_a_closed_port_is_another_error() {
        let dir = std::env::temp_dir().join(format!("goref-connect-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = goref_server::SqliteStore::open(&dir.join("goref.db")).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let running = goref_server::start(
            listener,
            std::sync::Arc::new(store),
            goref_server::Options::default(),
        )
        .await
        .unwrap();
        let server = Server {
            addr: running.addr,
            host: running.addr.to_string(),
        };
        let refused = open(&server, "/api/lobby/ws?token=nobody").await;
        assert!(
            matches!(refused, Err(OpenError::Unauthorized)),
            "{:?}",
            refused.err()
        );
        // Another refusal (404: no such game) is not taken for a lost session.
        let missing = open(&server, "/api/games/nosuchgame/ws").await;
        assert!(matches!(missing, Err(OpenError::Other(_))));
        running.task.abort();
        let closed = Server {
            addr: running.addr,
            host: "127.0.0.1:1".into(),
        };
        assert!(matches!(
            open(&closed, "/api/lobby/ws?token=x").await,
            Err(OpenError::Other(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
