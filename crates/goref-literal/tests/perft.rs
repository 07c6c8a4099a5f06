//! Perft of the fast rules (with its exact transposition table and threads) against a plain
//! enumeration with the literal rules.

use std::sync::Arc;

use goref_literal::{Graph, LiteralGame};
use goref_rules::perft::{perft, PerftMode};
use goref_rules::{Game, Geometry, KoRule, Komi, Ruleset};

/// Counts by enumerating every turn with the literal rules. `left`: `None` for complete games.
fn literal_count(game: &LiteralGame, points: usize, left: Option<u32>) -> u128 {
    match (left, game.ending().is_some()) {
        (Some(0), _) | (None, true) => return 1,
        (Some(_), true) => return 0,
        _ => {}
    }
    let mut total = 0;
    let mut pass = game.clone();
    pass.pass().unwrap();
    total += literal_count(&pass, points, left.map(|d| d - 1));
    for p in 0..points {
        let mut next = game.clone();
        if next.play(p).is_ok() {
            total += literal_count(&next, points, left.map(|d| d - 1));
        }
    }
    total
}

fn rules() -> Vec<Ruleset> {
    [
        KoRule::Simple,
        KoRule::PositionalSuperko,
        KoRule::SituationalSuperko,
        KoRule::LongCycle,
    ]
    .into_iter()
    .flat_map(|ko| {
        [true, false].map(|suicide_allowed| Ruleset {
            ko,
            suicide_allowed,
            komi: Komi::ZERO,
        })
    })
    .collect()
}

#[test]
fn perft_by_depth_matches_literal_enumeration() {
    for (w, h, depth) in [
        (1, 1, 4),
        (1, 2, 7),
        (2, 2, 6),
        (1, 3, 6),
        (3, 3, 3),
        (2, 4, 4),
    ] {
        for rules in rules() {
            let fast = Game::rect(w, h, rules).unwrap();
            let literal = LiteralGame::new(Graph::grid(w, h), rules);
            let expected = literal_count(&literal, w * h, Some(depth));
            let counted = perft(&fast, PerftMode::Depth(depth), 2).unwrap();
            assert_eq!(counted, expected, "{w}x{h} depth {depth} under {rules}");
        }
    }
}

#[test]
fn perft_of_complete_games_matches_literal_enumeration() {
    for (w, h) in [(1, 1), (1, 2), (1, 3)] {
        for rules in rules().into_iter().filter(|r| r.ko != KoRule::Simple) {
            let fast = Game::rect(w, h, rules).unwrap();
            let literal = LiteralGame::new(Graph::grid(w, h), rules);
            let expected = literal_count(&literal, w * h, None);
            assert_eq!(
                perft(&fast, PerftMode::Games, 2).unwrap(),
                expected,
                "{w}x{h} games under {rules}"
            );
        }
    }
}

#[test]
fn perft_on_a_graph_board_matches_literal_enumeration() {
    // A triangle with a tail: points 0-1-2 form a cycle, 3 hangs off 2.
    let edges = [(0, 1), (1, 2), (2, 0), (2, 3)];
    for rules in rules() {
        let fast = Game::new(Arc::new(Geometry::graph(4, &edges).unwrap()), rules);
        let literal = LiteralGame::new(Graph::from_edges(4, &edges), rules);
        assert_eq!(
            perft(&fast, PerftMode::Depth(6), 2).unwrap(),
            literal_count(&literal, 4, Some(6)),
            "{rules}"
        );
    }
}

#[test]
fn complete_games_on_a_triangle_match_literal_enumeration() {
    // Every point touches the other two: the board's six symmetries and the colour exchange
    // all enter the path counter's keys.
    let edges = [(0, 1), (1, 2), (2, 0)];
    for rules in rules().into_iter().filter(|r| r.ko != KoRule::Simple) {
        let fast = Game::new(Arc::new(Geometry::graph(3, &edges).unwrap()), rules);
        let literal = LiteralGame::new(Graph::from_edges(3, &edges), rules);
        assert_eq!(
            perft(&fast, PerftMode::Games, 2).unwrap(),
            literal_count(&literal, 3, None),
            "{rules}"
        );
    }
}

/// On 1×1 the only game under Tromp-Taylor is two passes (any play recreates the empty grid).
#[test]
fn one_by_one_has_a_single_game() {
    let game = Game::rect(1, 1, Ruleset::TROMP_TAYLOR).unwrap();
    assert_eq!(perft(&game, PerftMode::Games, 1).unwrap(), 1);
}
