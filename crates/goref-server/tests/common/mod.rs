//! Helpers for the integration tests: a server on a free loopback port with a fresh database,
//! and players over real WebSocket connections.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use goref_server::client::{create_game, Player};
use goref_server::{start, Options, SqliteStore, Store};
use serde_json::{json, Value};

pub struct TestServer {
    pub addr: SocketAddr,
    pub task: tokio::task::JoinHandle<()>,
    pub dir: Option<tempfile::TempDir>,
}

pub async fn server_at(db: &Path, opts: Options) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(db).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(listener, store, opts).await.unwrap();
    (running.addr, running.task)
}

pub async fn server_with(opts: Options) -> TestServer {
    let dir = tempfile::tempdir().unwrap();
    let (addr, task) = server_at(&dir.path().join("goref.db"), opts).await;
    TestServer {
        addr,
        task,
        dir: Some(dir),
    }
}

/// A server on `store`.
pub async fn server_on(store: Arc<dyn Store>, opts: Options) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = start(listener, store, opts).await.unwrap();
    TestServer {
        addr: running.addr,
        task: running.task,
        dir: None,
    }
}

/// A fresh PostgreSQL database (`createdb`) as a store, when PostgreSQL is there
/// (`PGDATABASE` set, as under `pg_virtualenv`); `None` otherwise, unless GOREF_REQUIRE_PG is
/// set, then it panics.
pub async fn pg_store(name: &str) -> Option<Arc<dyn Store>> {
    let url = pg_database(name)?;
    let store = goref_server::PgStore::connect(&url).await.unwrap();
    Some(Arc::new(store))
}

/// A fresh PostgreSQL database (`createdb`), its URL; as [`pg_store`].
pub fn pg_database(name: &str) -> Option<String> {
    goref_pg::testing::fresh_database("goref_test", name)
}

pub async fn server() -> TestServer {
    server_with(Options::default()).await
}

/// A game with both players and a spectator connected.
pub struct Table {
    pub id: String,
    pub black: Player,
    pub white: Player,
    pub created: Value,
}

pub async fn table(addr: SocketAddr, request: Value) -> Table {
    let created = create_game(addr, &request).await.unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let black = Player::connect(addr, &id, created["black"]["secret"].as_str())
        .await
        .unwrap();
    let white = Player::connect(addr, &id, created["white"]["secret"].as_str())
        .await
        .unwrap();
    assert_eq!(black.seat, "B");
    assert_eq!(white.seat, "W");
    Table {
        id,
        black,
        white,
        created,
    }
}

impl Table {
    pub fn player(&mut self, side: &str) -> &mut Player {
        if side == "B" {
            &mut self.black
        } else {
            &mut self.white
        }
    }

    /// Brings both players' views to the same (latest) version.
    pub async fn sync(&mut self) -> u64 {
        let v = self.black.version.max(self.white.version);
        self.black.wait_version(v).await.unwrap();
        self.white.wait_version(v).await.unwrap();
        v
    }

    /// `side` sends `msg` once both views are up to date; returns the answer.
    pub async fn act(&mut self, side: &str, msg: Value) -> Value {
        self.sync().await;
        let answer = self.player(side).act(msg).await.unwrap();
        self.sync().await;
        answer
    }

    /// Like `act`, but the answer must be an ack.
    pub async fn ok(&mut self, side: &str, msg: Value) -> Value {
        let answer = self.act(side, msg.clone()).await;
        assert_eq!(answer["type"], "ack", "{side} {msg} refused: {answer}");
        self.black.state.clone()
    }

    /// Plays alternate moves: `[x, y]` or `null` for a pass, Black first unless `first` says.
    pub async fn moves(&mut self, first: &str, moves: &[Option<(usize, usize)>]) {
        let mut side = first.to_string();
        for m in moves {
            let msg = match m {
                Some((x, y)) => json!({"type": "play", "x": x, "y": y}),
                None => json!({"type": "pass"}),
            };
            self.ok(&side, msg).await;
            side = if side == "B" { "W".into() } else { "B".into() };
        }
    }

    pub fn state(&self) -> &Value {
        &self.black.state
    }
}

pub fn p(x: usize, y: usize) -> Option<(usize, usize)> {
    Some((x, y))
}

pub const PASS: Option<(usize, usize)> = None;

/// 5×5, komi 0.5: Black walls column c, White column d; Black adds b4, White drops a dead
/// stone at a2 inside Black's side; Black passes first, then White.
/// All alive: Black 6, White 11 (+0.5). With a2 dead: Black 15, White 10.
pub fn walls_with_dead_stone() -> Vec<Option<(usize, usize)>> {
    vec![
        p(2, 0),
        p(3, 0),
        p(2, 1),
        p(3, 1),
        p(2, 2),
        p(3, 2),
        p(2, 3),
        p(3, 3),
        p(2, 4),
        p(3, 4),
        p(1, 1),
        p(0, 3),
        PASS,
        PASS,
    ]
}

pub fn five_by_five(end: &str) -> Value {
    json!({"width": 5, "height": 5, "rules": "tromp-taylor", "komi": 0.5, "end": end,
           "black": "Ann", "white": "Bo"})
}

/// The game's record, fetched as a browser would, and checked as `goref score` reads it: it
/// replays under its own rules, and when the game ended on the board the score of the board
/// with the record's dead stones (`TB`/`TW`) taken off is exactly its `RE`.
pub async fn record(addr: SocketAddr, id: &str) -> goref_sgf::GameRecord {
    let (status, sgf) =
        goref_server::client::http(addr, "GET", &format!("/api/games/{id}/sgf"), None)
            .await
            .unwrap();
    assert_eq!(status, 200);
    let record = goref_sgf::parse(&sgf).unwrap();
    let preset = record.preset().unwrap();
    let rules = goref_rules::Ruleset::preset(preset).with_komi(record.komi.unwrap());
    let game = record.replay(rules).unwrap();
    let on_board = match game.end() {
        Some(goref_rules::End::TwoPasses) => Some(
            record
                .final_score(&game)
                .map_or_else(|| game.outcome(), |f| f.score.outcome()),
        ),
        Some(goref_rules::End::LongCycle { .. }) => Some(game.outcome()),
        _ => None,
    };
    if let Some(outcome) = on_board {
        assert_eq!(Some(outcome.to_sgf()), record.result, "{sgf}");
    }
    record
}
