//! Certificates of perfect play: a value with a strategy for each side, in a form that a
//! separate, simple program checks ([`check`]) without trusting the search that made it.
//!
//! A certificate is a file of JSON Lines. The first line is the header:
//!
//! ```text
//! {"board":"3x2","rules":"tromp-taylor","komi":0,"moves":["B1","A2","B2"],"value":6}
//! ```
//!
//! `board` is `WxH` (rectangular boards only), `rules` a preset's name (`tromp-taylor`, `nstt`,
//! `olympiad`), with `"ko"` after it when the ko rule is not the preset's (`positional`,
//! `situational`, `long-cycle`), `komi` a number, `moves` the turns from the empty board
//! (Black first) to the position solved, and `value` Black's area score minus White's minus
//! komi under perfect play (TT rules 9-10, 001 §3.8): a number, or `"B+"`/`"W+"` for a win by
//! the long cycle rule (001 §3.6), which ranks above every margin of points for its winner (a
//! long cycle whose captures are equal counts as `0`).
//!
//! Every other line is one turn of a strategy:
//!
//! ```text
//! {"proves":"black","line":["A1","pass"],"play":"B1"}
//! ```
//!
//! Black's strategy proves "the value is at least `value`", White's "at most `value`": for
//! each turn of the prover that its strategy can reach (the prover's own plays followed, and
//! every legal reply of the other side), the turns since the header's (`line`) and the
//! prover's `play` there. Vertices are as `goref solve` prints them (`C3`; lower case is
//! read too), a pass is `pass`. So the two together prove the value exactly. The lines of a
//! strategy form a tree (a line per prover turn reached, with the history that led there):
//! this form is for small boards, up to about a dozen points.
//!
//! [`Certificate::parse`] reads a certificate (any text: a malformed one is a
//! [`FormatError`] with its line, never a panic); [`Certificate::to_lines`] writes one, and
//! reading what it writes gives the same certificate back. [`check`] verifies one with the
//! literal rules of `goref-literal` and nothing of the search; `goref solve --certificate`
//! makes one ([`crate::certify`]).

use std::collections::HashMap;
use std::fmt;

use goref_rules::{Color, Geometry, KoRule, Komi, Move, Preset, Ruleset};
use serde::{Deserialize, Serialize};

use crate::Value;

mod check;

pub use check::{check, Checked, Refutation, RefutationKind};

/// The first line of a certificate: the position solved and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The board's width.
    pub width: usize,
    /// The board's height.
    pub height: usize,
    /// The rules' preset.
    pub preset: Preset,
    /// Another ko rule in the preset (written only when given).
    pub ko: Option<KoRule>,
    /// Komi.
    pub komi: Komi,
    /// The turns from the empty board, Black first, to the position solved.
    pub moves: Vec<Move>,
    /// The value under perfect play, for Black.
    pub value: Value,
}

impl Header {
    /// The rules the certificate's games are played under.
    #[must_use]
    pub fn rules(&self) -> Ruleset {
        let rules = Ruleset::preset(self.preset).with_komi(self.komi);
        match self.ko {
            Some(ko) => Ruleset { ko, ..rules },
            None => rules,
        }
    }

    /// The board.
    ///
    /// # Panics
    ///
    /// When the sides are not 1 to 25, which no header read by [`Certificate::parse`] has.
    #[must_use]
    pub fn geometry(&self) -> Geometry {
        Geometry::rect(self.width, self.height).expect("a header's board was checked")
    }
}

/// One turn of a side's strategy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyLine {
    /// Whose strategy: Black's proves "at least the value", White's "at most".
    pub proves: Color,
    /// The turns after the header's moves that lead to this turn of the prover.
    pub line: Vec<Move>,
    /// The prover's turn there.
    pub play: Move,
}

/// A value with a strategy for each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The position and its value.
    pub header: Header,
    /// Black's strategy and White's, a line each for each prover turn they reach.
    pub lines: Vec<StrategyLine>,
}

/// Why a text is not a certificate: the line (numbered from 1) and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// The line, numbered from 1.
    pub line: usize,
    /// What is wrong.
    pub kind: FormatErrorKind,
}

/// What is wrong with a line of a certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatErrorKind {
    /// The text is empty: no header.
    NoHeader,
    /// An empty line.
    BlankLine,
    /// Not the JSON object expected there (the parser's message).
    Json(String),
    /// A board that is not `WxH` of sides 1 to 25.
    Board(String),
    /// Not a preset's name.
    Rules(String),
    /// Not a ko rule's name, or simple ko (whose games need not end).
    Ko(String),
    /// A komi that is not a multiple of 0.5 within ±10000.
    Komi(String),
    /// Not a value: a number (a multiple of 0.5) or `"B+"`, `"W+"`.
    Value(String),
    /// Not a vertex of the board nor `pass`.
    Vertex(String),
    /// `proves` is not `black` or `white`.
    Proves(String),
    /// The same side and line as an earlier line.
    Duplicate {
        /// The earlier line's number.
        first: usize,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.kind {
            FormatErrorKind::NoHeader => f.write_str("no header: the file is empty"),
            FormatErrorKind::BlankLine => f.write_str("an empty line"),
            FormatErrorKind::Json(e) => write!(f, "not a certificate line: {e}"),
            FormatErrorKind::Board(b) => write!(f, "board {b:?} is not WxH with sides 1 to 25"),
            FormatErrorKind::Rules(r) => write!(
                f,
                "rules {r:?} is not a preset: tromp-taylor, nstt or olympiad"
            ),
            FormatErrorKind::Ko(k) => {
                write!(f, "ko {k:?} is not positional, situational or long-cycle")
            }
            FormatErrorKind::Komi(k) => {
                write!(f, "komi {k} is not a multiple of 0.5 within ±10000")
            }
            FormatErrorKind::Value(v) => write!(
                f,
                "value {v} is not a number of points (a multiple of 0.5) nor \"B+\"/\"W+\""
            ),
            FormatErrorKind::Vertex(v) => {
                write!(f, "{v:?} is not a vertex of the board nor \"pass\"")
            }
            FormatErrorKind::Proves(p) => write!(f, "proves {p:?} is not \"black\" or \"white\""),
            FormatErrorKind::Duplicate { first } => {
                write!(f, "the same side and line as line {first}")
            }
        }
    }
}

impl std::error::Error for FormatError {}

/// The header as it is written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    board: String,
    rules: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ko: Option<String>,
    komi: serde_json::Number,
    moves: Vec<String>,
    value: serde_json::Value,
}

/// A strategy line as it is written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLine {
    proves: String,
    line: Vec<String>,
    play: String,
}

/// The most points a value may have on the boards read (25×25), and a margin.
const MOST_HALF_POINTS: f64 = 2.0 * 20_000.0;

/// A number of half points as a JSON number: whole points as an integer.
fn half_points_json(half: i32) -> serde_json::Value {
    if half % 2 == 0 {
        serde_json::Value::from(half / 2)
    } else {
        serde_json::Value::from(f64::from(half) / 2.0)
    }
}

/// A JSON number as half points, when it is a multiple of 0.5 within `most` half points.
fn json_half_points(n: &serde_json::Number, most: f64) -> Option<i32> {
    let half = n.as_f64()? * 2.0;
    (half.is_finite() && half.fract() == 0.0 && half.abs() <= most).then_some(half as i32)
}

/// A turn as a certificate writes it.
#[must_use]
pub fn turn_name(geometry: &Geometry, mv: Move) -> String {
    match mv {
        Move::Pass => "pass".to_string(),
        Move::Play(p) => geometry.name(p),
    }
}

/// A turn as a certificate writes it (`C3`, `c3`, `pass`), on `geometry`.
fn parse_turn(geometry: &Geometry, text: &str) -> Option<Move> {
    if text.eq_ignore_ascii_case("pass") {
        return Some(Move::Pass);
    }
    // `parse_point` also reads `#7` and surrounding spaces: only the names it prints are taken.
    let p = geometry.parse_point(text)?;
    geometry
        .name(p)
        .eq_ignore_ascii_case(text)
        .then_some(Move::Play(p))
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

impl Certificate {
    /// The certificate as the lines of its file (without their line ends).
    ///
    /// # Panics
    ///
    /// As [`Header::geometry`].
    #[must_use]
    pub fn to_lines(&self) -> Vec<String> {
        let geometry = self.header.geometry();
        let mut lines = Vec::with_capacity(1 + self.lines.len());
        lines.push(self.header.to_line());
        lines.extend(self.lines.iter().map(|l| l.to_line(&geometry)));
        lines
    }

    /// Reads a certificate from the text of its file.
    ///
    /// # Errors
    ///
    /// A [`FormatError`] with the first line that is not what the format asks for there.
    pub fn parse(text: &str) -> Result<Certificate, FormatError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let Some((_, first)) = lines.next() else {
            return Err(FormatError {
                line: 1,
                kind: FormatErrorKind::NoHeader,
            });
        };
        let header = Header::parse(first).map_err(|kind| FormatError { line: 1, kind })?;
        let geometry = header.geometry();
        let mut seen: HashMap<(Color, Vec<Move>), usize> = HashMap::new();
        let mut strategy = Vec::new();
        for (number, text) in lines {
            let at = |kind| FormatError { line: number, kind };
            let line = StrategyLine::parse(&geometry, text).map_err(at)?;
            if let Some(&first) = seen.get(&(line.proves, line.line.clone())) {
                return Err(at(FormatErrorKind::Duplicate { first }));
            }
            seen.insert((line.proves, line.line.clone()), number);
            strategy.push(line);
        }
        Ok(Certificate {
            header,
            lines: strategy,
        })
    }
}

/// What a certificate read does not read back as (see [`reads_back`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Misread {
    /// The lines written do not read.
    Unreadable(FormatError),
    /// They read as another certificate.
    Changed,
    /// Written again, they are other lines.
    Rewritten,
}

/// Reads `text` as [`Certificate::parse`] does and, when it reads, checks that the lines
/// written ([`Certificate::to_lines`]) read back to the same certificate and are written the
/// same again; and that [`check`] answers it (without panicking). The invariant the fuzz target
/// `certificates` and the tests check; whether `text` read.
///
/// # Errors
///
/// What does not read back.
pub fn reads_back(text: &str) -> Result<bool, Misread> {
    let Ok(certificate) = Certificate::parse(text) else {
        return Ok(false);
    };
    let written = certificate.to_lines();
    let again = Certificate::parse(&written.join("\n")).map_err(Misread::Unreadable)?;
    if again != certificate {
        return Err(Misread::Changed);
    }
    if again.to_lines() != written {
        return Err(Misread::Rewritten);
    }
    let _ = check(&certificate);
    Ok(true)
}

impl Header {
    /// The header's line.
    ///
    /// # Panics
    ///
    /// As [`Header::geometry`].
    #[must_use]
    pub fn to_line(&self) -> String {
        let geometry = self.geometry();
        let komi = half_points_json(self.komi.half_points());
        let value = match self.value.half_points() {
            Some(half) => half_points_json(half),
            None => serde_json::Value::from(self.value.to_sgf()),
        };
        let raw = RawHeader {
            board: format!("{}x{}", self.width, self.height),
            rules: self.preset.name().to_string(),
            ko: self.ko.map(|k| k.to_string()),
            komi: match komi {
                serde_json::Value::Number(n) => n,
                _ => unreachable!("komi is a number"),
            },
            moves: self
                .moves
                .iter()
                .map(|&mv| turn_name(&geometry, mv))
                .collect(),
            value,
        };
        serde_json::to_string(&raw).expect("a header serializes")
    }

    fn parse(text: &str) -> Result<Header, FormatErrorKind> {
        if text.trim().is_empty() {
            return Err(FormatErrorKind::BlankLine);
        }
        let raw: RawHeader =
            serde_json::from_str(text).map_err(|e| FormatErrorKind::Json(e.to_string()))?;
        let bad_board = || FormatErrorKind::Board(raw.board.chars().take(40).collect());
        let (w, h) = raw.board.split_once('x').ok_or_else(bad_board)?;
        let side = |s: &str| {
            (!s.is_empty() && !s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<usize>().ok())
                .flatten()
                .filter(|n| (1..=goref_rules::MAX_SIDE).contains(n))
        };
        let (width, height) = (
            side(w).ok_or_else(bad_board)?,
            side(h).ok_or_else(bad_board)?,
        );
        let preset = Preset::ALL
            .into_iter()
            .find(|p| p.name() == raw.rules)
            .ok_or_else(|| FormatErrorKind::Rules(raw.rules.chars().take(40).collect()))?;
        let ko = match &raw.ko {
            None => None,
            Some(k) => Some(
                [
                    KoRule::PositionalSuperko,
                    KoRule::SituationalSuperko,
                    KoRule::LongCycle,
                ]
                .into_iter()
                .find(|r| r.to_string() == *k)
                .ok_or_else(|| FormatErrorKind::Ko(k.chars().take(40).collect()))?,
            ),
        };
        let komi = json_half_points(&raw.komi, 20_000.0)
            .map(Komi::from_half_points)
            .ok_or_else(|| FormatErrorKind::Komi(raw.komi.to_string()))?;
        let bad_value = || FormatErrorKind::Value(raw.value.to_string().chars().take(40).collect());
        let value = match &raw.value {
            serde_json::Value::Number(n) => {
                Value::points(json_half_points(n, MOST_HALF_POINTS).ok_or_else(bad_value)?)
            }
            serde_json::Value::String(s) if s == "B+" => Value::long_cycle_win(Color::Black),
            serde_json::Value::String(s) if s == "W+" => Value::long_cycle_win(Color::White),
            _ => return Err(bad_value()),
        };
        let geometry = Geometry::rect(width, height).map_err(|_| bad_board())?;
        let moves = raw
            .moves
            .iter()
            .map(|t| {
                parse_turn(&geometry, t)
                    .ok_or_else(|| FormatErrorKind::Vertex(t.chars().take(40).collect()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Header {
            width,
            height,
            preset,
            ko,
            komi,
            moves,
            value,
        })
    }
}

impl StrategyLine {
    /// The line as it is written, on `geometry`.
    #[must_use]
    pub fn to_line(&self, geometry: &Geometry) -> String {
        let raw = RawLine {
            proves: color_name(self.proves).to_string(),
            line: self
                .line
                .iter()
                .map(|&mv| turn_name(geometry, mv))
                .collect(),
            play: turn_name(geometry, self.play),
        };
        serde_json::to_string(&raw).expect("a line serializes")
    }

    fn parse(geometry: &Geometry, text: &str) -> Result<StrategyLine, FormatErrorKind> {
        if text.trim().is_empty() {
            return Err(FormatErrorKind::BlankLine);
        }
        let raw: RawLine =
            serde_json::from_str(text).map_err(|e| FormatErrorKind::Json(e.to_string()))?;
        let proves = match raw.proves.as_str() {
            "black" => Color::Black,
            "white" => Color::White,
            other => return Err(FormatErrorKind::Proves(other.chars().take(40).collect())),
        };
        let turn = |t: &String| {
            parse_turn(geometry, t)
                .ok_or_else(|| FormatErrorKind::Vertex(t.chars().take(40).collect()))
        };
        Ok(StrategyLine {
            proves,
            line: raw.line.iter().map(turn).collect::<Result<_, _>>()?,
            play: turn(&raw.play)?,
        })
    }
}
