//! Reference 003: agreeing on dead stones by alternating marks.
//!
//! "After 2 passes, the players keep alternating with the following 3 choices on each turn:
//! marking a string as dead, which automatically marks all other same colored strings
//! neighbouring the adjacent empty region(s); disputing a string marked as dead [...] all
//! markings are removed and play continues [...]; a done [...] Two consecutive done's end the
//! game with dead groups removed as agreed."

use std::fmt;

use goref_rules::{Board, Color, Point};

use crate::marking::{mark, Dead};

/// One turn of the agreement phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Mark the string through this stone as dead (with its neighbours across empty regions).
    Mark(Point),
    /// Dispute the marked string through this stone: marks cleared, play resumes.
    Dispute(Point),
    /// Done indicating dead groups.
    Done,
}

/// What a turn led to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The other player acts next.
    Continue,
    /// Two consecutive dones: remove these stones and score.
    Agreed(Dead),
    /// A dispute: marks cleared, play resumes with the player who passed first.
    Disputed,
}

/// Why a choice was refused (it changes nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The agreement phase is over.
    Over,
    /// It is the other player's turn.
    NotYourTurn,
    /// Only stones can be marked.
    NoStone,
    /// The string is already marked.
    AlreadyMarked,
    /// Only marked strings can be disputed.
    NotMarked,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refused::Over => "the agreement phase is over",
            Refused::NotYourTurn => "it is not your turn",
            Refused::NoStone => "there is no stone to mark there",
            Refused::AlreadyMarked => "that string is already marked",
            Refused::NotMarked => "that string is not marked",
        })
    }
}

impl std::error::Error for Refused {}

/// The state of the alternating agreement phase.
#[derive(Clone, Debug)]
pub struct Agreement {
    board: Board,
    marked: Dead,
    to_act: Color,
    previous_done: bool,
    over: bool,
    choices: Vec<(Color, Choice)>,
}

impl Agreement {
    /// The phase on `board` (the position after two passes), `first` to act.
    #[must_use]
    pub fn new(board: Board, first: Color) -> Agreement {
        Agreement {
            board,
            marked: Dead::new(),
            to_act: first,
            previous_done: false,
            over: false,
            choices: Vec::new(),
        }
    }

    /// The stones marked dead so far.
    #[must_use]
    pub fn marked(&self) -> &Dead {
        &self.marked
    }

    /// Who acts next.
    #[must_use]
    pub fn to_act(&self) -> Color {
        self.to_act
    }

    /// The board being marked.
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Every choice made, in order (for records).
    #[must_use]
    pub fn choices(&self) -> &[(Color, Choice)] {
        &self.choices
    }

    /// `by` makes `choice`.
    pub fn choose(&mut self, by: Color, choice: Choice) -> Result<Step, Refused> {
        if self.over {
            return Err(Refused::Over);
        }
        if by != self.to_act {
            return Err(Refused::NotYourTurn);
        }
        let step = match choice {
            Choice::Mark(p) => {
                if !self.board.geometry().contains(p) || self.board.get(p).is_none() {
                    return Err(Refused::NoStone);
                }
                if self.marked.contains(&p) {
                    return Err(Refused::AlreadyMarked);
                }
                self.marked.extend(mark(&self.board, p));
                self.previous_done = false;
                Step::Continue
            }
            Choice::Dispute(p) => {
                if !self.marked.contains(&p) {
                    return Err(Refused::NotMarked);
                }
                self.marked.clear();
                self.over = true;
                Step::Disputed
            }
            Choice::Done if self.previous_done => {
                self.over = true;
                Step::Agreed(self.marked.clone())
            }
            Choice::Done => {
                self.previous_done = true;
                Step::Continue
            }
        };
        self.choices.push((by, choice));
        self.to_act = by.opponent();
        Ok(step)
    }

    /// The choice of a player who believes `dead` are the dead stones (an engine's
    /// `final_status_list dead`): see [`choice`].
    #[must_use]
    pub fn choice_for(&self, dead: &Dead) -> Choice {
        choice(&self.marked, dead)
    }
}

/// The choice of a player who believes `dead` are the dead stones (whole strings), when
/// `marked` are marked: dispute a marked stone it thinks alive, else mark a stone it thinks
/// dead, else done. Marks only grow, so this ends within one turn per string. The one policy
/// of every program goref plays for (the match runner, `goref connect`).
#[must_use]
pub fn choice(marked: &Dead, dead: &Dead) -> Choice {
    if let Some(&p) = marked.iter().find(|p| !dead.contains(p)) {
        return Choice::Dispute(p);
    }
    match dead.iter().find(|p| !marked.contains(p)) {
        Some(&p) => Choice::Mark(p),
        None => Choice::Done,
    }
}
