//! Fuzzes move sequences: the fast rules and the literal rules must agree on every verdict,
//! every colouring, the end and the score; every move `legal_moves` lists must be playable.
#![no_main]

use goref_literal::{Ending, Graph, LiteralGame};
use goref_rules::{End, Game, Illegal, KoRule, Komi, Move, Point, Ruleset};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [shape, rules, moves @ ..] = data else {
        return;
    };
    let (w, h) = (1 + (shape & 7) as usize, 1 + (shape >> 3 & 7) as usize);
    let ko = [
        KoRule::Simple,
        KoRule::PositionalSuperko,
        KoRule::SituationalSuperko,
        KoRule::LongCycle,
    ][(rules & 3) as usize];
    let rules = Ruleset {
        ko,
        suicide_allowed: rules & 4 != 0,
        komi: Komi::ZERO,
    };
    let mut fast = Game::rect(w, h, rules).unwrap();
    let mut literal = LiteralGame::new(Graph::grid(w, h), rules);
    for &byte in moves {
        let mv = if byte as usize >= w * h {
            Move::Pass
        } else {
            Move::Play(Point::new(byte as usize))
        };
        let listed = fast.legal_moves().contains(&mv);
        let mut next = literal.clone();
        let verdict = match mv {
            Move::Pass => next.pass(),
            Move::Play(p) => next.play(p.index()),
        };
        match (fast.play(mv), verdict) {
            (Ok(_), Ok(())) => {
                assert!(listed, "{mv:?} is legal but not listed");
                literal = next;
            }
            (Err(e), Err(_)) => assert!(!listed && e.reason != Illegal::OffBoard),
            (a, b) => panic!("{mv:?}: fast {a:?}, literal {b:?}"),
        }
        assert_eq!(fast.board().colors(), &literal.grid()[..]);
        match (fast.end(), literal.ending()) {
            (None, None) | (Some(End::TwoPasses), Some(Ending::TwoPasses)) => {}
            (Some(End::LongCycle { captures: a, .. }), Some(Ending::LongCycle { captures: b, .. })) => {
                assert_eq!(a.into_array(), b)
            }
            (a, b) => panic!("end {a:?} vs {b:?}"),
        }
    }
    let score = fast.score();
    assert_eq!([score.black, score.white], literal.score());
});
