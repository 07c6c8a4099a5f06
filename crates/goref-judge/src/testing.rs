//! For tests: legal positions from arbitrary cells, as the property tests draw them, and the
//! brute force of one-sided moving the definitions are checked against.

use std::collections::HashSet;
use std::sync::Arc;

use goref_rules::{Board, Color, Geometry, Point, SetupError};

/// A legal `width` by `height` position from arbitrary cells (two in five empty, then Black
/// and White by parity, one in five White): strings left without liberties are emptied.
///
/// # Panics
///
/// When the size is not a rectangle goref-rules accepts or `cells` does not cover it.
#[must_use]
pub fn position(width: usize, height: usize, cells: &[u8]) -> Board {
    let geometry = Arc::new(Geometry::rect(width, height).expect("a board size"));
    let mut colors: Vec<Option<Color>> = cells
        .iter()
        .map(|c| match c % 5 {
            0 | 1 => None,
            2 | 3 => Some(if c % 2 == 0 {
                Color::Black
            } else {
                Color::White
            }),
            _ => Some(Color::White),
        })
        .collect();
    loop {
        match Board::from_colors(Arc::clone(&geometry), &colors) {
            Ok(board) => return board,
            Err(SetupError::NoLiberties(p)) => {
                let color = colors[p.index()];
                let mut stack = vec![p];
                colors[p.index()] = None;
                while let Some(q) = stack.pop() {
                    for &n in geometry.neighbors(q) {
                        if colors[n.index()] == color {
                            colors[n.index()] = None;
                            stack.push(n);
                        }
                    }
                }
            }
            Err(e) => panic!("{e}"),
        }
    }
}

/// `count` positions from [`position`], of 3 to 5 columns and 3 or 4 rows, drawn by a fixed
/// generator from `seed` (the same positions every run).
#[must_use]
pub fn positions(count: usize, seed: u64) -> Vec<Board> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as u8
    };
    (0..count)
        .map(|_| {
            let (w, h) = (3 + next() as usize % 3, 3 + next() as usize % 2);
            let cells: Vec<u8> = (0..w * h).map(|_| next() % 10).collect();
            position(w, h, &cells)
        })
        .collect()
}

/// Every position that plays of `mover` alone reach from `board` (the other colour passing),
/// anywhere on the board, suicide legal when `suicide` says so, in the lines that keep the
/// stones `keep` (of `mover`) on the board; `None` past `limit` positions.
#[must_use]
pub fn one_sided(
    board: &Board,
    mover: Color,
    suicide: bool,
    keep: &[Point],
    limit: usize,
) -> Option<Vec<Board>> {
    let mut seen: HashSet<Vec<u64>> = HashSet::from([board.packed().to_vec()]);
    let mut out = vec![board.clone()];
    let mut i = 0;
    while i < out.len() {
        let b = out[i].clone();
        i += 1;
        for p in b.geometry().points() {
            if b.get(p).is_some() || (!suicide && b.effect(p, mover).suicided > 0) {
                continue;
            }
            let mut a = b.clone();
            a.play_unchecked(p, mover);
            if keep.iter().all(|&s| a.get(s) == Some(mover)) && seen.insert(a.packed().to_vec()) {
                out.push(a);
                if out.len() > limit {
                    return None;
                }
            }
        }
    }
    Some(out)
}
