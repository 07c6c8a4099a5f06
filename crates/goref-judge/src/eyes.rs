//! Eye space under one-sided moving: a bound that proves "at most one eye" (reference 001
//! §3.9.1) without enumerating positions, and plans that build the two eyes when it does not.
//!
//! Let `T` be the block, of colour `c`, and `K` its reach (see [`crate::region`]). Under
//! one-sided moving of `c`, with `T` kept on the board:
//!
//! - an opposing block `B` never moves and is removed only by capture, at the moment every
//!   point of `N(B)` (its neighbours, which are never opposing stones) holds a `c` stone; two
//!   opposing blocks are never adjacent; an opposing block never captured stays where it is;
//! - when suicide is illegal, `c` stones are never removed;
//! - when suicide is legal (Tromp-Taylor), `c` removes its own stones only by self-capture: a
//!   play that leaves a `c` string `G` without liberties and captures nothing. Then every
//!   neighbour of `G` is an opposing stone, so `G` is a whole connected component of the
//!   points that hold no opposing stone, and it is not the component of `T` (it does not hold
//!   `T`, and `T` is never removed). Let `A` be the component of `T` among the points holding
//!   no opposing stone at the start. Opposing stones only disappear, so the component of `T`
//!   only grows and always contains `A`: a `c` stone on a point of `A` is never removed. A
//!   block `B` next to `A` is next to the component of `T` when it is captured; after the
//!   capture every point of `N(B)` holds a `c` stone in that component, never removed.
//!
//! Call a `c` stone or a point of `N(B)` *permanent* when it is never emptied: under the
//! no-suicide rules every `c` stone and every `N(B)` of a captured block; under suicide-legal
//! rules the `c` stones of `A` and the `N(B)` of captured blocks next to `A` (points outside
//! `A` may be emptied again by self-capture, so the bound treats them as free).
//!
//! So once the set `C` of opposing blocks that will be captured is fixed, the points that can
//! be empty at the end are `E(C)`: the points of `K`, not `T`, that hold no opposing stone of
//! a block outside `C` and are not permanent. If `T` ends pass-alive it has two vital regions
//! `R1` and `R2` (Benson; with suicide legal a vital region has every point next to `T`, with
//! it illegal every empty point, so the conditions below hold under both): disjoint and not
//! adjacent (each is a maximal connected set of points that are not `c`), each holding an
//! empty point (an opposing string in it has a liberty, and that liberty is in it), each
//! enclosed by `c` stones. Neither holds an opposing pass-alive stone: such a stone's block
//! keeps two vital regions of its own, each with an empty point it touches, and a region
//! vital to `T` has every empty point touching `T`, which would put `T` in both. So `R1` and
//! `R2` lie in `K` and touch no point outside it. For an empty point `e` of `R`, the *closure*
//! of `e` (the point and the opposing blocks of `K \ C` next to it, which stay and are not
//! `c`) lies in `R` too.
//!
//! Hence the bound: if for every `C` no two points of `E(C)` have closures that are disjoint,
//! not adjacent and touch nothing outside `K`, then no sequence makes `T` pass-alive: it has at
//! most one eye. A closure is kept only while it can be part of a healthy region: a point next
//! to it that touches outside `K` cannot be in the region, so it ends as a stone of a pass-alive
//! block, which needs a second vital region; that region's closure (itself kept) lies in the
//! same connected part of `K` once this closure is taken out, and is disjoint from it and not
//! adjacent. Closures without one are dropped until nothing changes. The property tests
//! compare this with enumeration on small boards, under both suicide rules. When the bound
//! allows two eyes, [`build`] tries to make them: capture `C`, then fill `K` outside the two
//! closures; Benson's algorithm checks the result.

use goref_rules::{Board, Color, Point};

use crate::blocks::Blocks;
use crate::context::{one_sided_play, Context};

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
/// blocks to try. `suicide` says whether suicide is legal.
pub(crate) fn plans(
    board: &Board,
    stone: Point,
    reach: &[bool],
    suicide: bool,
) -> Option<Vec<Plan>> {
    let color = board.get(stone)?;
    let geometry = board.geometry();
    let n = geometry.len();
    // `A`: where stones of `c` are never removed (everywhere when suicide is illegal).
    let lasting = lasting_area(board, stone, suicide);
    let blocks = Blocks::new(geometry, board.colors());
    let opposing: Vec<usize> = (0..blocks.list.len())
        .filter(|&i| {
            blocks.list[i].color == color.opponent() && reach[blocks.list[i].anchor().index()]
        })
        .collect();
    if opposing.len() > MAX_BLOCKS {
        return None;
    }
    // Per opposing block: `N(B)` when its capture makes those points permanent, else nothing.
    let liberties: Vec<Vec<Point>> = opposing
        .iter()
        .map(|&i| {
            let mut libs = Vec::new();
            for &s in &blocks.list[i].stones {
                for &q in geometry.neighbors(s) {
                    if board.get(q) != Some(color.opponent()) && !libs.contains(&q) {
                        libs.push(q);
                    }
                }
            }
            if libs.iter().any(|q| lasting[q.index()]) {
                libs
            } else {
                Vec::new()
            }
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
                    Some(c) if c == color => !lasting[i] && !forced[i],
                    Some(_) => staying[i] == usize::MAX,
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

/// Per point: whether a stone of the block's colour there is never removed by one-sided
/// moving of that colour. With suicide illegal, everywhere; with it legal, `A`: the component
/// of the block among the points holding no opposing stone (see the module's text).
fn lasting_area(board: &Board, stone: Point, suicide: bool) -> Vec<bool> {
    let geometry = board.geometry();
    let n = geometry.len();
    if !suicide {
        return vec![true; n];
    }
    let Some(color) = board.get(stone) else {
        return vec![false; n];
    };
    let mut area = vec![false; n];
    area[stone.index()] = true;
    let mut stack = vec![stone];
    while let Some(p) = stack.pop() {
        for &q in geometry.neighbors(p) {
            if !area[q.index()] && board.get(q) != Some(color.opponent()) {
                area[q.index()] = true;
                stack.push(q);
            }
        }
    }
    area
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

#[cfg(test)]
mod tests {
    use crate::benson::{pass_alive, pass_alive_beside};
    use crate::region::reach;
    use crate::testing::{one_sided, positions};

    /// Whenever the eye-space bound proves "at most one eye", no sequence of one-sided moving
    /// (on the whole board, keeping the block) makes the block pass-alive; under both suicide
    /// rules, with the reach `K` bounded by the walls that stay while the block does. The
    /// bound must prove it often enough for the test to mean something.
    #[test]
    fn the_bound_never_denies_two_eyes_that_exist() {
        let mut proven = [0usize; 2];
        for board in positions(250, 0x2545_f491_4f6c_dd1d) {
            for suicide in [false, true] {
                for p in board.geometry().points() {
                    let Some(color) = board.get(p) else { continue };
                    let block = board.string(p);
                    if block[0] != p {
                        continue;
                    }
                    let walls = pass_alive_beside(
                        board.geometry(),
                        board.colors(),
                        color.opponent(),
                        suicide,
                        &block,
                    );
                    let k = reach(&board, p, &walls);
                    let Some(plans) = super::plans(&board, p, &k, suicide) else {
                        continue;
                    };
                    if !plans.is_empty() {
                        continue;
                    }
                    let Some(all) = one_sided(&board, color, suicide, &block, 50_000) else {
                        continue;
                    };
                    assert!(
                        !all.iter()
                            .any(|b| pass_alive(b.geometry(), b.colors(), color, suicide)
                                .is_alive(p)),
                        "suicide {suicide}, block at {}\n{}",
                        p.index(),
                        board.to_ascii()
                    );
                    proven[usize::from(suicide)] += 1;
                }
            }
        }
        assert!(proven[0] > 25 && proven[1] > 25, "{proven:?}");
    }

    /// The walls of [`pass_alive_beside`] are never removed by one-sided moving that keeps
    /// the block, and with suicide legal they hold more than Benson's pass-alive blocks on
    /// some positions (the test counts them).
    #[test]
    fn walls_beside_a_kept_block_stay() {
        let mut more = 0;
        for board in positions(250, 0x2545_f491_4f6c_dd1d) {
            for suicide in [false, true] {
                for p in board.geometry().points() {
                    let Some(color) = board.get(p) else { continue };
                    let block = board.string(p);
                    if block[0] != p {
                        continue;
                    }
                    let (g, colors) = (board.geometry(), board.colors());
                    let walls = pass_alive_beside(g, colors, color.opponent(), suicide, &block);
                    let plain = pass_alive(g, colors, color.opponent(), suicide);
                    for q in g.points() {
                        assert!(!plain.is_alive(q) || walls.is_alive(q));
                        if walls.is_alive(q) && !plain.is_alive(q) {
                            more += 1;
                        }
                    }
                    let Some(all) = one_sided(&board, color, suicide, &block, 50_000) else {
                        continue;
                    };
                    for b in &all {
                        for q in g.points().filter(|&q| walls.is_alive(q)) {
                            assert_eq!(
                                b.get(q),
                                Some(color.opponent()),
                                "suicide {suicide}, block at {}, wall {}\n{}",
                                p.index(),
                                q.index(),
                                board.to_ascii()
                            );
                        }
                    }
                }
            }
        }
        assert!(more > 0);
    }
}
