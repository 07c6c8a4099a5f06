//! The two players.

use std::fmt;

/// A player, and the colour of that player's stones (TT rule 1, Olympiad 3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black,
    White,
}

impl Color {
    /// Both colours, Black first (Black moves first: TT rule 5).
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other player.
    #[must_use]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White: an index into per-colour arrays.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `'B'` or `'W'`, as SGF and GTP write the colours.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "Black",
            Color::White => "White",
        })
    }
}
