//! The fast rules (`goref-rules`) against the literal ones (`goref-literal`): on random games,
//! random boards and every ruleset, both must give the same verdict on every move tried, the
//! same colouring after every turn, the same end and the same score.

use std::sync::Arc;

use goref_literal::{Ending, Graph, LiteralGame, LiteralIllegal};
use goref_rules::playout::Rng;
use goref_rules::{End, Game, Geometry, Illegal, KoRule, Komi, Move, Point, Ruleset};
use proptest::prelude::*;

/// Every combination of the rule dimensions.
fn all_rules() -> Vec<Ruleset> {
    let mut out = Vec::new();
    for ko in [
        KoRule::Simple,
        KoRule::PositionalSuperko,
        KoRule::SituationalSuperko,
        KoRule::LongCycle,
    ] {
        for suicide_allowed in [true, false] {
            out.push(Ruleset {
                ko,
                suicide_allowed,
                komi: Komi::ZERO,
            });
        }
    }
    out
}

/// A board for both implementations.
#[derive(Clone, Debug)]
enum BoardSpec {
    Rect(usize, usize),
    Graph(usize, Vec<(usize, usize)>),
}

impl BoardSpec {
    fn build(&self) -> (Arc<Geometry>, Graph) {
        match self {
            BoardSpec::Rect(w, h) => (
                Arc::new(Geometry::rect(*w, *h).unwrap()),
                Graph::grid(*w, *h),
            ),
            BoardSpec::Graph(n, edges) => (
                Arc::new(Geometry::graph(*n, edges).unwrap()),
                Graph::from_edges(*n, edges),
            ),
        }
    }
}

fn graph_spec() -> impl Strategy<Value = BoardSpec> {
    (1usize..=10)
        .prop_flat_map(|n| (Just(n), proptest::collection::vec(any::<bool>(), n * n)))
        .prop_map(|(n, bits)| {
            let edges = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .filter(|&(a, b)| bits[a * n + b])
                .collect();
            BoardSpec::Graph(n, edges)
        })
}

fn board_spec() -> impl Strategy<Value = BoardSpec> {
    prop_oneof![
        3 => (1usize..=5, 1usize..=5).prop_map(|(w, h)| BoardSpec::Rect(w, h)),
        1 => (1usize..=9, 1usize..=9).prop_map(|(w, h)| BoardSpec::Rect(w, h)),
        2 => graph_spec(),
    ]
}

fn same_reason(fast: Illegal, literal: LiteralIllegal) -> bool {
    matches!(
        (fast, literal),
        (Illegal::GameOver, LiteralIllegal::GameOver)
            | (Illegal::Occupied, LiteralIllegal::Occupied)
            | (Illegal::Suicide, LiteralIllegal::Suicide)
            | (Illegal::Ko { .. }, LiteralIllegal::Ko)
    ) || matches!(
        (fast, literal),
        (Illegal::Superko { repeats_after_turns: a }, LiteralIllegal::Superko { repeats_after_turns: b }) if a == b
    )
}

fn same_end(fast: Option<End>, literal: Option<Ending>) -> bool {
    match (fast, literal) {
        (None, None) | (Some(End::TwoPasses), Some(Ending::TwoPasses)) => true,
        (
            Some(End::LongCycle {
                first_after_turns: a,
                captures: ca,
            }),
            Some(Ending::LongCycle {
                first_after_turns: b,
                captures: cb,
            }),
        ) => a == b && ca.into_array() == cb,
        _ => false,
    }
}

/// The literal verdict on playing `p` (or passing) in `literal`, leaving it unchanged.
fn literal_verdict(literal: &LiteralGame, mv: Move) -> Result<LiteralGame, LiteralIllegal> {
    let mut next = literal.clone();
    match mv {
        Move::Pass => next.pass()?,
        Move::Play(p) => next.play(p.index())?,
    }
    Ok(next)
}

/// Checks that both agree on `mv` and plays it on both when legal. Returns whether it was legal.
fn step(fast: &mut Game, literal: &mut LiteralGame, mv: Move) -> Result<bool, TestCaseError> {
    let verdict = literal_verdict(literal, mv);
    match (fast.play(mv), verdict) {
        (Ok(_), Ok(next)) => {
            *literal = next;
            prop_assert_eq!(fast.board().colors(), &literal.grid()[..], "after {:?}", mv);
            prop_assert_eq!(fast.to_move(), literal.to_move());
            prop_assert!(
                same_end(fast.end(), literal.ending()),
                "{:?} vs {:?}",
                fast.end(),
                literal.ending()
            );
            Ok(true)
        }
        (Err(e), Err(r)) => {
            prop_assert!(
                same_reason(e.reason, r),
                "{:?}: fast {:?}, literal {:?}",
                mv,
                e.reason,
                r
            );
            Ok(false)
        }
        (fast_verdict, literal_verdict) => Err(TestCaseError::fail(format!(
            "{mv:?} on\n{}: fast says {:?}, literal says {:?}",
            fast.board().to_ascii(),
            fast_verdict.map(|_| ()),
            literal_verdict.map(|_| ())
        ))),
    }
}

/// Checks every point's verdict in the current position.
fn all_verdicts_agree(fast: &Game, literal: &LiteralGame) -> Result<(), TestCaseError> {
    for p in fast.geometry().points() {
        let f = fast.legality(Move::Play(p));
        let l = literal_verdict(literal, Move::Play(p)).map(|_| ());
        match (f, l) {
            (Ok(()), Ok(())) => {}
            (Err(a), Err(b)) => {
                prop_assert!(same_reason(a, b), "point {}: {:?} vs {:?}", p.index(), a, b)
            }
            (a, b) => prop_assert!(
                false,
                "point {} on\n{}: fast {:?}, literal {:?}",
                p.index(),
                fast.board().to_ascii(),
                a,
                b
            ),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Random games, each turn tried as drawn (legal or not), every verdict compared.
    #[test]
    fn fast_and_literal_rules_agree(
        spec in board_spec(),
        rules_index in 0usize..8,
        choices in proptest::collection::vec(any::<u16>(), 0..160),
    ) {
        let rules = all_rules()[rules_index];
        let (geometry, graph) = spec.build();
        let n = geometry.len();
        let mut fast = Game::new(geometry, rules);
        let mut literal = LiteralGame::new(graph, rules);
        for c in choices {
            all_verdicts_agree(&fast, &literal)?;
            let mv = if c % 9 == 0 { Move::Pass } else { Move::Play(Point::new(c as usize % n)) };
            step(&mut fast, &mut literal, mv)?;
            if fast.is_over() {
                break;
            }
        }
        let [black, white] = literal.score();
        let score = fast.score();
        prop_assert_eq!((score.black, score.white), (black, white));
    }
}

/// Long random games (light playout policy plus occasional illegal tries) on boards from 1×1 to
/// 19×19 and on graph boards: counts the moves checked, and demands at least 200,000.
#[test]
fn agreement_over_hundreds_of_thousands_of_moves() {
    let mut rng = Rng::new(2026);
    let mut checked = 0usize;
    let sizes = [
        (1, 1),
        (1, 2),
        (1, 4),
        (2, 2),
        (2, 3),
        (3, 3),
        (1, 9),
        (4, 4),
        (5, 5),
        (3, 7),
        (5, 6),
        (6, 6),
        (7, 7),
        (9, 9),
        (13, 13),
        (19, 19),
    ];
    let mut round = 0;
    while checked < 200_000 {
        for &(w, h) in &sizes {
            for rules in all_rules() {
                let heavy = w * h > 100;
                if heavy && (round % 4 != 0 || rules.ko == KoRule::Simple) {
                    continue;
                }
                checked += random_game(BoardSpec::Rect(w, h), rules, &mut rng);
            }
        }
        for _ in 0..40 {
            let n = 1 + rng.below(12);
            let edges: Vec<(usize, usize)> = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .filter(|_| rng.below(3) == 0)
                .collect();
            let rules = all_rules()[rng.below(8)];
            checked += random_game(BoardSpec::Graph(n, edges), rules, &mut rng);
        }
        round += 1;
    }
    assert!(checked >= 200_000, "checked {checked} moves");
}

fn random_game(spec: BoardSpec, rules: Ruleset, rng: &mut Rng) -> usize {
    let (geometry, graph) = spec.build();
    let n = geometry.len();
    let mut fast = Game::new(geometry, rules);
    let mut literal = LiteralGame::new(graph, rules);
    let mut candidates = Vec::new();
    let mut checked = 0;
    while !fast.is_over() && fast.moves().len() < 3 * n + 20 {
        // Now and then try a random point, legal or not, to compare refusals too.
        if rng.below(4) == 0 {
            let p = Point::new(rng.below(n));
            step(&mut fast, &mut literal, Move::Play(p)).unwrap();
            checked += 1;
            continue;
        }
        let mv = goref_rules::playout::random_move(&fast, rng, &mut candidates);
        assert!(
            step(&mut fast, &mut literal, mv).unwrap(),
            "{mv:?} should be legal"
        );
        checked += 1;
    }
    let score = fast.score();
    assert_eq!([score.black, score.white], literal.score());
    checked
}
