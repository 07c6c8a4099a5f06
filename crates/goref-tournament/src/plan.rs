//! Which games a tournament plays, batch by batch: everything at once for the fixed formats,
//! round by round for those whose pairings depend on the results.

use crate::pairing::{self, Pairing};
use crate::runner::GameLine;

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
}

impl Format {
    /// The name in files and on the command line.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Format::RoundRobin { .. } => "round-robin",
            Format::Gauntlet { .. } => "gauntlet",
        }
    }
}

/// The games of a tournament, handed out in batches.
#[derive(Clone, Debug)]
pub struct Plan {
    fixed: Option<Vec<Pairing>>,
    next_number: usize,
}

impl Plan {
    /// The plan of `format` for `n` engines.
    #[must_use]
    pub fn new(format: &Format, n: usize) -> Plan {
        let fixed = match *format {
            Format::RoundRobin { games_per_pair } => pairing::round_robin(n, games_per_pair),
            Format::Gauntlet {
                seeds,
                games_per_pair,
            } => pairing::gauntlet(n, seeds, games_per_pair),
        };
        Plan {
            fixed: Some(fixed),
            next_number: 1,
        }
    }

    /// The next games to play, numbered from 1 across the tournament; empty when it is over.
    /// A batch is played in full before the next one is asked for.
    pub fn next_batch(&mut self) -> Vec<(usize, Pairing)> {
        let Some(fixed) = self.fixed.take() else {
            return Vec::new();
        };
        let first = self.next_number;
        self.next_number += fixed.len();
        fixed
            .into_iter()
            .enumerate()
            .map(|(i, p)| (first + i, p))
            .collect()
    }

    /// A game of the current batch ended.
    pub fn record(&mut self, _number: usize, _line: &GameLine) {}
}
