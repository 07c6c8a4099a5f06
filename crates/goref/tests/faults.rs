//! The engine runner's fault paths (issue 22), on real processes: an engine that hangs and
//! loses on time, one that cannot be set up, signals while an engine hangs, resuming with other
//! settings, engines that fail the check before the first game, a legal move refused, and the
//! README's commands run as written.

mod common;

use common::{goref, have_gnugo, out_dir, GNUGO, GOREF};

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn engine(args: &str) -> String {
    format!("{GOREF} engine {args}")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn results(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `goref match --black BLACK --white WHITE EXTRA… --out OUT --quiet`.
fn run_match(black: &str, white: &str, extra: &[&str], out: &Path) -> Output {
    let mut args = vec!["match", "--black", black, "--white", white];
    args.extend_from_slice(extra);
    args.extend(["--out", out.to_str().unwrap(), "--quiet"]);
    goref(&args)
}

/// `goref tournament` with `engines` (each `name=… cmd=…`), `extra` options, into `out`.
fn tournament(engines: &[(&str, &str)], extra: &[&str], out: &Path) -> Output {
    let mut args: Vec<String> = vec!["tournament".into(), "--quiet".into()];
    for (name, cmd) in engines {
        args.push("--engine".into());
        args.push(format!("name={name}"));
        args.push(format!("cmd={cmd}"));
    }
    args.extend(extra.iter().map(|s| (*s).to_string()));
    args.push("--out".into());
    args.push(out.display().to_string());
    Command::new(GOREF).args(&args).output().unwrap()
}

/// The game rows of the engine named `name` lost, and those it played.
fn lost_by(rows: &[Value], name: &str) -> (usize, usize) {
    let played: Vec<&Value> = rows
        .iter()
        .filter(|r| r["black_name"] == name || r["white_name"] == name)
        .collect();
    let lost = played
        .iter()
        .filter(|r| {
            let color = if r["black_name"] == name { "W" } else { "B" };
            r["winner"] == color
        })
        .count();
    (lost, played.len())
}

/// Issue 22 item 1: an engine that never answers a genmove loses on time, is started again,
/// and loses its next game too: every game is played, in a match and in a tournament.
#[test]
fn a_hung_engine_that_lost_on_time_is_started_again_for_its_next_game() {
    let out = out_dir("faults", "hang-match");
    let o = run_match(
        &engine("faulty --hang-after 2"),
        &engine("random"),
        &[
            "--games",
            "2",
            "--size",
            "5",
            "--rules",
            "tromp-taylor",
            "--time",
            "1s",
        ],
        &out,
    );
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    let rows = results(&out);
    assert_eq!(rows.len(), 2, "{stdout}");
    assert_eq!(rows[0]["result"], "W+T", "{}", rows[0]);
    assert_eq!(rows[1]["result"], "B+T", "{}", rows[1]);
    // Each game reached the hang: the engine answered two genmoves in each, so it was set up
    // afresh for game 2.
    for row in &rows {
        assert!(row["moves"].as_u64().unwrap() >= 4, "{row}");
    }
    assert!(stdout.contains("time 2"), "{stdout}");

    let out = out_dir("faults", "hang-tournament");
    let o = tournament(
        &[
            ("hanger", &engine("faulty --hang-after 2")),
            ("random", &engine("random")),
            ("random2", &engine("random --seed 5")),
        ],
        &["--size", "5", "--rules", "tromp-taylor", "--time", "1s"],
        &out,
    );
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    let rows = results(&out);
    assert_eq!(rows.len(), 6, "{stdout}");
    assert_eq!(lost_by(&rows, "hanger"), (4, 4), "{rows:?}");
    for row in rows
        .iter()
        .filter(|r| r["black_name"] == "hanger" || r["white_name"] == "hanger")
    {
        assert_eq!(row["end"], "time", "{row}");
    }
}

/// Issue 22 items 1-2: an engine that starts but refuses the board forfeits each of its games,
/// whichever colour it has, with the reason; neither a match nor a tournament stops.
#[test]
fn an_engine_that_cannot_be_set_up_forfeits_each_game_whatever_its_colour() {
    let out = out_dir("faults", "setup-tournament");
    let o = tournament(
        &[
            ("random", &engine("random")),
            ("refuser", &engine("faulty --refuse-boardsize")),
        ],
        &["--size", "5", "--games-per-pair", "2", "--time", "none"],
        &out,
    );
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    let rows = results(&out);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        let refuser_black = row["black_name"] == "refuser";
        assert_eq!(
            row["result"],
            if refuser_black { "W+F" } else { "B+F" },
            "{row}"
        );
        let detail = row["detail"].as_str().unwrap();
        assert!(
            detail.contains("refuser could not be set up") && detail.contains("boardsize 5"),
            "{detail}"
        );
    }
    // One game each way round.
    assert_ne!(rows[0]["black_name"], rows[1]["black_name"]);
    // Every game ended the same way: the report's chart still draws its bar, and the report
    // shows the run's settings.
    check_report(
        &out,
        &[
            "<th>board</th><td>5x5</td>",
            "<th>clock</th><td>no clock</td>",
            "<th>format</th><td>round-robin, 2 games per pair</td>",
        ],
    );

    let out = out_dir("faults", "setup-match");
    let o = run_match(
        &engine("faulty --refuse-boardsize"),
        &engine("random"),
        &["--games", "2", "--size", "5", "--time", "none"],
        &out,
    );
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    let rows = results(&out);
    assert_eq!(
        rows.iter().map(|r| r["result"].clone()).collect::<Vec<_>>(),
        ["W+F", "B+F"]
    );
}

/// Checks `out/report.html`: the settings and engines shown (with `texts`), a bar of positive
/// height in the endings chart; and takes its screenshot (`out/report.png`, headless Chromium;
/// skipped without it, unless GOREF_REQUIRE_CHROMIUM is set).
fn check_report(out: &Path, texts: &[&str]) {
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for text in texts.iter().chain(&[
        "id=\"settings\"",
        "<th>komi</th>",
        "<th>goref</th>",
        "<th>GTP name</th>",
    ]) {
        assert!(html.contains(text), "{text} not in the report");
    }
    assert!(html.contains("<td>goref-random</td>") || html.contains("<td>goref-faulty</td>"));
    let endings = html
        .split("id=\"endings\"")
        .nth(1)
        .and_then(|s| s.split("Forfeits by engine").next())
        .unwrap();
    let heights: Vec<f64> = endings
        .split("<rect")
        .skip(1)
        .filter(|r| r.to_ascii_uppercase().contains("FILL=\"#C05040\""))
        .map(|r| {
            let h = r.split("height=\"").nth(1).unwrap();
            h[..h.find('"').unwrap()].parse().unwrap()
        })
        .collect();
    assert!(
        !heights.is_empty() && heights.iter().all(|&h| h > 0.0),
        "{heights:?}"
    );
    screenshot(&out.join("report.html"), &out.join("report.png"));
}

/// A screenshot of a page by headless Chromium, or a note that it was skipped.
fn screenshot(page: &Path, png: &Path) {
    let Some(chromium) = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).exists())
    else {
        assert!(
            std::env::var_os("GOREF_REQUIRE_CHROMIUM").is_none(),
            "chromium is not installed"
        );
        eprintln!("skipping the screenshot: chromium is not installed (.ci/run installs it)");
        return;
    };
    let profile = png.with_extension("profile");
    let o = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1200,2400",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&profile);
    let size = std::fs::metadata(png).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 10_000,
        "no screenshot of {}: {}",
        page.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    eprintln!("screenshot: {}", png.display());
}

/// The live processes whose command line holds `marker` (zombies, which have none, aside).
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == std::process::id().to_string() {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(marker) {
            found.push(format!("{pid}: {cmdline}"));
        }
    }
    found
}

/// Issue 22 item 3: SIGTERM and SIGHUP stop the runner while an engine hangs: it exits with
/// 128 + the signal, having ended every engine's process group (the engine's own child too),
/// and the run resumes later.
#[test]
#[cfg(unix)]
fn sigterm_and_sighup_end_every_engine_and_the_run_resumes() {
    for (signal, number) in [("TERM", 15), ("HUP", 1)] {
        let out = out_dir("faults", &format!("signal-{signal}"));
        // A marker no other process has: the engine's shell leaves a child of its own.
        let marker = format!("{}{number}", 90_000 + std::process::id() % 9_000);
        let hanger = format!(
            "sh -c 'sleep {marker} & exec {GOREF} engine faulty --hang-after 3 --seed {marker}'"
        );
        let mut child = Command::new(GOREF)
            .args([
                "tournament",
                "--quiet",
                "--engine",
                "name=hanger",
                &format!("cmd={hanger}"),
                "--engine",
                "name=random",
                &format!("cmd={}", engine("random")),
                "--size",
                "5",
                "--time",
                "none",
                "--hang-timeout",
                "10m",
                "--out",
                out.to_str().unwrap(),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the engine hangs: game 1's log shows its fourth genmove sent (it is Black,
        // the first seed, and answers three).
        let log = out.join("games").join("game-0001.log");
        let start = Instant::now();
        while std::fs::read_to_string(&log)
            .unwrap_or_default()
            .matches("genmove b")
            .count()
            < 4
        {
            assert!(start.elapsed() < Duration::from_secs(60), "no hang");
            std::thread::sleep(Duration::from_millis(50));
        }
        let killed = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "goref did not stop after SIG{signal}"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let o = child.wait_with_output().unwrap();
        let (_, stderr) = text(&o);
        assert_eq!(status.code(), Some(128 + number), "{stderr}");
        assert!(stderr.contains("abandoned"), "{stderr}");
        // Nothing of the engines is left: not the engine, not its child.
        let start = Instant::now();
        loop {
            let left = processes_with(&marker);
            if left.is_empty() {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "left running after SIG{signal}: {left:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        // The hung game was abandoned, not recorded; it is played on resume.
        assert!(results(&out).is_empty());
    }
}

/// Issue 22 item 4: a resume with a setting that changes the games is refused, naming it; a
/// finished tournament grows by more games per pair, playing only the new ones; it does not
/// shrink.
#[test]
fn resume_refuses_other_settings_and_a_tournament_grows() {
    let out = out_dir("faults", "resume-settings");
    let engines = [
        ("a", engine("random --seed 1").leak() as &str),
        ("b", engine("random --seed 2").leak() as &str),
    ];
    let base = ["--size", "5", "--time", "none", "--komi", "0.5"];
    let o = tournament(
        &engines,
        &[&base[..], &["--games-per-pair", "2"]].concat(),
        &out,
    );
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let before = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(results(&out).len(), 2);

    for (option, value, name) in [
        ("--komi", "1.5", "komi"),
        ("--handicap", "2", "handicap"),
        ("--min-moves", "10", "min-moves"),
        ("--long-cycle", "pass", "long-cycle"),
        ("--illegal", "strict", "illegal"),
        ("--lag", "2s", "lag"),
        ("--move-limit", "40", "move-limit"),
    ] {
        let mut extra: Vec<&str> = vec!["--size", "5", "--time", "none", "--games-per-pair", "2"];
        if option != "--komi" {
            extra.extend(["--komi", "0.5"]);
        }
        extra.extend([option, value]);
        let o = tournament(&engines, &extra, &out);
        let (_, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{option}: {stderr}");
        assert!(
            stderr.contains(&format!("{name}: '")) && stderr.contains("in the directory"),
            "{option}: {stderr}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(out.join("results.jsonl")).unwrap(),
        before
    );

    // Growing: 4 games per pair plays games 3 and 4 only.
    let o = tournament(
        &engines,
        &[&base[..], &["--games-per-pair", "4"]].concat(),
        &out,
    );
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("this run: 2 in"), "{stdout}");
    let after = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(after.starts_with(&before));
    assert_eq!(
        results(&out)
            .iter()
            .map(|r| r["game"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    // Shrinking back is refused.
    let o = tournament(
        &engines,
        &[&base[..], &["--games-per-pair", "2"]].concat(),
        &out,
    );
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("may grow, not shrink"), "{stderr}");

    // A match too: its komi is part of its settings.
    let out = out_dir("faults", "resume-match-komi");
    let black = engine("random --seed 3");
    let white = engine("random --seed 4");
    let run = |komi: &str| {
        let extra = [
            "--games", "1", "--size", "5", "--time", "none", "--komi", komi,
        ];
        run_match(&black, &white, &extra, &out)
    };
    assert_eq!(run("0.5").status.code(), Some(0));
    let o = run("7.5");
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("komi: '7.5' here, '0.5' in the directory"),
        "{stderr}"
    );
}

/// Issue 22 item 5: an engine that cannot start or answer stops the run before any game, with
/// exit status 2 and one line naming it and why; nothing is recorded.
#[test]
fn an_engine_that_fails_the_first_check_stops_the_run_before_any_game() {
    let cases = [
        ("/nonexistent/engine --gtp", "command not found"),
        (
            &*engine("faulty --exit-at-start").leak(),
            "exited with exit status: 1",
        ),
        ("sleep 600", "no answer to 'protocol_version' in 5.0s"),
    ];
    for (i, (command, why)) in cases.into_iter().enumerate() {
        let out = out_dir("faults", &format!("check-{i}"));
        let o = tournament(
            &[("good", &engine("random")), ("bad", command)],
            &["--size", "5", "--time", "none", "--command-timeout", "2s"],
            &out,
        );
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
        let line = format!("engine 'bad' ({command}) cannot play: {why}");
        assert!(stderr.contains(&line), "{stderr}");
        assert!(results(&out).is_empty(), "{stdout}");
        assert!(!stdout.contains("rank"), "no standings: {stdout}");
    }
    // A match the same way.
    let out = out_dir("faults", "check-match");
    let o = run_match(&engine("random"), "/nonexistent/engine", &[], &out);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("engine 'engine' (/nonexistent/engine) cannot play: command not found"),
        "{stderr}"
    );
    assert!(results(&out).is_empty());
}

/// Issue 22 item 7: under tromp-taylor (suicide legal, TT rule 7 / 004) GNU Go refuses its
/// opponent's legal suicide; the forfeit says so in words, in results.jsonl and the record,
/// and the run warns at its start that GNU Go cannot be told the rules.
#[test]
fn an_engine_that_refuses_a_legal_suicide_is_told_why_it_lost() {
    if !have_gnugo() {
        return;
    }
    let out = out_dir("faults", "suicide");
    std::fs::create_dir_all(&out).unwrap();
    // 3×3: B a2, W a1, B b2, W c3, B c1; White's b1 then takes its own a1-b1 off the board
    // (a one-stone suicide would repeat the position, which positional superko forbids).
    let opening = out.join("opening.sgf");
    std::fs::write(&opening, "(;GM[1]FF[4]SZ[3];B[ab];W[ac];B[bb];W[ca];B[cc])").unwrap();
    let gnugo = format!("{GNUGO} --mode gtp --level 0");
    let o = tournament(
        &[
            ("gnugo", &gnugo),
            ("suicider", &engine("scripted --moves b1")),
        ],
        &[
            "--size",
            "3",
            "--rules",
            "tromp-taylor",
            "--games-per-pair",
            "1",
            "--time",
            "none",
            "--openings",
            opening.to_str().unwrap(),
        ],
        &out.join("run"),
    );
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains("warning: tromp-taylor allows suicide; engine 'gnugo' (GNU Go)"),
        "{stderr}"
    );
    assert!(!stderr.contains("engine 'suicider'"), "{stderr}");
    let rows = results(&out.join("run"));
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["result"], "W+F", "{row}");
    let detail = row["detail"].as_str().unwrap();
    let why = "GNU Go refused White's legal suicide at B1; tromp-taylor allows suicide, this \
               engine does not: nstt forbids it";
    assert!(detail.contains(why), "{detail}");
    let sgf = std::fs::read_to_string(out.join("run").join(row["sgf"].as_str().unwrap())).unwrap();
    assert!(sgf.contains("legal suicide at B1"), "{sgf}");
}

/// Issue 22 item 6: the README's quick-start commands run as written (`cargo run --release
/// --` is this binary), from a folder where `goref` is on no PATH, and play real games.
#[test]
fn the_readme_quick_start_runs_as_written() {
    if !have_gnugo() {
        return;
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let quick = readme
        .split("## Quick start")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a quick-start section");
    let commands: Vec<&str> = quick
        .lines()
        .filter_map(|l| l.strip_prefix("    cargo run --release -- "))
        .collect();
    assert!(
        commands.iter().any(|c| c.starts_with("match"))
            && commands.iter().any(|c| c.starts_with("tournament")),
        "{commands:?}"
    );
    let dir = out_dir("faults", "readme");
    std::fs::create_dir_all(&dir).unwrap();
    // A PATH without goref on it.
    let path = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !Path::new(d).join("goref").exists())
        .collect::<Vec<_>>()
        .join(":");
    for command in commands {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!("\"{GOREF}\" {command}"))
            .current_dir(&dir)
            .env("PATH", &path)
            .output()
            .unwrap();
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{command}: {stdout}{stderr}");
        if let Some(out) = command
            .split_whitespace()
            .skip_while(|w| *w != "--out")
            .nth(1)
        {
            let rows = results(&dir.join(out));
            assert!(!rows.is_empty(), "{command}");
            for row in rows {
                assert!(
                    !row["result"].as_str().unwrap().ends_with("+F"),
                    "{command}: a forfeit: {row}"
                );
            }
        }
    }
}

/// Issue 40: `goref check-engine … | head -1` ends quietly when its reader goes (it printed
/// `failed printing to stdout: Broken pipe` with a backtrace); so do the commands that print
/// and exit (`score`, `perft`, `solve`: ended by SIGPIPE as Unix tools are). None panics.
#[test]
fn commands_that_print_end_quietly_when_their_reader_goes() {
    use std::io::BufRead;
    use std::os::unix::process::ExitStatusExt;
    let random = engine("random");
    let cases: [&[&str]; 3] = [
        &["check-engine", &random],
        &["perft", "--size", "3", "--depth", "6"],
        &["solve", "--size", "2x2", "--rules", "nstt"],
    ];
    for args in cases {
        let mut child = Command::new(GOREF)
            .args(args)
            .env("RUST_BACKTRACE", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // The reader goes, as `head -1` does.
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!first.is_empty(), "{args:?}: no first line");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            out.status.success() || out.status.signal() == Some(13),
            "{args:?}: {:?} {stderr}",
            out.status
        );
    }
}

/// Issue 40: a `--graph` file that cannot be read is named as such (it was parsed as graph
/// text: "line 1: the first line must be `points N`"), and `bench` fails before it measures
/// anything (it ran the whole benchmark first).
#[test]
fn a_graph_file_that_cannot_be_read_is_named_as_such_at_once() {
    let missing = out_dir("faults", "no-graph").join("nosuch.txt");
    let missing = missing.to_str().unwrap();
    for args in [
        vec!["solve", "--graph", missing],
        vec!["perft", "--graph", missing, "--depth", "1"],
        vec!["bench", "--graph", missing, "--seconds", "5"],
    ] {
        let started = Instant::now();
        let (stdout, stderr) = text(&goref(&args));
        assert!(
            stderr.contains("cannot read the file") && stderr.contains("No such file"),
            "{args:?}: {stderr}"
        );
        assert!(stdout.is_empty(), "{args:?} printed {stdout}");
        // Nothing was measured first (bench's run takes 5 s a line).
        assert!(started.elapsed() < Duration::from_secs(4), "{args:?}");
    }
}

/// Issue 40: an engine that fails at start has the last lines of its standard error shown (it
/// said only "closed its output during 'protocol_version' (exit status: 1)"), by check-engine,
/// a match and a tournament: GNU Go's "Invalid mode selection: gtpx" when GNU Go is there, and
/// goref's own faulty engine's line in any case.
#[test]
fn an_engine_that_fails_at_start_has_its_last_stderr_lines_shown() {
    let mut cases = vec![(
        engine("faulty --exit-at-start"),
        "goref-faulty: exiting at start as asked",
    )];
    if have_gnugo() {
        cases.push((
            format!("{GNUGO} --mode gtpx"),
            "Invalid mode selection: gtpx",
        ));
    }
    for (i, (command, said)) in cases.iter().enumerate() {
        let (_, stderr) = text(&goref(&["check-engine", command]));
        assert!(
            stderr.contains("closed its output during 'protocol_version'")
                && stderr.contains(&format!("its standard error ended: {said}")),
            "{command}: {stderr}"
        );

        let out = out_dir("faults", &format!("stderr-match-{i}"));
        let o = run_match(command, &engine("random"), &["--size", "5"], &out);
        let (_, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("cannot play: exited with exit status: 1") && stderr.contains(said),
            "{command}: {stderr}"
        );

        let out = out_dir("faults", &format!("stderr-tournament-{i}"));
        let o = tournament(
            &[("good", &engine("random")), ("bad", command)],
            &["--size", "5", "--time", "none"],
            &out,
        );
        let (_, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        let line = stderr
            .lines()
            .find(|l| l.contains("engine 'bad'"))
            .unwrap_or_else(|| panic!("{stderr}"));
        assert!(line.contains(said), "{command}: {stderr}");
    }
}

/// Issue 40: a game ended by two passes that the referee settled after three resumptions of
/// play says so everywhere the tournament tells its games (it said only "two-passes", its
/// Detail empty): the line of each game, the "game ends" line, the report's endings table
/// and its games' Detail.
#[test]
fn a_tournament_tells_how_each_game_ended_by_passes_was_settled() {
    let out = out_dir("faults", "settled");
    // Black's columns a-c live; White's a4 inside them is dead, White says none is: play
    // resumes three times, then the referee (Olympiad 3.9) removes a4.
    let black = engine("scripted --moves c1,c2,c3,c4,c5,b1,b2,b3,b4,b5,a2 --dead a4");
    let white = engine("scripted --moves d1,d2,d3,d4,d5,a4 --dead ''");
    let o = Command::new(GOREF)
        .args(["tournament", "--engine", "name=walls"])
        .arg(format!("cmd={black}"))
        .args(["--engine", "name=invader"])
        .arg(format!("cmd={white}"))
        .args([
            "--games-per-pair",
            "1",
            "--size",
            "5",
            "--komi",
            "0.5",
            "--end",
            "olympiad",
            "--time",
            "none",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    let rows = results(&out);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["ending"], "referee", "{}", rows[0]);
    assert_eq!(rows[0]["resumptions"], 3, "{}", rows[0]);
    let settled = "referee after 3 resumptions of play, 1 stone removed";
    // Standard error is not a terminal: one line a game.
    assert!(
        stderr.contains(&format!(
            "game 1 (round 1): walls - invader: B+4.5 (two-passes: {settled})"
        )),
        "{stderr}"
    );
    assert!(
        stdout.contains("game ends: agreement 0, play-on 0, four-passes 0, referee 1"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains(&format!("<td>{settled}</td></tr>")),
        "no Detail in the games' table"
    );
    assert!(
        html.contains("<tr><td>referee</td><td class=\"n\">1</td></tr>"),
        "the endings table does not count the settlement"
    );
}

/// Issue 40: the match's Elo line reads right for short runs: a sweep of five gives a lower
/// bound above 0 for the winner, a sweep of four says it is too few games for one (it said
/// `> -19 (95%, every game won)`), and 1-1 says it has too few games for an interval (it said
/// `-0.0 ± inf`).
#[test]
fn the_elo_line_of_a_short_match_reads_right() {
    let resigner = engine("faulty --resign-after 0");
    let cases = [
        (
            engine("random"),
            5,
            "Elo random vs faulty: > +34 (95%, every game won), LOS 98.7%",
        ),
        (
            engine("random"),
            4,
            "Elo random vs faulty: every game won, too few games for a 95% bound above 0 (> -19), LOS 97.7%",
        ),
        (
            resigner.clone(),
            2,
            "Elo faulty-1 vs faulty-2: +0, too few games for a 95% interval, LOS 50.0%",
        ),
    ];
    for (i, (first, games, line)) in cases.iter().enumerate() {
        let out = out_dir("faults", &format!("elo-{i}"));
        let games = games.to_string();
        let o = run_match(
            first,
            &resigner,
            &["--games", &games, "--size", "5", "--time", "none"],
            &out,
        );
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
        assert!(stdout.lines().any(|l| l == *line), "{line}: {stdout}");
        assert!(
            !stdout.contains("inf") && !stdout.contains("-0.0"),
            "{stdout}"
        );
    }
}

/// Issue 40: what the README's quick start writes in the working copy (each `--out`) and
/// `goref serve`'s default database are ignored by git, so that trying goref leaves
/// `git status` clean.
#[test]
fn what_the_quick_start_and_serve_write_is_ignored_by_git() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("skipping: no git");
        return;
    }
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let mut outs: Vec<String> = readme
        .lines()
        .filter(|l| l.trim_start().starts_with("cargo run"))
        .filter_map(|l| {
            l.split_whitespace()
                .skip_while(|w| *w != "--out")
                .nth(1)
                .map(|dir| format!("{dir}/results.jsonl"))
        })
        .collect();
    assert!(outs.len() >= 2, "the quick start's --out folders: {outs:?}");
    // serve's --db default, and what SQLite keeps beside it.
    let (help, _) = text(&goref(&["serve", "--help"]));
    assert!(
        help.contains("[default: goref.db]"),
        "serve's default database: {help}"
    );
    outs.extend(["goref.db", "goref.db-wal", "goref.db-shm"].map(String::from));
    for path in &outs {
        let o = Command::new("git")
            .args(["check-ignore", "--no-index", "-q", path])
            .current_dir(root)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{path} is not ignored by .gitignore"
        );
    }
    // Not everything is: the sources are not.
    let o = Command::new("git")
        .args([
            "check-ignore",
            "--no-index",
            "-q",
            "crates/goref/src/main.rs",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

/// Issue 40: no two examples of the workspace share a name (goref-judge's and goref-solve's
/// were both `measure`: cargo warned of the collision of their output files, and
/// `--example measure` named two programs).
#[test]
fn the_workspace_examples_have_names_of_their_own() {
    let crates = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut seen: std::collections::BTreeMap<String, String> = Default::default();
    let mut examples = 0;
    for krate in std::fs::read_dir(crates).unwrap() {
        let krate = krate.unwrap().path();
        let Ok(entries) = std::fs::read_dir(krate.join("examples")) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            // An example is a file `NAME.rs`, or a folder `NAME/` with a `main.rs` (a folder
            // without one is a module the examples share).
            let name = if path.extension().is_some_and(|e| e == "rs") {
                path.file_stem().unwrap().to_string_lossy().into_owned()
            } else if path.join("main.rs").exists() {
                path.file_name().unwrap().to_string_lossy().into_owned()
            } else {
                continue;
            };
            examples += 1;
            let here = krate.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(there) = seen.insert(name.clone(), here.clone()) {
                panic!("two examples named '{name}': in {there} and in {here}");
            }
        }
    }
    assert!(examples >= 4, "{seen:?}");
}

/// Issue 40: counts of one are singular where the command line prints them ("1 games",
/// "1 moves").
#[test]
fn counts_of_one_are_singular() {
    let out = out_dir("faults", "one-game");
    let o = run_match(
        &engine("random"),
        &engine("faulty --resign-after 0"),
        &["--games", "1", "--size", "5", "--time", "none"],
        &out,
    );
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.starts_with("1 of 1 game, 5x5"), "{stdout}");
    assert!(stdout.contains("this run: 1 game in"), "{stdout}");

    let out = out_dir("faults", "one-game-tournament");
    let o = tournament(
        &[
            ("random", &engine("random")),
            ("resigner", &engine("faulty --resign-after 0")),
        ],
        &["--games-per-pair", "1", "--size", "5", "--time", "none"],
        &out,
    );
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.starts_with("1 game, round-robin;"), "{stdout}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("round-robin, 1 game per pair"),
        "the report's settings"
    );

    let score = Command::new(GOREF)
        .args(["score", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"(;SZ[3];B[bb])")?;
            child.wait_with_output()
        })
        .unwrap();
    let (stdout, _) = text(&score);
    assert!(
        stdout.contains("(tromp-taylor, 1 move, record-ended)"),
        "{stdout}"
    );
}

/// Issue 40: a match that cannot make its games says "match stopped:" once (it said
/// `match stopped: stopped: game 1: …`).
#[test]
fn a_match_that_cannot_make_its_game_says_stopped_once() {
    let out = out_dir("faults", "stopped-once");
    let o = run_match(
        &engine("random"),
        &engine("random"),
        &[
            "--games",
            "1",
            "--size",
            "5",
            "--handicap",
            "9",
            "--time",
            "none",
        ],
        &out,
    );
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("match stopped: game 1: fixed handicap is defined for square boards"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("stopped:").count(), 1, "{stderr}");
}

/// Issue 40: a komi beyond ±1000 (the server's limit) is refused in a few words, whether on
/// the command line or in a settings file (`--komi 1e308` was echoed as its 309 digits);
/// ±1000 itself is taken.
#[test]
fn a_komi_beyond_1000_is_refused_in_a_few_words() {
    let random = engine("random");
    let out = out_dir("faults", "komi");
    for args in [
        vec![
            "match", "--black", &random, "--white", &random, "--komi", "1e308",
        ],
        vec!["tournament", "--engine", "name=a", "--komi", "1e308"],
        vec!["score", "--komi", "1e308"],
        vec!["solve", "--size", "1", "--komi", "1e308"],
    ] {
        let o = goref(&args);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stdout}{stderr}");
        assert!(
            stderr.contains("komi '1e308' is outside -1000 to 1000"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.len() < 300, "{args:?}: {stderr}");
    }
    let (_, stderr) = text(&goref(&["score", "--komi", "-1000.5"]));
    assert!(
        stderr.contains("komi '-1000.5' is outside -1000 to 1000"),
        "{stderr}"
    );
    let o = goref(&["score", "--komi", "-1000"]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("komi -1000 "), "{stdout}");

    // A settings file's komi the same way.
    std::fs::create_dir_all(&out).unwrap();
    let file = out.join("match.toml");
    std::fs::write(&file, "komi = 1e308\n").unwrap();
    let o = run_match(
        &random,
        &random,
        &["--config", file.to_str().unwrap(), "--games", "1"],
        &out.join("run"),
    );
    let (_, stderr) = text(&o);
    assert_ne!(o.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("komi '1e308' is outside -1000 to 1000") && stderr.len() < 300,
        "{stderr}"
    );
}

/// Issue 40: `goref connect` to a server that does not answer says once how often it tries
/// again and when it gives up (it printed "Connection refused; retrying" every 2 s, for
/// 10 minutes, saying neither).
#[test]
fn connect_to_a_dead_server_says_once_how_long_it_retries() {
    // A port nothing listens on: bound, then freed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(GOREF)
        .args(["connect", &format!("http://127.0.0.1:{port}")])
        .args(["--engine", &engine("random"), "--name", "nobody"])
        .args(["--password", "secret-password"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Three tries or so.
    std::thread::sleep(Duration::from_millis(5500));
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.lines().count(),
        1,
        "one line for the retries, however many: {stderr}"
    );
    assert!(
        stderr.contains("login: Connection refused")
            && stderr.contains("retrying every 2 s, giving up after 10 min"),
        "{stderr}"
    );
}
