//! One module a subcommand.

pub mod bench;
pub mod check_engine;
pub mod connect;
pub mod engine;
pub mod judge;
pub mod loadtest;
pub mod match_cmd;
pub mod perft;
pub mod score;
pub mod serve;
pub mod solve;
pub mod tournament;
pub mod worker;

use goref_rules::Preset;

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
    if path.is_file() {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        goref_rules::parse_graph(&text).with_context(|| path.display().to_string())
    } else {
        goref_rules::parse_graph(arg).map_err(|e| anyhow::anyhow!("--graph {arg}: {e}"))
    }
}
