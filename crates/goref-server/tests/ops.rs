//! For the operator (issue 38): `GET /metrics` read by a Prometheus text-format parser as a
//! game is played, `GET /healthz`, the tournament director's abort and bans, over real
//! connections. The PostgreSQL cases (a ban told to another server; a database that stops
//! answering) skip without PostgreSQL unless GOREF_REQUIRE_PG is set:
//!
//!     pg_virtualenv -t cargo test -p goref-server --test ops

mod common;

use std::net::SocketAddr;
use std::sync::Arc;

use common::*;
use goref_server::client::{create_game, http, http_as, login, LobbyClient, Player};
use goref_server::{Options, PgStore};
use prometheus_parse::{Scrape, Value as Sample};
use serde_json::{json, Value};

/// `GET /metrics`, parsed.
async fn scrape(addr: SocketAddr) -> Scrape {
    let (status, body) = http(addr, "GET", "/metrics", None).await.unwrap();
    assert_eq!(status, 200, "{body}");
    Scrape::parse(body.lines().map(|l| Ok(l.to_string()))).unwrap()
}

/// The value of `name` (with `label` when given): a counter or a gauge; `None` when absent.
fn value(scrape: &Scrape, name: &str, label: Option<(&str, &str)>) -> Option<f64> {
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == name)
        .find(|s| label.is_none_or(|(k, v)| s.labels.get(k) == Some(v)))
        .map(|s| match s.value {
            Sample::Counter(v) | Sample::Gauge(v) | Sample::Untyped(v) => v,
            ref other => panic!("{name}: {other:?}"),
        })
}

/// How many relays the histogram counted (its `+Inf` bucket).
fn relays(scrape: &Scrape) -> f64 {
    let relay = scrape
        .samples
        .iter()
        .find(|s| s.metric == "goref_move_relay_seconds")
        .expect("the relay's histogram");
    let Sample::Histogram(buckets) = &relay.value else {
        panic!("a histogram: {:?}", relay.value);
    };
    buckets
        .iter()
        .find(|b| b.less_than.is_infinite())
        .map(|b| b.count)
        .unwrap()
}

/// The connections of `kind` the server counts, once they settle at `want` (a connection
/// closed by the server is counted out as its task ends: a few scrapes at most).
async fn connections_settle(addr: SocketAddr, kind: &str, want: f64) {
    let mut seen = None;
    for _ in 0..100 {
        seen = value(
            &scrape(addr).await,
            "goref_connections",
            Some(("kind", kind)),
        );
        if seen == Some(want) {
            return;
        }
        tokio::task::yield_now().await;
    }
    panic!("{kind} connections: {seen:?}, not {want}");
}

async fn post(addr: SocketAddr, path: &str, body: &Value, token: Option<&str>) -> (u16, Value) {
    let (status, text) = http_as(addr, "POST", path, Some(&body.to_string()), token)
        .await
        .unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_follow_a_game_and_health_is_ok() {
    let server = server().await;
    let a = server.addr;
    let (status, body) = http(a, "GET", "/healthz", None).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let health: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(health, json!({"ok": true, "leads": true}));

    let before = scrape(a).await;
    assert_eq!(value(&before, "goref_moves_total", None), Some(0.0));
    assert_eq!(value(&before, "goref_leader", None), Some(1.0));
    assert_eq!(value(&before, "goref_store_errors_total", None), Some(0.0));
    assert_eq!(
        value(&before, "goref_live_games", None),
        None,
        "no game yet"
    );
    assert_eq!(relays(&before), 0.0);
    for kind in ["lobby", "game", "cgos"] {
        assert_eq!(
            value(&before, "goref_connections", Some(("kind", kind))),
            Some(0.0),
            "{kind}"
        );
    }

    let token = login(a, "watcher", "pw-watcher", false, true)
        .await
        .unwrap();
    let lobby = LobbyClient::connect(a, &token).await.unwrap();
    let mut t = table(a, json!({"width": 9, "height": 9})).await;
    create_game(a, &json!({"width": 13, "height": 13}))
        .await
        .unwrap();
    let on = scrape(a).await;
    assert_eq!(
        value(&on, "goref_live_games", Some(("size", "9x9"))),
        Some(1.0)
    );
    assert_eq!(
        value(&on, "goref_live_games", Some(("size", "13x13"))),
        Some(1.0)
    );
    assert_eq!(
        value(&on, "goref_connections", Some(("kind", "game"))),
        Some(2.0)
    );
    assert_eq!(
        value(&on, "goref_connections", Some(("kind", "lobby"))),
        Some(1.0)
    );

    t.moves("B", &[p(2, 2), p(6, 6), PASS]).await;
    let played = scrape(a).await;
    assert_eq!(value(&played, "goref_moves_total", None), Some(3.0));
    assert_eq!(
        relays(&played),
        3.0,
        "each move timed from arrival to relay"
    );

    t.ok("W", json!({"type": "resign"})).await;
    let over = scrape(a).await;
    assert_eq!(
        value(&over, "goref_moves_total", None),
        Some(3.0),
        "no move"
    );
    assert_eq!(
        value(&over, "goref_live_games", Some(("size", "9x9"))),
        None,
        "over"
    );
    assert_eq!(
        value(&over, "goref_live_games", Some(("size", "13x13"))),
        Some(1.0)
    );

    t.black.close().await;
    t.white.close().await;
    lobby.close().await;
    connections_settle(a, "game", 0.0).await;
    connections_settle(a, "lobby", 0.0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_td_aborts_a_game_void_with_its_reason_and_it_replays_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("goref.db");
    let (a, task) = server_at(&db, Options::default()).await;
    let td = login(a, "director", "pw-director", false, true)
        .await
        .unwrap();
    let alice = login(a, "alice", "pw-alice", false, true).await.unwrap();
    let mut t = table(a, five_by_five("tromp")).await;
    t.moves("B", &[p(1, 1), p(3, 3)]).await;
    let path = format!("/api/games/{}/td", t.id);
    let abort = json!({"action": "abort", "reason": "the players' network broke"});
    let (status, v) = post(a, &path, &abort, Some(&alice)).await;
    assert_eq!((status, v["error"].as_str()), (403, Some("not_td")), "{v}");
    let (status, v) = post(a, &path, &abort, None).await;
    assert_eq!(status, 401, "{v}");
    let (status, v) = post(a, &path, &abort, Some(&td)).await;
    assert_eq!((status, &v), (200, &json!({"version": 3})));
    // Both seats are shown the end.
    for player in [&mut t.black, &mut t.white] {
        let state = player.wait_version(3).await.unwrap();
        assert_eq!(state["result"], "Void", "{state}");
        assert_eq!(state["ending"], "aborted", "{state}");
        assert_eq!(state["phase"], "over");
        let note = state["notes"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(
            note["text"],
            "aborted by the TD (director) without a result: the players' network broke"
        );
    }
    let (status, v) = post(a, &path, &abort, Some(&td)).await;
    assert_eq!((status, v["error"].as_str()), (409, Some("over")), "{v}");

    // The record: RE[Void] with the reason; it replays (goref-sgf) to the same outcome.
    let record = record(a, &t.id).await;
    assert_eq!(record.result.as_deref(), Some("Void"));
    let rules = goref_rules::Ruleset::preset(record.preset().unwrap());
    assert_eq!(record.replay(rules).unwrap().moves().len(), 2);
    let outcome: goref_rules::Outcome = record.result.as_deref().unwrap().parse().unwrap();
    assert_eq!(outcome, goref_rules::Outcome::Void);
    let (_, sgf) = http(a, "GET", &format!("/api/games/{}/sgf", t.id), None)
        .await
        .unwrap();
    assert!(sgf.contains("the players' network broke"), "{sgf}");
    assert_eq!(
        value(&scrape(a).await, "goref_live_games", Some(("size", "5x5"))),
        None
    );

    // Another server on the same database replays the game from its events: the same.
    task.abort();
    let _ = task.await;
    let (b, _task) = server_at(&db, Options::default()).await;
    let (status, state) = http(b, "GET", &format!("/api/games/{}", t.id), None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    let state: Value = serde_json::from_str(&state).unwrap();
    assert_eq!(
        (&state["result"], &state["ending"]),
        (&json!("Void"), &json!("aborted"))
    );
    let (_, again) = http(b, "GET", &format!("/api/games/{}/sgf", t.id), None)
        .await
        .unwrap();
    assert_eq!(again, sgf);
    let (status, list) = http(b, "GET", "/api/games", None).await.unwrap();
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list["games"][0]["result"], "Void");
}

/// Waits until the server closes `lobby` (whatever it sends first): the lobby drops a
/// connection it closes (no closing handshake), so the client sees it end, not time out.
async fn closed(lobby: &mut LobbyClient) {
    loop {
        match lobby.recv().await {
            Ok(_) => continue,
            Err(e) => {
                let why = e.to_string();
                assert!(!why.contains("timed out"), "not closed: {why}");
                return;
            }
        }
    }
}

/// Waits until the server closes `player`'s game WebSocket.
async fn game_closed(player: &mut Player) -> String {
    loop {
        match player.recv().await {
            Ok(_) => continue,
            Err(e) => return e.to_string(),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ban_refuses_logins_ends_sessions_and_closes_connections_until_lifted() {
    let server = server().await;
    let a = server.addr;
    let td = login(a, "director", "pw-director", false, true)
        .await
        .unwrap();
    let alice = login(a, "alice", "pw-alice", false, true).await.unwrap();
    let bob = login(a, "bob", "pw-bob", false, true).await.unwrap();
    let mut lobby = LobbyClient::connect(a, &alice).await.unwrap();
    let game = create_game(a, &json!({"width": 9})).await.unwrap();
    let id = game["id"].as_str().unwrap();
    let mut watching = Player::connect_as(a, id, &alice).await.unwrap();
    let mut bobs = LobbyClient::connect(a, &bob).await.unwrap();

    // Only the TD bans.
    let (status, v) = post(a, "/api/accounts/alice/ban", &json!({}), Some(&bob)).await;
    assert_eq!((status, v["error"].as_str()), (403, Some("not_td")), "{v}");
    let (status, _) = post(a, "/api/accounts/alice/ban", &json!({}), None).await;
    assert_eq!(status, 401);
    let (status, v) = post(a, "/api/accounts/nobody/ban", &json!({}), Some(&td)).await;
    assert_eq!(
        (status, v["error"].as_str()),
        (404, Some("not_found")),
        "{v}"
    );
    let (status, v) = post(a, "/api/accounts/no%20name/ban", &json!({}), Some(&td)).await;
    assert_eq!(
        (status, v["error"].as_str()),
        (404, Some("not_found")),
        "{v}"
    );
    let (status, v) = post(a, "/api/accounts/director/ban", &json!({}), Some(&td)).await;
    assert_eq!((status, v["error"].as_str()), (400, Some("invalid")), "{v}");

    let (status, v) = post(a, "/api/accounts/ALICE/ban", &json!({}), Some(&td)).await;
    assert_eq!(
        (status, &v),
        (200, &json!({"name": "alice", "banned": true}))
    );
    // Its lobby WebSocket and its game WebSocket are closed; Bob's stays.
    closed(&mut lobby).await;
    let why = game_closed(&mut watching).await;
    assert!(why.contains("closed"), "{why}");
    assert!(why.contains("banned"), "the close frame says why: {why}");
    bobs.send(&json!({"type": "wait", "on": false}))
        .await
        .unwrap();
    let ack = bobs.next_of("ack").await.unwrap();
    assert_eq!(ack["type"], "ack");
    // Its session ended; its logins are refused, and so is a lobby connection.
    let (status, _) = http_as(a, "GET", "/api/me", None, Some(&alice))
        .await
        .unwrap();
    assert_eq!(status, 401);
    let refused = login(a, "alice", "pw-alice", false, true)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("403") && refused.contains("banned"),
        "{refused}"
    );
    let wrong = login(a, "alice", "not-hers", false, false)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        wrong.contains("wrong_password"),
        "a stranger learns nothing: {wrong}"
    );
    assert!(LobbyClient::connect(a, &alice).await.is_err());
    connections_settle(a, "lobby", 1.0).await;
    connections_settle(a, "game", 0.0).await;

    // Lifted: it logs in again (its old session stays ended).
    let (status, v) = post(a, "/api/accounts/alice/unban", &json!({}), Some(&bob)).await;
    assert_eq!(status, 403, "{v}");
    let (status, v) = post(a, "/api/accounts/alice/unban", &json!({}), Some(&td)).await;
    assert_eq!(
        (status, &v),
        (200, &json!({"name": "alice", "banned": false}))
    );
    let (status, _) = http_as(a, "GET", "/api/me", None, Some(&alice))
        .await
        .unwrap();
    assert_eq!(status, 401);
    let again = login(a, "alice", "pw-alice", false, true).await.unwrap();
    let back = LobbyClient::connect(a, &again).await.unwrap();
    assert_eq!(back.account["name"], "alice");
}

/// A CGOS door's connection: the handshake's lines, then the login (`e1`, name, password);
/// what the door said after the password (nothing yet, when logged in).
struct Door {
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::net::tcp::OwnedReadHalf>>,
    write: tokio::net::tcp::OwnedWriteHalf,
}

impl Door {
    async fn log_in(addr: SocketAddr, name: &str, password: &str) -> Door {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (read, write) = stream.into_split();
        let mut door = Door {
            lines: tokio::io::BufReader::new(read).lines(),
            write,
        };
        for (asked, answer) in [
            ("protocol", "e1 test-client".to_string()),
            ("username", name.to_string()),
            ("password", password.to_string()),
        ] {
            let line = door.line().await.unwrap();
            assert!(line.starts_with(asked), "{line}");
            door.write
                .write_all(format!("{answer}\n").as_bytes())
                .await
                .unwrap();
        }
        door
    }

    /// The next line; `None` once closed.
    async fn line(&mut self) -> Option<String> {
        tokio::time::timeout(goref_server::client::TIMEOUT, self.lines.next_line())
            .await
            .expect("the door answers")
            .ok()
            .flatten()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ban_closes_the_accounts_cgos_connection_and_its_logins_are_refused() {
    let pairing = goref_server::room::CreateRequest {
        width: Some(9),
        time: Some(goref_clock::TimeControl::SuddenDeath {
            main: std::time::Duration::from_secs(300),
        }),
        ..Default::default()
    };
    let cgos = goref_server::options::CgosOptions::new(
        "127.0.0.1:0",
        &pairing,
        "nstt",
        std::time::Duration::from_millis(250),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(goref_server::SqliteStore::open(&dir.path().join("g.db")).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let opts = Options {
        cgos: Some(cgos),
        pairing: goref_server::lobby::PairingOptions {
            interval: Some(std::time::Duration::from_millis(100)),
            game: pairing.clone(),
        },
        ..Options::default()
    };
    let running = goref_server::start(listener, store, opts).await.unwrap();
    let (a, door) = (running.addr, running.cgos_addr.unwrap());
    let td = login(a, "director", "pw-director", false, true)
        .await
        .unwrap();
    let mut bot = Door::log_in(door, "bot1", "pw-bot1").await;
    // Logged in (its account made), it waits in the lobby: counted once entered.
    connections_settle(a, "cgos", 1.0).await;
    let (status, v) = post(a, "/api/accounts/bot1/ban", &json!({}), Some(&td)).await;
    assert_eq!(status, 200, "{v}");
    // Closed (waiting to be paired, by whichever comes first: the lobby dropping its entry,
    // or the door closing it as a second login would, with an `info` line): no timeout.
    let mut told = Vec::new();
    while let Some(line) = bot.line().await {
        told.push(line);
    }
    assert!(
        told.iter().all(|l| l.starts_with("info ")),
        "nothing else: {told:?}"
    );
    connections_settle(a, "cgos", 0.0).await;
    let mut again = Door::log_in(door, "bot1", "pw-bot1").await;
    assert_eq!(
        again.line().await.as_deref(),
        Some("Error: this account is banned")
    );
    assert_eq!(again.line().await, None, "and closed");

    // In a game: two bots are paired; one is banned while its game is on: its connection is
    // closed (the door's: `info`, then closed), its opponent's is not, and the game goes on.
    let mut black_or_white = [
        Door::log_in(door, "bot2", "pw-bot2").await,
        Door::log_in(door, "bot3", "pw-bot3").await,
    ];
    for bot in &mut black_or_white {
        let setup = bot.line().await.unwrap();
        assert!(setup.starts_with("setup "), "{setup}");
    }
    let [mut two, three] = black_or_white;
    let (status, v) = post(a, "/api/accounts/bot2/ban", &json!({}), Some(&td)).await;
    assert_eq!(status, 200, "{v}");
    let mut told = Vec::new();
    while let Some(line) = two.line().await {
        told.push(line);
    }
    assert!(
        told.last().is_some_and(|l| l.starts_with("info ")),
        "told, then closed: {told:?}"
    );
    connections_settle(a, "cgos", 1.0).await;
    let (_, games) = http(a, "GET", "/api/games", None).await.unwrap();
    let games: Value = serde_json::from_str(&games).unwrap();
    assert_eq!(
        games["games"][0]["result"],
        Value::Null,
        "the game goes on: {games}"
    );
    drop(three.write);
    running.task.abort();
}

/// Two servers on one PostgreSQL database: a ban made on one closes the account's lobby
/// connection on the other, and the other refuses its logins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ban_made_on_one_server_holds_on_another() {
    let Some(url) = pg_database("ban") else {
        return;
    };
    let one = server_on(
        Arc::new(PgStore::connect(&url).await.unwrap()),
        Options::default(),
    )
    .await;
    let two = server_on(
        Arc::new(PgStore::connect(&url).await.unwrap()),
        Options::default(),
    )
    .await;
    let td = login(one.addr, "director", "pw-director", false, true)
        .await
        .unwrap();
    let mallory = login(two.addr, "mallory", "pw-mallory", true, true)
        .await
        .unwrap();
    let mut lobby = LobbyClient::connect(two.addr, &mallory).await.unwrap();
    let (status, v) = post(one.addr, "/api/accounts/mallory/ban", &json!({}), Some(&td)).await;
    assert_eq!(status, 200, "{v}");
    closed(&mut lobby).await;
    let refused = login(two.addr, "mallory", "pw-mallory", true, true)
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("banned"), "{refused}");
    let (status, _) = http_as(two.addr, "GET", "/api/me", None, Some(&mallory))
        .await
        .unwrap();
    assert_eq!(status, 401);
}

/// `GET /healthz` on PostgreSQL: 503 with why while the database refuses connections, 200
/// again once it takes them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_is_503_while_the_database_refuses_and_200_again() {
    let Some(url) = pg_database("health") else {
        return;
    };
    let db = url.trim_start_matches("postgres:///").to_string();
    let server = server_on(
        Arc::new(PgStore::connect(&url).await.unwrap()),
        Options::default(),
    )
    .await;
    let (status, _) = http(server.addr, "GET", "/healthz", None).await.unwrap();
    assert_eq!(status, 200);
    let admin = goref_server::store::pg::pg_config("").unwrap();
    let (client, connection) = admin.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!(
            "ALTER DATABASE {db} ALLOW_CONNECTIONS false;
             SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{db}';"
        ))
        .await
        .unwrap();
    let (status, body) = http(server.addr, "GET", "/healthz", None).await.unwrap();
    assert_eq!(status, 503, "{body}");
    let health: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (&health["ok"], &health["error"]),
        (&json!(false), &json!("store"))
    );
    assert!(
        health["message"]
            .as_str()
            .unwrap()
            .contains("does not answer"),
        "{health}"
    );
    let errors = value(&scrape(server.addr).await, "goref_store_errors_total", None);
    assert!(errors.unwrap() >= 1.0, "counted: {errors:?}");
    client
        .batch_execute(&format!("ALTER DATABASE {db} ALLOW_CONNECTIONS true"))
        .await
        .unwrap();
    let (status, body) = http(server.addr, "GET", "/healthz", None).await.unwrap();
    assert_eq!(status, 200, "{body}");
}
