//! `goref regress` on the real binary, with real engine processes: goref's own `scripted` and
//! `faulty` engines answering suites written here, and GNU Go on three of its own suites
//! (`crates/goref-regress/tests/data/gnugo`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use goref_gtp::testing::{gnugo_there, GNUGO};
use serde_json::Value;

const GOREF: &str = env!("CARGO_BIN_EXE_goref");

fn engine(args: &str) -> String {
    format!("{GOREF} engine {args}")
}

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("goref-regress-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Runs `goref regress ARGS` in `cwd`: exit code, stdout, stderr.
fn regress(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(GOREF)
        .arg("regress")
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// `(id, verdict, got)` of each test of a run's JSON.
fn verdicts(v: &Value) -> Vec<(u64, String, String)> {
    v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_u64().unwrap(),
                t["verdict"].as_str().unwrap().to_string(),
                t["got"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The scripted engine answers its genmoves C3, D4, E4, B2 in turn.
const EVERY_VERDICT: &str = "\
# Every verdict of gogui-regress, by a scripted engine that answers C3, D4, E4, B2.
boardsize 5
clear_board
1 genmove b
#? [C3]

# Answered D4: an unexpected failure.
2 genmove b
#? [E5|A1]

# Answered E4: a failure, expected.
3 genmove b
#? [E5]*

# Answered B2: a pass, unexpected.
4 genmove b
#? [B2]*

# Nothing is answered to play: an empty answer, which [!.+] accepts.
5 play w a1
#? [!.+]

# a1 is taken: the engine answers `?`, a failure whatever the pattern.
6 play b a1
#? [.*]*

# The whole answer must match, not a part of it.
7 name
#? [goref]

# A number without #?: passes when the engine answers with success.
8 showboard

play b z99
";

#[test]
fn every_verdict_kind_in_json_text_and_html() {
    let dir = folder("verdicts");
    write(&dir.join("every.tst"), EVERY_VERDICT);
    let scripted = engine("scripted --moves C3,D4,E4,B2");
    let (code, out, err) = regress(&dir, &["--engine", &scripted, "--json", "every.tst"]);
    assert_eq!(code, 1, "an unexpected failure is status 1: {err}");
    let v = json(&out);
    let got = verdicts(&v);
    let words: Vec<&str> = got.iter().map(|(_, w, _)| w.as_str()).collect();
    assert_eq!(
        words,
        ["pass", "FAIL", "fail", "PASS", "pass", "fail", "FAIL", "pass"],
        "{out}"
    );
    assert_eq!(got[1].2, "D4");
    assert!(got[5].2.starts_with("? "), "{got:?}");
    assert_eq!(got[6].2, "goref-scripted");
    let t = &v["tests"][0];
    assert_eq!(t["file"], "every.tst");
    assert_eq!(t["command"], "genmove b");
    assert_eq!(t["expected"], "[C3]");
    assert_eq!(v["tests"][2]["expected"], "[E5]*");
    assert!(t["seconds"].as_f64().unwrap() >= 0.0);
    // The built-in engines answer cputime: each test has its CPU time.
    assert!(t["cpu"].as_f64().is_some(), "{t}");
    let totals = &v["totals"];
    assert_eq!(totals["tests"], 8);
    assert_eq!(totals["expected_passes"], 3);
    assert_eq!(totals["unexpected_failures"], 2);
    assert_eq!(totals["expected_failures"], 2);
    assert_eq!(totals["unexpected_passes"], 1);
    // `play b z99`, a plain command, failed: an error of the suite, not a test.
    assert_eq!(totals["errors"], 1);
    assert_eq!(v["suites"][0]["errors"][0]["command"], "play b z99");

    // The table and gogui-regress's lines, and the HTML report with each failing test's
    // position: one stone before test 2, two before test 3.
    let out_dir = dir.join("report");
    let (code, out, _) = regress(
        &dir,
        &["--engine", &scripted, "--out", "report", "every.tst"],
    );
    assert_eq!(code, 1);
    assert!(
        out.contains("every.tst 2 unexpected FAIL: Correct '[E5|A1]', got 'D4'"),
        "{out}"
    );
    assert!(out.contains("every.tst 4 unexpected PASS!"), "{out}");
    let row = out
        .lines()
        .rev()
        .find(|l| l.starts_with("every.tst "))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[1..8], ["8", "2", "2", "1", "3", "0", "1"], "{row}");
    let html = std::fs::read_to_string(out_dir.join("index.html")).unwrap();
    let test_div = |id: u32| {
        let start = html.find(&format!("id=\"every.tst-{id}\"")).unwrap();
        let end = html[start..].find("</div>").unwrap() + start;
        html[start..end].to_string()
    };
    let two = test_div(2);
    assert!(two.contains("FAIL") && two.contains("<svg"), "{two}");
    assert_eq!(two.matches("<circle").count(), 1, "{two}");
    // The answer, D4, is marked on the board.
    assert_eq!(two.matches("class=\"answer\"").count(), 1, "{two}");
    assert_eq!(test_div(3).matches("<circle").count(), 2);
    assert!(
        !html.contains("id=\"every.tst-1\""),
        "passing tests are not drawn"
    );
    let saved = json(&std::fs::read_to_string(out_dir.join("results.json")).unwrap());
    assert_eq!(verdicts(&saved), got);
}

#[test]
fn lists_name_suites_relative_to_their_folder_and_loadsgf_paths_to_the_suite_s() {
    let dir = folder("lists");
    // suites/a.tst loads suites/games/3x3.sgf by a path relative to its own folder; goref
    // runs from `dir`, where that path names nothing.
    write(
        &dir.join("suites/games/3x3.sgf"),
        "(;GM[1]SZ[3];B[bb];W[aa];B[cc])",
    );
    write(
        &dir.join("suites/a.tst"),
        "1 loadsgf games/3x3.sgf 3\n#? [black]\n2 showboard\n#? [.*O\\.\\..*\\.X\\..*]\n",
    );
    write(&dir.join("suites/b.tst"), "1 name\n#? [goref-random]\n");
    write(
        &dir.join("lists/more.list"),
        "# another list\n../suites/b.tst\n",
    );
    write(
        &dir.join("lists/all.list"),
        "../suites/a.tst\n\n@more.list\n",
    );
    let random = engine("random --seed 1");
    let (code, out, err) = regress(&dir, &["--engine", &random, "--json", "@lists/all.list"]);
    assert_eq!(code, 0, "{out}{err}");
    let v = json(&out);
    let files: Vec<&str> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "lists/../suites/a.tst",
            "lists/../suites/a.tst",
            "lists/../suites/b.tst"
        ]
    );
    assert_eq!(
        verdicts(&v)
            .iter()
            .map(|t| t.1.as_str())
            .collect::<Vec<_>>(),
        ["pass", "pass", "pass"],
        "{out}"
    );
    // A list that names itself is refused before anything runs.
    write(&dir.join("lists/loop.list"), "@loop.list\n");
    let (code, _, err) = regress(&dir, &["--engine", &random, "@lists/loop.list"]);
    assert_eq!(code, 2);
    assert!(err.contains("loop.list: the list names itself"), "{err}");
}

#[test]
fn a_crash_ends_its_suite_with_the_engine_s_last_words_and_the_next_suite_runs() {
    let dir = folder("crash");
    let three = "boardsize 9\n1 genmove b\n#? [.+]\n2 genmove b\n#? [.+]\n3 genmove b\n#? [.+]\n";
    write(&dir.join("first.tst"), three);
    write(
        &dir.join("second.tst"),
        "boardsize 9\n1 genmove b\n#? [.+]\n",
    );
    // The faulty engine exits at its second genmove, in each suite: the second suite has one.
    let faulty = engine("faulty --crash-after 1 --seed 3");
    let (code, out, err) = regress(&dir, &["--engine", &faulty, "first.tst", "second.tst"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("first.tst:4: the engine crashed at 'genmove b'"),
        "{out}"
    );
    assert!(out.contains("1 later tests not run"), "{out}");
    assert!(
        out.contains("| goref-faulty: crashing at genmove 2 as asked"),
        "{out}"
    );
    let (_, out, _) = regress(
        &dir,
        &["--engine", &faulty, "--json", "first.tst", "second.tst"],
    );
    let v = json(&out);
    assert_eq!(
        verdicts(&v)
            .iter()
            .map(|t| t.1.as_str())
            .collect::<Vec<_>>(),
        ["pass", "FAIL", "skipped", "pass"]
    );
    assert!(v["tests"][1]["got"]
        .as_str()
        .unwrap()
        .contains("closed its output"));
    assert_eq!(v["suites"][0]["crash"]["line"], 4);
    assert!(v["suites"][1]["crash"].is_null());
    assert_eq!(v["totals"]["crashes"], 1);
    assert_eq!(v["totals"]["skipped"], 1);

    // An engine that stops answering is stopped after --timeout, as for a crash.
    let hang = engine("faulty --hang-after 1 --seed 3");
    let started = Instant::now();
    let (code, out, _) = regress(
        &dir,
        &[
            "--engine",
            &hang,
            "--timeout",
            "1s",
            "--json",
            "first.tst",
            "second.tst",
        ],
    );
    assert!(started.elapsed().as_secs_f64() < 15.0);
    assert_eq!(code, 1);
    let v = json(&out);
    assert_eq!(
        verdicts(&v)
            .iter()
            .map(|t| t.1.as_str())
            .collect::<Vec<_>>(),
        ["pass", "FAIL", "skipped", "pass"]
    );
    let message = v["suites"][0]["crash"]["message"].as_str().unwrap();
    assert!(message.contains("no answer within 1.0s"), "{message}");
}

#[test]
fn runs_that_cannot_be_done_exit_2_naming_the_file_and_line() {
    let dir = folder("bad");
    write(&dir.join("bad.tst"), "boardsize 9\n1 genmove b\n#? C3\n");
    write(&dir.join("good.tst"), "1 name\n");
    let random = engine("random");
    let (code, out, err) = regress(&dir, &["--engine", &random, "good.tst", "bad.tst"]);
    assert_eq!(code, 2);
    assert!(out.is_empty(), "nothing runs: {out}");
    assert!(
        err.contains("bad.tst:3: the pattern \"C3\" does not start with `[`"),
        "{err}"
    );
    let (code, _, err) = regress(&dir, &["--engine", &random, "missing.tst"]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.tst: cannot read"), "{err}");
    // An engine that exits at once, and one that is not there.
    let (code, out, _) = regress(
        &dir,
        &["--engine", &engine("faulty --exit-at-start"), "good.tst"],
    );
    assert_eq!(code, 2);
    assert!(out.contains("good.tst: the engine did not start"), "{out}");
    let (code, out, _) = regress(&dir, &["--engine", "/nonexistent/engine", "good.tst"]);
    assert_eq!(code, 2);
    assert!(out.contains("cannot start '/nonexistent/engine'"), "{out}");
}

/// Two suites of slow answers (0.6 s a genmove, sleeping) take about half as long with
/// `--jobs 2` as their times added, and come out in the order named.
#[test]
fn jobs_run_suites_at_once() {
    let dir = folder("jobs");
    let suite = "boardsize 9\n1 genmove b\n2 genmove b\n3 genmove b\n";
    for name in ["a.tst", "b.tst", "c.tst", "d.tst"] {
        write(&dir.join(name), suite);
    }
    let slow = engine("faulty --slow 600ms --seed 1");
    let started = Instant::now();
    let (code, out, err) = regress(
        &dir,
        &[
            "--engine", &slow, "--jobs", "2", "--json", "a.tst", "b.tst", "c.tst", "d.tst",
        ],
    );
    let wall = started.elapsed().as_secs_f64();
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let suites = v["suites"].as_array().unwrap();
    let files: Vec<&str> = suites.iter().map(|s| s["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["a.tst", "b.tst", "c.tst", "d.tst"]);
    let summed: f64 = suites.iter().map(|s| s["seconds"].as_f64().unwrap()).sum();
    assert!(summed > 7.0, "{summed}");
    assert!(
        wall < 0.75 * summed,
        "{wall:.1}s for suites that took {summed:.1}s together"
    );
}

#[test]
fn compare_names_what_newly_fails_and_newly_passes() {
    let dir = folder("compare");
    write(
        &dir.join("s.tst"),
        "boardsize 5\n1 genmove b\n#? [C3]\nclear_board\n2 genmove b\n#? [D4]\n\
         clear_board\n3 genmove b\n#? [A1]*\n",
    );
    let (code, _, err) = regress(
        &dir,
        &[
            "--engine",
            &engine("scripted --moves C3,C3,C3"),
            "--out",
            "before",
            "s.tst",
        ],
    );
    assert_eq!(code, 1, "{err}");
    // A change: the engine now answers D4.
    let after = engine("scripted --moves D4,D4,D4");
    let (code, out, err) = regress(
        &dir,
        &[
            "--engine",
            &after,
            "--compare",
            "before/results.json",
            "s.tst",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("1 newly failing, 1 newly passing, 0 new tests, 0 gone"),
        "{out}"
    );
    assert!(
        out.contains("newly failing: s.tst 1 (pass -> FAIL): genmove b -> 'D4'"),
        "{out}"
    );
    assert!(
        out.contains("newly passing: s.tst 2 (FAIL -> pass): genmove b -> 'D4'"),
        "{out}"
    );
    let (_, out, _) = regress(
        &dir,
        &[
            "--engine",
            &after,
            "--json",
            "--compare",
            "before/results.json",
            "s.tst",
        ],
    );
    let v = json(&out);
    assert_eq!(v["compare"]["newly_failing"][0]["id"], 1);
    assert_eq!(v["compare"]["newly_passing"][0]["id"], 2);
    assert_eq!(v["compare"]["newly_passing"].as_array().unwrap().len(), 1);
    // Not a run's JSON: the run cannot be done.
    write(&dir.join("junk.json"), "{\"x\": 1}");
    let (code, _, err) = regress(
        &dir,
        &["--engine", &after, "--compare", "junk.json", "s.tst"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("not the JSON of a goref regress run"), "{err}");
}

/// Three of GNU Go 3.8's own suites, against GNU Go 3.8: its verdicts are exactly its
/// suites' expectations (8 known failures, marked `*`, fail; every other test passes).
#[test]
fn gnugo_on_its_own_suites_fails_where_they_expect_it_to() {
    if !gnugo_there() {
        return;
    }
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../goref-regress/tests/data/gnugo");
    let dir = folder("gnugo");
    let cmd = format!("{GNUGO} --mode gtp");
    let list = format!("@{}", data.join("gnugo.list").display());
    let (code, out, err) = regress(
        &dir,
        &[
            "--engine", &cmd, "--jobs", "2", "--json", "--out", "report", &list,
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let v = json(&out);
    assert_eq!(v["totals"]["tests"], 42);
    assert_eq!(v["totals"]["unexpected_failures"], 0);
    assert_eq!(v["totals"]["unexpected_passes"], 0);
    let failing: Vec<String> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == "fail")
        .map(|t| {
            let file = t["file"].as_str().unwrap();
            let name = Path::new(file).file_name().unwrap().to_str().unwrap();
            format!("{name}:{}", t["id"])
        })
        .collect();
    assert_eq!(
        failing,
        [
            "tiny.tst:304",
            "tiny.tst:402",
            "tiny.tst:407",
            "capture.tst:4",
            "capture.tst:5",
            "capture.tst:8",
            "capture.tst:10",
            "capture.tst:13"
        ]
    );
    // GNU Go answers cputime; each failing test's position is drawn (none unknown).
    assert!(v["totals"]["cpu"].as_f64().is_some());
    let html = std::fs::read_to_string(dir.join("report/index.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 8);
    assert!(!html.contains("Position not known"));
}

/// Ctrl-C stops the run at once with status 130, and its engines with it.
#[test]
fn an_interrupt_stops_the_run_and_its_engines() {
    let dir = folder("interrupt");
    write(
        &dir.join("slow.tst"),
        "boardsize 9\n1 genmove b\n2 genmove b\n",
    );
    // A seed no other test (or run) uses marks this test's engine among the processes.
    let seed = 390_000_000 + std::process::id();
    let slow = engine(&format!("faulty --slow 30s --seed {seed}"));
    let mut child = Command::new(GOREF)
        .args(["regress", "--engine", &slow, "slow.tst"])
        .current_dir(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let engines = || {
        let out = Command::new("pgrep")
            // The engine's command line, not goref's (whose --engine argument has it too).
            .args([
                "-f",
                &format!("^[^ ]*goref engine faulty --slow 30s --seed {seed}$"),
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).lines().count()
    };
    let started = Instant::now();
    while engines() == 0 && started.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if engines() != 1 {
        let _ = child.kill();
        panic!("the engine is not running alone: {} found", engines());
    }
    // SAFETY: a signal to the goref this test started.
    unsafe {
        libc::kill(i32::try_from(child.id()).unwrap(), libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(
        started.elapsed().as_secs() < 20,
        "it did not wait for the engine"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stopped by a signal"), "{stderr}");
    let gone = Instant::now();
    while engines() > 0 && gone.elapsed().as_secs() < 5 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(engines(), 0, "the engine was stopped");
}
