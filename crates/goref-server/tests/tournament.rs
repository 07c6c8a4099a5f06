//! Tournaments on the server over real HTTP and WebSocket, with scripted players: the TD
//! creates and starts one, the server pairs round after round, the TD decides a game, grants
//! time, passes for a player (001 §1, 3.10.2, 3.10.3) and withdraws a player; every action is
//! in the record or the tournament's log.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use goref_server::client::{http_as, login, LobbyClient, Player};
use goref_server::lobby::PairingOptions;
use goref_server::Options;
use serde_json::{json, Value};

async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<Value>,
    token: &str,
) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    let (status, text) = http_as(addr, method, path, body.as_deref(), Some(token))
        .await
        .unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn no_pairing() -> TestServer {
    server_with(Options {
        pairing: PairingOptions {
            interval: None,
            ..PairingOptions::default()
        },
        ..Options::default()
    })
    .await
}

/// Waits for a tournament to reach a state where `f` holds.
async fn wait_for(addr: SocketAddr, id: &str, token: &str, f: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (status, t) = call(addr, "GET", &format!("/api/tournaments/{id}"), None, token).await;
        assert_eq!(status, 200);
        if f(&t) {
            return t;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "waited too long: {t}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_round_robin_runs_round_after_round_with_the_td_deciding_a_game() {
    let s = no_pairing().await;
    let a = s.addr;
    let td = login(a, "director", "pw-director", false, true)
        .await
        .unwrap();
    let names = ["p1", "p2", "p3", "p4"];
    let mut tokens = Vec::new();
    for n in names {
        tokens.push(login(a, n, "pw-player", true, true).await.unwrap());
    }
    // Only the TD creates; the settings are checked.
    let body = json!({"name": "Autumn cup", "format": "round-robin",
                      "game": {"width": 5, "rules": "tromp-taylor", "end": "tromp",
                               "time": {"kind": "sudden_death", "main_s": 600}}});
    let (status, v) = call(
        a,
        "POST",
        "/api/tournaments",
        Some(body.clone()),
        &tokens[0],
    )
    .await;
    assert_eq!((status, v["error"].as_str()), (403, Some("not_td")));
    let mut bad = body.clone();
    bad["game"]["width"] = json!(40);
    let (status, _) = call(a, "POST", "/api/tournaments", Some(bad), &td).await;
    assert_eq!(status, 400);
    let (status, v) = call(a, "POST", "/api/tournaments", Some(body), &td).await;
    assert_eq!(status, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let (status, _) = call(
        a,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        None,
        &td,
    )
    .await;
    assert_eq!(status, 409, "no players yet");
    for t in &tokens {
        let (status, v) = call(a, "POST", &format!("/api/tournaments/{id}/join"), None, t).await;
        assert_eq!(status, 200, "{v}");
    }
    let mut lobbies = Vec::new();
    for t in &tokens {
        lobbies.push(LobbyClient::connect(a, t).await.unwrap());
    }
    let (status, started) = call(
        a,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        None,
        &td,
    )
    .await;
    assert_eq!(status, 200, "{started}");
    assert_eq!(started["state"], "running");
    let (status, _) = call(
        a,
        "POST",
        &format!("/api/tournaments/{id}/join"),
        None,
        &tokens[0],
    )
    .await;
    assert_eq!(status, 409, "no joining once started");

    // Three rounds of two games. In each game Black resigns at once, except the first game
    // of round 1, which the TD handles: 30 s for White, a pass for Black in place of its move,
    // then a decision.
    let mut decided = None;
    for round in 1..=3 {
        let t = wait_for(a, &id, &td, |t| {
            t["games"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|g| g["round"] == round && g["id"].is_string())
                .count()
                == 2
        })
        .await;
        let games: Vec<Value> = t["games"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["round"] == round)
            .cloned()
            .collect();
        // Nobody plays twice in a round; later rounds are not started yet.
        let mut seen: Vec<&str> = games
            .iter()
            .flat_map(|g| [g["black"].as_str().unwrap(), g["white"].as_str().unwrap()])
            .collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 4);
        assert!(t["games"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["round"].as_u64().unwrap() <= round || g["id"].is_null()));
        for (k, g) in games.iter().enumerate() {
            let gid = g["id"].as_str().unwrap();
            let black = names
                .iter()
                .position(|n| *n == g["black"].as_str().unwrap())
                .unwrap();
            let mut p = Player::connect_as(a, gid, &tokens[black]).await.unwrap();
            assert_eq!(p.seat, "B");
            if round == 1 && k == 0 {
                let td_path = format!("/api/games/{gid}/td");
                let (status, v) = call(
                    a,
                    "POST",
                    &td_path,
                    Some(json!({"action": "result", "result": "B+R", "reason": "x"})),
                    &tokens[1],
                )
                .await;
                assert_eq!((status, v["error"].as_str()), (403, Some("not_td")));
                let grant = json!({"action": "time", "color": "W", "seconds": 30, "reason": "network trouble"});
                let (status, v) = call(a, "POST", &td_path, Some(grant), &td).await;
                assert_eq!(status, 200, "{v}");
                let pass = json!({"action": "pass", "reason": "illegal move"});
                let (status, v) = call(a, "POST", &td_path, Some(pass), &td).await;
                assert_eq!(status, 200, "{v}");
                let bad = json!({"action": "result", "result": "Q+R", "reason": ""});
                let (status, v) = call(a, "POST", &td_path, Some(bad), &td).await;
                assert_eq!((status, v["error"].as_str()), (409, Some("malformed")));
                let decide = json!({"action": "result", "result": "W+3.5", "reason": "timing dispute settled by counting"});
                let (status, v) = call(a, "POST", &td_path, Some(decide), &td).await;
                assert_eq!(status, 200, "{v}");
                let again = json!({"action": "result", "result": "B+R", "reason": ""});
                let (status, v) = call(a, "POST", &td_path, Some(again), &td).await;
                assert_eq!((status, v["error"].as_str()), (409, Some("over")));
                decided = Some(gid.to_string());
            } else {
                p.must(json!({"type": "resign"})).await.unwrap();
            }
            p.close().await;
        }
    }
    let t = wait_for(a, &id, &td, |t| t["state"] == "over").await;
    let games = t["games"].as_array().unwrap();
    assert_eq!(games.len(), 6);
    assert!(games.iter().all(|g| g["result"].is_string()));
    // Every pair met once.
    let mut pairs: Vec<(String, String)> = games
        .iter()
        .map(|g| {
            let (b, w) = (
                g["black"].as_str().unwrap().to_string(),
                g["white"].as_str().unwrap().to_string(),
            );
            if b < w {
                (b, w)
            } else {
                (w, b)
            }
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), 6);
    let standings = &t["standings"]["engines"];
    assert_eq!(standings.as_array().unwrap().len(), 4);
    // The decided game's record: the grant, the pass and the decision with its reason.
    let decided = decided.unwrap();
    let (_, sgf) = goref_server::client::http(a, "GET", &format!("/api/games/{decided}/sgf"), None)
        .await
        .unwrap();
    assert!(sgf.contains("RE[W+3.5]"), "{sgf}");
    assert!(sgf.contains("grants White 30 s: network trouble"), "{sgf}");
    assert!(
        sgf.contains("passes for Black in place of its move (001 3.10.2): illegal move"),
        "{sgf}"
    );
    assert!(
        sgf.contains("decided by the TD (director): timing dispute settled by counting"),
        "{sgf}"
    );
    assert!(sgf.contains(";B[]"), "the TD's pass is Black's move: {sgf}");
    let (_, state) = goref_server::client::http(a, "GET", &format!("/api/games/{decided}"), None)
        .await
        .unwrap();
    let state: Value = serde_json::from_str(&state).unwrap();
    assert_eq!(state["ending"], "decision");
    assert!(t["log"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["text"].as_str().unwrap().contains("started by the TD")));
    drop(lobbies);
}

#[tokio::test]
async fn a_withdrawn_player_loses_its_game_in_progress_and_forfeits_the_rest() {
    let s = no_pairing().await;
    let a = s.addr;
    let td = login(a, "director", "pw-director", false, true)
        .await
        .unwrap();
    let names = ["w1", "w2", "w3", "w4"];
    let mut tokens = Vec::new();
    for n in names {
        let t = login(a, n, "pw-player", true, true).await.unwrap();
        tokens.push(t);
    }
    let body = json!({"name": "Swiss", "format": "swiss", "rounds": 3, "game": {"width": 5}});
    let (_, v) = call(a, "POST", "/api/tournaments", Some(body), &td).await;
    let id = v["id"].as_str().unwrap().to_string();
    for t in &tokens {
        call(a, "POST", &format!("/api/tournaments/{id}/join"), None, t).await;
    }
    call(
        a,
        "POST",
        &format!("/api/tournaments/{id}/start"),
        None,
        &td,
    )
    .await;
    let t = wait_for(a, &id, &td, |t| {
        t["games"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["id"].is_string())
            .count()
            == 2
    })
    .await;
    // w1 is withdrawn during round 1.
    let (status, v) = call(
        a,
        "POST",
        &format!("/api/tournaments/{id}/withdraw"),
        Some(json!({"player": "w1", "reason": "program broken"})),
        &td,
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let g1 = t["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["black"] == "w1" || g["white"] == "w1")
        .unwrap()
        .clone();
    let other = t["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["black"] != "w1" && g["white"] != "w1")
        .unwrap()
        .clone();
    let lost = if g1["black"] == "w1" { "W+F" } else { "B+F" };
    let t = wait_for(a, &id, &td, |t| {
        t["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == g1["id"] && g["result"] == lost)
    })
    .await;
    let k = t["players"]
        .as_array()
        .unwrap()
        .iter()
        .position(|p| p == "w1")
        .unwrap();
    assert_eq!(t["withdrawn"][k], true);
    // The other game of round 1 ends; the later rounds give w1's opponents forfeit wins.
    let black = names
        .iter()
        .position(|n| *n == other["black"].as_str().unwrap())
        .unwrap();
    let mut p = Player::connect_as(a, other["id"].as_str().unwrap(), &tokens[black])
        .await
        .unwrap();
    p.must(json!({"type": "resign"})).await.unwrap();
    for round in 2..=3 {
        let t = wait_for(a, &id, &td, |t| {
            let games = t["games"].as_array().unwrap();
            let of_round: Vec<&Value> = games.iter().filter(|g| g["round"] == round).collect();
            of_round.len() == 2
                && of_round
                    .iter()
                    .all(|g| g["id"].is_string() || g["result"].is_string())
        })
        .await;
        for g in t["games"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["round"] == round)
        {
            if g["black"] == "w1" || g["white"] == "w1" {
                assert!(
                    g["id"].is_null(),
                    "no game is played by a withdrawn player: {g}"
                );
                let expected = if g["black"] == "w1" { "W+F" } else { "B+F" };
                assert_eq!(g["result"], expected);
            } else {
                let black = names
                    .iter()
                    .position(|n| *n == g["black"].as_str().unwrap())
                    .unwrap();
                let mut p = Player::connect_as(a, g["id"].as_str().unwrap(), &tokens[black])
                    .await
                    .unwrap();
                p.must(json!({"type": "resign"})).await.unwrap();
            }
        }
    }
    let t = wait_for(a, &id, &td, |t| t["state"] == "over").await;
    assert!(t["log"].as_array().unwrap().iter().any(|l| l["text"]
        .as_str()
        .unwrap()
        .contains("withdraws w1: program broken")));
    let last = &t["standings"]["engines"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["name"];
    assert_eq!(last, "w1", "{}", t["standings"]);
}
