//! Continuous pairing, as CGOS does it: every few seconds a server pairs the players waiting
//! for a game, near in rating but with some randomness, never the same two in a row.
//!
//! Pure logic: the randomness comes in as each player's jitter (in Elo, added to the rating
//! for sorting only), so a test fixes it and a server draws it.
//!
//! ```
//! use goref_tournament::continuous::{pair_waiting, Waiting};
//!
//! let waiting = [
//!     Waiting { rating: 1500.0, jitter: 0.0, last_opponent: Some(1), had_black_last: Some(true) },
//!     Waiting { rating: 1490.0, jitter: 0.0, last_opponent: Some(0), had_black_last: Some(false) },
//!     Waiting { rating: 1000.0, jitter: 0.0, last_opponent: None, had_black_last: None },
//! ];
//! // 0 and 1 are nearest but just played each other: 0 meets 2 and 1 waits.
//! let pairs = pair_waiting(&waiting);
//! assert_eq!(pairs.len(), 1);
//! let (black, white) = pairs[0];
//! // 0 had Black last, so it takes White.
//! assert_eq!((black, white), (2, 0));
//! ```

/// One player waiting for a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waiting {
    /// Its rating (Elo).
    pub rating: f64,
    /// Random noise added to the rating when sorting (Elo; 0 for none).
    pub jitter: f64,
    /// The index (in the same slice) of the player it met in its last game, if that player
    /// waits too.
    pub last_opponent: Option<usize>,
    /// Whether it had Black in its last game (none: no game yet).
    pub had_black_last: Option<bool>,
}

/// Pairs the waiting players: sorted by rating plus jitter, each takes the nearest player
/// below it that it did not just meet (neither was the other's last opponent). Returns
/// `(black, white)` index pairs; a player that cannot be paired waits for the next call.
///
/// Colours: a player that had Black last takes White when the other did not; otherwise the
/// higher-sorted player takes White (the jitter makes that random).
#[must_use]
pub fn pair_waiting(waiting: &[Waiting]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..waiting.len()).collect();
    let key = |i: usize| waiting[i].rating + waiting[i].jitter;
    order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
    let just_met = |a: usize, b: usize| {
        waiting[a].last_opponent == Some(b) || waiting[b].last_opponent == Some(a)
    };
    let mut paired = vec![false; waiting.len()];
    let mut pairs = Vec::new();
    for (k, &a) in order.iter().enumerate() {
        if paired[a] {
            continue;
        }
        let Some(&b) = order[k + 1..]
            .iter()
            .find(|&&b| !paired[b] && !just_met(a, b))
        else {
            continue;
        };
        paired[a] = true;
        paired[b] = true;
        let a_black_last = waiting[a].had_black_last == Some(true);
        let b_black_last = waiting[b].had_black_last == Some(true);
        pairs.push(if b_black_last && !a_black_last {
            (a, b)
        } else {
            (b, a)
        });
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(rating: f64, last: Option<usize>) -> Waiting {
        Waiting {
            rating,
            jitter: 0.0,
            last_opponent: last,
            had_black_last: None,
        }
    }

    #[test]
    fn nearest_ratings_meet() {
        let waiting = [
            w(1000.0, None),
            w(2000.0, None),
            w(1010.0, None),
            w(1990.0, None),
        ];
        let mut pairs: Vec<(usize, usize)> = pair_waiting(&waiting)
            .into_iter()
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        pairs.sort_unstable();
        assert_eq!(pairs, vec![(0, 2), (1, 3)]);
    }

    #[test]
    fn two_players_who_just_met_wait() {
        assert!(pair_waiting(&[w(1.0, Some(1)), w(2.0, Some(0))]).is_empty());
        // One-sided too: 1's last game was against 0 (0 has played someone since).
        assert!(pair_waiting(&[w(1.0, None), w(2.0, Some(0))]).is_empty());
        assert_eq!(pair_waiting(&[w(1.0, None), w(2.0, None)]).len(), 1);
    }

    #[test]
    fn jitter_changes_who_meets_whom() {
        let mut waiting = [
            w(1000.0, None),
            w(1100.0, None),
            w(1200.0, None),
            w(1300.0, None),
        ];
        let plain: Vec<_> = pair_waiting(&waiting);
        waiting[0].jitter = 250.0; // sorts between 2 and 3
        let jittered: Vec<_> = pair_waiting(&waiting);
        assert_ne!(plain, jittered);
        let meets = |pairs: &[(usize, usize)], a: usize, b: usize| {
            pairs
                .iter()
                .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
        };
        assert!(meets(&plain, 0, 1) && meets(&plain, 2, 3));
        assert!(meets(&jittered, 3, 0) && meets(&jittered, 2, 1));
    }

    #[test]
    fn every_player_is_in_at_most_one_pair_and_never_meets_its_last_opponent() {
        // A deterministic spread of cases: ratings, jitters and last opponents vary.
        for n in 0..12usize {
            for seed in 0..40u64 {
                let mut x = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(n as u64);
                let mut next = || {
                    x = x
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    (x >> 33) as usize
                };
                let waiting: Vec<Waiting> = (0..n)
                    .map(|_| Waiting {
                        rating: (next() % 400) as f64,
                        jitter: (next() % 100) as f64,
                        last_opponent: Some(next() % (n + 1)).filter(|&o| o < n),
                        had_black_last: Some(next() % 2 == 0),
                    })
                    .collect();
                let pairs = pair_waiting(&waiting);
                let mut seen = vec![false; n];
                for &(b, wh) in &pairs {
                    assert_ne!(b, wh);
                    assert!(!seen[b] && !seen[wh], "one game at a time");
                    seen[b] = true;
                    seen[wh] = true;
                    assert_ne!(waiting[b].last_opponent, Some(wh));
                    assert_ne!(waiting[wh].last_opponent, Some(b));
                    if waiting[wh].had_black_last == Some(false) {
                        assert_eq!(
                            waiting[b].had_black_last,
                            Some(false),
                            "White goes to a player that had Black last when one did"
                        );
                    }
                }
                // Nobody left over could have been paired with another left over.
                let left: Vec<usize> = (0..n).filter(|&i| !seen[i]).collect();
                for &a in &left {
                    for &b in &left {
                        if a < b {
                            assert!(
                                waiting[a].last_opponent == Some(b)
                                    || waiting[b].last_opponent == Some(a),
                                "{a} and {b} both wait though they could meet"
                            );
                        }
                    }
                }
            }
        }
    }
}
