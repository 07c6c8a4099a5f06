//! Errors that say where: the line (and column) in the file, and the move number for moves.

use std::fmt;

use goref_rules::Color;

/// What is wrong with a move property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveProblem {
    /// The value is neither empty (a pass) nor two letters `a`-`z`, `A`-`Z`.
    NotAPoint,
    /// The point lies outside the `width` × `height` board.
    OffBoard {
        /// Board columns.
        width: usize,
        /// Board rows.
        height: usize,
    },
    /// The node already has a move (SGF allows one move per node).
    SecondInNode,
    /// The node also has setup properties (SGF keeps setup and moves in separate nodes).
    WithSetup,
}

/// Why an SGF text could not be read as a game record, with where.
///
/// Lines and columns count from 1; columns count characters. Moves are numbered from 1 among
/// the `B` and `W` properties of the main line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SgfError {
    /// No game tree (`(;`) anywhere in the text.
    NoGame {
        /// Where the text was looked at: line 1.
        line: usize,
    },
    /// The text is not SGF here.
    Syntax {
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters.
        column: usize,
        /// What went wrong.
        message: String,
    },
    /// `GM` is not 1.
    NotGo {
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters.
        column: usize,
        /// The value between the brackets.
        value: String,
    },
    /// `SZ` is not one size or two `columns:rows` within 1-25.
    BoardSize {
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters.
        column: usize,
        /// The value between the brackets.
        value: String,
    },
    /// `KM` is not a multiple of 0.5.
    Komi {
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters.
        column: usize,
        /// The value between the brackets.
        value: String,
    },
    /// A `B` or `W` property that is not a move of this board.
    Move {
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters.
        column: usize,
        /// The move's number on the main line, from 1.
        number: usize,
        /// The colour that played it.
        color: Color,
        /// The raw value between the brackets.
        value: String,
        /// What is wrong with it.
        problem: MoveProblem,
    },
    /// Any other property that cannot be used: setup lists, `PL`, repeated or misplaced
    /// properties, setup strings without liberties.
    Property {
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters.
        column: usize,
        /// What went wrong.
        message: String,
    },
    /// A [`GameRecord`](crate::GameRecord) built in memory (not read from a file) that does not
    /// describe a position: the message names the point or size.
    Record {
        /// What is wrong.
        message: String,
    },
}

impl SgfError {
    /// The line of the file the error is on (`None` for [`SgfError::Record`]).
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        match self {
            SgfError::NoGame { line }
            | SgfError::Syntax { line, .. }
            | SgfError::NotGo { line, .. }
            | SgfError::BoardSize { line, .. }
            | SgfError::Komi { line, .. }
            | SgfError::Move { line, .. }
            | SgfError::Property { line, .. } => Some(*line),
            SgfError::Record { .. } => None,
        }
    }

    /// The number of the move the error is about, for move errors.
    #[must_use]
    pub fn move_number(&self) -> Option<usize> {
        match self {
            SgfError::Move { number, .. } => Some(*number),
            _ => None,
        }
    }
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SgfError::NoGame { line } => write!(f, "line {line}: file has no game"),
            SgfError::Syntax {
                line,
                column,
                message,
            } => write!(f, "line {line}, column {column}: syntax error: {message}"),
            SgfError::NotGo {
                line,
                column,
                value,
            } => write!(
                f,
                "line {line}, column {column}: game type GM[{value}] is not Go"
            ),
            SgfError::BoardSize {
                line,
                column,
                value,
            } => write!(
                f,
                "line {line}, column {column}: SZ[{value}] is not a board size 1-25"
            ),
            SgfError::Komi {
                line,
                column,
                value,
            } => {
                if value.trim().parse::<f64>().is_ok() {
                    write!(
                        f,
                        "line {line}, column {column}: KM[{value}] is not a multiple of 0.5 \
                         between -10000 and 10000"
                    )
                } else {
                    write!(
                        f,
                        "line {line}, column {column}: KM[{value}] is not a number"
                    )
                }
            }
            SgfError::Move {
                line,
                column,
                number,
                color,
                value,
                problem,
            } => {
                let letter = color.letter();
                write!(
                    f,
                    "line {line}, column {column}: move {number} ({letter}[{value}]) "
                )?;
                match problem {
                    MoveProblem::NotAPoint => f.write_str(
                        "is not a point: a move is two letters a-z or A-Z, or empty for a pass",
                    ),
                    MoveProblem::OffBoard { width, height } => {
                        write!(f, "is off the {width}x{height} board")
                    }
                    MoveProblem::SecondInNode => f.write_str("is a second move in one node"),
                    MoveProblem::WithSetup => {
                        f.write_str("is in a node with setup (AB, AW, AE or PL)")
                    }
                }
            }
            SgfError::Property {
                line,
                column,
                message,
            } => write!(f, "line {line}, column {column}: {message}"),
            SgfError::Record { message } => write!(f, "game record: {message}"),
        }
    }
}

impl std::error::Error for SgfError {}
