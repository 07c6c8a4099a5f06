//! What CGOS's viewers (`v1`, goref-cgos's [`goref_cgos::viewer`]) see of this server: the
//! door's [`Host::viewer_news`](goref_cgos::Host::viewer_news),
//! [`listing`](goref_cgos::Host::listing) and [`observe`](goref_cgos::Host::observe), made
//! from the games service's events.
//!
//! The games shown are those between two accounts on the door's board (square, of its size,
//! without handicap: CGOS's games have none), whoever plays them (CGOS programs, `goref
//! connect` programs, people), whatever their rules and clock; their number is the game's id
//! read as hexadecimal (ids of 12 hexadecimal digits, as the server makes them; others, as a
//! tournament's, are not shown).
//!
//! - [`Showcase`] follows the bus ([`GameEvent`]): a game that starts is announced to every
//!   viewer (`match`) and listed as in play; a game that ends is told (`gameover` with each
//!   player's time used), and listed among the last [`RECENT`] finished ones. At start (and
//!   when it missed events) both lists are read again from the store's newest games.
//! - A game observed is followed by one [`Feed`] however many viewers observe it: its room
//!   ([`Games::watch_room`]: woken when the room held here changes, whichever server stored
//!   the change), each move passed on with its player's time left, then the end.
//! - `--broadcast-delay` ([`CgosOptions::broadcast_delay`](crate::options::CgosOptions)): the
//!   moves of a rated game reach viewers that long after they were played, by the time the
//!   room gives each (its event's), and its end that long after it ended (meanwhile it is
//!   listed as in play); a viewer arriving or observing meanwhile sees the game as it was that
//!   long ago. The delay costs the moves held back, per game observed, not per viewer.
//!
//! Bounds: the news and each feed are broadcast channels of fixed capacity (a viewer that
//! falls behind is closed by the door); a feed ends when nobody observes its game any more or
//! when its end is told; the lists hold [`RECENT`] finished games and the games in play.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use goref_cgos::protocol::{
    Answer, CgosResult, Match, Seat, Started, Update, ViewedMove, ViewerMessage, ViewerSetup,
};
use goref_cgos::Observation;
use goref_referee::Ending;
use goref_rules::{ByColor, Color, Komi, Outcome};
use tokio::sync::broadcast;

use super::{ending, main_time_ms, ms, seat, timed_moves};
use crate::bus::{BusEvent, GameEvent};
use crate::games::{Games, RoomWatch};
use crate::room::Room;
use crate::wire::{GameConfig, GameSummary, Rating};

/// How many finished games a viewer is listed on arrival (CGOS's 40).
pub(crate) const RECENT: usize = 40;

/// The news every viewer follows: starts and ends of games (a viewer further behind is closed).
const NEWS: usize = 1024;

/// One observed game's updates held for its observers (one further behind is closed).
const UPDATES: usize = 256;

/// The store's newest games read for the lists at start (the games in play among older ones
/// are not listed, and are announced when they end). The settings of those shown are read
/// (the list has no komi): the last [`RECENT`] finished ones and those in play.
const SEED: usize = 2000;

/// The game number viewers know game `id` by: its id read as hexadecimal, for ids of 12
/// lower-case hexadecimal digits (the server's own).
pub(crate) fn game_number(id: &str) -> Option<u64> {
    (id.len() == 12 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then(|| u64::from_str_radix(id, 16).ok())
        .flatten()
}

/// The id of the game viewers know as `number`.
fn game_id(number: u64) -> Option<String> {
    (number < 1 << 48).then(|| format!("{number:012x}"))
}

/// What viewers are shown of this server; see the [module](self).
pub(crate) struct Showcase {
    games: Arc<Games>,
    /// The door's pool.
    pool: String,
    /// The door's board.
    size: usize,
    /// `--broadcast-delay`, ms.
    delay_ms: u64,
    news: broadcast::Sender<ViewerMessage>,
    lists: Mutex<Lists>,
    /// The feeds of the games observed, by id.
    feeds: Mutex<HashMap<String, Arc<Feed>>>,
}

/// The games a viewer is listed on arrival.
#[derive(Default)]
struct Lists {
    /// The last finished games, oldest first (at most [`RECENT`]).
    recent: VecDeque<Match>,
    /// The games in play (or whose end is held back), by number.
    live: BTreeMap<u64, Match>,
}

/// A game's end as viewers are told it: its line among the finished games, and `gameover`.
struct Told(Match, ViewerMessage);

impl Showcase {
    /// The showcase of the games of the door's pool on its board (`size`), rated games'
    /// moves held back `delay`; follows the bus in the background from now on.
    pub(crate) fn start(
        games: Arc<Games>,
        pool: &str,
        size: usize,
        delay: Duration,
    ) -> Arc<Showcase> {
        let showcase = Arc::new(Showcase {
            games: games.clone(),
            pool: pool.to_string(),
            size,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX / 4),
            news: broadcast::channel(NEWS).0,
            lists: Mutex::new(Lists::default()),
            feeds: Mutex::new(HashMap::new()),
        });
        // Subscribed before the lists are read: what happens meanwhile is applied after.
        let bus = games.subscribe();
        tokio::spawn(follow(showcase.clone(), bus));
        showcase
    }

    /// The news from now on.
    pub(crate) fn news(&self) -> broadcast::Receiver<ViewerMessage> {
        self.news.subscribe()
    }

    /// The finished games, oldest first, then those in play.
    pub(crate) fn listing(&self) -> Vec<Match> {
        let lists = self.lists.lock().expect("lists");
        lists
            .recent
            .iter()
            .chain(lists.live.values())
            .cloned()
            .collect()
    }

    /// The players of game `number` as listed (their ratings when it started), if it is.
    fn listed_seats(&self, number: u64) -> Option<(Seat, Seat)> {
        let lists = self.lists.lock().expect("lists");
        lists
            .live
            .get(&number)
            .or_else(|| lists.recent.iter().find(|m| m.game_id == number))
            .map(|m| (m.white.clone(), m.black.clone()))
    }

    /// Whether viewers are shown a game of this id and settings.
    fn shown(&self, id: &str, config: &GameConfig) -> Option<u64> {
        (config.players.is_some()
            && config.pool() == self.pool
            && config.width == self.size
            && config.height == self.size
            && config.handicap == 0)
            .then(|| game_number(id))
            .flatten()
    }

    /// How long a game's moves are held back.
    fn delay_of(&self, config: &GameConfig) -> u64 {
        if config.rated {
            self.delay_ms
        } else {
            0
        }
    }

    /// Game `number` for an observer.
    pub(crate) async fn observe(self: &Arc<Showcase>, number: u64) -> Observation {
        let Some(id) = game_id(number) else {
            return Observation::Unknown;
        };
        let Ok(Some(mut room)) = self.games.watch_room(&id).await else {
            return Observation::Unknown;
        };
        let ratings = self
            .games
            .store()
            .ratings(&self.pool)
            .await
            .unwrap_or_default();
        let now = self.games.now_ms();
        let (config, mut record) = room
            .read(|r| (r.config().clone(), Record::of(r, &ratings, number)))
            .await;
        if self.shown(&id, &config).is_none() {
            return Observation::Unknown;
        }
        if let Some((white, black)) = self.listed_seats(number) {
            (record.white, record.black) = (white, black);
        }
        let delay = self.delay_of(&config);
        if let Some(over) = record.over_by(now, delay) {
            return Observation::Over(over);
        }
        // Under the feeds' lock, which a feed takes to leave when nobody observes it: a feed
        // found here follows its game until this observer leaves too.
        let mut feeds = self.feeds.lock().expect("feeds");
        if let Some(feed) = feeds.get(&id) {
            if let Some((setup, updates)) = feed.subscribe() {
                return Observation::Live { setup, updates };
            }
            // Its end was told just now (the feed is leaving): a feed of its own, which
            // tells the end at once.
        }
        let feed = Arc::new(Feed::new(&record, now, delay));
        let (setup, updates) = feed.subscribe().expect("a new feed");
        feeds.insert(id.clone(), feed.clone());
        tokio::spawn(run_feed(self.clone(), id, feed, room, delay));
        Observation::Live { setup, updates }
    }

    /// The lists again from the store's newest games.
    async fn read_lists(&self) {
        let store = self.games.store();
        let Ok(newest) = store.list(SEED).await else {
            return;
        };
        let ratings = store.ratings(&self.pool).await.unwrap_or_default();
        let mut lists = Lists::default();
        for game in &newest {
            let Some(number) = self.listed_number(game) else {
                continue;
            };
            if game.result.is_some() && lists.recent.len() >= RECENT {
                continue;
            }
            // The list gives no komi nor handicap: the game's settings do.
            let Ok(Some((stored, _))) = store.load(&game.id).await else {
                continue;
            };
            if self.shown(&game.id, &stored.config).is_none() {
                continue;
            }
            let result = game.result.as_deref().map(|re| {
                re.parse::<Outcome>()
                    .ok()
                    .and_then(|o| CgosResult::try_from(o).ok())
                    .unwrap_or(CgosResult::Abort)
            });
            let listed = Match {
                game_id: number,
                started: result.map(|_| Started::from_unix_ms(game.created_ms)),
                size: u8::try_from(game.width).unwrap_or(0),
                komi: komi(stored.config.komi),
                white: seat(&ratings, &game.white),
                black: seat(&ratings, &game.black),
                result,
            };
            match result {
                None => {
                    lists.live.insert(number, listed);
                }
                Some(_) if lists.recent.len() < RECENT => lists.recent.push_front(listed),
                Some(_) => {}
            }
        }
        *self.lists.lock().expect("lists") = lists;
    }

    fn listed_number(&self, game: &GameSummary) -> Option<u64> {
        (game.accounts
            && game.pool() == self.pool
            && game.width == self.size
            && game.height == self.size)
            .then(|| game_number(&game.id))
            .flatten()
    }
}

fn komi(points: f64) -> Komi {
    Komi::from_f64(points).unwrap_or(Komi::from_half_points(0))
}

/// Follows the bus for the showcase: games that start and end.
async fn follow(s: Arc<Showcase>, mut bus: broadcast::Receiver<BusEvent>) {
    s.read_lists().await;
    // Ends held back by the delay, by when they are due (and game number).
    let mut due: BTreeMap<(u64, u64), Told> = BTreeMap::new();
    loop {
        let now = s.games.now_ms();
        while due.first_key_value().is_some_and(|((at, _), _)| *at <= now) {
            let ((_, number), told) = due.pop_first().expect("peeked");
            s.tell_end(number, told);
        }
        let wait = due
            .first_key_value()
            .map(|((at, _), _)| Duration::from_millis(at.saturating_sub(now)));
        let event = tokio::select! {
            event = bus.recv() => event,
            () = async {
                match wait {
                    Some(w) => tokio::time::sleep(w).await,
                    None => std::future::pending().await,
                }
            } => continue,
        };
        match event {
            Ok(BusEvent::Game(GameEvent::Started { id, config })) => {
                let Some(number) = s.shown(&id, &config) else {
                    continue;
                };
                let Some(players) = &config.players else {
                    continue;
                };
                let ratings = s.games.store().ratings(&s.pool).await.unwrap_or_default();
                let listed = Match {
                    game_id: number,
                    started: None,
                    size: u8::try_from(config.width).unwrap_or(0),
                    komi: komi(config.komi),
                    white: seat(&ratings, &players.white),
                    black: seat(&ratings, &players.black),
                    result: None,
                };
                let told = {
                    let mut lists = s.lists.lock().expect("lists");
                    let new = !lists.live.contains_key(&number)
                        && !lists.recent.iter().any(|m| m.game_id == number);
                    lists.live.insert(number, listed.clone());
                    new
                };
                if told {
                    let _ = s.news.send(ViewerMessage::Match(listed));
                }
            }
            Ok(BusEvent::Game(GameEvent::Finished { id, config, .. })) => {
                let Some(number) = s.shown(&id, &config) else {
                    continue;
                };
                let ratings = s.games.store().ratings(&s.pool).await.unwrap_or_default();
                let Ok(Some(room)) = s.games.room(&id).await else {
                    continue;
                };
                let mut record = Record::of(&room, &ratings, number);
                let Some((result, end_ms, used)) = record.end else {
                    continue;
                };
                // Listed with the ratings it started with (as CGOS keeps them).
                if let Some((white, black)) = s.listed_seats(number) {
                    (record.white, record.black) = (white, black);
                }
                let listed = Match {
                    game_id: number,
                    started: Some(record.started),
                    size: record.size,
                    komi: record.komi,
                    white: record.white.clone(),
                    black: record.black.clone(),
                    result: Some(result),
                };
                let gameover = ViewerMessage::Gameover {
                    game_id: number,
                    result,
                    white_used_ms: used.white,
                    black_used_ms: used.black,
                };
                let at = end_ms.saturating_add(s.delay_of(&config));
                due.insert((at, number), Told(listed, gameover));
            }
            Ok(BusEvent::Missed) | Err(broadcast::error::RecvError::Lagged(_)) => {
                s.read_lists().await;
                // The ends still held back stay untold: those games are in play for viewers.
                let mut lists = s.lists.lock().expect("lists");
                for (&(_, number), Told(listed, _)) in &due {
                    lists.recent.retain(|m| m.game_id != number);
                    let playing = Match {
                        started: None,
                        result: None,
                        ..listed.clone()
                    };
                    lists.live.insert(number, playing);
                }
            }
            Ok(_) => {}
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

impl Showcase {
    /// A game's end, due now: listed among the finished games and told to every viewer.
    fn tell_end(&self, number: u64, told: Told) {
        let Told(listed, gameover) = told;
        {
            let mut lists = self.lists.lock().expect("lists");
            lists.live.remove(&number);
            if !lists.recent.iter().any(|m| m.game_id == number) {
                lists.recent.push_back(listed);
                while lists.recent.len() > RECENT {
                    lists.recent.pop_front();
                }
            }
        }
        let _ = self.news.send(gameover);
    }
}

/// A game as viewers see it, read from its room.
struct Record {
    number: u64,
    started: Started,
    size: u8,
    komi: Komi,
    white: Seat,
    black: Seat,
    main_time_ms: u64,
    /// Every move, with when it was played.
    moves: Vec<(u64, ViewedMove)>,
    /// The end: the result, when, and each player's time used (ms).
    end: Option<(CgosResult, u64, ByColor<i64>)>,
    /// A resignation, told as a move before the result (as CGOS does): the resigner's time
    /// left.
    resigned: Option<ViewedMove>,
}

impl Record {
    fn of(room: &Room, ratings: &[Rating], number: u64) -> Record {
        let config = room.config();
        let main = main_time_ms(config);
        let times = room.move_times_ms();
        let moves = timed_moves(room, main)
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                let at = times.get(i).copied().unwrap_or_else(|| room.created_ms());
                (
                    at,
                    ViewedMove {
                        answer: Answer::Move(m.mv),
                        ms_left: m.ms_left,
                    },
                )
            })
            .collect();
        let (white, black) = match &config.players {
            Some(p) => (seat(ratings, &p.white), seat(ratings, &p.black)),
            None => (seat(ratings, &config.white), seat(ratings, &config.black)),
        };
        let mut resigned = None;
        let end = ending(room).map(|(result, _)| {
            let end_ms = room.last_event_ms().unwrap_or_else(|| room.created_ms());
            let clock = room.referee().clock();
            let at = Duration::from_millis(end_ms);
            let left = |c: Color| ms(clock.shown(c, at).main);
            let used = |c: Color| {
                if main > 0 {
                    main as i64 - left(c)
                } else {
                    0
                }
            };
            if let Some(r) = room.referee().result() {
                if let (Ending::Resignation, Outcome::Win { winner, .. }) = (&r.ending, r.outcome) {
                    resigned = Some(ViewedMove {
                        answer: Answer::Resign,
                        ms_left: left(winner.opponent()),
                    });
                }
            }
            (
                result,
                end_ms,
                ByColor::new(used(Color::Black), used(Color::White)),
            )
        });
        Record {
            number,
            started: Started::from_unix_ms(room.created_ms()),
            size: u8::try_from(config.width).unwrap_or(0),
            komi: komi(config.komi),
            white,
            black,
            main_time_ms: main,
            moves,
            end,
            resigned,
        }
    }

    /// `setup` with `moves` (a game in play, or its moves told so far).
    fn setup(&self, moves: Vec<ViewedMove>) -> ViewerSetup {
        ViewerSetup {
            game_id: self.number,
            started: None,
            size: self.size,
            komi: self.komi,
            white: self.white.clone(),
            black: self.black.clone(),
            main_time_ms: self.main_time_ms,
            moves,
            result: None,
        }
    }

    /// The whole record, when the game's end is told by `now` (held back `delay` ms).
    fn over_by(&self, now: u64, delay: u64) -> Option<ViewerSetup> {
        let (result, end_ms, _) = self.end?;
        if end_ms.saturating_add(delay) > now {
            return None;
        }
        let mut moves: Vec<ViewedMove> = self.moves.iter().map(|(_, m)| *m).collect();
        moves.extend(self.resigned);
        Some(ViewerSetup {
            started: Some(self.started),
            result: Some(result),
            ..self.setup(moves)
        })
    }

    /// The updates after the first `known` moves, each with when it is due (`delay` after it
    /// happened); the end last, when over.
    fn updates_from(&self, known: usize, delay: u64) -> Vec<(u64, Update)> {
        let mut updates: Vec<(u64, Update)> = self
            .moves
            .iter()
            .skip(known)
            .map(|(at, m)| (at.saturating_add(delay), Update::Move(*m)))
            .collect();
        if let Some((result, end_ms, _)) = self.end {
            let at = end_ms.saturating_add(delay);
            if let Some(resign) = self.resigned {
                updates.push((at, Update::Move(resign)));
            }
            updates.push((at, Update::Over(result)));
        }
        updates
    }
}

/// One observed game's updates, shared by its observers.
pub(crate) struct Feed {
    tx: broadcast::Sender<Update>,
    told: Mutex<Sent>,
}

/// What a feed has told: the game as a new observer gets it.
struct Sent {
    setup: ViewerSetup,
    /// The end was told: nobody observes the game through this feed any more.
    done: bool,
}

impl Feed {
    /// A feed of the game `record` gives, its moves due by `now` told already.
    fn new(record: &Record, now: u64, delay: u64) -> Feed {
        let moves = record
            .moves
            .iter()
            .take_while(|(at, _)| at.saturating_add(delay) <= now)
            .map(|(_, m)| *m)
            .collect();
        Feed {
            tx: broadcast::channel(UPDATES).0,
            told: Mutex::new(Sent {
                setup: record.setup(moves),
                done: false,
            }),
        }
    }

    /// The game as told so far and its updates from there; `None` once its end is told.
    fn subscribe(&self) -> Option<(ViewerSetup, broadcast::Receiver<Update>)> {
        let told = self.told.lock().expect("told");
        (!told.done).then(|| (told.setup.clone(), self.tx.subscribe()))
    }

    /// Tells `update` to the observers; whether it was the end.
    fn tell(&self, update: Update) -> bool {
        let mut told = self.told.lock().expect("told");
        match update {
            Update::Move(m) => told.setup.moves.push(m),
            Update::Over(_) => told.done = true,
        }
        let _ = self.tx.send(update);
        told.done
    }

    fn moves_told(&self) -> usize {
        self.told.lock().expect("told").setup.moves.len()
    }
}

/// Follows one observed game's room for its feed: each change read, its updates told when due,
/// until its end is told or nobody observes it.
async fn run_feed(
    showcase: Arc<Showcase>,
    id: String,
    feed: Arc<Feed>,
    mut room: RoomWatch,
    delay: u64,
) {
    let number = game_number(&id).unwrap_or(0);
    // Updates read and not yet due, in order; moves read so far.
    let mut pending: VecDeque<(u64, Update)> = VecDeque::new();
    let mut read = feed.moves_told();
    let mut end_read = false;
    let mut changed = true;
    loop {
        if changed && !end_read {
            let ratings: Vec<Rating> = Vec::new();
            let record = room.read(|r| Record::of(r, &ratings, number)).await;
            for (at, update) in record.updates_from(read, delay) {
                if matches!(update, Update::Over(_)) {
                    end_read = true;
                }
                pending.push_back((at, update));
            }
            read = record.moves.len();
        }
        let now = showcase.games.now_ms();
        while pending.front().is_some_and(|(at, _)| *at <= now) {
            let (_, update) = pending.pop_front().expect("peeked");
            if feed.tell(update) {
                showcase.end_feed(&id, &feed);
                return;
            }
        }
        let wait = pending
            .front()
            .map(|(at, _)| Duration::from_millis(at.saturating_sub(now)));
        changed = false;
        tokio::select! {
            alive = room.changed(), if !end_read => {
                if !alive {
                    showcase.end_feed(&id, &feed);
                    return;
                }
                changed = true;
            }
            () = async {
                match wait {
                    Some(w) => tokio::time::sleep(w).await,
                    None => std::future::pending().await,
                }
            } => {}
            () = feed.tx.closed() => {
                // Nobody observes it (unless one came as the last left).
                let mut feeds = showcase.feeds.lock().expect("feeds");
                if feed.tx.receiver_count() == 0 {
                    if feeds.get(&id).is_some_and(|f| Arc::ptr_eq(f, &feed)) {
                        feeds.remove(&id);
                    }
                    return;
                }
            }
        }
    }
}

impl Showcase {
    fn end_feed(&self, id: &str, feed: &Arc<Feed>) {
        let mut feeds = self.feeds.lock().expect("feeds");
        if feeds.get(id).is_some_and(|f| Arc::ptr_eq(f, feed)) {
            feeds.remove(id);
        }
    }
}

#[cfg(test)]
mod tests {
    //! The showcase on tokio's paused clock: no sockets, no sleeps. Games have no clock here,
    //! and the store's writes are made when no delay is pending (a paused runtime waiting for
    //! the store's writer jumps to its next timer).
    use super::*;
    use crate::bus::Bus;
    use crate::clock::Clock;
    use crate::options::Options;
    use crate::room::CreateRequest;
    use crate::store::{SqliteStore, Store};
    use crate::wire::{Act, Players};

    async fn games(dir: &tempfile::TempDir) -> Arc<Games> {
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        let opts = Options {
            clock: Clock::tokio(),
            ..Options::default()
        };
        Games::new(store.clone(), Bus::new(store), opts)
            .await
            .unwrap()
    }

    /// A game on `size`×`size` between the accounts `black` and `white`, without a clock.
    async fn open(games: &Arc<Games>, size: usize, rated: bool) -> (String, u64) {
        let players = Players {
            black: "black".into(),
            white: "white".into(),
        };
        let config = CreateRequest {
            width: Some(size),
            komi: Some(7.5),
            ..CreateRequest::default()
        }
        .config_between(&players, rated)
        .unwrap();
        let id = games.open(config, "test".into()).await.unwrap().id;
        let number = game_number(&id).unwrap();
        (id, number)
    }

    async fn act(games: &Arc<Games>, id: &str, by: Color, act: Act) -> u64 {
        let room = games.room(id).await.unwrap().unwrap();
        games
            .act(id, Some(by), act, Some(room.version()), None)
            .await
            .unwrap();
        let room = games.room(id).await.unwrap().unwrap();
        room.move_times_ms().last().copied().unwrap_or(0)
    }

    async fn settle() {
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
    }

    fn line(m: &ViewerMessage) -> String {
        m.to_string()
    }

    fn update_line(number: u64, u: Update) -> String {
        line(&ViewerMessage::Update {
            game_id: number,
            update: u,
        })
    }

    #[tokio::test(start_paused = true)]
    async fn a_game_is_announced_followed_move_by_move_and_listed_finished() {
        let dir = tempfile::tempdir().unwrap();
        let games = games(&dir).await;
        let showcase = Showcase::start(games.clone(), crate::wire::DEFAULT_POOL, 9, Duration::ZERO);
        let mut news = showcase.news();
        settle().await;
        // Games on another board, or between guests, are not shown.
        let (other, other_number) = open(&games, 5, true).await;
        let guests = CreateRequest {
            width: Some(9),
            ..CreateRequest::default()
        }
        .config()
        .unwrap();
        games.open(guests, "test".into()).await.unwrap();
        let (id, number) = open(&games, 9, true).await;
        let announced = news.recv().await.unwrap();
        assert_eq!(
            line(&announced),
            format!("match {number} - - 9 7.5 white(1500?) black(1500?) -")
        );
        assert!(news.try_recv().is_err(), "one game announced");
        assert_eq!(showcase.listing().len(), 1);
        assert!(matches!(
            showcase.observe(other_number).await,
            Observation::Unknown
        ));
        assert!(matches!(
            showcase.observe(12345).await,
            Observation::Unknown
        ));
        let _ = other;
        act(&games, &id, Color::Black, Act::Play { x: 4, y: 4 }).await;
        let Observation::Live { setup, mut updates } = showcase.observe(number).await else {
            panic!("a game in play")
        };
        assert_eq!(
            line(&ViewerMessage::Setup(setup)),
            format!("setup {number} - - 9 7.5 white(1500?) black(1500?) 0 E5 0")
        );
        act(&games, &id, Color::White, Act::Play { x: 2, y: 6 }).await;
        assert_eq!(
            update_line(number, updates.recv().await.unwrap()),
            format!("update {number} C3 0")
        );
        act(&games, &id, Color::Black, Act::Pass).await;
        assert_eq!(
            update_line(number, updates.recv().await.unwrap()),
            format!("update {number} pass 0")
        );
        act(&games, &id, Color::White, Act::Resign).await;
        assert_eq!(
            update_line(number, updates.recv().await.unwrap()),
            format!("update {number} resign 0")
        );
        assert_eq!(
            update_line(number, updates.recv().await.unwrap()),
            format!("update {number} B+Resign")
        );
        assert!(updates.recv().await.is_err(), "the feed ends with its game");
        assert_eq!(
            line(&news.recv().await.unwrap()),
            format!("gameover {number} B+Resign 0 0")
        );
        // Listed finished, with its day and time; observed: its whole record.
        let created = games.room(&id).await.unwrap().unwrap().created_ms();
        let started = Started::from_unix_ms(created);
        let listing = showcase.listing();
        assert_eq!(listing.len(), 1);
        assert_eq!(
            line(&ViewerMessage::Match(listing[0].clone())),
            format!(
                "match {number} {} {} 9 7.5 white(1500?) black(1500?) B+Resign",
                started.date, started.time
            )
        );
        let Observation::Over(record) = showcase.observe(number).await else {
            panic!("a finished game")
        };
        assert_eq!(
            line(&ViewerMessage::Setup(record)),
            format!(
                "setup {number} {} {} 9 7.5 white(1500?) black(1500?) 0 E5 0 C3 0 pass 0 resign 0 B+Resign",
                started.date, started.time
            )
        );
        assert!(showcase.feeds.lock().unwrap().is_empty());
        // A showcase started afterwards reads its lists from the store.
        let again = Showcase::start(games.clone(), crate::wire::DEFAULT_POOL, 9, Duration::ZERO);
        settle().await;
        while again.listing().is_empty() {
            tokio::task::yield_now().await;
        }
        assert_eq!(again.listing(), listing);
    }

    #[tokio::test(start_paused = true)]
    async fn a_rated_games_moves_and_end_reach_viewers_the_delay_after_they_happen() {
        let dir = tempfile::tempdir().unwrap();
        let games = games(&dir).await;
        let delay = 30_000;
        let showcase = Showcase::start(
            games.clone(),
            crate::wire::DEFAULT_POOL,
            9,
            Duration::from_millis(delay),
        );
        let mut news = showcase.news();
        settle().await;
        // An unrated game's moves are not held back.
        let (free, free_number) = open(&games, 9, false).await;
        news.recv().await.unwrap();
        let Observation::Live { mut updates, .. } = showcase.observe(free_number).await else {
            panic!("a game in play")
        };
        act(&games, &free, Color::Black, Act::Play { x: 0, y: 0 }).await;
        assert_eq!(
            update_line(free_number, updates.recv().await.unwrap()),
            format!("update {free_number} A9 0")
        );
        drop(updates);
        // A rated one's are, by the delay.
        let (id, number) = open(&games, 9, true).await;
        news.recv().await.unwrap();
        let Observation::Live {
            updates: mut first, ..
        } = showcase.observe(number).await
        else {
            panic!("a game in play")
        };
        let played = act(&games, &id, Color::Black, Act::Play { x: 4, y: 4 }).await;
        settle().await;
        assert!(games.now_ms() < played + delay);
        assert!(first.try_recv().is_err(), "held back");
        tokio::time::advance(Duration::from_millis(10_000)).await;
        // A viewer observing meanwhile sees the game as it was the delay ago.
        let Observation::Live {
            setup,
            updates: mut second,
        } = showcase.observe(number).await
        else {
            panic!("a game in play")
        };
        assert!(setup.moves.is_empty(), "{setup:?}");
        assert!(first.try_recv().is_err() && second.try_recv().is_err());
        tokio::time::advance(Duration::from_millis(delay - 10_001)).await;
        settle().await;
        assert!(first.try_recv().is_err() && second.try_recv().is_err());
        tokio::time::advance(Duration::from_millis(1)).await;
        for updates in [&mut first, &mut second] {
            assert_eq!(
                update_line(number, updates.recv().await.unwrap()),
                format!("update {number} E5 0")
            );
        }
        assert!(games.now_ms() >= played + delay);
        // The end too: the game is listed in play, and observed as such, until then.
        let ended = act(&games, &id, Color::White, Act::Resign).await;
        let ended = games
            .room(&id)
            .await
            .unwrap()
            .unwrap()
            .last_event_ms()
            .unwrap_or(ended);
        settle().await;
        assert!(news.try_recv().is_err(), "the end is held back");
        assert!(first.try_recv().is_err());
        assert_eq!(showcase.listing().last().unwrap().result, None);
        assert!(matches!(
            showcase.observe(number).await,
            Observation::Live { .. }
        ));
        tokio::time::advance(Duration::from_millis(delay)).await;
        assert_eq!(
            line(&news.recv().await.unwrap()),
            format!("gameover {number} B+Resign 0 0")
        );
        assert!(games.now_ms() >= ended + delay);
        assert_eq!(
            update_line(number, first.recv().await.unwrap()),
            format!("update {number} resign 0")
        );
        assert_eq!(
            update_line(number, first.recv().await.unwrap()),
            format!("update {number} B+Resign")
        );
        assert!(matches!(
            showcase.observe(number).await,
            Observation::Over(_)
        ));
        let listing = showcase.listing();
        assert_eq!(
            listing.iter().find(|m| m.game_id == number).unwrap().result,
            Some(CgosResult::parse("B+Resign").unwrap())
        );
    }
}
