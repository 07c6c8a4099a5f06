//! Ratings: a joint maximum-likelihood fit of every player's rating from a list of games
//! ([`fit`]). The statistics of two players (Elo, LOS, the SPRT on games or on pairs of games
//! played with colours swapped) are [`crate::stats`]'s.
//!
//! ```
//! use goref_tournament::pairing::Scored;
//! use goref_tournament::rating::{fit, Anchor, FitOptions, RatedGame};
//! use goref_tournament::stats::{pentanomial, Sprt, SprtCounts};
//!
//! // Player 0 beats player 1 three times out of four, with colours balanced.
//! let mut games = Vec::new();
//! for _ in 0..15 {
//!     games.push(RatedGame { black: 0, white: 1, result: Scored::BlackWins });
//!     games.push(RatedGame { black: 1, white: 0, result: Scored::WhiteWins });
//! }
//! for _ in 0..5 {
//!     games.push(RatedGame { black: 0, white: 1, result: Scored::WhiteWins });
//!     games.push(RatedGame { black: 1, white: 0, result: Scored::BlackWins });
//! }
//! let options = FitOptions { anchor: Anchor::Player(1, 0.0), prior_draws: 0.0, ..FitOptions::default() };
//! let rated = fit(2, &games, &options).unwrap();
//! // Without the prior, the maximum-likelihood difference is 400·log10(wins / losses).
//! assert!((rated.ratings[0] - 400.0 * 3f64.log10()).abs() < 1e-6);
//! assert!(rated.colour_advantage.abs() < 1e-6);
//! let (low, high) = rated.intervals[0];
//! assert!(low < rated.ratings[0] && rated.ratings[0] < high);
//!
//! // The same two players in pairs of games, colours swapped within each pair:
//! // (result of the game where A had Black, result of the game where A had White).
//! let pairs = [
//!     (Scored::BlackWins, Scored::WhiteWins), // A scores 2
//!     (Scored::BlackWins, Scored::Draw),      // A scores 1.5
//!     (Scored::WhiteWins, Scored::WhiteWins), // A scores 1
//! ];
//! let counts = pentanomial(&pairs);
//! assert_eq!(counts.counts, [0, 0, 1, 1, 1]);
//! let stats = counts.stats().unwrap();
//! assert!((stats.mean - 0.75).abs() < 1e-12);
//! let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
//! let status = sprt.status(SprtCounts::Pairs(&counts));
//! assert!(status.llr > 0.0 && status.upper > 2.9);
//! ```
//!
//! # The rating model
//!
//! Ratings are in Elo: a difference of 400 is a factor of 10 in the odds. Write
//! `x = (r_black + colour_advantage − r_white) · ln(10)/400` for a game, and `ν` for the
//! draw parameter. The probabilities are Davidson's (1970) extension of Bradley-Terry to draws:
//!
//! ```text
//! P(Black wins) = e^{x/2} / Z,   P(White wins) = e^{−x/2} / Z,   P(draw) = ν / Z,
//! Z = e^{x/2} + e^{−x/2} + ν.
//! ```
//!
//! With `ν = 0` this is the plain logistic Elo model, `P(Black wins) = 1 / (1 + 10^{−d/400})`
//! with `d = r_black + colour_advantage − r_white`. `ν = P(draw) / √(P(Black wins)·P(White wins))`
//! does not depend on the players; between equal players, a draw has probability `ν / (2 + ν)`.
//! When no game in the data is drawn, `ν` is fixed at 0 (its maximum-likelihood value, on the
//! boundary) and the fit is exactly Bradley-Terry.
//!
//! The colour advantage is **Black's**, in Elo: it is added to Black's rating in every game.
//! Positive means Black is favoured; negative means White (with its komi) is.
//!
//! All parameters (ratings, colour advantage, `ln ν`) are fitted at once by Newton's method on
//! the log-posterior, which is concave, with a backtracking line search.
//!
//! # The prior
//!
//! A player who won (or lost) every game has an infinite maximum-likelihood rating. As BayesElo
//! does, [`FitOptions::prior_draws`] (`w`, 1 by default) adds virtual draws that keep every
//! estimate finite and pull it weakly towards the middle:
//!
//! - each player draws `w` virtual games against an opponent rated at the mean of all players'
//!   ratings, scored as half a win and half a loss in the logistic model
//!   (log-density `−w·ln(2·cosh(z/2))`, with `z` the player's distance from the mean in natural
//!   units). This moves with the ratings, so differences do not depend on the [`Anchor`], and it
//!   also places players without games (near the mean) and groups of players who never met;
//! - when the colour advantage is fitted, `w` virtual draws between equal players, one with
//!   Black, pull it towards 0 in the same way;
//! - when the draw parameter is fitted, `w` virtual draws and `w` virtual decisive games between
//!   equal players pull the draw rate towards one half (log-density `w·(ln ν − 2·ln(2 + ν))`).
//!
//! Set `prior_draws` to 0 for the pure maximum-likelihood fit; then degenerate data (a perfect
//! score, players who never met) gives an error instead of numbers.
//!
//! # Intervals
//!
//! The 95% intervals are `estimate ± 1.96·σ`, `σ²` from the inverse of the observed information
//! (minus the Hessian of the log-posterior, prior included, at the optimum) under the anchor's
//! constraint. They are intervals for ratings relative to the anchor: the anchored player's
//! interval has width 0.

use serde::{Deserialize, Serialize};

use crate::pairing::Scored;
use std::collections::BTreeMap;
use std::fmt;

/// ln(10)/400: the factor from Elo to natural-log odds.
const ELO_TO_NATURAL: f64 = std::f64::consts::LN_10 / 400.0;

/// The two-sided 95% quantile of the standard normal distribution.
pub(crate) const Z95: f64 = 1.959_963_984_540_054;

/// One game between two players, named by their index (`0..players`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RatedGame {
    /// The player who had Black.
    pub black: usize,
    /// The player who had White.
    pub white: usize,
    /// How the game ended.
    pub result: Scored,
}

/// What fixes the ratings' zero point (the games tell only differences).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Anchor {
    /// This player's rating is fixed at this value.
    Player(usize, f64),
    /// The mean of all players' ratings is fixed at this value.
    Mean(f64),
}

/// How [`fit`] fits.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitOptions {
    /// What fixes the zero point. Default: the mean at 0.
    pub anchor: Anchor,
    /// The weight `w` of the prior, in virtual draws (see the [module docs](self)): 1 by
    /// default, as BayesElo; 0 for the pure maximum-likelihood fit. Must be finite and ≥ 0.
    pub prior_draws: f64,
    /// `None` (the default) fits Black's colour advantage; `Some(elo)` fixes it at `elo`.
    pub colour_advantage: Option<f64>,
    /// The most Newton steps before giving up with [`FitError::NotConverged`]. Default 100.
    pub max_iterations: usize,
    /// Converged when a full Newton step moves no rating (nor the colour advantage) by more
    /// than this many Elo, nor `ln ν` by more than this / 100. Default `1e-7`.
    pub tolerance: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            anchor: Anchor::Mean(0.0),
            prior_draws: 1.0,
            colour_advantage: None,
            max_iterations: 100,
            tolerance: 1e-7,
        }
    }
}

/// The result of [`fit`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// Each player's rating, in Elo, by index.
    pub ratings: Vec<f64>,
    /// Each player's 95% interval, in Elo (see the [module docs](self)).
    pub intervals: Vec<(f64, f64)>,
    /// Black's advantage in Elo, added to Black's rating in every game: positive favours Black,
    /// negative White. The fixed value when [`FitOptions::colour_advantage`] is `Some`.
    pub colour_advantage: f64,
    /// The 95% interval of the colour advantage; of width 0 when it was fixed.
    pub colour_advantage_interval: (f64, f64),
    /// Davidson's draw parameter `ν ≥ 0` (0 when no game was drawn): between equal players a
    /// draw has probability `ν / (2 + ν)`.
    pub draw_parameter: f64,
    /// The Newton steps taken.
    pub iterations: usize,
}

/// Why [`fit`] could not fit.
#[derive(Clone, Debug, PartialEq)]
pub enum FitError {
    /// RatedGame number `game` names a player outside `0..players`.
    PlayerOutOfRange {
        /// The index of the game in the input.
        game: usize,
    },
    /// The anchor names a player outside `0..players`.
    AnchorOutOfRange,
    /// An option is not usable: a prior weight, tolerance, anchor rating or fixed colour
    /// advantage that is negative or not finite.
    InvalidOptions,
    /// The observed information is singular, so the log-posterior has no unique maximum:
    /// possible only with `prior_draws == 0`, for example with a player without games, two
    /// groups of players who never met, or (numerically, on its way to infinity) a perfect score.
    Singular,
    /// No convergence within [`FitOptions::max_iterations`] steps: with `prior_draws == 0`,
    /// typically a perfect score, whose rating is infinite.
    NotConverged {
        /// The steps taken.
        iterations: usize,
    },
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitError::PlayerOutOfRange { game } => write!(f, "game {game} names an unknown player"),
            FitError::AnchorOutOfRange => write!(f, "the anchor names an unknown player"),
            FitError::InvalidOptions => write!(f, "invalid rating fit options"),
            FitError::Singular => write!(f, "the ratings are not determined by the games"),
            FitError::NotConverged { iterations } => {
                write!(
                    f,
                    "the rating fit did not converge in {iterations} iterations"
                )
            }
        }
    }
}

impl std::error::Error for FitError {}

/// Fits every player's rating, Black's colour advantage and the draw parameter at once, by
/// maximum likelihood (maximum a posteriori with the weak prior) under Davidson's
/// Bradley-Terry model with draws; see the [module docs](self) for the model and the prior.
///
/// `players` is the number of players; games name them by index. With `players == 0` the fit
/// is empty (no ratings, colour advantage at its fixed value or 0, draw parameter 0). Players
/// without games are placed near the mean by the prior.
pub fn fit(players: usize, games: &[RatedGame], options: &FitOptions) -> Result<Fit, FitError> {
    let w = options.prior_draws;
    let anchor_ok = match options.anchor {
        Anchor::Player(k, r) => {
            if k >= players && players > 0 {
                return Err(FitError::AnchorOutOfRange);
            }
            r.is_finite()
        }
        Anchor::Mean(m) => m.is_finite(),
    };
    let valid = w.is_finite()
        && w >= 0.0
        && options.tolerance.is_finite()
        && options.tolerance > 0.0
        && anchor_ok
        && options.colour_advantage.iter().all(|a| a.is_finite());
    if !valid {
        return Err(FitError::InvalidOptions);
    }
    if let Some(game) = games
        .iter()
        .position(|g| g.black >= players || g.white >= players)
    {
        return Err(FitError::PlayerOutOfRange { game });
    }
    if players == 0 {
        let a = options.colour_advantage.unwrap_or(0.0);
        return Ok(Fit {
            ratings: Vec::new(),
            intervals: Vec::new(),
            colour_advantage: a,
            colour_advantage_interval: (a, a),
            draw_parameter: 0.0,
            iterations: 0,
        });
    }
    Model::new(players, games, options).solve(options)
}

/// Results of the games between one ordered (black, white) pair: Black's wins, White's wins,
/// draws.
type Tally = [f64; 3];

/// The log-posterior in natural units and its reduction to free coordinates.
///
/// The full parameter vector `p` is the `n` ratings (natural units), then the colour advantage
/// if fitted, then `ln ν` if fitted. The free coordinates `u` are such that `p = p0 + T·u`, with
/// `T` given row by row (sparse: each full parameter depends on one or all free coordinates).
struct Model {
    n: usize,
    tallies: Vec<((usize, usize), Tally)>,
    prior: f64,
    /// Index of the colour advantage in `p`, when fitted.
    colour: Option<usize>,
    /// The fixed colour advantage in natural units, when not fitted.
    fixed_colour: f64,
    /// Index of `ln ν` in `p`, when fitted (some game was drawn).
    draw: Option<usize>,
    dim: usize,
    anchor: Anchor,
}

/// Black's score probabilities and `ln Z` for one game, from `x` and `ln ν` (`None`: `ν = 0`).
struct Davidson {
    black: f64,
    white: f64,
    draw: f64,
    log_z: f64,
}

impl Davidson {
    fn new(x: f64, log_nu: Option<f64>) -> Self {
        let (hb, hw) = (0.5 * x, -0.5 * x);
        let m = log_nu.map_or(hb.max(hw), |t| hb.max(hw).max(t));
        let eb = (hb - m).exp();
        let ew = (hw - m).exp();
        let ed = log_nu.map_or(0.0, |t| (t - m).exp());
        let s = eb + ew + ed;
        Davidson {
            black: eb / s,
            white: ew / s,
            draw: ed / s,
            log_z: m + s.ln(),
        }
    }
}

/// `ln(2·cosh(z/2))`, computed without overflow.
fn log_two_cosh_half(z: f64) -> f64 {
    let a = 0.5 * z.abs();
    a + (-2.0 * a).exp().ln_1p()
}

impl Model {
    fn new(n: usize, games: &[RatedGame], options: &FitOptions) -> Self {
        let mut map: BTreeMap<(usize, usize), Tally> = BTreeMap::new();
        let mut any_draw = false;
        for g in games {
            let t = map.entry((g.black, g.white)).or_insert([0.0; 3]);
            match g.result {
                Scored::BlackWins => t[0] += 1.0,
                Scored::WhiteWins => t[1] += 1.0,
                Scored::Draw => {
                    t[2] += 1.0;
                    any_draw = true;
                }
            }
        }
        let mut dim = n;
        let colour = options.colour_advantage.is_none().then(|| {
            dim += 1;
            dim - 1
        });
        let draw = any_draw.then(|| {
            dim += 1;
            dim - 1
        });
        Model {
            n,
            tallies: map.into_iter().collect(),
            prior: options.prior_draws,
            colour,
            fixed_colour: options.colour_advantage.unwrap_or(0.0) * ELO_TO_NATURAL,
            draw,
            dim,
            anchor: options.anchor,
        }
    }

    fn colour_of(&self, p: &[f64]) -> f64 {
        self.colour.map_or(self.fixed_colour, |i| p[i])
    }

    fn log_nu_of(&self, p: &[f64]) -> Option<f64> {
        self.draw.map(|i| p[i])
    }

    fn mean_rating(&self, p: &[f64]) -> f64 {
        p[..self.n].iter().sum::<f64>() / self.n as f64
    }

    /// The log-posterior at `p`.
    fn value(&self, p: &[f64]) -> f64 {
        let a = self.colour_of(p);
        let log_nu = self.log_nu_of(p);
        let mut f = 0.0;
        for &((b, wh), t) in &self.tallies {
            let x = p[b] - p[wh] + a;
            let d = Davidson::new(x, log_nu);
            f += t[0] * 0.5 * x - t[1] * 0.5 * x + t[2] * log_nu.unwrap_or(0.0)
                - (t[0] + t[1] + t[2]) * d.log_z;
        }
        let w = self.prior;
        if w > 0.0 {
            let mean = self.mean_rating(p);
            f -= w * p[..self.n]
                .iter()
                .map(|&s| log_two_cosh_half(s - mean))
                .sum::<f64>();
            if let Some(i) = self.colour {
                f -= w * log_two_cosh_half(p[i]);
            }
            if let Some(i) = self.draw {
                let t = p[i];
                // ln(2 + ν), without overflow for a large ln ν.
                let log_two_plus_nu = if t > 0.0 {
                    t + (2.0 * (-t).exp()).ln_1p()
                } else {
                    (2.0 + t.exp()).ln()
                };
                f += w * (t - 2.0 * log_two_plus_nu);
            }
        }
        f
    }

    /// The gradient and Hessian of the log-posterior at `p` (dense, `dim × dim`).
    fn derivatives(&self, p: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
        let dim = self.dim;
        let mut g = vec![0.0; dim];
        let mut h = vec![vec![0.0; dim]; dim];
        let a = self.colour_of(p);
        let log_nu = self.log_nu_of(p);
        for &((b, wh), t) in &self.tallies {
            let total = t[0] + t[1] + t[2];
            let x = p[b] - p[wh] + a;
            let d = Davidson::new(x, log_nu);
            let diff = d.black - d.white;
            // d log-likelihood / dx and / d ln ν, summed over the tally.
            let gx = 0.5 * (t[0] - t[1]) - total * 0.5 * diff;
            let gt = t[2] - total * d.draw;
            // Second derivatives (of minus ln Z, times the count).
            let hxx = -total * 0.25 * ((d.black + d.white) - diff * diff);
            let hxt = total * 0.5 * diff * d.draw;
            let htt = -total * d.draw * (1.0 - d.draw);
            // x = p[b] − p[wh] + p[colour]: coefficients of each full parameter in x.
            let mut coefs: Vec<(usize, f64)> = Vec::with_capacity(3);
            if b != wh {
                coefs.push((b, 1.0));
                coefs.push((wh, -1.0));
            }
            if let Some(c) = self.colour {
                coefs.push((c, 1.0));
            }
            for &(i, ci) in &coefs {
                g[i] += ci * gx;
                for &(j, cj) in &coefs {
                    h[i][j] += ci * cj * hxx;
                }
                if let Some(k) = self.draw {
                    h[i][k] += ci * hxt;
                    h[k][i] += ci * hxt;
                }
            }
            if let Some(k) = self.draw {
                g[k] += gt;
                h[k][k] += htt;
            }
        }
        let w = self.prior;
        if w > 0.0 {
            // Σ_i −w·ln 2cosh(z_i/2), z_i = s_i − mean: gradient Σ_i g_i·(e_i − 1/n), Hessian
            // Σ_i h_i·(e_i − 1/n)(e_i − 1/n)ᵀ = diag(h) − (h·1ᵀ + 1·hᵀ)/n + (Σh/n²)·1·1ᵀ.
            let n = self.n;
            let nf = n as f64;
            let mean = self.mean_rating(p);
            let mut gi = vec![0.0; n];
            let mut hi = vec![0.0; n];
            for i in 0..n {
                let th = (0.5 * (p[i] - mean)).tanh();
                gi[i] = -w * 0.5 * th;
                hi[i] = -w * 0.25 * (1.0 - th * th);
            }
            let gsum: f64 = gi.iter().sum();
            let hsum: f64 = hi.iter().sum();
            for i in 0..n {
                g[i] += gi[i] - gsum / nf;
                h[i][i] += hi[i];
                for j in 0..n {
                    h[i][j] += -(hi[i] + hi[j]) / nf + hsum / (nf * nf);
                }
            }
            if let Some(c) = self.colour {
                let th = (0.5 * p[c]).tanh();
                g[c] += -w * 0.5 * th;
                h[c][c] += -w * 0.25 * (1.0 - th * th);
            }
            if let Some(k) = self.draw {
                // ν/(2 + ν), without overflow for a large ln ν.
                let q = 1.0 / (1.0 + 2.0 * (-p[k]).exp());
                g[k] += w * (1.0 - 2.0 * q);
                h[k][k] += -w * 2.0 * q * (1.0 - q);
            }
        }
        (g, h)
    }

    /// The number of free coordinates.
    fn free_dim(&self) -> usize {
        self.dim - 1
    }

    /// Row `i` of `T` (`p = p0 + T·u`) as (free index, coefficient) pairs.
    ///
    /// With `Anchor::Player(k, _)`, rating `k` is fixed and the others are free. With
    /// `Anchor::Mean(_)`, the last rating is minus the sum of the other ratings' moves. The colour
    /// advantage and `ln ν` are free in both.
    fn t_row(&self, i: usize) -> Vec<(usize, f64)> {
        let n = self.n;
        if i >= n {
            return vec![(i - 1, 1.0)];
        }
        match self.anchor {
            Anchor::Player(k, _) => match i.cmp(&k) {
                std::cmp::Ordering::Less => vec![(i, 1.0)],
                std::cmp::Ordering::Equal => Vec::new(),
                std::cmp::Ordering::Greater => vec![(i - 1, 1.0)],
            },
            Anchor::Mean(_) => {
                if i + 1 < n {
                    vec![(i, 1.0)]
                } else {
                    (0..n - 1).map(|j| (j, -1.0)).collect()
                }
            }
        }
    }

    /// The starting point, which satisfies the anchor.
    fn start(&self) -> Vec<f64> {
        let level = match self.anchor {
            Anchor::Player(_, r) | Anchor::Mean(r) => r * ELO_TO_NATURAL,
        };
        let mut p = vec![level; self.dim];
        if let Some(c) = self.colour {
            p[c] = 0.0;
        }
        if let Some(k) = self.draw {
            p[k] = 0.0;
        }
        p
    }

    /// `Tᵀ·g` and `Tᵀ·H·T`.
    fn reduce(&self, g: &[f64], h: &[Vec<f64>]) -> (Vec<f64>, Vec<Vec<f64>>) {
        let q = self.free_dim();
        let rows: Vec<Vec<(usize, f64)>> = (0..self.dim).map(|i| self.t_row(i)).collect();
        let mut gu = vec![0.0; q];
        for (i, row) in rows.iter().enumerate() {
            for &(a, c) in row {
                gu[a] += c * g[i];
            }
        }
        // H·T first (dim × q), then Tᵀ·(H·T).
        let mut ht = vec![vec![0.0; q]; self.dim];
        for (i, hi) in h.iter().enumerate() {
            for (j, row) in rows.iter().enumerate() {
                let hij = hi[j];
                if hij != 0.0 {
                    for &(b, c) in row {
                        ht[i][b] += hij * c;
                    }
                }
            }
        }
        let mut hu = vec![vec![0.0; q]; q];
        for (i, row) in rows.iter().enumerate() {
            for &(a, c) in row {
                for b in 0..q {
                    hu[a][b] += c * ht[i][b];
                }
            }
        }
        (gu, hu)
    }

    /// `T·du`.
    fn expand(&self, du: &[f64]) -> Vec<f64> {
        (0..self.dim)
            .map(|i| self.t_row(i).iter().map(|&(a, c)| c * du[a]).sum())
            .collect()
    }

    /// Whether a full-parameter step is below the tolerance.
    fn small_step(&self, dp: &[f64], tolerance: f64) -> bool {
        dp.iter().enumerate().all(|(i, d)| {
            if Some(i) == self.draw {
                d.abs() <= tolerance / 100.0
            } else {
                d.abs() / ELO_TO_NATURAL <= tolerance
            }
        })
    }

    fn solve(&self, options: &FitOptions) -> Result<Fit, FitError> {
        let mut p = self.start();
        let mut f = self.value(&p);
        let mut iterations = 0;
        let mut converged = false;
        while iterations < options.max_iterations {
            iterations += 1;
            let (g, h) = self.derivatives(&p);
            let (gu, hu) = self.reduce(&g, &h);
            let neg: Vec<Vec<f64>> = hu
                .iter()
                .map(|row| row.iter().map(|v| -v).collect())
                .collect();
            let chol = Cholesky::new(&neg).ok_or(FitError::Singular)?;
            let du = chol.solve(&gu);
            let dp = self.expand(&du);
            if self.small_step(&dp, options.tolerance) {
                // The step is negligible: take it (it can only help) and stop.
                for (pi, d) in p.iter_mut().zip(&dp) {
                    *pi += d;
                }
                converged = true;
                break;
            }
            // The squared Newton decrement g·(−H)⁻¹·g: twice the gain the quadratic model
            // predicts for the full step.
            let decrement: f64 = gu.iter().zip(&du).map(|(a, b)| a * b).sum();
            if decrement <= FULL_STEP_DECREMENT {
                // Close to the optimum the full step is right, and the gain is too small for
                // the log-posterior's rounding to judge: take it without a line search.
                for (pi, d) in p.iter_mut().zip(&dp) {
                    *pi += d;
                }
                f = self.value(&p);
                continue;
            }
            // Backtracking line search on the concave log-posterior (Armijo condition).
            let mut t = 1.0;
            let mut accepted = false;
            while t > 1e-12 {
                let trial: Vec<f64> = p.iter().zip(&dp).map(|(pi, d)| pi + t * d).collect();
                let ft = self.value(&trial);
                if ft.is_finite() && ft >= f + 1e-4 * t * decrement {
                    p = trial;
                    f = ft;
                    accepted = true;
                    break;
                }
                t *= 0.5;
            }
            if !accepted {
                break;
            }
        }
        if !converged || p.iter().any(|v| !v.is_finite()) {
            return Err(FitError::NotConverged { iterations });
        }
        let (g, h) = self.derivatives(&p);
        let (_, hu) = self.reduce(&g, &h);
        let neg: Vec<Vec<f64>> = hu
            .iter()
            .map(|row| row.iter().map(|v| -v).collect())
            .collect();
        let chol = Cholesky::new(&neg).ok_or(FitError::Singular)?;
        // Var(p_i) = t_iᵀ·C·t_i, with C = (−H_u)⁻¹: solve (−H_u)·y = t_i.
        let q = self.free_dim();
        let sd = |i: usize| -> f64 {
            let row = self.t_row(i);
            if row.is_empty() {
                return 0.0;
            }
            let mut t = vec![0.0; q];
            for &(a, c) in &row {
                t[a] = c;
            }
            let y = chol.solve(&t);
            let var: f64 = t.iter().zip(&y).map(|(a, b)| a * b).sum();
            var.max(0.0).sqrt()
        };
        let elo = |v: f64| v / ELO_TO_NATURAL;
        let interval = |centre: f64, sd: f64| (elo(centre - Z95 * sd), elo(centre + Z95 * sd));
        let ratings: Vec<f64> = p[..self.n].iter().map(|&v| elo(v)).collect();
        let intervals = (0..self.n).map(|i| interval(p[i], sd(i))).collect();
        let (colour_advantage, colour_advantage_interval) = match self.colour {
            Some(c) => (elo(p[c]), interval(p[c], sd(c))),
            None => {
                let a = elo(self.fixed_colour);
                (a, (a, a))
            }
        };
        let draw_parameter = self.draw.map_or(0.0, |k| p[k].exp());
        Ok(Fit {
            ratings,
            intervals,
            colour_advantage,
            colour_advantage_interval,
            draw_parameter,
            iterations,
        })
    }
}

/// The Cholesky factor `L` of a symmetric positive-definite matrix (`A = L·Lᵀ`).
struct Cholesky {
    l: Vec<Vec<f64>>,
}

impl Cholesky {
    /// `None` when the matrix is not (numerically) positive definite.
    fn new(a: &[Vec<f64>]) -> Option<Self> {
        let n = a.len();
        let scale = (0..n).map(|i| a[i][i].abs()).fold(0.0, f64::max);
        let mut l = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..=i {
                let s: f64 = a[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>();
                if i == j {
                    let positive = s.is_finite() && s > 1e-13 * scale;
                    if !positive {
                        return None;
                    }
                    l[i][i] = s.sqrt();
                } else {
                    l[i][j] = s / l[j][j];
                }
            }
        }
        Some(Cholesky { l })
    }

    /// Solves `A·x = b`.
    fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = b.len();
        let l = &self.l;
        let mut y = vec![0.0; n];
        for i in 0..n {
            y[i] = (b[i] - (0..i).map(|k| l[i][k] * y[k]).sum::<f64>()) / l[i][i];
        }
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            x[i] = (y[i] - (i + 1..n).map(|k| l[k][i] * x[k]).sum::<f64>()) / l[i][i];
        }
        x
    }
}

/// Below this squared Newton decrement, [`fit`] takes full Newton steps without a line search.
const FULL_STEP_DECREMENT: f64 = 1e-6;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const B: Scored = Scored::BlackWins;
    const W: Scored = Scored::WhiteWins;
    const D: Scored = Scored::Draw;

    fn games(black: usize, white: usize, result: Scored, count: usize) -> Vec<RatedGame> {
        vec![
            RatedGame {
                black,
                white,
                result
            };
            count
        ]
    }

    /// `a` wins `wins` and loses `losses` against `b`, colours balanced (counts even).
    fn matchup(a: usize, b: usize, wins: usize, losses: usize) -> Vec<RatedGame> {
        let mut g = games(a, b, B, wins / 2);
        g.extend(games(b, a, W, wins - wins / 2));
        g.extend(games(a, b, W, losses / 2));
        g.extend(games(b, a, B, losses - losses / 2));
        g
    }

    fn mle(anchor: Anchor, colour: Option<f64>) -> FitOptions {
        FitOptions {
            anchor,
            prior_draws: 0.0,
            colour_advantage: colour,
            ..FitOptions::default()
        }
    }

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b} (tolerance {tol})");
    }

    // (a) Two players, no draws: the MLE difference is 400·log10(wins/losses).
    #[test]
    fn two_players_mle_is_log_odds() {
        let g = matchup(0, 1, 30, 10);
        // 400·log10(3) = 190.848...
        let expected = 400.0 * 3f64.log10();
        let f = fit(2, &g, &mle(Anchor::Player(1, 0.0), Some(0.0))).unwrap();
        close(f.ratings[0], expected, 1e-6);
        assert_eq!(f.ratings[1], 0.0);
        assert_eq!(f.intervals[1], (0.0, 0.0));
        assert_eq!(f.draw_parameter, 0.0);
        // Fitting the colour advantage too: colours are balanced, so it is 0.
        let f = fit(2, &g, &mle(Anchor::Mean(0.0), None)).unwrap();
        close(f.ratings[0] - f.ratings[1], expected, 1e-6);
        close(f.ratings[0] + f.ratings[1], 0.0, 1e-9);
        close(f.colour_advantage, 0.0, 1e-6);
    }

    // (a) The interval: the observed information of the natural-unit difference D is
    // N·p·(1−p) = 40·0.75·0.25 = 7.5, so σ(D) = 1/√7.5 and the half-width in Elo is
    // 1.96·(400/ln 10)/√7.5 = 124.31...; with the mean anchored each rating moves half of it.
    #[test]
    fn two_players_interval_from_information() {
        let g = matchup(0, 1, 30, 10);
        let half = Z95 / ELO_TO_NATURAL / 7.5f64.sqrt();
        let f = fit(2, &g, &mle(Anchor::Player(1, 0.0), Some(0.0))).unwrap();
        let (lo, hi) = f.intervals[0];
        close(hi - f.ratings[0], half, 1e-6);
        close(f.ratings[0] - lo, half, 1e-6);
        let f = fit(2, &g, &mle(Anchor::Mean(0.0), Some(0.0))).unwrap();
        let (lo, hi) = f.intervals[1];
        close(hi - lo, half, 1e-6);
    }

    // (a) With the default prior the difference is shrunk to the root of the posterior's
    // derivative in D (natural units), with the mean anchored (each player at ±D/2, one
    // virtual draw each against the mean: 2 × −ln 2cosh(D/4)):
    //   30·(1 − σ(D)) − 10·σ(D) − 2·(¼)·tanh(D/4) = 0,
    // solved here by bisection.
    #[test]
    fn two_players_prior_as_documented() {
        let g = matchup(0, 1, 30, 10);
        let opts = FitOptions {
            colour_advantage: Some(0.0),
            ..FitOptions::default()
        };
        let f = fit(2, &g, &opts).unwrap();
        let sigma = |d: f64| 1.0 / (1.0 + (-d).exp());
        let deriv = |d: f64| 30.0 * (1.0 - sigma(d)) - 10.0 * sigma(d) - 0.5 * (d / 4.0).tanh();
        let (mut lo, mut hi) = (0.0, 5.0);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if deriv(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let expected = lo / ELO_TO_NATURAL;
        close(f.ratings[0] - f.ratings[1], expected, 1e-6);
        assert!(expected < 400.0 * 3f64.log10() && expected > 180.0);
    }

    // (b) Three players whose results fit Bradley-Terry exactly: A beats B 2 of 3, B beats C
    // 2 of 3, A beats C 4 of 5. With odds A:B = 2, B:C = 2, A:C = 4 every pair's expected
    // score equals its observed score, so the score equations hold and this is the (unique)
    // MLE: r_A − r_B = r_B − r_C = 400·log10(2) = 120.412; the mean anchored at 0 puts B at 0.
    #[test]
    fn three_players_transitive() {
        let mut g = Vec::new();
        g.extend(games(0, 1, B, 2));
        g.extend(games(0, 1, W, 1));
        g.extend(games(1, 2, B, 2));
        g.extend(games(1, 2, W, 1));
        g.extend(games(0, 2, B, 4));
        g.extend(games(0, 2, W, 1));
        let f = fit(3, &g, &mle(Anchor::Mean(0.0), Some(0.0))).unwrap();
        let step = 400.0 * 2f64.log10();
        close(f.ratings[0], step, 1e-6);
        close(f.ratings[1], 0.0, 1e-6);
        close(f.ratings[2], -step, 1e-6);
        // The same differences with another anchor.
        let f = fit(3, &g, &mle(Anchor::Player(2, 1000.0), Some(0.0))).unwrap();
        close(f.ratings[0], 1000.0 + 2.0 * step, 1e-6);
        close(f.ratings[1], 1000.0 + step, 1e-6);
        assert_eq!(f.ratings[2], 1000.0);
    }

    // (b) A cycle: A beats B, B beats C, C beats A, each 2 of 3. By symmetry all are equal:
    // with equal ratings each player expects 3 wins of 6 and has 3.
    #[test]
    fn three_players_cycle() {
        let mut g = Vec::new();
        for (x, y) in [(0, 1), (1, 2), (2, 0)] {
            g.extend(games(x, y, B, 2));
            g.extend(games(x, y, W, 1));
        }
        let f = fit(3, &g, &mle(Anchor::Mean(1500.0), Some(0.0))).unwrap();
        for r in &f.ratings {
            close(*r, 1500.0, 1e-6);
        }
    }

    // Draws: equal players, 3 wins each and 4 draws. Ratings equal, and the score equation of
    // ln ν is D = N·ν/(2+ν): ν/(2+ν) = 4/10, so ν = 2·0.4/0.6 = 4/3.
    #[test]
    fn davidson_draw_parameter() {
        let mut g = matchup(0, 1, 3, 3);
        g.extend(games(0, 1, D, 2));
        g.extend(games(1, 0, D, 2));
        let f = fit(2, &g, &mle(Anchor::Mean(0.0), Some(0.0))).unwrap();
        close(f.ratings[0], 0.0, 1e-6);
        close(f.draw_parameter, 4.0 / 3.0, 1e-9);
    }

    // Draws with unequal players: A wins 6, loses 2, draws 4 (N = 12). The score equations of
    // Davidson's model are wins − losses = N·(P(A wins) − P(B wins)) for the ratings and
    // draws = N·P(draw) for ln ν; with P(A wins) + P(B wins) + P(draw) = 1 they give
    // P(A wins) = 6/12 and P(draw) = 4/12, so A's expected score is its actual (6 + 4/2)/12.
    #[test]
    fn davidson_expected_score_matches() {
        let mut g = matchup(0, 1, 6, 2);
        g.extend(games(0, 1, D, 2));
        g.extend(games(1, 0, D, 2));
        let f = fit(2, &g, &mle(Anchor::Mean(0.0), Some(0.0))).unwrap();
        let x = (f.ratings[0] - f.ratings[1]) * ELO_TO_NATURAL;
        let p = Davidson::new(x, Some(f.draw_parameter.ln()));
        // A's actual score: (6 + 4/2) / 12 = 2/3; the fraction of draws: 4/12 = 1/3.
        close(p.black + 0.5 * p.draw, 2.0 / 3.0, 1e-9);
        close(p.draw, 1.0 / 3.0, 1e-9);
    }

    // (c) Mirror games between equal players where Black wins 75%: each player has Black 20
    // times and wins 15 of those. The ratings are equal and Black's advantage is
    // 400·log10(0.75/0.25) = 190.848.
    #[test]
    fn colour_advantage_recovered() {
        let mut g = Vec::new();
        g.extend(games(0, 1, B, 15));
        g.extend(games(0, 1, W, 5));
        g.extend(games(1, 0, B, 15));
        g.extend(games(1, 0, W, 5));
        let f = fit(2, &g, &mle(Anchor::Mean(0.0), None)).unwrap();
        let expected = 400.0 * 3f64.log10();
        close(f.colour_advantage, expected, 1e-6);
        close(f.ratings[0], 0.0, 1e-6);
        let (lo, hi) = f.colour_advantage_interval;
        assert!(lo < expected && expected < hi && lo > 0.0);
        // White's advantage shows as a negative value.
        let swapped: Vec<RatedGame> = g
            .iter()
            .map(|x| RatedGame {
                result: if x.result == B { W } else { B },
                ..*x
            })
            .collect();
        let f = fit(2, &swapped, &mle(Anchor::Mean(0.0), None)).unwrap();
        close(f.colour_advantage, -expected, 1e-6);
        // The default prior shrinks it a little towards 0.
        let f = fit(2, &g, &FitOptions::default()).unwrap();
        assert!(f.colour_advantage < expected && f.colour_advantage > expected - 15.0);
    }

    // (d) Perfect scores: 0 beats 1 and 1 beats 2 in every game. Finite with the prior, in
    // order; the pure MLE does not exist.
    #[test]
    fn degenerate_all_wins_finite() {
        let mut g = matchup(0, 1, 10, 0);
        g.extend(matchup(1, 2, 10, 0));
        let f = fit(3, &g, &FitOptions::default()).unwrap();
        assert!(f.ratings.iter().all(|r| r.is_finite()));
        assert!(f
            .intervals
            .iter()
            .all(|(a, b)| a.is_finite() && b.is_finite() && a < b));
        assert!(f.ratings[0] > f.ratings[1] && f.ratings[1] > f.ratings[2]);
        close(f.ratings.iter().sum::<f64>(), 0.0, 1e-6);
        assert!(f.colour_advantage.abs() < 1e-6);
        let pure = fit(3, &g, &mle(Anchor::Mean(0.0), None));
        assert!(matches!(
            pure,
            Err(FitError::NotConverged { .. } | FitError::Singular)
        ));
        // All draws: no maximum without the prior (ν → ∞), an error rather than a panic.
        let d = games(0, 1, D, 10);
        assert!(fit(2, &d, &mle(Anchor::Mean(0.0), None)).is_err());
        // All draws: the draw parameter is finite with the prior.
        let d = games(0, 1, D, 10);
        let f = fit(2, &d, &FitOptions::default()).unwrap();
        assert!(f.draw_parameter.is_finite() && f.draw_parameter > 1.0);
        close(f.ratings[0], 0.0, 1e-6);
    }

    // (e) Intervals shrink as the games are multiplied: without the prior, k times the games
    // multiply the information by k and the width by 1/√k.
    #[test]
    fn intervals_shrink_with_games() {
        let mut base = matchup(0, 1, 6, 4);
        base.extend(matchup(1, 2, 5, 3));
        base.extend(matchup(2, 0, 2, 4));
        base.extend(games(0, 2, D, 1));
        let width = |k: usize, prior: f64| {
            let g: Vec<RatedGame> = (0..k).flat_map(|_| base.clone()).collect();
            let opts = FitOptions {
                prior_draws: prior,
                ..FitOptions::default()
            };
            let f = fit(3, &g, &opts).unwrap();
            f.intervals.iter().map(|(a, b)| b - a).collect::<Vec<f64>>()
        };
        let w1 = width(1, 0.0);
        let w4 = width(4, 0.0);
        for (a, b) in w1.iter().zip(&w4) {
            close(b / a, 0.5, 1e-6);
        }
        let p1 = width(1, 1.0);
        let p4 = width(4, 1.0);
        let p16 = width(16, 1.0);
        for i in 0..3 {
            assert!(p4[i] < p1[i] && p16[i] < p4[i]);
        }
    }

    #[test]
    fn empty_and_invalid_inputs() {
        let f = fit(0, &[], &FitOptions::default()).unwrap();
        assert!(f.ratings.is_empty() && f.intervals.is_empty());
        let f = fit(3, &[], &FitOptions::default()).unwrap();
        assert_eq!(f.ratings.len(), 3);
        for r in &f.ratings {
            close(*r, 0.0, 1e-9);
        }
        let opts = FitOptions {
            anchor: Anchor::Player(0, 1500.0),
            ..FitOptions::default()
        };
        let f = fit(2, &[], &opts).unwrap();
        close(f.ratings[1], 1500.0, 1e-9);
        let f = fit(1, &games(0, 0, B, 3), &FitOptions::default()).unwrap();
        assert_eq!(f.ratings, vec![0.0]);
        assert!(f.colour_advantage > 0.0);
        assert_eq!(
            fit(2, &games(0, 2, B, 1), &FitOptions::default()),
            Err(FitError::PlayerOutOfRange { game: 0 })
        );
        let bad_anchor = FitOptions {
            anchor: Anchor::Player(5, 0.0),
            ..FitOptions::default()
        };
        assert_eq!(fit(2, &[], &bad_anchor), Err(FitError::AnchorOutOfRange));
        let bad_prior = FitOptions {
            prior_draws: -1.0,
            ..FitOptions::default()
        };
        assert_eq!(fit(2, &[], &bad_prior), Err(FitError::InvalidOptions));
        // Two groups that never met: fine with the prior, singular without.
        let mut g = matchup(0, 1, 3, 1);
        g.extend(matchup(2, 3, 1, 3));
        assert!(fit(4, &g, &FitOptions::default()).is_ok());
        assert_eq!(
            fit(4, &g, &mle(Anchor::Mean(0.0), Some(0.0))),
            Err(FitError::Singular)
        );
    }

    // The prior is translation-invariant: the anchor changes no difference.
    #[test]
    fn anchor_does_not_change_differences() {
        let mut g = matchup(0, 1, 7, 3);
        g.extend(matchup(1, 2, 4, 4));
        g.extend(games(2, 0, D, 2));
        let a = fit(3, &g, &FitOptions::default()).unwrap();
        let opts = FitOptions {
            anchor: Anchor::Player(1, 2000.0),
            ..FitOptions::default()
        };
        let b = fit(3, &g, &opts).unwrap();
        for i in 0..3 {
            close(
                a.ratings[i] - a.ratings[1],
                b.ratings[i] - b.ratings[1],
                1e-6,
            );
        }
        close(b.ratings[1], 2000.0, 0.0);
        close(a.draw_parameter, b.draw_parameter, 1e-9);
    }

    // The analytic gradient and Hessian agree with finite differences of the log-posterior.
    #[test]
    fn derivatives_match_finite_differences() {
        let mut g = matchup(0, 1, 3, 1);
        g.extend(games(1, 2, D, 2));
        g.extend(games(2, 2, B, 1));
        g.extend(games(3, 1, W, 2));
        let opts = FitOptions::default();
        let model = Model::new(4, &g, &opts);
        assert_eq!(model.dim, 6);
        let p = [0.3, -0.2, 0.1, 0.5, 0.2, -0.4];
        let (grad, hess) = model.derivatives(&p);
        let e = 1e-5;
        for i in 0..model.dim {
            let mut hi = p;
            let mut lo = p;
            hi[i] += e;
            lo[i] -= e;
            close(
                grad[i],
                (model.value(&hi) - model.value(&lo)) / (2.0 * e),
                1e-6,
            );
            let (gh, _) = model.derivatives(&hi);
            let (gl, _) = model.derivatives(&lo);
            for j in 0..model.dim {
                close(hess[j][i], (gh[j] - gl[j]) / (2.0 * e), 1e-6);
            }
        }
    }

    // Found by the property test below: the fit stalled near the optimum when the line search
    // could no longer tell the gain from rounding. Player 0, without games, appears only in
    // the prior: its derivative −w·½·tanh(z_0/2) + (1/n)·Σ_i w·½·tanh(z_i/2) is 0, so
    // tanh(z_0/2) is the mean of tanh(z_i/2) over all players (z_i: distance from the mean).
    #[test]
    fn converges_with_a_player_without_games() {
        let g = vec![
            RatedGame {
                black: 1,
                white: 3,
                result: W,
            },
            RatedGame {
                black: 4,
                white: 1,
                result: B,
            },
            RatedGame {
                black: 1,
                white: 3,
                result: B,
            },
            RatedGame {
                black: 2,
                white: 2,
                result: W,
            },
            RatedGame {
                black: 2,
                white: 4,
                result: D,
            },
            RatedGame {
                black: 2,
                white: 2,
                result: D,
            },
            RatedGame {
                black: 2,
                white: 2,
                result: B,
            },
            RatedGame {
                black: 2,
                white: 1,
                result: B,
            },
            RatedGame {
                black: 2,
                white: 2,
                result: D,
            },
        ];
        let opts = FitOptions {
            anchor: Anchor::Mean(100.0),
            ..FitOptions::default()
        };
        let f = fit(5, &g, &opts).unwrap();
        let tanh = |r: f64| (0.5 * (r - 100.0) * ELO_TO_NATURAL).tanh();
        let mean_tanh = f.ratings.iter().map(|&r| tanh(r)).sum::<f64>() / 5.0;
        close(tanh(f.ratings[0]), mean_tanh, 1e-9);
        close(f.ratings.iter().sum::<f64>() / 5.0, 100.0, 1e-9);
        assert!(f.iterations < 20);
    }

    fn arb_game(players: usize) -> impl Strategy<Value = RatedGame> {
        (0..players, 0..players, 0..3u8).prop_map(|(black, white, r)| RatedGame {
            black,
            white,
            result: [B, W, D][r as usize],
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        // With the prior, any data fits: finite numbers, the anchor respected, each estimate
        // inside its interval.
        #[test]
        fn prior_fit_always_finite(
            players in 1usize..6,
            seed_games in proptest::collection::vec(arb_game(6), 0..40),
            anchor_player in proptest::bool::ANY,
        ) {
            let g: Vec<RatedGame> = seed_games
                .into_iter()
                .filter(|g| g.black < players && g.white < players)
                .collect();
            let anchor = if anchor_player { Anchor::Player(0, 100.0) } else { Anchor::Mean(100.0) };
            let opts = FitOptions { anchor, ..FitOptions::default() };
            let f = fit(players, &g, &opts).unwrap();
            prop_assert!(f.ratings.iter().all(|r| r.is_finite()));
            prop_assert!(f.colour_advantage.is_finite() && f.draw_parameter.is_finite());
            for (r, (lo, hi)) in f.ratings.iter().zip(&f.intervals) {
                prop_assert!(lo <= r && r <= hi && lo.is_finite() && hi.is_finite());
            }
            if anchor_player {
                prop_assert_eq!(f.ratings[0], 100.0);
            } else {
                let mean = f.ratings.iter().sum::<f64>() / players as f64;
                prop_assert!((mean - 100.0).abs() < 1e-6);
            }
        }
    }
}
