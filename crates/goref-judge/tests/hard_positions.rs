//! The hard positions of `tests/hard` (built for goref) with their status under 3.9
//! (reference 001 §3.9.1, footnote 4: moonshine removed, bent four and seki kept), under each
//! ruleset; every "dead" verdict's line and every "alive" witness is replayed on a
//! `goref_rules::Game`, and no block is undecided with the default budget.

mod hard;

use goref_judge::{board_from_diagram, Budget, Context, Judge, Keep, Verdict};
use goref_rules::{Color, End, Game, Move, Ruleset};
use hard::HARD;

fn name(v: &Verdict) -> &'static str {
    v.name()
}

/// The six-liberty seki: White is kept because Black cannot capture it (a completed proof),
/// not because White could live alone; Black's stones could capture the ring alone.
#[test]
fn six_liberty_seki_is_kept_for_the_right_reasons() {
    let h = HARD
        .iter()
        .find(|h| h.name == "seki with six shared liberties")
        .unwrap();
    let board = board_from_diagram(h.diagram).unwrap();
    for rules in [Ruleset::OLYMPIAD, Ruleset::NSTT] {
        let judge = Judge::new(&board, Context::fresh(rules), Budget::default());
        let white = judge.judge_block(board.geometry().at(1, 1).unwrap());
        assert_eq!(
            white.verdict,
            Verdict::AliveByDefault(Keep::NotLocallyCapturable),
            "{rules}"
        );
        let black = judge.judge_block(board.geometry().at(3, 3).unwrap());
        assert!(
            matches!(
                black.verdict,
                Verdict::AliveByDefault(Keep::CanBecomePassAlive { .. })
            ),
            "{rules}: {:?}",
            black.verdict
        );
    }
}

/// The ten-thousand-year ko is one: whoever starts the ko gives the other colour the first
/// take. If White fills e1, Black takes a1 at b1; White's retake is then a ko recapture and
/// its fill at d2 is suicide, so White needs a ko threat or loses its inner group. If Black
/// takes first, it must still fill e1 to threaten; White then retakes at a1, with Black's
/// group in atari and Black's retake a ko recapture.
#[test]
fn ten_thousand_year_ko_gives_the_first_take_to_the_colour_that_did_not_start() {
    let h = HARD
        .iter()
        .find(|h| h.name == "ten-thousand-year ko")
        .unwrap();
    let board = board_from_diagram(h.diagram).unwrap();
    let point = |x, y| board.geometry().at(x, y).unwrap();
    let (a1, b1, e1, a2, b2, d2) = (
        point(0, 0),
        point(1, 0),
        point(4, 0),
        point(0, 1),
        point(1, 1),
        point(3, 1),
    );
    let play = |game: &mut Game, p| game.play(Move::Play(p));

    // White starts.
    let mut game = Game::from_position(board.clone(), Color::White, Ruleset::OLYMPIAD);
    play(&mut game, e1).unwrap();
    play(&mut game, b1).unwrap();
    assert_eq!(game.board().get(a1), None, "Black's b1 takes a1");
    assert!(
        play(&mut game, a1).is_err(),
        "White's retake is a ko recapture"
    );
    assert!(
        play(&mut game, d2).is_err(),
        "White's fill at d2 is suicide"
    );
    game.play(Move::Pass).unwrap();
    play(&mut game, d2).unwrap();
    assert_eq!(
        game.board().get(b2),
        None,
        "without a threat White's group is taken"
    );

    // Black starts.
    let mut game = Game::from_position(board.clone(), Color::Black, Ruleset::OLYMPIAD);
    play(&mut game, b1).unwrap();
    game.play(Move::Pass).unwrap();
    play(&mut game, e1).unwrap();
    play(&mut game, a1).unwrap();
    assert_eq!(game.board().get(b1), None, "White's a1 retakes b1");
    assert!(
        play(&mut game, b1).is_err(),
        "Black's retake is a ko recapture"
    );
    game.play(Move::Pass).unwrap();
    play(&mut game, d2).unwrap();
    assert_eq!(
        game.board().get(a2),
        None,
        "without a threat Black's group is taken"
    );

    // Neither starts: a fill of a shared liberty puts the filler's group in atari first.
    let mut game = Game::from_position(board.clone(), Color::Black, Ruleset::OLYMPIAD);
    play(&mut game, d2).unwrap();
    play(&mut game, e1).unwrap();
    assert_eq!(game.board().get(a2), None, "Black's fill loses its group");
}

#[test]
fn hard_positions_have_their_status_under_3_9() {
    let mut failures = Vec::new();
    for rules in [Ruleset::OLYMPIAD, Ruleset::NSTT, Ruleset::TROMP_TAYLOR] {
        for h in HARD {
            let board = board_from_diagram(h.diagram).unwrap();
            let judge = Judge::new(&board, Context::fresh(rules), Budget::default());
            let verdicts = judge.judge_all();
            for v in &verdicts {
                assert!(
                    !matches!(v.verdict, Verdict::Undecided { .. }),
                    "{} ({rules}): {:?} undecided: {:?}",
                    h.name,
                    v.block.anchor(),
                    v.verdict
                );
                replay(&board, rules, v);
            }
            let find = |list: &[((usize, usize), &'static str)], x: usize, y: usize| {
                list.iter()
                    .find(|&&(at, _)| at == (x, y))
                    .map(|&(_, name)| name)
            };
            for &((x, y), expected) in h.expected {
                // Positional superko for nstt and tromp-taylor, then suicide for tromp-taylor.
                let expected = match (find(h.suicide, x, y), find(h.superko, x, y)) {
                    (Some(name), _) if rules == Ruleset::TROMP_TAYLOR => name,
                    (_, Some(name)) if rules != Ruleset::OLYMPIAD => name,
                    _ => expected,
                };
                let p = board.geometry().at(x, y).unwrap();
                let v = verdicts
                    .iter()
                    .find(|v| v.block.stones.contains(&p))
                    .expect("a stone");
                if name(&v.verdict) != expected {
                    failures.push(format!(
                        "{} ({rules}) ({x},{y}): expected {expected}, got {:?}",
                        h.name, v.verdict
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The evidence of a verdict, replayed: a dead block's line removes it (the block's colour
/// first, moves in its region); an alive block's plays (the opponent passing) make it
/// pass-alive.
fn replay(board: &goref_rules::Board, rules: Ruleset, v: &goref_judge::BlockVerdict) {
    let color = v.block.color;
    let stone = v.block.anchor();
    match &v.verdict {
        Verdict::DeadBy39 { line } => {
            let mut game = Game::from_position(board.clone(), color, rules);
            for &(c, mv) in line {
                if game.end() == Some(End::TwoPasses) {
                    game.resume();
                }
                assert_eq!(game.to_move(), c);
                game.play(mv)
                    .unwrap_or_else(|e| panic!("{mv:?} in {line:?}: {e:?}"));
            }
            assert_ne!(game.board().get(stone), Some(color), "{line:?}");
        }
        Verdict::AliveByDefault(Keep::CanBecomePassAlive { plays }) => {
            let mut game = Game::from_position(board.clone(), color, rules);
            for &p in plays {
                if game.to_move() != color {
                    game.play(Move::Pass).unwrap();
                }
                if game.end() == Some(End::TwoPasses) {
                    game.resume();
                }
                game.play(Move::Play(p)).unwrap();
            }
            let b = game.board();
            let alive =
                goref_judge::pass_alive(b.geometry(), b.colors(), color, rules.suicide_allowed);
            assert!(alive.is_alive(stone));
        }
        _ => {}
    }
}

#[test]
fn every_colour_of_the_hard_positions_is_judged() {
    // Sanity: each position has blocks of both colours and a pass-alive wall.
    for h in HARD {
        let board = board_from_diagram(h.diagram).unwrap();
        let judge = Judge::new(&board, Context::fresh(Ruleset::OLYMPIAD), Budget::default());
        let verdicts = judge.judge_all();
        assert!(
            verdicts.iter().any(|v| v.block.color == Color::Black),
            "{}",
            h.name
        );
        assert!(
            verdicts.iter().any(|v| v.block.color == Color::White),
            "{}",
            h.name
        );
        assert!(
            verdicts.iter().any(|v| v.verdict == Verdict::PassAlive),
            "{}",
            h.name
        );
    }
}

/// Judging on several threads gives the same verdicts, evidence and node counts, in the same
/// order, as judging on one: blocks that could share evidence are judged in turn.
#[test]
fn threads_do_not_change_the_verdicts() {
    let mut searched = 0;
    for h in HARD {
        let board = board_from_diagram(h.diagram).unwrap();
        for rules in [Ruleset::OLYMPIAD, Ruleset::TROMP_TAYLOR] {
            let judge = |threads| {
                Judge::new(&board, Context::fresh(rules), Budget::default())
                    .with_threads(threads)
                    .judge_all()
            };
            let one = judge(1);
            searched += one.iter().filter(|v| v.nodes > 0).count();
            assert_eq!(one, judge(4), "{} ({rules})", h.name);
        }
    }
    assert!(searched > 10, "the verdicts record their search nodes");
}

/// The positions of `tests/hard` that suicide decides, with the plays that decide them
/// replayed on a `Game`: under tromp-taylor a move clears the opponent's colour and then
/// the mover's own (000 rule 7), so a play that leaves its own string without liberties
/// lifts it; under nstt and the Olympiad rules that play is illegal (004 comment 7b; 001
/// §3.5).
#[test]
fn suicide_decides_the_hard_positions_built_for_it() {
    let board_of = |name: &str| {
        let h = HARD.iter().find(|h| h.name == name).unwrap();
        board_from_diagram(h.diagram).unwrap()
    };
    let verdict = |board: &goref_rules::Board, rules, x, y| {
        let judge = Judge::new(board, Context::fresh(rules), Budget::default());
        judge
            .judge_block(board.geometry().at(x, y).unwrap())
            .verdict
    };
    // One-sided moving of `color`, the other colour passing; the last play's result.
    let one_sided = |board: &goref_rules::Board, rules, color, plays: &[(usize, usize)]| {
        let mut game = Game::from_position(board.clone(), color, rules);
        let mut last = Ok(());
        for &(x, y) in plays {
            if game.to_move() != color {
                game.play(Move::Pass).unwrap();
            }
            if game.end() == Some(End::TwoPasses) {
                game.resume();
            }
            last = game
                .play(Move::Play(board.geometry().at(x, y).unwrap()))
                .map(|_| ());
            if last.is_err() {
                break;
            }
        }
        (game, last)
    };

    // Two eyes that self-capture kills: White alone lifts its corner (a2 takes b3 and a3 off),
    // refills b3 and a2 around a3, fills d3 and captures Black at f3.
    let board = board_of("two eyes that self-capture kills");
    let (b3, a2, d3, f3) = ((1, 0), (0, 1), (3, 0), (5, 0));
    let kill = [b3, a2, b3, a2, d3, f3];
    let (game, last) = one_sided(&board, Ruleset::TROMP_TAYLOR, Color::White, &kill);
    assert!(last.is_ok());
    let black = board.geometry().at(2, 0).unwrap();
    assert_eq!(
        game.board().get(black),
        None,
        "Black's two-eyed group is taken"
    );
    let (_, last) = one_sided(&board, Ruleset::NSTT, Color::White, &kill[..2]);
    assert!(last.is_err(), "a2 is suicide, illegal under nstt");
    for rules in [Ruleset::OLYMPIAD, Ruleset::NSTT] {
        assert_eq!(verdict(&board, rules, 2, 0), Verdict::PassAlive, "{rules}");
        assert!(verdict(&board, rules, 4, 0).removes(), "{rules}");
    }
    assert!(matches!(
        verdict(&board, Ruleset::TROMP_TAYLOR, 2, 0),
        Verdict::AliveByDefault(Keep::CanBecomePassAlive { .. })
    ));
    assert!(matches!(
        verdict(&board, Ruleset::TROMP_TAYLOR, 4, 0),
        Verdict::AliveByDefault(Keep::CanBecomePassAlive { .. })
    ));

    // The lone corner stone: the same kill lifts a3 itself, so a3 stays dead.
    let board = board_of("a corner stone that kills only by its own self-capture");
    let (game, last) = one_sided(
        &board,
        Ruleset::TROMP_TAYLOR,
        Color::White,
        &[b3, a2, b3, a2, d3],
    );
    assert!(last.is_ok());
    assert_eq!(game.board().get(board.geometry().at(2, 0).unwrap()), None);
    assert_eq!(game.board().get(board.geometry().at(0, 0).unwrap()), None);
    for rules in [Ruleset::OLYMPIAD, Ruleset::NSTT, Ruleset::TROMP_TAYLOR] {
        assert!(verdict(&board, rules, 0, 0).removes(), "{rules}");
    }

    // Eye space rebuilt by self-capture: White's top-right stones lift themselves at e3.
    let board = board_of("eye space rebuilt by self-capture");
    let (e4, d3_, c4, d4, e3) = ((4, 0), (3, 1), (2, 0), (3, 0), (4, 1));
    let lift = [e4, d3_, c4, d4, e3];
    let (game, last) = one_sided(&board, Ruleset::TROMP_TAYLOR, Color::White, &lift);
    assert!(last.is_ok());
    for p in lift {
        assert_eq!(
            game.board().get(board.geometry().at(p.0, p.1).unwrap()),
            None
        );
    }
    let (_, last) = one_sided(&board, Ruleset::NSTT, Color::White, &lift);
    assert!(last.is_err(), "e3 is suicide, illegal under nstt");
    assert!(verdict(&board, Ruleset::OLYMPIAD, 2, 2).removes());
    assert!(verdict(&board, Ruleset::NSTT, 2, 2).removes());
    assert!(!verdict(&board, Ruleset::TROMP_TAYLOR, 2, 2).removes());

    // The seki that hangs on a ko: after White's c1 and two passes, Black's e3 lifts e3 and
    // e4 under tromp-taylor; under nstt it is illegal and the seki stands.
    let board = board_of("seki that hangs on a ko");
    let mut game = Game::from_position(board.clone(), Color::White, Ruleset::TROMP_TAYLOR);
    let at = |x, y| Move::Play(board.geometry().at(x, y).unwrap());
    for mv in [at(2, 3), Move::Pass, Move::Pass] {
        game.play(mv).unwrap();
    }
    game.resume();
    let mut nstt = Game::from_position(game.board().clone(), Color::Black, Ruleset::NSTT);
    assert!(nstt.play(at(4, 1)).is_err(), "e3 is suicide under nstt");
    game.play(at(4, 1)).unwrap();
    assert_eq!(game.board().get(board.geometry().at(4, 0).unwrap()), None);
    assert!(verdict(&board, Ruleset::TROMP_TAYLOR, 2, 0).removes());
    assert!(!verdict(&board, Ruleset::NSTT, 2, 0).removes());
}
