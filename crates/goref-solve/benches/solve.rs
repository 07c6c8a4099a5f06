// criterion_group! writes a public function it cannot document.
#![allow(missing_docs)]
//! The solver's speed: whole solves (every test of the search and the principal variation)
//! of small boards and 4×4 positions, and 4×4 positions with one thread and with two, so
//! that the gain of the second thread is a ratio of two runs of the same process.
//!
//!     cargo bench -p goref-solve --bench solve [-- FILTER]
//!
//! The nodes of each solve (the figure that does not depend on the machine) are printed by
//! the `measure` example: `cargo run --release -p goref-solve --example measure -- 3x4:nstt`.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use goref_rules::{Game, Geometry, Komi, Move, Preset, Ruleset};
use goref_solve::{solve, Options, Verdict};

/// The game on a `w`×`h` board under `preset`, komi 0, after `moves` (point names).
fn position(w: usize, h: usize, preset: Preset, moves: &[&str]) -> Game {
    let geometry = Geometry::rect(w, h).expect("a board size");
    let rules = Ruleset::preset(preset).with_komi(Komi::from_half_points(0));
    let mut game = Game::new(Arc::new(geometry), rules);
    for name in moves {
        let point = game.geometry().parse_point(name).expect("a point");
        game.play(Move::Play(point)).expect("a legal move");
    }
    game
}

/// Solves `game` to the end and returns its value, so that the work cannot be left out.
fn solved(game: &Game, threads: usize) -> String {
    let options = Options {
        threads,
        table_entries: 1 << 22,
        ..Options::default()
    };
    let report = solve(game, &options).expect("a board the solver takes");
    match report.verdict {
        Verdict::Proven(value) => value.to_string(),
        Verdict::Undecided { .. } => unreachable!("no budget was set"),
    }
}

fn boards(c: &mut Criterion) {
    let mut group = c.benchmark_group("boards");
    group.sample_size(10);
    let cases = [
        ("3x3-nstt", position(3, 3, Preset::Nstt, &[])),
        ("3x3-olympiad", position(3, 3, Preset::Olympiad, &[])),
        ("1x9-tromp-taylor", position(1, 9, Preset::TrompTaylor, &[])),
        ("2x5-nstt", position(2, 5, Preset::Nstt, &[])),
        ("3x4-nstt", position(3, 4, Preset::Nstt, &[])),
    ];
    for (name, game) in &cases {
        group.bench_function(*name, |b| b.iter(|| solved(game, 1)));
    }
    group.finish();
}

fn threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("4x4-b2-b3-c3");
    group.sample_size(10);
    let game = position(4, 4, Preset::Nstt, &["b2", "b3", "c3"]);
    for threads in [1, 2] {
        group.bench_function(format!("threads-{threads}"), |b| {
            b.iter(|| solved(&game, threads))
        });
    }
    group.finish();
}

criterion_group!(benches, boards, threads);
criterion_main!(benches);
