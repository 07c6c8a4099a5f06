//! Board graphs written down: named shapes and a small text format, so that the rules' graph
//! boards (reference 004: the rules hold on any graph) can be used from the command line.
//!
//! The text format, one item a line, `#` starting a comment:
//!
//! ```text
//! # a triangle with a tail
//! points 4
//! 0 1
//! 1 2
//! 2 0
//! 2 3
//! ```
//!
//! `points N` comes first; then one undirected edge a line, as two point numbers from 0.
//! Named shapes: `path:N` (a line of N points), `cycle:N` (a ring, N ≥ 3), `grid:WxH` (the
//! rectangular board as a graph), `torus:WxH` (a grid whose edges wrap around, W and H ≥ 3).
//!
//! ```
//! use goref_rules::parse_graph;
//!
//! let ring = parse_graph("cycle:6").unwrap();
//! assert_eq!(ring.len(), 6);
//! assert!(ring.points().all(|p| ring.neighbors(p).len() == 2));
//! let tail = parse_graph("points 4\n0 1\n1 2\n2 0\n2 3\n").unwrap();
//! assert_eq!(tail.neighbors(tail.points().nth(2).unwrap()).len(), 3);
//! let err = parse_graph("points 3\n0 1\n1 7\n").unwrap_err();
//! assert_eq!(err.to_string(), "line 3: edge (1, 7) names a point beyond the 3 points");
//! ```

use std::fmt;

use crate::{Geometry, GeometryError};

/// Why a graph cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphSpecError {
    /// A named shape that is not known, or whose numbers do not fit it.
    Shape(String),
    /// A line of the text format that cannot be read.
    Line {
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The points or edges do not make a board.
    Geometry(GeometryError),
}

impl fmt::Display for GraphSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphSpecError::Shape(m) => f.write_str(m),
            GraphSpecError::Line { line, message } => write!(f, "line {line}: {message}"),
            GraphSpecError::Geometry(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GraphSpecError {}

/// The largest number of points a named shape may have.
const MAX_SHAPE_POINTS: usize = 4096;

/// A board graph from a named shape (`path:N`, `cycle:N`, `grid:WxH`, `torus:WxH`) or from the
/// text format of this module.
///
/// # Errors
///
/// [`GraphSpecError`] saying what and, for the text format, on which line.
pub fn parse_graph(text: &str) -> Result<Geometry, GraphSpecError> {
    let t = text.trim();
    if let Some((name, size)) = t.split_once(':').filter(|_| !t.contains('\n')) {
        return named(name.trim(), size.trim());
    }
    let mut points: Option<usize> = None;
    let mut edges = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |message: String| GraphSpecError::Line {
            line: i + 1,
            message,
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        match (points, words.as_slice()) {
            (None, ["points", n]) => {
                let n: usize = n
                    .parse()
                    .map_err(|_| bad(format!("'{n}' is not a number of points")))?;
                points = Some(n);
            }
            (None, _) => return Err(bad("the first line must be `points N`".into())),
            (Some(n), [a, b]) => {
                let read = |w: &str| {
                    w.parse::<usize>()
                        .map_err(|_| bad(format!("'{w}' is not a point number")))
                };
                let (a, b) = (read(a)?, read(b)?);
                if a >= n || b >= n {
                    return Err(bad(format!(
                        "edge ({a}, {b}) names a point beyond the {n} points"
                    )));
                }
                if a == b {
                    return Err(bad(format!("edge ({a}, {b}) joins a point to itself")));
                }
                if !seen.insert((a.min(b), a.max(b))) {
                    return Err(bad(format!("edge ({a}, {b}) is given twice")));
                }
                edges.push((a, b));
            }
            (Some(_), _) => return Err(bad(format!("'{line}' is not an edge `A B`"))),
        }
    }
    let points = points.ok_or_else(|| GraphSpecError::Line {
        line: 1,
        message: "no `points N` line".into(),
    })?;
    Geometry::graph(points, &edges).map_err(GraphSpecError::Geometry)
}

/// A board graph in the text format [`parse_graph`] reads: `points N`, then each edge once,
/// as `A B` with A < B, in order. [`parse_graph`] of it gives the same points with the same
/// neighbours (any board, a rectangle's grid included).
///
/// ```
/// use goref_rules::{graph_text, parse_graph};
///
/// let tail = parse_graph("points 4\n0 1\n1 2\n2 0\n2 3\n").unwrap();
/// assert_eq!(graph_text(&tail), "points 4\n0 1\n0 2\n1 2\n2 3\n");
/// ```
#[must_use]
pub fn graph_text(geometry: &Geometry) -> String {
    let mut text = format!("points {}\n", geometry.len());
    for p in geometry.points() {
        let mut later: Vec<usize> = geometry
            .neighbors(p)
            .iter()
            .map(|q| q.index())
            .filter(|&q| q > p.index())
            .collect();
        later.sort_unstable();
        for q in later {
            text.push_str(&format!("{} {q}\n", p.index()));
        }
    }
    text
}

/// What [`graph_reads_back`] found wrong with a graph read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphMisread {
    /// The written text does not read.
    Unreadable(GraphSpecError),
    /// Read back, the graph has another number of points.
    Points {
        /// Points read first.
        read: usize,
        /// Points read back.
        again: usize,
    },
    /// Read back, this point has other neighbours.
    Neighbours(usize),
    /// Written again, the text differs.
    Text,
}

/// Reads `text` as [`parse_graph`] does and, when it reads, checks that the graph written
/// ([`graph_text`]) reads back to the same points with the same neighbours and writes the
/// same text again. The invariant the fuzz target `graph_files` and the unit tests check;
/// whether `text` read.
///
/// # Errors
///
/// What does not read back.
pub fn graph_reads_back(text: &str) -> Result<bool, GraphMisread> {
    let Ok(g) = parse_graph(text) else {
        return Ok(false);
    };
    let written = graph_text(&g);
    let again = parse_graph(&written).map_err(GraphMisread::Unreadable)?;
    if again.len() != g.len() {
        return Err(GraphMisread::Points {
            read: g.len(),
            again: again.len(),
        });
    }
    let sorted = |g: &Geometry, p: crate::Point| {
        let mut n: Vec<usize> = g.neighbors(p).iter().map(|q| q.index()).collect();
        n.sort_unstable();
        n
    };
    if let Some(p) = g.points().find(|&p| sorted(&g, p) != sorted(&again, p)) {
        return Err(GraphMisread::Neighbours(p.index()));
    }
    if graph_text(&again) != written {
        return Err(GraphMisread::Text);
    }
    Ok(true)
}

fn named(name: &str, size: &str) -> Result<Geometry, GraphSpecError> {
    let bad = |m: &str| GraphSpecError::Shape(format!("{name}:{size}: {m}"));
    let number = |s: &str| s.trim().parse::<usize>().map_err(|_| bad("not a number"));
    let pair = || -> Result<(usize, usize), GraphSpecError> {
        let (w, h) = size
            .split_once(['x', 'X'])
            .ok_or_else(|| bad("expected WxH"))?;
        Ok((number(w)?, number(h)?))
    };
    let too_big = |n: usize| n == 0 || n > MAX_SHAPE_POINTS;
    match name {
        "path" => {
            let n = number(size)?;
            if too_big(n) {
                return Err(bad("1 to 4096 points"));
            }
            let edges: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
            Geometry::graph(n, &edges).map_err(GraphSpecError::Geometry)
        }
        "cycle" => {
            let n = number(size)?;
            if n < 3 || too_big(n) {
                return Err(bad("a cycle has 3 to 4096 points"));
            }
            let edges: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
            Geometry::graph(n, &edges).map_err(GraphSpecError::Geometry)
        }
        "grid" => {
            let (w, h) = pair()?;
            Geometry::rect(w, h).map_err(GraphSpecError::Geometry)
        }
        "torus" => {
            let (w, h) = pair()?;
            if w < 3 || h < 3 || too_big(w * h) {
                return Err(bad(
                    "a torus has sides of at least 3 and at most 4096 points",
                ));
            }
            let at = |x: usize, y: usize| y * w + x;
            let mut edges = Vec::with_capacity(2 * w * h);
            for y in 0..h {
                for x in 0..w {
                    edges.push((at(x, y), at((x + 1) % w, y)));
                    edges.push((at(x, y), at(x, (y + 1) % h)));
                }
            }
            Geometry::graph(w * h, &edges).map_err(GraphSpecError::Geometry)
        }
        _ => Err(GraphSpecError::Shape(format!(
            "unknown shape '{name}': expected path:N, cycle:N, grid:WxH or torus:WxH"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random texts in and around the format (the property the fuzz target `graph_files`
    /// checks on any text): every graph read is written and read back the same.
    #[test]
    fn every_graph_read_is_written_and_read_back_the_same() {
        let mut rng = crate::playout::Rng::new(4);
        let mut read = 0;
        for _ in 0..3_000 {
            let n = rng.below(9);
            let mut text = match rng.below(8) {
                0 => String::new(),
                1 => format!("# a comment\npoints {n}  # trailing\n"),
                _ => format!("points {n}\n"),
            };
            for _ in 0..rng.below(14) {
                let line = match rng.below(12) {
                    0 => "# only a comment".to_string(),
                    1 => String::new(),
                    2 => "1 x".to_string(),
                    3 => format!("{} {} {}", rng.below(9), rng.below(9), rng.below(9)),
                    _ => format!("{}\t {}", rng.below(n + 2), rng.below(n + 2)),
                };
                text.push_str(&line);
                text.push('\n');
            }
            if graph_reads_back(&text).unwrap_or_else(|m| panic!("{text:?}: {m:?}")) {
                read += 1;
            }
        }
        for shape in [
            "path:1",
            "path:7",
            "cycle:5",
            "grid:3x4",
            "torus:3x5",
            "grid:1x1",
        ] {
            assert_eq!(graph_reads_back(shape), Ok(true), "{shape}");
        }
        assert!(read > 200, "{read} graphs read");
    }

    #[test]
    fn named_shapes_have_their_degrees() {
        let t = parse_graph("torus:3x4").unwrap();
        assert_eq!(t.len(), 12);
        assert!(t.points().all(|p| t.neighbors(p).len() == 4));
        let p = parse_graph("path:5").unwrap();
        let degrees: Vec<usize> = p.points().map(|q| p.neighbors(q).len()).collect();
        assert_eq!(degrees, [1, 2, 2, 2, 1]);
        assert_eq!(parse_graph("grid:3x2").unwrap().size(), Some((3, 2)));
        assert!(parse_graph("cycle:2").is_err());
        assert!(parse_graph("moebius:5")
            .unwrap_err()
            .to_string()
            .contains("unknown shape"));
        assert!(parse_graph("torus:2x9").is_err());
    }

    #[test]
    fn the_text_format_names_the_line_of_an_error() {
        let e = parse_graph("# x\n0 1\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: the first line must be `points N`");
        let e = parse_graph("points 3\n0 1\n1 0\n").unwrap_err();
        assert_eq!(e.to_string(), "line 3: edge (1, 0) is given twice");
        let e = parse_graph("points 3\n1 1\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: edge (1, 1) joins a point to itself");
        let e = parse_graph("points 2\n0 x\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: 'x' is not a point number");
        assert!(parse_graph("points 0\n").is_err());
        let g = parse_graph("points 3 # three\n\n0 1 # an edge\n").unwrap();
        assert_eq!(g.len(), 3);
    }
}
