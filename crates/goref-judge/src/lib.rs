//! Judging dead stones by the Computer Olympiad's default removal (reference 001 §3.9).
//!
//! When the programs still disagree about dead stones after resumed play (001 §3.7.5), the
//! tournament director removes "only the most obvious disputed blocks in accordance with 3.9.1
//! and 3.9.2". This crate computes those definitions exactly, on any board graph, with no I/O:
//!
//! - [`decided`]: exact early adjudication, whether a winner is already certain;
//! - [`benson`]: pass-alive blocks and territory ("no strategy exists to remove it under
//!   one-sided moving of the opposing colour"), with suicide legal or illegal;
//! - [`region`]: the maximal local region of a block;
//! - [`search`]: "locally capturable" and "has at most one eye", exact searches with a node
//!   budget whose answer is *undecided* (with the reason) when the budget runs out;
//! - [`removal`]: the default removal of 3.9.2 given both sides' dead lists, or treating every
//!   block as disputed, and the area score afterwards (3.8);
//! - [`testing`]: legal positions from arbitrary cells and the brute force the definitions are
//!   checked against, for tests;
//! - inside: `blocks` (blocks, and [`board_from_diagram`]), `dfpn` (the proof-number search
//!   of "locally capturable") and `eyes` ("at most one eye").
//!
//! # Reading of the text
//!
//! Where 3.9 leaves a choice, goref reads it as follows (each choice is tested):
//!
//! - one-sided and local moving follow the game's rules: suicide as the preset says, basic ko
//!   whose ban survives passes under `olympiad` (3.5 footnote 2), superko against the game's
//!   earlier positions and the line's own;
//! - in one-sided moving (pass-alive aside) the block itself stays on the board: a line in
//!   which it leaves, by capture or by its own self-capture when suicide is legal, neither
//!   makes it pass-alive nor adds to its maximal local region;
//! - local alternate moving does not stop after two passes (3.7.1 ends the game, not a
//!   hypothetical line): a line that never removes the block leaves it on the board;
//! - under the long cycle rule (3.6) a play that repeats a position ends the line; the block
//!   counts as removed only if that play removed it;
//! - a program's dead list names a block when it names any of its stones; a block in both
//!   lists is agreed ("unaffected by disputes") and removed, a block in one list is disputed;
//!   all verdicts are on the position as play ended.
//!
//! "Locally capturable" is an AND/OR proof by depth-first proof-number search with exact
//! transposition keys and the graph-history interaction of ko and repetition handled by
//! keeping, with each solved result, what of the line above it rests on; "at most one eye" is
//! settled by a constructed witness, an eye-space bound that proves the answer "no" without
//! enumerating (with suicide legal or not), or, last, exhaustive enumeration. With suicide
//! legal, the opposing blocks that stay while the block does ([`pass_alive_beside`]) bound
//! where one-sided moving can reach. Every "yes" carries its evidence (the plays
//! that make a block pass-alive, or the capturing line), every "no" comes from a completed
//! proof, and the tests compare every definition with brute-force enumeration on small boards
//! and replay the evidence on a `goref_rules::Game`.
//!
//! [`Judge::judge_blocks`] (and [`Judge::judge_all`], [`default_removal`]) runs the blocks'
//! capture searches on the machine's threads ([`Judge::with_threads`] sets how many); the
//! verdicts, their evidence and the search nodes each records do not depend on the threads.
//!
//! ```
//! use goref_judge::{board_from_diagram, Budget, Context, Judge, Verdict};
//! use goref_rules::{Point, Ruleset};
//!
//! // A white stone alone inside Black's pass-alive corner (two one-point eyes): it has at
//! // most one eye and Black captures it, so 3.9.2 removes it when disputed.
//! let board = board_from_diagram("
//!     . X . X . .
//!     X X X X . .
//!     . . O X . .
//!     X X X X . .
//!     . X . X . .
//! ").unwrap();
//! let judge = Judge::new(&board, Context::fresh(Ruleset::OLYMPIAD), Budget::default());
//! let white = board.geometry().at(2, 2).unwrap();
//! assert!(matches!(judge.judge_block(white).verdict, Verdict::DeadBy39 { .. }));
//! ```

pub mod benson;
mod blocks;
mod context;
pub mod decided;
mod dfpn;
mod eyes;
pub mod region;
pub mod removal;
pub mod search;
pub mod testing;

use std::sync::Mutex;

use goref_rules::{Board, ByColor, Color, Game, Move, Point};

pub use benson::{pass_alive, pass_alive_beside, PassAlive};
pub use blocks::{board_from_diagram, Block, Blocks, DiagramError};
pub use decided::{decided, sure_area, Decided, SureArea};
pub use region::{maximal_local_region, LocalRegion};
pub use removal::{default_removal, Disputes, Removal};
pub use search::{
    can_become_pass_alive, locally_capturable, nodes_visited, Answer, Budget, Context,
};

/// Why a block that is not pass-alive stays on the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keep {
    /// It does not have at most one eye: its colour, moving alone, makes it pass-alive with
    /// these plays.
    CanBecomePassAlive {
        /// The plays of its colour that make it pass-alive.
        plays: Vec<Point>,
    },
    /// It is not locally capturable.
    NotLocallyCapturable,
}

/// The judgement of one block under 3.9.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Pass-alive (3.9.1): it can never be removed.
    PassAlive,
    /// Has at most one eye and is locally capturable: removed when disputed (3.9.2). `line`
    /// is a line of local alternate moving, the block's colour first, that removes it.
    DeadBy39 {
        /// The capturing line, the block's colour first.
        line: Vec<(Color, Move)>,
    },
    /// Not removed by 3.9.2, for this reason.
    AliveByDefault(Keep),
    /// A search ran out of budget; the block stays on the board (3.9: remove only the most
    /// obvious blocks).
    Undecided {
        /// Which search ran out, and where (for people).
        reason: String,
    },
}

impl Verdict {
    /// A short name: `pass-alive`, `dead`, `alive`, `undecided`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::PassAlive => "pass-alive",
            Verdict::DeadBy39 { .. } => "dead",
            Verdict::AliveByDefault(_) => "alive",
            Verdict::Undecided { .. } => "undecided",
        }
    }

    /// Whether 3.9.2 removes the block when it is disputed.
    #[must_use]
    pub fn removes(&self) -> bool {
        matches!(self, Verdict::DeadBy39 { .. })
    }
}

/// One block and its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockVerdict {
    /// The block judged.
    pub block: Block,
    /// Points in the block's maximal local region (0 when it was not needed: pass-alive
    /// blocks and blocks that can become pass-alive).
    pub region_points: usize,
    /// Search nodes the judgement visited (see [`nodes_visited`]).
    pub nodes: u64,
    /// The judgement.
    pub verdict: Verdict,
}

/// Judges the blocks of one position.
pub struct Judge<'a> {
    board: &'a Board,
    ctx: Context<'a>,
    budget: Budget,
    alive: ByColor<PassAlive>,
    blocks: Blocks,
    /// Witnesses found so far: plays of one colour from this position and the pass-alive
    /// points after them (blocks sharing the set `K` usually share a witness).
    witnesses: Mutex<Vec<Witness>>,
    /// Threads [`Judge::judge_blocks`] may use.
    threads: usize,
}

struct Witness {
    color: Color,
    reach: Vec<bool>,
    plays: Vec<Point>,
    alive_after: Vec<bool>,
}

impl<'a> Judge<'a> {
    /// A judge of `board` in the context `ctx` (rules, earlier positions, ko ban).
    #[must_use]
    pub fn new(board: &'a Board, ctx: Context<'a>, budget: Budget) -> Judge<'a> {
        let suicide = ctx.rules.suicide_allowed;
        let alive = ByColor::from_fn(|c| pass_alive(board.geometry(), board.colors(), c, suicide));
        Judge {
            board,
            ctx,
            budget,
            alive,
            blocks: Blocks::new(board.geometry(), board.colors()),
            witnesses: Mutex::new(Vec::new()),
            threads: std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        }
    }

    /// A judge of a game's current position.
    #[must_use]
    pub fn of_game(game: &'a Game, budget: Budget) -> Judge<'a> {
        Judge::new(game.board(), Context::of_game(game), budget)
    }

    /// The position judged.
    #[must_use]
    pub fn board(&self) -> &Board {
        self.board
    }

    /// The search context.
    #[must_use]
    pub fn context(&self) -> &Context<'a> {
        &self.ctx
    }

    /// The blocks of the position.
    #[must_use]
    pub fn blocks(&self) -> &Blocks {
        &self.blocks
    }

    /// The pass-alive blocks and territory of `color`.
    #[must_use]
    pub fn pass_alive(&self, color: Color) -> &PassAlive {
        &self.alive[color]
    }

    /// The maximal local region of the block holding `stone`.
    #[must_use]
    pub fn region(&self, stone: Point) -> LocalRegion {
        maximal_local_region(
            self.board,
            stone,
            &self.walls(stone),
            &self.ctx,
            self.budget.region_nodes,
        )
    }

    /// The opposing blocks that one-sided moving of the colour of `stone`, keeping its block
    /// on the board, never removes: the opponent's pass-alive blocks, and when suicide is legal
    /// also those that only the block's own self-capture would open (see
    /// [`benson::pass_alive_beside`]). Nothing beyond them can be reached.
    fn walls(&self, stone: Point) -> std::borrow::Cow<'_, PassAlive> {
        let color = self.board.get(stone).expect("a stone");
        if !self.ctx.rules.suicide_allowed {
            return std::borrow::Cow::Borrowed(&self.alive[color.opponent()]);
        }
        std::borrow::Cow::Owned(benson::pass_alive_beside(
            self.board.geometry(),
            self.board.colors(),
            color.opponent(),
            true,
            &self.board.string(stone),
        ))
    }

    /// The verdict on the block holding `stone`. Panics if `stone` is empty.
    #[must_use]
    pub fn judge_block(&self, stone: Point) -> BlockVerdict {
        let before = nodes_visited();
        let mut verdict = match self.judge_eyes(stone) {
            Stage::Done(verdict) => verdict,
            Stage::Capture { block, eye, .. } => self.judge_capture(block, eye),
        };
        verdict.nodes = nodes_visited() - before;
        verdict
    }

    /// The verdicts on the blocks holding `stones`, in that order. The first stage (pass-alive,
    /// "at most one eye", whose witnesses blocks share) runs in order; the searches for
    /// "locally capturable", independent of each other, run on up to [`Judge::threads`]
    /// threads at once. The verdicts, their evidence and their node counts do not depend on
    /// the threads.
    #[must_use]
    pub fn judge_blocks(&self, stones: &[Point]) -> Vec<BlockVerdict> {
        let mut verdicts: Vec<Option<BlockVerdict>> = Vec::with_capacity(stones.len());
        let mut searches: Vec<Pending> = Vec::new();
        for (i, &stone) in stones.iter().enumerate() {
            let before = nodes_visited();
            match self.judge_eyes(stone) {
                Stage::Done(mut verdict) => {
                    verdict.nodes = nodes_visited() - before;
                    verdicts.push(Some(verdict));
                }
                Stage::Capture { block, eye, reach } => {
                    searches.push(Pending {
                        index: i,
                        block,
                        eye,
                        nodes: nodes_visited() - before,
                        reach,
                    });
                    verdicts.push(None);
                }
            }
        }
        let capture = |search: Pending| {
            let before = nodes_visited();
            let mut verdict = self.judge_capture(search.block, search.eye);
            verdict.nodes = search.nodes + nodes_visited() - before;
            (search.index, verdict)
        };
        let threads = self.threads.min(searches.len());
        if threads <= 1 {
            for (i, verdict) in searches.into_iter().map(capture) {
                verdicts[i] = Some(verdict);
            }
        } else {
            // The longest searches first (the largest reach, roughly), so that no thread is
            // left with one at the end.
            searches.sort_by_key(|s| std::cmp::Reverse(s.reach));
            let queue = Mutex::new(searches.into_iter());
            std::thread::scope(|scope| {
                let workers: Vec<_> = (0..threads)
                    .map(|_| {
                        scope.spawn(|| {
                            let mut mine = Vec::new();
                            loop {
                                let next = queue
                                    .lock()
                                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                                    .next();
                                let Some(search) = next else {
                                    return mine;
                                };
                                mine.push(capture(search));
                            }
                        })
                    })
                    .collect();
                for worker in workers {
                    let judged = worker
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                    for (i, verdict) in judged {
                        verdicts[i] = Some(verdict);
                    }
                }
            });
        }
        verdicts
            .into_iter()
            .map(|v| v.expect("every block is judged"))
            .collect()
    }

    /// Judges on at most `threads` threads (at least one); the default is the machine's
    /// available parallelism.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Judge<'a> {
        self.threads = threads.max(1);
        self
    }

    /// How many threads [`Judge::judge_blocks`] uses at most.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    fn witnesses(&self) -> std::sync::MutexGuard<'_, Vec<Witness>> {
        // A panic while holding the lock leaves the list as it was: still usable.
        self.witnesses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The first stage of a block's judgement: pass-alive, or "at most one eye" (which shares
    /// witnesses between blocks, so it runs in the blocks' order).
    fn judge_eyes(&self, stone: Point) -> Stage {
        let index = self.blocks.at(stone).expect("a block is named by a stone");
        let block = self.blocks.list[index].clone();
        let anchor = block.anchor();
        if self.alive[block.color].is_alive(anchor) {
            return Stage::Done(BlockVerdict {
                block,
                region_points: 0,
                nodes: 0,
                verdict: Verdict::PassAlive,
            });
        }
        let reach = region::reach(self.board, anchor, &self.walls(anchor));
        let cached = self.witnesses().iter().find_map(|w| {
            (w.color == block.color && w.reach == reach && w.alive_after[anchor.index()])
                .then(|| w.plays.clone())
        });
        let eye = match cached {
            Some(plays) => Answer::Yes(plays),
            None => {
                can_become_pass_alive(self.board, anchor, &reach, &self.ctx, self.budget.eye_nodes)
            }
        };
        if let Answer::Yes(plays) = eye {
            // (Two threads may both record a witness for the same set: harmless.)
            let miss = !plays.is_empty() && cached_miss(&self.witnesses(), block.color, &reach);
            if miss {
                let mut after = self.board.clone();
                for &p in &plays {
                    after.play_unchecked(p, block.color);
                }
                let alive_after = pass_alive(
                    after.geometry(),
                    after.colors(),
                    block.color,
                    self.ctx.rules.suicide_allowed,
                )
                .alive;
                self.witnesses().push(Witness {
                    color: block.color,
                    reach: reach.clone(),
                    plays: plays.clone(),
                    alive_after,
                });
            }
            return Stage::Done(BlockVerdict {
                block,
                region_points: 0,
                nodes: 0,
                verdict: Verdict::AliveByDefault(Keep::CanBecomePassAlive { plays }),
            });
        }
        let reach = reach.iter().filter(|&&r| r).count();
        Stage::Capture { block, eye, reach }
    }

    /// The second stage of a block's judgement: its maximal local region and whether it is
    /// locally capturable, given the answer on "at most one eye" (not yes).
    fn judge_capture(&self, block: Block, eye: Answer<Vec<Point>>) -> BlockVerdict {
        let anchor = block.anchor();
        let region = self.region(anchor);
        let region_points = region.points.len();
        if !region.exact {
            return BlockVerdict {
                block,
                region_points,
                nodes: 0,
                verdict: Verdict::Undecided {
                    reason: format!(
                        "maximal local region: one-sided moving reaches more than {} positions",
                        self.budget.region_nodes
                    ),
                },
            };
        }
        let capture = locally_capturable(
            self.board,
            anchor,
            &region,
            &self.ctx,
            self.budget.capture_nodes,
        );
        let verdict = match (eye, capture) {
            (_, Answer::No) => Verdict::AliveByDefault(Keep::NotLocallyCapturable),
            (Answer::No, Answer::Yes(line)) => Verdict::DeadBy39 { line },
            (Answer::Undecided(reason), Answer::Yes(_)) => Verdict::Undecided { reason },
            (Answer::Undecided(a), Answer::Undecided(b)) => Verdict::Undecided {
                reason: format!("{a}; {b}"),
            },
            (_, Answer::Undecided(reason)) => Verdict::Undecided { reason },
            (Answer::Yes(_), _) => unreachable!("handled above"),
        };
        BlockVerdict {
            block,
            region_points,
            nodes: 0,
            verdict,
        }
    }

    /// The verdicts on every block, in the order of [`Judge::blocks`].
    #[must_use]
    pub fn judge_all(&self) -> Vec<BlockVerdict> {
        let anchors: Vec<Point> = self.blocks.list.iter().map(Block::anchor).collect();
        self.judge_blocks(&anchors)
    }
}

/// A block whose search for "locally capturable" remains (see [`Judge::judge_blocks`]).
struct Pending {
    /// Its place among the stones judged.
    index: usize,
    block: Block,
    /// The answer on "at most one eye".
    eye: Answer<Vec<Point>>,
    /// Nodes spent on it so far.
    nodes: u64,
    /// The points of its reach: the larger, the longer the search, roughly.
    reach: usize,
}

/// How far the first stage of a block's judgement got.
enum Stage {
    /// Judged: pass-alive, or it can become pass-alive.
    Done(BlockVerdict),
    /// Its searches for "locally capturable" remain, with the answer on "at most one eye".
    Capture {
        block: Block,
        eye: Answer<Vec<Point>>,
        /// The points of its reach: the larger, the longer the search, roughly.
        reach: usize,
    },
}

/// Whether no witness is cached for this colour and set `K`.
fn cached_miss(witnesses: &[Witness], color: Color, reach: &[bool]) -> bool {
    !witnesses
        .iter()
        .any(|w| w.color == color && w.reach == reach)
}
