//! GTP version 2 for goref.
//!
//! - [`controller`]: the controller side (tokio): start an engine from a command line or reach
//!   it over TCP, send commands with a timeout each, read replies robustly ([`reply`]), detect a
//!   crash at once, stop with `quit` and kill after a grace period.
//! - [`server`] and [`engines`]: the engine side, used by goref's built-in engines.

pub mod controller;
pub mod engines;
pub mod reply;
pub mod server;
pub mod spec;
pub mod vertex;

pub use controller::{Engine, EngineInfo, GtpError, Log, Stopped};
pub use reply::{Reply, ReplyParser};
pub use spec::{EngineSpec, SpecError};
pub use vertex::{color_arg, format_move, parse_genmove, parse_move, GenMove};
