//! Which games a tournament plays, batch by batch: everything at once for the fixed formats,
//! round by round for the Swiss, match games as they become known for the knockout.

use crate::line::GameLine;
use crate::pairing::{self, Knockout, Outcome, Pairing, Round, Swiss};

/// Who plays whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every pair plays `games_per_pair` games, colours alternating.
    RoundRobin {
        /// Games each pair plays.
        games_per_pair: usize,
    },
    /// The first `seeds` engines play every other engine `games_per_pair` games.
    Gauntlet {
        /// Engines that play all others.
        seeds: usize,
        /// Games each pair plays.
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
        games: usize,
        /// Replay blocks of a tied match, at most.
        max_replays: usize,
    },
}

impl Format {
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
        current: Option<(Round, Vec<Option<Outcome>>)>,
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
        }
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
                    let all: Vec<Outcome> = outcomes.iter().flatten().copied().collect();
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
}
