//! Blocks (Olympiad 3.3: an intersection and all connected intersections of its colour) of a
//! colouring, labelled once so that the judgement can name them, and a diagram reader.

use std::fmt;
use std::sync::Arc;

use goref_rules::{Board, Color, Geometry, GeometryError, Point, SetupError};

/// No block: the point is empty.
pub const NO_BLOCK: u32 = u32::MAX;

/// One block: its colour and its stones (in point order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The colour of its stones.
    pub color: Color,
    /// Its stones, in point order.
    pub stones: Vec<Point>,
}

impl Block {
    /// The block's first stone in point order: the name used for it in reports.
    #[must_use]
    pub fn anchor(&self) -> Point {
        self.stones[0]
    }
}

/// Every block of a colouring.
#[derive(Clone, Debug)]
pub struct Blocks {
    /// For each point, the index of its block in `list`, or `NO_BLOCK`.
    pub of: Vec<u32>,
    /// The blocks, ordered by their first stone.
    pub list: Vec<Block>,
}

impl Blocks {
    /// Labels the blocks of `colors` on `geometry`.
    #[must_use]
    pub fn new(geometry: &Geometry, colors: &[Option<Color>]) -> Blocks {
        let mut of = vec![NO_BLOCK; colors.len()];
        let mut list = Vec::new();
        let mut stack = Vec::new();
        for start in 0..colors.len() {
            let Some(color) = colors[start] else { continue };
            if of[start] != NO_BLOCK {
                continue;
            }
            let id = list.len() as u32;
            let mut stones = Vec::new();
            of[start] = id;
            stack.push(Point::new(start));
            while let Some(p) = stack.pop() {
                stones.push(p);
                for &n in geometry.neighbors(p) {
                    if colors[n.index()] == Some(color) && of[n.index()] == NO_BLOCK {
                        of[n.index()] = id;
                        stack.push(n);
                    }
                }
            }
            stones.sort_unstable();
            list.push(Block { color, stones });
        }
        Blocks { of, list }
    }

    /// The index of the block holding stone `p`.
    #[must_use]
    pub fn at(&self, p: Point) -> Option<usize> {
        let id = self.of[p.index()];
        (id != NO_BLOCK).then_some(id as usize)
    }
}

/// Why a diagram is not a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiagramError {
    /// A character that is neither a stone, an empty point, a space nor `|`.
    Unexpected(char),
    /// Rows of different lengths.
    RaggedRows,
    /// A size the rules do not support (an empty diagram, or a side above 25).
    Size(GeometryError),
    /// A position no game can reach (a string without liberties).
    Setup(SetupError),
}

impl fmt::Display for DiagramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiagramError::Unexpected(c) => write!(f, "unexpected '{c}' in diagram"),
            DiagramError::RaggedRows => f.write_str("diagram rows differ in length"),
            DiagramError::Size(e) => e.fmt(f),
            DiagramError::Setup(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DiagramError {}

/// Reads a board diagram: one line a row, top row first, `X` or `#` Black, `O` or `@` White,
/// `.` or `+` empty; spaces and a leading `|` are ignored. Every row must have the same length.
pub fn board_from_diagram(text: &str) -> Result<Board, DiagramError> {
    let rows: Vec<Vec<Option<Color>>> = text
        .lines()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.chars()
                .filter(|c| !c.is_whitespace() && *c != '|')
                .map(|c| match c {
                    'X' | 'x' | '#' => Ok(Some(Color::Black)),
                    'O' | 'o' | '@' => Ok(Some(Color::White)),
                    '.' | '+' => Ok(None),
                    other => Err(DiagramError::Unexpected(other)),
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let height = rows.len();
    let width = rows.first().map_or(0, Vec::len);
    if rows.iter().any(|r| r.len() != width) {
        return Err(DiagramError::RaggedRows);
    }
    let geometry = Geometry::rect(width, height).map_err(DiagramError::Size)?;
    let colors: Vec<Option<Color>> = rows.into_iter().flatten().collect();
    Board::from_colors(Arc::new(geometry), &colors).map_err(DiagramError::Setup)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_labelled_by_connection() {
        let board = board_from_diagram(
            "X X .
             . O X
             O O .",
        )
        .unwrap();
        let blocks = Blocks::new(board.geometry(), board.colors());
        assert_eq!(blocks.list.len(), 3);
        assert_eq!(blocks.list[0].stones.len(), 2);
        assert_eq!(blocks.list[1].color, Color::White);
        assert_eq!(blocks.list[1].stones.len(), 3);
        assert_eq!(blocks.at(Point::new(2)), None);
    }

    #[test]
    fn a_bad_diagram_says_why() {
        assert_eq!(
            board_from_diagram("X ? .").unwrap_err(),
            DiagramError::Unexpected('?')
        );
        assert_eq!(
            board_from_diagram("X X .\n. O").unwrap_err(),
            DiagramError::RaggedRows
        );
        assert!(matches!(
            board_from_diagram("").unwrap_err(),
            DiagramError::Size(GeometryError::BadSide {
                width: 0,
                height: 0
            })
        ));
        // A black stone with no liberty: no game reaches it.
        assert!(matches!(
            board_from_diagram("X O\nO .").unwrap_err(),
            DiagramError::Setup(SetupError::NoLiberties(_))
        ));
    }
}
