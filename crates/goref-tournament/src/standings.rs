//! What the results say: points, Go's tie-breaks, the crosstable and ratings, as
//! `standings.json` holds them.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::rating::{fit, Fit, FitOptions, Game, GameResult};
use crate::runner::GameLine;

/// One engine's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// Its name in the tournament.
    pub name: String,
    /// Games played (forfeits included).
    pub games: usize,
    /// Byes (Swiss), each scored as a win.
    pub byes: usize,
    /// Wins, losses and draws.
    pub wins: usize,
    pub losses: usize,
    pub draws: usize,
    /// A win is 1 (a bye too), a draw 0.5.
    pub points: f64,
    /// Go's tie-breaks by name: `sos` (sum of the opponents' points), `sodos` (sum of the
    /// points of the opponents it beat), `sosos` (sum of the opponents' SOS).
    pub tiebreaks: BTreeMap<&'static str, f64>,
    /// Elo rating from the joint fit (mean 0 unless anchored).
    pub rating: f64,
    /// Its 95% interval.
    pub rating_ci95: [f64; 2],
    /// Rank from 1: points, then SOS, SODOS, SOSOS, then seed.
    pub rank: usize,
    /// Withdrawn after failing to start too many times in a row (its later games forfeited).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub withdrawn: bool,
}

/// The whole standings file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standings {
    /// The format's name.
    pub format: String,
    /// Games counted.
    pub games: usize,
    /// Engines in rank order.
    pub engines: Vec<Standing>,
    /// `crosstable[i][j]`: the points engine `i` (seeding order) scored against engine `j`,
    /// and the games they played, as `"1.5/2"`; empty when they did not meet.
    pub crosstable: Vec<Vec<String>>,
    /// Engine names in seeding order (the crosstable's rows and columns).
    pub seeding: Vec<String>,
    /// The fitted advantage of playing Black, in Elo.
    pub black_advantage: f64,
}

/// The standings of `names` (seeding order) after `games`, and `byes` (Swiss: one entry a bye,
/// each scored as a win with no opponent: it adds to the points, not to SOS).
#[must_use]
pub fn standings(format: &str, names: &[String], games: &[GameLine], byes: &[usize]) -> Standings {
    let n = names.len();
    let mut points = vec![0.0f64; n];
    let mut bye_count = vec![0usize; n];
    for &b in byes.iter().filter(|&&b| b < n) {
        points[b] += 1.0;
        bye_count[b] += 1;
    }
    let mut wld = vec![(0usize, 0usize, 0usize); n];
    let mut pair = vec![vec![(0.0f64, 0usize); n]; n];
    let mut opponents: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut beaten: Vec<Vec<usize>> = vec![Vec::new(); n];
    for g in games {
        let (b, w) = (g.black, g.white);
        if b >= n || w >= n {
            continue;
        }
        opponents[b].push(w);
        opponents[w].push(b);
        let (sb, sw) = match g.winner_id() {
            Some(x) if x == b => (1.0, 0.0),
            Some(_) => (0.0, 1.0),
            None => (0.5, 0.5),
        };
        for (me, other, s) in [(b, w, sb), (w, b, sw)] {
            points[me] += s;
            pair[me][other].0 += s;
            pair[me][other].1 += 1;
            let e = &mut wld[me];
            if s == 1.0 {
                e.0 += 1;
                beaten[me].push(other);
            } else if s == 0.0 {
                e.1 += 1;
            } else {
                e.2 += 1;
            }
        }
    }
    let sos: Vec<f64> = (0..n)
        .map(|i| opponents[i].iter().map(|&o| points[o]).sum::<f64>() + 0.0)
        .collect();
    let sodos: Vec<f64> = (0..n)
        .map(|i| beaten[i].iter().map(|&o| points[o]).sum::<f64>() + 0.0)
        .collect();
    let sosos: Vec<f64> = (0..n)
        .map(|i| opponents[i].iter().map(|&o| sos[o]).sum::<f64>() + 0.0)
        .collect();
    let rated: Vec<Game> = games
        .iter()
        .filter(|g| g.black < n && g.white < n)
        .map(|g| Game {
            black: g.black,
            white: g.white,
            result: match g.winner {
                Some('B') => GameResult::BlackWins,
                Some('W') => GameResult::WhiteWins,
                _ => GameResult::Draw,
            },
        })
        .collect();
    // The default fit (mean 0, one virtual draw a player) is always finite; should it fail,
    // every rating shows 0 with no interval rather than a guess.
    let fitted = fit(n, &rated, &FitOptions::default()).unwrap_or_else(|_| Fit {
        ratings: vec![0.0; n],
        intervals: vec![(0.0, 0.0); n],
        colour_advantage: 0.0,
        colour_advantage_interval: (0.0, 0.0),
        draw_parameter: 0.0,
        iterations: 0,
    });
    let mut order: Vec<usize> = (0..n).collect();
    let key = |i: usize| [points[i], sos[i], sodos[i], sosos[i]];
    order.sort_by(|&a, &b| {
        let (ka, kb) = (key(a), key(b));
        kb.partial_cmp(&ka)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    let engines = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| Standing {
            name: names[i].clone(),
            games: wld[i].0 + wld[i].1 + wld[i].2,
            byes: bye_count[i],
            wins: wld[i].0,
            losses: wld[i].1,
            draws: wld[i].2,
            points: points[i],
            tiebreaks: BTreeMap::from([("sos", sos[i]), ("sodos", sodos[i]), ("sosos", sosos[i])]),
            rating: fitted.ratings.get(i).copied().unwrap_or(0.0),
            rating_ci95: fitted
                .intervals
                .get(i)
                .map_or([0.0, 0.0], |&(lo, hi)| [lo, hi]),
            rank: rank + 1,
            withdrawn: false,
        })
        .collect();
    let crosstable = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| match pair[i][j] {
                    (_, 0) => String::new(),
                    (s, g) => format!("{s}/{g}"),
                })
                .collect()
        })
        .collect();
    Standings {
        format: format.to_string(),
        games: games.len(),
        engines,
        crosstable,
        seeding: names.to_vec(),
        black_advantage: fitted.colour_advantage,
    }
}
