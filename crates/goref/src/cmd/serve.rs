//! `goref serve`: games served to people over HTTP and WebSocket (crate goref-server).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;

#[derive(ClapArgs)]
pub struct Args {
    /// Address to listen on (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// SQLite database file (created if missing).
    #[arg(long, default_value = "goref.db")]
    pub db: PathBuf,
    /// Time forgiven per turn for network lag, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub lag_ms: u64,
    /// Messages a connection may send a second (bursts of twice as many); more are refused.
    #[arg(long, default_value_t = 20)]
    pub rate: u32,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let opts = goref_server::Options {
        lag_allowance_ms: args.lag_ms,
        messages_per_second: args.rate,
        ..goref_server::Options::default()
    };
    goref_server::run(&args.listen, &args.db, opts)?;
    Ok(ExitCode::SUCCESS)
}
