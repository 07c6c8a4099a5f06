//! Regression suites for GTP engines, in the `.tst` format of gogui-regress and GNU Go's
//! `regression/` folder.
//!
//! - [`suite`]: the format, read as outside text (never a panic; errors name the line).
//! - [`run`]: finding suites (`FILE.tst`, `@LIST`) and running them, a fresh engine a suite,
//!   suites in parallel; gogui-regress's verdicts ([`Verdict`]).
//! - [`position`]: the position of each test, followed with goref's own board.
//! - [`report`]: totals, JSON, the summary table, `--compare`, the HTML report.

pub mod position;
pub mod report;
pub mod run;
pub mod suite;

pub use report::{Comparison, RunJson, Totals};
pub use run::{
    load, run, run_suite, run_with_progress, Options, SuiteFile, SuiteResult, TestResult, Verdict,
};
pub use suite::{Expectation, Pattern, Step, StepKind, Suite, Test, Warning};
