//! Every position a game has passed through, found by Zobrist hash and confirmed exactly.
//!
//! A hash match alone never makes a move illegal: the colourings are compared point by point
//! (a referee must not forbid a legal move because two positions share a hash).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::{Board, ByColor, Color};

/// One occurrence of a position.
#[derive(Clone, Copy, Debug)]
pub struct Occurrence {
    /// The number of turns played when the position arose (0: the starting position).
    pub after_turns: usize,
    /// The player to move in the position.
    pub to_move: Color,
    /// Stones captured so far by Black and by White.
    pub captures: ByColor<u32>,
    hash: u64,
    previous_same_hash: u32,
}

/// The positions of a game in order, indexed by hash.
#[derive(Clone, Debug, Default)]
pub struct History {
    occurrences: Vec<Occurrence>,
    packed: Vec<u64>,
    words: usize,
    latest: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
}

const NONE: u32 = u32::MAX;

impl History {
    /// Forgets every position.
    pub fn clear(&mut self) {
        self.occurrences.clear();
        self.packed.clear();
        self.latest.clear();
    }

    /// Records `board` as a new occurrence.
    pub fn record(
        &mut self,
        board: &Board,
        after_turns: usize,
        to_move: Color,
        captures: ByColor<u32>,
    ) {
        let hash = board.hash();
        let index = self.occurrences.len() as u32;
        let previous_same_hash = self.latest.insert(hash, index).unwrap_or(NONE);
        self.occurrences.push(Occurrence {
            after_turns,
            to_move,
            captures,
            hash,
            previous_same_hash,
        });
        self.words = board.packed().len();
        self.packed.extend_from_slice(board.packed());
    }

    /// All occurrences, oldest first.
    #[must_use]
    pub fn occurrences(&self) -> &[Occurrence] {
        &self.occurrences
    }

    /// Candidate earlier occurrences of a colouring with this hash (newest first), whose
    /// player to move is `to_move` when given. Candidates must be confirmed with
    /// [`History::same_colouring`].
    pub fn candidates(
        &self,
        hash: u64,
        to_move: Option<Color>,
    ) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.latest.get(&hash).copied().unwrap_or(NONE);
        std::iter::from_fn(move || {
            while at != NONE {
                let i = at as usize;
                let o = &self.occurrences[i];
                at = o.previous_same_hash;
                if to_move.is_none_or(|c| c == o.to_move) {
                    return Some(i);
                }
            }
            None
        })
        .filter(move |&i| self.occurrences[i].hash == hash)
    }

    /// Whether occurrence `index` has exactly the colouring `packed` (as [`Board::packed`]
    /// gives it).
    #[must_use]
    pub fn same_colouring(&self, index: usize, packed: &[u64]) -> bool {
        &self.packed[index * self.words..(index + 1) * self.words] == packed
    }

    /// The colouring of occurrence `index`, packed as [`Board::packed`] gives it.
    #[must_use]
    pub fn colouring(&self, index: usize) -> &[u64] {
        &self.packed[index * self.words..(index + 1) * self.words]
    }
}

/// A fast multiplicative hasher (in the manner of rustc's `FxHasher`) for keys that are
/// already well mixed: Zobrist hashes and perft states.
#[derive(Default)]
pub struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
    }
}

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}
