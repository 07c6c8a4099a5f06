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
//! # Large pools
//!
//! [`fit`] solves each Newton step with a dense factorisation: cubic in the players, right for
//! a tournament. [`fit_from`] fits the same model to the same optimum for thousands of players
//! and tens of thousands of games: it solves each step by conjugate gradients on the sparse
//! Hessian (a player's row has entries only for the opponents it met), can start from a
//! previous fit ([`Start`]) so that a refit after a few more games takes a few steps, and
//! computes the intervals exactly or by a linear-time approximation ([`Intervals`]).
//!
//! # Anchors
//!
//! The games tell only differences; [`FitOptions::anchor`] fixes the level. [`Anchor::Mean`]
//! fixes the mean of all ratings and [`Anchor::Player`] one player's rating: either is a mere
//! translation of the same differences. CGOS-style servers fix several accounts' ratings at
//! once (GNU Go at 1800, a random player at 0): [`Anchor::Players`] keeps each of them exactly
//! at its value, and fits every other rating, the colour advantage and the draw parameter
//! given them. With two anchored players or more this is a constrained fit, not a
//! translation: where the anchored values disagree with the games (GNU Go's results say 1750
//! when it is fixed at 1800) the other players' differences change too, each as its games
//! with the anchored players and with the others pull it.
//!
//! ```
//! use goref_tournament::pairing::Scored;
//! use goref_tournament::rating::{fit, fit_from, Anchor, FitOptions, Intervals, RatedGame};
//!
//! // Player 2 beats player 0 twice in three games and loses to player 1 twice in three.
//! let game = |black, white, result| RatedGame { black, white, result };
//! let mut games = Vec::new();
//! for _ in 0..10 {
//!     games.push(game(2, 0, Scored::BlackWins));
//!     games.push(game(0, 2, Scored::WhiteWins));
//!     games.push(game(2, 0, Scored::WhiteWins));
//!     games.push(game(2, 1, Scored::WhiteWins));
//!     games.push(game(1, 2, Scored::BlackWins));
//!     games.push(game(1, 2, Scored::WhiteWins));
//! }
//! let options = FitOptions {
//!     anchor: Anchor::Players(vec![(0, 0.0), (1, 400.0)]),
//!     ..FitOptions::default()
//! };
//! let rated = fit(3, &games, &options).unwrap();
//! assert_eq!((rated.ratings[0], rated.ratings[1]), (0.0, 400.0));
//! assert_eq!(rated.intervals[1], (400.0, 400.0));
//! // Half-way, as its results against the two are symmetric.
//! assert!((rated.ratings[2] - 200.0).abs() < 1e-6);
//! let sparse = fit_from(3, &games, &options, None, Intervals::Exact).unwrap();
//! assert!((sparse.ratings[2] - rated.ratings[2]).abs() < 1e-6);
//! ```
//!
//! Both solvers take their Newton steps on the free coordinates only (the anchored ratings
//! never move): [`fit`] factorises the Hessian restricted to them, [`fit_from`] solves the
//! restricted system by conjugate gradients, preconditioned so that the common level of the
//! free players, which only their games against the anchored players pin, costs no more
//! steps (see [`fit_from`]).
//!
//! Players whom no game connects, directly or through others, to an anchored player: with
//! the prior (the default) they are placed as any group of players who never met is, by the
//! prior's virtual draws against the mean of all players' ratings (anchored ones included);
//! without it, their ratings are not determined and the fit fails with [`FitError::Singular`],
//! as for groups who never met under [`Anchor::Mean`].
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
//! constraint. They are intervals for ratings relative to the anchor: an anchored player's
//! interval is `(r, r)`, and with several anchored players the others' come from the
//! information restricted to the free coordinates.

use serde::{Deserialize, Serialize};

use crate::pairing::Scored;
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

/// What fixes the ratings' zero point (the games tell only differences), or with
/// [`Anchor::Players`] several ratings at once (see the [module docs](self#anchors)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Anchor {
    /// This player's rating is fixed at this value (the same fit as
    /// `Anchor::Players(vec![(player, rating)])`).
    Player(usize, f64),
    /// The mean of all players' ratings is fixed at this value.
    Mean(f64),
    /// Each of these players' ratings is fixed at its value: `(player, rating in Elo)`, at
    /// least one, no player twice. With two or more the games are fitted under the constraint
    /// (not merely moved to it): every other rating, the colour advantage and the draw
    /// parameter are the best fit given the anchored ratings.
    Players(Vec<(usize, f64)>),
}

/// How [`fit`] fits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitOptions {
    /// What fixes the zero point, or several players' ratings (see the
    /// [module docs](self#anchors)). Default: the mean at 0.
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
    /// The anchor ([`Anchor::Player`] or [`Anchor::Players`]) names a player outside
    /// `0..players`.
    AnchorOutOfRange {
        /// The player named.
        player: usize,
    },
    /// An anchored player's rating ([`Anchor::Player`] or [`Anchor::Players`]) is not finite.
    AnchorNotFinite {
        /// The anchored player.
        player: usize,
    },
    /// [`Anchor::Players`] names this player twice.
    AnchorRepeated {
        /// The player named twice.
        player: usize,
    },
    /// [`Anchor::Players`] names no player.
    NoAnchoredPlayer,
    /// An option is not usable: a prior weight, tolerance, anchored mean or fixed colour
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
            FitError::AnchorOutOfRange { player } => {
                write!(
                    f,
                    "the anchor names player {player}, who is not in the pool"
                )
            }
            FitError::AnchorNotFinite { player } => {
                write!(
                    f,
                    "the anchored rating of player {player} is not a finite number"
                )
            }
            FitError::AnchorRepeated { player } => {
                write!(f, "player {player} is anchored twice")
            }
            FitError::NoAnchoredPlayer => write!(f, "the list of anchored players is empty"),
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
    if let Some(empty) = check(players, games, options)? {
        return Ok(empty);
    }
    Model::new(players, games, options).solve(options)
}

/// Checks the input of [`fit`] and [`fit_from`]; `Some` the empty fit when there are no players.
fn check(
    players: usize,
    games: &[RatedGame],
    options: &FitOptions,
) -> Result<Option<Fit>, FitError> {
    let w = options.prior_draws;
    let anchored = match &options.anchor {
        Anchor::Mean(m) => {
            if !m.is_finite() {
                return Err(FitError::InvalidOptions);
            }
            Vec::new()
        }
        Anchor::Player(k, r) => vec![(*k, *r)],
        Anchor::Players(list) if list.is_empty() => return Err(FitError::NoAnchoredPlayer),
        Anchor::Players(list) => list.clone(),
    };
    for &(player, r) in &anchored {
        // As for games, no player is out of range of an empty pool (whose fit is empty).
        if player >= players && players > 0 {
            return Err(FitError::AnchorOutOfRange { player });
        }
        if !r.is_finite() {
            return Err(FitError::AnchorNotFinite { player });
        }
    }
    let mut named: Vec<usize> = anchored.iter().map(|&(k, _)| k).collect();
    named.sort_unstable();
    if let Some(pair) = named.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(FitError::AnchorRepeated { player: pair[0] });
    }
    let valid = w.is_finite()
        && w >= 0.0
        && options.tolerance.is_finite()
        && options.tolerance > 0.0
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
        return Ok(Some(Fit {
            ratings: Vec::new(),
            intervals: Vec::new(),
            colour_advantage: a,
            colour_advantage_interval: (a, a),
            draw_parameter: 0.0,
            iterations: 0,
        }));
    }
    Ok(None)
}

/// Where [`fit_from`] starts its search: typically a previous fit's estimates
/// (`Start::from(&fit)`), or ratings read back from storage. A start changes only how fast the
/// fit gets to the optimum, never which optimum (the log-posterior is concave).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Start {
    /// Each player's rating in Elo, by index. A player past the end, `None` or not finite
    /// starts at the mean of the others' starting ratings (at the anchor's level when none is
    /// known). Only differences matter: the start is shifted to satisfy the anchor.
    pub ratings: Vec<Option<f64>>,
    /// Black's colour advantage in Elo (`None`: 0). Unused when the colour advantage is fixed.
    pub colour_advantage: Option<f64>,
    /// The draw parameter `ν` (`None`, or not positive and finite: 1). Unused when no game
    /// was drawn.
    pub draw_parameter: Option<f64>,
}

impl From<&Fit> for Start {
    fn from(fit: &Fit) -> Self {
        Start {
            ratings: fit.ratings.iter().map(|&r| Some(r)).collect(),
            colour_advantage: Some(fit.colour_advantage),
            draw_parameter: Some(fit.draw_parameter),
        }
    }
}

/// How [`fit_from`] computes the 95% intervals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intervals {
    /// Exact, as [`fit`]'s: one conjugate-gradient solve per player, each about as dear as a
    /// Newton step (so `players` times the cost of the fit itself).
    Exact,
    /// An approximation linear in the games: each rating's variance is `1/I_ii` (`I` the
    /// observed information: as if its opponents' ratings were known) plus what its
    /// opponents' uncertainty adds, `Σ_j I_ij²/(I_ii²·I_jj)` (the first terms of the inverse's
    /// Neumann series), then moved to the anchor as if the ratings were independent but for
    /// the anchored player's covariances `|I_ik|/(I_ii·I_kk)` (several anchored players merged
    /// into one, their differences being fixed). Measured against the exact
    /// widths (the test `diagonal_intervals_against_the_dense_fit`): within 1% for 150 players
    /// with 27 games each, either anchor; with few, lopsided games (250 players, 12 games
    /// each, strengths 3,000 Elo apart) up to 5% too narrow (mean 1%) with the default
    /// prior, 21% (mean 5%) with a prior of 0.3 virtual draws; the same with three anchored
    /// players (the test `diagonal_intervals_with_anchored_players`: 0.7%, and 21% with the
    /// lopsided games); for a handful of players who met often, about 10% too wide (and up
    /// to √2 too wide for one player between two anchored ones, whose uncertainty it counts
    /// as if they were free). The colour advantage's interval stays exact (one solve).
    Diagonal,
    /// Exact up to this many players, the diagonal approximation above.
    ExactUpTo(usize),
}

impl Default for Intervals {
    fn default() -> Self {
        Intervals::ExactUpTo(DEFAULT_EXACT_INTERVALS_UP_TO)
    }
}

/// [`Intervals::default`]'s limit of exact intervals, in players.
pub const DEFAULT_EXACT_INTERVALS_UP_TO: usize = 100;

/// The same fit as [`fit`] (same model, same prior, same anchor: the same optimum, to within
/// the [`FitOptions::tolerance`] of both), for large pools: linear memory in players and games,
/// each Newton step solved by conjugate gradients (preconditioned by the diagonal) on the
/// sparse Hessian, whose rating block is a weighted graph Laplacian with a row per player and
/// an entry per opponent met (plus the colour advantage, `ln ν` and the prior's rank-two
/// coupling through the mean, applied without being stored). Nothing is cubic in the players:
/// a step costs about `√κ` products with the Hessian, each linear in the players plus the
/// distinct pairings, with `κ` the condition number (small when the players' games mix them
/// well).
///
/// `start` warm-starts the search (a refit after a few more games takes a step or two);
/// `intervals` chooses between the exact intervals and a linear-time approximation.
///
/// With two anchored players or more ([`Anchor::Players`]) each step is solved on the free
/// coordinates only. Their system is badly conditioned along the common level of the free
/// players (pinned only by their games with the anchored players), so the diagonal
/// preconditioner is balanced by an exact solve along that one direction; measured with 2,000
/// players, 20,000 games and three anchored players: 29 ms against 26 ms with the mean
/// anchored (35 ms without the balancing). With the mean or one anchored player every step is
/// solved on all the ratings and moved along their translation to keep the anchor.
///
/// The errors are [`fit`]'s, with one difference when `prior_draws == 0`: players split into
/// groups that never met are found from the games ([`FitError::Singular`]); other singular
/// cases (colour advantage confounded with the players, a perfect score) give
/// [`FitError::Singular`] or [`FitError::NotConverged`] when the solver notices, as [`fit`].
///
/// # Errors
///
/// As [`fit`].
pub fn fit_from(
    players: usize,
    games: &[RatedGame],
    options: &FitOptions,
    start: Option<&Start>,
    intervals: Intervals,
) -> Result<Fit, FitError> {
    if let Some(empty) = check(players, games, options)? {
        return Ok(empty);
    }
    Model::new(players, games, options).solve_sparse(options, start, intervals)
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
    constraint: Constraint,
}

/// The anchor as the solvers use it.
enum Constraint {
    /// The mean of the ratings fixed at this value (natural units).
    Mean(f64),
    /// Some ratings fixed ([`Anchor::Player`] and [`Anchor::Players`]).
    Fixed {
        /// The fixed ratings, `(player, rating in natural units)`, by player.
        anchors: Vec<(usize, f64)>,
        /// The same ratings in Elo as given (reported as they are, not converted back).
        elo: Vec<f64>,
        /// Each player's free coordinate: `None` for an anchored player, else the player's
        /// index among the free ones.
        free: Vec<Option<usize>>,
    },
}

impl Constraint {
    fn new(n: usize, anchor: &Anchor) -> Constraint {
        let list = match anchor {
            Anchor::Mean(m) => return Constraint::Mean(m * ELO_TO_NATURAL),
            Anchor::Player(k, r) => vec![(*k, *r)],
            Anchor::Players(list) => list.clone(),
        };
        let mut list = list;
        list.sort_unstable_by_key(|&(k, _)| k);
        let elo = list.iter().map(|&(_, r)| r).collect();
        let anchors: Vec<(usize, f64)> = list
            .into_iter()
            .map(|(k, r)| (k, r * ELO_TO_NATURAL))
            .collect();
        let mut free = Vec::with_capacity(n);
        let mut next = 0;
        let mut fixed = anchors.iter().map(|&(k, _)| k).peekable();
        for i in 0..n {
            if fixed.next_if_eq(&i).is_some() {
                free.push(None);
            } else {
                free.push(Some(next));
                next += 1;
            }
        }
        Constraint::Fixed { anchors, elo, free }
    }

    /// How many coordinates the constraint removes.
    fn removed(&self) -> usize {
        match self {
            Constraint::Mean(_) => 1,
            Constraint::Fixed { anchors, .. } => anchors.len(),
        }
    }

    /// The anchored players, by player (none for the mean).
    fn anchors(&self) -> &[(usize, f64)] {
        match self {
            Constraint::Mean(_) => &[],
            Constraint::Fixed { anchors, .. } => anchors,
        }
    }

    /// Whether the sparse fit solves on the free coordinates (two anchored players or more)
    /// rather than on all of them, then moving the step along the translation of every rating
    /// (the mean or a single anchored player, which the translation alone can satisfy).
    fn grounded(&self) -> bool {
        self.anchors().len() >= 2
    }
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

/// One tally's derivatives of the log-likelihood at `x` (Black's advantage, natural units) and
/// `ln ν`: first (`gx`, `gt`: by `x` and by `ln ν`, summed over the tally's games) and second
/// (of minus `ln Z`, times the count), shared by the dense and the sparse fit.
struct TallyTerms {
    gx: f64,
    gt: f64,
    hxx: f64,
    hxt: f64,
    htt: f64,
}

impl TallyTerms {
    fn new(t: &Tally, x: f64, log_nu: Option<f64>) -> TallyTerms {
        let total = t[0] + t[1] + t[2];
        let d = Davidson::new(x, log_nu);
        let diff = d.black - d.white;
        TallyTerms {
            gx: 0.5 * (t[0] - t[1]) - total * 0.5 * diff,
            gt: t[2] - total * d.draw,
            hxx: -total * 0.25 * ((d.black + d.white) - diff * diff),
            hxt: total * 0.5 * diff * d.draw,
            htt: -total * d.draw * (1.0 - d.draw),
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
        // The games sorted by pairing, then counted pairing by pairing (a sort is several
        // times faster than a map's insertions: 20,000 games in about 1 ms).
        let mut sorted: Vec<((usize, usize), Scored)> = games
            .iter()
            .map(|g| ((g.black, g.white), g.result))
            .collect();
        sorted.sort_unstable_by_key(|&(pair, _)| pair);
        let mut tallies: Vec<((usize, usize), Tally)> = Vec::new();
        let mut any_draw = false;
        for (pair, result) in sorted {
            if tallies.last().is_none_or(|(last, _)| *last != pair) {
                tallies.push((pair, [0.0; 3]));
            }
            let t = &mut tallies.last_mut().expect("pushed").1;
            match result {
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
            tallies,
            prior: options.prior_draws,
            colour,
            fixed_colour: options.colour_advantage.unwrap_or(0.0) * ELO_TO_NATURAL,
            draw,
            dim,
            constraint: Constraint::new(n, &options.anchor),
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
            let TallyTerms {
                gx,
                gt,
                hxx,
                hxt,
                htt,
            } = TallyTerms::new(&t, p[b] - p[wh] + a, log_nu);
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
        self.dim - self.constraint.removed()
    }

    /// Row `i` of `T` (`p = p0 + T·u`) as (free index, coefficient) pairs.
    ///
    /// With anchored players ([`Anchor::Player`], [`Anchor::Players`]), their ratings are fixed
    /// and the others are free. With `Anchor::Mean(_)`, the last rating is minus the sum of the
    /// other ratings' moves. The colour advantage and `ln ν` are free in both.
    fn t_row(&self, i: usize) -> Vec<(usize, f64)> {
        let n = self.n;
        if i >= n {
            return vec![(i - self.constraint.removed(), 1.0)];
        }
        match &self.constraint {
            Constraint::Fixed { free, .. } => free[i].map(|a| (a, 1.0)).into_iter().collect(),
            Constraint::Mean(_) => {
                if i + 1 < n {
                    vec![(i, 1.0)]
                } else {
                    (0..n - 1).map(|j| (j, -1.0)).collect()
                }
            }
        }
    }

    /// The starting point, which satisfies the anchor: every rating at the anchor's level
    /// (the mean of the anchored ratings), the anchored ones at theirs.
    fn start(&self) -> Vec<f64> {
        let level = match &self.constraint {
            Constraint::Mean(m) => *m,
            Constraint::Fixed { anchors, .. } => {
                anchors.iter().map(|&(_, r)| r).sum::<f64>() / anchors.len() as f64
            }
        };
        let mut p = vec![level; self.dim];
        for &(k, r) in self.constraint.anchors() {
            p[k] = r;
        }
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

    /// The dense fit: each Newton step solved by a Cholesky factorisation of the reduced
    /// Hessian (cubic in the players), exact intervals from the same factorisation.
    fn solve(&self, options: &FitOptions) -> Result<Fit, FitError> {
        let (p, iterations) = self.newton(options, self.start(), |p| {
            let (g, h) = self.derivatives(p);
            let (gu, hu) = self.reduce(&g, &h);
            let chol = Cholesky::new(&negated(&hu)).ok_or(FitError::Singular)?;
            let du = chol.solve(&gu);
            // The squared Newton decrement g·(−H)⁻¹·g.
            let decrement = dot(&gu, &du);
            Ok((self.expand(&du), decrement))
        })?;
        let (g, h) = self.derivatives(&p);
        let (_, hu) = self.reduce(&g, &h);
        let chol = Cholesky::new(&negated(&hu)).ok_or(FitError::Singular)?;
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
            dot(&t, &y).max(0.0).sqrt()
        };
        let rating_sd: Vec<f64> = (0..self.n).map(sd).collect();
        let colour_sd = self.colour.map_or(0.0, sd);
        Ok(self.report(&p, &rating_sd, colour_sd, iterations))
    }

    /// Newton's method with a backtracking line search from `p`, each step's direction (a
    /// move of the full parameters that keeps the anchor) and squared Newton decrement from
    /// `direction`. Returns the optimum and the steps taken.
    fn newton(
        &self,
        options: &FitOptions,
        mut p: Vec<f64>,
        mut direction: impl FnMut(&[f64]) -> Result<(Vec<f64>, f64), FitError>,
    ) -> Result<(Vec<f64>, usize), FitError> {
        let mut f = self.value(&p);
        let mut iterations = 0;
        let mut converged = false;
        while iterations < options.max_iterations {
            iterations += 1;
            let (dp, decrement) = direction(&p)?;
            if self.small_step(&dp, options.tolerance) {
                // The step is negligible: take it (it can only help) and stop.
                for (pi, d) in p.iter_mut().zip(&dp) {
                    *pi += d;
                }
                converged = true;
                break;
            }
            // The squared Newton decrement is twice the gain the quadratic model predicts
            // for the full step.
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
        Ok((p, iterations))
    }

    /// The fit at the optimum `p`, from the standard deviations (natural units) of the
    /// ratings and of the colour advantage.
    fn report(&self, p: &[f64], rating_sd: &[f64], colour_sd: f64, iterations: usize) -> Fit {
        let elo = |v: f64| v / ELO_TO_NATURAL;
        let interval = |centre: f64, sd: f64| (elo(centre - Z95 * sd), elo(centre + Z95 * sd));
        let mut ratings: Vec<f64> = p[..self.n].iter().map(|&v| elo(v)).collect();
        let mut intervals: Vec<(f64, f64)> =
            (0..self.n).map(|i| interval(p[i], rating_sd[i])).collect();
        if let Constraint::Fixed { anchors, elo, .. } = &self.constraint {
            // Exactly as given (`r·ln(10)/400·400/ln(10)` need not be `r`).
            for (&(k, _), &r) in anchors.iter().zip(elo) {
                ratings[k] = r;
                intervals[k] = (r, r);
            }
        }
        let (colour_advantage, colour_advantage_interval) = match self.colour {
            Some(c) => (elo(p[c]), interval(p[c], colour_sd)),
            None => {
                let a = elo(self.fixed_colour);
                (a, (a, a))
            }
        };
        let draw_parameter = self.draw.map_or(0.0, |k| p[k].exp());
        Fit {
            ratings,
            intervals,
            colour_advantage,
            colour_advantage_interval,
            draw_parameter,
            iterations,
        }
    }
}

/// `−A`, for a dense matrix.
fn negated(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
    a.iter()
        .map(|row| row.iter().map(|v| -v).collect())
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// The relative residual of the conjugate-gradient solves behind [`Intervals::Exact`]. A
/// variance `bᵀ·y` is off by `rᵀ·I⁺·r` for a residual `r`: second order in it, far below the
/// intervals' rounding (the tests hold them to a thousandth of an Elo of the dense fit's).
const INTERVAL_RESIDUAL: f64 = 1e-7;

/// The ratings' standard deviations relative to the anchor by [`Intervals::Diagonal`]'s
/// approximation, from the curvature `I = D − A` at the optimum (`D` its diagonal, `A` the
/// weights between players who met): the covariance `I⁻¹ ≈ D⁻¹ + D⁻¹·A·D⁻¹ + D⁻¹·A·D⁻¹·A·D⁻¹`
/// (the first terms of its Neumann series), of which only the diagonal, `1/D_i` plus
/// `Σ_j A_ij²/(D_i²·D_j)`, and the anchored player's covariances `A_ik/(D_i·D_k)` are taken.
///
/// `anchored` lists the anchored players (empty: the mean is anchored). Several anchored
/// players, whose differences are fixed, are taken as one: merged into the first of them (its
/// diagonal the sum of theirs less twice the weights between them, its weight to each other
/// player the sum of theirs), which is then the one anchored player.
fn approximate_deviations(curvature: &Curvature, anchored: &[(usize, f64)], sd: &mut [f64]) {
    let n = sd.len();
    let nf = n as f64;
    let merged = anchored.first().map(|&(k, _)| k);
    let mut is_anchored = vec![false; n];
    for &(k, _) in anchored {
        is_anchored[k] = true;
    }
    let node = |i: usize| {
        if is_anchored[i] {
            merged.unwrap_or(i)
        } else {
            i
        }
    };
    let mut diag = curvature.diag[..n].to_vec();
    if let Some(k) = merged {
        diag[k] = anchored.iter().map(|&(a, _)| curvature.diag[a]).sum();
        for e in &curvature.edges {
            if e.black != e.white && is_anchored[e.black] && is_anchored[e.white] {
                diag[k] -= 2.0 * e.xx;
            }
        }
    }
    let inverse: Vec<f64> = diag.iter().map(|d| 1.0 / d).collect();
    // The weight between each pair of players who met, either colour (in a fixed order, so
    // that the sums are the same at every run).
    let mut edges: Vec<((usize, usize), f64)> = curvature
        .edges
        .iter()
        .map(|e| (node(e.black), node(e.white), e.xx))
        .filter(|&(b, w, _)| b != w)
        .map(|(b, w, xx)| ((b.min(w), b.max(w)), xx))
        .collect();
    edges.sort_unstable_by_key(|&(pair, _)| pair);
    let mut pairs: Vec<((usize, usize), f64)> = Vec::with_capacity(edges.len());
    for (pair, a) in edges {
        match pairs.last_mut() {
            Some((last, sum)) if *last == pair => *sum += a,
            _ => pairs.push((pair, a)),
        }
    }
    let mut variance = inverse.clone();
    for &((i, j), a) in &pairs {
        variance[i] += a * a * inverse[i] * inverse[i] * inverse[j];
        variance[j] += a * a * inverse[j] * inverse[j] * inverse[i];
    }
    match merged {
        Some(k) => {
            let mut with_k = vec![0.0; n];
            for &((i, j), a) in &pairs {
                if i == k {
                    with_k[j] = a * inverse[j] * inverse[k];
                } else if j == k {
                    with_k[i] = a * inverse[i] * inverse[k];
                }
            }
            for (i, s) in sd.iter_mut().enumerate() {
                if !is_anchored[i] {
                    *s = (variance[i] + variance[k] - 2.0 * with_k[i])
                        .max(0.0)
                        .sqrt();
                }
            }
        }
        None => {
            // Var(p_i − mean) = (1 − 2/n)·V_i + Σ_j V_j/n², the covariances left out.
            let spread = variance.iter().sum::<f64>() / (nf * nf);
            for (s, v) in sd.iter_mut().zip(&variance) {
                *s = ((1.0 - 2.0 / nf) * v + spread).max(0.0).sqrt();
            }
        }
    }
}

/// One pairing's share of the sparse curvature: its players, and its tally's `−∂²/∂x²`
/// (≥ 0) and `−∂²/∂x∂ln ν`, `x` the game's rating difference in natural units.
struct Edge {
    black: usize,
    white: usize,
    xx: f64,
    xd: f64,
}

/// Minus the Hessian of the log-posterior (the observed information `I`) at a point, kept
/// sparse: `I·v` costs one pass over the pairings and one over the players. `I` is positive
/// semi-definite, singular along the translation of every rating (which changes nothing).
struct Curvature {
    n: usize,
    colour: Option<usize>,
    draw: Option<usize>,
    edges: Vec<Edge>,
    /// The prior's curvature on each player's distance from the mean (≥ 0).
    prior: Vec<f64>,
    /// The colour advantage's own curvature from the prior.
    colour_prior: f64,
    /// `−∂²/∂(ln ν)²`, games and prior.
    draw_draw: f64,
    /// The diagonal of `I`.
    diag: Vec<f64>,
    /// The preconditioner: the diagonal's inverse, 0 on a coordinate that cannot move (the
    /// rating of a lone player, of an anchored player when the fit is grounded).
    inverse_diag: Vec<f64>,
    /// Whether each player's rating is fixed, when the fit is grounded (see
    /// [`Constraint::grounded`]); empty otherwise.
    fixed: Vec<bool>,
}

impl Curvature {
    /// `out = I·v`.
    fn apply(&self, v: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        let vc = self.colour.map_or(0.0, |c| v[c]);
        let vd = self.draw.map_or(0.0, |k| v[k]);
        let mut to_colour = 0.0;
        let mut to_draw = 0.0;
        for e in &self.edges {
            let moved = e.black != e.white;
            let cv = if moved { v[e.black] - v[e.white] } else { 0.0 } + vc;
            let s = e.xx * cv + e.xd * vd;
            if moved {
                out[e.black] += s;
                out[e.white] -= s;
            }
            to_colour += s;
            to_draw += e.xd * cv;
        }
        if let Some(c) = self.colour {
            out[c] += to_colour + self.colour_prior * v[c];
        }
        if let Some(k) = self.draw {
            out[k] += to_draw + self.draw_draw * v[k];
        }
        // The prior: Σ_i prior_i·(e_i − 1/n)(e_i − 1/n)ᵀ·v.
        let n = self.n;
        let nf = n as f64;
        let mean = v[..n].iter().sum::<f64>() / nf;
        let mut total = 0.0;
        for (o, (&vi, &w)) in out[..n].iter_mut().zip(v[..n].iter().zip(&self.prior)) {
            let u = w * (vi - mean);
            *o += u;
            total += u;
        }
        let shift = total / nf;
        for o in &mut out[..n] {
            *o -= shift;
        }
    }

    /// [`FitError::Singular`] when a coordinate that can move has no curvature.
    fn check(&self) -> Result<(), FitError> {
        let fixed =
            |i: usize| i < self.n && (self.n == 1 || self.fixed.get(i).copied().unwrap_or(false));
        let curved = |d: f64| d.is_finite() && d > 0.0;
        let flat = self
            .diag
            .iter()
            .enumerate()
            .any(|(i, &d)| !fixed(i) && !curved(d));
        if flat {
            Err(FitError::Singular)
        } else {
            Ok(())
        }
    }

    /// Solves `I·x = b` by conjugate gradients preconditioned by the diagonal, to a residual
    /// of `relative·|b|` (or as close as a few passes over the coordinates get). `b`'s
    /// ratings must sum to 0, as the gradient's do (the system is then consistent although
    /// `I` is singular); the residual's are kept so against rounding.
    fn solve(&self, b: &[f64], relative: f64) -> Result<Vec<f64>, FitError> {
        let dim = b.len();
        let n = self.n;
        let mut x = vec![0.0; dim];
        let goal = relative * norm(b);
        if goal == 0.0 {
            return Ok(x);
        }
        let precondition = |r: &[f64]| -> Vec<f64> {
            r.iter()
                .zip(&self.inverse_diag)
                .map(|(a, m)| a * m)
                .collect()
        };
        let mut r = b.to_vec();
        let mut d = precondition(&r);
        let mut rz = dot(&r, &d);
        let mut ad = vec![0.0; dim];
        for step in 0..2 * dim + 50 {
            self.apply(&d, &mut ad);
            let dad = dot(&d, &ad);
            if !(dad.is_finite() && dad > 0.0) {
                // No curvature along the first direction, the preconditioned right-hand side:
                // singular. Later, the direction is lost in rounding: as solved as can be.
                if step == 0 {
                    return Err(FitError::Singular);
                }
                break;
            }
            let alpha = rz / dad;
            for ((xi, ri), (di, adi)) in x.iter_mut().zip(r.iter_mut()).zip(d.iter().zip(&ad)) {
                *xi += alpha * di;
                *ri -= alpha * adi;
            }
            let mean = r[..n].iter().sum::<f64>() / n as f64;
            for ri in &mut r[..n] {
                *ri -= mean;
            }
            if norm(&r) <= goal {
                break;
            }
            let z = precondition(&r);
            let rz_next = dot(&r, &z);
            let beta = rz_next / rz;
            rz = rz_next;
            for (di, zi) in d.iter_mut().zip(&z) {
                *di = zi + beta * *di;
            }
        }
        Ok(x)
    }

    /// `out = I_FF·v`: [`Curvature::apply`] on the free coordinates (`v` is 0 on the fixed
    /// ratings, and so is `out`).
    fn apply_free(&self, v: &[f64], out: &mut [f64]) {
        self.apply(v, out);
        for (o, &fixed) in out.iter_mut().zip(&self.fixed) {
            if fixed {
                *o = 0.0;
            }
        }
    }

    /// Solves `I_FF·x_F = b_F` on the free coordinates `F` (`x` and `b` are 0 on the fixed
    /// ratings), as [`Curvature::solve`]. `I_FF` is positive definite when every group of
    /// players who met has an anchored player or the prior holds it, but badly conditioned
    /// along the common translation of the free ratings (which only their games with the
    /// anchored players pin): the preconditioner is the diagonal's inverse balanced by an
    /// exact solve along that direction `z` (the balancing Neumann-Neumann preconditioner with
    /// a one-vector coarse space: `M⁻¹ = (1 − Q·I)·D⁻¹·(1 − I·Q) + Q`, `Q = z·zᵀ/(zᵀ·I·z)`).
    fn solve_grounded(&self, b: &[f64], relative: f64) -> Result<Vec<f64>, FitError> {
        let dim = b.len();
        let mut x = vec![0.0; dim];
        let goal = relative * norm(b);
        if goal == 0.0 {
            return Ok(x);
        }
        let mut z = vec![0.0; dim];
        for (zi, &fixed) in z.iter_mut().zip(&self.fixed) {
            *zi = if fixed { 0.0 } else { 1.0 };
        }
        let mut iz = vec![0.0; dim];
        self.apply_free(&z, &mut iz);
        let ziz = dot(&z, &iz);
        let coarse = ziz.is_finite() && ziz > 0.0;
        let precondition = |r: &[f64]| -> Vec<f64> {
            let s = if coarse { dot(&z, r) / ziz } else { 0.0 };
            let mut y: Vec<f64> = r
                .iter()
                .zip(&iz)
                .zip(&self.inverse_diag)
                .map(|((ri, izi), m)| (ri - s * izi) * m)
                .collect();
            if coarse {
                let c = s - dot(&iz, &y) / ziz;
                for (yi, zi) in y.iter_mut().zip(&z) {
                    *yi += c * zi;
                }
            }
            y
        };
        let mut r = b.to_vec();
        let mut d = precondition(&r);
        let mut rz = dot(&r, &d);
        let mut ad = vec![0.0; dim];
        for step in 0..2 * dim + 50 {
            self.apply_free(&d, &mut ad);
            let dad = dot(&d, &ad);
            if !(dad.is_finite() && dad > 0.0) {
                if step == 0 {
                    return Err(FitError::Singular);
                }
                break;
            }
            let alpha = rz / dad;
            for ((xi, ri), (di, adi)) in x.iter_mut().zip(r.iter_mut()).zip(d.iter().zip(&ad)) {
                *xi += alpha * di;
                *ri -= alpha * adi;
            }
            if norm(&r) <= goal {
                break;
            }
            let z = precondition(&r);
            let rz_next = dot(&r, &z);
            let beta = rz_next / rz;
            rz = rz_next;
            for (di, zi) in d.iter_mut().zip(&z) {
                *di = zi + beta * *di;
            }
        }
        Ok(x)
    }
}

impl Model {
    /// The sparse fit behind [`fit_from`]: Newton steps solved by preconditioned conjugate
    /// gradients, from `start`.
    fn solve_sparse(
        &self,
        options: &FitOptions,
        start: Option<&Start>,
        intervals: Intervals,
    ) -> Result<Fit, FitError> {
        if self.prior == 0.0 && !self.determined() {
            return Err(FitError::Singular);
        }
        let grounded = self.constraint.grounded();
        let (p, iterations) = self.newton(options, self.start_from(start), |p| {
            let (mut g, curvature) = self.sparse_derivatives(p);
            curvature.check()?;
            if grounded {
                // Newton's step on the free coordinates: the fixed ratings never move.
                for (gi, &fixed) in g.iter_mut().zip(&curvature.fixed) {
                    if fixed {
                        *gi = 0.0;
                    }
                }
                let forcing = norm(&g).clamp(1e-12, 1e-3);
                let dp = curvature.solve_grounded(&g, forcing)?;
                let decrement = dot(&g, &dp);
                return Ok((dp, decrement));
            }
            // The ratings' gradient sums to 0 but for rounding, which would make the system
            // inconsistent along the translation: remove it.
            let mean = g[..self.n].iter().sum::<f64>() / self.n as f64;
            for gi in &mut g[..self.n] {
                *gi -= mean;
            }
            // Inexact Newton: a looser solve far from the optimum, tighter near it (a
            // forcing term proportional to |g| keeps the convergence quadratic).
            let forcing = norm(&g).clamp(1e-12, 1e-3);
            let mut dp = curvature.solve(&g, forcing)?;
            // Moving every rating together changes nothing: keep the anchor.
            self.anchor_step(&mut dp);
            let decrement = dot(&g, &dp);
            Ok((dp, decrement))
        })?;
        let (_, curvature) = self.sparse_derivatives(&p);
        curvature.check()?;
        let n = self.n;
        let nf = n as f64;
        let exact = match intervals {
            Intervals::Exact => true,
            Intervals::Diagonal => false,
            Intervals::ExactUpTo(most) => n <= most,
        };
        // Var(b·p) = bᵀ·I⁺·b for b orthogonal to the translation (see `anchor_step`); when
        // grounded, bᵀ·I_FF⁻¹·b for b on the free coordinates.
        let variance = |b: &[f64]| -> Result<f64, FitError> {
            let y = if grounded {
                curvature.solve_grounded(b, INTERVAL_RESIDUAL)?
            } else {
                curvature.solve(b, INTERVAL_RESIDUAL)?
            };
            Ok(dot(b, &y).max(0.0))
        };
        let anchors = self.constraint.anchors();
        let mut rating_sd = vec![0.0; n];
        if n > 1 && exact {
            let mut b = vec![0.0; self.dim];
            for (i, sd) in rating_sd.iter_mut().enumerate() {
                b.fill(0.0);
                match &self.constraint {
                    Constraint::Fixed { free, .. } if free[i].is_none() => continue,
                    Constraint::Fixed { .. } if grounded => {}
                    Constraint::Fixed { anchors, .. } => b[anchors[0].0] = -1.0,
                    Constraint::Mean(_) => b[..n].fill(-1.0 / nf),
                }
                b[i] += 1.0;
                *sd = variance(&b)?.sqrt();
            }
        } else if n > 1 {
            approximate_deviations(&curvature, anchors, &mut rating_sd);
        }
        let colour_sd = match self.colour {
            Some(c) => {
                let mut b = vec![0.0; self.dim];
                b[c] = 1.0;
                variance(&b)?.sqrt()
            }
            None => 0.0,
        };
        Ok(self.report(&p, &rating_sd, colour_sd, iterations))
    }

    /// The gradient and the sparse curvature (minus the Hessian) of the log-posterior at `p`.
    fn sparse_derivatives(&self, p: &[f64]) -> (Vec<f64>, Curvature) {
        let n = self.n;
        let nf = n as f64;
        let mut g = vec![0.0; self.dim];
        let mut diag = vec![0.0; self.dim];
        let mut edges = Vec::with_capacity(self.tallies.len());
        let mut draw_draw = 0.0;
        let a = self.colour_of(p);
        let log_nu = self.log_nu_of(p);
        for &((b, wh), t) in &self.tallies {
            let TallyTerms {
                gx,
                gt,
                hxx,
                hxt,
                htt,
            } = TallyTerms::new(&t, p[b] - p[wh] + a, log_nu);
            if b != wh {
                g[b] += gx;
                g[wh] -= gx;
                diag[b] -= hxx;
                diag[wh] -= hxx;
            }
            if let Some(c) = self.colour {
                g[c] += gx;
                diag[c] -= hxx;
            }
            if let Some(k) = self.draw {
                g[k] += gt;
                draw_draw -= htt;
            }
            edges.push(Edge {
                black: b,
                white: wh,
                xx: -hxx,
                xd: -hxt,
            });
        }
        let w = self.prior;
        let mut prior = vec![0.0; n];
        let mut colour_prior = 0.0;
        if w > 0.0 {
            let mean = self.mean_rating(p);
            let mut gsum = 0.0;
            for (i, curv) in prior.iter_mut().enumerate() {
                let th = (0.5 * (p[i] - mean)).tanh();
                g[i] -= w * 0.5 * th;
                gsum -= w * 0.5 * th;
                *curv = w * 0.25 * (1.0 - th * th);
            }
            let psum: f64 = prior.iter().sum();
            for (i, &curv) in prior.iter().enumerate() {
                g[i] -= gsum / nf;
                let own = 1.0 - 1.0 / nf;
                diag[i] += curv * own * own + (psum - curv) / (nf * nf);
            }
            if let Some(c) = self.colour {
                let th = (0.5 * p[c]).tanh();
                g[c] -= w * 0.5 * th;
                colour_prior = w * 0.25 * (1.0 - th * th);
            }
            if let Some(k) = self.draw {
                let q = 1.0 / (1.0 + 2.0 * (-p[k]).exp());
                g[k] += w * (1.0 - 2.0 * q);
                draw_draw += w * 2.0 * q * (1.0 - q);
            }
        }
        if let Some(c) = self.colour {
            diag[c] += colour_prior;
        }
        if let Some(k) = self.draw {
            diag[k] = draw_draw;
        }
        let mut fixed = Vec::new();
        if self.constraint.grounded() {
            fixed = vec![false; n];
            for &(k, _) in self.constraint.anchors() {
                fixed[k] = true;
            }
        }
        let inverse_diag = diag
            .iter()
            .enumerate()
            .map(|(i, &d)| {
                let moves = !(i < n && (n == 1 || fixed.get(i).copied().unwrap_or(false)));
                if !(moves && d.is_finite() && d > 0.0) {
                    0.0
                } else {
                    1.0 / d
                }
            })
            .collect();
        let curvature = Curvature {
            n,
            colour: self.colour,
            draw: self.draw,
            edges,
            prior,
            colour_prior,
            draw_draw,
            diag,
            inverse_diag,
            fixed,
        };
        (g, curvature)
    }

    /// The starting point of [`fit_from`]: [`Model::start`], or `start`'s estimates moved to
    /// the anchor.
    fn start_from(&self, start: Option<&Start>) -> Vec<f64> {
        let mut p = self.start();
        let Some(start) = start else {
            return p;
        };
        let known: Vec<Option<f64>> = (0..self.n)
            .map(|i| {
                start
                    .ratings
                    .get(i)
                    .copied()
                    .flatten()
                    .filter(|r| r.is_finite())
                    .map(|r| r * ELO_TO_NATURAL)
            })
            .collect();
        let count = known.iter().flatten().count();
        if count > 0 {
            let mean = known.iter().flatten().sum::<f64>() / count as f64;
            for (pi, k) in p.iter_mut().zip(&known) {
                *pi = k.unwrap_or(mean);
            }
            let shift = match &self.constraint {
                Constraint::Fixed { anchors, .. } => {
                    anchors.iter().map(|&(k, r)| r - p[k]).sum::<f64>() / anchors.len() as f64
                }
                Constraint::Mean(m) => m - self.mean_rating(&p),
            };
            for pi in &mut p[..self.n] {
                *pi += shift;
            }
            for &(k, r) in self.constraint.anchors() {
                p[k] = r;
            }
        }
        if let (Some(c), Some(a)) = (self.colour, start.colour_advantage) {
            if a.is_finite() {
                p[c] = a * ELO_TO_NATURAL;
            }
        }
        if let (Some(k), Some(nu)) = (self.draw, start.draw_parameter) {
            if nu.is_finite() && nu > 0.0 {
                p[k] = nu.ln();
            }
        }
        p
    }

    /// Moves `d` along the translation of every rating (which changes nothing) so that, as a
    /// step, it keeps the anchor: the anchored player's rating, or the ratings' mean, unmoved.
    /// Not for a grounded fit (two anchored players or more), whose steps are already 0 on
    /// the anchored ratings.
    fn anchor_step(&self, d: &mut [f64]) {
        let n = self.n;
        let anchored = self.constraint.anchors().first().map(|&(k, _)| k);
        let shift = match anchored {
            Some(k) => d[k],
            None => d[..n].iter().sum::<f64>() / n as f64,
        };
        for v in &mut d[..n] {
            *v -= shift;
        }
        if let Some(k) = anchored {
            d[k] = 0.0;
        }
    }

    /// Whether the games and the anchor determine every rating without the prior: with the
    /// mean anchored, the games connect every player (directly or through others); with
    /// anchored players, every group of players connected by the games has one.
    fn determined(&self) -> bool {
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let mut parent: Vec<usize> = (0..self.n).collect();
        let mut groups = self.n;
        for &((b, w), _) in &self.tallies {
            let (rb, rw) = (root(&mut parent, b), root(&mut parent, w));
            if rb != rw {
                parent[rb] = rw;
                groups -= 1;
            }
        }
        match &self.constraint {
            Constraint::Mean(_) => groups <= 1,
            Constraint::Fixed { anchors, .. } => {
                let mut held = vec![false; self.n];
                for &(k, _) in anchors {
                    let r = root(&mut parent, k);
                    held[r] = true;
                }
                (0..self.n).all(|i| {
                    let r = root(&mut parent, i);
                    held[r]
                })
            }
        }
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
        assert_eq!(
            fit(2, &[], &bad_anchor),
            Err(FitError::AnchorOutOfRange { player: 5 })
        );
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

    // ----- The sparse fit (`fit_from`) against the dense one (`fit`). -----

    /// The stated agreement of [`fit_from`] with [`fit`]: ratings, their exact intervals and
    /// the colour advantage within this many Elo, the draw parameter within this fraction.
    const SAME_OPTIMUM_ELO: f64 = 1e-3;

    fn assert_same_fit(sparse: &Fit, dense: &Fit, with_intervals: bool) {
        assert_eq!(sparse.ratings.len(), dense.ratings.len());
        for (i, (a, b)) in sparse.ratings.iter().zip(&dense.ratings).enumerate() {
            assert!((a - b).abs() <= SAME_OPTIMUM_ELO, "rating {i}: {a} vs {b}");
        }
        close(
            sparse.colour_advantage,
            dense.colour_advantage,
            SAME_OPTIMUM_ELO,
        );
        close(
            sparse.draw_parameter,
            dense.draw_parameter,
            SAME_OPTIMUM_ELO * 1e-3 * dense.draw_parameter.max(1.0),
        );
        if with_intervals {
            for (i, (a, b)) in sparse.intervals.iter().zip(&dense.intervals).enumerate() {
                assert!(
                    (a.0 - b.0).abs() <= SAME_OPTIMUM_ELO && (a.1 - b.1).abs() <= SAME_OPTIMUM_ELO,
                    "interval {i}: {a:?} vs {b:?}"
                );
            }
            let (a, b) = (
                sparse.colour_advantage_interval,
                dense.colour_advantage_interval,
            );
            close(a.0, b.0, SAME_OPTIMUM_ELO);
            close(a.1, b.1, SAME_OPTIMUM_ELO);
        }
    }

    fn both(players: usize, g: &[RatedGame], opts: &FitOptions) -> (Fit, Fit) {
        let dense = fit(players, g, opts).unwrap();
        let sparse = fit_from(players, g, opts, None, Intervals::Exact).unwrap();
        (sparse, dense)
    }

    /// A small deterministic generator (xorshift64*), for tournaments too large for proptest
    /// to shrink usefully.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// `games` games between random pairs of `players` players of random strength (spread
    /// `spread` Elo), Black favoured by 40 Elo, draws about one game in ten between equals.
    fn tournament(players: usize, games: usize, spread: f64, seed: u64) -> Vec<RatedGame> {
        let mut rng = Rng(seed | 1);
        let strength: Vec<f64> = (0..players).map(|_| spread * (rng.unit() - 0.5)).collect();
        (0..games)
            .map(|_| {
                let black = rng.below(players);
                let mut white = rng.below(players - 1);
                if white >= black {
                    white += 1;
                }
                let x = (strength[black] + 40.0 - strength[white]) * ELO_TO_NATURAL;
                let d = Davidson::new(x, Some(0.2f64.ln()));
                let u = rng.unit();
                let result = if u < d.black {
                    B
                } else if u < d.black + d.white {
                    W
                } else {
                    D
                };
                RatedGame {
                    black,
                    white,
                    result,
                }
            })
            .collect()
    }

    // The sparse curvature is minus the dense Hessian, and the sparse gradient the dense one.
    #[test]
    fn sparse_derivatives_match_the_dense_ones() {
        let mut g = matchup(0, 1, 3, 1);
        g.extend(games(1, 2, D, 2));
        g.extend(games(2, 2, B, 1));
        g.extend(games(3, 1, W, 2));
        let model = Model::new(5, &g, &FitOptions::default());
        let p = [0.3, -0.2, 0.1, 0.5, -0.7, 0.2, -0.4];
        let (grad, hess) = model.derivatives(&p);
        let (sgrad, curvature) = model.sparse_derivatives(&p);
        for i in 0..model.dim {
            close(sgrad[i], grad[i], 1e-12);
            close(curvature.diag[i], -hess[i][i], 1e-12);
            let mut e = vec![0.0; model.dim];
            e[i] = 1.0;
            let mut column = vec![0.0; model.dim];
            curvature.apply(&e, &mut column);
            for j in 0..model.dim {
                close(column[j], -hess[j][i], 1e-12);
            }
        }
    }

    // The tests of the dense fit's special cases, through the sparse fit.
    #[test]
    fn sparse_fit_matches_on_special_cases() {
        // Draws, both colours, three players in a cycle with a draw-heavy pair.
        let mut g = matchup(0, 1, 6, 4);
        g.extend(matchup(1, 2, 5, 3));
        g.extend(matchup(2, 0, 2, 4));
        g.extend(games(0, 2, D, 3));
        g.extend(games(1, 0, D, 1));
        for anchor in [Anchor::Mean(1500.0), Anchor::Player(2, -100.0)] {
            for colour in [None, Some(35.0)] {
                let opts = FitOptions {
                    anchor: anchor.clone(),
                    colour_advantage: colour,
                    ..FitOptions::default()
                };
                let (s, d) = both(3, &g, &opts);
                assert_same_fit(&s, &d, true);
                // And without the prior (a connected pool).
                let opts = FitOptions {
                    prior_draws: 0.0,
                    ..opts
                };
                let (s, d) = both(3, &g, &opts);
                assert_same_fit(&s, &d, true);
            }
        }
        // Two groups that never met and a player without games: the prior alone connects them.
        let mut g = matchup(0, 1, 3, 1);
        g.extend(matchup(2, 3, 1, 3));
        g.extend(games(2, 3, D, 2));
        let (s, d) = both(5, &g, &FitOptions::default());
        assert_same_fit(&s, &d, true);
        assert!(s.ratings[0] > s.ratings[1] && s.ratings[3] > s.ratings[2]);
        // Without the prior the ratings are not determined, and both say so.
        let pure = mle(Anchor::Mean(0.0), Some(0.0));
        assert_eq!(
            fit_from(4, &g, &pure, None, Intervals::Exact),
            Err(FitError::Singular)
        );
        assert_eq!(fit(4, &g, &pure), Err(FitError::Singular));
        // Perfect scores, finite only by the prior.
        let mut g = matchup(0, 1, 10, 0);
        g.extend(matchup(1, 2, 10, 0));
        let (s, d) = both(3, &g, &FitOptions::default());
        assert_same_fit(&s, &d, true);
        assert!(s.ratings[0] > s.ratings[1] + 100.0);
        assert!(fit_from(3, &g, &pure, None, Intervals::Exact).is_err());
        // All draws.
        let (s, d) = both(2, &games(0, 1, D, 10), &FitOptions::default());
        assert_same_fit(&s, &d, true);
        // One player, and none.
        let (s, d) = both(1, &games(0, 0, B, 3), &FitOptions::default());
        assert_same_fit(&s, &d, true);
        assert_eq!(s.intervals[0], (0.0, 0.0));
        let empty = fit_from(0, &[], &FitOptions::default(), None, Intervals::Exact).unwrap();
        assert!(empty.ratings.is_empty());
        assert_eq!(
            fit_from(
                2,
                &games(0, 2, B, 1),
                &FitOptions::default(),
                None,
                Intervals::Exact
            ),
            Err(FitError::PlayerOutOfRange { game: 0 })
        );
    }

    // A warm start changes nothing but the steps: the same optimum from a previous fit, from
    // a poor guess, and from a start that knows only some players.
    #[test]
    fn warm_starts_reach_the_same_optimum() {
        let g = tournament(40, 400, 600.0, 7);
        let opts = FitOptions::default();
        let cold = fit_from(40, &g, &opts, None, Intervals::Exact).unwrap();
        let dense = fit(40, &g, &opts).unwrap();
        assert_same_fit(&cold, &dense, true);
        let again = fit_from(40, &g, &opts, Some(&Start::from(&cold)), Intervals::Exact).unwrap();
        assert_same_fit(&again, &dense, true);
        assert!(again.iterations <= 2, "{} steps", again.iterations);
        let wild = Start {
            ratings: (0..40)
                .map(|i| Some(if i % 2 == 0 { 3000.0 } else { -3000.0 }))
                .collect(),
            colour_advantage: Some(-500.0),
            draw_parameter: Some(50.0),
        };
        let from_wild = fit_from(40, &g, &opts, Some(&wild), Intervals::Exact).unwrap();
        assert_same_fit(&from_wild, &dense, true);
        let partial = Start {
            ratings: cold.ratings[..25]
                .iter()
                .map(|&r| Some(r + 1000.0))
                .collect(),
            colour_advantage: None,
            draw_parameter: Some(f64::NAN),
        };
        let from_partial = fit_from(40, &g, &opts, Some(&partial), Intervals::Exact).unwrap();
        assert_same_fit(&from_partial, &dense, true);
    }

    // An incremental sequence, as the server runs it: fit, a few more games (some by new
    // players), a refit warm-started from the last fit; each equals a fit from scratch.
    #[test]
    fn incremental_refits_equal_fits_from_scratch() {
        let all = tournament(60, 900, 800.0, 11);
        let opts = FitOptions {
            anchor: Anchor::Mean(1500.0),
            ..FitOptions::default()
        };
        let mut last: Option<Fit> = None;
        for end in [300, 301, 350, 600, 601, 602, 900] {
            let g = &all[..end];
            let players = g.iter().map(|x| x.black.max(x.white) + 1).max().unwrap();
            let start = last.as_ref().map(Start::from);
            let warm = fit_from(players, g, &opts, start.as_ref(), Intervals::Exact).unwrap();
            let scratch = fit_from(players, g, &opts, None, Intervals::Exact).unwrap();
            assert_same_fit(&warm, &scratch, true);
            assert_same_fit(&warm, &fit(players, g, &opts).unwrap(), true);
            // Measured: 4 steps warm against 7 from scratch after one more game; about as
            // many after fifty more (some by players the start does not know).
            if last.is_some() {
                assert!(warm.iterations <= scratch.iterations);
            }
            if [301, 601, 602].contains(&end) {
                assert!(
                    warm.iterations < scratch.iterations,
                    "{end} games: {} steps warm, {} from scratch",
                    warm.iterations,
                    scratch.iterations
                );
            }
            last = Some(warm);
        }
    }

    /// The worst relative difference of `approximate`'s interval widths from `exact`'s, and
    /// the mean one (over the players whose exact interval is not empty).
    fn width_errors(approximate: &Fit, exact: &Fit) -> (f64, f64) {
        let width = |(a, b): (f64, f64)| b - a;
        let errors: Vec<f64> = approximate
            .intervals
            .iter()
            .zip(&exact.intervals)
            .filter(|(_, &b)| width(b) > 0.0)
            .map(|(&a, &b)| (width(a) / width(b) - 1.0).abs())
            .collect();
        let worst = errors.iter().copied().fold(0.0, f64::max);
        (worst, errors.iter().sum::<f64>() / errors.len() as f64)
    }

    // The diagonal approximation of the intervals against the dense fit's exact ones.
    // Measured: 150 players with about 27 games each, random pairings: within 0.94% (mean
    // 0.39%) with the mean anchored, 0.69% with a player anchored; 250 players with 12 games
    // each, strengths 3,000 Elo apart: within 4.6% (mean 1.2%) with the default prior, 21%
    // and 20% (means 5%) with a prior of 0.3. The ratings do not depend on the choice.
    #[test]
    fn diagonal_intervals_against_the_dense_fit() {
        let g = tournament(150, 2000, 800.0, 5);
        let opts = FitOptions::default();
        let dense = fit(150, &g, &opts).unwrap();
        let diagonal = fit_from(150, &g, &opts, None, Intervals::Diagonal).unwrap();
        assert_same_fit(&diagonal, &dense, false);
        let (worst, mean) = width_errors(&diagonal, &dense);
        eprintln!("diagonal intervals: worst width off by {worst:.4}, mean {mean:.4}");
        assert!(worst < 0.02, "worst {worst}");
        // The colour advantage's interval is exact either way.
        close(
            diagonal.colour_advantage_interval.0,
            dense.colour_advantage_interval.0,
            SAME_OPTIMUM_ELO,
        );
        // With a player anchored, too.
        let anchored = FitOptions {
            anchor: Anchor::Player(3, 1000.0),
            ..opts
        };
        let dense = fit(150, &g, &anchored).unwrap();
        let diagonal = fit_from(150, &g, &anchored, None, Intervals::Diagonal).unwrap();
        assert_same_fit(&diagonal, &dense, false);
        assert_eq!(diagonal.intervals[3], (1000.0, 1000.0));
        let (worst, _) = width_errors(&diagonal, &dense);
        eprintln!("diagonal intervals, a player anchored: worst off by {worst:.4}");
        assert!(worst < 0.02, "worst {worst}");
        // `ExactUpTo` is exact up to its limit, the diagonal approximation above.
        let up_to = |most| fit_from(150, &g, &anchored, None, Intervals::ExactUpTo(most)).unwrap();
        assert_eq!(up_to(149).intervals, diagonal.intervals);
        assert_same_fit(&up_to(150), &dense, true);
        // Few games each, lopsided ones: the approximation is rougher.
        let g = tournament(250, 1500, 3000.0, 1);
        for (anchor, prior, bound) in [
            (Anchor::Mean(0.0), 1.0, 0.06),
            (Anchor::Mean(0.0), 0.3, 0.25),
            (Anchor::Player(0, 0.0), 0.3, 0.25),
        ] {
            let opts = FitOptions {
                anchor: anchor.clone(),
                prior_draws: prior,
                ..FitOptions::default()
            };
            let dense = fit(250, &g, &opts).unwrap();
            let diagonal = fit_from(250, &g, &opts, None, Intervals::Diagonal).unwrap();
            assert_same_fit(&diagonal, &dense, false);
            let (worst, mean) = width_errors(&diagonal, &dense);
            eprintln!(
                "few lopsided games, {anchor:?}, prior {prior}: worst off by {worst:.4}, mean {mean:.4}"
            );
            assert!(worst < bound, "worst {worst}");
        }
    }

    // A pool whose games hardly mix it (each player meets only its neighbours in strength, as
    // a ladder pairs them): a badly conditioned Laplacian, still the same optimum.
    #[test]
    fn a_ladder_pool_converges_to_the_same_optimum() {
        let mut rng = Rng(3);
        let mut g = Vec::new();
        for _ in 0..1200 {
            let black = rng.below(119);
            let white = black + 1 + rng.below(2).min(118 - black);
            let result = [B, W, W, D][rng.below(4)];
            g.push(RatedGame {
                black,
                white,
                result,
            });
        }
        let (s, d) = both(120, &g, &FitOptions::default());
        assert_same_fit(&s, &d, true);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        // The sparse fit equals the dense one on random tournaments: draws, colours, players
        // without games or in groups that never met (held together by the prior), perfect
        // scores, either anchor, fitted or fixed colour advantage, any prior weight.
        #[test]
        fn sparse_fit_equals_dense_fit(
            players in 1usize..9,
            seed_games in proptest::collection::vec(arb_game(9), 0..60),
            anchor_player in proptest::bool::ANY,
            fixed_colour in proptest::option::of(-100.0f64..100.0),
            prior in 0.2f64..3.0,
            split in 0usize..60,
        ) {
            let g: Vec<RatedGame> = seed_games
                .into_iter()
                .filter(|g| g.black < players && g.white < players)
                .collect();
            let anchor = if anchor_player {
                Anchor::Player(players - 1, 1200.0)
            } else {
                Anchor::Mean(1500.0)
            };
            let opts = FitOptions {
                anchor,
                prior_draws: prior,
                colour_advantage: fixed_colour,
                ..FitOptions::default()
            };
            let dense = fit(players, &g, &opts).unwrap();
            let sparse = fit_from(players, &g, &opts, None, Intervals::Exact).unwrap();
            assert_same_fit(&sparse, &dense, true);
            // Warm-started from a fit of the games before `split`.
            let split = split.min(g.len());
            let before = fit_from(players, &g[..split], &opts, None, Intervals::Exact).unwrap();
            let warm =
                fit_from(players, &g, &opts, Some(&Start::from(&before)), Intervals::Exact)
                    .unwrap();
            assert_same_fit(&warm, &dense, true);
        }
    }

    // ----- Several anchored players (`Anchor::Players`). -----

    /// Dense, sparse with exact intervals and sparse with the diagonal approximation.
    fn all_three(players: usize, g: &[RatedGame], opts: &FitOptions) -> [Fit; 3] {
        [
            fit(players, g, opts).unwrap(),
            fit_from(players, g, opts, None, Intervals::Exact).unwrap(),
            fit_from(players, g, opts, None, Intervals::Diagonal).unwrap(),
        ]
    }

    fn anchored(anchors: &[(usize, f64)]) -> FitOptions {
        FitOptions {
            anchor: Anchor::Players(anchors.to_vec()),
            ..FitOptions::default()
        }
    }

    // Every anchored player keeps its exact value, interval of width 0, in both solvers; the
    // others get finite intervals around their estimates.
    #[test]
    fn anchored_players_keep_their_values() {
        let g = tournament(40, 400, 600.0, 13);
        let anchors = [(20, 950.5), (3, 1800.0), (10, 0.0)];
        for f in all_three(40, &g, &anchored(&anchors)) {
            for &(k, r) in &anchors {
                assert_eq!(f.ratings[k], r);
                assert_eq!(f.intervals[k], (r, r));
            }
            for (i, (&r, &(lo, hi))) in f.ratings.iter().zip(&f.intervals).enumerate() {
                if ![3, 10, 20].contains(&i) {
                    assert!(lo < r && r < hi, "player {i}: {r} in ({lo}, {hi})");
                }
            }
        }
        let [dense, sparse, _] = all_three(40, &g, &anchored(&anchors));
        assert_same_fit(&sparse, &dense, true);
    }

    // The anchors are constraints, not a translation: anchors at values the games disagree with
    // change the other players' differences, and anchors at the values the fit with one of them
    // gives (where the constraint costs nothing) change nothing.
    #[test]
    fn anchors_constrain_rather_than_translate() {
        let g = tournament(30, 500, 800.0, 17);
        let one = fit(30, &g, &anchored(&[(0, 1000.0)])).unwrap();
        // Consistent: the others at their values in `one`.
        let consistent = [(0, 1000.0), (7, one.ratings[7]), (15, one.ratings[15])];
        for f in all_three(30, &g, &anchored(&consistent)) {
            for i in 0..30 {
                close(f.ratings[i], one.ratings[i], 1e-4);
            }
            close(f.colour_advantage, one.colour_advantage, 1e-4);
        }
        // Inconsistent: player 7 500 Elo above its fitted place.
        let pulled = [(0, 1000.0), (7, one.ratings[7] + 500.0)];
        let [dense, sparse, _] = all_three(30, &g, &anchored(&pulled));
        assert_same_fit(&sparse, &dense, true);
        let moved = |i: usize| dense.ratings[i] - one.ratings[i];
        // Player 7's opponents are pulled up with it, the others less: not a common shift.
        let opponents: Vec<usize> = g
            .iter()
            .filter_map(|x| match (x.black, x.white) {
                (7, o) | (o, 7) if o != 7 && o != 0 => Some(o),
                _ => None,
            })
            .collect();
        assert!(!opponents.is_empty());
        let spread = (1..30)
            .filter(|&i| i != 7)
            .map(moved)
            .fold((f64::MAX, f64::MIN), |(lo, hi), m| (lo.min(m), hi.max(m)));
        assert!(spread.1 - spread.0 > 10.0, "moves {spread:?}");
        assert!(opponents
            .iter()
            .all(|&o| moved(o) > 0.0 && moved(o) < 500.0));
    }

    /// The log-likelihood of a player rated `a` (Elo) who won `wins` and lost `losses` games
    /// against each opponent `(rating, wins, losses)`, without colour advantage.
    fn log_likelihood(a: f64, opponents: &[(f64, usize, usize)]) -> f64 {
        opponents
            .iter()
            .map(|&(r, wins, losses)| {
                let x = (a - r) * ELO_TO_NATURAL;
                // ln σ(x) = −ln(1 + e^{−x}).
                let log_sigma = |x: f64| -(-x).exp().ln_1p();
                wins as f64 * log_sigma(x) + losses as f64 * log_sigma(-x)
            })
            .sum()
    }

    /// The maximum of a unimodal `f` on `[lo, hi]`, by golden-section search.
    fn golden_max(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
        let phi = (5f64.sqrt() - 1.0) / 2.0;
        let mut a = hi - phi * (hi - lo);
        let mut b = lo + phi * (hi - lo);
        let (mut fa, mut fb) = (f(a), f(b));
        while hi - lo > 1e-7 {
            if fa < fb {
                lo = a;
                a = b;
                fa = fb;
                b = lo + phi * (hi - lo);
                fb = f(b);
            } else {
                hi = b;
                b = a;
                fb = fa;
                a = hi - phi * (hi - lo);
                fa = f(a);
            }
        }
        0.5 * (lo + hi)
    }

    // Two anchors, 0 and 400, and a player who beats the first 7 games of 10 and loses to the
    // second 6 of 10: its rating is the maximum of its likelihood, a function of its rating
    // alone, found here by a golden-section search; with the prior, of the log-posterior,
    // whose virtual draws are against the mean of the three ratings.
    #[test]
    fn a_player_between_two_anchors() {
        let mut g = matchup(2, 0, 7, 3);
        g.extend(matchup(2, 1, 4, 6));
        let anchors = [(0, 0.0), (1, 400.0)];
        let opponents = [(0.0, 7, 3), (400.0, 4, 6)];
        let pure = mle(Anchor::Players(anchors.to_vec()), Some(0.0));
        let expected = golden_max(|a| log_likelihood(a, &opponents), -2000.0, 2000.0);
        assert!(0.0 < expected && expected < 400.0, "{expected}");
        // Not the midpoint, nor either pairwise estimate.
        assert!((expected - 200.0).abs() > 10.0, "{expected}");
        for f in all_three(3, &g, &pure) {
            close(f.ratings[2], expected, 1e-4);
            assert_eq!((f.ratings[0], f.ratings[1]), (0.0, 400.0));
        }
        // With the prior (w = 1): −w·Σ ln 2cosh(z_i/2) over the three players, z_i the distance
        // from their mean in natural units.
        let prior = FitOptions {
            prior_draws: 1.0,
            ..pure.clone()
        };
        let posterior = |a: f64| {
            let mean = (a + 400.0) / 3.0;
            log_likelihood(a, &opponents)
                - [0.0, 400.0, a]
                    .iter()
                    .map(|&r| log_two_cosh_half((r - mean) * ELO_TO_NATURAL))
                    .sum::<f64>()
        };
        let expected_prior = golden_max(posterior, -2000.0, 2000.0);
        assert!((expected_prior - expected).abs() > 0.1);
        for f in all_three(3, &g, &prior) {
            close(f.ratings[2], expected_prior, 1e-4);
        }
        // The interval: the information of the one free rating is Σ N·p·(1−p) over its two
        // opponents (no prior), so the half-width is 1.96/√I in natural units.
        let info: f64 = opponents
            .iter()
            .map(|&(r, w, l)| {
                let p = 1.0 / (1.0 + (-(expected - r) * ELO_TO_NATURAL).exp());
                (w + l) as f64 * p * (1.0 - p)
            })
            .sum();
        let half = Z95 / info.sqrt() / ELO_TO_NATURAL;
        // (Not the diagonal approximation, √2 too wide here: it sees the anchors' uncertainty
        // as well as the player's.)
        let [dense, sparse, _] = all_three(3, &g, &pure);
        for f in [dense, sparse] {
            let (lo, hi) = f.intervals[2];
            close(hi - lo, 2.0 * half, 1e-3);
        }
    }

    // `Players` with one player is `Player`, to the last bit, in both solvers.
    #[test]
    fn one_anchored_player_is_anchor_player() {
        let g = tournament(50, 600, 700.0, 19);
        let single = FitOptions {
            anchor: Anchor::Player(9, 1234.5),
            ..FitOptions::default()
        };
        let list = anchored(&[(9, 1234.5)]);
        assert_eq!(fit(50, &g, &list), fit(50, &g, &single));
        for intervals in [Intervals::Exact, Intervals::Diagonal] {
            let a = fit_from(50, &g, &list, None, intervals).unwrap();
            assert_eq!(a, fit_from(50, &g, &single, None, intervals).unwrap());
            let start = Start::from(&a);
            assert_eq!(
                fit_from(50, &g, &list, Some(&start), intervals),
                fit_from(50, &g, &single, Some(&start), intervals)
            );
        }
    }

    // Warm starts with anchored players: from a previous fit (a step or two), from a fit of
    // fewer games, from a wild start; each the fit from scratch.
    #[test]
    fn warm_starts_with_anchored_players() {
        let all = tournament(60, 900, 800.0, 23);
        let opts = anchored(&[(5, 1800.0), (40, 0.0), (59, 900.0)]);
        let dense = fit(60, &all, &opts).unwrap();
        let cold = fit_from(60, &all, &opts, None, Intervals::Exact).unwrap();
        assert_same_fit(&cold, &dense, true);
        let again = fit_from(60, &all, &opts, Some(&Start::from(&cold)), Intervals::Exact).unwrap();
        assert_same_fit(&again, &dense, true);
        assert!(again.iterations <= 2, "{} steps", again.iterations);
        let before = fit_from(60, &all[..850], &opts, None, Intervals::Exact).unwrap();
        let warm = fit_from(
            60,
            &all,
            &opts,
            Some(&Start::from(&before)),
            Intervals::Exact,
        )
        .unwrap();
        assert_same_fit(&warm, &dense, true);
        assert!(
            warm.iterations < cold.iterations,
            "{} vs {}",
            warm.iterations,
            cold.iterations
        );
        let wild = Start {
            ratings: (0..60)
                .map(|i| Some(if i % 2 == 0 { 3000.0 } else { -3000.0 }))
                .collect(),
            colour_advantage: Some(-500.0),
            draw_parameter: Some(50.0),
        };
        let from_wild = fit_from(60, &all, &opts, Some(&wild), Intervals::Exact).unwrap();
        assert_same_fit(&from_wild, &dense, true);
        for &(k, r) in &[(5, 1800.0), (40, 0.0), (59, 900.0)] {
            assert_eq!(from_wild.ratings[k], r);
            assert_eq!(warm.ratings[k], r);
        }
    }

    // Without the prior: groups of players who never met are determined when each has an
    // anchored player, and not otherwise (both solvers say so).
    #[test]
    fn anchored_groups_without_the_prior() {
        let mut g = matchup(0, 1, 6, 2);
        g.extend(matchup(1, 2, 3, 5));
        g.extend(matchup(3, 4, 4, 4));
        g.extend(games(4, 3, D, 2));
        let opts = mle(Anchor::Players(vec![(0, 100.0), (4, 2000.0)]), Some(0.0));
        let [dense, sparse, diagonal] = all_three(5, &g, &opts);
        assert_same_fit(&sparse, &dense, true);
        assert_same_fit(&diagonal, &dense, false);
        // Each group is fitted alone: 3 and 4 drew or split evenly, so 3 is at 4's value.
        close(dense.ratings[3], 2000.0, 1e-6);
        // A group without an anchored player has no determined rating.
        let loose = mle(Anchor::Players(vec![(0, 100.0), (1, 300.0)]), None);
        assert_eq!(fit(5, &g, &loose), Err(FitError::Singular));
        assert_eq!(
            fit_from(5, &g, &loose, None, Intervals::Exact),
            Err(FitError::Singular)
        );
        // With the prior it is held near the mean of all, as with any anchor.
        let held = FitOptions {
            prior_draws: 1.0,
            ..loose
        };
        let [dense, sparse, _] = all_three(5, &g, &held);
        assert_same_fit(&sparse, &dense, true);
        // Every player anchored: only the colour advantage and the draw parameter are fitted.
        let everyone: Vec<(usize, f64)> = (0..5).map(|i| (i, 100.0 * i as f64)).collect();
        let [dense, sparse, _] = all_three(5, &g, &anchored(&everyone));
        assert_same_fit(&sparse, &dense, true);
        assert!(dense.draw_parameter > 0.0 && dense.colour_advantage.is_finite());
        for i in 0..5 {
            assert_eq!(dense.ratings[i], 100.0 * i as f64);
        }
    }

    #[test]
    fn anchored_players_are_validated() {
        let g = matchup(0, 1, 3, 1);
        let check = |anchor: Anchor| {
            let opts = FitOptions {
                anchor,
                ..FitOptions::default()
            };
            let dense = fit(3, &g, &opts);
            let sparse = fit_from(3, &g, &opts, None, Intervals::Exact);
            assert_eq!(dense.clone().map(|_| ()), sparse.map(|_| ()));
            dense.err()
        };
        assert_eq!(
            check(Anchor::Players(vec![(0, 0.0), (3, 100.0)])),
            Some(FitError::AnchorOutOfRange { player: 3 })
        );
        assert_eq!(
            check(Anchor::Player(7, 0.0)),
            Some(FitError::AnchorOutOfRange { player: 7 })
        );
        assert_eq!(
            check(Anchor::Players(vec![(0, 0.0), (2, f64::NAN)])),
            Some(FitError::AnchorNotFinite { player: 2 })
        );
        assert_eq!(
            check(Anchor::Player(1, f64::INFINITY)),
            Some(FitError::AnchorNotFinite { player: 1 })
        );
        assert_eq!(
            check(Anchor::Players(vec![(2, 0.0), (0, 5.0), (2, 0.0)])),
            Some(FitError::AnchorRepeated { player: 2 })
        );
        assert_eq!(
            check(Anchor::Players(Vec::new())),
            Some(FitError::NoAnchoredPlayer)
        );
        assert_eq!(
            check(Anchor::Mean(f64::NAN)),
            Some(FitError::InvalidOptions)
        );
        assert_eq!(check(Anchor::Players(vec![(2, 0.0), (0, 5.0)])), None);
        // The messages name the player.
        assert_eq!(
            FitError::AnchorRepeated { player: 2 }.to_string(),
            "player 2 is anchored twice"
        );
        assert!(FitError::AnchorOutOfRange { player: 3 }
            .to_string()
            .contains("player 3"));
        assert!(FitError::AnchorNotFinite { player: 4 }
            .to_string()
            .contains("player 4"));
        // An empty pool has an empty fit, as with `Player` (but a repeated player is still
        // an error).
        let empty = FitOptions {
            anchor: Anchor::Players(vec![(0, 0.0), (1, 1.0)]),
            ..FitOptions::default()
        };
        assert!(fit(0, &[], &empty).unwrap().ratings.is_empty());
    }

    // The diagonal approximation of the intervals with three anchored players (merged into
    // one), against the exact widths.
    #[test]
    fn diagonal_intervals_with_anchored_players() {
        let g = tournament(150, 2000, 800.0, 5);
        let opts = anchored(&[(3, 1000.0), (70, 1500.0), (140, 500.0)]);
        let [dense, _, diagonal] = all_three(150, &g, &opts);
        assert_same_fit(&diagonal, &dense, false);
        let (worst, mean) = width_errors(&diagonal, &dense);
        eprintln!(
            "diagonal intervals, three anchored players: worst off by {worst:.4}, mean {mean:.4}"
        );
        assert!(worst < 0.02, "worst {worst}");
        // Few games each, lopsided ones, a weak prior: rougher, as with one anchor.
        let g = tournament(250, 1500, 3000.0, 1);
        let opts = FitOptions {
            prior_draws: 0.3,
            ..anchored(&[(0, 0.0), (100, 1000.0), (200, -1000.0)])
        };
        let [dense, _, diagonal] = all_three(250, &g, &opts);
        assert_same_fit(&diagonal, &dense, false);
        let (worst, mean) = width_errors(&diagonal, &dense);
        eprintln!("few lopsided games, three anchored players, prior 0.3: worst off by {worst:.4}, mean {mean:.4}");
        assert!(worst < 0.25, "worst {worst}");
    }

    // Badly conditioned pools with anchored players: a ladder anchored at both ends (the
    // free players' level pinned through a long chain), and anchored players with a single
    // game each among 300 free ones.
    #[test]
    fn hard_pools_with_anchored_players() {
        let mut rng = Rng(3);
        let mut g = Vec::new();
        for _ in 0..1200 {
            let black = rng.below(119);
            let white = black + 1 + rng.below(2).min(118 - black);
            let result = [B, W, W, D][rng.below(4)];
            g.push(RatedGame {
                black,
                white,
                result,
            });
        }
        let opts = anchored(&[(0, 0.0), (119, 3000.0)]);
        let (s, d) = both(120, &g, &opts);
        assert_same_fit(&s, &d, true);
        let mut g = tournament(300, 3000, 800.0, 29);
        g.extend([
            RatedGame {
                black: 300,
                white: 7,
                result: B,
            },
            RatedGame {
                black: 11,
                white: 301,
                result: D,
            },
            RatedGame {
                black: 302,
                white: 12,
                result: W,
            },
        ]);
        for prior in [1.0, 0.0] {
            let opts = FitOptions {
                prior_draws: prior,
                ..anchored(&[(300, 2000.0), (301, -500.0), (302, 700.0)])
            };
            let (s, d) = both(303, &g, &opts);
            assert_same_fit(&s, &d, true);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        // The sparse fit equals the dense one with one to three anchored players, on random
        // tournaments (as `sparse_fit_equals_dense_fit`), warm-started or not, and both keep
        // the anchored ratings exactly.
        #[test]
        fn sparse_fit_equals_dense_fit_with_anchored_players(
            players in 2usize..9,
            seed_games in proptest::collection::vec(arb_game(9), 0..60),
            seed_anchors in proptest::collection::vec((0usize..9, -500.0f64..2500.0), 1..4),
            fixed_colour in proptest::option::of(-100.0f64..100.0),
            prior in 0.2f64..3.0,
            split in 0usize..60,
        ) {
            let g: Vec<RatedGame> = seed_games
                .into_iter()
                .filter(|g| g.black < players && g.white < players)
                .collect();
            let mut anchors: Vec<(usize, f64)> = Vec::new();
            for (k, r) in seed_anchors {
                if !anchors.iter().any(|&(a, _)| a == k % players) {
                    anchors.push((k % players, r));
                }
            }
            let opts = FitOptions {
                anchor: Anchor::Players(anchors.clone()),
                prior_draws: prior,
                colour_advantage: fixed_colour,
                ..FitOptions::default()
            };
            let dense = fit(players, &g, &opts).unwrap();
            let sparse = fit_from(players, &g, &opts, None, Intervals::Exact).unwrap();
            assert_same_fit(&sparse, &dense, true);
            let split = split.min(g.len());
            let before = fit_from(players, &g[..split], &opts, None, Intervals::Exact).unwrap();
            let warm =
                fit_from(players, &g, &opts, Some(&Start::from(&before)), Intervals::Exact)
                    .unwrap();
            assert_same_fit(&warm, &dense, true);
            for &(k, r) in &anchors {
                prop_assert_eq!(dense.ratings[k], r);
                prop_assert_eq!(sparse.ratings[k], r);
                prop_assert_eq!(warm.ratings[k], r);
            }
        }
    }
}
