//! The `.tst` format of gogui-regress and GNU Go's regression suites, read as outside text.
//!
//! A suite is a file of GTP commands, one a line. Each line is trimmed (of every character up
//! to the space, as gogui-regress does). Then:
//!
//! - an empty line, or a line starting with `#` (but not `#?`), is a comment;
//! - `ID COMMAND`, where `ID` is a number, is a **test**: `COMMAND` is sent, and the line right
//!   after it may be `#? [REGEX]` (`[!REGEX]`: the answer must *not* match), optionally
//!   followed by `*` (the test is expected to fail). The whole answer must match, lines and all
//!   (`.` matches a line end). A test without `#?` (or with an empty one) passes when the engine
//!   answers with success;
//! - any other line is a command that is sent and just runs.
//!
//! A `#?` line anywhere else (after a comment, a blank line, a command without a number, or
//! another `#?`) is an error, as in gogui-regress. Parsing never panics; an error names the
//! line and what is wrong ([`ErrorKind`]).

use std::fmt;

use regex::{Regex, RegexBuilder};

/// The most a pattern's compiled form may take, in bytes (a pattern of a regression suite is a
/// few vertices; this bounds what an arbitrary file can cost).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A suite as read: its steps, in order, and what was read leniently. Comments are not kept.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Suite {
    /// The commands and tests.
    pub steps: Vec<Step>,
    /// Lines read though not quite of the format.
    pub warnings: Vec<Warning>,
}

/// A line read though not quite of the format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The line, from 1.
    pub line: usize,
    /// What is not of the format.
    pub kind: WarningKind,
}

/// What a [`Warning`] is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WarningKind {
    /// A pattern without its closing `]`, read as if it were there (as GNU Go's `regress.awk`
    /// reads it; gogui-regress refuses it).
    NoClosingBracket(String),
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            WarningKind::NoClosingBracket(p) => write!(
                f,
                "the pattern {p:?} has no closing `]`: read as if it ended there"
            ),
        }
    }
}

/// One command of a suite, and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Its line in the file, from 1.
    pub line: usize,
    /// A command that just runs, or a test.
    pub kind: StepKind,
}

/// What a step is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// A command that just runs (a failure is counted as an error of the suite, not a test).
    Command(String),
    /// A numbered command whose answer is checked.
    Test(Test),
}

impl StepKind {
    /// The GTP command, as written (without the test's number).
    #[must_use]
    pub fn command(&self) -> &str {
        match self {
            StepKind::Command(c) => c,
            StepKind::Test(t) => &t.command,
        }
    }
}

/// A test: a numbered command and what its answer should be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Test {
    /// Its number in the suite.
    pub id: u32,
    /// The GTP command.
    pub command: String,
    /// What the answer should be.
    pub expectation: Expectation,
}

/// What a test's answer should be.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Expectation {
    /// The pattern the whole answer must match (or, negated, must not); with none, any
    /// successful answer passes.
    pub pattern: Option<Pattern>,
    /// A trailing `*`: the test is known to fail (a failure is `fail`, a pass `PASS`).
    pub expected_failure: bool,
}

impl Expectation {
    /// Whether a successful answer `text` (trimmed) passes; a `?` answer never does.
    #[must_use]
    pub fn passes(&self, text: &str) -> bool {
        self.pattern.as_ref().is_none_or(|p| p.accepts(text))
    }
}

impl fmt::Display for Expectation {
    /// As after `#? ` in a suite: `[C3|D4]`, `[!B2]*`; empty for a test with no pattern and no
    /// `*` (`*` alone cannot be written: gogui-regress wants brackets).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.pattern {
            write!(f, "{p}")?;
        }
        if self.expected_failure {
            f.write_str("*")?;
        }
        Ok(())
    }
}

/// A pattern of `#? [...]`: a regular expression the whole answer must match, or not match.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// The expression as written, without the brackets and the `!`.
    pub source: String,
    /// `[!...]`: the answer must not match.
    pub negated: bool,
    /// The expression anchored at both ends, multi-line, `.` matching line ends (as
    /// gogui-regress compiles it with Java's `MULTILINE | DOTALL`).
    regex: Regex,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.source == other.source && self.negated == other.negated
    }
}

impl Eq for Pattern {}

impl Pattern {
    /// Compiles `source`.
    ///
    /// # Errors
    ///
    /// The regular expression's error, in words: its syntax is Rust's `regex` (close to Java's
    /// and GNU Go's for what suites use: alternatives, groups, classes, repetition; no
    /// back-references or look-around).
    pub fn new(source: &str, negated: bool) -> Result<Pattern, String> {
        let build = |text: &str| {
            RegexBuilder::new(text)
                .multi_line(true)
                .dot_matches_new_line(true)
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| e.to_string())
        };
        // Alone first: `a)|(b` must be refused, not read as a group once wrapped.
        build(source)?;
        let regex = build(&format!(r"\A(?:{source})\z"))?;
        Ok(Pattern {
            source: source.to_string(),
            negated,
            regex,
        })
    }

    /// Whether `answer` passes: the whole of it matches (does not match, negated).
    #[must_use]
    pub fn accepts(&self, answer: &str) -> bool {
        self.regex.is_match(answer) != self.negated
    }
}

impl fmt::Display for Pattern {
    /// `[source]` or `[!source]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bang = if self.negated { "!" } else { "" };
        write!(f, "[{bang}{}]", self.source)
    }
}

/// What is wrong with a line of a suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A command or pattern that is not UTF-8 text (comments may be in any encoding).
    NotText,
    /// A control character (other than a tab) inside a command: GTP has none.
    ControlCharacter,
    /// `#?` with no test right before it (after a comment, a blank line or another `#?`).
    ExpectationWithoutTest,
    /// `#?` after a command that has no number: only tests have expectations.
    ExpectationAfterCommand,
    /// A pattern that does not start with `[`.
    NoOpeningBracket(String),
    /// A regular expression that does not compile.
    BadRegex {
        /// The expression.
        pattern: String,
        /// Why.
        message: String,
    },
    /// A test number too large (above 4294967295).
    IdOutOfRange(String),
    /// A test number with no command after it.
    IdWithoutCommand,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::NotText => f.write_str("the command is not UTF-8 text"),
            ErrorKind::ControlCharacter => {
                f.write_str("a control character inside a command (GTP has none)")
            }
            ErrorKind::ExpectationWithoutTest => f.write_str(
                "`#?` must come right after a numbered test command (not after a comment, a \
                 blank line or another `#?`)",
            ),
            ErrorKind::ExpectationAfterCommand => f.write_str(
                "`#?` follows a command without a number: write `ID COMMAND` to make it a test",
            ),
            ErrorKind::NoOpeningBracket(p) => {
                write!(f, "the pattern {p:?} does not start with `[`")
            }
            ErrorKind::BadRegex { pattern, message } => {
                let first = message.lines().last().unwrap_or_default().trim();
                write!(
                    f,
                    "the pattern [{pattern}] is not a regular expression: {first}"
                )
            }
            ErrorKind::IdOutOfRange(id) => write!(f, "the test number {id} is too large"),
            ErrorKind::IdWithoutCommand => f.write_str("a test number with no command after it"),
        }
    }
}

/// A suite's error: the line (from 1) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong.
    pub kind: ErrorKind,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.kind)
    }
}

impl std::error::Error for ParseError {}

/// Trims as gogui-regress does (Java's `String.trim`: every character up to the space).
fn trim(line: &str) -> &str {
    line.trim_matches(|c: char| c <= ' ')
}

/// `#? ...` (already trimmed, without `#?`) as an expectation.
fn expectation(text: &str) -> Result<(Expectation, Option<WarningKind>), ErrorKind> {
    let text = trim(text);
    if text.is_empty() {
        return Ok((Expectation::default(), None));
    }
    let (text, expected_failure) = match text.strip_suffix('*') {
        Some(rest) => (trim(rest), true),
        None => (text, false),
    };
    let Some(inner) = text.strip_prefix('[') else {
        return Err(ErrorKind::NoOpeningBracket(text.to_string()));
    };
    // GNU Go's own suites have a few patterns without their `]` (`#? [1 1 D6`), which
    // gogui-regress refuses and GNU Go's `regress.awk` reads as if it were there: so does
    // goref, with a warning.
    let (inner, warning) = match inner.strip_suffix(']') {
        Some(inner) => (inner, None),
        None => (inner, Some(WarningKind::NoClosingBracket(text.to_string()))),
    };
    let inner = trim(inner);
    // Trimmed after the `!` too (gogui-regress would keep `[! B2]`'s space, which no answer
    // starts with).
    let (source, negated) = match inner.strip_prefix('!') {
        Some(rest) => (trim(rest), true),
        None => (inner, false),
    };
    let pattern = Pattern::new(source, negated).map_err(|message| ErrorKind::BadRegex {
        pattern: source.to_string(),
        message,
    })?;
    Ok((
        Expectation {
            pattern: Some(pattern),
            expected_failure,
        },
        warning,
    ))
}

/// A command line (trimmed, not a comment) as a step: a test when it starts with a number and
/// a space.
fn step(line: &str) -> Result<StepKind, ErrorKind> {
    let line = line.replace('\t', " ");
    if line.chars().any(char::is_control) {
        return Err(ErrorKind::ControlCharacter);
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Ok(StepKind::Command(line));
    }
    let (id, rest) = line.split_at(digits);
    if rest.is_empty() {
        return Err(ErrorKind::IdWithoutCommand);
    }
    if !rest.starts_with(' ') {
        // `9x9` or `12abc`: not a number followed by a command.
        return Ok(StepKind::Command(line.clone()));
    }
    let id: u32 = id
        .parse()
        .map_err(|_| ErrorKind::IdOutOfRange(id.to_string()))?;
    Ok(StepKind::Test(Test {
        id,
        command: trim(rest).to_string(),
        expectation: Expectation::default(),
    }))
}

impl Suite {
    /// Reads a suite from the bytes of a file.
    ///
    /// # Errors
    ///
    /// The first line that is not of the format, and why.
    pub fn parse(bytes: &[u8]) -> Result<Suite, ParseError> {
        let mut steps: Vec<Step> = Vec::new();
        let mut warnings = Vec::new();
        // Whether the last line was a command (a `#?` may follow it).
        let mut last_was_command = false;
        for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line_no = n + 1;
            let error = |kind| ParseError {
                line: line_no,
                kind,
            };
            // Comments may be in any encoding (GNU Go's STS-RV suites have Latin-1 names in
            // theirs): only commands and patterns must be UTF-8.
            let start = raw.iter().position(|&b| b > b' ').unwrap_or(raw.len());
            if raw[start..].starts_with(b"#") && !raw[start..].starts_with(b"#?") {
                last_was_command = false;
                continue;
            }
            let text = std::str::from_utf8(raw).map_err(|_| error(ErrorKind::NotText))?;
            let text = trim(text);
            if let Some(rest) = text.strip_prefix("#?") {
                if !last_was_command {
                    return Err(error(ErrorKind::ExpectationWithoutTest));
                }
                last_was_command = false;
                let Some(Step {
                    kind: StepKind::Test(test),
                    ..
                }) = steps.last_mut()
                else {
                    return Err(error(ErrorKind::ExpectationAfterCommand));
                };
                let (read, warning) = expectation(rest).map_err(error)?;
                test.expectation = read;
                if let Some(kind) = warning {
                    warnings.push(Warning {
                        line: line_no,
                        kind,
                    });
                }
                continue;
            }
            if text.is_empty() || text.starts_with('#') {
                last_was_command = false;
                continue;
            }
            steps.push(Step {
                line: line_no,
                kind: step(text).map_err(error)?,
            });
            last_was_command = true;
        }
        Ok(Suite { steps, warnings })
    }

    /// The tests, in order.
    pub fn tests(&self) -> impl Iterator<Item = &Test> {
        self.steps.iter().filter_map(|s| match &s.kind {
            StepKind::Test(t) => Some(t),
            StepKind::Command(_) => None,
        })
    }
}

impl fmt::Display for Suite {
    /// The suite as a file: a line a command, `ID COMMAND` and its `#?` line for a test.
    /// [`Suite::parse`] reads it back to the same steps (at other line numbers).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.steps {
            match &step.kind {
                StepKind::Command(c) => writeln!(f, "{c}")?,
                StepKind::Test(t) => {
                    writeln!(f, "{} {}", t.id, t.command)?;
                    if t.expectation.pattern.is_some() {
                        writeln!(f, "#? {}", t.expectation)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// What [`reads_back`] found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Misread {
    /// The suite, written out, did not parse.
    Unreadable {
        /// The text written.
        written: String,
        /// Why it did not parse.
        error: ParseError,
    },
    /// The suite, written out, parsed to other steps.
    Different {
        /// The steps read first.
        first: Vec<StepKind>,
        /// The steps read back.
        again: Vec<StepKind>,
    },
}

/// Parses `bytes` (any bytes) as a suite; when they parse, writes the suite out and parses it
/// again: the same steps must come back. The invariant the fuzz target `regress_suites` and the
/// unit tests check; the number of steps read (`None` when the bytes are not a suite).
///
/// # Errors
///
/// What went wrong reading the suite back.
pub fn reads_back(bytes: &[u8]) -> Result<Option<usize>, Misread> {
    let Ok(suite) = Suite::parse(bytes) else {
        return Ok(None);
    };
    let written = suite.to_string();
    let again = Suite::parse(written.as_bytes()).map_err(|error| Misread::Unreadable {
        written: written.clone(),
        error,
    })?;
    let kinds = |s: &Suite| s.steps.iter().map(|s| s.kind.clone()).collect::<Vec<_>>();
    let (first, again) = (kinds(&suite), kinds(&again));
    if first != again {
        return Err(Misread::Different { first, again });
    }
    Ok(Some(first.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Suite, ParseError> {
        Suite::parse(text.as_bytes())
    }

    fn test(suite: &Suite, i: usize) -> &Test {
        suite.tests().nth(i).unwrap()
    }

    #[test]
    fn commands_tests_and_expectations_are_read() {
        let s = parse(
            "# a comment\nboardsize 9\n\n  loadsgf games/a.sgf 12  \n1 reg_genmove black\n#? [C3|D4]\n\
             2\tattack C3\n#? [!0]*\n3 name\n4 version\n#?\n",
        )
        .unwrap();
        assert_eq!(s.steps.len(), 6);
        assert_eq!(s.steps[0].kind, StepKind::Command("boardsize 9".into()));
        assert_eq!(s.steps[1].line, 4);
        assert_eq!(s.steps[1].kind.command(), "loadsgf games/a.sgf 12");
        let t = test(&s, 0);
        assert_eq!((t.id, t.command.as_str()), (1, "reg_genmove black"));
        assert!(t.expectation.passes("D4") && !t.expectation.passes("D45"));
        assert!(!t.expectation.expected_failure);
        let t = test(&s, 1);
        assert_eq!(t.command, "attack C3");
        assert!(t.expectation.expected_failure);
        assert!(!t.expectation.passes("0") && t.expectation.passes("1 C4"));
        // A number without `#?`, or with an empty one: any successful answer passes.
        assert!(test(&s, 2).expectation.pattern.is_none());
        assert!(test(&s, 3).expectation.pattern.is_none());
    }

    #[test]
    fn a_pattern_without_its_closing_bracket_is_read_with_a_warning() {
        let s = parse("1 a\n#? [1 1 D6\n2 b\n#? [C3] *\n3 c\n#? [x *\n").unwrap();
        assert!(test(&s, 0).expectation.passes("1 1 D6"));
        assert!(!test(&s, 0).expectation.expected_failure);
        assert!(test(&s, 1).expectation.expected_failure);
        assert!(test(&s, 2).expectation.expected_failure && test(&s, 2).expectation.passes("x"));
        let lines: Vec<usize> = s.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [2, 6]);
        assert_eq!(
            s.warnings[0].to_string(),
            "the pattern \"[1 1 D6\" has no closing `]`: read as if it ended there"
        );
    }

    #[test]
    fn the_whole_answer_matches_across_lines() {
        let s = parse("1 list\n#? [a.b]\n2 x\n#? [(a|b) c]\n").unwrap();
        assert!(test(&s, 0).expectation.passes("a\nb"));
        assert!(!test(&s, 0).expectation.passes("xa\nb"));
        assert!(test(&s, 1).expectation.passes("b c"));
        assert!(!test(&s, 1).expectation.passes("b c d"));
    }

    #[test]
    fn errors_name_the_line_and_the_fault() {
        let cases: [(&str, usize, ErrorKind); 7] = [
            ("#? [a]\n", 1, ErrorKind::ExpectationWithoutTest),
            ("1 a\n\n#? [a]\n", 3, ErrorKind::ExpectationWithoutTest),
            (
                "1 a\n#? [a]\n#? [b]\n",
                3,
                ErrorKind::ExpectationWithoutTest,
            ),
            ("play b c3\n#? [a]\n", 2, ErrorKind::ExpectationAfterCommand),
            ("1 a\n#? a]\n", 2, ErrorKind::NoOpeningBracket("a]".into())),
            (
                "x\n99999999999 a\n",
                2,
                ErrorKind::IdOutOfRange("99999999999".into()),
            ),
            ("12\n", 1, ErrorKind::IdWithoutCommand),
        ];
        for (text, line, kind) in cases {
            assert_eq!(parse(text), Err(ParseError { line, kind }), "{text:?}");
        }
        let e = parse("a\n1 b\n#? [a)|(b]\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(matches!(e.kind, ErrorKind::BadRegex { .. }), "{e}");
        assert!(
            e.to_string().starts_with("line 3: the pattern [a)|(b]"),
            "{e}"
        );
        assert_eq!(parse("a\nb\u{1}c\n").unwrap_err().line, 2);
        assert_eq!(
            Suite::parse(b"a\n\xffb\n").unwrap_err().kind,
            ErrorKind::NotText
        );
        // A comment may be in another encoding (Latin-1 here).
        assert_eq!(Suite::parse(b"# Vil\xe0\n a\n").unwrap().steps.len(), 1);
    }

    /// Random suites of the pieces real ones are made of, and garbage: parsing never panics,
    /// and every suite read writes out and reads back to the same steps (what the fuzz target
    /// `regress_suites` checks on any bytes).
    #[test]
    fn every_suite_read_writes_out_and_reads_back_the_same() {
        let mut rng = goref_rules::playout::Rng::new(39);
        let pieces: [&str; 22] = [
            "1 ",
            "23 ",
            "genmove b",
            "loadsgf a.sgf 3",
            "\n",
            "\r\n",
            "#?",
            " [",
            "]",
            "!",
            "*",
            "C3|D4",
            "(a",
            ")",
            "# c",
            "\t",
            " ",
            "12abc",
            "\u{1}",
            "\u{e9}",
            "\\",
            ".",
        ];
        let (mut suites, mut steps) = (0, 0);
        for _ in 0..5_000 {
            let mut text = String::new();
            for _ in 0..rng.below(40) {
                text.push_str(pieces[rng.below(pieces.len())]);
            }
            match reads_back(text.as_bytes()) {
                Ok(Some(n)) => {
                    suites += 1;
                    steps += n;
                }
                Ok(None) => {}
                Err(m) => panic!("{text:?}: {m:?}"),
            }
        }
        assert!(
            suites > 500 && steps > 2_000,
            "{suites} suites, {steps} steps"
        );
    }
}
