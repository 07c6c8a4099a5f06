//! Replaying a record under rules, and scoring it with the dead stones its `TB`/`TW` mark.

use std::fmt;
use std::sync::Arc;

use goref_rules::{Board, Color, End, Game, Illegal, Move, Point, Ruleset, Score};

use crate::{GameRecord, SgfError};

/// A move of a record, for messages: where it is and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveAt {
    /// The line of the file (from 1); 0 for moves not read from a file.
    pub line: usize,
    /// The move's number on the main line, from 1.
    pub number: usize,
    /// Who made it.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// The point's name on the board (`E5`), or `pass`.
    pub vertex: String,
}

impl fmt::Display for MoveAt {
    /// `line 7: move 6 (White E5)`, without the line for moves not read from a file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        write!(f, "move {} ({} {})", self.number, self.color, self.vertex)
    }
}

/// Why a record does not replay as a game under the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplayError {
    /// The board size or the setup is not a position (records built in memory only: [`parse`]
    /// checks both).
    ///
    /// [`parse`]: crate::parse
    Setup(SgfError),
    /// White moves first on an empty board, with no `PL` to say so: Black starts (TT rule 5,
    /// 001 §3.2).
    WhiteFirst(MoveAt),
    /// The move is not by the player whose turn it is.
    OutOfTurn {
        /// The move.
        at: MoveAt,
        /// Whose turn it was.
        to_move: Color,
    },
    /// The move is illegal under the rules.
    Illegal {
        /// The move.
        at: MoveAt,
        /// Why.
        reason: Illegal,
    },
}

impl ReplayError {
    /// The move the error is about, if any.
    #[must_use]
    pub fn at(&self) -> Option<&MoveAt> {
        match self {
            ReplayError::Setup(_) => None,
            ReplayError::WhiteFirst(at)
            | ReplayError::OutOfTurn { at, .. }
            | ReplayError::Illegal { at, .. } => Some(at),
        }
    }
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Setup(e) => write!(f, "{e}"),
            ReplayError::WhiteFirst(at) => write!(
                f,
                "{at}: White may not move first on an empty board (TT rule 5, 001 §3.2) \
                 without PL or setup stones"
            ),
            ReplayError::OutOfTurn { at, to_move } => {
                write!(f, "{at} is out of turn: it is {to_move}'s turn")
            }
            ReplayError::Illegal { at, reason } => write!(f, "{at} is illegal: {reason}"),
        }
    }
}

impl std::error::Error for ReplayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReplayError::Setup(e) => Some(e),
            _ => None,
        }
    }
}

/// The area score of a game scored on the board, once the record's dead stones are off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinalScore {
    /// Area scores (TT rule 9, 001 §3.8) of the cleared board, with the game's komi.
    pub score: Score,
    /// The stones taken off, in point order.
    pub removed: Vec<Point>,
}

impl GameRecord {
    /// Whether `RE` is a result by points (`B+3.5`, `W+0.5`, `0`, `Draw`), not by
    /// resignation, time, forfeit or unknown.
    #[must_use]
    pub fn result_is_a_score(&self) -> bool {
        let Some(re) = self.result.as_deref().map(str::trim) else {
            return false;
        };
        if re == "0" || re.eq_ignore_ascii_case("draw") || re.eq_ignore_ascii_case("jigo") {
            return true;
        }
        re.strip_prefix("B+")
            .or_else(|| re.strip_prefix("W+"))
            .is_some_and(|margin| margin.parse::<f64>().is_ok())
    }

    /// Replays the main line from the start position under `rules`.
    ///
    /// The first player is `PL`, else the first move's colour, else Black; but White may not
    /// open on an empty board without `PL` (TT rule 5, 001 §3.2: Black starts). Play that goes
    /// on after two passes is replayed as a resumption ([`Game::resume`]: a dead-stone
    /// protocol's play-on, reference 000 "Chinese rules", 001 §3.7.4).
    ///
    /// ```
    /// use goref_rules::Ruleset;
    ///
    /// let record = goref_sgf::parse("(;SZ[3:2]\n;B[bb]\n;W[aa]\n;B[ba]\n;W[]\n;B[])").unwrap();
    /// let game = record.replay(Ruleset::TROMP_TAYLOR).unwrap();
    /// assert_eq!(game.outcome().to_sgf(), "B+3");
    ///
    /// let record = goref_sgf::parse("(;SZ[3:2]\n;B[bb]\n;W[bb])").unwrap();
    /// let err = record.replay(Ruleset::TROMP_TAYLOR).unwrap_err();
    /// assert_eq!(err.to_string(), "line 3: move 2 (White B1) is illegal: occupied");
    /// ```
    pub fn replay(&self, rules: Ruleset) -> Result<Game, ReplayError> {
        let start = self.start_board().map_err(ReplayError::Setup)?;
        let first = self
            .first_player
            .or_else(|| self.moves.first().map(|m| m.color))
            .unwrap_or(Color::Black);
        let mut game = Game::from_position(start, first, rules);
        let geometry = Arc::clone(game.geometry());
        for (i, m) in self.moves.iter().enumerate() {
            let at = || MoveAt {
                line: m.line,
                number: i + 1,
                color: m.color,
                mv: m.mv,
                vertex: match m.mv {
                    Move::Pass => "pass".to_string(),
                    Move::Play(p) => geometry.name(p),
                },
            };
            if i == 0
                && m.color == Color::White
                && self.first_player.is_none()
                && self.setup.is_empty()
            {
                return Err(ReplayError::WhiteFirst(at()));
            }
            if let Move::Play(p) = m.mv {
                if p.index() >= geometry.len() {
                    return Err(ReplayError::Setup(SgfError::Record {
                        message: format!(
                            "move {} is at point #{}, off the {}x{} board",
                            i + 1,
                            p.index(),
                            self.width,
                            self.height
                        ),
                    }));
                }
            }
            if game.end() == Some(End::TwoPasses) {
                game.resume();
            }
            if m.color != game.to_move() {
                return Err(ReplayError::OutOfTurn {
                    at: at(),
                    to_move: game.to_move(),
                });
            }
            if let Err(e) = game.play(m.mv) {
                return Err(ReplayError::Illegal {
                    at: at(),
                    reason: e.reason,
                });
            }
        }
        Ok(game)
    }

    /// The stones of `board` that the record's territory says were removed: a stone of one
    /// colour on a point of the other colour's territory (`TB`/`TW`) is dead. In point order;
    /// empty when the record has no territory.
    #[must_use]
    pub fn removed_stones(&self, board: &Board) -> Vec<Point> {
        let Some(territory) = &self.territory else {
            return Vec::new();
        };
        let mut dead: Vec<Point> =
            Color::ALL
                .iter()
                .flat_map(|&owner| {
                    territory.of_color(owner).iter().copied().filter(move |p| {
                        board.colors().get(p.index()) == Some(&Some(owner.opponent()))
                    })
                })
                .collect();
        dead.sort_unstable();
        dead.dedup();
        dead
    }

    /// Scores `game` (this record replayed) as the record says it ended: when the game ended
    /// by two passes, or the record stops without an end and its `RE` is a score (an
    /// adjudicated game), the strings of [`removed_stones`](GameRecord::removed_stones) are
    /// taken off and the cleared board is scored by area (TT rule 9, 001 §3.8). `None` when the
    /// game ended otherwise (resignation, time, forfeit, a long cycle).
    ///
    /// For a record whose `TB`/`TW` are [`Territory::of`](crate::Territory::of) the final board
    /// and its dead stones, this is the score those stones give.
    ///
    /// ```
    /// use goref_rules::Ruleset;
    ///
    /// // 3×2: Black b1 b2, White a2, two passes; TB says White's a2 was removed.
    /// let text = "(;SZ[3:2]KM[0]\n;B[bb]\n;W[aa]\n;B[ba]\n;W[]\n;B[]TB[aa][ca][ab][cb]TW[])";
    /// let record = goref_sgf::parse(text).unwrap();
    /// let game = record.replay(Ruleset::TROMP_TAYLOR).unwrap();
    /// let scored = record.final_score(&game).unwrap();
    /// assert_eq!(scored.removed.len(), 1);
    /// assert_eq!(scored.score.outcome().to_sgf(), "B+6");
    /// ```
    #[must_use]
    pub fn final_score(&self, game: &Game) -> Option<FinalScore> {
        let scored = match game.end() {
            Some(End::TwoPasses) => true,
            // A record that stops without an end (a game the tournament director adjudicated
            // after a loss on time past 001 §1's minimum moves, or one stopped by a move limit)
            // was scored on the board when its RE is a score.
            None => self.result_is_a_score(),
            _ => false,
        };
        if !scored {
            return None;
        }
        let board = game.board();
        let cleared = board.without(&self.removed_stones(board));
        let removed = board
            .colors()
            .iter()
            .zip(cleared.colors())
            .enumerate()
            .filter(|(_, (before, after))| before.is_some() && after.is_none())
            .map(|(i, _)| Point::new(i))
            .collect();
        let goref_rules::ByColor { black, white } = cleared.area();
        Some(FinalScore {
            score: Score {
                black,
                white,
                komi: game.rules().komi,
            },
            removed,
        })
    }
}
