//! Handicap stones: GTP's fixed placement (GTP 2 §4.1.1) and the settings that go with them.

use std::fmt;

use goref_rules::{Geometry, Point};

/// How the handicap stones are placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum HandicapStyle {
    /// GTP's `fixed_handicap` points (GTP 2 §4.1.1).
    #[default]
    Fixed,
    /// Where Black chooses (`place_free_handicap`, then `set_free_handicap` for White).
    Free,
}

impl std::str::FromStr for HandicapStyle {
    type Err = HandicapError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let choices = [
            ("fixed", HandicapStyle::Fixed),
            ("free", HandicapStyle::Free),
        ];
        goref_rules::words::one_of(s, &choices)
            .ok_or_else(|| HandicapError::UnknownStyle(s.to_string()))
    }
}

/// Why a handicap cannot be given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandicapError {
    /// Fixed handicap is defined for square boards from 7×7 only (GTP 2 §4.1.1).
    NoFixedPlacement {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// Too many or too few stones for this board.
    Count {
        /// Stones asked for (or given).
        stones: usize,
        /// The most this board allows.
        max: usize,
    },
    /// A style other than `fixed` or `free`.
    UnknownStyle(String),
    /// Free placement named a point twice or off the board.
    BadPlacement(String),
}

impl fmt::Display for HandicapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandicapError::NoFixedPlacement { width, height } => write!(
                f,
                "fixed handicap is defined for square boards of 7x7 and more, not {width}x{height} (GTP 2 §4.1.1): use free placement"
            ),
            HandicapError::Count { stones, max } => {
                write!(f, "a handicap of {stones} stones: 2 to {max} on this board")
            }
            HandicapError::UnknownStyle(s) => {
                write!(f, "handicap style '{s}': expected fixed or free")
            }
            HandicapError::BadPlacement(s) => write!(f, "handicap placement: {s}"),
        }
    }
}

impl std::error::Error for HandicapError {}

/// The points of GTP's `fixed_handicap` for `stones` stones on a `width` × `height` board, in
/// the order GTP lists them for the stones' number (GTP 2 §4.1.1): on the third line up to
/// 12×12 and the fourth from 13×13; at most 4 stones on 7×7 and on even sizes, else 9.
///
/// # Errors
///
/// When the board has no fixed placement or the number is out of range.
pub fn fixed_handicap(geometry: &Geometry, stones: usize) -> Result<Vec<Point>, HandicapError> {
    let Some((width, height)) = geometry.size() else {
        return Err(HandicapError::NoFixedPlacement {
            width: 0,
            height: 0,
        });
    };
    if width != height || width < 7 {
        return Err(HandicapError::NoFixedPlacement { width, height });
    }
    let n = width;
    let max = if n % 2 == 0 || n == 7 { 4 } else { 9 };
    if !(2..=max).contains(&stones) {
        return Err(HandicapError::Count { stones, max });
    }
    let edge = if n <= 12 { 2 } else { 3 };
    let (low, mid, high) = (edge, n / 2, n - 1 - edge);
    // Columns from the left, rows from the top (Geometry::at).
    let (ll, ur, ul, lr) = ((low, high), (high, low), (low, low), (high, high));
    let (left, right, top, bottom, center) =
        ((low, mid), (high, mid), (mid, low), (mid, high), (mid, mid));
    let corners = [ll, ur, ul, lr];
    let mut points: Vec<(usize, usize)> = corners[..stones.min(4)].to_vec();
    match stones {
        5 => points.push(center),
        6 => points.extend([left, right]),
        7 => points.extend([left, right, center]),
        8 => points.extend([left, right, top, bottom]),
        9 => points.extend([left, right, top, bottom, center]),
        _ => {}
    }
    Ok(points
        .into_iter()
        .map(|(x, y)| geometry.at(x, y).expect("on the board"))
        .collect())
}

/// The usual komi with handicap stones: half a point, so that the game cannot be drawn.
pub const HANDICAP_KOMI: f64 = 0.5;

#[cfg(test)]
mod tests {
    use super::*;

    /// GNU Go 3.8's answers to `fixed_handicap N` (GTP 2 §4.1.1), as sets of points.
    #[test]
    fn fixed_placement_is_gtps() {
        let expected = [
            (7, 2, "E5 C3"),
            (7, 4, "C5 E5 C3 E3"),
            (8, 3, "C6 F6 C3"),
            (9, 2, "G7 C3"),
            (9, 5, "C7 G7 E5 C3 G3"),
            (9, 6, "C7 G7 C5 G5 C3 G3"),
            (9, 7, "C7 G7 C5 E5 G5 C3 G3"),
            (9, 8, "C7 E7 G7 C5 G5 C3 E3 G3"),
            (13, 3, "D10 K10 D4"),
            (13, 9, "D10 G10 K10 D7 G7 K7 D4 G4 K4"),
            (19, 4, "D16 Q16 D4 Q4"),
            (19, 6, "D16 Q16 D10 Q10 D4 Q4"),
            (19, 8, "D16 K16 Q16 D10 Q10 D4 K4 Q4"),
            (19, 9, "D16 K16 Q16 D10 K10 Q10 D4 K4 Q4"),
        ];
        for (n, stones, names) in expected {
            let g = Geometry::rect(n, n).unwrap();
            let mut got: Vec<String> = fixed_handicap(&g, stones)
                .unwrap()
                .into_iter()
                .map(|p| g.name(p))
                .collect();
            let mut want: Vec<String> = names.split(' ').map(str::to_string).collect();
            got.sort();
            want.sort();
            assert_eq!(got, want, "{n}x{n}, {stones} stones");
        }
    }

    #[test]
    fn boards_without_a_fixed_placement_are_refused() {
        let g = Geometry::rect(7, 7).unwrap();
        assert_eq!(
            fixed_handicap(&g, 5),
            Err(HandicapError::Count { stones: 5, max: 4 })
        );
        let g = Geometry::rect(6, 6).unwrap();
        assert!(matches!(
            fixed_handicap(&g, 2),
            Err(HandicapError::NoFixedPlacement { .. })
        ));
        let g = Geometry::rect(9, 13).unwrap();
        assert!(fixed_handicap(&g, 2).is_err());
        let g = Geometry::rect(19, 19).unwrap();
        assert!(fixed_handicap(&g, 1).is_err() && fixed_handicap(&g, 10).is_err());
    }
}
