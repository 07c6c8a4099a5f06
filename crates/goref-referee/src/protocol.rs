//! The end-of-game protocols: how a game ends after two passes.

use std::fmt;
use std::str::FromStr;

/// A way to end a game after two passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Protocol {
    /// Every stone on the board is alive (TT rules 8-9).
    AllAlive,
    /// Equal dead lists are removed; otherwise play on; four passes in a row: all alive
    /// (reference 000, "Chinese rules").
    Chinese,
    /// As Chinese, but after the first disagreement the players capture what they think dead
    /// and the next two passes end the game with every stone alive (reference 000, "KGS").
    Kgs,
    /// Disputes are played out on a copy of the board; the status of each disputed group there
    /// is applied to the original (reference 000, "Japanese rules").
    Japanese,
    /// Alternating mark / dispute / done (reference 003).
    #[default]
    Tromp,
    /// Olympiad 3.7: agreement, up to three resumptions, then the tournament director.
    Olympiad,
    /// A third party names the dead stones (reference 000, "third-party mediation").
    Referee,
}

impl Protocol {
    /// All protocols, in the order of the texts.
    pub const ALL: [Protocol; 7] = [
        Protocol::AllAlive,
        Protocol::Chinese,
        Protocol::Kgs,
        Protocol::Japanese,
        Protocol::Tromp,
        Protocol::Olympiad,
        Protocol::Referee,
    ];

    /// The name used on the command line and in records.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Protocol::AllAlive => "all-alive",
            Protocol::Chinese => "chinese",
            Protocol::Kgs => "kgs",
            Protocol::Japanese => "japanese",
            Protocol::Tromp => "tromp",
            Protocol::Olympiad => "olympiad",
            Protocol::Referee => "referee",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownProtocol(pub String);

impl fmt::Display for UnknownProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
        write!(
            f,
            "unknown end protocol '{}': expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownProtocol {}

impl FromStr for Protocol {
    type Err = UnknownProtocol;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        goref_rules::words::one_of(s, &Protocol::ALL.map(|p| (p.name(), p)))
            .ok_or_else(|| UnknownProtocol(s.to_string()))
    }
}
