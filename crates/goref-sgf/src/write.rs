//! The writer. It produces every coordinate itself: `sgf-parse`'s serializer writes point
//! coordinates past 25 (`z`) as punctuation instead of `A`-`Z`.

use std::fmt::Write as _;

use goref_rules::{Color, Move, Point};

use crate::{GameRecord, Territory};

/// The SGF text of a record: one root node with `FF[4]GM[1]CA[UTF-8]`, `SZ`, then `KM`, `HA`,
/// `TM`, `OT`, `RU`, `PB`, `PW`, `RE`, `DT`, `GN`, `AP`, `C`, `AB`, `AW`, `PL` when present,
/// then one node per move on a line of its own (so move *n* is on line *n* + 1 unless a text
/// value spans lines), with the move's `BL`/`WL` (three decimals), `OB`/`OW` and `C`. `TB`
/// and `TW` go on the last move's node, or on the root when there are no moves; both are
/// written (`TB[]` when empty) when the record has a territory.
///
/// Passes are written `B[]`, never `B[tt]`. Text values escape `\` and `]`, and keep their
/// line breaks. The record is not checked: a point outside the board is written as it falls,
/// and [`parse`](crate::parse) refuses the result, as it refuses times that are not finite.
#[must_use]
pub fn write(record: &GameRecord) -> String {
    let mut out = String::from("(;FF[4]GM[1]CA[UTF-8]");
    let (width, height) = (record.width, record.height);
    if width == height {
        let _ = write!(out, "SZ[{width}]");
    } else {
        let _ = write!(out, "SZ[{width}:{height}]");
    }
    if let Some(komi) = record.komi {
        let _ = write!(out, "KM[{komi}]");
    }
    if let Some(handicap) = record.handicap {
        let _ = write!(out, "HA[{handicap}]");
    }
    if let Some(seconds) = record.main_time {
        let _ = write!(out, "TM[{seconds}]");
    }
    for (ident, value) in [
        ("OT", &record.overtime),
        ("RU", &record.rules),
        ("PB", &record.black_player),
        ("PW", &record.white_player),
        ("RE", &record.result),
        ("DT", &record.date),
        ("GN", &record.game_name),
        ("AP", &record.application),
        ("C", &record.comment),
    ] {
        if let Some(value) = value {
            text_property(&mut out, ident, value);
        }
    }
    for (color, ident) in [(Color::Black, "AB"), (Color::White, "AW")] {
        let mut stones = record.setup.iter().filter(|(c, _)| *c == color).peekable();
        if stones.peek().is_some() {
            out.push_str(ident);
            for &(_, p) in stones {
                out.push('[');
                out.push_str(&point_text(p.index(), width));
                out.push(']');
            }
        }
    }
    if let Some(color) = record.first_player {
        let _ = write!(out, "PL[{}]", color.letter());
    }
    if record.moves.is_empty() {
        territory(&mut out, record.territory.as_ref(), width);
    }
    out.push('\n');
    for (i, m) in record.moves.iter().enumerate() {
        out.push(';');
        out.push(m.color.letter());
        out.push('[');
        if let Move::Play(p) = m.mv {
            out.push_str(&point_text(p.index(), width));
        }
        out.push(']');
        let letter = m.color.letter();
        if let Some(seconds) = m.time_left {
            let _ = write!(out, "{letter}L[{seconds:.3}]");
        }
        if let Some(periods) = m.periods_left {
            let _ = write!(out, "O{letter}[{periods}]");
        }
        if let Some(comment) = &m.comment {
            text_property(&mut out, "C", comment);
        }
        if i + 1 == record.moves.len() {
            territory(&mut out, record.territory.as_ref(), width);
        }
        out.push('\n');
    }
    out.push_str(")\n");
    out
}

/// `TB` and `TW`, each with at least `[]`.
fn territory(out: &mut String, territory: Option<&Territory>, width: usize) {
    let Some(territory) = territory else {
        return;
    };
    for (ident, points) in [("TB", &territory.black), ("TW", &territory.white)] {
        out.push_str(ident);
        if points.is_empty() {
            out.push_str("[]");
        }
        for p in points {
            point_value(out, *p, width);
        }
    }
}

/// `[xy]`.
fn point_value(out: &mut String, p: Point, width: usize) {
    out.push('[');
    out.push_str(&point_text(p.index(), width));
    out.push(']');
}

/// `IDENT[value]` with `\` and `]` escaped.
fn text_property(out: &mut String, ident: &str, value: &str) {
    out.push_str(ident);
    out.push('[');
    for c in value.chars() {
        if c == '\\' || c == ']' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(']');
}

/// The SGF coordinate letters of the point with this index on a board `width` wide.
fn point_text(index: usize, width: usize) -> String {
    if width == 0 {
        return "??".to_string();
    }
    [crate::letter(index % width), crate::letter(index / width)]
        .into_iter()
        .collect()
}
