//! The board as a graph: points and which pairs of them are adjacent.
//!
//! Reference 004, rule 1 comment: "go can be played on any finite graph". A rectangular grid is
//! the common case and gets coordinates and names; any other graph is given by its edges.

use std::fmt;

/// The largest side of a rectangular board: 25 lines, the letters A-Z without I.
pub const MAX_SIDE: usize = 25;

/// The largest number of points on a graph board (points are stored as `u16`).
pub const MAX_POINTS: usize = u16::MAX as usize;

/// One intersection of a board, an index into its [`Geometry`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u16);

impl Point {
    /// The point with this index. Panics if `index` exceeds [`MAX_POINTS`].
    #[must_use]
    #[inline]
    pub fn new(index: usize) -> Point {
        assert!(index < MAX_POINTS, "point index {index} out of range");
        Point(index as u16)
    }

    /// The index of this point, `0..geometry.len()`.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The shape of a board: a rectangle with coordinates, or an arbitrary graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `width` columns by `height` rows; point index is `row * width + column`, row 0 at the top
    /// (as SGF counts), column 0 at the left.
    Rect {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// Any finite graph.
    Graph,
}

/// Why a board could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GeometryError {
    /// A rectangle side outside `1..=25`.
    BadSide {
        /// Columns asked for.
        width: usize,
        /// Rows asked for.
        height: usize,
    },
    /// A graph with no points, or more than [`MAX_POINTS`].
    BadPointCount(usize),
    /// An edge naming a point that does not exist.
    EdgeOutOfRange {
        /// The edge's two points.
        edge: (usize, usize),
        /// The graph's points.
        points: usize,
    },
    /// An edge from a point to itself.
    SelfLoop(usize),
    /// The same edge given twice.
    DuplicateEdge(usize, usize),
}

impl fmt::Display for GeometryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeometryError::BadSide { width, height } => write!(
                f,
                "board size {width}x{height} is not supported: each side must be 1 to {MAX_SIDE}"
            ),
            GeometryError::BadPointCount(n) => {
                write!(f, "a graph board needs 1 to {MAX_POINTS} points, not {n}")
            }
            GeometryError::EdgeOutOfRange { edge, points } => write!(
                f,
                "edge {}-{} names a point outside 0..{points}",
                edge.0, edge.1
            ),
            GeometryError::SelfLoop(p) => write!(f, "edge from point {p} to itself"),
            GeometryError::DuplicateEdge(a, b) => write!(f, "edge {a}-{b} given twice"),
        }
    }
}

impl std::error::Error for GeometryError {}

/// The points of a board, their adjacency (stored compactly, neighbours of a point are one
/// slice), and the Zobrist keys used to hash colourings.
#[derive(Clone, Debug)]
pub struct Geometry {
    shape: Shape,
    start: Vec<u32>,
    adjacent: Vec<Point>,
    zobrist: Vec<[u64; 2]>,
}

impl PartialEq for Geometry {
    fn eq(&self, other: &Self) -> bool {
        self.shape == other.shape && self.start == other.start && self.adjacent == other.adjacent
    }
}

impl Eq for Geometry {}

impl Geometry {
    /// A `width` × `height` grid (TT rule 1 and its comment: any m×n grid).
    pub fn rect(width: usize, height: usize) -> Result<Geometry, GeometryError> {
        if !(1..=MAX_SIDE).contains(&width) || !(1..=MAX_SIDE).contains(&height) {
            return Err(GeometryError::BadSide { width, height });
        }
        let mut lists = vec![Vec::new(); width * height];
        for y in 0..height {
            for x in 0..width {
                let p = y * width + x;
                if y > 0 {
                    lists[p].push(p - width);
                }
                if x > 0 {
                    lists[p].push(p - 1);
                }
                if x + 1 < width {
                    lists[p].push(p + 1);
                }
                if y + 1 < height {
                    lists[p].push(p + width);
                }
            }
        }
        Ok(Geometry::from_lists(Shape::Rect { width, height }, &lists))
    }

    /// A board on any finite graph with `points` points and the given undirected edges.
    pub fn graph(points: usize, edges: &[(usize, usize)]) -> Result<Geometry, GeometryError> {
        if points == 0 || points > MAX_POINTS {
            return Err(GeometryError::BadPointCount(points));
        }
        let mut lists = vec![Vec::new(); points];
        for &(a, b) in edges {
            if a >= points || b >= points {
                return Err(GeometryError::EdgeOutOfRange {
                    edge: (a, b),
                    points,
                });
            }
            if a == b {
                return Err(GeometryError::SelfLoop(a));
            }
            if lists[a].contains(&b) {
                return Err(GeometryError::DuplicateEdge(a, b));
            }
            lists[a].push(b);
            lists[b].push(a);
        }
        Ok(Geometry::from_lists(Shape::Graph, &lists))
    }

    fn from_lists(shape: Shape, lists: &[Vec<usize>]) -> Geometry {
        let mut start = Vec::with_capacity(lists.len() + 1);
        let mut adjacent = Vec::new();
        for list in lists {
            start.push(adjacent.len() as u32);
            adjacent.extend(list.iter().map(|&q| Point::new(q)));
        }
        start.push(adjacent.len() as u32);
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64 ^ lists.len() as u64;
        let zobrist = (0..lists.len())
            .map(|_| [splitmix64(&mut seed), splitmix64(&mut seed)])
            .collect();
        Geometry {
            shape,
            start,
            adjacent,
            zobrist,
        }
    }

    /// The shape: rectangle (with its size) or graph.
    #[must_use]
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// `(width, height)` of a rectangular board.
    #[must_use]
    pub fn size(&self) -> Option<(usize, usize)> {
        match self.shape {
            Shape::Rect { width, height } => Some((width, height)),
            Shape::Graph => None,
        }
    }

    /// Number of points.
    #[must_use]
    #[inline]
    pub fn len(&self) -> usize {
        self.zobrist.len()
    }

    /// Always false: every board has at least one point.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.zobrist.is_empty()
    }

    /// All points, in index order.
    pub fn points(&self) -> impl ExactSizeIterator<Item = Point> + '_ {
        (0..self.len()).map(Point::new)
    }

    /// The points adjacent to `p` (Olympiad 3.3: "a line but no intersection between them").
    #[inline]
    #[must_use]
    pub fn neighbors(&self, p: Point) -> &[Point] {
        let i = p.index();
        &self.adjacent[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Whether `p` is a point of this board.
    #[must_use]
    pub fn contains(&self, p: Point) -> bool {
        p.index() < self.len()
    }

    /// The Zobrist key of `color` on `p`.
    #[inline]
    #[must_use]
    pub(crate) fn key(&self, p: Point, color: crate::Color) -> u64 {
        self.zobrist[p.index()][color.index()]
    }

    /// The point at column `x` (from the left) and row `y` (from the top, as SGF counts).
    #[must_use]
    pub fn at(&self, x: usize, y: usize) -> Option<Point> {
        let (w, h) = self.size()?;
        (x < w && y < h).then(|| Point::new(y * w + x))
    }

    /// Column and row (from the top) of a point on a rectangular board.
    #[must_use]
    pub fn coords(&self, p: Point) -> Option<(usize, usize)> {
        let (w, _) = self.size()?;
        self.contains(p).then(|| (p.index() % w, p.index() / w))
    }

    /// The usual name of a point: `A1` is the lower-left corner, columns skip `I` (GTP), so 25
    /// columns fit in `A`-`Z`. Graph points are named `#index`.
    #[must_use]
    pub fn name(&self, p: Point) -> String {
        match (self.coords(p), self.size()) {
            (Some((x, y)), Some((_, h))) => format!("{}{}", column_letter(x), h - y),
            _ => format!("#{}", p.index()),
        }
    }

    /// The point with the given name (`a1`, `T19`, `#7`), case-insensitive.
    #[must_use]
    pub fn parse_point(&self, name: &str) -> Option<Point> {
        let name = name.trim();
        if let Some(index) = name.strip_prefix('#') {
            let i: usize = index.parse().ok()?;
            return (i < self.len()).then(|| Point::new(i));
        }
        let (_, h) = self.size()?;
        let mut chars = name.chars();
        let letter = chars.next()?.to_ascii_uppercase();
        let x = column_index(letter)?;
        let row: usize = chars.as_str().parse().ok()?;
        if row == 0 || row > h {
            return None;
        }
        self.at(x, h - row)
    }
}

fn column_letter(x: usize) -> char {
    let c = b'A' + x as u8;
    (if c >= b'I' { c + 1 } else { c }) as char
}

fn column_index(letter: char) -> Option<usize> {
    match letter {
        'A'..='H' => Some(letter as usize - 'A' as usize),
        'J'..='Z' => Some(letter as usize - 'A' as usize - 1),
        _ => None,
    }
}

/// Deterministic 64-bit generator for the Zobrist keys (same keys in every run).
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_skip_i_and_count_rows_from_the_bottom() {
        let g = Geometry::rect(19, 19).unwrap();
        assert_eq!(g.name(g.at(0, 18).unwrap()), "A1");
        assert_eq!(g.name(g.at(8, 0).unwrap()), "J19");
        assert_eq!(g.parse_point("t19"), g.at(18, 0));
        assert_eq!(g.parse_point("i5"), None);
        let big = Geometry::rect(25, 25).unwrap();
        assert_eq!(big.name(big.at(24, 0).unwrap()), "Z25");
    }

    #[test]
    fn corner_edge_and_centre_have_two_three_four_neighbours() {
        let g = Geometry::rect(3, 3).unwrap();
        let counts: Vec<usize> = g.points().map(|p| g.neighbors(p).len()).collect();
        assert_eq!(counts, vec![2, 3, 2, 3, 4, 3, 2, 3, 2]);
        assert_eq!(Geometry::rect(1, 1).unwrap().neighbors(Point::new(0)), &[]);
    }

    #[test]
    fn bad_boards_are_refused() {
        assert!(Geometry::rect(0, 5).is_err());
        assert!(Geometry::rect(26, 5).is_err());
        assert_eq!(
            Geometry::graph(2, &[(0, 0)]),
            Err(GeometryError::SelfLoop(0))
        );
        assert_eq!(
            Geometry::graph(2, &[(0, 1), (1, 0)]),
            Err(GeometryError::DuplicateEdge(1, 0))
        );
        assert!(Geometry::graph(2, &[(0, 2)]).is_err());
    }
}
