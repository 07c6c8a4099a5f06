//! Pairings: who plays whom, with which colour, in which round.
//!
//! Engines are numbered `0..n` in seeding order: engine 0 is the top seed. Four formats:
//!
//! * [`round_robin`]: every pair meets the same number of times, scheduled in rounds by the
//!   circle method;
//! * [`gauntlet`]: the first engines (the seeds) each meet every other engine, but not each other;
//! * [`Swiss`]: a state machine that pairs each round from the standings so far (players with
//!   equal or nearest scores, no repeated pairing while one can be avoided, byes, colours) and
//!   ranks with the Go tie-breaks SOS, SODOS and SOSOS;
//! * [`Knockout`]: a seeded single-elimination bracket of mini-matches, with replays of tied
//!   mini-matches.
//!
//! Everything here is pure logic: no I/O, no randomness, no clock. Scores are counted in half
//! points ([`Points`]) so that draws (jigo) stay exact.
//!
//! ```
//! use goref_tournament::pairing::{round_robin, Knockout, Scored, Points, Swiss};
//!
//! // Four engines, two games per pair: three rounds per cycle, two cycles, 12 games.
//! let schedule = round_robin(4, 2);
//! assert_eq!(schedule.len(), 12);
//! assert_eq!(schedule.last().map(|p| p.round.number()), Some(6));
//!
//! // A Swiss tournament of five engines, in which the better seed always wins.
//! let better_seed_wins = |black: usize, white: usize| {
//!     if black < white { Scored::BlackWins } else { Scored::WhiteWins }
//! };
//! let mut swiss = Swiss::new(5);
//! for _ in 0..3 {
//!     let round = swiss.next_round();
//!     assert!(round.bye.is_some()); // an odd number of engines: one sits out and scores 1
//!     let outcomes: Vec<Scored> =
//!         round.pairings.iter().map(|p| better_seed_wins(p.black, p.white)).collect();
//!     swiss.record(&round, &outcomes).unwrap();
//! }
//! let standings = swiss.standings();
//! assert_eq!((standings[0].engine, standings[0].points), (0, Points::from_whole(3)));
//!
//! // A knockout of three engines, two games a match: the top seed has a bye in round 1.
//! let mut knockout = Knockout::new(3, 2, 1);
//! while let Some(&game) = knockout.pending().first() {
//!     knockout.record(game, better_seed_wins(game.black, game.white)).unwrap();
//! }
//! assert_eq!(knockout.winner(), Some(0));
//! ```

use std::cmp::{Ordering, Reverse};
use std::collections::HashSet;
use std::fmt;
use std::iter::Sum;
use std::num::NonZeroUsize;
use std::ops::{Add, AddAssign};

use goref_rules::Color;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------------
// Common types
// ---------------------------------------------------------------------------------------------

/// A round of a tournament, numbered from 1 as people count rounds: results.jsonl, reports and
/// the server's tournaments show [`Round::number`]. [`Round::index`] is the same round counted
/// from 0, for a schedule's arithmetic and as an index into a list of rounds; the conversion
/// between the two is made here and nowhere else.
///
/// Its serde form is the number (from 1); a [`Pairing`]'s keeps the index (see there).
///
/// ```
/// use goref_tournament::pairing::Round;
///
/// let third = Round::from_index(2);
/// assert_eq!((third.number(), third.index()), (3, 2));
/// assert_eq!(third.to_string(), "3");
/// assert_eq!(Round::new(3), Some(third));
/// assert_eq!(Round::new(0), None);
/// assert_eq!(Round::FIRST.next(), Round::from_index(1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "usize", into = "usize")]
pub struct Round(NonZeroUsize);

impl Round {
    /// The first round (number 1, index 0).
    pub const FIRST: Round = Round(NonZeroUsize::MIN);

    /// Round `number`, counted from 1; `None` for 0.
    #[must_use]
    pub const fn new(number: usize) -> Option<Round> {
        match NonZeroUsize::new(number) {
            Some(n) => Some(Round(n)),
            None => None,
        }
    }

    /// The round at `index`, counted from 0.
    ///
    /// # Panics
    ///
    /// For `usize::MAX` (no round has that index).
    #[must_use]
    pub const fn from_index(index: usize) -> Round {
        match Round::new(index.wrapping_add(1)) {
            Some(round) => round,
            None => panic!("round index out of range"),
        }
    }

    /// The round's number, from 1.
    #[must_use]
    pub const fn number(self) -> usize {
        self.0.get()
    }

    /// The round's index, from 0.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0.get() - 1
    }

    /// The round after this one.
    #[must_use]
    pub const fn next(self) -> Round {
        Round::from_index(self.number())
    }
}

impl fmt::Display for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.number().fmt(f)
    }
}

/// Why a number is not a round: rounds are numbered from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoRoundZero;

impl fmt::Display for NoRoundZero {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("rounds are numbered from 1: there is no round 0")
    }
}

impl std::error::Error for NoRoundZero {}

impl TryFrom<usize> for Round {
    type Error = NoRoundZero;

    fn try_from(number: usize) -> Result<Round, NoRoundZero> {
        Round::new(number).ok_or(NoRoundZero)
    }
}

impl From<Round> for usize {
    fn from(round: Round) -> usize {
        round.number()
    }
}

/// A [`Pairing`]'s round in its serde form, the index (from 0), as the queue's stored jobs
/// hold it.
mod round_index {
    use super::Round;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(round: &Round, s: S) -> Result<S::Ok, S::Error> {
        round.index().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Round, D::Error> {
        let index = usize::deserialize(d)?;
        if index == usize::MAX {
            return Err(serde::de::Error::custom("round index out of range"));
        }
        Ok(Round::from_index(index))
    }
}

/// One game to play: in which round, and which engine takes which colour.
///
/// Its serde form gives the round's index (from 0) as `round`, the form goref-queue's stored
/// jobs have always had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Pairing {
    /// The round.
    #[serde(with = "round_index")]
    pub round: Round,
    /// The engine playing Black (moving first).
    pub black: usize,
    /// The engine playing White.
    pub white: usize,
}

impl Pairing {
    /// A game of `round` between `black` and `white`.
    #[must_use]
    pub const fn new(round: Round, black: usize, white: usize) -> Pairing {
        Pairing {
            round,
            black,
            white,
        }
    }

    /// The engine playing `color`.
    #[must_use]
    pub const fn engine(&self, color: Color) -> usize {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// The colour `engine` plays in this game, or `None` if it does not play in it.
    #[must_use]
    pub const fn color_of(&self, engine: usize) -> Option<Color> {
        if engine == self.black {
            Some(Color::Black)
        } else if engine == self.white {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The opponent of `engine` in this game, or `None` if it does not play in it.
    #[must_use]
    pub const fn opponent(&self, engine: usize) -> Option<usize> {
        if engine == self.black {
            Some(self.white)
        } else if engine == self.white {
            Some(self.black)
        } else {
            None
        }
    }
}

/// A game's result as pairings, standings and ratings score it: who won, not how (a
/// [`goref_rules::Outcome`] forgets the rest when it becomes one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scored {
    /// Black won (by score, resignation, time, forfeit...).
    BlackWins,
    /// White won.
    WhiteWins,
    /// A draw (jigo, or a long cycle with equal captures): half a point each.
    Draw,
}

impl Scored {
    /// The winning colour, `None` for a draw.
    #[must_use]
    pub const fn winner(self) -> Option<Color> {
        match self {
            Scored::BlackWins => Some(Color::Black),
            Scored::WhiteWins => Some(Color::White),
            Scored::Draw => None,
        }
    }

    /// What the player of `color` scores: 1 for a win, ½ for a draw, 0 for a loss.
    #[must_use]
    pub const fn points(self, color: Color) -> Points {
        match (self, color) {
            (Scored::Draw, _) => Points::HALF,
            (Scored::BlackWins, Color::Black) | (Scored::WhiteWins, Color::White) => Points::ONE,
            _ => Points::ZERO,
        }
    }

    /// Black's score: 1 for a win, ½ for a draw, 0 for a loss.
    #[must_use]
    pub fn black_score(self) -> f64 {
        self.points(Color::Black).as_f64()
    }

    /// White's score: 1 for a win, ½ for a draw, 0 for a loss.
    #[must_use]
    pub fn white_score(self) -> f64 {
        self.points(Color::White).as_f64()
    }
}

impl From<goref_rules::Outcome> for Scored {
    /// Forgets how the game was won; a draw, or a void game, is a draw.
    fn from(outcome: goref_rules::Outcome) -> Scored {
        match outcome.winner() {
            Some(Color::Black) => Scored::BlackWins,
            Some(Color::White) => Scored::WhiteWins,
            None => Scored::Draw,
        }
    }
}

/// A game and how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PairingResult {
    /// Who played whom, with which colour.
    pub pairing: Pairing,
    /// How it ended.
    pub outcome: Scored,
}

impl PairingResult {
    /// What `engine` scored in this game, or `None` if it did not play in it.
    #[must_use]
    pub fn points_of(&self, engine: usize) -> Option<Points> {
        self.pairing
            .color_of(engine)
            .map(|color| self.outcome.points(color))
    }
}

/// A tournament score, counted in **half points** so that draws stay exact: `Points(3)` is 1½.
///
/// ```
/// use goref_tournament::pairing::Points;
///
/// assert_eq!(Points::ONE + Points::HALF, Points(3));
/// assert_eq!(Points(3).to_string(), "1.5");
/// assert_eq!(Points::from_whole(2).as_f64(), 2.0);
/// ```
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Points(pub u32);

impl Points {
    /// No points: a loss.
    pub const ZERO: Points = Points(0);
    /// Half a point: a draw.
    pub const HALF: Points = Points(1);
    /// One point: a win, or a bye.
    pub const ONE: Points = Points(2);

    /// `whole` points (saturating at `u32::MAX` half points).
    #[must_use]
    pub const fn from_whole(whole: u32) -> Points {
        Points(whole.saturating_mul(2))
    }

    /// The number of half points.
    #[must_use]
    pub const fn halves(self) -> u32 {
        self.0
    }

    /// The score as a number of points, e.g. 1.5.
    #[must_use]
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl Add for Points {
    type Output = Points;

    /// Saturating addition.
    fn add(self, other: Points) -> Points {
        Points(self.0.saturating_add(other.0))
    }
}

impl AddAssign for Points {
    fn add_assign(&mut self, other: Points) {
        *self = *self + other;
    }
}

impl Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, Add::add)
    }
}

impl fmt::Display for Points {
    /// `3`, `1.5`, `0.5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0 / 2)?;
        if self.0 % 2 == 1 {
            f.write_str(".5")?;
        }
        Ok(())
    }
}

/// Why results were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairingError {
    /// Results for round `found` while round `expected` is the next to record.
    WrongRound {
        /// The round the tournament expects.
        expected: Round,
        /// The round named by the results.
        found: Round,
    },
    /// Not one outcome per pairing.
    OutcomeCount {
        /// The number of pairings in the round.
        pairings: usize,
        /// The number of outcomes given.
        outcomes: usize,
    },
    /// An engine index out of `0..n`.
    UnknownEngine(usize),
    /// An engine paired twice in one round, or against itself, or both paired and given the bye.
    EngineTwice(usize),
    /// A game that is not waiting for a result.
    NotPending(Pairing),
}

impl fmt::Display for PairingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairingError::WrongRound { expected, found } => {
                write!(f, "results for round {found}, expected round {expected}")
            }
            PairingError::OutcomeCount { pairings, outcomes } => {
                write!(f, "{outcomes} outcomes for {pairings} pairings")
            }
            PairingError::UnknownEngine(engine) => write!(f, "no engine {engine}"),
            PairingError::EngineTwice(engine) => {
                write!(f, "engine {engine} appears twice in the round")
            }
            PairingError::NotPending(p) => write!(
                f,
                "no pending game of round {}: {} (Black) against {} (White)",
                p.round, p.black, p.white
            ),
        }
    }
}

impl std::error::Error for PairingError {}

/// The game `game` (counted from 0) of the pair `a`, `b`, in `round`: the lower index has Black
/// in the pair's even-numbered games, White in its odd-numbered ones.
fn alternating(round: Round, a: usize, b: usize, game: usize) -> Pairing {
    let (low, high) = (a.min(b), a.max(b));
    if game.is_multiple_of(2) {
        Pairing::new(round, low, high)
    } else {
        Pairing::new(round, high, low)
    }
}

// ---------------------------------------------------------------------------------------------
// Round-robin and gauntlet
// ---------------------------------------------------------------------------------------------

/// The pairs of each round of one single round-robin of `n` engines, by the circle method:
/// engine 0 stays put and the others turn around it; with an odd `n` a phantom engine `n` is
/// added and whoever meets it sits out (has a bye) that round. `n - 1` rounds for an even `n`,
/// `n` rounds for an odd one.
fn circle_rounds(n: usize) -> Vec<Vec<(usize, usize)>> {
    let size = n + n % 2;
    let mut ring: Vec<usize> = (0..size).collect();
    (1..size)
        .map(|_| {
            let pairs = (0..size / 2)
                .map(|i| (ring[i], ring[size - 1 - i]))
                .filter(|&(a, b)| a < n && b < n)
                .collect();
            ring[1..].rotate_right(1);
            pairs
        })
        .collect()
}

/// A round-robin of `n` engines in which every pair plays `games_per_pair` games.
///
/// One cycle of the circle method takes `R` rounds (`R = n - 1` for an even `n`; `R = n` for an
/// odd `n`, each round one engine sitting out). The cycle is played `games_per_pair` times:
/// the rounds of index `k·R .. (k+1)·R` hold game `k` of every pair, so an engine plays at most once a round.
/// Colours alternate within a pair: in its games 0, 2, 4... the lower index has Black, in its
/// games 1, 3, 5... White. The list is ordered by round, then board.
///
/// Fewer than two engines, or `games_per_pair == 0`, make an empty schedule.
///
/// ```
/// use goref_tournament::pairing::{round_robin, Pairing, Round};
///
/// let schedule = round_robin(3, 2);
/// assert_eq!(schedule.len(), 6);
/// assert_eq!(schedule[0], Pairing::new(Round::FIRST, 1, 2)); // engine 0 sits out round 1
/// // The pair's second game, in round 4: colours swapped.
/// assert_eq!(schedule[3], Pairing::new(Round::new(4).unwrap(), 2, 1));
/// ```
#[must_use]
pub fn round_robin(n: usize, games_per_pair: usize) -> Vec<Pairing> {
    if n < 2 || games_per_pair == 0 {
        return Vec::new();
    }
    let cycle = circle_rounds(n);
    let mut schedule = Vec::new();
    for game in 0..games_per_pair {
        for (r, pairs) in cycle.iter().enumerate() {
            let round = Round::from_index(game * cycle.len() + r);
            schedule.extend(pairs.iter().map(|&(a, b)| alternating(round, a, b, game)));
        }
    }
    schedule
}

/// A gauntlet: each of the first `seeds` engines plays `games_per_pair` games against each of
/// the other `n - seeds` engines. Seeds do not play each other, nor do the others (as in
/// cutechess's gauntlet).
///
/// With `L = max(seeds, n - seeds)`, one cycle takes `L` rounds: in the round of index `r` seed `i` meets
/// opponent `seeds + (i + r) mod L` (if there is one), so an engine plays at most once a round.
/// Cycle `k` (the rounds of index `k·L .. (k+1)·L`) holds game `k` of every pair, and colours alternate within
/// a pair: in its even-numbered games the seed has Black. Ordered by round, then seed.
///
/// No seeds, no other engines, or `games_per_pair == 0` make an empty schedule; `seeds` larger
/// than `n` counts as `n`.
///
/// ```
/// use goref_tournament::pairing::{gauntlet, Pairing, Round};
///
/// // Engine 0 against engines 1, 2 and 3, twice each.
/// let schedule = gauntlet(4, 1, 2);
/// assert_eq!(schedule.len(), 6);
/// assert_eq!(schedule[0], Pairing::new(Round::FIRST, 0, 1));
/// assert_eq!(schedule[3], Pairing::new(Round::new(4).unwrap(), 1, 0));
/// ```
#[must_use]
pub fn gauntlet(n: usize, seeds: usize, games_per_pair: usize) -> Vec<Pairing> {
    let seeds = seeds.min(n);
    let others = n - seeds;
    if seeds == 0 || others == 0 || games_per_pair == 0 {
        return Vec::new();
    }
    let cycle = seeds.max(others);
    let mut schedule = Vec::new();
    for game in 0..games_per_pair {
        for r in 0..cycle {
            let round = Round::from_index(game * cycle + r);
            for seed in 0..seeds {
                let other = (seed + r) % cycle;
                if other < others {
                    schedule.push(alternating(round, seed, seeds + other, game));
                }
            }
        }
    }
    schedule
}

// ---------------------------------------------------------------------------------------------
// Swiss
// ---------------------------------------------------------------------------------------------

/// The pairings of one round of a [`Swiss`] tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundPairings {
    /// The round.
    pub number: Round,
    /// The games, best-ranked board first; every `round` field equals `number`.
    pub pairings: Vec<Pairing>,
    /// The engine that sits out and scores a win, if the number of engines is odd.
    pub bye: Option<usize>,
}

/// A recorded round of a [`Swiss`] tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedRound {
    /// The round.
    pub number: Round,
    /// The games and their outcomes.
    pub games: Vec<PairingResult>,
    /// The engine that had the bye, if any.
    pub bye: Option<usize>,
}

/// One line of the [`Swiss`] standings. All scores are in half points ([`Points`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Standing {
    /// The place, from 1 (first). Places are never shared: the last tie-break is the seed.
    pub rank: usize,
    /// The engine.
    pub engine: usize,
    /// Points: 1 a win, ½ a draw, 0 a loss, 1 a bye.
    pub points: Points,
    /// SOS, the sum of the opponents' points: one term per game played (an opponent met twice
    /// counts twice). A bye has no opponent and adds nothing.
    pub sos: Points,
    /// SODOS, the sum of the points of the opponents this engine defeated (one term per game
    /// won; draws and byes add nothing).
    pub sodos: Points,
    /// SOSOS, the sum of the opponents' SOS (one term per game played; a bye adds nothing).
    pub sosos: Points,
}

/// The standings of `engines` engines after `games` and `byes` (one entry a bye), first place
/// first: points (1 a win or a bye, ½ a draw), then SOS (the sum of the opponents' points, one
/// term a game), SODOS (the sum of the points of the opponents beaten), SOSOS (the sum of the
/// opponents' SOS), all higher better, then seed (lower index better). A bye has no opponent:
/// it adds to the points only. Games naming an engine beyond `engines` are left out. This is
/// the one computation of Go's tie-breaks: the Swiss pairs by it, and every format's standings
/// rank by it.
#[must_use]
pub fn standings_of(engines: usize, games: &[PairingResult], byes: &[usize]) -> Vec<Standing> {
    let n = engines;
    let games = || {
        games
            .iter()
            .filter(move |g| g.pairing.black < n && g.pairing.white < n)
    };
    let mut points = vec![Points::ZERO; n];
    for game in games() {
        let p = game.pairing;
        points[p.black] += game.outcome.points(Color::Black);
        points[p.white] += game.outcome.points(Color::White);
    }
    for &bye in byes.iter().filter(|&&b| b < n) {
        points[bye] += Points::ONE;
    }
    let mut sos = vec![Points::ZERO; n];
    let mut sodos = vec![Points::ZERO; n];
    for game in games() {
        let p = game.pairing;
        sos[p.black] += points[p.white];
        sos[p.white] += points[p.black];
        match game.outcome {
            Scored::BlackWins => sodos[p.black] += points[p.white],
            Scored::WhiteWins => sodos[p.white] += points[p.black],
            Scored::Draw => {}
        }
    }
    let mut sosos = vec![Points::ZERO; n];
    for game in games() {
        let p = game.pairing;
        sosos[p.black] += sos[p.white];
        sosos[p.white] += sos[p.black];
    }
    let mut standings: Vec<Standing> = (0..n)
        .map(|engine| Standing {
            rank: 0,
            engine,
            points: points[engine],
            sos: sos[engine],
            sodos: sodos[engine],
            sosos: sosos[engine],
        })
        .collect();
    standings.sort_by_key(|s| {
        (
            Reverse(s.points),
            Reverse(s.sos),
            Reverse(s.sodos),
            Reverse(s.sosos),
            s.engine,
        )
    });
    for (i, standing) in standings.iter_mut().enumerate() {
        standing.rank = i + 1;
    }
    standings
}

/// A Swiss tournament of `n` engines, as played in Go and in KGS bot tournaments.
///
/// Each round is paired from the current standings ([`Swiss::standings`]):
///
/// * **Byes.** With an odd number of engines, one engine sits out and scores a win. The bye goes
///   to the lowest-ranked engine among those that have had the fewest byes (so, the lowest-ranked
///   engine that has not had one, while there is one).
/// * **Scores.** Going down the standings, the best-ranked unpaired engine meets the nearest-ranked
///   unpaired engine it may meet, so engines meet opponents with equal or nearest scores.
/// * **No repeats.** Two engines that have already met are never paired while a pairing of the
///   whole round without such a repeat exists: the pairing is an exhaustive search (backtracking
///   over the standings, remembering which sets of engines cannot be paired), so it finds such a
///   pairing whenever one exists (it prunes branches with a test for perfect matchings, Tutte's
///   matrix modulo a prime, and falls back on the plain search if that test ever fails). When
///   none exists it pairs with the fewest previous meetings.
///   Moreover, among repeat-free pairings it looks ahead and prefers one after which every later
///   round up to the last possible one (index `n - 2` for an even `n`, `n - 1` for an odd one)
///   can still be paired without repeats; this makes a Swiss of up to `n - 1` rounds a complete
///   round-robin without ever repeating a pairing. (The look-ahead is a bounded search: it is
///   skipped above 63 engines, or after rounds recorded with repeats or absentees, and gives up
///   optimistically on a search too long to finish.)
/// * **Colours.** The engine that has had Black fewer times gets Black; on equal counts, the
///   lower-ranked one gets Black.
///
/// The search is exact, hence exponential in the worst case; it is meant for the tens of engines
/// of bot tournaments.
///
/// ```
/// use goref_tournament::pairing::{Scored, Swiss};
///
/// let mut swiss = Swiss::new(4);
/// let round = swiss.next_round();
/// assert_eq!(round.pairings.len(), 2);
/// assert_eq!(round.bye, None);
/// swiss.record(&round, &[Scored::BlackWins, Scored::Draw]).unwrap();
/// assert_eq!(swiss.next_round().number.number(), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Swiss {
    engines: usize,
    history: Vec<PlayedRound>,
}

/// How many times each pair of engines met, in a square table.
struct Meetings {
    size: usize,
    counts: Vec<u32>,
}

impl Meetings {
    fn new(size: usize) -> Meetings {
        Meetings {
            size,
            counts: vec![0; size * size],
        }
    }

    fn get(&self, a: usize, b: usize) -> u32 {
        self.counts[a * self.size + b]
    }

    fn add(&mut self, a: usize, b: usize) {
        self.counts[a * self.size + b] += 1;
        self.counts[b * self.size + a] += 1;
    }
}

impl Swiss {
    /// A Swiss tournament of `engines` engines, no round played yet.
    #[must_use]
    pub fn new(engines: usize) -> Swiss {
        Swiss {
            engines,
            history: Vec::new(),
        }
    }

    /// The number of engines.
    #[must_use]
    pub fn engines(&self) -> usize {
        self.engines
    }

    /// The number of rounds recorded.
    #[must_use]
    pub fn rounds_played(&self) -> usize {
        self.history.len()
    }

    /// The rounds recorded, in order.
    #[must_use]
    pub fn history(&self) -> &[PlayedRound] {
        &self.history
    }

    /// The pairings of the next round (see [`Swiss`] for the rules). Without engines the round is
    /// empty; a single engine gets the bye.
    #[must_use]
    pub fn next_round(&self) -> RoundPairings {
        let number = Round::from_index(self.history.len());
        let n = self.engines;
        if n == 0 {
            return RoundPairings {
                number,
                pairings: Vec::new(),
                bye: None,
            };
        }
        let order: Vec<usize> = self.standings().iter().map(|s| s.engine).collect();
        let mut place = vec![0; n];
        for (i, &engine) in order.iter().enumerate() {
            place[engine] = i;
        }
        // With an odd number of engines, a phantom engine `n` stands for the bye.
        let size = n + n % 2;
        let phantom = (size > n).then_some(n);
        let meetings = self.meetings(size);

        // The search takes the first unpaired vertex of `sequence` and tries its partners in
        // the order of `preferences`: the phantom first, preferring engines with fewer byes,
        // then lower-ranked ones; then the engines down the standings, preferring the nearest.
        let mut sequence = Vec::with_capacity(size);
        let mut preferences = vec![Vec::new(); size];
        if let Some(phantom) = phantom {
            sequence.push(phantom);
            let mut candidates = order.clone();
            candidates.sort_by_key(|&e| (meetings.get(e, phantom), Reverse(place[e])));
            preferences[phantom] = candidates;
        }
        sequence.extend_from_slice(&order);
        for (i, &engine) in order.iter().enumerate() {
            preferences[engine] = order[i + 1..].to_vec();
        }

        let mut search = Search::new(&meetings, sequence, preferences);
        let mut pairs = search.fewest_repeats();
        if search.repeat_free {
            if let Some(rounds_left) = self.rounds_to_complete(&meetings) {
                if let Some(better) = search.completable(rounds_left) {
                    pairs = better;
                }
            }
        }

        let blacks = self.blacks();
        let mut bye = None;
        let mut boards = Vec::with_capacity(pairs.len());
        for (a, b) in pairs {
            if Some(a) == phantom || Some(b) == phantom {
                bye = Some(a.min(b));
                continue;
            }
            // The one with fewer Blacks has Black; on equal counts, the lower-ranked one.
            let a_black = (blacks[a], Reverse(place[a])) < (blacks[b], Reverse(place[b]));
            let (black, white) = if a_black { (a, b) } else { (b, a) };
            boards.push(Pairing::new(number, black, white));
        }
        boards.sort_by_key(|p| place[p.black].min(place[p.white]));
        RoundPairings {
            number,
            pairings: boards,
            bye,
        }
    }

    /// Records the outcomes of `round`: `outcomes[i]` is the outcome of `round.pairings[i]`.
    ///
    /// The round need not be the one [`Swiss::next_round`] proposed (an organiser may change
    /// it), but it must be the next round, with every engine at most once in it. Engines
    /// neither paired nor given the bye are absent and score nothing that round. Nothing is
    /// recorded on error.
    ///
    /// # Errors
    ///
    /// [`PairingError::WrongRound`] if the round or one of its pairings is not the next round,
    /// [`PairingError::OutcomeCount`] if there is not one outcome per pairing,
    /// [`PairingError::UnknownEngine`] for an index out of `0..n`, and
    /// [`PairingError::EngineTwice`] for an engine that appears twice.
    pub fn record(
        &mut self,
        round: &RoundPairings,
        outcomes: &[Scored],
    ) -> Result<(), PairingError> {
        let expected = Round::from_index(self.history.len());
        if let Some(found) = std::iter::once(round.number)
            .chain(round.pairings.iter().map(|p| p.round))
            .find(|&r| r != expected)
        {
            return Err(PairingError::WrongRound { expected, found });
        }
        if outcomes.len() != round.pairings.len() {
            return Err(PairingError::OutcomeCount {
                pairings: round.pairings.len(),
                outcomes: outcomes.len(),
            });
        }
        let mut seen = vec![false; self.engines];
        let engines = round
            .pairings
            .iter()
            .flat_map(|p| [p.black, p.white])
            .chain(round.bye);
        for engine in engines {
            match seen.get_mut(engine) {
                None => return Err(PairingError::UnknownEngine(engine)),
                Some(true) => return Err(PairingError::EngineTwice(engine)),
                Some(seen) => *seen = true,
            }
        }
        let games = round
            .pairings
            .iter()
            .zip(outcomes)
            .map(|(&pairing, &outcome)| PairingResult { pairing, outcome })
            .collect();
        self.history.push(PlayedRound {
            number: expected,
            games,
            bye: round.bye,
        });
        Ok(())
    }

    /// The standings, first place first: by points, then SOS, then SODOS, then SOSOS (all
    /// higher is better), then seed (lower index is better). See [`Standing`] for how a bye
    /// counts.
    #[must_use]
    pub fn standings(&self) -> Vec<Standing> {
        let games: Vec<PairingResult> = self
            .history
            .iter()
            .flat_map(|r| r.games.iter().copied())
            .collect();
        let byes: Vec<usize> = self.history.iter().filter_map(|r| r.bye).collect();
        standings_of(self.engines, &games, &byes)
    }

    /// How many times each pair met; with `size == n + 1`, vertex `n` stands for the bye.
    fn meetings(&self, size: usize) -> Meetings {
        let mut meetings = Meetings::new(size);
        for round in &self.history {
            for game in &round.games {
                meetings.add(game.pairing.black, game.pairing.white);
            }
            if let Some(bye) = round.bye {
                if size > self.engines {
                    meetings.add(bye, self.engines);
                }
            }
        }
        meetings
    }

    /// How many times each engine had Black.
    fn blacks(&self) -> Vec<usize> {
        let mut blacks = vec![0; self.engines];
        for game in self.history.iter().flat_map(|r| &r.games) {
            blacks[game.pairing.black] += 1;
        }
        blacks
    }

    /// The number of rounds that would remain, after the next one, before every pair has met;
    /// `None` when looking ahead is pointless or out of reach: fewer than two such rounds, more
    /// than 64 vertices, or a history that is not a set of disjoint perfect matchings (repeats,
    /// absentees).
    fn rounds_to_complete(&self, meetings: &Meetings) -> Option<usize> {
        let size = meetings.size;
        let played = self.history.len();
        let left = (size - 1).checked_sub(played + 1)?;
        if left < 2 || size > 64 {
            return None;
        }
        for a in 0..size {
            let row = &meetings.counts[a * size..(a + 1) * size];
            if row.iter().any(|&c| c > 1) || row.iter().sum::<u32>() as usize != played {
                return None;
            }
        }
        Some(left)
    }
}

/// The most steps spent on enumerating candidate rounds when looking ahead for one round.
const LOOKAHEAD_STEPS: u64 = 200_000;
/// The most steps spent on checking that one candidate round can be completed: a check that
/// runs out counts as a success.
const COMPLETION_STEPS: u64 = 100_000;
/// The most steps spent on completion checks when looking ahead for one round.
const COMPLETION_STEPS_PER_ROUND: u64 = 1_000_000;

/// An exhaustive search for a perfect matching of the vertices `0..size` (engines, and the bye),
/// in an order of preference, with as few previous meetings as possible.
struct Search<'a> {
    meetings: &'a Meetings,
    /// The vertices, in the order in which they choose a partner.
    sequence: Vec<usize>,
    /// Each vertex's possible partners, preferred first.
    preferences: Vec<Vec<usize>>,
    paired: Vec<bool>,
    pairs: Vec<(usize, usize)>,
    /// Sets of unpaired vertices (as bit sets) that cannot be paired within a budget of
    /// previous meetings.
    hopeless: HashSet<(Vec<u64>, u32)>,
    /// Whether the last [`Search::fewest_repeats`] found a pairing without repeats.
    repeat_free: bool,
    /// Whether to prune, in searches without repeats, the branches that the Tutte matrix test
    /// ([`has_perfect_matching`]) finds without a perfect matching.
    tutte: bool,
    steps: u64,
    step_limit: Option<u64>,
    aborted: bool,
    found: Option<Vec<(usize, usize)>>,
}

impl<'a> Search<'a> {
    fn new(meetings: &'a Meetings, sequence: Vec<usize>, preferences: Vec<Vec<usize>>) -> Self {
        Search {
            meetings,
            sequence,
            preferences,
            paired: vec![false; meetings.size],
            pairs: Vec::new(),
            hopeless: HashSet::new(),
            repeat_free: false,
            tutte: true,
            steps: 0,
            step_limit: None,
            aborted: false,
            found: None,
        }
    }

    /// The preferred pairing among those with the fewest previous meetings.
    fn fewest_repeats(&mut self) -> Vec<(usize, usize)> {
        // Without repeats, first with the Tutte test: it may, with a negligible probability,
        // miss a perfect matching, so a failure is checked by the plain exhaustive search.
        self.found = None;
        if self.solve(0, &mut |_| true, true) {
            self.repeat_free = true;
            return self.found.take().unwrap_or_default();
        }
        self.tutte = false;
        self.hopeless.clear();
        let mut budget = 0;
        loop {
            self.found = None;
            if self.solve(budget, &mut |_| true, true) {
                self.repeat_free = budget == 0;
                return self.found.take().unwrap_or_default();
            }
            budget += 1;
        }
    }

    /// The preferred pairing without repeats after which `rounds_left` more rounds can be
    /// paired without repeats; `None` if there is none or the search is too long.
    fn completable(&mut self, rounds_left: usize) -> Option<Vec<(usize, usize)>> {
        let meetings = self.meetings;
        let size = meetings.size;
        let mut spent = 0;
        let mut gave_up = false;
        let mut accept = |pairs: &[(usize, usize)]| {
            if spent > COMPLETION_STEPS_PER_ROUND {
                gave_up = true;
                return true;
            }
            // The edges still unplayed after this round.
            let mut adjacency = vec![0u64; size];
            for (a, row) in adjacency.iter_mut().enumerate() {
                for b in (0..size).filter(|&b| b != a && meetings.get(a, b) == 0) {
                    *row |= 1 << b;
                }
            }
            for &(a, b) in pairs {
                adjacency[a] &= !(1 << b);
                adjacency[b] &= !(1 << a);
            }
            let mut factorizer = Factorizer {
                adjacency,
                steps: 0,
            };
            let complete = factorizer.factorize(rounds_left).unwrap_or(true);
            spent += factorizer.steps;
            complete
        };
        self.found = None;
        self.steps = 0;
        self.step_limit = Some(LOOKAHEAD_STEPS);
        self.solve(0, &mut accept, false);
        self.step_limit = None;
        let found = self.found.take();
        if std::mem::take(&mut self.aborted) || gave_up {
            return None;
        }
        found
    }

    /// The unpaired vertices, as a bit set.
    fn unpaired(&self) -> Vec<u64> {
        let mut set = vec![0u64; self.paired.len().div_ceil(64)];
        for (v, _) in self.paired.iter().enumerate().filter(|(_, &p)| !p) {
            set[v / 64] |= 1 << (v % 64);
        }
        set
    }

    /// A lower bound on the previous meetings of any pairing of the unpaired vertices: half the
    /// sum, over the unpaired vertices, of the fewest meetings with another unpaired vertex.
    fn lower_bound(&self) -> u32 {
        let free: Vec<usize> = (0..self.paired.len())
            .filter(|&v| !self.paired[v])
            .collect();
        let sum: u64 = free
            .iter()
            .map(|&a| {
                free.iter()
                    .filter(|&&b| b != a)
                    .map(|&b| u64::from(self.meetings.get(a, b)))
                    .min()
                    .unwrap_or(0)
            })
            .sum();
        u32::try_from(sum.div_ceil(2)).unwrap_or(u32::MAX)
    }

    /// Whether the unpaired vertices might be paired within `budget` previous meetings (false
    /// only if they cannot).
    fn promising(&self, budget: u32) -> bool {
        if self.lower_bound() > budget {
            return false;
        }
        if budget > 0 || !self.tutte {
            return true;
        }
        let free: Vec<usize> = (0..self.paired.len())
            .filter(|&v| !self.paired[v])
            .collect();
        has_perfect_matching(&free, |a, b| self.meetings.get(a, b) == 0)
    }

    /// Completes the pairing with at most `budget` previous meetings, trying partners in the
    /// order of preference and offering each complete pairing to `accept`; true once one is
    /// accepted (then `found` holds it) or the search is aborted. `learn` records the sets of
    /// vertices that cannot be paired, which is only sound if `accept` accepts everything.
    fn solve(&mut self, budget: u32, accept: &mut Accept<'_>, learn: bool) -> bool {
        self.steps += 1;
        if self.step_limit.is_some_and(|limit| self.steps > limit) {
            self.aborted = true;
            return true;
        }
        let Some(first) = self.sequence.iter().copied().find(|&v| !self.paired[v]) else {
            if accept(&self.pairs) {
                self.found = Some(self.pairs.clone());
                return true;
            }
            return false;
        };
        let key = (self.unpaired(), budget);
        if self.hopeless.contains(&key) {
            return false;
        }
        self.paired[first] = true;
        for i in 0..self.preferences[first].len() {
            let partner = self.preferences[first][i];
            let cost = self.meetings.get(first, partner);
            if self.paired[partner] || cost > budget {
                continue;
            }
            self.paired[partner] = true;
            self.pairs.push((first, partner));
            let left = budget - cost;
            let done = self.promising(left) && self.solve(left, accept, learn);
            self.pairs.pop();
            self.paired[partner] = false;
            if done {
                self.paired[first] = false;
                return true;
            }
        }
        self.paired[first] = false;
        if learn {
            self.hopeless.insert(key);
        }
        false
    }
}

/// Judges a complete candidate pairing: true to accept it.
type Accept<'f> = dyn FnMut(&[(usize, usize)]) -> bool + 'f;

/// A prime modulus for [`has_perfect_matching`].
const PRIME: u64 = (1 << 31) - 1;

/// A fixed pseudo-random weight in `1..PRIME` for the edge `a`–`b` (splitmix64).
fn edge_weight(a: usize, b: usize) -> u64 {
    let mut z = (a as u64)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add((b as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9))
        .wrapping_add(0x94d0_49bb_1331_11eb);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    z % (PRIME - 1) + 1
}

/// `base^exponent mod PRIME`.
fn power(mut base: u64, mut exponent: u64) -> u64 {
    let mut result = 1;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = result * base % PRIME;
        }
        base = base * base % PRIME;
        exponent >>= 1;
    }
    result
}

/// Whether the graph on `vertices` with the edges `edge` has a perfect matching, by Tutte's
/// theorem: the skew-symmetric matrix with a weight for each edge is regular exactly when there
/// is one, for all but a vanishing fraction of weights. A `true` is always right (a regular
/// matrix proves a matching); a `false` is wrong only for unlucky weights, with a probability
/// below `vertices.len() / PRIME`.
fn has_perfect_matching(vertices: &[usize], edge: impl Fn(usize, usize) -> bool) -> bool {
    let m = vertices.len();
    if m % 2 == 1 {
        return false;
    }
    let mut matrix = vec![vec![0u64; m]; m];
    for i in 0..m {
        for j in i + 1..m {
            let (a, b) = (vertices[i], vertices[j]);
            if edge(a, b) {
                let weight = edge_weight(a.min(b), a.max(b));
                matrix[i][j] = weight;
                matrix[j][i] = PRIME - weight;
            }
        }
    }
    // Gaussian elimination modulo PRIME: regular if every column has a pivot.
    for column in 0..m {
        let Some(pivot) = (column..m).find(|&r| matrix[r][column] != 0) else {
            return false;
        };
        matrix.swap(column, pivot);
        let inverse = power(matrix[column][column], PRIME - 2);
        for row in column + 1..m {
            let factor = matrix[row][column] * inverse % PRIME;
            if factor == 0 {
                continue;
            }
            let (upper, lower) = matrix.split_at_mut(row);
            for (cell, &above) in lower[0][column..].iter_mut().zip(&upper[column][column..]) {
                *cell = (*cell + PRIME - factor * above % PRIME) % PRIME;
            }
        }
    }
    true
}

/// Gave up: the search took too long.
struct GaveUp;

/// A search for a 1-factorization: a partition of the edges of a regular graph on at most 64
/// vertices into perfect matchings.
struct Factorizer {
    /// The neighbours of each vertex, as a bit set.
    adjacency: Vec<u64>,
    steps: u64,
}

impl Factorizer {
    /// Whether the edges split into `factors` perfect matchings (exactly, with none left over).
    fn factorize(&mut self, factors: usize) -> Result<bool, GaveUp> {
        let size = self.adjacency.len();
        let Some(first) = (0..size).find(|&v| self.adjacency[v] != 0) else {
            return Ok(factors == 0);
        };
        if factors == 0 {
            return Ok(false);
        }
        // The edge from the first vertex to its first neighbour belongs to some factor: build
        // that one now (the order of the factors does not matter).
        let partner = self.adjacency[first].trailing_zeros() as usize;
        let all = if size == 64 {
            u64::MAX
        } else {
            (1u64 << size) - 1
        };
        let free = all & !(1 << first) & !(1 << partner);
        let mut chosen = vec![(first, partner)];
        self.matching(free, &mut chosen, factors)
    }

    /// Completes the perfect matching `chosen` over the vertices of `free`, then factorizes the
    /// rest into `factors - 1` matchings.
    fn matching(
        &mut self,
        free: u64,
        chosen: &mut Vec<(usize, usize)>,
        factors: usize,
    ) -> Result<bool, GaveUp> {
        self.steps += 1;
        if self.steps > COMPLETION_STEPS {
            return Err(GaveUp);
        }
        if free == 0 {
            for &(a, b) in chosen.iter() {
                self.adjacency[a] &= !(1 << b);
                self.adjacency[b] &= !(1 << a);
            }
            let result = self.factorize(factors - 1);
            for &(a, b) in chosen.iter() {
                self.adjacency[a] |= 1 << b;
                self.adjacency[b] |= 1 << a;
            }
            return result;
        }
        // The free vertex with the fewest free neighbours.
        let mut best = None;
        let mut rest = free;
        while rest != 0 {
            let v = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let options = (self.adjacency[v] & free).count_ones();
            if options == 0 {
                return Ok(false);
            }
            match best {
                Some((_, fewest)) if fewest <= options => {}
                _ => best = Some((v, options)),
            }
        }
        let Some((v, _)) = best else {
            return Ok(false);
        };
        let mut options = self.adjacency[v] & free;
        while options != 0 {
            let u = options.trailing_zeros() as usize;
            options &= options - 1;
            chosen.push((v, u));
            let done = self.matching(free & !(1 << v) & !(1 << u), chosen, factors)?;
            chosen.pop();
            if done {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

// ---------------------------------------------------------------------------------------------
// Knockout
// ---------------------------------------------------------------------------------------------

/// Who fills one side of a knockout match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Slot {
    /// This engine.
    Engine(usize),
    /// Nobody: the other side advances without playing (the first round only, for the top seeds when
    /// the number of engines is not a power of two).
    Bye,
    /// The winner of a match of the previous round, not decided yet.
    Undecided,
}

/// How a knockout match was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Decision {
    /// The opponent was a bye.
    Bye,
    /// More points over the games played, after this many replay blocks (0: in the first
    /// games).
    Score {
        /// The number of replay blocks played.
        replay_blocks: usize,
    },
    /// Still tied after every replay block allowed: the better colour-balanced score (see
    /// [`Knockout`]).
    ColourBalance,
    /// Still tied on colour-balanced score: the better seed (the lower index).
    Seed,
}

/// The decided result of a knockout match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MatchResult {
    /// The engine that advances.
    pub winner: usize,
    /// How it was decided.
    pub decision: Decision,
}

/// A game of a knockout match, played or to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MatchGame {
    /// Who plays whom, with which colour; `round` is the knockout round.
    pub pairing: Pairing,
    /// How it ended, `None` while it has not been played.
    pub outcome: Option<Scored>,
}

/// A mini-match of a [`Knockout`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Match {
    /// The round.
    pub round: Round,
    /// The two sides: in the first round the better seed first; later, the winner of the upper match
    /// of the previous round first.
    pub slots: [Slot; 2],
    /// The games scheduled so far, in order: the first games, then the replay blocks.
    pub games: Vec<MatchGame>,
    /// The number of replay blocks scheduled so far.
    pub replay_blocks: usize,
    /// The result, once decided.
    pub result: Option<MatchResult>,
}

/// A seeded single-elimination tournament of mini-matches between engines `0..n`.
///
/// **Bracket.** The bracket has `P` places, `P` the smallest power of two at least `n`; the
/// places of the first round pair seed `s` with seed `P - 1 - s`, arranged as usual (for 8: 0–7, 3–4,
/// 1–6, 2–5) so that seeds 0 and 1 can only meet in the final, seeds 0 to 3 only in the
/// semi-finals, and so on. Seeds `n..P` do not exist: their opponents, the top seeds, have a bye
/// and advance without playing. The winners of matches `2j` and `2j + 1` of a round meet in match
/// `j` of the next round.
///
/// **Mini-match.** Each match is `games` games with colours alternating, the better seed (lower
/// index) having Black in the first game. If the points are tied after them, blocks of 2 games
/// are added, up to `max_replays` blocks, each with colours swapped (the worse seed has Black in
/// the block's first game, the better seed in its second), until a block breaks the tie. If
/// still tied, the **colour-balanced score** decides: for each engine, its average score as
/// Black plus its average score as White (a colour it never played adds 0), so that the engine
/// that had one colour more often gains nothing by it; the higher wins. (With an even number of
/// games each engine played each colour equally often, and then tied points always mean tied
/// colour-balanced scores.) If still equal, the better seed wins.
///
/// `games == 0` starts each match directly with the replay blocks; with `max_replays == 0` as
/// well, the better seed advances without playing. No engines make an empty knockout without a
/// winner; a single engine wins without playing.
///
/// ```
/// use goref_tournament::pairing::{Knockout, Pairing, Round, Scored};
///
/// let (semi, last) = (Round::FIRST, Round::FIRST.next());
/// let mut knockout = Knockout::new(4, 1, 0);
/// assert_eq!(knockout.pending(), [Pairing::new(semi, 0, 3), Pairing::new(semi, 1, 2)]);
/// knockout.record(Pairing::new(semi, 0, 3), Scored::WhiteWins).unwrap();
/// knockout.record(Pairing::new(semi, 1, 2), Scored::BlackWins).unwrap();
/// assert_eq!(knockout.pending(), [Pairing::new(last, 1, 3)]);
/// knockout.record(Pairing::new(last, 1, 3), Scored::WhiteWins).unwrap();
/// assert_eq!(knockout.winner(), Some(3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Knockout {
    engines: usize,
    games: usize,
    max_replays: usize,
    rounds: Vec<Vec<Match>>,
}

/// The seeds in bracket order: consecutive pairs meet in the first round, consecutive quadruples
/// make up the matches of the second, and so on. `size` is a power of two.
fn bracket_order(size: usize) -> Vec<usize> {
    let mut order = vec![0];
    while order.len() < size {
        let places = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, places - 1 - s]).collect();
    }
    order
}

/// A sum of fractions `numerator / denominator`, compared exactly.
#[derive(Clone, Copy)]
struct Fraction {
    numerator: u128,
    denominator: u128,
}

impl Fraction {
    /// `points / games`, or 0 without games.
    fn average(points: u32, games: u32) -> Fraction {
        if games == 0 {
            Fraction {
                numerator: 0,
                denominator: 1,
            }
        } else {
            Fraction {
                numerator: points.into(),
                denominator: games.into(),
            }
        }
    }

    fn add(self, other: Fraction) -> Fraction {
        Fraction {
            numerator: self.numerator * other.denominator + other.numerator * self.denominator,
            denominator: self.denominator * other.denominator,
        }
    }

    fn compare(self, other: Fraction) -> Ordering {
        (self.numerator * other.denominator).cmp(&(other.numerator * self.denominator))
    }
}

impl Match {
    /// The points `engine` scored in the games played.
    fn points(&self, engine: usize) -> Points {
        self.games
            .iter()
            .filter_map(|g| Some(g.outcome?.points(g.pairing.color_of(engine)?)))
            .sum()
    }

    /// `engine`'s average score as Black plus its average score as White (in half points).
    fn colour_balanced(&self, engine: usize) -> Fraction {
        let mut points = [0u32; 2];
        let mut games = [0u32; 2];
        for game in &self.games {
            if let (Some(outcome), Some(color)) = (game.outcome, game.pairing.color_of(engine)) {
                points[color.index()] += outcome.points(color).halves();
                games[color.index()] += 1;
            }
        }
        Fraction::average(points[0], games[0]).add(Fraction::average(points[1], games[1]))
    }

    /// Adds the match's first `games` games between `better` and `worse` seeds.
    fn schedule_first(&mut self, better: usize, worse: usize, games: usize) {
        let round = self.round;
        self.games.extend((0..games).map(|i| MatchGame {
            pairing: alternating(round, better, worse, i),
            outcome: None,
        }));
    }

    /// Decides the match if all its games are played and the rules allow, or adds a replay
    /// block.
    fn evaluate(&mut self, a: usize, b: usize, max_replays: usize) -> Option<MatchResult> {
        if self.games.iter().any(|g| g.outcome.is_none()) {
            return None;
        }
        let (better, worse) = (a.min(b), a.max(b));
        let decide = |winner, decision| Some(MatchResult { winner, decision });
        match self.points(better).cmp(&self.points(worse)) {
            Ordering::Greater => {
                return decide(better, self.score_decision());
            }
            Ordering::Less => return decide(worse, self.score_decision()),
            Ordering::Equal => {}
        }
        if self.replay_blocks < max_replays {
            self.replay_blocks += 1;
            let round = self.round;
            self.games.extend(
                [(worse, better), (better, worse)].map(|(black, white)| MatchGame {
                    pairing: Pairing::new(round, black, white),
                    outcome: None,
                }),
            );
            return None;
        }
        match self
            .colour_balanced(better)
            .compare(self.colour_balanced(worse))
        {
            Ordering::Greater => decide(better, Decision::ColourBalance),
            Ordering::Less => decide(worse, Decision::ColourBalance),
            Ordering::Equal => decide(better, Decision::Seed),
        }
    }

    fn score_decision(&self) -> Decision {
        Decision::Score {
            replay_blocks: self.replay_blocks,
        }
    }
}

impl Knockout {
    /// A knockout of `engines` engines, matches of `games` games and up to `max_replays` replay
    /// blocks of 2 games (see [`Knockout`]).
    #[must_use]
    pub fn new(engines: usize, games: usize, max_replays: usize) -> Knockout {
        let mut knockout = Knockout {
            engines,
            games,
            max_replays,
            rounds: Vec::new(),
        };
        let Some(places) = engines.checked_next_power_of_two() else {
            return knockout;
        };
        if engines < 2 {
            return knockout;
        }
        let order = bracket_order(places);
        let slot = |seed: usize| {
            if seed < engines {
                Slot::Engine(seed)
            } else {
                Slot::Bye
            }
        };
        let first = order
            .chunks(2)
            .map(|pair| Match {
                round: Round::FIRST,
                slots: [slot(pair[0]), slot(pair[1])],
                games: Vec::new(),
                replay_blocks: 0,
                result: None,
            })
            .collect();
        knockout.rounds.push(first);
        let mut matches = places / 4;
        while matches > 0 {
            let round = Round::from_index(knockout.rounds.len());
            let empty = Match {
                round,
                slots: [Slot::Undecided; 2],
                games: Vec::new(),
                replay_blocks: 0,
                result: None,
            };
            knockout.rounds.push(vec![empty; matches]);
            matches /= 2;
        }
        for j in 0..knockout.rounds[0].len() {
            if let [Slot::Engine(a), Slot::Engine(b)] = knockout.rounds[0][j].slots {
                knockout.rounds[0][j].schedule_first(a.min(b), a.max(b), games);
            }
            knockout.resolve(0, j);
        }
        knockout
    }

    /// The number of engines.
    #[must_use]
    pub fn engines(&self) -> usize {
        self.engines
    }

    /// The games to play now, in any order or at once: the unplayed games of every match whose
    /// two engines are known, round by round. A replay block appears once the games before it
    /// are all played and tied.
    #[must_use]
    pub fn pending(&self) -> Vec<Pairing> {
        self.rounds
            .iter()
            .flatten()
            .flat_map(|m| &m.games)
            .filter(|g| g.outcome.is_none())
            .map(|g| g.pairing)
            .collect()
    }

    /// Records the outcome of the pending game `pairing` (if the match has several identical
    /// pending games, the first one).
    ///
    /// # Errors
    ///
    /// [`PairingError::NotPending`] if `pairing` is not in [`Knockout::pending`]; nothing is
    /// recorded then.
    pub fn record(&mut self, pairing: Pairing, outcome: Scored) -> Result<(), PairingError> {
        let round = self
            .rounds
            .get_mut(pairing.round.index())
            .ok_or(PairingError::NotPending(pairing))?;
        for (j, m) in round.iter_mut().enumerate() {
            if let Some(game) = m
                .games
                .iter_mut()
                .find(|g| g.outcome.is_none() && g.pairing == pairing)
            {
                game.outcome = Some(outcome);
                self.resolve(pairing.round.index(), j);
                return Ok(());
            }
        }
        Err(PairingError::NotPending(pairing))
    }

    /// The champion, once the final is decided (a single engine is champion at once).
    #[must_use]
    pub fn winner(&self) -> Option<usize> {
        if self.engines == 1 {
            return Some(0);
        }
        Some(self.rounds.last()?.first()?.result?.winner)
    }

    /// The bracket, round by round: the round of index `r` has `P / 2^(r+1)` matches (see [`Knockout`]).
    #[must_use]
    pub fn rounds(&self) -> &[Vec<Match>] {
        &self.rounds
    }

    /// Decides match `j` of the round of index `r` if it can be, and carries its winner forward.
    fn resolve(&mut self, r: usize, j: usize) {
        let max_replays = self.max_replays;
        let m = &mut self.rounds[r][j];
        if m.result.is_some() {
            return;
        }
        let advancing = match m.slots {
            [Slot::Undecided, _] | [_, Slot::Undecided] => return,
            [Slot::Bye, Slot::Bye] => Slot::Bye,
            [Slot::Engine(a), Slot::Bye] | [Slot::Bye, Slot::Engine(a)] => {
                m.result = Some(MatchResult {
                    winner: a,
                    decision: Decision::Bye,
                });
                Slot::Engine(a)
            }
            [Slot::Engine(a), Slot::Engine(b)] => match m.evaluate(a, b, max_replays) {
                None => return,
                Some(result) => {
                    m.result = Some(result);
                    Slot::Engine(result.winner)
                }
            },
        };
        let games = self.games;
        let Some(next) = self
            .rounds
            .get_mut(r + 1)
            .and_then(|round| round.get_mut(j / 2))
        else {
            return;
        };
        next.slots[j % 2] = advancing;
        if let [Slot::Engine(a), Slot::Engine(b)] = next.slots {
            next.schedule_first(a.min(b), a.max(b), games);
        }
        self.resolve(r + 1, j / 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A small deterministic generator (xorshift64*) for pseudo-random results.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn outcome(&mut self) -> Scored {
            match self.next() % 5 {
                0 | 1 => Scored::BlackWins,
                2 | 3 => Scored::WhiteWins,
                _ => Scored::Draw,
            }
        }
    }

    fn unordered(p: &Pairing) -> (usize, usize) {
        (p.black.min(p.white), p.black.max(p.white))
    }

    #[test]
    fn a_pairing_keeps_its_round_index_on_the_wire_and_a_round_its_number() {
        // goref-queue's stored jobs hold a pairing with its round from 0: they still read.
        let stored = r#"{"round":2,"black":1,"white":0}"#;
        let pairing: Pairing = serde_json::from_str(stored).unwrap();
        assert_eq!(pairing, Pairing::new(Round::new(3).unwrap(), 1, 0));
        assert_eq!(serde_json::to_string(&pairing).unwrap(), stored);
        // A round alone is its number, from 1; there is no round 0.
        assert_eq!(serde_json::to_string(&Round::FIRST).unwrap(), "1");
        assert_eq!(serde_json::from_str::<Round>("3").unwrap().index(), 2);
        assert!(serde_json::from_str::<Round>("0").is_err());
        assert!(serde_json::from_str::<Pairing>(&format!(
            r#"{{"round":{},"black":1,"white":0}}"#,
            usize::MAX
        ))
        .is_err());
        // The refusals name rounds as people count them.
        let mut swiss = Swiss::new(2);
        let mut wrong = swiss.next_round();
        wrong.number = Round::from_index(1);
        let err = swiss.record(&wrong, &[Scored::Draw]).unwrap_err();
        assert_eq!(err.to_string(), "results for round 2, expected round 1");
    }

    /// Asserts that no engine plays twice in a round and the list is ordered by round.
    fn assert_once_per_round(schedule: &[Pairing]) {
        assert!(schedule.windows(2).all(|w| w[0].round <= w[1].round));
        let mut seen = HashSet::new();
        for p in schedule {
            assert_ne!(p.black, p.white);
            assert!(seen.insert((p.round, p.black)), "{p:?}");
            assert!(seen.insert((p.round, p.white)), "{p:?}");
        }
    }

    #[test]
    fn round_robin_pairs_colours_and_rounds() {
        for n in 0..=10 {
            for games in 0..=4 {
                let schedule = round_robin(n, games);
                assert_once_per_round(&schedule);
                let mut by_pair: HashMap<(usize, usize), Vec<Pairing>> = HashMap::new();
                for p in &schedule {
                    assert!(p.black < n && p.white < n);
                    by_pair.entry(unordered(p)).or_default().push(*p);
                }
                let pairs = if n < 2 || games == 0 {
                    0
                } else {
                    n * (n - 1) / 2
                };
                assert_eq!(by_pair.len(), pairs, "n = {n}");
                for ((low, _), played) in &by_pair {
                    assert_eq!(played.len(), games);
                    // Colours alternate, the lower index starting with Black.
                    for (k, p) in played.iter().enumerate() {
                        assert_eq!(p.black == *low, k % 2 == 0, "{played:?}");
                    }
                    let blacks = played.iter().filter(|p| p.black == *low).count();
                    assert!(blacks.abs_diff(games - blacks) <= 1);
                }
                if pairs > 0 {
                    let per_cycle = if n % 2 == 0 { n - 1 } else { n };
                    assert_eq!(schedule.last().unwrap().round.number(), games * per_cycle);
                    // With an odd n, exactly one engine sits out each round.
                    let per_round = n / 2;
                    assert!(schedule
                        .chunk_by(|a, b| a.round == b.round)
                        .all(|round| round.len() == per_round));
                }
            }
        }
    }

    #[test]
    fn gauntlet_seeds_meet_all_others_but_not_each_other() {
        for n in 0..=8 {
            for seeds in 0..=n + 1 {
                for games in 0..=3 {
                    let schedule = gauntlet(n, seeds, games);
                    assert_once_per_round(&schedule);
                    let seeds = seeds.min(n);
                    let mut by_pair: HashMap<(usize, usize), Vec<Pairing>> = HashMap::new();
                    for p in &schedule {
                        let (low, high) = unordered(p);
                        assert!(low < seeds && high >= seeds && high < n, "{p:?}");
                        by_pair.entry((low, high)).or_default().push(*p);
                    }
                    let expected = if games == 0 { 0 } else { seeds * (n - seeds) };
                    assert_eq!(by_pair.len(), expected);
                    for ((seed, _), played) in &by_pair {
                        assert_eq!(played.len(), games);
                        for (k, p) in played.iter().enumerate() {
                            assert_eq!(p.black == *seed, k % 2 == 0);
                        }
                    }
                    if expected > 0 {
                        let per_cycle = seeds.max(n - seeds);
                        assert_eq!(schedule.last().unwrap().round.number(), games * per_cycle);
                    }
                }
            }
        }
    }

    /// Plays `rounds` rounds of a Swiss of `n` engines with the results of `result`, checking
    /// each round's shape; returns the tournament.
    fn play_swiss(n: usize, rounds: usize, mut result: impl FnMut(&Pairing) -> Scored) -> Swiss {
        let mut swiss = Swiss::new(n);
        for number in 0..rounds {
            let round = swiss.next_round();
            assert_eq!(round.number.index(), number);
            assert_eq!(round.bye.is_some(), n % 2 == 1);
            assert_eq!(round.pairings.len(), n / 2);
            let mut engines: Vec<usize> = round
                .pairings
                .iter()
                .flat_map(|p| [p.black, p.white])
                .chain(round.bye)
                .collect();
            engines.sort_unstable();
            assert_eq!(engines, (0..n).collect::<Vec<_>>(), "{round:?}");
            let outcomes: Vec<Scored> = round.pairings.iter().map(&mut result).collect();
            swiss.record(&round, &outcomes).unwrap();
        }
        swiss
    }

    /// Asserts that no pair met twice and no engine had two byes.
    fn assert_no_repeats(swiss: &Swiss) {
        let mut met = HashSet::new();
        let mut byes = HashSet::new();
        for round in swiss.history() {
            for game in &round.games {
                assert!(
                    met.insert(unordered(&game.pairing)),
                    "{:?} repeated in round {}",
                    game.pairing,
                    round.number
                );
            }
            if let Some(bye) = round.bye {
                assert!(byes.insert(bye), "second bye for {bye}");
            }
        }
    }

    #[test]
    fn swiss_of_seven_in_three_rounds() {
        // The better seed wins, except that every third game is drawn.
        let mut count = 0;
        let swiss = play_swiss(7, 3, |p| {
            count += 1;
            if count % 3 == 0 {
                Scored::Draw
            } else if p.black < p.white {
                Scored::BlackWins
            } else {
                Scored::WhiteWins
            }
        });
        assert_no_repeats(&swiss);
        assert!(swiss.history().iter().all(|r| r.bye.is_some()));
        let standings = swiss.standings();
        let ranks: Vec<usize> = standings.iter().map(|s| s.rank).collect();
        assert_eq!(ranks, (1..=7).collect::<Vec<_>>());
        let total: Points = standings.iter().map(|s| s.points).sum();
        assert_eq!(total, Points::from_whole(3 * 3 + 3)); // 3 games and 1 bye a round
    }

    #[test]
    fn swiss_never_repeats_up_to_n_minus_one_rounds() {
        for n in 1..=16 {
            for seed in 1..=12u64 {
                let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ n as u64);
                // An odd n can go one round further: then everyone has had one bye.
                let rounds = if n % 2 == 1 { n } else { n - 1 };
                let swiss = play_swiss(n, rounds, |_| rng.outcome());
                assert_no_repeats(&swiss);
            }
        }
    }

    #[test]
    fn swiss_pairs_again_once_everyone_has_met() {
        // Four engines, five rounds: rounds 3 and 4 must repeat, but each pair at most twice.
        let mut rng = Rng(7);
        let swiss = play_swiss(4, 5, |_| rng.outcome());
        let mut met: HashMap<(usize, usize), usize> = HashMap::new();
        for game in swiss.history().iter().flat_map(|r| &r.games) {
            *met.entry(unordered(&game.pairing)).or_default() += 1;
        }
        assert_eq!(met.len(), 6);
        assert!(met.values().all(|&count| count <= 2));
        // Three engines, seven rounds: byes go round evenly.
        let swiss = play_swiss(3, 7, |_| Scored::Draw);
        let mut byes = [0; 3];
        for bye in swiss.history().iter().filter_map(|r| r.bye) {
            byes[bye] += 1;
        }
        assert!(byes.iter().all(|&b| (2..=3).contains(&b)), "{byes:?}");
    }

    #[test]
    fn swiss_byes_and_colours() {
        let mut swiss = Swiss::new(3);
        // All on 0 points: ranked by seed. The bye goes to the last, engine 2; 0 and 1 have had
        // Black equally often (never), so the lower-ranked, 1, has Black.
        let round = swiss.next_round();
        assert_eq!(round.bye, Some(2));
        assert_eq!(round.pairings, [Pairing::new(Round::from_index(0), 1, 0)]);
        swiss.record(&round, &[Scored::BlackWins]).unwrap();
        // Engines 1 and 2 on 1 point, equal SOS (the bye adds nothing): 1 before 2 by seed.
        let order: Vec<usize> = swiss.standings().iter().map(|s| s.engine).collect();
        assert_eq!(order, [1, 2, 0]);
        // The bye goes to 0, the lowest-ranked without one; 2 has had Black fewer times.
        let round = swiss.next_round();
        assert_eq!(round.bye, Some(0));
        assert_eq!(round.pairings, [Pairing::new(Round::from_index(1), 2, 1)]);
        swiss.record(&round, &[Scored::WhiteWins]).unwrap();
        // 1 leads with 2 points, but the bye goes to 1: the only engine that has not had one.
        let round = swiss.next_round();
        assert_eq!(round.bye, Some(1));
        assert_eq!(round.pairings.len(), 1);
    }

    #[test]
    fn swiss_tie_breaks_by_hand() {
        let mut swiss = Swiss::new(4);
        let rounds = [
            // Round 0: 0 beats 1 (0 Black); 2 and 3 draw.
            vec![(0, 1, Scored::BlackWins), (2, 3, Scored::Draw)],
            // Round 1: 2 beats 0 (2 White); 1 beats 3 (1 Black).
            vec![(0, 2, Scored::WhiteWins), (1, 3, Scored::BlackWins)],
            // Round 2: 0 and 3 draw; 2 beats 1 (2 White).
            vec![(0, 3, Scored::Draw), (1, 2, Scored::WhiteWins)],
        ];
        for (number, games) in rounds.iter().enumerate() {
            let round = RoundPairings {
                number: Round::from_index(number),
                pairings: games
                    .iter()
                    .map(|&(b, w, _)| Pairing::new(Round::from_index(number), b, w))
                    .collect(),
                bye: None,
            };
            let outcomes: Vec<Scored> = games.iter().map(|&(_, _, o)| o).collect();
            swiss.record(&round, &outcomes).unwrap();
        }
        // Points:  0: 1 + 0 + ½ = 1½    1: 0 + 1 + 0 = 1    2: ½ + 1 + 1 = 2½    3: ½ + 0 + ½ = 1
        // SOS:     0: (1) + (2½) + (3) 1 = 4½      1: (0) 1½ + (3) 1 + (2) 2½ = 5
        //          2: (3) 1 + (0) 1½ + (1) 1 = 3½  3: (2) 2½ + (1) 1 + (0) 1½ = 5
        // SODOS:   0 beat 1: 1     1 beat 3: 1     2 beat 0 and 1: 1½ + 1 = 2½     3: 0
        // SOSOS:   0: SOS(1) 5 + SOS(2) 3½ + SOS(3) 5 = 13½
        //          1: SOS(0) 4½ + SOS(3) 5 + SOS(2) 3½ = 13
        //          2: SOS(3) 5 + SOS(0) 4½ + SOS(1) 5 = 14½
        //          3: SOS(2) 3½ + SOS(1) 5 + SOS(0) 4½ = 13
        // Ranking: 2 (2½), 0 (1½), then 1 and 3 on 1 point and SOS 5: 1 by SODOS.
        let table: Vec<(usize, usize, f64, f64, f64, f64)> = swiss
            .standings()
            .iter()
            .map(|s| {
                (
                    s.rank,
                    s.engine,
                    s.points.as_f64(),
                    s.sos.as_f64(),
                    s.sodos.as_f64(),
                    s.sosos.as_f64(),
                )
            })
            .collect();
        assert_eq!(
            table,
            [
                (1, 2, 2.5, 3.5, 2.5, 14.5),
                (2, 0, 1.5, 4.5, 1.0, 13.5),
                (3, 1, 1.0, 5.0, 1.0, 13.0),
                (4, 3, 1.0, 5.0, 0.0, 13.0),
            ]
        );
    }

    #[test]
    fn swiss_sosos_and_bye_by_hand() {
        let mut swiss = Swiss::new(6);
        // Round 0: 0 beats 3, 1 beats 2, 4 and 5 draw.
        let round = RoundPairings {
            number: Round::from_index(0),
            pairings: vec![
                Pairing::new(Round::from_index(0), 0, 3),
                Pairing::new(Round::from_index(0), 1, 2),
                Pairing::new(Round::from_index(0), 4, 5),
            ],
            bye: None,
        };
        let outcomes = [Scored::BlackWins, Scored::BlackWins, Scored::Draw];
        swiss.record(&round, &outcomes).unwrap();
        // Round 1: 2 beats 4, 3 has the bye; 0, 1 and 5 are absent.
        let round = RoundPairings {
            number: Round::from_index(1),
            pairings: vec![Pairing::new(Round::from_index(1), 2, 4)],
            bye: Some(3),
        };
        swiss.record(&round, &[Scored::BlackWins]).unwrap();
        // Points: 0, 1, 2, 3: 1 each (3 by its bye); 4, 5: ½.
        // SOS:    0: (3) 1    1: (2) 1    2: (1) 1 + (4) ½ = 1½    3: (0) 1, the bye adds 0
        //         4: (5) ½ + (2) 1 = 1½    5: (4) ½
        // SODOS:  0: 1    1: 1    2: ½    3, 4, 5: 0
        // SOSOS:  0: SOS(3) 1    1: SOS(2) 1½    2: SOS(1) 1 + SOS(4) 1½ = 2½    3: SOS(0) 1
        //         4: SOS(5) ½ + SOS(2) 1½ = 2    5: SOS(4) 1½
        // Ranking: 2 (SOS 1½); 1 before 0 by SOSOS; 3 (SODOS 0); then 4 before 5 by SOS.
        let table: Vec<(usize, u32, u32, u32, u32)> = swiss
            .standings()
            .iter()
            .map(|s| (s.engine, s.points.0, s.sos.0, s.sodos.0, s.sosos.0))
            .collect();
        assert_eq!(
            table,
            [
                (2, 2, 3, 1, 5),
                (1, 2, 2, 2, 3),
                (0, 2, 2, 2, 2),
                (3, 2, 2, 0, 2),
                (4, 1, 3, 0, 4),
                (5, 1, 1, 0, 3),
            ]
        );
    }

    #[test]
    fn swiss_degenerate_sizes() {
        let empty = Swiss::new(0);
        assert_eq!(
            empty.next_round(),
            RoundPairings {
                number: Round::from_index(0),
                pairings: Vec::new(),
                bye: None
            }
        );
        assert!(empty.standings().is_empty());
        let mut single = Swiss::new(1);
        let round = single.next_round();
        assert_eq!(round.bye, Some(0));
        single.record(&round, &[]).unwrap();
        assert_eq!(single.standings()[0].points, Points::ONE);
        assert_eq!(single.next_round().bye, Some(0));
    }

    #[test]
    fn swiss_refuses_bad_results() {
        let mut swiss = Swiss::new(4);
        let round = swiss.next_round();
        let two = [Scored::Draw, Scored::Draw];
        let mut wrong = round.clone();
        wrong.number = Round::from_index(1);
        assert_eq!(
            swiss.record(&wrong, &two),
            Err(PairingError::WrongRound {
                expected: Round::from_index(0),
                found: Round::from_index(1)
            })
        );
        assert_eq!(
            swiss.record(&round, &two[..1]),
            Err(PairingError::OutcomeCount {
                pairings: 2,
                outcomes: 1
            })
        );
        let mut unknown = round.clone();
        unknown.pairings[0].black = 4;
        assert_eq!(
            swiss.record(&unknown, &two),
            Err(PairingError::UnknownEngine(4))
        );
        let mut twice = round.clone();
        twice.bye = Some(twice.pairings[0].white);
        assert_eq!(
            swiss.record(&twice, &two),
            Err(PairingError::EngineTwice(twice.pairings[0].white))
        );
        assert_eq!(swiss.rounds_played(), 0);
        assert!(swiss.record(&round, &two).is_ok());
        assert_eq!(swiss.rounds_played(), 1);
    }

    fn meetings(size: usize, pairs: &[(usize, usize)]) -> Meetings {
        let mut meetings = Meetings::new(size);
        for &(a, b) in pairs {
            meetings.add(a, b);
        }
        meetings
    }

    /// A search over `order`, each vertex preferring the vertices after it.
    fn search_over<'a>(meetings: &'a Meetings, order: &[usize]) -> Search<'a> {
        let mut preferences = vec![Vec::new(); meetings.size];
        for (i, &v) in order.iter().enumerate() {
            preferences[v] = order[i + 1..].to_vec();
        }
        Search::new(meetings, order.to_vec(), preferences)
    }

    #[test]
    fn search_backtracks_past_the_nearest_opponent() {
        // 0 would meet 1, but then 2 and 3, who met, would have to meet again.
        let met = meetings(4, &[(2, 3)]);
        let mut search = search_over(&met, &[0, 1, 2, 3]);
        assert_eq!(search.fewest_repeats(), [(0, 2), (1, 3)]);
        assert!(search.repeat_free);
        // Every pairing repeats something: the one with the fewest meetings.
        // 0-1 2-3 and 0-2 1-3 have met 2 and 3 times, 0-3 1-2 once.
        let met = meetings(4, &[(0, 1), (2, 3), (0, 2), (1, 3), (1, 3), (0, 3)]);
        let mut search = search_over(&met, &[0, 1, 2, 3]);
        assert_eq!(search.fewest_repeats(), [(0, 3), (1, 2)]);
        assert!(!search.repeat_free);
    }

    #[test]
    fn tutte_test_finds_perfect_matchings() {
        let triangles = |a: usize, b: usize| a / 3 == b / 3;
        assert!(!has_perfect_matching(&[0, 1, 2, 3, 4, 5], triangles));
        let k33 = |a: usize, b: usize| a / 3 != b / 3;
        assert!(has_perfect_matching(&[0, 1, 2, 3, 4, 5], k33));
        assert!(!has_perfect_matching(&[0, 1, 2], |_, _| true));
        assert!(has_perfect_matching(&[], |_, _| false));
        // A path of 4 has one; a star of 4 has none.
        let path = |a: usize, b: usize| a.abs_diff(b) == 1;
        assert!(has_perfect_matching(&[0, 1, 2, 3], path));
        assert!(!has_perfect_matching(&[0, 1, 2, 3], |a, b| a == 0 || b == 0));
    }

    #[test]
    fn search_looks_ahead() {
        // After these two rounds, 0-5 1-3 2-4 (the nearest opponents down the order) would make
        // all meetings so far a K3,3 between {0, 1, 2} and {3, 4, 5}: what is left, two
        // triangles, has no perfect matching, so round 3 would need a repeat.
        let met = meetings(6, &[(0, 3), (1, 4), (2, 5), (0, 4), (1, 5), (2, 3)]);
        let order = [0, 5, 1, 3, 2, 4];
        let mut search = search_over(&met, &order);
        let greedy = search.fewest_repeats();
        assert_eq!(greedy, [(0, 5), (1, 3), (2, 4)]);
        let better = search.completable(2).unwrap();
        assert_ne!(better, greedy);
        let mut all = vec![(0, 3), (1, 4), (2, 5), (0, 4), (1, 5), (2, 3)];
        all.extend(&better);
        let mut factorizer = Factorizer {
            adjacency: (0..6)
                .map(|a| {
                    (0..6)
                        .filter(|&b| b != a && !all.contains(&(a, b)) && !all.contains(&(b, a)))
                        .fold(0u64, |set, b| set | 1 << b)
                })
                .collect(),
            steps: 0,
        };
        assert!(matches!(factorizer.factorize(2), Ok(true)));
    }

    fn better_seed_wins(p: Pairing) -> Scored {
        if p.black < p.white {
            Scored::BlackWins
        } else {
            Scored::WhiteWins
        }
    }

    /// Plays every pending game with `result` until the knockout is over.
    fn play_out(knockout: &mut Knockout, mut result: impl FnMut(Pairing) -> Scored) {
        while let Some(&game) = knockout.pending().first() {
            knockout.record(game, result(game)).unwrap();
        }
    }

    fn players(m: &Match) -> [Slot; 2] {
        m.slots
    }

    #[test]
    fn knockout_of_four() {
        let mut knockout = Knockout::new(4, 2, 0);
        assert_eq!(knockout.rounds().len(), 2);
        assert_eq!(
            knockout.pending(),
            [
                Pairing::new(Round::from_index(0), 0, 3),
                Pairing::new(Round::from_index(0), 3, 0),
                Pairing::new(Round::from_index(0), 1, 2),
                Pairing::new(Round::from_index(0), 2, 1),
            ]
        );
        assert_eq!(knockout.winner(), None);
        play_out(&mut knockout, better_seed_wins);
        let final_ = &knockout.rounds()[1][0];
        assert_eq!(players(final_), [Slot::Engine(0), Slot::Engine(1)]);
        assert_eq!(
            final_.result,
            Some(MatchResult {
                winner: 0,
                decision: Decision::Score { replay_blocks: 0 }
            })
        );
        assert_eq!(knockout.winner(), Some(0));
        assert!(knockout.pending().is_empty());
    }

    #[test]
    fn knockout_of_five_gives_the_top_seeds_byes() {
        let mut knockout = Knockout::new(5, 1, 0);
        let first: Vec<[Slot; 2]> = knockout.rounds()[0].iter().map(players).collect();
        use Slot::{Bye, Engine};
        assert_eq!(
            first,
            [
                [Engine(0), Bye],
                [Engine(3), Engine(4)],
                [Engine(1), Bye],
                [Engine(2), Bye]
            ]
        );
        assert!(knockout.rounds()[0]
            .iter()
            .filter(|m| m.slots.contains(&Bye))
            .all(|m| m.result.map(|r| r.decision) == Some(Decision::Bye)));
        // 3-4 in round 0, and 1-2 of round 1 already.
        assert_eq!(
            knockout.pending(),
            [
                Pairing::new(Round::from_index(0), 3, 4),
                Pairing::new(Round::from_index(1), 1, 2)
            ]
        );
        // Upsets: 4 beats 3, then 0; 2 beats 1; 4 beats 2.
        knockout
            .record(Pairing::new(Round::from_index(0), 3, 4), Scored::WhiteWins)
            .unwrap();
        knockout
            .record(Pairing::new(Round::from_index(1), 1, 2), Scored::WhiteWins)
            .unwrap();
        assert_eq!(
            knockout.pending(),
            [Pairing::new(Round::from_index(1), 0, 4)]
        );
        knockout
            .record(Pairing::new(Round::from_index(1), 0, 4), Scored::WhiteWins)
            .unwrap();
        assert_eq!(
            knockout.pending(),
            [Pairing::new(Round::from_index(2), 2, 4)]
        );
        knockout
            .record(Pairing::new(Round::from_index(2), 2, 4), Scored::WhiteWins)
            .unwrap();
        assert_eq!(knockout.winner(), Some(4));
    }

    #[test]
    fn knockout_tied_match_is_replayed() {
        let mut knockout = Knockout::new(2, 2, 1);
        // Black wins both games: 1-1.
        play_first(&mut knockout, 2, |_| Scored::BlackWins);
        // One block, colours swapped: the worse seed has Black first.
        assert_eq!(
            knockout.pending(),
            [
                Pairing::new(Round::from_index(0), 1, 0),
                Pairing::new(Round::from_index(0), 0, 1)
            ]
        );
        play_out(&mut knockout, |p| {
            if p.black == 1 {
                Scored::BlackWins
            } else {
                Scored::Draw
            }
        });
        let result = knockout.rounds()[0][0].result.unwrap();
        assert_eq!(
            result,
            MatchResult {
                winner: 1,
                decision: Decision::Score { replay_blocks: 1 }
            }
        );
        assert_eq!(knockout.rounds()[0][0].games.len(), 4);
        assert_eq!(knockout.winner(), Some(1));
    }

    /// Plays the first `games` pending games with `result`.
    fn play_first(
        knockout: &mut Knockout,
        games: usize,
        mut result: impl FnMut(Pairing) -> Scored,
    ) {
        for game in knockout.pending().into_iter().take(games) {
            knockout.record(game, result(game)).unwrap();
        }
    }

    #[test]
    fn knockout_still_tied_goes_to_the_better_seed() {
        let mut knockout = Knockout::new(2, 2, 2);
        play_out(&mut knockout, |_| Scored::Draw);
        let m = &knockout.rounds()[0][0];
        assert_eq!(m.games.len(), 6);
        assert_eq!(m.replay_blocks, 2);
        assert_eq!(
            m.result,
            Some(MatchResult {
                winner: 0,
                decision: Decision::Seed
            })
        );
        // Balanced colours: tied points always mean tied colour-balanced scores.
        let mut knockout = Knockout::new(2, 2, 0);
        // White wins both games: 1-1, each engine scored 1 as White and 0 as Black.
        play_out(&mut knockout, |_| Scored::WhiteWins);
        assert_eq!(
            knockout.rounds()[0][0].result.map(|r| r.decision),
            Some(Decision::Seed)
        );
        assert_eq!(knockout.winner(), Some(0));
    }

    #[test]
    fn knockout_colour_balanced_score() {
        // Three games: 0 has Black twice. 0 wins game 0 with Black, 1 wins game 1 with Black,
        // game 2 (0 Black) is drawn: 1½ each.
        // 0: as Black (1 + ½) / 2 = ¾, as White 0 / 1 = 0: ¾.
        // 1: as Black 1 / 1 = 1, as White (0 + ½) / 2 = ¼: 1¼. 1 wins.
        let mut knockout = Knockout::new(2, 3, 0);
        let outcomes = [Scored::BlackWins, Scored::BlackWins, Scored::Draw];
        for (game, outcome) in knockout.pending().into_iter().zip(outcomes) {
            knockout.record(game, outcome).unwrap();
        }
        assert_eq!(
            knockout.rounds()[0][0].result,
            Some(MatchResult {
                winner: 1,
                decision: Decision::ColourBalance
            })
        );
    }

    #[test]
    fn knockout_bracket_keeps_top_seeds_apart() {
        let mut knockout = Knockout::new(8, 1, 0);
        let first: Vec<[Slot; 2]> = knockout.rounds()[0].iter().map(players).collect();
        let pairs =
            [(0, 7), (3, 4), (1, 6), (2, 5)].map(|(a, b)| [Slot::Engine(a), Slot::Engine(b)]);
        assert_eq!(first, pairs);
        play_out(&mut knockout, better_seed_wins);
        let semis: Vec<[Slot; 2]> = knockout.rounds()[1].iter().map(players).collect();
        assert_eq!(
            semis,
            [
                [Slot::Engine(0), Slot::Engine(3)],
                [Slot::Engine(1), Slot::Engine(2)]
            ]
        );
        assert_eq!(knockout.winner(), Some(0));
    }

    #[test]
    fn knockout_always_ends() {
        for n in 0..=17 {
            for seed in 1..=5 {
                let mut rng = Rng(seed * 31 + n as u64);
                let mut knockout = Knockout::new(n, (seed % 3) as usize, 1);
                let mut played = 0;
                play_out(&mut knockout, |_| {
                    played += 1;
                    rng.outcome()
                });
                assert_eq!(knockout.winner().is_some(), n > 0, "n = {n}");
                // Every engine but the champion lost exactly one match.
                let losers = knockout
                    .rounds()
                    .iter()
                    .flatten()
                    .filter(|m| m.result.is_some_and(|r| r.decision != Decision::Bye))
                    .count();
                assert_eq!(losers, n.saturating_sub(1));
                let _ = played;
            }
        }
    }

    #[test]
    fn knockout_degenerate() {
        let mut empty = Knockout::new(0, 2, 1);
        assert!(empty.rounds().is_empty() && empty.pending().is_empty());
        assert_eq!(empty.winner(), None);
        assert_eq!(
            empty.record(Pairing::new(Round::from_index(0), 0, 1), Scored::Draw),
            Err(PairingError::NotPending(Pairing::new(
                Round::from_index(0),
                0,
                1
            )))
        );
        assert_eq!(Knockout::new(1, 2, 1).winner(), Some(0));
        // No games, no replays: the better seed advances at once.
        assert_eq!(Knockout::new(6, 0, 0).winner(), Some(0));
        // A game that is not pending is refused and changes nothing.
        let mut knockout = Knockout::new(2, 1, 0);
        let before = knockout.clone();
        assert_eq!(
            knockout.record(Pairing::new(Round::from_index(0), 1, 0), Scored::Draw),
            Err(PairingError::NotPending(Pairing::new(
                Round::from_index(0),
                1,
                0
            )))
        );
        assert_eq!(knockout, before);
    }

    #[test]
    fn outcomes_and_points() {
        assert_eq!(Scored::BlackWins.points(Color::Black), Points::ONE);
        assert_eq!(Scored::BlackWins.points(Color::White), Points::ZERO);
        assert_eq!(Scored::Draw.points(Color::White), Points::HALF);
        assert_eq!(Scored::WhiteWins.winner(), Some(Color::White));
        assert_eq!(Points(5).to_string(), "2.5");
        assert_eq!(Points(4).to_string(), "2");
        let game = PairingResult {
            pairing: Pairing::new(Round::from_index(0), 3, 5),
            outcome: Scored::WhiteWins,
        };
        assert_eq!(game.points_of(5), Some(Points::ONE));
        assert_eq!(game.points_of(3), Some(Points::ZERO));
        assert_eq!(game.points_of(4), None);
        assert_eq!(game.pairing.opponent(3), Some(5));
        assert_eq!(game.pairing.engine(Color::Black), 3);
        assert_eq!(Scored::from(goref_rules::Outcome::Draw), Scored::Draw);
    }
}
