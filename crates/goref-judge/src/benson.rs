//! Pass-alive blocks and territory: Benson's algorithm, for suicide legal and illegal.
//!
//! Reference 001 §3.9.1: "A block for which no strategy exists to remove it under one-sided
//! moving of the opposing colour is pass-alive." Benson (1976, "Life in the game of Go")
//! characterises exactly these blocks when suicide is illegal:
//!
//! - a *region* of colour `c` is a maximal connected set of points that are not `c` (empty or
//!   the opponent's stones);
//! - a region is *vital* to a `c` block `X` when every empty point of the region is a liberty
//!   of `X`;
//! - start from all `c` blocks; repeatedly drop every block with fewer than two vital regions
//!   among the regions all of whose bordering blocks are still kept. What stays is pass-alive.
//!
//! When suicide is legal (Tromp-Taylor), the opponent can empty a region's points that hold
//! its own stones by suicide and then play on the liberties of `X` while keeping those points
//! as its own liberties; so a region is vital only when *every* point of it, stone or empty,
//! is adjacent to `X` (as KataGo does for multi-stone suicide). The property tests check both
//! variants against a brute-force search of every sequence of opponent moves.
//!
//! Why this form holds when suicide is legal. The opponent can fill `X`'s liberties in a region
//! `R` at a moment that is not the capturing play exactly when some set `S` of its stones in
//! `R` covers the points of `R` next to `X` and every string of `S` keeps a liberty in `R`
//! (strings in `R` have their liberties in `R`). Self-capture lets it empty `R` and build any
//! such `S` from the empty points outwards, so such an `S` exists exactly when the smallest
//! candidate, the points of `R` next to `X`, leaves an empty point: when some point of `R` is
//! not next to `X`. If every point of `R` is next to `X`, filling them all leaves strings
//! without liberties, which only the capturing play itself may do; with two such regions,
//! enclosed by blocks that are never captured first, the capturing play cannot be in both
//! (Benson's argument, unchanged).
//!
//! [`pass_alive_beside`] is the same test when some stones of the other colour are known to
//! stay (the block whose fate the judge asks about is kept on the board by definition): such
//! a stone is never emptied, so a region whose every point is next to `X` *or one of those
//! stones* is vital to `X`. The argument above applies with `S` also covering the kept stones:
//! a region every point of which is next to `X` or kept leaves such an `S` no liberty. With
//! suicide illegal nothing changes (kept stones are not empty).

use goref_rules::{Color, Geometry, Point};

/// The pass-alive blocks and territory of one colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassAlive {
    /// The colour whose blocks these are.
    pub color: Color,
    /// Per point: a stone of a pass-alive block.
    pub alive: Vec<bool>,
    /// Per point: part of a region enclosed only by pass-alive blocks and vital to at least one
    /// of them (the opponent cannot live there, even moving alone).
    pub territory: Vec<bool>,
}

impl PassAlive {
    /// Whether the stone at `p` belongs to a pass-alive block.
    #[must_use]
    pub fn is_alive(&self, p: Point) -> bool {
        self.alive[p.index()]
    }
}

/// The pass-alive blocks and territory of `color` on the colouring `colors`.
#[must_use]
pub fn pass_alive(
    geometry: &Geometry,
    colors: &[Option<Color>],
    color: Color,
    suicide_allowed: bool,
) -> PassAlive {
    let mut benson = Benson::default();
    benson.run(geometry, colors, color, suicide_allowed);
    let alive = (0..colors.len())
        .map(|i| benson.block_of[i] != NONE && benson.alive[benson.block_of[i] as usize])
        .collect();
    let territory = (0..colors.len())
        .map(|i| benson.region_of[i] != NONE && benson.territory[benson.region_of[i] as usize])
        .collect();
    PassAlive {
        color,
        alive,
        territory,
    }
}

const NONE: u32 = u32::MAX;

/// The pass-alive blocks of `color` against one-sided moving of the other colour *in the lines
/// that keep the stones `kept` (of the other colour) on the board*: blocks that no such line
/// removes (see the module's text). With suicide illegal this is [`pass_alive`]; with it
/// legal it holds at least those blocks. `territory` is left empty.
#[must_use]
pub fn pass_alive_beside(
    geometry: &Geometry,
    colors: &[Option<Color>],
    color: Color,
    suicide_allowed: bool,
    kept: &[Point],
) -> PassAlive {
    let mut benson = Benson::default();
    let mut kept_mask = vec![false; colors.len()];
    for p in kept {
        kept_mask[p.index()] = true;
    }
    benson.run_keeping(geometry, colors, color, suicide_allowed, &kept_mask);
    let alive = (0..colors.len())
        .map(|i| benson.block_of[i] != NONE && benson.alive[benson.block_of[i] as usize])
        .collect();
    PassAlive {
        color,
        alive,
        territory: vec![false; colors.len()],
    }
}

/// Benson's algorithm with buffers kept between runs (the searches run it at every node).
#[derive(Default, Clone, Debug)]
pub(crate) struct Benson {
    block_of: Vec<u32>,
    region_of: Vec<u32>,
    blocks: usize,
    /// Per region: the blocks bordering it (each once).
    border: Vec<Vec<u32>>,
    /// Per region: the blocks it is vital to.
    vital: Vec<Vec<u32>>,
    alive: Vec<bool>,
    territory: Vec<bool>,
    stack: Vec<Point>,
    count: Vec<u32>,
    healthy: Vec<bool>,
}

impl Benson {
    /// Runs the algorithm for `color`.
    pub(crate) fn run(
        &mut self,
        geometry: &Geometry,
        colors: &[Option<Color>],
        color: Color,
        suicide_allowed: bool,
    ) {
        self.run_keeping(geometry, colors, color, suicide_allowed, &[]);
    }

    /// Runs the algorithm for `color`, the stones marked in `kept` (of the other colour) known
    /// to stay on the board (an empty slice keeps none).
    pub(crate) fn run_keeping(
        &mut self,
        geometry: &Geometry,
        colors: &[Option<Color>],
        color: Color,
        suicide_allowed: bool,
        kept: &[bool],
    ) {
        let n = colors.len();
        self.block_of.clear();
        self.block_of.resize(n, NONE);
        self.region_of.clear();
        self.region_of.resize(n, NONE);
        self.blocks = 0;
        let mut regions = 0usize;
        // Label blocks of `color` and regions (maximal connected sets of non-`color` points).
        for start in 0..n {
            let own = colors[start] == Some(color);
            let labels = if own {
                &mut self.block_of
            } else {
                &mut self.region_of
            };
            if labels[start] != NONE {
                continue;
            }
            let id = if own {
                self.blocks += 1;
                self.blocks - 1
            } else {
                regions += 1;
                regions - 1
            } as u32;
            labels[start] = id;
            self.stack.push(Point::new(start));
            while let Some(p) = self.stack.pop() {
                for &q in geometry.neighbors(p) {
                    if (colors[q.index()] == Some(color)) == own && labels[q.index()] == NONE {
                        labels[q.index()] = id;
                        self.stack.push(q);
                    }
                }
            }
        }
        for list in [&mut self.border, &mut self.vital] {
            list.iter_mut().for_each(Vec::clear);
            list.resize_with(regions.max(list.len()), Vec::new);
        }
        let mut started = vec![false; regions];
        // Border blocks of each region, and the blocks it is vital to: the blocks adjacent to
        // every relevant point (empty points; every point when suicide is legal).
        let mut adjacent: Vec<u32> = Vec::with_capacity(8);
        for (i, &point_color) in colors.iter().enumerate() {
            let r = self.region_of[i];
            if r == NONE {
                continue;
            }
            let r = r as usize;
            adjacent.clear();
            for &q in geometry.neighbors(Point::new(i)) {
                let b = self.block_of[q.index()];
                if b != NONE && !adjacent.contains(&b) {
                    adjacent.push(b);
                }
            }
            for &b in &adjacent {
                if !self.border[r].contains(&b) {
                    self.border[r].push(b);
                }
            }
            let relevant = point_color.is_none()
                || (suicide_allowed && !kept.get(i).copied().unwrap_or(false));
            if relevant {
                if started[r] {
                    self.vital[r].retain(|b| adjacent.contains(b));
                } else {
                    started[r] = true;
                    self.vital[r].extend_from_slice(&adjacent);
                }
            }
        }
        self.alive.clear();
        self.alive.resize(self.blocks, true);
        self.healthy.clear();
        self.healthy.resize(regions, false);
        loop {
            for r in 0..regions {
                self.healthy[r] = !self.border[r].is_empty()
                    && self.border[r].iter().all(|&b| self.alive[b as usize]);
            }
            self.count.clear();
            self.count.resize(self.blocks, 0);
            for r in 0..regions {
                if self.healthy[r] {
                    for &b in &self.vital[r] {
                        self.count[b as usize] += 1;
                    }
                }
            }
            let mut changed = false;
            for b in 0..self.blocks {
                if self.alive[b] && self.count[b] < 2 {
                    self.alive[b] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.territory.clear();
        self.territory.extend((0..regions).map(|r| {
            !self.border[r].is_empty()
                && self.border[r].iter().all(|&b| self.alive[b as usize])
                && !self.vital[r].is_empty()
        }));
    }

    /// After [`Benson::run`]: whether the stone at `p` is in a pass-alive block.
    pub(crate) fn is_alive(&self, p: Point) -> bool {
        let b = self.block_of[p.index()];
        b != NONE && self.alive[b as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board_from_diagram;

    fn alive_map(diagram: &str, color: Color, suicide: bool) -> String {
        let board = board_from_diagram(diagram).unwrap();
        let pa = pass_alive(board.geometry(), board.colors(), color, suicide);
        let (w, _) = board.geometry().size().unwrap();
        let mut s = String::new();
        for (i, c) in board.colors().iter().enumerate() {
            s.push(match (c, pa.alive[i], pa.territory[i]) {
                (Some(_), true, _) => 'A',
                (Some(c), false, _) if *c == color => 'd',
                (_, _, true) => 't',
                _ => '.',
            });
            if i % w == w - 1 {
                s.push('\n');
            }
        }
        s
    }

    /// Two one-point eyes: the textbook pass-alive group (Benson 1976).
    #[test]
    fn two_separate_eyes_are_pass_alive_and_one_eye_is_not() {
        let two = "
            . X . X O .
            X X X X O .
            O O O O O .
            . . . . . .";
        assert_eq!(
            alive_map(two, Color::Black, false),
            "tAtAd.\nAAAAd.\ndddd..\n......\n".replace('d', ".")
        );
        let one = "
            . X X X O .
            X X X X O .
            O O O O O .
            . . . . . .";
        assert!(!alive_map(one, Color::Black, false).contains('A'));
    }

    /// Benson's algorithm in both forms is exact on positions up to 5×4: a block it calls
    /// pass-alive survives every sequence of the opponent's plays (self-captures included
    /// when suicide is legal), and every other block is removed by one. The property tests
    /// do the same on boards up to 4×4. The forms differ on a corner eye around a stone that
    /// touches no Black stone: White alone lifts it (a2 is a self-capture), refills b3 and a2
    /// around the empty a3 and takes Black's last liberty at d3.
    #[test]
    fn both_forms_are_exact_against_brute_force() {
        let corner = crate::board_from_diagram(
            "
            O . X . X
            . X X X X
            X X X X X",
        )
        .unwrap();
        let black = corner.geometry().at(2, 0).unwrap();
        let mut boards = crate::testing::positions(100, 0x9e37_79b9_7f4a_7c15);
        boards.push(corner.clone());
        let mut checked = [0usize; 2];
        for board in boards {
            for suicide in [false, true] {
                for color in Color::ALL {
                    let pa = pass_alive(board.geometry(), board.colors(), color, suicide);
                    let Some(reached) =
                        crate::testing::one_sided(&board, color.opponent(), suicide, &[], 20_000)
                    else {
                        continue;
                    };
                    for p in board.geometry().points() {
                        if board.get(p) != Some(color) {
                            continue;
                        }
                        let removable = reached.iter().any(|b| b.get(p) != Some(color));
                        assert_eq!(
                            pa.is_alive(p),
                            !removable,
                            "{color:?} at {} suicide {suicide}\n{}",
                            p.index(),
                            board.to_ascii()
                        );
                        checked[usize::from(suicide)] += 1;
                    }
                }
            }
        }
        assert!(checked[0] > 200 && checked[1] > 200, "{checked:?}");
        let (g, colors) = (corner.geometry(), corner.colors());
        assert!(pass_alive(g, colors, Color::Black, false).is_alive(black));
        assert!(!pass_alive(g, colors, Color::Black, true).is_alive(black));
    }

    /// A large eye (territory where some empty point is not a liberty) is not vital.
    #[test]
    fn a_big_eye_alone_does_not_make_pass_alive() {
        let big = "
            . . . X . .
            X X X X . .
            . . . . . .";
        assert!(!alive_map(big, Color::Black, false).contains('A'));
    }
}
