//! What the results say: points, Go's tie-breaks, the crosstable and ratings, as
//! `standings.json` holds them.

use std::collections::BTreeMap;

use serde::Serialize;

use goref_rules::Color;

use crate::line::GameLine;
use crate::pairing::{standings_of, PairingResult};
use crate::rating::{fit, Fit, FitOptions, RatedGame};

/// One engine's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// Its name in the tournament.
    pub name: String,
    /// Games played (forfeits included).
    pub games: usize,
    /// Byes (Swiss), each scored as a win.
    pub byes: usize,
    /// Wins (forfeits won included).
    pub wins: usize,
    /// Losses.
    pub losses: usize,
    /// Draws.
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
    let mut wld = vec![(0usize, 0usize, 0usize); n];
    let mut pair = vec![vec![(0.0f64, 0usize); n]; n];
    let mut bye_count = vec![0usize; n];
    for &b in byes.iter().filter(|&&b| b < n) {
        bye_count[b] += 1;
    }
    let results: Vec<PairingResult> = games
        .iter()
        .filter(|g| g.black < n && g.white < n)
        .map(|g| PairingResult {
            pairing: g.pairing(),
            outcome: g.scored(),
        })
        .collect();
    for r in &results {
        let (b, w) = (r.pairing.black, r.pairing.white);
        for (me, other, color) in [(b, w, Color::Black), (w, b, Color::White)] {
            let s = r.outcome.points(color).as_f64();
            pair[me][other].0 += s;
            pair[me][other].1 += 1;
            let e = &mut wld[me];
            if s == 1.0 {
                e.0 += 1;
            } else if s == 0.0 {
                e.1 += 1;
            } else {
                e.2 += 1;
            }
        }
    }
    // Points and Go's tie-breaks: the one computation, shared with the Swiss pairing.
    let ranked = standings_of(n, &results, byes);
    let rated: Vec<RatedGame> = results
        .iter()
        .map(|r| RatedGame {
            black: r.pairing.black,
            white: r.pairing.white,
            result: r.outcome,
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
    let engines = ranked
        .iter()
        .map(|r| {
            let i = r.engine;
            Standing {
                name: names[i].clone(),
                games: wld[i].0 + wld[i].1 + wld[i].2,
                byes: bye_count[i],
                wins: wld[i].0,
                losses: wld[i].1,
                draws: wld[i].2,
                points: r.points.as_f64(),
                tiebreaks: BTreeMap::from([
                    ("sos", r.sos.as_f64()),
                    ("sodos", r.sodos.as_f64()),
                    ("sosos", r.sosos.as_f64()),
                ]),
                rating: fitted.ratings.get(i).copied().unwrap_or(0.0),
                rating_ci95: fitted
                    .intervals
                    .get(i)
                    .map_or([0.0, 0.0], |&(lo, hi)| [lo, hi]),
                rank: r.rank,
                withdrawn: false,
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::{Scored, Swiss};
    use goref_referee::Ending;

    /// The standings of a Swiss's games and byes rank as the Swiss itself does (one
    /// computation of the tie-breaks), with byes counted as wins.
    #[test]
    fn a_swiss_ranks_the_same_in_its_pairing_and_its_standings() {
        let mut swiss = Swiss::new(5);
        let mut lines = Vec::new();
        let mut byes = Vec::new();
        for round in 0..3 {
            let r = swiss.next_round();
            let outcomes: Vec<Scored> = r
                .pairings
                .iter()
                .map(|p| {
                    if (p.black + round) % 3 == 0 {
                        Scored::WhiteWins
                    } else {
                        Scored::BlackWins
                    }
                })
                .collect();
            for (p, o) in r.pairings.iter().zip(&outcomes) {
                let names = [String::new(), String::new()];
                let result = match o.winner() {
                    Some(c) => goref_rules::Outcome::win(c, goref_rules::WinBy::Resignation),
                    None => goref_rules::Outcome::Draw,
                };
                let number = lines.len() + 1;
                lines.push(GameLine::of(number, p, names, result, Ending::TwoPasses));
            }
            byes.extend(r.bye);
            swiss.record(&r, &outcomes).unwrap();
        }
        let names: Vec<String> = (0..5).map(|i| format!("e{i}")).collect();
        let table = standings("swiss", &names, &lines, &byes);
        let theirs: Vec<(String, f64)> = swiss
            .standings()
            .iter()
            .map(|s| (names[s.engine].clone(), s.points.as_f64()))
            .collect();
        let ours: Vec<(String, f64)> = table
            .engines
            .iter()
            .map(|s| (s.name.clone(), s.points))
            .collect();
        assert_eq!(ours, theirs);
        assert_eq!(table.engines.iter().map(|s| s.byes).sum::<usize>(), 3);
        let total: f64 = table.engines.iter().map(|s| s.points).sum();
        assert_eq!(total, 6.0 + 3.0, "six games and three byes");
    }
}
