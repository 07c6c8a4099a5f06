//! Pairings (placeholder until the full module lands).

/// One game to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pairing {
    /// The round (from 0).
    pub round: usize,
    /// Black's engine.
    pub black: usize,
    /// White's engine.
    pub white: usize,
}

/// Every pair plays `games_per_pair` games, colours alternating.
#[must_use]
pub fn round_robin(n: usize, games_per_pair: usize) -> Vec<Pairing> {
    let mut out = Vec::new();
    for g in 0..games_per_pair {
        for a in 0..n {
            for b in a + 1..n {
                let (black, white) = if g % 2 == 0 { (a, b) } else { (b, a) };
                out.push(Pairing {
                    round: g,
                    black,
                    white,
                });
            }
        }
    }
    out
}

/// The first `seeds` engines play every other engine.
#[must_use]
pub fn gauntlet(n: usize, seeds: usize, games_per_pair: usize) -> Vec<Pairing> {
    let mut out = Vec::new();
    for g in 0..games_per_pair {
        for a in 0..seeds.min(n) {
            for b in seeds..n {
                let (black, white) = if g % 2 == 0 { (a, b) } else { (b, a) };
                out.push(Pairing {
                    round: g,
                    black,
                    white,
                });
            }
        }
    }
    out
}
