//! `goref serve --cgos`: CGOS's programs join through the CGOS protocol, all real processes
//! over real sockets. The clients are the project's own (goref-cgos's engine client driving
//! GNU Go, written from the protocol) and scripted ones that send CGOS's lines by hand.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{check_record, games, get_json, have_gnugo, until, Server};
use goref_cgos::{ClientConfig, GameRecord};
use goref_gtp::EngineSpec;
use goref_server::client::http;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

const GNUGO_CGOS: &str = "/usr/games/gnugo --mode gtp --level 0 --chinese-rules --capture-all-dead";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("goref-cgos-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `goref serve` with CGOS's door on a free port: the server, its HTTP and CGOS addresses.
fn serve(dir: &Path, extra: &[&str]) -> (Server, SocketAddr, SocketAddr) {
    serve_on(dir.join("goref.db").as_os_str(), extra)
}

/// As [`serve`], on the database `db` (an SQLite file or a `postgres://` URL).
fn serve_on(db: &std::ffi::OsStr, extra: &[&str]) -> (Server, SocketAddr, SocketAddr) {
    let mut args = vec!["--cgos", "127.0.0.1:0", "--pairing-interval", "300ms"];
    args.extend_from_slice(extra);
    let server = common::serve(db, &args);
    let http = server.addr;
    // The first line names both: "… http://A (database D), CGOS on B".
    let cgos = cgos_addr(&server);
    (server, http, cgos)
}

fn cgos_addr(server: &Server) -> SocketAddr {
    server
        .first_line
        .split("CGOS on ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| c.is_whitespace() || c == ',').next())
        .unwrap_or_else(|| panic!("no CGOS address in '{}'", server.first_line))
        .parse()
        .unwrap()
}

/// The engine client (goref-cgos) with GNU Go: plays `games` games as `name`.
async fn gnugo_client(cgos: SocketAddr, name: &str, games: usize) -> Vec<GameRecord> {
    let spec = EngineSpec::parse(GNUGO_CGOS).unwrap();
    let mut config = ClientConfig::new(name, &format!("pw-{name}"));
    config.games = Some(games);
    config.retry_delay = Duration::from_millis(200);
    let (_stop_tx, stop) = tokio::sync::watch::channel(false);
    goref_cgos::run(&cgos.to_string(), &spec, &config, stop)
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gnugo_cgos_clients_are_paired_and_play_to_a_gameover_equal_to_the_record() {
    if !have_gnugo() {
        return;
    }
    let dir = temp_dir("two");
    let db = dir.join("goref.db");
    two_gnugo_clients_play(&dir, db.as_os_str()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_two_gnugo_cgos_clients_play_to_a_gameover_equal_to_the_record() {
    let Some(url) = common::pg_database("cgos_two") else {
        return;
    };
    if !have_gnugo() {
        return;
    }
    two_gnugo_clients_play(&temp_dir("two-pg"), std::ffi::OsStr::new(&url)).await;
}

/// Two CGOS clients driving GNU Go log in to `goref serve` on `db`, are paired and play a
/// game whose `gameover` is the stored game's result and its record's `RE`.
async fn two_gnugo_clients_play(dir: &Path, db: &std::ffi::OsStr) {
    let (_server, addr, cgos) = serve_on(db, &["--pairing-time", "5m", "--pairing-komi", "7.5"]);
    let started = Instant::now();
    let (a, b) = tokio::join!(
        gnugo_client(cgos, "gnugo-a", 1),
        gnugo_client(cgos, "gnugo-b", 1)
    );
    let took = started.elapsed();
    assert_eq!((a.len(), b.len()), (1, 1));
    assert_eq!(a[0].game_id, b[0].game_id);
    assert_eq!(a[0].result, b[0].result);
    assert_ne!(a[0].color, b[0].color);
    let listed = games(addr).await;
    assert_eq!(listed.len(), 1);
    let game = &listed[0];
    let id = game["id"].as_str().unwrap();
    assert_eq!(u64::from_str_radix(id, 16).unwrap(), a[0].game_id);
    assert_eq!(
        (game["rules"].as_str(), game["end"].as_str()),
        (Some("nstt"), Some("all-alive"))
    );
    let re = check_record(addr, dir, id).await;
    assert_eq!(
        re,
        a[0].result.to_sgf(),
        "CGOS's gameover is the record's RE"
    );
    assert_eq!(game["result"].as_str(), Some(re.as_str()));
    eprintln!(
        "a 9x9 CGOS game of GNU Go (level 0) against itself: {} in {:.1} s, {} moves",
        a[0].result,
        took.as_secs_f64(),
        game["moves"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_cgos_clients_on_two_instances_are_paired_across_them_and_finish() {
    let Some(url) = common::pg_database("cgos_across") else {
        return;
    };
    if !have_gnugo() {
        return;
    }
    let dir = temp_dir("across");
    let db = std::ffi::OsStr::new(&url);
    // One minute each: a player that never hears of its opponent's move loses on time.
    let flags = ["--pairing-time", "1m", "--pairing-komi", "7.5"];
    let (_one, addr, cgos_one) = serve_on(db, &flags);
    let (_two, _, cgos_two) = serve_on(db, &flags);
    // One game: two players are not paired twice in a row (CGOS's rule).
    let (a, b) = tokio::join!(
        gnugo_client(cgos_one, "gnugo-one", 1),
        gnugo_client(cgos_two, "gnugo-two", 1)
    );
    assert_eq!((a.len(), b.len()), (1, 1));
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.game_id, y.game_id, "paired across the instances");
        assert_eq!(x.result, y.result);
        assert_ne!(x.color, y.color);
        let re = x.result.to_sgf();
        assert!(!re.ends_with("+Time"), "no time loss: {re}");
        let id = format!("{:x}", x.game_id);
        let listed = games(addr).await;
        let game = listed
            .iter()
            .find(|g| {
                g["id"]
                    .as_str()
                    .is_some_and(|i| u64::from_str_radix(i, 16).ok() == Some(x.game_id))
            })
            .unwrap_or_else(|| panic!("game {id} listed"));
        let id = game["id"].as_str().unwrap();
        assert_eq!(
            check_record(addr, &dir, id).await,
            re,
            "gameover is the record's RE"
        );
    }
}

/// A scripted CGOS client: lines by hand.
struct Raw {
    lines: Lines<BufReader<OwnedReadHalf>>,
    writer: OwnedWriteHalf,
}

impl Raw {
    async fn connect(cgos: SocketAddr) -> Raw {
        let stream = TcpStream::connect(cgos).await.unwrap();
        let (r, w) = stream.into_split();
        Raw {
            lines: BufReader::new(r).lines(),
            writer: w,
        }
    }

    async fn send(&mut self, line: &str) {
        self.writer
            .write_all(format!("{line}\r\n").as_bytes())
            .await
            .unwrap();
    }

    /// The next line (60 s at most); `None` when the server closed the connection.
    async fn next(&mut self) -> Option<String> {
        tokio::time::timeout(Duration::from_secs(60), self.lines.next_line())
            .await
            .expect("a line within 60 s")
            .unwrap_or(None)
    }

    /// The next line, which begins with `word`.
    async fn expect(&mut self, word: &str) -> String {
        let line = self.next().await.expect("the connection is open");
        assert!(line.starts_with(word), "expected '{word}…', got '{line}'");
        line
    }

    /// Logs in as `name` (password `pw-NAME`) with the `hello` line (`e1 …`).
    async fn login(cgos: SocketAddr, name: &str, hello: &str) -> Raw {
        Raw::login_with(cgos, name, &format!("pw-{name}"), hello).await
    }

    /// Answers the handshake with `hello`, `name` and `password`.
    async fn login_with(cgos: SocketAddr, name: &str, password: &str, hello: &str) -> Raw {
        let mut raw = Raw::connect(cgos).await;
        raw.expect("protocol").await;
        raw.send(hello).await;
        raw.expect("username").await;
        raw.send(name).await;
        raw.expect("password").await;
        raw.send(password).await;
        raw
    }
}

/// Two scripted players log in and are paired: (Black, White) and the `setup` line.
async fn paired(cgos: SocketAddr, a: &str, b: &str, hello: &str) -> (Raw, Raw, String) {
    let mut first = Raw::login(cgos, a, hello).await;
    let mut second = Raw::login(cgos, b, hello).await;
    let setup = first.expect("setup").await;
    assert_eq!(second.expect("setup").await, setup);
    // setup <id> <size> <komi> <time> <white>(r) <black>(r)
    let black_name = setup.split_whitespace().nth(6).unwrap().to_string();
    if black_name.starts_with(&format!("{a}(")) {
        (first, second, setup)
    } else {
        (second, first, setup)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_handshake_gets_error_and_is_closed() {
    let dir = temp_dir("handshake");
    let (_server, addr, cgos) = serve(&dir, &[]);
    for (hello, name, password) in [
        ("x1 client", "", ""),
        ("e1 client", "has space", ""),
        ("e1 client", "bad/name", "secret"),
        ("e1 client", "shortpw", "ab"),
        ("e1 client", "changer", "old new"),
    ] {
        let mut raw = Raw::connect(cgos).await;
        raw.expect("protocol").await;
        raw.send(hello).await;
        let mut line = raw.next().await.unwrap();
        if line == "username" {
            raw.send(name).await;
            line = raw.next().await.unwrap();
            if line == "password" {
                raw.send(password).await;
                line = raw.next().await.unwrap();
            }
        }
        assert!(line.starts_with("Error: "), "{hello}/{name}: {line}");
        assert_eq!(raw.next().await, None, "closed after '{line}'");
    }
    // A wrong password of an existing account (created by its first login).
    drop(Raw::login(cgos, "owner", "e1 client").await);
    let started = Instant::now();
    while http(addr, "GET", "/api/players/owner", None)
        .await
        .unwrap()
        .0
        != 200
    {
        assert!(started.elapsed() < Duration::from_secs(30), "no account");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut raw = Raw::login_with(cgos, "owner", "not-the-password", "e1 client").await;
    assert_eq!(
        raw.next().await.as_deref(),
        Some("Error: Sorry, password doesn't match")
    );
    assert_eq!(raw.next().await, None);
    // Failed guesses are throttled per name and address as on the web (ten a minute, the one
    // above counted): then even the right password is refused from this address.
    let mut answers = Vec::new();
    for password in (0..9)
        .map(|i| format!("guess-{i}"))
        .chain(["pw-owner".into()])
    {
        let mut raw = Raw::login_with(cgos, "owner", &password, "e1 client").await;
        answers.push(raw.next().await.unwrap());
    }
    assert!(answers[..9]
        .iter()
        .all(|a| a == "Error: Sorry, password doesn't match"));
    assert_eq!(answers[9], "Error: too many logins: try again later");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_from_one_address_are_capped() {
    let dir = temp_dir("caps");
    let (_server, _addr, cgos) = serve(&dir, &[]);
    let mut open = Vec::new();
    for _ in 0..16 {
        let mut raw = Raw::connect(cgos).await;
        raw.expect("protocol").await;
        open.push(raw);
    }
    let mut over = Raw::connect(cgos).await;
    assert_eq!(
        over.next().await.as_deref(),
        Some("Error: too many connections from this address")
    );
    assert_eq!(over.next().await, None);
    // One closes: another may come.
    drop(open.pop());
    let started = Instant::now();
    loop {
        let mut again = Raw::connect(cgos).await;
        if again.next().await.as_deref() == Some("protocol genmove_analyze") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The operator sets the door's caps (`--cgos-max-connections`, `--cgos-max-per-address`):
/// two from one address, three in all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_sets_the_doors_caps() {
    let dir = temp_dir("set-caps");
    let (_server, _addr, cgos) = serve(
        &dir,
        &["--cgos-max-connections", "3", "--cgos-max-per-address", "2"],
    );
    let from = |last: u8| async move {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket
            .bind(SocketAddr::from(([127, 0, 0, last], 0)))
            .unwrap();
        let (r, w) = socket.connect(cgos).await.unwrap().into_split();
        Raw {
            lines: BufReader::new(r).lines(),
            writer: w,
        }
    };
    let mut open = Vec::new();
    for _ in 0..2 {
        let mut raw = from(1).await;
        raw.expect("protocol").await;
        open.push(raw);
    }
    let mut over = from(1).await;
    assert_eq!(
        over.next().await.as_deref(),
        Some("Error: too many connections from this address")
    );
    assert_eq!(over.next().await, None);
    // Another address may come, up to three in all.
    let mut third = from(2).await;
    third.expect("protocol").await;
    open.push(third);
    let mut full = from(3).await;
    assert_eq!(
        full.next().await.as_deref(),
        Some("Error: the server is full: try later")
    );
    assert_eq!(full.next().await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_move_loses_with_cgos_reason_and_analysis_is_kept_as_a_comment() {
    let dir = temp_dir("illegal");
    let (_server, addr, cgos) = serve(&dir, &["--pairing-time", "5m"]);
    let (mut black, mut white, _) = paired(cgos, "ann", "bob", "e1 scripted genmove_analyze").await;
    black.expect("genmove b").await;
    black.send("d4 {\"winrate\": 0.52, \"visits\": 10}").await;
    assert_eq!(white.expect("play b").await.split(' ').nth(2), Some("D4"));
    white.expect("genmove w").await;
    white.send("d4").await;
    let over = "Illegal move error:move to occupied point move:d4";
    for player in [&mut black, &mut white] {
        let line = player.expect("gameover").await;
        let words: Vec<&str> = line.splitn(4, ' ').collect();
        assert_eq!(words[2], "B+Illegal", "{line}");
        assert_eq!(words[3], over);
        player.send("ready").await;
    }
    let listed = games(addr).await;
    let id = listed[0]["id"].as_str().unwrap();
    let re = check_record(addr, &dir, id).await;
    let sgf = std::fs::read_to_string(dir.join(format!("{id}.sgf"))).unwrap();
    assert_eq!(re, "B+F");
    assert!(
        sgf.contains(r#"{"visits":10,"winrate":0.52}"#),
        "the analysis is the move's comment: {sgf}"
    );
    // And the game page's graph: Black's win rate after move 1, as Black said.
    let analysis = get_json(addr, &format!("/api/games/{id}/analysis")).await;
    assert_eq!(
        analysis,
        serde_json::json!({"points": [{"number": 1, "color": "B", "winrate": 0.52}]})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_client_loses_on_time_once_its_time_and_gift_are_spent() {
    let dir = temp_dir("time");
    let (_server, addr, cgos) = serve(&dir, &["--pairing-time", "3s", "--cgos-time-gift", "700ms"]);
    let (mut black, mut white, setup) = paired(cgos, "quiet", "talker", "e1 scripted").await;
    assert!(setup.contains(" 3000 "), "{setup}");
    let genmove = black.expect("genmove b").await;
    let asked = Instant::now();
    let ms_left: i64 = genmove.split(' ').nth(2).unwrap().parse().unwrap();
    assert!((2000..=3000).contains(&ms_left), "{genmove}");
    // Black says nothing.
    let line = white.expect("gameover").await;
    let waited = asked.elapsed();
    assert_eq!(line.split(' ').nth(2), Some("W+Time"), "{line}");
    assert_eq!(black.expect("gameover").await, line);
    let due = Duration::from_millis(ms_left as u64 + 700);
    assert!(
        waited + Duration::from_millis(50) >= due,
        "lost after {waited:?}: before its {ms_left} ms and the 700 ms gift"
    );
    assert!(waited < due + Duration::from_secs(5), "{waited:?}");
    let listed = games(addr).await;
    assert_eq!(listed[0]["result"].as_str(), Some("W+T"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_client_logs_in_again_gets_setup_with_its_moves_and_finishes() {
    let dir = temp_dir("reconnect");
    let (_server, addr, cgos) = serve(&dir, &["--pairing-time", "5m", "--pairing-komi", "7.5"]);
    let (mut black, mut white, setup) = paired(cgos, "dropper", "stayer", "e1 scripted").await;
    let black_name = setup
        .split_whitespace()
        .nth(6)
        .and_then(|seat| seat.split('(').next())
        .unwrap()
        .to_string();
    black.expect("genmove b").await;
    black.send("e5").await;
    white.expect("play b E5").await;
    white.expect("genmove w").await;
    white.send("c3").await;
    black.expect("play w C3").await;
    let genmove = black.expect("genmove b").await;
    let before: i64 = genmove.split(' ').nth(2).unwrap().parse().unwrap();
    // The connection drops; the clock runs; the player logs in again.
    drop(black);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut black = Raw::login(cgos, &black_name, "e1 scripted").await;
    let again = black.expect("setup").await;
    let moves: Vec<&str> = again.split_whitespace().skip(7).collect();
    assert_eq!(moves.len(), 4, "{again}");
    assert_eq!((moves[0], moves[2]), ("E5", "C3"), "{again}");
    let genmove = black.expect("genmove b").await;
    let after: i64 = genmove.split(' ').nth(2).unwrap().parse().unwrap();
    assert!(
        after <= before - 1400,
        "the clock ran: {before} then {after}"
    );
    // A second login of the same name replaces this one.
    let mut other = Raw::login(cgos, &black_name, "e1 scripted").await;
    let info = black.expect("info").await;
    assert!(info.starts_with("info another login"), "{info}");
    assert_eq!(black.next().await, None);
    other.expect("setup").await;
    other.expect("genmove b").await;
    other.send("pass").await;
    white.expect("play b pass").await;
    white.expect("genmove w").await;
    white.send("pass").await;
    // As CGOS, the last pass goes to the opponent before the end.
    other.expect("play w pass").await;
    // Black E5, White C3 on an empty board, all alive: 1 point each, komi 7.5.
    for player in [&mut other, &mut white] {
        let line = player.expect("gameover").await;
        assert_eq!(line.split(' ').nth(2), Some("W+7.5"), "{line}");
    }
    let listed = games(addr).await;
    let id = listed[0]["id"].as_str().unwrap();
    let re = check_record(addr, &dir, id).await;
    assert_eq!(re, "W+7.5");
}

/// A CGOS viewer written from the protocol (cgos.py's `viewer_respond`, cgosview): `v1`, then
/// `match`, `setup`, `update` and `gameover` lines, raw.
async fn viewer(cgos: SocketAddr) -> Raw {
    let mut v = Raw::connect(cgos).await;
    v.expect("protocol").await;
    v.send("v1 raw-viewer 0.1").await;
    v
}

/// `update <id> <move> <ms>` lines of game `id` and the end seen, read until both the
/// observer's `update <id> <result>` and every viewer's `gameover <id> …` came; other games'
/// lines are skipped.
async fn follow_to_the_end(v: &mut Raw, id: &str) -> (Vec<(String, i64)>, String, String) {
    let mut moves = Vec::new();
    let (mut over, mut gameover) = (None, None);
    while over.is_none() || gameover.is_none() {
        let line = v.next().await.expect("the viewer is served");
        let words: Vec<&str> = line.split(' ').collect();
        match words[..] {
            ["update", game, mv, ms] if game == id => {
                moves.push((mv.to_string(), ms.parse().unwrap()));
            }
            ["update", game, result] if game == id => over = Some(result.to_string()),
            ["gameover", game, ..] if game == id => gameover = Some(line.clone()),
            _ => {}
        }
    }
    (moves, over.unwrap(), gameover.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cgos_viewer_sees_a_game_move_by_move_then_listed_finished_as_recorded() {
    let dir = temp_dir("viewer");
    let (_server, addr, cgos) = serve(&dir, &["--pairing-time", "5m", "--pairing-komi", "7.5"]);
    // A viewer arrives before any game: nothing listed. An unknown game: `?` (and the viewer
    // is served from then on).
    let mut v = viewer(cgos).await;
    v.send("observe 1").await;
    assert_eq!(v.next().await.as_deref(), Some("setup 1 ?"));
    // Two CGOS programs are paired: the game is announced.
    let (mut black, mut white, setup) = paired(cgos, "seen-a", "seen-b", "e1 scripted").await;
    // setup <id> <size> <komi> <time> <white>(r) <black>(r)
    let words: Vec<&str> = setup.split(' ').collect();
    let (id, white_seat, black_seat) = (words[1], words[5], words[6]);
    assert_eq!(
        v.next().await.unwrap(),
        format!("match {id} - - 9 7.5 {white_seat} {black_seat} -")
    );
    v.send(&format!("observe {id}")).await;
    assert_eq!(
        v.next().await.unwrap(),
        format!("setup {id} - - 9 7.5 {white_seat} {black_seat} 300000")
    );
    // The game, move by move.
    black.expect("genmove b").await;
    black.send("e5").await;
    white.expect("play b E5").await;
    white.expect("genmove w").await;
    white.send("c3").await;
    black.expect("play w C3").await;
    black.expect("genmove b").await;
    black.send("pass").await;
    white.expect("play b pass").await;
    white.expect("genmove w").await;
    white.send("pass").await;
    black.expect("play w pass").await;
    for player in [&mut black, &mut white] {
        let line = player.expect("gameover").await;
        assert_eq!(line.split(' ').nth(2), Some("W+7.5"), "{line}");
    }
    let (moves, over, gameover) = follow_to_the_end(&mut v, id).await;
    let names: Vec<&str> = moves.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(names, ["E5", "C3", "pass", "pass"]);
    assert_eq!(over, "W+7.5");
    // gameover <id> <result> <White's ms used> <Black's ms used>: the main time less what each
    // had left after its last move.
    let words: Vec<&str> = gameover.split(' ').collect();
    assert_eq!(words[2], "W+7.5", "{gameover}");
    let used = |w: &str| w.parse::<i64>().unwrap();
    assert!(
        (used(words[3]) - (300_000 - moves[3].1)).abs() <= 1,
        "{gameover} {moves:?}"
    );
    assert!(
        (used(words[4]) - (300_000 - moves[2].1)).abs() <= 1,
        "{gameover} {moves:?}"
    );
    // The moves and times seen are the record's.
    let game_id = format!("{:012x}", id.parse::<u64>().unwrap());
    assert_eq!(check_record(addr, &dir, &game_id).await, "W+7.5");
    let sgf = std::fs::read_to_string(dir.join(format!("{game_id}.sgf"))).unwrap();
    let record = goref_sgf::parse(&sgf).unwrap();
    let geometry = goref_rules::Geometry::rect(9, 9).unwrap();
    let recorded: Vec<(String, i64)> = record
        .moves
        .iter()
        .map(|m| {
            let name = match m.mv {
                goref_rules::Move::Play(p) => geometry.name(p),
                goref_rules::Move::Pass => "pass".to_string(),
            };
            (name, (m.time_left.unwrap() * 1000.0).round() as i64)
        })
        .collect();
    assert_eq!(recorded.len(), moves.len());
    for ((seen, seen_ms), (kept, kept_ms)) in moves.iter().zip(&recorded) {
        assert_eq!(seen, kept);
        assert!((seen_ms - kept_ms).abs() <= 1, "{moves:?} {recorded:?}");
    }
    // A viewer arriving now finds it among the finished games, with its day, time and result;
    // observed, it is its whole record.
    let mut late = viewer(cgos).await;
    let listed = late.expect(&format!("match {id} ")).await;
    let words: Vec<&str> = listed.split(' ').collect();
    assert_eq!(words.len(), 9, "{listed}");
    assert!(words[2].len() == 10 && words[3].len() == 5, "{listed}");
    assert_eq!(
        words[4..],
        ["9", "7.5", white_seat, black_seat, "W+7.5"],
        "{listed}"
    );
    late.send(&format!("observe {id}")).await;
    let whole = late.expect(&format!("setup {id} ")).await;
    let seen: Vec<String> = moves.iter().map(|(m, ms)| format!("{m} {ms}")).collect();
    assert_eq!(
        whole,
        format!(
            "setup {id} {} {} 9 7.5 {white_seat} {black_seat} 300000 {} W+7.5",
            words[2],
            words[3],
            seen.join(" ")
        )
    );
    late.send("quit").await;
    assert_eq!(late.next().await, None);
}

/// A process killed when the test ends, however it ends.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cgos_client_and_a_goref_connect_program_are_paired_when_their_games_fit() {
    if !have_gnugo() {
        return;
    }
    let dir = temp_dir("connect");
    // The pairing game is CGOS's: nstt, all alive, sudden death.
    let (_server, addr, cgos) = serve(
        &dir,
        &[
            "--pairing-time",
            "5m",
            "--pairing-komi",
            "7.5",
            "--pairing-rules",
            "nstt",
            "--pairing-end",
            "all-alive",
        ],
    );
    let log = std::fs::File::create(dir.join("connect.log")).unwrap();
    let _connect = Process(
        Command::new(env!("CARGO_BIN_EXE_goref"))
            .args(["connect", &format!("http://{addr}"), "--engine"])
            .arg("/usr/games/gnugo --mode gtp --level 0")
            .args(["--name", "connected", "--password", "pw-connected"])
            .args(["--games", "1"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    let played = gnugo_client(cgos, "cgos-bot", 1).await;
    assert_eq!(played[0].opponent, "connected");
    let listed = games(addr).await;
    assert_eq!(listed.len(), 1);
    let id = listed[0]["id"].as_str().unwrap();
    let re = check_record(addr, &dir, id).await;
    assert_eq!(re, played[0].result.to_sgf());
}

// ---------------------------------------------------------------------------------------------
// Issue 38: CGOS's players across two instances on one PostgreSQL database, against the
// other kinds of players, and through the death of the instance they play on.

/// The pairing flags of every instance of these tests: CGOS's game (board 9, komi 7.5, one
/// minute each, sudden death, `nstt`, all alive) is the pairing game, so that CGOS's players
/// are paired with `goref connect` programs and people too.
const ACROSS: [&str; 10] = [
    "--pairing-time",
    "1m",
    "--pairing-komi",
    "7.5",
    "--pairing-size",
    "9",
    "--pairing-rules",
    "nstt",
    "--pairing-end",
    "all-alive",
];

/// `goref connect` with GNU Go (level 0, capturing the dead: there is no dead-stone phase) as
/// `name`, given `urls` (one instance, or several separated by commas), for one game; its
/// stderr goes to `dir/name.log`.
fn connect_program(dir: &Path, urls: &str, name: &str) -> Process {
    let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    Process(
        Command::new(env!("CARGO_BIN_EXE_goref"))
            .args(["connect", urls, "--engine", GNUGO_CGOS, "--name", name])
            .args(["--password", &format!("pw-{name}"), "--games", "1"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("goref connect starts"),
    )
}

/// Waits (off the async runtime) for a `goref connect --games 1` to finish on its own, at
/// most `limit`; it must succeed. Its log.
async fn program_done(mut p: Process, dir: &Path, name: &str, limit: Duration) -> String {
    let path = dir.join(format!("{name}.log"));
    tokio::task::spawn_blocking(move || {
        let start = Instant::now();
        loop {
            if let Some(status) = p.0.try_wait().unwrap() {
                let log = std::fs::read_to_string(&path).unwrap_or_default();
                assert!(status.success(), "goref connect failed: {status}\n{log}");
                return log;
            }
            if start.elapsed() > limit {
                let log = std::fs::read_to_string(&path).unwrap_or_default();
                panic!("goref connect did not finish its game within {limit:?}\n{log}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    })
    .await
    .unwrap()
}

/// The game `id` as both instances list it (the same line on both) and its state on both
/// (the same result and ending): finished, rated, not lost on time, its record replaying to
/// its result. The line and the state.
async fn finished_alike(
    one: SocketAddr,
    two: SocketAddr,
    dir: &Path,
    id: &str,
) -> (serde_json::Value, serde_json::Value) {
    let listed = |addr| async move {
        games(addr)
            .await
            .into_iter()
            .find(|g| g["id"] == id)
            .unwrap_or_else(|| panic!("game {id} listed on {addr}"))
    };
    let line = listed(one).await;
    assert_eq!(line, listed(two).await, "the same game on both instances");
    let result = line["result"]
        .as_str()
        .unwrap_or_else(|| panic!("finished: {line}"))
        .to_string();
    assert_eq!(line["rated"], true, "{line}");
    let state = get_json(one, &format!("/api/games/{id}")).await;
    let there = get_json(two, &format!("/api/games/{id}")).await;
    for s in [&state, &there] {
        assert_eq!(s["result"].as_str(), Some(result.as_str()), "{s}");
        assert_eq!(s["ending"], state["ending"]);
        assert_eq!(s["moves"], state["moves"]);
    }
    let ending = state["ending"].as_str().unwrap();
    assert!(
        !matches!(ending, "time" | "forfeit" | "fault" | "closed"),
        "ended by {ending}: {result}"
    );
    assert!(!result.ends_with("+T"), "no time loss: {result}");
    assert_eq!(check_record(two, dir, id).await, result, "the record's RE");
    (line, state)
}

/// 1. A CGOS program (goref-cgos's client, GNU Go) at one instance's door and a `goref
/// connect` program (GNU Go) in the other instance's lobby are paired across them and play a
/// whole game: the same result, rated, on both instances; no time lost; the record replays to
/// it; CGOS's `gameover` is that result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_a_cgos_player_and_a_goref_connect_program_on_the_other_instance_finish() {
    let Some(url) = common::pg_database("cgos_vs_connect") else {
        return;
    };
    if !have_gnugo() {
        return;
    }
    let dir = temp_dir("across-connect");
    let db = std::ffi::OsStr::new(&url);
    let started = Instant::now();
    let (_one, one, door_one) = serve_on(db, &ACROSS);
    let (_two, two, _) = serve_on(db, &ACROSS);
    let program = connect_program(&dir, &format!("http://{two}"), "connected-two");
    let played = tokio::time::timeout(
        Duration::from_secs(80),
        gnugo_client(door_one, "cgos-one", 1),
    )
    .await
    .expect("the CGOS game within 80 s");
    let log = program_done(program, &dir, "connected-two", Duration::from_secs(20)).await;
    assert_eq!(played.len(), 1);
    let game = &played[0];
    assert_eq!(game.opponent, "connected-two", "{log}");
    let id = format!("{:012x}", game.game_id);
    let (line, state) = finished_alike(one, two, &dir, &id).await;
    assert_eq!(line["result"].as_str(), Some(game.result.to_sgf().as_str()));
    assert_eq!(
        (line["rules"].as_str(), line["end"].as_str()),
        (Some("nstt"), Some("all-alive"))
    );
    // Both rated, the same on both instances (refitted by the leader after the game, read
    // from the store).
    until(
        Duration::from_secs(5),
        "the same ratings on both",
        || async {
            let ratings = get_json(one, "/api/players").await;
            let rated = ratings["players"].as_array()?.len() == 2
                && ratings["players"][1]["rating"].is_number();
            (rated && ratings == get_json(two, "/api/players").await).then_some(())
        },
    )
    .await;
    eprintln!(
        "CGOS at one instance against goref connect at the other: {} by {}, {} moves, {:.1} s",
        game.result,
        state["ending"].as_str().unwrap(),
        line["moves"],
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A person on the game's WebSocket who passes every turn, until the game is over (at most
/// `limit`).
async fn pass_until_over(me: &mut goref_server::client::Player, limit: Duration) {
    let mine = me.seat.as_str().unwrap().to_string();
    let deadline = Instant::now() + limit;
    while me.state["result"].is_null() {
        assert!(Instant::now() < deadline, "not over: {}", me.state);
        let need = &me.state["need"];
        if need["type"] == "move" && need["color"] == mine.as_str() {
            let answer = me.act(serde_json::json!({"type": "pass"})).await.unwrap();
            match answer["version"].as_u64() {
                Some(v) if answer["type"] == "ack" => {
                    me.wait_version(v).await.unwrap();
                }
                _ => assert_eq!(answer["code"], "stale", "{answer}"),
            }
        } else {
            me.recv().await.unwrap();
        }
    }
}

/// 2. A CGOS program at one instance's door and a person in the other instance's lobby (the
/// web's lobby and game WebSockets), waiting to be paired, are paired across the instances;
/// the person passes every turn, GNU Go plays, and the game ends by two passes (all alive)
/// with the same result on both instances (and in CGOS's `gameover`), rated, no time lost,
/// the record replaying to it; GNU Go wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_a_cgos_player_and_a_web_player_on_the_other_instance_finish() {
    let Some(url) = common::pg_database("cgos_vs_web") else {
        return;
    };
    if !have_gnugo() {
        return;
    }
    use goref_server::client::{login, LobbyClient, Player};
    let dir = temp_dir("across-web");
    let db = std::ffi::OsStr::new(&url);
    let started = Instant::now();
    let (_one, one, door_one) = serve_on(db, &ACROSS);
    let (_two, two, _) = serve_on(db, &ACROSS);
    let token = login(two, "person-two", "pw-person-two", false, true)
        .await
        .unwrap();
    let mut lobby = LobbyClient::connect(two, &token).await.unwrap();
    let ack = lobby
        .request(&serde_json::json!({"type": "wait", "on": true}))
        .await
        .unwrap();
    assert_eq!(ack["waiting"], true, "{ack}");
    let cgos = tokio::spawn(gnugo_client(door_one, "cgos-one", 1));
    let start = tokio::time::timeout(Duration::from_secs(30), lobby.next_of("game"))
        .await
        .expect("paired within 30 s")
        .unwrap();
    assert_eq!(start["opponent"], "cgos-one", "{start}");
    let id = start["id"].as_str().unwrap().to_string();
    let mut me = Player::connect_as(two, &id, &token).await.unwrap();
    assert_eq!(me.seat, start["color"]);
    pass_until_over(&mut me, Duration::from_secs(80)).await;
    let played = tokio::time::timeout(Duration::from_secs(20), cgos)
        .await
        .expect("the CGOS client ends with the game")
        .unwrap();
    let result = me.state["result"].as_str().unwrap().to_string();
    assert_eq!(me.state["ending"], "all-alive", "two passes: {}", me.state);
    assert_eq!(played.len(), 1);
    assert_eq!(format!("{:012x}", played[0].game_id), id);
    assert_eq!(played[0].opponent, "person-two");
    assert_eq!(played[0].result.to_sgf(), result, "CGOS's gameover");
    let (line, _) = finished_alike(one, two, &dir, &id).await;
    // GNU Go played, the person only passed: GNU Go wins.
    let cgos_color = if start["color"] == "B" { "W" } else { "B" };
    assert!(result.starts_with(cgos_color), "{result}");
    let over = tokio::time::timeout(Duration::from_secs(10), lobby.next_of("game_over"))
        .await
        .expect("the lobby tells the end")
        .unwrap();
    assert_eq!(over["result"].as_str(), Some(result.as_str()));
    eprintln!(
        "CGOS at one instance against a person at the other: {result}, {} moves, {:.1} s",
        line["moves"],
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// goref-cgos's client with GNU Go as `name`, given several instances' doors: it plays at the
/// first, and when the connection drops it connects to the next (round and round, every
/// 200 ms) and goes on with its game there (the door sends `setup` with the moves so far). Its
/// games, and the doors of the sessions it had, in order.
async fn gnugo_client_over(
    doors: Vec<SocketAddr>,
    name: String,
) -> (Vec<GameRecord>, Vec<SocketAddr>) {
    let spec = EngineSpec::parse(GNUGO_CGOS).unwrap();
    let mut config = ClientConfig::new(&name, &format!("pw-{name}"));
    config.games = Some(1);
    let mut engine = goref_gtp::Engine::start(&spec, "engine", None)
        .await
        .unwrap();
    engine.check(config.command_timeout).await.unwrap();
    let (_stop_tx, mut stop) = tokio::sync::watch::channel(false);
    let mut progress = goref_cgos::Progress::default();
    let mut sessions = Vec::new();
    let mut next = 0;
    loop {
        let door = doors[next % doors.len()];
        if let Ok(stream) = TcpStream::connect(door).await {
            sessions.push(door);
            let (r, w) = stream.into_split();
            let end =
                goref_cgos::play_session(r, w, &mut engine, &config, &mut progress, &mut stop)
                    .await
                    .unwrap_or_else(|e| panic!("{name} at {door}: {e}"));
            match end {
                goref_cgos::SessionEnd::Quit => break,
                goref_cgos::SessionEnd::Disconnected => {}
                goref_cgos::SessionEnd::Replaced => panic!("{name}: replaced at {door}"),
            }
        }
        assert!(
            sessions.len() < 20,
            "{name}: too many sessions: {sessions:?}"
        );
        next += 1;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    engine.shutdown(Duration::from_secs(2)).await;
    (progress.games, sessions)
}

/// 3. A CGOS program and a `goref connect` program play on the leading instance; it is killed
/// (SIGKILL) in the middle of the game. The other instance takes the lead and resumes the
/// game's clock; the CGOS program connects to its door (`setup` with the moves so far) and
/// the `goref connect` program to it (its next URL), and they finish the game there: the moves
/// before the kill kept, at most one resume of the clock in its log, a result (not on time),
/// rated, the record replaying to it, CGOS's `gameover` that result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_a_cgos_game_goes_on_at_the_other_instance_when_its_instance_is_killed() {
    let Some(url) = common::pg_database("cgos_killed") else {
        return;
    };
    if !have_gnugo() {
        return;
    }
    let dir = temp_dir("across-killed");
    let db = std::ffi::OsStr::new(&url);
    let started = Instant::now();
    // The first leads (pairs, fires the clocks) before the second starts.
    let (first, one, door_one) = serve_on(db, &ACROSS);
    until(
        Duration::from_secs(10),
        "the first instance leads",
        || async { first.leads().then_some(()) },
    )
    .await;
    let (second, two, door_two) = serve_on(db, &ACROSS);
    assert!(!second.leads(), "the second does not lead");
    let program = connect_program(&dir, &format!("http://{one},http://{two}"), "connected");
    let cgos = tokio::spawn(gnugo_client_over(
        vec![door_one, door_two],
        "cgos-player".to_string(),
    ));
    // The game under way (seen from the second instance): some moves played at the first.
    let (id, before) = until(Duration::from_secs(40), "a game under way", || async {
        let listed = games(two).await;
        let g = listed.first()?;
        assert!(g["result"].is_null(), "over before the kill: {g}");
        if g["moves"].as_u64()? < 8 {
            return None;
        }
        let id = g["id"].as_str()?.to_string();
        let state = get_json(two, &format!("/api/games/{id}")).await;
        Some((id, state["moves"].as_array()?.clone()))
    })
    .await;
    first.kill();
    let killed = Instant::now();
    until(
        Duration::from_secs(30),
        "the second instance leads",
        || async { second.leads().then_some(()) },
    )
    .await;
    let took_over = killed.elapsed();
    let (played, sessions) = tokio::time::timeout(Duration::from_secs(80), cgos)
        .await
        .expect("the CGOS game ends within 80 s of the kill")
        .unwrap();
    let log = program_done(program, &dir, "connected", Duration::from_secs(20)).await;
    assert!(
        log.contains("does not answer; going to"),
        "goref connect went to the second instance:\n{log}"
    );
    assert_eq!(sessions.first(), Some(&door_one), "{sessions:?}");
    assert!(sessions[1..].contains(&door_two), "{sessions:?}");
    assert_eq!(played.len(), 1);
    assert_eq!(format!("{:012x}", played[0].game_id), id);
    assert_eq!(played[0].opponent, "connected");
    // The game, as the second instance has it.
    let line = games(two)
        .await
        .into_iter()
        .find(|g| g["id"] == id.as_str())
        .unwrap();
    assert_eq!(line["rated"], true, "{line}");
    let state = get_json(two, &format!("/api/games/{id}")).await;
    let result = state["result"].as_str().expect("finished").to_string();
    assert_eq!(played[0].result.to_sgf(), result, "CGOS's gameover");
    let ending = state["ending"].as_str().unwrap();
    assert!(
        !matches!(ending, "time" | "forfeit" | "fault" | "closed"),
        "ended by {ending}: {result}"
    );
    let moves = state["moves"].as_array().unwrap();
    assert!(
        moves.len() > before.len(),
        "{} then {}",
        before.len(),
        moves.len()
    );
    assert_eq!(
        moves[..before.len()],
        before[..],
        "the moves before the kill kept"
    );
    // Events are the moves and the resumes of the clocks. Taking over, the second resumes the
    // game's clock as of the moment it took the lead (the time of the turn that ran while no
    // server led is not charged), unless a move stored at or after that moment came first (a
    // program that reconnected at once): then nothing is left to resume. Once at most.
    let version = state["version"].as_u64().unwrap();
    let resumes = version
        .checked_sub(moves.len() as u64)
        .expect("every move is an event");
    assert!(
        resumes <= 1,
        "resumed once at most: version {version}, {} moves",
        moves.len()
    );
    assert_eq!(
        check_record(two, &dir, &id).await,
        result,
        "the record's RE"
    );
    eprintln!(
        "a CGOS game across the death of its instance: {result} by {ending}, {} moves ({} before \
         the kill), {} resumes; the lead taken {:.1} s after the kill; {:.1} s in all",
        moves.len(),
        before.len(),
        resumes,
        took_over.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pools of `--pool` in these tests: 7×7 and 13×13, one minute each, each with a CGOS
/// door on a free port (and the default pool's komi: none is drawn by two passes).
const POOLS: [&str; 6] = [
    "--pairing-komi",
    "7.5",
    "--pool",
    "name=p7,size=7,komi=9.5,time=1m,cgos=127.0.0.1:0",
    "--pool",
    "name=p13,size=13,komi=6.5,time=1m,cgos=127.0.0.1:0",
];

/// Where the door of pool `pool` listens, as `GET /api/pools` says.
async fn door_of(addr: SocketAddr, pool: &str) -> SocketAddr {
    let pools = get_json(addr, "/api/pools").await;
    let pool = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == pool)
        .unwrap_or_else(|| panic!("pool {pool} in {pools}"));
    pool["cgos"].as_str().unwrap().parse().unwrap()
}

/// Two scripted players of one pool's doors (`one`, `two`: the same door or the doors of two
/// instances), paired, pass: White wins by komi. The game's id (hex) and size.
async fn passing_game(one: SocketAddr, two: SocketAddr, a: &str, b: &str) -> (String, usize) {
    let mut first = Raw::login(one, a, "e1 scripted").await;
    let mut second = Raw::login(two, b, "e1 scripted").await;
    let setup = first.expect("setup").await;
    assert_eq!(second.expect("setup").await, setup);
    // setup <id> <size> <komi> <time> <white>(r) <black>(r)
    let words: Vec<&str> = setup.split_whitespace().collect();
    let (mut black, mut white) = if words[6].starts_with(&format!("{a}(")) {
        (first, second)
    } else {
        (second, first)
    };
    black.expect("genmove b").await;
    black.send("pass").await;
    white.expect("play b pass").await;
    white.expect("genmove w").await;
    white.send("pass").await;
    for player in [&mut black, &mut white] {
        // Black is told White's pass first.
        let mut over = player.next().await.expect("open");
        if over.starts_with("play w pass") {
            over = player.expect("gameover").await;
        }
        assert!(over.starts_with("gameover"), "{over}");
        assert!(over.split(' ').nth(2).unwrap().starts_with("W+"), "{over}");
        player.send("ready").await;
    }
    let id: u64 = words[1].parse().unwrap();
    (format!("{id:x}"), words[2].parse().unwrap())
}

/// Each pool's games, standings and crosstables, as the API of `addr` shows them once the
/// ratings are refitted: `players` by pool.
async fn pools_show_their_own(addr: SocketAddr, players: &[(&str, [&str; 2], usize)]) {
    let listed = games(addr).await;
    for (pool, names, size) in players {
        let game = listed
            .iter()
            .find(|g| g["black"] == names[0] || g["white"] == names[0])
            .unwrap_or_else(|| panic!("{names:?}'s game in {listed:?}"));
        assert_eq!(game["width"].as_u64(), Some(*size as u64), "{game}");
        let shown = game["pool"].as_str().unwrap_or("default");
        assert_eq!(shown, *pool, "{game}");
        // The pool's archive of the day lists it, with its result.
        let created = game["created_ms"].as_u64().unwrap();
        let day = goref_cgos::protocol::Date::from_unix_seconds(created / 1000);
        let archive = get_json(addr, &format!("/api/pools/{pool}/archive/{day}")).await;
        let archived: Vec<&serde_json::Value> =
            archive["games"].as_array().unwrap().iter().collect();
        assert_eq!(archived.len(), 1, "{archive}");
        assert_eq!(
            (&archived[0]["id"], &archived[0]["result"]),
            (&game["id"], &game["result"])
        );
        let path = format!("/api/pools/{pool}/standings");
        let standings = until(Duration::from_secs(30), "the pool's ratings", || async {
            let s = get_json(addr, &path).await;
            (s["players"].as_array().unwrap().len() == 2).then_some(s)
        })
        .await;
        let mut rated: Vec<&str> = standings["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        rated.sort_unstable();
        assert_eq!(rated, *names, "{pool}'s standings are its players'");
        let path = format!("/api/players/{}/crosstable?pool={pool}", names[0]);
        let cross = get_json(addr, &path).await;
        assert_eq!(cross["opponents"][0]["name"], names[1], "{cross}");
        assert_eq!(cross["opponents"].as_array().unwrap().len(), 1, "{cross}");
    }
}

/// Issue 38 §2: three pools in one server, each with its CGOS door: each door's players are
/// paired in its pool, for its board; each pool's standings and crosstables are its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_pools_pair_and_rate_each_their_own_players() {
    let dir = temp_dir("pools");
    let (_server, addr, cgos) = serve(&dir, &POOLS);
    let pools = get_json(addr, "/api/pools").await;
    let names: Vec<&str> = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["default", "p7", "p13"]);
    assert_eq!(pools["pools"][0]["cgos"].as_str(), Some(&*cgos.to_string()));
    let (p7, p13) = (door_of(addr, "p7").await, door_of(addr, "p13").await);
    let ((_, s9), (_, s7), (_, s13)) = tokio::join!(
        passing_game(cgos, cgos, "ann", "bob"),
        passing_game(p7, p7, "cat", "dan"),
        passing_game(p13, p13, "eve", "fay"),
    );
    assert_eq!((s9, s7, s13), (9, 7, 13), "each door's board");
    pools_show_their_own(
        addr,
        &[
            ("default", ["ann", "bob"], 9),
            ("p7", ["cat", "dan"], 7),
            ("p13", ["eve", "fay"], 13),
        ],
    )
    .await;
}

/// Issue 38 §2 across instances: two servers of one PostgreSQL database with the same pools;
/// a pool's players at the two instances' doors are paired across them, each pool apart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_pools_pair_their_players_across_instances() {
    let Some(url) = common::pg_database("cgos_pools") else {
        return;
    };
    let db = std::ffi::OsStr::new(&url);
    let (_one, addr_one, cgos_one) = serve_on(db, &POOLS);
    let (_two, addr_two, cgos_two) = serve_on(db, &POOLS);
    let (p7_one, p7_two) = (door_of(addr_one, "p7").await, door_of(addr_two, "p7").await);
    let (p13_one, p13_two) = (
        door_of(addr_one, "p13").await,
        door_of(addr_two, "p13").await,
    );
    let ((_, s9), (_, s7), (_, s13)) = tokio::join!(
        passing_game(cgos_one, cgos_two, "ann", "bob"),
        passing_game(p7_one, p7_two, "cat", "dan"),
        passing_game(p13_two, p13_one, "eve", "fay"),
    );
    assert_eq!((s9, s7, s13), (9, 7, 13));
    let players = [
        ("default", ["ann", "bob"], 9),
        ("p7", ["cat", "dan"], 7),
        ("p13", ["eve", "fay"], 13),
    ];
    pools_show_their_own(addr_one, &players).await;
    pools_show_their_own(addr_two, &players).await;
}
