//! A small client of the server for tests, load tests and scripts: plain HTTP/1.1 over a TCP
//! connection, and WebSocket players that track the game's version.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::room::Side;
use crate::wire::{ClientMessage, Command, LobbyServerMessage, LoginAnswer, ServerMessage};

/// How long a client waits for any answer.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// One HTTP request (`Connection: close`); returns the status and the body.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> Result<(u16, String)> {
    http_as(addr, method, path, body, None).await
}

/// One HTTP request with a session token (`Authorization: Bearer`), when given.
pub async fn http_as(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    token: Option<&str>,
) -> Result<(u16, String)> {
    let mut stream = TcpStream::connect(addr).await?;
    let body = body.unwrap_or("");
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut raw)).await??;
    let text = String::from_utf8_lossy(&raw);
    let (head, rest) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| anyhow!("no HTTP header in answer"))?;
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| anyhow!("bad status line"))?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)?
    } else {
        rest.to_string()
    };
    Ok((status, body))
}

fn dechunk(mut rest: &str) -> Result<String> {
    let mut out = String::new();
    loop {
        let (size, after) = rest.split_once("\r\n").context("chunk size")?;
        let size = usize::from_str_radix(size.trim(), 16)?;
        if size == 0 {
            return Ok(out);
        }
        out.push_str(after.get(..size).context("chunk")?);
        rest = after.get(size + 2..).context("chunk end")?;
    }
}

/// Creates a game; returns the server's answer (`id`, `black.secret`, `white.secret`, ...).
pub async fn create_game(addr: SocketAddr, request: &Value) -> Result<Value> {
    let (status, body) = http(addr, "POST", "/api/games", Some(&request.to_string())).await?;
    if status != 201 {
        bail!("create game: HTTP {status}: {body}");
    }
    Ok(serde_json::from_str(&body)?)
}

/// A WebSocket connection to one game, as a seat or a spectator.
///
/// Messages are read as [`ServerMessage`]s; the raw JSON of each stays available
/// ([`Player::recv`], [`Player::state`]) for tests that check the wire itself.
pub struct Player {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The seat from the greeting as the server wrote it: `"B"`, `"W"` or null.
    pub seat: Value,
    /// The seat from the greeting (`None`: a spectator).
    pub side: Option<Side>,
    /// The latest version seen.
    pub version: u64,
    /// The latest state seen, as the server wrote it (unless [`Player::light`]).
    pub state: Value,
    /// The version of [`Player::state`].
    state_version: u64,
    /// Read only the type and version of states (for load tests: parsing whole states costs
    /// more than the server's work).
    pub light: bool,
    /// Changes ([`ServerMessage::Moved`]) applied to [`Player::state`] (opened with
    /// [`Player::connect_changes`]).
    pub changes_applied: usize,
}

/// The head of a message, read without the rest.
#[derive(Deserialize)]
struct Head {
    #[serde(rename = "type")]
    kind: String,
    version: Option<u64>,
}

/// One message from the server: as written, and as read (a state by its version only: it is
/// kept whole in [`Player::state`]).
struct Received {
    raw: Value,
    message: Incoming,
}

enum Incoming {
    State { version: u64 },
    Other(ServerMessage),
}

impl Player {
    /// Connects to game `id` with a seat secret (or none: spectator); reads the greeting and
    /// the state.
    pub async fn connect(addr: SocketAddr, id: &str, secret: Option<&str>) -> Result<Player> {
        let query = secret.map(|s| format!("secret={s}"));
        Player::open(addr, id, query).await
    }

    /// As [`Player::connect`], asking for what each move changed instead of the whole state
    /// (`?changes=1`); [`Player::state`] is kept whole by applying them.
    pub async fn connect_changes(
        addr: SocketAddr,
        id: &str,
        secret: Option<&str>,
    ) -> Result<Player> {
        let query = match secret {
            Some(s) => format!("secret={s}&changes=1"),
            None => "changes=1".to_string(),
        };
        Player::open(addr, id, Some(query)).await
    }

    /// Connects to game `id` as the account of session `token` (its seat, if it plays).
    pub async fn connect_as(addr: SocketAddr, id: &str, token: &str) -> Result<Player> {
        Player::open(addr, id, Some(format!("token={token}"))).await
    }

    async fn open(addr: SocketAddr, id: &str, query: Option<String>) -> Result<Player> {
        let url = match query {
            Some(q) => format!("ws://{addr}/api/games/{id}/ws?{q}"),
            None => format!("ws://{addr}/api/games/{id}/ws"),
        };
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .read_buffer_size(16 * 1024);
        let (ws, _) =
            tokio_tungstenite::connect_async_with_config(url, Some(config), false).await?;
        let mut player = Player {
            ws,
            seat: Value::Null,
            side: None,
            version: 0,
            state: Value::Null,
            state_version: 0,
            light: false,
            changes_applied: 0,
        };
        let hello = player.receive().await?;
        let Incoming::Other(ServerMessage::Hello { seat, .. }) = hello.message else {
            bail!("expected hello, got {}", hello.raw);
        };
        player.side = seat;
        player.seat = serde_json::to_value(seat)?;
        let state = player.receive().await?;
        if !matches!(state.message, Incoming::State { .. }) {
            bail!("expected state, got {}", state.raw);
        }
        Ok(player)
    }

    /// Sends raw text.
    pub async fn send_text(&mut self, text: &str) -> Result<()> {
        self.ws.send(Message::text(text)).await?;
        Ok(())
    }

    /// Sends a binary frame.
    pub async fn send_binary(&mut self, bytes: Vec<u8>) -> Result<()> {
        self.ws.send(Message::binary(bytes)).await?;
        Ok(())
    }

    /// The next message. A state updates `version` and `state`.
    async fn receive(&mut self) -> Result<Received> {
        loop {
            let msg = tokio::time::timeout(TIMEOUT, self.ws.next())
                .await
                .context("timed out waiting for the server")?
                .ok_or_else(|| anyhow!("connection closed"))??;
            let text = match msg {
                Message::Text(t) => t,
                Message::Close(frame) => bail!("connection closed: {frame:?}"),
                _ => continue,
            };
            if self.light {
                let head: Head = serde_json::from_str(text.as_str())?;
                if head.kind == "state" || head.kind == "moved" {
                    let v = head.version.unwrap_or_default();
                    self.version = self.version.max(v);
                    self.state_version = self.version;
                    self.state = json!({"version": self.version});
                    return Ok(Received {
                        raw: json!({"type": "state", "version": v}),
                        message: Incoming::State { version: v },
                    });
                }
            }
            let raw: Value = serde_json::from_str(text.as_str())?;
            let message = ServerMessage::deserialize(&raw)
                .with_context(|| format!("not a message of the game: {raw}"))?;
            let message = match message {
                ServerMessage::Moved(change) => {
                    if change.version <= self.state_version {
                        continue;
                    }
                    if self.state_version != change.from || self.state.is_null() {
                        // A change of a state this player has not: the whole, please.
                        self.send_text(&json!({"type": "sync"}).to_string()).await?;
                        continue;
                    }
                    let mut view = self.view()?;
                    view.apply(&change);
                    self.state = serde_json::to_value(ServerMessage::State(Box::new(view)))?;
                    self.state_version = change.version;
                    self.version = self.version.max(change.version);
                    self.changes_applied += 1;
                    Incoming::State {
                        version: change.version,
                    }
                }
                ServerMessage::State(view) => {
                    let version = view.version;
                    self.version = self.version.max(version);
                    if version >= self.state_version || self.state.is_null() {
                        self.state_version = version;
                        self.state = raw.clone();
                    }
                    Incoming::State { version }
                }
                other => {
                    if let ServerMessage::Ack { version, .. } = &other {
                        self.version = self.version.max(*version);
                    }
                    Incoming::Other(other)
                }
            };
            return Ok(Received { raw, message });
        }
    }

    /// The next message as the server wrote it. A state updates `version` and `state` and
    /// comes back as `{"type": "state", "version": N}` only.
    pub async fn recv(&mut self) -> Result<Value> {
        let received = self.receive().await?;
        Ok(match received.message {
            // Kept whole in `state`; the caller gets only the version (states are large).
            Incoming::State { version } => json!({"type": "state", "version": version}),
            Incoming::Other(_) => received.raw,
        })
    }

    /// Sends `msg` as JSON (with `version` set to the latest seen unless given; the message
    /// may be anything, to test the server's refusals) and returns the answer to it: `ack`
    /// or `error`.
    pub async fn act(&mut self, mut msg: Value) -> Result<Value> {
        if let Some(fields) = msg.as_object_mut() {
            fields
                .entry("version")
                .or_insert_with(|| Value::from(self.version));
        }
        self.send_text(&msg.to_string()).await?;
        self.answer().await
    }

    /// Sends `command` answering the latest version seen; the answer: `ack` or `error`.
    pub async fn command(&mut self, command: Command) -> Result<ServerMessage> {
        let msg = ClientMessage::new(command, self.version);
        self.send_text(&serde_json::to_string(&msg)?).await?;
        loop {
            let received = self.receive().await?;
            if let Incoming::Other(
                answer @ (ServerMessage::Ack { .. } | ServerMessage::Error { .. }),
            ) = received.message
            {
                return Ok(answer);
            }
        }
    }

    /// Waits for the next `ack` or `error`.
    pub async fn answer(&mut self) -> Result<Value> {
        loop {
            let received = self.receive().await?;
            if matches!(
                received.message,
                Incoming::Other(ServerMessage::Ack { .. } | ServerMessage::Error { .. })
            ) {
                return Ok(received.raw);
            }
        }
    }

    /// Like [`Player::act`], but fails unless the answer is an `ack`; the new version.
    pub async fn must(&mut self, msg: Value) -> Result<u64> {
        let answer = self.act(msg.clone()).await?;
        match ServerMessage::deserialize(&answer)? {
            ServerMessage::Ack { version, .. } => Ok(version),
            _ => bail!("{msg} refused: {answer}"),
        }
    }

    /// Waits until a state of at least `version` has arrived; returns it.
    pub async fn wait_version(&mut self, version: u64) -> Result<Value> {
        while self.state.is_null() || self.state_version < version {
            self.receive().await?;
        }
        Ok(self.state.clone())
    }

    /// The latest state seen, read (not in [`Player::light`] mode).
    ///
    /// # Errors
    ///
    /// No state seen yet, or light mode.
    pub fn view(&self) -> Result<crate::wire::StateView> {
        match ServerMessage::deserialize(&self.state)? {
            ServerMessage::State(view) => Ok(*view),
            other => bail!("not a state: {other:?}"),
        }
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// Logs in (creating the account when `create` and nobody has the name); the session token.
pub async fn login(
    addr: SocketAddr,
    name: &str,
    password: &str,
    program: bool,
    create: bool,
) -> Result<String> {
    let body = LoginRequest {
        name: name.to_string(),
        password: password.to_string(),
        program,
        create,
    };
    let (status, text) = http(
        addr,
        "POST",
        "/api/login",
        Some(&serde_json::to_string(&body)?),
    )
    .await?;
    if status != 200 {
        bail!("login of {name}: {status} {text}");
    }
    let answer: LoginAnswer =
        serde_json::from_str(&text).with_context(|| format!("no token in {text}"))?;
    Ok(answer.token)
}

/// The body of `POST /api/login`.
#[derive(serde::Serialize)]
struct LoginRequest {
    name: String,
    password: String,
    program: bool,
    create: bool,
}

/// A connection to the lobby. Messages are read as [`LobbyServerMessage`]s and handed out as
/// the server wrote them, for tests that check the wire — but for the lists' changes: a
/// `lobby_delta` is applied to the lobby last received and handed out as the whole `lobby` it
/// makes (players by name, challenges by id, as the server orders them).
pub struct LobbyClient {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The account, from the greeting, as the server wrote it.
    pub account: Value,
    /// The lobby's players and challenges as last received, by key.
    online: std::collections::BTreeMap<String, Value>,
    challenges: std::collections::BTreeMap<String, Value>,
}

impl LobbyClient {
    /// Connects with a session token; reads the greeting.
    pub async fn connect(addr: SocketAddr, token: &str) -> Result<LobbyClient> {
        let url = format!("ws://{addr}/api/lobby/ws?token={token}");
        let (ws, _) = tokio_tungstenite::connect_async(url).await?;
        let mut lobby = LobbyClient {
            ws,
            account: Value::Null,
            online: std::collections::BTreeMap::new(),
            challenges: std::collections::BTreeMap::new(),
        };
        let (raw, hello) = lobby.receive().await?;
        let LobbyServerMessage::Hello { account } = hello else {
            bail!("expected hello, got {raw}");
        };
        lobby.account = serde_json::to_value(account)?;
        Ok(lobby)
    }

    /// Sends a message.
    pub async fn send(&mut self, msg: &Value) -> Result<()> {
        self.ws.send(Message::text(msg.to_string())).await?;
        Ok(())
    }

    /// The next message: as written, and as read.
    async fn receive(&mut self) -> Result<(Value, LobbyServerMessage)> {
        loop {
            let msg = tokio::time::timeout(TIMEOUT, self.ws.next())
                .await
                .context("timed out waiting for the lobby")?
                .ok_or_else(|| anyhow!("connection closed"))??;
            match msg {
                Message::Text(t) => {
                    let raw: Value = serde_json::from_str(t.as_str())?;
                    let message = LobbyServerMessage::deserialize(&raw)
                        .with_context(|| format!("not a message of the lobby: {raw}"))?;
                    return Ok(self.lists(raw, message));
                }
                Message::Close(frame) => bail!("connection closed: {frame:?}"),
                _ => {}
            }
        }
    }

    /// Keeps the lists of a `lobby`; applies a `lobby_delta`, handing out the `lobby` it
    /// makes.
    fn lists(&mut self, raw: Value, message: LobbyServerMessage) -> (Value, LobbyServerMessage) {
        let name = |p: &Value| p["name"].as_str().unwrap_or("").to_ascii_lowercase();
        let id = |c: &Value| c["id"].as_str().unwrap_or("").to_string();
        let items = |v: &Value| v.as_array().cloned().unwrap_or_default();
        match raw["type"].as_str() {
            Some("lobby") => {
                self.online = items(&raw["online"])
                    .into_iter()
                    .map(|p| (name(&p), p))
                    .collect();
                self.challenges = items(&raw["challenges"])
                    .into_iter()
                    .map(|c| (id(&c), c))
                    .collect();
                (raw, message)
            }
            Some("lobby_delta") => {
                for p in items(&raw["online"]) {
                    self.online.insert(name(&p), p);
                }
                for gone in items(&raw["gone"]) {
                    self.online
                        .remove(&name(&serde_json::json!({ "name": gone })));
                }
                for c in items(&raw["challenges"]) {
                    self.challenges.insert(id(&c), c);
                }
                for w in items(&raw["withdrawn"]) {
                    self.challenges.remove(w.as_str().unwrap_or(""));
                }
                let whole = serde_json::json!({
                    "type": "lobby",
                    "online": self.online.values().collect::<Vec<_>>(),
                    "challenges": self.challenges.values().collect::<Vec<_>>(),
                });
                let message = LobbyServerMessage::deserialize(&whole).unwrap_or(message);
                (whole, message)
            }
            _ => (raw, message),
        }
    }

    /// The next message, as the server wrote it.
    pub async fn recv(&mut self) -> Result<Value> {
        Ok(self.receive().await?.0)
    }

    /// Waits for the next message of type `kind` (`game`, `lobby`, `game_over`, ...),
    /// skipping others.
    pub async fn next_of(&mut self, kind: &str) -> Result<Value> {
        loop {
            let (raw, message) = self.receive().await?;
            if message.kind() == kind {
                return Ok(raw);
            }
        }
    }

    /// Sends `msg` and waits for its `ack` (or `error`), skipping lobby updates.
    pub async fn request(&mut self, msg: &Value) -> Result<Value> {
        self.send(msg).await?;
        loop {
            let (raw, message) = self.receive().await?;
            if matches!(
                message,
                LobbyServerMessage::Ack(_) | LobbyServerMessage::Error { .. }
            ) {
                return Ok(raw);
            }
        }
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}
