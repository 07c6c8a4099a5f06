//! Failed logins, throttled where the guessing comes from: per (name, client address) and per
//! client address, never per name alone, so that an attacker guessing a name's password does
//! not lock its owner out (OWASP's advice: throttle the attacker, not the account).
//!
//! A guess is counted **before** its password is hashed ([`Throttle::begin`] reserves it), so
//! that many guesses sent at once are counted as they come, not after the slow hashes end; the
//! right password gives its reservation back ([`Throttle::succeeded`]). Time is passed in.
//!
//! ```
//! use goref_server::throttle::{Throttle, ThrottleLimits};
//!
//! let throttle = Throttle::new(ThrottleLimits::default());
//! let attacker = "198.51.100.7";
//! for _ in 0..10 {
//!     let guess = throttle.begin("alice", attacker, 0).unwrap();
//!     throttle.failed(guess);
//! }
//! // The attacker may not guess alice's password again this minute…
//! assert!(throttle.begin("alice", attacker, 1_000).is_err());
//! // …but alice, from her own address, logs in.
//! let mine = throttle.begin("alice", "203.0.113.9", 1_000).unwrap();
//! throttle.succeeded(mine);
//! ```

use std::collections::HashMap;
use std::sync::Mutex;

/// How many failed guesses are let through, and for how long they are remembered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrottleLimits {
    /// Failed guesses of one name from one address within a window.
    pub per_name_and_address: u32,
    /// Failed guesses from one address, whatever the names, within a window.
    pub per_address: u32,
    /// The window, in milliseconds: a count starts at its first guess and is forgotten after.
    pub window_ms: u64,
    /// Counts kept at most (each a few dozen bytes): past it the oldest windows are forgotten
    /// first, so a stranger cannot make the server hold more.
    pub max_entries: usize,
}

impl Default for ThrottleLimits {
    fn default() -> ThrottleLimits {
        ThrottleLimits {
            per_name_and_address: 10,
            per_address: 30,
            window_ms: 60_000,
            max_entries: 100_000,
        }
    }
}

/// A guess counted and not yet settled: hand it back with [`Throttle::failed`] or
/// [`Throttle::succeeded`].
#[derive(Debug)]
#[must_use = "a guess is settled as failed or succeeded"]
pub struct Guess {
    pair: (String, String),
    address: String,
    at: u64,
}

/// Too many failed guesses: try again after this many milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryAfter(pub u64);

#[derive(Clone, Copy, Debug)]
struct Window {
    count: u32,
    start: u64,
}

/// The failed-login counts of a server.
#[derive(Debug)]
pub struct Throttle {
    limits: ThrottleLimits,
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    pairs: HashMap<(String, String), Window>,
    addresses: HashMap<String, Window>,
}

impl Throttle {
    /// No failure counted yet.
    #[must_use]
    pub fn new(limits: ThrottleLimits) -> Throttle {
        Throttle {
            limits,
            counts: Mutex::new(Counts::default()),
        }
    }

    /// Counts a guess of `name`'s password from `address` (its key: an IPv4 address or an IPv6
    /// /64) at `now_ms`, before it is checked.
    ///
    /// # Errors
    ///
    /// [`RetryAfter`] when this address has failed too often, for this name or for all.
    pub fn begin(&self, name: &str, address: &str, now_ms: u64) -> Result<Guess, RetryAfter> {
        let limits = self.limits;
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let pair = (name.to_ascii_lowercase(), address.to_string());
        let current = |w: Option<&Window>| {
            w.filter(|w| now_ms.saturating_sub(w.start) < limits.window_ms)
                .copied()
        };
        let by_pair = current(counts.pairs.get(&pair));
        let by_address = current(counts.addresses.get(address));
        let full = |w: Option<Window>, max: u32| {
            w.filter(|w| w.count >= max)
                .map(|w| w.start + limits.window_ms - now_ms)
        };
        if let Some(wait) = full(by_pair, limits.per_name_and_address)
            .into_iter()
            .chain(full(by_address, limits.per_address))
            .max()
        {
            return Err(RetryAfter(wait.max(1)));
        }
        counts.make_room(now_ms, limits);
        let count = |w: Option<Window>| match w {
            Some(w) => Window {
                count: w.count + 1,
                start: w.start,
            },
            None => Window {
                count: 1,
                start: now_ms,
            },
        };
        counts.pairs.insert(pair.clone(), count(by_pair));
        counts
            .addresses
            .insert(address.to_string(), count(by_address));
        Ok(Guess {
            pair,
            address: address.to_string(),
            at: now_ms,
        })
    }

    /// The guess was wrong: it stays counted.
    pub fn failed(&self, guess: Guess) {
        drop(guess);
    }

    /// The guess was right: it is not held against the address.
    pub fn succeeded(&self, guess: Guess) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let give_back = |w: &mut Window| {
            if w.start <= guess.at {
                w.count = w.count.saturating_sub(1);
            }
        };
        if let Some(w) = counts.pairs.get_mut(&guess.pair) {
            give_back(w);
        }
        if let Some(w) = counts.addresses.get_mut(&guess.address) {
            give_back(w);
        }
    }

    /// Counts held (pairs and addresses), for the bound's tests.
    #[must_use]
    pub fn entries(&self) -> usize {
        let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.pairs.len() + counts.addresses.len()
    }
}

impl Counts {
    /// Forgets ended windows when the maps are full; if still full, the oldest windows.
    fn make_room(&mut self, now_ms: u64, limits: ThrottleLimits) {
        let full = |c: &Counts| c.pairs.len() + c.addresses.len() + 2 > limits.max_entries;
        if !full(self) {
            return;
        }
        let live = |w: &Window| now_ms.saturating_sub(w.start) < limits.window_ms;
        self.pairs.retain(|_, w| live(w));
        self.addresses.retain(|_, w| live(w));
        while full(self) {
            // The oldest window of either map goes first (a rare, linear scan).
            let oldest_pair = self
                .pairs
                .iter()
                .min_by_key(|(_, w)| w.start)
                .map(|(k, w)| (k.clone(), w.start));
            let oldest_address = self
                .addresses
                .iter()
                .min_by_key(|(_, w)| w.start)
                .map(|(k, w)| (k.clone(), w.start));
            match (oldest_pair, oldest_address) {
                (Some((k, a)), Some((_, b))) if a <= b => {
                    self.pairs.remove(&k);
                }
                (_, Some((k, _))) => {
                    self.addresses.remove(&k);
                }
                (Some((k, _)), None) => {
                    self.pairs.remove(&k);
                }
                (None, None) => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(t: &Throttle, name: &str, address: &str, now: u64) -> Result<(), RetryAfter> {
        t.begin(name, address, now).map(|g| t.failed(g))
    }

    /// The owner logs in while an attacker is being refused; the attacker's window ends.
    #[test]
    fn the_attacker_is_throttled_not_the_owner() {
        let t = Throttle::new(ThrottleLimits::default());
        for i in 0..10 {
            fail(&t, "Alice", "10.0.0.66", i).unwrap();
        }
        assert_eq!(fail(&t, "alice", "10.0.0.66", 100), Err(RetryAfter(59_900)));
        // Another name from the attacker's address is still allowed (up to the address's
        // limit), and the owner from hers.
        fail(&t, "bob", "10.0.0.66", 100).unwrap();
        let owner = t.begin("alice", "192.0.2.1", 200).unwrap();
        t.succeeded(owner);
        // A minute after its first guess the attacker may try again.
        assert!(t.begin("alice", "10.0.0.66", 60_000).is_ok());
    }

    /// An address that guesses many names is throttled as a whole.
    #[test]
    fn an_address_guessing_many_names_is_throttled() {
        let t = Throttle::new(ThrottleLimits::default());
        for i in 0..30 {
            fail(&t, &format!("user{i}"), "10.0.0.66", 0).unwrap();
        }
        assert!(t.begin("user99", "10.0.0.66", 1).is_err());
        assert!(t.begin("user99", "10.0.0.67", 1).is_ok());
    }

    /// Guesses are counted when they begin: twenty at once, before any hash ends, let ten
    /// through. The right password gives its count back.
    #[test]
    fn concurrent_guesses_are_counted_before_they_are_checked() {
        let t = Throttle::new(ThrottleLimits::default());
        let begun: Vec<_> = (0..20).map(|_| t.begin("alice", "10.0.0.66", 5)).collect();
        assert_eq!(begun.iter().filter(|g| g.is_ok()).count(), 10);
        for g in begun.into_iter().flatten() {
            t.failed(g);
        }
        let t = Throttle::new(ThrottleLimits::default());
        for _ in 0..25 {
            let g = t.begin("alice", "192.0.2.1", 5).unwrap();
            t.succeeded(g);
        }
    }

    /// A stranger cycling names and addresses cannot make the throttle hold more than its
    /// bound.
    #[test]
    fn the_counts_are_bounded() {
        let limits = ThrottleLimits {
            max_entries: 100,
            ..ThrottleLimits::default()
        };
        let t = Throttle::new(limits);
        for i in 0..10_000u64 {
            fail(&t, &format!("n{i}"), &format!("a{}", i % 500), i).unwrap();
            assert!(t.entries() <= 100);
        }
    }
}
