//! Eye space under one-sided moving: a bound that proves "at most one eye" (reference 001
//! §3.9.1) without enumerating positions, and plans that build the two eyes when it does not.
//!
//! Let `T` be the block, of colour `c`, and `K` its reach (see [`crate::region`]); suicide is
//! illegal. Under one-sided moving of `c`:
//!
//! - `c` stones are never removed (the opponent never moves, and `c` may not commit suicide);
//! - an opposing block is removed only by capture, when every one of its liberties in the
//!   starting position holds a `c` stone (its liberties only shrink; two opposing blocks are
//!   never adjacent), and those stones stay;
//! - an opposing block never captured stays where it is.
//!
//! So once the set `C` of opposing blocks that will be captured is fixed, the points that can
//! be empty at the end are `E(C)`: the points of `K` empty at the start that are no liberty of
//! a block of `C`, and the stones of the blocks of `C`. If `T` ends pass-alive it has two
//! vital regions `R1` and `R2` (Benson): disjoint and not adjacent (each is a maximal connected
//! set of points that are not `c`), each holding an empty point, each enclosed by `c` stones.
//! Neither holds an opposing pass-alive stone: such a stone's block keeps two vital regions of
//! its own, whose empty points it touches, and a region vital to `T` has every empty point
//! touching `T`, which would put `T` in both. So `R1` and `R2` lie in `K` and touch no point
//! outside it. For an empty point `e` of `R`, the *closure* of `e` (the point and the opposing
//! blocks of `K \ C` next to it, which stay and are not `c`) lies in `R` too.
//!
//! Hence the bound: if for every `C` no two points of `E(C)` have closures that are disjoint,
//! not adjacent and touch nothing outside `K`, then no sequence makes `T` pass-alive: it has at
//! most one eye. A closure is kept only while it can be part of a healthy region: a point next
//! to it that touches outside `K` cannot be in the region, so it ends as a stone of a pass-alive
//! block, which needs a second vital region; that region's closure (itself kept) lies in the
//! same connected part of `K` once this closure is taken out, and is disjoint from it and not
//! adjacent. Closures without one are dropped until nothing changes. The property tests compare this with enumeration on small boards. When the
//! bound allows two eyes, [`build`] tries to make them: capture `C`, then fill `K` outside the
//! two closures; Benson's algorithm checks the result.

use goref_rules::{Board, Color, Point};

use crate::blocks::Blocks;
use crate::search::{one_sided_play, Context};

/// Opposing blocks in `K` beyond which the bound is not tried (it enumerates subsets).
const MAX_BLOCKS: usize = 10;

/// Plans kept for [`build`].
const MAX_PLANS: usize = 24;

/// Two eyes to aim for: the opposing blocks to capture and the two eye regions.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    capture: Vec<Vec<Point>>,
    eyes: [Vec<Point>; 2],
}

/// `Some(empty)` when the bound proves that the block of `stone` has at most one eye;
/// `Some(plans)` with ways two eyes might be made; `None` when `K` holds too many opposing
/// blocks to try.
pub(crate) fn plans(board: &Board, stone: Point, reach: &[bool]) -> Option<Vec<Plan>> {
    let color = board.get(stone)?;
    let geometry = board.geometry();
    let n = geometry.len();
    let blocks = Blocks::new(geometry, board.colors());
    let opposing: Vec<usize> = (0..blocks.list.len())
        .filter(|&i| {
            blocks.list[i].color == color.opponent() && reach[blocks.list[i].anchor().index()]
        })
        .collect();
    if opposing.len() > MAX_BLOCKS {
        return None;
    }
    let liberties: Vec<Vec<Point>> = opposing
        .iter()
        .map(|&i| {
            let mut libs = Vec::new();
            for &s in &blocks.list[i].stones {
                for &q in geometry.neighbors(s) {
                    if board.get(q).is_none() && !libs.contains(&q) {
                        libs.push(q);
                    }
                }
            }
            libs
        })
        .collect();
    // Points touching something outside K (an opposing pass-alive stone).
    let touches_outside: Vec<bool> = (0..n)
        .map(|i| {
            geometry
                .neighbors(Point::new(i))
                .iter()
                .any(|q| !reach[q.index()])
        })
        .collect();
    let mut plans = Vec::new();
    let mut forced = vec![false; n];
    let mut free = vec![false; n];
    let mut staying = vec![usize::MAX; n];
    for mask in 0u32..(1u32 << opposing.len()) {
        forced.iter_mut().for_each(|f| *f = false);
        staying.iter_mut().for_each(|s| *s = usize::MAX);
        for (k, &i) in opposing.iter().enumerate() {
            if mask & (1 << k) != 0 {
                for l in &liberties[k] {
                    forced[l.index()] = true;
                }
            } else {
                for s in &blocks.list[i].stones {
                    staying[s.index()] = k;
                }
            }
        }
        for i in 0..n {
            let p = Point::new(i);
            free[i] = reach[i]
                && match board.get(p) {
                    None => !forced[i],
                    Some(c) => c != color && staying[i] == usize::MAX,
                };
        }
        // The closure of each free point, when it touches nothing outside K.
        let mut closures: Vec<(Point, Vec<Point>)> = Vec::new();
        for e in (0..n).filter(|&i| free[i]).map(Point::new) {
            let mut closure = vec![e];
            let mut stay_blocks: Vec<usize> = Vec::new();
            for &q in geometry.neighbors(e) {
                let k = staying[q.index()];
                if k != usize::MAX && !stay_blocks.contains(&k) {
                    stay_blocks.push(k);
                    closure.extend_from_slice(&blocks.list[opposing[k]].stones);
                }
            }
            if closure.iter().all(|q| !touches_outside[q.index()]) {
                closures.push((e, closure));
            }
        }
        // A region's neighbours that touch outside K cannot be in it, so they end as stones of
        // `c`, in blocks that need a second eye region: one whose closure lies in their part
        // of K without this closure. Drop closures that cannot have that, until none changes.
        let mut supported = vec![true; closures.len()];
        let mut component = vec![0u32; n];
        let mut stack = Vec::new();
        loop {
            let mut changed = false;
            for a in 0..closures.len() {
                if !supported[a] {
                    continue;
                }
                let mut in_a = vec![0u8; n];
                for q in &closures[a].1 {
                    in_a[q.index()] = 2;
                    for r in geometry.neighbors(*q) {
                        if in_a[r.index()] == 0 {
                            in_a[r.index()] = 1;
                        }
                    }
                }
                let forced_neighbours: Vec<Point> = (0..n)
                    .filter(|&i| in_a[i] == 1 && reach[i] && touches_outside[i])
                    .map(Point::new)
                    .collect();
                component.iter_mut().for_each(|c| *c = 0);
                for (id, &p) in forced_neighbours.iter().enumerate() {
                    let id = id as u32 + 1;
                    if component[p.index()] == 0 {
                        component[p.index()] = id;
                        stack.push(p);
                        while let Some(q) = stack.pop() {
                            for &r in geometry.neighbors(q) {
                                if reach[r.index()]
                                    && in_a[r.index()] != 2
                                    && component[r.index()] == 0
                                {
                                    component[r.index()] = id;
                                    stack.push(r);
                                }
                            }
                        }
                    }
                    let id = component[p.index()];
                    let has_second = (0..closures.len()).any(|b| {
                        b != a
                            && supported[b]
                            && component[closures[b].0.index()] == id
                            && closures[b].1.iter().all(|q| in_a[q.index()] == 0)
                    });
                    if !has_second {
                        supported[a] = false;
                        changed = true;
                        break;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let closures: Vec<(Point, Vec<Point>)> = closures
            .into_iter()
            .zip(supported)
            .filter_map(|(c, ok)| ok.then_some(c))
            .collect();
        let mut mark = vec![0u8; n];
        'pairs: for a in 0..closures.len() {
            mark.iter_mut().for_each(|m| *m = 0);
            for q in &closures[a].1 {
                mark[q.index()] = 2;
                for r in geometry.neighbors(*q) {
                    if mark[r.index()] == 0 {
                        mark[r.index()] = 1;
                    }
                }
            }
            for b in a + 1..closures.len() {
                // Disjoint and not adjacent: no point of b in a or next to a.
                if closures[b].1.iter().all(|q| mark[q.index()] == 0) {
                    plans.push(Plan {
                        capture: opposing
                            .iter()
                            .enumerate()
                            .filter(|(k, _)| mask & (1 << k) != 0)
                            .map(|(_, &i)| blocks.list[i].stones.clone())
                            .collect(),
                        eyes: [closures[a].1.clone(), closures[b].1.clone()],
                    });
                    if plans.len() >= MAX_PLANS {
                        return Some(plans);
                    }
                    // One pair per starting point is enough variety.
                    continue 'pairs;
                }
            }
        }
    }
    Some(plans)
}

/// Tries to carry out `plan`: capture its blocks, then fill `K` outside the two eye regions,
/// from the block outwards. Returns the plays when the block ends pass-alive.
pub(crate) fn build(
    board: &Board,
    stone: Point,
    reach: &[bool],
    plan: &Plan,
    ctx: &Context,
    benson: &mut crate::benson::Benson,
) -> Option<Vec<Point>> {
    let color: Color = board.get(stone)?;
    let geometry = board.geometry();
    let n = geometry.len();
    let mut b = board.clone();
    let mut plays: Vec<Point> = Vec::new();
    let mut keep_empty = vec![false; n];
    for eye in &plan.eyes {
        for p in eye {
            keep_empty[p.index()] = true;
        }
    }
    let play = |b: &mut Board, plays: &mut Vec<Point>, p: Point| -> bool {
        match one_sided_play(b, p, color, plays.is_empty(), ctx, false) {
            Some(after) if after.get(stone) == Some(color) => {
                *b = after;
                plays.push(p);
                true
            }
            _ => false,
        }
    };
    for target in &plan.capture {
        let anchor = target[0];
        let mut progress = true;
        while progress && b.get(anchor) == Some(color.opponent()) {
            progress = false;
            let mut libs: Vec<Point> = Vec::new();
            for s in b.string(anchor) {
                for &q in geometry.neighbors(s) {
                    if b.get(q).is_none() && !libs.contains(&q) {
                        libs.push(q);
                    }
                }
            }
            for l in libs {
                if b.get(l).is_none() && play(&mut b, &mut plays, l) {
                    progress = true;
                }
            }
        }
        if b.get(anchor) == Some(color.opponent()) {
            return None;
        }
    }
    // Fill the rest of K outside the eyes, breadth-first from the block, until nothing more
    // can be played.
    let mut order: Vec<Point> = Vec::new();
    let mut seen = vec![false; n];
    seen[stone.index()] = true;
    let mut queue = std::collections::VecDeque::from([stone]);
    while let Some(p) = queue.pop_front() {
        order.push(p);
        for &q in geometry.neighbors(p) {
            if reach[q.index()] && !seen[q.index()] {
                seen[q.index()] = true;
                queue.push_back(q);
            }
        }
    }
    let mut progress = true;
    while progress {
        progress = false;
        for &p in &order {
            if !keep_empty[p.index()] && b.get(p).is_none() && play(&mut b, &mut plays, p) {
                progress = true;
            }
        }
    }
    benson.run(geometry, b.colors(), color, ctx.rules.suicide_allowed);
    benson.is_alive(stone).then_some(plays)
}
