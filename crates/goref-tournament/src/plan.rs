//! Which games a tournament plays, batch by batch: everything at once for the fixed formats,
//! round by round for the Swiss, match games as they become known for the knockout.

use serde::{Deserialize, Serialize};

use crate::line::GameLine;
use crate::pairing::{self, Knockout, Pairing, RoundPairings, Scored, Swiss};

/// Who plays whom: one type from the command line (its name, [`Format::named`]), the TOML
/// file and the server's API (serde, tagged by `format`: `{"format": "swiss", "rounds": 5}`,
/// a missing count is 1) down to the [`Plan`].
///
/// ```
/// use goref_tournament::{Format, Plan};
/// use goref_tournament::plan::FormatParams;
///
/// let swiss: Format = serde_json::from_str(r#"{"format":"swiss","rounds":3}"#).unwrap();
/// assert_eq!(swiss, Format::Swiss { rounds: 3 });
/// let rr = Format::named("rr", FormatParams { games_per_pair: 4, ..FormatParams::default() });
/// assert_eq!(rr.unwrap(), Format::RoundRobin { games_per_pair: 4 });
/// assert_eq!("gauntlet".parse::<Format>().unwrap().name(), "gauntlet");
/// assert_eq!(Plan::new(&swiss, 6).total(), 9);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "kebab-case")]
pub enum Format {
    /// Every pair plays `games_per_pair` games, colours alternating.
    RoundRobin {
        /// Games each pair plays.
        #[serde(default = "one")]
        games_per_pair: usize,
    },
    /// The first `seeds` engines play every other engine `games_per_pair` games.
    Gauntlet {
        /// Engines that play all others.
        #[serde(default = "one")]
        seeds: usize,
        /// Games each pair plays.
        #[serde(default = "one")]
        games_per_pair: usize,
    },
    /// `rounds` rounds paired by score, no pair twice while another pairing exists, a bye
    /// (scored as a win) for an odd count; ranked with SOS, SODOS, SOSOS.
    Swiss {
        /// Rounds to play.
        rounds: usize,
    },
    /// A seeded bracket of matches of `games` games; a tied match is replayed with colours
    /// swapped up to `max_replays` times (2 games each), then decided by the better
    /// colour-balanced score, else by seed.
    Knockout {
        /// Games of each match.
        #[serde(default = "one")]
        games: usize,
        /// Replay blocks of a tied match, at most.
        #[serde(default = "one")]
        max_replays: usize,
    },
}

fn one() -> usize {
    1
}

/// The counts a format named on the command line takes, those it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatParams {
    /// Games each pair plays (round-robin, gauntlet); a knockout's games of each match.
    pub games_per_pair: usize,
    /// Engines that play all others (gauntlet).
    pub seeds: usize,
    /// Rounds (Swiss).
    pub rounds: usize,
    /// Replay blocks of a tied match, at most (knockout).
    pub max_replays: usize,
}

impl Default for FormatParams {
    /// What `goref tournament` plays when not told: 2 games a pair, 1 seed, 5 rounds, 2
    /// replays.
    fn default() -> FormatParams {
        FormatParams {
            games_per_pair: 2,
            seeds: 1,
            rounds: 5,
            max_replays: 2,
        }
    }
}

/// A format name that is none of goref's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl std::fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "format '{}': expected round-robin, gauntlet, swiss or knockout",
            self.0
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl std::str::FromStr for Format {
    type Err = UnknownFormat;

    /// The format named `text`, with [`FormatParams::default`].
    fn from_str(text: &str) -> Result<Format, UnknownFormat> {
        Format::named(text, FormatParams::default())
    }
}

impl Format {
    /// The format named `name` (`round-robin`, also `roundrobin` or `rr`; `gauntlet`;
    /// `swiss`; `knockout`) with the counts of `params` it takes.
    ///
    /// # Errors
    ///
    /// When `name` is none of these.
    pub fn named(name: &str, params: FormatParams) -> Result<Format, UnknownFormat> {
        let FormatParams {
            games_per_pair,
            seeds,
            rounds,
            max_replays,
        } = params;
        Ok(match name {
            "round-robin" | "roundrobin" | "rr" => Format::RoundRobin { games_per_pair },
            "gauntlet" => Format::Gauntlet {
                seeds,
                games_per_pair,
            },
            "swiss" => Format::Swiss { rounds },
            "knockout" => Format::Knockout {
                games: games_per_pair,
                max_replays,
            },
            other => return Err(UnknownFormat(other.to_string())),
        })
    }

    /// The name in files and on the command line.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Format::RoundRobin { .. } => "round-robin",
            Format::Gauntlet { .. } => "gauntlet",
            Format::Swiss { .. } => "swiss",
            Format::Knockout { .. } => "knockout",
        }
    }
}

#[derive(Clone, Debug)]
enum State {
    Fixed(Option<Vec<Pairing>>),
    Swiss {
        swiss: Swiss,
        rounds: usize,
        current: Option<(RoundPairings, Vec<Option<Scored>>)>,
    },
    Knockout {
        knockout: Knockout,
        handed: Vec<(usize, Pairing)>,
    },
}

/// The games of a tournament, handed out in batches.
#[derive(Clone, Debug)]
pub struct Plan {
    state: State,
    next_number: usize,
    byes: Vec<usize>,
    total: u64,
}

impl Plan {
    /// The plan of `format` for `n` engines.
    #[must_use]
    pub fn new(format: &Format, n: usize) -> Plan {
        let state = match *format {
            Format::RoundRobin { games_per_pair } => {
                State::Fixed(Some(pairing::round_robin(n, games_per_pair)))
            }
            Format::Gauntlet {
                seeds,
                games_per_pair,
            } => State::Fixed(Some(pairing::gauntlet(n, seeds, games_per_pair))),
            Format::Swiss { rounds } => State::Swiss {
                swiss: Swiss::new(n),
                rounds,
                current: None,
            },
            Format::Knockout { games, max_replays } => State::Knockout {
                knockout: Knockout::new(n, games, max_replays),
                handed: Vec::new(),
            },
        };
        Plan {
            state,
            next_number: 1,
            byes: Vec::new(),
            total: total(format, n as u64),
        }
    }

    /// The games the tournament plays when every one is played (a knockout's replays aside).
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The engines that had a bye so far (Swiss), one entry a bye.
    #[must_use]
    pub fn byes(&self) -> &[usize] {
        &self.byes
    }

    /// The champion of a knockout, once decided.
    #[must_use]
    pub fn champion(&self) -> Option<usize> {
        match &self.state {
            State::Knockout { knockout, .. } => knockout.winner(),
            _ => None,
        }
    }

    fn number(&mut self, pairings: Vec<Pairing>) -> Vec<(usize, Pairing)> {
        let first = self.next_number;
        self.next_number += pairings.len();
        pairings
            .into_iter()
            .enumerate()
            .map(|(i, p)| (first + i, p))
            .collect()
    }

    /// The next games to play, numbered from 1 across the tournament; empty when it is over.
    /// Every game of a batch is recorded before the next batch is asked for.
    pub fn next_batch(&mut self) -> Vec<(usize, Pairing)> {
        match &mut self.state {
            State::Fixed(fixed) => {
                let pairings = fixed.take().unwrap_or_default();
                self.number(pairings)
            }
            State::Swiss {
                swiss,
                rounds,
                current,
            } => {
                if current.is_some() || swiss.rounds_played() >= *rounds {
                    return Vec::new();
                }
                let round = swiss.next_round();
                if let Some(bye) = round.bye {
                    self.byes.push(bye);
                }
                let pairings = round.pairings.clone();
                *current = Some((round, vec![None; pairings.len()]));
                self.number(pairings)
            }
            State::Knockout { knockout, .. } => {
                let pending = knockout.pending();
                if pending.is_empty() {
                    return Vec::new();
                }
                let batch = self.number(pending);
                if let State::Knockout { handed, .. } = &mut self.state {
                    handed.clone_from(&batch);
                }
                batch
            }
        }
    }

    /// A game of the current batch ended.
    pub fn record(&mut self, number: usize, line: &GameLine) {
        let result = line.scored();
        match &mut self.state {
            State::Fixed(_) => {}
            State::Swiss { swiss, current, .. } => {
                let Some((round, outcomes)) = current else {
                    return;
                };
                let first = self.next_number - outcomes.len();
                if let Some(slot) = number.checked_sub(first).and_then(|i| outcomes.get_mut(i)) {
                    *slot = Some(result);
                }
                if outcomes.iter().all(Option::is_some) {
                    let all: Vec<Scored> = outcomes.iter().flatten().copied().collect();
                    // The round was made by `next_round`: recording it cannot fail.
                    let _ = swiss.record(round, &all);
                    *current = None;
                }
            }
            State::Knockout { knockout, handed } => {
                if let Some(&(_, pairing)) = handed.iter().find(|(n, _)| *n == number) {
                    let _ = knockout.record(pairing, result);
                }
            }
        }
    }
}

/// The games `format` plays between `n` engines, a knockout's replays aside.
fn total(format: &Format, n: u64) -> u64 {
    match *format {
        Format::RoundRobin { games_per_pair } => {
            n * n.saturating_sub(1) / 2 * games_per_pair as u64
        }
        Format::Gauntlet {
            seeds,
            games_per_pair,
        } => {
            let seeds = (seeds as u64).min(n);
            seeds * (n - seeds) * games_per_pair as u64
        }
        Format::Swiss { rounds } => rounds as u64 * (n / 2),
        Format::Knockout { games, .. } => n.saturating_sub(1) * games as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use goref_referee::Ending;

    fn line(number: usize, p: Pairing, winner: goref_rules::Color) -> GameLine {
        let names = [String::new(), String::new()];
        let won = goref_rules::Outcome::win(winner, goref_rules::WinBy::Resignation);
        GameLine::of(number, &p, names, won, Ending::TwoPasses)
    }

    /// Plays the plan out, the lower engine index always winning; returns every game.
    fn play_out(format: &Format, n: usize) -> (Plan, Vec<(usize, Pairing)>) {
        let mut plan = Plan::new(format, n);
        let mut all = Vec::new();
        loop {
            let batch = plan.next_batch();
            if batch.is_empty() {
                break;
            }
            for &(number, p) in &batch {
                let winner = if p.black < p.white {
                    goref_rules::Color::Black
                } else {
                    goref_rules::Color::White
                };
                plan.record(number, &line(number, p, winner));
            }
            all.extend(batch);
        }
        (plan, all)
    }

    #[test]
    fn games_are_numbered_once_across_batches() {
        let (_, games) = play_out(&Format::Swiss { rounds: 3 }, 7);
        let numbers: Vec<usize> = games.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, (1..=9).collect::<Vec<_>>(), "3 games a round of 7");
    }

    #[test]
    fn a_swiss_of_seven_has_one_bye_a_round_and_no_repeated_pair() {
        let (plan, games) = play_out(&Format::Swiss { rounds: 3 }, 7);
        assert_eq!(plan.byes().len(), 3);
        let mut byes = plan.byes().to_vec();
        byes.sort_unstable();
        byes.dedup();
        assert_eq!(byes.len(), 3, "no engine has two byes");
        let mut pairs: Vec<(usize, usize)> = games
            .iter()
            .map(|(_, p)| (p.black.min(p.white), p.black.max(p.white)))
            .collect();
        pairs.sort_unstable();
        let before = pairs.len();
        pairs.dedup();
        assert_eq!(pairs.len(), before, "no pair meets twice");
    }

    #[test]
    fn a_knockout_of_four_crowns_the_winner_of_every_match() {
        let (plan, games) = play_out(
            &Format::Knockout {
                games: 2,
                max_replays: 1,
            },
            4,
        );
        assert_eq!(plan.champion(), Some(0));
        // Two semi-finals and a final of two games each.
        assert_eq!(games.len(), 6);
    }

    /// `total` counts what the plan hands out when the lower index always wins (a knockout
    /// with no tied match plays no replay).
    #[test]
    fn the_total_is_the_games_handed_out() {
        let formats = [
            Format::RoundRobin { games_per_pair: 3 },
            Format::Gauntlet {
                seeds: 2,
                games_per_pair: 2,
            },
            Format::Swiss { rounds: 4 },
            Format::Knockout {
                games: 2,
                max_replays: 1,
            },
        ];
        for format in &formats {
            for n in [2, 5, 8] {
                let (plan, games) = play_out(format, n);
                assert_eq!(plan.total(), games.len() as u64, "{format:?} with {n}");
            }
        }
        assert_eq!(Plan::new(&formats[0], 0).total(), 0);
    }

    /// The format reads from its name (with the command line's counts) and from the API's
    /// JSON, as goref-server's tournaments have always written it.
    #[test]
    fn formats_read_from_names_and_json() {
        let params = FormatParams {
            games_per_pair: 4,
            seeds: 3,
            rounds: 7,
            max_replays: 0,
        };
        for (name, format) in [
            ("round-robin", Format::RoundRobin { games_per_pair: 4 }),
            ("roundrobin", Format::RoundRobin { games_per_pair: 4 }),
            ("rr", Format::RoundRobin { games_per_pair: 4 }),
            (
                "gauntlet",
                Format::Gauntlet {
                    seeds: 3,
                    games_per_pair: 4,
                },
            ),
            ("swiss", Format::Swiss { rounds: 7 }),
            (
                "knockout",
                Format::Knockout {
                    games: 4,
                    max_replays: 0,
                },
            ),
        ] {
            assert_eq!(Format::named(name, params).unwrap(), format);
        }
        let err = "ladder".parse::<Format>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "format 'ladder': expected round-robin, gauntlet, swiss or knockout"
        );
        for (json, format) in [
            (
                r#"{"format":"round-robin","games_per_pair":2}"#,
                Format::RoundRobin { games_per_pair: 2 },
            ),
            (
                r#"{"format":"gauntlet"}"#,
                Format::Gauntlet {
                    seeds: 1,
                    games_per_pair: 1,
                },
            ),
            (
                r#"{"format":"swiss","rounds":5}"#,
                Format::Swiss { rounds: 5 },
            ),
            (
                r#"{"format":"knockout","games":3}"#,
                Format::Knockout {
                    games: 3,
                    max_replays: 1,
                },
            ),
        ] {
            let read: Format = serde_json::from_str(json).unwrap();
            assert_eq!(read, format);
            let back: Format =
                serde_json::from_str(&serde_json::to_string(&read).unwrap()).unwrap();
            assert_eq!(back, format);
        }
        assert!(serde_json::from_str::<Format>(r#"{"format":"swiss"}"#).is_err());
    }
}
