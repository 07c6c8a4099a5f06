//! Play over real connections: illegal moves with the rules' reasons, bad input refused with
//! nothing changed, reconnection, spectators, clocks, restart from the database.

mod common;

use common::*;
use goref_rules::{Game, Illegal, Move, Ruleset};
use goref_server::client::{create_game, http, Player};
use goref_server::Options;
use serde_json::{json, Value};

fn xy(game: &Game, m: Move) -> Option<(usize, usize)> {
    match m {
        Move::Pass => None,
        Move::Play(p) => game.geometry().coords(p),
    }
}

type Xy = Option<(usize, usize)>;

/// Random legal games (seeded) until the player to move has a move illegal for `want`;
/// returns the moves before it and the illegal point.
fn find(rules: Ruleset, size: usize, want: fn(Illegal) -> bool) -> (Vec<Xy>, (usize, usize)) {
    let mut seed: u64 = 0x9E37_79B9;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize
    };
    for _ in 0..10_000 {
        let mut game = Game::rect(size, size, rules).unwrap();
        let mut played = Vec::new();
        for _ in 0..60 {
            if game.is_over() {
                break;
            }
            for p in game.geometry().points() {
                if let Err(reason) = game.legality(Move::Play(p)) {
                    if want(reason) {
                        return (played, game.geometry().coords(p).unwrap());
                    }
                }
            }
            let legal: Vec<Move> = game
                .legal_moves()
                .into_iter()
                .filter(|&m| m != Move::Pass)
                .collect();
            if legal.is_empty() {
                break;
            }
            let m = legal[next() % legal.len()];
            played.push(xy(&game, m));
            game.play(m).unwrap();
        }
    }
    panic!("no position found");
}

async fn refused_with(
    rules: &str,
    size: usize,
    moves: &[Option<(usize, usize)>],
    at: (usize, usize),
) -> Value {
    let s = server().await;
    let mut t = table(
        s.addr,
        json!({"width": size, "height": size, "rules": rules, "komi": 0}),
    )
    .await;
    t.moves("B", moves).await;
    let side = if moves.len().is_multiple_of(2) {
        "B"
    } else {
        "W"
    };
    let v = t.sync().await;
    let answer = t
        .act(side, json!({"type": "play", "x": at.0, "y": at.1}))
        .await;
    assert_eq!(answer["type"], "error");
    assert_eq!(answer["version"], v, "nothing changed");
    assert_eq!(t.state()["version"], v);
    answer
}

#[tokio::test]
async fn illegal_moves_are_refused_with_the_rules_reason() {
    // Occupied.
    let answer = refused_with("tromp-taylor", 5, &[p(2, 2)], (2, 2)).await;
    assert_eq!(answer["code"], "illegal");
    assert_eq!(answer["message"], "C3 is illegal: occupied");

    // Suicide under NSTT (on 2×2: Black a1 and b2; White b1 has no liberty).
    let answer = refused_with("nstt", 2, &[p(0, 1), PASS, p(1, 0)], (1, 1)).await;
    assert_eq!(answer["message"], "B1 is illegal: suicide");

    // Reference 004, rule 6: on 2×2 Black may not recreate the position after move 1.
    let superko = [p(0, 0), p(1, 0), p(0, 1), p(1, 1), p(0, 0), p(0, 1)];
    let answer = refused_with("tromp-taylor", 2, &superko, (0, 0)).await;
    assert_eq!(
        answer["message"],
        "A2 is illegal: superko: repeats the position after move 1"
    );

    // Basic ko under the Olympiad rules, found by a seeded search on 4×4.
    let (moves, at) = find(Ruleset::OLYMPIAD, 4, |r| matches!(r, Illegal::Ko { .. }));
    let answer = refused_with("olympiad", 4, &moves, at).await;
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .ends_with("is illegal: ko: immediate recapture"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_long_cycle_ends_the_game_under_olympiad_rules() {
    // The same 2×2 sequence: under the Olympiad rules the seventh move is legal, recreates the
    // position after move 1, and ends the game; captures since then are 3 each: a draw.
    let s = server().await;
    let mut t = table(
        s.addr,
        json!({"width": 2, "height": 2, "rules": "olympiad", "komi": 0}),
    )
    .await;
    t.moves(
        "B",
        &[
            p(0, 0),
            p(1, 0),
            p(0, 1),
            p(1, 1),
            p(0, 0),
            p(0, 1),
            p(0, 0),
        ],
    )
    .await;
    let st = t.state().clone();
    assert_eq!(st["phase"], "over");
    assert_eq!(st["ending"], "long-cycle");
    assert_eq!(st["result"], "0");
    let notes = st["notes"].to_string();
    assert!(notes.contains("long cycle"), "{notes}");
    record(s.addr, &t.id).await;
}

#[tokio::test]
async fn bad_input_is_refused_and_changes_nothing() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("tromp")).await;
    t.moves("B", &[p(2, 2), p(3, 3)]).await;
    let before = t.state().clone();
    let v = before["version"].as_u64().unwrap();

    let expect = |answer: Value, code: &str| {
        assert_eq!(answer["type"], "error", "{answer}");
        assert_eq!(answer["code"], code, "{answer}");
        assert_eq!(answer["version"], v, "{answer}");
    };
    let b = &mut t.black;
    b.send_text("{not json").await.unwrap();
    expect(b.answer().await.unwrap(), "malformed");
    b.send_text(&json!({"type": "play", "x": 1, "y": 1, "version": v, "sneaky": 1}).to_string())
        .await
        .unwrap();
    expect(b.answer().await.unwrap(), "malformed");
    b.send_text(&json!({"type": "teleport", "version": v}).to_string())
        .await
        .unwrap();
    expect(b.answer().await.unwrap(), "malformed");
    b.send_text(&json!({"type": "play", "x": 1, "version": v}).to_string())
        .await
        .unwrap();
    expect(b.answer().await.unwrap(), "malformed");
    b.send_text(&json!({"type": "play", "x": -1, "y": 0, "version": v}).to_string())
        .await
        .unwrap();
    expect(b.answer().await.unwrap(), "malformed");
    // No version: refused.
    b.send_text(&json!({"type": "play", "x": 1, "y": 1}).to_string())
        .await
        .unwrap();
    expect(b.answer().await.unwrap(), "malformed");
    // Oversized.
    let big = json!({"type": "play", "x": 1, "y": 1, "version": v, "id": "x".repeat(5000)});
    b.send_text(&big.to_string()).await.unwrap();
    expect(b.answer().await.unwrap(), "too_large");
    b.send_binary(vec![1, 2, 3]).await.unwrap();
    expect(b.answer().await.unwrap(), "malformed");
    // A replay of an old message (version from before the last two moves).
    let answer = b
        .act(json!({"type": "play", "x": 1, "y": 1, "version": v - 2}))
        .await
        .unwrap();
    expect(answer.clone(), "stale");
    assert!(answer["message"]
        .as_str()
        .unwrap()
        .contains("old or repeated"));
    // Out of turn: White's link while Black is to move.
    let answer = t
        .white
        .act(json!({"type": "play", "x": 1, "y": 1}))
        .await
        .unwrap();
    expect(answer, "not_your_turn");
    // A spectator.
    let mut spectator = Player::connect(s.addr, &t.id, None).await.unwrap();
    let answer = spectator
        .act(json!({"type": "play", "x": 1, "y": 1}))
        .await
        .unwrap();
    expect(answer, "spectator");
    let answer = spectator.act(json!({"type": "resign"})).await.unwrap();
    expect(answer, "spectator");
    // The connection still works after all that, and nothing changed.
    let (status, body) = http(s.addr, "GET", &format!("/api/games/{}", t.id), None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    let now: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(now["version"], v);
    assert_eq!(now["board"], before["board"]);
    let answer = t
        .black
        .act(json!({"type": "play", "x": 1, "y": 1}))
        .await
        .unwrap();
    assert_eq!(answer["type"], "ack");
    // Replaying that very message is refused.
    let answer = t
        .black
        .act(json!({"type": "play", "x": 1, "y": 1, "version": v}))
        .await
        .unwrap();
    assert_eq!(answer["code"], "stale");

    // A wrong seat secret is refused before the connection opens.
    let err = Player::connect(s.addr, &t.id, Some("00112233445566778899aabbccddeeff"))
        .await
        .err()
        .unwrap();
    assert!(err.to_string().contains("403"), "{err}");
    // Unknown game.
    let (status, _) = http(s.addr, "GET", "/api/games/nosuchgame", None)
        .await
        .unwrap();
    assert_eq!(status, 404);
    let (status, _) = http(s.addr, "GET", "/api/games/..%2F..%2Fetc", None)
        .await
        .unwrap();
    assert_eq!(status, 404);
}

#[tokio::test]
async fn bad_games_are_refused() {
    let s = server().await;
    for (request, text) in [
        (json!({"width": 1, "height": 5}), "sides must be 2 to 25"),
        (json!({"width": 26}), "sides must be 2 to 25"),
        (json!({"komi": 7.25}), "multiple of 0.5"),
        (json!({"rules": "japanese"}), "unknown rules"),
        (json!({"end": "nonsense"}), "unknown variant"),
        (json!({"handicap": 10}), "2 to 9"),
        (json!({"width": 6, "handicap": 2}), "fixed handicap"),
        (json!({"black": "x".repeat(41)}), "at most 40"),
        (json!({"black": "a\u{7}b"}), "control"),
        (
            json!({"time": {"kind": "sudden_death", "main_s": 0}}),
            "above 0",
        ),
        (
            json!({"time": {"kind": "fischer", "main_s": 60}}),
            "missing field",
        ),
        (json!({"size": 9}), "unknown field"),
    ] {
        let (status, body) = http(s.addr, "POST", "/api/games", Some(&request.to_string()))
            .await
            .unwrap();
        assert_eq!(status, 400, "{request}: {body}");
        assert!(body.contains(text), "{request}: {body}");
    }
    let (status, _) = http(s.addr, "POST", "/api/games", Some("{")).await.unwrap();
    assert_eq!(status, 400);
    let huge = format!("{{\"black\": \"{}\"}}", "x".repeat(40_000));
    let (status, _) = http(s.addr, "POST", "/api/games", Some(&huge))
        .await
        .unwrap();
    assert_eq!(status, 413);
    let (_, list) = http(s.addr, "GET", "/api/games", None).await.unwrap();
    assert_eq!(list, r#"{"games":[]}"#);
    // Rectangular boards are fine; text is kept as given (the page escapes it).
    let created = create_game(
        s.addr,
        &json!({"width": 7, "height": 3, "black": "<b>bold</b>", "white": "\"quoted\" & more"}),
    )
    .await
    .unwrap();
    let id = created["id"].as_str().unwrap();
    let spectator = Player::connect(s.addr, id, None).await.unwrap();
    assert_eq!(spectator.state["config"]["black"], "<b>bold</b>");
    assert_eq!(spectator.state["board"].as_array().unwrap().len(), 3);
    assert_eq!(spectator.state["board"][0].as_array().unwrap().len(), 7);
}

#[tokio::test]
async fn reconnecting_players_and_spectators_get_the_whole_state_live() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("tromp")).await;
    let mut spectator = Player::connect(s.addr, &t.id, None).await.unwrap();
    t.moves("B", &[p(2, 2), p(3, 3), p(1, 1)]).await;
    let v = t.sync().await;
    // Everyone sees who is connected.
    let presence = loop {
        let m = spectator.recv().await.unwrap();
        if m["type"] == "presence" && m["spectators"] == 1 {
            break m;
        }
    };
    assert_eq!(
        (presence["B"].as_u64(), presence["W"].as_u64()),
        (Some(1), Some(1))
    );
    // The spectator saw every move as it happened.
    let seen = spectator.wait_version(v).await.unwrap();
    assert_eq!(seen["moves"].as_array().unwrap().len(), 3);
    assert_eq!(seen["board"][2][2], 1);
    assert_eq!(seen["board"][3][3], -1);
    // White reconnects with the same link and gets everything back.
    let secret = t.created["white"]["secret"].as_str().unwrap().to_string();
    let old = std::mem::replace(
        &mut t.white,
        Player::connect(s.addr, &t.id, Some(&secret)).await.unwrap(),
    );
    old.close().await;
    assert_eq!(t.white.seat, "W");
    assert_eq!(t.white.state["version"], v);
    assert_eq!(t.white.state["moves"], seen["moves"]);
    assert_eq!(t.white.state["to_move"], "W");
    t.moves("W", &[p(0, 0)]).await;
    let seen = spectator.wait_version(v + 1).await.unwrap();
    assert_eq!(seen["moves"][3]["name"], "A5");
}

/// A player that asked for changes (`?changes=1`) keeps, by applying them, the same state as
/// one that gets the whole state after every move: through captures, a ko, passes, a
/// reconnection in the middle, and the end of the play phase (sent whole).
#[tokio::test]
async fn changes_applied_give_the_whole_state_after_every_move() {
    let s = server().await;
    let mut t = table(s.addr, five_by_five("tromp")).await;
    let secret = t.created["black"]["secret"].as_str().unwrap().to_string();
    let old = std::mem::replace(
        &mut t.black,
        Player::connect_changes(s.addr, &t.id, Some(&secret))
            .await
            .unwrap(),
    );
    old.close().await;
    let mut spectator = Player::connect(s.addr, &t.id, None).await.unwrap();
    // White's stone at (1, 1) is captured; a ko at (2, 1); then passes to the end.
    let moves = [
        p(1, 0),
        p(1, 1),
        p(0, 1),
        p(2, 1),
        p(1, 2),
        p(3, 3),
        p(2, 0),
        p(4, 4),
        p(3, 1),
        None,
        None,
    ];
    let mut side = "B";
    for (i, m) in moves.iter().enumerate() {
        let msg = match m {
            Some((x, y)) => json!({"type": "play", "x": x, "y": y}),
            None => json!({"type": "pass"}),
        };
        t.ok(side, msg).await;
        side = if side == "B" { "W" } else { "B" };
        let v = t.sync().await;
        let whole = spectator.wait_version(v).await.unwrap();
        assert_eq!(t.black.state, whole, "after move {i}");
        if i == 4 {
            // Connected again mid-game: the whole state, then changes again.
            let old = std::mem::replace(
                &mut t.black,
                Player::connect_changes(s.addr, &t.id, Some(&secret))
                    .await
                    .unwrap(),
            );
            old.close().await;
        }
    }
    // Two passes end the play phase (here in marking): sent whole, and the same.
    assert_eq!(t.black.state["phase"], "marking");
    assert!(
        t.black.changes_applied >= 5,
        "{} changes",
        t.black.changes_applied
    );
}

#[tokio::test]
async fn fischer_clocks_are_kept_by_the_server() {
    let s = server().await;
    let mut t = table(
        s.addr,
        json!({"width": 5, "height": 5, "time": {"kind": "fischer", "main_s": 60, "increment_s": 5}}),
    )
    .await;
    // Before Black's first move no clock runs.
    assert_eq!(t.state()["clocks"]["running"], Value::Null);
    t.moves("B", &[p(2, 2)]).await;
    let st = t.state().clone();
    assert_eq!(st["clocks"]["running"], "W");
    assert_eq!(
        st["clocks"]["B"]["main_ms"], 60_000,
        "Black's first move is not timed"
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    t.moves("W", &[p(3, 3)]).await;
    let st = t.state().clone();
    let w = st["clocks"]["W"]["main_ms"].as_u64().unwrap();
    assert!(
        (62_000..=64_700).contains(&w),
        "White used about 0.3 s, plus 5: {w}"
    );
    assert_eq!(st["clocks"]["running"], "B");
    t.moves("B", &[p(1, 1)]).await;
    let b = t.state()["clocks"]["B"]["main_ms"].as_u64().unwrap();
    assert!((62_000..=65_000).contains(&b), "{b}");
}

#[tokio::test]
async fn the_server_flags_a_player_out_of_time() {
    let s = server_with(Options {
        lag_allowance_ms: 100,
        ..Options::default()
    })
    .await;
    let mut t = table(
        s.addr,
        json!({"width": 5, "height": 5, "time": {"kind": "sudden_death", "main_s": 1}}),
    )
    .await;
    t.moves("B", &[p(2, 2)]).await;
    let v = t.sync().await;
    // White never answers: flagged after 1 s plus the lag allowance.
    let st = t.black.wait_version(v + 1).await.unwrap();
    assert_eq!(st["phase"], "over");
    assert_eq!(st["result"], "B+T");
    assert_eq!(st["ending"], "time");
    assert_eq!(st["clocks"]["W"]["main_ms"], 0);
    let answer = t.act("W", json!({"type": "play", "x": 0, "y": 0})).await;
    assert_eq!(answer["code"], "over");
}

#[tokio::test]
async fn a_restarted_server_resumes_unfinished_games_from_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("goref.db");
    let (addr, task) = server_at(&db, Options::default()).await;
    let mut t = table(
        addr,
        json!({"width": 9, "height": 9, "time": {"kind": "fischer", "main_s": 600, "increment_s": 0}}),
    )
    .await;
    t.moves("B", &[p(2, 2), p(6, 6), p(2, 6)]).await;
    let v = t.sync().await;
    let before = t.state().clone();
    let created = t.created.clone();
    task.abort();
    let _ = task.await;
    drop(t);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;

    let (addr, _task) = server_at(&db, Options::default()).await;
    let id = created["id"].as_str().unwrap();
    let mut white = Player::connect(addr, id, created["white"]["secret"].as_str())
        .await
        .unwrap();
    // The moves, then the resume of the clocks at the restart (in the background).
    let st = white.wait_version(v + 1).await.unwrap();
    assert_eq!(st["version"], v + 1);
    assert_eq!(st["board"], before["board"]);
    assert_eq!(st["moves"], before["moves"]);
    // Clocks as at the last stored move: the time the server was down is not charged.
    assert_eq!(st["clocks"]["B"], before["clocks"]["B"]);
    let w_before = before["clocks"]["W"]["main_ms"].as_u64().unwrap();
    let w_now = st["clocks"]["W"]["main_ms"].as_u64().unwrap();
    assert!(w_before.abs_diff(w_now) < 1_500, "{w_before} {w_now}");
    assert!(white
        .must(json!({"type": "play", "x": 6, "y": 2}))
        .await
        .is_ok());
}

#[tokio::test]
async fn a_flood_of_messages_is_rate_limited() {
    let s = server_with(Options {
        messages_per_second: 5,
        ..Options::default()
    })
    .await;
    let mut t = table(s.addr, five_by_five("tromp")).await;
    let mut codes = Vec::new();
    for _ in 0..30 {
        t.black.send_text(r#"{"type":"sync"}"#).await.unwrap();
    }
    while codes.len() < 30 {
        let v = t.black.recv().await.unwrap();
        if v["type"] == "state" || v["type"] == "error" {
            codes.push(v["code"].as_str().unwrap_or("").to_string());
        }
    }
    let limited = codes.iter().filter(|c| *c == "rate_limited").count();
    assert!(
        (10..=20).contains(&limited),
        "{limited} of 30 refused: {codes:?}"
    );
    // Later, messages are accepted again.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    t.black
        .must(json!({"type": "play", "x": 0, "y": 0}))
        .await
        .unwrap();
}
