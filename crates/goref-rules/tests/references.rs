//! The worked examples of the reference texts, replayed.

use goref_rules::{
    Board, ByColor, Color, End, Game, Illegal, KoRule, Move, Outcome, Ruleset, WinBy,
};

/// Plays moves given by name (`"a2"`, `"pass"`) for alternating players.
fn play(game: &mut Game, moves: &[&str]) {
    for name in moves {
        let mv = parse(game, name);
        game.play(mv)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", game.board().to_ascii()));
    }
}

fn parse(game: &Game, name: &str) -> Move {
    if name == "pass" {
        Move::Pass
    } else {
        Move::Play(game.geometry().parse_point(name).expect("point name"))
    }
}

/// A position drawn row by row from the top: `X` black, `O` white, `.` empty.
fn position(rows: &[&str]) -> Board {
    Board::from_ascii(rows).unwrap()
}

/// Reference 004, rules 6 and 10: the 2×2 game 1.B[a2] 2.W[b2] 3.B[a1] 4.W[b1] 5.B[a2] 6.W[a1]
/// (the text prints move 4 as "B[b1]"; players alternate by rule 5, so it is White's).
/// 7.B[a2] would capture the white chain and recreate the position after move 1: illegal by
/// positional superko. Black has no other play, passes; White passes; White wins by 4.
#[test]
fn tt_rule_6_superko_and_rule_10_white_wins_by_4_on_2x2() {
    let mut game = Game::rect(2, 2, Ruleset::TROMP_TAYLOR).unwrap();
    play(&mut game, &["a2", "b2", "a1", "b1", "a2", "a1"]);
    assert_eq!(
        game.legality(parse(&game, "a2")),
        Err(Illegal::Superko {
            repeats_after_turns: 1
        })
    );
    assert_eq!(
        game.legal_moves(),
        vec![Move::Pass],
        "Black's only move is a pass"
    );
    play(&mut game, &["pass", "pass"]);
    assert_eq!(game.end(), Some(End::TwoPasses));
    let score = game.score();
    assert_eq!(
        (score.black, score.white),
        (0, 4),
        "W: 3 stones + 1 territory"
    );
    assert_eq!(game.outcome().to_sgf(), "W+4");
}

/// Reference 004, rule 7 example, on the 3×2 board: after 1.B[b1] 2.W[a2] 3.B[b2], 4.W[a1] is
/// suicide. Tromp-Taylor allows it (the white chain {a1, a2} is removed); NSTT forbids it, and
/// White's only options are c1, c2 or a pass.
#[test]
fn tt_rule_7_suicide_allowed_but_illegal_under_nstt() {
    let moves = ["b1", "a2", "b2"];
    let mut tt = Game::rect(3, 2, Ruleset::TROMP_TAYLOR).unwrap();
    play(&mut tt, &moves);
    let played = tt.play(parse(&tt, "a1")).unwrap();
    assert_eq!((played.captured, played.suicided), (0, 2));
    assert_eq!(tt.board().stone_count(Color::White), 0);

    let mut nstt = Game::rect(3, 2, Ruleset::NSTT).unwrap();
    play(&mut nstt, &moves);
    assert_eq!(nstt.legality(parse(&nstt, "a1")), Err(Illegal::Suicide));
    let options: Vec<Move> = ["c2", "c1", "pass"]
        .iter()
        .map(|n| parse(&nstt, n))
        .collect();
    assert_eq!(nstt.legal_moves(), options);
}

/// Reference 004, rule 9 example: the same game ending with two passes scores Black 2 stones + 2
/// territory against White's 1 stone: Black wins by 3. If the white stone at a2 is agreed dead,
/// Black wins by 6.
#[test]
fn tt_rule_9_area_score_b_plus_3_or_6_with_a2_dead() {
    let mut game = Game::rect(3, 2, Ruleset::NSTT).unwrap();
    play(&mut game, &["b1", "a2", "b2", "pass", "pass"]);
    let score = game.score();
    assert_eq!((score.black, score.white), (4, 1));
    assert_eq!(game.outcome().to_sgf(), "B+3");

    let without_a2 = position(&[".X.", ".X."]);
    assert_eq!(without_a2.area(), ByColor::new(6, 0));
}

/// Reference 002, "5x5 test case 1" (after Ing): after B6 and W7 pass, Tromp-Taylor counts White
/// 11 stones + 1 point = 12 against Black's 8: White wins by 4. (The diagrams are not in our
/// copy of the text; this position has exactly the counts it states.)
#[test]
fn reference_002_5x5_ing_example_white_wins_by_4() {
    let board = position(&["OOOX.", "O.OXX", "OOOXX", "OOOXX", "....."]);
    assert_eq!(board.stone_count(Color::White), 11);
    assert_eq!(board.area(), ByColor::new(8, 12));
    let game = Game::from_position(board, Color::Black, Ruleset::TROMP_TAYLOR);
    assert_eq!(game.outcome().to_sgf(), "W+4");
}

/// On 1×1 the only play is suicide of a single stone, which recreates the empty grid: illegal
/// by TT rule 6 (superko), and by Olympiad 3.5 (suicide). The game is two passes, a tie.
#[test]
fn one_by_one_board_allows_only_passes() {
    let mut tt = Game::rect(1, 1, Ruleset::TROMP_TAYLOR).unwrap();
    assert_eq!(
        tt.legality(parse(&tt, "a1")),
        Err(Illegal::Superko {
            repeats_after_turns: 0
        })
    );
    let mut olympiad = Game::rect(1, 1, Ruleset::OLYMPIAD.with_komi(Default::default())).unwrap();
    assert_eq!(
        olympiad.legality(parse(&olympiad, "a1")),
        Err(Illegal::Suicide)
    );
    play(&mut tt, &["pass", "pass"]);
    play(&mut olympiad, &["pass", "pass"]);
    assert_eq!(tt.outcome(), Outcome::Draw);
    assert_eq!(olympiad.outcome(), Outcome::Draw);
    assert_eq!(tt.legality(Move::Pass), Err(Illegal::GameOver));
}

/// A ko on 4×3: Black c2 captures the white stone at b2 and is itself a single stone in atari.
fn ko_game(rules: Ruleset) -> Game {
    let board = position(&[".XO.", "XO.O", ".XO."]);
    let mut game = Game::from_position(board, Color::Black, rules);
    play(&mut game, &["c2"]);
    game
}

/// Olympiad 3.5: White may not recapture at once. Footnote 2: two passes do not lift the ban;
/// only an intervening play does.
#[test]
fn olympiad_3_5_basic_ko_survives_two_passes() {
    let mut game = ko_game(Ruleset::OLYMPIAD);
    let b2 = game.geometry().parse_point("b2").unwrap();
    assert_eq!(
        game.legality(Move::Play(b2)),
        Err(Illegal::Ko { point: b2 })
    );
    play(&mut game, &["pass", "pass"]);
    assert_eq!(game.end(), Some(End::TwoPasses));
    game.resume();
    assert_eq!(
        game.to_move(),
        Color::White,
        "the player who passed first moves first"
    );
    assert_eq!(
        game.legality(Move::Play(b2)),
        Err(Illegal::Ko { point: b2 })
    );
    play(&mut game, &["d3", "a3"]);
    assert_eq!(game.legality(Move::Play(b2)), Ok(()), "a play intervened");
}

/// Simple ko: any turn, a pass included, lifts the ban.
#[test]
fn simple_ko_is_lifted_by_a_pass() {
    let rules = Ruleset {
        ko: KoRule::Simple,
        ..Ruleset::NSTT
    };
    let mut game = ko_game(rules);
    let b2 = game.geometry().parse_point("b2").unwrap();
    assert_eq!(
        game.legality(Move::Play(b2)),
        Err(Illegal::Ko { point: b2 })
    );
    play(&mut game, &["pass", "a3"]);
    assert_eq!(game.legality(Move::Play(b2)), Ok(()));
}

/// Olympiad 3.6.1: on 3×2, 10.W[b2] recreates the position after move 3; between the two
/// occurrences Black captured 4 stones and White 3, so Black wins.
#[test]
fn olympiad_3_6_long_cycle_won_by_the_side_that_captured_more() {
    let mut game = Game::rect(3, 2, Ruleset::OLYMPIAD).unwrap();
    play(
        &mut game,
        &["a2", "b2", "a1", "c2", "b1", "c1", "a2", "b1", "a1", "b2"],
    );
    assert_eq!(
        game.end(),
        Some(End::LongCycle {
            first_after_turns: 3,
            captures: ByColor::new(4, 3)
        })
    );
    assert_eq!(
        game.outcome(),
        Outcome::Win {
            winner: Color::Black,
            by: WinBy::LongCycle {
                captures: ByColor::new(4, 3)
            }
        }
    );
    assert_eq!(game.outcome().to_sgf(), "B+");
}

/// Olympiad 3.6.2: equal captures between the occurrences make the game a draw.
#[test]
fn olympiad_3_6_long_cycle_with_equal_captures_is_a_draw() {
    let mut game = Game::rect(3, 2, Ruleset::OLYMPIAD).unwrap();
    play(
        &mut game,
        &["a2", "a1", "b1", "b2", "a1", "c1", "a2", "c2", "b1"],
    );
    assert_eq!(
        game.end(),
        Some(End::LongCycle {
            first_after_turns: 3,
            captures: ByColor::new(3, 3)
        })
    );
    assert_eq!(game.outcome(), Outcome::Draw);
    assert_eq!(game.outcome().to_sgf(), "0");
    assert_eq!(game.legality(Move::Pass), Err(Illegal::GameOver));
}

/// The same cycle is simply illegal under positional superko (TT rule 6).
#[test]
fn the_cycle_is_illegal_under_positional_superko() {
    let mut game = Game::rect(3, 2, Ruleset::NSTT).unwrap();
    play(&mut game, &["a2", "a1", "b1", "b2", "a1", "c1", "a2", "c2"]);
    assert_eq!(
        game.legality(parse(&game, "b1")),
        Err(Illegal::Superko {
            repeats_after_turns: 3
        })
    );
}

/// Situational superko (reference 002: NZ rules) forbids a colouring only with the same player
/// to move: the 2×2 superko game, once as in 004 and once shifted by an opening pass.
#[test]
fn situational_superko_depends_on_the_player_to_move() {
    let ssk = Ruleset {
        ko: KoRule::SituationalSuperko,
        ..Ruleset::NSTT
    };
    let mut game = Game::rect(2, 2, ssk).unwrap();
    play(&mut game, &["a2", "b2", "a1", "b1", "a2", "a1"]);
    // The position after move 1 had White to move; 7.B[a2] recreates it with White to move.
    assert_eq!(
        game.legality(parse(&game, "a2")),
        Err(Illegal::Superko {
            repeats_after_turns: 1
        })
    );
    // After 1.B[a2] 2.W[b2] 3.B[a1] 4.W pass 5.B[b1] 6.W[b2], 7.B[a2] recreates the colouring
    // after move 2 (black a2, white b2), which then had Black to move and now has White to
    // move: another situation, legal under SSK, illegal under positional superko.
    let moves = ["a2", "b2", "a1", "pass", "b1", "b2"];
    let mut situational = Game::rect(2, 2, ssk).unwrap();
    play(&mut situational, &moves);
    assert_eq!(situational.legality(parse(&situational, "a2")), Ok(()));
    let mut positional = Game::rect(2, 2, Ruleset::NSTT).unwrap();
    play(&mut positional, &moves);
    assert_eq!(
        positional.legality(parse(&positional, "a2")),
        Err(Illegal::Superko {
            repeats_after_turns: 2
        })
    );
}
