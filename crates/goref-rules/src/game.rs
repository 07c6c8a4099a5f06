//! A game: the board, whose turn it is, the history that the ko rules consult, and the end.

use std::fmt;
use std::sync::Arc;

use crate::board::Effect;
use crate::history::History;
use crate::outcome::{Outcome, Score, WinBy};
use crate::{Board, ByColor, Color, Geometry, KoRule, Point, Ruleset};

/// A turn (TT rule 6): a play of a stone on a point, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Pass.
    Pass,
    /// Play a stone on this point.
    Play(Point),
}

/// Why a move is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// The game has ended.
    GameOver,
    /// The point is not on this board.
    OffBoard,
    /// The point holds a stone (TT rule 7: a move colours an *empty* point).
    Occupied,
    /// The play would remove its own string (Olympiad 3.5, NSTT).
    Suicide,
    /// Basic ko (Olympiad 3.5): the play would immediately recapture the single stone at this
    /// point.
    Ko {
        /// The point of the single stone it would recapture.
        point: Point,
    },
    /// Superko (TT rule 6): the play would recreate the position that arose after this many
    /// turns (0: the starting position).
    Superko {
        /// The turn after which that position arose (0: the start).
        repeats_after_turns: usize,
    },
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegal::GameOver => f.write_str("the game is over"),
            Illegal::OffBoard => f.write_str("off the board"),
            Illegal::Occupied => f.write_str("occupied"),
            Illegal::Suicide => f.write_str("suicide"),
            Illegal::Ko { .. } => f.write_str("ko: immediate recapture"),
            Illegal::Superko {
                repeats_after_turns: 0,
            } => f.write_str("superko: repeats the starting position"),
            Illegal::Superko {
                repeats_after_turns: n,
            } => write!(f, "superko: repeats the position after move {n}"),
        }
    }
}

/// An illegal move, handed back with what was tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// The number this move would have had (the first move is 1).
    pub number: usize,
    /// The player who tried it.
    pub color: Color,
    /// The move tried.
    pub mv: Move,
    /// Why it is illegal.
    pub reason: Illegal,
}

impl std::error::Error for IllegalMove {}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mv = match self.mv {
            Move::Pass => "pass".to_string(),
            Move::Play(p) => format!("point {}", p.index()),
        };
        write!(
            f,
            "move {} ({} {}) is illegal: {}",
            self.number, self.color, mv, self.reason
        )
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Two consecutive passes (TT rule 8, Olympiad 3.7.1).
    TwoPasses,
    /// A play recreated the position that arose after `first_after_turns` turns (Olympiad
    /// 3.6); `captures` are the stones taken by Black and by White since then.
    LongCycle {
        /// The turn after which the position first arose.
        first_after_turns: usize,
        /// Stones captured by Black and by White since then.
        captures: ByColor<u32>,
    },
    /// A player resigned (Olympiad 3.2).
    Resignation {
        /// Who resigned.
        by: Color,
    },
    /// A player ran out of time.
    Time {
        /// Whose time ran out.
        by: Color,
    },
    /// A player forfeited.
    Forfeit {
        /// Who forfeited.
        by: Color,
    },
}

/// The basic-ko ban: `forbidden` may not recapture the single stone at `point`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KoBan {
    /// The point of the single stone that may not be recaptured.
    pub point: Point,
    /// The player who may not recapture it.
    pub forbidden: Color,
}

/// What a legal turn did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// Opposing stones captured.
    pub captured: u32,
    /// Own stones removed by suicide.
    pub suicided: u32,
    /// Whether the turn ended the game.
    pub ended: Option<End>,
}

/// A game of Go under one [`Ruleset`].
#[derive(Clone, Debug)]
pub struct Game {
    rules: Ruleset,
    start: Board,
    first_player: Color,
    board: Board,
    to_move: Color,
    moves: Vec<(Color, Move)>,
    consecutive_passes: u32,
    ko: Option<KoBan>,
    captures: ByColor<u32>,
    history: History,
    end: Option<End>,
}

impl Game {
    /// A game on the empty board, Black to move (TT rule 5).
    #[must_use]
    pub fn new(geometry: Arc<Geometry>, rules: Ruleset) -> Game {
        Game::from_position(Board::new(geometry), Color::Black, rules)
    }

    /// A game on a `width` × `height` board.
    pub fn rect(width: usize, height: usize, rules: Ruleset) -> Result<Game, crate::GeometryError> {
        Ok(Game::new(Arc::new(Geometry::rect(width, height)?), rules))
    }

    /// A game starting from a set-up position (handicap stones, a problem).
    #[must_use]
    pub fn from_position(board: Board, to_move: Color, rules: Ruleset) -> Game {
        let mut game = Game {
            rules,
            start: board.clone(),
            first_player: to_move,
            board,
            to_move,
            moves: Vec::new(),
            consecutive_passes: 0,
            ko: None,
            captures: ByColor::default(),
            history: History::default(),
            end: None,
        };
        game.history
            .record(&game.board, 0, to_move, ByColor::default());
        game
    }

    /// Back to the starting position, keeping allocations (for playouts).
    pub fn reset(&mut self) {
        self.board.clone_from(&self.start);
        self.to_move = self.first_player;
        self.moves.clear();
        self.consecutive_passes = 0;
        self.ko = None;
        self.captures = ByColor::default();
        self.history.clear();
        self.history
            .record(&self.board, 0, self.to_move, ByColor::default());
        self.end = None;
    }

    /// The rules.
    #[must_use]
    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }

    /// The current position.
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The starting position.
    #[must_use]
    pub fn start(&self) -> &Board {
        &self.start
    }

    /// The board's geometry.
    #[must_use]
    pub fn geometry(&self) -> &Arc<Geometry> {
        self.board.geometry()
    }

    /// The player who moved first from the starting position.
    #[must_use]
    pub fn first_player(&self) -> Color {
        self.first_player
    }

    /// The player to move.
    #[must_use]
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// The turns played so far.
    #[must_use]
    pub fn moves(&self) -> &[(Color, Move)] {
        &self.moves
    }

    /// Stones captured by Black and by White.
    #[must_use]
    pub fn captures(&self) -> ByColor<u32> {
        self.captures
    }

    /// The current basic-ko ban, if any.
    #[must_use]
    pub fn ko(&self) -> Option<KoBan> {
        self.ko
    }

    /// Consecutive passes just played.
    #[must_use]
    pub fn consecutive_passes(&self) -> u32 {
        self.consecutive_passes
    }

    /// The positions seen so far.
    #[must_use]
    pub fn history(&self) -> &History {
        &self.history
    }

    /// How the game ended, or `None` while it goes on.
    #[must_use]
    pub fn end(&self) -> Option<End> {
        self.end
    }

    /// Whether the game has ended.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// Whether the player to move may make `mv`.
    #[must_use]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check(mv).is_ok()
    }

    /// Why `mv` is illegal for the player to move, if it is.
    pub fn legality(&self, mv: Move) -> Result<(), Illegal> {
        self.check(mv).map(|_| ())
    }

    /// Under the long-cycle rule (Olympiad 3.6), whether the legal play `mv` would recreate an
    /// earlier position and so end the game: the turns after which that position arose.
    /// `None` for a pass, an illegal move, or rules without the long-cycle rule.
    #[must_use]
    pub fn long_cycle(&self, mv: Move) -> Option<usize> {
        if self.rules.ko != KoRule::LongCycle {
            return None;
        }
        match self.check(mv) {
            Ok(Checked::Play {
                repeats: Some(i), ..
            }) => Some(self.history.occurrences()[i].after_turns),
            _ => None,
        }
    }

    /// Every legal move for the player to move, pass last.
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.is_over() {
            return Vec::new();
        }
        let mut moves: Vec<Move> = self
            .geometry()
            .points()
            .map(Move::Play)
            .filter(|&m| self.is_legal(m))
            .collect();
        moves.push(Move::Pass);
        moves
    }

    /// Makes `mv` for the player to move, or says why it is illegal.
    pub fn play(&mut self, mv: Move) -> Result<Played, IllegalMove> {
        let checked = self.check(mv).map_err(|reason| IllegalMove {
            number: self.moves.len() + 1,
            color: self.to_move,
            mv,
            reason,
        })?;
        Ok(self.apply(mv, checked))
    }

    /// Resumes alternate moving after two passes (Olympiad 3.7.4: the player who passed first
    /// moves first). The basic-ko ban stays as it was (3.5 footnote 2).
    pub fn resume(&mut self) {
        if self.end == Some(End::TwoPasses) {
            self.end = None;
            self.consecutive_passes = 0;
        }
    }

    /// Ends the game by resignation, time or forfeit of `by`.
    pub fn end_by(&mut self, end: End) {
        self.end = Some(end);
    }

    /// Area score of the board as it stands, all stones alive (TT rule 9).
    #[must_use]
    pub fn score(&self) -> Score {
        let ByColor { black, white } = self.board.area();
        Score {
            black,
            white,
            komi: self.rules.komi,
        }
    }

    /// The result: by the end when the game has ended, else by the score as it stands.
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        match self.end {
            Some(End::LongCycle { captures, .. }) => match captures.black.cmp(&captures.white) {
                std::cmp::Ordering::Equal => Outcome::Draw,
                order => Outcome::Win {
                    winner: if order.is_gt() {
                        Color::Black
                    } else {
                        Color::White
                    },
                    by: WinBy::LongCycle { captures },
                },
            },
            Some(End::Resignation { by }) => win(by.opponent(), WinBy::Resignation),
            Some(End::Time { by }) => win(by.opponent(), WinBy::Time),
            Some(End::Forfeit { by }) => win(by.opponent(), WinBy::Forfeit),
            Some(End::TwoPasses) | None => self.score().outcome(),
        }
    }

    fn check(&self, mv: Move) -> Result<Checked, Illegal> {
        if self.end.is_some() {
            return Err(Illegal::GameOver);
        }
        let Move::Play(p) = mv else {
            return Ok(Checked::Pass);
        };
        if !self.geometry().contains(p) {
            return Err(Illegal::OffBoard);
        }
        if self.board.get(p).is_some() {
            return Err(Illegal::Occupied);
        }
        let color = self.to_move;
        let effect = self.board.effect(p, color);
        if let Some(ban) = self.ko {
            if ban.point == p && ban.forbidden == color && effect.captured == 1 {
                return Err(Illegal::Ko { point: p });
            }
        }
        if effect.suicided > 0 && !self.rules.suicide_allowed {
            return Err(Illegal::Suicide);
        }
        let repeats = self.repetition(p, color, &effect);
        match (self.rules.ko, repeats) {
            (KoRule::PositionalSuperko | KoRule::SituationalSuperko, Some(i)) => {
                Err(Illegal::Superko {
                    repeats_after_turns: self.history.occurrences()[i].after_turns,
                })
            }
            _ => Ok(Checked::Play { p, effect, repeats }),
        }
    }

    /// The earlier occurrence that playing `p` would repeat, under rules that look for one.
    fn repetition(&self, p: Point, color: Color, effect: &Effect) -> Option<usize> {
        let to_move = match self.rules.ko {
            KoRule::Simple => return None,
            KoRule::SituationalSuperko => Some(color.opponent()),
            KoRule::PositionalSuperko | KoRule::LongCycle => None,
        };
        let mut candidates = self
            .history
            .candidates(effect.hash_after, to_move)
            .peekable();
        candidates.peek()?;
        // The same situation can recur through passes: name the first occurrence.
        if effect.suicided == 1 {
            // A lone stone that removes itself leaves the colouring as it is.
            return candidates
                .filter(|&i| self.history.same_colouring(i, self.board.packed()))
                .last();
        }
        let mut after = self.board.clone();
        after.play_unchecked(p, color);
        candidates
            .filter(|&i| self.history.same_colouring(i, after.packed()))
            .last()
    }

    fn apply(&mut self, mv: Move, checked: Checked) -> Played {
        let color = self.to_move;
        self.moves.push((color, mv));
        self.to_move = color.opponent();
        let turns = self.moves.len();
        let mut played = Played {
            captured: 0,
            suicided: 0,
            ended: None,
        };
        match checked {
            Checked::Pass => {
                self.consecutive_passes += 1;
                if self.rules.ko == KoRule::Simple {
                    self.ko = None;
                }
                if self.rules.ko == KoRule::SituationalSuperko {
                    self.history
                        .record(&self.board, turns, self.to_move, self.captures);
                }
                if self.consecutive_passes >= 2 {
                    played.ended = Some(End::TwoPasses);
                }
            }
            Checked::Play { p, effect, repeats } => {
                self.consecutive_passes = 0;
                let (captured, suicided) = self.board.play_unchecked(p, color);
                debug_assert_eq!(self.board.hash(), effect.hash_after);
                self.captures[color] += captured;
                self.captures[color.opponent()] += suicided;
                played.captured = captured;
                played.suicided = suicided;
                self.ko = match (self.rules.ko.has_basic_ko(), effect.makes_ko) {
                    (true, true) => effect.single_capture.map(|point| KoBan {
                        point,
                        forbidden: color.opponent(),
                    }),
                    _ => None,
                };
                if let Some(i) = repeats {
                    let first = self.history.occurrences()[i];
                    let c = self.captures;
                    played.ended = Some(End::LongCycle {
                        first_after_turns: first.after_turns,
                        captures: ByColor::new(
                            c.black - first.captures.black,
                            c.white - first.captures.white,
                        ),
                    });
                }
                self.history
                    .record(&self.board, turns, self.to_move, self.captures);
            }
        }
        self.end = played.ended;
        played
    }
}

fn win(winner: Color, by: WinBy) -> Outcome {
    Outcome::Win { winner, by }
}

enum Checked {
    Pass,
    Play {
        p: Point,
        effect: Effect,
        repeats: Option<usize>,
    },
}
