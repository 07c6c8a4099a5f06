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
//! - a game: [`Games::room`] read again on each of its [`GameEvent`]s on the bus, and
//!   [`Games::act_commented`] for a move, as a seat would send it, with no thinking time
//!   reported: the time gift is the game's lag allowance ([`crate::room::CgosTerms`]).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use goref_cgos::door::{Caps, Submitted};
use goref_cgos::protocol::{
    compact_analysis, CgosMove, CgosResult, Date, Gameover, IllegalReason, Rating as CgosRating,
    Seat, TimedMove, RESIGNATION_TEXT,
};
use goref_cgos::{Answer, Door, Entry, GameView, Host, Refused};
use goref_clock::TimeControl;
use goref_referee::{Ending, Need};
use goref_rules::{ByColor, Color, Komi, Move};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;

use crate::accounts::{Accounts, LoginRequest};
use crate::app::App;
use crate::bus::{BusEvent, GameEvent};
use crate::games::Games;
use crate::limits::RateLimiter;
use crate::lobby::{Lobby, Member};
use crate::options::CgosOptions;
use crate::protocol::{
    Account, LobbyClientMessage, LobbyServerMessage, LoginError, Rating, BASE_RATING,
    MAX_ACCOUNT_NAME, MAX_PASSWORD, MIN_PASSWORD,
};
use crate::room::{Act, Phase, Room, MAX_COMMENT};

/// Opens the door: listens on its address and serves every connection in the background.
/// Returns where it listens.
pub(crate) async fn open(app: &App, options: &CgosOptions) -> anyhow::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(&options.listen)
        .await
        .with_context(|| format!("CGOS: listening on {}", options.listen))?;
    let addr = listener.local_addr()?;
    let opts = app.games.options();
    let host = ServerHost {
        games: app.games.clone(),
        accounts: app.accounts.clone(),
        lobby: app.lobby.clone(),
        logins: RateLimiter::new(
            opts.create_burst,
            opts.create_per_minute,
            crate::games::MAX_LIMITER_KEYS,
        ),
        illegal: Arc::new(Mutex::new(HashMap::new())),
    };
    let door = Door::new(host, options.door.clone());
    let caps = Caps {
        max_connections: options.max_connections,
        max_per_address: options.max_per_address,
    };
    tokio::spawn(goref_cgos::door::serve(listener, door, caps));
    Ok(addr)
}

/// Illegal moves' texts kept at most (by game id) until their game's end is read.
const MAX_ILLEGAL_TEXTS: usize = 10_000;

/// This server as the door's host.
pub(crate) struct ServerHost {
    games: Arc<Games>,
    accounts: Arc<Accounts>,
    lobby: Arc<Lobby>,
    /// Logins (each an Argon2 hash, maybe a new account), by client address, as
    /// `POST /api/login` limits them.
    logins: RateLimiter,
    /// The `gameover` text of a game lost by an illegal move, by game id (CGOS's words).
    illegal: Arc<Mutex<HashMap<String, String>>>,
}

/// A door's player in the lobby.
pub(crate) struct DoorEntry {
    member: Member,
}

impl Entry for DoorEntry {
    async fn wait(&mut self, on: bool) {
        let answer = self.member.handle(LobbyClientMessage::Wait { on }).await;
        if let LobbyServerMessage::Error { message, .. } = answer {
            eprintln!("goref serve: CGOS: waiting not set: {message}");
        }
    }

    async fn next_game(&mut self) -> Option<String> {
        while let Some(text) = self.member.messages.recv().await {
            if let Ok(LobbyServerMessage::Game(start)) = LobbyServerMessage::parse(&text) {
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

/// The game as the door shows it, read from its room at `now`.
fn view_of(
    room: &Room,
    id: &str,
    seats: &ByColor<Seat>,
    now: u64,
    illegal: Option<String>,
) -> GameView {
    let config = room.config();
    let referee = room.referee();
    let game = referee.game();
    let geometry = game.geometry();
    let main_time_ms = match config.time {
        TimeControl::SuddenDeath { main } => u64::try_from(main.as_millis()).unwrap_or(0),
        _ => 0,
    };
    let after = referee.clock_after_moves();
    let moves = game
        .moves()
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
        .collect();
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
    let over = room.finished().map(|_| {
        let date = Date::from_unix_seconds(room.created_ms() / 1000);
        match referee.result() {
            Some(r) if room.closed().is_none() => {
                let result = CgosResult::try_from(r.outcome).unwrap_or(CgosResult::Abort);
                let text = match r.ending {
                    Ending::Resignation => RESIGNATION_TEXT.to_string(),
                    Ending::Illegal => {
                        illegal.unwrap_or_else(|| IllegalReason::Syntax.gameover_text("?"))
                    }
                    Ending::TwoPasses | Ending::Time => String::new(),
                    _ => r.detail.clone().unwrap_or_default(),
                };
                Gameover { date, result, text }
            }
            _ => Gameover {
                date,
                result: CgosResult::Abort,
                text: String::new(),
            },
        }
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

impl ServerHost {
    fn illegal_text(illegal: &Mutex<HashMap<String, String>>, id: &str) -> Option<String> {
        illegal.lock().expect("illegal").get(id).cloned()
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
        self.lobby
            .join_cgos(login.clone())
            .await
            .map(|member| DoorEntry { member })
            .map_err(|e| e.to_string().into())
    }

    async fn live_game(&self, login: &Account) -> Option<String> {
        let live = self.games.store().live_games_of(&login.name).await.ok()?;
        live.into_iter().next()
    }

    async fn watch(&self, id: &str) -> Option<watch::Receiver<Arc<GameView>>> {
        // Listening first: nothing published after the room is read is missed.
        let mut bus = self.games.subscribe();
        let mut changes = self.games.subscribe_changes();
        let room = self.games.room(id).await.ok()??;
        let players = room.config().players.clone()?;
        room.config().cgos?;
        let ratings = self.games.store().ratings().await.unwrap_or_default();
        let seats = ByColor::new(
            seat(&ratings, &players.black),
            seat(&ratings, &players.white),
        );
        let first = view_of(
            &room,
            id,
            &seats,
            self.games.now_ms(),
            Self::illegal_text(&self.illegal, id),
        );
        let (tx, rx) = watch::channel(Arc::new(first));
        let id = id.to_string();
        let illegal = self.illegal.clone();
        let games = self.games.clone();
        tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    () = tx.closed() => break,
                    event = bus.recv() => event,
                    event = changes.recv() => event,
                };
                let read_again = match event {
                    Ok(BusEvent::Game(
                        GameEvent::Changed { id: changed, .. }
                        | GameEvent::Finished { id: changed, .. },
                    )) => changed == id,
                    Ok(BusEvent::Missed) | Err(RecvError::Lagged(_)) => true,
                    Ok(_) => false,
                    Err(RecvError::Closed) => break,
                };
                if !read_again {
                    continue;
                }
                let Ok(Some(room)) = games.room(&id).await else {
                    continue;
                };
                let text = Self::illegal_text(&illegal, &id);
                let view = view_of(&room, &id, &seats, games.now_ms(), text);
                let over = view.over.is_some();
                if tx.send(Arc::new(view)).is_err() || over {
                    break;
                }
            }
            // The text is read by every watcher of the end: kept a minute.
            tokio::time::sleep(Duration::from_secs(60)).await;
            illegal.lock().expect("illegal").remove(&id);
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
        let room = self
            .games
            .room(id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("no such game")?;
        let syntax = || IllegalReason::Syntax.gameover_text(sent);
        let unreadable = || Act::Unreadable {
            reply: sent.to_string(),
        };
        let geometry = room.referee().game().geometry();
        let (act, illegal) = match answer {
            Submitted::Answer(Answer::Resign) => (Act::Resign, None),
            Submitted::Answer(Answer::Move(CgosMove::Pass)) => (Act::Pass, None),
            Submitted::Answer(Answer::Move(CgosMove::Play(v))) => {
                match v
                    .point(geometry)
                    .and_then(|p| geometry.coords(p).map(|c| (p, c)))
                {
                    Some((p, (x, y))) => {
                        let legal = room.referee().board_in_play().legality(Move::Play(p));
                        let text = legal
                            .err()
                            .map(|e| IllegalReason::from(e).gameover_text(sent));
                        (Act::Play { x, y }, text)
                    }
                    None => (unreadable(), Some(syntax())),
                }
            }
            Submitted::Unreadable => (unreadable(), Some(syntax())),
        };
        if let Some(text) = illegal {
            let mut map = self.illegal.lock().expect("illegal");
            if map.len() >= MAX_ILLEGAL_TEXTS {
                map.clear();
            }
            map.insert(id.to_string(), text);
        }
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
            .act_commented(id, Some(color), act, Some(room.version()), Some(0), comment)
            .await
            .map(|_| ())
            .map_err(|(refusal, _)| refusal.to_string().into())
    }

    fn now_ms(&self) -> u64 {
        self.games.now_ms()
    }
}
