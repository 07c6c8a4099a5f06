//! The limits that keep the server up, each hit over real connections and answered (429, 413,
//! 415, 403, 503, 408 or a close) while a probe game on the same server keeps getting its
//! acks. Small option values make the limits reachable quickly; waits on real time leave wide
//! one-sided margins.
//!
//! The "attacker" connects from 127.0.0.2 (any 127.x address reaches loopback), so that its
//! per-address limits are not the probe's (127.0.0.1).

mod common;

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use common::*;
use goref_server::client::{create_game, http, Player};
use goref_server::Options;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const ATTACKER: [u8; 4] = [127, 0, 0, 2];

/// A game played move after move by two connections; every move must be acknowledged, and
/// soon.
struct Probe {
    t: Table,
    n: usize,
    slowest: Duration,
}

impl Probe {
    async fn new(addr: SocketAddr) -> Probe {
        let mut t = table(
            addr,
            json!({"width": 19, "height": 19, "black": "Probe B", "white": "Probe W"}),
        )
        .await;
        t.black.light = true;
        t.white.light = true;
        Probe {
            t,
            n: 0,
            slowest: Duration::ZERO,
        }
    }

    /// One move (Black fills the top rows, White the bottom ones: no captures).
    async fn step(&mut self) {
        assert!(self.n < 342, "the probe's board is full");
        let k = self.n / 2;
        let (side, x, y) = if self.n.is_multiple_of(2) {
            ("B", k % 19, k / 19)
        } else {
            ("W", k % 19, 18 - k / 19)
        };
        let sent = Instant::now();
        let answer = self
            .t
            .act(side, json!({"type": "play", "x": x, "y": y}))
            .await;
        let took = sent.elapsed();
        assert_eq!(answer["type"], "ack", "probe move {}: {answer}", self.n);
        assert!(
            took < Duration::from_secs(2),
            "probe ack after {took:?} (move {})",
            self.n
        );
        self.slowest = self.slowest.max(took);
        self.n += 1;
    }

    async fn steps(&mut self, n: usize) {
        for _ in 0..n {
            self.step().await;
        }
    }
}

/// A TCP connection from `from` (an address of this machine).
async fn connect_from(from: [u8; 4], addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(IpAddr::from(from), 0)).unwrap();
    socket.connect(addr).await.unwrap()
}

/// An answer read off a raw connection: status, head (lower case) and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
    }
}

/// Reads one answer: the head, then `content-length` bytes of body.
async fn read_answer(stream: &mut (impl AsyncRead + Unpin)) -> Option<Answer> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = raw[head_end + 4..].to_vec();
    while body.len() < length {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    Some(Answer {
        status,
        head,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// One request from `from`, with `headers` (lines without the final blank line) and a body.
async fn request(
    from: [u8; 4],
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> Answer {
    let mut stream = connect_from(from, addr).await;
    let text = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(text.as_bytes()).await.unwrap();
    read_answer(&mut stream).await.expect("an answer")
}

async fn post_json(from: [u8; 4], addr: SocketAddr, body: &str) -> Answer {
    request(
        from,
        addr,
        "POST",
        "/api/games",
        "Content-Type: application/json\r\n",
        body,
    )
    .await
}

/// Whether the server closes `stream` within `within` (reading what it sends).
async fn closed_within(stream: &mut (impl AsyncRead + Unpin), within: Duration) -> bool {
    read_until_closed(stream, within).await.is_some()
}

/// What the server sends on `stream` until it closes it, if it does within `within`.
async fn read_until_closed(
    stream: &mut (impl AsyncRead + Unpin),
    within: Duration,
) -> Option<Vec<u8>> {
    let mut buf = [0u8; 1024];
    let mut all = Vec::new();
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(all),
            Ok(Ok(n)) => all.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creation_flood_gets_429_with_retry_after_and_the_probe_plays_on() {
    let s = server_with(Options {
        create_burst: 5,
        create_per_minute: 60,
        ..Options::default()
    })
    .await;
    let mut probe = Probe::new(s.addr).await;
    let mut created = 0;
    let mut limited = Vec::new();
    let flood = Instant::now();
    for i in 0..200 {
        // A forged X-Forwarded-For changes nothing unless the server is told to trust it.
        let answer = request(
            ATTACKER,
            s.addr,
            "POST",
            "/api/games",
            &format!("Content-Type: application/json\r\nX-Forwarded-For: 198.51.100.{i}\r\n"),
            r#"{"width": 9}"#,
        )
        .await;
        match answer.status {
            201 => created += 1,
            429 => limited.push(answer),
            other => panic!("HTTP {other}: {answer:?}"),
        }
        if i % 10 == 0 {
            probe.step().await;
        }
    }
    // The burst of 5, and one a second after it.
    let most = 5 + flood.elapsed().as_secs() as usize + 1;
    assert!(
        (5..=most).contains(&created),
        "{created} created, at most {most}"
    );
    let first = &limited[0];
    assert_eq!(first.json()["error"], "rate_limited", "{first:?}");
    let wait: u64 = first.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=2).contains(&wait), "Retry-After {wait}");
    assert_eq!(first.header("x-frame-options").as_deref(), Some("deny"));
    // The probe's address has its own bucket.
    create_game(s.addr, &json!({"width": 9})).await.unwrap();
    probe.steps(5).await;
    println!("probe: slowest ack {:?}", probe.slowest);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_the_forwarded_address_is_the_clients() {
    let s = server_with(Options {
        create_burst: 2,
        trust_forwarded_for: true,
        max_connections_per_address: 1,
        ..Options::default()
    })
    .await;
    let post = |client: &'static str| async move {
        request(
            [127, 0, 0, 1],
            s.addr,
            "POST",
            "/api/games",
            &format!("Content-Type: application/json\r\nX-Forwarded-For: {client}\r\n"),
            "{}",
        )
        .await
        .status
    };
    assert_eq!(post("203.0.113.5").await, 201);
    assert_eq!(post("10.9.9.9, 203.0.113.5").await, 201);
    assert_eq!(post("203.0.113.5").await, 429);
    assert_eq!(post("203.0.113.6").await, 201);
    // The proxy's connections are not capped per address (the cap here is 1).
    let mut probe = Probe::new(s.addr).await;
    probe.steps(3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creator_with_too_many_unfinished_games_gets_429_until_one_ends() {
    let s = server_with(Options {
        create_per_minute: 0,
        max_unfinished_per_creator: 3,
        ..Options::default()
    })
    .await;
    let mut probe = Probe::new(s.addr).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let answer = post_json(ATTACKER, s.addr, r#"{"width": 5}"#).await;
        assert_eq!(answer.status, 201, "{answer:?}");
        ids.push(answer.json());
        probe.step().await;
    }
    let refused = post_json(ATTACKER, s.addr, r#"{"width": 5}"#).await;
    assert_eq!(refused.status, 429);
    assert_eq!(refused.json()["error"], "too_many_unfinished");
    assert!(
        refused.body.contains("3 unfinished games"),
        "{}",
        refused.body
    );
    probe.step().await;
    // One of them ends (resigned): there is room for one more.
    let game = &ids[0];
    let mut black = Player::connect(
        s.addr,
        game["id"].as_str().unwrap(),
        game["black"]["secret"].as_str(),
    )
    .await
    .unwrap();
    black.must(json!({"type": "resign"})).await.unwrap();
    assert_eq!(
        post_json(ATTACKER, s.addr, r#"{"width": 5}"#).await.status,
        201
    );
    assert_eq!(
        post_json(ATTACKER, s.addr, r#"{"width": 5}"#).await.status,
        429
    );
    probe.steps(3).await;
}

/// The state of game `id` over HTTP.
async fn state_of(addr: SocketAddr, id: &str) -> Value {
    let (status, body) = http(addr, "GET", &format!("/api/games/{id}"), None)
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_never_started_or_abandoned_are_closed_void_with_a_note_and_clocks_still_flag() {
    let s = server_with(Options {
        unstarted_expiry: Duration::from_millis(300),
        abandoned_expiry: Duration::from_millis(1500),
        upkeep_interval: Duration::from_millis(100),
        lag_allowance_ms: 100,
        ..Options::default()
    })
    .await;
    let mut probe = Probe::new(s.addr).await;
    probe.step().await;
    // Never started, watched by a spectator who sees it close.
    let never = create_game(s.addr, &json!({"width": 5})).await.unwrap();
    let never_id = never["id"].as_str().unwrap().to_string();
    let mut spectator = Player::connect(s.addr, &never_id, None).await.unwrap();
    // Started, then abandoned (no clock).
    let left = create_game(s.addr, &json!({"width": 5})).await.unwrap();
    let left_id = left["id"].as_str().unwrap().to_string();
    let mut black = Player::connect(s.addr, &left_id, left["black"]["secret"].as_str())
        .await
        .unwrap();
    black
        .must(json!({"type": "play", "x": 2, "y": 2}))
        .await
        .unwrap();
    black.close().await;
    // Started with a clock, then left by both: nobody holds it but its timer, which flags.
    let clocked = create_game(
        s.addr,
        &json!({"width": 5, "time": {"kind": "sudden_death", "main_s": 1}}),
    )
    .await
    .unwrap();
    let clocked_id = clocked["id"].as_str().unwrap().to_string();
    let mut black = Player::connect(s.addr, &clocked_id, clocked["black"]["secret"].as_str())
        .await
        .unwrap();
    black
        .must(json!({"type": "play", "x": 2, "y": 2}))
        .await
        .unwrap();
    black.close().await;

    // The probe moves every few tens of milliseconds: never idle for long. At least 2.5 s,
    // until the abandoned game is closed and the clocked one flagged (15 s at most).
    let start = Instant::now();
    loop {
        probe.step().await;
        tokio::time::sleep(Duration::from_millis(30)).await;
        if start.elapsed() < Duration::from_millis(2500) {
            continue;
        }
        let left_over = state_of(s.addr, &left_id).await["phase"] == "over";
        let clocked_over = state_of(s.addr, &clocked_id).await["phase"] == "over";
        if (left_over && clocked_over) || start.elapsed() > Duration::from_secs(15) {
            break;
        }
    }
    let st = spectator.wait_version(1).await.unwrap();
    assert_eq!(st["phase"], "over");
    assert_eq!(st["result"], "Void");
    assert_eq!(st["ending"], "never-started");
    assert!(
        st["notes"]
            .to_string()
            .contains("no move within 300 ms of its creation"),
        "{}",
        st["notes"]
    );
    let st = state_of(s.addr, &left_id).await;
    assert_eq!(st["result"], "Void");
    assert_eq!(st["ending"], "abandoned");
    assert!(st["notes"].to_string().contains("abandoned"), "{st}");
    let st = state_of(s.addr, &clocked_id).await;
    assert_eq!(st["result"], "B+T", "the clock finished it first");
    let probe_state = state_of(s.addr, &probe.t.id).await;
    assert_eq!(probe_state["phase"], "play", "the probe game is alive");
    probe.step().await;

    // The record says so, and the list too.
    let (_, sgf) = http(s.addr, "GET", &format!("/api/games/{never_id}/sgf"), None)
        .await
        .unwrap();
    assert!(sgf.contains("RE[Void]"), "{sgf}");
    assert!(sgf.contains("never-started"), "{sgf}");
    let (_, list) = http(s.addr, "GET", "/api/games", None).await.unwrap();
    let list: Value = serde_json::from_str(&list).unwrap();
    let result = |id: &str| {
        list["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == id)
            .map(|g| g["result"].clone())
    };
    assert_eq!(result(&never_id), Some(json!("Void")));
    assert_eq!(result(&left_id), Some(json!("Void")));
    // A closed game takes no more moves.
    let mut white = Player::connect(s.addr, &never_id, never["white"]["secret"].as_str())
        .await
        .unwrap();
    let answer = white.act(json!({"type": "pass"})).await.unwrap();
    assert_eq!(answer["code"], "over");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_closes_what_is_due_at_once_and_resumes_started_clocks_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("goref.db");
    // The first server in a runtime of its own, dropped with all its tasks (its timers too).
    let first = db.clone();
    let (never, clocked_id) = std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move {
            let (addr, _task) = server_at(&first, Options::default()).await;
            let never = create_game(addr, &json!({"width": 5})).await.unwrap();
            let clocked = create_game(
                addr,
                &json!({"width": 5, "time": {"kind": "sudden_death", "main_s": 2}}),
            )
            .await
            .unwrap();
            let clocked_id = clocked["id"].as_str().unwrap().to_string();
            let mut black = Player::connect(addr, &clocked_id, clocked["black"]["secret"].as_str())
                .await
                .unwrap();
            black
                .must(json!({"type": "play", "x": 2, "y": 2}))
                .await
                .unwrap();
            black.close().await;
            (never, clocked_id)
        })
    })
    .join()
    .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;

    let restarted = Instant::now();
    let (addr, _task) = server_at(
        &db,
        Options {
            unstarted_expiry: Duration::from_millis(200),
            lag_allowance_ms: 100,
            ..Options::default()
        },
    )
    .await;
    // Nobody asks for the clocked game: it is resumed by the server itself (version 2, the
    // resume in its log) and flagged about 2 s (plus the lag allowance) after the restart
    // (version 3), not before.
    let id = never["id"].as_str().unwrap();
    let mut spectator = Player::connect(addr, &clocked_id, None).await.unwrap();
    let st = if spectator.state["phase"] == "over" {
        spectator.state.clone()
    } else {
        spectator.wait_version(3).await.unwrap()
    };
    let flagged_after = restarted.elapsed();
    assert_eq!(st["result"], "B+T");
    assert!(
        flagged_after >= Duration::from_millis(1900),
        "flagged {flagged_after:?} after the restart: the time the server was down is not charged"
    );
    let st = state_of(addr, id).await;
    assert_eq!(st["result"], "Void", "{st}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_caps_get_503_and_slow_heads_are_cut() {
    let s = server_with(Options {
        max_connections: 12,
        max_connections_per_address: 4,
        header_timeout: Duration::from_millis(800),
        ..Options::default()
    })
    .await;
    let mut probe = Probe::new(s.addr).await;
    probe.step().await;
    // A slowloris head, a byte every 100 ms, is cut at the header timeout.
    let (mut rd, mut wr) = connect_from([127, 0, 0, 3], s.addr).await.into_split();
    let slow = tokio::spawn(async move {
        for byte in b"GET / HTTP/1.1\r\nHost: x\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n" {
            if wr.write_all(&[*byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let t = Instant::now();
    probe.step().await;
    assert!(
        closed_within(&mut rd, Duration::from_secs(4)).await,
        "the slow head was not cut"
    );
    let cut_after = t.elapsed();
    assert!(cut_after >= Duration::from_millis(600), "{cut_after:?}");
    slow.abort();
    // The attacker fills its share with connections that send nothing...
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(connect_from(ATTACKER, s.addr).await);
    }
    // ... and one more is refused at once.
    let mut refused = connect_from(ATTACKER, s.addr).await;
    let answer = read_answer(&mut refused).await.expect("503");
    assert_eq!(answer.status, 503);
    assert_eq!(answer.json()["error"], "busy");
    assert_eq!(answer.header("retry-after").as_deref(), Some("5"));
    assert_eq!(answer.header("x-frame-options").as_deref(), Some("deny"));
    // The probe's address is not starved.
    probe.steps(2).await;
    let (status, _) = http(s.addr, "GET", "/", None).await.unwrap();
    assert_eq!(status, 200);
    // Other addresses fill the rest: the probe's 2 + 4 + 6 = 12, the cap.
    let mut others = Vec::new();
    for i in 0..6u8 {
        others.push(connect_from([127, 0, 1, i], s.addr).await);
    }
    let mut over = connect_from([127, 0, 2, 1], s.addr).await;
    assert_eq!(read_answer(&mut over).await.map(|a| a.status), Some(503));
    probe.steps(2).await;
    // The connections that sent nothing are cut at the header timeout; then there is room.
    for stream in idle.iter_mut().chain(others.iter_mut()) {
        assert!(closed_within(stream, Duration::from_secs(3)).await);
    }
    let answer = request(ATTACKER, s.addr, "GET", "/", "", "").await;
    assert_eq!(answer.status, 200);
    probe.steps(2).await;
    println!(
        "probe: slowest ack {:?}; slow head cut after {cut_after:?}",
        probe.slowest
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_bodies_are_cut_by_the_idle_timeout_and_trickled_ones_get_408() {
    let s = server_with(Options {
        idle_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_millis(1500),
        create_per_minute: 0,
        ..Options::default()
    })
    .await;
    let mut probe = Probe::new(s.addr).await;
    // A body announced but stalled: nothing moves, the connection is closed.
    let mut stalled = connect_from(ATTACKER, s.addr).await;
    stalled
        .write_all(
            b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"wid",
        )
        .await
        .unwrap();
    let t = Instant::now();
    probe.step().await;
    assert!(closed_within(&mut stalled, Duration::from_secs(4)).await);
    assert!(
        t.elapsed() >= Duration::from_millis(400),
        "{:?}",
        t.elapsed()
    );
    // A body trickled a byte every 100 ms is never idle, but the request is out of time.
    let (mut rd, mut wr) = connect_from(ATTACKER, s.addr).await.into_split();
    wr.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 200\r\n\r\n",
    )
    .await
    .unwrap();
    let t = Instant::now();
    let trickle = tokio::spawn(async move {
        for _ in 0..200 {
            if wr.write_all(b" ").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    probe.step().await;
    let answer = read_answer(&mut rd).await.expect("408");
    trickle.abort();
    assert_eq!(answer.status, 408, "{answer:?}");
    assert_eq!(answer.json()["error"], "request_timeout");
    assert!(
        t.elapsed() >= Duration::from_millis(1000),
        "{:?}",
        t.elapsed()
    );
    probe.steps(3).await;
}

/// Pings every 200 ms of silence, closed after two missed in a row: a connection that never
/// answers is closed (after about 600 ms), one that answers stays through more pings than
/// that. Event-driven: the live connection counts the pings it answers (it
/// used to stop reading after a fixed 2 s and be checked 500 ms later, when the server could
/// have closed it for those very pings: the test's own race).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_that_misses_pings_is_closed_and_a_live_one_stays() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    const PINGS: usize = 5;
    let s = server_with(Options {
        ping_interval: Duration::from_millis(200),
        missed_pings: 2,
        ..Options::default()
    })
    .await;
    let mut probe = Probe::new(s.addr).await;
    let game = create_game(s.addr, &json!({"width": 5})).await.unwrap();
    let id = game["id"].as_str().unwrap().to_string();
    // A raw connection that answers nothing: its socket is read only at the end.
    let mut silent = connect_from(ATTACKER, s.addr).await;
    silent
        .write_all(
            format!(
                "GET /api/games/{id}/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n\
                 Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
                 Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let closed =
        tokio::spawn(async move { read_until_closed(&mut silent, Duration::from_secs(5)).await });
    // A spectator that reads, counting the pings (its library answers each as it reads on).
    let (mut live, _) =
        tokio_tungstenite::connect_async(format!("ws://{}/api/games/{id}/ws", s.addr))
            .await
            .unwrap();
    let live_task = tokio::spawn(async move {
        let mut pings = 0;
        while pings < PINGS {
            match live.next().await {
                Some(Ok(Message::Ping(_))) => pings += 1,
                Some(Ok(Message::Close(frame))) => return Err(format!("closed: {frame:?}")),
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e.to_string()),
                None => return Err("ended".into()),
            }
        }
        Ok(live)
    });
    // The probe plays on meanwhile (a few moves: a player flooding moves is rate limited).
    probe.steps(4).await;
    let sent = closed
        .await
        .unwrap()
        .expect("the silent WebSocket is closed");
    let sent = String::from_utf8_lossy(&sent);
    assert!(sent.starts_with("HTTP/1.1 101"), "{sent}");
    assert!(
        sent.contains("no answer to pings"),
        "closed for missed pings: {sent}"
    );
    let mut live = tokio::time::timeout(Duration::from_secs(10), live_task)
        .await
        .expect("the live WebSocket saw its pings")
        .unwrap()
        .expect("the live WebSocket stays");
    // Still open, and answered.
    live.send(Message::text(r#"{"type": "sync"}"#))
        .await
        .unwrap();
    loop {
        match live.next().await {
            Some(Ok(Message::Text(text))) => {
                let message: Value = serde_json::from_str(text.as_str()).unwrap();
                if message["type"] == "state" {
                    break;
                }
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            other => panic!("the live WebSocket answers: {other:?}"),
        }
    }
    // (The probe's players read only as they play: idle since, they are closed for missed
    // pings too, rightly.)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_site_requests_are_refused_and_frames_denied() {
    let s = server_with(Options {
        allowed_origins: vec!["https://club.example".into()],
        ..Options::default()
    })
    .await;
    let mut probe = Probe::new(s.addr).await;
    // A form post from another site: 415, nothing created.
    for headers in [
        "Content-Type: application/x-www-form-urlencoded\r\n",
        "Content-Type: text/plain\r\n",
        "Content-Type: multipart/form-data; boundary=x\r\n",
        "",
    ] {
        let answer = request(
            ATTACKER,
            s.addr,
            "POST",
            "/api/games",
            headers,
            r#"{"width": 9}"#,
        )
        .await;
        assert_eq!(answer.status, 415, "{headers}: {answer:?}");
        assert_eq!(answer.json()["error"], "not_json");
        assert_eq!(answer.header("x-frame-options").as_deref(), Some("deny"));
    }
    probe.step().await;
    let (_, list) = http(s.addr, "GET", "/api/games", None).await.unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&list).unwrap()["games"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "only the probe's game"
    );
    // Too large stays 413.
    let big = format!(r#"{{"black": "{}"}}"#, "x".repeat(20_000));
    assert_eq!(post_json(ATTACKER, s.addr, &big).await.status, 413);
    // Every answer denies frames.
    for path in ["/", "/assets/app.js", "/api/games", "/api/games/nope"] {
        let answer = request(ATTACKER, s.addr, "GET", path, "", "").await;
        assert_eq!(
            answer.header("x-frame-options").as_deref(),
            Some("deny"),
            "{path}"
        );
    }
    // WebSockets, the game's and the lobby's: no Origin (a program), the same origin and a
    // configured one are let in; another site's page is refused.
    let id = probe.t.id.clone();
    let (status, login) = login_from(ATTACKER, s.addr, "origin-test", "pass-word").await;
    assert_eq!(status, 200, "{login}");
    let token = login["token"].as_str().unwrap().to_string();
    let upgrade = |path: &str, origin: Option<&str>| {
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade\r\n\
             Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{origin}\r\n",
            s.addr
        )
    };
    let same = format!("http://{}", s.addr);
    for path in [
        format!("/api/games/{id}/ws"),
        format!("/api/lobby/ws?token={token}"),
    ] {
        for (origin, status) in [
            (None, 101),
            (Some(same.as_str()), 101),
            (Some("https://club.example"), 101),
            (Some("https://evil.example"), 403),
            (Some("null"), 403),
        ] {
            let mut stream = connect_from(ATTACKER, s.addr).await;
            stream
                .write_all(upgrade(&path, origin).as_bytes())
                .await
                .unwrap();
            let answer = read_answer(&mut stream).await.unwrap();
            assert_eq!(answer.status, status, "{path} {origin:?}: {answer:?}");
            if status == 403 {
                assert_eq!(answer.json()["error"], "foreign_origin");
            }
            probe.step().await;
        }
    }
    println!("probe: slowest ack {:?}", probe.slowest);
}

/// A login over raw HTTP from `from`: status and error code.
async fn login_from(from: [u8; 4], addr: SocketAddr, name: &str, password: &str) -> (u16, Value) {
    let body = json!({"name": name, "password": password, "create": true}).to_string();
    let answer = request(
        from,
        addr,
        "POST",
        "/api/login",
        "Content-Type: application/json\r\n",
        &body,
    )
    .await;
    (answer.status, answer.json())
}

/// 23.7: twenty guesses at once from one address are counted before they are hashed (ten are
/// checked, ten refused); the attacker stays refused even with the right password, while the
/// owner, from her own address, logs in during the attack.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attacker_is_throttled_and_the_owner_logs_in_during_the_attack() {
    let s = server_with(Options {
        create_burst: 1000,
        create_per_minute: 100_000,
        ..Options::default()
    })
    .await;
    const OWNER: [u8; 4] = [127, 0, 0, 5];
    const GUESSER: [u8; 4] = [127, 0, 0, 66];
    let (status, _) = login_from(OWNER, s.addr, "alice", "the-right-one").await;
    assert_eq!(status, 200);
    let guesses = (0..20).map(|i| {
        let addr = s.addr;
        tokio::spawn(async move { login_from(GUESSER, addr, "alice", &format!("guess-{i}")).await })
    });
    let mut codes = Vec::new();
    for g in guesses.collect::<Vec<_>>() {
        let (status, body) = g.await.unwrap();
        codes.push((status, body["error"].as_str().unwrap_or("").to_string()));
    }
    let wrong = codes.iter().filter(|(_, c)| c == "wrong_password").count();
    let refused = codes
        .iter()
        .filter(|(s, c)| *s == 429 && c == "too_many_attempts")
        .count();
    assert_eq!((wrong, refused), (10, 10), "{codes:?}");
    // The attacker is refused before the password is looked at, even the right one.
    let (status, body) = login_from(GUESSER, s.addr, "alice", "the-right-one").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (429, Some("too_many_attempts"))
    );
    // The owner is not.
    let (status, body) = login_from(OWNER, s.addr, "alice", "the-right-one").await;
    assert_eq!(status, 200, "{body}");
}

/// Every 429 says when to come back (`Retry-After`, whole seconds): too many unfinished games,
/// too many failed logins, too many lobby connections of one account (the creation and login
/// rates are tested above); a body too large is refused with 413 in the JSON form of every
/// other refusal, not axum's plain text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_429_says_when_to_come_back_and_a_body_too_large_gets_json() {
    let s = server_with(Options {
        create_burst: 1000,
        create_per_minute: 100_000,
        max_unfinished_per_creator: 1,
        ..Options::default()
    })
    .await;
    let retry_after = |answer: &Answer| -> u64 {
        answer
            .header("retry-after")
            .unwrap_or_else(|| panic!("no Retry-After: {answer:?}"))
            .parse()
            .unwrap()
    };
    // Too many unfinished games.
    assert_eq!(
        post_json(ATTACKER, s.addr, r#"{"width": 5}"#).await.status,
        201
    );
    let refused = post_json(ATTACKER, s.addr, r#"{"width": 5}"#).await;
    assert_eq!(
        (refused.status, refused.json()["error"].as_str()),
        (429, Some("too_many_unfinished")),
        "{refused:?}"
    );
    assert!(retry_after(&refused) >= 1);
    // Too many failed guesses of a password.
    const OWNER: [u8; 4] = [127, 0, 0, 7];
    const GUESSER: [u8; 4] = [127, 0, 0, 77];
    let (status, login) = login_from(OWNER, s.addr, "hana", "the-right-one").await;
    assert_eq!(status, 200, "{login}");
    let token = login["token"].as_str().unwrap().to_string();
    let mut throttled = None;
    for i in 0..20 {
        let body = json!({"name": "hana", "password": format!("guess-{i}")}).to_string();
        let answer = request(
            GUESSER,
            s.addr,
            "POST",
            "/api/login",
            "Content-Type: application/json\r\n",
            &body,
        )
        .await;
        if answer.status == 429 {
            throttled = Some(answer);
            break;
        }
        assert_eq!(answer.status, 403, "{answer:?}");
    }
    let throttled = throttled.expect("the guesser is throttled within 20 guesses");
    assert_eq!(throttled.json()["error"], "too_many_attempts");
    assert!(retry_after(&throttled) >= 1);
    // Too many lobby connections of one account.
    let upgrade = format!(
        "GET /api/lobby/ws?token={token} HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        s.addr
    );
    let mut open = Vec::new();
    let over = loop {
        assert!(open.len() <= 64, "no cap on lobby connections");
        let mut stream = connect_from(OWNER, s.addr).await;
        stream.write_all(upgrade.as_bytes()).await.unwrap();
        let answer = read_answer(&mut stream).await.unwrap();
        if answer.status != 101 {
            break answer;
        }
        open.push(stream);
    };
    assert_eq!(
        (over.status, over.json()["error"].as_str()),
        (429, Some("too_many_connections")),
        "{over:?}"
    );
    assert!(retry_after(&over) >= 1);
    drop(open);
    // A body too large, to the games and to the logins: 413, JSON.
    let big = format!(r#"{{"black": "{}"}}"#, "x".repeat(20_000));
    for path in ["/api/games", "/api/login"] {
        let answer = request(
            OWNER,
            s.addr,
            "POST",
            path,
            "Content-Type: application/json\r\n",
            &big,
        )
        .await;
        assert_eq!(answer.status, 413, "{path}: {answer:?}");
        assert_eq!(
            answer.header("content-type").as_deref(),
            Some("application/json"),
            "{path}"
        );
        assert_eq!(answer.json()["error"], "too_large", "{path}: {answer:?}");
        assert!(
            answer.json()["message"]
                .as_str()
                .is_some_and(|m| m.contains("bytes")),
            "{answer:?}"
        );
    }
}
