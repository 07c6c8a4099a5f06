//! `goref tune` on the real binary, tuning goref's own `tunable` engine, whose best parameter
//! value is known: x = 60 (`goref engine tunable --peak 60`, the default).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{goref, out_dir, until, GOREF};

/// The board and rules of every tune here: 5×5 under Tromp-Taylor, no clock, every stone
/// alive at the end (games of some 20 moves).
const GAMES: [&str; 6] = ["--size", "5", "--rules", "tromp-taylor", "--time", "none"];

/// `goref tune` with the tunable engine, parameter x from 10 in 0:100, ARGS after.
fn tune_args(dir: &Path, games: usize, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "tune",
        "--engine",
        &format!("{GOREF} engine tunable --x {{x}} --seed {{game}}"),
        "--param",
        "x=10,0:100",
        "--games",
        &games.to_string(),
        "--out",
        &dir.display().to_string(),
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    args.extend(GAMES.iter().map(ToString::to_string));
    args.extend(extra.iter().map(ToString::to_string));
    args
}

fn run(args: &[String]) -> (i32, String, String) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = goref(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn state(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("tune.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The step numbers of `tune.csv`, in order.
fn csv_steps(dir: &Path) -> Vec<usize> {
    let text = std::fs::read_to_string(dir.join("tune.csv")).unwrap_or_default();
    text.lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn a_tune_from_far_away_ends_near_the_known_best_value() {
    let dir = out_dir("tune", "converges");
    let started = Instant::now();
    let (code, stdout, stderr) = run(&tune_args(&dir, 400, &["--jobs", "2", "--seed", "2"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let v = state(&dir);
    let x = v["params"]["x"].as_i64().unwrap();
    eprintln!("x from 10 to {x} in 400 games, {:?}", started.elapsed());
    // The start is far outside the band; the end is inside it.
    assert!((10i64 - 60).abs() > 15);
    assert!((x - 60).abs() <= 15, "ended at {x}: {stdout}");
    assert_eq!(
        (v["games"].as_u64(), v["steps"].as_u64()),
        (Some(400), Some(200))
    );
    assert!(stdout.starts_with(&format!("x = {x} ")), "{stdout}");
    assert_eq!(csv_steps(&dir), (1..=200).collect::<Vec<_>>());
    let svg = std::fs::read_to_string(dir.join("tune.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("x (0:100)"));
    // Run again: done already, nothing played, the same answer.
    let (code, again, _) = run(&tune_args(&dir, 400, &["--jobs", "2", "--seed", "2"]));
    assert_eq!(code, 0);
    assert!(again.contains("this run: 0 games"), "{again}");
    assert_eq!(state(&dir)["params"]["x"].as_i64(), Some(x));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_peak_elsewhere_is_found_elsewhere() {
    // The same tune on an engine strongest at 30, from 80: it ends near 30, outside 60 ± 15.
    let dir = out_dir("tune", "elsewhere");
    let mut args = tune_args(&dir, 400, &["--jobs", "2", "--seed", "3"]);
    args[2] = format!("{GOREF} engine tunable --peak 30 --x {{x}} --seed {{game}}");
    args[4] = "x=80,0:100".into();
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let x = state(&dir)["params"]["x"].as_i64().unwrap();
    assert!((x - 30).abs() <= 15 && (x - 60).abs() > 15, "ended at {x}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn set_sends_the_parameters_to_a_running_engine() {
    let dir = out_dir("tune", "set");
    let mut args = tune_args(
        &dir,
        400,
        &["--seed", "4", "--set", "set_param {name} {value}"],
    );
    args[2] = format!("{GOREF} engine tunable");
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let v = state(&dir);
    let x = v["params"]["x"].as_i64().unwrap();
    assert!((x - 60).abs() <= 15, "ended at {x}");
    assert_eq!(v["settings"]["set"], "set_param {name} {value}");
    // The engines were kept between games: the last game's first command to an engine is
    // numbered past the hundreds it answered before (the set_param of each game among them).
    let log = std::fs::read_to_string(dir.join("games/game-0400.log")).unwrap();
    let first: u64 = log
        .lines()
        .find_map(|l| l.split_once(" >] ")?.1.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no command in {log}"));
    assert!(first > 500, "command {first} first: {log}");
    // An engine that refuses the command stops the tune before any game.
    let dir2 = out_dir("tune", "set-refused");
    let mut args = tune_args(&dir2, 2, &["--set", "no_such_command {name} {value}"]);
    args[2] = format!("{GOREF} engine tunable");
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("refuses 'no_such_command x 10'"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&dir2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tune_killed_with_sigkill_resumes_where_it_was() {
    let dir = out_dir("tune", "resume");
    let args = tune_args(&dir, 200, &["--seed", "5"]);
    let mut child = Command::new(GOREF)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let seen = until(Duration::from_secs(60), "ten steps in tune.csv", || {
        let steps = csv_steps(&dir).len();
        async move { (steps >= 10).then_some(steps) }
    })
    .await;
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = state(&dir);
    let done = before["steps"].as_u64().unwrap() as usize;
    assert!(done >= seen && done < 100, "{done} steps at the kill");
    let history: Vec<serde_json::Value> = before["history"].as_array().unwrap().clone();
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains(&format!("{done} resumed")), "{stdout}");
    assert!(
        stdout.contains(&format!("this run: {} games", 200 - 2 * done)),
        "{stdout}"
    );
    let after = state(&dir);
    assert_eq!(
        (after["steps"].as_u64(), after["games"].as_u64()),
        (Some(100), Some(200))
    );
    // The steps before the kill are kept as they were, and each step is written once.
    assert_eq!(after["history"].as_array().unwrap()[..done], history[..]);
    assert_eq!(csv_steps(&dir), (1..=100).collect::<Vec<_>>());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_of_another_tune_is_refused() {
    let dir = out_dir("tune", "mismatch");
    let (code, stdout, stderr) = run(&tune_args(&dir, 2, &["--seed", "1"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let mut other = tune_args(&dir, 2, &["--seed", "1"]);
    other[4] = "x=20,0:100".into();
    let (code, _, stderr) = run(&other);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("holds another tune (parameters' values:"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&tune_args(&dir, 4, &["--seed", "1"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("games: '4' here, '2' in the directory"),
        "{stderr}"
    );
    let mut seven = tune_args(&dir, 2, &["--seed", "1"]);
    let size = seven.iter().position(|a| a == "--size").unwrap();
    seven[size + 1] = "7".into();
    let (code, _, stderr) = run(&seven);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("board: '7x7' here, '5x5' in the directory"),
        "{stderr}"
    );
    // Without --seed the folder's seed is kept: the same tune.
    let (code, stdout, _) = run(&tune_args(&dir, 2, &[]));
    assert_eq!(code, 0, "{stdout}");
    // A state that is not one is refused, not overwritten.
    std::fs::write(dir.join("tune.json"), "{\"params\": 3}").unwrap();
    let (code, _, stderr) = run(&tune_args(&dir, 2, &[]));
    assert_eq!(code, 2);
    assert!(stderr.contains("tune.json: not a tune's state"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_parameters_and_commands_are_explained() {
    let dir = out_dir("tune", "bad");
    let cases: [(&[&str], &str); 6] = [
        (
            &["--param", "x=10,0-100"],
            "--param x=10,0-100: expected MIN:MAX, found '0-100' (no ':') (at character 6)",
        ),
        (
            &["--param", "x=1e999,0:1"],
            "START '1e999' is not a number (at character 3)",
        ),
        (
            &["--param", "y=1,0:2"],
            "has no {y}: write it where the value of parameter y goes",
        ),
        (&["--games", "3"], "--games 3: an even number from 2"),
        (
            &["--param", "x=1,0:2", "--param", "x=1,0:2"],
            "--param x: given twice",
        ),
        (&["--set", "set_param x"], "has no {value}"),
    ];
    for (extra, expected) in cases {
        let mut args = tune_args(&dir, 2, &[]);
        // A later --param or --games replaces the first (both are given first here).
        if extra[0] == "--param" {
            args.drain(3..5);
        }
        if extra[0] == "--games" {
            args.drain(5..7);
        }
        args.extend(extra.iter().map(ToString::to_string));
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!dir.join("tune.json").exists());
    }
    let help = goref(&["tune", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    for word in [
        "--engine",
        "--set",
        "--param",
        "--opponent",
        "--jobs",
        "--queue",
        "R_END",
    ] {
        assert!(help.contains(word), "{word}: {help}");
    }
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture (add --release for release figures)"]
fn games_per_second_with_one_and_two_jobs() {
    for jobs in ["1", "2"] {
        let dir = out_dir("tune", &format!("bench-{jobs}"));
        let started = Instant::now();
        let (code, stdout, stderr) = run(&tune_args(&dir, 400, &["--jobs", jobs, "--seed", "1"]));
        assert_eq!(code, 0, "{stdout}{stderr}");
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "--jobs {jobs}: 400 games in {secs:.2}s, {:.1} games/s ({})",
            400.0 / secs,
            stdout.lines().nth(1).unwrap_or("")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
