//! Perft for Go: the number of distinct turn sequences from a position, a check of the move
//! generator that anyone can compare, and a benchmark.
//!
//! Three counters give the same numbers (the tests hold them to each other and to the literal
//! rules):
//! - complete games under positional superko (Tromp-Taylor) are simple paths in the graph of
//!   positions, counted with a bounded cache keyed by symmetry classes of (node, nodes still
//!   reachable): see [`paths`] for the lemma and why the count is exact. This counts every
//!   game on 2×2 (386,356,909,593) in under a minute, and the count can be split into parts.
//! - for the other rules and for counts to a depth, on boards with few reachable positions (at
//!   most [`MAX_GRAPH_NODES`]), the plays between positions are computed once with the fast
//!   board, and sequences are counted on that graph with a transposition table. Its key is exact: besides the position, the player to move,
//!   the pass count, the ko ban and the turns left, it holds the set `K` of nodes the rest of
//!   the game could touch (those reachable without repeating a position, and their
//!   neighbours) and which of them were already visited. Two histories that agree on `K` have
//!   the same futures, so the count of one serves for the other.
//! - on larger boards, a plain depth-first search over [`Game`] clones.
//!
//! Beyond exact reach, [`estimate`] samples the number of complete games under positional
//! superko without bias, with a confidence interval and a warning when it cannot be trusted.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::history::KeyHasher;
use crate::{Color, Game, KoRule, Point};

pub mod estimate;
pub mod paths;

pub use paths::{PathReport, Progress, Stats};

/// The default size of the cache of the path counter.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// The largest number of graph nodes (positions, or situations under situational superko) for
/// the transposition-table counter.
pub const MAX_GRAPH_NODES: usize = 256;

/// What to count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerftMode {
    /// Sequences of exactly this many turns (a game that ends sooner is not continued).
    Depth(u32),
    /// Every complete game: ended by two passes or by the long cycle rule.
    Games,
}

/// Why a count cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PerftError {
    /// Under simple ko a game can cycle forever, so complete games cannot be counted.
    InfiniteGames,
    /// Complete games can only be counted on boards small enough for the position graph.
    TooManyPositions,
    /// Only counts of complete games under positional superko can be split into parts.
    NoParts,
    /// A part `K/N` needs `1 <= K <= N`.
    BadPart,
    /// Only complete games under positional superko from the start can be estimated.
    NoEstimate,
}

impl std::fmt::Display for PerftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PerftError::InfiniteGames => {
                f.write_str("games under simple ko can go on forever: count with a depth instead")
            }
            PerftError::TooManyPositions => write!(
                f,
                "complete games can be counted only when at most {MAX_GRAPH_NODES} positions are reachable: count with a depth instead"
            ),
            PerftError::NoParts => f.write_str(
                "only counts of complete games under positional superko (tromp-taylor, nstt) can be split into parts",
            ),
            PerftError::BadPart => f.write_str("a part K/N needs 1 <= K <= N"),
            PerftError::NoEstimate => f.write_str(
                "only complete games under positional superko (tromp-taylor, nstt) can be estimated",
            ),
        }
    }
}

impl std::error::Error for PerftError {}

/// Turns left to count, `None` for complete games.
type Left = Option<u32>;

/// Counts turn sequences from `game` with `threads` threads (at least one).
pub fn perft(game: &Game, mode: PerftMode, threads: usize) -> Result<u128, PerftError> {
    perft_with(
        game,
        mode,
        &PerftOptions {
            threads,
            ..PerftOptions::default()
        },
    )
    .map(|r| r.count)
}

/// How to count.
pub struct PerftOptions<'a> {
    /// Threads (at least one is used).
    pub threads: usize,
    /// Count only part `K` of `N` (1-based): the parts are disjoint and their counts sum to the
    /// whole. Only for complete games under positional superko.
    pub part: Option<(u32, u32)>,
    /// Bytes of cache for the path counter.
    pub cache_bytes: usize,
    /// Called after each sub-problem of the path counter.
    pub progress: &'a (dyn Fn(Progress) + Sync),
}

impl Default for PerftOptions<'_> {
    fn default() -> Self {
        PerftOptions {
            threads: 1,
            part: None,
            cache_bytes: DEFAULT_CACHE_BYTES,
            progress: &|_| {},
        }
    }
}

/// A count, and how it was made.
#[derive(Clone, Debug)]
pub struct PerftReport {
    /// The number of sequences (of the part, if one was asked for).
    pub count: u128,
    /// The path counter's account of its work, when it made the count.
    pub paths: Option<PathReport>,
}

/// Counts turn sequences from `game` with the given options.
pub fn perft_with(
    game: &Game,
    mode: PerftMode,
    options: &PerftOptions,
) -> Result<PerftReport, PerftError> {
    if let Some((k, n)) = options.part {
        if k == 0 || k > n {
            return Err(PerftError::BadPart);
        }
    }
    let threads = options.threads.max(1);
    if mode == PerftMode::Games
        && game.rules().ko == KoRule::PositionalSuperko
        && game.moves().is_empty()
    {
        if let Some(report) = paths::count_games(
            game,
            threads,
            options.part.unwrap_or((1, 1)),
            options.cache_bytes,
            options.progress,
        ) {
            return Ok(PerftReport {
                count: report.count,
                paths: Some(report),
            });
        }
    }
    if options.part.is_some() {
        return Err(PerftError::NoParts);
    }
    perft_classic(game, mode, threads).map(|count| PerftReport { count, paths: None })
}

/// The transposition-table and search counters.
fn perft_classic(game: &Game, mode: PerftMode, threads: usize) -> Result<u128, PerftError> {
    if mode == PerftMode::Games && !game.rules().ko.games_are_finite() {
        return Err(PerftError::InfiniteGames);
    }
    let left = match mode {
        PerftMode::Depth(d) => Some(d),
        PerftMode::Games => None,
    };
    if game.moves().is_empty() {
        if let Some(graph) = PositionGraph::<1>::build(game) {
            return Ok(graph.count(game, left, threads));
        }
        if let Some(graph) = PositionGraph::<2>::build(game) {
            return Ok(graph.count(game, left, threads));
        }
        if let Some(graph) = PositionGraph::<4>::build(game) {
            return Ok(graph.count(game, left, threads));
        }
    }
    if left.is_none() {
        return Err(PerftError::TooManyPositions);
    }
    Ok(count_by_search(game, left, threads))
}

/// Depth-first search over game clones, split two turns deep across the threads.
fn count_by_search(game: &Game, left: Left, threads: usize) -> u128 {
    let mut tasks = Vec::new();
    let mut leaves = 0u128;
    expand(game, left, 2, &mut tasks, &mut leaves);
    let next = AtomicUsize::new(0);
    let total = Mutex::new(leaves);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut sum = 0u128;
                while let Some((task, left)) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
                    sum += search(task, *left);
                }
                *total.lock().expect("no panics while counting") += sum;
            });
        }
    });
    total.into_inner().expect("no panics while counting")
}

fn expand(game: &Game, left: Left, levels: u32, tasks: &mut Vec<(Game, Left)>, leaves: &mut u128) {
    if let Some(n) = finished(game, left) {
        *leaves += n;
        return;
    }
    if levels == 0 {
        tasks.push((game.clone(), left));
        return;
    }
    for mv in game.legal_moves() {
        let mut child = game.clone();
        child.play(mv).expect("legal");
        expand(&child, left.map(|d| d - 1), levels - 1, tasks, leaves);
    }
}

/// The count of a game that is over or out of turns.
fn finished(game: &Game, left: Left) -> Option<u128> {
    match (left, game.is_over()) {
        (Some(0), _) | (None, true) => Some(1),
        (Some(_), true) => Some(0),
        _ => None,
    }
}

fn search(game: &Game, left: Left) -> u128 {
    if let Some(n) = finished(game, left) {
        return n;
    }
    game.legal_moves()
        .into_iter()
        .map(|mv| {
            let mut child = game.clone();
            child.play(mv).expect("legal");
            search(&child, left.map(|d| d - 1))
        })
        .sum()
}

/// A set of graph nodes.
fn has<const W: usize>(bits: &[u64; W], i: usize) -> bool {
    bits[i / 64] >> (i % 64) & 1 == 1
}

fn set<const W: usize>(bits: &mut [u64; W], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}

/// A play from one position to another, as the fast board computes it.
#[derive(Clone, Copy, Debug)]
struct Edge {
    point: Point,
    to: u32,
    /// Captures exactly one stone (the only kind of play a ko ban forbids).
    captures_one: bool,
    /// The ko ban this play creates (Olympiad 3.5): the point of the captured stone.
    ko: Option<Point>,
}

/// Every position reachable from the start by plays of either colour, and the plays between.
struct PositionGraph<const W: usize> {
    ko_rule: KoRule,
    /// `edges[position][color]`.
    edges: Vec<[Vec<Edge>; 2]>,
    /// For each node, the nodes one play away (of either colour, or under situational
    /// superko of the node's player to move).
    successors: Vec<[u64; W]>,
}

/// The state of a game on the graph, the visited set aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct State {
    position: u32,
    to_move: Color,
    passes: u8,
    ko: Option<(Point, Color)>,
    left: Left,
}

/// A transposition-table key: the state packed in a word, the scope `C`, and the visited
/// nodes of `C` (kept only under situational superko: otherwise the current node alone).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key<const W: usize> {
    state: u64,
    scope: [u64; W],
    visited: [u64; W],
}

impl State {
    /// The state in one word: 8 bits of position, 1 of player, 1 of passes, 11 of ko ban and
    /// 33 of turns left.
    fn packed(&self) -> u64 {
        let ko = self
            .ko
            .map_or(0, |(p, c)| 1 + 2 * p.index() as u64 + c.index() as u64);
        let left = self.left.map_or(1 << 32, u64::from);
        u64::from(self.position)
            | (self.to_move.index() as u64) << 8
            | u64::from(self.passes) << 9
            | ko << 10
            | left << 21
    }
}

const SHARDS: usize = 64;

type Table<const W: usize> = HashMap<Key<W>, u128, BuildHasherDefault<KeyHasher>>;

/// The transposition table, in shards that the threads lock one at a time.
struct Memo<const W: usize> {
    shards: Vec<Mutex<Table<W>>>,
}

impl<const W: usize> Memo<W> {
    fn shard(&self, key: &Key<W>) -> &Mutex<Table<W>> {
        let mut h = KeyHasher::default();
        key.hash(&mut h);
        &self.shards[(h.finish() >> 58) as usize % SHARDS]
    }

    fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().map_or(0, |t| t.len()))
            .sum()
    }
}

/// Every position reachable from `game`'s by plays of either colour (suicide as its rules
/// say; no ko or repetition rule), breadth first from it, with each position's plays by
/// colour; `None` when there are more than `limit`.
struct Reachable {
    boards: Vec<crate::Board>,
    index: HashMap<Vec<Option<Color>>, u32>,
    /// `edges[position][color]`.
    edges: Vec<[Vec<Edge>; 2]>,
}

impl Reachable {
    fn of(game: &Game, limit: usize) -> Option<Reachable> {
        let rules = *game.rules();
        let mut boards = vec![game.board().clone()];
        let mut index: HashMap<Vec<Option<Color>>, u32> = HashMap::new();
        index.insert(game.board().colors().to_vec(), 0);
        let mut edges: Vec<[Vec<Edge>; 2]> = Vec::new();
        let mut at = 0;
        while at < boards.len() {
            let board = boards[at].clone();
            let mut out = [Vec::new(), Vec::new()];
            for color in Color::ALL {
                for p in board.geometry().points() {
                    if board.get(p).is_some() {
                        continue;
                    }
                    let effect = board.effect(p, color);
                    if effect.suicided > 0 && !rules.suicide_allowed {
                        continue;
                    }
                    let mut next = board.clone();
                    next.play_unchecked(p, color);
                    let count = index.len() as u32;
                    let to = *index.entry(next.colors().to_vec()).or_insert(count);
                    if to == count {
                        if boards.len() >= limit {
                            return None;
                        }
                        boards.push(next);
                    }
                    out[color.index()].push(Edge {
                        point: p,
                        to,
                        captures_one: effect.captured == 1,
                        ko: effect.makes_ko.then_some(effect.single_capture).flatten(),
                    });
                }
            }
            edges.push(out);
            at += 1;
        }
        Some(Reachable {
            boards,
            index,
            edges,
        })
    }
}

impl<const W: usize> PositionGraph<W> {
    fn build(game: &Game) -> Option<PositionGraph<W>> {
        let rules = *game.rules();
        let situational = rules.ko == KoRule::SituationalSuperko;
        let nodes = (64 * W).min(MAX_GRAPH_NODES);
        let limit = if situational { nodes / 2 } else { nodes };
        let edges = Reachable::of(game, limit)?.edges;
        let mut graph = PositionGraph {
            ko_rule: rules.ko,
            edges,
            successors: Vec::new(),
        };
        graph.successors = graph.successor_sets();
        Some(graph)
    }

    fn successor_sets(&self) -> Vec<[u64; W]> {
        let situational = self.ko_rule == KoRule::SituationalSuperko;
        let nodes = self.edges.len() * if situational { 2 } else { 1 };
        (0..nodes)
            .map(|node| {
                let mut succ: [u64; W] = [0; W];
                let (position, colors): (usize, &[Color]) = if situational {
                    let c = if node % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    (
                        node / 2,
                        if c == Color::Black {
                            &[Color::Black]
                        } else {
                            &[Color::White]
                        },
                    )
                } else {
                    (node, &Color::ALL)
                };
                for &color in colors {
                    for edge in &self.edges[position][color.index()] {
                        set(&mut succ, self.node(edge.to, color.opponent()));
                    }
                }
                succ
            })
            .collect()
    }

    fn node(&self, position: u32, to_move: Color) -> usize {
        if self.ko_rule == KoRule::SituationalSuperko {
            position as usize * 2 + to_move.index()
        } else {
            position as usize
        }
    }

    fn count(&self, game: &Game, left: Left, threads: usize) -> u128 {
        let start = State {
            position: 0,
            to_move: game.to_move(),
            passes: 0,
            ko: None,
            left,
        };
        let mut visited: [u64; W] = [0; W];
        set(&mut visited, self.node(0, start.to_move));
        let memo = Memo {
            shards: (0..SHARDS).map(|_| Mutex::new(Table::default())).collect(),
        };
        // Split two turns deep; the threads share the table.
        let mut tasks = Vec::new();
        let mut leaves = 0;
        self.split(start, visited, 2, &mut tasks, &mut leaves);
        let next = AtomicUsize::new(0);
        let total = Mutex::new(leaves);
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    let mut sum = 0;
                    while let Some((state, visited)) =
                        tasks.get(next.fetch_add(1, Ordering::Relaxed))
                    {
                        sum += self.count_from(*state, visited, &memo);
                    }
                    *total.lock().expect("no panics while counting") += sum;
                });
            }
        });
        if std::env::var_os("GOREF_PERFT_STATS").is_some() {
            eprintln!(
                "perft: {} graph nodes, {} table entries",
                self.edges.len(),
                memo.len()
            );
        }
        total.into_inner().expect("no panics while counting")
    }

    fn split(
        &self,
        state: State,
        visited: [u64; W],
        levels: u32,
        tasks: &mut Vec<(State, [u64; W])>,
        leaves: &mut u128,
    ) {
        if state.left == Some(0) {
            *leaves += 1;
        } else if levels == 0 {
            tasks.push((state, visited));
        } else {
            self.for_each_turn(state, &visited, |turn| match turn {
                Turn::Ends(left) => *leaves += u128::from(left.is_none() || left == Some(0)),
                Turn::Continues(next, v) => self.split(next, v, levels - 1, tasks, leaves),
            });
        }
    }

    /// Calls `f` with the outcome of every legal turn from `state`.
    fn for_each_turn(&self, state: State, visited: &[u64; W], mut f: impl FnMut(Turn<W>)) {
        let left = state.left.map(|d| d - 1);
        let opponent = state.to_move.opponent();
        // A pass: always legal; the second in a row ends the game (TT rule 8).
        if state.passes == 1 {
            f(Turn::Ends(left));
        } else {
            let mut v = *visited;
            if self.ko_rule == KoRule::SituationalSuperko {
                set(&mut v, self.node(state.position, opponent));
            }
            let ko = if self.ko_rule == KoRule::LongCycle {
                state.ko
            } else {
                None
            };
            let next = State {
                to_move: opponent,
                passes: 1,
                ko,
                left,
                ..state
            };
            f(Turn::Continues(next, v));
        }
        for edge in &self.edges[state.position as usize][state.to_move.index()] {
            if edge.captures_one && state.ko == Some((edge.point, state.to_move)) {
                continue;
            }
            let node = self.node(edge.to, opponent);
            let repeat = has(visited, node);
            match self.ko_rule {
                KoRule::PositionalSuperko | KoRule::SituationalSuperko if repeat => continue,
                KoRule::LongCycle if repeat => {
                    f(Turn::Ends(left));
                    continue;
                }
                _ => {}
            }
            let mut v = *visited;
            if self.ko_rule != KoRule::Simple {
                set(&mut v, node);
            }
            let next = State {
                position: edge.to,
                to_move: opponent,
                passes: 0,
                ko: edge.ko.map(|p| (p, opponent)),
                left,
            };
            f(Turn::Continues(next, v));
        }
    }

    fn count_from(&self, state: State, visited: &[u64; W], memo: &Memo<W>) -> u128 {
        if state.left == Some(0) {
            return 1;
        }
        let key = self.key(state, visited);
        if let Some(&n) = memo.shard(&key).lock().expect("no panics").get(&key) {
            return n;
        }
        let mut total = 0;
        self.for_each_turn(state, visited, |turn| {
            total += match turn {
                Turn::Ends(left) => u128::from(left.is_none() || left == Some(0)),
                Turn::Continues(next, v) => self.count_from(next, &v, memo),
            }
        });
        memo.shard(&key)
            .lock()
            .expect("no panics")
            .insert(key, total);
        total
    }

    /// The exact key. `scope` is the set `C` of nodes the rest of the game can reach: from the
    /// current node, along plays into unvisited nodes and (under situational superko) passes.
    /// Every neighbour of `C` outside it is visited, so the futures of two histories depend
    /// only on `C` and on which nodes of `C` they visited.
    fn key(&self, state: State, visited: &[u64; W]) -> Key<W> {
        let mut scope: [u64; W] = [0; W];
        if self.ko_rule != KoRule::Simple {
            let situational = self.ko_rule == KoRule::SituationalSuperko;
            let start = self.node(state.position, state.to_move);
            set(&mut scope, start);
            let mut frontier = scope;
            while frontier.iter().any(|&w| w != 0) {
                let mut next: [u64; W] = [0; W];
                for (w, &word) in frontier.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        let node = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        let succ = &self.successors[node];
                        for k in 0..W {
                            next[k] |= succ[k] & !visited[k];
                        }
                        if situational {
                            set(&mut next, node ^ 1);
                        }
                    }
                }
                for k in 0..W {
                    next[k] &= !scope[k];
                    scope[k] |= next[k];
                }
                frontier = next;
            }
        }
        let mut seen: [u64; W] = [0; W];
        if self.ko_rule == KoRule::SituationalSuperko {
            for k in 0..W {
                seen[k] = visited[k] & scope[k];
            }
        }
        Key {
            state: state.packed(),
            scope,
            visited: seen,
        }
    }
}

enum Turn<const W: usize> {
    /// The turn ends the game; `left` turns would remain.
    Ends(Left),
    /// The game goes on in this state with this visited set.
    Continues(State, [u64; W]),
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Geometry, Komi, Ruleset};

    fn positional(suicide_allowed: bool) -> Ruleset {
        Ruleset {
            ko: KoRule::PositionalSuperko,
            suicide_allowed,
            komi: Komi::ZERO,
        }
    }

    /// Boards of up to four points: the rectangles, a triangle, a star and a triangle with a
    /// tail (whose symmetries differ).
    fn boards() -> Vec<Arc<Geometry>> {
        let mut boards: Vec<Arc<Geometry>> = [(1, 1), (1, 2), (1, 3), (2, 1)]
            .into_iter()
            .map(|(w, h)| Arc::new(Geometry::rect(w, h).unwrap()))
            .collect();
        for (n, edges) in [
            (3, &[(0, 1), (1, 2), (2, 0)][..]),
            (4, &[(0, 1), (0, 2), (0, 3)][..]),
            (4, &[(0, 1), (1, 2), (2, 0), (2, 3)][..]),
        ] {
            boards.push(Arc::new(Geometry::graph(n, edges).unwrap()));
        }
        boards
    }

    #[test]
    fn paths_count_what_the_transposition_table_counts() {
        for geometry in boards().into_iter().take(6) {
            for suicide in [true, false] {
                let game = Game::new(geometry.clone(), positional(suicide));
                let by_paths = perft(&game, PerftMode::Games, 2).unwrap();
                let classic = perft_classic(&game, PerftMode::Games, 2).unwrap();
                assert_eq!(
                    by_paths,
                    classic,
                    "{} points, suicide {suicide}",
                    geometry.len()
                );
            }
        }
    }

    #[test]
    fn parts_sum_to_the_whole() {
        for geometry in boards().into_iter().take(6) {
            let game = Game::new(geometry.clone(), positional(true));
            let whole = perft(&game, PerftMode::Games, 1).unwrap();
            for n in [1, 2, 5] {
                let mut sum = 0;
                let mut nonzero = 0;
                for k in 1..=n {
                    let options = PerftOptions {
                        threads: 2,
                        part: Some((k, n)),
                        cache_bytes: 1 << 20,
                        ..PerftOptions::default()
                    };
                    let part = perft_with(&game, PerftMode::Games, &options).unwrap().count;
                    sum += part;
                    nonzero += usize::from(part > 0);
                }
                assert_eq!(sum, whole, "{} points in {n} parts", geometry.len());
                if whole > 1_000_000 {
                    assert_eq!(nonzero, n as usize, "every part has work");
                }
            }
        }
    }

    #[test]
    fn a_tiny_cache_replaces_entries_and_still_counts_exactly() {
        let game = Game::new(boards()[5].clone(), positional(true));
        let options = PerftOptions {
            threads: 2,
            cache_bytes: 64 << 10,
            ..PerftOptions::default()
        };
        let report = perft_with(&game, PerftMode::Games, &options).unwrap();
        let large = perft(&game, PerftMode::Games, 2).unwrap();
        assert_eq!(report.count, large);
        assert!(report.paths.unwrap().stats.replaced > 0);
    }

    /// The estimator's 95% intervals hold the exact counts about 95% of the time: of 20
    /// estimates of 2,000 samples each, at least 17 (a binomial count below 17 has probability
    /// under 2% if the coverage is 95%).
    #[test]
    fn estimates_cover_the_exact_counts() {
        use estimate::{estimate_games, EstimateOptions};
        let game = Game::rect(1, 3, Ruleset::TROMP_TAYLOR).unwrap();
        let e = estimate_games(&game, &EstimateOptions::default()).unwrap();
        assert!(
            e.exact && e.mean == 907.0 && e.low == 907.0 && e.high == 907.0,
            "{e:?}"
        );
        for (w, h, exact_below, exact) in
            [(1, 4, 16, 2_098_407_841.0), (2, 2, 20, 386_356_909_593.0)]
        {
            let game = Game::rect(w, h, Ruleset::TROMP_TAYLOR).unwrap();
            let mut covered = 0;
            for seed in 1..=20 {
                let options = EstimateOptions {
                    samples: 2000,
                    seed,
                    exact_below,
                    threads: 2,
                    cache_bytes: 16 << 20,
                    ..EstimateOptions::default()
                };
                let e = estimate_games(&game, &options).unwrap();
                assert!(!e.exact);
                assert!(e.std_error < 0.1 * e.mean, "{w}x{h}: {e:?}");
                assert!(
                    e.effective_samples >= estimate::MIN_EFFECTIVE_SAMPLES,
                    "{w}x{h}: {e:?}"
                );
                covered += usize::from(e.low <= exact && exact <= e.high);
            }
            assert!(
                covered >= 17,
                "{w}x{h}: {covered} of 20 intervals hold the count"
            );
        }
    }

    #[test]
    fn parts_are_refused_where_they_cannot_be_made() {
        let game = Game::rect(1, 3, Ruleset::OLYMPIAD).unwrap();
        let options = |part| PerftOptions {
            part: Some(part),
            ..PerftOptions::default()
        };
        assert_eq!(
            perft_with(&game, PerftMode::Games, &options((1, 2))).unwrap_err(),
            PerftError::NoParts
        );
        let game = Game::rect(1, 3, Ruleset::TROMP_TAYLOR).unwrap();
        assert_eq!(
            perft_with(&game, PerftMode::Games, &options((3, 2))).unwrap_err(),
            PerftError::BadPart
        );
    }
}
