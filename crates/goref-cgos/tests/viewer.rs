//! CGOS's viewers on the door, against a scripted host, on tokio's paused clock: what a viewer
//! (`v1`) reads of the games listed, announced, observed and ended, and the bounds that keep a
//! viewer from making the server hold more.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use goref_cgos::door::{DoorConfig, Ended, Submitted};
use goref_cgos::protocol::{
    Answer, CgosMove, CgosResult, Match, Seat, Update, ViewedMove, ViewerMessage, ViewerSetup,
};
use goref_cgos::{Door, Entry, GameView, Host, Observation, Refused};
use goref_rules::{Color, Komi};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::sync::{broadcast, watch};

/// Per game: its setup, and its updates (none: finished).
type Games = Arc<Mutex<HashMap<u64, (ViewerSetup, Option<broadcast::Sender<Update>>)>>>;

/// A host that serves viewers only: its news, listing and games are the test's.
#[derive(Clone)]
struct Shows {
    news: broadcast::Sender<ViewerMessage>,
    listing: Arc<Mutex<Vec<Match>>>,
    games: Games,
    observed: Arc<Mutex<Vec<u64>>>,
}

struct NoEntry;

impl Entry for NoEntry {
    async fn wait(&mut self, _on: bool) {}

    async fn next_game(&mut self) -> Option<String> {
        None
    }
}

impl Host for Shows {
    type Login = String;
    type Entry = NoEntry;

    async fn login(&self, _name: &str, _password: &str, _peer: IpAddr) -> Result<String, Refused> {
        Err("engines are not served in this test".into())
    }

    fn name(login: &String) -> &str {
        login
    }

    async fn enter(&self, _login: &String) -> Result<NoEntry, Refused> {
        Err("no".into())
    }

    async fn live_game(&self, _login: &String) -> Option<String> {
        None
    }

    async fn watch(&self, _game: &str) -> Option<watch::Receiver<Arc<GameView>>> {
        None
    }

    async fn play(
        &self,
        _game: &str,
        _color: Color,
        _answer: Submitted,
        _sent: &str,
        _analysis: Option<String>,
    ) -> Result<(), Refused> {
        Err("no".into())
    }

    fn now_ms(&self) -> u64 {
        0
    }

    fn viewer_news(&self) -> Option<broadcast::Receiver<ViewerMessage>> {
        Some(self.news.subscribe())
    }

    async fn listing(&self) -> Vec<Match> {
        self.listing.lock().unwrap().clone()
    }

    async fn observe(&self, game_id: u64) -> Observation {
        self.observed.lock().unwrap().push(game_id);
        match self.games.lock().unwrap().get(&game_id) {
            None => Observation::Unknown,
            Some((setup, None)) => Observation::Over(setup.clone()),
            Some((setup, Some(updates))) => Observation::Live {
                setup: setup.clone(),
                updates: updates.subscribe(),
            },
        }
    }
}

struct Viewer {
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    writer: tokio::io::WriteHalf<DuplexStream>,
}

impl Viewer {
    async fn send(&mut self, line: &str) {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn next(&mut self) -> Option<String> {
        self.lines.next_line().await.unwrap()
    }

    async fn expect(&mut self, line: &str) {
        assert_eq!(self.next().await.as_deref(), Some(line));
    }
}

fn shows() -> Shows {
    Shows {
        news: broadcast::channel(8).0,
        listing: Arc::default(),
        games: Arc::default(),
        observed: Arc::default(),
    }
}

fn config() -> DoorConfig {
    DoorConfig {
        max_unasked_lines: 5,
        max_observed: 2,
        observes_per_minute: 6,
        ..DoorConfig::default()
    }
}

/// A client connected to a door of `host` (a duplex of `capacity` bytes), greeted.
async fn connect(
    host: &Shows,
    config: DoorConfig,
    capacity: usize,
) -> (Viewer, tokio::task::JoinHandle<Ended>) {
    let door = Door::new(host.clone(), config);
    let (client, server) = tokio::io::duplex(capacity);
    let (sr, sw) = tokio::io::split(server);
    let task = tokio::spawn(async move {
        door.serve_connection(sr, sw, IpAddr::V4(Ipv4Addr::LOCALHOST))
            .await
    });
    let (cr, cw) = tokio::io::split(client);
    let mut v = Viewer {
        lines: BufReader::new(cr).lines(),
        writer: cw,
    };
    v.expect("protocol genmove_analyze").await;
    (v, task)
}

/// A viewer connected to a door of `host` (a duplex of `capacity` bytes), past `v1`.
async fn viewer(
    host: &Shows,
    config: DoorConfig,
    capacity: usize,
) -> (Viewer, tokio::task::JoinHandle<Ended>) {
    let (mut v, task) = connect(host, config, capacity).await;
    let before = host.news.receiver_count();
    v.send("v1 cgosview 0.32").await;
    // The door follows the news once it has read `v1`.
    while host.news.receiver_count() == before {
        tokio::task::yield_now().await;
    }
    (v, task)
}

fn seat(name: &str, elo: u32) -> Seat {
    Seat {
        name: name.into(),
        rating: Some(goref_cgos::Rating {
            elo,
            provisional: false,
        }),
    }
}

fn listed(game_id: u64, result: Option<&str>) -> Match {
    Match {
        game_id,
        started: result.map(|_| goref_cgos::Started::from_unix_ms(1_709_993_100_000)),
        size: 9,
        komi: Komi::from_half_points(15),
        white: seat("white", 1600),
        black: seat("black", 1500),
        result: result.map(|r| CgosResult::parse(r).unwrap()),
    }
}

fn setup(game_id: u64, moves: &[(&str, i64)], result: Option<&str>) -> ViewerSetup {
    ViewerSetup {
        game_id,
        started: result.map(|_| goref_cgos::Started::from_unix_ms(1_709_993_100_000)),
        size: 9,
        komi: Komi::from_half_points(15),
        white: seat("white", 1600),
        black: seat("black", 1500),
        main_time_ms: 60_000,
        moves: moves
            .iter()
            .map(|&(m, ms_left)| ViewedMove {
                answer: Answer::parse(m).unwrap(),
                ms_left,
            })
            .collect(),
        result: result.map(|r| CgosResult::parse(r).unwrap()),
    }
}

fn moved(m: &str, ms_left: i64) -> Update {
    Update::Move(ViewedMove {
        answer: Answer::Move(CgosMove::parse(m).unwrap()),
        ms_left,
    })
}

#[tokio::test(start_paused = true)]
async fn a_viewer_is_listed_the_games_told_of_each_and_follows_the_ones_it_observes() {
    let host = shows();
    *host.listing.lock().unwrap() = vec![listed(7, Some("B+2.5")), listed(9, None)];
    let (updates, _) = broadcast::channel(16);
    host.games.lock().unwrap().insert(
        9,
        (setup(9, &[("E5", 59_000)], None), Some(updates.clone())),
    );
    host.games.lock().unwrap().insert(
        7,
        (
            setup(7, &[("E5", 59_000), ("resign", 58_000)], Some("B+Resign")),
            None,
        ),
    );
    let (mut v, task) = viewer(&host, config(), 64 * 1024).await;
    // No name, no password: the list at once, finished games with their date and result.
    v.expect("match 7 2024-03-09 14:05 9 7.5 white(1600) black(1500) B+2.5")
        .await;
    v.expect("match 9 - - 9 7.5 white(1600) black(1500) -")
        .await;
    // A game that starts, one that ends: told to every viewer.
    host.news
        .send(ViewerMessage::Match(listed(10, None)))
        .unwrap();
    v.expect("match 10 - - 9 7.5 white(1600) black(1500) -")
        .await;
    // Observing a game in play: its moves so far, then each move, then its end.
    v.send("observe 9").await;
    v.expect("setup 9 - - 9 7.5 white(1600) black(1500) 60000 E5 59000")
        .await;
    updates.send(moved("C3", 58_500)).unwrap();
    v.expect("update 9 C3 58500").await;
    updates.send(moved("pass", 57_000)).unwrap();
    v.expect("update 9 pass 57000").await;
    updates
        .send(Update::Move(ViewedMove {
            answer: Answer::Resign,
            ms_left: 56_000,
        }))
        .unwrap();
    updates
        .send(Update::Over(CgosResult::parse("B+Resign").unwrap()))
        .unwrap();
    v.expect("update 9 resign 56000").await;
    v.expect("update 9 B+Resign").await;
    host.news
        .send(ViewerMessage::Gameover {
            game_id: 9,
            result: CgosResult::parse("B+Resign").unwrap(),
            white_used_ms: 4000,
            black_used_ms: 3000,
        })
        .unwrap();
    v.expect("gameover 9 B+Resign 4000 3000").await;
    // A finished game: its whole record; an unknown one: `?`.
    v.send("observe 7").await;
    v.expect("setup 7 2024-03-09 14:05 9 7.5 white(1600) black(1500) 60000 E5 59000 resign 58000 B+Resign")
        .await;
    v.send("observe 123").await;
    v.expect("setup 123 ?").await;
    v.send("quit").await;
    assert_eq!(v.next().await, None);
    assert_eq!(task.await.unwrap(), Ended::Left);
    assert_eq!(*host.observed.lock().unwrap(), [9, 7, 123]);
}

#[tokio::test(start_paused = true)]
async fn observing_again_starts_over_and_observations_are_bounded() {
    let host = shows();
    let mut senders = Vec::new();
    for id in 1..=3 {
        let (updates, _) = broadcast::channel(16);
        host.games
            .lock()
            .unwrap()
            .insert(id, (setup(id, &[], None), Some(updates.clone())));
        senders.push(updates);
    }
    let (mut v, _task) = viewer(&host, config(), 64 * 1024).await;
    v.send("observe 1").await;
    v.expect("setup 1 - - 9 7.5 white(1600) black(1500) 60000")
        .await;
    v.send("observe 2").await;
    v.expect("setup 2 - - 9 7.5 white(1600) black(1500) 60000")
        .await;
    // Two at once (the config's bound): a third in play waits for one to end.
    v.send("observe 3").await;
    v.expect("info observing at most 2 games at once: not game 3")
        .await;
    // Game 1 again: a new setup, and each update once.
    host.games.lock().unwrap().get_mut(&1).unwrap().0 = setup(1, &[("D4", 50_000)], None);
    v.send("observe 1").await;
    v.expect("setup 1 - - 9 7.5 white(1600) black(1500) 60000 D4 50000")
        .await;
    senders[0].send(moved("C3", 49_000)).unwrap();
    v.expect("update 1 C3 49000").await;
    // Game 2 ends: room for game 3.
    senders[1].send(Update::Over(CgosResult::Draw)).unwrap();
    v.expect("update 2 Draw").await;
    v.send("observe 3").await;
    v.expect("setup 3 - - 9 7.5 white(1600) black(1500) 60000")
        .await;
    // An unknown game takes no room (two in play are observed): the sixth request.
    v.send("observe 77").await;
    v.expect("setup 77 ?").await;
    // Six requests a minute (the config's): the seventh is refused, one more comes 10 s on.
    v.send("observe 77").await;
    v.expect("info too many observe requests: wait a moment")
        .await;
    tokio::time::advance(Duration::from_secs(10)).await;
    v.send("observe 77").await;
    v.expect("setup 77 ?").await;
}

#[tokio::test(start_paused = true)]
async fn a_viewer_that_falls_behind_or_chatters_is_closed() {
    // News it does not keep up with: closed (the channel's bound, 8 here).
    let host = shows();
    let (mut v, task) = viewer(&host, config(), 256).await;
    for id in 0..40 {
        host.news
            .send(ViewerMessage::Match(listed(id, None)))
            .unwrap();
    }
    // The door writes what fits, then finds the news gone past it.
    let mut read = 0;
    while v.next().await.is_some() {
        read += 1;
    }
    assert!(read < 40, "{read} lines");
    assert_eq!(
        task.await.unwrap(),
        Ended::Dropped("the viewer fell behind the news".into())
    );
    // A viewer that does not read at all is closed after the write timeout.
    let (_v, task) = viewer(&host, config(), 64).await;
    for id in 0..4 {
        host.news
            .send(ViewerMessage::Match(listed(id, None)))
            .unwrap();
    }
    let waited = tokio::time::Instant::now();
    assert_eq!(task.await.unwrap(), Ended::Left);
    assert_eq!(waited.elapsed(), DoorConfig::default().write_timeout);
    // Lines that are not `observe`: ignored, up to the bound.
    let (mut v, task) = viewer(&host, config(), 64 * 1024).await;
    for _ in 0..6 {
        v.send("who").await;
    }
    assert_eq!(v.next().await, None);
    assert_eq!(task.await.unwrap(), Ended::Dropped("too many lines".into()));
}

#[tokio::test(start_paused = true)]
async fn an_observer_that_falls_behind_its_game_is_closed() {
    let host = shows();
    let (updates, _) = broadcast::channel(4);
    host.games
        .lock()
        .unwrap()
        .insert(5, (setup(5, &[], None), Some(updates.clone())));
    let (mut v, task) = viewer(&host, config(), 64 * 1024).await;
    v.send("observe 5").await;
    v.expect("setup 5 - - 9 7.5 white(1600) black(1500) 60000")
        .await;
    // More updates at once than the game's channel holds, before the door reads any.
    for i in 0..10 {
        updates.send(moved("pass", i)).unwrap();
    }
    while v.next().await.is_some() {}
    assert_eq!(
        task.await.unwrap(),
        Ended::Dropped("the viewer fell behind game 5".into())
    );
}

#[tokio::test(start_paused = true)]
async fn only_v1_is_a_viewer() {
    // `e1` is an engine, asked its name and password even where viewers are served (this
    // host's login refuses it). A host serving no viewers refuses `v1`: tests/door.rs.
    let host = shows();
    let (mut v, task) = connect(&host, config(), 4096).await;
    v.send("e1 x").await;
    v.expect("username").await;
    v.send("someone").await;
    v.expect("password").await;
    v.send("secret").await;
    v.expect("Error: engines are not served in this test").await;
    assert!(matches!(task.await.unwrap(), Ended::Refused(_)));
}

mod strangers {
    use super::*;
    use proptest::prelude::*;

    fn chunk() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..200),
            proptest::sample::select(vec![
                "observe 1",
                "observe 2",
                "observe 99",
                "observe",
                "observe x",
                "observe 1 2",
                "quit",
                "",
                "\r",
                "v1",
            ])
            .prop_map(|l| format!("{l}\n").into_bytes()),
            (1usize..3).prop_map(|n| vec![b'x'; n * goref_cgos::MAX_LINE]),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]

        /// Whatever a viewer sends, while its games move, then closing its side, the
        /// connection ends without a panic.
        #[test]
        fn anything_a_viewer_sends_ends_its_connection(
            chunks in proptest::collection::vec(chunk(), 0..12),
            moves in 0usize..20,
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .unwrap();
            runtime.block_on(async {
                let host = shows();
                let (updates, _) = broadcast::channel(8);
                host.games.lock().unwrap().insert(1, (setup(1, &[], None), Some(updates.clone())));
                host.games.lock().unwrap().insert(2, (setup(2, &[], Some("W+Time")), None));
                let (v, task) = viewer(&host, config(), 64 * 1024).await;
                let Viewer { mut lines, mut writer } = v;
                let reader = tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
                for c in chunks {
                    if writer.write_all(&c).await.is_err() {
                        break;
                    }
                    for i in 0..moves {
                        let _ = updates.send(moved("pass", i as i64));
                    }
                    let _ = host.news.send(ViewerMessage::Match(listed(3, None)));
                }
                let _ = writer.shutdown().await;
                let ended = tokio::time::timeout(Duration::from_secs(3600), task).await;
                assert!(matches!(ended, Ok(Ok(_))), "the connection ended: {ended:?}");
                reader.abort();
            });
        }
    }
}
