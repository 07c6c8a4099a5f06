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
    /// `tables[s][b][x]`: the image under symmetry `s` of the points `x << 8b`.
    tables: Vec<[[u32; 256]; 4]>,
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
        let tables = syms
            .iter()
            .map(|perm| {
                let mut t = [[0u32; 256]; 4];
                for (b, row) in t.iter_mut().enumerate() {
                    for (x, image) in row.iter_mut().enumerate() {
                        for bit in 0..8 {
                            let p = 8 * b + bit;
                            if x & (1 << bit) != 0 && p < n {
                                *image |= 1 << perm[p];
                            }
                        }
                    }
                }
                t
            })
            .collect();
        Topo {
            all,
            nbr,
            rect,
            syms,
            inverse,
            tables,
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

    /// The points each colour reaches first: its stones, and the empty points that a spread
    /// of `steps` steps along the board's lines from its stones reaches before it reaches
    /// them from the other colour's (a point reached by both at the same step, and what lies
    /// behind it, belongs to neither). A cheap guess of the area each will end with.
    pub fn nearer(&self, black: u32, white: u32, steps: u32) -> (u32, u32) {
        let empty = self.all & !(black | white);
        let (mut b, mut w) = (black, white);
        let mut open = empty;
        for _ in 0..steps {
            let bn = self.nbrs(b) & open;
            let wn = self.nbrs(w) & open;
            b |= bn & !wn;
            w |= wn & !bn;
            open &= !(bn | wn);
        }
        (b, w)
    }

    /// The image of the point set `set` under symmetry `s`.
    #[inline]
    pub fn map(&self, s: usize, set: u32) -> u32 {
        if s == 0 {
            return set;
        }
        let t = &self.tables[s];
        t[0][(set & 0xff) as usize]
            | t[1][(set >> 8 & 0xff) as usize]
            | t[2][(set >> 16 & 0xff) as usize]
            | t[3][(set >> 24) as usize]
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

/// What Benson's test finds for one colour: the stones of its pass-alive chains, and the
/// single empty points that only those chains surround.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Safe {
    /// Stones of the pass-alive chains.
    pub chains: u32,
    /// Empty points each of whose neighbours is a stone of a pass-alive chain.
    pub eyes: u32,
}

impl Safe {
    /// The points the colour keeps to the end of the game, whatever the opponent plays.
    #[inline]
    pub fn count(self) -> u32 {
        (self.chains | self.eyes).count_ones()
    }
}

impl Topo {
    /// Benson's pass-alive chains of `own` against `opp` (as in the judge's `benson.rs`), on
    /// the bit sets: the greatest set of chains each of which has two *vital* regions, where
    /// a region is a connected set of points without an `own` stone, whose bordering chains
    /// are all in the set, and it is vital to a chain when each of its empty points is that
    /// chain's liberty. When `suicide_allowed`, the opponent can empty its own stones of a
    /// region by self-capture, so every point of the region, not only the empty ones, must
    /// touch the chain.
    pub fn pass_alive(&self, own: u32, opp: u32, suicide_allowed: bool) -> Safe {
        self.pass_alive_without(own, opp, suicide_allowed, 0)
    }

    /// [`Topo::pass_alive`] where no region that meets `unvital` is vital: the chains that
    /// stay pass-alive whatever their own colour plays in those regions.
    pub fn pass_alive_without(
        &self,
        own: u32,
        opp: u32,
        suicide_allowed: bool,
        unvital: u32,
    ) -> Safe {
        let empty = self.all & !(own | opp);
        let mut chains = [0u32; MAX_SOLVE_POINTS];
        let mut nc = 0;
        let mut rest = own;
        while rest != 0 {
            let c = self.flood(own, 1 << rest.trailing_zeros());
            rest &= !c;
            chains[nc] = c;
            nc += 1;
        }
        let mut regions = [0u32; MAX_SOLVE_POINTS];
        let mut nr = 0;
        let free = self.all & !own;
        let mut rest = free;
        while rest != 0 {
            let r = self.flood(free, 1 << rest.trailing_zeros());
            rest &= !r;
            regions[nr] = r;
            nr += 1;
        }
        let mut alive = own;
        let mut live = [true; MAX_SOLVE_POINTS];
        loop {
            let mut changed = false;
            for (c, live) in chains[..nc].iter().zip(live.iter_mut()) {
                if !*live {
                    continue;
                }
                let reach = self.nbrs(*c);
                let mut vital = 0;
                for &r in &regions[..nr] {
                    if self.nbrs(r) & own & !alive != 0 {
                        continue; // the region borders a chain that is not in the set
                    }
                    let must_touch = if suicide_allowed { r } else { r & empty };
                    if r & reach != 0 && must_touch & !reach == 0 && r & unvital == 0 {
                        vital += 1;
                        if vital == 2 {
                            break;
                        }
                    }
                }
                if vital < 2 {
                    *live = false;
                    alive &= !*c;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut eyes = 0;
        if alive != 0 {
            let mut rest = empty;
            while rest != 0 {
                let p = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if self.nbr[p] != 0 && self.nbr[p] & !alive == 0 {
                    eyes |= 1 << p;
                }
            }
        }
        Safe {
            chains: alive,
            eyes,
        }
    }

    /// The regions enclosed by `chains` (connected sets of points without a stone of theirs,
    /// bordered by `chains` only) each point of which, empty or not, is next to every chain
    /// of `chains` that borders the region; but single empty points (eyes) and regions of two
    /// empty points (see [`Topo::two_point_eyes`]), which are counted otherwise. `opp`: the
    /// other colour's stones.
    pub fn filled_regions(&self, chains: u32, opp: u32) -> impl Iterator<Item = u32> + '_ {
        let free = self.all & !chains;
        let mut rest = free;
        std::iter::from_fn(move || {
            while rest != 0 {
                let region = self.flood(free, 1 << rest.trailing_zeros());
                rest &= !region;
                let border = self.nbrs(region) & chains;
                if border == 0 || (region & opp == 0 && region.count_ones() <= 2) {
                    continue;
                }
                let mut every_chain = true;
                let mut bordering = border;
                while bordering != 0 {
                    let chain = self.flood(chains, 1 << bordering.trailing_zeros());
                    bordering &= !chain;
                    if region & !self.nbrs(chain) != 0 {
                        every_chain = false;
                        break;
                    }
                }
                if every_chain {
                    return Some(region);
                }
            }
            None
        })
    }

    /// The regions enclosed by `chains` (connected sets of points without an `own` stone,
    /// bordered by stones of `chains` only) with at most one *interior* point, a point next
    /// to no stone of `chains`, and that one with at least two neighbours: the other colour
    /// can make no eye there but at that point, so it has one eye at most.
    pub fn interior_regions(&self, own: u32, chains: u32) -> impl Iterator<Item = u32> + '_ {
        let free = self.all & !own;
        let mut rest = free;
        let near = self.nbrs(chains);
        std::iter::from_fn(move || {
            while rest != 0 {
                let region = self.flood(free, 1 << rest.trailing_zeros());
                rest &= !region;
                let border = self.nbrs(region) & own;
                if border == 0 || border & !chains != 0 {
                    continue;
                }
                let interior = region & !near;
                match interior.count_ones() {
                    0 => return Some(region),
                    1 if self.nbr[interior.trailing_zeros() as usize].count_ones() >= 2 => {
                        return Some(region)
                    }
                    _ => {}
                }
            }
            None
        })
    }

    /// The regions of two empty points whose every other neighbour is a stone of `chains`
    /// (each point with at least one such neighbour), as pairs of point masks.
    pub fn two_point_eyes(&self, chains: u32, empty: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut rest = empty;
        std::iter::from_fn(move || {
            while rest != 0 {
                let p = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let others = self.nbr[p] & !chains;
                if others.count_ones() != 1 || others & empty == 0 || others < 1 << p {
                    continue;
                }
                let q = others.trailing_zeros() as usize;
                if self.nbr[q] & !chains == 1 << p
                    && self.nbr[p] & chains != 0
                    && self.nbr[q] & chains != 0
                {
                    return Some((1 << p, 1 << q));
                }
            }
            None
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stones(topo: &Topo, rows: &[&str]) -> (u32, u32) {
        let (mut black, mut white) = (0, 0);
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                let bit = 1u32 << (y * rows[0].len() + x);
                match c {
                    'X' => black |= bit,
                    'O' => white |= bit,
                    _ => {}
                }
            }
        }
        assert_eq!((black | white) & !topo.all, 0);
        (black, white)
    }

    #[test]
    fn each_colour_reaches_first_the_points_nearer_its_stones() {
        let topo = Topo::new(&Geometry::rect(5, 1).unwrap());
        // X . . . O: one step takes b and d, the second meets at c.
        let (black, white) = stones(&topo, &["X...O"]);
        assert_eq!(topo.nearer(black, white, 1), (0b00011, 0b11000));
        assert_eq!(topo.nearer(black, white, 2), (0b00011, 0b11000));
        // X . . . .: two steps take b and c, not d.
        let (black, white) = stones(&topo, &["X...."]);
        assert_eq!(topo.nearer(black, white, 2), (0b00111, 0));
        // X . O . .: b is reached by both at once: the spread stops there for both.
        let (black, white) = stones(&topo, &["X.O.."]);
        assert_eq!(topo.nearer(black, white, 3), (0b00001, 0b11100));
    }

    #[test]
    fn two_eyes_are_pass_alive_and_one_is_not() {
        let topo = Topo::new(&Geometry::rect(3, 3).unwrap());
        for suicide in [false, true] {
            let (b, w) = stones(&topo, &[".XX", "XXX", "XX."]);
            let safe = topo.pass_alive(b, w, suicide);
            assert_eq!(safe.chains, b);
            assert_eq!(safe.count(), 9);
            // One eye of two points: White may fill it (the second play is suicide, but the
            // first stone stays while Black passes), so nothing is kept.
            let (b, w) = stones(&topo, &["..X", "XXX", "XXX"]);
            assert_eq!(topo.pass_alive(b, w, suicide).count(), 0);
            // A White stone in a two-point region whose points both touch the chain.
            let (b, w) = stones(&topo, &["O.X", "XXX", "X.X"]);
            assert_eq!(topo.pass_alive(b, w, suicide).chains, b);
        }
        // A region whose White stone touches no Black stone: vital only without suicide (with
        // it, White can fill the region, self-capture, and fill the chain's liberties there).
        let topo = Topo::new(&Geometry::rect(3, 4).unwrap());
        let (b, w) = stones(&topo, &["O.X", ".XX", "XXX", "X.X"]);
        assert_eq!(topo.pass_alive(b, w, false).chains, b);
        assert_eq!(topo.pass_alive(b, w, false).count(), 9);
        assert_eq!(topo.pass_alive(b, w, true).chains, 0);
    }

    #[test]
    fn regions_with_one_interior_point_are_found_and_kept_apart_from_benson() {
        let topo = Topo::new(&Geometry::rect(4, 4).unwrap());
        // A corner of four points (a1 next to no Black stone) holding two White stones, and
        // Black's chain with two eyes besides.
        let (b, w) = stones(&topo, &["..X.", "OOXX", "XXXX", "X.XX"]);
        let safe = topo.pass_alive(b, w, false);
        assert_eq!(safe.chains, b);
        let corner = 0b11 | 0b11 << 4;
        let found: Vec<_> = topo.interior_regions(b, safe.chains).collect();
        assert!(found.contains(&corner), "{found:?}");
        // Without the corner the chain keeps its two eyes: it stays pass-alive.
        assert_eq!(topo.pass_alive_without(b, w, false, corner).chains, b);
        // A corner of six points has two interior points (a1, b1 in the top row): none.
        let (b, w) = stones(&topo, &["...X", "...X", "XXXX", "X.X."]);
        let safe = topo.pass_alive(b, w, false);
        assert_eq!(safe.chains, b);
        assert!(topo.interior_regions(b, safe.chains).all(|r| r & 1 == 0));
        // A chain with three eyes (a1, b4, d4) stays pass-alive without one, not without two.
        let (b, w) = stones(&topo, &[".X..", "XX..", "XXXX", "X.X."]);
        let safe = topo.pass_alive(b, w, false);
        assert_eq!(safe.chains, b);
        assert_eq!(topo.pass_alive_without(b, w, false, 1).chains, b);
        assert_eq!(topo.pass_alive_without(b, w, false, 1 | 1 << 13).chains, 0);
    }

    #[test]
    fn two_point_eyes_are_found_beside_pass_alive_chains() {
        let topo = Topo::new(&Geometry::rect(3, 3).unwrap());
        let (b, w) = stones(&topo, &["..X", "XXX", "X.X"]);
        let safe = topo.pass_alive(b, w, false);
        assert_eq!(safe.chains, b);
        assert_eq!(safe.eyes, 1 << 7);
        let empty = topo.all & !(b | w);
        let pairs: Vec<_> = topo.two_point_eyes(safe.chains, empty).collect();
        assert_eq!(pairs, vec![(1 << 0, 1 << 1)]);
        // Not beside pass-alive chains: none.
        assert_eq!(topo.two_point_eyes(0, empty).count(), 0);
        // Three empty points in a row are not a two-point eye.
        let (b, w) = stones(&topo, &["...", "XXX", "X.X"]);
        let empty = topo.all & !(b | w);
        assert_eq!(topo.two_point_eyes(b, empty).count(), 0);
    }
}
