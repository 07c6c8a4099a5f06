//! `goref connect` with real GNU Go engines against `goref serve`, all real processes over
//! real sockets: programs paired by the server finish their games under Tromp's marking and
//! under dead lists, a program plays a person who accepts its challenge, and a program whose
//! network drops for 3 s connects again and finishes its game.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{check_record, games, get_json, have_gnugo, until, Server};
use goref_server::client::{http, login, LobbyClient, Player};
use serde_json::{json, Value};

const ENGINE: &str = "/usr/games/gnugo --mode gtp --level 0";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("goref-connect-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A process killed when the test ends, however it ends.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `goref serve` on a free port with a fresh database in `dir`; its address.
fn serve(dir: &Path, args: &[&str]) -> (Server, SocketAddr) {
    let server = common::serve(dir.join("goref.db"), args);
    let addr = server.addr;
    (server, addr)
}

/// `goref connect` with GNU Go as `name`; its stderr goes to `dir/name.log`.
fn connect(dir: &Path, addr: SocketAddr, name: &str, args: &[&str]) -> Process {
    connect_engine(dir, addr, name, ENGINE, args)
}

/// `goref connect` with `engine` as `name`; its stderr goes to `dir/name.log`.
fn connect_engine(
    dir: &Path,
    addr: SocketAddr,
    name: &str,
    engine: &str,
    args: &[&str],
) -> Process {
    let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_goref"))
        .args([
            "connect",
            &format!("http://{addr}"),
            "--engine",
            engine,
            "--name",
            name,
        ])
        .args(["--password", &format!("pw-{name}")])
        .args(args)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("goref connect starts");
    Process(child)
}

/// A person in the lobby accepts the next challenge of `by`: the game, seated by account.
async fn accept_challenge_of(
    addr: SocketAddr,
    token: &str,
    lobby: &mut LobbyClient,
    by: &str,
) -> (String, Player) {
    // A lobby message may be older than the acceptance of an earlier challenge of the same
    // program (taken by the last game): then the accept is refused, and a new connection's
    // first message lists the lobby as it is (the refusal's wait skipped lobby messages).
    let id = loop {
        let v = lobby.next_of("lobby").await.unwrap();
        let Some(c) = v["challenges"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["by"] == by)
        else {
            continue;
        };
        assert_eq!(c["program"], true);
        let cid = c["id"].as_str().unwrap().to_string();
        let ack = lobby
            .request(&json!({"type": "accept", "challenge": cid}))
            .await
            .unwrap();
        if let Some(id) = ack["game"].as_str() {
            break id.to_string();
        }
        *lobby = LobbyClient::connect(addr, token).await.unwrap();
    };
    let me = Player::connect_as(addr, &id, token).await.unwrap();
    (id, me)
}

/// A person who passes every turn and agrees to everything (done in marking, no dead stones
/// among dead lists), until the game ends.
async fn pass_and_agree(me: &mut Player, limit: Duration) {
    let mine = me.seat.as_str().unwrap().to_string();
    let deadline = Instant::now() + limit;
    while me.state["result"].is_null() {
        assert!(
            Instant::now() < deadline,
            "the game did not end: {}",
            me.state
        );
        let need = me.state["need"].clone();
        let ours = need["color"] == mine.as_str();
        let act = match need["type"].as_str() {
            Some("move") if ours => Some(json!({"type": "pass"})),
            Some("marking") if ours => Some(json!({"type": "done"})),
            Some("dead_lists") if need["missing"][mine.as_str()] == true => {
                Some(json!({"type": "dead_list", "points": []}))
            }
            _ => None,
        };
        match act {
            Some(a) => {
                let answer = me.act(a).await.unwrap();
                match answer["version"].as_u64() {
                    Some(v) if answer["type"] == "ack" => {
                        me.wait_version(v).await.unwrap();
                    }
                    _ => assert_eq!(answer["code"], "stale", "{answer}"),
                }
            }
            None => {
                me.recv().await.unwrap();
            }
        }
    }
}

/// Waits for a `goref connect --games N` to finish on its own.
fn wait_exit(p: &mut Process, dir: &Path, name: &str, limit: Duration) {
    let start = Instant::now();
    loop {
        if let Some(status) = p.0.try_wait().unwrap() {
            let log = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default();
            assert!(status.success(), "{name} failed: {status}\n{log}");
            return;
        }
        if start.elapsed() > limit {
            let log = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default();
            panic!("{name} did not finish its game within {limit:?}\n{log}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gnugo_programs_are_paired_and_finish_under_tromp_and_under_dead_lists() {
    if !have_gnugo() {
        return;
    }
    for end in ["tromp", "chinese"] {
        let dir = temp_dir(end);
        let (_server, addr) = serve(
            &dir,
            &[
                "--pairing-interval",
                "300ms",
                "--pairing-time",
                "none",
                "--pairing-end",
                end,
            ],
        );
        let mut a = connect(&dir, addr, "gnu-a", &["--games", "1"]);
        let mut b = connect(&dir, addr, "gnu-b", &["--games", "1"]);
        wait_exit(&mut a, &dir, "gnu-a", Duration::from_secs(300));
        wait_exit(&mut b, &dir, "gnu-b", Duration::from_secs(60));
        let list = games(addr).await;
        assert_eq!(list.len(), 1, "{list:?}");
        let g = &list[0];
        let mut names = [g["black"].as_str().unwrap(), g["white"].as_str().unwrap()];
        names.sort_unstable();
        assert_eq!(names, ["gnu-a", "gnu-b"]);
        assert_eq!(
            (g["end"].as_str(), g["rated"].as_bool()),
            (Some(end), Some(true))
        );
        let result = g["result"].as_str().expect("finished").to_string();
        let re = check_record(addr, &dir, g["id"].as_str().unwrap()).await;
        assert_eq!(re, result);
        // GNU Go plays it out: the game ends with the end protocol, not a forfeit.
        let (_, state) = http(
            addr,
            "GET",
            &format!("/api/games/{}", g["id"].as_str().unwrap()),
            None,
        )
        .await
        .unwrap();
        let state: Value = serde_json::from_str(&state).unwrap();
        let ending = state["ending"].as_str().unwrap();
        assert!(
            !matches!(ending, "time" | "forfeit" | "fault"),
            "{end}: ended by {ending}"
        );
        // Ratings from the one rated game: the winner above the loser.
        let (_, players) = http(addr, "GET", "/api/players", None).await.unwrap();
        let players: Value = serde_json::from_str(&players).unwrap();
        assert_eq!(players["players"].as_array().unwrap().len(), 2);
        if !result.starts_with('0') {
            let winner = if result.starts_with('B') {
                g["black"].clone()
            } else {
                g["white"].clone()
            };
            assert_eq!(players["players"][0]["name"], winner, "{players}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gnugo_plays_a_person_who_accepts_its_challenge() {
    if !have_gnugo() {
        return;
    }
    let dir = temp_dir("person");
    let (_server, addr) = serve(&dir, &["--pairing-interval", "off"]);
    let challenge = r#"{"width": 7, "rules": "tromp-taylor", "komi": 0.5, "end": "tromp"}"#;
    let mut program = connect(
        &dir,
        addr,
        "gnugo",
        &["--no-pairing", "--challenge", challenge, "--games", "1"],
    );
    let token = login(addr, "person", "pw-person", false, true)
        .await
        .unwrap();
    let mut lobby = LobbyClient::connect(addr, &token).await.unwrap();
    let (id, mut me) = accept_challenge_of(addr, &token, &mut lobby, "gnugo").await;
    let mine = me.seat.as_str().unwrap().to_string();
    pass_and_agree(&mut me, Duration::from_secs(120)).await;
    wait_exit(&mut program, &dir, "gnugo", Duration::from_secs(60));
    let result = me.state["result"].as_str().unwrap().to_string();
    // The person never played a stone: the program wins by the board.
    let program_color = if mine == "B" { "W" } else { "B" };
    assert!(result.starts_with(program_color), "{result}");
    assert!(me.state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["point"].is_array()));
    assert_eq!(check_record(addr, &dir, &id).await, result);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A TCP proxy that can be cut: while cut, its connections are closed and new ones refused.
struct Proxy {
    addr: SocketAddr,
    cut: Arc<AtomicBool>,
    kill: tokio::sync::watch::Sender<u64>,
}

impl Proxy {
    async fn start(upstream: SocketAddr) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let cut = Arc::new(AtomicBool::new(false));
        let (kill, _) = tokio::sync::watch::channel(0u64);
        let (cut2, kill2) = (cut.clone(), kill.clone());
        tokio::spawn(async move {
            loop {
                let Ok((mut client, _)) = listener.accept().await else {
                    return;
                };
                if cut2.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let mut killed = kill2.subscribe();
                tokio::spawn(async move {
                    let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = killed.changed() => {}
                    }
                });
            }
        });
        Proxy { addr, cut, kill }
    }

    /// Cuts every connection and refuses new ones for `d`.
    async fn cut_for(&self, d: Duration) {
        self.cut.store(true, Ordering::SeqCst);
        self.kill.send_modify(|n| *n += 1);
        tokio::time::sleep(d).await;
        self.cut.store(false, Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_whose_network_drops_for_3_s_connects_again_and_finishes_its_game() {
    if !have_gnugo() {
        return;
    }
    let dir = temp_dir("drop");
    let (_server, addr) = serve(
        &dir,
        &[
            "--pairing-interval",
            "300ms",
            "--pairing-time",
            "none",
            "--pairing-size",
            "13",
        ],
    );
    let proxy = Proxy::start(addr).await;
    let mut a = connect(&dir, proxy.addr, "far", &["--games", "1"]);
    let mut b = connect(&dir, addr, "near", &["--games", "1"]);
    // Cut the far program's network once its game is under way.
    let moves_at_cut = until(Duration::from_secs(120), "a game under way", || async {
        let list = games(addr).await;
        let g = list.first()?;
        let moves = g["moves"].as_u64().unwrap_or(0);
        assert!(g["result"].is_null(), "the game ended before the cut: {g}");
        (moves >= 6).then_some(moves)
    })
    .await;
    proxy.cut_for(Duration::from_secs(3)).await;
    let (a_done, b_done) = tokio::task::spawn_blocking({
        let dir = dir.clone();
        move || {
            wait_exit(&mut a, &dir, "far", Duration::from_secs(300));
            wait_exit(&mut b, &dir, "near", Duration::from_secs(60));
            (a, b)
        }
    })
    .await
    .unwrap();
    drop((a_done, b_done));
    let log = std::fs::read_to_string(dir.join("far.log")).unwrap();
    assert!(
        log.contains("connection lost"),
        "the cut was not felt:\n{log}"
    );
    let list = games(addr).await;
    assert_eq!(list.len(), 1, "one game, finished, not a new one: {list:?}");
    let g = &list[0];
    assert!(g["moves"].as_u64().unwrap() > moves_at_cut + 2, "{g}");
    let id = g["id"].as_str().unwrap();
    let (_, state) = http(addr, "GET", &format!("/api/games/{id}"), None)
        .await
        .unwrap();
    let state: Value = serde_json::from_str(&state).unwrap();
    assert!(
        !matches!(state["ending"].as_str(), Some("time" | "resignation")),
        "the far program lost its game: {}",
        state["ending"]
    );
    assert_eq!(
        check_record(addr, &dir, id).await,
        g["result"].as_str().unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The issue's tournament: four GNU Go programs join a round-robin on the server, which pairs
/// its three rounds one after another; the TD decides one game (001 §1, 3.9: the TD's
/// decision is final) and the rest are played to the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_gnugo_programs_play_a_round_robin_on_the_server_with_the_td_deciding_a_game() {
    if !have_gnugo() {
        return;
    }
    use goref_server::client::http_as;
    let dir = temp_dir("tournament");
    let (_server, addr) = serve(&dir, &["--pairing-interval", "off"]);
    let td = login(addr, "director", "pw-director", false, true)
        .await
        .unwrap();
    let body = json!({"name": "GNU Go cup", "format": "round-robin",
                      "game": {"width": 7, "rules": "olympiad", "end": "tromp", "komi": 6.5}})
    .to_string();
    let (status, v) = http_as(addr, "POST", "/api/tournaments", Some(&body), Some(&td))
        .await
        .unwrap();
    assert_eq!(status, 201, "{v}");
    let id = serde_json::from_str::<Value>(&v).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let names = ["gnu-1", "gnu-2", "gnu-3", "gnu-4"];
    let mut programs: Vec<Process> = names
        .iter()
        .map(|n| connect(&dir, addr, n, &["--no-pairing", "--join", &id]))
        .collect();
    let show = |addr, id: String| async move { tournament(addr, &id).await };
    until(Duration::from_secs(60), "the programs join", || async {
        let t = show(addr, id.clone()).await;
        (t["players"].as_array().unwrap().len() == 4).then_some(())
    })
    .await;
    let (status, _) = http_as(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        None,
        Some(&td),
    )
    .await
    .unwrap();
    assert_eq!(status, 200);
    // The TD decides the first game it finds still on.
    let (t, decided) = td_decides_a_game_until_the_end(addr, &id, &td).await;
    let games = t["games"].as_array().unwrap();
    assert_eq!(games.len(), 6, "{t}");
    assert!(games
        .iter()
        .all(|g| g["result"].is_string() && g["id"].is_string()));
    let rounds: Vec<u64> = games.iter().map(|g| g["round"].as_u64().unwrap()).collect();
    assert_eq!(
        (rounds.iter().min(), rounds.iter().max()),
        (Some(&1), Some(&3))
    );
    let (_, state) = http(addr, "GET", &format!("/api/games/{decided}"), None)
        .await
        .unwrap();
    let state: Value = serde_json::from_str(&state).unwrap();
    assert_eq!(
        (state["ending"].as_str(), state["result"].as_str()),
        (Some("decision"), Some("B+R"))
    );
    // Every record replays to its result, the decided one too.
    for g in games {
        let re = check_record(addr, &dir, g["id"].as_str().unwrap()).await;
        assert_eq!(re, g["result"].as_str().unwrap());
    }
    let standings = t["standings"]["engines"].as_array().unwrap();
    assert_eq!(standings.len(), 4);
    let points: f64 = standings
        .iter()
        .map(|s| s["points"].as_f64().unwrap())
        .sum();
    assert_eq!(points, 6.0, "one point a game: {}", t["standings"]);
    drop(programs.drain(..));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine that crashes loses the game it was playing (goref connect resigns it at once)
/// and is started again for the next game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_that_crashes_loses_its_game_and_is_restarted_for_the_next() {
    let dir = temp_dir("crash");
    let (_server, addr) = serve(&dir, &["--pairing-interval", "off"]);
    let engine = format!(
        "{} engine faulty --crash-after 3",
        env!("CARGO_BIN_EXE_goref")
    );
    let challenge = r#"{"width": 7, "rules": "tromp-taylor", "end": "tromp"}"#;
    let mut program = connect_engine(
        &dir,
        addr,
        "faulty",
        &engine,
        &["--no-pairing", "--challenge", challenge, "--games", "2"],
    );
    let token = login(addr, "person", "pw-person", false, true)
        .await
        .unwrap();
    let mut lobby = LobbyClient::connect(addr, &token).await.unwrap();
    for game in 0..2 {
        let (_, mut me) = accept_challenge_of(addr, &token, &mut lobby, "faulty").await;
        let mine = me.seat.as_str().unwrap().to_string();
        pass_and_agree(&mut me, Duration::from_secs(60)).await;
        let result = me.state["result"].as_str().unwrap().to_string();
        assert_eq!(
            result,
            format!("{mine}+R"),
            "game {game}: the crashed program resigned"
        );
        let program_moves = me.state["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["color"] != mine.as_str())
            .count();
        assert_eq!(
            program_moves, 3,
            "a fresh engine each game plays its 3 moves, then crashes"
        );
    }
    wait_exit(&mut program, &dir, "faulty", Duration::from_secs(30));
    let log = std::fs::read_to_string(dir.join("faulty.log")).unwrap();
    assert_eq!(
        log.matches("the engine failed, game resigned").count(),
        2,
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program whose engine cannot list dead stones (no `final_status_list`: goref's random
/// engine) takes every stone as alive, so that the end protocol still ends: done in Tromp's
/// marking, an empty list among dead lists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_without_final_status_list_still_finishes_under_marking_and_dead_lists() {
    for end in ["tromp", "chinese"] {
        let dir = temp_dir(&format!("nostatus-{end}"));
        let (_server, addr) = serve(&dir, &["--pairing-interval", "off"]);
        let engine = format!("{} engine random --seed 7", env!("CARGO_BIN_EXE_goref"));
        let challenge = format!(r#"{{"width": 5, "rules": "tromp-taylor", "end": "{end}"}}"#);
        let mut program = connect_engine(
            &dir,
            addr,
            "random",
            &engine,
            &["--no-pairing", "--challenge", &challenge, "--games", "1"],
        );
        let token = login(addr, "person", "pw-person", false, true)
            .await
            .unwrap();
        let mut lobby = LobbyClient::connect(addr, &token).await.unwrap();
        let (_, mut me) = accept_challenge_of(addr, &token, &mut lobby, "random").await;
        pass_and_agree(&mut me, Duration::from_secs(60)).await;
        wait_exit(&mut program, &dir, "random", Duration::from_secs(30));
        assert_eq!(me.state["ending"], "agreement", "{end}: {}", me.state);
        assert!(me.state["dead"].as_array().unwrap().is_empty());
        let log = std::fs::read_to_string(dir.join("random.log")).unwrap();
        assert!(log.contains("every stone taken as alive"), "{log}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// 23.6: `goref connect` given two instances of one server (two `goref serve` on one
/// PostgreSQL database) plays on the first; when it is killed (SIGKILL) in the middle of the
/// game, both programs go to the second instance and finish the game there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_connect_fails_over_to_the_next_instance_and_finishes_its_game() {
    let Some(db) = common::pg_database("failover") else {
        return;
    };
    let dir = temp_dir("failover");
    let pairing = [
        "--pairing-interval",
        "300ms",
        "--pairing-time",
        "none",
        "--pairing-end",
        "all-alive",
    ];
    // The first takes the leader's role (pairing, clocks): it answers once it knows; both
    // programs start there.
    let first = common::serve(&db, &pairing);
    let second = common::serve(&db, &pairing);
    let urls = format!("http://{},http://{}", first.addr, second.addr);
    // A random engine that takes 100 ms a move: the game lasts long enough to be cut.
    let engine = format!("{} engine faulty --slow 100ms", env!("CARGO_BIN_EXE_goref"));
    let start = |name: &str| {
        let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_goref"))
            .args(["connect", &urls, "--engine", &engine, "--name", name])
            .args(["--password", "pw-failover", "--games", "1"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        Process(child)
    };
    let mut a = start("fail-a");
    let mut b = start("fail-b");
    // Wait for their game to be under way (seen from the second instance).
    let id = until(Duration::from_secs(60), "a game under way", || async {
        let list = games(second.addr).await;
        let g = list
            .iter()
            .find(|g| g["moves"].as_u64().unwrap_or(0) >= 6)?;
        Some(g["id"].as_str().unwrap().to_string())
    })
    .await;
    first.kill();
    wait_exit(&mut a, &dir, "fail-a", Duration::from_secs(180));
    wait_exit(&mut b, &dir, "fail-b", Duration::from_secs(180));
    let game = games(second.addr)
        .await
        .into_iter()
        .find(|g| g["id"] == id.as_str())
        .unwrap();
    assert!(game["result"].is_string(), "{game}");
    println!("after the failover: {game}");
    let moved_on = ["fail-a", "fail-b"].iter().any(|name| {
        std::fs::read_to_string(dir.join(format!("{name}.log")))
            .unwrap_or_default()
            .contains("does not answer; going to")
    });
    assert!(
        moved_on,
        "neither program said it went to the next instance"
    );
    check_record(second.addr, &dir, &id).await;
}

/// `goref connect` as `name` with GNU Go, given `urls` (comma-separated instances).
fn connect_to(dir: &Path, urls: &str, name: &str, args: &[&str]) -> Process {
    let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_goref"))
        .args(["connect", urls, "--engine", ENGINE, "--name", name])
        .args(["--password", &format!("pw-{name}")])
        .args(args)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("goref connect starts");
    Process(child)
}

/// The tournament director (session `td`) on `addr` decides the first game of tournament
/// `id` it finds still on (`B+R`), then lets the tournament go on to its end (at most 300 s):
/// the tournament at its end, and the game decided.
async fn td_decides_a_game_until_the_end(addr: SocketAddr, id: &str, td: &str) -> (Value, String) {
    use goref_server::client::http_as;
    let mut decided: Option<String> = None;
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let t = tournament(addr, id).await;
        if t["state"] == "over" {
            return (t, decided.expect("the TD decided a game"));
        }
        assert!(Instant::now() < deadline, "the tournament did not end: {t}");
        if decided.is_none() {
            for g in t["games"].as_array().unwrap() {
                let (Some(gid), true) = (g["id"].as_str(), g["result"].is_null()) else {
                    continue;
                };
                let act = json!({"action": "result", "result": "B+R",
                                 "reason": "the TD's decision, for the test"})
                .to_string();
                let path = format!("/api/games/{gid}/td");
                let (status, _) = http_as(addr, "POST", &path, Some(&act), Some(td))
                    .await
                    .unwrap();
                if status == 200 {
                    decided = Some(gid.to_string());
                    break;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The tournament `id` as `addr` shows it.
async fn tournament(addr: SocketAddr, id: &str) -> Value {
    get_json(addr, &format!("/api/tournaments/{id}")).await
}

/// Issue 23 §4: two `goref serve` on one PostgreSQL database, a GNU Go program connected to
/// each: the leader pairs them across the instances, they finish a rated game, and both
/// instances show the same ratings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_programs_on_two_instances_are_paired_and_rated_the_same_on_both() {
    let Some(db) = common::pg_database("across_pair") else {
        return;
    };
    if !have_gnugo() {
        return;
    }
    let dir = temp_dir("across-pair");
    let pairing = [
        "--pairing-interval",
        "300ms",
        "--pairing-time",
        "none",
        "--pairing-size",
        "7x7",
    ];
    let first = common::serve(&db, &pairing);
    let second = common::serve(&db, &pairing);
    let mut a = connect_to(
        &dir,
        &format!("http://{}", first.addr),
        "gnu-one",
        &["--games", "1"],
    );
    let mut b = connect_to(
        &dir,
        &format!("http://{}", second.addr),
        "gnu-two",
        &["--games", "1"],
    );
    wait_exit(&mut a, &dir, "gnu-one", Duration::from_secs(300));
    wait_exit(&mut b, &dir, "gnu-two", Duration::from_secs(60));
    let list = games(second.addr).await;
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list, games(first.addr).await, "the same games on both");
    let g = &list[0];
    let mut names = [g["black"].as_str().unwrap(), g["white"].as_str().unwrap()];
    names.sort_unstable();
    assert_eq!(names, ["gnu-one", "gnu-two"]);
    assert_eq!(g["rated"], true);
    let result = g["result"].as_str().expect("finished").to_string();
    assert_eq!(
        check_record(first.addr, &dir, g["id"].as_str().unwrap()).await,
        result
    );
    // The same ratings on both instances (refitted by the leader, read from the store).
    let (one, two) = until(Duration::from_secs(2), "the same ratings", || async {
        let one = get_json(first.addr, "/api/players").await;
        let two = get_json(second.addr, "/api/players").await;
        (one == two && one["players"][0]["rating"].is_number()).then_some((one, two))
    })
    .await;
    assert_eq!(one, two);
    if !result.starts_with('0') {
        let winner = if result.starts_with('B') {
            &g["black"]
        } else {
            &g["white"]
        };
        assert_eq!(&one["players"][0]["name"], winner, "{one}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 23 §4: a Swiss of four GNU Go programs spread over two instances on one PostgreSQL
/// database finishes although the leading instance is killed with SIGKILL during round 2
/// (and started again): the other takes over (records the round's results, pairs round 3),
/// and the programs of the dead instance go on through the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_a_swiss_across_two_instances_survives_the_leaders_death_in_round_2() {
    let Some(db) = common::pg_database("across_swiss") else {
        return;
    };
    if !have_gnugo() {
        return;
    }
    use goref_server::client::http_as;
    let dir = temp_dir("across-swiss");
    let off = ["--pairing-interval", "off"];
    // The first takes the leader's role (it answers once it knows).
    let first = common::serve(&db, &off);
    let second = common::serve(&db, &off);
    let (one, two) = (first.addr, second.addr);
    let td = login(two, "director", "pw-director", false, true)
        .await
        .unwrap();
    let body = json!({"name": "Across", "format": "swiss", "rounds": 3,
                      "game": {"width": 5, "rules": "tromp-taylor", "end": "tromp", "komi": 0.5}})
    .to_string();
    let (status, v) = http_as(two, "POST", "/api/tournaments", Some(&body), Some(&td))
        .await
        .unwrap();
    assert_eq!(status, 201, "{v}");
    let id = serde_json::from_str::<Value>(&v).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Two programs on each instance, each knowing both.
    let to_one = format!("http://{one},http://{two}");
    let to_two = format!("http://{two},http://{one}");
    let names = ["sw-1", "sw-2", "sw-3", "sw-4"];
    let mut programs: Vec<Process> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let urls = if i < 2 { &to_one } else { &to_two };
            connect_to(&dir, urls, n, &["--no-pairing", "--join", &id])
        })
        .collect();
    let show = |id: String| async move { tournament(two, &id).await };
    until(Duration::from_secs(60), "the programs join", || async {
        let t = show(id.clone()).await;
        (t["players"].as_array().unwrap().len() == 4).then_some(())
    })
    .await;
    let (status, _) = http_as(
        one,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        None,
        Some(&td),
    )
    .await
    .unwrap();
    assert_eq!(status, 200);
    // Round 2 under way: the leader dies, and comes back a little later.
    until(Duration::from_secs(300), "round 2 starts", || async {
        let t = show(id.clone()).await;
        (t["round"].as_u64() >= Some(2)).then_some(())
    })
    .await;
    first.kill();
    let killed = Instant::now();
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let again = common::serve(&db, &off);
    let t = until(Duration::from_secs(300), "the tournament ends", || async {
        let t = show(id.clone()).await;
        (t["state"] == "over").then_some(t)
    })
    .await;
    eprintln!("over {:?} after the leader's death", killed.elapsed());
    let games = t["games"].as_array().unwrap();
    assert_eq!(games.len(), 6, "three rounds of two games: {t}");
    assert!(
        games
            .iter()
            .all(|g| g["result"].is_string() && g["id"].is_string()),
        "{t}"
    );
    let standings = t["standings"]["engines"].as_array().unwrap();
    let points: f64 = standings
        .iter()
        .map(|s| s["points"].as_f64().unwrap())
        .sum();
    assert_eq!(points, 6.0, "one point a game: {}", t["standings"]);
    // Every record replays to its result; both live instances show the same tournament.
    for g in games {
        let re = check_record(again.addr, &dir, g["id"].as_str().unwrap()).await;
        assert_eq!(re, g["result"].as_str().unwrap());
    }
    assert_eq!(
        get_json(again.addr, &format!("/api/tournaments/{id}")).await,
        t
    );
    drop(programs.drain(..));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 23: the tournament director acts only on the instance that does not lead (two
/// `goref serve` on one PostgreSQL database): creates a round robin there, starts it there and
/// decides one of its games there; four GNU Go programs, two on each instance, play it to its
/// end. The leader (the other instance) opens the games on the bus's news of the TD's changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_the_td_runs_a_tournament_from_the_instance_that_does_not_lead() {
    let Some(db) = common::pg_database("across_td") else {
        return;
    };
    if !have_gnugo() {
        return;
    }
    use goref_server::client::http_as;
    let dir = temp_dir("across-td");
    let off = ["--pairing-interval", "off"];
    // The first takes the leader's role (it answers once it knows).
    let first = common::serve(&db, &off);
    let second = common::serve(&db, &off);
    let (one, two) = (first.addr, second.addr);
    until(
        Duration::from_secs(5),
        "the first instance leads",
        || async { first.leads().then_some(()) },
    )
    .await;
    assert!(!second.leads(), "the second instance does not lead");
    let td = login(two, "director", "pw-director", false, true)
        .await
        .unwrap();
    let body = json!({"name": "From afar", "format": "round-robin",
                      "game": {"width": 5, "rules": "tromp-taylor", "end": "tromp", "komi": 0.5}})
    .to_string();
    let (status, v) = http_as(two, "POST", "/api/tournaments", Some(&body), Some(&td))
        .await
        .unwrap();
    assert_eq!(status, 201, "{v}");
    let id = serde_json::from_str::<Value>(&v).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let to_one = format!("http://{one},http://{two}");
    let to_two = format!("http://{two},http://{one}");
    let mut programs: Vec<Process> = ["far-1", "far-2", "far-3", "far-4"]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let urls = if i < 2 { &to_one } else { &to_two };
            connect_to(&dir, urls, n, &["--no-pairing", "--join", &id])
        })
        .collect();
    until(Duration::from_secs(60), "the programs join", || async {
        let t = tournament(two, &id).await;
        (t["players"].as_array().unwrap().len() == 4).then_some(())
    })
    .await;
    let (status, answer) = http_as(
        two,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        None,
        Some(&td),
    )
    .await
    .unwrap();
    assert_eq!(status, 200, "{answer}");
    let (t, decided) = td_decides_a_game_until_the_end(two, &id, &td).await;
    let games = t["games"].as_array().unwrap();
    assert_eq!(games.len(), 6, "a round robin of four: {t}");
    assert!(
        games
            .iter()
            .all(|g| g["result"].is_string() && g["id"].is_string()),
        "{t}"
    );
    let state = get_json(one, &format!("/api/games/{decided}")).await;
    assert_eq!(
        (state["ending"].as_str(), state["result"].as_str()),
        (Some("decision"), Some("B+R")),
        "the TD's decision, seen on the leader"
    );
    let standings = t["standings"]["engines"].as_array().unwrap();
    let points: f64 = standings
        .iter()
        .map(|s| s["points"].as_f64().unwrap())
        .sum();
    assert_eq!(points, 6.0, "one point a game: {}", t["standings"]);
    assert_eq!(tournament(one, &id).await, t, "the same on both instances");
    assert!(first.leads() && !second.leads(), "no take-over meanwhile");
    for g in games {
        let re = check_record(one, &dir, g["id"].as_str().unwrap()).await;
        assert_eq!(re, g["result"].as_str().unwrap());
    }
    drop(programs.drain(..));
    let _ = std::fs::remove_dir_all(&dir);
}
