//! Measurements of `goref serve` as a process (ignored by default; numbers for the README and
//! the issue's closing note):
//!
//!     cargo test --release -p goref --test serve_limits -- --ignored --nocapture --test-threads 1
//!
//! - `restart_with_many_unfinished_games`: a database with `GOREF_MEASURE_GAMES` (default
//!   50,000) unfinished games, a fifth of them started (one move, a Fischer clock); the time
//!   from starting the process to its first answer, and its memory (RSS) then, 5 s and 20 s
//!   later (the server's own line says when it has resumed the started games); then once
//!   more with `--unstarted-expiry 0s`, which closes the 40,000 never started in the
//!   background.
//! - `memory_with_finished_games`: the memory of a server with 10,000 finished games in its
//!   store, after listing them and opening 1,000 of them, a minute later, and after opening
//!   1,000 others.
//! - `probe_latency_with_idle_connections_and_a_creation_flood`: the ack latency (median, p99)
//!   of a probe game alone, then with 1,000 idle WebSockets open and a flood of game creations
//!   running (16 connections at a time from four addresses), under the default limits.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use common::{rss_mib, serve, Server};
use goref_rules::{ByColor, Color};
use goref_server::client::http;
use goref_server::room::{Act, CreateRequest, Room};
use goref_server::store::StoredGame;
use goref_server::{SqliteStore, Store};
use serde_json::json;

trait Rss {
    fn rss_mib(&self) -> f64;
}

impl Rss for Server {
    fn rss_mib(&self) -> f64 {
        rss_mib(self.child.id())
    }
}

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("goref-measure-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("goref.db")
}

fn games() -> usize {
    std::env::var("GOREF_MEASURE_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50_000)
}

/// Fills `db` with `n` games: every `started`-th one started with one move; `finished` ones
/// resigned after it.
async fn fill(db: &Path, n: usize, started: usize, finished: bool) {
    let store = Arc::new(SqliteStore::open(db).unwrap());
    let config = serde_json::from_value::<CreateRequest>(json!({
        "time": {"kind": "fischer", "main_s": 3600, "increment_s": 10}
    }))
    .unwrap()
    .config()
    .unwrap();
    let now = goref_server::clock::wall_ms();
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        let mut tasks = Vec::new();
        for &i in chunk {
            let store = store.clone();
            let config = config.clone();
            tasks.push(tokio::spawn(async move {
                let id = format!("m{i:08}");
                let created = now - 1000;
                store
                    .create(StoredGame {
                        id: id.clone(),
                        created_ms: created,
                        config: config.clone(),
                        secret_hashes: ByColor::new("b".into(), "w".into()),
                        creator: format!("addr:10.0.{}.{}", i / 250 % 250, i % 250),
                    })
                    .await
                    .unwrap();
                if i % started == 0 {
                    let room = Room::new(config, created, 1000).unwrap();
                    let (event, room) = room
                        .prepare(Some(Color::Black), Act::Play { x: 3, y: 3 }, now, None)
                        .unwrap();
                    store.append(&id, &event, 1).await.unwrap();
                    if finished {
                        let (event, _) = room
                            .prepare(Some(Color::White), Act::Resign, now, None)
                            .unwrap();
                        store.append(&id, &event, 1).await.unwrap();
                        store.finish(&id, "B+R".parse().unwrap()).await.unwrap();
                    }
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    }
}

/// Waits until the server answers `GET /`; returns how long that took.
async fn first_answer(addr: SocketAddr, since: Instant) -> Duration {
    loop {
        if let Ok((200, _)) = http(addr, "GET", "/", None).await {
            return since.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement: run with --ignored --release --nocapture"]
async fn restart_with_many_unfinished_games() {
    let n = games();
    let db = temp_db("restart");
    let t = Instant::now();
    fill(&db, n, 5, false).await;
    println!(
        "measure: {n} unfinished games ({} started) stored in {:.1} s",
        n.div_ceil(5),
        t.elapsed().as_secs_f64()
    );
    // Twice as they are, then once with the never-started ones due to close (closed in the
    // background while the server answers).
    for round in 0..3 {
        let t = Instant::now();
        let server = if round < 2 {
            serve(&db, &[])
        } else {
            serve(&db, &["--unstarted-expiry", "0s"])
        };
        let listening = t.elapsed();
        let answered = first_answer(server.addr, t).await;
        let rss_ready = server.rss_mib();
        tokio::time::sleep(Duration::from_secs(5)).await;
        let (status, _) = http(server.addr, "GET", "/api/games?limit=10", None)
            .await
            .unwrap();
        assert_eq!(status, 200);
        let rss_5 = server.rss_mib();
        tokio::time::sleep(Duration::from_secs(if round < 2 { 15 } else { 55 })).await;
        println!(
            "measure: restart {round} with {n} unfinished games: listening after {:.2} s, \
             first answer after {:.2} s; RSS {rss_ready:.0} MiB then, {rss_5:.0} MiB 5 s \
             later, {:.0} MiB {} s later",
            listening.as_secs_f64(),
            answered.as_secs_f64(),
            server.rss_mib(),
            if round < 2 { 20 } else { 60 }
        );
        server.kill();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement: run with --ignored --release --nocapture"]
async fn memory_with_finished_games() {
    let n = 10_000;
    let db = temp_db("finished");
    fill(&db, n, 1, true).await;
    let server = serve(&db, &[]);
    first_answer(server.addr, Instant::now()).await;
    let idle = server.rss_mib();
    let (status, list) = http(server.addr, "GET", "/api/games?limit=1000", None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert!(list.contains("B+R"));
    for i in (0..n).step_by(10) {
        let (status, _) = http(server.addr, "GET", &format!("/api/games/m{i:08}"), None)
            .await
            .unwrap();
        assert_eq!(status, 200);
    }
    let opened = server.rss_mib();
    // The rooms opened leave memory at the next upkeep (every minute).
    tokio::time::sleep(Duration::from_secs(65)).await;
    let later = server.rss_mib();
    // 1,000 other games: they take the memory the first ones left (it would grow again if
    // those had stayed).
    for i in (5..n).step_by(10) {
        let (status, _) = http(server.addr, "GET", &format!("/api/games/m{i:08}"), None)
            .await
            .unwrap();
        assert_eq!(status, 200);
    }
    println!(
        "measure: {n} finished games in the store: RSS {idle:.0} MiB after start, \
         {opened:.0} MiB after listing 1,000 and opening 1,000 of them, {later:.0} MiB a \
         minute later (after the upkeep), {:.0} MiB after opening 1,000 others",
        server.rss_mib()
    );
    server.kill();
}

/// A TCP connection to `addr` from the local address `from`.
async fn connect_from(from: [u8; 4], addr: SocketAddr) -> std::io::Result<tokio::net::TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((from, 0)))?;
    socket.connect(addr).await
}

/// An idle spectator: the WebSocket handshake, the greeting read, then nothing.
async fn idle_spectator(
    from: [u8; 4],
    addr: SocketAddr,
    id: &str,
) -> std::io::Result<tokio::net::TcpStream> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = connect_from(from, addr).await?;
    stream
        .write_all(
            format!(
                "GET /api/games/{id}/ws HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\n\
                 Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
                 Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
            )
            .as_bytes(),
        )
        .await?;
    let mut buf = [0u8; 512];
    let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf)).await??;
    if !buf[..n].starts_with(b"HTTP/1.1 101") {
        return Err(std::io::Error::other(
            String::from_utf8_lossy(&buf[..n]).into_owned(),
        ));
    }
    Ok(stream)
}

/// `POST /api/games` from `from`; the status.
async fn post_from(from: [u8; 4], addr: SocketAddr) -> Option<u16> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = connect_from(from, addr).await.ok()?;
    let body = r#"{"width": 9}"#;
    let request = format!(
        "POST /api/games HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .ok()?
        .ok()?;
    String::from_utf8_lossy(&raw)
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Plays `moves` moves of a 19×19 probe game; the ack latencies, sorted.
async fn probe_latencies(addr: SocketAddr, moves: usize) -> Vec<Duration> {
    use goref_server::client::{create_game, Player};
    let game = create_game(addr, &json!({"width": 19})).await.unwrap();
    let id = game["id"].as_str().unwrap();
    let mut players = [
        Player::connect(addr, id, game["black"]["secret"].as_str())
            .await
            .unwrap(),
        Player::connect(addr, id, game["white"]["secret"].as_str())
            .await
            .unwrap(),
    ];
    for p in &mut players {
        p.light = true;
    }
    let mut latencies = Vec::with_capacity(moves);
    for n in 0..moves {
        let k = n / 2;
        let (x, y) = if n % 2 == 0 {
            (k % 19, k / 19)
        } else {
            (k % 19, 18 - k / 19)
        };
        let p = &mut players[n % 2];
        p.wait_version(n as u64).await.unwrap();
        let sent = Instant::now();
        let answer = p
            .act(json!({"type": "play", "x": x, "y": y, "version": n}))
            .await
            .unwrap();
        latencies.push(sent.elapsed());
        assert_eq!(answer["type"], "ack", "{answer}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    latencies.sort();
    latencies
}

fn quantile_ms(sorted: &[Duration], q: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement: run with --ignored --release --nocapture"]
async fn probe_latency_with_idle_connections_and_a_creation_flood() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let db = temp_db("flood");
    // The default limits.
    let server = serve(&db, &[]);
    let addr = server.addr;
    let quiet = probe_latencies(addr, 200).await;
    println!(
        "measure: probe alone: ack latency median {:.2} ms, p99 {:.2} ms; RSS {:.0} MiB",
        quantile_ms(&quiet, 0.5),
        quantile_ms(&quiet, 0.99),
        server.rss_mib()
    );

    // 1,000 idle spectators of another game, from 8 addresses (125 each, under the
    // per-address cap of 256).
    let idle_game = goref_server::client::create_game(addr, &json!({"width": 9}))
        .await
        .unwrap();
    let idle_id = idle_game["id"].as_str().unwrap();
    let mut idle = Vec::new();
    for i in 0..1000u32 {
        let from = [127, 0, 9, 1 + (i % 8) as u8];
        idle.push(idle_spectator(from, addr, idle_id).await.unwrap());
    }
    // A flood of creations from four addresses, four connections at a time each.
    let stop = Arc::new(AtomicBool::new(false));
    let counts: Arc<[AtomicUsize; 3]> = Arc::new(Default::default());
    let mut flood = Vec::new();
    for a in 0..4u8 {
        for _ in 0..4 {
            let (stop, counts) = (stop.clone(), counts.clone());
            flood.push(tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let slot = match post_from([127, 0, 8, 1 + a], addr).await {
                        Some(201) => 0,
                        Some(429) => 1,
                        _ => 2,
                    };
                    counts[slot].fetch_add(1, Ordering::Relaxed);
                }
            }));
        }
    }
    let started = Instant::now();
    let loaded = probe_latencies(addr, 200).await;
    let took = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for t in flood {
        let _ = t.await;
    }
    let [created, limited, other] = [0, 1, 2].map(|i| counts[i].load(Ordering::Relaxed));
    println!(
        "measure: probe with {} idle WebSockets and a creation flood ({} requests in {took:.1} s: \
         {created} created, {limited} refused 429, {other} other): ack latency median {:.2} ms, \
         p99 {:.2} ms, max {:.2} ms; RSS {:.0} MiB",
        idle.len(),
        created + limited + other,
        quantile_ms(&loaded, 0.5),
        quantile_ms(&loaded, 0.99),
        quantile_ms(&loaded, 1.0),
        server.rss_mib()
    );
    assert!(limited > created, "the flood is refused");
    drop(idle);
    server.kill();
}
