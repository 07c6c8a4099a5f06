//! The maximal local region of a block (reference 001 §3.9.1).
//!
//! "The maximal local region of a block is the maximal connected set of intersections that can
//! become adjacent to, or part of, that block under continued one-sided moving of its colour."
//!
//! Under one-sided moving of colour `c` the opponent only passes, so (Benson) the stones of
//! the opponent's pass-alive blocks stay forever and nothing beyond them can be reached: let
//! `K` be the connected set of points, not stones of those blocks, that holds the block `B`.
//! Every position one-sided moving reaches differs from the start only inside `K`.
//!
//! Which points of `K` can become part of `B` is decided exactly, in two steps:
//!
//! 1. construction: for a point `p` kept empty as a liberty, capture the opposing blocks of
//!    `K` by filling their liberties, then fill the rest of `K` around `B` breadth-first; the
//!    plays are replayed on the board, so every point of the resulting block is joinable;
//! 2. if some point of `K` is still unproven, enumerate every position one-sided moving
//!    reaches inside `K` (each once, within a budget) and take the union of the block's
//!    points; when the budget runs out the region is marked inexact and every verdict that
//!    needs it is undecided.
//!
//! The region is the joinable points and their neighbours. The property tests compare it with
//! an exhaustive enumeration of one-sided moving on the whole of small boards.

use std::collections::{HashSet, VecDeque};

use goref_rules::{Board, Color, Geometry, Point};

use crate::benson::PassAlive;
use crate::context::{capture_opponents, one_sided_play, Context};

/// The maximal local region of one block, with the sets it is built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalRegion {
    /// The block's colour.
    pub color: Color,
    /// The block's stones.
    pub block: Vec<Point>,
    /// Per point: in `K`, the connected set of points not held by the opponent's pass-alive
    /// blocks that contains the block (where one-sided moving can reach).
    pub reach: Vec<bool>,
    /// Per point: can become part of the block.
    pub joinable: Vec<bool>,
    /// Per point: in the maximal local region (joinable, or adjacent to a joinable point).
    pub region: Vec<bool>,
    /// The points of the region, in point order.
    pub points: Vec<Point>,
    /// Whether `joinable` and `region` are exact; if not, they are what was proven joinable
    /// before the budget ran out (a subset).
    pub exact: bool,
}

impl LocalRegion {
    /// Whether `p` is in the region.
    #[must_use]
    pub fn contains(&self, p: Point) -> bool {
        self.region[p.index()]
    }

    /// The points of `K` (see [`LocalRegion::reach`]), in point order.
    #[must_use]
    pub fn reach_points(&self) -> Vec<Point> {
        (0..self.reach.len())
            .filter(|&i| self.reach[i])
            .map(Point::new)
            .collect()
    }
}

/// `K`: the connected set of points, not stones of the opponent's pass-alive blocks, that
/// holds the block of `stone`.
#[must_use]
pub fn reach(board: &Board, stone: Point, opponent_alive: &PassAlive) -> Vec<bool> {
    let geometry: &Geometry = board.geometry();
    let mut reach = vec![false; geometry.len()];
    let mut stack = vec![stone];
    reach[stone.index()] = true;
    while let Some(p) = stack.pop() {
        for &q in geometry.neighbors(p) {
            if !reach[q.index()] && !opponent_alive.alive[q.index()] {
                reach[q.index()] = true;
                stack.push(q);
            }
        }
    }
    reach
}

/// The maximal local region of the block holding `stone`, given the pass-alive blocks of the
/// opposing colour (computed with the game's suicide rule; or, the same region found with
/// less work when suicide is legal, the blocks that stay while the block does:
/// [`crate::pass_alive_beside`] with the block's stones kept); `budget` bounds the positions
/// enumerated when construction does not settle every point.
///
/// Panics if `stone` is empty or `opponent_alive` is not for the opposing colour.
#[must_use]
pub fn maximal_local_region(
    board: &Board,
    stone: Point,
    opponent_alive: &PassAlive,
    ctx: &Context,
    budget: u64,
) -> LocalRegion {
    let color = board
        .get(stone)
        .expect("a block is named by one of its stones");
    assert_eq!(opponent_alive.color, color.opponent());
    let geometry: &Geometry = board.geometry();
    let n = geometry.len();
    let block = board.string(stone);
    let reach = reach(board, stone, opponent_alive);
    let mut joinable = vec![false; n];
    for &s in &block {
        joinable[s.index()] = true;
    }
    // Step 1: constructions, each keeping one point of K empty.
    let candidates: Vec<Point> = (0..n)
        .filter(|&i| reach[i] && board.get(Point::new(i)) != Some(color))
        .map(Point::new)
        .collect();
    let settled = |joinable: &[bool]| (0..n).all(|i| !reach[i] || joinable[i]);
    let mut tried = 0;
    for pass in 0..2 {
        for &p in &candidates {
            if settled(&joinable) || tried >= 16 {
                break;
            }
            // First the points not yet joined (they may be a needed liberty), then the rest.
            if (pass == 0) == joinable[p.index()] {
                continue;
            }
            tried += 1;
            if let Some(block_after) = construct(board, stone, &reach, p, ctx) {
                for q in block_after {
                    joinable[q.index()] = true;
                }
            }
        }
    }
    // Step 2: enumeration inside K.
    let mut exact = true;
    if !settled(&joinable) {
        match enumerate(board, stone, &reach, ctx, budget) {
            Some(all) => joinable = all,
            None => exact = false,
        }
    }
    let mut region = joinable.clone();
    for (i, _) in joinable.iter().enumerate().filter(|(_, &j)| j) {
        for &q in geometry.neighbors(Point::new(i)) {
            region[q.index()] = true;
        }
    }
    let points = (0..n).filter(|&i| region[i]).map(Point::new).collect();
    LocalRegion {
        color,
        block,
        reach,
        joinable,
        region,
        points,
        exact,
    }
}

/// Keeps `liberty` empty, captures what filling liberties captures, then fills the rest of `K`
/// breadth-first from the block; returns the block's stones at the end (all joinable).
fn construct(
    board: &Board,
    stone: Point,
    reach: &[bool],
    liberty: Point,
    ctx: &Context,
) -> Option<Vec<Point>> {
    let color = board.get(stone)?;
    let geometry = board.geometry();
    let (mut b, _) = capture_opponents(board, stone, reach, Some(liberty), ctx)?;
    let n = geometry.len();
    let mut seen = vec![false; n];
    seen[liberty.index()] = true;
    let mut queue = VecDeque::new();
    for s in b.string(stone) {
        seen[s.index()] = true;
        queue.push_back(s);
    }
    let mut first = true;
    while let Some(p) = queue.pop_front() {
        if b.get(p).is_none() {
            match one_sided_play(&b, p, color, first, ctx, false) {
                Some(after) if after.get(stone) == Some(color) => {
                    b = after;
                    first = false;
                }
                _ => continue,
            }
        }
        if b.get(p) != Some(color) {
            continue;
        }
        for &q in geometry.neighbors(p) {
            if reach[q.index()] && !seen[q.index()] && b.get(q) != Some(color.opponent()) {
                seen[q.index()] = true;
                queue.push_back(q);
            }
        }
    }
    Some(b.string(stone))
}

/// Every position one-sided moving reaches with plays inside `K` while the block stays; the
/// union of the block's points over them, or `None` past `budget` positions.
fn enumerate(
    board: &Board,
    stone: Point,
    reach: &[bool],
    ctx: &Context,
    budget: u64,
) -> Option<Vec<bool>> {
    let color = board.get(stone)?;
    let block = board.string(stone);
    let points: Vec<Point> = (0..reach.len())
        .filter(|&i| reach[i])
        .map(Point::new)
        .collect();
    let mut joinable = vec![false; reach.len()];
    let mut seen: HashSet<Vec<u64>> = HashSet::new();
    seen.insert(board.packed().to_vec());
    let mut queue = vec![(board.clone(), true)];
    while let Some((b, first)) = queue.pop() {
        for s in b.string(stone) {
            joinable[s.index()] = true;
        }
        for &p in &points {
            let Some(after) = one_sided_play(&b, p, color, first, ctx, true) else {
                continue;
            };
            if block.iter().any(|&s| after.get(s) != Some(color)) {
                continue;
            }
            if seen.insert(after.packed().to_vec()) {
                crate::context::count_node();
                if seen.len() as u64 > budget {
                    return None;
                }
                queue.push((after, false));
            }
        }
    }
    Some(joinable)
}
