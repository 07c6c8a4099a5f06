//! The search's ground: positions held as bit sets, their moves and history, Benson's bounds
//! at every node, and a transposition table whose entries carry the part of the history they
//! depend on (see the crate documentation for the argument); `dfpn` searches the tests.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Instant;

use goref_rules::{Color, KoRule};

use crate::bits::{key, Topo, MAX_SOLVE_POINTS};
use crate::Progress;

mod dfpn;

pub(crate) use dfpn::PnTable;

/// Larger than any value: the window's open ends.
pub(crate) const INF: i32 = 1 << 29;
/// A win by the long cycle rule (001 §3.6.1), for Black; its negation for White.
pub(crate) const LC_WIN: i32 = 1 << 28;
/// No dependence on the history: no position was generated.
const NO_LEVEL: u8 = u8::MAX;
/// The value of a play the history forbids: below every value, so never chosen.
const FORBIDDEN: i32 = -INF;
/// The pass as a stored best move.
pub(crate) const PASS: u8 = 254;
/// No stored best move.
const NO_MOVE: u8 = 255;

/// The search ran out of its node budget, or another thread finished the test first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Aborted;

/// What the threads of one solve share: the transposition table, the nodes counted and the
/// signal to stop.
pub(crate) struct Shared {
    pub table: Table,
    /// The proof and disproof numbers of the search (they only guide it).
    pub numbers: dfpn::PnTable,
    /// Nodes of every thread that searches beside others, under a budget.
    pub nodes: AtomicU64,
    /// Set when a thread has answered the current test, or the budget ran out.
    pub stop: AtomicBool,
}

/// An array that the threads of a solve share and that one of them may replace by a larger
/// one (a table's growth). Each thread reads it through a [`View`] of its own, without taking
/// a lock, and takes the new array at its next node ([`Shelf::refresh`]); a thread that
/// writes to the old array after the replacement loses that write, which is sound for the
/// tables kept here: they hold only what saves work.
pub(crate) struct Shelf<T> {
    /// (An `Arc<Vec<_>>`, not an `Arc<[_]>`: the conversion of a `Vec` to the latter would
    /// copy the whole array, and a table may take half the memory.)
    current: RwLock<Arc<Vec<T>>>,
    /// Bumped by each replacement.
    generation: AtomicU64,
}

/// A thread's view of a [`Shelf`]'s array.
pub(crate) struct View<T> {
    items: Arc<Vec<T>>,
    generation: u64,
}

impl<T> std::ops::Deref for View<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items
    }
}

impl<T> Shelf<T> {
    fn new(items: Vec<T>) -> Shelf<T> {
        Shelf {
            current: RwLock::new(Arc::new(items)),
            generation: AtomicU64::new(0),
        }
    }

    /// A view of the array as it is now.
    pub fn view(&self) -> View<T> {
        let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
        View {
            items: Arc::clone(&current),
            generation: self.generation.load(Ordering::Relaxed),
        }
    }

    /// Brings `view` to the array as it is now, if it was replaced.
    #[inline]
    pub fn refresh(&self, view: &mut View<T>) {
        if self.generation.load(Ordering::Relaxed) != view.generation {
            *view = self.view();
        }
    }

    /// Replaces the array by what `grow` makes of it, unless `grow` says no (another thread
    /// may have replaced it first: `grow` sees the array as it is under the lock).
    fn replace(&self, grow: impl FnOnce(&[T]) -> Option<Vec<T>>) {
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(items) = grow(&current) {
            *current = Arc::new(items);
            self.generation.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Two slots of the transposition table, behind one lock.
pub(crate) type Pair = Mutex<[Slot; 2]>;

/// The transposition table, shared by the threads of a solve: direct-mapped pairs of slots
/// (a state takes one of two), each pair behind a lock, the whole on a [`Shelf`] so that it
/// can grow.
pub(crate) struct Table {
    pairs: Shelf<Pair>,
    /// Where a pair's second slot starts, in bytes from the start of its pair (for
    /// [`Table::prefetch`]).
    second_slot: usize,
    used_slots: AtomicUsize,
    len: AtomicUsize,
    cap: usize,
    clears: AtomicU64,
}

impl Table {
    /// Runs `f` on the pair of slots a state `ckey`, `meta` may take in `pairs` (a view of
    /// the table), its own slot first, under the pair's lock.
    fn with_pair<R>(pairs: &[Pair], ckey: u64, meta: u32, f: impl FnOnce([&Slot; 2]) -> R) -> R {
        let index = slot_index(ckey, meta, 2 * pairs.len());
        let pair = pairs[index >> 1]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        f([&pair[index & 1], &pair[(index & 1) ^ 1]])
    }

    /// Runs `f` on the slot of the state `ckey`, `meta` in `pairs` (`None` when the table
    /// does not hold it), under the lock of its pair.
    fn probe<R>(pairs: &[Pair], ckey: u64, meta: u32, f: impl FnOnce(Option<&Slot>) -> R) -> R {
        Self::with_pair(pairs, ckey, meta, |pair| {
            f(pair
                .into_iter()
                .find(|slot| slot.len > 0 && slot.ckey == ckey && slot.meta == meta))
        })
    }

    /// Asks for the heads of both slots a state `ckey`, `meta` may take in `pairs` to be
    /// loaded, without waiting for them.
    fn prefetch(&self, pairs: &[Pair], ckey: u64, meta: u32) {
        let pair = &pairs[slot_index(ckey, meta, 2 * pairs.len()) >> 1];
        let start = (pair as *const Pair).cast::<u8>();
        prefetch(start);
        prefetch(start.wrapping_add(self.second_slot));
    }

    /// Whether `pairs` may hold a result for a state of canonical colouring `ckey` whose
    /// player to move and passes are `meta` (the low bits of [`Search::meta`], which choose
    /// the slots): false when neither slot it may take holds that colouring.
    fn may_hold(pairs: &[Pair], ckey: u64, meta: u32) -> bool {
        Self::with_pair(pairs, ckey, meta, |pair| {
            pair.into_iter()
                .any(|slot| slot.len > 0 && slot.ckey == ckey && slot.meta & 3 == meta)
        })
    }

    pub fn new(cap: usize) -> Table {
        let pairs = Self::empty(FIRST_SLOTS / 2);
        let second_slot = {
            let pair = pairs[0].lock().unwrap_or_else(PoisonError::into_inner);
            &pair[1] as *const Slot as usize - &pairs[0] as *const _ as usize
        };
        Table {
            pairs: Shelf::new(pairs),
            second_slot,
            used_slots: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            cap,
            clears: AtomicU64::new(0),
        }
    }

    fn empty(pairs: usize) -> Vec<Pair> {
        huge_vec(pairs, || Mutex::new([Slot::default(), Slot::default()]))
    }

    /// A view of the table's pairs for a thread.
    pub fn view(&self) -> View<Pair> {
        self.pairs.view()
    }

    /// Brings a thread's `view` to the table as it is now, if it grew.
    #[inline]
    pub fn refresh(&self, view: &mut View<Pair>) {
        self.pairs.refresh(view);
    }

    /// Results stored.
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    /// Times a state was replaced by another in its slot.
    pub fn clears(&self) -> u64 {
        self.clears.load(Ordering::Relaxed)
    }

    /// Doubles the table when it is more than half full and below its capacity, keeping what
    /// it holds (of two states that meet in a pair, the one moved first stays), and brings
    /// `view` to it.
    fn grow_if_full(&self, view: &mut View<Pair>) {
        let slots = 2 * view.len();
        if 2 * self.used_slots.load(Ordering::Relaxed) <= slots
            || slots * ENTRIES_PER_STATE >= self.cap
        {
            return;
        }
        self.pairs.replace(|old| {
            if 2 * old.len() != slots {
                return None; // another thread grew it
            }
            let mut pairs = Self::empty(slots);
            let mut used = 0;
            let mut len = 0;
            for old_pair in old {
                let old_pair = old_pair.lock().unwrap_or_else(PoisonError::into_inner);
                for slot in old_pair.iter().filter(|s| s.len > 0) {
                    let index = slot_index(slot.ckey, slot.meta, 2 * pairs.len());
                    let pair = pairs[index >> 1]
                        .get_mut()
                        .unwrap_or_else(PoisonError::into_inner);
                    let at = if pair[index & 1].len == 0 {
                        index & 1
                    } else {
                        (index & 1) ^ 1
                    };
                    if pair[at].len == 0 {
                        used += 1;
                        len += usize::from(slot.len);
                        pair[at] = slot.clone();
                    }
                }
            }
            self.used_slots.store(used, Ordering::Relaxed);
            self.len.store(len, Ordering::Relaxed);
            Some(pairs)
        });
        self.pairs.refresh(view);
    }
}

/// The first of the two slots a state may take (the other is its index xor 1, in the same
/// pair): by its canonical colouring, the player to move and the passes (not the ko ban, so
/// that a child's slot is known before the child is set up).
#[inline]
fn slot_index(ckey: u64, meta: u32, slots: usize) -> usize {
    ((mix(ckey) ^ u64::from(meta & 3).wrapping_mul(0x9e37_79b9_7f4a_7c15)) as usize) & (slots - 1)
}

/// One node of the current line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub black: u32,
    pub white: u32,
    pub to_move: Color,
    /// Consecutive passes just played (0 or 1: two end the game).
    pub passes: u8,
    /// Basic-ko ban (001 §3.5): the point, and the player it forbids; `NO_MOVE` for none.
    pub ko_point: u8,
    pub ko_forbidden: Color,
    /// Stones captured by Black minus stones captured by White (001 §3.6 compares them).
    pub balance: i32,
    /// The length of the history before this frame's move added to it.
    pub hist_len: u32,
}

/// One position of the history: an occurrence the ko rules consult.
#[derive(Clone, Debug)]
pub(crate) struct Item {
    pub key: u64,
    /// The player to move in it (situational superko compares it).
    pub to_move: Color,
    /// Its number of stones: the level that decides whether a stored result depends on it.
    pub level: u8,
    pub balance: i32,
    /// Whether an earlier item is the same (colouring, and player to move under situational
    /// superko): it adds nothing to the history as a set.
    pub dup: bool,
    /// Its colouring key under each symmetry.
    pub sym: [u64; MAX_SYMS],
    /// Its dependency hash under each symmetry (but for the long cycle rule's balance).
    pub dep_hash: [u64; MAX_SYMS],
    /// The bits of its class (under the symmetries, with the player to move under situational
    /// superko) in a [`Gen`] Bloom filter.
    pub bloom: [u16; BLOOM_PROBES],
}

impl Item {
    /// Its stones of `player`, then the other's.
    fn stones(&self, player: Color) -> (u32, u32) {
        let (b, w) = (self.key as u32, (self.key >> 32) as u32);
        match player {
            Color::Black => (b, w),
            Color::White => (w, b),
        }
    }
}

/// The most symmetries a board has (a square's eight).
const MAX_SYMS: usize = 8;
/// Bits a class sets in a [`Gen`] Bloom filter.
const BLOOM_PROBES: usize = 3;

/// The bits of the class hash `class` in a [`Gen`] Bloom filter.
#[inline]
fn bloom_bits(class: u64) -> [u16; BLOOM_PROBES] {
    std::array::from_fn(|i| ((class >> (21 * i)) % BLOOM_BITS) as u16)
}

/// What a result depends on: a filter that no generated position fails, in two parts. A
/// history item can only matter if its level is at least `level` and its class is in
/// `bloom` (a Bloom filter of the classes of the colourings generated: no false negatives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gen {
    pub level: u8,
    pub bloom: [u64; BLOOM_WORDS],
    /// Under the long cycle rule: the positions a player's passing leaves reachable, when a
    /// Benson bound used them (see [`Search::pass_is_safe`]); `cones[c]` for player `c`
    /// passing: its stones within `.0`, the opponent's holding `.1`. `None`: unused.
    pub cones: [Option<(u32, u32)>; 2],
    /// When a Benson bound counted a two-point eye for player `c`: the history positions in
    /// which `c`'s stones hold `pats[c]` (see [`Search::keeps`]). `None`: unused.
    pub pats: [Option<u32>; 2],
}

/// Words of a [`Gen`] Bloom filter.
pub(crate) const BLOOM_WORDS: usize = 8;
const BLOOM_BITS: u64 = 64 * BLOOM_WORDS as u64;

impl Gen {
    /// Nothing generated: no history item matters.
    pub const NONE: Gen = Gen {
        level: NO_LEVEL,
        bloom: [0; BLOOM_WORDS],
        cones: [None; 2],
        pats: [None; 2],
    };

    /// The positions `passer`'s passing leaves reachable from `black`/`white`.
    fn cone(passer: Color, black: u32, white: u32) -> Gen {
        let mut gen = Gen::NONE;
        gen.cones[passer.index()] = Some(match passer {
            Color::Black => (black, white),
            Color::White => (white, black),
        });
        gen
    }

    /// The same filter seen through symmetry `s` (only the cones change).
    fn mapped(&self, topo: &Topo, s: usize) -> Gen {
        let mut gen = *self;
        for cone in gen.cones.iter_mut().flatten() {
            *cone = (topo.map(s, cone.0), topo.map(s, cone.1));
        }
        for pat in gen.pats.iter_mut().flatten() {
            *pat = topo.map(s, *pat);
        }
        gen
    }

    fn add(&mut self, level: u8, class: u64) {
        self.level = self.level.min(level);
        for bit in bloom_bits(class) {
            self.bloom[usize::from(bit / 64)] |= 1 << (bit % 64);
        }
    }

    fn union(&mut self, other: &Gen) {
        self.level = self.level.min(other.level);
        for (a, b) in self.bloom.iter_mut().zip(other.bloom) {
            *a |= b;
        }
        for (a, b) in self.cones.iter_mut().zip(other.cones) {
            *a = match (*a, b) {
                (Some((own, opp)), Some((own2, opp2))) => Some((own | own2, opp & opp2)),
                (a, b) => a.or(b),
            };
        }
        for (a, b) in self.pats.iter_mut().zip(other.pats) {
            *a = match (*a, b) {
                (Some(x), Some(y)) => Some(x & y),
                (a, b) => a.or(b),
            };
        }
    }

    /// Whether a history item (whose colouring is `key` in this filter's frame) may have been
    /// generated, or may lie in a cone (and so may matter).
    #[inline]
    fn may_hold(&self, item: &Item, key: u64) -> bool {
        let generated = item.level >= self.level
            && item
                .bloom
                .iter()
                .all(|&bit| self.bloom[usize::from(bit / 64)] & (1 << (bit % 64)) != 0);
        let (b, w) = (key as u32, (key >> 32) as u32);
        generated
            || self.cones.iter().enumerate().any(|(c, cone)| {
                cone.is_some_and(|(own, opp)| {
                    let (i_own, i_opp) = if c == 0 { (b, w) } else { (w, b) };
                    i_own & !own == 0 && i_opp & opp == opp
                })
            })
            || self.pats.iter().enumerate().any(|(c, pat)| {
                pat.is_some_and(|own| {
                    let i_own = if c == 0 { b } else { w };
                    i_own & own == own
                })
            })
    }
}

/// A history position an entry depends on, in the canonical frame of the entry's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Dep {
    key: u64,
    to_move: u8,
    /// Under the long cycle rule: the node's capture balance minus the item's.
    balance: i32,
}

/// A stored result: bounds on the value of a node for every history whose items that `gen`
/// may hold are exactly `deps`.
#[derive(Clone, Debug)]
struct Entry {
    gen: Gen,
    deps_hash: u64,
    deps: Box<[Dep]>,
    lower: i32,
    upper: i32,
    best: u8,
}

impl Default for Entry {
    fn default() -> Entry {
        Entry {
            gen: Gen::NONE,
            deps_hash: 0,
            deps: Box::default(),
            lower: -INF,
            upper: INF,
            best: NO_MOVE,
        }
    }
}

/// One slot of the table: the results stored for one state (canonical colouring and the rest
/// of the state), each with the history it depends on. (In declaration order: a probe reads
/// the header first, from the slot's first cache line.)
#[derive(Clone, Default)]
#[repr(C)]
pub(crate) struct Slot {
    ckey: u64,
    meta: u32,
    len: u8,
    /// The entry to replace next when all are used.
    next: u8,
    /// The most nodes searched for one of its entries: of two slots a new state may take,
    /// the one that cost less is replaced.
    work: u32,
    entries: [Entry; ENTRIES_PER_STATE],
}

/// Slots of a new table (it doubles, up to its capacity, as it fills): an even number.
const FIRST_SLOTS: usize = 1 << 12;

/// A candidate move at a node.
#[derive(Clone, Copy, Debug)]
struct Cand {
    order: i32,
    point: u8,
    /// The value of the game ended by this play (long cycle), for the player to move.
    terminal: Option<i32>,
    black: u32,
    white: u32,
    captured: u32,
    suicided: u32,
    makes_ko: bool,
    /// The stones and the class hash of the colouring it makes.
    level: u8,
    class: u64,
    /// The least image of its colouring under the symmetries (the table's key for it).
    least: u64,
}

/// How often a long search reports that it goes on, in nodes of its first thread.
pub(crate) const HEARTBEAT_NODES: u64 = 1 << 24;

/// What a long test reports as it goes on (see [`Search::heartbeat`]).
#[derive(Clone, Copy)]
pub(crate) struct Heartbeat {
    /// The progress callback.
    pub report: fn(&Progress),
    /// The bounds proved before the test.
    pub bounds: Progress,
    /// When the solve started.
    pub start: Instant,
}

/// Most results kept for one state (with different histories).
const ENTRIES_PER_STATE: usize = 4;

pub(crate) struct Search {
    pub topo: Topo,
    pub ko_rule: KoRule,
    pub suicide_allowed: bool,
    pub komi_half: i32,
    pub frames: Vec<Frame>,
    pub hist: Vec<Item>,
    /// The transposition table (shared with the other threads, if any), the nodes counted
    /// by all, and the signal to stop.
    pub shared: Arc<Shared>,
    /// Whether other threads search beside this one (then the budget is checked on the
    /// shared count, and the stop signal is read).
    pub parallel: bool,
    /// Nodes this thread searched.
    pub nodes: u64,
    pub budget: Option<u64>,
    /// Where a long test reports that it goes on, every [`HEARTBEAT_NODES`] nodes of this
    /// thread.
    pub heartbeat: Option<Heartbeat>,
    /// A helper thread's salt for its move order (0: none), so that threads part ways.
    pub salt: u64,
    /// Two plays per ply that last answered a test yes.
    killers: Vec<[u8; 2]>,
    /// This thread's views of the transposition table and of the proof-number table.
    table_view: View<Pair>,
    numbers_view: View<[AtomicU64; 2]>,
    /// Lists of moves for the nodes of the search to use (one per node of the line, at
    /// most).
    lists: Vec<dfpn::Lists>,
}

/// Asks for the cache line at `at` to be loaded, without waiting for it.
#[inline]
fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing and cannot fault, whatever the
    // address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// `len` values made by `make`, in memory that the kernel is asked to back with huge pages
/// (2 MiB on x86-64) before it is first written: a table of millions of entries is probed at
/// random, and with 4 KiB pages nearly every probe also misses the TLB (measured on 5×5 with
/// a 67M-entry table: a node costs twice what it costs with a small table).
pub(crate) fn huge_vec<T>(len: usize, make: impl FnMut() -> T) -> Vec<T> {
    let mut items = Vec::with_capacity(len);
    advise_huge_pages(items.as_mut_ptr(), len * std::mem::size_of::<T>());
    items.extend(std::iter::repeat_with(make).take(len));
    items
}

/// Asks for the whole huge pages within `bytes` from `at` to be backed by huge pages (Linux
/// `madvise(MADV_HUGEPAGE)`, which transparent huge pages in `madvise` mode wait for). Only
/// advice: where the kernel declines, nothing changes.
fn advise_huge_pages<T>(at: *mut T, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (at as usize).next_multiple_of(HUGE);
        let end = (at as usize + bytes) / HUGE * HUGE;
        if end > start {
            // SAFETY: the range lies within an allocation this process owns (`at` is the
            // start of `bytes` of a `Vec`'s capacity); MADV_HUGEPAGE changes how its pages
            // are backed, never their contents, and its failure is ignored.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (at, bytes);
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

impl Search {
    pub fn new(
        topo: Topo,
        ko_rule: KoRule,
        suicide_allowed: bool,
        komi_half: i32,
        shared: Arc<Shared>,
    ) -> Search {
        Search {
            topo,
            ko_rule,
            suicide_allowed,
            komi_half,
            frames: Vec::new(),
            hist: Vec::new(),
            parallel: false,
            nodes: 0,
            budget: None,
            heartbeat: None,
            salt: 0,
            killers: Vec::new(),
            lists: Vec::new(),
            table_view: shared.table.view(),
            numbers_view: shared.numbers.view(),
            shared,
        }
    }

    /// Positions stored in the table.
    pub fn table_len(&self) -> usize {
        self.shared.table.len()
    }

    /// A search of the same line (frames and history) for another thread, sharing the table.
    pub fn helper(&self, salt: u64) -> Search {
        let mut helper = Search::new(
            self.topo.clone(),
            self.ko_rule,
            self.suicide_allowed,
            self.komi_half,
            Arc::clone(&self.shared),
        );
        helper.frames.clone_from(&self.frames);
        helper.hist.clone_from(&self.hist);
        helper.budget = self.budget;
        helper.parallel = true;
        helper.salt = salt;
        helper
    }

    /// Counts a node; `Err` when the budget is spent or (beside other threads) another
    /// thread said stop.
    #[inline]
    fn count_node(&mut self) -> Result<(), Aborted> {
        self.nodes += 1;
        self.shared.table.refresh(&mut self.table_view);
        self.shared.numbers.refresh(&mut self.numbers_view);
        if self.nodes.is_multiple_of(HEARTBEAT_NODES) {
            if let Some(beat) = self.heartbeat {
                (beat.report)(&Progress {
                    nodes: self.nodes,
                    elapsed: beat.start.elapsed(),
                    ..beat.bounds
                });
            }
        }
        if !self.parallel {
            return match self.budget {
                Some(b) if self.nodes > b => Err(Aborted),
                _ => Ok(()),
            };
        }
        // Under a budget, one atomic addition a node, so that the budget is exact; without
        // one, no shared count (the threads would contend for its cache line).
        if let Some(b) = self.budget {
            if self.shared.nodes.fetch_add(1, Ordering::Relaxed) + 1 > b {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
        if self.shared.stop.load(Ordering::Relaxed) {
            return Err(Aborted);
        }
        Ok(())
    }

    /// Adds a history item (a new position of the line, or of the record before it).
    pub fn push_item(&mut self, black: u32, white: u32, to_move: Color, balance: i32) {
        let k = key(black, white);
        let ssk = self.ko_rule == KoRule::SituationalSuperko;
        let dup = self
            .hist
            .iter()
            .any(|i| i.key == k && (!ssk || i.to_move == to_move));
        let nsyms = self.topo.syms.len();
        let mut sym = [k; MAX_SYMS];
        for (s, image) in sym.iter_mut().enumerate().take(nsyms).skip(1) {
            *image = self.topo.map_key(s, k);
        }
        let class = self.class(sym[..nsyms].iter().copied().min().unwrap_or(k), to_move);
        let mut item = Item {
            key: k,
            to_move,
            level: (black | white).count_ones() as u8,
            balance,
            dup,
            sym,
            dep_hash: [0; MAX_SYMS],
            bloom: bloom_bits(class),
        };
        for s in 0..nsyms {
            item.dep_hash[s] = Self::dep_hash(&self.dep_of(&item, s, balance));
        }
        self.hist.push(item);
    }

    /// The hash of a colouring's class (given by its least image under the symmetries), with
    /// the player to move under situational superko.
    fn class(&self, least: u64, to_move: Color) -> u64 {
        let side = if self.ko_rule == KoRule::SituationalSuperko {
            to_move.index() as u64 + 1
        } else {
            0
        };
        mix(least ^ mix(side))
    }

    /// The first history item that a play making colouring `k` (with `to_move` to move after
    /// it) repeats, as the ko rule compares them.
    fn repeats(&self, k: u64, to_move: Color) -> Option<&Item> {
        match self.ko_rule {
            KoRule::Simple => None,
            KoRule::SituationalSuperko => self
                .hist
                .iter()
                .find(|i| i.key == k && i.to_move == to_move),
            KoRule::PositionalSuperko | KoRule::LongCycle => self.hist.iter().find(|i| i.key == k),
        }
    }

    /// The score of the board as it stands, for Black, in half points with komi (TT rule 9,
    /// 001 §3.8).
    pub fn area_value(&self, black: u32, white: u32) -> i32 {
        let (b, w) = self.topo.area(black, white);
        2 * (b as i32 - w as i32) - self.komi_half
    }

    /// The symmetry that maps the frame's colouring to its least image, and that image.
    fn canonical(&self, f: &Frame) -> (u64, usize) {
        self.least_image(key(f.black, f.white))
    }

    /// The least image of the colouring `k` under the symmetries, and the symmetry that
    /// maps `k` to it.
    fn least_image(&self, k: u64) -> (u64, usize) {
        let mut best = (k, 0);
        for s in 1..self.topo.syms.len() {
            let image = self.topo.map_key(s, k);
            if image < best.0 {
                best = (image, s);
            }
        }
        best
    }

    fn meta(&self, f: &Frame, s: usize) -> u32 {
        let ko = if f.ko_point == NO_MOVE {
            u32::from(NO_MOVE)
        } else {
            u32::from(self.topo.syms[s][f.ko_point as usize])
        };
        f.to_move.index() as u32
            | u32::from(f.passes) << 1
            | (f.ko_forbidden.index() as u32) << 2
            | ko << 3
    }

    fn dep_of(&self, item: &Item, s: usize, node_balance: i32) -> Dep {
        Dep {
            key: item.sym[s],
            to_move: if self.ko_rule == KoRule::SituationalSuperko {
                item.to_move.index() as u8
            } else {
                0
            },
            balance: if self.ko_rule == KoRule::LongCycle {
                node_balance - item.balance
            } else {
                0
            },
        }
    }

    fn dep_hash(d: &Dep) -> u64 {
        mix(d.key ^ mix(u64::from(d.to_move) << 40 ^ (d.balance as u32 as u64)))
    }

    /// The hash and number of the history items that `gen` may hold, as dependencies.
    fn deps_summary(&self, gen: &Gen, s: usize, balance: i32) -> (u64, usize) {
        let mut hash = 0;
        let mut count = 0;
        let long_cycle = self.ko_rule == KoRule::LongCycle;
        for item in self
            .hist
            .iter()
            .filter(|i| !i.dup && gen.may_hold(i, i.sym[s]))
        {
            hash ^= if long_cycle {
                Self::dep_hash(&self.dep_of(item, s, balance))
            } else {
                item.dep_hash[s]
            };
            count += 1;
        }
        (hash, count)
    }

    fn deps(&self, gen: &Gen, s: usize, balance: i32) -> Box<[Dep]> {
        let mut deps: Vec<Dep> = self
            .hist
            .iter()
            .filter(|i| !i.dup && gen.may_hold(i, i.sym[s]))
            .map(|i| self.dep_of(i, s, balance))
            .collect();
        deps.sort_unstable();
        deps.into_boxed_slice()
    }

    /// Whether the history items that `e.gen` may hold are exactly `e.deps` (seen from the
    /// canonical frame `s`, with the node's capture balance under the long cycle rule).
    fn deps_match(&self, e: &Entry, s: usize, balance: i32) -> bool {
        let mut count = 0;
        for item in self
            .hist
            .iter()
            .filter(|i| !i.dup && e.gen.may_hold(i, i.sym[s]))
        {
            count += 1;
            if count > e.deps.len()
                || e.deps
                    .binary_search(&self.dep_of(item, s, balance))
                    .is_err()
            {
                return false;
            }
        }
        count == e.deps.len()
    }

    /// The stored results for the test "at least `beta`?" at `f` (the state `ckey`, `meta`,
    /// in the canonical frame `s`) whose history matches: `Err` with a bound that answers the
    /// test and what it depends on, else the best move stored (`NO_MOVE` for none).
    pub(crate) fn stored(
        &self,
        f: &Frame,
        ckey: u64,
        s: usize,
        meta: u32,
        beta: i32,
    ) -> Result<u8, (i32, Gen)> {
        Table::probe(&self.table_view, ckey, meta, |slot| {
            let mut tt_best = NO_MOVE;
            let entries = slot.map_or(&[][..], |slot| &slot.entries[..usize::from(slot.len)]);
            for e in entries {
                if !self.deps_match(e, s, f.balance) {
                    continue;
                }
                if e.best != NO_MOVE {
                    tt_best = self.unmapped(s, e.best);
                }
                let back = || e.gen.mapped(&self.topo, self.topo.inverse[s]);
                if e.lower >= beta {
                    return Err((e.lower, back()));
                }
                if e.upper < beta {
                    return Err((e.upper, back()));
                }
            }
            Ok(tt_best)
        })
    }

    /// Benson's bounds on the value of `f` for the player to move, whatever the history (see
    /// the crate documentation): each player keeps its pass-alive chains and the single
    /// points they surround. The least value, what it depends on, the greatest, and what that
    /// depends on.
    pub(crate) fn static_bounds(&self, f: &Frame) -> (i32, Gen, i32, Gen) {
        let mover = f.to_move;
        // Where a player's passing is no strategy (under the long cycle rule the other
        // could recreate an earlier position and win by 3.6), the bound is only that no
        // value passes a long-cycle win, whatever the history.
        let n = self.topo.all.count_ones() as i32;
        let komi = self.relative(f.to_move, self.komi_half);
        let (low, own_gen) = match self.keeps(f, mover) {
            Some((own, gen)) => (2 * (2 * own - n) - komi, gen),
            None => (-LC_WIN, Gen::NONE),
        };
        let (high, opp_gen) = match self.keeps(f, mover.opponent()) {
            Some((opp, gen)) => (2 * (n - 2 * opp) - komi, gen),
            None => (LC_WIN, Gen::NONE),
        };
        (low, own_gen, high, opp_gen)
    }

    /// Asks for the table slots of the positions `cands` make from `f` to be loaded, and
    /// their numbers for the test "at least `beta`?" at `f`, before they are looked up one by
    /// one.
    fn prefetch_children(&self, f: &Frame, cands: &[Cand], beta: i32) {
        let child_meta = f.to_move.opponent().index() as u32;
        for c in cands.iter().filter(|c| c.terminal.is_none()) {
            self.shared
                .table
                .prefetch(&self.table_view, c.least, child_meta);
            PnTable::prefetch(&self.numbers_view, c.least, child_meta, 1 - beta);
        }
    }

    /// The best move stored for the line's last frame, from the result with the greatest
    /// lower bound among those whose history matches (the play that proved it), if any.
    pub fn stored_best(&self) -> Option<u8> {
        let f = *self.frames.last()?;
        let (ckey, s) = self.canonical(&f);
        let meta = self.meta(&f, s);
        let best = Table::probe(&self.table_view, ckey, meta, |slot| {
            let slot = slot?;
            let e = slot.entries[..usize::from(slot.len)]
                .iter()
                .filter(|e| e.best != NO_MOVE && self.deps_match(e, s, f.balance))
                .max_by_key(|e| e.lower)?;
            Some(e.best)
        })?;
        Some(self.unmapped(s, best))
    }

    /// A move stored in the canonical frame `s`, in the line's frame.
    fn unmapped(&self, s: usize, mv: u8) -> u8 {
        if mv == PASS {
            PASS
        } else {
            self.topo.syms[self.topo.inverse[s]][mv as usize]
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        f: &Frame,
        ckey: u64,
        s: usize,
        meta: u32,
        gen: Gen,
        lower: i32,
        upper: i32,
        best_move: u8,
        work: u64,
    ) {
        let work = work.min(u64::from(u32::MAX)) as u32;
        let gen = gen.mapped(&self.topo, s);
        let (deps_hash, count) = self.deps_summary(&gen, s, f.balance);
        let deps = if count == 0 {
            Box::default()
        } else {
            self.deps(&gen, s, f.balance)
        };
        let best = if best_move == NO_MOVE || best_move == PASS {
            best_move
        } else {
            self.topo.syms[s][best_move as usize]
        };
        let table = &self.shared.table;
        table.grow_if_full(&mut self.table_view);
        let pairs = &self.table_view;
        let index = slot_index(ckey, meta, 2 * pairs.len());
        let mut pair = pairs[index >> 1]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let same = |slot: &Slot| slot.len > 0 && slot.ckey == ckey && slot.meta == meta;
        let (i_here, i_there) = (index & 1, (index & 1) ^ 1);
        let (here, there) = (&pair[i_here], &pair[i_there]);
        let at_slot = if same(here) {
            i_here
        } else if same(there) {
            i_there
        } else if here.len == 0 {
            i_here
        } else if there.len == 0 || there.work < here.work {
            i_there
        } else {
            i_here
        };
        let slot = &mut pair[at_slot];
        slot.work = slot.work.max(work);
        if slot.len == 0 {
            table.used_slots.fetch_add(1, Ordering::Relaxed);
        } else if slot.ckey != ckey || slot.meta != meta {
            table
                .len
                .fetch_sub(usize::from(slot.len), Ordering::Relaxed);
            table.clears.fetch_add(1, Ordering::Relaxed);
            *slot = Slot::default();
            slot.work = work;
        }
        slot.ckey = ckey;
        slot.meta = meta;
        let len = usize::from(slot.len);
        if let Some(e) = slot.entries[..len]
            .iter_mut()
            .find(|e| e.gen == gen && e.deps_hash == deps_hash && e.deps == deps)
        {
            e.lower = e.lower.max(lower);
            e.upper = e.upper.min(upper);
            e.best = best;
        } else {
            let at = if len < ENTRIES_PER_STATE {
                slot.len += 1;
                table.len.fetch_add(1, Ordering::Relaxed);
                len
            } else {
                let at = usize::from(slot.next);
                slot.next = ((at + 1) % ENTRIES_PER_STATE) as u8;
                at
            };
            slot.entries[at] = Entry {
                gen,
                deps_hash,
                deps,
                lower,
                upper,
                best,
            };
        }
    }

    /// The points `player` keeps to the end of the game from `f` with this history, whatever
    /// the opponent plays (see the crate documentation), and what that depends on in the
    /// history: its pass-alive chains and single-point eyes (Benson), and under the superko
    /// rules its two-point eyes of empty points as well, each where `player`'s answer to a
    /// throw-in cannot repeat a position of the history. Under the long cycle rule: nothing
    /// with suicide allowed, the chains and eyes where [`Search::pass_is_safe`] says so.
    fn keeps(&self, f: &Frame, player: Color) -> Option<(i32, Gen)> {
        let long_cycle = self.ko_rule == KoRule::LongCycle;
        if long_cycle && (self.suicide_allowed || !self.pass_is_safe(f, player)) {
            return None;
        }
        let (own, opp) = match player {
            Color::Black => (f.black, f.white),
            Color::White => (f.white, f.black),
        };
        let safe = self.topo.pass_alive(own, opp, self.suicide_allowed);
        let mut count = safe.count() as i32;
        if long_cycle {
            return Some((count, Gen::cone(player, f.black, f.white)));
        }
        if safe.chains == 0 {
            return Some((count, Gen::NONE));
        }
        let mut gen = Gen::NONE;
        let empty = self.topo.all & !(own | opp);
        // The points the rules below look at, so that the last one counts no point twice.
        let mut seen = safe.eyes;
        for (a, b) in self.topo.two_point_eyes(safe.chains, empty) {
            seen |= a | b;
            // After a throw-in at one point, `player` takes it back from the other: that
            // position has the chains, a stone on one point and the other empty. The line
            // from here makes none before the first throw-in; the history must hold none.
            let answer_repeats = |stone: u32, hole: u32| {
                let need = safe.chains | stone;
                self.hist.iter().any(|i| {
                    let (i_own, i_opp) = i.stones(player);
                    i_own & need == need && (i_own | i_opp) & hole == 0
                })
            };
            if !answer_repeats(b, a) && !answer_repeats(a, b) {
                count += 2;
                gen.pats[player.index()] = Some(safe.chains);
            }
        }
        // The other's pass now ends the game when `player` has just passed: its stones in
        // a region stay there.
        let may_end_now = f.to_move != player && f.passes >= 1;
        // `player` fills the liberties of the other's stones there until none is left (see
        // the crate documentation): each such play makes a position with `player`'s stones on
        // the chains and in the region, which the line from here makes at no earlier time;
        // the history must hold none.
        let keeps_region = |region: u32| {
            (!may_end_now || region & opp == 0)
                && !self.hist.iter().any(|i| {
                    let (i_own, _) = i.stones(player);
                    i_own & safe.chains == safe.chains && i_own & region != 0
                })
        };
        for region in self.topo.filled_regions(safe.chains, opp) {
            seen |= region;
            if keeps_region(region) {
                count += region.count_ones() as i32;
                gen.pats[player.index()] = Some(safe.chains);
            }
        }
        // Regions with one interior point at most, filled the same way, where the chains
        // around them stay pass-alive without them (see the crate documentation).
        let mut interior = [0u32; MAX_SOLVE_POINTS];
        let mut found = 0;
        // (A region of one or two empty points is an eye or a two-point eye above: seen.)
        for region in self.topo.interior_regions(own, safe.chains) {
            if region & seen == 0 {
                interior[found] = region;
                found += 1;
            }
        }
        if found > 0 {
            let filled = interior[..found].iter().fold(0, |a, &r| a | r);
            let steady = self
                .topo
                .pass_alive_without(own, opp, self.suicide_allowed, filled)
                .chains;
            for &region in &interior[..found] {
                if self.topo.nbrs(region) & own & !steady == 0 && keeps_region(region) {
                    count += region.count_ones() as i32;
                    gen.pats[player.index()] = Some(safe.chains);
                }
            }
        }
        Some((count, gen))
    }

    /// Whether the Benson bound that `passer` gets by passing at every turn holds at `f` with
    /// this history. Under the superko rules it always does (the opponent's plays may not
    /// repeat a position; a pass is always legal). Under the long cycle rule the opponent
    /// could recreate an earlier position and end the game by 001 §3.6 instead of two passes:
    /// while `passer` only passes, `passer`'s stones only shrink and the opponent's only grow
    /// (no suicide), strictly at each play, so that can happen only with an earlier position
    /// whose `passer` stones are among `f`'s and whose opponent stones hold more than `f`'s.
    /// If the history has none, the bound holds; the answer then depends on the history's
    /// items in that cone.
    fn pass_is_safe(&self, f: &Frame, passer: Color) -> bool {
        if self.ko_rule != KoRule::LongCycle {
            return true;
        }
        let (own, opp) = match passer {
            Color::Black => (f.black, f.white),
            Color::White => (f.white, f.black),
        };
        !self.hist.iter().any(|i| {
            let (i_own, i_opp) = i.stones(passer);
            i_own & !own == 0 && i_opp & opp == opp && i_opp != opp
        })
    }

    /// A value for Black as a value for `to_move`.
    fn relative(&self, to_move: Color, for_black: i32) -> i32 {
        if to_move == Color::Black {
            for_black
        } else {
            -for_black
        }
    }

    /// The plays at `f` that are legal whatever the history (not suicide where it is illegal,
    /// not a basic-ko recapture), ordered, into `out`, less those the history forbids. Each
    /// carries its colouring's class: the history was consulted about it.
    fn candidates(&self, f: &Frame, tt_best: u8, killer: [u8; 2], out: &mut Vec<Cand>) {
        let (own, opp) = match f.to_move {
            Color::Black => (f.black, f.white),
            Color::White => (f.white, f.black),
        };
        // The images of `f`'s colouring under the symmetries: a play that captures nothing
        // adds one stone to each.
        let nsyms = self.topo.syms.len();
        let mut images = [0u64; MAX_SYMS];
        for (s, image) in images.iter_mut().enumerate().take(nsyms).skip(1) {
            *image = self.topo.map_key(s, key(f.black, f.white));
        }
        // The colouring of one stone of the player to move, on the point `q`.
        let stone = |q: u8| match f.to_move {
            Color::Black => key(1 << q, 0),
            Color::White => key(0, 1 << q),
        };
        let mut empty = self.topo.all & !(f.black | f.white);
        while empty != 0 {
            let p = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            let played = self.topo.play(own, opp, p);
            if played.suicided > 0 && !self.suicide_allowed {
                continue; // 001 §3.5, NSTT
            }
            if f.ko_point as usize == p && f.ko_forbidden == f.to_move && played.captured == 1 {
                continue; // 001 §3.5: basic ko
            }
            let (black, white) = match f.to_move {
                Color::Black => (played.own, played.opp),
                Color::White => (played.opp, played.own),
            };
            let k = key(black, white);
            let level = (black | white).count_ones() as u8;
            let least = if played.captured == 0 && played.suicided == 0 {
                (1..nsyms)
                    .map(|s| images[s] | stone(self.topo.syms[s][p]))
                    .fold(k, u64::min)
            } else {
                self.least_image(k).0
            };
            debug_assert_eq!(least, self.least_image(k).0);
            let class = self.class(least, f.to_move.opponent());
            let mut terminal = None;
            if let Some(first) = self.repeats(k, f.to_move.opponent()) {
                if self.ko_rule != KoRule::LongCycle {
                    // TT rule 6, situational superko: kept for the dependency, never played.
                    out.push(Cand {
                        order: i32::MIN,
                        point: p as u8,
                        terminal: Some(FORBIDDEN),
                        black,
                        white,
                        captured: 0,
                        suicided: 0,
                        makes_ko: false,
                        level,
                        class,
                        least,
                    });
                    continue;
                }
                // 001 §3.6: the game ends; captures between the two occurrences decide it.
                let mut balance = f.balance;
                match f.to_move {
                    Color::Black => balance += played.captured as i32 - played.suicided as i32,
                    Color::White => balance += played.suicided as i32 - played.captured as i32,
                }
                let between = balance - first.balance;
                let for_black = LC_WIN * between.signum();
                terminal = Some(self.relative(f.to_move, for_black));
            }
            let order = if p as u8 == tt_best {
                1 << 30
            } else if killer.contains(&(p as u8)) {
                1 << 29
            } else {
                // A helper thread's salt reorders plays of like captures, so that the
                // threads part ways.
                let salt = if self.salt == 0 {
                    0
                } else {
                    (mix(self.salt ^ p as u64) >> 48) as i32
                };
                (played.captured as i32) * (1 << 22)
                    + (self.topo.nbr(p).count_ones() as i32)
                    + salt
                    - (played.suicided as i32) * (1 << 25)
                    // Filling one's own eye: rarely better than the pass.
                    - i32::from(self.topo.nbr(p) & !own == 0) * (1 << 24)
            };
            out.push(Cand {
                order,
                point: p as u8,
                terminal,
                black,
                white,
                captured: played.captured,
                suicided: played.suicided,
                makes_ko: played.makes_ko,
                level,
                class,
                least,
            });
        }
        out.sort_by_key(|c| std::cmp::Reverse(c.order));
    }

    fn push_play(&mut self, f: &Frame, c: &Cand) {
        let mut balance = f.balance;
        match f.to_move {
            Color::Black => balance += c.captured as i32 - c.suicided as i32,
            Color::White => balance += c.suicided as i32 - c.captured as i32,
        }
        let (ko_point, ko_forbidden) = if self.ko_rule.has_basic_ko() && c.makes_ko {
            let own_before = match f.to_move {
                Color::Black => f.white,
                Color::White => f.black,
            };
            let after_opp = match f.to_move {
                Color::Black => c.white,
                Color::White => c.black,
            };
            let taken = own_before & !after_opp;
            (taken.trailing_zeros() as u8, f.to_move.opponent())
        } else {
            (NO_MOVE, Color::Black)
        };
        let to_move = f.to_move.opponent();
        self.frames.push(Frame {
            black: c.black,
            white: c.white,
            to_move,
            passes: 0,
            ko_point,
            ko_forbidden,
            balance,
            hist_len: self.hist.len() as u32,
        });
        self.push_item(c.black, c.white, to_move, balance);
    }

    fn push_pass(&mut self, f: &Frame) {
        let to_move = f.to_move.opponent();
        let mut next = *f;
        next.to_move = to_move;
        next.passes = f.passes + 1;
        next.hist_len = self.hist.len() as u32;
        self.frames.push(next);
        // Under situational superko a pass makes a new situation (the same colouring, the
        // other player to move); under the other rules it adds no position.
        if self.ko_rule == KoRule::SituationalSuperko {
            self.push_item(f.black, f.white, to_move, f.balance);
        }
    }

    /// Takes back the last move of the line.
    pub fn pop(&mut self) {
        let f = self.frames.pop().expect("a move to take back");
        self.hist.truncate(f.hist_len as usize);
    }

    /// Plays a move (a point index, or [`PASS`]) on the line, as the search would; returns
    /// the value for Black when the move ends the game.
    pub fn play_line(&mut self, mv: u8) -> Option<i32> {
        let f = *self.frames.last().expect("a node");
        if mv == PASS {
            if f.passes >= 1 {
                return Some(self.area_value(f.black, f.white));
            }
            self.push_pass(&f);
            return None;
        }
        let mut cands = Vec::new();
        self.candidates(&f, NO_MOVE, [NO_MOVE; 2], &mut cands);
        cands.retain(|c| c.terminal != Some(FORBIDDEN));
        let c = *cands.iter().find(|c| c.point == mv).expect("a legal move");
        if let Some(v) = c.terminal {
            return Some(self.relative(f.to_move, v));
        }
        self.push_play(&f, &c);
        None
    }

    /// The first null-window test of a solve between the finite bounds `lower` and `upper`
    /// (for the player to move), when it is not their middle: whether the side that the board
    /// as it stands favours (the player to move on a tie) takes the whole board. Where that
    /// holds (3×3, 2×n, 5×5) it is one test at the bound whose failures come early (one point
    /// the other keeps), where bisection would prove ever higher bounds one after another;
    /// where it fails it is one test more (2×6 nstt 1.13M nodes to 296k, 3×4 1.23M to 941k).
    /// Not on lines and cycles (no point with three neighbours), where no chain encloses an
    /// interior and the whole board is rarely won: there it made 1×8 nstt 395k nodes to 1.35M.
    pub fn first_test(&self, lower: i32, upper: i32) -> Option<i32> {
        let f = self.frames.last()?;
        if !self.branches() || lower >= upper {
            return None;
        }
        let standing = self.relative(f.to_move, self.area_value(f.black, f.white));
        Some(if standing >= 0 { upper } else { lower + 1 })
    }

    /// Whether the board has a point of three neighbours or more (not a line nor a cycle, where
    /// no chain encloses an interior).
    pub fn branches(&self) -> bool {
        (0..MAX_SOLVE_POINTS)
            .filter(|&p| self.topo.all >> p & 1 == 1)
            .any(|p| self.topo.nbr(p).count_ones() >= 3)
    }

    /// The legal moves at the end of the line: plays, then the pass.
    pub fn moves(&self) -> Vec<u8> {
        let f = *self.frames.last().expect("a node");
        let mut cands = Vec::new();
        self.candidates(&f, NO_MOVE, [NO_MOVE; 2], &mut cands);
        cands.retain(|c| c.terminal != Some(FORBIDDEN));
        let mut moves: Vec<u8> = cands.iter().map(|c| c.point).collect();
        moves.push(PASS);
        moves
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    use goref_rules::{Game, Ruleset};

    use super::{Heartbeat, HEARTBEAT_NODES};
    use crate::Progress;

    /// The nodes of each heartbeat reported (the test's own: one test at a time uses it).
    static BEATS: AtomicU64 = AtomicU64::new(0);
    static LAST: AtomicU64 = AtomicU64::new(0);

    /// A search reports every `HEARTBEAT_NODES` of its nodes, with its count, the bounds it
    /// was given and the time since the solve started; and never without a callback.
    #[test]
    fn a_long_search_reports_its_nodes_as_it_goes() {
        let game = Game::rect(2, 2, Ruleset::NSTT).unwrap();
        let mut search = crate::root(&game, 16);
        let start = Instant::now();
        let bounds = Progress {
            lower: Some(crate::Value(-8)),
            upper: Some(crate::Value(8)),
            nodes: 0,
            elapsed: Duration::ZERO,
        };
        fn report(p: &Progress) {
            assert_eq!(
                (p.lower, p.upper),
                (Some(crate::Value(-8)), Some(crate::Value(8)))
            );
            BEATS.fetch_add(1, Ordering::Relaxed);
            LAST.store(p.nodes, Ordering::Relaxed);
        }
        for _ in 0..HEARTBEAT_NODES {
            search.count_node().unwrap();
        }
        assert_eq!(BEATS.load(Ordering::Relaxed), 0, "no callback, no report");
        search.heartbeat = Some(Heartbeat {
            report,
            bounds,
            start,
        });
        for _ in 0..2 * HEARTBEAT_NODES - 1 {
            search.count_node().unwrap();
        }
        assert_eq!(BEATS.load(Ordering::Relaxed), 1);
        assert_eq!(LAST.load(Ordering::Relaxed), 2 * HEARTBEAT_NODES);
        search.count_node().unwrap();
        assert_eq!(BEATS.load(Ordering::Relaxed), 2);
        assert_eq!(LAST.load(Ordering::Relaxed), 3 * HEARTBEAT_NODES);
    }
}
