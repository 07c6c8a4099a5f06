//! Ratings (placeholder until the full module lands: every rating 0).

/// A game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// Black won.
    BlackWins,
    /// White won.
    WhiteWins,
    /// A draw.
    Draw,
}

/// One game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Game {
    /// Black's player.
    pub black: usize,
    /// White's player.
    pub white: usize,
    /// The result.
    pub result: GameResult,
}

/// What fixes the scale's origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Anchor {
    /// This player has this rating.
    Player(usize, f64),
    /// The mean rating is this.
    Mean(f64),
}

/// A fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Ratings.
    pub ratings: Vec<f64>,
    /// 95% intervals.
    pub intervals: Vec<(f64, f64)>,
    /// Colour advantage.
    pub colour_advantage: f64,
    /// Draw parameter.
    pub draw_parameter: f64,
}

/// The fit.
#[must_use]
pub fn fit(players: usize, _games: &[Game], _anchor: Anchor) -> Fit {
    Fit {
        ratings: vec![0.0; players],
        intervals: vec![(0.0, 0.0); players],
        colour_advantage: 0.0,
        draw_parameter: 0.0,
    }
}
