//! Each definition of reference 001 §3.9 on positions whose answer is known from the text
//! (footnote 4) and from Go theory. `X` is Black, `O` White; coordinates are (column, row)
//! from the top left.

use goref_judge::{
    board_from_diagram, default_removal, Budget, Context, Disputes, Judge, Keep, Verdict,
};
use goref_rules::{Board, Color, Point, Ruleset};

fn at(board: &Board, x: usize, y: usize) -> Point {
    board.geometry().at(x, y).unwrap()
}

fn verdict(board: &Board, rules: Ruleset, x: usize, y: usize) -> Verdict {
    let judge = Judge::new(board, Context::fresh(rules), Budget::default());
    judge.judge_block(at(board, x, y)).verdict
}

fn is_dead(v: &Verdict) -> bool {
    matches!(v, Verdict::DeadBy39 { .. })
}

fn can_live(v: &Verdict) -> bool {
    matches!(v, Verdict::AliveByDefault(Keep::CanBecomePassAlive { .. }))
}

/// Benson's algorithm needs the *set* of blocks: the lone black stone at a1 (top left) and the
/// big black block share the two eyes b1 and a2, each vital to both; together they are
/// pass-alive although neither would be alone.
#[test]
fn benson_two_blocks_sharing_two_eyes_are_pass_alive() {
    let board = board_from_diagram(
        "X . X O .
         . X X O .
         X X O O .
         O O O . .
         . . . . .",
    )
    .unwrap();
    for rules in [Ruleset::OLYMPIAD, Ruleset::TROMP_TAYLOR] {
        assert_eq!(verdict(&board, rules, 0, 0), Verdict::PassAlive);
        assert_eq!(verdict(&board, rules, 2, 0), Verdict::PassAlive);
        // White is not pass-alive: it has no vital region at all.
        assert!(!matches!(verdict(&board, rules, 3, 0), Verdict::PassAlive));
    }
}

/// Benson: a dead opposing stone inside an eye does not spoil it (with suicide illegal the
/// region is vital because its only empty point is a liberty); one big eye alone is not vital.
#[test]
fn benson_eye_with_a_dead_stone_and_a_big_eye() {
    let board = board_from_diagram(
        "O . X . X .
         X X X X X X
         . . . . . .",
    )
    .unwrap();
    // Region {a1 (White), b1}: its only empty point b1 touches the block; d1 and f1 are eyes.
    assert_eq!(verdict(&board, Ruleset::OLYMPIAD, 2, 0), Verdict::PassAlive);
    // Two eye spaces, each with a point (a1, f1) that is no liberty: neither is vital.
    let big = board_from_diagram(
        ". . . X . .
         . . . X . .
         X X X X X X
         . . . . . .",
    )
    .unwrap();
    assert!(!matches!(
        verdict(&big, Ruleset::OLYMPIAD, 3, 0),
        Verdict::PassAlive
    ));
}

/// A pass-alive white wall (many one-point eyes) around the top-left corner.
const FALSE_EYE: &str = "
    . X X . X O . O
    X X O X X O O O
    O O O X X O . O
    . O O O O O O O
    O O . O . O . .
    . O O O O O . .";

/// One real eye (a1) and one false eye (d1: its diagonal c2 is White's): Black's two blocks
/// are not pass-alive, Black moving alone only ever gets the one eye, and White captures them:
/// both are dead by 3.9 (removed when disputed).
#[test]
fn one_real_and_one_false_eye_is_dead() {
    let board = board_from_diagram(FALSE_EYE).unwrap();
    for rules in [Ruleset::OLYMPIAD, Ruleset::NSTT, Ruleset::TROMP_TAYLOR] {
        assert_eq!(verdict(&board, rules, 5, 0), Verdict::PassAlive, "{rules}");
        let left = verdict(&board, rules, 1, 0);
        let right = verdict(&board, rules, 4, 0);
        assert!(is_dead(&left), "{rules}: {left:?}");
        assert!(is_dead(&right), "{rules}: {right:?}");
    }
}

/// A large dead group (18 stones, one two-point eye) inside a pass-alive white wall: it has at
/// most one eye and White fills the eye to capture it.
#[test]
fn large_dead_group_inside_a_pass_alive_wall() {
    let board = board_from_diagram(
        "X X X X X O .
         X . . X X O O
         X X X X X O .
         X X X X X O O
         O O O O O O .
         . O . O . O O
         O O O O O O .",
    )
    .unwrap();
    for rules in [Ruleset::OLYMPIAD, Ruleset::TROMP_TAYLOR] {
        assert_eq!(verdict(&board, rules, 5, 0), Verdict::PassAlive);
        let v = verdict(&board, rules, 0, 0);
        let Verdict::DeadBy39 { line } = &v else {
            panic!("{v:?}")
        };
        assert_eq!(line[0].0, Color::Black, "the block's colour moves first");
    }
    let judge = Judge::new(&board, Context::fresh(Ruleset::OLYMPIAD), Budget::default());
    let removal = default_removal(&judge, Disputes::All);
    assert_eq!(removal.removed.len(), 18);
    // After removal White owns the whole board.
    assert_eq!(removal.score.white, 49);
}

/// Footnote 4, moonshine life: White's four stones in the corner seem to have two eyes (b1
/// and a2), but each is a ko-shaped point Black can take, and White cannot make either eye
/// real even moving alone. At most one eye and locally capturable: removed.
#[test]
fn footnote_4_moonshine_life_is_removed() {
    let board = board_from_diagram(
        "O . O X . X
         . O X X X X
         O X X . X .
         X X X X X X
         . X . X . X
         X X X X X X",
    )
    .unwrap();
    for rules in [Ruleset::OLYMPIAD, Ruleset::TROMP_TAYLOR, Ruleset::NSTT] {
        assert_eq!(verdict(&board, rules, 3, 0), Verdict::PassAlive);
        for (x, y) in [(0, 0), (2, 0), (1, 1), (0, 2)] {
            let v = verdict(&board, rules, x, y);
            assert!(is_dead(&v), "{rules} ({x},{y}): {v:?}");
        }
    }
}

/// Footnote 4, bent four in the corner: White's eye space a1 b1 c1 a2 bends at the 1-1 point
/// and White has no outside liberty. Moving alone White lives (b1 leaves the eyes a1-a2 and
/// c1), so the group does not have at most one eye and stays on the board.
#[test]
fn footnote_4_bent_four_in_the_corner_stays() {
    let board = board_from_diagram(
        ". . . O X .
         . O O O X X
         O O X X . X
         X X X X X X
         . X . X . X
         X X X X X X",
    )
    .unwrap();
    for rules in [Ruleset::OLYMPIAD, Ruleset::TROMP_TAYLOR] {
        assert_eq!(verdict(&board, rules, 4, 0), Verdict::PassAlive);
        let v = verdict(&board, rules, 3, 0);
        assert!(can_live(&v), "{rules}: {v:?}");
    }
}

/// Footnote 4, seki: White's d1-d3 and Black's f1-f2 share the two liberties e1 and e2 and
/// have no eyes, each inside the other's pass-alive wall. Either colour moving alone captures
/// the other and lives, so neither has at most one eye: both stay.
#[test]
fn footnote_4_seki_stays() {
    let board = board_from_diagram(
        ". X X O . X O O .
         X X X O . X O . O
         . X X O X O O O O
         X X X X X O . O .
         . X . X X O O O O
         X X X X X O . O .",
    )
    .unwrap();
    for rules in [Ruleset::OLYMPIAD, Ruleset::TROMP_TAYLOR] {
        assert_eq!(verdict(&board, rules, 1, 0), Verdict::PassAlive);
        assert_eq!(verdict(&board, rules, 6, 0), Verdict::PassAlive);
        let white = verdict(&board, rules, 3, 0);
        let black = verdict(&board, rules, 5, 0);
        assert!(can_live(&white), "{rules}: {white:?}");
        assert!(can_live(&black), "{rules}: {black:?}");
    }
}

/// Suicide legal or not (Benson with suicide, as KataGo): each black eye holds a white stone
/// in the corner that does not touch the black block. With suicide illegal Black is
/// pass-alive and the white stones are dead by 3.9; with suicide legal White can empty a corner
/// by suicide and then fill Black's liberties from it, so Black is not pass-alive (though
/// Black alone can make it so) and the white stones, able to capture Black moving alone, stay.
#[test]
fn suicide_rule_changes_pass_alive_and_removal() {
    let board = board_from_diagram(
        "O . X X X . O
         . X X X X X .
         X X X X X X X",
    )
    .unwrap();
    assert_eq!(verdict(&board, Ruleset::NSTT, 2, 0), Verdict::PassAlive);
    assert_eq!(verdict(&board, Ruleset::OLYMPIAD, 2, 0), Verdict::PassAlive);
    assert!(can_live(&verdict(&board, Ruleset::TROMP_TAYLOR, 2, 0)));
    assert!(is_dead(&verdict(&board, Ruleset::NSTT, 0, 0)));
    assert!(can_live(&verdict(&board, Ruleset::TROMP_TAYLOR, 0, 0)));
}

/// 3.9.2 with dead lists: a block both sides list is removed (agreed); a block one side lists
/// is judged; the living group Black wrongly lists as dead stays.
#[test]
fn default_removal_with_dead_lists() {
    let board = board_from_diagram(FALSE_EYE).unwrap();
    let judge = Judge::new(&board, Context::fresh(Ruleset::OLYMPIAD), Budget::default());
    let (b1, e1, f1) = (at(&board, 1, 0), at(&board, 4, 0), at(&board, 5, 0));
    // White says both black blocks are dead; Black agrees about b1 only and claims f1 (White's
    // pass-alive wall) is dead.
    let removal = default_removal(
        &judge,
        Disputes::Lists {
            black: &[b1, f1],
            white: &[b1, e1],
        },
    );
    assert_eq!(removal.agreed, vec![b1]);
    let disputed: Vec<(Point, &str)> = removal
        .disputed
        .iter()
        .map(|v| (v.block.anchor(), v.verdict.name()))
        .collect();
    assert_eq!(disputed, vec![(e1, "dead"), (f1, "pass-alive")]);
    assert!(removal.removed.contains(&b1) && removal.removed.contains(&e1));
    assert!(!removal.removed.contains(&f1));
}

/// A finished 19×19 game of GNU Go against itself (tests/data/gnugo-19-1.sgf, written by
/// tests/data/gnugo-selfplay.py, seed 67): the lone white stones H7 and O2 sit inside
/// Black's pass-alive territory and are the only blocks 3.9.2 removes; nothing is undecided.
#[test]
fn gnugo_game_only_the_white_stones_in_pass_alive_territory_are_dead() {
    let text = include_str!("data/gnugo-19-1.sgf");
    let record = goref_sgf::parse(text).unwrap();
    let mut game = goref_rules::Game::from_position(
        record.start_board().unwrap(),
        Color::Black,
        Ruleset::OLYMPIAD.with_komi(record.komi.unwrap()),
    );
    for m in &record.moves {
        game.play(m.mv).unwrap();
    }
    let judge = Judge::of_game(&game, Budget::default());
    let removal = default_removal(&judge, Disputes::All);
    let g = game.geometry();
    let removed: Vec<String> = removal.removed.iter().map(|&p| g.name(p)).collect();
    assert_eq!(removed, vec!["H7", "O2"]);
    assert!(removal
        .disputed
        .iter()
        .all(|v| !matches!(v.verdict, Verdict::Undecided { .. })));
    assert_eq!(removal.score.outcome().to_sgf(), "W+7.5");
}
