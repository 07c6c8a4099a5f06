//! What the judge's searches share (the `search` module's two searches, the `dfpn`, `eyes`
//! and `region` modules): the game's [`Context`] they judge in, their [`Answer`] and
//! [`Budget`], the count of nodes they visit, and one-sided moving's plays. It depends on none
//! of them.

use goref_rules::history::History;
use goref_rules::KoBan;
use goref_rules::{Board, Color, KoRule, Point, Ruleset};

use crate::blocks::Blocks;

thread_local! {
    static NODES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Nodes visited by the searches of this thread so far (both searches and the enumeration of
/// maximal local regions), for measurement.
#[must_use]
pub fn nodes_visited() -> u64 {
    NODES.with(std::cell::Cell::get)
}

pub(crate) fn count_node() {
    NODES.with(|n| n.set(n.get() + 1));
}

/// What the searches need from the game: the rules, the positions already played (superko
/// and the long cycle rule), and the basic-ko ban in force.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The game's rules (suicide, ko, superko, the long cycle rule).
    pub rules: Ruleset,
    /// The game's positions so far; `None` for a position without history (a diagram).
    pub history: Option<&'a History>,
    /// The basic-ko ban in force in the position judged.
    pub ko: Option<KoBan>,
}

impl<'a> Context<'a> {
    /// A position without history or ko ban, judged under `rules`.
    #[must_use]
    pub fn fresh(rules: Ruleset) -> Context<'a> {
        Context {
            rules,
            history: None,
            ko: None,
        }
    }

    /// The context of a game's current position.
    #[must_use]
    pub fn of_game(game: &'a goref_rules::Game) -> Context<'a> {
        Context {
            rules: *game.rules(),
            history: Some(game.history()),
            ko: game.ko(),
        }
    }

    /// Whether the colouring of `after`, with `to_move` to play, repeats a position of the
    /// game in the sense of the ko rule (never under simple ko).
    pub(crate) fn repeats_game(&self, after: &Board, to_move: Color) -> bool {
        let Some(history) = self.history else {
            return false;
        };
        let filter = match self.rules.ko {
            KoRule::Simple => return false,
            KoRule::SituationalSuperko => Some(to_move),
            KoRule::PositionalSuperko | KoRule::LongCycle => None,
        };
        history
            .candidates(after.hash(), filter)
            .any(|i| history.same_colouring(i, after.packed()))
    }
}

/// The answer of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer<T> {
    /// Yes, with the evidence.
    Yes(T),
    /// No.
    No,
    /// The budget ran out: why, in words.
    Undecided(String),
}

/// Nodes a search may visit before answering [`Answer::Undecided`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Positions of one-sided moving enumerated for a maximal local region.
    pub region_nodes: u64,
    /// Positions of one-sided moving examined for "at most one eye".
    pub eye_nodes: u64,
    /// Nodes of the alternate-moving search for "locally capturable". Its table holds about
    /// 250 bytes a node (measured on 19×19), so the default of 300,000 bounds one search to
    /// about 75 MB; the hardest block of GNU Go's unconditional-status positions needs 84,062.
    pub capture_nodes: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            region_nodes: 20_000,
            eye_nodes: 20_000,
            capture_nodes: 300_000,
        }
    }
}

/// Whether `color` may play `p` in one-sided moving (the opponent passing), and the board after.
pub(crate) fn one_sided_play(
    board: &Board,
    p: Point,
    color: Color,
    first: bool,
    ctx: &Context,
    allow_suicide: bool,
) -> Option<Board> {
    if board.get(p).is_some() {
        return None;
    }
    let effect = board.effect(p, color);
    if effect.suicided > 0 && !(allow_suicide && ctx.rules.suicide_allowed) {
        return None;
    }
    if first {
        if let Some(ban) = ctx.ko {
            if ban.point == p && ban.forbidden == color && effect.captured == 1 {
                return None;
            }
        }
    }
    let mut after = board.clone();
    after.play_unchecked(p, color);
    if ctx.repeats_game(&after, color.opponent()) {
        return None;
    }
    Some(after)
}

/// Plays of `color` (the block's colour) that capture, one after another, the opposing blocks
/// in `reach` that filling their liberties captures, never playing on `forbidden` and keeping
/// the block of `stone`. Returns the position reached and the plays; `None` if the block is lost.
pub(crate) fn capture_opponents(
    board: &Board,
    stone: Point,
    reach: &[bool],
    forbidden: Option<Point>,
    ctx: &Context,
) -> Option<(Board, Vec<Point>)> {
    let color = board.get(stone)?;
    let geometry = board.geometry().clone();
    let mut b = board.clone();
    let mut plays: Vec<Point> = Vec::new();
    let mut progress = true;
    while progress {
        progress = false;
        let blocks = Blocks::new(&geometry, b.colors());
        for block in &blocks.list {
            if block.color == color || !reach[block.anchor().index()] {
                continue;
            }
            let mut libs: Vec<Point> = Vec::new();
            for &s in &block.stones {
                for &q in geometry.neighbors(s) {
                    if b.get(q).is_none() && !libs.contains(&q) {
                        libs.push(q);
                    }
                }
            }
            if forbidden.is_some_and(|f| libs.contains(&f)) {
                continue;
            }
            let mut trial = b.clone();
            let mut trial_plays = Vec::new();
            while libs.len() > 1 {
                let first = plays.is_empty() && trial_plays.is_empty();
                let Some(i) = libs
                    .iter()
                    .position(|&l| one_sided_play(&trial, l, color, first, ctx, false).is_some())
                else {
                    break;
                };
                let l = libs.swap_remove(i);
                trial.play_unchecked(l, color);
                trial_plays.push(l);
            }
            if libs.len() == 1 {
                let first = plays.is_empty() && trial_plays.is_empty();
                if let Some(after) = one_sided_play(&trial, libs[0], color, first, ctx, false) {
                    if after.get(stone) == Some(color) {
                        trial_plays.push(libs[0]);
                        b = after;
                        plays.extend(trial_plays);
                        progress = true;
                        break;
                    }
                }
            }
        }
    }
    (b.get(stone) == Some(color)).then_some((b, plays))
}

/// The longest line either search follows (they recurse once a move); beyond it the answer
/// is undecided.
pub(crate) const MAX_LINE: usize = 400;
