//! Each side's strategy for a proved value, for a certificate: the search's null-window tests
//! again, on its table. For Black's "at least `V`": at Black's turns one move whose child is
//! proved at least `V` (a move that ends the game at such a value, first), at White's every
//! legal move followed; White's "at most `V`" the same way round. The game tree is finite
//! under the rules solved (superko forbids a repeated position, the long cycle rule ends the
//! game at one, and two passes end it), so the walk ends; a limit on the lines keeps its size
//! in bounds.

use goref_rules::{Color, Move, Point};

use crate::certificate::StrategyLine;
use crate::search::{Aborted, Search, PASS};

/// Why a strategy was not extracted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failed {
    /// The node budget ran out.
    Aborted,
    /// More lines than the limit.
    TooLarge,
    /// No move of the prover keeps the bound the search proved: the search is unsound there.
    NoMove,
}

impl From<Aborted> for Failed {
    fn from(_: Aborted) -> Failed {
        Failed::Aborted
    }
}

struct Walk {
    prover: Color,
    /// Whether the board has a point of three neighbours (see [`Walk::walk`]).
    branches: bool,
    /// The bound, for Black, in half points (or a long-cycle win).
    value: i32,
    line: Vec<u8>,
    out: Vec<StrategyLine>,
    limit: usize,
}

fn as_move(mv: u8) -> Move {
    if mv == PASS {
        Move::Pass
    } else {
        Move::Play(Point::new(usize::from(mv)))
    }
}

impl Walk {
    /// Whether a value for Black meets the bound.
    fn meets(&self, for_black: i32) -> bool {
        match self.prover {
            Color::Black => for_black >= self.value,
            Color::White => for_black <= self.value,
        }
    }

    /// Whether the node at the end of `search`'s line meets the bound, by a null-window test.
    fn node_meets(&self, search: &mut Search) -> Result<bool, Aborted> {
        let to_move = search.frames.last().expect("a node").to_move;
        let v = self.value;
        Ok(match (self.prover, to_move) {
            // Black's value at least v.
            (Color::Black, Color::Black) => search.prove(v)?.0 >= v,
            // White's value at most -v.
            (Color::Black, Color::White) => search.prove(1 - v)?.0 < 1 - v,
            // Black's value at most v.
            (Color::White, Color::Black) => search.prove(v + 1)?.0 < v + 1,
            // White's value at least -v.
            (Color::White, Color::White) => search.prove(-v)?.0 >= -v,
        })
    }

    /// Whether Benson's bounds alone keep the bound at the node at the end of the line.
    fn settled(&self, search: &Search) -> bool {
        let f = *search.frames.last().expect("a node");
        let (low, _, high, _) = search.static_bounds(&f);
        let v = self.value;
        match (self.prover, f.to_move) {
            (Color::Black, Color::Black) => low >= v,
            (Color::Black, Color::White) => high <= -v,
            (Color::White, Color::Black) => high <= v,
            (Color::White, Color::White) => low >= -v,
        }
    }

    fn emit(&mut self, mv: u8) -> Result<(), Failed> {
        if self.out.len() >= self.limit {
            return Err(Failed::TooLarge);
        }
        self.out.push(StrategyLine {
            proves: self.prover,
            line: self.line.iter().map(|&m| as_move(m)).collect(),
            play: as_move(mv),
        });
        Ok(())
    }

    /// The strategy from the node at the end of `search`'s line (whose value meets the bound),
    /// leaving the line as it found it.
    fn walk(&mut self, search: &mut Search) -> Result<(), Failed> {
        let f = *search.frames.last().expect("a node");
        let mut moves = search.moves();
        if f.to_move == self.prover {
            // The pass first where it ends the game; then the move the search stored as best.
            if let Some(i) = search
                .stored_best()
                .and_then(|best| moves.iter().position(|&m| m == best))
            {
                moves[..=i].rotate_right(1);
            }
            if f.passes >= 1 {
                let i = moves.iter().position(|&m| m == PASS).expect("the pass");
                moves[..=i].rotate_right(1);
            }
            // Of the moves that keep the bound: a move that ends the game at once; else one after
            // which Benson's bounds alone keep it (the search's `static_bounds`, which need no
            // test: the rest of the game is then short, the prover's chains being safe); else
            // one that a null-window test proves. Of those, the one after which the other side
            // has the fewest legal replies (the strategy follows each). (Without the
            // preference for settled positions 2×4, B+8, took more than 2M lines; with it 58k
            // under nstt. Not on lines, where it led 1×7's extraction past 20M nodes, against
            // 265k without it.)
            let mut chosen: Option<(usize, u8)> = None;
            let mut unsettled = Vec::new();
            for &mv in &moves {
                if let Some(end) = search.play_line(mv) {
                    if self.meets(end) {
                        return self.emit(mv);
                    }
                    continue;
                }
                if self.branches && self.settled(search) {
                    let replies = search.moves().len();
                    if chosen.is_none_or(|(fewest, _)| replies < fewest) {
                        chosen = Some((replies, mv));
                    }
                } else {
                    unsettled.push(mv);
                }
                search.pop();
            }
            if chosen.is_none() {
                for mv in unsettled {
                    if search.play_line(mv).is_some() {
                        // (It did not end the game when it was tried above: it cannot now.)
                        return Err(Failed::NoMove);
                    }
                    if chosen.is_none_or(|(fewest, _)| fewest > 1) && self.node_meets(search)? {
                        let replies = search.moves().len();
                        if chosen.is_none_or(|(fewest, _)| replies < fewest) {
                            chosen = Some((replies, mv));
                        }
                    }
                    search.pop();
                }
            }
            if let Some((_, mv)) = chosen {
                self.emit(mv)?;
                if search.play_line(mv).is_some() {
                    // (It did not end the game when it was tried above: it cannot now.)
                    return Err(Failed::NoMove);
                }
                self.line.push(mv);
                let below = self.walk(search);
                self.line.pop();
                search.pop();
                return below;
            }
            Err(Failed::NoMove)
        } else {
            for mv in moves {
                if let Some(end) = search.play_line(mv) {
                    if !self.meets(end) {
                        return Err(Failed::NoMove);
                    }
                    continue;
                }
                self.line.push(mv);
                let below = self.walk(search);
                self.line.pop();
                search.pop();
                below?;
            }
            Ok(())
        }
    }
}

/// Black's strategy for "at least `value`" (for Black, in half points) and White's for "at
/// most `value`", from the end of `search`'s line, at most `limit` lines in all.
pub(crate) fn strategies(
    search: &mut Search,
    value: i32,
    limit: usize,
) -> Result<Vec<StrategyLine>, Failed> {
    let depth = search.frames.len();
    let mut out = Vec::new();
    for prover in Color::ALL {
        let mut walk = Walk {
            prover,
            branches: search.branches(),
            value,
            line: Vec::new(),
            out,
            limit,
        };
        let walked = walk.walk(search);
        // A walk that failed (the budget ran out in a test) leaves its line on the search:
        // take it back, so that the search goes on from where it was.
        while search.frames.len() > depth {
            search.pop();
        }
        walked?;
        out = walk.out;
    }
    Ok(out)
}
