//! Perfect play on small boards: the exact result of a position under each of goref's ko
//! rules, with a principal variation to the end of the game.
//!
//! Black maximises and White minimises Black's area score minus White's minus komi (TT rules
//! 9-10, 001 §3.8). The game ends as the rules end it: two consecutive passes (TT rule 8,
//! 001 §3.7.1), or, under the Olympiad's rules, a play that recreates an earlier position
//! (001 §3.6), which is decided by the stones captured between the two occurrences. Such a
//! result has no margin of points: the solver ranks a win by the long cycle rule above every
//! result by points for the winner, and a drawn long cycle equal to a tie on points (`0`).
//!
//! ```
//! use goref_rules::{Game, Move, Ruleset};
//! use goref_solve::{solve, Options, Verdict};
//!
//! // Reference 004, after rule 9: on 3×2, after 1.B[b1] 2.W[a2] 3.B[b2], "Black can kill all
//! // White chains: the game will end Black +6".
//! let mut game = Game::rect(3, 2, Ruleset::TROMP_TAYLOR).unwrap();
//! for name in ["b1", "a2", "b2"] {
//!     let p = game.geometry().parse_point(name).unwrap();
//!     game.play(Move::Play(p)).unwrap();
//! }
//! let report = solve(&game, &Options::default()).unwrap();
//! assert_eq!(report.verdict, Verdict::Proven("B+6".parse().unwrap()));
//! // The principal variation replays under the rules to that result.
//! for &mv in &report.pv {
//!     game.play(mv).unwrap();
//! }
//! assert_eq!(game.outcome().to_sgf(), "B+6");
//! ```
//!
//! The crate's modules are private: `search` (the search below, over positions held by
//! `bits`, boards as two bit sets) and `strategy` (each side's strategy for a proved value);
//! this page's items and [`certificate`] are its whole interface. [`certify`] solves a
//! position and writes its proof as a certificate (a strategy for each side), which
//! [`certificate::check`] verifies with the literal rules of `goref-literal` and nothing of
//! the search, so that a value need not be taken on the search's word.
//!
//! # The search
//!
//! Null-window tests ("is the value at least β?") until the proved bounds meet: β bisects the
//! bounds (which start at the whole board's score either way, no score can pass it; on
//! boards with a point of three neighbours the first test asks instead whether the side the
//! board as it stands favours takes the whole board: one test where it does, as on 3×3 and
//! 5×5, where bisection proves ever higher bounds one by one), or, under the long cycle
//! rule whose wins have no margin, steps from the last value found as MTD(f) does.
//!
//! Each test is searched by depth-first proof-number search (df-pn, Nagai 2002), in negamax
//! form. A node's *proof number* is the least number of unsettled leaves whose answers could
//! make the test's answer yes, its *disproof number* the same for no: the least of its moves'
//! for yes, their sum for no (a move's numbers are its child's, exchanged). A leaf starts at
//! one and one, plus one for each point by which a cheap guess of the score (stones, and the
//! empty points nearer one colour's stones than the other's within two steps) falls short of
//! the test or passes it, so that the moves that look good are searched first. The search
//! descends into the move whose proof looks cheapest, with thresholds (the 1 + ε trick,
//! ε = ¼) that send it back up when another looks cheaper, so that it goes deep where the
//! proof is narrow and never searches a line to a uniform depth: on 3×4 the solve takes 56k
//! nodes where an iterative deepening alpha-beta with enhanced transposition cut-offs took
//! 780k, and 4×4 (B+2, of which that search proved only "at most B+6", in 831M nodes) takes
//! 2.0M. A node's moves are first looked up in the transposition table, so that a move
//! whose position is already decided counts as decided (the enhanced transposition cut-off of
//! alpha-beta searches comes with the method). Proof and disproof numbers only choose where to
//! search: they are kept in a lossy table of their own, by state and β, whatever the history,
//! and a wrong or lost number costs nodes, never soundness. Only decided answers make a value:
//! they come from ended games, from Benson's bounds (below), from the table and from decided
//! children, as in a plain search. A yes is a lower bound (the best of the moves that answer
//! yes), a no an upper bound (the best of all moves, every one of which answers no): fail-soft
//! bounds, stored with the history items they depend on.
//!
//! Boards of at most [`MAX_SOLVE_POINTS`] points are held as two bit sets. The transposition
//! table stores bounds and the best move under the board's symmetries (8 on a square, 4 on a
//! rectangle, 2 on a line, none on other graphs). Moves of equal numbers are taken in order:
//! the stored best move, the plays that last answered yes at that ply (killers), then
//! captures, then points by their number of neighbours, the pass last (first after a pass,
//! where it ends the game at a known value). Under a node budget a search that runs out
//! reports the bounds its completed tests proved.
//!
//! # Threads
//!
//! With [`Options::threads`] above one, each null-window test is searched by that many threads
//! at once (lazy SMP): each has its own line, history and killers; they share the
//! transposition table (pairs of slots, each behind a lock), the proof-number table (entries
//! read and written without locks, each with its tag xored into it, so that an entry two
//! threads tore reads as none), the node count and a signal to stop. A table grows by being
//! replaced by a larger copy; each thread reads it through a view of its own, with no lock to
//! take, and takes the new one at its next node, so that a write to the old one in between is
//! lost: it costs nodes, never soundness. The helpers order moves of equal numbers differently
//! (a salt per thread), so that they part ways and store what the others will find. The first
//! thread to answer the test answers it; the others stop. This is sound because nothing a
//! thread stores depends on which thread stored it: an entry holds the state, the bounds and
//! the history items it depends on (`φ` and `D` below), and a thread uses it only where its own
//! history agrees on them; and every proven answer to the test is a bound of the same value,
//! so any of them may be taken. The value is the one thread's; the nodes, the time and the
//! principal variation (found by one thread afterwards) may differ. On this machine's two
//! cores two threads solve 4×4 in 4.7 s where one takes 6.9 s.
//!
//! # Benson's bounds: stopping once the result is fixed
//!
//! MIGOS's key idea (van der Werf, 2002): a position whose final score no play can change need
//! not be searched. At every node, for each colour, Benson's test finds its *pass-alive*
//! chains (the greatest set of chains each with two vital regions, a region being vital to a
//! chain when each of its empty points is that chain's liberty; with suicide allowed, when
//! every point of it is) and the empty points all of whose neighbours are stones of those
//! chains (single-point eyes). Let `b` and `w` count them for Black and White on `n` points.
//! Then the value lies in `[2b − n, n − 2w]` (minus komi), whatever the history:
//!
//! * *Lower bound.* Let Black pass at every turn. Benson's theorem: whatever White plays, no
//!   chain of the set is captured (a White play that fills a vital region's last empty point
//!   leaves White's stones there without liberties while the chain keeps one in its other
//!   vital region, so it is White's own suicide: illegal, or White's stones are removed, TT
//!   rule 7). A single-point eye stays empty: a White stone there would have no liberty. So
//!   when the game ends, Black's area holds at least those `b` points and White's at most the
//!   other `n − b`. A pass is always legal, and the game ends by two passes: under the
//!   superko rules White's plays may not repeat a position (games are finite). Under the long
//!   cycle rule (without suicide) Black's stones only shrink and White's only grow, strictly at
//!   each White play, so no position of the line repeats; but a White play could recreate a
//!   position of the history from before the node, and end the game by 001 §3.6 with a result
//!   that depends on the captures since. So under that rule the bound is used only when the
//!   history holds no position whose Black stones are among the node's and whose White stones
//!   strictly include the node's (the positions White could reach), and the answer then
//!   depends on the history's positions in that *cone* (added to the filter below). Black's
//!   value is at least what this strategy guarantees.
//! * *Two-point eyes* (superko rules only): a region of two empty points `a`, `b` whose other
//!   neighbours are all stones of Black's pass-alive chains `S` is Black's as well, when no
//!   position of the history has Black stones on `S ∪ {b}` with `a` empty (nor on `S ∪ {a}`
//!   with `b` empty). Black's strategy: pass, but answer a White play at `a` by playing `b`
//!   (and at `b` by `a`). White's stone at `a` has `b` as its only liberty, so Black's play
//!   takes it (not suicide: `b` joins `S`, which keeps liberties elsewhere); the chain that `b`
//!   joins keeps a vital region besides the region (each chain to which it was vital touches
//!   `b`), and `a` is now a single-point eye of it, so it stays pass-alive and `a` stays empty.
//!   That answer makes a position with `S ∪ {b}` Black and `a` empty, which the line from the
//!   node makes at no earlier time (the region stays empty until the first throw-in) and the
//!   history holds nowhere: the answer is legal under either superko rule. White's second play
//!   in the region would be suicide. The answer depends on the history's positions whose Black
//!   stones hold `S` (added to the filter below).
//! * *Enclosed regions* (superko rules only): a region enclosed by `S` (a connected set of
//!   points without a stone of `S`, all of whose neighbours outside it are stones of `S`),
//!   other than the eyes above, each point of which (empty or White) is next to every chain of
//!   `S` that borders it, is Black's as well, when no position of the history has Black stones
//!   on `S` and on a point of the region, and, if White has stones there, Black moves before
//!   the game can end (not White to move just after Black's pass: White's pass would end the
//!   game with them). The region holds no Black stone (one would be part of `S`). Black's
//!   strategy: while White has stones in such a region, play a liberty of one of them; else
//!   pass. Each such play joins a chain of `S` (its point is next to it) and keeps a liberty in
//!   the region (a White chain it did not take keeps its other liberties there; one it took
//!   leaves its points empty there; every point of the region is next to the merged chain), so
//!   it is no suicide, and each chain keeps a vital region there beside its other one: Benson's
//!   condition still holds, so White takes none of these stones. So Black's stones in the
//!   region only grow, strictly at each of these plays: no such play repeats a position of the
//!   line from the node, nor (the condition) of the history. Black passes only when White has
//!   no stone in these regions; the game ends by two passes, so it ends with every point of the
//!   region Black's or empty next to Black's only. The answer depends on the history's
//!   positions whose Black stones hold `S` (added to the filter below, as for two-point eyes).
//! * *Regions with one interior point* (superko rules only): a region enclosed by `S`, other
//!   than those above, that has at most one *interior* point (a point next to no stone of
//!   `S`), that one with two neighbours or more, is Black's as well when the chains around it
//!   are in `S'`, the chains that Benson's test keeps when none of these regions counts as
//!   vital, and under the history and pass conditions of enclosed regions. White can make an
//!   eye there only at the interior point: every other point touches Black. Black's strategy
//!   there: (1) join to `S'` a Black stone of the region cut off from it, through an empty
//!   neighbour; else (2) while White has stones there, play a liberty of a White string next
//!   to a Black stone joined to `S'`; else (3) play the interior point; pass when there is
//!   nothing to do. A play of (1) or (2) joins a chain of `S'`, which keeps its two vital
//!   regions outside these regions: it is not suicide, and White never takes it. (2) finds
//!   nothing only when every White string's one liberty is the interior point, so (3) takes
//!   them all (legal) and leaves its stone with every neighbour empty: two liberties or more,
//!   which White's one play before Black's next turn cannot take, and (1) then joins it. So no
//!   Black stone of the region is taken and Black's stones there only grow, strictly at each of
//!   these plays: none repeats a position of the line, nor (the condition) of the history.
//!   While White has stones there Black has a play, and Black passes only when White has
//!   none, so the game ends with the region Black's. A chain that borders none of these
//!   regions keeps its vital regions (a region vital to a chain borders it), so the other
//!   rules' strategies go on beside this one; this one's plays of (1) come first, the others'
//!   answers can wait a turn. Tested by playing this strategy against every White line.
//! * *Upper bound*: the same for White.
//!
//! Under the long cycle rule with suicide allowed (a ruleset no preset has), White's
//! self-captures could make a long cycle against a passing Black, so no Benson bound is used
//! there. Where a player's passing is no strategy (that rule, or a cone the history enters),
//! the bound on that side is only that no value passes a long-cycle win: not the whole board,
//! which a long-cycle win exceeds (a case the tests found: on 1×3 the opponent could recreate
//! an earlier position with more captures since and win by 3.6). When the bound decides the
//! test, the node is answered without search, and (but for the long cycle rule's cone) the
//! answer depends on no history.
//!
//! # History, and why the reuse of stored results is sound
//!
//! Under every ko rule here the legal moves and the ends of the game depend on the positions
//! already played (the graph-history interaction): positional superko forbids a play that
//! recreates any earlier colouring (TT rule 6), situational superko one that recreates an
//! earlier colouring with the same player to move, and the long cycle rule ends the game on a
//! repetition with a result that depends on the captures since the first occurrence. So the
//! value of a node is a function of its *state* (colouring, player to move, a pass just
//! played, the basic-ko ban) and of its *history* `H`, the set of earlier items: colourings,
//! with the player to move under situational superko, and with the capture balance since the
//! node (Black's captures minus White's, between the item and the node) under the long cycle
//! rule. A result is stored with the part of the history it may depend on, found as follows.
//!
//! When a node is searched, every play tried there makes a colouring that is compared with the
//! history, and that comparison is the only way the history enters the node's play (passes and
//! two-pass ends are the same whatever the history). Let `G` be the colourings so compared at
//! the node and at every node below it whose answer was used (searched, or taken from the
//! table). `G` is summarised by a filter `φ` that passes every colouring of `G` (no false
//! negatives): its *level* `m`, the least number of stones of a colouring of `G`, and a Bloom
//! filter of their classes under the symmetries (with the player to move under situational
//! superko); an item passes `φ` when it has at least `m` stones and its class is in the Bloom
//! filter, or (long cycle rule) when it lies in a cone a Benson bound below looked in (the
//! union of two cones is over-approximated by one: the passer's stones within the union, the
//! opponent's holding the intersection), or when a player's stones in it hold the chains of a
//! two-point eye or an enclosed region counted above (the intersection of such sets, for a
//! union). A node's `φ` is the union of its plays' colourings and its children's filters (of
//! the one child that answered yes, for a lower bound; of all, for an upper bound). The result
//! is stored with `φ` and `D = {items of H that pass φ}` (exactly, as a sorted list; a hash is
//! only a quick filter).
//!
//! **Claim.** If a node of the same state (up to symmetry, mapping everything with it) has a
//! history `H'` whose items that pass `φ` are exactly `D`, the stored bounds hold for it.
//!
//! *Proof*, by induction on the searches (each result used is a stored or returned one, made
//! earlier or deeper). At the node, a play's colouring `Q` is in `G`, so it passes `φ`, and `Q
//! ∈ H` iff `Q ∈ D` iff `Q ∈ H'` (with the same capture balance, under the long cycle rule):
//! the same plays are legal, and the same plays end the game with the same result. For a legal
//! play or the pass, the child's history is `H + item` and `H' + item` with the same new item
//! (same colouring, same captures; a balance relative to the child shifts by the same amount in
//! both). The child's answer was used with a filter `φ_c` that passes nothing `φ` does not (`φ`
//! is a union over it), so the two child histories agree on the items that pass `φ_c`, and by
//! induction the child's bounds hold in both. The node's bound is the same min/max of the same
//! children's bounds (a lower bound uses one legal child; an upper bound uses every legal
//! child, the same set in both), so it holds for `H'`. A Benson bound of chains and
//! single-point eyes holds for every history under the superko rules, and adds nothing to `φ`;
//! a two-point eye, an enclosed region, or any bound under the long cycle rule, was checked
//! against history items that pass `φ`, so it holds for `H'` too. The proof numbers, kept
//! whatever the history, never become bounds. The table may lose a result (a state replaces
//! another in its slot); it never changes one.
//!
//! Where the stones only grow (no captures below the node), `m` exceeds the node's own
//! number of stones and `D` holds only earlier positions with more stones: transpositions of
//! move orders are reused although their histories differ. Where the search below a node
//! recreates earlier shapes, `m` falls and the result is reused only with the same relevant
//! history (the Bloom filter leaves out the earlier positions the search below never made,
//! while it holds few enough of them to be selective), which is the exactness the rules ask
//! for.
//!
//! A node's state includes the basic-ko ban (001 §3.5, which only an intervening play lifts)
//! and, under situational superko, a pass adds the situation it makes to the history, as
//! [`goref_rules::Game`] records it. The tests compare the solver with a separate plain
//! minimax whose memo is keyed on the whole state and history.

mod bits;
pub mod certificate;
mod search;
mod strategy;

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use goref_rules::{Color, End, Game, Move, Point, Preset, Ruleset};

pub use bits::MAX_SOLVE_POINTS;
use search::{Aborted, Frame, Gen, Heartbeat, PnTable, Search, Shared, Table, INF, LC_WIN, PASS};

/// The value of a game: Black's margin by area score, komi included, in half points; or a win
/// by the long cycle rule (001 §3.6.1), ranked above every margin of points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Value(i32);

impl Value {
    /// Black leads by this many half points (negative: White leads).
    #[must_use]
    pub fn points(half_points: i32) -> Value {
        Value(half_points)
    }

    /// A win by the long cycle rule for `winner`.
    #[must_use]
    pub fn long_cycle_win(winner: Color) -> Value {
        match winner {
            Color::Black => Value(LC_WIN),
            Color::White => Value(-LC_WIN),
        }
    }

    /// Black's margin in half points, or `None` for a win by the long cycle rule.
    #[must_use]
    pub fn half_points(self) -> Option<i32> {
        (self.0.abs() != LC_WIN).then_some(self.0)
    }

    /// The winner by the long cycle rule, when the value is such a win.
    #[must_use]
    pub fn long_cycle_winner(self) -> Option<Color> {
        match self.0 {
            LC_WIN => Some(Color::Black),
            v if v == -LC_WIN => Some(Color::White),
            _ => None,
        }
    }

    /// The winner, if any.
    #[must_use]
    pub fn winner(self) -> Option<Color> {
        match self.0.signum() {
            1 => Some(Color::Black),
            -1 => Some(Color::White),
            _ => None,
        }
    }

    /// The value in SGF `RE` form: `B+6`, `W+0.5`, `0`, `B+` (a long-cycle win).
    #[must_use]
    pub fn to_sgf(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(half) = self.half_points() else {
            let c = self.winner().expect("a long-cycle win has a winner");
            return write!(f, "{}+", c.letter());
        };
        if half == 0 {
            return f.write_str("0");
        }
        let letter = if half > 0 { 'B' } else { 'W' };
        let abs = half.unsigned_abs();
        if abs % 2 == 0 {
            write!(f, "{letter}+{}", abs / 2)
        } else {
            write!(f, "{letter}+{}.5", abs / 2)
        }
    }
}

/// A value that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseValueError(pub String);

impl fmt::Display for ParseValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a value: B+6, W+0.5, 0 or B+ (long cycle)",
            self.0
        )
    }
}

impl std::error::Error for ParseValueError {}

impl FromStr for Value {
    type Err = ParseValueError;

    /// Reads `B+6`, `W+0.5`, `0` and `B+`/`W+` (a win by the long cycle rule).
    fn from_str(s: &str) -> Result<Value, ParseValueError> {
        let bad = || ParseValueError(s.chars().take(40).collect());
        let t = s.trim();
        if t == "0" {
            return Ok(Value(0));
        }
        let (who, how) = t.split_once('+').ok_or_else(bad)?;
        let winner = match who {
            "B" | "b" => Color::Black,
            "W" | "w" => Color::White,
            _ => return Err(bad()),
        };
        if how.is_empty() {
            return Ok(Value::long_cycle_win(winner));
        }
        let komi: goref_rules::Komi = how.parse().map_err(|_| bad())?;
        let half = komi.half_points();
        if half <= 0 {
            return Err(bad());
        }
        Ok(Value(if winner == Color::Black { half } else { -half }))
    }
}

/// What the search proved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The exact value under perfect play.
    Proven(Value),
    /// The budget ran out: the value lies between these bounds (inclusive; `None` where
    /// nothing was proved).
    Undecided {
        /// The least value proved possible for Black.
        lower: Option<Value>,
        /// The greatest value proved possible for Black.
        upper: Option<Value>,
    },
}

/// How to search.
#[derive(Clone, Debug)]
pub struct Options {
    /// Stop after this many nodes and report the bounds proved (none: search to the end).
    /// Finding the principal variation of a proved value may take as many nodes again; a
    /// value whose line is not found within them is reported undecided, both bounds at it.
    pub budget: Option<u64>,
    /// Results the transposition table may hold (it grows up to this; then a state replaces
    /// another in its slot).
    pub table_entries: usize,
    /// Whether to find a principal variation once the value is proved.
    pub principal_variation: bool,
    /// Called after each completed test of the search with the bounds proved so far, and
    /// during a test every 2^24 nodes of the first thread (with its nodes alone), so that a
    /// long search shows it goes on.
    pub progress: Option<fn(&Progress)>,
    /// Threads that search each test together, sharing the transposition table (lazy SMP:
    /// the helpers order their moves differently; the first to answer answers for all). The
    /// value does not depend on it; the nodes, the time and the principal variation may.
    pub threads: usize,
}

/// Where a search stands, for [`Options::progress`].
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// The least value proved possible for Black (`None`: nothing proved yet).
    pub lower: Option<Value>,
    /// The greatest value proved possible for Black.
    pub upper: Option<Value>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            budget: None,
            table_entries: 1 << 22,
            principal_variation: true,
            progress: None,
            threads: 1,
        }
    }
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct Report {
    /// The value, or the bounds proved.
    pub verdict: Verdict,
    /// When proved: a line of perfect play from the position to the end of the game (its
    /// moves replay on the [`Game`] to the value).
    pub pv: Vec<Move>,
    /// Nodes searched for the proof.
    pub nodes: u64,
    /// Nodes searched to find the principal variation.
    pub pv_nodes: u64,
    /// Positions in the transposition table at the end.
    pub table_entries: usize,
    /// Times a state stored in the table was replaced by another that met it in its slot.
    pub table_clears: u64,
    /// Time taken.
    pub elapsed: Duration,
}

/// Why a position cannot be solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// The board has more points than [`MAX_SOLVE_POINTS`].
    TooManyPoints(usize),
    /// Under simple ko alone a game need not end, so it has no value.
    InfiniteGames,
    /// The game ended by resignation, time or forfeit: no play is left to value.
    EndedOffTheBoard,
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::TooManyPoints(n) => write!(
                f,
                "the board has {n} points: the solver takes at most {MAX_SOLVE_POINTS}"
            ),
            SolveError::InfiniteGames => {
                f.write_str("under simple ko alone a game need not end: it has no value")
            }
            SolveError::EndedOffTheBoard => {
                f.write_str("the game ended by resignation, time or forfeit")
            }
        }
    }
}

impl std::error::Error for SolveError {}

/// Stack for the search's recursion: a line of play can be as long as the positions it passes
/// through (thousands of moves on 1×9), and each level holds a few hundred bytes.
const SEARCH_STACK_BYTES: usize = 1 << 30;

/// The value of `game` as it stands (its history included) under perfect play by both sides,
/// under its rules and komi.
///
/// The search runs on a thread of its own with a large stack (reserved, not committed), so
/// that long lines of play do not overflow the caller's.
pub fn solve(game: &Game, options: &Options) -> Result<Report, SolveError> {
    on_a_large_stack(|| solve_here(game, options, None))
}

/// Runs `f` on a thread of its own with a large stack (reserved, not committed), or here
/// when no thread can be made.
fn on_a_large_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let once = std::sync::Mutex::new(Some(f));
    let run = || {
        let f = once
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
            .expect("run once");
        f()
    };
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("goref-solve".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn_scoped(scope, run)
            .map_or_else(
                |_| run(),
                |h| {
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                },
            )
    })
}

/// The most lines a certificate is made with by default (each a line of play: some hundreds
/// of bytes in memory).
pub const MAX_CERTIFICATE_LINES: usize = 1 << 21;

/// A value with its certificate (see [`certificate`]).
#[derive(Clone, Debug)]
pub struct Certified {
    /// The solve's report (its verdict is proven).
    pub report: Report,
    /// The certificate: the value and a strategy for each side.
    pub certificate: certificate::Certificate,
    /// Nodes searched to extract the strategies.
    pub strategy_nodes: u64,
}

/// Why a position was not certified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CertifyError {
    /// It cannot be solved.
    Solve(SolveError),
    /// The budget ran out before the value, or its strategies, were proved.
    Undecided,
    /// A certificate is written for rectangular boards from the empty board with Black first.
    NotFromTheEmptyBoard,
    /// The rules are not a preset's (but for the ko rule).
    NotAPreset,
    /// The game was played on after it ended by two passes: its moves do not replay from the
    /// empty board under the rules.
    Resumed,
    /// The strategies have more lines than the limit.
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// A strategy has a turn at which no move keeps the bound the search proved: the search
    /// is wrong there (a bug; please report it).
    Unsound,
}

impl fmt::Display for CertifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CertifyError::Solve(e) => e.fmt(f),
            CertifyError::Undecided => {
                f.write_str("the budget ran out before the value and both strategies were proved")
            }
            CertifyError::NotFromTheEmptyBoard => f.write_str(
                "a certificate is for a rectangular board played from empty, Black first",
            ),
            CertifyError::NotAPreset => f.write_str(
                "a certificate names a preset: the rules must be one (another ko rule is fine)",
            ),
            CertifyError::Resumed => f.write_str(
                "the game was played on after two passes: its moves do not replay as one game",
            ),
            CertifyError::TooLarge { limit } => write!(
                f,
                "the strategies have more than {limit} lines: too large for this form"
            ),
            CertifyError::Unsound => f.write_str(
                "a strategy has a turn where no move keeps the value proved: the search is wrong",
            ),
        }
    }
}

impl std::error::Error for CertifyError {}

impl From<SolveError> for CertifyError {
    fn from(e: SolveError) -> CertifyError {
        CertifyError::Solve(e)
    }
}

/// Solves `game` (on a rectangular board, played from the empty board with Black first, under
/// `preset`'s rules with any komi and ko rule) and extracts each side's strategy for the value,
/// at most `max_lines` lines in all: the certificate that [`certificate::check`] verifies.
///
/// ```
/// use goref_rules::{Game, Preset, Ruleset};
/// use goref_solve::{certificate, certify, Options, MAX_CERTIFICATE_LINES};
///
/// let game = Game::rect(2, 2, Ruleset::NSTT).unwrap();
/// let certified = certify(&game, Preset::Nstt, &Options::default(), MAX_CERTIFICATE_LINES).unwrap();
/// let lines = certified.certificate.to_lines();
/// assert_eq!(lines[0], r#"{"board":"2x2","rules":"nstt","komi":0,"moves":[],"value":1}"#);
/// let read = certificate::Certificate::parse(&lines.join("\n")).unwrap();
/// let checked = certificate::check(&read).unwrap();
/// assert_eq!(checked.value.to_sgf(), "B+1");
/// ```
///
/// # Errors
///
/// A [`CertifyError`]: the position cannot be solved or written, the budget ran out, the
/// strategies are too large.
pub fn certify(
    game: &Game,
    preset: Preset,
    options: &Options,
    max_lines: usize,
) -> Result<Certified, CertifyError> {
    let rules = *game.rules();
    let preset_rules = Ruleset::preset(preset);
    if rules.suicide_allowed != preset_rules.suicide_allowed {
        return Err(CertifyError::NotAPreset);
    }
    let Some((width, height)) = game.geometry().size() else {
        return Err(CertifyError::NotFromTheEmptyBoard);
    };
    if game.start().stone_count(Color::Black) + game.start().stone_count(Color::White) > 0
        || game.first_player() != Color::Black
    {
        return Err(CertifyError::NotFromTheEmptyBoard);
    }
    let moves = game.moves();
    if moves
        .windows(2)
        .take(moves.len().saturating_sub(2))
        .any(|w| w[0].1 == Move::Pass && w[1].1 == Move::Pass)
    {
        return Err(CertifyError::Resumed);
    }
    let mut extract = Extract {
        max_lines,
        lines: None,
        nodes: 0,
    };
    let report = on_a_large_stack(|| solve_here(game, options, Some(&mut extract)))?;
    let Verdict::Proven(value) = report.verdict else {
        return Err(CertifyError::Undecided);
    };
    let lines = match extract.lines {
        Some(Ok(lines)) => lines,
        Some(Err(strategy::Failed::TooLarge)) => {
            return Err(CertifyError::TooLarge { limit: max_lines })
        }
        Some(Err(strategy::Failed::NoMove)) => return Err(CertifyError::Unsound),
        Some(Err(strategy::Failed::Aborted)) | None => return Err(CertifyError::Undecided),
    };
    let header = certificate::Header {
        width,
        height,
        preset,
        ko: (rules.ko != preset_rules.ko).then_some(rules.ko),
        komi: rules.komi,
        moves: game.moves().iter().map(|&(_, mv)| mv).collect(),
        value,
    };
    Ok(Certified {
        report,
        certificate: certificate::Certificate { header, lines },
        strategy_nodes: extract.nodes,
    })
}

/// A request to [`solve_here`] for the strategies of the value it proves.
struct Extract {
    max_lines: usize,
    lines: Option<Result<Vec<certificate::StrategyLine>, strategy::Failed>>,
    nodes: u64,
}

fn solve_here(
    game: &Game,
    options: &Options,
    extract: Option<&mut Extract>,
) -> Result<Report, SolveError> {
    let start = Instant::now();
    let rules = *game.rules();
    if !rules.ko.games_are_finite() {
        return Err(SolveError::InfiniteGames);
    }
    let n = game.geometry().len();
    if n > MAX_SOLVE_POINTS {
        return Err(SolveError::TooManyPoints(n));
    }
    if let Some(end) = game.end() {
        let value = match end {
            End::TwoPasses => Value(game.score().margin_half_points()),
            End::LongCycle { captures, .. } => Value(
                LC_WIN * (i64::from(captures.black) - i64::from(captures.white)).signum() as i32,
            ),
            _ => return Err(SolveError::EndedOffTheBoard),
        };
        if let Some(extract) = extract {
            extract.lines = Some(Ok(Vec::new()));
        }
        return Ok(Report {
            verdict: Verdict::Proven(value),
            pv: Vec::new(),
            nodes: 0,
            pv_nodes: 0,
            table_entries: 0,
            table_clears: 0,
            elapsed: start.elapsed(),
        });
    }
    let mut search = root(game, options.table_entries.max(1));
    let black_to_move = game.to_move() == Color::Black;
    search.budget = options.budget;
    search.parallel = options.threads > 1;
    let mut helpers: Vec<Search> = (1..options.threads.max(1))
        .map(|i| search.helper(i as u64))
        .collect();
    // Null-window tests until the bounds meet. Without the long cycle rule no score passes
    // the whole board (TT rule 9): the bounds start there.
    let (mut lower, mut upper) = if rules.ko == goref_rules::KoRule::LongCycle {
        (-INF, INF)
    } else {
        let most = 2 * n as i32;
        let komi = if black_to_move {
            rules.komi.half_points()
        } else {
            -rules.komi.half_points()
        };
        (-most - komi, most - komi)
    };
    let mut first = if lower.abs() < LC_WIN && upper.abs() < LC_WIN {
        search.first_test(lower, upper)
    } else {
        None
    };
    // The bounds for Black, from those for the player to move.
    let for_black = |lower: i32, upper: i32| {
        let (lo, hi) = if black_to_move {
            (lower, upper)
        } else {
            (-upper, -lower)
        };
        let bound = |v: i32| (v.abs() < INF).then_some(Value(v));
        (lo, hi, bound(lo), bound(hi))
    };
    let mut guess = 0;
    let mut aborted = false;
    while lower < upper {
        // Between finite bounds, bisect (after the first test, see `Search::first_test`);
        // else step from the last value (MTD(f)).
        let beta = if let Some(beta) = first.take() {
            beta
        } else if lower.abs() < LC_WIN && upper.abs() < LC_WIN {
            lower + (upper - lower + 1) / 2
        } else if guess == lower {
            guess + 1
        } else {
            guess
        };
        search.heartbeat = options.progress.map(|report| {
            let (_, _, lower, upper) = for_black(lower, upper);
            let bounds = Progress {
                lower,
                upper,
                nodes: 0,
                elapsed: Duration::ZERO,
            };
            Heartbeat {
                report,
                bounds,
                start,
            }
        });
        match prove_together(&mut search, &mut helpers, beta) {
            Ok((v, _)) => {
                guess = v;
                if v < beta {
                    upper = v;
                } else {
                    lower = v;
                }
                if let Some(report) = options.progress {
                    let (_, _, lower, upper) = for_black(lower, upper);
                    report(&Progress {
                        lower,
                        upper,
                        nodes: search.nodes + helpers.iter().map(|h| h.nodes).sum::<u64>(),
                        elapsed: start.elapsed(),
                    });
                }
            }
            Err(_) => {
                aborted = true;
                break;
            }
        }
    }
    let nodes = search.nodes + helpers.iter().map(|h| h.nodes).sum::<u64>();
    drop(helpers);
    let (lo, _, lower_for_black, upper_for_black) = for_black(lower, upper);
    if aborted {
        return Ok(Report {
            verdict: Verdict::Undecided {
                lower: lower_for_black,
                upper: upper_for_black,
            },
            pv: Vec::new(),
            nodes,
            pv_nodes: 0,
            table_entries: search.table_len(),
            table_clears: search.shared.table.clears(),
            elapsed: start.elapsed(),
        });
    }
    // The line is found by this thread alone, within the budget once more.
    search.parallel = false;
    search.budget = options.budget.map(|b| search.nodes.saturating_add(b));
    if let Some(extract) = extract {
        let before = search.nodes;
        extract.lines = Some(strategy::strategies(&mut search, lo, extract.max_lines));
        extract.nodes = search.nodes - before;
        search.budget = options.budget.map(|b| search.nodes.saturating_add(b));
    }
    let before_pv = search.nodes;
    let (verdict, pv) = if options.principal_variation {
        match principal_variation(&mut search, lower) {
            Ok(pv) => (Verdict::Proven(Value(lo)), pv),
            Err(Aborted) => (
                Verdict::Undecided {
                    lower: Some(Value(lo)),
                    upper: Some(Value(lo)),
                },
                Vec::new(),
            ),
        }
    } else {
        (Verdict::Proven(Value(lo)), Vec::new())
    };
    Ok(Report {
        verdict,
        pv,
        nodes,
        pv_nodes: search.nodes - before_pv,
        table_entries: search.table_len(),
        table_clears: search.shared.table.clears(),
        elapsed: start.elapsed(),
    })
}

/// The test "is the value at least `beta`?" by `search` and its helpers, each on a thread:
/// the first answer is taken (every proven answer is a bound of the same value: any will do),
/// and the others are told to stop. `Err` when none answered (the budget ran out).
fn prove_together(
    search: &mut Search,
    helpers: &mut [Search],
    beta: i32,
) -> Result<(i32, Gen), Aborted> {
    if helpers.is_empty() {
        return search.prove(beta);
    }
    let shared = Arc::clone(&search.shared);
    shared.stop.store(false, Ordering::Relaxed);
    std::thread::scope(|scope| {
        let handles: Vec<_> = helpers
            .iter_mut()
            .filter_map(|helper| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name("goref-solve helper".into())
                    .stack_size(SEARCH_STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        let answer = helper.prove(beta);
                        if answer.is_ok() {
                            shared.stop.store(true, Ordering::Relaxed);
                        }
                        answer
                    })
                    .ok()
            })
            .collect();
        let mine = search.prove(beta);
        if mine.is_ok() {
            shared.stop.store(true, Ordering::Relaxed);
        }
        let theirs: Vec<_> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect();
        mine.or_else(|_| theirs.into_iter().find_map(Result::ok).ok_or(Aborted))
    })
}

/// The search set up at the end of `game`'s line, with its history.
fn root(game: &Game, table_entries: usize) -> Search {
    let rules = game.rules();
    let geometry = game.geometry();
    let mut search = Search::new(
        bits::Topo::new(geometry),
        rules.ko,
        rules.suicide_allowed,
        rules.komi.half_points(),
        Arc::new(Shared {
            table: Table::new(table_entries),
            numbers: PnTable::new(table_entries),
            nodes: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        }),
    );
    let history = game.history();
    for (i, occurrence) in history.occurrences().iter().enumerate() {
        let (black, white) = unpack(history.colouring(i));
        let balance = occurrence.captures.black as i32 - occurrence.captures.white as i32;
        search.push_item(black, white, occurrence.to_move, balance);
    }
    let (black, white) = unpack(game.board().packed());
    let (ko_point, ko_forbidden) = match game.ko() {
        Some(ban) if rules.ko.has_basic_ko() => (ban.point.index() as u8, ban.forbidden),
        _ => (u8::MAX, Color::Black),
    };
    let captures = game.captures();
    search.frames.push(Frame {
        black,
        white,
        to_move: game.to_move(),
        passes: game.consecutive_passes().min(1) as u8,
        ko_point,
        ko_forbidden,
        balance: captures.black as i32 - captures.white as i32,
        hist_len: 0,
    });
    search
}

/// Black's and White's stones from a colouring packed two bits a point (black 1, white 2).
fn unpack(packed: &[u64]) -> (u32, u32) {
    let word = packed.first().copied().unwrap_or(0);
    let (mut black, mut white) = (0u32, 0u32);
    for i in 0..32 {
        match (word >> (2 * i)) & 3 {
            1 => black |= 1 << i,
            2 => white |= 1 << i,
            _ => {}
        }
    }
    (black, white)
}

/// A line of perfect play from the root, whose value (for the player to move) is `value`.
fn principal_variation(search: &mut Search, value: i32) -> Result<Vec<Move>, Aborted> {
    let depth = search.frames.len();
    let line = line_from(search, value);
    while search.frames.len() > depth {
        search.pop();
    }
    line
}

/// [`principal_variation`]'s moves, leaving the line's frames on `search`.
fn line_from(search: &mut Search, mut value: i32) -> Result<Vec<Move>, Aborted> {
    let mut line = Vec::new();
    'node: loop {
        let mut moves = search.moves();
        // The pass first: when it keeps the value the line takes it (after a pass it ends
        // the game at once, without search). Without it a side that loses whatever it plays
        // could go on throwing stones in and taking them back as long as the history allows
        // (under situational superko with suicide, for very long). Then the move the search
        // stored as best (it proved the value).
        if let Some(i) = search
            .stored_best()
            .and_then(|best| moves.iter().position(|&m| m == best))
        {
            moves[..=i].rotate_right(1);
        }
        let i = moves.iter().position(|&m| m == PASS).expect("the pass");
        moves[..=i].rotate_right(1);
        for mv in moves {
            let black_to_move = search.frames.last().expect("a node").to_move == Color::Black;
            let relative = |for_black: i32| if black_to_move { for_black } else { -for_black };
            let as_move = if mv == PASS {
                Move::Pass
            } else {
                Move::Play(Point::new(mv as usize))
            };
            if let Some(end) = search.play_line(mv) {
                if relative(end) == value {
                    line.push(as_move);
                    break 'node;
                }
                continue;
            }
            // The child's value is at least -value; it is exactly -value when not above it.
            let (v, _) = search.prove(1 - value)?;
            if v <= -value {
                line.push(as_move);
                value = -value;
                continue 'node;
            }
            search.pop();
        }
        unreachable!("a node of proved value has a move that keeps it");
    }
    Ok(line)
}
