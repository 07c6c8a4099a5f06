//! The two searches of reference 001 §3.9.1, exact and bounded by a node budget.
//!
//! - **At most one eye**: "A block for which no strategy exists to become pass-alive under
//!   one-sided moving of its colour has at most one eye." [`can_become_pass_alive`] looks for
//!   a sequence of plays of the block's colour (the opponent passing) after which the block is
//!   pass-alive, in order: a constructed witness (capture what can be captured, then fill the
//!   reachable set leaving two one-point eyes); the eye-space bound of the `eyes` module (with
//!   suicide legal or not), which proves "no" when no set of captures leaves room for two separate
//!   eye regions and otherwise builds the eyes it found room for; last, an exhaustive search of
//!   every position that one-sided moving reaches inside `K` (see [`crate::region`]), each
//!   position visited once (one-sided moving never needs to repeat a position, so the set of
//!   reachable positions does not depend on the order of the moves). Every "yes" is checked by
//!   Benson's algorithm on the position its plays reach.
//! - **Locally capturable**: "A block that can be removed under local alternate moving in its
//!   maximal local region, with its colour moving first". [`locally_capturable`] is an AND/OR
//!   proof by depth-first proof-number search (df-pn; the `dfpn` module): the opponent needs
//!   one move that removes the block in every line, the block's colour any move that avoids
//!   it. Plays are on the region's points only, passes are allowed, and the game's ko rule
//!   applies, with the game's earlier positions: basic ko (Olympiad 3.5, the ban survives
//!   passes under `long-cycle`), positional or situational superko (a repeating play is
//!   illegal), or the long cycle rule (3.6: a repeating play ends the moving; the block is
//!   removed only if that play removed it). An endless line leaves the block on the board.
//!   Nodes are keyed exactly (colouring, player, ko ban, pass), results that rest on the
//!   line above carry those dependencies, and leaves use Benson's algorithm for both colours.
//!
//! When the budget runs out the answer is [`Answer::Undecided`] with the reason; nothing is
//! guessed.

use std::collections::HashSet;

use goref_rules::{Board, Color, Move, Point};

use crate::benson::Benson;
use crate::context::{capture_opponents, count_node, one_sided_play, MAX_LINE};
pub use crate::context::{nodes_visited, Answer, Budget, Context};
use crate::region::LocalRegion;

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
    if let Some(plans) = crate::eyes::plans(board, stone, reach, suicide) {
        if plans.is_empty() {
            // The eye-space bound: no way to two eyes exists.
            return Answer::No;
        }
        for plan in &plans {
            if let Some(plays) = crate::eyes::build(board, stone, reach, plan, ctx, &mut benson) {
                return Answer::Yes(plays);
            }
        }
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
/// defends as long as it can (the opponent's moves in it win against every defence). The
/// answer is a completed proof-number search (depth-first proof-number search, df-pn).
#[must_use]
pub fn locally_capturable(
    board: &Board,
    stone: Point,
    region: &LocalRegion,
    ctx: &Context,
    budget: u64,
) -> Answer<Vec<(Color, Move)>> {
    crate::dfpn::locally_capturable(board, stone, &region.points, ctx, budget)
}
