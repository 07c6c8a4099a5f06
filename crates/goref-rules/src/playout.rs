//! Light random playouts: the standard speed benchmark of a Go rules engine, and the policy of
//! goref's built-in `random` engine.

use crate::{Color, Game, Move, Point};

/// A small, fast, seedable generator (xorshift64*), so that playouts are reproducible.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value).
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        let mut s = seed;
        Rng(crate::geometry::splitmix64(&mut s) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A uniform number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// A uniformly random legal move that does not fill a one-point eye of the mover's own colour,
/// or a pass when there is none. `candidates` is a reusable buffer.
pub fn random_move(game: &Game, rng: &mut Rng, candidates: &mut Vec<Point>) -> Move {
    let color: Color = game.to_move();
    let board = game.board();
    candidates.clear();
    candidates.extend(board.empty_points());
    while !candidates.is_empty() {
        let i = rng.below(candidates.len());
        let mv = Move::Play(candidates[i]);
        if !board.is_own_eye(candidates[i], color) && game.is_legal(mv) {
            return mv;
        }
        candidates.swap_remove(i);
    }
    Move::Pass
}

/// Plays the move [`random_move`] would choose (the same distribution, checking each candidate
/// once instead of twice) and returns it.
pub fn play_random_move(game: &mut Game, rng: &mut Rng, candidates: &mut Vec<Point>) -> Move {
    let color = game.to_move();
    candidates.clear();
    candidates.extend(game.board().empty_points());
    while !candidates.is_empty() {
        let i = rng.below(candidates.len());
        let p = candidates[i];
        if !game.board().is_own_eye(p, color) && game.play(Move::Play(p)).is_ok() {
            return Move::Play(p);
        }
        candidates.swap_remove(i);
    }
    game.play(Move::Pass)
        .expect("a pass is legal while the game goes on");
    Move::Pass
}

/// Plays random moves until the game ends or `max_turns` turns have been played; returns the
/// number of turns played.
pub fn playout(game: &mut Game, rng: &mut Rng, max_turns: usize) -> usize {
    let mut candidates = Vec::with_capacity(game.geometry().len());
    let mut turns = 0;
    while !game.is_over() && turns < max_turns {
        play_random_move(game, rng, &mut candidates);
        turns += 1;
    }
    turns
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Ruleset;

    #[test]
    fn playouts_end_and_never_fill_own_eyes() {
        for rules in [Ruleset::TROMP_TAYLOR, Ruleset::NSTT, Ruleset::OLYMPIAD] {
            let mut game = Game::rect(9, 9, rules).unwrap();
            let mut rng = Rng::new(7);
            for _ in 0..20 {
                game.reset();
                let mut candidates = Vec::new();
                while !game.is_over() {
                    let mv = random_move(&game, &mut rng, &mut candidates);
                    if let Move::Play(p) = mv {
                        assert!(!game.board().is_own_eye(p, game.to_move()));
                    }
                    game.play(mv).unwrap();
                    assert!(
                        game.moves().len() < 2000,
                        "playout under {rules} did not end"
                    );
                }
            }
        }
    }

    #[test]
    fn rng_below_is_in_range_and_covers_it() {
        let mut rng = Rng::new(1);
        let mut seen = [false; 5];
        for _ in 0..200 {
            seen[rng.below(5)] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
