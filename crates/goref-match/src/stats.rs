//! Match statistics: Elo difference with a 95% interval, likelihood of superiority, and a
//! sequential probability ratio test that stops a match as soon as it decides.

/// Wins, losses and draws of one engine against the other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wld {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl Wld {
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
        let z = 1.959_963_984_540_054;
        let lo = elo_of(mu - z * sd);
        let hi = elo_of(mu + z * sd);
        Some((elo_of(mu), (hi - lo) / 2.0))
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
        let bound = elo_of(p);
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

/// Elo difference of a mean score.
#[must_use]
pub fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Expected score of an Elo difference.
#[must_use]
pub fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
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

/// An SPRT of H0: elo = elo0 against H1: elo = elo1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Where an SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SprtState {
    /// Keep playing.
    Continue,
    /// H0 accepted (the first engine is not `elo1` stronger).
    AcceptH0,
    /// H1 accepted.
    AcceptH1,
}

impl Sprt {
    /// Checks the parameters.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, String> {
        if elo0.partial_cmp(&elo1) != Some(std::cmp::Ordering::Less) {
            return Err(format!("SPRT needs elo0 < elo1 (got {elo0}, {elo1})"));
        }
        if !(0.0 < alpha && alpha < 0.5 && 0.0 < beta && beta < 0.5) {
            return Err("SPRT alpha and beta must be between 0 and 0.5".into());
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

    /// The log-likelihood ratio of the results: Wald's SPRT of a binomial score with a draw
    /// counted as half a win and half a loss, `W' ln(s1/s0) + L' ln((1-s1)/(1-s0))` where
    /// `s = 1 / (1 + 10^(-elo/400))`. Exact for games without draws (Go's usual case), and
    /// decides even when one engine wins every game.
    #[must_use]
    pub fn llr(&self, wld: &Wld) -> f64 {
        let (s0, s1) = (score_of(self.elo0), score_of(self.elo1));
        let half = 0.5 * f64::from(wld.draws);
        let (w, l) = (f64::from(wld.wins) + half, f64::from(wld.losses) + half);
        w * (s1 / s0).ln() + l * ((1.0 - s1) / (1.0 - s0)).ln()
    }

    /// The decision so far.
    #[must_use]
    pub fn state(&self, wld: &Wld) -> SprtState {
        let llr = self.llr(wld);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtState::AcceptH1
        } else if llr <= lower {
            SprtState::AcceptH0
        } else {
            SprtState::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perfect_score_has_a_one_sided_bound() {
        let won = |n| Wld {
            wins: n,
            losses: 0,
            draws: 0,
        };
        // 20 wins: p = 0.05^(1/20) = 0.8609, Elo = -400 log10(1/p - 1) = +317.
        let bound = won(20).perfect_score_bound().unwrap();
        assert!((bound - 317.0).abs() < 1.0, "{bound}");
        // The chance of 20 wins at that score is 5%.
        let p = score_of(bound);
        assert!((p.powi(20) - 0.05).abs() < 1e-9);
        // More games, a higher bound; all lost mirrors all won.
        assert!(won(40).perfect_score_bound().unwrap() > bound);
        let lost = Wld {
            wins: 0,
            losses: 20,
            draws: 0,
        };
        assert!((lost.perfect_score_bound().unwrap() + bound).abs() < 1e-9);
        // A draw or a loss makes the score finite: no bound.
        let mixed = Wld {
            wins: 19,
            losses: 0,
            draws: 1,
        };
        assert_eq!(mixed.perfect_score_bound(), None);
        assert_eq!(Wld::default().perfect_score_bound(), None);
    }

    #[test]
    fn elo_of_even_and_lopsided_scores() {
        let even = Wld {
            wins: 50,
            losses: 50,
            draws: 0,
        };
        let (elo, half) = even.elo().unwrap();
        assert!(elo.abs() < 1e-9);
        // 100 games at 50%: σ = 0.05, so 0.5 ± 0.098 → about ±70 Elo.
        assert!((half - 69.0).abs() < 2.0, "{half}");
        assert!((even.los().unwrap() - 0.5).abs() < 1e-9);
        let strong = Wld {
            wins: 75,
            losses: 25,
            draws: 0,
        };
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
        let crushing = Wld {
            wins: 2000,
            losses: 1000,
            draws: 0,
        };
        assert_eq!(sprt.state(&crushing), SprtState::AcceptH1);
        let losing = Wld {
            wins: 1000,
            losses: 2000,
            draws: 0,
        };
        assert_eq!(sprt.state(&losing), SprtState::AcceptH0);
        let close = Wld {
            wins: 10,
            losses: 9,
            draws: 1,
        };
        assert_eq!(sprt.state(&close), SprtState::Continue);
        // Eight straight wins decide elo0=0 against elo1=200 (s1 = 0.76: 8 ln(1.52) > 2.944).
        let wide = Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap();
        let sweep = |wins| Wld {
            wins,
            losses: 0,
            draws: 0,
        };
        assert_eq!(wide.state(&sweep(7)), SprtState::Continue);
        assert_eq!(wide.state(&sweep(8)), SprtState::AcceptH1);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05).is_err());
    }
}
