//! `goref tune`: SPSA tuning of an engine's parameters, as fishtest tunes Stockfish's. The
//! work is `goref_tune`'s; this reads the flags (the game settings and openings as `goref
//! match` and `goref tournament` read them) and prints.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context as _};
use goref_gtp::EngineSpec;
use goref_match::config::FileConfig;
use goref_tune::{Param, Schedule, TuneConfig};

use super::match_cmd::{game_settings, GameArgs};

/// Arguments of `goref tune`.
#[derive(clap::Args)]
#[command(after_help = "\
Each step plays a pair of games between the engine at θ+c·Δ and at θ−c·Δ (Δ a random ±1 for \
every parameter; colours swapped, the same opening), or each of them against --opponent, and \
moves every parameter by a/c·r·Δ, r the pair's result for θ+c·Δ (its points minus θ−c·Δ's). \
The gains are fishtest's: c_k = c/(k+1)^γ, a_k = a/(A+k+1)^α, α = 0.602, γ = 0.101, A = a \
tenth of the steps, given at the last step as C_END (default: a twentieth of the range, at \
least 1 for an integer parameter) and R_END = a_end/c_end² (default 0.1; fishtest's usual \
0.002 suits tens of thousands of games).

Files in --out: tune.json (`{\"params\": {NAME: value}, \"games\", \"steps\", \"theta\", \
\"settings\", \"history\"}`, rewritten atomically after every pair), tune.csv (θ after each \
step), tune.svg (the trajectory, each parameter scaled to its range), games/ (records and \
logs). Running again with the same --out resumes (after Ctrl-C or a kill, the unfinished pair \
is played again); other settings are refused.

Not yet: --queue (the games of a tune are played here only).

Example: goref tune --engine 'goref engine tunable --x {x}' --param x=10,0:100 --games 300 \
--size 5 --rules tromp-taylor --time none --jobs 2 --out tune-x

Exit status: 0 when the tune ends (or was already done), 128 + the signal when stopped by one, \
2 when it cannot be run. The book's chapter `goref tune` has more.")]
pub struct Args {
    /// The engine: a command line with `{NAME}` where each parameter's value goes (`"myengine
    /// --lambda {lambda}"`), started afresh for every game; or, with --set, a command (or
    /// `tcp://host:port`) run as it is and kept between games.
    #[arg(long, value_name = "CMD")]
    engine: String,
    /// Send the parameters over GTP instead: this command, `{name}` and `{value}`
    /// substituted, once per parameter before every game (`'set_param {name} {value}'`).
    #[arg(long, value_name = "GTP-COMMAND")]
    set: Option<String>,
    /// A parameter: `NAME=START,MIN:MAX`, optionally `,C_END` and `,R_END` (fishtest's
    /// constants at the last step). Whole numbers in START, MIN and MAX make an integer
    /// parameter (the engine is given rounded values). Repeat for each parameter.
    #[arg(
        long,
        required = true,
        value_name = "NAME=START,MIN:MAX[,C_END[,R_END]]"
    )]
    param: Vec<String>,
    /// A fixed opponent: θ+c·Δ and θ−c·Δ each play it once a step (the same colour, alternating
    /// by step) instead of playing each other.
    #[arg(long, value_name = "CMD")]
    opponent: Option<String>,
    /// Games of the whole tune, an even number: games/2 steps.
    #[arg(long, value_name = "N")]
    games: usize,
    /// Games played at once (with 2, a pair's two games together).
    #[arg(long, short = 'j', default_value_t = 1, value_name = "N")]
    jobs: usize,
    /// The tune's folder (required: running again resumes it).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// An SGF file or a folder of them: step k's two games start from opening k (in turn).
    #[arg(long, value_name = "PATH")]
    openings: Option<PathBuf>,
    /// Seed of the perturbations (default: from the clock; a resumed tune keeps its own).
    #[arg(long)]
    seed: Option<u64>,
    /// The exponent α of a_k.
    #[arg(long, default_value_t = Schedule::ALPHA)]
    alpha: f64,
    /// The exponent γ of c_k.
    #[arg(long, default_value_t = Schedule::GAMMA)]
    gamma: f64,
    /// The stability constant A of a_k (default: a tenth of the steps).
    #[arg(long = "A", value_name = "A")]
    stability: Option<f64>,
    /// R_END for the parameters that give none: a_end/c_end², the share of c a parameter
    /// moves per point of result at the last step.
    #[arg(long, default_value_t = Schedule::R_END, value_name = "R")]
    r_end: f64,
    /// No progress line.
    #[arg(long)]
    quiet: bool,
    /// The game settings, as in `goref match`.
    #[command(flatten)]
    game: GameArgs,
}

/// Builds the tune from the flags.
fn config(args: &Args) -> anyhow::Result<TuneConfig> {
    if args.games < 2 || !args.games.is_multiple_of(2) {
        bail!(
            "--games {}: an even number from 2 (each step is a pair of games)",
            args.games
        );
    }
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let params = args
        .param
        .iter()
        .map(|p| p.parse::<Param>())
        .collect::<Result<Vec<_>, _>>()?;
    let engine = EngineSpec::parse(&args.engine)
        .map_err(anyhow::Error::msg)
        .context("--engine")?;
    let opponent = args
        .opponent
        .as_deref()
        .map(|o| {
            EngineSpec::parse(o)
                .map_err(anyhow::Error::msg)
                .context("--opponent")
        })
        .transpose()?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let mut schedule = Schedule::new(args.games / 2, seed);
    schedule.alpha = args.alpha;
    schedule.gamma = args.gamma;
    if let Some(a) = args.stability {
        schedule.stability = a;
    }
    schedule.r_end = args.r_end;
    let settings = game_settings(&args.game, &FileConfig::default(), false)?;
    let openings = match &args.openings {
        Some(path) => super::tournament::read_openings(path, &settings)?,
        None => Vec::new(),
    };
    let config = TuneConfig {
        engine,
        set: args.set.clone(),
        opponent,
        params,
        schedule,
        seed_chosen: args.seed.is_some(),
        settings,
        openings,
        jobs: args.jobs.min(64),
        out: args.out.clone(),
    };
    config.check()?;
    Ok(config)
}

/// Runs `goref tune`: the parameters found on standard output.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let config = config(args)?;
    let out = config.out.clone();
    let names: Vec<String> = config.params.iter().map(|p| p.name.clone()).collect();
    let steps = config.schedule.steps;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let progress = !args.quiet && std::io::stderr().is_terminal();
    let signal = std::sync::Arc::new(std::sync::atomic::AtomicI32::new(0));
    let caught = signal.clone();
    let stop = async move {
        let number = super::stopped().await;
        caught.store(number, std::sync::atomic::Ordering::SeqCst);
    };
    let outcome = rt
        .block_on(goref_tune::run_tune(config, stop, |record, spsa| {
            if progress {
                let theta: Vec<String> = spsa
                    .params()
                    .iter()
                    .zip(&record.theta)
                    .map(|(p, v)| format!("{}={v:.2}", p.name))
                    .collect();
                eprint!(
                    "\r\x1b[Kstep {}/{steps} ({} games): r={:+} {}",
                    record.step,
                    2 * record.step,
                    record.result,
                    theta.join(" ")
                );
            }
        }))
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("tune in {}", out.display()))?;
    if progress {
        eprintln!();
    }
    drop(rt);
    let spsa = &outcome.spsa;
    for ((p, value), theta) in spsa.params().iter().zip(spsa.values()).zip(spsa.theta()) {
        outln!(
            "{} = {}   (θ {theta:.3}, started at {}, range {}:{})",
            p.name,
            p.show(value),
            p.show(p.start),
            p.show(p.min),
            p.show(p.max)
        );
    }
    let wall = outcome.wall.as_secs_f64();
    outln!(
        "{} of {steps} steps ({} games){}; this run: {} in {wall:.1}s ({:.2} games/s){}",
        spsa.done(),
        2 * spsa.done(),
        if outcome.resumed > 0 {
            format!(", {} resumed", outcome.resumed)
        } else {
            String::new()
        },
        goref_runner::count(outcome.played, "game"),
        if wall > 0.0 {
            outcome.played as f64 / wall
        } else {
            0.0
        },
        if outcome.forfeits > 0 {
            format!(", {} forfeited", outcome.forfeits)
        } else {
            String::new()
        }
    );
    outln!(
        "tune.json, tune.csv and tune.svg in {} ({})",
        out.display(),
        names.join(", ")
    );
    let number = signal.load(std::sync::atomic::Ordering::SeqCst);
    if outcome.interrupted {
        eprintln!("goref: tune stopped by a signal; running again with the same --out resumes it");
        return Ok(super::signal_exit(Some(number)));
    }
    Ok(ExitCode::SUCCESS)
}
