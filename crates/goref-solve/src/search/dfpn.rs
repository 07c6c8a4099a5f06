//! Depth-first proof-number search (df-pn, Nagai 2002) of a null-window test: the same
//! question as [`Search::test`] ("is the value at least β for the player to move?"), the
//! same proven answers (from ended games, Benson's bounds and the table, under the same
//! history filters), but the search goes where the proof looks cheapest instead of to a
//! uniform depth: a node's *proof number* is the least number of leaves still to prove to
//! answer yes, its *disproof number* the same for no, and the search descends into the child
//! that most cheaply decides, within thresholds, until the root is decided.
//!
//! Proof and disproof numbers only choose where to search: they are kept in a small lossy
//! table of their own, by state and β, whatever the history, and a wrong or lost number
//! costs nodes, never soundness. Only decided answers go to the transposition table, with
//! the history items they depend on (see the crate documentation).

use super::*;

/// A proof or disproof number no search reaches: the node is decided the other way.
const PN_INF: u32 = u32::MAX / 4;

/// Entries of the proof-number table at first (a power of two): it doubles when it has taken
/// a quarter as many tags as it has entries, up to as many entries as the transposition
/// table.
const PN_TABLE_FIRST: usize = 1 << 12;

/// The steps of the spread from the stones by which [`Search::guess`] counts a colour's
/// points.
const GUESS_STEPS: u32 = 2;

/// One move of a node being searched, seen from the node.
#[derive(Clone, Copy)]
struct Kid {
    /// The play (its candidate) or the pass (`None`).
    cand: Option<Cand>,
    /// Leaves still to prove for this move to answer the node's test yes (the child's
    /// disproof number), and no (the child's proof number).
    pn: u32,
    dn: u32,
    /// Once decided: the bound it gives the node (at least `value ≥ β` for yes, at most
    /// `value < β` for no), and what it depends on.
    value: i32,
    gen: Gen,
}

/// The lists of one node's moves, kept from node to node so that a node allocates none.
#[derive(Default)]
pub(crate) struct Lists {
    cands: Vec<Cand>,
    kids: Vec<Kid>,
}

/// The answer of [`Search::mid`]: decided (`pn` or `dn` 0, with the bound and what it
/// depends on), or the numbers it stopped at.
pub(crate) struct Node {
    pn: u32,
    dn: u32,
    value: i32,
    gen: Gen,
}

/// The proof-number table, shared by the threads of a solve: by a hash of state and β
/// (never 0), the last numbers found. A tag takes its own entry, or the other of its pair
/// when that is free; else it replaces the tag in its own. Entries are read and written
/// without locks, each as two words (the tag xor the numbers, and the numbers), so that an
/// entry torn by two threads' writes reads as no entry (or, as rarely as a hash collision,
/// as wrong numbers: they only guide the search). The entries are on a [`Shelf`], so that the
/// table can grow; a thread reads and writes them through its [`View`].
pub(crate) struct PnTable {
    entries: Shelf<[AtomicU64; 2]>,
    /// Tags taken since the table last grew.
    taken: AtomicUsize,
    max: usize,
}

/// An entry's tag and numbers, when it holds a tag.
fn read_entry(entry: &[AtomicU64; 2]) -> Option<(u64, u32, u32)> {
    let numbers = entry[1].load(Ordering::Relaxed);
    let tag = entry[0].load(Ordering::Relaxed) ^ numbers;
    (tag != 0).then_some((tag, (numbers >> 32) as u32, numbers as u32))
}

fn write_entry(entry: &[AtomicU64; 2], tag: u64, pn: u32, dn: u32) {
    let numbers = u64::from(pn) << 32 | u64::from(dn);
    entry[1].store(numbers, Ordering::Relaxed);
    entry[0].store(tag ^ numbers, Ordering::Relaxed);
}

fn empty_entries(len: usize) -> Vec<[AtomicU64; 2]> {
    huge_vec(len, || [AtomicU64::new(0), AtomicU64::new(0)])
}

impl PnTable {
    /// A table that grows to `entries` (rounded to a power of two) at most.
    pub(crate) fn new(entries: usize) -> PnTable {
        PnTable {
            entries: Shelf::new(empty_entries(PN_TABLE_FIRST)),
            taken: AtomicUsize::new(0),
            max: entries.next_power_of_two().max(PN_TABLE_FIRST),
        }
    }

    /// A view of the entries for a thread.
    pub(crate) fn view(&self) -> View<[AtomicU64; 2]> {
        self.entries.view()
    }

    /// Brings a thread's `view` to the entries as they are now, if the table grew.
    #[inline]
    pub(crate) fn refresh(&self, view: &mut View<[AtomicU64; 2]>) {
        self.entries.refresh(view);
    }

    /// The numbers of `tag` in `entries` (a view of the table), if it holds them.
    fn get(entries: &[[AtomicU64; 2]], tag: u64) -> Option<(u32, u32)> {
        let i = tag as usize & (entries.len() - 1);
        [i, i ^ 1]
            .into_iter()
            .filter_map(|i| read_entry(&entries[i]))
            .find(|e| e.0 == tag)
            .map(|e| (e.1, e.2))
    }

    /// Asks for the entries of the test "at least `beta`?" at the state `ckey`, `meta` in
    /// `entries` to be loaded, without waiting for them.
    pub(crate) fn prefetch(entries: &[[AtomicU64; 2]], ckey: u64, meta: u32, beta: i32) {
        let i = pn_tag(ckey, meta, beta) as usize & (entries.len() - 1);
        prefetch(&entries[i]);
    }

    /// Writes the numbers of `tag` through a thread's `view` (the table grown first if it
    /// has taken a quarter as many tags as it has entries).
    fn put(&self, view: &mut View<[AtomicU64; 2]>, tag: u64, pn: u32, dn: u32) {
        if 4 * self.taken.load(Ordering::Relaxed) > view.len() {
            self.grow(view);
        }
        let entries = &**view;
        let i = tag as usize & (entries.len() - 1);
        let held = |i: usize| read_entry(&entries[i]).map(|e| e.0);
        let at = match (held(i), held(i ^ 1)) {
            (Some(t), _) if t == tag => i,
            (_, Some(t)) if t == tag => i ^ 1,
            (here, there) => {
                self.taken.fetch_add(1, Ordering::Relaxed);
                if here.is_some() && there.is_none() {
                    i ^ 1
                } else {
                    i
                }
            }
        };
        write_entry(&entries[at], tag, pn, dn);
    }

    /// Doubles the table, keeping what it holds, unless it is at its bound (then it counts
    /// anew) or another thread just grew it; and brings `view` to it.
    fn grow(&self, view: &mut View<[AtomicU64; 2]>) {
        self.entries.replace(|old| {
            if 4 * self.taken.load(Ordering::Relaxed) <= old.len() {
                return None; // another thread grew it
            }
            if old.len() >= self.max {
                self.taken.store(0, Ordering::Relaxed);
                return None;
            }
            let len = 2 * old.len();
            let entries = empty_entries(len);
            let mut taken = 0;
            for (tag, pn, dn) in old.iter().filter_map(read_entry) {
                let i = tag as usize & (len - 1);
                if let Some(at) = [i, i ^ 1]
                    .into_iter()
                    .find(|&at| read_entry(&entries[at]).is_none())
                {
                    write_entry(&entries[at], tag, pn, dn);
                    taken += 1;
                }
            }
            self.taken.store(taken, Ordering::Relaxed);
            Some(entries)
        });
        self.entries.refresh(view);
    }
}

/// The proof and disproof numbers of a test "at least `beta`?" whose answer is the bound
/// `value`: yes (0, none) when it passes `beta`, else no (none, 0).
fn decided_numbers(value: i32, beta: i32) -> (u32, u32) {
    if value >= beta {
        (0, PN_INF)
    } else {
        (PN_INF, 0)
    }
}

fn pn_tag(ckey: u64, meta: u32, beta: i32) -> u64 {
    mix(ckey ^ mix(u64::from(meta) << 32 ^ beta as u32 as u64)).max(1)
}

impl Search {
    /// The test "is the value of the line's last frame at least `beta`?", searched until it
    /// is answered: a fail-soft bound (at least `value ≥ beta`, or at most `value < beta`)
    /// and the history items it may depend on.
    pub fn prove(&mut self, beta: i32) -> Result<(i32, Gen), Aborted> {
        let node = self.mid(beta, PN_INF, PN_INF)?;
        debug_assert!(node.pn == 0 || node.dn == 0);
        Ok((node.value, node.gen))
    }

    /// Searches the line's last frame for the test "at least `beta`?" until it is decided or
    /// its proof number reaches `th_pn` or its disproof number `th_dn`.
    fn mid(&mut self, beta: i32, th_pn: u32, th_dn: u32) -> Result<Node, Aborted> {
        self.count_node()?;
        let f = *self.frames.last().expect("a node");
        let (ckey, s) = self.canonical(&f);
        let meta = self.meta(&f, s);
        let decided = |value: i32, gen: Gen| Node::decided(value, gen, beta);
        let tt_best = match self.stored(&f, ckey, s, meta, beta) {
            Ok(best) => best,
            Err((value, gen)) => return Ok(decided(value, gen)),
        };
        let (low, own_gen, high, opp_gen) = self.static_bounds(&f);
        if high < beta {
            return Ok(decided(high, opp_gen));
        }
        if low >= beta {
            return Ok(decided(low, own_gen));
        }
        // The lists of the moves, from those the nodes below have given back.
        let mut lists = self.lists.pop().unwrap_or_default();
        let result = self.expand(
            &f,
            (ckey, s, meta),
            tt_best,
            beta,
            (th_pn, th_dn),
            &mut lists,
        );
        self.lists.push(lists);
        result
    }

    /// The rest of [`Search::mid`], at `f` (the state `ckey`, `meta`, canonical frame `s`)
    /// whose static bounds do not answer the test: its moves in `lists`.
    fn expand(
        &mut self,
        f: &Frame,
        (ckey, s, meta): (u64, usize, u32),
        tt_best: u8,
        beta: i32,
        (th_pn, th_dn): (u32, u32),
        lists: &mut Lists,
    ) -> Result<Node, Aborted> {
        let f = *f;
        let nodes_before = self.nodes;
        let decided = |value: i32, gen: Gen| Node::decided(value, gen, beta);
        let ply = self.frames.len();
        let killer = self.killers.get(ply).copied().unwrap_or([NO_MOVE; 2]);
        let Lists { cands, kids } = lists;
        cands.clear();
        kids.clear();
        self.candidates(&f, tt_best, killer, cands);
        // What a no depends on: every play's colouring (legal or not, the history decides)
        // and every child's answer.
        let mut gen_all = Gen::NONE;
        for c in cands.iter() {
            gen_all.add(c.level, c.class);
        }
        self.prefetch_children(&f, cands, beta);
        if f.passes >= 1 {
            // Two consecutive passes end the game (TT rule 8, 001 §3.7.1).
            let value = self.relative(f.to_move, self.area_value(f.black, f.white));
            kids.push(Kid::decided(None, value, Gen::NONE, beta));
        }
        let child_meta = f.to_move.opponent().index() as u32;
        for &c in cands.iter() {
            let mut own = Gen::NONE;
            own.add(c.level, c.class);
            if let Some(v) = c.terminal {
                kids.push(Kid::decided(Some(c), v, own, beta));
                continue;
            }
            // Most children are in no slot of the table: their numbers are found without
            // setting them up (the child's state, but for the ko ban, is its colouring's
            // least image and the other player to move).
            if !Table::may_hold(&self.table_view, c.least, child_meta) {
                let to_move = f.to_move.opponent();
                let (pn, dn) =
                    self.numbers(c.least, child_meta, 1 - beta, (c.black, c.white, to_move));
                kids.push(Kid {
                    cand: Some(c),
                    pn: dn,
                    dn: pn,
                    value: 0,
                    gen: own,
                });
                continue;
            }
            self.push_play(&f, &c);
            let kid = self.kid(Some(c), own, beta);
            self.pop();
            kids.push(kid);
        }
        if f.passes == 0 {
            self.push_pass(&f);
            let kid = self.kid(None, Gen::NONE, beta);
            self.pop();
            kids.push(kid);
        }
        loop {
            let mut pn = PN_INF;
            let mut dn = 0u32;
            let (mut first, mut second) = (usize::MAX, PN_INF);
            for (i, k) in kids.iter().enumerate() {
                dn = dn.saturating_add(k.dn);
                if k.pn < pn {
                    second = pn;
                    pn = k.pn;
                    first = i;
                } else if k.pn < second {
                    second = k.pn;
                }
            }
            // Only a move that answers yes has a disproof number of PN_INF (and then the
            // node answers yes): sums of the others stay below it.
            let dn = dn.min(PN_INF - 1);
            if pn == 0 {
                // Yes: the best of the moves that answer it.
                let best = kids
                    .iter()
                    .filter(|k| k.pn == 0)
                    .max_by_key(|k| k.value)
                    .expect("a move that answers yes");
                let mv = best.cand.map_or(PASS, |c| c.point);
                if mv != PASS {
                    if self.killers.len() <= ply {
                        self.killers.resize(ply + 1, [NO_MOVE; 2]);
                    }
                    let k = &mut self.killers[ply];
                    if k[0] != mv {
                        k[1] = k[0];
                        k[0] = mv;
                    }
                }
                let work = self.nodes - nodes_before;
                self.store(&f, ckey, s, meta, best.gen, best.value, INF, mv, work);
                return Ok(decided(best.value, best.gen));
            }
            if dn == 0 {
                // No: every move answers no; the best of them bounds the node.
                let mut value = -INF;
                let mut best_move = NO_MOVE;
                let mut gen = gen_all;
                for k in kids.iter() {
                    gen.union(&k.gen);
                    if k.value > value {
                        value = k.value;
                        best_move = k.cand.map_or(PASS, |c| c.point);
                    }
                }
                let work = self.nodes - nodes_before;
                self.store(&f, ckey, s, meta, gen, -INF, value, best_move, work);
                return Ok(decided(value, gen));
            }
            if pn >= th_pn || dn >= th_dn {
                self.shared.numbers.put(
                    &mut self.numbers_view,
                    pn_tag(ckey, meta & 3, beta),
                    pn,
                    dn,
                );
                return Ok(Node {
                    pn,
                    dn,
                    value: 0,
                    gen: Gen::NONE,
                });
            }
            // The move whose proof looks cheapest, with thresholds that send the search
            // back here when another looks cheaper (the 1 + ε trick against thrashing).
            let kid = kids[first];
            let child_th_pn = th_dn.saturating_sub(dn).saturating_add(kid.dn).min(PN_INF);
            let child_th_dn = th_pn.min(second.saturating_add(second / 4).saturating_add(1));
            match kid.cand {
                Some(c) => self.push_play(&f, &c),
                None => self.push_pass(&f),
            }
            let r = self.mid(1 - beta, child_th_pn, child_th_dn);
            self.pop();
            let child = r?;
            let k = &mut kids[first];
            k.pn = child.dn;
            k.dn = child.pn;
            if child.pn == 0 || child.dn == 0 {
                k.value = -child.value;
                k.gen.union(&child.gen);
            }
        }
    }

    /// The move that made the line's last frame, seen from the node before it: decided by
    /// the table, else with the numbers last found for it (1 and 1 when none).
    fn kid(&mut self, cand: Option<Cand>, own: Gen, beta: i32) -> Kid {
        let f = *self.frames.last().expect("a node");
        let (ckey, s) = self.canonical(&f);
        let meta = self.meta(&f, s);
        match self.stored(&f, ckey, s, meta, 1 - beta) {
            Err((value, gen)) => {
                let mut gen = gen;
                gen.union(&own);
                Kid::decided(cand, -value, gen, beta)
            }
            Ok(_) => {
                let (pn, dn) =
                    self.numbers(ckey, meta & 3, 1 - beta, (f.black, f.white, f.to_move));
                Kid {
                    cand,
                    pn: dn,
                    dn: pn,
                    value: 0,
                    gen: own,
                }
            }
        }
    }
}

impl Search {
    /// The numbers last found for the test "at least `beta`?" at the state of canonical
    /// colouring `ckey` whose player to move and passes are `meta` (the ko ban is left out:
    /// the numbers only guide the search); when none, [`Search::guess`] of its `stones`
    /// (Black's, White's, and the player to move).
    fn numbers(&self, ckey: u64, meta: u32, beta: i32, stones: (u32, u32, Color)) -> (u32, u32) {
        PnTable::get(&self.numbers_view, pn_tag(ckey, meta, beta))
            .unwrap_or_else(|| self.guess(stones.0, stones.1, stones.2, beta))
    }

    /// The numbers a test "at least `beta`?" not yet searched starts with (df-pn's heuristic
    /// initial numbers): one leaf, and one more for each point by which the player to move
    /// falls short of `beta` (for the proof) or passes it (for the disproof) by a guess of the
    /// score: each colour's stones and the empty points [`Topo::nearer`] them within
    /// [`GUESS_STEPS`] steps. A move that leaves the other side ahead on the board looks
    /// harder to prove, so the search follows the moves that look good first and goes deep
    /// along them instead of searching all moves of a node alike (on 4×4 the solve takes 2.0M
    /// nodes where leaves of one and one took 2.4M; the crate's bench positions a third
    /// fewer). At most two leaves per point of the board. Only the order of the search
    /// depends on it.
    fn guess(&self, black: u32, white: u32, to_move: Color, beta: i32) -> (u32, u32) {
        let (b, w) = self.topo.nearer(black, white, GUESS_STEPS);
        let for_black = 2 * (b.count_ones() as i32 - w.count_ones() as i32) - self.komi_half;
        let value = self.relative(to_move, for_black);
        // Values are in half points: a point is two. No guess counts more points than the
        // scores span, twice the board's (a long-cycle win's β is far beyond any score).
        let span = 2 * self.topo.all.count_ones() as i32;
        let short = ((beta - value) / 2).clamp(-span, span);
        (1 + short.max(0) as u32, 1 + (-short).max(0) as u32)
    }
}

impl Node {
    /// A node whose value is known: at least `value` if it passes `beta`, else at most.
    fn decided(value: i32, gen: Gen, beta: i32) -> Node {
        let (pn, dn) = decided_numbers(value, beta);
        Node { pn, dn, value, gen }
    }
}

impl Kid {
    /// A move whose value for the node is known: at least `value` if it passes `beta`, else
    /// at most.
    fn decided(cand: Option<Cand>, value: i32, gen: Gen, beta: i32) -> Kid {
        let (pn, dn) = decided_numbers(value, beta);
        Kid {
            cand,
            pn,
            dn,
            value,
            gen,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test not yet searched starts with one leaf and one more per point by which the
    /// player to move is short of β (for the proof) or over it (for the disproof), by the
    /// guess of the score; from either side, with komi.
    #[test]
    fn an_unsearched_test_starts_with_a_leaf_per_point_it_is_short() {
        use goref_rules::{Game, Komi, Ruleset};
        let game = Game::rect(5, 1, Ruleset::NSTT).unwrap();
        let search = crate::root(&game, 16);
        // X . . . . : Black's two steps take b and c (3 points), White none: Black +3, six
        // half points.
        let (black, white) = (0b00001, 0);
        assert_eq!(search.guess(black, white, Color::Black, 6), (1, 1));
        assert_eq!(search.guess(black, white, Color::Black, 10), (3, 1));
        assert_eq!(search.guess(black, white, Color::Black, -4), (1, 6));
        // The same test seen by White: at least -6 holds by the guess, -2 is two points off.
        assert_eq!(search.guess(black, white, Color::White, -6), (1, 1));
        assert_eq!(search.guess(black, white, Color::White, -2), (3, 1));
        // Komi 3 for White: the guess is Black +0, so "Black at least +2" is a point short.
        let game = Game::rect(5, 1, Ruleset::NSTT.with_komi(Komi::from_half_points(6))).unwrap();
        let search = crate::root(&game, 16);
        assert_eq!(search.guess(black, white, Color::Black, 2), (2, 1));
    }

    /// The table keeps what it took as it grows (but for a later tag in the same entry), and
    /// stops at its bound.
    #[test]
    fn the_proof_number_table_keeps_its_numbers_as_it_grows() {
        let table = PnTable::new(1 << 14);
        let mut view = table.view();
        let tags: Vec<u64> = (1..=3000u64).map(|i| pn_tag(i, 0, 7)).collect();
        for (i, &tag) in tags.iter().enumerate() {
            table.put(&mut view, tag, i as u32, 2 * i as u32);
        }
        assert!(view.len() > PN_TABLE_FIRST, "it grew");
        assert!(view.len() <= 1 << 14, "within its bound");
        let kept = tags
            .iter()
            .enumerate()
            .filter(|&(i, &tag)| PnTable::get(&view, tag) == Some((i as u32, 2 * i as u32)))
            .count();
        // Only collisions lose numbers: a few per cent at this load.
        assert!(kept > 2850, "kept {kept} of 3000");
        // A state it never took has no numbers (tags are never 0).
        assert_eq!(PnTable::get(&view, pn_tag(1, 1, 7)), None);
        for i in 0..100_000u64 {
            table.put(&mut view, pn_tag(i, 2, 0), 1, 1);
        }
        assert_eq!(view.len(), 1 << 14, "it stops at its bound");
        assert_eq!(table.view().len(), 1 << 14, "and a new view sees it so");
    }

    /// Threads that write the table at once leave it holding each tag's numbers or none:
    /// never numbers of another tag.
    #[test]
    fn threads_writing_the_proof_number_table_at_once_never_mix_entries() {
        let table = PnTable::new(1 << 12);
        std::thread::scope(|scope| {
            for t in 0..4u32 {
                let table = &table;
                scope.spawn(move || {
                    let mut view = table.view();
                    for round in 0..20_000u32 {
                        // Few tags, so that threads write the same entries.
                        let i = u64::from(round % 64);
                        table.put(&mut view, pn_tag(i, 0, 1), i as u32, t * 100_000 + round);
                    }
                });
            }
        });
        for i in 0..64u64 {
            if let Some((pn, dn)) = PnTable::get(&table.view(), pn_tag(i, 0, 1)) {
                assert_eq!(pn, i as u32, "tag {i} holds its own proof number");
                assert_eq!(
                    u64::from(dn % 100_000 % 64),
                    i,
                    "and a disproof number written for it"
                );
            }
        }
    }
}
