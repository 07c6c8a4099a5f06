//! What a run found: totals, the JSON form, the summary table, `--compare` with an earlier
//! run, and the HTML report with each failing test's position drawn.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use goref_rules::{Board, Color};
use serde::{Deserialize, Serialize};

use crate::run::{SuiteResult, TestResult, Verdict};

/// Counts of a suite or of the whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Suites (1 for a suite's own counts).
    pub suites: usize,
    /// Tests.
    pub tests: usize,
    /// `pass`: passed as expected.
    pub expected_passes: usize,
    /// `FAIL`: failed unexpectedly.
    pub unexpected_failures: usize,
    /// `fail`: failed as expected.
    pub expected_failures: usize,
    /// `PASS`: passed unexpectedly.
    pub unexpected_passes: usize,
    /// Not run after a crash.
    pub skipped: usize,
    /// Plain commands the engine failed.
    pub errors: usize,
    /// Suites whose engine crashed or stopped answering.
    pub crashes: usize,
    /// Suites whose engine could not be started.
    pub not_started: usize,
    /// Seconds (summed over suites).
    pub seconds: f64,
    /// Engine CPU seconds, summed over the suites that report it.
    pub cpu: Option<f64>,
}

impl Totals {
    /// One suite's counts.
    #[must_use]
    pub fn of(suite: &SuiteResult) -> Totals {
        let mut t = Totals {
            suites: 1,
            tests: suite.tests.len(),
            errors: suite.errors.len(),
            crashes: usize::from(suite.crash.is_some()),
            not_started: usize::from(suite.not_started.is_some()),
            seconds: suite.seconds,
            cpu: suite.cpu,
            ..Totals::default()
        };
        for test in &suite.tests {
            *match test.verdict {
                Verdict::Pass => &mut t.expected_passes,
                Verdict::UnexpectedFail => &mut t.unexpected_failures,
                Verdict::ExpectedFail => &mut t.expected_failures,
                Verdict::UnexpectedPass => &mut t.unexpected_passes,
                Verdict::Skipped => &mut t.skipped,
            } += 1;
        }
        t
    }

    /// The sum over suites.
    #[must_use]
    pub fn sum(suites: &[SuiteResult]) -> Totals {
        let mut t = Totals::default();
        for s in suites {
            let o = Totals::of(s);
            t.suites += 1;
            t.tests += o.tests;
            t.expected_passes += o.expected_passes;
            t.unexpected_failures += o.unexpected_failures;
            t.expected_failures += o.expected_failures;
            t.unexpected_passes += o.unexpected_passes;
            t.skipped += o.skipped;
            t.errors += o.errors;
            t.crashes += o.crashes;
            t.not_started += o.not_started;
            t.seconds += o.seconds;
            if let Some(c) = o.cpu {
                t.cpu = Some(t.cpu.unwrap_or(0.0) + c);
            }
        }
        t
    }

    /// The exit status: 2 when a suite could not be run (its engine did not start), 1 when a
    /// test failed unexpectedly or an engine crashed, else 0.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        if self.not_started > 0 {
            2
        } else if self.unexpected_failures > 0 || self.crashes > 0 {
            1
        } else {
            0
        }
    }
}

/// A run in JSON: `{"tests": [...], "suites": [...], "totals": {...}}`, with `"compare"` when
/// it was compared with an earlier run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunJson {
    /// Every test, suite by suite.
    pub tests: Vec<TestResult>,
    /// Each suite: its counts, errors and crash.
    #[serde(default)]
    pub suites: Vec<SuiteJson>,
    /// The whole run's counts.
    pub totals: Totals,
    /// What changed since an earlier run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Comparison>,
}

/// A suite in JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SuiteJson {
    /// The suite's result (without its tests).
    #[serde(flatten)]
    pub result: SuiteResult,
    /// Its counts.
    pub totals: Totals,
}

impl RunJson {
    /// The JSON form of `suites`.
    #[must_use]
    pub fn of(suites: &[SuiteResult], compare: Option<Comparison>) -> RunJson {
        RunJson {
            tests: suites.iter().flat_map(|s| s.tests.clone()).collect(),
            suites: suites
                .iter()
                .map(|s| SuiteJson {
                    result: s.clone(),
                    totals: Totals::of(s),
                })
                .collect(),
            totals: Totals::sum(suites),
            compare,
        }
    }
}

/// A test named in a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The suite.
    pub file: String,
    /// The test's number.
    pub id: u32,
    /// The command.
    pub command: String,
    /// Its verdict before.
    pub before: Verdict,
    /// Its verdict now.
    pub now: Verdict,
    /// The answer now.
    pub got: String,
}

/// What changed since an earlier run, test by test (a test is its suite's path and number).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Passed before (`pass` or `PASS`), fails now (`FAIL`, `fail`, or not run).
    pub newly_failing: Vec<Change>,
    /// Failed before, passes now.
    pub newly_passing: Vec<Change>,
    /// Tests not in the earlier run.
    pub new_tests: usize,
    /// Tests of the earlier run not run now (their suite was not named, or they were removed).
    pub gone_tests: usize,
}

impl Comparison {
    /// Compares `now` with the tests of an earlier run.
    #[must_use]
    pub fn between(before: &[TestResult], now: &[TestResult]) -> Comparison {
        // A suite that uses a number twice has its tests told apart by their order.
        fn keyed(tests: &[TestResult]) -> Vec<((&str, u32, usize), &TestResult)> {
            let mut count: BTreeMap<(&str, u32), usize> = BTreeMap::new();
            tests
                .iter()
                .map(|t| {
                    let n = count.entry((t.file.as_str(), t.id)).or_default();
                    *n += 1;
                    ((t.file.as_str(), t.id, *n), t)
                })
                .collect()
        }
        let old: BTreeMap<(&str, u32, usize), Verdict> = keyed(before)
            .into_iter()
            .map(|(k, t)| (k, t.verdict))
            .collect();
        let mut c = Comparison::default();
        let mut seen = std::collections::BTreeSet::new();
        for (key, t) in keyed(now) {
            seen.insert(key);
            let Some(&was) = old.get(&key) else {
                c.new_tests += 1;
                continue;
            };
            let change = || Change {
                file: t.file.clone(),
                id: t.id,
                command: t.command.clone(),
                before: was,
                now: t.verdict,
                got: t.got.clone(),
            };
            if was.passed() && !t.verdict.passed() {
                c.newly_failing.push(change());
            } else if !was.passed() && t.verdict.passed() {
                c.newly_passing.push(change());
            }
        }
        c.gone_tests = old.keys().filter(|k| !seen.contains(*k)).count();
        c
    }

    /// The comparison in lines for the terminal.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "compared with the earlier run: {} newly failing, {} newly passing, {} new tests, \
             {} gone",
            self.newly_failing.len(),
            self.newly_passing.len(),
            self.new_tests,
            self.gone_tests
        );
        for (word, list) in [
            ("newly failing", &self.newly_failing),
            ("newly passing", &self.newly_passing),
        ] {
            for c in list {
                let _ = writeln!(
                    out,
                    "  {word}: {} {} ({} -> {}): {} -> '{}'",
                    c.file, c.id, c.before, c.now, c.command, c.got
                );
            }
        }
        out
    }
}

/// The lines gogui-regress prints for the tests that did not go as expected, then the
/// table: a row a suite and the total.
#[must_use]
pub fn text(suites: &[SuiteResult]) -> String {
    let mut out = String::new();
    for s in suites {
        if let Some(why) = &s.not_started {
            let _ = writeln!(out, "{}: the engine did not start: {why}", s.file);
        }
        for t in &s.tests {
            match t.verdict {
                Verdict::UnexpectedFail => {
                    let _ = writeln!(
                        out,
                        "{} {} unexpected FAIL: Correct '{}', got '{}'",
                        s.file,
                        t.id,
                        t.expected,
                        t.got.replace('\n', " ")
                    );
                }
                Verdict::UnexpectedPass => {
                    let _ = writeln!(out, "{} {} unexpected PASS!", s.file, t.id);
                }
                _ => {}
            }
        }
        for e in &s.errors {
            let _ = writeln!(
                out,
                "{}:{}: '{}' failed: {}",
                s.file, e.line, e.command, e.message
            );
        }
        if let Some(c) = &s.crash {
            let skipped = s
                .tests
                .iter()
                .filter(|t| t.verdict == Verdict::Skipped)
                .count();
            let _ = writeln!(
                out,
                "{}:{}: the engine crashed at '{}': {}; {skipped} later tests not run",
                s.file, c.line, c.command, c.message
            );
            if !c.stderr.is_empty() {
                let _ = writeln!(out, "  its standard error ended:");
                for line in &c.stderr {
                    let _ = writeln!(out, "  | {line}");
                }
            }
        }
    }
    let width = suites
        .iter()
        .map(|s| s.file.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let _ = writeln!(
        out,
        "{:<width$} {:>5} {:>5} {:>5} {:>5} {:>5} {:>7} {:>5} {:>8} {:>8}",
        "suite", "tests", "FAIL", "fail", "PASS", "pass", "skipped", "error", "time", "cpu"
    );
    let row = |out: &mut String, name: &str, t: &Totals, crashed: bool| {
        let cpu = t.cpu.map_or("-".to_string(), |c| format!("{c:.1}s"));
        let _ = writeln!(
            out,
            "{name:<width$} {:>5} {:>5} {:>5} {:>5} {:>5} {:>7} {:>5} {:>8} {:>8}{}",
            t.tests,
            t.unexpected_failures,
            t.expected_failures,
            t.unexpected_passes,
            t.expected_passes,
            t.skipped,
            t.errors,
            format!("{:.1}s", t.seconds),
            cpu,
            if crashed { "  crashed" } else { "" }
        );
    };
    for s in suites {
        row(&mut out, &s.file, &Totals::of(s), s.crash.is_some());
    }
    let total = Totals::sum(suites);
    row(&mut out, "total", &total, false);
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The board as an SVG drawing, with the points named in `marked` circled in red (the
/// engine's answer).
#[must_use]
pub fn board_svg(board: &Board, marked: &str) -> String {
    let geometry = board.geometry();
    let Some((w, h)) = geometry.size() else {
        return String::new();
    };
    let cell = 22.0;
    let margin = 24.0;
    let x = |c: usize| margin + cell * c as f64;
    let y = |r: usize| margin + cell * r as f64;
    let width = 2.0 * margin + cell * (w as f64 - 1.0);
    let height = 2.0 * margin + cell * (h as f64 - 1.0);
    let mut svg = format!(
        "<svg class=\"board\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} \
         {height}\"><rect width=\"{width}\" height=\"{height}\" fill=\"#dcb35c\"/>"
    );
    for c in 0..w {
        let _ = write!(
            svg,
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#000\" \
             stroke-width=\"1\"/>",
            x(c),
            y(0),
            y(h - 1)
        );
        let letter = geometry.name(geometry.at(c, 0).expect("on the board"));
        let letter: String = letter
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{letter}</text>",
            x(c),
            margin / 2.0
        );
    }
    for r in 0..h {
        let _ = write!(
            svg,
            "<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" stroke=\"#000\" \
             stroke-width=\"1\"/>",
            y(r),
            x(0),
            x(w - 1)
        );
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            margin / 2.0 - 2.0,
            y(r) + 4.0,
            h - r
        );
    }
    let marks: Vec<_> = marked
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter_map(|word| geometry.parse_point(word))
        .collect();
    for p in geometry.points() {
        let Some((c, r)) = geometry.coords(p) else {
            continue;
        };
        if let Some(color) = board.get(p) {
            let (fill, stroke) = match color {
                Color::Black => ("#000", "#000"),
                Color::White => ("#fff", "#000"),
            };
            let _ = write!(
                svg,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\"/>",
                x(c),
                y(r),
                cell / 2.0 - 1.0
            );
        }
        if marks.contains(&p) {
            let _ = write!(
                svg,
                "<rect class=\"answer\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" \
                 fill=\"none\" stroke=\"#d00\" stroke-width=\"3\"/>",
                x(c) - cell / 2.0 + 2.0,
                y(r) - cell / 2.0 + 2.0,
                cell - 4.0,
                cell - 4.0
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// The HTML report: the table of suites, crashes with the engine's last words, and each
/// failing test (`FAIL` and `fail`) with its command, expectation, answer and position (the
/// answer's points marked in red).
#[must_use]
pub fn html(suites: &[SuiteResult], engine: &str, compare: Option<&Comparison>) -> String {
    let mut page = String::from(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>goref regress</title>\n\
         <style>body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse}\
         td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}\
         td.l,th.l{text-align:left}.FAIL{color:#c00;font-weight:bold}.PASS{color:#080;\
         font-weight:bold}.test{margin:1.5em 0;padding-top:.5em;border-top:1px solid #ccc}\
         pre{background:#f4f4f4;padding:4px}</style></head><body>\n<h1>Regression run</h1>\n",
    );
    let mut idents: Vec<&str> = suites
        .iter()
        .map(|s| s.engine.as_str())
        .filter(|e| !e.is_empty())
        .collect();
    idents.dedup();
    let _ = writeln!(
        page,
        "<p>Engine: <code>{}</code>{}</p>",
        escape(engine),
        if idents.is_empty() {
            String::new()
        } else {
            format!(" ({})", escape(&idents.join(", ")))
        }
    );
    page.push_str(
        "<table><tr><th class=\"l\">suite</th><th>tests</th><th>FAIL</th><th>fail</th>\
         <th>PASS</th><th>pass</th><th>skipped</th><th>error</th><th>time</th><th>cpu</th>\
         </tr>\n",
    );
    let row = |page: &mut String, name: &str, t: &Totals| {
        let cpu = t.cpu.map_or("-".to_string(), |c| format!("{c:.1}s"));
        let _ = writeln!(
            page,
            "<tr><td class=\"l\">{}</td><td>{}</td><td class=\"FAIL\">{}</td><td>{}</td>\
             <td class=\"PASS\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}s</td>\
             <td>{cpu}</td></tr>",
            escape(name),
            t.tests,
            t.unexpected_failures,
            t.expected_failures,
            t.unexpected_passes,
            t.expected_passes,
            t.skipped,
            t.errors,
            t.seconds
        );
    };
    for s in suites {
        row(&mut page, &s.file, &Totals::of(s));
    }
    row(&mut page, "total", &Totals::sum(suites));
    page.push_str("</table>\n");
    if let Some(c) = compare {
        let _ = writeln!(
            page,
            "<h2>Since the earlier run</h2>\n<pre>{}</pre>",
            escape(&c.text())
        );
    }
    for s in suites {
        if let Some(why) = &s.not_started {
            let _ = writeln!(
                page,
                "<p class=\"FAIL\">{}: the engine did not start: {}</p>",
                escape(&s.file),
                escape(why)
            );
        }
        if let Some(c) = &s.crash {
            let _ = writeln!(
                page,
                "<div class=\"test\"><p class=\"FAIL\">{}:{}: the engine crashed at <code>{}\
                 </code>: {}</p><pre>{}</pre></div>",
                escape(&s.file),
                c.line,
                escape(&c.command),
                escape(&c.message),
                escape(&c.stderr.join("\n"))
            );
        }
        for t in s.tests.iter().filter(|t| t.verdict.failed()) {
            let _ = write!(
                page,
                "<div class=\"test\" id=\"{0}-{1}\"><h3><span class=\"{2}\">{2}</span> {0} \
                 test {1} (line {3})</h3>\n<p><code>{4}</code> expected <code>{5}</code>, got \
                 <code>{6}</code>",
                escape(&s.file),
                t.id,
                t.verdict.word(),
                t.line,
                escape(&t.command),
                escape(&t.expected),
                escape(&t.got),
            );
            if let Some(cpu) = t.cpu {
                let _ = write!(page, " ({:.2}s, {cpu:.2} CPU s)", t.seconds);
            } else {
                let _ = write!(page, " ({:.2}s)", t.seconds);
            }
            page.push_str("</p>\n");
            match &t.position {
                Some(Ok(board)) => page.push_str(&board_svg(board, &t.got)),
                Some(Err(why)) => {
                    let _ = write!(page, "<p>Position not known: {}</p>", escape(why));
                }
                None => {}
            }
            page.push_str("</div>\n");
        }
    }
    page.push_str("</body></html>\n");
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(file: &str, id: u32, verdict: Verdict) -> TestResult {
        TestResult {
            file: file.into(),
            line: 1,
            id,
            command: "genmove b".into(),
            expected: "[C3]".into(),
            got: "C3".into(),
            verdict,
            seconds: 0.0,
            cpu: None,
            position: None,
        }
    }

    #[test]
    fn comparison_by_suite_number_and_order() {
        use Verdict::*;
        let before = [
            test("a.tst", 1, Pass),
            test("a.tst", 2, UnexpectedFail),
            test("a.tst", 2, Pass),
            test("a.tst", 3, ExpectedFail),
            test("b.tst", 1, Pass),
        ];
        let now = [
            test("a.tst", 1, Skipped),
            test("a.tst", 2, Pass),
            test("a.tst", 2, ExpectedFail),
            test("a.tst", 3, UnexpectedPass),
            test("a.tst", 4, Pass),
        ];
        let c = Comparison::between(&before, &now);
        let ids = |l: &[Change]| {
            l.iter()
                .map(|c| (c.id, c.before, c.now))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(&c.newly_failing),
            [(1, Pass, Skipped), (2, Pass, ExpectedFail)]
        );
        assert_eq!(
            ids(&c.newly_passing),
            [(2, UnexpectedFail, Pass), (3, ExpectedFail, UnexpectedPass)]
        );
        assert_eq!((c.new_tests, c.gone_tests), (1, 1));
    }
}
