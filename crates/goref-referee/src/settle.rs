//! The settlement of a game after two passes, for every protocol: what to do next, given what
//! the players (or a referee) said.
//!
//! The driver (match runner or server) calls [`Settlement::on_two_passes`] each time the game
//! stops by two consecutive passes and follows the [`Action`] it gets back, reporting answers
//! through the other `on_*` methods. Every path ends: each resumption of play either adds
//! stones or ends at once by passes, and the Olympiad allows at most three resumptions.

use std::collections::BTreeSet;

use goref_rules::{Board, Color, Game, Move};

use crate::marking::{normalize, Dead};
use crate::Protocol;

/// The most resumptions of play Olympiad 3.7.4 allows.
pub const OLYMPIAD_RESUMPTIONS: u32 = 3;

/// What the driver must do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Ask both players which stones they consider dead (GTP `final_status_list dead`) and
    /// report with [`Settlement::on_dead_lists`].
    AskDeadLists,
    /// Resume play on the same board (`Game::resume`); `first` moves first (the player who
    /// passed first). With `cleanup`, engines are asked to capture what they think dead
    /// (`kgs-genmove_cleanup` where they have it).
    Resume {
        /// The player who acts first.
        first: Color,
        /// The KGS clean-up phase.
        cleanup: bool,
    },
    /// Reference 000, "Japanese rules": copy the position, play the dispute out on the copy
    /// with `first` to move until two passes, and report the copy's final board with
    /// [`Settlement::on_copy_played_out`].
    PlayOutOnCopy {
        /// The player who acts first.
        first: Color,
    },
    /// Run the alternating marking of reference 003 (`tromp::Agreement`), `first` to act, and
    /// report with [`Settlement::on_marking_agreed`] or [`Settlement::on_marking_disputed`].
    StartMarking {
        /// The player who acts first.
        first: Color,
    },
    /// Ask the third party (a referee engine, or the tournament director's default removal of
    /// Olympiad 3.9) which of the `disputed` stones are dead; report with
    /// [`Settlement::on_referee`].
    AskReferee {
        /// The stones to decide.
        disputed: Dead,
    },
    /// The game is over: remove `dead` and score the board.
    Finish {
        /// The stones named dead.
        dead: Dead,
        /// How the settlement ended.
        ending: Settled,
    },
}

/// Why the settlement ended as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Settled {
    /// No dead-stone phase: every stone is alive (TT rules 8-9).
    AllAlive,
    /// Both players named the same dead stones, or both said done after marking.
    Agreement,
    /// Both passed at once after play resumed: four passes, the board scored as it stands
    /// (reference 000, "Chinese rules"; reference 003).
    FourPasses,
    /// KGS: the two passes after the clean-up phase end the game with every stone alive.
    CleanupPasses,
    /// Disputed groups settled by play on a copy of the board (reference 000, "Japanese rules").
    PlayedOutOnCopy,
    /// Disputed stones settled by the third party (reference 000, Olympiad 3.9).
    Referee,
}

impl Settled {
    /// A short name for records.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Settled::AllAlive => "all-alive",
            Settled::Agreement => "agreement",
            Settled::FourPasses => "four-passes",
            Settled::CleanupPasses => "cleanup-passes",
            Settled::PlayedOutOnCopy => "played-out-on-copy",
            Settled::Referee => "referee",
        }
    }
}

/// The dead-stone phase of one game under one protocol.
#[derive(Clone, Debug)]
pub struct Settlement {
    protocol: Protocol,
    /// Turns played when play last resumed, to recognise two immediate passes.
    resumed_at: Option<usize>,
    resumptions: u32,
    cleanup: bool,
    /// What both lists agreed on when they last differed (removed in any case).
    agreed: Dead,
    /// The position and lists when play moved to a copy of the board.
    disputed_on_copy: Option<(Board, Dead)>,
    /// The stones the referee was asked about.
    disputed: Dead,
    first: Color,
}

impl Settlement {
    /// A settlement for one game.
    #[must_use]
    pub fn new(protocol: Protocol) -> Settlement {
        Settlement {
            protocol,
            resumed_at: None,
            resumptions: 0,
            cleanup: false,
            agreed: Dead::new(),
            disputed_on_copy: None,
            disputed: Dead::new(),
            first: Color::Black,
        }
    }

    /// The protocol.
    #[must_use]
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Times play has resumed.
    #[must_use]
    pub fn resumptions(&self) -> u32 {
        self.resumptions
    }

    /// The game has just stopped by two consecutive passes.
    pub fn on_two_passes(&mut self, game: &Game) -> Action {
        // The player who passed first moves first if play resumes (reference 000; Olympiad
        // 3.7.4: "the program that passed last moving second").
        self.first = first_passer(game);
        let immediate = self
            .resumed_at
            .is_some_and(|at| game.moves().len() == at + 2);
        match self.protocol {
            Protocol::AllAlive => finish(Dead::new(), Settled::AllAlive),
            Protocol::Kgs if self.cleanup => finish(Dead::new(), Settled::CleanupPasses),
            Protocol::Chinese | Protocol::Kgs | Protocol::Tromp if immediate => {
                finish(Dead::new(), Settled::FourPasses)
            }
            Protocol::Tromp => Action::StartMarking { first: self.first },
            _ => Action::AskDeadLists,
        }
    }

    /// The players' dead lists; `None` for a player that gave none or failed, which counts as
    /// removing nothing (Olympiad 3.7.2) and is never penalised (reference 000).
    pub fn on_dead_lists(
        &mut self,
        game: &Game,
        black: Option<&[goref_rules::Point]>,
        white: Option<&[goref_rules::Point]>,
    ) -> Action {
        let board = game.board();
        let black = normalize(board, black.unwrap_or_default().iter().copied());
        let white = normalize(board, white.unwrap_or_default().iter().copied());
        if black == white {
            return finish(black, Settled::Agreement);
        }
        self.agreed = black.intersection(&white).copied().collect();
        let disputed: Dead = black.symmetric_difference(&white).copied().collect();
        match self.protocol {
            Protocol::Chinese => self.resume(game, false),
            Protocol::Kgs => {
                self.cleanup = true;
                self.resume(game, true)
            }
            Protocol::Olympiad if self.resumptions < OLYMPIAD_RESUMPTIONS => {
                self.resume(game, false)
            }
            Protocol::Japanese => {
                self.disputed_on_copy = Some((board.clone(), disputed));
                Action::PlayOutOnCopy { first: self.first }
            }
            _ => {
                self.disputed.clone_from(&disputed);
                Action::AskReferee { disputed }
            }
        }
    }

    /// The copy's board after the dispute was played out to two passes: a disputed string is
    /// dead when any of its stones was captured there; agreed dead stones go too.
    pub fn on_copy_played_out(&mut self, copy: &Board) -> Action {
        let Some((original, disputed)) = self.disputed_on_copy.take() else {
            return finish(Dead::new(), Settled::AllAlive);
        };
        let mut dead = std::mem::take(&mut self.agreed);
        let mut judged = BTreeSet::new();
        for &p in &disputed {
            if judged.contains(&p) {
                continue;
            }
            let string = original.string(p);
            judged.extend(string.iter().copied());
            let color = original.get(p);
            if string.iter().any(|&s| copy.get(s) != color) {
                dead.extend(string);
            }
        }
        finish(dead, Settled::PlayedOutOnCopy)
    }

    /// The referee's dead stones: of the disputed stones, those it names are removed, with the
    /// stones both players agreed on. Stones both players called alive stay whatever the
    /// referee says: it settles disagreements only (reference 000, "third-party mediation";
    /// Olympiad 3.9.2, "any disputed block"). `None` (no referee answer) removes no disputed
    /// stone.
    pub fn on_referee(&mut self, game: &Game, dead: Option<&[goref_rules::Point]>) -> Action {
        let named = normalize(game.board(), dead.unwrap_or_default().iter().copied());
        let mut removed = std::mem::take(&mut self.agreed);
        let disputed = std::mem::take(&mut self.disputed);
        removed.extend(named.intersection(&disputed).copied());
        finish(removed, Settled::Referee)
    }

    /// Reference 003: two consecutive dones; the marked stones are removed.
    pub fn on_marking_agreed(&mut self, dead: Dead) -> Action {
        finish(dead, Settled::Agreement)
    }

    /// Reference 003: a dispute clears all marks and play continues as if the agreement phase
    /// had not existed.
    pub fn on_marking_disputed(&mut self, game: &Game) -> Action {
        self.resume(game, false)
    }

    fn resume(&mut self, game: &Game, cleanup: bool) -> Action {
        self.resumptions += 1;
        self.resumed_at = Some(game.moves().len());
        Action::Resume {
            first: self.first,
            cleanup,
        }
    }
}

fn finish(dead: Dead, ending: Settled) -> Action {
    Action::Finish { dead, ending }
}

/// The player who made the first of the two final passes.
fn first_passer(game: &Game) -> Color {
    let moves = game.moves();
    match moves.len().checked_sub(2).map(|i| moves[i]) {
        Some((color, Move::Pass)) => color,
        _ => game.to_move(),
    }
}
