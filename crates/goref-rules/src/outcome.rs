//! Scores and results.

use std::fmt;

use crate::ruleset::HalfPoints;
use crate::{ByColor, Color, Komi};

/// Area scores (TT rule 9, Olympiad 3.8) and komi.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score {
    /// Black's points: black stones plus empty points reaching only black.
    pub black: u32,
    /// White's points, komi not included.
    pub white: u32,
    /// Komi added to White's points.
    pub komi: Komi,
}

impl Score {
    /// `black - (white + komi)` in half points (Olympiad 3.8): positive when Black leads.
    #[must_use]
    pub fn margin_half_points(&self) -> i32 {
        2 * self.black as i32 - 2 * self.white as i32 - self.komi.half_points()
    }

    /// The result of this score (TT rule 10: higher score wins, equal scores tie).
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        let margin = self.margin_half_points();
        match margin.signum() {
            1 => Outcome::Win {
                winner: Color::Black,
                by: WinBy::Points {
                    half_points: margin,
                },
            },
            -1 => Outcome::Win {
                winner: Color::White,
                by: WinBy::Points {
                    half_points: -margin,
                },
            },
            _ => Outcome::Draw,
        }
    }
}

/// How a game was won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinBy {
    /// By this many half points of area score.
    Points {
        /// The margin in half points, positive.
        half_points: i32,
    },
    /// By the long cycle rule (Olympiad 3.6.1): stones captured by Black and by White between
    /// the two occurrences of the position. SGF `RE` does not carry the captures (`B+`): an
    /// outcome read back from it has zero for both.
    LongCycle {
        /// Stones captured by Black and by White between the two occurrences.
        captures: ByColor<u32>,
    },
    /// The opponent resigned (Olympiad 3.2).
    Resignation,
    /// The opponent ran out of time.
    Time,
    /// The opponent forfeited (illegal move, crash, hang).
    Forfeit,
}

/// The result of a game, every one goref records: a win (and how), a draw, or no result.
///
/// It reads and prints SGF `RE` (FF\[4\]) as goref writes it, and every form round-trips:
///
/// ```
/// use goref_rules::{Color, Outcome, WinBy};
///
/// for re in ["B+3.5", "W+R", "B+T", "W+F", "B+", "0", "Void"] {
///     assert_eq!(re.parse::<Outcome>().unwrap().to_sgf(), re);
/// }
/// let win: Outcome = "W+T".parse().unwrap();
/// assert_eq!(win, Outcome::Win { winner: Color::White, by: WinBy::Time });
/// assert_eq!(win.winner(), Some(Color::White));
/// assert_eq!("Void".parse::<Outcome>().unwrap().winner(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// One player won.
    Win {
        /// Who won.
        winner: Color,
        /// How.
        by: WinBy,
    },
    /// Equal scores (TT rule 10) or a long cycle with equal captures (Olympiad 3.6.2).
    Draw,
    /// No result: the game was closed without being decided (SGF `RE[Void]`), e.g. a game
    /// the server closes because nobody plays it.
    Void,
}

impl Outcome {
    /// The winner, if any.
    #[must_use]
    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(*winner),
            Outcome::Draw | Outcome::Void => None,
        }
    }

    /// Whether the game has a result (a win or a draw): `false` only for [`Outcome::Void`].
    #[must_use]
    pub fn is_decided(&self) -> bool {
        !matches!(self, Outcome::Void)
    }

    /// A win for `winner`, `by` this.
    #[must_use]
    pub const fn win(winner: Color, by: WinBy) -> Outcome {
        Outcome::Win { winner, by }
    }

    /// The result in SGF `RE` form: `B+3`, `W+0.5`, `0`, `B+` (long cycle), `W+R`, `B+T`, `W+F`,
    /// `Void`.
    #[must_use]
    pub fn to_sgf(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Draw => f.write_str("0"),
            Outcome::Void => f.write_str("Void"),
            Outcome::Win { winner, by } => {
                write!(f, "{}+", winner.letter())?;
                match by {
                    WinBy::Points { half_points } => write!(f, "{}", HalfPoints(*half_points)),
                    WinBy::LongCycle { .. } => Ok(()),
                    WinBy::Resignation => f.write_str("R"),
                    WinBy::Time => f.write_str("T"),
                    WinBy::Forfeit => f.write_str("F"),
                }
            }
        }
    }
}

impl std::str::FromStr for Outcome {
    type Err = crate::ParseError;

    /// Reads a result in SGF `RE` form: `B+R` (`B+Resign`), `W+T` (`Time`), `B+F`
    /// (`Forfeit`), `W+3.5` (points), `B+` (the long cycle rule, as goref writes it: its
    /// captures are not in `RE` and read as zero), `0` (`Draw`, `Jigo`), `Void`.
    fn from_str(s: &str) -> Result<Outcome, crate::ParseError> {
        let text = s.trim();
        let bad = || crate::ParseError::UnknownResult(s.chars().take(40).collect());
        if text == "0" || text.eq_ignore_ascii_case("draw") || text.eq_ignore_ascii_case("jigo") {
            return Ok(Outcome::Draw);
        }
        if text.eq_ignore_ascii_case("void") {
            return Ok(Outcome::Void);
        }
        let (who, how) = text.split_once('+').ok_or_else(bad)?;
        let winner = match who {
            "B" | "b" => Color::Black,
            "W" | "w" => Color::White,
            _ => return Err(bad()),
        };
        let by = match how.to_ascii_lowercase().as_str() {
            "r" | "resign" => WinBy::Resignation,
            "t" | "time" => WinBy::Time,
            "f" | "forfeit" => WinBy::Forfeit,
            "" => WinBy::LongCycle {
                captures: ByColor::default(),
            },
            points => {
                let half_points = points.parse::<Komi>().map_err(|_| bad())?.half_points();
                if half_points <= 0 {
                    return Err(bad());
                }
                WinBy::Points { half_points }
            }
        };
        Ok(Outcome::Win { winner, by })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_read_back_from_sgf_form() {
        // Every form goref writes: points, resignation, time, forfeit, long cycle, draw, void.
        for re in [
            "B+R", "W+T", "B+F", "W+3.5", "B+12", "B+", "W+", "0", "Void",
        ] {
            let outcome: Outcome = re.parse().unwrap();
            assert_eq!(outcome.to_sgf(), re);
            assert_eq!(outcome.to_sgf().parse::<Outcome>().unwrap(), outcome);
        }
        assert_eq!("w+resign".parse::<Outcome>().unwrap().to_sgf(), "W+R");
        assert_eq!("Draw".parse::<Outcome>().unwrap(), Outcome::Draw);
        assert_eq!("void".parse::<Outcome>().unwrap(), Outcome::Void);
        assert_eq!(
            "B+".parse::<Outcome>().unwrap(),
            Outcome::Win {
                winner: Color::Black,
                by: WinBy::LongCycle {
                    captures: ByColor::default()
                }
            }
        );
        assert_eq!(Outcome::Void.winner(), None);
        assert!(!Outcome::Void.is_decided() && Outcome::Draw.is_decided());
        for bad in [
            "", "B", "+", "X+R", "B+-2", "B+0", "B+x", "W+0.25", "Voids", "B+Void",
        ] {
            assert!(bad.parse::<Outcome>().is_err(), "{bad}");
        }
    }

    #[test]
    fn results_print_in_sgf_form() {
        let score = |black, white, komi: &str| Score {
            black,
            white,
            komi: komi.parse().unwrap(),
        };
        assert_eq!(score(4, 1, "0").outcome().to_sgf(), "B+3");
        assert_eq!(score(40, 41, "-0.5").outcome().to_sgf(), "W+0.5");
        assert_eq!(score(45, 36, "7.5").outcome().to_sgf(), "B+1.5");
        assert_eq!(score(5, 5, "0").outcome().to_sgf(), "0");
        let cycle = Outcome::Win {
            winner: Color::White,
            by: WinBy::LongCycle {
                captures: ByColor::new(1, 2),
            },
        };
        assert_eq!(cycle.to_sgf(), "W+");
    }
}
