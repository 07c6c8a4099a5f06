//! A small client of the server for tests, load tests and scripts: plain HTTP/1.1 over a TCP
//! connection, and WebSocket players that track the game's version.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

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
pub struct Player {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// `B`, `W` or null.
    pub seat: Value,
    /// The latest version seen.
    pub version: u64,
    /// The latest state seen (unless [`Player::light`]).
    pub state: Value,
    /// Read only the type and version of states (for load tests: parsing whole states costs
    /// more than the server's work).
    pub light: bool,
}

/// The head of a message, read without the rest.
#[derive(serde::Deserialize)]
struct Head {
    #[serde(rename = "type")]
    kind: String,
    version: Option<u64>,
}

impl Player {
    /// Connects to game `id` with a seat secret (or none: spectator); reads the greeting and
    /// the state.
    pub async fn connect(addr: SocketAddr, id: &str, secret: Option<&str>) -> Result<Player> {
        let query = secret.map(|s| format!("secret={s}"));
        Player::open(addr, id, query).await
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
            version: 0,
            state: Value::Null,
            light: false,
        };
        let hello = player.recv().await?;
        if hello["type"] != "hello" {
            bail!("expected hello, got {hello}");
        }
        player.seat = hello["seat"].clone();
        let state = player.recv().await?;
        if state["type"] != "state" {
            bail!("expected state, got {state}");
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

    /// The next JSON message. A state updates `version` and `state` and comes back as
    /// `{"type": "state", "version": N}` only.
    pub async fn recv(&mut self) -> Result<Value> {
        loop {
            let msg = tokio::time::timeout(TIMEOUT, self.ws.next())
                .await
                .context("timed out waiting for the server")?
                .ok_or_else(|| anyhow!("connection closed"))??;
            let text = match msg {
                Message::Text(t) => t.to_string(),
                Message::Close(frame) => bail!("connection closed: {frame:?}"),
                _ => continue,
            };
            if self.light {
                let head: Head = serde_json::from_str(&text)?;
                if head.kind == "state" {
                    let v = head.version.unwrap_or_default();
                    self.version = self.version.max(v);
                    self.state = json!({"version": self.version});
                    return Ok(json!({"type": "state", "version": v}));
                }
            }
            let value: Value = serde_json::from_str(&text)?;
            if let Some(v) = value["version"].as_u64() {
                if value["type"] == "state" || value["type"] == "ack" {
                    self.version = self.version.max(v);
                }
            }
            if value["type"] == "state" {
                // Kept whole in `state`; the caller gets only the version (states are large).
                let version = value["version"].clone();
                if value["version"].as_u64() >= self.state["version"].as_u64() {
                    self.state = value;
                }
                return Ok(json!({"type": "state", "version": version}));
            }
            return Ok(value);
        }
    }

    /// Sends `msg` (with `version` set to the latest seen unless given) and returns the
    /// answer to it: `ack` or `error`.
    pub async fn act(&mut self, mut msg: Value) -> Result<Value> {
        if msg.get("version").is_none() {
            msg["version"] = json!(self.version);
        }
        self.send_text(&msg.to_string()).await?;
        self.answer().await
    }

    /// Waits for the next `ack` or `error`.
    pub async fn answer(&mut self) -> Result<Value> {
        loop {
            let v = self.recv().await?;
            if v["type"] == "ack" || v["type"] == "error" {
                return Ok(v);
            }
        }
    }

    /// Like [`Player::act`], but fails unless the answer is an `ack`.
    pub async fn must(&mut self, msg: Value) -> Result<u64> {
        let answer = self.act(msg.clone()).await?;
        if answer["type"] != "ack" {
            bail!("{msg} refused: {answer}");
        }
        Ok(answer["version"].as_u64().unwrap_or_default())
    }

    /// Waits until a state of at least `version` has arrived; returns it.
    pub async fn wait_version(&mut self, version: u64) -> Result<Value> {
        while self.state["version"].as_u64().unwrap_or(0) < version {
            self.recv().await?;
        }
        Ok(self.state.clone())
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
    let body = json!({"name": name, "password": password, "program": program, "create": create});
    let (status, text) = http(addr, "POST", "/api/login", Some(&body.to_string())).await?;
    if status != 200 {
        bail!("login of {name}: {status} {text}");
    }
    let v: Value = serde_json::from_str(&text)?;
    v["token"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| anyhow!("no token in {text}"))
}

/// A connection to the lobby.
pub struct Lobby {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The account, from the greeting.
    pub account: Value,
}

impl Lobby {
    /// Connects with a session token; reads the greeting.
    pub async fn connect(addr: SocketAddr, token: &str) -> Result<Lobby> {
        let url = format!("ws://{addr}/api/lobby/ws?token={token}");
        let (ws, _) = tokio_tungstenite::connect_async(url).await?;
        let mut lobby = Lobby {
            ws,
            account: Value::Null,
        };
        let hello = lobby.recv().await?;
        if hello["type"] != "hello" {
            bail!("expected hello, got {hello}");
        }
        lobby.account = hello["account"].clone();
        Ok(lobby)
    }

    /// Sends a message.
    pub async fn send(&mut self, msg: &Value) -> Result<()> {
        self.ws.send(Message::text(msg.to_string())).await?;
        Ok(())
    }

    /// The next message.
    pub async fn recv(&mut self) -> Result<Value> {
        loop {
            let msg = tokio::time::timeout(TIMEOUT, self.ws.next())
                .await
                .context("timed out waiting for the lobby")?
                .ok_or_else(|| anyhow!("connection closed"))??;
            match msg {
                Message::Text(t) => return Ok(serde_json::from_str(t.as_str())?),
                Message::Close(frame) => bail!("connection closed: {frame:?}"),
                _ => {}
            }
        }
    }

    /// Waits for the next message of type `kind`, skipping others.
    pub async fn next_of(&mut self, kind: &str) -> Result<Value> {
        loop {
            let v = self.recv().await?;
            if v["type"] == kind {
                return Ok(v);
            }
        }
    }

    /// Sends `msg` and waits for its `ack` (or `error`), skipping lobby updates.
    pub async fn request(&mut self, msg: &Value) -> Result<Value> {
        self.send(msg).await?;
        loop {
            let v = self.recv().await?;
            if v["type"] == "ack" || v["type"] == "error" {
                return Ok(v);
            }
        }
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}
