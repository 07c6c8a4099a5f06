//! One module a subcommand.

/// `println!` for the commands that talk to engines or sockets through pipes (where SIGPIPE
/// stays ignored, so that a closed engine is an error, not the end of goref): when standard
/// output's reader has gone (`goref check-engine … | head -1`), goref ends quietly, as Unix
/// tools do, instead of panicking on the broken pipe.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cmd::print_line(format_args!($($arg)*))
    };
}

pub mod bench;
pub mod check_engine;
pub mod connect;
pub mod engine;
pub mod judge;
pub mod loadtest;
pub mod match_cmd;
pub mod perft;
pub mod queued;
pub mod regress;
pub mod score;
pub mod serve;
pub mod solve;
pub mod tournament;
pub mod tune;
pub mod worker;

use goref_rules::{Komi, Preset};

/// The exit status of a run stopped by `signal` (128 + its number, as a shell reports it;
/// Ctrl-C's 130 when none is known).
pub fn signal_exit(signal: Option<i32>) -> std::process::ExitCode {
    let code = 128 + signal.unwrap_or(2);
    std::process::ExitCode::from(u8::try_from(code).unwrap_or(130))
}

/// A board size that is not `N` or `WxH` with sides 1 to 25.
#[derive(Debug)]
pub struct BadSize(String);

impl std::fmt::Display for BadSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "board size '{}' is not N or WxH with sides 1 to 25",
            self.0
        )
    }
}

impl std::error::Error for BadSize {}

/// Parses a board size `WxH` or `N` (square).
pub fn parse_size(text: &str) -> Result<(usize, usize), BadSize> {
    let bad = || BadSize(text.to_string());
    let (w, h) = match text.split_once(['x', 'X', ':']) {
        Some((w, h)) => (
            w.trim().parse().map_err(|_| bad())?,
            h.trim().parse().map_err(|_| bad())?,
        ),
        None => {
            let n = text.trim().parse().map_err(|_| bad())?;
            (n, n)
        }
    };
    if (1..=goref_rules::MAX_SIDE).contains(&w) && (1..=goref_rules::MAX_SIDE).contains(&h) {
        Ok((w, h))
    } else {
        Err(bad())
    }
}

/// The largest komi, either way, that goref takes from the command line or a settings file (as
/// the server does): beyond any score on the largest board (25×25).
pub const MAX_KOMI: f64 = 1000.0;

/// A komi goref does not take: what was given, as given.
#[derive(Debug)]
pub enum BadKomi {
    /// Not a number.
    NotANumber(String),
    /// Beyond ±[`MAX_KOMI`] (or not finite).
    OutOfRange(String),
    /// Not a multiple of 0.5.
    NotAHalf(String),
}

impl std::fmt::Display for BadKomi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadKomi::NotANumber(t) => write!(f, "komi '{t}' is not a number"),
            BadKomi::OutOfRange(t) => {
                write!(f, "komi '{t}' is outside -{MAX_KOMI} to {MAX_KOMI}")
            }
            BadKomi::NotAHalf(t) => write!(f, "komi '{t}' is not a multiple of 0.5"),
        }
    }
}

impl std::error::Error for BadKomi {}

/// Parses a komi for clap: a multiple of 0.5 within ±[`MAX_KOMI`], echoed as typed when refused
/// (`1e308` was echoed as its 309 digits).
pub fn parse_komi(text: &str) -> Result<Komi, BadKomi> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| BadKomi::NotANumber(text.to_string()))?;
    checked_komi(value, text)
}

/// A komi from a settings file's number (see [`parse_komi`]).
pub fn komi_of(value: f64) -> Result<Komi, BadKomi> {
    // Shown as `1e308`, not its 309 digits.
    let text = if value.is_finite() && value.abs() < 1e9 {
        value.to_string()
    } else {
        format!("{value:e}")
    };
    checked_komi(value, &text)
}

fn checked_komi(value: f64, text: &str) -> Result<Komi, BadKomi> {
    if !value.is_finite() || value.abs() > MAX_KOMI {
        return Err(BadKomi::OutOfRange(text.trim().to_string()));
    }
    Komi::from_f64(value).map_err(|_| BadKomi::NotAHalf(text.trim().to_string()))
}

/// Parses a preset name for clap.
pub fn parse_preset(text: &str) -> Result<Preset, goref_rules::ParseError> {
    text.parse()
}

/// A board graph from the command line: a file in the text format of
/// [`goref_rules::parse_graph`], or a named shape (`path:N`, `cycle:N`, `grid:WxH`,
/// `torus:WxH`).
pub fn read_graph(arg: &str) -> anyhow::Result<goref_rules::Geometry> {
    use anyhow::Context as _;
    let path = std::path::Path::new(arg);
    // `name:size` is a shape unless a file has that name.
    if arg.contains(':') && !path.exists() {
        return goref_rules::parse_graph(arg).map_err(|e| anyhow::anyhow!("--graph {arg}: {e}"));
    }
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "--graph {arg}: cannot read the file (and it is not a shape: `path:N`, \
             `cycle:N`, `grid:WxH`, `torus:WxH`)"
        )
    })?;
    goref_rules::parse_graph(&text).with_context(|| format!("--graph {}", path.display()))
}

/// Writes a line to standard output ([`outln!`]); exits quietly (status 0) when its reader
/// has gone, and with status 2 on another write error.
pub fn print_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("goref: writing to standard output: {e}");
        std::process::exit(2);
    }
}

/// A WebSocket's settings with reads of 4 KiB: tungstenite's default reads 128 KiB, zeroing
/// them first, for messages of a few hundred bytes (40% of goref loadtest's CPU at 600
/// programs went to that `memset`).
pub fn small_reads() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4096)
}

/// The first of SIGINT, SIGTERM, SIGHUP, by number (never, if they cannot be watched).
pub async fn stopped() -> i32 {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => libc::SIGINT,
        _ = term.recv() => libc::SIGTERM,
        _ = hup.recv() => libc::SIGHUP,
    }
}
