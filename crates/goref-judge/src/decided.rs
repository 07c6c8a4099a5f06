//! Exact early adjudication: whether a game's winner is already certain, whatever the opponent plays.
//!
//! A colour's *sure area* is the points it is certain to count at the end of the game
//! (area scoring, TT rule 9, 001 §3.8), however the opponent plays, as long as it passes
//! from now on:
//!
//! - the stones of its pass-alive blocks ([`pass_alive`], 001 §3.9.1: no strategy of the
//!   opponent moving alone removes them; Benson's test in the form the preset's suicide rule
//!   needs);
//! - its *one-point eyes*: empty points all of whose neighbours are stones of those blocks.
//!   The opponent cannot play there to any effect: the play captures nothing (it would remove
//!   a pass-alive block), so it is a suicide, illegal under `nstt` and `olympiad`, and under
//!   `tromp-taylor` the lone stone removes itself and leaves the board as it was (which
//!   positional superko forbids anyway). The point stays empty, next only to the colour's
//!   stones: a point of its area.
//!
//! Bigger regions the pass-alive blocks enclose are *not* counted: the opponent can put a
//! stone there and pass, and that stone counts for it under area scoring unless captured.
//!
//! The bound. Let `N` be the points of the board, `S` Black's sure area, `b` and `w` the two
//! areas at the end. Every point counts for at most one colour, so `w ≤ N − b`, and `b ≥ S`;
//! the score `b − (w + komi)` (001 §3.8) is at least `b − (N − b) − komi = 2b − N − komi ≥
//! 2S − N − komi`. When that is positive Black's win is certain; for White, `w − b − (−komi) ≥
//! 2S − N + komi` with `S` White's sure area. A certain margin of zero (a draw is still
//! possible) decides nothing.
//!
//! History. Ko and superko only forbid moves, never force them, so they cannot help the
//! opponent against a player who passes. The one rule that ends a game otherwise is the long
//! cycle (001 §3.6), decided by captures and not by area: with the winner passing and suicide
//! illegal, every play of the opponent adds one of its stones and removes only the winner's,
//! so the only earlier positions a play can recreate have a superset of the opponent's stones
//! and a subset of the winner's, and the sure area as it is now (it never changes).
//! [`decided`] declines to decide while the game's history holds such a position. This is
//! conservative: the position before a capture by a stone that is not pass-alive is such a
//! position, and keeps the game open. A long-cycle rule with suicide legal (no preset has it)
//! lets the opponent's stones come and go, and positions after this one repeat: nothing is
//! decided under it.

use goref_rules::{Board, Color, Game, KoRule, Komi, Outcome, WinBy};

use crate::benson::pass_alive;

/// The points a colour is sure to count at the end of the game (see the module's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SureArea {
    /// The colour.
    pub color: Color,
    /// Stones of its pass-alive blocks.
    pub alive: u32,
    /// Empty points all of whose neighbours are stones of those blocks.
    pub eyes: u32,
    /// Per point: in the sure area.
    pub points: Vec<bool>,
}

impl SureArea {
    /// Points of the sure area.
    #[must_use]
    pub fn total(&self) -> u32 {
        self.alive + self.eyes
    }
}

/// The sure area of `color` on `board`, Benson's test in the form for `suicide_allowed`.
#[must_use]
pub fn sure_area(board: &Board, color: Color, suicide_allowed: bool) -> SureArea {
    let g = board.geometry();
    let pa = pass_alive(g, board.colors(), color, suicide_allowed);
    let mut points = vec![false; g.len()];
    let (mut alive, mut eyes) = (0, 0);
    for p in g.points() {
        if pa.alive[p.index()] {
            points[p.index()] = true;
            alive += 1;
        } else if board.get(p).is_none() {
            let around = g.neighbors(p);
            if !around.is_empty() && around.iter().all(|q| pa.alive[q.index()]) {
                points[p.index()] = true;
                eyes += 1;
            }
        }
    }
    SureArea {
        color,
        alive,
        eyes,
        points,
    }
}

/// A game whose winner is certain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decided {
    /// The winner.
    pub winner: Color,
    /// The margin the winner is certain of, in half points (positive).
    pub margin_half_points: i32,
    /// The winner's sure area.
    pub sure: SureArea,
    /// Points of the board.
    pub points: u32,
    /// Komi.
    pub komi: Komi,
}

impl Decided {
    /// The result: the winner by the certain margin (`B+0.5` form).
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        Outcome::Win {
            winner: self.winner,
            by: WinBy::Points {
                half_points: self.margin_half_points,
            },
        }
    }

    /// Why, in words, for the record's comment.
    #[must_use]
    pub fn explanation(&self) -> String {
        let s = self.sure.total();
        let (sign, komi) = match self.winner {
            Color::Black => ("−", self.komi),
            Color::White => ("+", self.komi),
        };
        format!(
            "decided: {}'s win is certain: {s} points safe ({} stones of pass-alive blocks, {} one-point eyes) of {}; at least {s} − ({} − {s}) {sign} komi {komi} = {} whatever {} plays",
            self.winner,
            self.sure.alive,
            self.sure.eyes,
            self.points,
            self.points,
            self.outcome().to_sgf().trim_start_matches(['B', 'W', '+']),
            self.winner.opponent()
        )
    }
}

/// Whether the game, as it stands and with its history, has a certain winner: the winner and
/// the margin it is certain of (see the module's text), or `None`. A game that has ended is
/// not decided by this test.
#[must_use]
pub fn decided(game: &Game) -> Option<Decided> {
    if game.is_over() {
        return None;
    }
    let rules = game.rules();
    let board = game.board();
    let n = board.geometry().len() as i32;
    let komi = rules.komi.half_points();
    for color in Color::ALL {
        let sure = sure_area(board, color, rules.suicide_allowed);
        let s = sure.total() as i32;
        // In half points: 2 × (s − (n − s)) ∓ komi.
        let base = 2 * (2 * s - n);
        let margin = match color {
            Color::Black => base - komi,
            Color::White => base + komi,
        };
        if margin <= 0 {
            continue;
        }
        if rules.ko == KoRule::LongCycle
            && (rules.suicide_allowed || cycle_possible(game, color, &sure.points))
        {
            return None;
        }
        return Some(Decided {
            winner: color,
            margin_half_points: margin,
            sure,
            points: n as u32,
            komi: rules.komi,
        });
    }
    None
}

/// Under the long-cycle rule: whether some earlier position could be recreated by the
/// opponent's plays while `winner` passes (see the module's text).
fn cycle_possible(game: &Game, winner: Color, sure: &[bool]) -> bool {
    let now = game.board().packed();
    let len = game.geometry().len();
    let history = game.history();
    let w = 1 + winner.index() as u64;
    let o = 1 + winner.opponent().index() as u64;
    (0..history.occurrences().len()).any(|i| {
        let then = history.colouring(i);
        if then == now {
            return false;
        }
        (0..len).all(|p| {
            let shift = 2 * (p % 32);
            let a = (then[p / 32] >> shift) & 3;
            let b = (now[p / 32] >> shift) & 3;
            // The sure area never changes; the winner's stones then are among its stones now;
            // the opponent's stones now are among its stones then (suicide is illegal).
            if sure[p] {
                return a == b;
            }
            (a != w || b == w) && (b != o || a == o)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use goref_rules::{Move, Ruleset};

    /// A Black block with four one-point eyes (12 stones, 16 sure points) against 8 White
    /// stones and their point of territory on 5×5: Black certainly counts 16, White at most 9,
    /// and White gets exactly that if both pass. The bound is tight: with komi 6.5 Black is
    /// certain of B+0.5, with komi 7 a draw is possible (not decided).
    #[test]
    fn the_bound_is_exact_on_a_hand_made_position_under_every_preset() {
        let board = crate::board_from_diagram(
            "
            . X . X O
            X X X X O
            . X . X O
            X X X X O
            O O O O .",
        )
        .unwrap();
        for rules in [Ruleset::TROMP_TAYLOR, Ruleset::NSTT, Ruleset::OLYMPIAD] {
            let sure = sure_area(&board, Color::Black, rules.suicide_allowed);
            assert_eq!((sure.alive, sure.eyes), (12, 4), "{rules}");
            assert_eq!(
                sure_area(&board, Color::White, rules.suicide_allowed).total(),
                0
            );
            let game = |komi: &str| {
                Game::from_position(
                    board.clone(),
                    Color::White,
                    rules.with_komi(komi.parse().unwrap()),
                )
            };
            let d = decided(&game("6.5")).unwrap();
            assert_eq!(d.outcome().to_sgf(), "B+0.5", "{rules}");
            assert!(d.explanation().starts_with(
                "decided: Black's win is certain: 16 points safe (12 stones of pass-alive blocks, 4 one-point eyes) of 25"
            ));
            assert_eq!(decided(&game("7")), None, "{rules}: a draw is possible");
            assert_eq!(decided(&game("-20")).unwrap().outcome().to_sgf(), "B+27");
            // White cannot do better than the bound: both pass, and the score is the margin.
            let mut g = game("6.5");
            g.play(Move::Pass).unwrap();
            g.play(Move::Pass).unwrap();
            assert_eq!(g.outcome().to_sgf(), "B+0.5");
            // 001 §3.5 / NSTT: White may not play in Black's eye; under Tromp-Taylor (rule 7)
            // the suicide would leave the board as it is, which rule 6 forbids.
            let g = game("6.5");
            let eye = g.geometry().at(0, 0).unwrap();
            assert!(!g.is_legal(Move::Play(eye)), "{rules}");
            // Komi alone can decide: with 30 on 25 points White is certain of at least
            // 0 − 25 + 30 = 5 with no sure point; with 25 a draw is possible.
            assert_eq!(decided(&game("30")).unwrap().outcome().to_sgf(), "W+5");
            assert_eq!(decided(&game("25")), None);
        }
    }

    /// Olympiad 3.6: after Black's capture at f1, the position before it (one more White
    /// stone, one fewer Black) is one White might seem to recreate while Black passes, so the
    /// game stays open; under positional superko (NSTT) it is decided.
    #[test]
    fn a_possible_long_cycle_keeps_the_game_open() {
        let board = crate::board_from_diagram(
            "
            . X . X O . .
            X X X X O . .
            . X . X O . .
            X X X X O . X
            O O O O O . O",
        )
        .unwrap();
        for (rules, decision) in [(Ruleset::OLYMPIAD, None), (Ruleset::NSTT, Some("B+7"))] {
            let rules = rules.with_komi("-10".parse().unwrap());
            let mut game = Game::from_position(board.clone(), Color::Black, rules);
            assert_eq!(
                decided(&game).map(|d| d.outcome().to_sgf()).as_deref(),
                Some("B+7")
            );
            let f1 = game.geometry().at(5, 4).unwrap();
            assert_eq!(game.play(Move::Play(f1)).unwrap().captured, 1);
            assert_eq!(
                decided(&game).map(|d| d.outcome().to_sgf()).as_deref(),
                decision,
                "{rules}"
            );
        }
    }
}
