//! Two servers on one PostgreSQL database (issue 13 item 2): a move that reaches a server whose
//! room is behind the database is refused as `stale`, never stored twice, and that server
//! reads the game again and tells its players; a move through one server reaches the pages on
//! the other by LISTEN/NOTIFY. Skipped without
//! PostgreSQL (`PGDATABASE`), unless GOREF_REQUIRE_PG is set:
//!
//!     pg_virtualenv cargo test -p goref-server --test two_servers

mod common;

use std::sync::Arc;

use common::*;
use goref_server::client::{create_game, Player};
use goref_server::{Options, PgStore};
use serde_json::json;

/// Two servers on the database at `url`, and a 9×9 game created through the first.
async fn two_servers_and_a_game(url: &str) -> (TestServer, TestServer, serde_json::Value) {
    let mut servers = Vec::new();
    for _ in 0..2 {
        let store = Arc::new(PgStore::connect(url).await.unwrap());
        servers.push(server_on(store, Options::default()).await);
    }
    let two = servers.pop().unwrap();
    let one = servers.pop().unwrap();
    let game = create_game(one.addr, &json!({"width": 9, "height": 9}))
        .await
        .unwrap();
    (one, two, game)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_on_a_stale_server_is_refused_and_that_server_catches_up() {
    let Some(url) = pg_database("two") else {
        return;
    };
    let (one, two, game) = two_servers_and_a_game(&url).await;
    let id = game["id"].as_str().unwrap();
    let (b, w) = (
        game["black"]["secret"].as_str(),
        game["white"]["secret"].as_str(),
    );
    // Black is connected to both servers (two pages); White to the second.
    let mut black_one = Player::connect(one.addr, id, b).await.unwrap();
    let mut black_two = Player::connect(two.addr, id, b).await.unwrap();
    let mut white_two = Player::connect(two.addr, id, w).await.unwrap();
    assert_eq!(black_two.state["version"], 0);

    assert_eq!(
        black_one
            .must(json!({"type": "play", "x": 2, "y": 2, "version": 0}))
            .await
            .unwrap(),
        1
    );
    // Whether or not the second server has heard of it yet, a move that answers version 0 is
    // stale there (refused by its room, or by the database when its room is behind).
    let answer = black_two
        .act(json!({"type": "play", "x": 6, "y": 6, "version": 0}))
        .await
        .unwrap();
    assert_eq!(answer["type"], "error", "{answer}");
    assert_eq!(answer["code"], "stale", "{answer}");
    // It read the game again and told its players.
    let state = white_two.wait_version(1).await.unwrap();
    assert_eq!(state["version"], 1);
    assert_eq!(state["moves"].as_array().unwrap().len(), 1, "{state}");
    // Play goes on there, from the stored game.
    assert_eq!(
        white_two
            .must(json!({"type": "play", "x": 6, "y": 6, "version": 1}))
            .await
            .unwrap(),
        2
    );
    let fresh = Player::connect(two.addr, id, None).await.unwrap();
    assert_eq!(fresh.state["version"], 2);
    let moves = fresh.state["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2, "one move 1, one move 2: {moves:?}");
}

/// Issue 13 §2: a move played through one server reaches a spectator connected to the other
/// within a second (LISTEN/NOTIFY), and two conflicting moves sent to the two servers at
/// once give one ack and one `stale`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_through_one_server_reaches_a_spectator_on_the_other() {
    let Some(url) = pg_database("notify") else {
        return;
    };
    let (one, two, game) = two_servers_and_a_game(&url).await;
    let id = game["id"].as_str().unwrap();
    let (b, w) = (
        game["black"]["secret"].as_str(),
        game["white"]["secret"].as_str(),
    );
    let mut black = Player::connect(one.addr, id, b).await.unwrap();
    let mut watcher = Player::connect(two.addr, id, None).await.unwrap();
    assert_eq!(watcher.state["version"], 0);
    let sent = std::time::Instant::now();
    black
        .must(json!({"type": "play", "x": 2, "y": 2, "version": 0}))
        .await
        .unwrap();
    let seen = tokio::time::timeout(std::time::Duration::from_secs(1), watcher.wait_version(1))
        .await
        .expect("the spectator on the other server saw the move within a second")
        .unwrap();
    assert_eq!(seen["moves"].as_array().unwrap().len(), 1);
    eprintln!("seen on the other server after {:?}", sent.elapsed());
    // White, connected to both servers, answers twice at once with different moves.
    let mut white_one = Player::connect(one.addr, id, w).await.unwrap();
    let mut white_two = Player::connect(two.addr, id, w).await.unwrap();
    let (a, b) = tokio::join!(
        white_one.act(json!({"type": "play", "x": 6, "y": 6, "version": 1})),
        white_two.act(json!({"type": "play", "x": 5, "y": 5, "version": 1})),
    );
    let answers = [a.unwrap(), b.unwrap()];
    let acks = answers.iter().filter(|a| a["type"] == "ack").count();
    let stale = answers.iter().filter(|a| a["code"] == "stale").count();
    assert_eq!((acks, stale), (1, 1), "{answers:?}");
    let fresh = Player::connect(two.addr, id, None).await.unwrap();
    assert_eq!(fresh.state["moves"].as_array().unwrap().len(), 2);
}
