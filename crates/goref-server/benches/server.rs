// criterion_group! writes a public function it cannot document.
#![allow(missing_docs)]
//! The server's hot paths, in process on an SQLite store in a temporary folder:
//!
//! - `move/act_and_wake`: a move through the seam CGOS's door uses — [`Games::act_now`] (one
//!   read of the room, the referee's check, the event stored) and the opponent's
//!   [`RoomWatch`](goref_server::games::RoomWatch) woken and reading the room;
//! - `pairing/round_1000`: one continuous-pairing round over 1,000 waiting players, each told
//!   of its game (the bus's `Started` events handed to the lobby);
//!
//! (the rating update is goref-tournament's `rating` bench).
//!
//!     cargo bench -p goref-server --bench server

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use goref_rules::Color;
use goref_server::app::App;
use goref_server::bus::{BusEvent, GameEvent};
use goref_server::lobby::Member;
use goref_server::room::{Act, CreateRequest, Players};
use goref_server::wire::{Account, LobbyClientMessage};
use goref_server::{Options, SqliteStore, Store};

fn account(name: &str) -> Account {
    Account {
        name: name.into(),
        program: true,
        td: false,
        created_ms: 0,
    }
}

async fn app(dir: &tempfile::TempDir) -> App {
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("b.db")).unwrap());
    let opts = Options {
        pairing: goref_server::options::PairingOptions {
            interval: None,
            ..Default::default()
        },
        ..Options::default()
    };
    App::new(store, opts).await.unwrap()
}

fn moves(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let app = rt.block_on(app(&dir));
    let games = app.games.clone();
    let players = Players {
        black: "b".into(),
        white: "w".into(),
    };
    let config = CreateRequest::default()
        .config_between(&players, false)
        .unwrap();
    c.bench_function("move/act_and_wake", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut elapsed = Duration::ZERO;
                let mut done = 0;
                while done < iters {
                    // A fresh game each 60 moves: Black fills the board row by row, White
                    // passes (no two passes in a row, no capture).
                    let opened = games.open(config.clone(), "bench".into()).await.unwrap();
                    let mut watch = games.watch_room(&opened.id).await.unwrap().unwrap();
                    let mut n = 0usize;
                    while n < 60 && done < iters {
                        let (color, act) = if n.is_multiple_of(2) {
                            let k = n / 2;
                            (Color::Black, Act::Play { x: k % 9, y: k / 9 })
                        } else {
                            (Color::White, Act::Pass)
                        };
                        let t = Instant::now();
                        games
                            .act_now(&opened.id, color, |_| act, Some(0), None)
                            .await
                            .unwrap();
                        assert!(watch.changed().await);
                        let version = watch.read(|r| r.version()).await;
                        elapsed += t.elapsed();
                        assert_eq!(version, n as u64 + 1);
                        n += 1;
                        done += 1;
                    }
                }
                elapsed
            })
        });
    });
}

fn pairing(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("pairing");
    group.sample_size(10);
    group.bench_function("round_1000", |b| {
        b.iter_batched(
            || {
                rt.block_on(async {
                    let dir = tempfile::tempdir().unwrap();
                    let app = app(&dir).await;
                    let mut members: Vec<Member> = Vec::new();
                    for i in 0..1000 {
                        let m = app
                            .lobby
                            .join(account(&format!("p{i}")), false)
                            .await
                            .unwrap();
                        m.handle(LobbyClientMessage::wait(true)).await;
                        members.push(m);
                    }
                    (dir, app, members)
                })
            },
            |(dir, app, members)| {
                rt.block_on(async {
                    let mut bus = app.games.subscribe();
                    app.lobby.pair_round().await;
                    let mut started = 0;
                    while let Ok(event) = bus.try_recv() {
                        if matches!(event, BusEvent::Game(GameEvent::Started { .. })) {
                            started += 1;
                        }
                        app.lobby.on_event(&event).await;
                    }
                    assert_eq!(started, 500);
                });
                (dir, members)
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(benches, moves, pairing);
criterion_main!(benches);
