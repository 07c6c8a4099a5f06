//! "Locally capturable" (reference 001 §3.9.1) as an AND/OR proof: depth-first proof-number
//! search (df-pn, Nagai 2002; as Kishimoto and Müller use it for life and death).
//!
//! The attacker (the opponent of the block) is the OR player: a proof is one attacker move
//! that wins against every defence; the defender (the block's colour, moving first) is the
//! AND player. A node is solved when its proof number or its disproof number is 0, and every
//! solved node comes from a completed proof: leaves are the block's removal (proven), the
//! block being pass-alive (disproven: no strategy of the opponent removes it, 3.9.1), an
//! endless line (disproven: the block stays), or a play that repeats a position under the long
//! cycle rule (the block counts as removed only if that play removed it). Pass-alive blocks
//! are looked for where the attacker is to move, the attacker's territory (see
//! [`Search::territory_leaf`]) where the defender is: a test not made only leaves a node to
//! be searched.
//!
//! # Where the search goes
//!
//! - At the attacker's nodes the child searched is the one with the smallest proof number,
//!   until it looks worse than the runner-up by more than an eighth (the 1 + ε trick).
//! - At the defender's nodes the child searched is the one with the smallest disproof
//!   number, until it is solved or the node's own thresholds are reached. A proof must
//!   refute every defence; turning to another before this one is settled only spreads the
//!   work over all of them. On GNU Go's regression positions this cut the nodes of the
//!   hardest block about fourfold.
//! - Once a defence is refuted, the other open defences are first tried by *simulation*
//!   (Kawano 1996): the attacker answers each with what it played in the corresponding
//!   position of the refuted line. Most defences in a large region change nothing that
//!   matters and are refuted so in a few nodes. A simulation is a search like any other (every
//!   defence is tried, leaves are tested as in the search, what it rests on is recorded), so
//!   what it proves is proven; when the answers do not fit, it gives up and the search goes
//!   on as before. At the attacker's nodes it builds only the child of the model's move.
//!   A defence is simulated at most twice: after the first refuted play, and after the
//!   refuted pass, whose refutation fits the most defences.
//!
//! # Transpositions and history
//!
//! A node is keyed exactly: the colouring packed two bits a point, the player to move, the
//! basic-ko ban, and whether the block's colour just passed; the Zobrist hash only indexes the
//! table. The block's *simple liberties* (see [`Simple`]) are keyed alike, so
//! positions that differ only in which of them are filled share one key, and one play among
//! them is tried per node.
//!
//! Under superko and the long cycle rule a result can depend on the positions of the line
//! that led to the node (the graph-history interaction). Each solved result keeps what of the
//! line above it rests on: a position of the line whose repetition made a play illegal or
//! ended the moving, a state whose recurrence was an endless line, or the territory leaf's
//! condition that every position of the line differs from the leaf's where nothing changes any
//! more. It also keeps a summary of the positions its proof visited (the fewest stones of each
//! colour among them and a 1024-bit Bloom filter). A stored result is reused on another line
//! only when what it rests on holds there and no position of that line can occur in its proof
//! (the line's position has fewer stones of a colour than every position of the proof, or is
//! not in its filter).
//! Unsolved proof and disproof numbers are only estimates and may be shared freely. A solved
//! child's result is kept in its parent's own list of children for as long as the parent is
//! being searched, so a result valid on the current line is never lost to the table's reuse
//! test.

use hashbrown::HashTable;
use std::cell::RefCell;
use std::hash::Hasher;
use std::rc::Rc;

use goref_rules::history::KeyHasher;
use goref_rules::{Board, Color, Effect, KoBan, KoRule, Move, Point, Undo};

use crate::benson::Benson;
use crate::context::{count_node, Answer, Context, MAX_LINE};

const INF: u64 = u64::MAX / 4;

/// Nodes one simulation may visit (see [`Search::simulate_siblings`]).
const SIMULATION_NODES: u64 = 200;

/// A simulation's model is the refutation of a play, or of the pass.
const MODEL_PLAY: u8 = 1;
const MODEL_PASS: u8 = 2;

/// Buckets of the counting filters of the line's positions and states.
const BUCKETS: usize = 1024;

fn bucket(hash: u64) -> usize {
    (hash >> 40) as usize % BUCKETS
}

/// A line of moves, each with its colour.
type Line = Vec<(Color, Move)>;

/// A line shared between the results that contain it: a list whose tails are shared, so a
/// result's line is its move followed by its child's line, without copying.
#[derive(Clone, Default)]
struct Shared(Option<Rc<Link>>);

struct Link {
    mv: (Color, Move),
    rest: Shared,
    len: usize,
}

impl Shared {
    fn cons(mv: (Color, Move), rest: Shared) -> Shared {
        let len = rest.len() + 1;
        Shared(Some(Rc::new(Link { mv, rest, len })))
    }

    fn from_vec(line: Line) -> Shared {
        line.into_iter()
            .rev()
            .fold(Shared::default(), |rest, mv| Shared::cons(mv, rest))
    }

    fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |l| l.len)
    }

    fn to_vec(&self) -> Line {
        let mut out = Vec::with_capacity(self.len());
        let mut at = &self.0;
        while let Some(link) = at {
            out.push(link.mv);
            at = &link.rest.0;
        }
        out
    }
}

/// The exact identity of a node.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    hash: u64,
    packed: Rc<[u64]>,
    to_move: Color,
    ko: Option<KoBan>,
    passed: bool,
}

impl Key {
    fn as_ref(&self) -> KeyRef<'_> {
        KeyRef {
            hash: self.hash,
            packed: &self.packed,
            to_move: self.to_move,
            ko: self.ko,
            passed: self.passed,
        }
    }
}

/// A key whose colouring is borrowed: children are looked up without allocating theirs.
#[derive(Clone, Copy)]
struct KeyRef<'a> {
    hash: u64,
    packed: &'a [u64],
    to_move: Color,
    ko: Option<KoBan>,
    passed: bool,
}

impl KeyRef<'_> {
    /// The table's index: the hash indexes; equality compares the whole key.
    fn index(&self) -> u64 {
        let salt = u64::from(self.to_move == Color::White)
            | u64::from(self.passed) << 1
            | self.ko.map_or(0, |k| (k.point.index() as u64 + 1) << 2);
        self.hash ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn matches(&self, key: &Key) -> bool {
        self.hash == key.hash
            && self.to_move == key.to_move
            && self.ko == key.ko
            && self.passed == key.passed
            && *self.packed == *key.packed
    }

    fn to_key(self) -> Key {
        Key {
            hash: self.hash,
            packed: self.packed.into(),
            to_move: self.to_move,
            ko: self.ko,
            passed: self.passed,
        }
    }
}

/// A position's stone counts, Black's and White's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counts {
    black: u32,
    white: u32,
}

impl Counts {
    fn of(board: &Board) -> Counts {
        Counts {
            black: board.stone_count(Color::Black),
            white: board.stone_count(Color::White),
        }
    }

    /// After `color` plays, taking `captured` stones or, as suicide, losing `suicided`.
    fn after(self, color: Color, captured: u32, suicided: u32) -> Counts {
        let (mut mover, mut other) = match color {
            Color::Black => (self.black, self.white),
            Color::White => (self.white, self.black),
        };
        mover = mover + 1 - suicided;
        other -= captured;
        match color {
            Color::Black => Counts {
                black: mover,
                white: other,
            },
            Color::White => Counts {
                black: other,
                white: mover,
            },
        }
    }
}

/// What a solved result depends on: the positions its proof visited, summarised by the
/// fewest stones of each colour among them and a 1024-bit Bloom filter of their hashes. A
/// position of the line can recur in the proof only if it has at least as many stones of each
/// colour as those fewest and is in the filter.
#[derive(Clone, Copy, Debug)]
struct Summary {
    min: Counts,
    bloom: [u64; 16],
}

impl Summary {
    const EMPTY: Summary = Summary {
        min: Counts {
            black: u32::MAX,
            white: u32::MAX,
        },
        bloom: [0; 16],
    };

    fn add_position(&mut self, hash: u64, counts: Counts) {
        self.min.black = self.min.black.min(counts.black);
        self.min.white = self.min.white.min(counts.white);
        for (w, bit) in bloom_bits(hash) {
            self.bloom[w] |= bit;
        }
    }

    fn merge(&mut self, other: &Summary) {
        self.min.black = self.min.black.min(other.min.black);
        self.min.white = self.min.white.min(other.min.white);
        for w in 0..16 {
            self.bloom[w] |= other.bloom[w];
        }
    }

    fn may_hold(&self, hash: u64, counts: Counts) -> bool {
        counts.black >= self.min.black
            && counts.white >= self.min.white
            && bloom_bits(hash)
                .iter()
                .all(|&(w, bit)| self.bloom[w] & bit != 0)
    }
}

fn bloom_bits(hash: u64) -> [(usize, u64); 2] {
    let a = (hash & 1023) as usize;
    let b = ((hash >> 23) & 1023) as usize;
    [(a / 64, 1 << (a % 64)), (b / 64, 1 << (b % 64))]
}

/// Under situational superko a position is a colouring and the player to move.
fn salted(hash: u64, to_move: Color, ko: KoRule) -> u64 {
    if ko == KoRule::SituationalSuperko && to_move == Color::White {
        hash ^ 0x5bd1_e995_c3a5_c85c
    } else {
        hash
    }
}

/// Something of the line above a node that a solved result rests on.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Dep {
    /// A position of the line (salted hash, colouring): a play repeating it was illegal or
    /// ended the moving.
    Position(u64, Rc<[u64]>),
    /// A state of the line: reaching it again was an endless line.
    State(Key),
    /// The territory leaf's condition on the line above: every position of the line equals
    /// this keyed colouring (given with its hash, which tells unequal conditions apart at
    /// once when results are merged) or differs from it on one of these points of the local
    /// region (points outside it never change in local moving, and the game's earlier
    /// positions were checked when the leaf was found).
    Differs(u64, Rc<[u64]>, Rc<[u32]>),
}

impl Dep {
    /// An order that puts equal conditions side by side (unequal ones may tie).
    fn order(&self) -> (u8, u64) {
        match self {
            Dep::Position(hash, _) => (0, *hash),
            Dep::State(key) => (1, key.hash),
            Dep::Differs(hash, ..) => (2, *hash),
        }
    }
}

struct Entry {
    pn: u64,
    dn: u64,
    /// For a solved node: the summary, the line (the attacker's winning line, or empty) and
    /// what of the line above it rests on.
    solved: Option<Box<Solved>>,
    /// The leaf tests (pass-alive block, attacker's territory) failed here already.
    searched: bool,
}

struct Solved {
    summary: Summary,
    line: Shared,
    deps: Vec<Dep>,
}

struct PathEntry {
    hash: u64,
    packed: Rc<[u64]>,
    counts: Counts,
}

/// One move of a node, with what is known of its result.
struct Child {
    mv: Move,
    pn: u64,
    dn: u64,
    /// Set once solved: what of the line above it rests on, the summary, the line from the
    /// child.
    deps: Vec<Dep>,
    summary: Option<Box<Summary>>,
    line: Shared,
    next: Option<Next>,
    /// The models a simulation has tried to prove it with (see
    /// [`Search::simulate_siblings`]): [`MODEL_PLAY`], [`MODEL_PASS`].
    simulated: u8,
}

/// The state after a move that leads to a node searched further (its colouring is rebuilt
/// when it is searched).
struct Next {
    hash: u64,
    to_move: Color,
    ko: Option<KoBan>,
    passed: bool,
    counts: Counts,
    /// Whether the position after the move joins the line's list of positions.
    records: bool,
}

/// The result of searching a node.
struct Out {
    pn: u64,
    dn: u64,
    deps: Vec<Dep>,
    summary: Summary,
    line: Shared,
}

pub(crate) struct Search<'c, 'h> {
    ctx: &'c Context<'h>,
    color: Color,
    stone: Point,
    points: Vec<Point>,
    in_region: Vec<bool>,
    /// The transposition table: entries hashed by [`KeyRef::index`], each checked in full.
    tt: HashTable<(Key, Entry)>,
    nodes: u64,
    budget: u64,
    path: Vec<PathEntry>,
    states: Vec<Key>,
    benson: Benson,
    /// Scratch marks for flood fills, and the current mark.
    mark: Vec<u32>,
    /// A scratch stack for flood fills, and a scratch region.
    stack: Vec<Point>,
    region_buf: Vec<Point>,
    /// Scratch for [`Search::territory_leaf`]: the attacking blocks around the region, those
    /// of them that must be pass-alive, and the region's points marked.
    border_buf: Vec<Point>,
    need_benson_buf: Vec<Point>,
    in_r: Vec<bool>,
    /// Scratch for [`Search::enclosed_in`]: attacking blocks met and whether each has a
    /// liberty outside the region.
    outside_buf: Vec<(Point, bool)>,
    generation: u32,
    /// Marks of the points next to a block, and the current mark.
    touch: Vec<u32>,
    touch_generation: u32,
    /// What the block's simple liberties are computed from (see [`Simple`]).
    simple: Simple,
    /// Boards to reuse for the models of simulations.
    spare: Vec<Board>,
    /// The plays made on the searched board along the line (see [`Search::descend`]), and on
    /// a simulation's model board (see [`Search::simulate_child`]), to take back.
    undo: Undo,
    model_undo: Undo,
    /// How many positions of `path` and states of `states` fall in each bucket of their
    /// hashes ([`bucket`]): a position or state is looked for only when its bucket is used.
    on_path: Box<[u16; BUCKETS]>,
    on_line: Box<[u16; BUCKETS]>,
    /// Buffers to reuse: lists of children, and [`Search::children`]'s scratch.
    child_lists: RefCell<Vec<Vec<Child>>>,
    scored: RefCell<Vec<(i32, Move, Option<Effect>)>>,
    move_list: RefCell<Vec<(Move, Option<Effect>)>>,
    buf: RefCell<Vec<u64>>,
    canonical_buf: RefCell<Vec<u64>>,
    libs: RefCell<Vec<Point>>,
    /// Scratch marks of points (the block's liberties found, the strings seen), and the
    /// current mark: see [`Search::fresh_marks`].
    marks: RefCell<(Vec<u32>, u32)>,
    /// What never changes outside the local region.
    outside: Outside,
    /// Whether refuted defences lead to simulations, and how those went.
    simulate: bool,
    simulations: Simulations,
}

/// What never changes outside the local region, computed once: local moving plays no stone
/// there, so its empty points stay empty, and a block with such a point as a liberty is never
/// captured. These *fixed* points hold the same in every position of every line.
struct Outside {
    /// The earlier positions of the game that agree with the position judged on every fixed
    /// point outside the local region: the only ones a position of a line can repeat.
    suspects: Vec<usize>,
    /// The other stones outside the local region: a capture may empty them.
    mortal: Vec<u32>,
    /// Per point: a stone, at the start, of a string with an empty liberty outside the local
    /// region. That liberty is never filled, so the stone stays, and every string holding it
    /// later (strings only merge) has that liberty: checked in one step instead of walking
    /// the string (the attacker's walls are often long strings).
    anchored: Vec<bool>,
}

impl Outside {
    fn new(board: &Board, in_region: &[bool], ctx: &Context) -> Outside {
        let geometry = board.geometry();
        let n = geometry.len();
        let mut fixed: Vec<usize> = Vec::new();
        let mut mortal: Vec<u32> = Vec::new();
        let mut seen = vec![false; n];
        let mut anchored = vec![false; n];
        for i in 0..n {
            let p = Point::new(i);
            if seen[i] || board.get(p).is_none() {
                continue;
            }
            let free = board.string_stones(p).any(|s| {
                geometry
                    .neighbors(s)
                    .iter()
                    .any(|&q| board.get(q).is_none() && !in_region[q.index()])
            });
            for s in board.string_stones(p) {
                seen[s.index()] = true;
                anchored[s.index()] = free;
            }
        }
        seen.iter_mut().for_each(|s| *s = false);
        for i in 0..n {
            let p = Point::new(i);
            if in_region[i] || seen[i] {
                continue;
            }
            match board.get(p) {
                None => fixed.push(i),
                Some(_) => {
                    let stones = board.string(p);
                    let free = anchored[i];
                    for s in &stones {
                        seen[s.index()] = true;
                        if free {
                            fixed.push(s.index());
                        } else {
                            mortal.push(s.index() as u32);
                        }
                    }
                }
            }
        }
        let now = board.packed();
        let suspects = ctx.history.map_or_else(Vec::new, |history| {
            (0..history.occurrences().len())
                .filter(|&k| {
                    let y = history.colouring(k);
                    fixed.iter().all(|&i| code(y, i) == code(now, i))
                })
                .collect()
        });
        Outside {
            suspects,
            mortal,
            anchored,
        }
    }
}

/// Whether the block of `stone` is locally capturable inside the region `points`.
pub(crate) fn locally_capturable(
    board: &Board,
    stone: Point,
    points: &[Point],
    ctx: &Context,
    budget: u64,
) -> Answer<Vec<(Color, Move)>> {
    search(board, stone, points, ctx, budget, true).0
}

/// Simulations tried and those that proved their defence refuted.
#[derive(Clone, Copy, Debug, Default)]
struct Simulations {
    tried: u64,
    proven: u64,
}

/// [`locally_capturable`], with or without simulation.
fn search(
    board: &Board,
    stone: Point,
    points: &[Point],
    ctx: &Context,
    budget: u64,
    simulate: bool,
) -> (Answer<Vec<(Color, Move)>>, Simulations) {
    let color = board.get(stone).expect("a block is named by a stone");
    let mut in_region = vec![false; board.geometry().len()];
    for p in points {
        in_region[p.index()] = true;
    }
    let simple = Simple::new(board, stone, &in_region, ctx);
    let outside = Outside::new(board, &in_region, ctx);
    let mut search = Search {
        outside,
        ctx,
        color,
        stone,
        points: points.to_vec(),
        in_region,
        tt: HashTable::new(),
        nodes: 0,
        budget,
        path: Vec::new(),
        states: Vec::new(),
        benson: Benson::default(),
        mark: Vec::new(),
        stack: Vec::new(),
        region_buf: Vec::new(),
        border_buf: Vec::new(),
        need_benson_buf: Vec::new(),
        in_r: Vec::new(),
        outside_buf: Vec::new(),
        generation: 0,
        touch: Vec::new(),
        touch_generation: 0,
        simple,
        spare: Vec::new(),
        undo: Undo::default(),
        model_undo: Undo::default(),
        on_path: Box::new([0; BUCKETS]),
        on_line: Box::new([0; BUCKETS]),
        child_lists: RefCell::new(Vec::new()),
        scored: RefCell::new(Vec::new()),
        move_list: RefCell::new(Vec::new()),
        buf: RefCell::new(Vec::new()),
        canonical_buf: RefCell::new(Vec::new()),
        libs: RefCell::new(Vec::new()),
        marks: RefCell::new((Vec::new(), 0)),
        simulate,
        simulations: Simulations::default(),
    };
    let (hash, packed) = search.canonical(board.hash(), board.packed());
    search.push_path(PathEntry {
        hash: salted(hash, color, ctx.rules.ko),
        packed: packed.clone(),
        counts: Counts::of(board),
    });
    let key = Key {
        hash,
        packed,
        to_move: color,
        ko: ctx.ko,
        passed: false,
    };
    // The search plays and takes back moves on its own copy (see [`Search::descend`]).
    let mut work = board.clone();
    let answer = match search.mid(&mut work, key, INF - 1, INF - 1, 0) {
        Ok(out) if out.pn == 0 => Answer::Yes(search.real_line(board, out.line.to_vec())),
        Ok(out) if out.dn == 0 => Answer::No,
        Ok(_) => Answer::Undecided("locally capturable: the proof search stopped".into()),
        Err(why) => Answer::Undecided(why),
    };
    (answer, search.simulations)
}

/// What the block's *simple liberties* are computed from, fixed for the search.
///
/// The simple liberties of a position are the largest set `T` of *candidates* (points of the
/// local region next to the block, empty now and in every earlier position of the game) each
/// of which touches a *living* attacking stone on a point that is not a candidate, and
/// touches nothing but the block's stones (as they are now), living attacking stones and
/// points of `T`. A living stone is an attacking stone of a block that has, at the start, an
/// empty liberty outside the local region (which local moving never fills, so it is never
/// captured), or an attacking stone next to one (joined to it).
///
/// Until the block is removed, its stones and the living stones stay, and `T` only grows. A
/// point of `T` holds nothing but a stone joined to the block, a stone joined to a living
/// block, or an empty point that is a liberty of the block. A play on an empty point of `T`,
/// by either colour, takes one liberty of the block and does nothing else: it captures
/// nothing (unless it takes the block's last liberty), is never suicide for the attacker,
/// and gives the defender no new liberty. So two positions with the same `T`, the same
/// colours outside it and as many empty points in it have the same moves, up to which point
/// of `T` is played, and the same outcome (the stones outside `T` next to it are the block's
/// or living in both, so nothing else differs): the search keys them alike
/// ([`Search::canonical`]) and tries one play in `T` per node. Along one line the points of
/// `T` only fill, so two positions of a line with the same key are the same position, and
/// repetition is decided exactly; positions of the game never match a position with a
/// filled point of `T`, and match all of a key's positions alike when none is filled.
struct Simple {
    /// The candidates, in point order.
    candidates: Vec<Point>,
    /// The components of the candidates (joined when neighbours) that can be simple: each
    /// candidate of one has other neighbours (neither candidates nor the block's stones), all
    /// points where an attacking stone would live. A candidate is simple exactly when every
    /// other neighbour of every candidate of its component holds an attacking stone: one
    /// that fails takes its neighbours out of `T`, and so on through the component.
    components: Vec<Component>,
    /// Scratch: a bit set over the candidates.
    scratch: RefCell<Vec<u64>>,
}

/// A component of the candidates (see [`Simple::components`]).
struct Component {
    /// Its candidates' indices.
    members: Vec<u32>,
    /// Its candidates' other neighbours as tests on the packed colouring: per word (index,
    /// mask, value), the neighbours' codes under the mask equal the attacker's.
    others: Vec<(u32, u64, u64)>,
}

fn code(packed: &[u64], i: usize) -> u64 {
    (packed[i / 32] >> (2 * (i % 32))) & 3
}

/// The attacker's move a simulation plays at a node (see [`Search::simulate_children`]):
/// the model's winning move, or when that is a simple liberty (in the model or here), the
/// node's play on a simple liberty (every empty one plays alike).
#[derive(Clone, Copy)]
struct Hint {
    mv: Move,
    simple: bool,
}

impl Hint {
    /// Whether `mv`, at a node keyed `here`, is the hinted move.
    fn keeps(self, here: &[u64], mv: Move) -> bool {
        mv == self.mv || (self.simple && on_simple(here, mv))
    }
}

/// Whether `mv` plays on a point a key marks as a simple liberty.
fn on_simple(packed: &[u64], mv: Move) -> bool {
    matches!(mv, Move::Play(p) if code(packed, p.index()) == 3)
}

impl Simple {
    fn new(board: &Board, stone: Point, in_region: &[bool], ctx: &Context) -> Simple {
        let geometry = board.geometry();
        let n = geometry.len();
        let attacker = board.get(stone).map(Color::opponent);
        let mut block = vec![false; n];
        for s in board.string_stones(stone) {
            block[s.index()] = true;
        }
        let mut living = vec![false; n];
        let mut seen = vec![false; n];
        for i in 0..n {
            let p = Point::new(i);
            if seen[i] || board.get(p) != attacker {
                continue;
            }
            let free = board.string_stones(p).any(|s| {
                geometry
                    .neighbors(s)
                    .iter()
                    .any(|&q| board.get(q).is_none() && !in_region[q.index()])
            });
            for s in board.string_stones(p) {
                seen[s.index()] = true;
                living[s.index()] = free;
            }
        }
        let candidate: Vec<bool> = (0..n)
            .map(|i| {
                in_region[i]
                    && board.get(Point::new(i)).is_none()
                    && geometry
                        .neighbors(Point::new(i))
                        .iter()
                        .any(|q| block[q.index()])
                    && ctx.history.is_none_or(|h| {
                        (0..h.occurrences().len()).all(|k| code(h.colouring(k), i) == 0)
                    })
            })
            .collect();
        let candidates: Vec<Point> = (0..n).filter(|&i| candidate[i]).map(Point::new).collect();
        let lives: Vec<bool> = (0..n)
            .map(|i| {
                living[i]
                    || geometry
                        .neighbors(Point::new(i))
                        .iter()
                        .any(|r| living[r.index()])
            })
            .collect();
        let others: Vec<Vec<usize>> = candidates
            .iter()
            .map(|&p| {
                geometry
                    .neighbors(p)
                    .iter()
                    .map(|q| q.index())
                    .filter(|&j| !candidate[j] && !block[j])
                    .collect()
            })
            .collect();
        let mut placed = vec![false; candidates.len()];
        let mut components = Vec::new();
        for first in 0..candidates.len() {
            if placed[first] {
                continue;
            }
            let mut members = vec![first];
            placed[first] = true;
            let mut at = 0;
            while let Some(&k) = members.get(at) {
                at += 1;
                for q in geometry.neighbors(candidates[k]) {
                    if let Some(j) = candidates.iter().position(|c| c == q) {
                        if !placed[j] {
                            placed[j] = true;
                            members.push(j);
                        }
                    }
                }
            }
            let can_be_simple = members
                .iter()
                .all(|&k| !others[k].is_empty() && others[k].iter().all(|&q| lives[q]));
            if can_be_simple {
                let attacker_code = attacker.map_or(0, |c| 1 + c.index() as u64);
                let mut tests: Vec<(u32, u64, u64)> = Vec::new();
                for &q in members.iter().flat_map(|&k| others[k].iter()) {
                    let (w, shift) = ((q / 32) as u32, 2 * (q % 32));
                    let at = match tests.iter().position(|t| t.0 == w) {
                        Some(at) => at,
                        None => {
                            tests.push((w, 0, 0));
                            tests.len() - 1
                        }
                    };
                    tests[at].1 |= 3 << shift;
                    tests[at].2 |= attacker_code << shift;
                }
                components.push(Component {
                    others: tests,
                    members: members.iter().map(|&k| k as u32).collect(),
                });
            }
        }
        Simple {
            scratch: RefCell::new(vec![0; candidates.len().div_ceil(64)]),
            components,
            candidates,
        }
    }

    /// The simple liberties of a packed colouring, in point order.
    fn of(&self, packed: &[u64]) -> Vec<Point> {
        let set = self.members(packed);
        self.candidates
            .iter()
            .enumerate()
            .filter(|(k, _)| set[k / 64] & (1 << (k % 64)) != 0)
            .map(|(_, &p)| p)
            .collect()
    }

    /// The simple liberties of a packed colouring: a bit set over the candidates (in the
    /// scratch buffer).
    fn members(&self, packed: &[u64]) -> std::cell::RefMut<'_, Vec<u64>> {
        let mut set = self.scratch.borrow_mut();
        set.iter_mut().for_each(|w| *w = 0);
        for c in &self.components {
            if c.others
                .iter()
                .all(|&(w, mask, value)| packed[w as usize] & mask == value)
            {
                for &k in &c.members {
                    set[k as usize / 64] |= 1 << (k % 64);
                }
            }
        }
        set
    }
}

impl Search<'_, '_> {
    fn attacker(&self) -> Color {
        self.color.opponent()
    }

    fn push_path(&mut self, entry: PathEntry) {
        self.on_path[bucket(entry.hash)] += 1;
        self.path.push(entry);
    }

    fn pop_path(&mut self) {
        let entry = self.path.pop().expect("a position of the line");
        self.on_path[bucket(entry.hash)] -= 1;
    }

    /// The key of a colouring (its Zobrist hash and packed form): the colouring itself when
    /// the block has no simple liberties; else every simple liberty marked alike (the
    /// packed form's unused code 3) and the number of empty ones appended, hashed anew (see
    /// [`Simple`]).
    fn canonical(&self, hash: u64, packed: &[u64]) -> (u64, Rc<[u64]>) {
        let mut words = self.canonical_buf.borrow_mut();
        words.clear();
        words.extend_from_slice(packed);
        let hash = self.canonical_in_place(hash, &mut words);
        (hash, Rc::from(&words[..]))
    }

    /// [`Search::canonical`] on a buffer holding the colouring; returns the key's hash.
    fn canonical_in_place(&self, hash: u64, words: &mut Vec<u64>) -> u64 {
        if self.simple.components.is_empty() {
            return hash;
        }
        let set = self.simple.members(words);
        if set.iter().all(|&w| w == 0) {
            return hash;
        }
        let mut empty = 0u64;
        for (w, &bits) in set.iter().enumerate() {
            let mut left = bits;
            while left != 0 {
                let b = left.trailing_zeros() as usize;
                left &= left - 1;
                let i = self.simple.candidates[w * 64 + b].index();
                let shift = 2 * (i % 32);
                if (words[i / 32] >> shift) & 3 == 0 {
                    empty += 1;
                }
                words[i / 32] |= 3 << shift;
            }
        }
        drop(set);
        words.push(empty);
        let mut hasher = KeyHasher::default();
        for &w in words.iter() {
            hasher.write_u64(w);
        }
        hasher.finish()
    }

    fn tt_get(&self, key: &KeyRef) -> Option<&Entry> {
        self.tt
            .find(key.index(), |(k, _)| key.matches(k))
            .map(|(_, e)| e)
    }

    fn tt_insert(&mut self, key: &Key, entry: Entry) {
        let at = key.as_ref();
        match self.tt.find_mut(at.index(), |(k, _)| at.matches(k)) {
            Some(slot) => slot.1 = entry,
            None => {
                self.tt
                    .insert_unique(at.index(), (key.clone(), entry), |(k, _)| {
                        k.as_ref().index()
                    });
            }
        }
    }

    /// The capturing line as played from `board`: a stored line may come from another
    /// position with the same key, where a play on a simple liberty may be on one that is
    /// filled here; any empty simple liberty does the same.
    fn real_line(&self, board: &Board, line: Vec<(Color, Move)>) -> Vec<(Color, Move)> {
        if self.simple.candidates.is_empty() {
            return line;
        }
        let mut b = board.clone();
        line.into_iter()
            .map(|(c, mv)| {
                let mv = match mv {
                    Move::Play(p) if b.get(p).is_some() => {
                        let simple = self.simple.of(b.packed());
                        debug_assert!(simple.contains(&p), "only simple liberties move");
                        Move::Play(
                            *simple
                                .iter()
                                .find(|q| b.get(**q).is_none())
                                .expect("as many empty simple liberties as where it was found"),
                        )
                    }
                    mv => mv,
                };
                if let Move::Play(p) = mv {
                    b.play_unchecked(p, c);
                }
                (c, mv)
            })
            .collect()
    }

    /// Whether a stored solved result may be used on the current line: what it rests on is
    /// there, and no other position of the line can occur in its proof.
    fn reusable(&self, solved: &Solved) -> bool {
        let mut dep_positions: Vec<usize> = Vec::new();
        for dep in &solved.deps {
            match dep {
                Dep::Differs(_, position, fixed) => {
                    let code = |packed: &[u64], i: u32| {
                        let i = i as usize;
                        (packed[i / 32] >> (2 * (i % 32))) & 3
                    };
                    if !self.path.iter().all(|y| {
                        *y.packed == **position
                            || fixed
                                .iter()
                                .any(|&i| code(&y.packed, i) != code(position, i))
                    }) {
                        return false;
                    }
                }
                Dep::State(k) => {
                    if !self.states.contains(k) {
                        return false;
                    }
                }
                Dep::Position(h, packed) => {
                    match self
                        .path
                        .iter()
                        .position(|y| y.hash == *h && y.packed == *packed)
                    {
                        Some(i) => dep_positions.push(i),
                        None => return false,
                    }
                }
            }
        }
        self.path
            .iter()
            .enumerate()
            .all(|(i, y)| dep_positions.contains(&i) || !solved.summary.may_hold(y.hash, y.counts))
    }

    /// The scratch marks, sized for `n` points, with a mark no point has yet.
    fn fresh_marks(&self, n: usize) -> std::cell::RefMut<'_, (Vec<u32>, u32)> {
        let mut marks = self.marks.borrow_mut();
        if marks.0.len() != n {
            marks.0 = vec![0; n];
        }
        marks.1 += 1;
        marks
    }

    /// The block's liberties, in `libs` (cleared first).
    fn liberties_into(&self, board: &Board, libs: &mut Vec<Point>) {
        libs.clear();
        let geometry = board.geometry();
        let mut fresh = self.fresh_marks(geometry.len());
        let (marks, generation) = &mut *fresh;
        for s in board.string_stones(self.stone) {
            for &q in geometry.neighbors(s) {
                if board.get(q).is_none() && marks[q.index()] != *generation {
                    marks[q.index()] = *generation;
                    libs.push(q);
                }
            }
        }
    }

    /// The moves of a node, best first: the attacker takes the block's liberties (those
    /// leaving its own stone more liberties first, simple liberties after the others), then
    /// other plays, then a pass; the defender captures attacking stones, extends the block's
    /// liberties, passes, then plays elsewhere, and fills a simple liberty last. With `only`,
    /// just those of them that it keeps, in the same order.
    #[allow(clippy::too_many_arguments)]
    fn moves(
        &self,
        board: &Board,
        here: &[u64],
        libs: &[Point],
        to_move: Color,
        passed: bool,
        only: Option<Hint>,
        moves: &mut Vec<(Move, Option<Effect>)>,
    ) {
        let geometry = board.geometry();
        let mut scored = self.scored.borrow_mut();
        scored.clear();
        let mut simple_seen = false;
        for &p in &self.points {
            if board.get(p).is_some() {
                continue;
            }
            if code(here, p.index()) == 3 {
                // Every empty simple liberty is the same play.
                if simple_seen {
                    continue;
                }
                simple_seen = true;
            }
            if only.is_some_and(|hint| !hint.keeps(here, Move::Play(p))) {
                continue;
            }
            let empty_neighbours = geometry
                .neighbors(p)
                .iter()
                .filter(|q| board.get(**q).is_none())
                .count() as i32;
            let effect = board.effect(p, to_move);
            let score = if to_move == self.color {
                let mut s = 0;
                if effect.captured > 0 {
                    s += 100 + effect.captured as i32;
                }
                if libs.contains(&p) {
                    s += 50;
                }
                s + empty_neighbours
            } else {
                let mut s = 0;
                if libs.contains(&p) {
                    s += 100;
                }
                if effect.captured > 0 {
                    s += 20;
                }
                s + empty_neighbours
            };
            // A simple liberty only takes a liberty (or gives a tempo): the attacker tries it
            // after its other plays on the block's liberties, the defender after everything.
            let score = match (code(here, p.index()) == 3, to_move == self.color) {
                (true, false) => 30,
                (true, true) => -1,
                // A self-capture (suicide legal) only empties the mover's own stones: last.
                (false, _) if effect.suicided > 0 => -2,
                (false, _) => score,
            };
            scored.push((score, Move::Play(p), Some(effect)));
        }
        scored.sort_by_key(|s| std::cmp::Reverse(s.0));
        moves.clear();
        let pass = only.is_none_or(|hint| hint.keeps(here, Move::Pass));
        if to_move == self.color {
            let split = scored.iter().position(|s| s.0 < 50).unwrap_or(scored.len());
            moves.extend(scored[..split].iter().map(|s| (s.1, s.2)));
            if pass {
                moves.push((Move::Pass, None));
            }
            moves.extend(scored[split..].iter().map(|s| (s.1, s.2)));
        } else {
            moves.extend(scored.iter().map(|s| (s.1, s.2)));
            // The attacker's pass right after the defender's is never needed: the defender
            // could pass again and bring back the same state.
            if !passed && pass {
                moves.push((Move::Pass, None));
            }
        }
    }

    /// The colouring after `to_move` plays `p` (legal but for ko and repetition), packed, and
    /// its stone count.
    fn packed_after(
        &self,
        board: &Board,
        p: Point,
        to_move: Color,
        suicide: bool,
        captures: bool,
        packed: &mut Vec<u64>,
    ) {
        packed.clear();
        packed.extend_from_slice(board.packed());
        let set = |packed: &mut [u64], q: Point, c: Option<Color>| {
            let i = q.index();
            packed[i / 32] &= !(3 << (2 * (i % 32)));
            if let Some(c) = c {
                packed[i / 32] |= (1 + c.index() as u64) << (2 * (i % 32));
            }
        };
        let geometry = board.geometry();
        if suicide {
            for &n in geometry.neighbors(p) {
                if board.get(n) == Some(to_move) {
                    for s in board.string_stones(n) {
                        set(packed, s, None);
                    }
                }
            }
            return;
        }
        set(packed, p, Some(to_move));
        if !captures {
            return;
        }
        for &n in geometry.neighbors(p) {
            if board.get(n) == Some(to_move.opponent()) && board.liberty_count_at_most_one(n) {
                for s in board.string_stones(n) {
                    set(packed, s, None);
                }
            }
        }
    }

    /// Builds the children of a node: leaves are solved at once, the rest are looked up in
    /// the table. Returns them and whether an illegal move depended on the line above.
    ///
    /// With `only`, just the children of the moves it keeps (see [`Search::moves`]): a
    /// simulation at the attacker's node needs no other.
    fn children(&self, board: &Board, here: &Key, only: Option<Hint>) -> (Vec<Child>, Vec<Dep>) {
        let (to_move, ko, passed) = (here.to_move, here.ko, here.passed);
        let rules = self.ctx.rules;
        let next_color = to_move.opponent();
        let mut illegal_by_path: Vec<Dep> = Vec::new();
        let now = Counts::of(board);
        let mut libs = std::mem::take(&mut *self.libs.borrow_mut());
        self.liberties_into(board, &mut libs);
        let mut buf = std::mem::take(&mut *self.buf.borrow_mut());
        let mut moves = std::mem::take(&mut *self.move_list.borrow_mut());
        self.moves(
            board,
            &here.packed,
            &libs,
            to_move,
            passed,
            only,
            &mut moves,
        );
        let mut out = self.child_lists.borrow_mut().pop().unwrap_or_default();
        for &(mv, effect) in &moves {
            let (key, child_counts, records, removed) = match mv {
                Move::Pass => {
                    let ko = if rules.ko == KoRule::LongCycle {
                        ko
                    } else {
                        None
                    };
                    let key = KeyRef {
                        hash: here.hash,
                        packed: &here.packed,
                        to_move: next_color,
                        ko,
                        passed: to_move == self.color,
                    };
                    let records = rules.ko == KoRule::SituationalSuperko;
                    (key, now, records, false)
                }
                Move::Play(p) => {
                    let effect = effect.expect("a play's effect");
                    if let Some(ban) = ko {
                        if ban.point == p && ban.forbidden == to_move && effect.captured == 1 {
                            continue;
                        }
                    }
                    let suicide = effect.suicided > 0;
                    if suicide && !rules.suicide_allowed {
                        continue;
                    }
                    self.packed_after(board, p, to_move, suicide, effect.captured > 0, &mut buf);
                    let after = if suicide {
                        now.after(to_move, 0, effect.suicided)
                    } else {
                        now.after(to_move, effect.captured, 0)
                    };
                    let removed = if suicide {
                        // A suicide removes every string of its colour next to the point.
                        to_move == self.color && libs.contains(&p)
                    } else {
                        // The block goes when the play takes its last liberty.
                        to_move == self.attacker() && libs.len() == 1 && libs[0] == p
                    };
                    let in_game = rules.ko != KoRule::Simple
                        && self.repeats_game(effect.hash_after, &buf, next_color);
                    let hash = self.canonical_in_place(effect.hash_after, &mut buf);
                    if rules.ko != KoRule::Simple {
                        let salted_hash = salted(hash, next_color, rules.ko);
                        let in_path = !in_game
                            && self.on_path[bucket(salted_hash)] > 0
                            && self
                                .path
                                .iter()
                                .any(|y| y.hash == salted_hash && *y.packed == *buf);
                        if in_game || in_path {
                            let position = || Dep::Position(salted_hash, buf.as_slice().into());
                            if rules.ko == KoRule::LongCycle {
                                // 3.6: the play ends the moving; removed only if it removed.
                                let mut summary = Summary::EMPTY;
                                summary.add_position(salted_hash, after);
                                out.push(Child {
                                    mv,
                                    simulated: 0,
                                    pn: if removed { 0 } else { INF },
                                    dn: if removed { INF } else { 0 },
                                    deps: if in_path {
                                        vec![position()]
                                    } else {
                                        Vec::new()
                                    },
                                    summary: Some(Box::new(summary)),
                                    line: Shared::default(),
                                    next: None,
                                });
                            } else if in_path {
                                illegal_by_path.push(position());
                            }
                            continue;
                        }
                    }
                    let child_ko = if rules.ko.has_basic_ko() && effect.makes_ko {
                        effect.single_capture.map(|point| KoBan {
                            point,
                            forbidden: next_color,
                        })
                    } else {
                        None
                    };
                    let key = KeyRef {
                        hash,
                        packed: &buf,
                        to_move: next_color,
                        ko: child_ko,
                        passed: false,
                    };
                    (key, after, true, removed)
                }
            };
            let own = || {
                let mut summary = Summary::EMPTY;
                if records {
                    summary.add_position(salted(key.hash, next_color, rules.ko), child_counts);
                }
                Box::new(summary)
            };
            if removed {
                out.push(Child {
                    mv,
                    simulated: 0,
                    pn: 0,
                    dn: INF,
                    deps: Vec::new(),
                    summary: Some(own()),
                    line: Shared::default(),
                    next: None,
                });
                continue;
            }
            if self.on_line[bucket(key.hash)] > 0 && self.states.iter().any(|k| key.matches(k)) {
                // The same state again on this line: endless moving, the block stays.
                out.push(Child {
                    mv,
                    simulated: 0,
                    pn: INF,
                    dn: 0,
                    deps: vec![Dep::State(key.to_key())],
                    summary: Some(own()),
                    line: Shared::default(),
                    next: None,
                });
                continue;
            }
            let (mut pn, mut dn) = (1, 1);
            let mut line = Shared::default();
            let mut deps = Vec::new();
            let mut summary = None;
            if let Some(entry) = self.tt_get(&key) {
                match &entry.solved {
                    Some(solved) if self.reusable(solved) => {
                        let mut own = own();
                        own.merge(&solved.summary);
                        summary = Some(own);
                        line = solved.line.clone();
                        deps = solved.deps.clone();
                        pn = entry.pn;
                        dn = entry.dn;
                    }
                    Some(_) => {}
                    None => {
                        pn = entry.pn;
                        dn = entry.dn;
                    }
                }
            } else {
                // Estimate: an attacker's proof is about as long as the block's liberties.
                pn = estimate(board, &libs, mv, to_move == self.color) as u64;
                dn = 1;
            }
            out.push(Child {
                mv,
                simulated: 0,
                pn,
                dn,
                deps,
                summary,
                line,
                next: Some(Next {
                    hash: key.hash,
                    to_move: key.to_move,
                    ko: key.ko,
                    passed: key.passed,
                    counts: child_counts,
                    records,
                }),
            });
        }
        *self.buf.borrow_mut() = buf;
        *self.move_list.borrow_mut() = moves;
        *self.libs.borrow_mut() = libs;
        (out, illegal_by_path)
    }

    fn repeats_game(&self, hash: u64, packed: &[u64], to_move: Color) -> bool {
        let Some(history) = self.ctx.history else {
            return false;
        };
        let filter = match self.ctx.rules.ko {
            KoRule::Simple => return false,
            KoRule::SituationalSuperko => Some(to_move),
            KoRule::PositionalSuperko | KoRule::LongCycle => None,
        };
        history
            .candidates(hash, filter)
            .any(|i| history.same_colouring(i, packed))
    }

    /// Leaf knowledge for the attacker: the block lies in a region `R` (a maximal connected set
    /// of points not of the attacker's colour) enclosed by attacking blocks that are never
    /// captured (*immortal*): each is pass-alive or has an empty liberty outside the local
    /// region, which local moving never fills. And either (a) `R` is vital to one of them,
    /// `X`: every empty point of `R` is a liberty of `X`; or (b) the *inner* points of `R`
    /// (those touching no attacking stone), the block's own stones aside, are at most two, and
    /// adjacent if two. Then the attacker captures the block by filling its liberties,
    /// whatever the defence:
    ///
    /// - in case (b) every point of `R` but the inner ones touches an immortal block (a
    ///   pass-alive one has a vital region other than `R` that the attacker never fills, so it
    ///   is never captured); a fill there joins it and is never taken. The attacker fills the block's
    ///   liberties outside the inner points first; then the block's liberties are inner
    ///   points: one, which the attacker takes, or two adjacent ones `i1`, `i2`: the attacker
    ///   plays `i1`, and the defender either lets it take `i2` or captures at `i2`, which joins
    ///   the block (no ko ban) and leaves `i1` its only liberty, which the attacker takes;
    /// - in case (a):
    /// - each fill touches `X`, so it joins `X`, and `X` is never captured: it has an empty
    ///   liberty outside the local region, or it is pass-alive and has another vital region
    ///   `R2`, and the defender's play on the last empty point of `R2` would be suicide while
    ///   `R` still holds an empty point (a liberty of the block, hence of `X`);
    ///   so a fill is never suicide, and attacking stones in `R` are never taken, so the
    ///   number of empty points of `R` falls with every fill until the block is removed
    ///   (its liberties all lie in `R`);
    /// - no basic-ko ban stops a fill: the defender can only take single stones outside `R`
    ///   (the ban in force now must not be in `R`);
    /// - no position repeats: within the line each fill leaves one more attacking stone in
    ///   `R` for good, and every earlier position of the game and of the line must differ from
    ///   this one on a point that never changes again (an attacking pass-alive stone, an empty
    ///   point outside the local region, or a stone of a block with a liberty outside it);
    /// - every empty point of `R` must be a point of the local region;
    /// - with suicide legal, the defender may also empty its own strings by self-capture, and
    ///   an empty point so made need not touch `X`. But a string `S` of `R` other than the block
    ///   leaves the board (self-capture or capture) only when every neighbour of what goes is
    ///   an attacking stone (it had no liberty, and a neighbour of the block's colour would
    ///   have joined it to the block, which would then be removed too). Those attacking
    ///   stones are `X`'s or fills joined to an immortal block, never taken: what was emptied is
    ///   walled off from the block for good. So every empty point the block can reach is
    ///   still an empty point of `R` from the start or from no removal at all, a liberty of
    ///   `X`, and the argument stands with only the empty points of `R` counted.
    ///
    /// Returns the capturing line with the defender passing (replayed here, so it is legal).
    fn territory_leaf(
        &mut self,
        board: &mut Board,
        key: &Key,
    ) -> Option<(Line, Option<Rc<[u32]>>)> {
        let mut r = std::mem::take(&mut self.region_buf);
        let mut border = std::mem::take(&mut self.border_buf);
        let mut need_benson = std::mem::take(&mut self.need_benson_buf);
        let mut in_r = std::mem::take(&mut self.in_r);
        let out = if self.enclosed_in(board, &mut r, &mut border, &mut need_benson) {
            in_r.resize(board.geometry().len(), false);
            let out = self.territory_leaf_in(board, key, (&r, &border, &need_benson), &mut in_r);
            for p in &r {
                in_r[p.index()] = false;
            }
            out
        } else {
            None
        };
        self.region_buf = r;
        self.border_buf = border;
        self.need_benson_buf = need_benson;
        self.in_r = in_r;
        out
    }

    /// [`Search::territory_leaf`] once [`Search::enclosed_in`] found the region `r`, its
    /// attacking blocks `border` and those that must be pass-alive; `in_r` (all false) marks
    /// `r`'s points as it goes.
    fn territory_leaf_in(
        &mut self,
        board: &mut Board,
        key: &Key,
        (r, border, need_benson): (&[Point], &[Point], &[Point]),
        in_r: &mut [bool],
    ) -> Option<(Line, Option<Rc<[u32]>>)> {
        let geometry = board.geometry();
        let attacker = self.attacker();
        let benson_run = !need_benson.is_empty();
        if benson_run {
            self.benson.run(
                geometry,
                board.colors(),
                attacker,
                self.ctx.rules.suicide_allowed,
            );
            if !need_benson.iter().all(|&q| self.benson.is_alive(q)) {
                return None;
            }
        }
        // Vital to one of the blocks: every empty point touches it (with suicide legal too:
        // see case (a) above on the points a removal empties).
        let vital = border.iter().any(|&x| {
            r.iter().all(|&p| {
                board.get(p).is_some()
                    || geometry
                        .neighbors(p)
                        .iter()
                        .any(|&q| board.same_string(q, x))
            })
        });
        if !vital && !self.inner_points_allow_capture(board, r) {
            return None;
        }
        for &p in r {
            in_r[p.index()] = true;
            if board.get(p).is_none() && !self.in_region[p.index()] {
                return None;
            }
        }
        if key.ko.is_some_and(|ban| in_r[ban.point.index()]) {
            return None;
        }
        let fixed = if self.ctx.rules.ko == KoRule::Simple {
            None
        } else {
            Some(self.no_repetition_possible(board, key, benson_run)?)
        };
        // The line: the attacker fills the block's liberties, the defender passes.
        let mut undo = std::mem::take(&mut self.undo);
        let depth = undo.len();
        let line = self.fill_line(board, key, in_r, &mut undo);
        while undo.len() > depth {
            board.undo(&mut undo);
        }
        self.undo = undo;
        line.map(|line| (line, fixed))
    }

    /// The territory leaf's line on `b`: the attacker fills the block's liberties in `R`
    /// (`in_r`), the defender passes; `None` if no fill is left before the block goes. The
    /// fills are recorded in `undo`, for the caller to take back.
    fn fill_line(&self, b: &mut Board, key: &Key, in_r: &[bool], undo: &mut Undo) -> Option<Line> {
        let attacker = self.attacker();
        let mut to_move = key.to_move;
        let mut line = Vec::with_capacity(16);
        let mut ban = key.ko;
        for _ in 0..2 * b.geometry().len() + 2 {
            if to_move == self.color {
                line.push((to_move, Move::Pass));
                if self.ctx.rules.ko != KoRule::LongCycle {
                    ban = None;
                }
                to_move = attacker;
                continue;
            }
            let mut libs = std::mem::take(&mut *self.libs.borrow_mut());
            self.liberties_into(b, &mut libs);
            let l = libs.iter().copied().find(|&l| {
                let effect = b.effect(l, attacker);
                in_r[l.index()]
                    && self.in_region[l.index()]
                    && effect.suicided == 0
                    && !ban.is_some_and(|k| {
                        k.point == l && k.forbidden == attacker && effect.captured == 1
                    })
            });
            *self.libs.borrow_mut() = libs;
            let l = l?;
            b.play_undoable(l, attacker, undo);
            line.push((attacker, Move::Play(l)));
            if b.get(self.stone) != Some(self.color) {
                return Some(line);
            }
            ban = None;
            to_move = self.color;
        }
        None
    }

    /// A necessary condition for the block of `stone` to be pass-alive, cheaper than Benson's
    /// algorithm: two of its liberties lie in different regions (maximal connected sets of
    /// points not of its colour) whose points (every point when suicide is legal, else every
    /// empty one) all touch the block, as vital regions must.
    fn two_vital_candidates(&mut self, board: &Board, stone: Point) -> bool {
        let geometry = board.geometry();
        let n = geometry.len();
        if self.mark.len() != n {
            self.mark = vec![0; n];
        }
        let color = board.get(stone);
        if self.touch.len() != n {
            self.touch = vec![0; n];
        }
        self.touch_generation += 1;
        let t = self.touch_generation;
        for s in board.string_stones(stone) {
            for &q in geometry.neighbors(s) {
                self.touch[q.index()] = t;
            }
        }
        let suicide = self.ctx.rules.suicide_allowed;
        let mut found = 0;
        let mut stack = std::mem::take(&mut self.stack);
        // Marks above this one are this call's: a start already reached is in a region
        // judged already (a region's verdict does not depend on where its flood starts).
        let before = self.generation;
        for l in board.string_stones(stone) {
            for &start in geometry.neighbors(l) {
                if board.get(start).is_some() || self.mark[start.index()] > before {
                    continue;
                }
                // Flood the region of `start` (fresh marks for each region), breadth first,
                // and stop at the first point that counts and does not touch the block.
                self.generation += 2;
                let g = self.generation;
                let counts_away =
                    |q: Point| (suicide || board.get(q).is_none()) && self.touch[q.index()] != t;
                let mut vital = !counts_away(start);
                self.mark[start.index()] = g;
                stack.clear();
                stack.push(start);
                let mut head = 0;
                'flood: while let Some(&p) = stack.get(head) {
                    head += 1;
                    for &q in geometry.neighbors(p) {
                        if board.get(q) != color && self.mark[q.index()] < g {
                            self.mark[q.index()] = g;
                            if counts_away(q) || stack.len() >= 64 {
                                vital = false;
                                break 'flood;
                            }
                            stack.push(q);
                        }
                    }
                    if !vital {
                        break;
                    }
                }
                if vital {
                    found += 1;
                    if found >= 2 {
                        self.stack = stack;
                        return true;
                    }
                }
            }
        }
        self.stack = stack;
        false
    }

    /// A necessary condition for the territory leaf, cheaper than Benson's algorithm: the
    /// region of points not of the attacker's colour that holds the block is small, its empty
    /// points lie in the local region, at most two of them touch no attacking stone, and
    /// every attacking block next to an
    /// empty point of it has a liberty outside the region (a pass-alive block has a vital
    /// region other than this one, hence such a liberty). When it holds, gives the region in
    /// `region`, the attacking blocks next to it in `border` and those of them that must be
    /// pass-alive in `need_benson`.
    fn enclosed_in(
        &mut self,
        board: &Board,
        region: &mut Vec<Point>,
        border: &mut Vec<Point>,
        need_benson: &mut Vec<Point>,
    ) -> bool {
        let geometry = board.geometry();
        let n = geometry.len();
        if self.mark.len() != n {
            self.mark = vec![0; n];
        }
        self.generation += 2;
        let g = self.generation;
        let attacker = Some(self.attacker());
        let colors = board.colors();
        region.clear();
        border.clear();
        need_benson.clear();
        region.push(self.stone);
        self.mark[self.stone.index()] = g;
        // Empty points touching no attacking stone: none (case a) or at most two (case b);
        // counted as the flood goes (breadth first, the region its own queue), which stops
        // at the third.
        let mut inner = 0;
        let mut head = 0;
        while let Some(&p) = region.get(head) {
            head += 1;
            let mut touches_attacker = false;
            for &q in geometry.neighbors(p) {
                let c = colors[q.index()];
                if c == attacker {
                    touches_attacker = true;
                } else if self.mark[q.index()] != g {
                    if c.is_none() && !self.in_region[q.index()] {
                        // Every empty point of the region must be in the local region.
                        return false;
                    }
                    self.mark[q.index()] = g;
                    region.push(q);
                }
            }
            if region.len() > 128 {
                return false;
            }
            if !touches_attacker && colors[p.index()].is_none() {
                inner += 1;
                if inner > 2 {
                    return false;
                }
            }
        }
        // Attacking blocks next to the region, and whether each has a liberty outside it.
        let mut outside_liberty = std::mem::take(&mut self.outside_buf);
        outside_liberty.clear();
        let all_free = 'blocks: {
            for &p in region.iter() {
                if board.get(p).is_some()
                    || !geometry
                        .neighbors(p)
                        .iter()
                        .any(|&q| board.get(q) == attacker)
                {
                    continue;
                }
                let mut ok = false;
                for &q in geometry.neighbors(p) {
                    if board.get(q) != attacker {
                        continue;
                    }
                    let known = outside_liberty
                        .iter()
                        .find(|(h, _)| board.same_string(*h, q));
                    let free = match known {
                        Some(&(_, free)) => free,
                        // Its liberty outside the local region is outside the region: the flood
                        // stopped at none.
                        None if self.outside.anchored[q.index()] => {
                            outside_liberty.push((q, true));
                            true
                        }
                        None => {
                            let free = board.string_stones(q).any(|s| {
                                geometry
                                    .neighbors(s)
                                    .iter()
                                    .any(|&r| board.get(r).is_none() && self.mark[r.index()] != g)
                            });
                            outside_liberty.push((q, free));
                            free
                        }
                    };
                    if free {
                        ok = true;
                        break;
                    }
                }
                if !ok {
                    break 'blocks false;
                }
            }
            true
        };
        self.outside_buf = outside_liberty;
        if !all_free {
            return false;
        }
        // Every attacking block next to the region must never be captured: it has an empty
        // liberty outside the local region (which local moving never fills), or it is
        // pass-alive, for which it needs two regions that look vital (Benson's algorithm
        // decides those afterwards).
        for &p in region.iter() {
            for &q in geometry.neighbors(p) {
                if board.get(q) == attacker && !border.iter().any(|&b| board.same_string(b, q)) {
                    border.push(q);
                }
            }
        }
        for &b in border.iter() {
            let living = self.outside.anchored[b.index()]
                || board.string_stones(b).any(|s| {
                    geometry
                        .neighbors(s)
                        .iter()
                        .any(|&t| board.get(t).is_none() && !self.in_region[t.index()])
                });
            if !living {
                if !self.two_vital_candidates(board, b) {
                    return false;
                }
                need_benson.push(b);
            }
        }
        true
    }

    /// Case (b) of [`Search::territory_leaf`]: the points of `region` that touch no attacking
    /// stone, the block's stones aside, are at most two, and adjacent if two.
    fn inner_points_allow_capture(&self, board: &Board, region: &[Point]) -> bool {
        let geometry = board.geometry();
        let attacker = Some(self.attacker());
        let mut inner = [Point::new(0); 2];
        let mut count = 0;
        for &p in region {
            if !board.same_string(p, self.stone)
                && !geometry
                    .neighbors(p)
                    .iter()
                    .any(|&q| board.get(q) == attacker)
            {
                if count == 2 {
                    return false;
                }
                inner[count] = p;
                count += 1;
            }
        }
        count < 2 || geometry.neighbors(inner[0]).contains(&inner[1])
    }

    /// Whether every earlier position of the game and of the line differs from `board` on a
    /// point that local moving from here can never change (see [`Search::territory_leaf`]);
    /// needs the attacker's Benson run on `board`.
    fn no_repetition_possible(
        &self,
        board: &Board,
        key: &Key,
        benson_run: bool,
    ) -> Option<Rc<[u32]>> {
        // Outside the local region the fixed points never change (see [`Outside`]): the
        // line's positions all agree with this one there, and so do the game's suspects.
        // Inside it, stones of blocks with a liberty outside it and pass-alive attacking
        // stones are never captured; simple liberties are marked alike in the line's keys,
        // so they are never compared.
        let geometry = board.geometry();
        let attacker = Some(self.attacker());
        let mut fixed: Vec<u32> = Vec::with_capacity(self.points.len() + self.outside.mortal.len());
        // The strings met so far that are not anchored, and whether each has an empty
        // liberty outside the local region (an anchored one has: see [`Outside::anchored`]).
        let mut strings: Vec<(Point, bool)> = Vec::with_capacity(16);
        for &p in &self.points {
            let Some(color) = board.get(p) else { continue };
            let free = self.outside.anchored[p.index()]
                || match strings.iter().find(|(s, _)| board.same_string(*s, p)) {
                    Some(&(_, free)) => free,
                    None => {
                        let free = board.string_stones(p).any(|s| {
                            geometry
                                .neighbors(s)
                                .iter()
                                .any(|&q| board.get(q).is_none() && !self.in_region[q.index()])
                        });
                        strings.push((p, free));
                        free
                    }
                };
            let alive = free || (benson_run && Some(color) == attacker && self.benson.is_alive(p));
            if code(&key.packed, p.index()) != 3 && alive {
                fixed.push(p.index() as u32);
            }
        }
        let inside = fixed.len();
        // Points outside it emptied by a capture stay empty.
        fixed.extend(
            self.outside
                .mortal
                .iter()
                .filter(|&&i| board.get(Point::new(i as usize)).is_none()),
        );
        let differs = |y: &[u64], now: &[u64]| {
            y == now
                || fixed
                    .iter()
                    .any(|&i| code(y, i as usize) != code(now, i as usize))
        };
        if !self.path.iter().all(|y| differs(&y.packed, &key.packed)) {
            return None;
        }
        let game = match self.ctx.history {
            Some(history) => self
                .outside
                .suspects
                .iter()
                .all(|&i| differs(history.colouring(i), board.packed())),
            None => true,
        };
        game.then(|| fixed[..inside].into())
    }

    /// Counts a node against the budget and the line's length.
    fn visit(&mut self, depth: usize) -> Result<(), String> {
        self.nodes += 1;
        count_node();
        if self.nodes > self.budget {
            return Err(format!(
                "locally capturable: more than {} nodes in a region of {} points",
                self.budget,
                self.points.len()
            ));
        }
        if depth > MAX_LINE {
            return Err(format!(
                "locally capturable: a line longer than {MAX_LINE} moves"
            ));
        }
        Ok(())
    }

    /// The leaf tests of a node not yet searched: the block pass-alive (disproven) or in the
    /// attacker's territory (proven). A result found is stored.
    ///
    /// Each test is made only where it pays: the block becomes pass-alive by its own colour's
    /// play, so that test is made where the attacker is to move; the attacker's territory is
    /// completed by the attacker's fill, so that test is made where the defender is to move.
    /// A test not made only leaves the node to be searched (on GNU Go's regression positions
    /// the nodes stay within 0.1% and the work falls by about a tenth).
    fn leaf(&mut self, board: &mut Board, key: &Key) -> Option<Out> {
        if self.tt_get(&key.as_ref()).is_some_and(|e| e.searched) {
            return None;
        }
        let attacker_to_move = key.to_move != self.color;
        // A pass-alive block is never removed (3.9.1).
        if attacker_to_move && self.two_vital_candidates(board, self.stone) {
            self.benson.run(
                board.geometry(),
                board.colors(),
                self.color,
                self.ctx.rules.suicide_allowed,
            );
            if self.benson.is_alive(self.stone) {
                let out = Out {
                    pn: INF,
                    dn: 0,
                    deps: Vec::new(),
                    summary: Summary::EMPTY,
                    line: Shared::default(),
                };
                self.store(key, &out, false);
                return Some(out);
            }
        }
        if attacker_to_move {
            return None;
        }
        let (line, fixed) = self.territory_leaf(board, key)?;
        // Proven by the argument of `territory_leaf`; it rests on the line's positions
        // differing from this one where nothing changes any more.
        let out = Out {
            pn: 0,
            dn: INF,
            deps: fixed
                .map(|fixed| vec![Dep::Differs(key.hash, key.packed.clone(), fixed)])
                .unwrap_or_default(),
            summary: Summary::EMPTY,
            line: Shared::from_vec(line),
        };
        self.store(key, &out, false);
        Some(out)
    }

    /// Multiple-iterative deepening: searches the node until its proof number reaches
    /// `th_pn` or its disproof number `th_dn`.
    fn mid(
        &mut self,
        board: &mut Board,
        key: Key,
        th_pn: u64,
        th_dn: u64,
        depth: usize,
    ) -> Result<Out, String> {
        self.visit(depth)?;
        if let Some(out) = self.leaf(board, &key) {
            return Ok(out);
        }
        let attacker = key.to_move != self.color;
        let (mut children, illegal_by_path) = self.children(board, &key, None);
        if !attacker && children.is_empty() {
            unreachable!("the defender can always pass");
        }
        self.on_line[bucket(key.hash)] += 1;
        self.states.push(key.clone());
        let result = self.mid_loop(board, &mut children, attacker, th_pn, th_dn, depth);
        self.states.pop();
        self.on_line[bucket(key.hash)] -= 1;
        result?;
        let out = self.conclude(&key, &children, attacker, illegal_by_path);
        children.clear();
        self.child_lists.get_mut().push(children);
        self.store(&key, &out, true);
        Ok(out)
    }

    /// A node's result from its children's: for a solved node, the children it rests on
    /// give its line, its summary and what it rests on of the line above.
    fn conclude(
        &self,
        key: &Key,
        children: &[Child],
        attacker: bool,
        illegal_by_path: Vec<Dep>,
    ) -> Out {
        let (pn, dn) = numbers(children, attacker);
        let mut out = Out {
            pn,
            dn,
            deps: Vec::new(),
            summary: Summary::EMPTY,
            line: Shared::default(),
        };
        let proven = pn == 0;
        let disproven = dn == 0;
        if !(proven || disproven) {
            return out;
        }
        let to_move = key.to_move;
        let attacker_won = proven;
        let decisive_one = attacker == attacker_won;
        if decisive_one {
            let c = children
                .iter()
                .find(|c| if attacker_won { c.pn == 0 } else { c.dn == 0 })
                .expect("a solved child");
            out.deps = c.deps.clone();
            out.summary = **c.summary.as_ref().expect("a solved child's summary");
            if attacker_won {
                out.line = Shared::cons((to_move, c.mv), c.line.clone());
            }
        } else {
            out.deps = illegal_by_path;
            for c in children {
                out.deps.extend(c.deps.iter().cloned());
                out.summary
                    .merge(c.summary.as_ref().expect("a solved child's summary"));
            }
            // Children share much of what they rest on: keep each once.
            out.deps.sort_unstable_by_key(Dep::order);
            out.deps.dedup();
            if attacker_won {
                // The defender resists as long as it can.
                let mut c = &children[0];
                for d in &children[1..] {
                    if d.line.len() > c.line.len() {
                        c = d;
                    }
                }
                out.line = Shared::cons((to_move, c.mv), c.line.clone());
            }
        }
        // What rests on this node's own position or state is no longer a condition on the
        // line above: every line reaching this state has them.
        let here = self.path.last().map(|y| (y.hash, y.packed.clone()));
        out.deps.retain(|d| match d {
            Dep::Position(h, packed) => here.as_ref() != Some(&(*h, packed.clone())),
            Dep::State(k) => k != key,
            Dep::Differs(..) => true,
        });
        out
    }

    fn mid_loop(
        &mut self,
        board: &mut Board,
        children: &mut [Child],
        attacker: bool,
        th_pn: u64,
        th_dn: u64,
        depth: usize,
    ) -> Result<(), String> {
        loop {
            let (pn, dn) = numbers(children, attacker);
            if pn >= th_pn || dn >= th_dn || pn == 0 || dn == 0 {
                return Ok(());
            }
            // The most promising child and the runner-up.
            let value = |c: &Child| if attacker { c.pn } else { c.dn };
            let mut best = usize::MAX;
            let mut second = INF;
            for (i, c) in children.iter().enumerate() {
                if c.next.is_none() || c.pn == 0 || c.dn == 0 {
                    continue;
                }
                if best == usize::MAX || value(c) < value(&children[best]) {
                    if best != usize::MAX {
                        second = second.min(value(&children[best]));
                    }
                    best = i;
                } else {
                    second = second.min(value(c));
                }
            }
            if best == usize::MAX {
                return Ok(());
            }
            let c = &children[best];
            // At the attacker's nodes the child is searched until it looks worse than the
            // runner-up by more than an eighth (the 1 + ε trick). At the defender's, it is
            // searched until it is solved or the node's own thresholds are reached: a proof
            // must refute every defence, so turning to another before this one is settled
            // only spreads the work.
            let (child_th_pn, child_th_dn) = if attacker {
                (
                    th_pn.min(second.saturating_add(second / 8 + 1).min(INF)),
                    (th_dn - dn).saturating_add(c.dn).min(INF),
                )
            } else {
                ((th_pn - pn).saturating_add(c.pn).min(INF), th_dn)
            };
            self.descend(board, children, best, attacker, |search, after, key| {
                search
                    .mid(after, key, child_th_pn, child_th_dn, depth + 1)
                    .map(Some)
            })?;
            if self.simulate && !attacker && children[best].pn == 0 {
                self.simulate_siblings(board, children, best, depth)?;
            }
        }
    }

    /// Plays the open child `i` and searches it with `search`; a result (`None` when the
    /// search gave none) updates the child. The move is played on `board` itself and taken
    /// back after (no copy of the board per node).
    fn descend(
        &mut self,
        board: &mut Board,
        children: &mut [Child],
        i: usize,
        attacker: bool,
        search: impl FnOnce(&mut Self, &mut Board, Key) -> Result<Option<Out>, String>,
    ) -> Result<bool, String> {
        let c = &children[i];
        let next = c.next.as_ref().expect("an open child");
        let (next_hash, next_to_move, next_ko, next_passed) =
            (next.hash, next.to_move, next.ko, next.passed);
        let records = next.records;
        let child_counts = next.counts;
        let played = match c.mv {
            Move::Pass => false,
            Move::Play(p) => {
                let to_move = if attacker {
                    self.attacker()
                } else {
                    self.color
                };
                board.play_undoable(p, to_move, &mut self.undo);
                true
            }
        };
        let (hash, packed) = self.canonical(board.hash(), board.packed());
        debug_assert_eq!(
            hash, next_hash,
            "the child's key is rebuilt as it was found"
        );
        let key = Key {
            hash: next_hash,
            packed,
            to_move: next_to_move,
            ko: next_ko,
            passed: next_passed,
        };
        if records {
            self.push_path(PathEntry {
                hash: salted(key.hash, key.to_move, self.ctx.rules.ko),
                packed: key.packed.clone(),
                counts: child_counts,
            });
        }
        let r = search(self, board, key);
        if played {
            board.undo(&mut self.undo);
        }
        if records {
            self.pop_path();
        }
        let Some(r) = r? else {
            return Ok(false);
        };
        let c = &mut children[i];
        c.pn = r.pn;
        c.dn = r.dn;
        if r.pn == 0 || r.dn == 0 {
            c.deps = r.deps;
            let mut summary = Summary::EMPTY;
            if records {
                summary.add_position(
                    salted(next_hash, next_to_move, self.ctx.rules.ko),
                    child_counts,
                );
            }
            summary.merge(&r.summary);
            c.summary = Some(Box::new(summary));
            c.line = r.line;
        }
        Ok(true)
    }

    /// A copy of `board` in a board to reuse (give it back to `spare`): copying into it does
    /// not allocate.
    fn copy(&mut self, board: &Board) -> Board {
        match self.spare.pop() {
            Some(mut spare) => {
                spare.clone_from(board);
                spare
            }
            None => board.clone(),
        }
    }

    /// Kawano's simulation: once the defender's move `proven` at an AND node is refuted,
    /// tries to refute each open sibling with the same answers, the attacker playing at each
    /// node only what it played in the corresponding position after `proven`. A refutation
    /// found so is a proof like any other (every defence is tried, every leaf is tested); a
    /// failure says nothing, and only the simulation's proofs are kept.
    fn simulate_siblings(
        &mut self,
        board: &mut Board,
        children: &mut [Child],
        proven: usize,
        depth: usize,
    ) -> Result<(), String> {
        // Each open defence is simulated once after a refuted play, and once more after the
        // refuted pass: the pass changes nothing, so its refutation fits the most defences.
        let model = if children[proven].mv == Move::Pass {
            MODEL_PASS
        } else {
            MODEL_PLAY
        };
        let open =
            |c: &Child| c.next.is_some() && c.pn != 0 && c.dn != 0 && c.simulated & model == 0;
        if !children.iter().any(open) {
            return Ok(());
        }
        let here = self.states.last().expect("the node's state").clone();
        // The model is a board of its own: the siblings are played on `board`.
        let mut model_board = self.copy(board);
        let Some((played, model_key)) =
            self.model_play(&mut model_board, &here, children[proven].mv, false)
        else {
            self.spare.push(model_board);
            return Ok(());
        };
        let mut result = Ok(());
        for i in 0..children.len() {
            if !open(&children[i]) {
                continue;
            }
            children[i].simulated |= model;
            let mut left = SIMULATION_NODES;
            if let Err(why) = self.descend(board, children, i, false, |search, after, key| {
                search.simulate(
                    after,
                    key,
                    &mut model_board,
                    &model_key,
                    depth + 1,
                    &mut left,
                )
            }) {
                result = Err(why);
                break;
            }
            self.simulations.tried += 1;
            if children[i].pn == 0 {
                self.simulations.proven += 1;
            }
        }
        if played {
            model_board.undo(&mut self.model_undo);
        }
        self.spare.push(model_board);
        result
    }

    /// Plays a move on a model board (for a simulation's hints) and gives the key after it,
    /// or `None` when the move cannot be played there. With `true`, a play was made, recorded
    /// in `model_undo`: take it back after.
    fn model_play(
        &mut self,
        model: &mut Board,
        key: &Key,
        mv: Move,
        attacker: bool,
    ) -> Option<(bool, Key)> {
        let to_move = if attacker {
            self.attacker()
        } else {
            self.color
        };
        let rules = self.ctx.rules;
        match mv {
            Move::Pass => {
                let (hash, packed) = self.canonical(model.hash(), model.packed());
                let key = Key {
                    hash,
                    packed,
                    to_move: to_move.opponent(),
                    ko: if rules.ko == KoRule::LongCycle {
                        key.ko
                    } else {
                        None
                    },
                    passed: !attacker,
                };
                Some((false, key))
            }
            Move::Play(p) => {
                if model.get(p).is_some() {
                    return None;
                }
                let effect = model.effect(p, to_move);
                if effect.suicided > 0 {
                    return None;
                }
                model.play_undoable(p, to_move, &mut self.model_undo);
                let (hash, packed) = self.canonical(model.hash(), model.packed());
                let ko = if rules.ko.has_basic_ko() && effect.makes_ko {
                    effect.single_capture.map(|point| KoBan {
                        point,
                        forbidden: to_move.opponent(),
                    })
                } else {
                    None
                };
                let key = Key {
                    hash,
                    packed,
                    to_move: to_move.opponent(),
                    ko,
                    passed: false,
                };
                Some((true, key))
            }
        }
    }

    /// Whether the model position has a winning move for the attacker that may be played
    /// here: on an empty point, or on a simple liberty (any empty one plays alike). Checked
    /// before the node's children are built, as most simulations that fail do so here.
    fn hint_fits(&self, board: &Board, key: &Key, model_key: &Key) -> bool {
        match self.hint(model_key) {
            None => false,
            Some(Move::Pass) => true,
            Some(hint @ Move::Play(p)) => {
                board.get(p).is_none()
                    || on_simple(&model_key.packed, hint)
                    || on_simple(&key.packed, hint)
            }
        }
    }

    /// The attacker's winning move in the model position, from its stored proof.
    fn hint(&self, model_key: &Key) -> Option<Move> {
        let found = self.tt_get(&model_key.as_ref())?;
        if found.pn != 0 {
            return None;
        }
        found.solved.as_ref()?.line.0.as_ref().map(|l| l.mv.1)
    }

    /// One node of a simulation (see [`Search::simulate_siblings`]): `Some` with a proof, or
    /// `None`.
    fn simulate(
        &mut self,
        board: &mut Board,
        key: Key,
        model: &mut Board,
        model_key: &Key,
        depth: usize,
        left: &mut u64,
    ) -> Result<Option<Out>, String> {
        if *left == 0 {
            return Ok(None);
        }
        *left -= 1;
        self.visit(depth)?;
        if let Some(out) = self.leaf(board, &key) {
            return Ok((out.pn == 0).then_some(out));
        }
        let attacker = key.to_move != self.color;
        if attacker && !self.hint_fits(board, &key, model_key) {
            return Ok(None);
        }
        // At the attacker's node only the model's move is played (see `simulate_children`).
        let only = if attacker {
            self.hint(model_key).map(|mv| Hint {
                mv,
                simple: on_simple(&model_key.packed, mv) || on_simple(&key.packed, mv),
            })
        } else {
            None
        };
        let (mut children, illegal_by_path) = self.children(board, &key, only);
        self.on_line[bucket(key.hash)] += 1;
        self.states.push(key.clone());
        let result = self.simulate_children(
            board,
            &key,
            &mut children,
            attacker,
            model,
            model_key,
            depth,
            left,
        );
        self.states.pop();
        self.on_line[bucket(key.hash)] -= 1;
        let out = match result? {
            true => {
                let out = self.conclude(&key, &children, attacker, illegal_by_path);
                debug_assert_eq!(out.pn, 0, "a simulation ends with a proof");
                self.store(&key, &out, true);
                Some(out)
            }
            false => None,
        };
        children.clear();
        self.child_lists.get_mut().push(children);
        Ok(out)
    }

    /// The children of a simulated node: at the attacker's, the one the model's proof plays;
    /// at the defender's, every one, each with the model after the same defence. Whether all
    /// that is needed was proven.
    #[allow(clippy::too_many_arguments)]
    fn simulate_children(
        &mut self,
        board: &mut Board,
        key: &Key,
        children: &mut [Child],
        attacker: bool,
        model: &mut Board,
        model_key: &Key,
        depth: usize,
        left: &mut u64,
    ) -> Result<bool, String> {
        if attacker {
            let Some(hint) = self.hint(model_key) else {
                return Ok(false);
            };
            let hint = Hint {
                mv: hint,
                simple: on_simple(&model_key.packed, hint) || on_simple(&key.packed, hint),
            };
            let Some(i) = children.iter().position(|c| hint.keeps(&key.packed, c.mv)) else {
                return Ok(false);
            };
            if children[i].pn == 0 {
                return Ok(true);
            }
            if children[i].next.is_none() || children[i].dn == 0 {
                return Ok(false);
            }
            // A stored line may play a simple liberty filled here: any empty one does the same.
            let model_hint = match hint.mv {
                Move::Play(p) if model.get(p).is_some() => self.empty_simple(model, hint.mv),
                mv => mv,
            };
            let model = (model, model_key, model_hint);
            self.simulate_child(board, children, i, true, model, depth, left)
        } else {
            for i in 0..children.len() {
                if children[i].pn == 0 {
                    continue;
                }
                if children[i].next.is_none() || children[i].dn == 0 {
                    return Ok(false);
                }
                let mv = children[i].mv;
                let model_mv = if on_simple(&key.packed, mv) {
                    self.empty_simple(model, mv)
                } else {
                    mv
                };
                let model = (&mut *model, model_key, model_mv);
                if !self.simulate_child(board, children, i, false, model, depth, left)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
    }

    /// An empty simple liberty of `model` (any of them plays alike), or `mv` if none is.
    fn empty_simple(&self, model: &Board, mv: Move) -> Move {
        self.simple
            .of(model.packed())
            .into_iter()
            .find(|q| model.get(*q).is_none())
            .map_or(mv, Move::Play)
    }

    /// Simulates the open child `i` with its model after `model_mv` (see
    /// [`Search::simulate`]): whether it is proven.
    #[allow(clippy::too_many_arguments)]
    fn simulate_child(
        &mut self,
        board: &mut Board,
        children: &mut [Child],
        i: usize,
        attacker: bool,
        (model, model_key, model_mv): (&mut Board, &Key, Move),
        depth: usize,
        left: &mut u64,
    ) -> Result<bool, String> {
        let Some((played, next_key)) = self.model_play(model, model_key, model_mv, attacker) else {
            return Ok(false);
        };
        let r = self.descend(board, children, i, attacker, |search, after, key| {
            search.simulate(after, key, model, &next_key, depth + 1, left)
        });
        if played {
            model.undo(&mut self.model_undo);
        }
        r?;
        Ok(children[i].pn == 0)
    }

    fn store(&mut self, key: &Key, out: &Out, searched: bool) {
        let solved = out.pn == 0 || out.dn == 0;
        let entry = Entry {
            pn: out.pn,
            dn: out.dn,
            solved: solved.then(|| {
                Box::new(Solved {
                    summary: out.summary,
                    line: out.line.clone(),
                    deps: out.deps.clone(),
                })
            }),
            searched,
        };
        self.tt_insert(key, entry);
    }
}

/// The block's liberties after a move, roughly: an attacker's play on a liberty takes one,
/// a defender's play on one adds its other empty neighbours.
fn estimate(board: &Board, libs: &[Point], mv: Move, defender: bool) -> usize {
    let Move::Play(p) = mv else {
        return libs.len().max(1);
    };
    if !libs.contains(&p) {
        return libs.len().max(1);
    }
    if !defender {
        return (libs.len() - 1).max(1);
    }
    let extra = board
        .geometry()
        .neighbors(p)
        .iter()
        .filter(|&&q| board.get(q).is_none() && !libs.contains(&q))
        .count();
    (libs.len() - 1 + extra).max(1)
}

/// A node's proof and disproof numbers from its children's.
fn numbers(children: &[Child], attacker: bool) -> (u64, u64) {
    let mut min_pn = INF;
    let mut min_dn = INF;
    let mut sum_pn: u64 = 0;
    let mut sum_dn: u64 = 0;
    for c in children {
        min_pn = min_pn.min(c.pn);
        min_dn = min_dn.min(c.dn);
        sum_pn = sum_pn.saturating_add(c.pn).min(INF);
        sum_dn = sum_dn.saturating_add(c.dn).min(INF);
    }
    if attacker {
        // No attacker move at all cannot happen (the attacker may pass) unless every move is
        // illegal: then the block stays.
        if children.is_empty() {
            return (INF, 0);
        }
        (min_pn, sum_dn)
    } else {
        (sum_pn, min_dn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{maximal_local_region, pass_alive};
    use goref_rules::{Preset, Ruleset};

    /// A legal position drawn from a seed.
    fn position(width: usize, height: usize, seed: u64) -> Board {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let cells: Vec<u8> = (0..width * height)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % 10) as u8
            })
            .collect();
        crate::testing::position(width, height, &cells)
    }

    /// Simulation only finds proofs the search would find: with and without it, every block
    /// of many small positions gets the same answer, and simulations do refute defences.
    #[test]
    fn simulation_changes_no_answer() {
        let (mut proven, mut compared) = (0, 0);
        for preset in [Preset::Olympiad, Preset::TrompTaylor] {
            let ctx = Context::fresh(Ruleset::preset(preset));
            for seed in 0..80 {
                let board = position(4, 4, seed);
                for p in board.geometry().points() {
                    let Some(color) = board.get(p) else { continue };
                    if board.string(p)[0] != p {
                        continue;
                    }
                    let alive = pass_alive(
                        board.geometry(),
                        board.colors(),
                        color.opponent(),
                        ctx.rules.suicide_allowed,
                    );
                    let region = maximal_local_region(&board, p, &alive, &ctx, 100_000);
                    let (with, simulations) = search(&board, p, &region.points, &ctx, 5_000, true);
                    let (without, none) = search(&board, p, &region.points, &ctx, 5_000, false);
                    assert_eq!(none.tried, 0);
                    proven += simulations.proven;
                    match (&with, &without) {
                        (Answer::Yes(_), Answer::Yes(_)) | (Answer::No, Answer::No) => {
                            compared += 1
                        }
                        (Answer::Undecided(_), _) | (_, Answer::Undecided(_)) => {}
                        _ => panic!("seed {seed} {p:?}: {with:?} with, {without:?} without"),
                    }
                }
            }
        }
        assert!(compared > 300, "{compared} blocks decided both ways");
        assert!(proven > 100, "simulations refuted {proven} defences");
    }
}
