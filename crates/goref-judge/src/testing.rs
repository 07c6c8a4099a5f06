//! For tests: legal positions from arbitrary cells, as the property tests draw them.

use std::sync::Arc;

use goref_rules::{Board, Color, Geometry, SetupError};

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
