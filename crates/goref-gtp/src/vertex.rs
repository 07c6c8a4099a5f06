//! GTP colours and vertices (GTP 2 §2.11: `A1` is the lower-left corner, no `I` column).

use goref_rules::{Color, Geometry, Move};

/// What a `genmove` reply says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenMove {
    /// A move (a play or a pass).
    Move(Move),
    /// `resign`.
    Resign,
}

/// `b`/`w` as GTP writes a colour.
#[must_use]
pub fn color_arg(color: Color) -> &'static str {
    match color {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// Reads a GTP colour: `b`, `black`, `w`, `white`, any case.
#[must_use]
pub fn parse_color(text: &str) -> Option<Color> {
    match text.trim().to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

/// The GTP vertex of a move: `pass` or a point name like `C3`.
#[must_use]
pub fn format_move(geometry: &Geometry, mv: Move) -> String {
    match mv {
        Move::Pass => "pass".to_string(),
        Move::Play(p) => geometry.name(p),
    }
}

/// Reads a vertex (`pass`, `C3`, `t19`) on a rectangular board. `None` when the text is not a
/// vertex of this board.
#[must_use]
pub fn parse_move(geometry: &Geometry, text: &str) -> Option<Move> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("pass") {
        return Some(Move::Pass);
    }
    let mut chars = text.chars();
    let first = chars.next()?;
    if !first.is_ascii_alphabetic() || first.eq_ignore_ascii_case(&'i') {
        return None;
    }
    if chars.as_str().is_empty() || !chars.as_str().bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    geometry.parse_point(text).map(Move::Play)
}

/// Reads the reply to `genmove`.
#[must_use]
pub fn parse_genmove(geometry: &Geometry, text: &str) -> Option<GenMove> {
    if text.trim().eq_ignore_ascii_case("resign") {
        return Some(GenMove::Resign);
    }
    parse_move(geometry, text).map(GenMove::Move)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_round_trip_and_skip_i() {
        let g = Geometry::rect(19, 19).unwrap();
        for p in g.points() {
            let name = format_move(&g, Move::Play(p));
            assert_eq!(parse_move(&g, &name), Some(Move::Play(p)));
            assert!(!name.contains('I'));
        }
        assert_eq!(parse_move(&g, "PASS"), Some(Move::Pass));
        assert_eq!(parse_genmove(&g, "Resign"), Some(GenMove::Resign));
    }

    #[test]
    fn non_vertices_are_refused() {
        let g = Geometry::rect(9, 9).unwrap();
        for bad in [
            "", "Z99", "J10", "A0", "I5", "#3", "A", "5A", "A1x", "\u{fffd}",
        ] {
            assert_eq!(parse_move(&g, bad), None, "{bad}");
        }
        assert_eq!(parse_move(&g, "j9"), Some(Move::Play(g.at(8, 0).unwrap())));
    }
}
