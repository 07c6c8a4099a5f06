//! `goref`: a referee for the game of Go.

mod cmd;

use std::io::IsTerminal as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A referee for the game of Go: exact rules (Tromp-Taylor, NSTT, Computer Olympiad) on any
/// board, game records, engine matches.
#[derive(Parser)]
#[command(name = "goref", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
// Parsed once at start: the size of the largest command's arguments is immaterial.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Replay a game record under the rules and print its result (dead stones as the record's
    /// TB/TW mark them).
    Score(cmd::score::Args),
    /// Count the distinct turn sequences from the empty board (Go's perft).
    Perft(cmd::perft::Args),
    /// Measure random light playouts per second on 9×9 and 19×19 under each preset.
    Bench(cmd::bench::Args),
    /// Serve games to people and programs: a web board, accounts, a lobby with challenges and
    /// continuous pairing, ratings, live clocks (HTTP + WebSocket).
    Serve(Box<cmd::serve::Args>),
    /// Play a GTP engine's games on a goref server (it logs in, is paired, plays).
    Connect(Box<cmd::connect::Args>),
    /// Load one's own goref server with CGOS bots and web programs playing random moves, and
    /// measure it (moves a second, its CPU and memory, latencies, pairing waits).
    Loadtest(Box<cmd::loadtest::Args>),
    /// Play games between two GTP engines, every move checked; SGF records and a table.
    Match(Box<cmd::match_cmd::Args>),
    /// Play a tournament of many GTP engines (round-robin, gauntlet, Swiss, knockout):
    /// standings, ratings and a report.
    Tournament(Box<cmd::tournament::Args>),
    /// Play the games of tournaments queued in PostgreSQL (`goref tournament --queue`).
    Worker(cmd::worker::Args),
    /// Run a built-in GTP engine (random, faulty, scripted) on standard input/output.
    Engine(cmd::engine::Args),
    /// Check that a program speaks enough GTP for `goref match`.
    CheckEngine(cmd::check_engine::Args),
    /// Judge a finished game's blocks by the Olympiad's default removal (3.9) and score it.
    Judge(cmd::judge::Args),
    /// The exact result under perfect play, from the empty board or the end of a record.
    Solve(cmd::solve::Args),
    /// Run regression suites (gogui-regress's .tst files, as GNU Go's) against a GTP engine:
    /// pass/FAIL/fail/PASS per test, a table, JSON, an HTML report, a comparison with an
    /// earlier run.
    Regress(Box<cmd::regress::Args>),
    /// Tune an engine's parameters by SPSA, as fishtest does: game pairs between θ+c·Δ and
    /// θ−c·Δ, θ moved after each; tune.json, tune.csv, a plot; resumes after an interruption.
    Tune(Box<cmd::tune::Args>),
}

fn main() -> ExitCode {
    init_logging();
    let cli = Cli::parse();
    if matches!(
        cli.command,
        Command::Score(_)
            | Command::Perft(_)
            | Command::Bench(_)
            | Command::Judge(_)
            | Command::Solve(_)
    ) {
        restore_sigpipe();
    }
    if matches!(
        cli.command,
        Command::Match(_)
            | Command::Tournament(_)
            | Command::Worker(_)
            | Command::Connect(_)
            | Command::CheckEngine(_)
            | Command::Regress(_)
            | Command::Tune(_)
    ) {
        find_self_first();
    }
    let result = match cli.command {
        Command::Score(args) => cmd::score::run(&args),
        Command::Perft(args) => cmd::perft::run(&args),
        Command::Bench(args) => cmd::bench::run(&args),
        Command::Serve(args) => cmd::serve::run(&args),
        Command::Connect(args) => cmd::connect::run(&args),
        Command::Loadtest(args) => cmd::loadtest::run(&args),
        Command::Match(args) => cmd::match_cmd::run(&args),
        Command::Tournament(args) => cmd::tournament::run(&args),
        Command::Worker(args) => cmd::worker::run(&args),
        Command::Engine(args) => cmd::engine::run(&args),
        Command::CheckEngine(args) => cmd::check_engine::run(&args),
        Command::Judge(args) => cmd::judge::run(&args),
        Command::Solve(args) => cmd::solve::run(&args),
        Command::Regress(args) => cmd::regress::run(&args),
        Command::Tune(args) => cmd::tune::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("goref: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// `goref score x.sgf | head` must end quietly when the reader goes away, as Unix tools do,
/// instead of panicking on the broken pipe: restore the default SIGPIPE action that Rust
/// programs start without. Only for commands that print and exit: the match runner and the
/// server write to engines and sockets that may close, and must see those as errors, not die.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Puts this executable's folder first on `PATH`, so that an engine command `goref engine
/// random` runs this very goref, even when it was started by `cargo run` and is on no `PATH`
/// (the README's examples run as written after `cargo build`). Engine commands stay as written
/// in records and fingerprints.
fn find_self_first() {
    let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(std::path::Path::to_path_buf))
    else {
        return;
    };
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![dir];
    dirs.extend(std::env::split_paths(&path));
    if let Ok(joined) = std::env::join_paths(dirs) {
        // Before any other thread starts (the runtimes are built later).
        std::env::set_var("PATH", joined);
    }
}

/// Diagnostics (engine faults, protocol steps, server events) go to stderr as `tracing` events,
/// filtered by `GOREF_LOG` (for example `GOREF_LOG=goref_match=debug`); warnings by default.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("GOREF_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}
