//! Every end-of-game protocol of goref-referee played by people over the WebSocket API
//! (reference 000: KGS, Japanese, third-party mediation; 001 3.7 and 3.9; reference 003, the
//! Chinese lists and all-alive are in marking.rs), handicap games, and the records they leave.
//!
//! The position (common::walls_with_dead_stone): White's a2 is a lone stone inside Black's
//! side. All alive: W+5.5; with a2 removed: B+4.5.

mod common;

use common::*;
use serde_json::{json, Value};

async fn lists(t: &mut Table, black: Value, white: Value) -> Value {
    t.ok("B", json!({"type": "dead_list", "points": black}))
        .await;
    t.ok("W", json!({"type": "dead_list", "points": white}))
        .await
}

#[tokio::test]
async fn kgs_cleanup_captures_then_two_passes_count_every_stone() {
    // Reference 000, KGS: after a disagreement each side captures what it thinks dead; the
    // next two passes end the game with every stone on the board alive.
    let s = server().await;
    let mut t = table(s.addr, five_by_five("kgs")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    let st = lists(&mut t, json!([[0, 3]]), json!([])).await;
    assert_eq!(st["phase"], "play");
    assert_eq!(st["to_move"], "B", "the first to pass moves first");
    t.moves("B", &[p(0, 2), PASS, p(0, 4), PASS, p(1, 3), PASS, PASS])
        .await;
    let st = t.state().clone();
    assert_eq!(st["phase"], "over");
    assert_eq!(st["ending"], "cleanup-passes");
    assert_eq!(st["result"], "B+4.5");
    record(s.addr, &t.id).await;
}

#[tokio::test]
async fn japanese_plays_the_dispute_out_on_a_second_board() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("japanese")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    let st = lists(&mut t, json!([[0, 3]]), json!([])).await;
    assert_eq!(st["phase"], "play_out");
    assert_eq!(st["to_move"], "B");
    assert_eq!(
        st["copy"]["board"], st["board"],
        "the copy starts as the board"
    );
    // Black captures a2 on the copy; the board itself is untouched.
    t.moves("B", &[p(0, 2), PASS, p(0, 4), PASS, p(1, 3)]).await;
    let st = t.state().clone();
    assert_eq!(st["copy"]["board"][3][0], 0, "a2 captured on the copy");
    assert_eq!(st["board"][3][0], -1, "a2 still on the board");
    assert_eq!(st["copy"]["moves"].as_array().unwrap().len(), 5);
    t.moves("W", &[PASS, PASS]).await;
    let st = t.state().clone();
    assert_eq!(st["phase"], "over");
    assert_eq!(st["ending"], "played-out-on-copy");
    assert_eq!(st["dead"], json!([[0, 3]]));
    assert_eq!(st["result"], "B+4.5");
    let rec = record(s.addr, &t.id).await;
    assert_eq!(rec.moves.len(), 14, "the copy's moves stay off the record");
}

#[tokio::test]
async fn the_referee_protocol_is_settled_by_the_servers_judge() {
    // Reference 000, third-party mediation: the server's third party is 001 3.9's default
    // removal, applied to the disputed stones only.
    let s = server().await;
    let mut t = table(s.addr, five_by_five("referee")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    let st = lists(&mut t, json!([[0, 3]]), json!([])).await;
    assert_eq!(st["phase"], "over");
    assert_eq!(st["ending"], "referee");
    assert_eq!(st["result"], st["score"]["result"]);
    let notes = st["notes"].to_string();
    assert!(
        notes.contains("default removal (Olympiad 3.9.2)"),
        "{notes}"
    );
    record(s.addr, &t.id).await;
}

#[tokio::test]
async fn olympiad_resumes_three_times_then_the_director_decides() {
    // 001 3.7.4-3.7.5: at most three resumptions, then 3.9.
    let s = server().await;
    let mut request = five_by_five("olympiad");
    request["rules"] = json!("olympiad");
    let mut t = table(s.addr, request).await;
    t.moves("B", &walls_with_dead_stone()).await;
    for _ in 0..3 {
        let st = lists(&mut t, json!([[0, 3]]), json!([])).await;
        assert_eq!(st["phase"], "play");
        t.moves("B", &[PASS, PASS]).await;
    }
    let st = lists(&mut t, json!([[0, 3]]), json!([])).await;
    assert_eq!(st["phase"], "over");
    assert_eq!(st["ending"], "referee");
    assert!(st["notes"].to_string().contains("resumption 3"));
    record(s.addr, &t.id).await;
}

#[tokio::test]
async fn olympiad_with_perfect_play_the_director_plays_the_dispute_out() {
    // 001 3.7.4-3.7.5, then §3.9 by perfect play (`third_party`): on 3×3, Black a1 and White
    // b3 each call the other's stone dead four times; the server plays a perfect line out on
    // the board (the default removal would leave both stones: W+0.5).
    let s = server().await;
    let mut t = table(
        s.addr,
        json!({"width": 3, "height": 3, "rules": "olympiad", "komi": 0.5, "end": "olympiad",
               "third_party": {"type": "perfect_play", "nodes": 1_000_000}}),
    )
    .await;
    t.sync().await;
    assert_eq!(
        t.state()["config"]["third_party"],
        json!({"type": "perfect_play", "nodes": 1_000_000})
    );
    t.moves("B", &[p(0, 2), p(1, 0), PASS, PASS]).await;
    for _ in 0..3 {
        let st = lists(&mut t, json!([[1, 0]]), json!([[0, 2]])).await;
        assert_eq!(st["phase"], "play");
        t.moves("B", &[PASS, PASS]).await;
    }
    let before = t.state()["moves"].as_array().unwrap().len();
    let st = lists(&mut t, json!([[1, 0]]), json!([[0, 2]])).await;
    assert_eq!(st["phase"], "over");
    assert_eq!(st["ending"], "adjudicated");
    // Every stone alive after the play-out (3.8): the board's score is the result.
    assert_eq!(st["result"], st["score"]["result"]);
    assert_ne!(st["result"], "W+0.5");
    let notes = st["notes"].to_string();
    assert!(
        notes.contains("perfect play (001 §3.9, goref solve): ")
            && notes.contains(st["result"].as_str().unwrap()),
        "{notes}"
    );
    let after = st["moves"].as_array().unwrap().len();
    assert!(after >= before + 2, "played out to two passes: {st}");
    // The record holds the play-out and scores to its RE.
    let rec = record(s.addr, &t.id).await;
    assert_eq!(rec.moves.len(), after);
    assert_eq!(rec.result.as_deref(), st["result"].as_str());
}

#[tokio::test]
async fn perfect_play_beyond_the_servers_cap_is_refused() {
    let s = server_with(goref_server::Options {
        max_perfect_nodes: 1_000,
        ..goref_server::Options::default()
    })
    .await;
    let ask = |nodes: u64| {
        json!({"width": 3, "end": "referee",
               "third_party": {"type": "perfect_play", "nodes": nodes}})
        .to_string()
    };
    let (status, body) =
        goref_server::client::http(s.addr, "POST", "/api/games", Some(&ask(1_001)))
            .await
            .unwrap();
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (status, v["error"].as_str()),
        (400, Some("invalid")),
        "{body}"
    );
    assert_eq!(
        v["message"],
        "perfect play may search at most 1000 nodes on this server, not 1001"
    );
    let (status, body) =
        goref_server::client::http(s.addr, "POST", "/api/games", Some(&ask(1_000)))
            .await
            .unwrap();
    assert_eq!(status, 201, "{body}");
}

#[tokio::test]
async fn a_handicap_game_starts_with_blacks_stones_and_white_to_move() {
    let s = server().await;
    let mut t = table(
        s.addr,
        json!({"width": 9, "height": 9, "handicap": 2, "end": "tromp"}),
    )
    .await;
    t.sync().await;
    let st = t.state().clone();
    assert_eq!(st["config"]["komi"], 0.5, "komi 0.5 with handicap");
    assert_eq!(st["to_move"], "W");
    // GTP's fixed points for 2 stones on 9×9: C3 and G7.
    assert_eq!(st["board"][6][2], 1);
    assert_eq!(st["board"][2][6], 1);
    let refused = t.act("B", json!({"type": "pass"})).await;
    assert_eq!(refused["code"], "not_your_turn");
    t.moves("W", &[PASS, PASS]).await;
    t.ok("W", json!({"type": "done"})).await;
    let st = t.ok("B", json!({"type": "done"})).await;
    assert_eq!(st["result"], "B+80.5");
    let rec = record(s.addr, &t.id).await;
    assert_eq!(rec.handicap, Some(2));
    assert_eq!(rec.setup.len(), 2);
}
