//! Tuning a GTP engine's parameters with SPSA, as fishtest tunes Stockfish's: `goref tune`.
//!
//! - [`param`]: the parameters, `NAME=START,MIN:MAX[,C_END[,R_END]]`, read as outside text.
//! - [`spsa`]: the algorithm's pure state ([`Spsa`]): the schedule of gains and its
//!   documented defaults ([`Schedule`]), each step's perturbation and points, the update.
//! - [`run`](mod@run): the games: pairs between `θ + c·Δ` and `θ − c·Δ` played by crate
//!   goref-runner, `jobs` at once, the state written after each pair ([`run_tune`]).
//! - [`state`]: `tune.json` (the whole state, written atomically) and `tune.csv`.
//! - [`plot`]: `tune.svg`, the trajectory.
//!
//! The state needs no engine: a tune of one parameter whose pairs `θ + c·Δ` always wins
//! climbs, and stays in its range.
//!
//! ```
//! use goref_tune::{Param, Schedule, Spsa};
//!
//! let x: Param = "x=10,0:100".parse()?;
//! let mut spsa = Spsa::new(vec![x], Schedule::new(50, 1))?;
//! for k in 0..50 {
//!     let point = spsa.point(k);
//!     // The engine given `point.plus` won both games if it is the larger value.
//!     let r = if point.plus[0] > point.minus[0] { 2.0 } else { -2.0 };
//!     spsa.update(k, r)?;
//! }
//! assert!(spsa.finished());
//! assert!(spsa.theta()[0] > 60.0 && spsa.theta()[0] <= 100.0, "{:?}", spsa.theta());
//! # Ok::<(), goref_tune::Error>(())
//! ```
//!
//! [`run_tune`] plays it with engines, resuming from its folder.

pub mod param;
pub mod plot;
pub mod run;
pub mod spsa;
pub mod state;

use std::path::PathBuf;

pub use param::Param;
pub use run::{pair_result, run_tune, TuneConfig, TuneRun};
pub use spsa::{Point, Schedule, Spsa};
pub use state::{Settings, StepRecord, TuneFile};

/// Why a tune cannot be made, go on, or resume.
#[derive(Debug, thiserror::Error)]
#[error("{kind}")]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error { kind }
    }
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    /// A `--param` that is not `NAME=START,MIN:MAX[,C_END[,R_END]]`.
    #[error("--param {text}: {why} (at character {at})")]
    Param {
        /// The text given.
        text: String,
        /// Where the trouble is, a character from 1.
        at: usize,
        /// What is wrong.
        why: String,
    },
    /// A parameter named twice.
    #[error("--param {0}: given twice")]
    DuplicateParam(String),
    /// No parameter.
    #[error("nothing to tune: give --param NAME=START,MIN:MAX")]
    NoParams,
    /// A schedule constant or state out of its range.
    #[error("the schedule: {0}")]
    Schedule(String),
    /// A step applied out of order.
    #[error("step {step} applied before step {next}")]
    OutOfOrder {
        /// The step given.
        step: usize,
        /// The next step.
        next: usize,
    },
    /// A parameter with no place in the engine's command (or a `--set` with no `{value}`).
    #[error("{0}")]
    Placeholder(String),
    /// The folder's `tune.json` is not a tune's whole state.
    #[error("{}: {why}", path.display())]
    State {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The folder holds a tune with other settings.
    #[error("{} holds another tune ({what}): use another --out, or the same settings to resume it", dir.display())]
    Mismatch {
        /// The folder.
        dir: PathBuf,
        /// What differs, in words.
        what: String,
    },
    /// A file could not be written.
    #[error("cannot {doing} {}: {source}", path.display())]
    Io {
        /// What was done: `create`, `open`, `write`.
        doing: &'static str,
        /// The file.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// An engine failed the check before the first game.
    #[error("{0}")]
    Engine(String),
    /// A game could not be made at all (the board or the settings, no engine's fault).
    #[error("stopped: {0}")]
    Game(String),
    /// The plot could not be drawn.
    #[error("the plot: {0}")]
    Plot(String),
}
