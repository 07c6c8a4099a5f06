// criterion_group! writes a public function it cannot document.
#![allow(missing_docs)]
//! The judge's speed (reference 001 §3.9) on three sets:
//!
//! - `hard`: the life-and-death positions built for goref in `tests/hard` (classic seki, bent
//!   four in the corner, moonshine life, bulky and flower five, straight-three nakade,
//!   carpenter's square), every block judged;
//! - `selfplay`: finished 19×19 games of GNU Go against itself (`tests/data`), 3.9.2 with every
//!   block disputed;
//! - `gnugo-regression`: when `GNUGO_REGRESSION` names a directory holding GNU Go's
//!   `regression/games/unconditional/*.sgf` (GPL files, not part of goref; see
//!   `examples/regression.rs`), each of those positions with every block disputed.
//!
//!     cargo bench -p goref-judge --bench judge [-- FILTER]

use criterion::{criterion_group, criterion_main, Criterion};
use goref_judge::{board_from_diagram, default_removal, Budget, Context, Disputes, Judge};
use goref_rules::{Color, Game, Ruleset};

#[path = "../tests/hard/mod.rs"]
mod hard;

fn finished_game(text: &str) -> Game {
    let record = goref_sgf::parse(text).unwrap();
    let start = record.start_board().unwrap();
    let first = record
        .first_player
        .or_else(|| record.moves.first().map(|m| m.color))
        .unwrap_or(Color::Black);
    let mut game = Game::from_position(start, first, Ruleset::OLYMPIAD);
    for m in &record.moves {
        game.play(m.mv).unwrap();
    }
    game
}

fn judge_hard(c: &mut Criterion) {
    let mut group = c.benchmark_group("hard");
    for h in hard::HARD {
        let board = board_from_diagram(h.diagram).unwrap();
        group.bench_function(h.name, |b| {
            b.iter(|| {
                let judge =
                    Judge::new(&board, Context::fresh(Ruleset::OLYMPIAD), Budget::default());
                judge.judge_all().len()
            });
        });
    }
    group.finish();
}

fn judge_selfplay(c: &mut Criterion) {
    let mut group = c.benchmark_group("selfplay");
    group.sample_size(10);
    for name in ["gnugo-19-1.sgf", "gnugo-19-2.sgf"] {
        let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let game = finished_game(&text);
        group.bench_function(name, |b| {
            b.iter(|| {
                let judge = Judge::of_game(&game, Budget::default());
                default_removal(&judge, Disputes::All).score
            });
        });
    }
    group.finish();
}

fn judge_gnugo_regression(c: &mut Criterion) {
    let Ok(dir) = std::env::var("GNUGO_REGRESSION") else {
        return;
    };
    let mut group = c.benchmark_group("gnugo-regression");
    group.sample_size(10);
    let games = std::path::Path::new(&dir).join("games/unconditional");
    let Ok(entries) = std::fs::read_dir(&games) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(record) = goref_sgf::parse(&text) else {
            continue;
        };
        let Ok(start) = record.start_board() else {
            continue;
        };
        let game = Game::from_position(start, Color::Black, Ruleset::OLYMPIAD);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        group.bench_function(name, |b| {
            b.iter(|| {
                let judge = Judge::of_game(&game, Budget::default());
                default_removal(&judge, Disputes::All).score
            });
        });
    }
    group.finish();
}

criterion_group!(benches, judge_hard, judge_selfplay, judge_gnugo_regression);
criterion_main!(benches);
