//! Load test on loopback: N simultaneous games between scripted clients (two WebSocket
//! connections a game), each playing a fixed number of moves; reports the move-acknowledgement
//! latency (time from sending a move to receiving its `ack`, which the server sends only once
//! the move is stored). Bounded in count and time.
//!
//! The small run is part of the test suite; the large ones are ignored by default:
//!
//!     cargo test --release -p goref-server --test load -- --ignored --nocapture
//!
//! The `postgres` ones run on PostgreSQL (`PgStore`) when it is there (`PGDATABASE` set), and
//! are skipped otherwise (unless GOREF_REQUIRE_PG is set); both back ends in one run:
//!
//!     pg_virtualenv cargo test --release -p goref-server --test load -- --nocapture --test-threads 1
//!
//! `GOREF_LOAD_THINK_MS` (default 50) is how long each scripted player waits after seeing its
//! turn before moving (spread over 50-150 % of it); `GOREF_LOAD_MOVES` (default 40, at most 72) the moves of each game.

mod common;

use std::time::{Duration, Instant};

use std::sync::Arc;

use common::*;
use goref_server::client::{create_game, Player};
use goref_server::Store;
use serde_json::json;

struct Report {
    games: usize,
    moves: usize,
    median_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    wall_s: f64,
}

/// Black fills the top rows of 9×9 from the left, White the bottom rows: no captures, no
/// passes; `moves` at most 2 × 36.
fn point(n: usize) -> (usize, usize) {
    let k = n / 2;
    if n.is_multiple_of(2) {
        (k % 9, k / 9)
    } else {
        (k % 9, 8 - k / 9)
    }
}

/// On a fresh SQLite file when `store` is `None`.
async fn run(games: usize, moves: usize, think: Duration, store: Option<Arc<dyn Store>>) -> Report {
    assert!(moves <= 72);
    let opts = goref_server::Options {
        messages_per_second: 10_000,
        // One client address creates and plays every game.
        create_per_minute: 0,
        max_unfinished_per_creator: usize::MAX,
        max_connections_per_address: usize::MAX,
        ..goref_server::Options::default()
    };
    let s = match store {
        Some(store) => server_on(store, opts).await,
        None => server_with(opts).await,
    };
    let addr = s.addr;
    // Set every game up first (connections included), then start them together.
    let mut tables = Vec::with_capacity(games);
    for _ in 0..games {
        let created = create_game(addr, &json!({"width": 9, "height": 9}))
            .await
            .unwrap();
        let id = created["id"].as_str().unwrap().to_string();
        let mut black = Player::connect(addr, &id, created["black"]["secret"].as_str())
            .await
            .unwrap();
        let mut white = Player::connect(addr, &id, created["white"]["secret"].as_str())
            .await
            .unwrap();
        black.light = true;
        white.light = true;
        tables.push((black, white));
    }
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(games * 2);
    for (g, (black, white)) in tables.into_iter().enumerate() {
        for (side, mut player) in [(0usize, black), (1usize, white)] {
            tasks.push(tokio::spawn(async move {
                let mut latencies = Vec::new();
                // Think times spread over 50-150 % of `think` (seeded), so that the games
                // do not move in step.
                let mut seed = (g * 2 + side) as u64 + 1;
                for n in (side..moves).step_by(2) {
                    player.wait_version(n as u64).await.unwrap();
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let percent = 50 + (seed >> 33) % 101;
                    tokio::time::sleep(think * percent as u32 / 100).await;
                    let (x, y) = point(n);
                    let sent = Instant::now();
                    let answer = player
                        .act(json!({"type": "play", "x": x, "y": y, "version": n}))
                        .await
                        .unwrap();
                    latencies.push(sent.elapsed());
                    assert_eq!(answer["type"], "ack", "{answer}");
                }
                player.close().await;
                latencies
            }));
        }
    }
    let mut all = Vec::new();
    let deadline = Duration::from_secs(300);
    for t in tasks {
        let latencies = tokio::time::timeout(deadline, t)
            .await
            .expect("load test bounded in time")
            .unwrap();
        all.extend(latencies);
    }
    let wall_s = start.elapsed().as_secs_f64();
    all.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| ms(all[((all.len() as f64 - 1.0) * q).round() as usize]);
    Report {
        games,
        moves: all.len(),
        median_ms: at(0.5),
        p99_ms: at(0.99),
        max_ms: ms(*all.last().unwrap()),
        wall_s,
    }
}

fn moves() -> usize {
    std::env::var("GOREF_LOAD_MOVES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
        .min(72)
}

fn think() -> Duration {
    Duration::from_millis(
        std::env::var("GOREF_LOAD_THINK_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(50),
    )
}

fn print(back_end: &str, r: &Report) {
    println!(
        "load ({back_end}): {} games, {} moves acknowledged in {:.1} s ({:.0} moves/s): ack latency median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        r.games,
        r.moves,
        r.wall_s,
        r.moves as f64 / r.wall_s,
        r.median_ms,
        r.p99_ms,
        r.max_ms
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_20_games() {
    let r = run(20, 20, Duration::from_millis(5), None).await;
    print("sqlite", &r);
    assert_eq!(r.moves, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_20_games_postgres() {
    let Some(store) = pg_store("load20").await else {
        return;
    };
    let r = run(20, 20, Duration::from_millis(5), Some(store)).await;
    print("postgres", &r);
    assert_eq!(r.moves, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "load test: run with --ignored --release"]
async fn load_100_games() {
    let r = run(100, moves(), think(), None).await;
    print("sqlite", &r);
    assert_eq!(r.moves, 100 * moves());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "load test: run with --ignored --release"]
async fn load_1000_games() {
    let r = run(1000, moves(), think(), None).await;
    print("sqlite", &r);
    assert_eq!(r.moves, 1000 * moves());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "load test: run with --ignored --release"]
async fn load_100_games_postgres() {
    let Some(store) = pg_store("load100").await else {
        return;
    };
    let r = run(100, moves(), think(), Some(store)).await;
    print("postgres", &r);
    assert_eq!(r.moves, 100 * moves());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "load test: run with --ignored --release"]
async fn load_1000_games_postgres() {
    let Some(store) = pg_store("load1000").await else {
        return;
    };
    let r = run(1000, moves(), think(), Some(store)).await;
    print("postgres", &r);
    assert_eq!(r.moves, 1000 * moves());
}
