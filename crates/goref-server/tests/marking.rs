//! Whole games over real HTTP and WebSocket connections through every branch of the end of
//! the game: reference 003's mark / dispute / done (agreement, dispute then four passes,
//! dispute then play on, refusals, resignation while marking), the Chinese dead lists and
//! all-alive; and the SGF record with the marking history.

mod common;

use common::*;
use goref_server::client::{http, Player};
use serde_json::json;

#[tokio::test]
async fn mark_then_two_dones_remove_the_marked_string() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("tromp")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    let st = t.state().clone();
    assert_eq!(st["phase"], "marking");
    // The player who passed first acts first (reference 000, Olympiad 3.7.4).
    assert_eq!(st["to_act"], "B");
    assert_eq!(st["score"]["result"], "W+5.5", "all alive before any mark");

    let st = t.ok("B", json!({"type": "mark", "x": 0, "y": 3})).await;
    assert_eq!(st["marked"], json!([[0, 3]]));
    assert_eq!(st["score"]["B"], 15);
    assert_eq!(st["score"]["W"], 10);
    assert_eq!(
        st["score"]["result"], "B+4.5",
        "the would-be score follows the marks"
    );
    assert_eq!(
        st["territory"][3][0], 1,
        "the marked stone's point counts for Black"
    );
    assert_eq!(st["territory"][0][4], -1);
    assert_eq!(st["territory"][0][2], 0, "stones are not territory");
    assert_eq!(st["to_act"], "W");

    t.ok("W", json!({"type": "done"})).await;
    let st = t.ok("B", json!({"type": "done"})).await;
    assert_eq!(st["phase"], "over");
    assert_eq!(st["result"], "B+4.5");
    assert_eq!(st["ending"], "agreement");
    assert_eq!(st["dead"], json!([[0, 3]]));

    // Nothing more is accepted.
    let answer = t.act("W", json!({"type": "done"})).await;
    assert_eq!(answer["code"], "over");

    // The record: moves, result, and the marking history in comments.
    let (status, sgf) = http(s.addr, "GET", &format!("/api/games/{}/sgf", t.id), None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    let record = goref_sgf::parse(&sgf).unwrap();
    common::record(s.addr, &t.id).await;
    assert_eq!(record.moves.len(), 14);
    assert_eq!(record.result.as_deref(), Some("B+4.5"));
    assert_eq!(record.black_player.as_deref(), Some("Ann"));
    let last = record.moves.last().unwrap().comment.clone().unwrap();
    assert!(last.contains("marking dead stones, Black first"), "{last}");
    assert!(last.contains("Black marks A2 dead: A2"), "{last}");
    assert!(last.contains("White done"), "{last}");
    assert!(
        last.contains("game ends by agreement (tromp protocol): removed A2"),
        "{last}"
    );

    // The list of games shows the result.
    let (_, list) = http(s.addr, "GET", "/api/games", None).await.unwrap();
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    let game = &list["games"][0];
    assert_eq!(game["id"], t.id.as_str());
    assert_eq!(game["result"], "B+4.5");
    assert_eq!(game["moves"], 14);

    // Once everyone has left, the finished game is read back from the store, the same.
    let end = t.state().clone();
    let id = t.id.clone();
    t.black.close().await;
    t.white.close().await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let spectator = Player::connect(s.addr, &id, None).await.unwrap();
    let again = &spectator.state;
    for key in [
        "version", "board", "moves", "result", "ending", "dead", "notes", "score",
    ] {
        assert_eq!(again[key], end[key], "{key}");
    }
}

#[tokio::test]
async fn a_dispute_clears_the_marks_and_two_immediate_passes_score_the_board_as_it_stands() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("tromp")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    t.ok("B", json!({"type": "mark", "x": 0, "y": 3})).await;
    let st = t.ok("W", json!({"type": "dispute", "x": 0, "y": 3})).await;
    assert_eq!(st["phase"], "play");
    assert_eq!(st["marked"], json!([]));
    assert_eq!(st["to_move"], "B", "the first passer moves first");
    // Four passes: the board is scored as it stands, every stone alive.
    t.moves("B", &[PASS, PASS]).await;
    let st = t.state().clone();
    assert_eq!(st["phase"], "over");
    assert_eq!(st["ending"], "four-passes");
    assert_eq!(st["result"], "W+5.5");
    let (_, sgf) = http(s.addr, "GET", &format!("/api/games/{}/sgf", t.id), None)
        .await
        .unwrap();
    let record = goref_sgf::parse(&sgf).unwrap();
    common::record(s.addr, &t.id).await;
    let notes: Vec<String> = record
        .moves
        .iter()
        .filter_map(|m| m.comment.clone())
        .collect();
    let all = notes.join("\n");
    assert!(
        all.contains("White disputes A2: marks cleared, play resumes"),
        "{all}"
    );
    assert!(all.contains("game ends by four-passes"), "{all}");
}

#[tokio::test]
async fn after_a_dispute_play_captures_and_a_second_marking_agrees() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("tromp")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    t.ok("B", json!({"type": "mark", "x": 0, "y": 3})).await;
    t.ok("W", json!({"type": "dispute", "x": 0, "y": 3})).await;
    // Black captures the stone: a3, b2, then a1 takes its last liberty.
    t.moves("B", &[p(0, 2), PASS, p(0, 4), PASS, p(1, 3)]).await;
    let st = t.state().clone();
    assert_eq!(st["captures"]["B"], 1);
    assert_eq!(st["moves"].as_array().unwrap().len(), 19);
    // White passes first this time, so White marks first.
    t.moves("W", &[PASS, PASS]).await;
    let st = t.state().clone();
    assert_eq!(st["phase"], "marking");
    assert_eq!(st["to_act"], "W");
    // A done, then a mark (which cancels the pending done), then two dones.
    t.ok("W", json!({"type": "done"})).await;
    t.ok("B", json!({"type": "mark", "x": 3, "y": 0})).await;
    let st = t.ok("W", json!({"type": "dispute", "x": 3, "y": 4})).await;
    assert_eq!(
        st["phase"], "play",
        "White disputes its own wall being marked"
    );
    // Play resumes with the first passer (White) and more passes score as it stands.
    t.moves("W", &[PASS, PASS]).await;
    let st = t.state().clone();
    assert_eq!(st["phase"], "over");
    assert_eq!(st["ending"], "four-passes");
    // Black: 5 wall + 4 stones + 6 empty = 15; White 10: Black wins by 4.5.
    assert_eq!(st["result"], "B+4.5");
}

#[tokio::test]
async fn done_mark_done_done_agrees_on_the_later_marks() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("tromp")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    t.ok("B", json!({"type": "done"})).await;
    // White marks its own stone dead (a player may give up a string).
    t.ok("W", json!({"type": "mark", "x": 0, "y": 3})).await;
    t.ok("B", json!({"type": "done"})).await;
    let st = t.ok("W", json!({"type": "done"})).await;
    assert_eq!(st["phase"], "over");
    assert_eq!(st["result"], "B+4.5");
}

#[tokio::test]
async fn marking_refusals_change_nothing() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("tromp")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    let before = t.state().clone();
    let v = before["version"].as_u64().unwrap();
    let cases = [
        (
            "W",
            json!({"type": "mark", "x": 0, "y": 3}),
            "refused",
            "it is not your turn",
        ),
        (
            "B",
            json!({"type": "mark", "x": 4, "y": 4}),
            "refused",
            "there is no stone to mark there",
        ),
        (
            "B",
            json!({"type": "dispute", "x": 0, "y": 3}),
            "refused",
            "that string is not marked",
        ),
        (
            "B",
            json!({"type": "play", "x": 4, "y": 4}),
            "wrong_phase",
            "dead stones are being marked",
        ),
        (
            "B",
            json!({"type": "pass"}),
            "wrong_phase",
            "dead stones are being marked",
        ),
        (
            "B",
            json!({"type": "mark", "x": 9, "y": 0}),
            "off_board",
            "off the 5x5 board",
        ),
        (
            "B",
            json!({"type": "dead_list", "points": []}),
            "wrong_phase",
            "marked",
        ),
    ];
    for (side, msg, code, text) in cases {
        let answer = t.act(side, msg.clone()).await;
        assert_eq!(answer["type"], "error", "{msg}");
        assert_eq!(answer["code"], code, "{msg}: {answer}");
        assert!(
            answer["message"].as_str().unwrap().contains(text),
            "{msg}: {answer}"
        );
        assert_eq!(answer["version"], v);
    }
    t.ok("B", json!({"type": "mark", "x": 0, "y": 3})).await;
    let answer = t.act("W", json!({"type": "mark", "x": 0, "y": 3})).await;
    assert_eq!(answer["message"], "that string is already marked");
    // A spectator cannot mark.
    let mut spectator = Player::connect(s.addr, &t.id, None).await.unwrap();
    assert_eq!(spectator.seat, serde_json::Value::Null);
    let answer = spectator
        .act(json!({"type": "done", "version": v + 1}))
        .await
        .unwrap();
    assert_eq!(answer["code"], "spectator");
    let after = t.state().clone();
    assert_eq!(after["version"], v + 1);
    assert_eq!(after["marked"], json!([[0, 3]]));
}

#[tokio::test]
async fn resigning_while_marking_ends_the_game() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("tromp")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    t.ok("B", json!({"type": "mark", "x": 0, "y": 3})).await;
    // Resigning does not wait for one's turn.
    let st = t.ok("B", json!({"type": "resign"})).await;
    assert_eq!(st["phase"], "over");
    assert_eq!(st["result"], "W+R");
    assert_eq!(st["ending"], "resignation");
}

#[tokio::test]
async fn all_alive_ends_at_two_passes() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("all-alive")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    let st = t.state().clone();
    assert_eq!(st["phase"], "over");
    assert_eq!(st["ending"], "all-alive");
    assert_eq!(st["result"], "W+5.5");
    common::record(s.addr, &t.id).await;
}

#[tokio::test]
async fn chinese_lists_agree_or_play_on_until_four_passes() {
    let s = server().await;
    // Equal lists: removed.
    let mut t = table(s.addr, five_by_five("chinese")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    assert_eq!(t.state()["phase"], "dead_lists");
    t.ok("W", json!({"type": "dead_list", "points": [[0, 3]]}))
        .await;
    assert_eq!(t.state()["lists_given"], json!({"B": false, "W": true}));
    let answer = t.act("W", json!({"type": "dead_list", "points": []})).await;
    assert_eq!(answer["code"], "already_sent");
    let st = t
        .ok("B", json!({"type": "dead_list", "points": [[0, 3]]}))
        .await;
    assert_eq!(st["phase"], "over");
    assert_eq!(st["ending"], "agreement");
    assert_eq!(st["result"], "B+4.5");
    common::record(s.addr, &t.id).await;

    // Different lists: play on; two immediate passes make four: all alive.
    let mut t = table(s.addr, five_by_five("chinese")).await;
    t.moves("B", &walls_with_dead_stone()).await;
    t.ok("B", json!({"type": "dead_list", "points": [[0, 3]]}))
        .await;
    let st = t.ok("W", json!({"type": "dead_list", "points": []})).await;
    assert_eq!(st["phase"], "play");
    assert_eq!(st["to_move"], "B");
    t.moves("B", &[PASS, PASS]).await;
    let st = t.state().clone();
    assert_eq!(st["ending"], "four-passes");
    assert_eq!(st["result"], "W+5.5");
    common::record(s.addr, &t.id).await;
}
