//! The writer. It produces every coordinate itself: `sgf-parse`'s serializer writes point
//! coordinates past 25 (`z`) as punctuation instead of `A`-`Z`.

use std::fmt::Write as _;

use goref_rules::{Color, Move};

use crate::GameRecord;

/// The SGF text of a record: one root node with `FF[4]GM[1]CA[UTF-8]`, `SZ`, then `KM`, `RU`,
/// `PB`, `PW`, `RE`, `AB`, `AW`, `PL` when present, then one node per move on a line of its own
/// (so move *n* is on line *n* + 1 unless a text value spans lines).
///
/// Passes are written `B[]`, never `B[tt]`. Text values escape `\` and `]`. The record is not
/// checked: a point outside the board is written as it falls, and [`parse`](crate::parse)
/// refuses the result.
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
    for (ident, value) in [
        ("RU", &record.rules),
        ("PB", &record.black_player),
        ("PW", &record.white_player),
        ("RE", &record.result),
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
    out.push('\n');
    for m in &record.moves {
        out.push(';');
        out.push(m.color.letter());
        out.push('[');
        if let Move::Play(p) = m.mv {
            out.push_str(&point_text(p.index(), width));
        }
        out.push(']');
        if let Some(comment) = &m.comment {
            text_property(&mut out, "C", comment);
        }
        out.push('\n');
    }
    out.push_str(")\n");
    out
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
