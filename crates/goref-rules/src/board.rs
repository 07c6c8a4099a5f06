//! The fast board: strings kept as circular lists with pseudo-liberty counts and an
//! incremental Zobrist hash, so that a play, its legality and its resulting hash cost time in
//! proportion to the stones it touches.
//!
//! A *pseudo-liberty* is an (empty point, adjacent stone) pair: a string's count is zero exactly
//! when it has no liberties (Olympiad 3.3), which is all that captures and suicide need.

use std::fmt;
use std::sync::Arc;

use crate::{ByColor, Color, Geometry, Point};

/// What a play of one colour on one empty point would do, computed without changing the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effect {
    /// Opposing stones removed (TT rule 7: "clearing the opponent color").
    pub captured: u32,
    /// Own stones removed, the played one included, when the play is suicide (TT rule 7:
    /// "then clearing one's own color"); 0 otherwise.
    pub suicided: u32,
    /// The point of the captured stone, when exactly one stone is captured.
    pub single_capture: Option<Point>,
    /// Whether the played stone ends as a string of one stone with one liberty after capturing
    /// exactly one stone: the shape that basic ko (Olympiad 3.5) protects.
    pub makes_ko: bool,
    /// The Zobrist hash of the colouring after the play.
    pub hash_after: u64,
}

/// The stones of one string, from [`Board::string_stones`].
pub struct StringStones<'a> {
    next: &'a [u16],
    start: usize,
    at: Option<usize>,
}

impl Iterator for StringStones<'_> {
    type Item = Point;

    #[inline]
    fn next(&mut self) -> Option<Point> {
        let at = self.at?;
        let following = self.next[at] as usize;
        self.at = (following != self.start).then_some(following);
        Some(Point::new(at))
    }
}

/// The plays recorded by [`Board::play_undoable`], to take back with [`Board::undo`].
#[derive(Clone, Debug, Default)]
pub struct Undo {
    writes: Vec<Write>,
    frames: Vec<Frame>,
}

impl Undo {
    /// How many recorded plays are left to take back.
    #[must_use]
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether no recorded play is left to take back.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

/// Where one recorded play starts, and what it changed outside the per-point lists.
#[derive(Clone, Copy, Debug)]
struct Frame {
    writes: usize,
    hash: u64,
    counts: [u32; 2],
}

/// One change of a play, with the value it overwrote.
#[derive(Clone, Copy, Debug)]
enum Write {
    Cell(u16, Option<Color>),
    Head(u16, u16),
    Next(u16, u16),
    Liberties(u16, u32),
    Stones(u16, u32),
    StringHash(u16, u64),
    Packed(u16, u64),
    EmptyAt(u16, u16),
    /// A point pushed on the list of empty points.
    EmptyPushed,
    /// The string of head `small` joined to that of head `big`.
    Merged(u16, u16),
    /// The empty point at this place removed (the last one moved there).
    EmptyRemoved(u16, u16),
}

/// Where a play's changes go: nowhere for [`Board::play_unchecked`], a list for
/// [`Board::play_undoable`].
trait Log {
    fn write(&mut self, write: Write);

    #[inline(always)]
    fn cell(&mut self, i: usize, old: Option<Color>) {
        self.write(Write::Cell(i as u16, old));
    }
}

impl Log for () {
    #[inline(always)]
    fn write(&mut self, _: Write) {}
}

impl Log for Vec<Write> {
    #[inline(always)]
    fn write(&mut self, write: Write) {
        self.push(write);
    }
}

/// A colouring of the points (TT rule 2) with the strings of each colour.
pub struct Board {
    geometry: Arc<Geometry>,
    cells: Vec<Option<Color>>,
    head: Vec<u16>,
    next: Vec<u16>,
    liberties: Vec<u32>,
    stones: Vec<u32>,
    string_hash: Vec<u64>,
    hash: u64,
    counts: [u32; 2],
    /// The colouring two bits a point, kept up to date for exact position comparison.
    packed: Vec<u64>,
    /// The empty points in no particular order, and where each sits in that list.
    empties: Vec<u16>,
    empty_at: Vec<u16>,
}

impl Clone for Board {
    fn clone(&self) -> Board {
        Board {
            geometry: Arc::clone(&self.geometry),
            cells: self.cells.clone(),
            head: self.head.clone(),
            next: self.next.clone(),
            liberties: self.liberties.clone(),
            stones: self.stones.clone(),
            string_hash: self.string_hash.clone(),
            hash: self.hash,
            counts: self.counts,
            packed: self.packed.clone(),
            empties: self.empties.clone(),
            empty_at: self.empty_at.clone(),
        }
    }

    /// Copies `source` into this board's buffers, without allocating when the sizes agree
    /// (a search that clones a board at every node keeps a few to reuse).
    fn clone_from(&mut self, source: &Board) {
        self.geometry.clone_from(&source.geometry);
        self.cells.clone_from(&source.cells);
        self.head.clone_from(&source.head);
        self.next.clone_from(&source.next);
        self.liberties.clone_from(&source.liberties);
        self.stones.clone_from(&source.stones);
        self.string_hash.clone_from(&source.string_hash);
        self.hash = source.hash;
        self.counts = source.counts;
        self.packed.clone_from(&source.packed);
        self.empties.clone_from(&source.empties);
        self.empty_at.clone_from(&source.empty_at);
    }
}

impl PartialEq for Board {
    fn eq(&self, other: &Self) -> bool {
        self.geometry == other.geometry && self.cells == other.cells
    }
}

impl Eq for Board {}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        f.write_str(&self.to_ascii())
    }
}

/// Why a colouring cannot be a starting position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The number of colours given differs from the number of points.
    WrongLength {
        /// The board's points.
        expected: usize,
        /// The colours given.
        found: usize,
    },
    /// A string without liberties, which no sequence of moves can leave on the board.
    NoLiberties(Point),
    /// A drawing whose rows are empty, too long, or of different lengths.
    BadDrawing,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::WrongLength { expected, found } => {
                write!(f, "setup gives {found} points, the board has {expected}")
            }
            SetupError::BadDrawing => {
                f.write_str("a board drawing needs 1 to 25 rows of 1 to 25 points each")
            }
            SetupError::NoLiberties(p) => {
                write!(
                    f,
                    "setup leaves the string at point {} without liberties",
                    p.index()
                )
            }
        }
    }
}

impl std::error::Error for SetupError {}

impl Board {
    /// The empty board (TT rule 5: "starting with an empty grid").
    #[must_use]
    pub fn new(geometry: Arc<Geometry>) -> Board {
        let n = geometry.len();
        Board {
            geometry,
            cells: vec![None; n],
            head: vec![0; n],
            next: vec![0; n],
            liberties: vec![0; n],
            stones: vec![0; n],
            string_hash: vec![0; n],
            hash: 0,
            counts: [0; 2],
            packed: vec![0; n.div_ceil(32)],
            empties: (0..n as u16).collect(),
            empty_at: (0..n as u16).collect(),
        }
    }

    /// A board coloured as given; every string must have a liberty.
    pub fn from_colors(
        geometry: Arc<Geometry>,
        colors: &[Option<Color>],
    ) -> Result<Board, SetupError> {
        if colors.len() != geometry.len() {
            return Err(SetupError::WrongLength {
                expected: geometry.len(),
                found: colors.len(),
            });
        }
        let mut board = Board::new(geometry);
        for (i, c) in colors.iter().enumerate() {
            if let Some(c) = *c {
                board.place(Point::new(i), c, &mut ());
            }
        }
        for i in 0..colors.len() {
            let p = Point::new(i);
            if board.cells[i].is_some() && board.liberties[board.head[i] as usize] == 0 {
                return Err(SetupError::NoLiberties(p));
            }
        }
        Ok(board)
    }

    /// A rectangular board drawn row by row from the top: `X` black, `O` white, anything else
    /// empty (as [`Board::to_ascii`] draws it). Rows must have equal lengths of 1 to 25.
    pub fn from_ascii(rows: &[&str]) -> Result<Board, SetupError> {
        let width = rows.first().map_or(0, |r| r.chars().count());
        let geometry =
            crate::Geometry::rect(width, rows.len()).map_err(|_| SetupError::BadDrawing)?;
        if rows.iter().any(|r| r.chars().count() != width) {
            return Err(SetupError::BadDrawing);
        }
        let colors: Vec<Option<Color>> = rows
            .iter()
            .flat_map(|r| r.chars())
            .map(|c| match c {
                'X' => Some(Color::Black),
                'O' => Some(Color::White),
                _ => None,
            })
            .collect();
        Board::from_colors(Arc::new(geometry), &colors)
    }

    /// The board's points and adjacency.
    #[must_use]
    #[inline]
    pub fn geometry(&self) -> &Arc<Geometry> {
        &self.geometry
    }

    /// The colour of `p`, `None` when empty.
    #[inline]
    #[must_use]
    pub fn get(&self, p: Point) -> Option<Color> {
        self.cells[p.index()]
    }

    /// The whole colouring, indexed by point.
    #[must_use]
    #[inline]
    pub fn colors(&self) -> &[Option<Color>] {
        &self.cells
    }

    /// Zobrist hash of the colouring (equal colourings have equal hashes).
    #[inline]
    #[must_use]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Number of stones of `color` on the board.
    #[must_use]
    #[inline]
    pub fn stone_count(&self, color: Color) -> u32 {
        self.counts[color.index()]
    }

    /// The stones of the string through `p` (empty when `p` is empty).
    #[must_use]
    pub fn string(&self, p: Point) -> Vec<Point> {
        self.string_stones(p).collect()
    }

    /// The stones of the string through `p`, `p` first, without allocating (none when `p`
    /// is empty).
    #[must_use]
    #[inline]
    pub fn string_stones(&self, p: Point) -> StringStones<'_> {
        StringStones {
            next: &self.next,
            start: p.index(),
            at: self.cells[p.index()].map(|_| p.index()),
        }
    }

    /// Whether `a` and `b` are stones of the same string.
    #[must_use]
    #[inline]
    pub fn same_string(&self, a: Point, b: Point) -> bool {
        self.cells[a.index()].is_some()
            && self.cells[b.index()].is_some()
            && self.head[a.index()] == self.head[b.index()]
    }

    /// Whether the string through stone `p` has exactly one liberty, or none.
    #[must_use]
    pub fn liberty_count_at_most_one(&self, p: Point) -> bool {
        let mut seen: Option<Point> = None;
        for s in self.string_stones(p) {
            for &n in self.geometry.neighbors(s) {
                if self.cells[n.index()].is_none() {
                    match seen {
                        Some(q) if q != n => return false,
                        _ => seen = Some(n),
                    }
                }
            }
        }
        true
    }

    /// Whether `p` is empty and every neighbour is a stone of `color` (a one-point eye).
    #[inline]
    #[must_use]
    pub fn is_own_eye(&self, p: Point, color: Color) -> bool {
        self.cells[p.index()].is_none()
            && self
                .geometry
                .neighbors(p)
                .iter()
                .all(|n| self.cells[n.index()] == Some(color))
    }

    /// What a play of `color` on the empty point `p` would do (TT rule 7), without doing it.
    #[must_use]
    pub fn effect(&self, p: Point, color: Color) -> Effect {
        debug_assert!(self.cells[p.index()].is_none());
        let neighbors = self.geometry.neighbors(p);
        // The strings next to `p` (by head), each with its first neighbour of `p` and how many
        // neighbours of `p` it holds: found in one pass on boards of degree up to 8.
        const MAX: usize = 8;
        let mut heads = [0u16; MAX];
        let mut first = [p; MAX];
        let mut touching = [0u32; MAX];
        let mut strings = 0;
        let mut empty_neighbors = 0;
        if neighbors.len() <= MAX {
            for &n in neighbors {
                if self.cells[n.index()].is_none() {
                    empty_neighbors += 1;
                    continue;
                }
                let h = self.head[n.index()];
                match heads[..strings].iter().position(|&x| x == h) {
                    Some(j) => touching[j] += 1,
                    None => {
                        heads[strings] = h;
                        first[strings] = n;
                        touching[strings] = 1;
                        strings += 1;
                    }
                }
            }
        } else {
            return self.effect_any_degree(p, color);
        }
        let mut captured = 0;
        let mut captured_hash = 0;
        let mut single_capture = None;
        let mut own_keeps_liberty = false;
        let mut own_stones = 0;
        let mut own_hash = 0;
        for j in 0..strings {
            let h = heads[j] as usize;
            let last_liberty = self.liberties[h] == touching[j];
            if self.cells[h] == Some(color) {
                own_keeps_liberty |= !last_liberty;
                own_stones += self.stones[h];
                own_hash ^= self.string_hash[h];
            } else if last_liberty {
                captured += self.stones[h];
                captured_hash ^= self.string_hash[h];
                single_capture = (self.stones[h] == 1).then_some(first[j]);
            }
        }
        self.effect_from(
            p,
            color,
            (captured, captured_hash, single_capture),
            (empty_neighbors, own_keeps_liberty, own_stones, own_hash),
        )
    }

    /// [`Board::effect`] on a board of any degree.
    fn effect_any_degree(&self, p: Point, color: Color) -> Effect {
        let neighbors = self.geometry.neighbors(p);
        let mut captured = 0;
        let mut captured_hash = 0;
        let mut single_capture = None;
        let mut empty_neighbors = 0;
        let mut own_keeps_liberty = false;
        let mut own_stones = 0;
        let mut own_hash = 0;
        for (i, &n) in neighbors.iter().enumerate() {
            let Some(c) = self.cells[n.index()] else {
                empty_neighbors += 1;
                continue;
            };
            let h = self.head[n.index()];
            if neighbors[..i]
                .iter()
                .any(|m| self.cells[m.index()].is_some() && self.head[m.index()] == h)
            {
                continue;
            }
            let h = h as usize;
            let touching = neighbors
                .iter()
                .filter(|m| self.cells[m.index()].is_some() && self.head[m.index()] as usize == h)
                .count() as u32;
            let last_liberty = self.liberties[h] == touching;
            if c == color {
                own_keeps_liberty |= !last_liberty;
                own_stones += self.stones[h];
                own_hash ^= self.string_hash[h];
            } else if last_liberty {
                captured += self.stones[h];
                captured_hash ^= self.string_hash[h];
                single_capture = (self.stones[h] == 1).then_some(n);
            }
        }
        self.effect_from(
            p,
            color,
            (captured, captured_hash, single_capture),
            (empty_neighbors, own_keeps_liberty, own_stones, own_hash),
        )
    }

    /// The effect from what the strings next to `p` do: the stones captured (their number,
    /// hash and the point of a single one), the empty neighbours and the own strings (whether
    /// one keeps a liberty, their stones and hash).
    #[inline]
    fn effect_from(
        &self,
        p: Point,
        color: Color,
        (captured, captured_hash, single_capture): (u32, u64, Option<Point>),
        (empty_neighbors, own_keeps_liberty, own_stones, own_hash): (u32, bool, u32, u64),
    ) -> Effect {
        let key = self.geometry.key(p, color);
        let suicide = captured == 0 && empty_neighbors == 0 && !own_keeps_liberty;
        let single_capture = if captured == 1 { single_capture } else { None };
        Effect {
            captured,
            suicided: if suicide { own_stones + 1 } else { 0 },
            single_capture,
            makes_ko: single_capture.is_some() && empty_neighbors == 0 && own_stones == 0,
            hash_after: if suicide {
                self.hash ^ own_hash
            } else {
                self.hash ^ key ^ captured_hash
            },
        }
    }

    /// Plays `color` on the empty point `p`: colour it, clear the opponent, clear one's own
    /// colour (TT rule 7). Returns `(captured, suicided)` stone counts.
    ///
    /// Nothing is checked but that `p` is empty, and that only in debug builds: no ko, no
    /// superko, no suicide rule, no turn order. Use [`Game::play`](crate::Game::play) for a
    /// move under rules.
    ///
    /// # Panics
    ///
    /// In debug builds, when `p` is not empty. In release builds a play on an occupied point
    /// is not detected and corrupts the board: the stone already there is overwritten without
    /// its string being updated, so counts, liberties, the hash and later captures are wrong
    /// from then on (and a later call may panic on an index out of range). `p` must be a
    /// point of this board's geometry, or the call panics on an index out of range.
    pub fn play_unchecked(&mut self, p: Point, color: Color) -> (u32, u32) {
        self.play_logged(p, color, &mut ())
    }

    /// [`Board::play_unchecked`], recording what it changes in `undo` so that
    /// [`Board::undo`] takes it back exactly (a search that plays and takes back moves on one
    /// board instead of copying it at every node). Plays recorded in one `Undo` are taken back
    /// last first; an `Undo` serves one board only.
    ///
    /// # Panics
    ///
    /// As [`Board::play_unchecked`].
    pub fn play_undoable(&mut self, p: Point, color: Color, undo: &mut Undo) -> (u32, u32) {
        undo.frames.push(Frame {
            writes: undo.writes.len(),
            hash: self.hash,
            counts: self.counts,
        });
        self.play_logged(p, color, &mut undo.writes)
    }

    /// Takes back the last play recorded in `undo` (see [`Board::play_undoable`]): the board is
    /// then exactly as before it, strings, hash and list of empty points included.
    ///
    /// # Panics
    ///
    /// When `undo` records no play.
    pub fn undo(&mut self, undo: &mut Undo) {
        let frame = undo.frames.pop().expect("a play to take back");
        for write in undo.writes.drain(frame.writes..).rev() {
            match write {
                Write::Cell(i, c) => self.cells[i as usize] = c,
                Write::Head(i, v) => self.head[i as usize] = v,
                Write::Next(i, v) => self.next[i as usize] = v,
                Write::Merged(big, small) => self.unmerge(big as usize, small as usize),
                Write::Liberties(i, v) => self.liberties[i as usize] = v,
                Write::Stones(i, v) => self.stones[i as usize] = v,
                Write::StringHash(i, v) => self.string_hash[i as usize] = v,
                Write::Packed(i, v) => self.packed[i as usize] = v,
                Write::EmptyAt(i, v) => self.empty_at[i as usize] = v,
                Write::EmptyPushed => {
                    self.empties.pop();
                }
                Write::EmptyRemoved(at, value) => {
                    let at = at as usize;
                    if at == self.empties.len() {
                        self.empties.push(value);
                    } else {
                        let moved = self.empties[at];
                        self.empties.push(moved);
                        self.empties[at] = value;
                    }
                }
            }
        }
        self.hash = frame.hash;
        self.counts = frame.counts;
    }

    fn play_logged<L: Log>(&mut self, p: Point, color: Color, log: &mut L) -> (u32, u32) {
        debug_assert!(self.cells[p.index()].is_none());
        self.place(p, color, log);
        let geometry = Arc::clone(&self.geometry);
        let mut captured = 0;
        for &n in geometry.neighbors(p) {
            if self.cells[n.index()] == Some(color.opponent())
                && self.liberties[self.head[n.index()] as usize] == 0
            {
                captured += self.remove_string(n, log);
            }
        }
        let mut suicided = 0;
        if captured == 0 && self.liberties[self.head[p.index()] as usize] == 0 {
            suicided = self.remove_string(p, log);
        }
        (captured, suicided)
    }

    /// Colours `p` and joins it to its neighbouring strings, without clearing anything.
    fn place<L: Log>(&mut self, p: Point, color: Color, log: &mut L) {
        let i = p.index();
        let key = self.geometry.key(p, color);
        log.cell(i, self.cells[i]);
        self.cells[i] = Some(color);
        log.write(Write::Packed((i / 32) as u16, self.packed[i / 32]));
        self.packed[i / 32] |= (1 + color.index() as u64) << (2 * (i % 32));
        let at = self.empty_at[i] as usize;
        let last = *self.empties.last().expect("placing on an empty point");
        log.write(Write::EmptyRemoved(at as u16, self.empties[at]));
        self.empties.swap_remove(at);
        if at < self.empties.len() {
            log.write(Write::EmptyAt(last, self.empty_at[last as usize]));
            self.empty_at[last as usize] = at as u16;
        }
        log.write(Write::Head(i as u16, self.head[i]));
        self.head[i] = i as u16;
        log.write(Write::Next(i as u16, self.next[i]));
        self.next[i] = i as u16;
        log.write(Write::Stones(i as u16, self.stones[i]));
        self.stones[i] = 1;
        log.write(Write::StringHash(i as u16, self.string_hash[i]));
        self.string_hash[i] = key;
        let geometry = Arc::clone(&self.geometry);
        let mut liberties = 0;
        for &n in geometry.neighbors(p) {
            match self.cells[n.index()] {
                None => liberties += 1,
                Some(_) => {
                    let h = self.head[n.index()] as usize;
                    log.write(Write::Liberties(h as u16, self.liberties[h]));
                    self.liberties[h] -= 1;
                }
            }
        }
        log.write(Write::Liberties(i as u16, self.liberties[i]));
        self.liberties[i] = liberties;
        self.hash ^= key;
        self.counts[color.index()] += 1;
        for &n in geometry.neighbors(p) {
            if self.cells[n.index()] == Some(color) {
                self.merge(self.head[i] as usize, self.head[n.index()] as usize, log);
            }
        }
    }

    fn merge<L: Log>(&mut self, a: usize, b: usize, log: &mut L) {
        if a == b {
            return;
        }
        let (big, small) = if self.stones[a] >= self.stones[b] {
            (a, b)
        } else {
            (b, a)
        };
        self.set_head(small, big);
        self.next.swap(big, small);
        self.stones[big] += self.stones[small];
        self.liberties[big] += self.liberties[small];
        self.string_hash[big] ^= self.string_hash[small];
        // Taken back from what is left of `small` (see `Board::unmerge`).
        log.write(Write::Merged(big as u16, small as u16));
    }

    /// Sets the head of every stone of the ring through `start` to `head`.
    #[inline]
    fn set_head(&mut self, start: usize, head: usize) {
        let mut s = start;
        loop {
            self.head[s] = head as u16;
            s = self.next[s] as usize;
            if s == start {
                break;
            }
        }
    }

    /// Takes back `merge(big, small)` when nothing else of the play after it is left: the
    /// head `small` keeps its string's count, liberties and hash (its stones' later changes
    /// went to `big`), and swapping the two links again splits the rings.
    fn unmerge(&mut self, big: usize, small: usize) {
        self.stones[big] -= self.stones[small];
        self.liberties[big] -= self.liberties[small];
        self.string_hash[big] ^= self.string_hash[small];
        self.next.swap(big, small);
        self.set_head(small, small);
    }

    fn remove_string<L: Log>(&mut self, p: Point, log: &mut L) -> u32 {
        let h = self.head[p.index()] as usize;
        let color = self.cells[h].expect("removing a stone");
        let count = self.stones[h];
        self.hash ^= self.string_hash[h];
        self.counts[color.index()] -= count;
        let geometry = Arc::clone(&self.geometry);
        let mut s = h;
        loop {
            log.cell(s, self.cells[s]);
            self.cells[s] = None;
            log.write(Write::Packed((s / 32) as u16, self.packed[s / 32]));
            self.packed[s / 32] &= !(3 << (2 * (s % 32)));
            log.write(Write::EmptyAt(s as u16, self.empty_at[s]));
            self.empty_at[s] = self.empties.len() as u16;
            log.write(Write::EmptyPushed);
            self.empties.push(s as u16);
            for &n in geometry.neighbors(Point::new(s)) {
                if self.cells[n.index()].is_some() {
                    let hn = self.head[n.index()] as usize;
                    log.write(Write::Liberties(hn as u16, self.liberties[hn]));
                    self.liberties[hn] += 1;
                }
            }
            s = self.next[s] as usize;
            if s == h {
                break;
            }
        }
        count
    }

    /// The colouring packed two bits a point (empty 0, black 1, white 2), for exact
    /// comparison of positions.
    #[must_use]
    #[inline]
    pub fn packed(&self) -> &[u64] {
        &self.packed
    }

    /// The empty points, in no particular order.
    #[must_use]
    pub fn empty_points(&self) -> impl ExactSizeIterator<Item = Point> + '_ {
        self.empties.iter().map(|&i| Point::new(i as usize))
    }

    /// Area score of each colour (TT rule 9): points of the colour plus empty points that
    /// reach only that colour.
    #[must_use]
    pub fn area(&self) -> ByColor<u32> {
        let mut score = ByColor::from(self.counts);
        self.fill_empty_regions(|region, owner| {
            if let Some(c) = owner {
                score[c] += region.len() as u32;
            }
        });
        score
    }

    /// Who owns each point as territory (TT rule 9), indexed by point: `Some(c)` for an empty
    /// point that reaches only colour `c`, `None` for an empty point that reaches both colours
    /// or neither, and `None` for every stone.
    ///
    /// ```
    /// use goref_rules::{Board, ByColor, Color};
    ///
    /// // X . O
    /// // X . O   The middle column reaches both colours: nobody's.
    /// // . X O   The bottom-left corner reaches only Black.
    /// let board = Board::from_ascii(&["X.O", "X.O", ".XO"]).unwrap();
    /// let territory = board.territory();
    /// assert_eq!(territory[6], Some(Color::Black));
    /// assert_eq!(territory[1], None);
    /// assert_eq!(territory[0], None, "a stone is nobody's territory");
    /// assert_eq!(board.area(), ByColor::new(4, 3));
    /// ```
    #[must_use]
    pub fn territory(&self) -> Vec<Option<Color>> {
        let mut owners = vec![None; self.cells.len()];
        self.fill_empty_regions(|region, owner| {
            for &i in region {
                owners[i] = owner;
            }
        });
        owners
    }

    /// The one flood fill of empty regions: calls `visit` with the points of each maximal
    /// connected set of empty points and the colour it alone reaches, if any (TT rule 9).
    fn fill_empty_regions(&self, mut visit: impl FnMut(&[usize], Option<Color>)) {
        let mut seen = vec![false; self.cells.len()];
        let mut region = Vec::new();
        for start in 0..self.cells.len() {
            if seen[start] || self.cells[start].is_some() {
                continue;
            }
            let mut reaches = [false; 2];
            region.clear();
            seen[start] = true;
            region.push(start);
            let mut next = 0;
            while let Some(&s) = region.get(next) {
                next += 1;
                for &n in self.geometry.neighbors(Point::new(s)) {
                    match self.cells[n.index()] {
                        Some(c) => reaches[c.index()] = true,
                        None if !seen[n.index()] => {
                            seen[n.index()] = true;
                            region.push(n.index());
                        }
                        None => {}
                    }
                }
            }
            let owner = match reaches {
                [true, false] => Some(Color::Black),
                [false, true] => Some(Color::White),
                _ => None,
            };
            visit(&region, owner);
        }
    }

    /// This board with the whole strings through the stones at `dead` taken off (points that
    /// are empty are ignored): the position that is scored once dead stones are removed
    /// (001 §3.7.2, §3.8).
    ///
    /// ```
    /// use goref_rules::Board;
    ///
    /// let board = Board::from_ascii(&["XXO.", "..O."]).unwrap();
    /// // Naming one stone of a string removes the whole string.
    /// let cleared = board.without(&[board.geometry().at(0, 0).unwrap()]);
    /// assert_eq!(cleared.to_ascii(), "..O.\n..O.\n");
    /// ```
    ///
    /// # Panics
    ///
    /// When a point of `dead` is not a point of this board.
    #[must_use]
    pub fn without(&self, dead: &[Point]) -> Board {
        let mut colors = self.cells.clone();
        for &p in dead {
            for s in self.string(p) {
                colors[s.index()] = None;
            }
        }
        Board::from_colors(Arc::clone(&self.geometry), &colors)
            .expect("taking strings off leaves every other string its liberties")
    }

    /// The board drawn with `X` (Black), `O` (White) and `.`, top row first; graph boards on
    /// one line in point order.
    #[must_use]
    pub fn to_ascii(&self) -> String {
        let symbol = |c: Option<Color>| match c {
            None => '.',
            Some(Color::Black) => 'X',
            Some(Color::White) => 'O',
        };
        let width = self.geometry.size().map_or(self.cells.len(), |(w, _)| w);
        let mut s = String::new();
        for row in self.cells.chunks(width) {
            s.extend(row.iter().map(|&c| symbol(c)));
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::{playout, Rng};
    use crate::{Game, Ruleset};

    /// `clone_from` into a board of another position gives the source position, strings and
    /// all: the same plays then capture the same stones on both.
    #[test]
    fn clone_from_copies_the_position_and_its_strings() {
        let source = Board::from_ascii(&["OX..", ".XO.", "..O.", "...."]).unwrap();
        let mut target = Board::from_ascii(&["XXXX", "....", "OOOO", "...."]).unwrap();
        target.clone_from(&source);
        assert!(target == source);
        assert_eq!(target.hash(), source.hash());
        assert_eq!(target.string(Point::new(1)), source.string(Point::new(1)));
        let mut a = source.clone();
        let p = a.geometry().at(0, 1).unwrap();
        assert_eq!(a.play_unchecked(p, Color::Black), (1, 0));
        assert_eq!(target.play_unchecked(p, Color::Black), (1, 0));
        assert!(a == target);
        assert_eq!(a.packed(), target.packed());
    }

    /// Every field of two boards, the strings' lists and the list of empty points included.
    fn assert_same_state(a: &Board, b: &Board) {
        assert_eq!(a.cells, b.cells);
        assert_eq!(a.hash, b.hash);
        assert_eq!(a.counts, b.counts);
        assert_eq!(a.packed, b.packed);
        assert_eq!(a.empties, b.empties);
        for (i, c) in a.cells.iter().enumerate() {
            if c.is_some() {
                // Strings are compared where they hold meaning: on stones.
                assert_eq!(a.head[i], b.head[i]);
                assert_eq!(a.next[i], b.next[i]);
                let h = a.head[i] as usize;
                assert_eq!(a.liberties[h], b.liberties[h]);
                assert_eq!(a.stones[h], b.stones[h]);
                assert_eq!(a.string_hash[h], b.string_hash[h]);
            } else {
                assert_eq!(a.empty_at[i], b.empty_at[i]);
            }
        }
    }

    /// `effect` (one pass over the neighbours) agrees with the general form and with the
    /// play itself (TT rule 7: captures, suicide, the hash after) on random positions.
    #[test]
    fn effect_agrees_with_the_play() {
        let mut rng = Rng::new(5);
        for size in [2, 3, 5, 9] {
            for _ in 0..30 {
                let mut game = Game::rect(size, size, Ruleset::TROMP_TAYLOR).unwrap();
                let moves = rng.below(size * size * 3) + 1;
                playout(&mut game, &mut rng, moves);
                let board = game.board();
                for p in board.empty_points() {
                    for color in Color::ALL {
                        let effect = board.effect(p, color);
                        assert_eq!(effect, board.effect_any_degree(p, color));
                        let mut after = board.clone();
                        let (captured, suicided) = after.play_unchecked(p, color);
                        assert_eq!((effect.captured, effect.suicided), (captured, suicided));
                        assert_eq!(effect.hash_after, after.hash());
                    }
                }
            }
        }
    }

    /// `undo` takes back `play_undoable` exactly, nested plays last first, on random lines
    /// with captures and suicides (TT rule 7), and `play_undoable` plays as `play_unchecked`.
    #[test]
    fn undo_takes_back_plays_exactly() {
        let mut rng = Rng::new(11);
        for size in [2, 3, 5, 9] {
            for _ in 0..40 {
                let mut game = Game::rect(size, size, Ruleset::TROMP_TAYLOR).unwrap();
                let moves = rng.below(size * size * 2) + 1;
                playout(&mut game, &mut rng, moves);
                let start = game.board().clone();
                let mut board = start.clone();
                let mut undo = Undo::default();
                let mut before: Vec<Board> = Vec::new();
                for _ in 0..rng.below(3 * size * size) + 1 {
                    let empty: Vec<Point> = board.empty_points().collect();
                    if empty.is_empty() {
                        break;
                    }
                    let p = empty[rng.below(empty.len())];
                    let color = if rng.below(2) == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    let mut plain = board.clone();
                    let effect = board.effect(p, color);
                    before.push(board.clone());
                    let counts = board.play_undoable(p, color, &mut undo);
                    assert_eq!(counts, plain.play_unchecked(p, color));
                    assert_same_state(&board, &plain);
                    assert_eq!(board.hash(), effect.hash_after);
                    // Now and then take back a few plays.
                    if rng.below(4) == 0 {
                        for _ in 0..rng.below(before.len()) + 1 {
                            board.undo(&mut undo);
                            assert_same_state(&board, &before.pop().unwrap());
                        }
                    }
                }
                assert_eq!(undo.len(), before.len());
                while !undo.is_empty() {
                    board.undo(&mut undo);
                }
                assert_same_state(&board, &start);
            }
        }
    }

    /// Reference 004, rule 9 example (3×2, after 1.B[b1] 2.W[a2] 3.B[b2]): the empty points a1
    /// and c1, c2 each reach only Black once the white stone at a2 is taken off.
    #[test]
    fn territory_is_empty_points_reaching_one_colour_tt_rule_9() {
        let board = Board::from_ascii(&["OX.", ".X."]).unwrap();
        let territory = board.territory();
        // a1 (index 3) touches White a2 and Black b1: nobody's. c1, c2 reach only Black.
        assert_eq!(
            territory,
            vec![
                None,
                None,
                Some(Color::Black),
                None,
                None,
                Some(Color::Black)
            ]
        );
        let a2 = board.geometry().at(0, 0).unwrap();
        let cleared = board.without(&[a2]);
        assert_eq!(cleared.territory()[0], Some(Color::Black));
        assert_eq!(cleared.territory()[3], Some(Color::Black));
        assert_eq!(cleared.area(), ByColor::new(6, 0));
    }

    #[test]
    fn an_empty_board_is_nobodys_territory() {
        let board = Board::new(Arc::new(Geometry::rect(3, 3).unwrap()));
        assert!(board.territory().iter().all(Option::is_none));
        assert_eq!(board.area(), ByColor::new(0, 0));
    }

    /// `area` is the stones plus the points `territory` gives each colour, on random positions.
    #[test]
    fn area_counts_stones_and_territory() {
        let mut rng = Rng::new(7);
        for size in [2, 5, 9] {
            for _ in 0..50 {
                let mut game = Game::rect(size, size, Ruleset::TROMP_TAYLOR).unwrap();
                playout(&mut game, &mut rng, size * size * 3);
                let board = game.board();
                let territory = board.territory();
                for color in Color::ALL {
                    let owned = territory.iter().filter(|&&t| t == Some(color)).count() as u32;
                    assert_eq!(
                        board.area()[color],
                        board.stone_count(color) + owned,
                        "{board:?}"
                    );
                }
                for (i, t) in territory.iter().enumerate() {
                    if t.is_some() {
                        assert_eq!(board.colors()[i], None);
                    }
                }
            }
        }
    }

    #[test]
    fn without_takes_off_whole_strings_and_ignores_empty_points() {
        let board = Board::from_ascii(&["XX.O", "..OO"]).unwrap();
        let g = board.geometry().clone();
        let cleared = board.without(&[g.at(1, 0).unwrap(), g.at(2, 0).unwrap()]);
        assert_eq!(cleared.to_ascii(), "...O\n..OO\n");
        assert_eq!(cleared.stone_count(Color::Black), 0);
        assert_eq!(cleared.stone_count(Color::White), 3);
        assert_eq!(board.without(&[]), board);
    }
}
