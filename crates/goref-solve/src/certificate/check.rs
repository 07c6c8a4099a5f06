//! The checker of certificates. It shares nothing with the search: the games are played by
//! the literal rules of `goref-literal` (reach, clear, score, as the texts say them), the
//! strategies are looked up by their lines, and every end of the game reached is scored and
//! compared with the bound. (It must not use `crate::search` or `crate::bits`.)

use std::collections::HashMap;
use std::fmt;

use goref_literal::{Ending, Graph, LiteralGame, LiteralIllegal};
use goref_rules::{Color, Geometry, KoRule, Move};

use super::{turn_name, Certificate};
use crate::Value;

/// What a certificate that checks proved, and how much was checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The value proved (both bounds).
    pub value: Value,
    /// Black's strategy's lines.
    pub black_lines: usize,
    /// White's strategy's lines.
    pub white_lines: usize,
    /// The ends of the game reached by the two strategies, each scored.
    pub ends: u64,
}

/// Why a certificate does not prove its value: the line that fails (numbered from 1; the
/// header is line 1) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refutation {
    /// The line that fails.
    pub line: usize,
    /// Why.
    pub kind: RefutationKind,
}

/// Why a line of a certificate fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefutationKind {
    /// Under simple ko alone a game need not end: no value to prove.
    NoEnd,
    /// The header's board is not one (sides 1 to 25; only a certificate made in code, not
    /// read, can have one).
    NoBoard,
    /// A turn of the header's moves is illegal (the turn, numbered from 1).
    IllegalHeaderMove {
        /// The turn, numbered from 1.
        turn: usize,
        /// The turn as written.
        play: String,
        /// Why it is illegal.
        why: String,
    },
    /// The line's play is illegal there.
    IllegalPlay {
        /// The prover.
        proves: Color,
        /// The play.
        play: String,
        /// Why it is illegal.
        why: String,
    },
    /// The prover's strategy has no play at a turn it reaches: after the failing line's play
    /// (or the header's moves), the other side's reply, then no line for these turns.
    MissingReply {
        /// The prover.
        proves: Color,
        /// The turns after the header's moves that have no line.
        after: String,
    },
    /// A game the strategy reaches ends beyond the bound it proves.
    FalseValue {
        /// The prover.
        proves: Color,
        /// The turns after the header's moves to the end of the game.
        after: String,
        /// The value of that end, for Black.
        end: Value,
        /// The certificate's value.
        value: Value,
    },
    /// A line that its side's strategy never reaches.
    Unreached {
        /// The prover.
        proves: Color,
    },
}

impl fmt::Display for Refutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        let side = |c: Color| match c {
            Color::Black => "Black",
            Color::White => "White",
        };
        let turns = |t: &str| {
            if t.is_empty() {
                "(none)".to_string()
            } else {
                t.to_string()
            }
        };
        match &self.kind {
            RefutationKind::NoBoard => f.write_str("the board's sides are not 1 to 25"),
            RefutationKind::NoEnd => {
                f.write_str("under simple ko alone a game need not end: no value to prove")
            }
            RefutationKind::IllegalHeaderMove { turn, play, why } => {
                write!(f, "the header's turn {turn}, {play}, is illegal: {why}")
            }
            RefutationKind::IllegalPlay { proves, play, why } => {
                write!(f, "{}'s play {play} is illegal there: {why}", side(*proves))
            }
            RefutationKind::MissingReply { proves, after } => write!(
                f,
                "a reply is missing: {}'s strategy has no line for its turn after {}",
                side(*proves),
                turns(after)
            ),
            RefutationKind::FalseValue {
                proves,
                after,
                end,
                value,
            } => {
                let bound = match proves {
                    Color::Black => "at least",
                    Color::White => "at most",
                };
                write!(
                    f,
                    "a false value: {}'s strategy, to prove {bound} {value}, reaches an end of \
                     the game of {end} after {}",
                    side(*proves),
                    turns(after)
                )
            }
            RefutationKind::Unreached { proves } => write!(
                f,
                "{}'s strategy never reaches this line (its line or an earlier play is wrong)",
                side(*proves)
            ),
        }
    }
}

impl std::error::Error for Refutation {}

fn why(illegal: LiteralIllegal) -> String {
    match illegal {
        LiteralIllegal::GameOver => "the game is over".into(),
        LiteralIllegal::Occupied => "the point holds a stone".into(),
        LiteralIllegal::Suicide => "suicide (001 §3.5)".into(),
        LiteralIllegal::Ko => "a basic-ko recapture (001 §3.5)".into(),
        LiteralIllegal::Superko {
            repeats_after_turns,
        } => format!(
            "superko: it recreates the position after turn {repeats_after_turns} (TT rule 6)"
        ),
    }
}

fn apply(game: &mut LiteralGame, mv: Move) -> Result<(), LiteralIllegal> {
    match mv {
        Move::Pass => game.pass(),
        // (A point off the board, which no certificate read from text holds, is occupied by
        // nothing one may play on.)
        Move::Play(p) if p.index() >= game.grid().len() => Err(LiteralIllegal::Occupied),
        Move::Play(p) => game.play(p.index()),
    }
}

/// The value of an ended game for Black: the area scores' difference less komi (TT rules
/// 9-10), or the long cycle's winner (001 §3.6: the player who captured more stones since the
/// first occurrence; equal captures: `0`).
fn end_value(game: &LiteralGame, ending: Ending, komi_half: i32) -> Value {
    match ending {
        Ending::TwoPasses => {
            let [black, white] = game.score();
            Value::points(2 * (black as i32 - white as i32) - komi_half)
        }
        Ending::LongCycle { captures, .. } => match captures[0].cmp(&captures[1]) {
            std::cmp::Ordering::Greater => Value::long_cycle_win(Color::Black),
            std::cmp::Ordering::Less => Value::long_cycle_win(Color::White),
            std::cmp::Ordering::Equal => Value::points(0),
        },
    }
}

/// A node of a strategy's walk: the game, the turns since the header's, and the line of the
/// certificate whose play led there (1, the header, before any).
struct Node {
    game: LiteralGame,
    line: Vec<Move>,
    from: usize,
}

/// Checks `certificate`: replays the header's moves by the literal rules, then walks each
/// side's strategy from there, following the prover's play at its turns (which must be
/// legal) and every legal turn of the other side (each play and the pass), and scores every
/// end of the game reached against the bound the strategy proves. Every line must be reached.
///
/// # Errors
///
/// A [`Refutation`] with the first line found to fail and why.
pub fn check(certificate: &Certificate) -> Result<Checked, Refutation> {
    let header = &certificate.header;
    let rules = header.rules();
    if rules.ko == KoRule::Simple {
        return Err(Refutation {
            line: 1,
            kind: RefutationKind::NoEnd,
        });
    }
    let Ok(geometry) = Geometry::rect(header.width, header.height) else {
        return Err(Refutation {
            line: 1,
            kind: RefutationKind::NoBoard,
        });
    };
    let graph = Graph::grid(header.width, header.height);
    let mut start = LiteralGame::new(graph, rules);
    for (i, &mv) in header.moves.iter().enumerate() {
        apply(&mut start, mv).map_err(|e| Refutation {
            line: 1,
            kind: RefutationKind::IllegalHeaderMove {
                turn: i + 1,
                play: turn_name(&geometry, mv),
                why: why(e),
            },
        })?;
    }
    // Each side's strategy by its lines: the play and the line's number.
    let mut strategies: [HashMap<&[Move], (Move, usize)>; 2] = [HashMap::new(), HashMap::new()];
    for (i, l) in certificate.lines.iter().enumerate() {
        strategies[l.proves.index()].insert(&l.line, (l.play, i + 2));
    }
    let mut used = vec![false; certificate.lines.len() + 2];
    let mut ends = 0;
    for prover in Color::ALL {
        ends += walk(
            &start,
            prover,
            &strategies[prover.index()],
            header.value,
            header.komi.half_points(),
            &geometry,
            &mut used,
        )?;
    }
    if let Some(i) = (2..used.len()).find(|&i| !used[i]) {
        return Err(Refutation {
            line: i,
            kind: RefutationKind::Unreached {
                proves: certificate.lines[i - 2].proves,
            },
        });
    }
    let black_lines = certificate
        .lines
        .iter()
        .filter(|l| l.proves == Color::Black)
        .count();
    Ok(Checked {
        value: header.value,
        black_lines,
        white_lines: certificate.lines.len() - black_lines,
        ends,
    })
}

/// Walks `prover`'s strategy from `start` (depth first, with a stack of its own: lines can be
/// long), marking the lines it uses; the ends of the game reached.
fn walk(
    start: &LiteralGame,
    prover: Color,
    strategy: &HashMap<&[Move], (Move, usize)>,
    value: Value,
    komi_half: i32,
    geometry: &Geometry,
    used: &mut [bool],
) -> Result<u64, Refutation> {
    let names = |line: &[Move]| {
        line.iter()
            .map(|&mv| turn_name(geometry, mv))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let points = geometry.len();
    let mut ends = 0;
    let mut stack = vec![Node {
        game: start.clone(),
        line: Vec::new(),
        from: 1,
    }];
    while let Some(Node {
        mut game,
        mut line,
        from,
    }) = stack.pop()
    {
        if let Some(ending) = game.ending() {
            let end = end_value(&game, ending, komi_half);
            let meets = match prover {
                Color::Black => end >= value,
                Color::White => end <= value,
            };
            if !meets {
                return Err(Refutation {
                    line: from,
                    kind: RefutationKind::FalseValue {
                        proves: prover,
                        after: names(&line),
                        end,
                        value,
                    },
                });
            }
            ends += 1;
            continue;
        }
        if game.to_move() == prover {
            let Some(&(play, number)) = strategy.get(line.as_slice()) else {
                return Err(Refutation {
                    line: from,
                    kind: RefutationKind::MissingReply {
                        proves: prover,
                        after: names(&line),
                    },
                });
            };
            used[number] = true;
            apply(&mut game, play).map_err(|e| Refutation {
                line: number,
                kind: RefutationKind::IllegalPlay {
                    proves: prover,
                    play: turn_name(geometry, play),
                    why: why(e),
                },
            })?;
            line.push(play);
            stack.push(Node {
                game,
                line,
                from: number,
            });
        } else {
            // Every legal turn of the other side: the pass and each play the rules allow
            // (pushed in reverse, so that the walk takes them in order).
            let replies = std::iter::once(Move::Pass)
                .chain((0..points).map(|p| Move::Play(goref_rules::Point::new(p))));
            let mut children = Vec::new();
            for mv in replies {
                let mut child = game.clone();
                if apply(&mut child, mv).is_ok() {
                    let mut child_line = line.clone();
                    child_line.push(mv);
                    children.push(Node {
                        game: child,
                        line: child_line,
                        from,
                    });
                }
            }
            stack.extend(children.into_iter().rev());
        }
    }
    Ok(ends)
}
