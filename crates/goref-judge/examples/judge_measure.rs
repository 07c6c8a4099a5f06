//! Judges every finished game in a directory and prints the distribution of judging time and
//! of verdicts (undecided blocks above all), for issue 5's performance figure.
//!
//!     cargo run --release -p goref-judge --example judge_measure -- DIR [--budget N] [--rules R] [--threads T] [--repeat N]
//!
//! Each `.sgf` file is replayed under the rules (default olympiad); games that did not end by
//! two passes are skipped. Every block is treated as disputed (3.9.2's worst case). With
//! `--repeat N` each game is judged N times and the least time kept (steadier on a loaded
//! machine); with `--threads 1` each game's CPU time is printed too (the least of the N), and
//! its distribution.

use goref_judge::{Budget, Verdict};
use goref_rules::{Color, End, Game, Preset, Ruleset};

mod timing;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .expect("usage: measure DIR [--budget N] [--rules R]");
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    let mut budget = Budget::default();
    if let Some(n) = value("--budget") {
        let n: u64 = n.parse().expect("--budget N");
        budget = Budget {
            region_nodes: n,
            eye_nodes: n,
            capture_nodes: n,
        };
    }
    let preset: Preset = value("--rules").map_or(Preset::Olympiad, |r| r.parse().unwrap());
    let repeat: usize = value("--repeat").map_or(1, |r| r.parse().expect("--repeat N"));
    let threads: usize = value("--threads").map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        |t| t.parse().expect("--threads T"),
    );
    let mut cpu_times = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("a directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
        .collect();
    paths.sort();
    let mut times = Vec::new();
    let mut counts = [0usize; 4];
    let mut undecided_games = 0;
    let mut worst = (0.0, String::new());
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let record = goref_sgf::parse(&text).unwrap();
        let rules = Ruleset::preset(preset).with_komi(record.komi.unwrap_or_default());
        let mut game = Game::from_position(record.start_board().unwrap(), Color::Black, rules);
        let mut ok = true;
        for m in &record.moves {
            if game.play(m.mv).is_err() {
                ok = false;
                break;
            }
        }
        if !ok || game.end() != Some(End::TwoPasses) {
            eprintln!("skipped {} (end {:?})", path.display(), game.end());
            continue;
        }
        let (removal, seconds, cpu) = timing::judge_least_of(&game, budget, threads, repeat);
        cpu_times.extend(cpu);
        let mut undecided = 0;
        for v in &removal.disputed {
            let i = match v.verdict {
                Verdict::PassAlive => 0,
                Verdict::DeadBy39 { .. } => 1,
                Verdict::AliveByDefault(_) => 2,
                Verdict::Undecided { .. } => {
                    undecided += 1;
                    3
                }
            };
            counts[i] += 1;
        }
        if undecided > 0 {
            undecided_games += 1;
        }
        println!(
            "{} moves {} blocks {} removed {} undecided {} score {} {:.4} s{}",
            path.file_name().unwrap().to_string_lossy(),
            game.moves().len(),
            removal.disputed.len(),
            removal.removed.len(),
            undecided,
            removal.score.outcome(),
            seconds,
            cpu.map_or(String::new(), |c| format!("  cpu {c:.4} s"))
        );
        if seconds > worst.0 {
            worst = (seconds, path.display().to_string());
        }
        times.push(seconds);
    }
    if times.is_empty() {
        println!("no finished games");
        return;
    }
    times.sort_by(f64::total_cmp);
    let q = |f: f64| times[((times.len() - 1) as f64 * f).round() as usize];
    println!(
        "{} games: time min {:.4} median {:.4} p90 {:.4} p99 {:.4} max {:.4} s (worst {})",
        times.len(),
        q(0.0),
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0),
        worst.1
    );
    if cpu_times.len() == times.len() {
        cpu_times.sort_by(f64::total_cmp);
        let q = |f: f64| cpu_times[((cpu_times.len() - 1) as f64 * f).round() as usize];
        println!(
            "CPU time (one thread): median {:.4} p90 {:.4} max {:.4} s",
            q(0.5),
            q(0.9),
            q(1.0)
        );
    }
    println!(
        "blocks: pass-alive {} dead {} alive-by-default {} undecided {} (games with an undecided block: {})",
        counts[0], counts[1], counts[2], counts[3], undecided_games
    );
}
