//! Judging a finished 19×19 game (GNU Go against itself, bundled in `tests/data`).

use criterion::{criterion_group, criterion_main, Criterion};
use goref_judge::{default_removal, Budget, Disputes, Judge};
use goref_rules::{Color, Game, Ruleset};

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

fn judge_19x19(c: &mut Criterion) {
    let mut group = c.benchmark_group("judge");
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

criterion_group!(benches, judge_19x19);
criterion_main!(benches);
