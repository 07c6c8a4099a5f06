//! The solver's benchmark: solves empty boards and prints a table row for each: board, rules,
//! value, nodes, time, and the bounds proved as it goes on standard error.
//!
//! `cargo run --release -p goref-solve --example measure -- 3x3:nstt 4x4:tromp-taylor 1x7:olympiad`
//! (komi 0 unless `:K` follows the rules: `5x5:nstt:0`; then moves from the empty board may
//! follow: `5x5:nstt:0:c3,b2`; `--budget N` caps the nodes of each, `--table N` sizes the
//! transposition table, `--threads N` searches with N threads, 1 by default). Without boards,
//! the standard set: 1×1 to 1×7, 2×2 to 2×4 and 3×3 under nstt, tromp-taylor and olympiad (a
//! minute or so).

use std::sync::Arc;

use goref_rules::{Game, Geometry, Komi, Preset, Ruleset};
use goref_solve::{solve, Options, Verdict};

fn main() {
    let mut options = Options {
        progress: Some(|p| {
            let show = |v: Option<goref_solve::Value>| v.map_or("-".into(), |v| v.to_string());
            eprintln!(
                "  proved [{}, {}] after {} nodes, {:.1?}",
                show(p.lower),
                show(p.upper),
                p.nodes,
                p.elapsed
            );
        }),
        ..Options::default()
    };
    let mut args = std::env::args().skip(1).peekable();
    let mut boards = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--budget" => options.budget = args.next().and_then(|n| n.parse().ok()),
            "--threads" => options.threads = args.next().and_then(|n| n.parse().ok()).unwrap_or(1),
            "--table" => {
                options.table_entries = args.next().and_then(|n| n.parse().ok()).unwrap_or(1 << 22)
            }
            _ => boards.push(arg),
        }
    }
    if boards.is_empty() {
        for rules in ["nstt", "tromp-taylor", "olympiad"] {
            for size in [
                "1x1", "1x2", "1x3", "1x4", "1x5", "1x6", "1x7", "2x2", "2x3", "2x4", "3x3",
            ] {
                boards.push(format!("{size}:{rules}"));
            }
        }
    }
    println!("| board | rules | value | nodes | PV nodes | time | PV |");
    println!("|---|---|---|---|---|---|---|");
    for spec in boards {
        let mut parts = spec.split(':');
        let size = parts.next().unwrap_or("3x3");
        let preset: Preset = parts.next().unwrap_or("nstt").parse().expect("a preset");
        let komi: Komi = parts.next().unwrap_or("0").parse().expect("a komi");
        let (w, h) = size.split_once('x').expect("WxH");
        let geometry = Geometry::rect(w.parse().unwrap(), h.parse().unwrap()).expect("a size");
        let mut game = Game::new(Arc::new(geometry), Ruleset::preset(preset).with_komi(komi));
        for name in parts
            .next()
            .unwrap_or("")
            .split(',')
            .filter(|n| !n.is_empty())
        {
            let mv = if name == "pass" {
                goref_rules::Move::Pass
            } else {
                goref_rules::Move::Play(game.geometry().parse_point(name).expect("a point"))
            };
            game.play(mv).expect("a legal move");
        }
        let report = solve(&game, &options).expect("solvable");
        let value = match report.verdict {
            Verdict::Proven(v) => v.to_string(),
            Verdict::Undecided { lower, upper } => format!(
                "undecided [{}, {}]",
                lower.map_or("-".into(), |v| v.to_string()),
                upper.map_or("-".into(), |v| v.to_string())
            ),
        };
        let pv: Vec<String> = report
            .pv
            .iter()
            .map(|m| match m {
                goref_rules::Move::Pass => "pass".to_string(),
                goref_rules::Move::Play(p) => game.geometry().name(*p),
            })
            .collect();
        println!(
            "| {size} | {preset} | {value} | {} | {} | {:.2?} | {} |",
            report.nodes,
            report.pv_nodes,
            report.elapsed,
            pv.join(" ")
        );
    }
}
