//! Dead-stone lists and marks: which points a list or a mark really covers.

use std::collections::BTreeSet;

use goref_rules::{Board, Point};

/// A set of stones called dead.
pub type Dead = BTreeSet<Point>;

/// The stones of a dead list as given by a player or an engine: points that hold no stone are
/// dropped, and every named stone brings its whole string (a string lives or dies as one).
#[must_use]
pub fn normalize(board: &Board, list: impl IntoIterator<Item = Point>) -> Dead {
    let mut dead = Dead::new();
    for p in list {
        if board.geometry().contains(p) && board.get(p).is_some() && !dead.contains(&p) {
            dead.extend(board.string(p));
        }
    }
    dead
}

/// Reference 003: "Marking a string as dead, which automatically marks all other same colored
/// strings neighbouring the adjacent empty region(s)." Returns the stones marked by marking the
/// string through `p` (empty when `p` holds no stone).
#[must_use]
pub fn mark(board: &Board, p: Point) -> Dead {
    let Some(color) = board.get(p) else {
        return Dead::new();
    };
    let string = board.string(p);
    let mut marked: Dead = string.iter().copied().collect();
    for region in adjacent_empty_regions(board, &string) {
        for q in region {
            for &n in board.geometry().neighbors(q) {
                if board.get(n) == Some(color) && !marked.contains(&n) {
                    marked.extend(board.string(n));
                }
            }
        }
    }
    marked
}

/// The empty regions (maximal connected sets of empty points) touching the given stones.
fn adjacent_empty_regions(board: &Board, stones: &[Point]) -> Vec<Vec<Point>> {
    let mut seen = BTreeSet::new();
    let mut regions = Vec::new();
    for &s in stones {
        for &n in board.geometry().neighbors(s) {
            if board.get(n).is_none() && seen.insert(n) {
                let mut region = vec![n];
                let mut at = 0;
                while at < region.len() {
                    for &m in board.geometry().neighbors(region[at]) {
                        if board.get(m).is_none() && seen.insert(m) {
                            region.push(m);
                        }
                    }
                    at += 1;
                }
                regions.push(region);
            }
        }
    }
    regions
}

/// The board with the given stones removed ([`Board::without`]).
#[must_use]
pub fn without(board: &Board, dead: &Dead) -> Board {
    board.without(&dead.iter().copied().collect::<Vec<_>>())
}

/// Area score (Black, White) after removing `dead` (TT rule 9 on the cleared board).
#[must_use]
pub fn area_without(board: &Board, dead: &Dead) -> goref_rules::ByColor<u32> {
    without(board, dead).area()
}
