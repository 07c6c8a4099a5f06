//! `goref connect URL --engine CMD --name NAME --password P`: a GTP engine plays on a goref
//! server, over the same WebSocket API as the page (the README documents it).
//!
//! It logs in (the first login of a new name creates the account), waits in the lobby to be
//! paired (and keeps a challenge open, with `--challenge`), and plays every game the server
//! starts for it: the engine is told the board, komi, rules and clock, every move, asked
//! `genmove` on its turn and `final_status_list dead` when the end protocol needs the dead
//! stones. After a network break it connects again and goes on with its game (the server's
//! clock runs meanwhile). An engine that crashes resigns its game and is started again for
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
use goref_server::room::GameConfig;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

#[derive(ClapArgs)]
pub struct Args {
    /// The server: `http://host:port`.
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
/// How long a broken game connection is retried before the game is given up.
const GIVE_UP: Duration = Duration::from_secs(600);

pub fn run(args: &Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(connect(args))?;
    Ok(ExitCode::SUCCESS)
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

async fn login(server: &Server, args: &Args) -> Result<String> {
    let body = json!({"name": args.name, "password": args.password, "program": true,
                      "create": true})
    .to_string();
    loop {
        match http(server.addr, "POST", "/api/login", Some(&body)).await {
            Ok((200, text)) => {
                let v: Value = serde_json::from_str(&text)?;
                let token = v["token"].as_str().context("login answer without token")?;
                return Ok(token.to_string());
            }
            Ok((status, text)) if (400..500).contains(&status) && status != 429 => {
                bail!("login refused ({status}): {text}")
            }
            Ok((status, text)) => eprintln!("goref connect: login: {status} {text}; retrying"),
            Err(e) => eprintln!("goref connect: login: {e:#}; retrying"),
        }
        tokio::time::sleep(RETRY * 4).await;
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn open(server: &Server, path: &str) -> Result<Socket> {
    let url = format!("ws://{}{path}", server.host);
    let (socket, _) = tokio::time::timeout(
        Duration::from_secs(10),
        tokio_tungstenite::connect_async(&url),
    )
    .await
    .map_err(|_| anyhow!("connecting to {url}: timed out"))??;
    Ok(socket)
}

/// The next JSON text message, `None` when the connection ends.
async fn next_json(socket: &mut Socket) -> Option<Value> {
    loop {
        match socket.next().await? {
            Ok(Message::Text(t)) => return serde_json::from_str(t.as_str()).ok(),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

async fn send(socket: &mut Socket, v: &Value) -> bool {
    socket
        .send(Message::Text(v.to_string().into()))
        .await
        .is_ok()
}

async fn connect(args: &Args) -> Result<()> {
    let server = resolve(&args.url).await?;
    let spec = EngineSpec::parse(&args.engine).map_err(|e| anyhow!("--engine: {e}"))?;
    let challenge: Option<Value> = match &args.challenge {
        Some(text) => Some(serde_json::from_str(text).context("--challenge is not JSON")?),
        None => None,
    };
    let limit = Duration::from_secs(args.command_timeout);
    let mut engine: Option<Engine> = None;
    let mut token = login(&server, args).await?;
    for tournament in &args.join {
        let path = format!("/api/tournaments/{tournament}/join");
        let (status, body) =
            goref_server::client::http_as(server.addr, "POST", &path, None, Some(&token)).await?;
        if status != 200 {
            bail!("joining tournament {tournament}: {status} {body}");
        }
        eprintln!("goref connect: joined tournament {tournament}");
    }
    let mut played = 0usize;
    let mut finished: HashSet<String> = HashSet::new();
    loop {
        if args.games.is_some_and(|n| played >= n) {
            if let Some(e) = engine.take() {
                e.shutdown(Duration::from_secs(2)).await;
            }
            return Ok(());
        }
        // The lobby: wait for a game.
        let mut lobby = match open(&server, &format!("/api/lobby/ws?token={token}")).await {
            Ok(s) => s,
            Err(e) => {
                if format!("{e:#}").contains("401") {
                    token = login(&server, args).await?;
                } else {
                    eprintln!("goref connect: lobby: {e:#}; retrying");
                    tokio::time::sleep(RETRY).await;
                }
                continue;
            }
        };
        let mut announced = false;
        let game = loop {
            let Some(msg) = next_json(&mut lobby).await else {
                break None;
            };
            match msg["type"].as_str() {
                Some("game") => {
                    let id = msg["id"].as_str().unwrap_or_default().to_string();
                    if !finished.contains(&id) {
                        break Some(msg);
                    }
                }
                // The first lobby comes after the games still on: now say what we want.
                Some("lobby") if !announced => {
                    announced = true;
                    if !args.no_pairing
                        && !send(&mut lobby, &json!({"type": "wait", "on": true})).await
                    {
                        break None;
                    }
                    if let Some(game) = &challenge {
                        let m = json!({"type": "challenge", "game": game});
                        if !send(&mut lobby, &m).await {
                            break None;
                        }
                    }
                }
                Some("error") => eprintln!("goref connect: lobby: {}", msg["message"]),
                _ => {}
            }
        };
        let _ = lobby.close(None).await;
        let Some(game) = game else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        let id = game["id"].as_str().unwrap_or_default().to_string();
        let config: GameConfig =
            serde_json::from_value(game["config"].clone()).context("the server's game settings")?;
        let mine: goref_rules::Color = match game["color"].as_str() {
            Some("B") => goref_rules::Color::Black,
            _ => goref_rules::Color::White,
        };
        eprintln!(
            "goref connect: game {id}: {} against {}",
            if mine == goref_rules::Color::Black {
                "Black"
            } else {
                "White"
            },
            game["opponent"].as_str().unwrap_or("?")
        );
        if engine.as_ref().is_none_or(Engine::is_closed) {
            let mut e = Engine::start(&spec, &args.name, None).await?;
            e.check(limit).await?;
            engine = Some(e);
        }
        let mut table = Table {
            server: &server,
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
    server: &'a Server,
    token: &'a str,
    id: String,
    config: GameConfig,
    mine: goref_rules::Color,
    limit: Duration,
    engine: Engine,
    /// The moves the engine has on its board (colour, point), `None` before its setup.
    engine_moves: Option<Vec<Turn>>,
}

/// What the player sends for one state of the game.
enum Reply {
    Nothing,
    Send(Value),
}

impl Table<'_> {
    fn geometry(&self) -> Geometry {
        Geometry::rect(self.config.width, self.config.height).expect("the server's board")
    }

    fn side(&self) -> &'static str {
        match self.mine {
            goref_rules::Color::Black => "B",
            goref_rules::Color::White => "W",
        }
    }

    /// Plays until the game is over; returns its result.
    async fn play(&mut self) -> Result<String> {
        let mut broken_since: Option<std::time::Instant> = None;
        loop {
            let path = format!("/api/games/{}/ws?token={}", self.id, self.token);
            let mut socket = match open(self.server, &path).await {
                Ok(s) => s,
                Err(e) => {
                    let since = *broken_since.get_or_insert_with(std::time::Instant::now);
                    if since.elapsed() > GIVE_UP {
                        bail!("the server cannot be reached: {e:#}");
                    }
                    tokio::time::sleep(RETRY).await;
                    continue;
                }
            };
            // The version we acted at, so that one state is answered once.
            let mut acted: Option<u64> = None;
            while let Some(msg) = next_json(&mut socket).await {
                match msg["type"].as_str() {
                    Some("hello") if msg["seat"].as_str() != Some(self.side()) => {
                        bail!("the server does not seat this account in game {}", self.id)
                    }
                    Some("state") => {
                        if let Some(result) = msg["result"].as_str() {
                            return Ok(result.to_string());
                        }
                        let version = msg["version"].as_u64().unwrap_or(0);
                        if acted == Some(version) {
                            continue;
                        }
                        match self.answer(&msg).await {
                            Ok(Reply::Nothing) => {}
                            Ok(Reply::Send(mut m)) => {
                                m["version"] = json!(version);
                                acted = Some(version);
                                if !send(&mut socket, &m).await {
                                    break;
                                }
                            }
                            Err(e) if e.is_fatal() => {
                                let m = json!({"type": "resign", "version": version});
                                let _ = send(&mut socket, &m).await;
                                return Err(anyhow!("the engine failed, game resigned: {e}"));
                            }
                            Err(e) => {
                                // A refused command: pass rather than stop the game.
                                eprintln!("goref connect: game {}: {e}", self.id);
                                let m = json!({"type": "pass", "version": version});
                                acted = Some(version);
                                if !send(&mut socket, &m).await {
                                    break;
                                }
                            }
                        }
                    }
                    Some("error") => {
                        let code = msg["code"].as_str().unwrap_or_default();
                        if code != "stale" {
                            eprintln!(
                                "goref connect: game {}: refused: {}",
                                self.id, msg["message"]
                            );
                        }
                        if matches!(code, "illegal" | "off_board") {
                            // The engine's move was refused: the engine is resynchronised and
                            // passes instead.
                            self.engine_moves = None;
                            let version = msg["version"].as_u64().unwrap_or(0);
                            let m = json!({"type": "pass", "version": version});
                            acted = Some(version);
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
            eprintln!(
                "goref connect: game {}: connection lost; connecting again",
                self.id
            );
            broken_since = Some(std::time::Instant::now());
            tokio::time::sleep(RETRY).await;
        }
    }

    /// The moves the engine should have for this state: the game's, and the play-out copy's.
    fn target_moves(state: &Value) -> Vec<Turn> {
        let read = |list: &Value| -> Vec<Turn> {
            list.as_array()
                .map(|moves| {
                    moves
                        .iter()
                        .map(|m| {
                            let c = if m["color"] == "B" { 'B' } else { 'W' };
                            let p = m["point"].as_array().and_then(|xy| {
                                Some((
                                    xy.first()?.as_u64()? as usize,
                                    xy.get(1)?.as_u64()? as usize,
                                ))
                            });
                            (c, p)
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut moves = read(&state["moves"]);
        if state["need"]["type"] == "play_out" {
            moves.extend(read(&state["copy"]["moves"]));
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
                message,
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
    async fn dead_stones(&mut self, state: &Value) -> Result<HashSet<(usize, usize)>, GtpError> {
        let reply = self
            .engine
            .command("final_status_list dead", self.limit)
            .await?;
        let g = self.geometry();
        let board = |x: usize, y: usize| -> i64 { state["board"][y][x].as_i64().unwrap_or(0) };
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
    async fn dead_or_none(&mut self, state: &Value) -> Result<HashSet<(usize, usize)>, GtpError> {
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
    async fn answer(&mut self, state: &Value) -> Result<Reply, GtpError> {
        let need = &state["need"];
        let mine = self.side();
        let xy = |(x, y): (usize, usize)| json!({"x": x, "y": y});
        match need["type"].as_str() {
            Some("move" | "play_out") if need["color"] == mine => {
                let target = Self::target_moves(state);
                self.sync(&target).await?;
                if let Some(ms) = state["clocks"][mine]["main_ms"].as_u64() {
                    if self.config.time != goref_clock::TimeControl::None
                        && self.engine.info().supports("time_left")
                    {
                        let periods = state["clocks"][mine]["periods"].as_u64().unwrap_or(0);
                        let command = format!(
                            "time_left {} {} {periods}",
                            mine.to_ascii_lowercase(),
                            ms / 1000
                        );
                        let _ = self.engine.command(&command, self.limit).await;
                    }
                }
                let cleanup =
                    need["cleanup"] == true && self.engine.info().supports("kgs-genmove_cleanup");
                let verb = if cleanup {
                    "kgs-genmove_cleanup"
                } else {
                    "genmove"
                };
                let reply = self
                    .engine
                    .command(&format!("{verb} {}", mine.to_ascii_lowercase()), self.limit)
                    .await?;
                let g = self.geometry();
                let c = mine.chars().next().expect("B or W");
                Ok(Reply::Send(match parse_genmove(&g, &reply) {
                    Some(GenMove::Resign) => json!({"type": "resign"}),
                    Some(GenMove::Move(Move::Pass)) | None => {
                        self.engine_moves
                            .get_or_insert_with(Vec::new)
                            .push((c, None));
                        json!({"type": "pass"})
                    }
                    Some(GenMove::Move(Move::Play(p))) => {
                        let (x, y) = g.coords(p).expect("rect");
                        self.engine_moves
                            .get_or_insert_with(Vec::new)
                            .push((c, Some((x, y))));
                        let mut m = xy((x, y));
                        m["type"] = json!("play");
                        m
                    }
                }))
            }
            Some("dead_lists") if need["missing"][mine] == true => {
                let target = Self::target_moves(state);
                self.sync(&target).await?;
                let dead = self.dead_or_none(state).await?;
                let points: Vec<[usize; 2]> = dead.into_iter().map(|(x, y)| [x, y]).collect();
                Ok(Reply::Send(json!({"type": "dead_list", "points": points})))
            }
            Some("marking") if need["color"] == mine => {
                let target = Self::target_moves(state);
                self.sync(&target).await?;
                let dead = self.dead_or_none(state).await?;
                let g = self.geometry();
                let points = |set: &mut dyn Iterator<Item = (usize, usize)>| -> Dead {
                    set.filter_map(|(x, y)| g.at(x, y)).collect()
                };
                let marked = points(
                    &mut state["marked"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|p| Some((p[0].as_u64()? as usize, p[1].as_u64()? as usize))),
                );
                let dead = points(&mut dead.into_iter());
                let at = |p: Point, kind: &str| {
                    let mut m = xy(g.coords(p).expect("rect"));
                    m["type"] = json!(kind);
                    m
                };
                let reply = match choice(&marked, &dead) {
                    Choice::Dispute(p) => at(p, "dispute"),
                    Choice::Mark(p) => at(p, "mark"),
                    Choice::Done => json!({"type": "done"}),
                };
                Ok(Reply::Send(reply))
            }
            _ => Ok(Reply::Nothing),
        }
    }
}
