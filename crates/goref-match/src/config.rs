//! The TOML match file: the same settings as the command line, which overrides it.
//!
//! ```toml
//! games = 20
//! size = "9x9"
//! komi = 7.5
//! rules = "olympiad"
//! jobs = 2
//! out = "matches/gnugo-vs-random"
//! time = "10m"            # or "5m+3s"; with byoyomi = "30s/5" or canadian = "5m/25"
//! lag = "500ms"
//! illegal = "olympiad"    # or "strict"
//! sprt = [0.0, 10.0, 0.05, 0.05]
//! end = "olympiad"       # all-alive, chinese, kgs, japanese, tromp, olympiad, referee
//! referee = "builtin"     # or "perfect[:NODES]", or a GTP command: "/usr/games/gnugo --mode gtp --level 0"
//! handicap = 4            # with handicap_style = "fixed" (default) or "free"
//! min_moves = 30          # 001 §1 (default under olympiad: 30/60/125 on 9/13/19)
//! long_cycle = "end"      # or "pass" (3.10.2)
//! adjudicate = "exact"    # end a game once its winner is certain; default "off"
//!
//! [black]                 # Black in game 1, White in game 2, …
//! name = "gnugo"
//! command = "/usr/games/gnugo --mode gtp --level 0"
//!
//! [white]
//! command = "goref engine random --seed {game}"
//! cwd = "/tmp"
//! env = { RUST_BACKTRACE = "1" }
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// An engine in the file.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EngineEntry {
    /// Its command line (or `tcp://host:port`).
    pub command: String,
    /// A short name for tables (default: from the command).
    pub name: Option<String>,
    /// Its working directory.
    pub cwd: Option<PathBuf>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// GTP commands sent once after the engine starts (tournaments).
    #[serde(default)]
    pub init: Vec<String>,
    /// `auto` (kept running between games, restarted after a crash or hang) or `always`
    /// (started afresh for every game) (tournaments).
    pub restart: Option<String>,
    /// The engine's own time control (time odds, tournaments): `10m`, `5m+3s`, with
    /// `byoyomi` or `canadian` as for the game.
    pub time: Option<String>,
    /// Its byo-yomi (`30s/5`).
    pub byoyomi: Option<String>,
    /// Its Canadian overtime (`5m/25`).
    pub canadian: Option<String>,
}

/// The whole file; every field optional.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// A match's first engine (Black in game 1).
    pub black: Option<EngineEntry>,
    /// A match's second engine.
    pub white: Option<EngineEntry>,
    /// Games of a match.
    pub games: Option<usize>,
    /// The board: `19`, `9x9`, `13x9`.
    pub size: Option<String>,
    /// Komi.
    pub komi: Option<f64>,
    /// The rules preset: `tromp-taylor`, `nstt`, `olympiad`.
    pub rules: Option<String>,
    /// Games at once.
    pub jobs: Option<usize>,
    /// The output directory.
    pub out: Option<PathBuf>,
    /// Turns after which a game is scored as it stands.
    pub move_limit: Option<usize>,
    /// Early adjudication: `exact` or `off`.
    pub adjudicate: Option<String>,
    /// Main time (`10m`, `5m+3s`, `none`).
    pub time: Option<String>,
    /// Byo-yomi after main time (`30s/5`).
    pub byoyomi: Option<String>,
    /// Canadian overtime after main time (`5m/25`).
    pub canadian: Option<String>,
    /// Lag allowance of each move (`500ms`).
    pub lag: Option<String>,
    /// Limit for a `genmove` reply regardless of the clock.
    pub hang_timeout: Option<String>,
    /// Limit for every command but `genmove`.
    pub command_timeout: Option<String>,
    /// What an illegal move does: `olympiad` or `strict`.
    pub illegal: Option<String>,
    /// SPRT: elo0, elo1, alpha, beta.
    pub sprt: Option<[f64; 4]>,
    /// The end protocol (crate goref-referee); default `olympiad` under the olympiad preset,
    /// `all-alive` under `tromp-taylor` and `nstt`.
    pub end: Option<String>,
    /// Who settles disputed stones: `builtin` (Olympiad 3.9 default removal) or a command.
    pub referee: Option<String>,
    /// Handicap stones for Black (2 to 9); komi defaults to 0.5 with them.
    pub handicap: Option<usize>,
    /// `fixed` (GTP's points) or `free` (Black's engine chooses).
    pub handicap_style: Option<String>,
    /// 001 §1: a loss on time after this many moves of one's own is adjudicated instead.
    pub min_moves: Option<usize>,
    /// A play that would invoke the long-cycle rule: `end` (the game) or `pass`.
    pub long_cycle: Option<String>,
    /// Tournaments: `round-robin`, `gauntlet`, `swiss` or `knockout`.
    pub format: Option<String>,
    /// Tournaments: games each pair plays (round-robin, gauntlet), or each knockout match.
    pub games_per_pair: Option<usize>,
    /// Gauntlet: the first N engines play all the others.
    pub seeds: Option<usize>,
    /// Swiss: rounds.
    pub rounds: Option<usize>,
    /// Tournaments: every engine, in seeding order.
    #[serde(default)]
    pub engine: Vec<EngineEntry>,
    /// Tournaments: the default restart policy of the engines (`auto` or `always`).
    pub restart: Option<String>,
    /// Tournaments: failures to start in a row after which an engine is withdrawn.
    pub max_failures: Option<usize>,
    /// Tournaments: an SGF file or a folder of them, played first in turn (twice each, colours
    /// swapped).
    pub openings: Option<PathBuf>,
}

/// A TOML file that cannot be read.
#[derive(Debug)]
pub enum ConfigError {
    /// The file itself.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Its text: not TOML, or not the settings goref knows.
    Toml {
        /// The file.
        path: PathBuf,
        /// Why.
        source: toml::de::Error,
    },
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            ConfigError::Toml { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Read { source, .. } => Some(source),
            ConfigError::Toml { source, .. } => Some(source),
        }
    }
}

impl FileConfig {
    /// Reads a file.
    ///
    /// # Errors
    ///
    /// When the file cannot be read, or is not TOML with the settings goref knows.
    pub fn read(path: &std::path::Path) -> Result<FileConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        FileConfig::parse(&text).map_err(|source| ConfigError::Toml {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Reads the text of a file.
    ///
    /// # Errors
    ///
    /// When it is not TOML with the settings goref knows (the error says what and where).
    pub fn parse(text: &str) -> Result<FileConfig, toml::de::Error> {
        toml::from_str(text)
    }

    /// The file as TOML text (the settings given; the others left out).
    ///
    /// # Errors
    ///
    /// A value TOML cannot hold (it always can for a file that was read).
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        toml::to_string(self)
    }
}

/// The invariant of the match and tournament files (`fuzz/fuzz_targets/match_files.rs`, the
/// unit tests): a text either is refused, with where (a line and column), or reads to
/// settings that write out as TOML and read back to the same settings (compared by their
/// text, so that a komi of `nan` compares too).
#[must_use]
pub fn reads_back(text: &str) -> bool {
    match FileConfig::parse(text) {
        Err(e) => e.span().is_some(),
        Ok(config) => {
            let Ok(written) = config.to_toml() else {
                return false;
            };
            match FileConfig::parse(&written) {
                Ok(again) => again.to_toml().is_ok_and(|w| w == written),
                Err(_) => false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module's example, as a file.
    const EXAMPLE: &str = r#"
games = 20
size = "9x9"
komi = 7.5
rules = "olympiad"
time = "10m"
sprt = [0.0, 10.0, 0.05, 0.05]
end = "olympiad"
handicap = 4
[black]
name = "gnugo"
command = "/usr/games/gnugo --mode gtp --level 0"
[white]
command = "goref engine random --seed {game}"
cwd = "/tmp"
env = { RUST_BACKTRACE = "1" }
[[engine]]
command = "a"
init = ["komi 7"]
"#;

    // Issue 40: the match and tournament files read back through TOML (the fuzz target's
    // invariant), and a text that is not such a file is refused with where.
    #[test]
    fn files_read_back_and_refusals_say_where() {
        let config = FileConfig::parse(EXAMPLE).unwrap();
        assert_eq!(config.games, Some(20));
        assert_eq!(config.white.as_ref().unwrap().env["RUST_BACKTRACE"], "1");
        assert!(reads_back(EXAMPLE));
        let written = config.to_toml().unwrap();
        assert!(written.contains("games = 20"), "{written}");
        assert!(
            !written.contains("jobs"),
            "settings not given are left out: {written}"
        );
        for bad in [
            "colour = 1",
            "games = \"many\"",
            "[black]\nname = \"x\"",
            "games = 1\ngames = 2",
            "= 3",
        ] {
            let e = FileConfig::parse(bad).unwrap_err();
            assert!(e.span().is_some(), "{bad}: {e}");
            assert!(reads_back(bad));
        }
        assert!(reads_back("komi = nan"));
    }

    use proptest::prelude::*;

    proptest! {
        // Files made of known keys with values of any kind, and any text: every one reads
        // back or is refused with where.
        #[test]
        fn any_file_reads_back_or_is_refused(
            lines in proptest::collection::vec(
                (
                    proptest::sample::select(vec![
                        "games", "size", "komi", "rules", "jobs", "time", "lag", "sprt",
                        "handicap", "format", "seeds", "rounds", "restart", "openings", "out",
                    ]),
                    prop_oneof![
                        (0u32..1000).prop_map(|n| n.to_string()),
                        (-1e3f64..1e3).prop_map(|k| format!("{k:?}")),
                        "[a-z0-9:/. ]{0,12}".prop_map(|t| format!("{t:?}")),
                        Just("[1.0, 2.0, 0.05, 0.05]".to_string()),
                        Just("true".to_string()),
                    ],
                ),
                0..8,
            ),
            noise in ".{0,40}",
        ) {
            let text: String = lines.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
            prop_assert!(reads_back(&text), "{}", text);
            prop_assert!(reads_back(&noise), "{}", noise);
        }
    }

    #[test]
    fn the_documented_example_parses_and_typos_are_refused() {
        let doc = include_str!("config.rs");
        let example: String = doc
            .lines()
            .skip_while(|l| !l.starts_with("//! ```toml"))
            .skip(1)
            .take_while(|l| !l.starts_with("//! ```"))
            .map(|l| format!("{}\n", l.trim_start_matches("//!").trim_start()))
            .collect();
        let c: FileConfig = toml::from_str(&example).unwrap();
        assert_eq!(c.games, Some(20));
        assert_eq!(c.black.unwrap().name.as_deref(), Some("gnugo"));
        assert_eq!(c.white.unwrap().env["RUST_BACKTRACE"], "1");
        assert_eq!(c.sprt, Some([0.0, 10.0, 0.05, 0.05]));
        assert_eq!(c.end.as_deref(), Some("olympiad"));
        assert_eq!(c.referee.as_deref(), Some("builtin"));
        assert_eq!(c.adjudicate.as_deref(), Some("exact"));
        assert!(toml::from_str::<FileConfig>("gmaes = 3").is_err());
    }
}
