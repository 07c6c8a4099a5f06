//! The server side of CGOS's wire: CGOS's programs join a server (`goref serve --cgos`)
//! through their own clients, unchanged.
//!
//! [`Door`] speaks CGOS on each connection ([`Door::serve_connection`], [`serve`] for a TCP
//! listener with its caps) and acts on the server through a narrow interface, [`Host`]: log a
//! player in, put it in the lobby ([`Entry`]: waiting to be paired, told of its games), watch a
//! game ([`GameView`], each time it changes), submit a move. The server keeps the games, the
//! clocks, the rules and the records; the door only translates:
//!
//! - handshake: `protocol` (`protocol genmove_analyze` when offered), `e1 …`, `username`,
//!   `password`; a refusal is `Error: <text>` and the connection closes; a successful login is
//!   not acknowledged; a second login of the same name replaces the first (`info another login
//!   …`, then the first is closed);
//! - a game: `setup` (with the moves so far and the mover's time after each, after a
//!   reconnection), `genmove` on the player's turn with its time left, `play` for each
//!   opponent's move, `gameover <date> <result> <text>` at the end; the player answers
//!   `ready` and only then waits to be paired again;
//! - the answer to `genmove` goes to the server as it reads: a vertex, `pass`, `resign`, or an
//!   unreadable answer (which loses, as CGOS's `do not understand syntax`); analysis after the
//!   move (clients that announced `genmove_analyze`) is passed on, never changing the move.
//!
//! Nothing here reads a clock: times come from the host ([`Host::now_ms`], [`GameView::at_ms`]).

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use goref_rules::{ByColor, Color};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, watch};

use crate::protocol::{
    Answer, CgosError, ClientKind, ClientMessage, Expect, Gameover, LineReader, Match, ReadError,
    ServerMessage, Setup, TimedMove, ViewerMessage,
};
use crate::viewer::Observation;

/// What the door says to a connection that another login of the same name replaces (as
/// CGOS's server says it; [`crate::client::REPLACED_INFO`] is how it begins).
pub const REPLACED_TEXT: &str = "another login is being attempted using this user name";

/// How the door behaves.
#[derive(Clone, Debug)]
pub struct DoorConfig {
    /// Offer `genmove_analyze` (`protocol genmove_analyze`): clients that announce it may send
    /// analysis after their moves.
    pub genmove_analyze: bool,
    /// Each answer of the handshake must come within this.
    pub handshake_timeout: Duration,
    /// `ready` must follow `gameover` within this, or the connection is closed.
    pub ready_timeout: Duration,
    /// A line the server sends must be taken by the client within this, or the connection is
    /// closed (a client that does not read).
    pub write_timeout: Duration,
    /// Lines a client may send that nothing asked for (CGOS ignores them) before it is closed.
    pub max_unasked_lines: u32,
    /// Games one viewer may observe at once; `observe` of one more is answered `info …` and
    /// ignored (an observation ends with its game).
    pub max_observed: usize,
    /// `observe` requests one viewer may make a minute (a burst of as many, then one every
    /// 60/n s); more are answered `info …`, ignored, and counted as lines nobody asked for.
    pub observes_per_minute: u32,
}

impl Default for DoorConfig {
    fn default() -> DoorConfig {
        DoorConfig {
            genmove_analyze: true,
            handshake_timeout: Duration::from_secs(30),
            ready_timeout: Duration::from_secs(300),
            write_timeout: Duration::from_secs(30),
            max_unasked_lines: 1000,
            max_observed: 16,
            observes_per_minute: 60,
        }
    }
}

/// A player's answer to `genmove`, as the server takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// A vertex or `pass` (a vertex may be off the board: the host refuses it as unreadable).
    Answer(Answer),
    /// A line that is no move (`do not understand syntax`): it loses.
    Unreadable,
}

/// A game as the door shows it to a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameView {
    /// The game's number for `setup` (the server's id, read as a number).
    pub game_id: u64,
    /// The board's side.
    pub size: u8,
    /// Komi.
    pub komi: goref_rules::Komi,
    /// Each player's time (sudden death), ms.
    pub main_time_ms: u64,
    /// White, with its rating.
    pub white: crate::protocol::Seat,
    /// Black, with its rating.
    pub black: crate::protocol::Seat,
    /// The moves so far, each with its mover's time left after it.
    pub moves: Vec<TimedMove>,
    /// Who is to move; `None` when nobody is (the game is over).
    pub to_move: Option<Color>,
    /// Each player's time left at [`at_ms`](GameView::at_ms) (the running one counting down).
    pub left_ms: ByColor<i64>,
    /// When the view was made, on the host's clock ([`Host::now_ms`]).
    pub at_ms: u64,
    /// The end, once over: date, result and CGOS's text.
    pub over: Option<Gameover>,
}

impl GameView {
    /// `setup` for a player: the moves so far replayed.
    #[must_use]
    pub fn setup(&self) -> Setup {
        Setup {
            game_id: self.game_id,
            size: self.size,
            komi: self.komi,
            main_time_ms: self.main_time_ms,
            white: self.white.clone(),
            black: self.black.clone(),
            moves: self.moves.clone(),
        }
    }

    /// The colour account `name` plays (names compare without regard to case).
    #[must_use]
    pub fn color_of(&self, name: &str) -> Option<Color> {
        if self.black.name.eq_ignore_ascii_case(name) {
            Some(Color::Black)
        } else if self.white.name.eq_ignore_ascii_case(name) {
            Some(Color::White)
        } else {
            None
        }
    }
}

/// A player in the server's lobby, for as long as the value lives.
pub trait Entry: Send + 'static {
    /// Waits (or stops waiting) to be paired.
    fn wait(&mut self, on: bool) -> impl Future<Output = ()> + Send;
    /// The next game the server starts for the player, or still on when it entered (its id);
    /// `None` when the lobby is gone.
    fn next_game(&mut self) -> impl Future<Output = Option<String>> + Send;
}

/// Why a [`Host`] refused a login, an entry or a move: CGOS tells a refusal in words, and
/// these are the words the client is sent (`Error: ...`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text}")]
pub struct Refused {
    /// What the client is told.
    pub text: String,
}

impl From<String> for Refused {
    fn from(text: String) -> Refused {
        Refused { text }
    }
}

impl From<&str> for Refused {
    fn from(text: &str) -> Refused {
        Refused {
            text: text.to_string(),
        }
    }
}

/// What the door needs of the server: the narrow interface it acts through.
pub trait Host: Send + Sync + 'static {
    /// A logged-in account.
    type Login: Send + Sync + 'static;
    /// A player in the lobby.
    type Entry: Entry;

    /// Logs `name` in with `password` from `peer` (the account is created when nobody has the
    /// name, as CGOS does); `Err` holds the refusal the client is told.
    fn login(
        &self,
        name: &str,
        password: &str,
        peer: IpAddr,
    ) -> impl Future<Output = Result<Self::Login, Refused>> + Send;
    /// The account's name as the server spells it.
    fn name(login: &Self::Login) -> &str;
    /// Puts the account in the lobby, not yet waiting; `Err` holds why not.
    fn enter(
        &self,
        login: &Self::Login,
    ) -> impl Future<Output = Result<Self::Entry, Refused>> + Send;
    /// The game the account is playing, if any.
    fn live_game(&self, login: &Self::Login) -> impl Future<Output = Option<String>> + Send;
    /// The game's view, sent again each time the game changes; `None` when there is no such
    /// game.
    fn watch(
        &self,
        game: &str,
    ) -> impl Future<Output = Option<watch::Receiver<Arc<GameView>>>> + Send;
    /// The account plays `color`'s turn in `game`; `sent` is the line as the client sent it
    /// (for an illegal move's text). `analysis` goes to the record as the move's comment.
    /// `Err` holds why the server refused it (the game changed meanwhile: the view tells).
    fn play(
        &self,
        game: &str,
        color: Color,
        answer: Submitted,
        sent: &str,
        analysis: Option<String>,
    ) -> impl Future<Output = Result<(), Refused>> + Send;
    /// The host's clock, in ms (the same as [`GameView::at_ms`]).
    fn now_ms(&self) -> u64;

    /// News for every viewer (`v1`) from now on: a `match` line ([`ViewerMessage::Match`])
    /// for each game that starts, `gameover` ([`ViewerMessage::Gameover`]) for each that ends.
    /// `None` (the default): viewers are not served, and are refused. The channel is the
    /// bound: a viewer that falls behind it is closed.
    fn viewer_news(&self) -> Option<broadcast::Receiver<ViewerMessage>> {
        None
    }

    /// The games a viewer is told of on arrival, as `match` lines: the recent finished games
    /// (CGOS: the last 40), oldest first, then those in play.
    fn listing(&self) -> impl Future<Output = Vec<Match>> + Send {
        async { Vec::new() }
    }

    /// Game `game_id` for an observer (`observe`): unknown, finished (its whole record), or
    /// in play (its moves so far, then its updates until its end).
    fn observe(&self, game_id: u64) -> impl Future<Output = Observation> + Send {
        let _ = game_id;
        async { Observation::Unknown }
    }
}

/// How a connection ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The handshake failed: `Error: <text>` was sent (or the client went silent or away).
    Refused(String),
    /// The client closed the connection or sent `quit`.
    Left,
    /// Another login of the same name replaced it.
    Replaced,
    /// The client did not answer in time (`ready`) or did not read; or sent too many lines.
    Dropped(String),
}

/// The door: the players logged in through it, by name.
pub struct Door<H: Host> {
    host: H,
    config: DoorConfig,
    /// Per account (lower case): the connection playing for it and how to replace it.
    logins: Mutex<HashMap<String, (u64, watch::Sender<bool>)>>,
    next: AtomicU64,
}

/// One connection's lines.
pub(crate) struct Line<R, W> {
    lines: LineReader<BufReader<R>>,
    writer: W,
    write_timeout: Duration,
}

/// What reading gave.
pub(crate) enum Read {
    Line(String),
    Bad(CgosError),
    Closed,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Line<R, W> {
    /// Sends one line within the write timeout; whether it went.
    pub(crate) async fn send(&mut self, message: &impl std::fmt::Display) -> bool {
        let text = format!("{message}\n");
        let write = async {
            self.writer.write_all(text.as_bytes()).await?;
            self.writer.flush().await
        };
        matches!(
            tokio::time::timeout(self.write_timeout, write).await,
            Ok(Ok(()))
        )
    }

    pub(crate) async fn read(&mut self) -> Read {
        match self.lines.next_line().await {
            Ok(Some(line)) => Read::Line(line),
            Ok(None) | Err(ReadError::Io(_)) => Read::Closed,
            Err(ReadError::Line(e)) => Read::Bad(e),
        }
    }

    async fn read_within(&mut self, limit: Duration) -> Option<Read> {
        tokio::time::timeout(limit, self.read()).await.ok()
    }
}

/// Who the handshake let in.
enum Hello<L> {
    /// An engine logged in, sending analysis or not.
    Engine(L, bool),
    /// A viewer, with the news it follows.
    Viewer(broadcast::Receiver<ViewerMessage>),
}

/// How a game ended for the connection.
enum GameEnd {
    /// `gameover` was sent.
    Over,
    /// Nothing was sent: no such game, not the player's, or over already.
    Skipped,
    /// The connection ended (the game goes on on the server).
    Ended(Ended),
}

impl<H: Host> Door<H> {
    /// A door to `host`.
    pub fn new(host: H, config: DoorConfig) -> Arc<Door<H>> {
        Arc::new(Door {
            host,
            config,
            logins: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
        })
    }

    /// The host.
    pub fn host(&self) -> &H {
        &self.host
    }

    /// Speaks CGOS on one connection from `peer` until it ends.
    pub async fn serve_connection<R, W>(&self, reader: R, writer: W, peer: IpAddr) -> Ended
    where
        R: AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send,
    {
        let mut line = Line {
            lines: LineReader::new(BufReader::new(reader)),
            writer,
            write_timeout: self.config.write_timeout,
        };
        let (login, analyze) = match self.handshake(&mut line, peer).await {
            Ok(Hello::Engine(login, analyze)) => (login, analyze),
            Ok(Hello::Viewer(news)) => {
                return crate::viewer::serve(&self.host, &self.config, &mut line, news).await
            }
            Err(ended) => return ended,
        };
        let name = H::name(&login).to_string();
        let (conn, mut replaced) = self.register(&name);
        let ended = self.play(&mut line, &login, analyze, &mut replaced).await;
        let mut logins = self.logins.lock().expect("logins");
        if logins
            .get(&name.to_ascii_lowercase())
            .is_some_and(|(c, _)| *c == conn)
        {
            logins.remove(&name.to_ascii_lowercase());
        }
        ended
    }

    /// Registers the connection for `name`, replacing another one.
    fn register(&self, name: &str) -> (u64, watch::Receiver<bool>) {
        let conn = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = watch::channel(false);
        let old = self
            .logins
            .lock()
            .expect("logins")
            .insert(name.to_ascii_lowercase(), (conn, tx));
        if let Some((_, old)) = old {
            let _ = old.send(true);
        }
        (conn, rx)
    }

    /// Closes the connection logged in as `name`, if there is one (its account was banned,
    /// say): it ends as a second login of the name ends it (`info`, then closed). Whether
    /// there was one.
    pub fn close(&self, name: &str) -> bool {
        let logins = self.logins.lock().expect("logins");
        logins
            .get(&name.to_ascii_lowercase())
            .is_some_and(|(_, tx)| tx.send(true).is_ok())
    }

    async fn refuse<R, W>(&self, line: &mut Line<R, W>, text: &str) -> Ended
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        line.send(&ServerMessage::Error(text.to_string())).await;
        Ended::Refused(text.to_string())
    }

    /// One answer of the handshake, read as `expect`.
    async fn answer<R, W>(
        &self,
        line: &mut Line<R, W>,
        ask: ServerMessage,
        expect: Expect,
    ) -> Result<ClientMessage, Ended>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        if !line.send(&ask).await {
            return Err(Ended::Left);
        }
        loop {
            let text = match line.read_within(self.config.handshake_timeout).await {
                None => return Err(self.refuse(line, "no answer in time").await),
                Some(Read::Closed) => return Err(Ended::Left),
                Some(Read::Bad(e)) => return Err(self.refuse(line, &e.to_string()).await),
                Some(Read::Line(text)) => text,
            };
            return match ClientMessage::parse(&text, expect) {
                Err(CgosError::Empty) => continue,
                Err(e) => Err(self.refuse(line, &format!("invalid response: {e}")).await),
                Ok(ClientMessage::Quit) => Err(Ended::Left),
                Ok(m) => Ok(m),
            };
        }
    }

    async fn handshake<R, W>(
        &self,
        line: &mut Line<R, W>,
        peer: IpAddr,
    ) -> Result<Hello<H::Login>, Ended>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let hello = ServerMessage::Protocol {
            genmove_analyze: self.config.genmove_analyze,
        };
        let analyze = match self.answer(line, hello, Expect::Hello).await? {
            ClientMessage::Hello {
                kind: ClientKind::Engine,
                genmove_analyze,
                ..
            } => genmove_analyze && self.config.genmove_analyze,
            // A viewer gives no name (as CGOS's `_handle_player_protocol`): it is served at once.
            ClientMessage::Hello {
                kind: ClientKind::Viewer,
                ..
            } => match self.host.viewer_news() {
                Some(news) => return Ok(Hello::Viewer(news)),
                None => {
                    return Err(self
                        .refuse(line, "viewers are not served here: watch on the web page")
                        .await)
                }
            },
            _ => return Err(self.refuse(line, "invalid response").await),
        };
        let ClientMessage::Username(name) = self
            .answer(line, ServerMessage::Username, Expect::Username)
            .await?
        else {
            return Err(self.refuse(line, "invalid user name").await);
        };
        let ClientMessage::Password {
            password,
            new_password,
        } = self
            .answer(line, ServerMessage::Password, Expect::Password)
            .await?
        else {
            return Err(self.refuse(line, "invalid password").await);
        };
        if new_password.is_some() {
            return Err(self
                .refuse(line, "passwords are not changed through CGOS here")
                .await);
        }
        match self.host.login(&name, &password, peer).await {
            Ok(login) => Ok(Hello::Engine(login, analyze)),
            Err(why) => Err(self.refuse(line, &why.text).await),
        }
    }

    /// After the login: games until the connection ends.
    async fn play<R, W>(
        &self,
        line: &mut Line<R, W>,
        login: &H::Login,
        analyze: bool,
        replaced: &mut watch::Receiver<bool>,
    ) -> Ended
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let mut entry = match self.host.enter(login).await {
            Ok(entry) => entry,
            Err(why) => return self.refuse(line, &why.text).await,
        };
        let mut game = self.host.live_game(login).await;
        let mut unasked = 0u32;
        // Games played on this connection (the lobby may tell of one again).
        let mut played: Vec<String> = Vec::new();
        let mut waiting = false;
        loop {
            let id = match game.take() {
                Some(id) => id,
                None => {
                    if !waiting {
                        entry.wait(true).await;
                        waiting = true;
                    }
                    let next = tokio::select! {
                        next = entry.next_game() => next,
                        read = line.read() => match read {
                            Read::Closed => return Ended::Left,
                            Read::Line(text) if text.trim() == "quit" => return Ended::Left,
                            _ => {
                                unasked += 1;
                                if unasked > self.config.max_unasked_lines {
                                    return Ended::Dropped("too many lines".into());
                                }
                                continue;
                            }
                        },
                        _ = replaced.changed() => return self.replaced(line).await,
                    };
                    match next {
                        Some(id) if played.contains(&id) => continue,
                        Some(id) => id,
                        None => return Ended::Dropped("the lobby closed".into()),
                    }
                }
            };
            if waiting {
                entry.wait(false).await;
                waiting = false;
            }
            if played.len() >= 16 {
                played.remove(0);
            }
            played.push(id.clone());
            match self
                .play_game(line, login, &id, analyze, replaced, &mut unasked)
                .await
            {
                GameEnd::Over => {}
                GameEnd::Skipped => continue,
                GameEnd::Ended(ended) => return ended,
            }
            // `ready` (or anything else, ignored: a move that came too late) before pairing.
            loop {
                let read = tokio::select! {
                    read = line.read_within(self.config.ready_timeout) => read,
                    _ = replaced.changed() => return self.replaced(line).await,
                };
                match read {
                    None => return Ended::Dropped("no ready after gameover".into()),
                    Some(Read::Closed) => return Ended::Left,
                    Some(Read::Line(text)) => match ClientMessage::parse(&text, Expect::Ready) {
                        Ok(ClientMessage::Ready) => break,
                        Ok(ClientMessage::Quit) => return Ended::Left,
                        _ => {}
                    },
                    Some(Read::Bad(_)) => {}
                }
                unasked += 1;
                if unasked > self.config.max_unasked_lines {
                    return Ended::Dropped("too many lines".into());
                }
            }
        }
    }

    async fn replaced<R, W>(&self, line: &mut Line<R, W>) -> Ended
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        line.send(&ServerMessage::Info(REPLACED_TEXT.into())).await;
        Ended::Replaced
    }

    /// One game: `setup`, the opponent's moves, `genmove` on each turn, `gameover`.
    async fn play_game<R, W>(
        &self,
        line: &mut Line<R, W>,
        login: &H::Login,
        id: &str,
        analyze: bool,
        replaced: &mut watch::Receiver<bool>,
        unasked: &mut u32,
    ) -> GameEnd
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let Some(mut views) = self.host.watch(id).await else {
            return GameEnd::Skipped;
        };
        let first = views.borrow_and_update().clone();
        let Some(me) = first.color_of(H::name(login)) else {
            return GameEnd::Skipped;
        };
        if first.over.is_some() {
            return GameEnd::Skipped;
        }
        if !line.send(&ServerMessage::Setup(first.setup())).await {
            return GameEnd::Ended(Ended::Left);
        }
        // Moves the client knows; the move number `genmove` was sent for, and whether it was
        // answered; after a refused answer, `genmove` is sent again once the game changed.
        let mut known = first.moves.len();
        let mut asked: Option<usize> = None;
        let mut answered = false;
        let mut refused = false;
        let mut view = first;
        loop {
            while known < view.moves.len() {
                let color = Setup::color_of_move(known);
                let timed = view.moves[known];
                known += 1;
                if color != me {
                    let play = ServerMessage::Play {
                        color,
                        mv: timed.mv,
                        ms_left: timed.ms_left,
                    };
                    if !line.send(&play).await {
                        return GameEnd::Ended(Ended::Left);
                    }
                }
            }
            if let Some(over) = &view.over {
                if !line.send(&ServerMessage::Gameover(over.clone())).await {
                    return GameEnd::Ended(Ended::Left);
                }
                return GameEnd::Over;
            }
            if view.to_move == Some(me) && asked != Some(view.moves.len()) && !refused {
                let spent = self.host.now_ms().saturating_sub(view.at_ms);
                let ms_left = view.left_ms[me] - i64::try_from(spent).unwrap_or(i64::MAX);
                let genmove = ServerMessage::Genmove { color: me, ms_left };
                if !line.send(&genmove).await {
                    return GameEnd::Ended(Ended::Left);
                }
                asked = Some(view.moves.len());
                answered = false;
            }
            tokio::select! {
                changed = views.changed() => {
                    if changed.is_err() {
                        // The host stopped watching (the server stops): the client waits for
                        // its `gameover`, which will not come; close.
                        return GameEnd::Ended(Ended::Dropped("the game is not watched".into()));
                    }
                    view = views.borrow_and_update().clone();
                    refused = false;
                }
                read = line.read() => match read {
                    Read::Closed => return GameEnd::Ended(Ended::Left),
                    read if asked == Some(view.moves.len()) && !answered && view.over.is_none() => {
                        let (submitted, sent, analysis) = match read {
                            Read::Line(text) => match ClientMessage::parse(&text, Expect::Move { analyze }) {
                                Err(CgosError::Empty) => continue,
                                Ok(ClientMessage::Quit) => return GameEnd::Ended(Ended::Left),
                                Ok(ClientMessage::Move { answer, analysis }) => {
                                    let sent = text.split_whitespace().next().unwrap_or("").to_string();
                                    (Submitted::Answer(answer), sent, analysis)
                                }
                                _ => (Submitted::Unreadable, short(&text), None),
                            },
                            _ => (Submitted::Unreadable, String::new(), None),
                        };
                        answered = true;
                        if let Err(why) = self.host.play(id, me, submitted, &sent, analysis).await {
                            // The game changed meanwhile (its view tells how): ask again then.
                            tracing::debug!("cgos: game {id}: move refused: {why}");
                            asked = None;
                            refused = true;
                        }
                    }
                    Read::Line(text) if text.trim() == "quit" => return GameEnd::Ended(Ended::Left),
                    _ => {
                        *unasked += 1;
                        if *unasked > self.config.max_unasked_lines {
                            return GameEnd::Ended(Ended::Dropped("too many lines".into()));
                        }
                    }
                },
                _ = replaced.changed() => return GameEnd::Ended(self.replaced(line).await),
            }
        }
    }
}

/// A client's line cut for a record or a text: at most 40 characters, one line.
fn short(text: &str) -> String {
    text.trim().chars().take(40).collect()
}

/// Caps on the door's connections.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// Open connections at most; more are closed at once.
    pub max_connections: usize,
    /// Open connections at most from one address.
    pub max_per_address: usize,
}

/// Accepts CGOS connections on `listener` and serves each ([`Door::serve_connection`]) within
/// `caps`: a connection over a cap gets `Error: …` and is closed.
pub async fn serve<H: Host>(listener: tokio::net::TcpListener, door: Arc<Door<H>>, caps: Caps) {
    let open: Arc<Mutex<HashMap<IpAddr, usize>>> = Arc::new(Mutex::new(HashMap::new()));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!("cgos: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let ip = peer.ip();
        let refused = {
            let mut open = open.lock().expect("open");
            let total: usize = open.values().sum();
            let here = open.entry(ip).or_insert(0);
            if total >= caps.max_connections {
                Some("the server is full: try later")
            } else if *here >= caps.max_per_address {
                Some("too many connections from this address")
            } else {
                *here += 1;
                None
            }
        };
        let door = door.clone();
        let open = open.clone();
        tokio::spawn(async move {
            let (reader, mut writer) = stream.into_split();
            if let Some(text) = refused {
                let line = format!("{}\n", ServerMessage::Error(text.into()));
                let _ =
                    tokio::time::timeout(Duration::from_secs(1), writer.write_all(line.as_bytes()))
                        .await;
                return;
            }
            let ended = door.serve_connection(reader, writer, ip).await;
            tracing::debug!("cgos: connection from {peer} ended: {ended:?}");
            let mut open = open.lock().expect("open");
            if let Some(n) = open.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    open.remove(&ip);
                }
            }
        });
    }
}
