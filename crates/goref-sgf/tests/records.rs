//! What a game needs beyond its moves (dates, clocks, territory), replaying a record under the
//! rules, and scoring it with the dead stones its `TB`/`TW` mark.

use goref_rules::{Board, Color, End, Game, Geometry, Komi, Move, Point, Preset, Ruleset};
use goref_sgf::{parse, write, GameRecord, RecordedMove, ReplayError, Territory};

fn point(g: &Geometry, name: &str) -> Point {
    g.parse_point(name).unwrap()
}

fn error(text: &str) -> String {
    parse(text).expect_err(text).to_string()
}

#[test]
fn game_information_clocks_and_territory_are_read() {
    let text = "(;GM[1]SZ[9]DT[2024-05-01]AP[goref:0.1.0]GN[game 3]HA[2]TM[600]OT[5x30 byo-yomi]\
                C[about\nthe game]AB[cc][gg]\n\
                ;W[ee]WL[598.250]OW[5]BL[1]C[W's clock]\n\
                ;B[dd]OB[3]BL[12.5]\n\
                ;W[]TB[aa]TW[bb]\n\
                ;B[]TB[aa:bb]TW[ii])";
    let r = parse(text).unwrap();
    let g = r.geometry().unwrap();
    assert_eq!(r.date.as_deref(), Some("2024-05-01"));
    assert_eq!(r.application.as_deref(), Some("goref:0.1.0"));
    assert_eq!(r.game_name.as_deref(), Some("game 3"));
    assert_eq!(r.comment.as_deref(), Some("about\nthe game"));
    assert_eq!(r.handicap, Some(2));
    assert_eq!(r.main_time, Some(600.0));
    assert_eq!(r.overtime.as_deref(), Some("5x30 byo-yomi"));
    // The mover's clock only: W's node also says BL[1], which is not White's.
    assert_eq!(r.moves[0].time_left, Some(598.25));
    assert_eq!(r.moves[0].periods_left, Some(5));
    assert_eq!(r.moves[0].comment.as_deref(), Some("W's clock"));
    assert_eq!(r.moves[1].time_left, Some(12.5));
    assert_eq!(r.moves[1].periods_left, Some(3));
    assert_eq!(
        (r.moves[2].time_left, r.moves[2].periods_left),
        (None, None)
    );
    // The last node with TB or TW wins; compressed lists are read, in point order.
    assert_eq!(
        r.territory,
        Some(Territory {
            black: vec![
                point(&g, "a9"),
                point(&g, "b9"),
                point(&g, "a8"),
                point(&g, "b8")
            ],
            white: vec![point(&g, "j1")],
        })
    );
}

#[test]
fn a_root_that_holds_a_move_keeps_its_comment_on_the_move() {
    let r = parse("(;SZ[9]B[aa]C[first])").unwrap();
    assert_eq!(r.comment, None);
    assert_eq!(r.moves[0].comment.as_deref(), Some("first"));
}

#[test]
fn real_files_write_ha_0_and_ap_without_a_version() {
    let r = parse("(;SZ[9]HA[0]AP[hand])").unwrap();
    assert_eq!(r.handicap, Some(0));
    assert_eq!(r.application.as_deref(), Some("hand"));
}

#[test]
fn bad_values_are_errors_that_say_where() {
    assert_eq!(
        error("(;SZ[9]\n;B[aa]BL[abc])"),
        "line 2, column 7: BL[abc] is not a number of seconds"
    );
    assert_eq!(
        error("(;SZ[9]HA[-1])"),
        "line 1, column 8: HA[-1] is not a number of handicap stones (a whole number, 0 or more)"
    );
    assert_eq!(
        error("(;SZ[9]TM[-5])"),
        "line 1, column 8: TM[-5] is not a number of seconds (0 or more)"
    );
    assert_eq!(
        error("(;SZ[9]TM[1e3])"),
        "line 1, column 8: TM[1e3] is not a number of seconds (0 or more)"
    );
    assert_eq!(
        error("(;SZ[9]\n;B[aa]\n;W[bb]OW[x])"),
        "line 3, column 7: OW[x] is not a number of periods or stones (a whole number, 0 or more)"
    );
    assert_eq!(
        error("(;SZ[9]\n;B[aa]TB[zz])"),
        "line 2, column 7: TB point zz is off the 9x9 board"
    );
    assert_eq!(
        error("(;SZ[9]\n;B[aa]TB[bb]TW[bb])"),
        "line 2, column 13: point bb is in both TB and TW of one node"
    );
    assert_eq!(
        error("(;SZ[9]\n;B[aa]TW[b])"),
        "line 2, column 7: TW[b] is not a list of points (two letters each, or compressed as \
         ul:lr)"
    );
    assert_eq!(
        error("(;SZ[9]DT[a][b])"),
        "line 1, column 8: DT has 2 values: it takes one"
    );
    assert_eq!(
        error("(;SZ[9]\n;B[aa]BL[1]BL[2])"),
        "line 2, column 12: BL appears twice in one node"
    );
}

#[test]
fn written_text_has_every_field() {
    let mut r = GameRecord::new(3, 2);
    let g = r.geometry().unwrap();
    r.komi = Some(Komi::ZERO);
    r.handicap = Some(0);
    r.main_time = Some(90.5);
    r.overtime = Some("3x10 byo-yomi".into());
    r.rules = Some("tromp-taylor".into());
    r.result = Some("B+6".into());
    r.date = Some("2025-01-02".into());
    r.game_name = Some("g]1".into());
    r.application = Some("goref:0.1.0".into());
    r.comment = Some("two\nlines".into());
    r.moves = vec![
        RecordedMove {
            time_left: Some(88.0),
            periods_left: Some(3),
            ..RecordedMove::new(Color::Black, Move::Play(point(&g, "b1")))
        },
        RecordedMove {
            time_left: Some(1.23456),
            comment: Some("pass".into()),
            ..RecordedMove::new(Color::White, Move::Pass)
        },
    ];
    r.territory = Some(Territory {
        black: vec![point(&g, "a2"), point(&g, "c1")],
        white: vec![],
    });
    let text = write(&r);
    assert_eq!(
        text,
        "(;FF[4]GM[1]CA[UTF-8]SZ[3:2]KM[0]HA[0]TM[90.5]OT[3x10 byo-yomi]RU[tromp-taylor]RE[B+6]\
         DT[2025-01-02]GN[g\\]1]AP[goref:0.1.0]C[two\nlines]\n\
         ;B[bb]BL[88.000]OB[3]\n\
         ;W[]WL[1.235]C[pass]TB[aa][cb]TW[]\n\
         )\n"
    );
    let back = parse(&text).unwrap();
    assert_eq!(back.moves[1].time_left, Some(1.235), "three decimals");
    assert_eq!(back.territory, r.territory);
    assert_eq!(back.comment, r.comment);
    // Without moves, TB/TW go on the root.
    let mut empty = GameRecord::new(2, 2);
    empty.territory = Some(Territory::default());
    assert_eq!(write(&empty), "(;FF[4]GM[1]CA[UTF-8]SZ[2]TB[]TW[]\n)\n");
    assert_eq!(parse(&write(&empty)).unwrap(), empty);
}

#[test]
fn new_and_default_records_are_empty() {
    let r = GameRecord::default();
    assert_eq!((r.width, r.height), (19, 19));
    assert_eq!(r, GameRecord::new(19, 19));
    assert!(r.territory.is_none() && r.date.is_none() && r.main_time.is_none());
    assert_eq!(parse(&write(&r)).unwrap(), r);
}

/// TT rule 5 ("Starting with an empty grid, the players alternate turns, starting with Black")
/// and 001 §3.2 ("The program with the black stones starts the game"): a record whose first
/// move is White's on an empty board, without PL, does not replay, under every preset.
#[test]
fn white_may_not_open_an_empty_board_tt_rule_5() {
    let r = parse("(;SZ[9]\n;W[dd]\n;B[ee])").unwrap();
    for preset in [Preset::TrompTaylor, Preset::Nstt, Preset::Olympiad] {
        let err = r.replay(Ruleset::preset(preset)).unwrap_err();
        assert!(
            matches!(err, ReplayError::WhiteFirst(_)),
            "{preset}: {err:?}"
        );
        assert_eq!(
            err.to_string(),
            "line 2: move 1 (White D6): White may not move first on an empty board \
             (TT rule 5, 001 §3.2) without PL or setup stones"
        );
        assert_eq!(err.at().map(|at| at.number), Some(1));
    }
    // Handicap stones, or PL, say White moves first.
    let handicap = parse("(;SZ[9]HA[2]AB[cc][gg]\n;W[ee]\n;B[dd])").unwrap();
    assert_eq!(
        handicap
            .replay(Ruleset::TROMP_TAYLOR)
            .unwrap()
            .moves()
            .len(),
        2
    );
    let pl = parse("(;SZ[9]PL[W]\n;W[ee])").unwrap();
    assert_eq!(pl.replay(Ruleset::TROMP_TAYLOR).unwrap().moves().len(), 1);
    // White passing first is still White moving first.
    let pass = parse("(;SZ[9]\n;W[])").unwrap();
    assert!(matches!(
        pass.replay(Ruleset::TROMP_TAYLOR),
        Err(ReplayError::WhiteFirst(_))
    ));
}

#[test]
fn replay_errors_name_the_line_the_move_and_why() {
    let r = parse("(;SZ[5]\n;B[cc]\n;B[dd])").unwrap();
    let err = r.replay(Ruleset::TROMP_TAYLOR).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 3: move 2 (Black D2) is out of turn: it is White's turn"
    );
    // Reference 004, rule 7 example: 4.W[a1] is suicide, illegal under NSTT only.
    let r = parse("(;SZ[3:2]\n;B[bb]\n;W[aa]\n;B[ba]\n;W[ab])").unwrap();
    let err = r.replay(Ruleset::NSTT).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 5: move 4 (White A1) is illegal: suicide"
    );
    assert!(r.replay(Ruleset::TROMP_TAYLOR).is_ok());
    // A record built in memory with a move off its board.
    let mut r = GameRecord::new(2, 2);
    r.moves
        .push(RecordedMove::new(Color::Black, Move::Play(Point::new(9))));
    assert!(matches!(
        r.replay(Ruleset::TROMP_TAYLOR),
        Err(ReplayError::Setup(_))
    ));
}

/// Play after two passes is a resumption (001 §3.7.4): Black passed first, so Black moves
/// first again.
#[test]
fn play_after_two_passes_is_a_resumption() {
    let r = parse("(;SZ[3:2]KM[0];B[bb];W[aa];B[];W[];B[ba];W[];B[])").unwrap();
    let game = r.replay(Ruleset::NSTT).unwrap();
    assert_eq!(game.end(), Some(End::TwoPasses));
    assert_eq!(game.moves().len(), 7);
}

/// A game on 5×5, komi 0.5, after two passes: Black's wall on column c, White's on d, a white
/// stone at a2 inside Black's side and a black stone at e2 inside White's.
fn finished_game() -> Game {
    let mut game = Game::rect(
        5,
        5,
        Ruleset::TROMP_TAYLOR.with_komi(Komi::from_half_points(1)),
    )
    .unwrap();
    let g = game.geometry().clone();
    for name in [
        "c1", "d1", "c2", "d2", "c3", "d3", "c4", "d4", "c5", "d5", "e2", "a2", "pass", "pass",
    ] {
        let mv = if name == "pass" {
            Move::Pass
        } else {
            Move::Play(g.parse_point(name).unwrap())
        };
        game.play(mv).unwrap();
    }
    game
}

/// TT rule 9: a record that writes its dead stones as TB/TW scores, read back, to its RE.
#[test]
fn a_written_territory_scores_back_to_the_result_tt_rule_9() {
    let game = finished_game();
    let g = game.geometry().clone();
    let dead = [g.parse_point("a2").unwrap(), g.parse_point("e2").unwrap()];
    let cleared = game.board().without(&dead);
    let goref_rules::ByColor { black, white } = cleared.area();
    assert_eq!((black, white), (15, 10));
    let result = goref_rules::Score {
        black,
        white,
        komi: game.rules().komi,
    }
    .outcome()
    .to_sgf();
    assert_eq!(result, "B+4.5");

    let mut record = GameRecord::new(5, 5);
    record.komi = Some(game.rules().komi);
    record.result = Some(result.clone());
    record.moves = game
        .moves()
        .iter()
        .map(|&(c, mv)| RecordedMove::new(c, mv))
        .collect();
    record.territory = Some(Territory::of(game.board(), &dead));
    let territory = record.territory.as_ref().unwrap();
    // Each side's territory includes the point of the stone removed from it.
    assert!(territory.black.contains(&dead[0]));
    assert!(territory.white.contains(&dead[1]));
    assert_eq!(
        territory.black.len() + 5,
        15,
        "columns a and b, and Black's 5 stones"
    );
    assert_eq!(
        territory.white.len() + 5,
        10,
        "column e, and White's 5 stones"
    );

    let back = parse(&write(&record)).unwrap();
    let replayed = back
        .replay(Ruleset::TROMP_TAYLOR.with_komi(back.komi.unwrap()))
        .unwrap();
    assert_eq!(back.removed_stones(replayed.board()), dead.to_vec());
    let scored = back.final_score(&replayed).unwrap();
    assert_eq!(scored.removed, dead.to_vec());
    assert_eq!(scored.score.outcome().to_sgf(), result);
    // All stones alive, both sides' areas are neutral: 6 stones each, White wins by komi.
    assert_eq!(replayed.outcome().to_sgf(), "W+0.5");
}

#[test]
fn without_two_passes_there_is_no_final_score() {
    let mut game = finished_game();
    let mut record = GameRecord::new(5, 5);
    record.territory = Some(Territory::of(game.board(), &[]));
    assert!(record.final_score(&game).is_some());
    game.end_by(End::Resignation { by: Color::Black });
    assert_eq!(record.final_score(&game), None);
    // No territory: nothing removed, the board as it stands.
    let plain = GameRecord::new(5, 5);
    let game = finished_game();
    assert!(plain.removed_stones(game.board()).is_empty());
    let scored = plain.final_score(&game).unwrap();
    assert_eq!(scored.score, game.score());
    assert!(scored.removed.is_empty());
}

#[test]
fn removed_stones_are_stones_on_the_other_sides_territory() {
    let board = Board::from_ascii(&["OX.", ".XO"]).unwrap();
    let g = board.geometry().clone();
    let mut record = GameRecord::new(3, 2);
    record.territory = Some(Territory {
        // a2 (White) on Black's territory: dead. b2 (Black) on Black's: not dead.
        black: vec![point(&g, "a2"), point(&g, "b2"), point(&g, "c2")],
        // c1 (White) on White's territory: not dead.
        white: vec![point(&g, "c1")],
    });
    assert_eq!(record.removed_stones(&board), vec![point(&g, "a2")]);
    // Off-board points from a record built in memory are skipped.
    record
        .territory
        .as_mut()
        .unwrap()
        .black
        .push(Point::new(40));
    assert_eq!(record.removed_stones(&board), vec![point(&g, "a2")]);
}

/// Reading is linear in the size of the text: deep nesting neither overflows the stack nor
/// takes quadratic time (every node is on the first line here, where counting columns for
/// each move used to be quadratic).
#[test]
fn fifty_thousand_nested_variations_read() {
    let depth = 50_000;
    let mut text = String::from("(;GM[1]SZ[19]");
    for i in 0..depth {
        text.push_str(if i % 2 == 0 { "(;B[aa]" } else { "(;W[bb]" });
    }
    text.push_str(&")".repeat(depth + 1));
    let r = parse(&text).unwrap();
    assert_eq!(r.moves.len(), depth);
    assert!(r.moves.iter().all(|m| m.line == 1));
    assert_eq!(r.moves[depth - 1].color, Color::White);
}
