// criterion_group! writes a public function it cannot document.
#![allow(missing_docs)]
//! The rating fit's speed:
//!
//! - `sparse/2000x20000/scratch`: [`fit_from`] of 2,000 players and 20,000 games (random
//!   pairings, strengths spread over 1,000 Elo, draws), from no start, intervals by the
//!   diagonal approximation (as the server fits);
//! - `sparse/2000x20000/warm_after_one_game`: the same games and one more, started from the
//!   fit of the 20,000 (a server's refit after a game);
//! - `sparse/2000x20000/three_anchors`: as `scratch`, with three players' ratings fixed
//!   ([`Anchor::Players`]: the Newton steps on the other players' ratings only);
//! - `sparse/200x2000/scratch` and `dense/200x2000`: 200 players and 2,000 games by
//!   [`fit_from`] (exact intervals: 200 conjugate-gradient solves) and by the dense [`fit`],
//!   for the ratio; `sparse/200x2000/scratch_diagonal` with the diagonal approximation.
//!
//!     cargo bench -p goref-tournament --bench rating [-- FILTER]

use criterion::{criterion_group, criterion_main, Criterion};
use goref_tournament::pairing::Scored;
use goref_tournament::rating::{fit, fit_from, Anchor, FitOptions, Intervals, RatedGame, Start};

/// xorshift64*: the same games at every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `games` games between random pairs of `players` players, Black favoured by 40 Elo, a draw
/// one game in ten between equals.
fn tournament(players: usize, games: usize, seed: u64) -> Vec<RatedGame> {
    let mut rng = Rng(seed | 1);
    let strength: Vec<f64> = (0..players).map(|_| 1000.0 * (rng.unit() - 0.5)).collect();
    (0..games)
        .map(|_| {
            let black = rng.below(players);
            let mut white = rng.below(players - 1);
            if white >= black {
                white += 1;
            }
            let d = strength[black] + 40.0 - strength[white];
            let black_wins = 1.0 / (1.0 + 10f64.powf(-d / 400.0));
            let u = rng.unit();
            let result = if u < 0.1 {
                Scored::Draw
            } else if u < 0.1 + 0.9 * black_wins {
                Scored::BlackWins
            } else {
                Scored::WhiteWins
            };
            RatedGame {
                black,
                white,
                result,
            }
        })
        .collect()
}

fn rating(c: &mut Criterion) {
    let options = FitOptions::default();
    let mut group = c.benchmark_group("sparse");
    group.sample_size(10);
    let games = tournament(2000, 20_001, 1);
    let (before, after) = games.split_at(20_000);
    assert_eq!(after.len(), 1);
    group.bench_function("2000x20000/scratch", |b| {
        b.iter(|| fit_from(2000, before, &options, None, Intervals::Diagonal).unwrap())
    });
    let last = fit_from(2000, before, &options, None, Intervals::Diagonal).unwrap();
    let start = Start::from(&last);
    group.bench_function("2000x20000/warm_after_one_game", |b| {
        b.iter(|| fit_from(2000, &games, &options, Some(&start), Intervals::Diagonal).unwrap())
    });
    let anchored = FitOptions {
        anchor: Anchor::Players(vec![(0, 1800.0), (1, 0.0), (2, 1000.0)]),
        ..FitOptions::default()
    };
    group.bench_function("2000x20000/three_anchors", |b| {
        b.iter(|| fit_from(2000, before, &anchored, None, Intervals::Diagonal).unwrap())
    });
    let small = tournament(200, 2000, 2);
    group.bench_function("200x2000/scratch", |b| {
        b.iter(|| fit_from(200, &small, &options, None, Intervals::Exact).unwrap())
    });
    group.bench_function("200x2000/scratch_diagonal", |b| {
        b.iter(|| fit_from(200, &small, &options, None, Intervals::Diagonal).unwrap())
    });
    group.finish();
    let mut group = c.benchmark_group("dense");
    group.sample_size(10);
    group.bench_function("200x2000", |b| {
        b.iter(|| fit(200, &small, &options).unwrap())
    });
    group.finish();
}

criterion_group!(benches, rating);
criterion_main!(benches);
