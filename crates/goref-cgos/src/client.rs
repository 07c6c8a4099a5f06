//! A CGOS engine client: logs in to a CGOS server and plays its games with a GTP engine.
//!
//! The server drives: the client names itself (`e1 …`), sends its name and password, sets the
//! engine up on `setup` (`boardsize`, `clear_board`, `komi`, `time_settings` when the engine
//! knows `time_settings` and `time_left`, then the moves so far, which a server sends after a
//! reconnection), relays the opponent's moves (`play`), answers `genmove` with the engine's
//! move (after `time_left`), with the engine's analysis after it when the server offers
//! `genmove_analyze` and the engine lists `cgos-genmove_analyze` (lines of analysis, then
//! `play <move>`), and answers `gameover` with `ready`, or with `quit` when its
//! games are played or it was told to stop. [`play_session`] runs one connection over any
//! byte streams; [`run`] connects over TCP and reconnects when the connection drops.

use std::time::Duration;

use goref_gtp::{color_arg, parse_genmove, Engine, EngineSpec, GenMove, GtpError};
use goref_rules::{Color, Geometry};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::watch;

use crate::protocol::{
    Answer, CgosError, CgosMove, CgosResult, ClientKind, ClientMessage, LineReader, ReadError,
    ServerMessage, Setup,
};

/// How the client plays.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// The account name.
    pub name: String,
    /// Its password.
    pub password: String,
    /// How the client names itself after `e1`.
    pub client_id: String,
    /// Stop (answer `gameover` with `quit`) after this many games; `None`: play on.
    pub games: Option<usize>,
    /// The longest wait for an engine's reply to a command other than `genmove`.
    pub command_timeout: Duration,
    /// How much longer than its time left an engine may think before the client gives up on
    /// it (the server ends the game on time first, unless it forgives lateness).
    pub genmove_slack: Duration,
    /// After a dropped connection, how long [`run`] waits before connecting again.
    pub retry_delay: Duration,
    /// How many times in a row [`run`] connects again after a dropped connection.
    pub max_reconnects: usize,
}

impl ClientConfig {
    /// The defaults for `name` and `password`: play on, 30 s per command, 30 s slack, retry
    /// every 5 s up to 20 times.
    #[must_use]
    pub fn new(name: &str, password: &str) -> ClientConfig {
        ClientConfig {
            name: name.to_string(),
            password: password.to_string(),
            client_id: format!("goref-cgos {}", env!("CARGO_PKG_VERSION")),
            games: None,
            command_timeout: Duration::from_secs(30),
            genmove_slack: Duration::from_secs(30),
            retry_delay: Duration::from_secs(5),
            max_reconnects: 20,
        }
    }
}

/// A game the client finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The server's game number.
    pub game_id: u64,
    /// The engine's colour.
    pub color: Color,
    /// The opponent's name.
    pub opponent: String,
    /// The result.
    pub result: CgosResult,
    /// The server's explanation (an illegal move's reason).
    pub text: String,
}

impl GameRecord {
    /// Whether the engine won.
    #[must_use]
    pub fn won(&self) -> bool {
        matches!(self.result, CgosResult::Win { winner, .. } if winner == self.color)
    }
}

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    /// The client sent `quit`: its games are played, or it was told to stop.
    Quit,
    /// The connection closed or failed; a game in progress goes on on the server.
    Disconnected,
    /// The server closed the connection after announcing another login with this name
    /// (CGOS's `info another login is being attempted using this user name`): another client
    /// plays for this account now, so [`run`] does not connect again.
    Replaced,
}

/// How CGOS's server begins the `info` it sends to a client that another login replaces
/// (`cleanup_old_connection` in zakki/cgos's `cgos.py`).
pub const REPLACED_INFO: &str = "another login";

/// What can end the client.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server could not be reached.
    #[error("cannot connect to {address}: {source}")]
    Connect {
        /// HOST:PORT.
        address: String,
        /// Why.
        source: std::io::Error,
    },
    /// The server refused the client (`Error: …`).
    #[error("the server refused: {0}")]
    Refused(String),
    /// The server sent a line that is not a CGOS message.
    #[error("the server sent '{line}': {error}")]
    Protocol {
        /// The line (cut to 200 characters).
        line: String,
        /// What is wrong with it.
        error: CgosError,
    },
    /// The server sent a message the client cannot act on now.
    #[error("the server sent '{0}' out of turn")]
    OutOfTurn(String),
    /// The engine failed (it could not start, or refused or did not answer a command).
    #[error("engine: {0}")]
    Engine(#[from] GtpError),
    /// Another login with the same name replaced this client ([`SessionEnd::Replaced`]).
    #[error("another login with this name replaced this client")]
    Replaced,
    /// The connection could not be written to or read (reported by [`run`] after its
    /// reconnections are used up).
    #[error("connection to the server lost: {0}")]
    Lost(String),
}

/// The game in progress.
struct Current {
    setup: Setup,
    color: Color,
    geometry: Geometry,
}

/// What [`play_session`] keeps across connections: the games finished.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Games finished, in order.
    pub games: Vec<GameRecord>,
}

/// Whether the session goes on after a message.
enum Step {
    Go,
    End(SessionEnd),
}

fn sent(ok: bool) -> Step {
    if ok {
        Step::Go
    } else {
        Step::End(SessionEnd::Disconnected)
    }
}

/// What waiting for a line gave.
enum Incoming {
    Message(ServerMessage),
    Closed,
}

struct Session<'a, R, W> {
    lines: LineReader<BufReader<R>>,
    writer: W,
    engine: &'a mut Engine,
    config: &'a ClientConfig,
    current: Option<Current>,
    /// Both sides announced `genmove_analyze`: moves come from `cgos-genmove_analyze`.
    analyze: bool,
    /// The server announced that another login replaces this one.
    replaced: bool,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Session<'_, R, W> {
    async fn send(&mut self, message: &ClientMessage) -> bool {
        tracing::debug!("C->S {message}");
        let line = format!("{message}\n");
        self.writer.write_all(line.as_bytes()).await.is_ok() && self.writer.flush().await.is_ok()
    }

    async fn receive(&mut self) -> Result<Incoming, ClientError> {
        receive(&mut self.lines).await
    }

    fn note_info(&mut self, text: &str) {
        tracing::info!("server: {text}");
        if text.starts_with(REPLACED_INFO) {
            self.replaced = true;
        }
    }

    /// How the session ends when the server closes the connection.
    fn closed(&self) -> SessionEnd {
        if self.replaced {
            SessionEnd::Replaced
        } else {
            SessionEnd::Disconnected
        }
    }

    fn engine_supports_time(&self) -> bool {
        let info = self.engine.info();
        info.supports("time_left") && info.supports("time_settings")
    }

    async fn command(&mut self, command: &str) -> Result<String, ClientError> {
        let limit = self.config.command_timeout;
        Ok(self.engine.command(command, limit).await?)
    }

    async fn setup(&mut self, setup: Setup) -> Result<(), ClientError> {
        let color = setup.color_of(&self.config.name).ok_or_else(|| {
            ClientError::OutOfTurn(ServerMessage::Setup(setup.clone()).to_string())
        })?;
        let size = usize::from(setup.size);
        let geometry = Geometry::rect(size, size)
            .map_err(|_| ClientError::OutOfTurn(format!("setup of a {size}x{size} board")))?;
        let (opponent, rating) = match color {
            Color::Black => (&setup.white, setup.white.rating),
            Color::White => (&setup.black, setup.black.rating),
        };
        tracing::info!(
            "game {}: {} against {}{}, {} moves so far",
            setup.game_id,
            if color == Color::Black {
                "black"
            } else {
                "white"
            },
            opponent.name,
            rating.map(|r| format!("({r})")).unwrap_or_default(),
            setup.moves.len()
        );
        self.command(&format!("boardsize {size}")).await?;
        self.command("clear_board").await?;
        self.command(&format!("komi {}", setup.komi)).await?;
        if self.engine_supports_time() {
            let seconds = setup.main_time_ms / 1000;
            self.command(&format!("time_settings {seconds} 0 0"))
                .await?;
        }
        if self.engine.info().supports("cgos-opponent_name") {
            let name = opponent.name.clone();
            self.command(&format!("cgos-opponent_name {name}")).await?;
        }
        for (n, timed) in setup.moves.iter().enumerate() {
            let c = color_arg(Setup::color_of_move(n));
            self.command(&format!("play {c} {}", timed.mv)).await?;
        }
        self.current = Some(Current {
            setup,
            color,
            geometry,
        });
        Ok(())
    }

    /// Asks the engine for its move while listening to the server; `Ok(Err(message))` when the
    /// server spoke first with a message that ends the wait (`gameover`).
    async fn genmove(
        &mut self,
        color: Color,
        ms_left: i64,
    ) -> Result<Result<(Answer, Option<String>), Option<ServerMessage>>, ClientError> {
        let Some(current) = &self.current else {
            return Err(ClientError::OutOfTurn(format!(
                "genmove {}",
                color_arg(color)
            )));
        };
        if current.color != color {
            return Err(ClientError::OutOfTurn(format!(
                "genmove {}",
                color_arg(color)
            )));
        }
        let geometry = current.geometry.clone();
        if self.engine_supports_time() {
            let seconds = ms_left.max(0) / 1000;
            self.command(&format!("time_left {} {seconds} 0", color_arg(color)))
                .await?;
        }
        let limit =
            Duration::from_millis(ms_left.max(0).unsigned_abs()) + self.config.genmove_slack;
        let command = if self.analyze {
            format!("cgos-genmove_analyze {}", color_arg(color))
        } else {
            format!("genmove {}", color_arg(color))
        };
        let thinking = self.engine.command(&command, limit);
        tokio::pin!(thinking);
        loop {
            tokio::select! {
                reply = &mut thinking => {
                    let reply = reply?;
                    let (text, analysis) = if self.analyze {
                        split_analysis(&reply)
                    } else {
                        (reply.as_str(), None)
                    };
                    let answer = match parse_genmove(&geometry, text) {
                        Some(GenMove::Resign) => Answer::Resign,
                        Some(GenMove::Move(mv)) => match CgosMove::from_move(&geometry, mv) {
                            Some(m) => Answer::Move(m),
                            None => Answer::Resign,
                        },
                        None => {
                            tracing::warn!("the engine's move '{text}' is no vertex: resigning");
                            Answer::Resign
                        }
                    };
                    return Ok(Ok((answer, analysis)));
                }
                incoming = receive(&mut self.lines) => match incoming? {
                    Incoming::Closed => return Ok(Err(None)),
                    Incoming::Message(ServerMessage::Info(text)) => {
                        tracing::info!("server: {text}");
                        if text.starts_with(REPLACED_INFO) {
                            self.replaced = true;
                        }
                    }
                    Incoming::Message(message @ ServerMessage::Gameover(_)) => {
                        return Ok(Err(Some(message)));
                    }
                    Incoming::Message(other) => {
                        return Err(ClientError::OutOfTurn(other.to_string()));
                    }
                },
            }
        }
    }

    /// Records the game's end; `true` when the client goes on playing.
    async fn gameover(
        &mut self,
        gameover: crate::protocol::Gameover,
        progress: &mut Progress,
        stop: &watch::Receiver<bool>,
    ) -> Result<bool, ClientError> {
        let Some(current) = self.current.take() else {
            // A game that ended while the client was away: nothing to record.
            return Ok(!*stop.borrow());
        };
        let opponent = match current.color {
            Color::Black => current.setup.white.name.clone(),
            Color::White => current.setup.black.name.clone(),
        };
        let record = GameRecord {
            game_id: current.setup.game_id,
            color: current.color,
            opponent,
            result: gameover.result,
            text: gameover.text,
        };
        tracing::info!(
            "game {} over: {} {} ({})",
            record.game_id,
            record.result,
            record.text,
            if record.won() { "won" } else { "not won" }
        );
        if self.engine.info().supports("cgos-gameover") && !self.engine.is_awaiting_reply() {
            let _ = self
                .command(&format!("cgos-gameover {}", record.result))
                .await;
        }
        progress.games.push(record);
        let done = self.config.games.is_some_and(|n| progress.games.len() >= n);
        Ok(!done && !*stop.borrow())
    }
}

/// The longest analysis sent after a move, in bytes (a longer one is not sent).
pub const MAX_ANALYSIS: usize = 16 * 1024;

/// Splits an engine's reply to `cgos-genmove_analyze` (lines of analysis, then `play <move>`)
/// into the move and the last analysis line before it, as CGOS's clients read it.
fn split_analysis(reply: &str) -> (&str, Option<String>) {
    let mut analysis = None;
    for line in reply.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("play ") {
            let mv = rest.split_whitespace().last().unwrap_or("");
            let analysis = analysis
                .filter(|a: &&str| !a.is_empty() && a.len() <= MAX_ANALYSIS)
                .map(str::to_string);
            return (mv, analysis);
        }
        analysis = Some(line);
    }
    (reply.trim(), None)
}

async fn receive<R: AsyncRead + Unpin>(
    lines: &mut LineReader<BufReader<R>>,
) -> Result<Incoming, ClientError> {
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) | Err(ReadError::Io(_)) => return Ok(Incoming::Closed),
            Err(ReadError::Line(error)) => {
                return Err(ClientError::Protocol {
                    line: String::new(),
                    error,
                })
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        tracing::debug!("S->C {}", line.trim_end());
        return match ServerMessage::parse(&line) {
            Ok(message) => Ok(Incoming::Message(message)),
            Err(error) => Err(ClientError::Protocol {
                line: line.trim().chars().take(200).collect(),
                error,
            }),
        };
    }
}

/// Plays over one connection until the client quits or the connection drops. `engine` has
/// been [`check`](Engine::check)ed (the client asks `time_left` and `time_settings` only of an
/// engine that lists both). `stop` becoming `true` ends the session at once between games, and
/// after the game in progress otherwise.
///
/// # Errors
///
/// [`ClientError::Refused`], [`ClientError::Protocol`], [`ClientError::OutOfTurn`],
/// [`ClientError::Engine`].
pub async fn play_session<R, W>(
    reader: R,
    writer: W,
    engine: &mut Engine,
    config: &ClientConfig,
    progress: &mut Progress,
    stop: &mut watch::Receiver<bool>,
) -> Result<SessionEnd, ClientError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut session = Session {
        lines: LineReader::new(BufReader::new(reader)),
        writer,
        engine,
        config,
        current: None,
        analyze: false,
        replaced: false,
    };
    // Whether `stop` can still change (its sender lives).
    let mut stoppable = true;
    loop {
        let idle = session.current.is_none();
        if idle && *stop.borrow() {
            session.send(&ClientMessage::Quit).await;
            return Ok(SessionEnd::Quit);
        }
        let incoming = if idle && stoppable {
            tokio::select! {
                incoming = session.receive() => incoming?,
                changed = stop.changed() => {
                    stoppable = changed.is_ok();
                    continue;
                }
            }
        } else {
            session.receive().await?
        };
        let message = match incoming {
            Incoming::Closed => return Ok(session.closed()),
            Incoming::Message(message) => message,
        };
        let step = match message {
            ServerMessage::Protocol { genmove_analyze } => {
                // Analysis is announced only when the server keeps it and the engine gives it.
                session.analyze =
                    genmove_analyze && session.engine.info().supports("cgos-genmove_analyze");
                let hello = ClientMessage::Hello {
                    kind: ClientKind::Engine,
                    client: config.client_id.clone(),
                    genmove_analyze: session.analyze,
                };
                sent(session.send(&hello).await)
            }
            ServerMessage::Username => {
                let name = ClientMessage::Username(config.name.clone());
                sent(session.send(&name).await)
            }
            ServerMessage::Password => {
                let password = ClientMessage::Password {
                    password: config.password.clone(),
                    new_password: None,
                };
                sent(session.send(&password).await)
            }
            ServerMessage::Error(text) => return Err(ClientError::Refused(text)),
            ServerMessage::Info(text) => {
                session.note_info(&text);
                Step::Go
            }
            ServerMessage::Setup(setup) => {
                session.setup(setup).await?;
                Step::Go
            }
            ServerMessage::Play { color, mv, .. } => {
                match &session.current {
                    Some(current) if current.color != color => {}
                    _ => return Err(ClientError::OutOfTurn(format!("play {}", color_arg(color)))),
                }
                session
                    .command(&format!("play {} {mv}", color_arg(color)))
                    .await?;
                Step::Go
            }
            ServerMessage::Genmove { color, ms_left } => {
                match session.genmove(color, ms_left).await? {
                    Ok((answer, analysis)) => {
                        let reply = ClientMessage::Move { answer, analysis };
                        sent(session.send(&reply).await)
                    }
                    Err(None) => return Ok(session.closed()),
                    Err(Some(ServerMessage::Gameover(over))) => {
                        end_game(&mut session, over, progress, stop).await?
                    }
                    Err(Some(other)) => return Err(ClientError::OutOfTurn(other.to_string())),
                }
            }
            ServerMessage::Gameover(over) => end_game(&mut session, over, progress, stop).await?,
        };
        if let Step::End(end) = step {
            return Ok(end);
        }
    }
}

/// Answers `gameover`: `ready`, or `quit` when the client is done.
async fn end_game<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    session: &mut Session<'_, R, W>,
    over: crate::protocol::Gameover,
    progress: &mut Progress,
    stop: &watch::Receiver<bool>,
) -> Result<Step, ClientError> {
    if session.gameover(over, progress, stop).await? {
        Ok(if session.send(&ClientMessage::Ready).await {
            Step::Go
        } else {
            Step::End(SessionEnd::Disconnected)
        })
    } else {
        session.send(&ClientMessage::Quit).await;
        Ok(Step::End(SessionEnd::Quit))
    }
}

/// Connects to the CGOS server at `address` (HOST:PORT), starts the engine of `spec`, and
/// plays until the configured number of games is played or `stop` turns `true` (the game in
/// progress is finished first); a dropped connection is made again after
/// [`ClientConfig::retry_delay`], up to [`ClientConfig::max_reconnects`] times in a row. The
/// engine is shut down at the end. Returns the games played.
///
/// # Errors
///
/// [`ClientError`]: the engine fails, the server refuses or breaks the protocol, or the
/// connection cannot be made again.
pub async fn run(
    address: &str,
    spec: &EngineSpec,
    config: &ClientConfig,
    mut stop: watch::Receiver<bool>,
) -> Result<Vec<GameRecord>, ClientError> {
    let mut engine = Engine::start(spec, "engine", None).await?;
    engine.check(config.command_timeout).await?;
    let mut progress = Progress::default();
    let mut failures = 0;
    let outcome = loop {
        if *stop.borrow() {
            break Ok(());
        }
        let stream = match tokio::net::TcpStream::connect(address).await {
            Ok(stream) => stream,
            Err(source) if failures == 0 && progress.games.is_empty() => {
                break Err(ClientError::Connect {
                    address: address.to_string(),
                    source,
                })
            }
            Err(source) => {
                failures += 1;
                if failures > config.max_reconnects {
                    break Err(ClientError::Lost(source.to_string()));
                }
                wait_or_stop(config.retry_delay, &mut stop).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let (reader, writer) = stream.into_split();
        let played_before = progress.games.len();
        match play_session(
            reader,
            writer,
            &mut engine,
            config,
            &mut progress,
            &mut stop,
        )
        .await
        {
            Ok(SessionEnd::Quit) => break Ok(()),
            Ok(SessionEnd::Replaced) => break Err(ClientError::Replaced),
            Ok(SessionEnd::Disconnected) => {
                if progress.games.len() > played_before {
                    failures = 0;
                }
                failures += 1;
                if failures > config.max_reconnects {
                    break Err(ClientError::Lost("the server closed the connection".into()));
                }
                tracing::warn!("connection to {address} lost; connecting again");
                wait_or_stop(config.retry_delay, &mut stop).await;
            }
            Err(error) => break Err(error),
        }
    };
    engine.shutdown(Duration::from_secs(2)).await;
    outcome.map(|()| progress.games)
}

async fn wait_or_stop(delay: Duration, stop: &mut watch::Receiver<bool>) {
    let sleep = tokio::time::sleep(delay);
    tokio::pin!(sleep);
    tokio::select! {
        () = &mut sleep => {}
        changed = stop.changed() => {
            if changed.is_err() {
                // Nobody can stop the client any more: wait the whole delay.
                sleep.await;
            }
        }
    }
}

/// A stop flag that turns `true` on the first SIGINT or SIGTERM (Unix; elsewhere on Ctrl-C),
/// for [`run`]: the client finishes the game in progress, then quits. Call it inside a tokio
/// runtime.
///
/// # Errors
///
/// When the signal handlers cannot be installed.
pub fn stop_on_signals() -> std::io::Result<watch::Receiver<bool>> {
    let (tx, rx) = watch::channel(false);
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        tokio::spawn(async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            tracing::info!("signal: finishing the game in progress, then quitting");
            let _ = tx.send(true);
            // Keep the sender (and the handlers) alive: later signals change nothing.
            std::future::pending::<()>().await;
        });
    }
    #[cfg(not(unix))]
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = tx.send(true);
        }
        std::future::pending::<()>().await;
    });
    Ok(rx)
}
