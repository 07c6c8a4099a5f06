//! CGOS's door (`goref serve --cgos ADDR`): CGOS's programs join this server through their
//! own clients (`cgosclient.py`, `cgosGtp`), unchanged.
//!
//! The dialogue is goref-cgos's [`Door`]; this module is its [`Host`] on this server, and all
//! that the door knows of the server:
//! - logins: [`Accounts::log_in`] with the connection's real address (the throttle of failed
//!   guesses; accounts created on first login as programs, as `goref connect`'s), within the
//!   login limits of `POST /api/login` (a limiter of the door's own);
//! - the lobby: [`Lobby::join_cgos`] (a [`Member`] paired only for the CGOS game; the
//!   lobby's `game` message tells it of its games) and the store's live games (reconnection);
//! - a game: followed with [`Games::watch_room`] (woken when the room held here changes,
//!   whichever server stored the change: never read older than the change), and
//!   [`Games::act_now`] for a move, as a seat would send it, answering the game as it is,
//!   with no thinking time reported: the time gift is the game's lag allowance
//!   ([`crate::room::CgosTerms`]). An illegal move's reason is the referee's, kept with the
//!   result ([`goref_referee::Referee::illegal_attempt`]), so every server tells the same.
//! - viewers (`v1`): what they see is the showcase's (`cgos/viewers.rs`): the games on the
//!   door's board, followed from the games service's events (bus and rooms), with rated games'
//!   moves held back by `--broadcast-delay`
//!   ([`crate::options::CgosOptions::broadcast_delay`]).

mod viewers;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use goref_cgos::door::{Caps, Submitted};
use goref_cgos::protocol::{
    compact_analysis, CgosMove, CgosResult, Date, Gameover, IllegalReason, Rating as CgosRating,
    Seat, TimedMove, RESIGNATION_TEXT,
};
use goref_cgos::{Answer, Door, Entry, GameView, Host, Match, Observation, Refused, ViewerMessage};
use goref_clock::TimeControl;
use goref_referee::{Ending, IllegalAttempt, Need};
use goref_rules::{ByColor, Color, Komi};
use tokio::sync::{broadcast, watch};

use crate::accounts::{Accounts, LoginRequest};
use crate::games::Games;
use crate::limits::RateLimiter;
use crate::lobby::{Lobby, Member};
use crate::metrics::{Connected, ConnectionKind};
use crate::options::CgosOptions;
use crate::room::{Act, Phase, Room, MAX_COMMENT};
use crate::wire::{
    Account, GameConfig, LobbyClientMessage, LobbyServerMessage, LoginError, Rating, BASE_RATING,
    MAX_ACCOUNT_NAME, MAX_PASSWORD, MIN_PASSWORD,
};

/// Opens the door over the services it uses (the games, the accounts, the lobby): listens on
/// its address and serves every connection in the background. Returns where it listens.
pub(crate) async fn open(
    games: Arc<Games>,
    accounts: Arc<Accounts>,
    lobby: Arc<Lobby>,
    pool: &str,
    options: &CgosOptions,
) -> anyhow::Result<SocketAddr> {
    let listener = crate::net::listen(&options.listen)
        .await
        .with_context(|| format!("CGOS: listening on {}", options.listen))?;
    let addr = listener.local_addr()?;
    let opts = games.options();
    let size = options.game.width.unwrap_or(19);
    let showcase = viewers::Showcase::start(games.clone(), pool, size, options.broadcast_delay);
    let host = ServerHost {
        pool: pool.to_string(),
        showcase,
        logins: RateLimiter::new(
            opts.create_burst,
            opts.create_per_minute,
            crate::limits::MAX_LIMITER_KEYS,
        ),
        games,
        accounts,
        lobby,
    };
    let mut bans = host.games.bus().subscribe_bans();
    let door = Door::new(host, options.door.clone());
    // A banned account's connection is closed (a ban missed, 64 behind, is not: its next
    // login is refused).
    let banning = Arc::downgrade(&door);
    tokio::spawn(async move {
        loop {
            match bans.recv().await {
                // Bans maybe missed: the account's next login is refused.
                Ok(name) if name.is_empty() => {}
                Ok(name) => match banning.upgrade() {
                    Some(door) => {
                        door.close(&name);
                    }
                    None => return,
                },
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            }
        }
    });
    let caps = Caps {
        max_connections: options.max_connections,
        max_per_address: options.max_per_address,
    };
    tokio::spawn(goref_cgos::door::serve(listener, door, caps));
    Ok(addr)
}

/// This server as the door's host.
pub(crate) struct ServerHost {
    /// The pool whose door it is: its players wait in it, its ratings are theirs.
    pool: String,
    /// What CGOS's viewers see.
    showcase: Arc<viewers::Showcase>,
    games: Arc<Games>,
    accounts: Arc<Accounts>,
    lobby: Arc<Lobby>,
    /// Logins (each an Argon2 hash, maybe a new account), by client address, as
    /// `POST /api/login` limits them.
    logins: RateLimiter,
}

/// A door's player in the lobby.
pub(crate) struct DoorEntry {
    member: Member,
    /// The game last told (a start told again, after this server fell behind, is the same).
    last: Option<String>,
    /// Counted among the server's connections while it lives.
    _connected: Connected,
}

impl Entry for DoorEntry {
    async fn wait(&mut self, on: bool) {
        let answer = self.member.handle(LobbyClientMessage::wait(on)).await;
        if let LobbyServerMessage::Error { message, .. } = answer {
            eprintln!("goref serve: CGOS: waiting not set: {message}");
        }
    }

    async fn next_game(&mut self) -> Option<String> {
        // Only this player's own messages: a pairing is told to its two players alone.
        while let Some(start) = self.member.next_game().await {
            if self.last.as_deref() != Some(start.id.as_str()) {
                self.last = Some(start.id.clone());
                return Some(start.id);
            }
        }
        None
    }
}

fn login_refusal(e: &LoginError) -> String {
    match e {
        LoginError::BadName => {
            format!("invalid user name: 1 to {MAX_ACCOUNT_NAME} letters, digits, '-', '_', '.'")
        }
        LoginError::BadPassword => {
            format!("the password must have {MIN_PASSWORD} to {MAX_PASSWORD} characters")
        }
        LoginError::UnknownAccount | LoginError::WrongPassword => {
            "Sorry, password doesn't match".into()
        }
        LoginError::TooManyAttempts => "too many logins: try again later".into(),
        LoginError::Busy { .. } => "the server is busy with other logins: try again".into(),
        LoginError::Banned => "this account is banned".into(),
        LoginError::Storage(_) => "the server cannot log you in now: try again later".into(),
    }
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The seat of `name` in `setup`: its rating, provisional (`?`) before 10 rated games.
fn seat(ratings: &[Rating], name: &str) -> Seat {
    let rating = ratings
        .iter()
        .find(|r| r.name.eq_ignore_ascii_case(name))
        .map_or(
            CgosRating {
                elo: BASE_RATING as u32,
                provisional: true,
            },
            |r| CgosRating {
                elo: r.rating.round().max(0.0) as u32,
                provisional: r.games < 10,
            },
        );
    Seat {
        name: name.to_string(),
        rating: Some(rating),
    }
}

/// Each player's time for the game, ms: the main time of sudden death (CGOS's only clock),
/// else 0.
fn main_time_ms(config: &GameConfig) -> u64 {
    match config.time {
        TimeControl::SuddenDeath { main } => u64::try_from(main.as_millis()).unwrap_or(0),
        _ => 0,
    }
}

/// The moves of `room`'s game as CGOS gives them, each with its player's time left after it
/// (the main time when the clock did not say).
fn timed_moves(room: &Room, main_time_ms: u64) -> Vec<TimedMove> {
    let referee = room.referee();
    let game = referee.game();
    let geometry = game.geometry();
    let after = referee.clock_after_moves();
    game.moves()
        .iter()
        .enumerate()
        .map(|(i, &(_, mv))| TimedMove {
            mv: CgosMove::from_move(geometry, mv).unwrap_or(CgosMove::Pass),
            ms_left: after
                .get(i)
                .copied()
                .flatten()
                .map_or(main_time_ms as i64, |(s, _)| (s * 1000.0).round() as i64),
        })
        .collect()
}

/// How `room`'s game ended, in CGOS's words (its result and `gameover`'s text), once over: a
/// game the server closed, or one whose result CGOS has no word for, is `Abort`.
fn ending(room: &Room) -> Option<(CgosResult, String)> {
    room.finished()?;
    let referee = room.referee();
    Some(match referee.result() {
        Some(r) if room.closed().is_none() => {
            let result = CgosResult::try_from(r.outcome).unwrap_or(CgosResult::Abort);
            let text = match r.ending {
                Ending::Resignation => RESIGNATION_TEXT.to_string(),
                Ending::Illegal => illegal_text(room),
                Ending::TwoPasses | Ending::Time => String::new(),
                _ => r.detail.clone().unwrap_or_default(),
            };
            (result, text)
        }
        _ => (CgosResult::Abort, String::new()),
    })
}

/// The game as the door shows it, read from its room at `now`.
fn view_of(room: &Room, id: &str, seats: &ByColor<Seat>, now: u64) -> GameView {
    let config = room.config();
    let referee = room.referee();
    let main_time_ms = main_time_ms(config);
    let moves = timed_moves(room, main_time_ms);
    let to_move = match referee.need() {
        Need::Move { color, .. } if room.phase() != Phase::Over => Some(color),
        _ => None,
    };
    let clock = referee.clock();
    let at = Duration::from_millis(now);
    let left_ms = ByColor::new(
        ms(clock.shown(Color::Black, at).main),
        ms(clock.shown(Color::White, at).main),
    );
    let over = ending(room).map(|(result, text)| Gameover {
        date: Date::from_unix_seconds(room.created_ms() / 1000),
        result,
        text,
    });
    GameView {
        game_id: u64::from_str_radix(id, 16).unwrap_or(0),
        size: u8::try_from(config.width).unwrap_or(0),
        komi: Komi::from_f64(config.komi).unwrap_or(Komi::from_half_points(0)),
        main_time_ms,
        white: seats.white.clone(),
        black: seats.black.clone(),
        moves,
        to_move,
        left_ms,
        at_ms: now,
        over,
    }
}

/// CGOS's `gameover` text for a game lost by an illegal move: the reason and the move (a
/// vertex in lower case, as CGOS's clients send them; an unreadable reply as it came).
fn illegal_text(room: &Room) -> String {
    let geometry = room.referee().game().geometry();
    match room.referee().illegal_attempt() {
        Some(IllegalAttempt::Move { mv, why }) => {
            let sent = CgosMove::from_move(geometry, *mv)
                .map_or_else(|| "?".to_string(), |m| m.to_string().to_ascii_lowercase());
            IllegalReason::from(*why).gameover_text(&sent)
        }
        Some(IllegalAttempt::Unreadable { reply }) => IllegalReason::Syntax.gameover_text(reply),
        None => IllegalReason::Syntax.gameover_text("?"),
    }
}

impl Host for ServerHost {
    type Login = Account;
    type Entry = DoorEntry;

    async fn login(&self, name: &str, password: &str, peer: IpAddr) -> Result<Account, Refused> {
        let address = crate::limits::address_key(peer);
        if self
            .logins
            .check(&address, std::time::Instant::now())
            .is_err()
        {
            return Err(login_refusal(&LoginError::TooManyAttempts).into());
        }
        let request = LoginRequest {
            name: name.to_string(),
            password: password.to_string(),
            program: true,
            create: true,
        };
        self.accounts
            .log_in(request, &address)
            .await
            .map(|(_, account)| account)
            .map_err(|e| login_refusal(&e).into())
    }

    fn name(login: &Account) -> &str {
        &login.name
    }

    async fn enter(&self, login: &Account) -> Result<DoorEntry, Refused> {
        let member = self
            .lobby
            .join_cgos(login.clone(), &self.pool)
            .await
            .map_err(|e| e.to_string())?;
        // Banned since it logged in (before the door heard of the ban): refused.
        if self
            .games
            .store()
            .is_banned(&login.name)
            .await
            .unwrap_or(false)
        {
            return Err(login_refusal(&LoginError::Banned).into());
        }
        Ok(DoorEntry {
            member,
            last: None,
            _connected: self.games.metrics().connected(ConnectionKind::Cgos),
        })
    }

    async fn live_game(&self, login: &Account) -> Option<String> {
        let live = self.games.store().live_games_of(&login.name).await.ok()?;
        live.into_iter().next()
    }

    async fn watch(&self, id: &str) -> Option<watch::Receiver<Arc<GameView>>> {
        let mut room = self.games.watch_room(id).await.ok()??;
        let players = room
            .read(|r| r.config().cgos.and(r.config().players.clone()))
            .await?;
        let ratings = self
            .games
            .store()
            .ratings(&self.pool)
            .await
            .unwrap_or_default();
        let seats = ByColor::new(
            seat(&ratings, &players.black),
            seat(&ratings, &players.white),
        );
        let games = self.games.clone();
        let id = id.to_string();
        let first = room.read(|r| view_of(r, &id, &seats, games.now_ms())).await;
        let over = first.over.is_some();
        let (tx, rx) = watch::channel(Arc::new(first));
        if over {
            return Some(rx);
        }
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = tx.closed() => break,
                    changed = room.changed() => if !changed { break },
                }
                let view = room.read(|r| view_of(r, &id, &seats, games.now_ms())).await;
                let over = view.over.is_some();
                if tx.send(Arc::new(view)).is_err() || over {
                    break;
                }
            }
        });
        Some(rx)
    }

    async fn play(
        &self,
        id: &str,
        color: Color,
        answer: Submitted,
        sent: &str,
        analysis: Option<String>,
    ) -> Result<(), Refused> {
        let unreadable = || Act::Unreadable {
            reply: sent.to_string(),
        };
        // The act from the room as it is (its board's size); the referee checks the move.
        let make = |room: &Room| match answer {
            Submitted::Answer(Answer::Resign) => Act::Resign,
            Submitted::Answer(Answer::Move(CgosMove::Pass)) => Act::Pass,
            Submitted::Answer(Answer::Move(CgosMove::Play(v))) => {
                let geometry = room.referee().game().geometry();
                match v.point(geometry).and_then(|p| geometry.coords(p)) {
                    Some((x, y)) => Act::Play { x, y },
                    None => unreadable(),
                }
            }
            Submitted::Unreadable => unreadable(),
        };
        let comment = analysis.map(|a| {
            compact_analysis(&a, MAX_COMMENT).unwrap_or_else(|| {
                let mut end = a.len().min(MAX_COMMENT);
                while !a.is_char_boundary(end) {
                    end -= 1;
                }
                a[..end].to_string()
            })
        });
        self.games
            .act_now(id, color, make, Some(0), comment)
            .await
            .map(|_| ())
            .map_err(|(refusal, _)| refusal.to_string().into())
    }

    fn now_ms(&self) -> u64 {
        self.games.now_ms()
    }

    fn viewer_news(&self) -> Option<broadcast::Receiver<ViewerMessage>> {
        Some(self.showcase.news())
    }

    async fn listing(&self) -> Vec<Match> {
        self.showcase.listing()
    }

    async fn observe(&self, game_id: u64) -> Observation {
        self.showcase.observe(game_id).await
    }
}
