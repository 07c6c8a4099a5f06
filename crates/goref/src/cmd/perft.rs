//! `goref perft`: count turn sequences, a move-generator check and a benchmark.
//!
//! A count can be split: `--part K/N` prints a part record instead of a bare number,
//!
//! ```text
//! goref-perft-part 1
//! board 2x2
//! rules tromp-taylor
//! mode games
//! part 3/8
//! count 48294613700
//! ```
//!
//! and `--sum FILES` adds the `N` records of one count (refusing records of different boards,
//! rules, modes or splits, a part twice, or a part missing).

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use goref_rules::perft::estimate::{self, estimate_games, EstimateOptions};
use goref_rules::perft::{perft_with, PerftMode, PerftOptions, Progress};
use goref_rules::{Game, Geometry, Preset, Ruleset, Shape};

/// Arguments of `goref perft`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["depth", "games", "sum"])))]
#[command(group(clap::ArgGroup::new("board").required(true).args(["size", "graph", "sum"])))]
pub struct Args {
    /// Board size, `WxH` or `N`.
    #[arg(long, value_parser = super::parse_size)]
    size: Option<(usize, usize)>,
    /// A board graph instead: a named shape (`path:N`, `cycle:N`, `grid:WxH`, `torus:WxH`) or
    /// a file listing points and edges (see docs/src/reference/graphs.md).
    #[arg(long, value_name = "SHAPE|FILE")]
    graph: Option<String>,
    /// Rules preset: tromp-taylor, nstt or olympiad.
    #[arg(long, default_value = "tromp-taylor", value_parser = super::parse_preset)]
    rules: Preset,
    /// Count sequences of exactly this many turns (a finished game does not continue).
    #[arg(long)]
    depth: Option<u32>,
    /// Count every complete game (two passes, or the long cycle rule under olympiad).
    #[arg(long)]
    games: bool,
    /// Threads to use (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Print the time taken, and where it went, on stderr.
    #[arg(long)]
    time: bool,
    /// Count only part K of N (complete games under positional superko): prints a part record
    /// for `--sum`.
    #[arg(long, value_name = "K/N", value_parser = parse_part)]
    part: Option<(u32, u32)>,
    /// Add the part records in these files and print the whole count.
    #[arg(long, value_name = "FILES", num_args = 1.., conflicts_with_all = ["rules", "part", "estimate"])]
    sum: Vec<std::path::PathBuf>,
    /// Megabytes of cache for the count of complete games under positional superko.
    #[arg(long, value_name = "MB", default_value_t = 256)]
    memory: usize,
    /// Estimate the number of complete games by sampling (positional superko) instead of
    /// counting them: prints the estimate and its 95% confidence interval.
    #[arg(long, requires = "games", conflicts_with = "part")]
    estimate: bool,
    /// Samples for `--estimate`.
    #[arg(long, default_value_t = 10_000, requires = "estimate")]
    samples: u64,
    /// Seed of the samples of `--estimate`.
    #[arg(long, default_value_t = 1, requires = "estimate")]
    seed: u64,
    /// For `--estimate`: sub-trees whose position can reach at most this many unvisited
    /// positions are counted exactly, not sampled.
    #[arg(long, value_name = "N", default_value_t = estimate::DEFAULT_EXACT_BELOW, requires = "estimate")]
    exact_below: u32,
    /// For `--estimate`: the growth rate λ of the proposal (a child is drawn with probability
    /// proportional to exp(λ · positions it can reach)).
    #[arg(long, default_value_t = estimate::DEFAULT_LAMBDA, requires = "estimate")]
    lambda: f64,
}

fn parse_part(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("part '{text}' is not K/N with 1 <= K <= N");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u32, u32) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The board as a part record names it: `WxH`, or `graph` with its points and edges.
fn board_name(geometry: &Geometry) -> String {
    if let (Shape::Rect { .. }, Some((w, h))) = (geometry.shape(), geometry.size()) {
        return format!("{w}x{h}");
    }
    let mut edges = Vec::new();
    for p in geometry.points() {
        for q in geometry.neighbors(p) {
            if p.index() < q.index() {
                edges.push(format!("{}-{}", p.index(), q.index()));
            }
        }
    }
    format!("graph {} {}", geometry.len(), edges.join(" "))
}

/// Runs `goref perft`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if !args.sum.is_empty() {
        return sum(&args.sum);
    }
    let rules = Ruleset::preset(args.rules);
    let game = match (&args.graph, args.size) {
        (Some(g), _) => Game::new(std::sync::Arc::new(super::read_graph(g)?), rules),
        (None, Some((w, h))) => Game::rect(w, h, rules)?,
        (None, None) => bail!("--size or --graph is required"),
    };
    let mode = match args.depth {
        Some(d) => PerftMode::Depth(d),
        None => PerftMode::Games,
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let started = Instant::now();
    if args.estimate {
        let options = EstimateOptions {
            samples: args.samples,
            seed: args.seed,
            exact_below: args.exact_below,
            lambda: args.lambda,
            threads,
            cache_bytes: args.memory << 20,
        };
        let e = estimate_games(&game, &options)?;
        println!(
            "{:.6e} games, 95% confidence interval [{:.6e}, {:.6e}] ({} samples, relative standard error {:.2}%)",
            e.mean,
            e.low,
            e.high,
            e.samples,
            100.0 * e.std_error / e.mean
        );
        eprintln!(
            "effective sample size {:.0}, largest sample {:.1}% of the sum",
            e.effective_samples,
            100.0 * e.largest_share
        );
        if !e.exact && e.effective_samples < estimate::MIN_EFFECTIVE_SAMPLES {
            eprintln!(
                "warning: the interval is unreliable: a few large samples dominate (effective sample size under {}); take more samples or raise --exact-below",
                estimate::MIN_EFFECTIVE_SAMPLES
            );
        }
        if args.time {
            eprintln!(
                "{:.3} s on {threads} threads: {} positions; exact counts below {} reachable positions: {} calls, {} cache hits",
                e.elapsed.as_secs_f64(),
                e.nodes,
                args.exact_below,
                e.stats.calls,
                e.stats.hits
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let last = Mutex::new(Instant::now());
    let progress = |p: Progress| {
        let mut last = last.lock().expect("no panics while counting");
        if p.elapsed >= Duration::from_secs(10) && last.elapsed() >= Duration::from_secs(10) {
            *last = Instant::now();
            let share = p.done as f64 / p.total as f64;
            let left = p.elapsed.as_secs_f64() * (1.0 - share) / share;
            eprintln!(
                "perft: {:.1}% done ({} of {} sub-problems), {:.0} s so far, about {:.0} s left",
                100.0 * share,
                p.done,
                p.total,
                p.elapsed.as_secs_f64(),
                left
            );
        }
    };
    let options = PerftOptions {
        threads,
        part: args.part,
        cache_bytes: args.memory << 20,
        progress: &progress,
    };
    let report = perft_with(&game, mode, &options)?;
    match args.part {
        Some((k, n)) => {
            println!("goref-perft-part 1");
            println!("board {}", board_name(game.geometry()));
            println!("rules {rules}");
            println!(
                "mode {}",
                match mode {
                    PerftMode::Games => "games".to_string(),
                    PerftMode::Depth(d) => format!("depth {d}"),
                }
            );
            println!("part {k}/{n}");
            println!("count {}", report.count);
        }
        None => println!("{}", report.count),
    }
    if args.time {
        let total = started.elapsed().as_secs_f64();
        match &report.paths {
            Some(p) => {
                let s = p.stats;
                eprintln!(
                    "{total:.3} s on {threads} threads: graph {:.3} s ({} positions, {} symmetries), split {:.3} s (depth {}, {} sub-problems), count {:.3} s",
                    p.build.as_secs_f64(),
                    p.nodes,
                    p.symmetries,
                    p.splitting.as_secs_f64(),
                    p.split_depth,
                    p.sub_problems,
                    p.counting.as_secs_f64(),
                );
                eprintln!(
                    "count: {} calls, {} cache hits, {} stored, {} replaced in a cache of {} MB",
                    s.calls,
                    s.hits,
                    s.stored,
                    s.replaced,
                    p.cache_bytes >> 20
                );
            }
            None => eprintln!("{total:.3} s on {threads} threads"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One part record.
#[derive(PartialEq, Eq)]
struct PartRecord {
    board: String,
    rules: String,
    mode: String,
    part: (u32, u32),
    count: u128,
}

fn read_part(text: &str) -> anyhow::Result<PartRecord> {
    let mut fields = BTreeMap::new();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    if lines.next() != Some("goref-perft-part 1") {
        bail!("not a part record: the first line is not 'goref-perft-part 1'");
    }
    for line in lines {
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        if fields.insert(key, value.trim()).is_some() {
            bail!("'{key}' given twice");
        }
    }
    let mut field = |key: &str| {
        fields
            .remove(key)
            .map(str::to_string)
            .with_context(|| format!("no '{key}' line"))
    };
    let record = PartRecord {
        board: field("board")?,
        rules: field("rules")?,
        mode: field("mode")?,
        part: parse_part(&field("part")?).map_err(anyhow::Error::msg)?,
        count: field("count")?
            .parse()
            .context("the count is not a number")?,
    };
    if let Some(key) = fields.keys().next() {
        bail!("unknown line '{key}'");
    }
    Ok(record)
}

fn sum(files: &[std::path::PathBuf]) -> anyhow::Result<ExitCode> {
    let mut records: Vec<PartRecord> = Vec::new();
    for file in files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let record = read_part(&text).with_context(|| file.display().to_string())?;
        if let Some(first) = records.first() {
            for (what, a, b) in [
                ("board", &first.board, &record.board),
                ("rules", &first.rules, &record.rules),
                ("mode", &first.mode, &record.mode),
            ] {
                if a != b {
                    bail!(
                        "{}: {what} '{b}' differs from '{a}' in {}",
                        file.display(),
                        files[0].display()
                    );
                }
            }
            if record.part.1 != first.part.1 {
                bail!(
                    "{}: part {}/{} is of a split into {}, {} is of a split into {}",
                    file.display(),
                    record.part.0,
                    record.part.1,
                    record.part.1,
                    files[0].display(),
                    first.part.1
                );
            }
        }
        if records.iter().any(|r| r.part == record.part) {
            bail!(
                "{}: part {}/{} given twice",
                file.display(),
                record.part.0,
                record.part.1
            );
        }
        records.push(record);
    }
    let n = records[0].part.1;
    let missing: Vec<String> = (1..=n)
        .filter(|k| !records.iter().any(|r| r.part.0 == *k))
        .map(|k| k.to_string())
        .collect();
    if !missing.is_empty() {
        bail!("parts missing of {n}: {}", missing.join(", "));
    }
    println!("{}", records.iter().map(|r| r.count).sum::<u128>());
    Ok(ExitCode::SUCCESS)
}
