//! Issue 23 §4-5: any server serves any player. Two servers (or more) on one PostgreSQL
//! database, each in a runtime of its own where a test kills one (its runtime dropped: its
//! connections close, PostgreSQL releases its leader's lock, its lobby leases stop being
//! renewed). Skipped without PostgreSQL (`PGDATABASE`), unless GOREF_REQUIRE_PG is set:
//!
//!     pg_virtualenv cargo test -p goref-server --test across_servers

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use common::pg_database;
use goref_server::client::{create_game, http, login, LobbyClient, Player};
use goref_server::games::Games;
use goref_server::lobby::PairingOptions;
use goref_server::room::CreateRequest;
use goref_server::{Options, PgStore};
use serde_json::{json, Value};
use tokio::time::Instant;

/// A server in a thread and runtime of its own, until killed.
struct Remote {
    addr: SocketAddr,
    games: Arc<Games>,
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl Remote {
    fn start(url: &str, opts: Options) -> Remote {
        let url = url.to_string();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop, stop_rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            let running = runtime.block_on(async {
                let store = Arc::new(PgStore::connect(&url).await.unwrap());
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                goref_server::start(listener, store, opts).await.unwrap()
            });
            ready_tx
                .send((running.addr, running.games.clone()))
                .unwrap();
            let _ = stop_rx.recv();
            // Every task of the server goes with its runtime: as if the process died.
            drop(running);
            runtime.shutdown_background();
        });
        let (addr, games) = ready_rx.recv().unwrap();
        Remote {
            addr,
            games,
            stop,
            thread,
        }
    }

    fn kill(self) {
        let _ = self.stop.send(());
        self.thread.join().unwrap();
    }
}

/// Pairing every 200 ms, 5×5 games without a clock, presences leased for 1.5 s.
fn pairing_options() -> Options {
    Options {
        pairing: PairingOptions {
            interval: Some(Duration::from_millis(200)),
            game: CreateRequest {
                width: Some(5),
                rules: Some("tromp-taylor".into()),
                ..CreateRequest::default()
            },
        },
        presence_lease: Duration::from_millis(1_500),
        ..Options::default()
    }
}

/// Waits (at most `within`) until `f` is true.
async fn until(within: Duration, what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !f() {
        assert!(Instant::now() < deadline, "not within {within:?}: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The next `game` message of a lobby, within `within`.
async fn next_game(lobby: &mut LobbyClient, within: Duration) -> Value {
    tokio::time::timeout(within, lobby.next_of("game"))
        .await
        .expect("told of a game in time")
        .unwrap()
}

async fn get(addr: SocketAddr, path: &str) -> Value {
    let (status, body) = http(addr, "GET", path, None).await.unwrap();
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// Two programs in the lobbies of two servers are paired by the leader, play, and the rated
/// result shows the same on both servers within 2 s of the game's end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn programs_on_two_servers_are_paired_and_rated_the_same_on_both() {
    let Some(url) = pg_database("across_pair") else {
        return;
    };
    let one = Remote::start(&url, pairing_options());
    let two = Remote::start(&url, pairing_options());
    let t1 = login(one.addr, "prog1", "pw-prog", true, true)
        .await
        .unwrap();
    let t2 = login(two.addr, "prog2", "pw-prog", true, true)
        .await
        .unwrap();
    let mut l1 = LobbyClient::connect(one.addr, &t1).await.unwrap();
    let mut l2 = LobbyClient::connect(two.addr, &t2).await.unwrap();
    for l in [&mut l1, &mut l2] {
        let ack = l
            .request(&json!({"type": "wait", "on": true}))
            .await
            .unwrap();
        assert_eq!(ack["waiting"], true);
    }
    let g1 = next_game(&mut l1, Duration::from_secs(5)).await;
    let g2 = next_game(&mut l2, Duration::from_secs(5)).await;
    assert_eq!(g1["id"], g2["id"], "one game for the two: {g1} {g2}");
    assert_ne!(g1["color"], g2["color"]);
    assert_eq!(g1["opponent"], "prog2");
    let id = g1["id"].as_str().unwrap().to_string();
    // Each plays through its own server; Black resigns after one move each.
    let (black_addr, black_token, white_addr, white_token) = if g1["color"] == "B" {
        (one.addr, &t1, two.addr, &t2)
    } else {
        (two.addr, &t2, one.addr, &t1)
    };
    let mut black = Player::connect_as(black_addr, &id, black_token)
        .await
        .unwrap();
    let mut white = Player::connect_as(white_addr, &id, white_token)
        .await
        .unwrap();
    assert_eq!(
        (black.seat.as_str(), white.seat.as_str()),
        (Some("B"), Some("W"))
    );
    let v = black
        .must(json!({"type": "play", "x": 2, "y": 2}))
        .await
        .unwrap();
    white.wait_version(v).await.unwrap();
    let v = white
        .must(json!({"type": "play", "x": 1, "y": 1}))
        .await
        .unwrap();
    black.wait_version(v).await.unwrap();
    black.must(json!({"type": "resign"})).await.unwrap();
    let ended = Instant::now();
    for l in [&mut l1, &mut l2] {
        let over = l.next_of("game_over").await.unwrap();
        assert_eq!(over["result"], "W+R");
    }
    // Both servers answer the same, rated, within 2 s.
    let mut lists = Vec::new();
    for addr in [one.addr, two.addr] {
        let deadline = ended + Duration::from_secs(2);
        let players = loop {
            let players = get(addr, "/api/players").await;
            if players["players"][0]["rating"].is_number() {
                break players;
            }
            assert!(Instant::now() < deadline, "not rated within 2 s: {players}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        lists.push(players);
    }
    assert_eq!(lists[0], lists[1], "the same ratings on both servers");
    let winner = if g1["color"] == "W" { "prog1" } else { "prog2" };
    assert_eq!(lists[0]["players"][0]["name"], winner, "{}", lists[0]);
    assert_eq!(lists[0]["players"][0]["wins"], 1);
    one.kill();
    two.kill();
}

/// A challenge made on one server shows in the lobby of the other and is accepted there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_made_on_one_server_is_accepted_on_the_other() {
    let Some(url) = pg_database("across_challenge") else {
        return;
    };
    let opts = Options {
        pairing: PairingOptions {
            interval: None,
            ..PairingOptions::default()
        },
        ..Options::default()
    };
    let one = Remote::start(&url, opts.clone());
    let two = Remote::start(&url, opts);
    let alice = login(one.addr, "alice", "pw-alice", false, true)
        .await
        .unwrap();
    let bob = login(two.addr, "bob", "pw-bob", false, true).await.unwrap();
    let mut la = LobbyClient::connect(one.addr, &alice).await.unwrap();
    let mut lb = LobbyClient::connect(two.addr, &bob).await.unwrap();
    let ack = la
        .request(&json!({"type": "challenge", "game": {"width": 7, "komi": 0.5}, "color": "white"}))
        .await
        .unwrap();
    let cid = ack["challenge"].as_str().unwrap().to_string();
    // Bob, on the other server, sees it (and alice online).
    loop {
        let lobby = lb.next_of("lobby").await.unwrap();
        let shown = lobby["challenges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == cid.as_str() && c["by"] == "alice");
        let online = lobby["online"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "alice");
        if shown && online {
            break;
        }
    }
    let accepted = lb
        .request(&json!({"type": "accept", "challenge": cid}))
        .await
        .unwrap();
    let id = accepted["game"].as_str().unwrap().to_string();
    let to_alice = next_game(&mut la, Duration::from_secs(5)).await;
    let to_bob = next_game(&mut lb, Duration::from_secs(5)).await;
    assert_eq!(
        (to_alice["id"].as_str(), to_alice["color"].as_str()),
        (Some(id.as_str()), Some("W"))
    );
    assert_eq!(
        (to_bob["color"].as_str(), to_bob["opponent"].as_str()),
        (Some("B"), Some("alice"))
    );
    assert_eq!(to_bob["config"]["komi"], 0.5);
    // Taken once: accepting again, from either server, finds nothing.
    let again = la
        .request(&json!({"type": "accept", "challenge": cid}))
        .await
        .unwrap();
    assert_eq!(again["code"], "not_found");
    one.kill();
    two.kill();
}

/// When the leading server dies, another takes over within 5 s: it pairs the players who
/// wait, and the dead server's players leave every lobby (their leases end).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_leader_dies_another_pairs_and_expires_its_players() {
    let Some(url) = pg_database("across_leader") else {
        return;
    };
    let one = Remote::start(&url, pairing_options());
    let games_one = one.games.clone();
    until(Duration::from_secs(5), "the first server leads", || {
        games_one.leads()
    })
    .await;
    let two = Remote::start(&url, pairing_options());
    assert!(!two.games.leads());
    let t3 = login(one.addr, "ghost", "pw-prog", true, true)
        .await
        .unwrap();
    let _l3 = LobbyClient::connect(one.addr, &t3).await.unwrap();
    let t1 = login(two.addr, "stay1", "pw-prog", true, true)
        .await
        .unwrap();
    let t2 = login(two.addr, "stay2", "pw-prog", true, true)
        .await
        .unwrap();
    let mut l1 = LobbyClient::connect(two.addr, &t1).await.unwrap();
    let mut l2 = LobbyClient::connect(two.addr, &t2).await.unwrap();
    loop {
        let lobby = l1.next_of("lobby").await.unwrap();
        if lobby["online"].as_array().unwrap().len() == 3 {
            break;
        }
    }
    one.kill();
    let killed = Instant::now();
    for l in [&mut l1, &mut l2] {
        l.request(&json!({"type": "wait", "on": true}))
            .await
            .unwrap();
    }
    let g1 = next_game(&mut l1, Duration::from_secs(5)).await;
    let g2 = next_game(&mut l2, Duration::from_secs(5)).await;
    assert_eq!(g1["id"], g2["id"]);
    assert!(two.games.leads(), "the second server leads now");
    let paired_after = killed.elapsed();
    assert!(paired_after < Duration::from_secs(5), "{paired_after:?}");
    // The dead server's player leaves the lobby.
    loop {
        let lobby = tokio::time::timeout(Duration::from_secs(5), l1.next_of("lobby"))
            .await
            .expect("the lobby changes when the ghost's lease ends")
            .unwrap();
        let names: Vec<&str> = lobby["online"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        if !names.contains(&"ghost") {
            break;
        }
    }
    assert!(
        killed.elapsed() < Duration::from_secs(5),
        "{:?}",
        killed.elapsed()
    );
    eprintln!(
        "paired {paired_after:?} after the leader's death; its player gone after {:?}",
        killed.elapsed()
    );
    two.kill();
}

/// Issue 23 §5: after the leader's death and a restart, every server shows the same time
/// left as the one that flags, within 100 ms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clocks_agree_across_servers_after_the_leader_dies_and_restarts() {
    let Some(url) = pg_database("across_clocks") else {
        return;
    };
    let one = Remote::start(&url, Options::default());
    let games_one = one.games.clone();
    until(Duration::from_secs(5), "the first server leads", || {
        games_one.leads()
    })
    .await;
    let two = Remote::start(&url, Options::default());
    let game = create_game(
        two.addr,
        &json!({"width": 9, "time": {"kind": "sudden_death", "main_s": 60}}),
    )
    .await
    .unwrap();
    let id = game["id"].as_str().unwrap().to_string();
    let mut black = Player::connect(two.addr, &id, game["black"]["secret"].as_str())
        .await
        .unwrap();
    let mut white = Player::connect(two.addr, &id, game["white"]["secret"].as_str())
        .await
        .unwrap();
    let v = black
        .must(json!({"type": "play", "x": 2, "y": 2}))
        .await
        .unwrap();
    white.wait_version(v).await.unwrap();
    // White's clock runs while the leader dies; the second takes over.
    one.kill();
    let games_two = two.games.clone();
    until(Duration::from_secs(5), "the second server leads", || {
        games_two.leads()
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let three = Remote::start(&url, Options::default());
    // The flagging server's view, the restarted one's, the flagging one's again: the middle
    // one lies between the other two, within 100 ms.
    let white_ms = |v: &Value| v["clocks"]["W"]["main_ms"].as_i64().unwrap();
    for _ in 0..3 {
        let a = get(two.addr, &format!("/api/games/{id}")).await;
        let b = get(three.addr, &format!("/api/games/{id}")).await;
        let c = get(two.addr, &format!("/api/games/{id}")).await;
        let (a, b, c) = (white_ms(&a), white_ms(&b), white_ms(&c));
        assert!(
            b <= a + 100 && b + 100 >= c,
            "White's time left: leader {a}, restarted {b}, leader again {c}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // White moves on the restarted server; the stored event's clock is what both show.
    let mut white3 = Player::connect(three.addr, &id, game["white"]["secret"].as_str())
        .await
        .unwrap();
    let v = white3
        .must(json!({"type": "play", "x": 6, "y": 6}))
        .await
        .unwrap();
    let seen_three = white3.wait_version(v).await.unwrap();
    let seen_two = black.wait_version(v).await.unwrap();
    assert_eq!(
        seen_three["clocks"]["W"], seen_two["clocks"]["W"],
        "the stored move's clock, on both servers"
    );
    two.kill();
    three.kill();
}
