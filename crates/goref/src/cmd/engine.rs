//! `goref engine NAME`: goref's built-in GTP engines on standard input and output (or a TCP
//! port), so that matches and tests need no other program.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use goref_gtp::engines::{serve_tcp, BuiltinEngine, Faults, Script, Tunable};

/// Arguments of `goref engine`.
#[derive(clap::Args)]
pub struct Args {
    /// `random` (uniform legal moves that fill no own eye), `faulty` (the same, with the
    /// misbehaviours below), `scripted` (plays `--moves`, answers `--dead`) or `tunable` (a
    /// parameter `x` with a known best value, for `goref tune`: each move is the greedy one,
    /// largest area score after it, with probability max(0, 1 - |x - peak| / width), else a
    /// pass; GTP `set_param x V` changes x).
    #[arg(value_parser = ["random", "faulty", "scripted", "tunable"])]
    name: String,
    /// tunable: the parameter's value at start.
    #[arg(
        long,
        value_name = "V",
        allow_hyphen_values = true,
        default_value_t = 0.0
    )]
    x: f64,
    /// tunable: the value of x at which the engine is strongest.
    #[arg(long, value_name = "V", allow_hyphen_values = true, default_value_t = Tunable::PEAK)]
    peak: f64,
    /// tunable: how far from the peak the greedy moves stop altogether.
    #[arg(long, value_name = "W", default_value_t = Tunable::WIDTH)]
    width: f64,
    /// Seed of the move generator (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Serve GTP on this TCP address (`127.0.0.1:5000`) instead of standard input/output, a
    /// fresh engine for each connection.
    #[arg(long)]
    listen: Option<String>,
    /// faulty: exit (status 3, no reply) at the genmove after the first N.
    #[arg(long, value_name = "N")]
    crash_after: Option<usize>,
    /// faulty: never answer the genmove after the first N.
    #[arg(long, value_name = "N")]
    hang_after: Option<usize>,
    /// faulty: after N genmoves, print bytes that are not UTF-8 and answer with no vertex.
    #[arg(long, value_name = "N")]
    garbage_after: Option<usize>,
    /// faulty: resign at the genmove after the first N.
    #[arg(long, value_name = "N")]
    resign_after: Option<usize>,
    /// faulty: wait this long before each genmove reply (`250ms`, `2s`).
    #[arg(long, value_parser = goref_match::clock::parse_duration)]
    slow: Option<Duration>,
    /// faulty: answer these genmoves (counted from 1) with an illegal move: `3` or `3,5`.
    #[arg(long, value_delimiter = ',', value_name = "N,…")]
    illegal_at: Vec<usize>,
    /// faulty: exit with status 1 before reading any command (an engine that cannot start).
    #[arg(long)]
    exit_at_start: bool,
    /// faulty: refuse every `boardsize` (an engine that starts but cannot be set up).
    #[arg(long)]
    refuse_boardsize: bool,
    /// Options of the scripted engine (boxed: they are rarely used).
    #[command(flatten)]
    script: Box<ScriptArgs>,
}

/// Options of `goref engine scripted`.
#[derive(clap::Args)]
struct ScriptArgs {
    /// scripted: replies to successive genmoves, `c3,pass,d4` (then passes).
    #[arg(long, value_delimiter = ',', value_name = "MOVE,…")]
    moves: Vec<String>,
    /// scripted: list `kgs-genmove_cleanup` and answer it with these moves (then passes).
    #[arg(long, value_name = "MOVE,…")]
    cleanup: Option<String>,
    /// scripted: list `final_status_list` and answer successive `final_status_list dead`
    /// with these stones, `c4,d5` (`""` for none); repeat the option for the later answers
    /// (the last one repeats).
    #[arg(long, value_name = "VERTEX,…")]
    dead: Vec<String>,
    /// scripted: list `final_status_list` but answer it with a failure.
    #[arg(long)]
    status_fails: bool,
    /// scripted: wait this long before answering `final_status_list` (`2s`).
    #[arg(long, value_parser = goref_match::clock::parse_duration)]
    status_delay: Option<Duration>,
}

fn words(text: &str) -> Vec<String> {
    text.split([',', ' '])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Runs `goref engine`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let faults = Faults {
        crash_after: args.crash_after,
        hang_after: args.hang_after,
        garbage_after: args.garbage_after,
        resign_after: args.resign_after,
        slow: args.slow,
        illegal_at: args.illegal_at.clone(),
        refuse_boardsize: args.refuse_boardsize,
    };
    if args.name == "random" && (faults != Faults::default() || args.exit_at_start) {
        bail!("misbehaviour options are for `goref engine faulty`");
    }
    let script = Script {
        moves: args.script.moves.iter().flat_map(|m| words(m)).collect(),
        cleanup: args.script.cleanup.as_deref().map(words),
        dead: (!args.script.dead.is_empty())
            .then(|| args.script.dead.iter().map(|d| words(d)).collect()),
        status_fails: args.script.status_fails,
        status_delay: args.script.status_delay,
    };
    if args.name != "scripted" && script != Script::default() {
        bail!("--moves, --cleanup, --dead and --status-* are for `goref engine scripted`");
    }
    if args.name == "scripted" && (faults != Faults::default() || args.exit_at_start) {
        bail!("misbehaviour options are for `goref engine faulty`");
    }
    if args.name == "tunable" && (faults != Faults::default() || args.exit_at_start) {
        bail!("misbehaviour options are for `goref engine faulty`");
    }
    if args.exit_at_start {
        eprintln!("goref-faulty: exiting at start as asked");
        return Ok(ExitCode::from(1));
    }
    let seed = args.seed.unwrap_or_else(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        nanos ^ u64::from(std::process::id()).rotate_left(32)
    });
    let name = args.name.clone();
    let tunable = Tunable {
        x: args.x,
        peak: args.peak,
        width: args.width,
    };
    let make = move |n: u64| {
        let seed = seed.wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        if name == "random" {
            BuiltinEngine::random(seed)
        } else if name == "tunable" {
            BuiltinEngine::tunable(seed, tunable)
        } else if name == "scripted" {
            BuiltinEngine::scripted(script.clone())
        } else {
            BuiltinEngine::faulty(seed, faults.clone())
        }
    };
    match &args.listen {
        Some(address) => {
            let listener = std::net::TcpListener::bind(address)
                .with_context(|| format!("cannot listen on {address}"))?;
            eprintln!(
                "goref engine {}: listening on {}",
                args.name,
                listener.local_addr()?
            );
            serve_tcp(listener, make)?;
        }
        None => make(0).serve_stdio()?,
    }
    Ok(ExitCode::SUCCESS)
}
