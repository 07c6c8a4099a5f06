//! The statistics of two players: the Elo difference of a score and back, the likelihood of
//! superiority, and one sequential probability ratio test ([`Sprt`]) with a model switch, as
//! fastchess has it: on wins, draws and losses ([`SprtCounts::Games`], the trinomial model,
//! `goref match`) or on pairs of games played with colours swapped ([`SprtCounts::Pairs`], the
//! pentanomial model, `goref tournament --sprt`).
//!
//! ```
//! use goref_tournament::stats::{Pentanomial, Sprt, SprtCounts, SprtDecision, Wld};
//!
//! let sprt = Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap();
//! // Eight games won in a row decide H1 under the trinomial model…
//! let games = Wld { wins: 8, losses: 0, draws: 0 };
//! assert_eq!(sprt.decision(SprtCounts::Games(&games)), SprtDecision::AcceptH1);
//! let (elo, _) = Wld { wins: 75, losses: 25, draws: 0 }.elo().unwrap();
//! assert!((elo - 190.85).abs() < 0.1);
//! // …and pairs are tested under the pentanomial one.
//! let pairs = Pentanomial { counts: [0, 100, 200, 400, 100] };
//! assert_eq!(sprt.decision(SprtCounts::Pairs(&pairs)), SprtDecision::AcceptH1);
//! assert!(Sprt::new(10.0, 0.0, 0.05, 0.05).is_err());
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::pairing::Scored;
use crate::rating::Z95;

/// Wins, losses and draws of one engine against the other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wld {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
}

impl Wld {
    /// `wins`, `losses` and `draws`.
    #[must_use]
    pub const fn new(wins: u32, losses: u32, draws: u32) -> Wld {
        Wld {
            wins,
            losses,
            draws,
        }
    }

    /// Games counted.
    #[must_use]
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Mean score per game (win 1, draw ½).
    #[must_use]
    pub fn score(&self) -> Option<f64> {
        let n = f64::from(self.games());
        (n > 0.0).then(|| (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / n)
    }

    /// Variance of one game's score.
    fn variance(&self) -> Option<f64> {
        let n = f64::from(self.games());
        let mu = self.score()?;
        Some(
            (f64::from(self.wins) * (1.0 - mu).powi(2)
                + f64::from(self.draws) * (0.5 - mu).powi(2)
                + f64::from(self.losses) * mu.powi(2))
                / n,
        )
    }

    /// Elo difference and the half-width of its 95% interval (infinite at 0% or 100%).
    #[must_use]
    pub fn elo(&self) -> Option<(f64, f64)> {
        let mu = self.score()?;
        let sd = (self.variance()? / f64::from(self.games())).sqrt();
        let lo = elo_from_score(mu - Z95 * sd);
        let hi = elo_from_score(mu + Z95 * sd);
        Some((elo_from_score(mu), (hi - lo) / 2.0))
    }

    /// For a perfect score — every game won, or every game lost — the Elo difference has no
    /// finite estimate, only a one-sided 95% bound: the score `p` at which winning all `n`
    /// games has a 5% chance (`p = 0.05^(1/n)`, exact binomial). `Some(bound)`: the difference
    /// is above `bound` when every game was won (positive from 5 games on), below it (its
    /// mirror) when every game was lost; `None` otherwise.
    #[must_use]
    pub fn perfect_score_bound(&self) -> Option<f64> {
        let n = self.games();
        let perfect = n > 0 && (self.wins == n || self.losses == n);
        if !perfect {
            return None;
        }
        let p = 0.05f64.powf(1.0 / f64::from(n));
        let bound = elo_from_score(p);
        Some(if self.wins == n { bound } else { -bound })
    }

    /// Likelihood of superiority: the probability that the engine is the stronger, from wins
    /// and losses (draws carry no information).
    #[must_use]
    pub fn los(&self) -> Option<f64> {
        let (w, l) = (f64::from(self.wins), f64::from(self.losses));
        (w + l > 0.0).then(|| 0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt())))
    }
}

/// The expected score of a player `elo` Elo stronger under the logistic model:
/// `1 / (1 + 10^(−elo/400))`.
#[must_use]
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference with expected score `score` under the logistic model (the inverse of
/// [`expected_score`]): `−400·log10(1/score − 1)`; `+∞` at 1 and above, `−∞` at 0 and below
/// (an interval's end past a perfect score), NaN for NaN.
#[must_use]
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Counts of game pairs by player A's pair score.
///
/// A game pair is the same opening played twice by the same two players, A and B, with colours
/// swapped. `counts[k]` is the number of pairs in which A scored `k/2` points out of 2:
/// `[0, ½, 1, 1½, 2]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pentanomial {
    /// Pairs by A's pair score, `counts[k]` for a score of `k/2`.
    pub counts: [u64; 5],
}

/// Counts game pairs by player A's pair score.
///
/// Each pair is `(the result of the game where A had Black, the result of the game where A had
/// White)`; A's pair score is `first.black_score() + second.white_score()`.
pub fn pentanomial(pairs: &[(Scored, Scored)]) -> Pentanomial {
    let mut counts = [0u64; 5];
    for &(a_black, a_white) in pairs {
        let half_points = half_points(a_black.black_score()) + half_points(a_white.white_score());
        counts[half_points] += 1;
    }
    Pentanomial { counts }
}

/// A score of 0, ½ or 1 in half points.
fn half_points(score: f64) -> usize {
    (score * 2.0).round() as usize
}

/// Summary statistics of a [`Pentanomial`], in per-game units (scores in `[0, 1]`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PentanomialStats {
    /// The number of pairs.
    pub pairs: u64,
    /// A's mean score per game: `μ = Σ f_k·(k/4)`, with `f_k` the fraction of pairs in bin `k`.
    pub mean: f64,
    /// The variance of A's per-game score within a pair, over pairs:
    /// `σ² = Σ f_k·(k/4 − μ)²` (divided by the number of pairs, not one less).
    pub variance: f64,
    /// The standard error of `mean`: `√(σ² / pairs)`.
    pub std_error: f64,
    /// A's Elo advantage over B: [`elo_from_score`]`(mean)`; `±∞` when A scored 0 or 100%.
    pub elo: f64,
    /// The 95% interval of `elo`: [`elo_from_score`] of `mean ∓ 1.96·std_error`, clamped to
    /// `[0, 1]` before the transform (so an end may be infinite).
    pub elo_interval: (f64, f64),
}

/// The outcome of an SPRT at the current data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtDecision {
    /// `llr ≤ lower`: stop, H0 (A is `elo0` stronger) is accepted.
    AcceptH0,
    /// `llr ≥ upper`: stop, H1 (A is `elo1` stronger) is accepted.
    AcceptH1,
    /// Neither bound is reached: play on.
    Continue,
}

/// An SPRT's log-likelihood ratio and bounds at the current counts ([`Sprt::status`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    /// The log-likelihood ratio of H1 to H0 (natural log).
    pub llr: f64,
    /// The lower bound `ln(β / (1 − α))`.
    pub lower: f64,
    /// The upper bound `ln((1 − β) / α)`.
    pub upper: f64,
}

impl SprtStatus {
    /// Whether the test stops, and with which hypothesis.
    #[must_use]
    pub fn decision(&self) -> SprtDecision {
        if self.llr >= self.upper {
            SprtDecision::AcceptH1
        } else if self.llr <= self.lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}
/// The count that replaces an empty bin in the pentanomial SPRT.
const EMPTY_BIN: f64 = 1e-3;

impl Pentanomial {
    /// The number of pairs.
    #[must_use]
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The mean and variance per game (see [`PentanomialStats`]) of bins with these
    /// (possibly fractional) counts; `None` when they sum to 0.
    fn moments(counts: &[f64; 5]) -> Option<(f64, f64, f64)> {
        let n: f64 = counts.iter().sum();
        if n <= 0.0 {
            return None;
        }
        let score = |k: usize| k as f64 / 4.0;
        let mean = counts
            .iter()
            .enumerate()
            .map(|(k, c)| c * score(k))
            .sum::<f64>()
            / n;
        let variance = counts
            .iter()
            .enumerate()
            .map(|(k, c)| c * (score(k) - mean).powi(2))
            .sum::<f64>()
            / n;
        Some((n, mean, variance))
    }

    /// Mean score, its standard error and the Elo estimate with its 95% interval; `None` when
    /// there are no pairs.
    #[must_use]
    pub fn stats(&self) -> Option<PentanomialStats> {
        let (_, mean, variance) = Self::moments(&self.counts.map(|c| c as f64))?;
        let pairs = self.pairs();
        let std_error = (variance / pairs as f64).sqrt();
        let low = (mean - Z95 * std_error).clamp(0.0, 1.0);
        let high = (mean + Z95 * std_error).clamp(0.0, 1.0);
        Some(PentanomialStats {
            pairs,
            mean,
            variance,
            std_error,
            elo: elo_from_score(mean),
            elo_interval: (elo_from_score(low), elo_from_score(high)),
        })
    }
}

/// A sequential probability ratio test of H0: "A is `elo0` Elo stronger than B" against H1:
/// "A is `elo1` stronger", with error rates `alpha` (accepting H1 when H0 holds) and `beta`
/// (accepting H0 when H1 holds); its bounds are `lower = ln(β / (1 − α))` and
/// `upper = ln((1 − β) / α)`. The model is the counts it is given ([`SprtCounts`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo of H0.
    pub elo0: f64,
    /// Elo of H1.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// The counts an [`Sprt`] is run on, which choose its model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SprtCounts<'a> {
    /// Games won, lost and drawn: the trinomial model.
    Games(&'a Wld),
    /// Pairs of games with colours swapped, by A's pair score: the pentanomial model.
    Pairs(&'a Pentanomial),
}

/// SPRT parameters that cannot be tested.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SprtError {
    /// Not `elo0 < elo1`, both finite.
    Elo {
        /// The Elo of H0.
        elo0: f64,
        /// The Elo of H1.
        elo1: f64,
    },
    /// `alpha` or `beta` outside `(0, 1)`, or `alpha + beta ≥ 1`.
    ErrorRates {
        /// The chance of accepting H1 when H0 holds.
        alpha: f64,
        /// The chance of accepting H0 when H1 holds.
        beta: f64,
    },
}

impl fmt::Display for SprtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SprtError::Elo { elo0, elo1 } => {
                write!(f, "SPRT needs elo0 < elo1 (got {elo0}, {elo1})")
            }
            SprtError::ErrorRates { alpha, beta } => write!(
                f,
                "SPRT alpha and beta must be in (0, 1) with alpha + beta < 1 (got {alpha}, {beta})"
            ),
        }
    }
}

impl std::error::Error for SprtError {}

impl Sprt {
    /// Checks the parameters.
    ///
    /// # Errors
    ///
    /// When not `elo0 < elo1` (both finite), or `alpha`, `beta` are not in `(0, 1)` with
    /// `alpha + beta < 1`.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(SprtError::Elo { elo0, elo1 });
        }
        let in_unit = |v: f64| v > 0.0 && v < 1.0;
        if !(in_unit(alpha) && in_unit(beta) && alpha + beta < 1.0) {
            return Err(SprtError::ErrorRates { alpha, beta });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Lower and upper bounds of the log-likelihood ratio.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 to H0 (natural log) of `counts`, under their model.
    ///
    /// **Trinomial** (games): Wald's SPRT of a binomial score with a draw counted as half a
    /// win and half a loss, `W' ln(s1/s0) + L' ln((1-s1)/(1-s0))` where `s0`, `s1` are the
    /// [`expected_score`]s of `elo0`, `elo1`. Exact for games without draws (Go's usual case),
    /// and decides even when one engine wins every game.
    ///
    /// **Pentanomial** (pairs): the generalised SPRT in logistic Elo with the normal
    /// approximation of the mean pair score, as engine-testing frameworks computed it before
    /// exact pentanomial likelihoods: with `N` pairs, mean per-game score `μ` and pentanomial
    /// variance `σ²` (see [`PentanomialStats`]),
    ///
    /// ```text
    /// LLR = N·[(μ − s0)² − (μ − s1)²] / (2σ²) = N·(s1 − s0)·(2μ − s0 − s1) / (2σ²).
    /// ```
    ///
    /// So that a few pairs (whose variance may be 0) give a finite LLR, every empty bin counts
    /// as 0.001 pairs in `N`, `μ` and `σ²` here (not in [`Pentanomial::stats`]). With no pairs
    /// the LLR is 0 (play on).
    #[must_use]
    pub fn llr(&self, counts: SprtCounts<'_>) -> f64 {
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        match counts {
            SprtCounts::Games(wld) => {
                let half = 0.5 * f64::from(wld.draws);
                let (w, l) = (f64::from(wld.wins) + half, f64::from(wld.losses) + half);
                w * (s1 / s0).ln() + l * ((1.0 - s1) / (1.0 - s0)).ln()
            }
            SprtCounts::Pairs(pairs) => {
                if pairs.pairs() == 0 {
                    return 0.0;
                }
                let counts = pairs
                    .counts
                    .map(|c| if c == 0 { EMPTY_BIN } else { c as f64 });
                match Pentanomial::moments(&counts) {
                    Some((n, mean, variance)) => {
                        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
                    }
                    None => 0.0,
                }
            }
        }
    }

    /// The log-likelihood ratio of `counts` and the bounds.
    #[must_use]
    pub fn status(&self, counts: SprtCounts<'_>) -> SprtStatus {
        let (lower, upper) = self.bounds();
        SprtStatus {
            llr: self.llr(counts),
            lower,
            upper,
        }
    }

    /// The decision at `counts`.
    #[must_use]
    pub fn decision(&self, counts: SprtCounts<'_>) -> SprtDecision {
        self.status(counts).decision()
    }
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
#[must_use]
pub fn erf(x: f64) -> f64 {
    let sign = x.signum();
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    sign * y
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::Scored;

    const B: Scored = Scored::BlackWins;
    const W: Scored = Scored::WhiteWins;
    const D: Scored = Scored::Draw;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b} (tolerance {tol})");
    }

    #[test]
    fn a_perfect_score_has_a_one_sided_bound() {
        let won = |n| Wld::new(n, 0, 0);
        // 20 wins: p = 0.05^(1/20) = 0.8609, Elo = -400 log10(1/p - 1) = +317.
        let bound = won(20).perfect_score_bound().unwrap();
        assert!((bound - 317.0).abs() < 1.0, "{bound}");
        // The chance of 20 wins at that score is 5%.
        let p = expected_score(bound);
        assert!((p.powi(20) - 0.05).abs() < 1e-9);
        // More games, a higher bound; all lost mirrors all won.
        assert!(won(40).perfect_score_bound().unwrap() > bound);
        let lost = Wld::new(0, 20, 0);
        assert!((lost.perfect_score_bound().unwrap() + bound).abs() < 1e-9);
        // A draw or a loss makes the score finite: no bound.
        let mixed = Wld::new(19, 0, 1);
        assert_eq!(mixed.perfect_score_bound(), None);
        assert_eq!(Wld::default().perfect_score_bound(), None);
    }

    #[test]
    fn elo_of_even_and_lopsided_scores() {
        let even = Wld::new(50, 50, 0);
        let (elo, half) = even.elo().unwrap();
        assert!(elo.abs() < 1e-9);
        // 100 games at 50%: σ = 0.05, so 0.5 ± 0.098 → about ±70 Elo.
        assert!((half - 69.0).abs() < 2.0, "{half}");
        assert!((even.los().unwrap() - 0.5).abs() < 1e-9);
        let strong = Wld::new(75, 25, 0);
        let (elo, _) = strong.elo().unwrap();
        assert!((elo - 190.85).abs() < 0.1, "{elo}");
        assert!(strong.los().unwrap() > 0.999);
    }

    #[test]
    fn erf_matches_known_values() {
        assert!((erf(1.0) - 0.842_700_79).abs() < 1e-6);
        assert!((erf(-0.5) + 0.520_499_88).abs() < 1e-6);
    }

    #[test]
    fn sprt_decides_for_clear_results_and_waits_on_close_ones() {
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let (lower, upper) = sprt.bounds();
        assert!((upper - 2.944).abs() < 1e-3 && (lower + 2.944).abs() < 1e-3);
        let crushing = Wld::new(2000, 1000, 0);
        assert_eq!(
            sprt.decision(SprtCounts::Games(&crushing)),
            SprtDecision::AcceptH1
        );
        let losing = Wld::new(1000, 2000, 0);
        assert_eq!(
            sprt.decision(SprtCounts::Games(&losing)),
            SprtDecision::AcceptH0
        );
        let close = Wld::new(10, 9, 1);
        assert_eq!(
            sprt.decision(SprtCounts::Games(&close)),
            SprtDecision::Continue
        );
        // Eight straight wins decide elo0=0 against elo1=200 (s1 = 0.76: 8 ln(1.52) > 2.944).
        let wide = Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap();
        let sweep = |wins| Wld {
            wins,
            losses: 0,
            draws: 0,
        };
        assert_eq!(
            wide.decision(SprtCounts::Games(&sweep(7))),
            SprtDecision::Continue
        );
        assert_eq!(
            wide.decision(SprtCounts::Games(&sweep(8))),
            SprtDecision::AcceptH1
        );
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05).is_err());
    }

    #[test]
    fn logistic_helpers() {
        close(expected_score(0.0), 0.5, 1e-15);
        // 10^(400/400) = 10: 1/(1 + 1/10) = 10/11.
        close(expected_score(400.0), 10.0 / 11.0, 1e-15);
        close(elo_from_score(10.0 / 11.0), 400.0, 1e-9);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn pentanomial_counts_pairs() {
        let pairs = [
            (B, W), // A wins both: 2
            (W, B), // A loses both: 0
            (B, B), // 1
            (D, W), // ½ + 1 = 1½
            (W, D), // 0 + ½ = ½
            (D, D), // 1
        ];
        assert_eq!(pentanomial(&pairs).counts, [1, 1, 2, 1, 1]);
        assert_eq!(pentanomial(&pairs).pairs(), 6);
    }

    // Counts [1, 2, 5, 2, 1]: N = 11 pairs, per-game scores 0, ¼, ½, ¾, 1.
    //   μ  = (0·1 + ¼·2 + ½·5 + ¾·2 + 1·1)/11 = (0.5 + 2.5 + 1.5 + 1)/11 = 5.5/11 = ½
    //   σ² = (1·¼ + 2·(1/16) + 5·0 + 2·(1/16) + 1·¼)/11 = 0.75/11 = 0.068181...
    //   se = √(σ²/11) = √(0.75/121) = √0.75/11 = 0.0787295...
    //   Elo = 0; interval = elo(½ ± 1.96·se) = elo(0.654308...) = ±110.8...
    //   SPRT [0, 5]: s0 = ½, s1 = 1/(1 + 10^(−5/400)) = 0.5071951...
    //   LLR = 11·(s1 − ½)·(1 − ½ − s1)/(2σ²) = −11·(s1 − ½)²/(1.5/11) = −121·(s1 − ½)²/1.5
    //       = −121·0.0000517678/1.5 = −0.0041760 < 0.
    #[test]
    fn pentanomial_hand_figures() {
        let p = Pentanomial {
            counts: [1, 2, 5, 2, 1],
        };
        let s = p.stats().unwrap();
        assert_eq!(s.pairs, 11);
        close(s.mean, 0.5, 1e-15);
        close(s.variance, 0.75 / 11.0, 1e-15);
        close(s.std_error, 0.75f64.sqrt() / 11.0, 1e-15);
        close(s.elo, 0.0, 1e-12);
        let high = 0.5 + Z95 * 0.75f64.sqrt() / 11.0;
        close(s.elo_interval.1, -400.0 * (1.0 / high - 1.0).log10(), 1e-9);
        close(s.elo_interval.1, 110.8, 0.1);
        close(s.elo_interval.0, -s.elo_interval.1, 1e-9);
        let t = Sprt::new(0.0, 5.0, 0.05, 0.05)
            .unwrap()
            .status(SprtCounts::Pairs(&p));
        let s1 = 1.0 / (1.0 + 10f64.powf(-5.0 / 400.0));
        close(s1, 0.507_195_1, 1e-7);
        close(t.llr, -121.0 * (s1 - 0.5).powi(2) / 1.5, 1e-12);
        close(t.llr, -0.004_176, 1e-6);
        // ln(0.05/0.95) = −2.944439, ln(0.95/0.05) = 2.944439.
        close(t.lower, -2.944_439, 1e-6);
        close(t.upper, 2.944_439, 1e-6);
        assert_eq!(t.decision(), SprtDecision::Continue);
    }

    // Counts [0, 100, 200, 400, 100]: N = 800.
    //   μ  = (25 + 100 + 300 + 100)/800 = 525/800 = 0.65625
    //   Σ c·x² = 100/16 + 200/4 + 400·9/16 + 100 = 6.25 + 50 + 225 + 100 = 381.25
    //   σ² = 381.25/800 − μ² = 0.4765625 − 0.4306640625 = 0.0458984375
    //   (the empty bin counts 0.001 in the SPRT, a change below 1e-5 relative.)
    //   SPRT [0, 5]: LLR = 800·(s1 − ½)·(1.3125 − ½ − s1)/(2σ²)
    //       = 800·0.0071951·0.3053049/0.091796875 = 1.757346/0.091796875 = 19.14 ≥ 2.94: H1.
    #[test]
    fn pentanomial_sprt_accepts_h1() {
        let p = Pentanomial {
            counts: [0, 100, 200, 400, 100],
        };
        let s = p.stats().unwrap();
        close(s.mean, 0.65625, 1e-15);
        close(s.variance, 0.0458984375, 1e-15);
        let t = Sprt::new(0.0, 5.0, 0.05, 0.05)
            .unwrap()
            .status(SprtCounts::Pairs(&p));
        let s1 = expected_score(5.0);
        close(
            t.llr,
            800.0 * (s1 - 0.5) * (1.3125 - 0.5 - s1) / (2.0 * 0.0458984375),
            0.01,
        );
        close(t.llr, 19.14, 0.01);
        assert_eq!(t.decision(), SprtDecision::AcceptH1);
        // The mirror image accepts H0.
        let mut counts = p.counts;
        counts.reverse();
        let t = Sprt::new(0.0, 5.0, 0.05, 0.05)
            .unwrap()
            .status(SprtCounts::Pairs(&Pentanomial { counts }));
        assert_eq!(t.decision(), SprtDecision::AcceptH0);
    }

    #[test]
    fn pentanomial_empty_and_invalid() {
        let p = pentanomial(&[]);
        assert_eq!(p.stats(), None);
        let t = Sprt::new(0.0, 5.0, 0.05, 0.05)
            .unwrap()
            .status(SprtCounts::Pairs(&p));
        assert_eq!(t.llr, 0.0);
        assert_eq!(t.decision(), SprtDecision::Continue);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.6, 0.5).is_err());
        // One pair: variance 0, yet a finite, small LLR thanks to the empty-bin counts.
        let one = Pentanomial {
            counts: [0, 0, 1, 0, 0],
        };
        let t = Sprt::new(0.0, 5.0, 0.05, 0.05)
            .unwrap()
            .status(SprtCounts::Pairs(&one));
        assert!(t.llr.is_finite() && t.llr < 0.0 && t.llr > -1.0);
        // A perfect score: infinite Elo, finite lower end.
        let s = Pentanomial {
            counts: [0, 0, 0, 0, 3],
        }
        .stats()
        .unwrap();
        assert_eq!(s.elo, f64::INFINITY);
    }
}
