//! Boards of at most 32 points as two bit sets (one a colour), with the plays of TT rule 7,
//! area scores (TT rule 9) and the symmetries of the board.

use goref_rules::{Geometry, Shape};

/// The largest board the solver takes: a colouring is two `u32` bit sets.
pub const MAX_SOLVE_POINTS: usize = 32;

/// What a play does, computed on the bit sets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Played {
    /// The mover's stones after the play.
    pub own: u32,
    /// The opponent's stones after the play.
    pub opp: u32,
    /// Opposing stones removed.
    pub captured: u32,
    /// Own stones removed by suicide (the played one included).
    pub suicided: u32,
    /// Whether the played stone took exactly one stone while every neighbour held an opposing
    /// stone: the shape basic ko (001 §3.5) protects.
    pub makes_ko: bool,
}

/// The points, their adjacency as masks, and the board's symmetries as permutations.
#[derive(Clone, Debug)]
pub(crate) struct Topo {
    pub all: u32,
    nbr: Vec<u32>,
    /// For a rectangle: its width, and the points that have a right / left neighbour.
    rect: Option<(u32, u32, u32)>,
    /// `syms[s][p]`: the image of point `p` under symmetry `s` (`syms[0]` is the identity).
    pub syms: Vec<Vec<u8>>,
    /// `inverse[s]`: the index of the inverse of symmetry `s`.
    pub inverse: Vec<usize>,
}

impl Topo {
    /// The topology of `geometry` (at most [`MAX_SOLVE_POINTS`] points).
    pub fn new(geometry: &Geometry) -> Topo {
        let n = geometry.len();
        assert!(n <= MAX_SOLVE_POINTS);
        let all = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let nbr = geometry
            .points()
            .map(|p| {
                geometry
                    .neighbors(p)
                    .iter()
                    .fold(0u32, |m, q| m | 1 << q.index())
            })
            .collect();
        let (rect, syms) = match geometry.shape() {
            Shape::Rect { width, height } => {
                let mut has_right = 0u32;
                let mut has_left = 0u32;
                for y in 0..height {
                    for x in 0..width {
                        let i = y * width + x;
                        if x + 1 < width {
                            has_right |= 1 << i;
                        }
                        if x > 0 {
                            has_left |= 1 << i;
                        }
                    }
                }
                (
                    Some((width as u32, has_right, has_left)),
                    rect_symmetries(width, height),
                )
            }
            Shape::Graph => (None, vec![(0..n as u8).collect()]),
        };
        let inverse = syms
            .iter()
            .map(|s| {
                syms.iter()
                    .position(|t| (0..n).all(|p| t[s[p] as usize] as usize == p))
                    .expect("the symmetries form a group")
            })
            .collect();
        Topo {
            all,
            nbr,
            rect,
            syms,
            inverse,
        }
    }

    /// The neighbours of the point `p`, as a mask.
    #[inline]
    pub fn nbr(&self, p: usize) -> u32 {
        self.nbr[p]
    }

    /// Every point adjacent to a point of `set`.
    #[inline]
    pub fn nbrs(&self, set: u32) -> u32 {
        match self.rect {
            Some((w, has_right, has_left)) => {
                ((set & has_right) << 1
                    | (set & has_left) >> 1
                    | set.checked_shl(w).unwrap_or(0)
                    | set.checked_shr(w).unwrap_or(0))
                    & self.all
            }
            None => {
                let mut out = 0;
                let mut rest = set;
                while rest != 0 {
                    out |= self.nbr[rest.trailing_zeros() as usize];
                    rest &= rest - 1;
                }
                out
            }
        }
    }

    /// The connected part of `within` that holds `seed` (a set of points of `within`).
    #[inline]
    pub fn flood(&self, within: u32, seed: u32) -> u32 {
        let mut set = seed;
        loop {
            let grown = (set | self.nbrs(set)) & within;
            if grown == set {
                return set;
            }
            set = grown;
        }
    }

    /// A play by the owner of `own` on the empty point `p` (TT rule 7: colour the point,
    /// clear the opponent, clear one's own colour).
    #[inline]
    pub fn play(&self, own: u32, opp: u32, p: usize) -> Played {
        let bit = 1u32 << p;
        let own = own | bit;
        let empty = self.all & !(own | opp);
        let mut captured = 0u32;
        let mut touching = self.nbr[p] & opp;
        while touching != 0 {
            let q = 1u32 << touching.trailing_zeros();
            let string = self.flood(opp, q);
            touching &= !string;
            if self.nbrs(string) & empty == 0 {
                captured |= string;
            }
        }
        let opp = opp & !captured;
        if captured == 0 {
            let string = self.flood(own, bit);
            if self.nbrs(string) & empty == 0 {
                return Played {
                    own: own & !string,
                    opp,
                    captured: 0,
                    suicided: string.count_ones(),
                    makes_ko: false,
                };
            }
        }
        Played {
            own,
            opp,
            captured: captured.count_ones(),
            suicided: 0,
            makes_ko: captured.count_ones() == 1 && self.nbr[p] & !(opp | captured) == 0,
        }
    }

    /// Area scores of Black and White (TT rule 9): stones plus empty points that reach only
    /// that colour.
    pub fn area(&self, black: u32, white: u32) -> (u32, u32) {
        let mut b = black.count_ones();
        let mut w = white.count_ones();
        let empty = self.all & !(black | white);
        let mut rest = empty;
        while rest != 0 {
            let region = self.flood(empty, 1 << rest.trailing_zeros());
            rest &= !region;
            let border = self.nbrs(region);
            match (border & black != 0, border & white != 0) {
                (true, false) => b += region.count_ones(),
                (false, true) => w += region.count_ones(),
                _ => {}
            }
        }
        (b, w)
    }

    /// The image of the point set `set` under symmetry `s`.
    #[inline]
    pub fn map(&self, s: usize, set: u32) -> u32 {
        if s == 0 {
            return set;
        }
        let perm = &self.syms[s];
        let mut out = 0;
        let mut rest = set;
        while rest != 0 {
            out |= 1 << perm[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        out
    }

    /// The image of a colouring key (Black's stones in the low half, White's in the high).
    #[inline]
    pub fn map_key(&self, s: usize, key: u64) -> u64 {
        u64::from(self.map(s, key as u32)) | u64::from(self.map(s, (key >> 32) as u32)) << 32
    }
}

/// A colouring as one number: Black's stones in the low 32 bits, White's in the high.
#[inline]
pub(crate) fn key(black: u32, white: u32) -> u64 {
    u64::from(black) | u64::from(white) << 32
}

/// The symmetries of a `width` × `height` grid as point permutations, the identity first.
fn rect_symmetries(width: usize, height: usize) -> Vec<Vec<u8>> {
    type Map = Box<dyn Fn(usize, usize) -> (usize, usize)>;
    let mut maps: Vec<Map> = vec![
        Box::new(|x, y| (x, y)),
        Box::new(move |x, y| (width - 1 - x, y)),
        Box::new(move |x, y| (x, height - 1 - y)),
        Box::new(move |x, y| (width - 1 - x, height - 1 - y)),
    ];
    if width == height {
        maps.push(Box::new(|x, y| (y, x)));
        maps.push(Box::new(move |x, y| (width - 1 - y, x)));
        maps.push(Box::new(move |x, y| (y, width - 1 - x)));
        maps.push(Box::new(move |x, y| (width - 1 - y, width - 1 - x)));
    }
    let mut syms: Vec<Vec<u8>> = Vec::new();
    for f in &maps {
        let perm: Vec<u8> = (0..width * height)
            .map(|p| {
                let (x, y) = f(p % width, p / width);
                (y * width + x) as u8
            })
            .collect();
        if !syms.contains(&perm) {
            syms.push(perm);
        }
    }
    syms
}
