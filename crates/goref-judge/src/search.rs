//! The two searches of reference 001 §3.9.1, exact and bounded by a node budget.
//!
//! - **At most one eye**: "A block for which no strategy exists to become pass-alive under
//!   one-sided moving of its colour has at most one eye." [`at_most_one_eye`] looks for a
//!   sequence of plays of the block's colour (the opponent passing) after which the block is
//!   pass-alive: first a constructed witness (capture what can be captured, then fill the
//!   reachable set leaving two one-point eyes), then an exhaustive search of every position
//!   that one-sided moving reaches inside `K` (see [`crate::region`]), each position visited
//!   once (one-sided moving never needs to repeat a position, so the set of reachable positions
//!   does not depend on the order of the moves).
//! - **Locally capturable**: "A block that can be removed under local alternate moving in its
//!   maximal local region, with its colour moving first". [`locally_capturable`] is an AND/OR
//!   depth-first search: the opponent needs one move that removes the block in every line,
//!   the block's colour any move that avoids it. Plays are on the region's points only, passes
//!   are allowed, and the game's ko rule applies, with the game's earlier positions: basic ko
//!   (Olympiad 3.5, the ban survives passes under `long-cycle`), positional or situational
//!   superko (a repeating play is illegal), or the long cycle rule (3.6: a repeating play ends
//!   the moving; the block is removed only if that play removed it). An endless line leaves
//!   the block on the board.
//!
//! Results are stored in a transposition table keyed by position, player to move, ko ban and
//! whether the block's colour just passed. Because superko and the long cycle rule make a
//! result depend on the earlier positions of the line, a result is stored only when no
//! earlier position of the line decided anything in its subtree, and it is reused only when
//! no position of the current line can occur in that subtree: each entry keeps the smallest
//! stone count and a 128-bit Bloom filter of the positions of its subtree.
//!
//! When the budget runs out the answer is [`Answer::Undecided`] with the reason; nothing is
//! guessed.

use std::collections::{HashMap, HashSet};

use goref_rules::history::History;
use goref_rules::{Board, Color, KoBan, KoRule, Move, Point, Ruleset};

use crate::benson::Benson;
use crate::blocks::Blocks;
use crate::region::LocalRegion;

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
    fn repeats_game(&self, after: &Board, to_move: Color) -> bool {
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
    /// Nodes of the alternate-moving search for "locally capturable".
    pub capture_nodes: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            region_nodes: 20_000,
            eye_nodes: 20_000,
            capture_nodes: 200_000,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// At most one eye.
// ---------------------------------------------------------------------------------------------

/// Whether the block of `stone` can become pass-alive under one-sided moving of its colour:
/// `Yes(plays)` gives such plays (the opponent passing after each), `No` means the block has
/// at most one eye (§3.9.1).
#[must_use]
pub fn can_become_pass_alive(
    board: &Board,
    stone: Point,
    reach: &[bool],
    ctx: &Context,
    budget: u64,
) -> Answer<Vec<Point>> {
    let color = board
        .get(stone)
        .expect("a block is named by one of its stones");
    let suicide = ctx.rules.suicide_allowed;
    let mut benson = Benson::default();
    benson.run(board.geometry(), board.colors(), color, suicide);
    if benson.is_alive(stone) {
        return Answer::Yes(Vec::new());
    }
    if let Some(plays) = witness(board, stone, reach, ctx, &mut benson) {
        return Answer::Yes(plays);
    }
    let mut search = OneSided {
        ctx,
        color,
        stone,
        points: (0..reach.len())
            .filter(|&i| reach[i])
            .map(Point::new)
            .collect(),
        visited: HashSet::new(),
        benson,
        nodes: 0,
        budget,
        plays: Vec::new(),
    };
    search.visited.insert(board.packed().to_vec());
    match search.dfs(board, true) {
        Ok(true) => Answer::Yes(search.plays),
        Ok(false) => Answer::No,
        Err(()) if search.plays.len() >= MAX_LINE => Answer::Undecided(format!(
            "at most one eye: a sequence of more than {MAX_LINE} plays"
        )),
        Err(()) => Answer::Undecided(format!(
            "at most one eye: one-sided moving reaches more than {budget} positions in a set of {} points",
            search.points.len()
        )),
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

/// Tries to build a sequence of plays that makes the block pass-alive: capture every opposing
/// block in `K` that plain liberty filling captures, then fill `K` from the block outwards,
/// leaving two separate one-point eyes. Any answer is checked by Benson's algorithm.
fn witness(
    board: &Board,
    stone: Point,
    reach: &[bool],
    ctx: &Context,
    benson: &mut Benson,
) -> Option<Vec<Point>> {
    let color = board.get(stone)?;
    let geometry = board.geometry().clone();
    let (b, plays) = capture_opponents(board, stone, reach, None, ctx)?;
    // Phase 2: two eyes. K' is K without the opponent's remaining stones.
    let n = geometry.len();
    let open: Vec<bool> = (0..n)
        .map(|i| reach[i] && b.get(Point::new(i)) != Some(color.opponent()))
        .collect();
    let eyes: Vec<Point> = (0..n)
        .map(Point::new)
        .filter(|&p| {
            open[p.index()]
                && b.get(p).is_none()
                && geometry.neighbors(p).iter().all(|q| open[q.index()])
        })
        .collect();
    let mut attempts = 0;
    for (i, &e1) in eyes.iter().enumerate() {
        for &e2 in &eyes[i + 1..] {
            if geometry.neighbors(e1).contains(&e2) {
                continue;
            }
            attempts += 1;
            if attempts > 24 {
                return None;
            }
            // Fill K' \ {e1, e2} breadth-first from the block.
            let mut seen = vec![false; n];
            seen[e1.index()] = true;
            seen[e2.index()] = true;
            let mut queue = std::collections::VecDeque::new();
            seen[stone.index()] = true;
            queue.push_back(stone);
            let mut order = Vec::new();
            while let Some(p) = queue.pop_front() {
                order.push(p);
                for &q in geometry.neighbors(p) {
                    if open[q.index()] && !seen[q.index()] {
                        seen[q.index()] = true;
                        queue.push_back(q);
                    }
                }
            }
            if (0..n).any(|i| open[i] && !seen[i]) {
                continue; // {e1, e2} disconnects K'
            }
            let mut filled = b.clone();
            let mut fill = Vec::new();
            let mut ok = true;
            for &p in &order {
                if filled.get(p).is_none() {
                    let first = plays.is_empty() && fill.is_empty();
                    match one_sided_play(&filled, p, color, first, ctx, false) {
                        Some(after) => {
                            filled = after;
                            fill.push(p);
                        }
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
            }
            if !ok || filled.get(stone) != Some(color) {
                continue;
            }
            benson.run(
                filled.geometry(),
                filled.colors(),
                color,
                ctx.rules.suicide_allowed,
            );
            if benson.is_alive(stone) {
                let mut all = plays.clone();
                all.extend(fill);
                return Some(all);
            }
        }
    }
    None
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

struct OneSided<'c, 'h> {
    ctx: &'c Context<'h>,
    color: Color,
    stone: Point,
    points: Vec<Point>,
    visited: HashSet<Vec<u64>>,
    benson: Benson,
    nodes: u64,
    budget: u64,
    plays: Vec<Point>,
}

impl OneSided<'_, '_> {
    /// Depth-first over the positions one-sided moving reaches; `Ok(true)` when one makes the
    /// block pass-alive (the plays are left in `self.plays`).
    fn dfs(&mut self, board: &Board, first: bool) -> Result<bool, ()> {
        for i in 0..self.points.len() {
            let p = self.points[i];
            let Some(after) = one_sided_play(board, p, self.color, first, self.ctx, true) else {
                continue;
            };
            if after.get(self.stone) != Some(self.color) {
                continue;
            }
            if !self.visited.insert(after.packed().to_vec()) {
                continue;
            }
            self.nodes += 1;
            count_node();
            if self.nodes > self.budget || self.plays.len() >= MAX_LINE {
                return Err(());
            }
            self.plays.push(p);
            self.benson.run(
                after.geometry(),
                after.colors(),
                self.color,
                self.ctx.rules.suicide_allowed,
            );
            if self.benson.is_alive(self.stone) || self.dfs(&after, false)? {
                return Ok(true);
            }
            self.plays.pop();
        }
        Ok(false)
    }
}

// ---------------------------------------------------------------------------------------------
// Locally capturable.
// ---------------------------------------------------------------------------------------------

/// Whether the block of `stone` is locally capturable (§3.9.1): `Yes(line)` gives a line of
/// local alternate moving, the block's colour first, that removes it while the block's colour
/// defends as long as it can (the opponent's moves in it win against every defence).
#[must_use]
pub fn locally_capturable(
    board: &Board,
    stone: Point,
    region: &LocalRegion,
    ctx: &Context,
    budget: u64,
) -> Answer<Vec<(Color, Move)>> {
    let color = region.color;
    let mut search = Capture {
        ctx,
        color,
        stone,
        points: region.points.clone(),
        tt: HashMap::new(),
        nodes: 0,
        budget,
        max_depth: MAX_LINE,
        path: Vec::new(),
        states: Vec::new(),
    };
    search.path.push(PathEntry::of(board, color, ctx.rules.ko));
    match search.solve(board, color, ctx.ko, false, 0) {
        Ok(r) if r.win => Answer::Yes(r.line),
        Ok(_) => Answer::No,
        Err(why) => Answer::Undecided(why),
    }
}

/// The longest line either search follows (they recurse once a move); beyond it the answer
/// is undecided.
const MAX_LINE: usize = 400;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key {
    hash: u64,
    to_move: Color,
    ko: Option<KoBan>,
    passed: bool,
}

struct Entry {
    win: bool,
    line: Vec<(Color, Move)>,
    min_stones: u32,
    bloom: [u64; 2],
}

struct PathEntry {
    hash: u64,
    packed: Vec<u64>,
    stones: u32,
}

impl PathEntry {
    fn of(board: &Board, to_move: Color, ko: KoRule) -> PathEntry {
        PathEntry {
            hash: salted(board.hash(), to_move, ko),
            packed: board.packed().to_vec(),
            stones: stones(board),
        }
    }
}

fn stones(board: &Board) -> u32 {
    board.stone_count(Color::Black) + board.stone_count(Color::White)
}

/// Under situational superko a position is a colouring and the player to move.
fn salted(hash: u64, to_move: Color, ko: KoRule) -> u64 {
    if ko == KoRule::SituationalSuperko && to_move == Color::White {
        hash ^ 0x5bd1_e995_c3a5_c85c
    } else {
        hash
    }
}

fn bloom_bits(hash: u64) -> [(usize, u64); 2] {
    let a = (hash & 127) as usize;
    let b = ((hash >> 17) & 127) as usize;
    [(a / 64, 1 << (a % 64)), (b / 64, 1 << (b % 64))]
}

struct Res {
    win: bool,
    tainted: bool,
    min_stones: u32,
    bloom: [u64; 2],
    line: Vec<(Color, Move)>,
}

impl Res {
    fn leaf(win: bool) -> Res {
        Res {
            win,
            tainted: false,
            min_stones: u32::MAX,
            bloom: [0; 2],
            line: Vec::new(),
        }
    }
}

enum Child {
    Illegal {
        path_dependent: bool,
    },
    Terminal {
        win: bool,
        path_dependent: bool,
        board: Board,
    },
    Next {
        board: Option<Board>,
        ko: Option<KoBan>,
        passed: bool,
    },
}

struct Capture<'c, 'h> {
    ctx: &'c Context<'h>,
    color: Color,
    stone: Point,
    points: Vec<Point>,
    tt: HashMap<Key, Entry>,
    nodes: u64,
    budget: u64,
    max_depth: usize,
    path: Vec<PathEntry>,
    states: Vec<Key>,
}

impl Capture<'_, '_> {
    fn safe(&self, entry: &Entry) -> bool {
        if self.ctx.rules.ko == KoRule::Simple {
            return true;
        }
        self.path.iter().all(|y| {
            y.stones < entry.min_stones
                || !bloom_bits(y.hash)
                    .iter()
                    .all(|&(w, bit)| entry.bloom[w] & bit != 0)
        })
    }

    /// The moves to try, best first: for the attacker the block's liberties first, for the
    /// defender captures, then a pass, then the rest.
    fn moves(&self, board: &Board, to_move: Color, passed: bool) -> Vec<Move> {
        let geometry = board.geometry();
        let block = board.string(self.stone);
        let is_liberty = |p: Point| geometry.neighbors(p).iter().any(|q| block.contains(q));
        let mut first = Vec::new();
        let mut rest = Vec::new();
        for &p in &self.points {
            if board.get(p).is_some() {
                continue;
            }
            let good = if to_move == self.color {
                board.effect(p, to_move).captured > 0
            } else {
                is_liberty(p)
            };
            if good {
                first.push(Move::Play(p));
            } else {
                rest.push(Move::Play(p));
            }
        }
        let mut moves = first;
        if to_move == self.color {
            moves.push(Move::Pass);
            moves.extend(rest);
        } else {
            moves.extend(rest);
            // The attacker's pass right after the defender's is never needed: the defender
            // could pass again and bring back the same state.
            if !passed {
                moves.push(Move::Pass);
            }
        }
        moves
    }

    fn child(&self, board: &Board, to_move: Color, ko: Option<KoBan>, mv: Move) -> Child {
        let rules = self.ctx.rules;
        let p = match mv {
            Move::Pass => {
                let ko = if rules.ko == KoRule::LongCycle {
                    ko
                } else {
                    None
                };
                return Child::Next {
                    board: None,
                    ko,
                    passed: to_move == self.color,
                };
            }
            Move::Play(p) => p,
        };
        let effect = board.effect(p, to_move);
        if let Some(ban) = ko {
            if ban.point == p && ban.forbidden == to_move && effect.captured == 1 {
                return Child::Illegal {
                    path_dependent: false,
                };
            }
        }
        if effect.suicided > 0 && !rules.suicide_allowed {
            return Child::Illegal {
                path_dependent: false,
            };
        }
        let mut after = board.clone();
        after.play_unchecked(p, to_move);
        let next = to_move.opponent();
        if rules.ko != KoRule::Simple {
            let in_game = self.ctx.repeats_game(&after, next);
            let salted_hash = salted(after.hash(), next, rules.ko);
            let in_path = !in_game
                && self
                    .path
                    .iter()
                    .any(|y| y.hash == salted_hash && y.packed == after.packed());
            if in_game || in_path {
                return if rules.ko == KoRule::LongCycle {
                    Child::Terminal {
                        win: after.get(self.stone) != Some(self.color),
                        path_dependent: in_path,
                        board: after,
                    }
                } else {
                    Child::Illegal {
                        path_dependent: in_path,
                    }
                };
            }
        }
        if after.get(self.stone) != Some(self.color) {
            return Child::Terminal {
                win: true,
                path_dependent: false,
                board: after,
            };
        }
        let ko = if rules.ko.has_basic_ko() && effect.makes_ko {
            effect.single_capture.map(|point| KoBan {
                point,
                forbidden: next,
            })
        } else {
            None
        };
        Child::Next {
            board: Some(after),
            ko,
            passed: false,
        }
    }

    fn solve(
        &mut self,
        board: &Board,
        to_move: Color,
        ko: Option<KoBan>,
        passed: bool,
        depth: usize,
    ) -> Result<Res, String> {
        self.nodes += 1;
        count_node();
        if self.nodes > self.budget {
            return Err(format!(
                "locally capturable: more than {} nodes in a region of {} points",
                self.budget,
                self.points.len()
            ));
        }
        if depth > self.max_depth {
            return Err(format!(
                "locally capturable: a line longer than {} moves",
                self.max_depth
            ));
        }
        let key = Key {
            hash: board.hash(),
            to_move,
            ko,
            passed,
        };
        if let Some(entry) = self.tt.get(&key) {
            if self.safe(entry) {
                return Ok(Res {
                    win: entry.win,
                    tainted: false,
                    min_stones: entry.min_stones,
                    bloom: entry.bloom,
                    line: entry.line.clone(),
                });
            }
        }
        if self.states.contains(&key) {
            // The same state again on this line: endless moving, the block stays.
            let mut r = Res::leaf(false);
            r.tainted = true;
            return Ok(r);
        }
        self.states.push(key);
        let attacker = to_move != self.color;
        let mut acc = Res::leaf(!attacker);
        let result = (|| -> Result<(), String> {
            for mv in self.moves(board, to_move, passed) {
                let child = self.child(board, to_move, ko, mv);
                let mut r = match child {
                    Child::Illegal { path_dependent } => {
                        acc.tainted |= path_dependent;
                        continue;
                    }
                    Child::Terminal {
                        win,
                        path_dependent,
                        board: after,
                    } => {
                        let mut r = Res::leaf(win);
                        r.tainted = path_dependent;
                        self.note(&mut r, &after, to_move.opponent());
                        r
                    }
                    Child::Next {
                        board: after,
                        ko: child_ko,
                        passed: child_passed,
                    } => {
                        let next = to_move.opponent();
                        let records =
                            after.is_some() || self.ctx.rules.ko == KoRule::SituationalSuperko;
                        let after_ref = after.as_ref().unwrap_or(board);
                        if records {
                            self.path
                                .push(PathEntry::of(after_ref, next, self.ctx.rules.ko));
                        }
                        let r = self.solve(after_ref, next, child_ko, child_passed, depth + 1);
                        if records {
                            self.path.pop();
                        }
                        let mut r = r?;
                        if records {
                            self.note(&mut r, after_ref, next);
                        }
                        r
                    }
                };
                acc.tainted |= r.tainted;
                acc.min_stones = acc.min_stones.min(r.min_stones);
                acc.bloom[0] |= r.bloom[0];
                acc.bloom[1] |= r.bloom[1];
                if attacker && r.win {
                    acc.win = true;
                    r.line.insert(0, (to_move, mv));
                    acc.line = std::mem::take(&mut r.line);
                    return Ok(());
                }
                if !attacker {
                    if !r.win {
                        acc.win = false;
                        acc.line.clear();
                        return Ok(());
                    }
                    if r.line.len() + 1 > acc.line.len() {
                        r.line.insert(0, (to_move, mv));
                        acc.line = std::mem::take(&mut r.line);
                    }
                }
            }
            Ok(())
        })();
        self.states.pop();
        result?;
        if !attacker && acc.win && acc.line.is_empty() {
            // Unreachable: the defender can always pass.
            acc.line.push((to_move, Move::Pass));
        }
        if !acc.tainted {
            self.tt.insert(
                key,
                Entry {
                    win: acc.win,
                    line: acc.line.clone(),
                    min_stones: acc.min_stones,
                    bloom: acc.bloom,
                },
            );
        }
        Ok(acc)
    }

    /// Adds the position after a move to a result's subtree summary.
    fn note(&self, r: &mut Res, after: &Board, to_move: Color) {
        r.min_stones = r.min_stones.min(stones(after));
        for (w, bit) in bloom_bits(salted(after.hash(), to_move, self.ctx.rules.ko)) {
            r.bloom[w] |= bit;
        }
    }
}
