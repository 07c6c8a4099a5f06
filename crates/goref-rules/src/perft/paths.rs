//! Complete games under positional superko, counted as simple paths in the graph of positions.
//!
//! **Lemma** (Tromp and Farnebäck, "Combinatorics of Go", Lemma 2). Under positional superko
//! (004 rule 7: a play may not recreate an earlier position) a game is determined by its plays:
//! the passes are where the rules put them. Between two plays of the same colour there is
//! exactly one pass (an odd number, and two in a row end the game), between plays of opposite
//! colours none, before a first play by White one (Black moves first), and after the last play
//! the two passes that end the game (004 rule 8 with rule 9). A pass changes neither the
//! position nor the legality of later plays: under positional superko a play is legal when it
//! leads to a position not seen before, whoever makes it. So the games are exactly the simple
//! paths from the start in the graph whose nodes are positions and whose edges are the plays
//! of either colour (a play that recreates its own position, a single-stone suicide, is a loop
//! and never legal), every prefix of a path being a game of its own.
//!
//! **Counting.** Let `f(v, S)` be the number of simple paths that start at `v` and avoid the
//! visited set `S`. It depends only on the set `R` of nodes reachable from `v` without passing
//! through `S` (every path from `v` stays in `R`, and the edges inside `R` are fixed), so
//! `f(v, S) = F(v, R)` and `F(v, R) = 1 + Σ mult(v→w) · F(w, R_w)` over the edges `v → w` into
//! `R`, where `R_w` is what `w` reaches inside `R` without `v`. The board's symmetries (the
//! geometric ones, with or without exchanging the colours: the rules treat the colours alike,
//! and the first player does not matter by the lemma) map the graph onto itself, so `F` takes
//! the same value on `(v, R)` and on its images; the key of the cache is the smallest image.
//! The cache is bounded: an entry is replaced by a newer one when its bucket is full, which
//! costs only a recount later, never a wrong count.
//!
//! **Splitting.** The paths are enumerated level by level from the start until there are
//! enough distinct sub-problems (by their key, with the number of prefixes that lead to each
//! as its weight); the count is the number of prefixes shorter than the split plus the
//! weighted counts of the sub-problems. The sub-problems are independent: threads take them
//! from a queue and share the cache, and `--part K/N` counts every `N`-th of them.

use std::collections::HashMap;
use std::sync::atomic::{fence, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::{Color, Game, KoRule};

/// Bits of a cached count; the node rides in the bits above.
const VALUE_BITS: u32 = 56;

/// A set of graph nodes as `W` words.
type Set<const W: usize> = [u64; W];

fn has<const W: usize>(s: &Set<W>, i: usize) -> bool {
    s[i / 64] >> (i % 64) & 1 == 1
}

fn with<const W: usize>(mut s: Set<W>, i: usize) -> Set<W> {
    s[i / 64] |= 1 << (i % 64);
    s
}

fn ones<const W: usize>(s: &Set<W>) -> u32 {
    s.iter().map(|w| w.count_ones()).sum()
}

/// The positions reachable from the start by plays of either colour, the plays between them,
/// and the board's symmetries acting on them.
pub(crate) struct PathGraph<const W: usize> {
    /// For each node, the other nodes one play away with the number of plays leading there.
    adj: Vec<Vec<(u32, u32)>>,
    succ: Vec<Set<W>>,
    /// For each symmetry, a table from (word byte, byte value) to the image of those nodes.
    images: Vec<Vec<[Set<W>; 256]>>,
    /// The symmetry images of the nodes.
    perms: Vec<Vec<u32>>,
    /// For each node, the smallest node of its orbit, and the symmetries that map it there.
    rep: Vec<u32>,
    to_rep: Vec<Vec<usize>>,
}

/// The automorphisms of the board graph (at most `cap`), the identity first.
fn automorphisms(game: &Game, cap: usize) -> Vec<Vec<usize>> {
    let geo = game.geometry();
    let pts: Vec<_> = geo.points().collect();
    let n = pts.len();
    let adjacent = |a: usize, b: usize| geo.neighbors(pts[a]).contains(&pts[b]);
    fn extend(
        i: usize,
        perm: &mut Vec<usize>,
        used: &mut [bool],
        adjacent: &dyn Fn(usize, usize) -> bool,
        cap: usize,
        out: &mut Vec<Vec<usize>>,
    ) {
        if out.len() >= cap {
            return;
        }
        if i == used.len() {
            out.push(perm.clone());
            return;
        }
        for t in 0..used.len() {
            if !used[t] && (0..i).all(|j| adjacent(i, j) == adjacent(t, perm[j])) {
                perm.push(t);
                used[t] = true;
                extend(i + 1, perm, used, adjacent, cap, out);
                used[t] = false;
                perm.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(
        0,
        &mut Vec::new(),
        &mut vec![false; n],
        &adjacent,
        cap,
        &mut out,
    );
    out
}

impl<const W: usize> PathGraph<W> {
    /// The graph of `game`'s positions, if there are at most `64 * W`.
    pub(crate) fn build(game: &Game) -> Option<PathGraph<W>> {
        let super::Reachable {
            boards,
            index,
            edges,
        } = super::Reachable::of(game, 64 * W)?;
        // The other positions one play away, with the number of plays leading to each.
        let adj: Vec<Vec<(u32, u32)>> = edges
            .iter()
            .enumerate()
            .map(|(at, plays)| {
                let mut out: Vec<(u32, u32)> = Vec::new();
                for edge in plays.iter().flatten() {
                    if edge.to as usize == at {
                        continue;
                    }
                    match out.iter_mut().find(|e| e.0 == edge.to) {
                        Some(e) => e.1 += 1,
                        None => out.push((edge.to, 1)),
                    }
                }
                out
            })
            .collect();
        let succ = adj
            .iter()
            .map(|out| out.iter().fold([0; W], |s, &(to, _)| with(s, to as usize)))
            .collect();
        // Symmetries: the board's automorphisms that fix the start, with and without the
        // exchange of colours, when the start is fixed by it too.
        let start = game.board().colors();
        let mut perms = Vec::new();
        for points in automorphisms(game, 16) {
            for swap in [false, true] {
                let image = |colors: &[Option<Color>]| {
                    let mut c = vec![None; colors.len()];
                    for (i, &x) in colors.iter().enumerate() {
                        c[points[i]] = if swap { x.map(Color::opponent) } else { x };
                    }
                    c
                };
                if image(start) != start {
                    continue;
                }
                let perm: Option<Vec<u32>> = boards
                    .iter()
                    .map(|b| index.get(&image(b.colors())).copied())
                    .collect();
                perms.extend(perm);
            }
        }
        let n = boards.len();
        let images = perms
            .iter()
            .map(|perm| {
                (0..8 * W)
                    .map(|byte| {
                        let mut table = [[0; W]; 256];
                        for (value, image) in table.iter_mut().enumerate() {
                            for bit in 0..8 {
                                let node = byte * 8 + bit;
                                if value >> bit & 1 == 1 && node < n {
                                    *image = with(*image, perm[node] as usize);
                                }
                            }
                        }
                        table
                    })
                    .collect()
            })
            .collect();
        let rep: Vec<u32> = (0..n)
            .map(|v| perms.iter().map(|p| p[v]).min().unwrap_or(v as u32))
            .collect();
        let to_rep = (0..n)
            .map(|v| {
                (0..perms.len())
                    .filter(|&k| perms[k][v] == rep[v])
                    .collect()
            })
            .collect();
        Some(PathGraph {
            adj,
            succ,
            images,
            perms,
            rep,
            to_rep,
        })
    }

    /// The number of positions.
    pub(crate) fn nodes(&self) -> usize {
        self.adj.len()
    }

    /// The number of symmetries used.
    pub(crate) fn symmetries(&self) -> usize {
        self.perms.len()
    }

    /// The plays from `v`: the nodes they lead to and how many plays lead to each.
    pub(crate) fn plays(&self, v: u32) -> &[(u32, u32)] {
        &self.adj[v as usize]
    }

    /// The nodes reachable from `v` without entering `visited`, `v` included.
    pub(crate) fn reach(&self, v: u32, visited: &Set<W>) -> Set<W> {
        let mut r = with([0; W], v as usize);
        let mut frontier = r;
        loop {
            let mut next = [0; W];
            for (w, &word) in frontier.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let node = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    for (n, s) in next.iter_mut().zip(&self.succ[node]) {
                        *n |= s;
                    }
                }
            }
            let mut any = 0;
            for k in 0..W {
                next[k] &= !visited[k] & !r[k];
                r[k] |= next[k];
                any |= next[k];
            }
            if any == 0 {
                return r;
            }
            frontier = next;
        }
    }

    /// The cache key of `(v, r)`: the smallest image under the symmetries.
    pub(crate) fn key(&self, v: u32, r: &Set<W>) -> Key<W> {
        let mut best = [u64::MAX; W];
        for &k in &self.to_rep[v as usize] {
            let tables = &self.images[k];
            let mut image = [0; W];
            for (byte, table) in tables.iter().enumerate() {
                let value = (r[byte / 8] >> (8 * (byte % 8))) as usize & 255;
                for (i, t) in image.iter_mut().zip(&table[value]) {
                    *i |= t;
                }
            }
            if image.iter().rev().lt(best.iter().rev()) {
                best = image;
            }
        }
        Key {
            node: self.rep[v as usize],
            set: best,
        }
    }

    /// The number of simple paths from `v` that avoid `visited` (`v` itself in it).
    pub(crate) fn count(
        &self,
        v: u32,
        visited: &Set<W>,
        cache: &Cache<W>,
        stats: &mut Stats,
    ) -> u128 {
        stats.calls += 1;
        let succ = &self.succ[v as usize];
        if (0..W).all(|k| succ[k] & !visited[k] == 0) {
            return 1;
        }
        let r = self.reach(v, visited);
        let key = (ones(&r) >= MIN_CACHED).then(|| self.key(v, &r));
        if let Some(key) = &key {
            if let Some(n) = cache.get(key) {
                stats.hits += 1;
                return u128::from(n);
            }
        }
        let mut inside = [0; W];
        for k in 0..W {
            inside[k] = visited[k] | !r[k];
        }
        let mut total = 1;
        for &(w, mult) in &self.adj[v as usize] {
            if !has(&inside, w as usize) {
                total += u128::from(mult) * self.count(w, &with(inside, w as usize), cache, stats);
            }
        }
        if let Some(key) = &key {
            cache.put(key, total, stats);
        }
        total
    }
}

/// Below this many reachable nodes a count is recomputed rather than looked up: cheaper than
/// a cache miss.
const MIN_CACHED: u32 = 6;

/// A cache key: the representative node and the reachable set, both under the symmetry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Key<const W: usize> {
    node: u32,
    set: Set<W>,
}

/// Counters of the work done, for `--time`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Calls of the counting function.
    pub calls: u64,
    /// Counts found in the cache.
    pub hits: u64,
    /// Counts stored in empty slots.
    pub stored: u64,
    /// Counts stored over another.
    pub replaced: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.calls += o.calls;
        self.hits += o.hits;
        self.stored += o.stored;
        self.replaced += o.replaced;
    }
}

/// Words per bucket: one cache line.
const BUCKET: usize = 8;

/// A bounded cache shared by threads: buckets of one cache line, each a sequence word (odd while
/// a writer is inside) and entries of `W` key words and a word holding the node and the count.
/// A full bucket gives up its smallest count. Readers retry nothing: a bucket being written is a
/// miss. Every read is checked whole, so a count is never returned for a key it is not.
pub(crate) struct Cache<const W: usize> {
    words: Vec<AtomicU64>,
    buckets: usize,
}

impl<const W: usize> Cache<W> {
    const ENTRY: usize = W + 1;
    const PER_BUCKET: usize = (BUCKET - 1) / (W + 1);

    /// A cache of about `bytes` bytes (at least one bucket).
    pub(crate) fn new(bytes: usize) -> Cache<W> {
        let buckets = (bytes / (8 * BUCKET)).max(1);
        Cache {
            words: std::iter::repeat_with(|| AtomicU64::new(0))
                .take(buckets * BUCKET)
                .collect(),
            buckets,
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    fn bucket(&self, key: &Key<W>) -> &[AtomicU64] {
        let mut h = u64::from(key.node).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for &w in &key.set {
            h = (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        let h = h ^ (h >> 29);
        let i = ((u128::from(h) * self.buckets as u128) >> 64) as usize;
        &self.words[i * BUCKET..(i + 1) * BUCKET]
    }

    fn get(&self, key: &Key<W>) -> Option<u64> {
        let b = self.bucket(key);
        let seq = b[0].load(Ordering::Acquire);
        if seq & 1 == 1 {
            return None;
        }
        let mut found = None;
        for e in 0..Self::PER_BUCKET {
            let at = 1 + e * Self::ENTRY;
            let tail = b[at + W].load(Ordering::Relaxed);
            if tail >> VALUE_BITS == u64::from(key.node)
                && tail != 0
                && (0..W).all(|k| b[at + k].load(Ordering::Relaxed) == key.set[k])
            {
                found = Some(tail & ((1 << VALUE_BITS) - 1));
                break;
            }
        }
        fence(Ordering::Acquire);
        (found.is_some() && b[0].load(Ordering::Relaxed) == seq)
            .then_some(found)
            .flatten()
    }

    fn put(&self, key: &Key<W>, value: u128, stats: &mut Stats) {
        if value >= 1 << VALUE_BITS {
            return;
        }
        let b = self.bucket(key);
        let seq = b[0].load(Ordering::Relaxed);
        if seq & 1 == 1
            || b[0]
                .compare_exchange(seq, seq + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        fence(Ordering::Release);
        let mut slot = 0;
        let mut smallest = u64::MAX;
        for e in 0..Self::PER_BUCKET {
            let at = 1 + e * Self::ENTRY;
            let count = b[at + W].load(Ordering::Relaxed) & ((1 << VALUE_BITS) - 1);
            if count < smallest {
                smallest = count;
                slot = e;
            }
        }
        if smallest == 0 {
            stats.stored += 1;
        } else {
            stats.replaced += 1;
        }
        let at = 1 + slot * Self::ENTRY;
        for k in 0..W {
            b[at + k].store(key.set[k], Ordering::Relaxed);
        }
        b[at + W].store(
            u64::from(key.node) << VALUE_BITS | value as u64,
            Ordering::Relaxed,
        );
        b[0].store(seq + 2, Ordering::Release);
    }
}

/// One independent sub-problem: the paths from `node` avoiding `visited`, `weight` times.
#[derive(Clone, Debug)]
pub(crate) struct Task<const W: usize> {
    pub(crate) key: Key<W>,
    pub(crate) node: u32,
    pub(crate) visited: Set<W>,
    pub(crate) weight: u128,
}

/// The paths from the start, split into sub-problems: the number of prefixes shorter than the
/// split (each a game) and the sub-problems at the split, in the order of their keys.
pub(crate) struct Split<const W: usize> {
    pub(crate) prefixes: u128,
    pub(crate) depth: u32,
    pub(crate) tasks: Vec<Task<W>>,
}

impl<const W: usize> PathGraph<W> {
    /// Splits at the first depth with at least `target` sub-problems (or where the paths end).
    pub(crate) fn split(&self, target: usize) -> Split<W> {
        let start = with([0; W], 0);
        let mut tasks = vec![Task {
            key: self.key(0, &self.reach(0, &start)),
            node: 0,
            visited: start,
            weight: 1,
        }];
        let mut prefixes = 0;
        let mut depth = 0;
        while tasks.len() < target && !tasks.is_empty() && depth < 64 {
            let mut next: HashMap<Key<W>, Task<W>> = HashMap::new();
            for task in &tasks {
                prefixes += task.weight;
                for &(w, mult) in self.plays(task.node) {
                    if has(&task.visited, w as usize) {
                        continue;
                    }
                    let visited = with(task.visited, w as usize);
                    let key = self.key(w, &self.reach(w, &visited));
                    let weight = task.weight * u128::from(mult);
                    next.entry(key)
                        .and_modify(|t| t.weight += weight)
                        .or_insert(Task {
                            key,
                            node: w,
                            visited,
                            weight,
                        });
                }
            }
            tasks = next.into_values().collect();
            tasks.sort_by_key(|t| t.key);
            depth += 1;
        }
        Split {
            prefixes,
            depth,
            tasks,
        }
    }
}

/// How far a count has got: sub-problems done of the total, and the time so far.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Sub-problems counted.
    pub done: usize,
    /// Sub-problems in this count (this part).
    pub total: usize,
    /// Time since counting began.
    pub elapsed: Duration,
}

/// What a count by paths reports besides the number.
#[derive(Clone, Debug)]
pub struct PathReport {
    /// The count (of the part, if one was asked for).
    pub count: u128,
    /// Graph nodes (positions).
    pub nodes: usize,
    /// Symmetries used in the cache keys.
    pub symmetries: usize,
    /// The depth of the split.
    pub split_depth: u32,
    /// Its number of sub-problems (all parts together).
    pub sub_problems: usize,
    /// Bytes of cache.
    pub cache_bytes: usize,
    /// Time to build the graph.
    pub build: Duration,
    /// Time to split.
    pub splitting: Duration,
    /// Time to count.
    pub counting: Duration,
    /// Work counters, all threads together.
    pub stats: Stats,
}

/// Counts complete games under positional superko, or part `k` of `n` of them (1-based).
pub(crate) fn count_games(
    game: &Game,
    threads: usize,
    part: (u32, u32),
    cache_bytes: usize,
    progress: &(dyn Fn(Progress) + Sync),
) -> Option<PathReport> {
    debug_assert_eq!(game.rules().ko, KoRule::PositionalSuperko);
    let started = Instant::now();
    if let Some(graph) = PathGraph::<1>::build(game) {
        return Some(graph.count_parts(threads, part, cache_bytes, progress, started));
    }
    if let Some(graph) = PathGraph::<2>::build(game) {
        return Some(graph.count_parts(threads, part, cache_bytes, progress, started));
    }
    PathGraph::<4>::build(game)
        .map(|graph| graph.count_parts(threads, part, cache_bytes, progress, started))
}

impl<const W: usize> PathGraph<W> {
    fn count_parts(
        &self,
        threads: usize,
        (k, n): (u32, u32),
        cache_bytes: usize,
        progress: &(dyn Fn(Progress) + Sync),
        started: Instant,
    ) -> PathReport {
        let build = started.elapsed();
        let split_started = Instant::now();
        let split = self.split(256.max(32 * n as usize));
        let splitting = split_started.elapsed();
        let mut mine: Vec<&Task<W>> = split
            .tasks
            .iter()
            .enumerate()
            .filter(|(i, _)| i % n as usize == (k - 1) as usize)
            .map(|(_, t)| t)
            .collect();
        // The largest first, so that the threads end together.
        mine.sort_by_key(|t| std::cmp::Reverse(ones(&t.key.set)));
        let cache = Cache::<W>::new(cache_bytes);
        let count_started = Instant::now();
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let total = Mutex::new((if k == 1 { split.prefixes } else { 0 }, Stats::default()));
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    let mut sum = 0u128;
                    let mut stats = Stats::default();
                    while let Some(task) = mine.get(next.fetch_add(1, Ordering::Relaxed)) {
                        sum +=
                            task.weight * self.count(task.node, &task.visited, &cache, &mut stats);
                        progress(Progress {
                            done: done.fetch_add(1, Ordering::Relaxed) + 1,
                            total: mine.len(),
                            elapsed: count_started.elapsed(),
                        });
                    }
                    let mut t = total.lock().expect("no panics while counting");
                    t.0 += sum;
                    t.1 += stats;
                });
            }
        });
        let (count, stats) = total.into_inner().expect("no panics while counting");
        PathReport {
            count,
            nodes: self.nodes(),
            symmetries: self.symmetries(),
            split_depth: split.depth,
            sub_problems: split.tasks.len(),
            cache_bytes: cache.bytes(),
            build,
            splitting,
            counting: count_started.elapsed(),
            stats,
        }
    }
}
