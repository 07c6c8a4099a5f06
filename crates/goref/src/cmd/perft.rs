//! `goref perft`: count turn sequences, a move-generator check and a benchmark.

use std::process::ExitCode;
use std::time::Instant;

use goref_rules::perft::{perft, PerftMode};
use goref_rules::{Game, Preset, Ruleset};

/// Arguments of `goref perft`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["depth", "games"])))]
#[command(group(clap::ArgGroup::new("board").required(true).args(["size", "graph"])))]
pub struct Args {
    /// Board size, `WxH` or `N`.
    #[arg(long, value_parser = super::parse_size)]
    size: Option<(usize, usize)>,
    /// A board graph instead: a named shape (`path:N`, `cycle:N`, `grid:WxH`, `torus:WxH`) or
    /// a file listing points and edges (see the README).
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
    /// Print the time taken on stderr.
    #[arg(long)]
    time: bool,
}

/// Runs `goref perft`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let rules = Ruleset::preset(args.rules);
    let game = match (&args.graph, args.size) {
        (Some(g), _) => Game::new(std::sync::Arc::new(super::read_graph(g)?), rules),
        (None, Some((w, h))) => Game::rect(w, h, rules)?,
        (None, None) => anyhow::bail!("--size or --graph is required"),
    };
    let mode = match args.depth {
        Some(d) => PerftMode::Depth(d),
        None => PerftMode::Games,
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let started = Instant::now();
    let count = perft(&game, mode, threads)?;
    println!("{count}");
    if args.time {
        eprintln!(
            "{:.3} s on {threads} threads",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}
