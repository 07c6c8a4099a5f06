//! GTP version 2 for goref.
//!
//! - [`controller`]: the controller side (tokio): start an engine from a command line or reach
//!   it over TCP, send commands with a timeout each, read replies robustly ([`reply`]), detect a
//!   crash at once, stop with `quit` and kill after a grace period.
//! - [`server`] and [`engines`]: the engine side, used by goref's built-in engines.
//! - [`testing`]: GNU Go for tests, or a loud skip.

pub mod controller;
pub mod engines;
pub mod reply;
pub mod server;
pub mod spec;
pub mod vertex;

/// For tests that play GNU Go: whether it is there. CI installs it and sets
/// `GOREF_REQUIRE_GNUGO`: there a missing engine is a failure, not a silently passing test.
pub mod testing {
    /// GNU Go as Debian installs it.
    pub const GNUGO: &str = "/usr/games/gnugo";

    /// Whether GNU Go is installed; if not, says the test skips.
    ///
    /// # Panics
    ///
    /// When it is not there and `GOREF_REQUIRE_GNUGO` is set.
    #[must_use]
    pub fn gnugo_there() -> bool {
        let there = std::path::Path::new(GNUGO).exists();
        assert!(
            there || std::env::var_os("GOREF_REQUIRE_GNUGO").is_none(),
            "{GNUGO} is not installed"
        );
        if !there {
            eprintln!("skipping: {GNUGO} is not installed (.ci/run installs it)");
        }
        there
    }
}

pub use controller::{Engine, EngineInfo, GtpError, Log, Stopped};
pub use reply::{Reply, ReplyParser};
pub use spec::{EngineSpec, SpecError};
pub use vertex::{color_arg, format_move, parse_genmove, parse_move, GenMove};
