//! `goref serve` as a process: killed with SIGKILL and started again on the same database, it
//! resumes every unfinished game with every acknowledged move and the clocks as they were at
//! the last stored move. On SQLite always, and on PostgreSQL when it is there (`PGDATABASE`
//! set, as under `pg_virtualenv`; skipped otherwise, unless GOREF_REQUIRE_PG is set):
//!
//!     pg_virtualenv cargo test -p goref --test serve

mod common;

use std::ffi::{OsStr, OsString};

use common::Server;
use goref_server::client::{create_game, http, Player};
use serde_json::json;

/// `goref serve --db DB`: an SQLite file or a `postgres://` URL.
fn serve(db: &OsStr) -> Server {
    common::serve(db, &["--rate", "10000"])
}

fn temp_db(name: &str) -> OsString {
    let dir = std::env::temp_dir().join(format!("goref-serve-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("goref.db").into_os_string()
}

fn pg_db(name: &str) -> Option<OsString> {
    common::pg_database(name).map(Into::into)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_and_restart_resume_every_unfinished_game_with_its_clocks() {
    resume_after_sigkill(&temp_db("resume")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_sigkill_and_restart_resume_every_unfinished_game_with_its_clocks() {
    if let Some(db) = pg_db("resume") {
        resume_after_sigkill(&db).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acknowledged_move_is_lost_to_a_sigkill_in_the_middle_of_play() {
    no_acknowledged_move_lost(&temp_db("flurry")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_no_acknowledged_move_is_lost_to_a_sigkill_in_the_middle_of_play() {
    if let Some(db) = pg_db("flurry") {
        no_acknowledged_move_lost(&db).await;
    }
}

async fn resume_after_sigkill(db: &OsStr) {
    let server = serve(db);
    let addr = server.addr;

    // A finished game, and an unfinished one with a clock.
    let done = create_game(addr, &json!({"width": 5, "height": 5, "end": "all-alive"}))
        .await
        .unwrap();
    let done_id = done["id"].as_str().unwrap();
    let mut b = Player::connect(addr, done_id, done["black"]["secret"].as_str())
        .await
        .unwrap();
    b.must(json!({"type": "play", "x": 2, "y": 2}))
        .await
        .unwrap();
    b.must(json!({"type": "resign"})).await.unwrap();

    let game = create_game(
        addr,
        &json!({"width": 9, "height": 7, "time": {"kind": "fischer", "main_s": 300, "increment_s": 2}}),
    )
    .await
    .unwrap();
    let id = game["id"].as_str().unwrap();
    let mut black = Player::connect(addr, id, game["black"]["secret"].as_str())
        .await
        .unwrap();
    let mut white = Player::connect(addr, id, game["white"]["secret"].as_str())
        .await
        .unwrap();
    let mut last_ack = 0;
    for (i, (x, y)) in [(2, 2), (6, 4), (2, 4), (6, 2), (4, 3)]
        .into_iter()
        .enumerate()
    {
        let player = if i.is_multiple_of(2) {
            &mut black
        } else {
            &mut white
        };
        player.wait_version(last_ack).await.unwrap();
        last_ack = player
            .must(json!({"type": "play", "x": x, "y": y}))
            .await
            .unwrap();
    }
    let before = white.wait_version(last_ack).await.unwrap();
    // White thinks a little; that time is charged as the clock runs, but the time the server
    // is down is not.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    server.kill();
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;

    let server = serve(db);
    let addr = server.addr;
    let mut white = Player::connect(addr, id, game["white"]["secret"].as_str())
        .await
        .unwrap();
    // The clocks resume once the restarted server leads: at once when it is alone; on
    // PostgreSQL as soon as it holds the leader's lock (which the killed server's session may
    // keep a moment). The resume is an event of the game's log (version `last_ack + 1`):
    // from then every view, on every server, charges White's turn from it (issue 23 §5).
    let after = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        white.wait_version(last_ack + 1),
    )
    .await
    .unwrap_or_else(|_| panic!("the clocks did not resume within 5 s: {}", white.state))
    .unwrap();
    assert_eq!(after["version"], last_ack + 1, "the moves, then the resume");
    let w_before = before["clocks"]["W"]["main_ms"].as_u64().unwrap();
    assert_eq!(after["board"], before["board"]);
    assert_eq!(after["moves"], before["moves"]);
    assert_eq!(after["clocks"]["B"], before["clocks"]["B"]);
    assert_eq!(after["clocks"]["running"], "W");
    let w_after = after["clocks"]["W"]["main_ms"].as_u64().unwrap();
    assert!(
        w_before.abs_diff(w_after) < 1_500,
        "White's clock resumes as it was at the last stored move: {w_before} then {w_after}"
    );
    // Play goes on.
    white
        .must(json!({"type": "play", "x": 4, "y": 5}))
        .await
        .unwrap();

    // The finished game is still there, with its record.
    let (status, sgf) = http(addr, "GET", &format!("/api/games/{done_id}/sgf"), None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert!(sgf.contains("RE[W+R]"), "{sgf}");
    let (_, list) = http(addr, "GET", "/api/games", None).await.unwrap();
    assert!(list.contains(done_id) && list.contains(id), "{list}");
    server.kill();
}

async fn no_acknowledged_move_lost(db: &OsStr) {
    let server = serve(db);
    let addr = server.addr;
    let game = create_game(addr, &json!({"width": 19, "height": 19}))
        .await
        .unwrap();
    let id = game["id"].as_str().unwrap().to_string();
    let secrets = [
        game["black"]["secret"].as_str().unwrap().to_string(),
        game["white"]["secret"].as_str().unwrap().to_string(),
    ];
    // One task plays both sides as fast as the server acknowledges; the test kills the server
    // while it does.
    let (acked_tx, mut acked_rx) = tokio::sync::watch::channel(0u64);
    let player_task = {
        let id = id.clone();
        let secrets = secrets.clone();
        tokio::spawn(async move {
            let mut players = [
                Player::connect(addr, &id, Some(&secrets[0])).await.unwrap(),
                Player::connect(addr, &id, Some(&secrets[1])).await.unwrap(),
            ];
            for n in 0..300usize {
                // Black fills the top rows, White the bottom ones: no captures.
                let k = n / 2;
                let (x, y) = if n.is_multiple_of(2) {
                    (k % 19, k / 19)
                } else {
                    (k % 19, 18 - k / 19)
                };
                let p = &mut players[n % 2];
                let Ok(answer) = p
                    .act(json!({"type": "play", "x": x, "y": y, "version": n}))
                    .await
                else {
                    return;
                };
                assert_eq!(answer["type"], "ack", "{answer}");
                let _ = acked_tx.send(answer["version"].as_u64().unwrap());
            }
        })
    };
    // Kill once some moves are acknowledged.
    acked_rx.wait_for(|&v| v >= 40).await.unwrap();
    server.kill();
    let _ = player_task.await;
    let acked = *acked_rx.borrow();

    let server = serve(db);
    let spectator = Player::connect(server.addr, &id, None).await.unwrap();
    let stored = spectator.state["version"].as_u64().unwrap();
    assert!(
        stored >= acked,
        "acknowledged {acked} moves but only {stored} survived"
    );
    assert_eq!(
        spectator.state["moves"].as_array().unwrap().len() as u64,
        stored
    );
    server.kill();
}

/// Issue 13 §2: of two servers on one PostgreSQL database exactly one fires the clocks; when
/// it is killed with SIGKILL the other takes over and flags the player whose time ran out,
/// which a spectator connected to it sees.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_killing_the_server_that_fires_clocks_lets_the_other_fire_them() {
    let Some(db) = pg_db("leader") else { return };
    // The first server takes the leader's lock at once (it answers once it knows); the
    // second waits for it.
    let first = serve(&db);
    let second = serve(&db);
    let created = create_game(
        first.addr,
        &json!({"width": 9, "height": 9, "time": {"kind": "sudden_death", "main_s": 2}}),
    )
    .await
    .unwrap();
    let id = created["id"].as_str().unwrap();
    let mut black = Player::connect(first.addr, id, created["black"]["secret"].as_str())
        .await
        .unwrap();
    // Black's first move starts White's clock: 2 s, plus the lag allowance of 1 s.
    black
        .must(json!({"type": "play", "x": 2, "y": 2}))
        .await
        .unwrap();
    let mut watcher = Player::connect(second.addr, id, None).await.unwrap();
    watcher.wait_version(1).await.unwrap();
    let killed_at = std::time::Instant::now();
    first.kill();
    let deadline = killed_at + std::time::Duration::from_secs(20);
    while watcher.state["result"].is_null() {
        assert!(
            std::time::Instant::now() < deadline,
            "nobody flagged White: {}",
            watcher.state
        );
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), watcher.recv()).await;
    }
    assert_eq!(watcher.state["result"], "B+T", "{}", watcher.state);
    assert_eq!(
        watcher.state["version"], 3,
        "the resume of the clocks at the take-over, then one timeout event"
    );
    let (_, list) = http(second.addr, "GET", "/api/games", None).await.unwrap();
    assert!(list.contains("B+T"), "{list}");
    second.kill();
}

/// 23.7: Argon2id needs 19 MiB a hash; a fresh block each login left glibc holding hundreds of
/// MB (354-470 MB after 40 logins). With one reused block per hashing permit (two), the server
/// grows by its permits' worth once, then no more: 200 logins (four at a time: accounts created,
/// then logged in again) leave it within two blocks and a wide margin of where it started, and
/// the last 160 logins add next to nothing to the first 40.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_logins_hold_the_server_to_its_hashing_permits_worth() {
    const BLOCK_MIB: f64 = 19.0;
    const PERMITS: f64 = 2.0;
    let db = temp_db("rss");
    // Logins are limited per address as game creation is: lifted here.
    let server = common::serve(&db, &["--create-burst", "1000", "--create-per-minute", "0"]);
    let addr = server.addr;
    // Serving, before any login.
    http(addr, "GET", "/api/games", None).await.unwrap();
    let before = common::rss_mib(server.child.id());
    let mut after_40 = f64::NAN;
    for round in 0..50 {
        let logins = (0..4).map(|i| {
            // 100 accounts, each logged in twice: creation hashes, logging in verifies.
            let name = format!("bot{}", (round * 4 + i) % 100);
            tokio::spawn(async move {
                let body = json!({"name": name, "password": "pass-word", "create": true});
                http(addr, "POST", "/api/login", Some(&body.to_string()))
                    .await
                    .unwrap()
            })
        });
        for login in logins.collect::<Vec<_>>() {
            let (status, body) = login.await.unwrap();
            assert_eq!(status, 200, "{body}");
        }
        if round == 9 {
            after_40 = common::rss_mib(server.child.id());
        }
    }
    let rss = common::rss_mib(server.child.id());
    println!(
        "RSS before the logins: {before:.1} MiB; after 40: {after_40:.1} MiB; after 200: {rss:.1} MiB"
    );
    assert!(
        rss - before < PERMITS * BLOCK_MIB + 24.0,
        "200 logins grew the server by {:.1} MiB",
        rss - before
    );
    assert!(
        rss - after_40 < 12.0,
        "the last 160 logins grew the server by {:.1} MiB",
        rss - after_40
    );
}

/// 001 §3.9 on the server as a process: a 3×3 game under the Olympiad's end protocol whose
/// third party plays perfectly. Each player calls the other's lone stone dead four times; the
/// server searches once and stores the play-out; `goref score` of the record it exports
/// prints its RE; killed and started again, it replays the log to the same game and the same
/// record. A game asking more nodes than `--max-perfect-nodes` is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_perfect_play_adjudication_is_scored_by_goref_score_and_survives_a_restart() {
    perfect_play_across_a_restart(&temp_db("perfect")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_a_perfect_play_adjudication_survives_a_restart() {
    if let Some(db) = pg_db("perfect") {
        perfect_play_across_a_restart(&db).await;
    }
}

async fn perfect_play_across_a_restart(db: &OsStr) {
    // Where the record goes for `goref score` (beside a database of its own).
    let records = temp_db("perfect-records");
    let dir = std::path::Path::new(&records).parent().unwrap();
    let flags = ["--rate", "10000", "--max-perfect-nodes", "500000"];
    let server = common::serve(db, &flags);
    let addr = server.addr;
    let request = |nodes: u64| {
        json!({"width": 3, "height": 3, "rules": "olympiad", "komi": 0.5, "end": "olympiad",
               "third_party": {"type": "perfect_play", "nodes": nodes}})
    };
    let (status, body) = http(
        addr,
        "POST",
        "/api/games",
        Some(&request(500_001).to_string()),
    )
    .await
    .unwrap();
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("at most 500000 nodes"), "{body}");
    let game = create_game(addr, &request(500_000)).await.unwrap();
    let id = game["id"].as_str().unwrap();
    let mut black = Player::connect(addr, id, game["black"]["secret"].as_str())
        .await
        .unwrap();
    let mut white = Player::connect(addr, id, game["white"]["secret"].as_str())
        .await
        .unwrap();
    // One player acts on the latest state; the other sees the result.
    async fn step(actor: &mut Player, other: &mut Player, msg: serde_json::Value) -> u64 {
        let v = actor.must(msg.clone()).await.unwrap();
        other.wait_version(v).await.unwrap();
        v
    }
    let pass = json!({"type": "pass"});
    step(
        &mut black,
        &mut white,
        json!({"type": "play", "x": 0, "y": 2}),
    )
    .await;
    step(
        &mut white,
        &mut black,
        json!({"type": "play", "x": 1, "y": 0}),
    )
    .await;
    step(&mut black, &mut white, pass.clone()).await;
    step(&mut white, &mut black, pass.clone()).await;
    let mut last = 0;
    for round in 0..4 {
        let lists = (
            json!({"type": "dead_list", "points": [[1, 0]]}),
            json!({"type": "dead_list", "points": [[0, 2]]}),
        );
        step(&mut black, &mut white, lists.0).await;
        last = step(&mut white, &mut black, lists.1).await;
        if round < 3 {
            // Play resumes with the first to pass, Black.
            step(&mut black, &mut white, pass.clone()).await;
            step(&mut white, &mut black, pass.clone()).await;
        }
    }
    let st = black.wait_version(last).await.unwrap();
    assert_eq!(st["phase"], "over", "{st}");
    assert_eq!(st["ending"], "adjudicated");
    let result = st["result"].as_str().unwrap().to_string();
    assert!(
        st["notes"]
            .to_string()
            .contains("perfect play (001 §3.9, goref solve): "),
        "{st}"
    );
    let re = common::check_record(addr, dir, id).await;
    assert_eq!(re, result);
    let (_, sgf) = http(addr, "GET", &format!("/api/games/{id}/sgf"), None)
        .await
        .unwrap();
    server.kill();

    let server = common::serve(db, &flags);
    let (status, again) = http(server.addr, "GET", &format!("/api/games/{id}/sgf"), None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(again, sgf, "the same record from the replayed log");
    let (_, state) = http(server.addr, "GET", &format!("/api/games/{id}"), None)
        .await
        .unwrap();
    let state: serde_json::Value = serde_json::from_str(&state).unwrap();
    assert_eq!(state["result"], result.as_str());
    assert_eq!(state["moves"], st["moves"]);
    assert_eq!(state["version"], st["version"]);
    server.kill();
}
