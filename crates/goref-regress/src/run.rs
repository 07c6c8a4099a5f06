//! Finding the suites (`FILE.tst` and `@LIST`) and running them: a fresh engine a suite,
//! suites in parallel, each command's answer checked, a crash reported and the next suite run.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use goref_gtp::{Engine, EngineSpec, GtpError};
use goref_rules::Board;
use serde::{Deserialize, Serialize};

use crate::position::Tracker;
use crate::suite::{ParseError, StepKind, Suite};

/// At most this many lists inside lists.
const MAX_LIST_DEPTH: usize = 32;

/// A suite file that was read: its path (as named, joined to its list's folder) and steps.
#[derive(Clone, Debug)]
pub struct SuiteFile {
    /// The path as named on the command line or in a list.
    pub path: PathBuf,
    /// The steps.
    pub suite: Suite,
}

/// Why the suites could not be read.
#[derive(Debug)]
pub struct Error {
    /// The file.
    pub file: PathBuf,
    /// What went wrong.
    pub kind: ErrorKind,
}

/// What went wrong reading the suites.
#[derive(Debug)]
pub enum ErrorKind {
    /// The file cannot be read.
    Read(std::io::Error),
    /// A suite's line is not of the format.
    Parse(ParseError),
    /// A list names itself, directly or through other lists.
    ListCycle,
    /// Lists nested deeper than 32.
    ListTooDeep,
    /// A list's line is not UTF-8 text.
    ListNotText {
        /// The line, from 1.
        line: usize,
    },
    /// No suite to run (no arguments, or only empty lists).
    NoSuites,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display();
        match &self.kind {
            ErrorKind::Read(e) => write!(f, "{file}: cannot read: {e}"),
            ErrorKind::Parse(e) => write!(f, "{file}:{}: {}", e.line, e.kind),
            ErrorKind::ListCycle => write!(f, "{file}: the list names itself (through lists)"),
            ErrorKind::ListTooDeep => {
                write!(f, "{file}: lists nested more than {MAX_LIST_DEPTH} deep")
            }
            ErrorKind::ListNotText { line } => write!(f, "{file}:{line}: not UTF-8 text"),
            ErrorKind::NoSuites => write!(f, "no suite to run"),
        }
    }
}

impl std::error::Error for Error {}

/// Reads the suites named by `args`: `FILE.tst`, or `@LIST` (a file naming suites, one a line,
/// relative to the list's folder; blank lines and lines starting with `#` are skipped; a line
/// `@OTHER` names another list), in order.
///
/// # Errors
///
/// The first file that cannot be read or is not a suite, a list that names itself, or nothing
/// to run.
pub fn load(args: &[String]) -> Result<Vec<SuiteFile>, Error> {
    let mut out = Vec::new();
    let mut lists = Vec::new();
    for arg in args {
        expand(arg, Path::new(""), &mut lists, &mut out)?;
    }
    if out.is_empty() {
        return Err(Error {
            file: PathBuf::new(),
            kind: ErrorKind::NoSuites,
        });
    }
    Ok(out)
}

fn expand(
    name: &str,
    base: &Path,
    lists: &mut Vec<PathBuf>,
    out: &mut Vec<SuiteFile>,
) -> Result<(), Error> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| Error {
            file: path.to_path_buf(),
            kind: ErrorKind::Read(e),
        })
    };
    let Some(list) = name.strip_prefix('@') else {
        let path = base.join(name);
        let suite = Suite::parse(&read(&path)?).map_err(|e| Error {
            file: path.clone(),
            kind: ErrorKind::Parse(e),
        })?;
        out.push(SuiteFile { path, suite });
        return Ok(());
    };
    let path = base.join(list);
    let error = |kind| Error {
        file: path.clone(),
        kind,
    };
    let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    if lists.contains(&key) {
        return Err(error(ErrorKind::ListCycle));
    }
    if lists.len() >= MAX_LIST_DEPTH {
        return Err(error(ErrorKind::ListTooDeep));
    }
    let bytes = read(&path)?;
    let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
    lists.push(key);
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.trim_ascii_start().starts_with(b"#") {
            continue;
        }
        let line = std::str::from_utf8(line)
            .map_err(|_| error(ErrorKind::ListNotText { line: n + 1 }))?
            .trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        expand(line, &folder, lists, out)?;
    }
    lists.pop();
    Ok(())
}

/// gogui-regress's verdicts, and what a crash leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Verdict {
    /// Passed, as expected.
    #[serde(rename = "pass")]
    Pass,
    /// Failed unexpectedly (the engine's crash or silence during the test included).
    #[serde(rename = "FAIL")]
    UnexpectedFail,
    /// Failed, as expected (`*`).
    #[serde(rename = "fail")]
    ExpectedFail,
    /// Passed unexpectedly: the `*` can go.
    #[serde(rename = "PASS")]
    UnexpectedPass,
    /// Not run: the engine had crashed earlier in the suite.
    #[serde(rename = "skipped")]
    Skipped,
}

impl Verdict {
    /// Of a test that failed or not, expected to fail or not.
    #[must_use]
    pub fn of(failed: bool, expected_failure: bool) -> Verdict {
        match (failed, expected_failure) {
            (false, false) => Verdict::Pass,
            (true, false) => Verdict::UnexpectedFail,
            (true, true) => Verdict::ExpectedFail,
            (false, true) => Verdict::UnexpectedPass,
        }
    }

    /// The word: `pass`, `FAIL`, `fail`, `PASS`, `skipped`.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::UnexpectedFail => "FAIL",
            Verdict::ExpectedFail => "fail",
            Verdict::UnexpectedPass => "PASS",
            Verdict::Skipped => "skipped",
        }
    }

    /// Whether the engine's answer was right (`pass`, `PASS`).
    #[must_use]
    pub fn passed(self) -> bool {
        matches!(self, Verdict::Pass | Verdict::UnexpectedPass)
    }

    /// Whether the engine's answer was wrong (`FAIL`, `fail`).
    #[must_use]
    pub fn failed(self) -> bool {
        matches!(self, Verdict::UnexpectedFail | Verdict::ExpectedFail)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// One test's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestResult {
    /// The suite's path.
    pub file: String,
    /// The test's line in it.
    #[serde(default)]
    pub line: usize,
    /// The test's number.
    pub id: u32,
    /// The command, as written in the suite.
    pub command: String,
    /// The expectation, as written after `#?` (`[C3|D4]*`; empty for none).
    pub expected: String,
    /// The engine's answer, trimmed; `? text` for a failure; empty when not run.
    pub got: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Seconds from sending the command to its answer.
    pub seconds: f64,
    /// CPU seconds the engine spent on it, when it answers `cputime`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<f64>,
    /// The position when the command was sent (see [`crate::position`]), or why it is not
    /// known.
    #[serde(skip)]
    pub position: Option<Result<Board, String>>,
}

/// A plain command that the engine answered with a failure (gogui-regress's "Error").
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CommandError {
    /// Its line in the suite.
    pub line: usize,
    /// The command.
    pub command: String,
    /// The engine's message.
    pub message: String,
}

/// The engine's end in the middle of a suite.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Crash {
    /// The line of the command it did not answer.
    pub line: usize,
    /// The command.
    pub command: String,
    /// What happened (closed, killed, timed out).
    pub message: String,
    /// The last lines of its standard error.
    pub stderr: Vec<String>,
}

/// One suite's results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SuiteResult {
    /// The suite's path.
    pub file: String,
    /// The engine's `name` and `version`, as it answered.
    #[serde(default)]
    pub engine: String,
    /// Each test's result, in order.
    #[serde(skip)]
    pub tests: Vec<TestResult>,
    /// Plain commands that failed.
    pub errors: Vec<CommandError>,
    /// The engine crashed, or stopped answering.
    pub crash: Option<Crash>,
    /// The engine could not be started (a run that could not be done).
    pub not_started: Option<String>,
    /// Seconds the suite took.
    pub seconds: f64,
    /// CPU seconds of the engine over the suite, when it answers `cputime`.
    pub cpu: Option<f64>,
}

/// How to run the suites.
#[derive(Clone, Debug)]
pub struct Options {
    /// The engine (a fresh one each suite).
    pub engine: EngineSpec,
    /// Suites run at once.
    pub jobs: usize,
    /// The longest the engine may take to answer one command; then it is killed and the
    /// suite ends as for a crash.
    pub timeout: Duration,
}

/// `loadsgf FILE ...` with a relative `FILE` made absolute, relative to `folder` (the suite's):
/// the engine runs in goref's working directory, not the suite's. A path with spaces in it
/// cannot be one GTP argument and is left as written.
#[must_use]
pub fn rewrite_paths(command: &str, folder: &Path) -> String {
    let mut words = command.split_whitespace();
    let (Some(name), Some(file)) = (words.next(), words.next()) else {
        return command.to_string();
    };
    if !name.eq_ignore_ascii_case("loadsgf") || Path::new(file).is_absolute() {
        return command.to_string();
    }
    let absolute = folder.join(file);
    let Some(text) = absolute.to_str() else {
        return command.to_string();
    };
    if text.contains(char::is_whitespace) {
        return command.to_string();
    }
    let rest: Vec<&str> = words.collect();
    std::iter::once(name)
        .chain(std::iter::once(text))
        .chain(rest)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The engine's `cputime`, in seconds, if it answers one.
async fn cputime(engine: &mut Engine, has: bool, limit: Duration) -> Option<f64> {
    if !has {
        return None;
    }
    let text = engine.command("cputime", limit).await.ok()?;
    text.trim().parse().ok().filter(|s: &f64| s.is_finite())
}

/// Runs one suite with a fresh engine.
pub async fn run_suite(file: &SuiteFile, options: &Options) -> SuiteResult {
    let name = file.path.display().to_string();
    let parent = file.path.parent().unwrap_or(Path::new(""));
    let folder = match std::env::current_dir() {
        Ok(cwd) if parent.is_relative() => cwd.join(parent),
        _ => parent.to_path_buf(),
    };
    let started = Instant::now();
    let mut result = SuiteResult {
        file: name.clone(),
        engine: String::new(),
        tests: Vec::new(),
        errors: Vec::new(),
        crash: None,
        not_started: None,
        seconds: 0.0,
        cpu: None,
    };
    let limit = options.timeout;
    let mut engine = match Engine::start(&options.engine, "engine", None).await {
        Ok(e) => e,
        Err(e) => {
            result.not_started = Some(e.to_string());
            return result;
        }
    };
    // The engine must answer something before the suite counts as run.
    let commands = match engine.send("list_commands", limit).await {
        Ok(reply) => reply.text,
        Err(e) => {
            result.not_started = Some(format!("{e}"));
            engine.kill();
            return result;
        }
    };
    let has_cputime = commands.lines().any(|l| l.trim() == "cputime");
    let mut ident = Vec::new();
    for command in ["name", "version"] {
        if let Ok(text) = engine.command(command, limit).await {
            ident.push(text.trim().to_string());
        }
    }
    result.engine = ident.join(" ");
    let cpu_start = cputime(&mut engine, has_cputime, limit).await;
    let mut tracker = Tracker::new();
    let mut crashed = false;
    for step in &file.suite.steps {
        let test = match &step.kind {
            StepKind::Test(t) => Some(t),
            StepKind::Command(_) => None,
        };
        let written = step.kind.command();
        if crashed {
            if let Some(t) = test {
                result.tests.push(TestResult {
                    file: name.clone(),
                    line: step.line,
                    id: t.id,
                    command: written.to_string(),
                    expected: t.expectation.to_string(),
                    got: String::new(),
                    verdict: Verdict::Skipped,
                    seconds: 0.0,
                    cpu: None,
                    position: None,
                });
            }
            continue;
        }
        let command = rewrite_paths(written, &folder);
        let position = test.map(|_| tracker.board().cloned().map_err(str::to_string));
        let cpu_before = match test {
            Some(_) => cputime(&mut engine, has_cputime, limit).await,
            None => None,
        };
        let sent = Instant::now();
        let reply = engine.send(&command, limit).await;
        let seconds = sent.elapsed().as_secs_f64();
        match reply {
            Ok(reply) => {
                let got = reply.text.trim().to_string();
                tracker.observe(&command, reply.success, &got);
                match test {
                    Some(t) => {
                        let cpu = match cpu_before {
                            Some(before) => cputime(&mut engine, true, limit)
                                .await
                                .map(|after| (after - before).max(0.0)),
                            None => None,
                        };
                        let failed = !reply.success || !t.expectation.passes(&got);
                        result.tests.push(TestResult {
                            file: name.clone(),
                            line: step.line,
                            id: t.id,
                            command: written.to_string(),
                            expected: t.expectation.to_string(),
                            got: if reply.success {
                                got
                            } else {
                                format!("? {got}")
                            },
                            verdict: Verdict::of(failed, t.expectation.expected_failure),
                            seconds,
                            cpu,
                            position,
                        });
                    }
                    None if !reply.success => result.errors.push(CommandError {
                        line: step.line,
                        command: written.to_string(),
                        message: got,
                    }),
                    None => {}
                }
            }
            Err(e) => {
                crashed = true;
                let crash = crash_of(&e, step.line, written);
                if let Some(t) = test {
                    result.tests.push(TestResult {
                        file: name.clone(),
                        line: step.line,
                        id: t.id,
                        command: written.to_string(),
                        expected: t.expectation.to_string(),
                        got: format!("(no answer: {})", crash.message),
                        verdict: Verdict::UnexpectedFail,
                        seconds,
                        cpu: None,
                        position,
                    });
                }
                result.crash = Some(crash);
                engine.kill();
            }
        }
    }
    if !crashed {
        let cpu_end = cputime(&mut engine, has_cputime, limit).await;
        result.cpu = match (cpu_start, cpu_end) {
            (Some(a), Some(b)) => Some((b - a).max(0.0)),
            _ => None,
        };
        engine.shutdown(Duration::from_secs(2)).await;
    }
    result.seconds = started.elapsed().as_secs_f64();
    result
}

fn crash_of(e: &GtpError, line: usize, command: &str) -> Crash {
    let message = match e {
        GtpError::Closed { status, .. } => match status {
            Some(s) => format!("the engine closed its output ({s})"),
            None => "the engine closed its output".to_string(),
        },
        GtpError::Timeout { after, .. } => format!(
            "no answer within {:.1}s: the engine was stopped",
            after.as_secs_f64()
        ),
        other => other.to_string(),
    };
    Crash {
        line,
        command: command.to_string(),
        message,
        stderr: e.stderr_tail().to_vec(),
    }
}

/// Runs every suite, `options.jobs` at once, each with a fresh engine; the results in the
/// order of `files`.
pub async fn run(files: &[SuiteFile], options: &Options) -> Vec<SuiteResult> {
    run_with_progress(files, options, |_, _| {}).await
}

/// [`run`], calling `done` with each suite's index and result as it ends (in the order they
/// end).
pub async fn run_with_progress(
    files: &[SuiteFile],
    options: &Options,
    done: impl Fn(usize, &SuiteResult),
) -> Vec<SuiteResult> {
    // At most `jobs` suites at once, started in the order named.
    let mut tasks = tokio::task::JoinSet::new();
    let mut results: Vec<Option<SuiteResult>> = vec![None; files.len()];
    let mut next = files.iter().enumerate();
    loop {
        while tasks.len() < options.jobs.max(1) {
            let Some((i, file)) = next.next() else { break };
            let (file, options) = (file.clone(), options.clone());
            tasks.spawn(async move { (i, run_suite(&file, &options).await) });
        }
        let Some(finished) = tasks.join_next().await else {
            break;
        };
        if let Ok((i, r)) = finished {
            done(i, &r);
            results[i] = Some(r);
        }
    }
    results
        .into_iter()
        .zip(files)
        .map(|(r, f)| {
            r.unwrap_or_else(|| SuiteResult {
                file: f.path.display().to_string(),
                engine: String::new(),
                tests: Vec::new(),
                errors: Vec::new(),
                crash: None,
                not_started: Some("the suite's task failed".into()),
                seconds: 0.0,
                cpu: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loadsgf_paths_are_made_absolute_from_the_suite_folder() {
        let folder = Path::new("/data/suites");
        assert_eq!(
            rewrite_paths("loadsgf games/a.sgf 12", folder),
            "loadsgf /data/suites/games/a.sgf 12"
        );
        assert_eq!(rewrite_paths("loadsgf /x.sgf", folder), "loadsgf /x.sgf");
        assert_eq!(rewrite_paths("play b c3", folder), "play b c3");
        assert_eq!(
            rewrite_paths("loadsgf a.sgf", Path::new("/with space")),
            "loadsgf a.sgf"
        );
    }

    #[test]
    fn verdicts_are_gogui_regress_words() {
        assert_eq!(Verdict::of(false, false).word(), "pass");
        assert_eq!(Verdict::of(true, false).word(), "FAIL");
        assert_eq!(Verdict::of(true, true).word(), "fail");
        assert_eq!(Verdict::of(false, true).word(), "PASS");
        assert_eq!(
            serde_json::to_string(&Verdict::UnexpectedPass).unwrap(),
            "\"PASS\""
        );
    }
}
