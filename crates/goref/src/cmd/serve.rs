//! `goref serve`: games served to people and programs over HTTP and WebSocket (crate
//! goref-server).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, Context};
use clap::Args as ClapArgs;
use goref_clock::TimeControl;
use goref_server::lobby::PairingOptions;
use goref_server::room::CreateRequest;

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
    /// How often the players waiting in the lobby are paired (`off`: never).
    #[arg(long, default_value = "15s")]
    pub pairing_interval: String,
    /// The board of paired games, `N` or `WxH`.
    #[arg(long, default_value = "9x9")]
    pub pairing_size: String,
    /// The rules of paired games (`tromp-taylor`, `nstt`, `olympiad`).
    #[arg(long, default_value = "olympiad")]
    pub pairing_rules: String,
    /// The clock of paired games: `none`, `5m` (sudden death), `5m+3s` (Fischer).
    #[arg(long, default_value = "5m")]
    pub pairing_time: String,
    /// How paired games settle dead stones after two passes (one of the seven protocols).
    #[arg(long, default_value = "tromp")]
    pub pairing_end: String,
    /// The komi of paired games (default: the rules').
    #[arg(long)]
    pub pairing_komi: Option<f64>,
    /// The tournament director's account (default: the first account created).
    #[arg(long)]
    pub td: Option<String>,
}

fn pairing(args: &Args) -> anyhow::Result<PairingOptions> {
    let interval = if args.pairing_interval.trim().eq_ignore_ascii_case("off") {
        None
    } else {
        Some(
            goref_clock::parse_duration(&args.pairing_interval)
                .map_err(|e| anyhow!("--pairing-interval: {e}"))?,
        )
        .filter(|d| !d.is_zero())
    };
    let (width, height) =
        super::parse_size(&args.pairing_size).map_err(|e| anyhow!("--pairing-size: {e}"))?;
    let time = TimeControl::parse(&args.pairing_time, None, None)
        .map_err(|e| anyhow!("--pairing-time: {e}"))?;
    let end = args
        .pairing_end
        .parse()
        .map_err(|e| anyhow!("--pairing-end: {e}"))?;
    let game = CreateRequest {
        width: Some(width),
        height: Some(height),
        rules: Some(args.pairing_rules.clone()),
        komi: args.pairing_komi,
        time: Some(time),
        end: Some(end),
        ..CreateRequest::default()
    };
    game.config()
        .map_err(|e| anyhow!(e))
        .context("the settings of paired games")?;
    Ok(PairingOptions { interval, game })
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let opts = goref_server::Options {
        lag_allowance_ms: args.lag_ms,
        messages_per_second: args.rate,
        pairing: pairing(args)?,
        td: args.td.clone(),
        ..goref_server::Options::default()
    };
    goref_server::run(&args.listen, &args.db, opts)?;
    Ok(ExitCode::SUCCESS)
}
