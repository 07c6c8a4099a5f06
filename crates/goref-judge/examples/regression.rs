//! Judges the positions of GNU Go's regression suite for unconditional status and compares
//! 3.9's verdicts with GNU Go's expected answers.
//!
//!     GNUGO_REGRESSION=/tmp/gnugo-regression \
//!         cargo run --release -p goref-judge --example regression -- \
//!             [--budget N] [--rules R] [--ko K] [--threads T] [--only NAME] [--repeat N] [-v] [--verdicts]
//!
//! The directory (also accepted as the first argument) holds `unconditional.tst` and the
//! `games/unconditional/*.sgf` files it loads, copied from GNU Go's `regression/` directory
//! (GNU Go is GPL: its files are not part of goref). Every `loadsgf` starts a position; each
//! `play` command makes a new one. Every block of each position is judged as disputed (3.9.2's
//! worst case); the program prints, per position, the verdict counts, the search nodes and the
//! time, then their distribution, then every test item whose answer differs in kind from GNU
//! Go's: GNU Go `alive` on a block that is not pass-alive under 3.9, GNU Go `dead` on a block
//! 3.9 keeps, or GNU Go `alive`/`undecided` on a block 3.9 removes. `-v` prints each block
//! judged again alone (its own nodes and time); `--verdicts` prints each block's verdict as
//! judged in its position, with its evidence (for comparing the judge's answers before and
//! after a change; each capturing line is replayed on a `Game` and checked to remove its
//! block); `--only NAME` judges only the position of that name; `--repeat N` judges
//! each position N times and reports the least time (steadier on a loaded machine). With
//! `--threads 1` each position's CPU time is printed too (the least of the N), and its
//! distribution.

use std::path::{Path, PathBuf};
use std::time::Instant;

use goref_judge::{Budget, Judge, Keep, Verdict};
use goref_rules::{Color, Game, Move, Preset, Ruleset};

mod timing;

struct Item {
    number: String,
    point: String,
    expected: String,
}

struct Position {
    name: String,
    /// The SGF file, or the size of an empty board (`boardsize` and `clear_board`).
    file: Result<PathBuf, usize>,
    plays: Vec<(Color, String)>,
    items: Vec<Item>,
}

fn parse_tst(dir: &Path) -> Vec<Position> {
    let text = std::fs::read_to_string(dir.join("unconditional.tst"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("unconditional.tst").display()));
    let mut positions: Vec<Position> = Vec::new();
    let mut pending: Option<(String, String)> = None;
    let mut size = 19;
    for line in text.lines() {
        let line = line.trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(file) = line.strip_prefix("loadsgf ") {
            let file = file.trim();
            positions.push(Position {
                name: Path::new(file)
                    .file_stem()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                file: Ok(dir.join(file)),
                plays: Vec::new(),
                items: Vec::new(),
            });
        } else if words.first() == Some(&"boardsize") && words.len() == 2 {
            size = words[1].parse().expect("a board size");
        } else if words.first() == Some(&"clear_board") {
            positions.push(Position {
                name: format!("empty{size}x{size}"),
                file: Err(size),
                plays: Vec::new(),
                items: Vec::new(),
            });
        } else if words.first() == Some(&"play") && words.len() == 3 {
            let last = positions.last().expect("play after loadsgf");
            let color = if words[1].eq_ignore_ascii_case("black") {
                Color::Black
            } else {
                Color::White
            };
            let mut plays = last.plays.clone();
            plays.push((color, words[2].to_string()));
            let name = format!("{}+{}{}", last.name, color.letter(), words[2]);
            let file = last.file.clone();
            positions.push(Position {
                name,
                file,
                plays,
                items: Vec::new(),
            });
        } else if words.len() == 3 && words[1] == "unconditional_status" {
            pending = Some((words[0].to_string(), words[2].to_string()));
        } else if let Some(rest) = line.strip_prefix("#?") {
            if let Some((number, point)) = pending.take() {
                let expected = rest
                    .trim()
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_string();
                positions.last_mut().unwrap().items.push(Item {
                    number,
                    point,
                    expected,
                });
            }
        }
    }
    positions
}

fn game_of(position: &Position, rules: Ruleset) -> Game {
    let start = match &position.file {
        Ok(file) => {
            let text =
                std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let record = goref_sgf::parse(&text).expect("an SGF file");
            record.start_board().expect("a start position")
        }
        Err(size) => goref_rules::Board::new(std::sync::Arc::new(
            goref_rules::Geometry::rect(*size, *size).expect("a board size"),
        )),
    };
    let first = position.plays.first().map_or(Color::Black, |p| p.0);
    let mut game = Game::from_position(start, first, rules);
    for (color, name) in &position.plays {
        if game.to_move() != *color {
            game.play(Move::Pass).unwrap();
        }
        let p = game.geometry().parse_point(name).expect("a point");
        game.play(Move::Play(p)).expect("a legal play");
    }
    game
}

fn kind(v: &Verdict) -> &'static str {
    match v {
        Verdict::PassAlive => "pass-alive",
        Verdict::DeadBy39 { .. } => "dead",
        Verdict::AliveByDefault(Keep::CanBecomePassAlive { .. }) => "can-become-pass-alive",
        Verdict::AliveByDefault(Keep::NotLocallyCapturable) => "not-locally-capturable",
        Verdict::Undecided { .. } => "undecided",
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    let dir = args
        .first()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .or_else(|| std::env::var("GNUGO_REGRESSION").ok())
        .expect("usage: GNUGO_REGRESSION=DIR regression [--budget N] [--rules R] [--ko K] [--threads T] [--only NAME] [--repeat N] [-v] [--verdicts]");
    let verbose = args.iter().any(|a| a == "-v");
    let verdicts = args.iter().any(|a| a == "--verdicts");
    let only = value("--only");
    let repeat: usize = value("--repeat").map_or(1, |r| r.parse().expect("--repeat N"));
    let threads: usize = value("--threads").map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        |t| t.parse().expect("--threads T"),
    );
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
    let mut rules = Ruleset::preset(preset);
    if let Some(ko) = value("--ko") {
        rules.ko = ko.parse().unwrap();
    }
    let positions = parse_tst(Path::new(&dir));
    let mut times = Vec::new();
    let mut all_nodes = Vec::new();
    let mut cpu_times = Vec::new();
    let mut replayed = 0;
    let mut total = [0usize; 5];
    let mut differences = Vec::new();
    for position in &positions {
        if only.is_some_and(|name| *name != position.name) {
            continue;
        }
        let game = game_of(position, rules);
        let (removal, seconds, cpu) = timing::judge_least_of(&game, budget, threads, repeat);
        let nodes: u64 = removal.disputed.iter().map(|v| v.nodes).sum();
        let mut counts = [0usize; 5];
        for v in &removal.disputed {
            let i = match kind(&v.verdict) {
                "pass-alive" => 0,
                "dead" => 1,
                "can-become-pass-alive" => 2,
                "not-locally-capturable" => 3,
                _ => 4,
            };
            counts[i] += 1;
            total[i] += 1;
        }
        println!(
            "{:<26} blocks {:>3}: pass-alive {:>3} dead {:>3} can-live {:>3} not-capturable {:>3} undecided {:>3}  nodes {:>9}  {:>9.4} s{}",
            position.name,
            removal.disputed.len(),
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            counts[4],
            nodes,
            seconds,
            cpu.map_or(String::new(), |c| format!("  cpu {c:.4} s"))
        );
        let g = game.geometry();
        if verdicts {
            for v in &removal.disputed {
                if let Verdict::DeadBy39 { line } = &v.verdict {
                    replay_capture(&game, rules, v.block.anchor(), line);
                    replayed += 1;
                }
                let evidence = match &v.verdict {
                    Verdict::DeadBy39 { line } => line
                        .iter()
                        .map(|(c, m)| match m {
                            Move::Play(p) => format!("{}{}", c.letter(), g.name(*p)),
                            Move::Pass => format!("{}pass", c.letter()),
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                    Verdict::AliveByDefault(Keep::CanBecomePassAlive { plays }) => plays
                        .iter()
                        .map(|p| g.name(*p))
                        .collect::<Vec<_>>()
                        .join(" "),
                    Verdict::Undecided { reason } => reason.clone(),
                    _ => String::new(),
                };
                println!(
                    "    {} {} (+{}): {} region {} [{}]",
                    v.block.color.letter(),
                    g.name(v.block.anchor()),
                    v.block.stones.len() - 1,
                    kind(&v.verdict),
                    v.region_points,
                    evidence
                );
            }
        }
        if verbose {
            // Each block judged again alone, for its own nodes and time.
            for v in &removal.disputed {
                let start = Instant::now();
                let alone = Judge::of_game(&game, budget).judge_block(v.block.anchor());
                let seconds = start.elapsed().as_secs_f64();
                println!(
                    "    {} {} (+{}): {}  [{} nodes, region {} points, {:.4} s alone]",
                    v.block.color.letter(),
                    g.name(v.block.anchor()),
                    v.block.stones.len() - 1,
                    match &alone.verdict {
                        Verdict::Undecided { reason } => format!("undecided: {reason}"),
                        other => kind(other).to_string(),
                    },
                    alone.nodes,
                    alone.region_points,
                    seconds
                );
            }
        }
        for item in &position.items {
            let Some(p) = g.parse_point(&item.point) else {
                continue;
            };
            let Some(v) = removal
                .disputed
                .iter()
                .find(|v| v.block.stones.contains(&p))
            else {
                continue; // an empty point: GNU Go's territory answers
            };
            let ours = kind(&v.verdict);
            let differs = match item.expected.as_str() {
                "alive" => ours != "pass-alive",
                "dead" => ours != "dead",
                _ => ours == "dead",
            };
            if differs {
                differences.push(format!(
                    "{:<26} test {:>3} {:<4} {} block of {:>2}: GNU Go {:<9} 3.9 {}",
                    position.name,
                    item.number,
                    item.point,
                    v.block.color.letter(),
                    v.block.stones.len(),
                    item.expected,
                    ours
                ));
            }
        }
        times.push(seconds);
        cpu_times.extend(cpu);
        all_nodes.push(nodes);
    }
    if times.is_empty() {
        println!("no position judged");
        return;
    }
    times.sort_by(f64::total_cmp);
    cpu_times.sort_by(f64::total_cmp);
    all_nodes.sort_unstable();
    let q = |f: f64| ((times.len() - 1) as f64 * f).round() as usize;
    println!(
        "{} positions ({preset}): time median {:.4} p90 {:.4} max {:.4} s; nodes median {} p90 {} max {}",
        times.len(),
        times[q(0.5)],
        times[q(0.9)],
        times[q(1.0)],
        all_nodes[q(0.5)],
        all_nodes[q(0.9)],
        all_nodes[q(1.0)],
    );
    if cpu_times.len() == times.len() {
        println!(
            "CPU time (one thread): median {:.4} p90 {:.4} max {:.4} s",
            cpu_times[q(0.5)],
            cpu_times[q(0.9)],
            cpu_times[q(1.0)],
        );
    }
    println!(
        "blocks: pass-alive {} dead {} can-become-pass-alive {} not-locally-capturable {} undecided {}",
        total[0], total[1], total[2], total[3], total[4]
    );
    if verdicts {
        println!("capturing lines replayed on a Game: {replayed}, each removes its block");
    }
    println!("test items whose answer differs in kind from GNU Go's:");
    for d in &differences {
        println!("  {d}");
    }
}
/// Plays a capturing line (the block's colour first) on a game of the position under the
/// rules, resuming after two passes; panics unless every move is legal and the block of
/// `stone` is gone at the end.
fn replay_capture(game: &Game, rules: Ruleset, stone: goref_rules::Point, line: &[(Color, Move)]) {
    let color = game.board().get(stone).expect("a stone");
    let mut replay = Game::from_position(game.board().clone(), color, rules);
    for &(c, mv) in line {
        if replay.end() == Some(goref_rules::End::TwoPasses) {
            replay.resume();
        }
        assert_eq!(replay.to_move(), c, "{line:?}");
        replay
            .play(mv)
            .unwrap_or_else(|e| panic!("{mv:?} in {line:?}: {e:?}"));
    }
    assert_ne!(replay.board().get(stone), Some(color), "{line:?}");
}
