//! The door's dialogue against a scripted host, on tokio's paused clock: what a CGOS client
//! reads for each change of its game, and what reaches the server from what it answers.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use goref_cgos::door::{DoorConfig, Ended, Submitted, REPLACED_TEXT};
use goref_cgos::protocol::{
    Answer, CgosMove, CgosResult, CgosWin, Date, Gameover, Seat, TimedMove, Vertex,
};
use goref_cgos::{Door, Entry, GameView, Host, Refused};
use goref_rules::{ByColor, Color, Komi};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::sync::{mpsc, watch};

/// What the scripted host saw.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Wait(String, bool),
    Play(Color, Submitted, String, Option<String>),
}

/// Per player entered: where its games are announced.
type Starts = Arc<Mutex<Vec<(String, mpsc::UnboundedSender<String>)>>>;
/// Per game id: its views.
type Views = Arc<Mutex<Vec<(String, watch::Receiver<Arc<GameView>>)>>>;

/// A host whose games the test drives: `games` sends a game id to the player named; each
/// game's views are pushed by the test.
#[derive(Clone)]
struct Scripted {
    seen: mpsc::UnboundedSender<Seen>,
    starts: Starts,
    views: Views,
    live: Arc<Mutex<Option<String>>>,
    start: tokio::time::Instant,
}

struct ScriptedEntry {
    name: String,
    seen: mpsc::UnboundedSender<Seen>,
    games: mpsc::UnboundedReceiver<String>,
}

impl Entry for ScriptedEntry {
    async fn wait(&mut self, on: bool) {
        let _ = self.seen.send(Seen::Wait(self.name.clone(), on));
    }

    async fn next_game(&mut self) -> Option<String> {
        self.games.recv().await
    }
}

impl Host for Scripted {
    type Login = String;
    type Entry = ScriptedEntry;

    async fn login(&self, name: &str, password: &str, _peer: IpAddr) -> Result<String, Refused> {
        if password == format!("pw-{name}") {
            Ok(name.to_string())
        } else {
            Err("Sorry, password doesn't match".into())
        }
    }

    fn name(login: &String) -> &str {
        login
    }

    async fn enter(&self, login: &String) -> Result<ScriptedEntry, Refused> {
        let (tx, games) = mpsc::unbounded_channel();
        self.starts.lock().unwrap().push((login.clone(), tx));
        Ok(ScriptedEntry {
            name: login.clone(),
            seen: self.seen.clone(),
            games,
        })
    }

    async fn live_game(&self, _login: &String) -> Option<String> {
        self.live.lock().unwrap().clone()
    }

    async fn watch(&self, game: &str) -> Option<watch::Receiver<Arc<GameView>>> {
        let views = self.views.lock().unwrap();
        views
            .iter()
            .find(|(id, _)| id == game)
            .map(|(_, rx)| rx.clone())
    }

    async fn play(
        &self,
        _game: &str,
        color: Color,
        answer: Submitted,
        sent: &str,
        analysis: Option<String>,
    ) -> Result<(), Refused> {
        let _ = self
            .seen
            .send(Seen::Play(color, answer, sent.to_string(), analysis));
        Ok(())
    }

    fn now_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
}

/// The client's end of a connection.
struct Client {
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    writer: tokio::io::WriteHalf<DuplexStream>,
}

impl Client {
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

    async fn login(&mut self, hello: &str, name: &str, password: &str) {
        self.expect("protocol genmove_analyze").await;
        self.send(hello).await;
        self.expect("username").await;
        self.send(name).await;
        self.expect("password").await;
        self.send(password).await;
    }
}

struct Fixture {
    door: Arc<Door<Scripted>>,
    host: Scripted,
    seen: mpsc::UnboundedReceiver<Seen>,
}

fn fixture() -> Fixture {
    let (tx, seen) = mpsc::unbounded_channel();
    let host = Scripted {
        seen: tx,
        starts: Arc::default(),
        views: Arc::default(),
        live: Arc::default(),
        start: tokio::time::Instant::now(),
    };
    let config = DoorConfig {
        ready_timeout: Duration::from_secs(60),
        max_unasked_lines: 5,
        ..DoorConfig::default()
    };
    Fixture {
        door: Door::new(host.clone(), config),
        host,
        seen,
    }
}

/// Connects a client to the door; the connection's end comes on the handle.
fn connect(door: &Arc<Door<Scripted>>) -> (Client, tokio::task::JoinHandle<Ended>) {
    let (client, server) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(server);
    let door = door.clone();
    let task = tokio::spawn(async move {
        door.serve_connection(sr, sw, IpAddr::V4(Ipv4Addr::LOCALHOST))
            .await
    });
    let (cr, cw) = tokio::io::split(client);
    (
        Client {
            lines: BufReader::new(cr).lines(),
            writer: cw,
        },
        task,
    )
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

fn vertex(text: &str) -> CgosMove {
    CgosMove::Play(Vertex::parse(text).unwrap())
}

/// A 9×9 game between `black` and `white`, 60 s each, at `at_ms`.
fn view(moves: &[(&str, i64)], to_move: Option<Color>, left: (i64, i64), at_ms: u64) -> GameView {
    GameView {
        game_id: 42,
        size: 9,
        komi: Komi::from_half_points(15),
        main_time_ms: 60_000,
        white: seat("white", 1600),
        black: seat("black", 1500),
        moves: moves
            .iter()
            .map(|&(m, ms_left)| TimedMove {
                mv: CgosMove::parse(m).unwrap(),
                ms_left,
            })
            .collect(),
        to_move,
        left_ms: ByColor::new(left.0, left.1),
        at_ms,
        over: None,
    }
}

async fn seen(f: &mut Fixture) -> Seen {
    f.seen.recv().await.expect("the host hears")
}

#[tokio::test(start_paused = true)]
async fn a_game_is_set_up_asked_relayed_and_ended_in_cgos_lines() {
    let mut f = fixture();
    let (views_tx, views) =
        watch::channel(Arc::new(view(&[], Some(Color::Black), (60_000, 60_000), 0)));
    f.host.views.lock().unwrap().push(("g42".into(), views));
    let (mut black, _task) = connect(&f.door);
    black
        .login("e1 scripted genmove_analyze", "black", "pw-black")
        .await;
    assert_eq!(seen(&mut f).await, Seen::Wait("black".into(), true));
    // The clock ran 1.5 s between the view and the question.
    tokio::time::advance(Duration::from_millis(1500)).await;
    let start = f.host.starts.lock().unwrap()[0].1.clone();
    start.send("g42".into()).unwrap();
    assert_eq!(seen(&mut f).await, Seen::Wait("black".into(), false));
    black
        .expect("setup 42 9 7.5 60000 white(1600) black(1500)")
        .await;
    black.expect("genmove b 58500").await;
    black.send("d4 {\"winrate\": 0.5}").await;
    assert_eq!(
        seen(&mut f).await,
        Seen::Play(
            Color::Black,
            Submitted::Answer(Answer::Move(vertex("D4"))),
            "d4".into(),
            Some("{\"winrate\": 0.5}".into())
        )
    );
    // The server took it; White answered: relayed, then Black's turn again.
    let now = f.host.now_ms();
    views_tx
        .send(Arc::new(view(
            &[("D4", 58_250), ("C3", 59_000)],
            Some(Color::Black),
            (58_250, 59_000),
            now,
        )))
        .unwrap();
    black.expect("play w C3 59000").await;
    black.expect("genmove b 58250").await;
    // A line that is no move loses as CGOS's 'do not understand syntax'.
    black.send("z99 nonsense").await;
    assert_eq!(
        seen(&mut f).await,
        Seen::Play(
            Color::Black,
            Submitted::Unreadable,
            "z99 nonsense".into(),
            None
        )
    );
    let mut over = view(&[("D4", 58_250), ("C3", 59_000)], None, (0, 59_000), now);
    over.over = Some(Gameover {
        date: Date::new(2026, 11, 27).unwrap(),
        result: CgosResult::Win {
            winner: Color::White,
            by: CgosWin::Illegal,
        },
        text: "Illegal move error:do not understand syntax move:z99".into(),
    });
    views_tx.send(Arc::new(over)).unwrap();
    black
        .expect(
            "gameover 2026-11-27 W+Illegal Illegal move error:do not understand syntax move:z99",
        )
        .await;
    // Only `ready` puts it back in the pairing.
    black.send("ready").await;
    assert_eq!(seen(&mut f).await, Seen::Wait("black".into(), true));
}

#[tokio::test(start_paused = true)]
async fn a_player_back_gets_setup_with_its_moves_and_genmove_on_its_turn() {
    let mut f = fixture();
    let (_views_tx, views) = watch::channel(Arc::new(view(
        &[("E5", 59_000), ("C3", 58_000), ("pass", 57_000)],
        Some(Color::White),
        (57_000, 50_000),
        0,
    )));
    f.host.views.lock().unwrap().push(("g42".into(), views));
    *f.host.live.lock().unwrap() = Some("g42".into());
    let (mut white, _task) = connect(&f.door);
    white.login("e1 scripted", "white", "pw-white").await;
    white
        .expect("setup 42 9 7.5 60000 white(1600) black(1500) E5 59000 C3 58000 pass 57000")
        .await;
    white.expect("genmove w 50000").await;
    // Without genmove_analyze, text after the move makes it unreadable.
    white.send("f6 {}").await;
    assert_eq!(
        seen(&mut f).await,
        Seen::Play(Color::White, Submitted::Unreadable, "f6 {}".into(), None)
    );
}

#[tokio::test(start_paused = true)]
async fn a_second_login_replaces_the_first_and_refusals_close() {
    let mut f = fixture();
    let (mut first, first_task) = connect(&f.door);
    first.login("e1 scripted", "black", "pw-black").await;
    assert_eq!(seen(&mut f).await, Seen::Wait("black".into(), true));
    let (mut second, _task) = connect(&f.door);
    second.login("e1 scripted", "black", "pw-black").await;
    first.expect(&format!("info {REPLACED_TEXT}")).await;
    assert_eq!(first.next().await, None);
    assert_eq!(first_task.await.unwrap(), Ended::Replaced);
    // Refusals: `Error: …`, then closed.
    for (hello, name, password) in [
        ("x1", "", ""),
        ("v1 viewer", "", ""),
        ("e1", "black", "wrong"),
        ("e1", "black", "old new"),
    ] {
        let (mut c, task) = connect(&f.door);
        c.expect("protocol genmove_analyze").await;
        c.send(hello).await;
        let mut line = c.next().await.unwrap();
        if line == "username" {
            c.send(name).await;
            c.expect("password").await;
            c.send(password).await;
            line = c.next().await.unwrap();
        }
        assert!(
            line.starts_with("Error: "),
            "{hello} {name} {password}: {line}"
        );
        assert_eq!(c.next().await, None);
        assert!(matches!(task.await.unwrap(), Ended::Refused(_)));
    }
    // A client silent during the handshake is refused after the handshake timeout.
    let (mut silent, task) = connect(&f.door);
    silent.expect("protocol genmove_analyze").await;
    let waited = tokio::time::Instant::now();
    assert!(silent.next().await.unwrap().starts_with("Error: "));
    assert_eq!(waited.elapsed(), DoorConfig::default().handshake_timeout);
    assert!(matches!(task.await.unwrap(), Ended::Refused(_)));
}

#[tokio::test(start_paused = true)]
async fn lines_nobody_asked_for_are_bounded_and_ready_must_come() {
    let mut f = fixture();
    let (mut c, task) = connect(&f.door);
    c.login("e1 scripted", "black", "pw-black").await;
    assert_eq!(seen(&mut f).await, Seen::Wait("black".into(), true));
    for _ in 0..6 {
        c.send("hello?").await;
    }
    assert_eq!(c.next().await, None);
    assert_eq!(task.await.unwrap(), Ended::Dropped("too many lines".into()));
    // After gameover, `ready` within the ready timeout or the connection closes.
    let mut over = view(&[], None, (60_000, 60_000), 0);
    over.over = Some(Gameover {
        date: Date::new(2026, 11, 27).unwrap(),
        result: CgosResult::Win {
            winner: Color::Black,
            by: CgosWin::Resign,
        },
        text: "Resignation".into(),
    });
    let mut running = view(&[], Some(Color::White), (60_000, 60_000), 0);
    running.moves.clear();
    let (views_tx, views) = watch::channel(Arc::new(running));
    f.host.views.lock().unwrap().push(("g7".into(), views));
    let (mut c, task) = connect(&f.door);
    c.login("e1 scripted", "black", "pw-black").await;
    assert_eq!(seen(&mut f).await, Seen::Wait("black".into(), true));
    let start = f.host.starts.lock().unwrap().last().unwrap().1.clone();
    start.send("g7".into()).unwrap();
    c.expect("setup 42 9 7.5 60000 white(1600) black(1500)")
        .await;
    views_tx.send(Arc::new(over)).unwrap();
    c.expect("gameover 2026-11-27 B+Resign Resignation").await;
    let waited = tokio::time::Instant::now();
    assert_eq!(c.next().await, None);
    assert_eq!(waited.elapsed(), Duration::from_secs(60));
    assert_eq!(
        task.await.unwrap(),
        Ended::Dropped("no ready after gameover".into())
    );
}

mod strangers {
    use super::*;
    use proptest::prelude::*;

    fn chunk() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            // Bytes of any kind.
            proptest::collection::vec(any::<u8>(), 0..200),
            // Lines that look like the protocol's, in any order.
            proptest::sample::select(vec![
                "e1 x",
                "e1 x genmove_analyze",
                "v1",
                "black",
                "pw-black",
                "pw-nope",
                "old new",
                "ready",
                "quit",
                "d4",
                "pass",
                "resign",
                "z99",
                "",
                "   ",
                "\r",
            ])
            .prop_map(|l| format!("{l}\n").into_bytes()),
            // A line too long.
            (1usize..3).prop_map(|n| vec![b'x'; n * goref_cgos::MAX_LINE]),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever a client sends, then closing its side, the connection ends (on the paused
        /// clock: at the latest after the handshake's or ready's timeout), without a panic.
        #[test]
        fn anything_a_client_sends_ends_its_connection(
            logged_in in any::<bool>(),
            chunks in proptest::collection::vec(chunk(), 0..12),
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .start_paused(true)
                .build()
                .unwrap();
            runtime.block_on(async {
                let f = fixture();
                let (views_tx, views) = watch::channel(Arc::new(view(&[], Some(Color::Black), (60_000, 60_000), 0)));
                f.host.views.lock().unwrap().push(("g1".into(), views));
                *f.host.live.lock().unwrap() = Some("g1".into());
                let (client, task) = connect(&f.door);
                let Client { mut lines, mut writer } = client;
                // Read whatever the door says, so that it never blocks on writing.
                let reader = tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
                // Half the time after a good login: the game's states too.
                let login: &[u8] = if logged_in { b"e1 x genmove_analyze\nblack\npw-black\n" } else { b"" };
                let _ = writer.write_all(login).await;
                for c in chunks {
                    if writer.write_all(&c).await.is_err() {
                        break;
                    }
                }
                let _ = writer.shutdown().await;
                let ended = tokio::time::timeout(Duration::from_secs(3600), task).await;
                assert!(matches!(ended, Ok(Ok(_))), "the connection ended: {ended:?}");
                reader.abort();
                drop(views_tx);
            });
        }
    }
}
