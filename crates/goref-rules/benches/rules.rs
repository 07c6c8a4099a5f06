// criterion_group! writes a public function it cannot document.
#![allow(missing_docs)]
//! Benchmarks of the rules core: play with legality checking, area scoring, and light random
//! playouts, each on 9×9 and 19×19 under each preset.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use goref_literal::{Graph, LiteralGame};
use goref_rules::playout::{playout, random_move, Rng};
use goref_rules::{Game, Move, Preset, Ruleset};

/// A fixed random game (its moves), replayed by the play benchmark.
fn recorded_game(size: usize, preset: Preset) -> Vec<Move> {
    let mut game = Game::rect(size, size, Ruleset::preset(preset)).unwrap();
    let mut rng = Rng::new(42);
    let mut candidates = Vec::new();
    while !game.is_over() && game.moves().len() < 3 * size * size {
        let mv = random_move(&game, &mut rng, &mut candidates);
        game.play(mv).unwrap();
    }
    game.moves().iter().map(|&(_, mv)| mv).collect()
}

fn play_with_legality(c: &mut Criterion) {
    let mut group = c.benchmark_group("play");
    for size in [9, 19] {
        for preset in Preset::ALL {
            let moves = recorded_game(size, preset);
            let start = Game::rect(size, size, Ruleset::preset(preset)).unwrap();
            group.throughput(Throughput::Elements(moves.len() as u64));
            group.bench_with_input(
                BenchmarkId::new(preset.name(), format!("{size}x{size}")),
                &moves,
                |b, moves| {
                    b.iter(|| {
                        let mut game = start.clone();
                        for &mv in moves {
                            game.play(mv).unwrap();
                        }
                        game
                    });
                },
            );
        }
    }
    // The baseline in the same run: the literal rules (reach, clear, score over whole
    // colourings) replaying the same 9×9 game. Report the fast figures as ratios to this.
    let moves = recorded_game(9, Preset::TrompTaylor);
    group.throughput(Throughput::Elements(moves.len() as u64));
    group.bench_function(BenchmarkId::new("literal-tromp-taylor", "9x9"), |b| {
        b.iter(|| {
            let mut game = LiteralGame::new(Graph::grid(9, 9), Ruleset::TROMP_TAYLOR);
            for &mv in &moves {
                match mv {
                    Move::Pass => game.pass().unwrap(),
                    Move::Play(p) => game.play(p.index()).unwrap(),
                }
            }
            game
        });
    });
    group.finish();
}

fn scoring(c: &mut Criterion) {
    let mut group = c.benchmark_group("score");
    for size in [9, 19] {
        let mut game = Game::rect(size, size, Ruleset::TROMP_TAYLOR).unwrap();
        for mv in recorded_game(size, Preset::TrompTaylor) {
            game.play(mv).unwrap();
        }
        group.bench_function(format!("{size}x{size}"), |b| b.iter(|| game.score()));
    }
    group.finish();
}

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("playout");
    for size in [9, 19] {
        for preset in Preset::ALL {
            let mut game = Game::rect(size, size, Ruleset::preset(preset)).unwrap();
            let mut rng = Rng::new(7);
            group.throughput(Throughput::Elements(1));
            group.bench_function(
                BenchmarkId::new(preset.name(), format!("{size}x{size}")),
                |b| {
                    b.iter(|| {
                        game.reset();
                        playout(&mut game, &mut rng, 3 * size * size + 100)
                    });
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, play_with_legality, scoring, playouts);
criterion_main!(benches);
