//! SPSA (simultaneous perturbation stochastic approximation, Spall 1992) as fishtest runs it
//! for Stockfish: pure state, no processes, so that it is tested alone.
//!
//! Step `k` (from 0) of `N` draws a perturbation `Δ` of ±1 for every parameter, plays a pair
//! of games between `θ + c_k·Δ` and `θ − c_k·Δ` (or each of them against an opponent), and
//! moves every parameter by
//!
//! ```text
//! θ_i ← clamp(θ_i + a_k / c_k,i · r · Δ_i, min_i, max_i)
//! ```
//!
//! where `r` is the pair's result for `θ + c_k·Δ` (its points minus `θ − c_k·Δ`'s: from −2 to
//! 2 when they meet, from −1 to 1 against an opponent). The gains are fishtest's:
//!
//! - `c_k = c / (k + 1)^γ` and `a_k = a / (A + k + 1)^α`, with Spall's asymptotically optimal
//!   exponents `α = 0.602`, `γ = 0.101`, and the stability constant `A` a tenth of the steps
//!   (Spall's "10 % or less of the iterations"; fishtest's default too);
//! - the constants are given at the last step, as fishtest asks them: `c_end`, the
//!   perturbation there (default: a twentieth of the range, [`Param::default_c_end`]), and
//!   `R_end = a_end / c_end²`, the learning rate there; then `c = c_end · N^γ` and
//!   `a = R_end · c_end² · (A + N)^α`. The move of a step is `R_k · c_k · r · Δ`
//!   (`R_k = a_k / c_k²`), so `R` is a pure number: the share of `c` a parameter moves per
//!   point of result.
//!
//! `R_end` defaults to [`Schedule::R_END`], 0.1, fifty times fishtest's usual 0.002: fishtest
//! tunes with tens of thousands of games whose results barely differ, goref's users with
//! hundreds or thousands on small boards where a parameter's worth shows quickly. With it a
//! parameter that keeps winning crosses its range in about `N/2` steps at the start (measured
//! on `goref engine tunable`, see the book's `goref tune` chapter), and the last steps move it
//! by at most a fifth of `c_end`.
//!
//! The perturbations come from a seeded generator (splitmix64 of the seed, the step and the
//! parameter), so step `k`'s `Δ` is the same whenever it is asked: a resumed tune needs only
//! the seed and `k`.

use serde::{Deserialize, Serialize};

use crate::param::Param;
use crate::{Error, ErrorKind};

/// The schedule's constants that every parameter shares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// Steps of the whole tune, `N` (game pairs).
    pub steps: usize,
    /// The exponent of `a_k`.
    pub alpha: f64,
    /// The exponent of `c_k`.
    pub gamma: f64,
    /// The stability constant `A` of `a_k`.
    pub stability: f64,
    /// `R_end` for the parameters that give none.
    pub r_end: f64,
    /// The seed of the perturbations.
    pub seed: u64,
}

impl Schedule {
    /// Spall's and fishtest's `α`.
    pub const ALPHA: f64 = 0.602;
    /// Spall's and fishtest's `γ`.
    pub const GAMMA: f64 = 0.101;
    /// `A` as a share of the steps.
    pub const STABILITY_SHARE: f64 = 0.1;
    /// The default `R_end` (see the module's text for why not fishtest's 0.002).
    pub const R_END: f64 = 0.1;

    /// The defaults for `steps` steps.
    ///
    /// ```
    /// let s = goref_tune::Schedule::new(150, 7);
    /// assert_eq!((s.alpha, s.gamma, s.stability, s.r_end), (0.602, 0.101, 15.0, 0.1));
    /// ```
    #[must_use]
    pub fn new(steps: usize, seed: u64) -> Schedule {
        Schedule {
            steps,
            alpha: Schedule::ALPHA,
            gamma: Schedule::GAMMA,
            #[allow(clippy::cast_precision_loss)]
            stability: Schedule::STABILITY_SHARE * steps as f64,
            r_end: Schedule::R_END,
            seed,
        }
    }

    fn check(&self) -> Result<(), Error> {
        let bad = |what: String| Err(ErrorKind::Schedule(what).into());
        if self.steps == 0 {
            return bad("no step to play (games must be at least 2)".into());
        }
        for (name, v) in [("alpha", self.alpha), ("gamma", self.gamma)] {
            if !(v.is_finite() && v > 0.0 && v <= 1.0) {
                return bad(format!("{name} {v} is not in (0, 1]"));
            }
        }
        if !(self.stability.is_finite() && self.stability >= 0.0) {
            return bad(format!("A {} is not a number from 0", self.stability));
        }
        if !(self.r_end.is_finite() && self.r_end > 0.0) {
            return bad(format!("R_end {} is not positive", self.r_end));
        }
        Ok(())
    }
}

/// A parameter's gains: `c_k = c / (k + 1)^γ`, `a_k = a / (A + k + 1)^α`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Gains {
    c: f64,
    a: f64,
}

/// The values the engines are given at one step.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The step, from 0.
    pub step: usize,
    /// The perturbation's signs, ±1.
    pub delta: Vec<f64>,
    /// `θ + c_k·Δ`, clamped and (integer parameters) rounded.
    pub plus: Vec<f64>,
    /// `θ − c_k·Δ`, likewise.
    pub minus: Vec<f64>,
}

/// The state of a tune: parameters, schedule, `θ` and the steps done.
#[derive(Clone, Debug, PartialEq)]
pub struct Spsa {
    params: Vec<Param>,
    schedule: Schedule,
    gains: Vec<Gains>,
    theta: Vec<f64>,
    done: usize,
}

impl Spsa {
    /// A tune from the parameters' start values.
    ///
    /// # Errors
    ///
    /// No parameter, a name twice, or a schedule constant out of its range.
    pub fn new(params: Vec<Param>, schedule: Schedule) -> Result<Spsa, Error> {
        let theta = params.iter().map(|p| p.start).collect();
        Spsa::resume(params, schedule, theta, 0)
    }

    /// A tune that has done `done` steps and stands at `theta`.
    ///
    /// # Errors
    ///
    /// As [`Spsa::new`]; also `theta` of another length, outside the ranges, or more steps
    /// done than the schedule has.
    pub fn resume(
        params: Vec<Param>,
        schedule: Schedule,
        theta: Vec<f64>,
        done: usize,
    ) -> Result<Spsa, Error> {
        crate::param::check(&params)?;
        schedule.check()?;
        let bad = |what: String| Err(ErrorKind::Schedule(what).into());
        if theta.len() != params.len() {
            return bad(format!(
                "{} values of θ for {} parameters",
                theta.len(),
                params.len()
            ));
        }
        if let Some((p, v)) = params
            .iter()
            .zip(&theta)
            .find(|(p, v)| !(p.min..=p.max).contains(*v))
        {
            return bad(format!("θ {} = {v} is outside {}:{}", p.name, p.min, p.max));
        }
        if done > schedule.steps {
            return bad(format!("{done} steps done of {}", schedule.steps));
        }
        #[allow(clippy::cast_precision_loss)]
        let n = schedule.steps as f64;
        let gains = params
            .iter()
            .map(|p| {
                let c_end = p.c_end.unwrap_or_else(|| p.default_c_end());
                let r_end = p.r_end.unwrap_or(schedule.r_end);
                Gains {
                    c: c_end * n.powf(schedule.gamma),
                    a: r_end * c_end * c_end * (schedule.stability + n).powf(schedule.alpha),
                }
            })
            .collect();
        Ok(Spsa {
            params,
            schedule,
            gains,
            theta,
            done,
        })
    }

    /// The parameters.
    #[must_use]
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The schedule.
    #[must_use]
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// `θ` now.
    #[must_use]
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// Steps done: the next step's `k`.
    #[must_use]
    pub fn done(&self) -> usize {
        self.done
    }

    /// Whether every step is done.
    #[must_use]
    pub fn finished(&self) -> bool {
        self.done >= self.schedule.steps
    }

    /// `c_k` of every parameter.
    #[must_use]
    pub fn c(&self, k: usize) -> Vec<f64> {
        #[allow(clippy::cast_precision_loss)]
        let k = k as f64;
        self.gains
            .iter()
            .map(|g| g.c / (k + 1.0).powf(self.schedule.gamma))
            .collect()
    }

    /// `a_k` of every parameter.
    #[must_use]
    pub fn a(&self, k: usize) -> Vec<f64> {
        #[allow(clippy::cast_precision_loss)]
        let k = k as f64;
        self.gains
            .iter()
            .map(|g| g.a / (self.schedule.stability + k + 1.0).powf(self.schedule.alpha))
            .collect()
    }

    /// Step `k`'s perturbation: ±1 for every parameter, the same whenever asked.
    ///
    /// ```
    /// let x: goref_tune::Param = "x=10,0:100".parse().unwrap();
    /// let y: goref_tune::Param = "y=5,0:10".parse().unwrap();
    /// let spsa = goref_tune::Spsa::new(vec![x, y], goref_tune::Schedule::new(100, 1)).unwrap();
    /// let d = spsa.perturbation(3);
    /// assert!(d.iter().all(|&s| s == 1.0 || s == -1.0));
    /// assert_eq!(d, spsa.perturbation(3));
    /// ```
    #[must_use]
    pub fn perturbation(&self, k: usize) -> Vec<f64> {
        (0..self.params.len())
            .map(|i| {
                let mut z = self.schedule.seed
                    ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    ^ (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
                if splitmix64(&mut z) >> 63 == 0 {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect()
    }

    /// Step `k`'s two points from `θ` now: `θ ± c_k·Δ_k`, clamped and rounded as the engines
    /// are given them.
    #[must_use]
    pub fn point(&self, k: usize) -> Point {
        let delta = self.perturbation(k);
        let c = self.c(k);
        let at = |sign: f64| -> Vec<f64> {
            self.params
                .iter()
                .enumerate()
                .map(|(i, p)| p.engine_value(self.theta[i] + sign * c[i] * delta[i]))
                .collect()
        };
        Point {
            step: k,
            plus: at(1.0),
            minus: at(-1.0),
            delta,
        }
    }

    /// Moves `θ` by step `k`'s result `r` (the points of `θ + c_k·Δ` minus those of
    /// `θ − c_k·Δ`): `θ_i ← clamp(θ_i + a_k/c_k · r · Δ_i)`. Steps are taken in order.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfOrder`] when `k` is not the next step (nothing changes), or
    /// [`ErrorKind::Schedule`] when every step is done or `r` is not finite.
    pub fn update(&mut self, k: usize, r: f64) -> Result<(), Error> {
        if k != self.done {
            return Err(ErrorKind::OutOfOrder {
                step: k,
                next: self.done,
            }
            .into());
        }
        if self.finished() {
            return Err(
                ErrorKind::Schedule(format!("all {} steps are done", self.schedule.steps)).into(),
            );
        }
        if !r.is_finite() {
            return Err(ErrorKind::Schedule(format!("result {r} is not a number")).into());
        }
        let (a, c, delta) = (self.a(k), self.c(k), self.perturbation(k));
        for (i, p) in self.params.iter().enumerate() {
            self.theta[i] = (self.theta[i] + a[i] / c[i] * r * delta[i]).clamp(p.min, p.max);
        }
        self.done += 1;
        Ok(())
    }

    /// The tune's answer: `θ` as the engine is given it (integer parameters rounded).
    #[must_use]
    pub fn values(&self) -> Vec<f64> {
        self.params
            .iter()
            .zip(&self.theta)
            .map(|(p, &v)| p.engine_value(v))
            .collect()
    }
}

/// Sebastiano Vigna's splitmix64: the next of a sequence of well-mixed 64-bit values.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(text: &str) -> Param {
        text.parse().unwrap()
    }

    /// A stand-in for a match: θ's strength is the tunable engine's, max(0, 1 − |v − peak|/60),
    /// and a game is won with the logistic chance of the strength difference (scale 6, about
    /// what `goref engine tunable` shows on 5×5: x = 40 against x = 60 wins ~10 %).
    fn simulate(peak: f64, start: &str, pairs: usize, seed: u64) -> (Spsa, Vec<f64>) {
        let mut spsa = Spsa::new(vec![x(start)], Schedule::new(pairs, seed)).unwrap();
        let mut rng = seed.wrapping_mul(31) | 1;
        let mut uniform = || (splitmix64(&mut rng) >> 11) as f64 / (1u64 << 53) as f64;
        let strength = |v: f64| (1.0 - (v - peak).abs() / 60.0).max(0.0);
        let mut path = Vec::new();
        for k in 0..pairs {
            let point = spsa.point(k);
            let d = strength(point.plus[0]) - strength(point.minus[0]);
            let win = 1.0 / (1.0 + (-6.0 * d).exp());
            let r: f64 = (0..2)
                .map(|_| if uniform() < win { 1.0 } else { -1.0 })
                .sum();
            spsa.update(k, r).unwrap();
            path.push(spsa.theta()[0]);
        }
        (spsa, path)
    }

    #[test]
    fn the_gains_are_fishtests_and_end_at_c_end_and_r_end() {
        let spsa = Spsa::new(vec![x("x=10,0:100")], Schedule::new(200, 1)).unwrap();
        let (c, a) = (spsa.c(199)[0], spsa.a(199)[0]);
        assert!((c - 5.0).abs() < 1e-9, "c_end {c}");
        assert!((a / (c * c) - 0.1).abs() < 1e-9, "R_end {}", a / (c * c));
        // c shrinks slowly, a faster.
        assert!(spsa.c(0)[0] > 8.0 && spsa.c(0)[0] < 9.0, "{}", spsa.c(0)[0]);
        assert!(spsa.a(0)[0] / spsa.a(199)[0] > 4.0);
    }

    #[test]
    fn perturbations_are_balanced_and_differ_by_seed() {
        let spsa = Spsa::new(vec![x("x=10,0:100")], Schedule::new(1000, 5)).unwrap();
        let plus = (0..1000).filter(|&k| spsa.perturbation(k)[0] > 0.0).count();
        assert!((430..570).contains(&plus), "{plus} of 1000");
        let other = Spsa::new(vec![x("x=10,0:100")], Schedule::new(1000, 6)).unwrap();
        assert!((0..64).any(|k| spsa.perturbation(k) != other.perturbation(k)));
    }

    #[test]
    fn points_are_clamped_and_rounded_and_updates_move_theta_the_right_way() {
        let mut spsa = Spsa::new(vec![x("x=1,0:100")], Schedule::new(10, 3)).unwrap();
        let p = spsa.point(0);
        let d = p.delta[0];
        // c_0 is 5·10^0.101 ≈ 6.3: 1 + 6.3 → 7, 1 − 6.3 → 0 (clamped).
        let (hi, lo) = if d > 0.0 {
            (&p.plus, &p.minus)
        } else {
            (&p.minus, &p.plus)
        };
        assert_eq!((hi[0], lo[0]), (7.0, 0.0));
        // θ + cΔ won both games: θ moves towards it.
        spsa.update(0, 2.0).unwrap();
        assert_eq!(spsa.theta()[0] > 1.0, d > 0.0);
        assert_eq!(spsa.done(), 1);
        assert!(matches!(
            spsa.update(5, 1.0).unwrap_err().kind,
            ErrorKind::OutOfOrder { step: 5, next: 1 }
        ));
        assert!(spsa.update(1, f64::NAN).is_err());
    }

    #[test]
    fn a_simulated_tune_finds_the_peak_and_another_peak_elsewhere() {
        for seed in 1..=8 {
            let (spsa, path) = simulate(60.0, "x=10,0:100", 150, seed);
            let end = spsa.theta()[0];
            assert!(
                (end - 60.0).abs() < 12.0,
                "seed {seed}: ended at {end}: {path:?}"
            );
            // With the peak at 30, from 80, it ends near 30: outside the first band.
            let (spsa, path) = simulate(30.0, "x=80,0:100", 150, seed);
            let end = spsa.theta()[0];
            assert!(
                (end - 30.0).abs() < 12.0,
                "seed {seed}: ended at {end}: {path:?}"
            );
        }
    }

    #[test]
    fn resume_refuses_inconsistent_state() {
        let s = Schedule::new(10, 1);
        assert!(Spsa::resume(vec![x("x=1,0:2")], s.clone(), vec![3.0], 0).is_err());
        assert!(Spsa::resume(vec![x("x=1,0:2")], s.clone(), vec![1.0, 1.0], 0).is_err());
        assert!(Spsa::resume(vec![x("x=1,0:2")], s.clone(), vec![1.0], 11).is_err());
        let mut bad = s.clone();
        bad.alpha = 0.0;
        assert!(Spsa::new(vec![x("x=1,0:2")], bad).is_err());
        let done = Spsa::resume(vec![x("x=1,0:2")], s, vec![2.0], 10).unwrap();
        assert!(done.finished());
    }
}
