//! `goref match`, `goref engine` and `goref check-engine` on real processes: goref's built-in
//! engines (this binary) and GNU Go (`/usr/games/gnugo`, installed by `.ci/run`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use goref_rules::{Game, Preset, Ruleset};
use serde_json::Value;

const GOREF: &str = env!("CARGO_BIN_EXE_goref");
const GNUGO: &str = "/usr/games/gnugo";

fn gnugo(seed: &str) -> String {
    format!("{GNUGO} --mode gtp --level 0 --capture-all-dead --seed {seed}")
}

fn engine(args: &str) -> String {
    format!("{GOREF} engine {args}")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("goref-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn goref(args: &[&str]) -> Output {
    Command::new(GOREF).args(args).output().unwrap()
}

/// Runs a match and returns the exit code, stdout, stderr.
fn run_match(black: &str, white: &str, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "match",
        "--black",
        black,
        "--white",
        white,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let o = goref(&args);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn results(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    // A line cut off by a crash is skipped, as goref skips it.
    let mut rows: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    rows.sort_by_key(|r| r["game"].as_u64());
    rows
}

fn by_game(rows: &[Value], n: u64) -> &Value {
    rows.iter().find(|r| r["game"] == n).unwrap()
}

/// Reads a game's SGF, replays it under its rules with the rules core, and returns the
/// record and the replayed game.
fn replay(out: &Path, row: &Value) -> (goref_sgf::GameRecord, Game) {
    let text = std::fs::read_to_string(out.join(row["sgf"].as_str().unwrap())).unwrap();
    let record = goref_sgf::parse(&text).unwrap();
    let preset: Preset = record.rules.as_deref().unwrap().parse().unwrap();
    let rules = Ruleset::preset(preset).with_komi(record.komi.unwrap());
    let mut game = Game::rect(record.width, record.height, rules).unwrap();
    for m in &record.moves {
        assert_eq!(game.to_move(), m.color);
        game.play(m.mv).unwrap();
    }
    (record, game)
}

fn have_gnugo() -> bool {
    let there = Path::new(GNUGO).exists();
    if !there {
        eprintln!("skipping: {GNUGO} is not installed (.ci/run installs it)");
    }
    there
}

/// Random against random with two games at a time: every game recorded, colours alternate,
/// every SGF replays legally (each move checked again), and two-pass games carry the area
/// score with all stones alive (TT rule 9, Olympiad 3.8).
#[test]
fn random_vs_random_with_two_jobs_records_every_game() {
    let out = out_dir("random");
    let (code, stdout, stderr) = run_match(
        &engine("random --seed {game}"),
        &engine("random --seed 1{game}"),
        &out,
        &["--games", "6", "--jobs", "2", "--size", "9"],
    );
    assert_eq!(code, 0, "{stderr}");
    let rows = results(&out);
    assert_eq!(rows.len(), 6);
    for n in 1..=6u64 {
        let row = by_game(&rows, n);
        let black_engine = if n % 2 == 1 { 0 } else { 1 };
        assert_eq!(row["black"], black_engine, "colours alternate");
        let (record, game) = replay(&out, row);
        assert_eq!(record.black_player.as_deref(), Some("goref-random"));
        assert_eq!(record.result.as_deref(), row["result"].as_str());
        assert_eq!(record.moves.len() as u64, row["moves"].as_u64().unwrap());
        assert!(
            game.is_over(),
            "game {n} ended by rule, not by the move limit"
        );
        assert_eq!(game.outcome().to_sgf(), row["result"].as_str().unwrap());
    }
    assert!(
        stdout.contains("6 of 6 games, 9x9, olympiad rules, komi 7.5"),
        "{stdout}"
    );
    assert!(stdout.contains("(95%), LOS"), "{stdout}");
    assert!(stdout.contains("games/s"), "{stdout}");
}

/// GNU Go beats the random engine on 9×9, as Black and as White.
#[test]
fn gnugo_beats_random() {
    if !have_gnugo() {
        return;
    }
    let out = out_dir("gnugo-random");
    let (code, stdout, stderr) = run_match(
        &gnugo("{game}"),
        &engine("random --seed {game}"),
        &out,
        &["--games", "2", "--jobs", "2", "--time", "none"],
    );
    assert_eq!(code, 0, "{stderr}");
    let rows = results(&out);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        let gnugo_colour = if row["black"] == 0 { "B" } else { "W" };
        assert_eq!(row["winner"], gnugo_colour, "{row}");
        let (record, _) = replay(&out, row);
        let names = [record.black_player.unwrap(), record.white_player.unwrap()];
        assert!(names.contains(&"GNU Go".to_string()), "{names:?}");
    }
    assert!(stdout.contains("gnugo                2     2"), "{stdout}");
}

/// GNU Go against itself under a clock: told the settings and the time left, the records carry
/// the time left after each move (BL/WL) and the games end by two passes.
#[test]
fn gnugo_vs_gnugo_under_a_clock() {
    if !have_gnugo() {
        return;
    }
    let out = out_dir("gnugo-gnugo");
    let (code, stdout, stderr) = run_match(
        &gnugo("{game}"),
        &gnugo("1{game}"),
        &out,
        &["--games", "1", "--time", "60s"],
    );
    assert_eq!(code, 0, "{stderr}");
    let rows = results(&out);
    let row = &rows[0];
    assert_eq!(row["end"], "two-passes", "{row}");
    let text = std::fs::read_to_string(out.join("game-0001.sgf")).unwrap();
    assert!(text.contains("TM[60]"));
    assert!(text.contains("BL[") && text.contains("WL["), "{text}");
    let (_, game) = replay(&out, row);
    assert_eq!(game.outcome().to_sgf(), row["result"].as_str().unwrap());
    assert!(stdout.contains("gnugo-1"), "{stdout}");
}

/// A crash loses by forfeit (`W+F` when Black crashes) and the engine is started afresh for
/// the next game, where it crashes again as White (`B+F`).
#[test]
fn a_crash_forfeits_and_the_engine_restarts_for_the_next_game() {
    let out = out_dir("crash");
    let (code, stdout, stderr) = run_match(
        &engine("faulty --crash-after 3"),
        &engine("random"),
        &out,
        &["--games", "2"],
    );
    assert_eq!(code, 0, "{stderr}");
    let rows = results(&out);
    assert_eq!(rows[0]["result"], "W+F");
    assert_eq!(rows[1]["result"], "B+F");
    for row in &rows {
        assert_eq!(row["end"], "crash");
        let detail = row["detail"].as_str().unwrap();
        assert!(
            detail.contains("genmove") && detail.contains("exit status: 3"),
            "{detail}"
        );
    }
    assert_eq!(rows[0]["moves"], 6, "Black crashed on its fourth move");
    let sgf = std::fs::read_to_string(out.join("game-0001.sgf")).unwrap();
    assert!(
        sgf.contains("RE[W+F]") && sgf.contains("closed its output"),
        "{sgf}"
    );
    assert!(stdout.contains("crash 2"), "{stdout}");
}

/// A hang past the hang timeout loses by forfeit; with the clock binding first, it loses on time.
#[test]
fn a_hang_forfeits_and_a_slow_engine_loses_on_time() {
    let out = out_dir("hang");
    let (code, _, stderr) = run_match(
        &engine("random"),
        &engine("faulty --hang-after 2"),
        &out,
        &["--games", "1", "--hang-timeout", "500ms"],
    );
    assert_eq!(code, 0, "{stderr}");
    let row = &results(&out)[0];
    assert_eq!(row["result"], "B+F");
    assert_eq!(row["end"], "hang");
    assert!(row["detail"]
        .as_str()
        .unwrap()
        .contains("no reply to 'genmove w'"));

    let out = out_dir("slow");
    let (code, _, stderr) = run_match(
        &engine("faulty --slow 150ms"),
        &engine("random"),
        &out,
        &["--games", "1", "--time", "1s", "--lag", "0s"],
    );
    assert_eq!(code, 0, "{stderr}");
    let row = &results(&out)[0];
    assert_eq!(row["result"], "W+T", "{row}");
    assert_eq!(row["end"], "time");
    // 1 s at 150 ms a move: the seventh move runs out.
    assert!((12..=14).contains(&row["moves"].as_u64().unwrap()), "{row}");
}

/// Byo-yomi: the main time runs out but each move fits a period, so nobody loses on time.
#[test]
fn byo_yomi_periods_carry_a_slow_engine() {
    let out = out_dir("byoyomi");
    let (code, _, stderr) = run_match(
        &engine("faulty --slow 20ms"),
        &engine("random"),
        &out,
        &[
            "--games",
            "1",
            "--size",
            "5",
            "--time",
            "100ms",
            "--byoyomi",
            "200ms/1",
            "--lag",
            "0s",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let row = &results(&out)[0];
    assert_ne!(row["end"], "time", "{row}");
    let sgf = std::fs::read_to_string(out.join("game-0001.sgf")).unwrap();
    assert!(sgf.contains("OB[1]"), "overtime periods recorded: {sgf}");
}

/// Olympiad 3.10.2: a first illegal move is replaced by a pass and the game goes on; a second
/// one loses. Under the strict policy the first one loses.
#[test]
fn illegal_moves_follow_olympiad_3_10_2_or_the_strict_policy() {
    let out = out_dir("illegal-once");
    let (code, _, stderr) = run_match(
        &engine("faulty --illegal-at 3"),
        &engine("random --seed 5"),
        &out,
        &["--games", "1"],
    );
    assert_eq!(code, 0, "{stderr}");
    let row = &results(&out)[0];
    assert_eq!(row["illegal_passes"][0], 1);
    assert!(row["end"] != "illegal", "{row}");
    let (record, _) = replay(&out, row);
    let fifth = &record.moves[4];
    assert_eq!(
        fifth.mv,
        goref_rules::Move::Pass,
        "Black's third move became a pass"
    );
    assert!(fifth
        .comment
        .as_deref()
        .unwrap()
        .contains("Olympiad 3.10.2"));
    assert!(record.moves.len() > 10, "the game went on");

    let out = out_dir("illegal-twice");
    let (code, _, _) = run_match(
        &engine("faulty --illegal-at 3,5"),
        &engine("random"),
        &out,
        &["--games", "1"],
    );
    assert_eq!(code, 0);
    let row = &results(&out)[0];
    assert_eq!(row["result"], "W+F");
    assert_eq!(row["end"], "illegal");
    assert!(
        row["detail"]
            .as_str()
            .unwrap()
            .contains("second illegal move at move 9"),
        "{row}"
    );

    let out = out_dir("illegal-strict");
    let (code, _, _) = run_match(
        &engine("random"),
        &engine("faulty --illegal-at 2"),
        &out,
        &["--games", "1", "--illegal", "strict"],
    );
    assert_eq!(code, 0);
    let row = &results(&out)[0];
    assert_eq!(row["result"], "B+F");
    assert_eq!(row["moves"], 3);
    assert!(row["detail"].as_str().unwrap().contains("strict"));
}

/// Garbage (bytes that are not UTF-8, stray lines, a reply that is no vertex) never stops
/// goref: it counts as an illegal move, twice loses.
#[test]
fn garbage_output_is_an_illegal_move_not_a_panic() {
    let out = out_dir("garbage");
    let (code, _, stderr) = run_match(
        &engine("faulty --garbage-after 1"),
        &engine("random"),
        &out,
        &["--games", "1"],
    );
    assert_eq!(code, 0, "{stderr}");
    let row = &results(&out)[0];
    assert_eq!(row["result"], "W+F");
    assert_eq!(row["end"], "illegal");
    assert!(
        row["detail"]
            .as_str()
            .unwrap()
            .contains("not a move on this board"),
        "{row}"
    );
    let log = std::fs::read_to_string(out.join("game-0001.log")).unwrap();
    assert!(
        log.contains("garbage"),
        "stray output kept in the log: {log}"
    );
}

/// Resignation ends the game `B+R`/`W+R`.
#[test]
fn resignation_is_recorded() {
    let out = out_dir("resign");
    let (code, _, _) = run_match(
        &engine("random"),
        &engine("faulty --resign-after 4"),
        &out,
        &["--games", "1"],
    );
    assert_eq!(code, 0);
    let row = &results(&out)[0];
    assert_eq!(row["result"], "B+R");
    assert_eq!(row["end"], "resignation");
    assert_eq!(row["moves"], 9);
}

/// An engine that cannot start stops the match with an error naming it and its command.
#[test]
fn an_engine_that_cannot_start_stops_the_match() {
    let out = out_dir("nostart");
    let (code, _, stderr) = run_match("/nonexistent/engine --gtp", &engine("random"), &out, &[]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("Black engine 'engine': cannot start '/nonexistent/engine --gtp'"),
        "{stderr}"
    );

    let (code, _, stderr) = run_match(
        &engine("random"),
        &engine("faulty --exit-at-start"),
        &out,
        &[],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("White engine 'faulty'") && stderr.contains("start-up check"),
        "{stderr}"
    );
}

/// A second run on the same --out plays only the games missing from results.jsonl, and a line
/// cut off by a crash is played again.
#[test]
fn a_match_resumes_from_its_results_file() {
    let out = out_dir("resume");
    let black = engine("random --seed {game}");
    let white = engine("random --seed 7{game}");
    let (code, _, _) = run_match(&black, &white, &out, &["--games", "3"]);
    assert_eq!(code, 0);
    let before = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    // Simulate a crash while game 3's line was being written.
    let cut: String = before
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        + "{\"game\":3,\"bla";
    std::fs::write(out.join("results.jsonl"), &cut).unwrap();
    let (code, stdout, _) = run_match(&black, &white, &out, &["--games", "5"]);
    assert_eq!(code, 0);
    let after = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(after.starts_with(&cut), "append-only");
    let rows = results(&out);
    let games: Vec<u64> = rows.iter().map(|r| r["game"].as_u64().unwrap()).collect();
    assert_eq!(games, vec![1, 2, 3, 4, 5]);
    assert!(
        stdout.contains("5 of 5 games") && stdout.contains("this run: 3 games"),
        "{stdout}"
    );
}

/// The SPRT stops the match as soon as it decides.
#[test]
fn sprt_stops_a_lopsided_match_early() {
    if !have_gnugo() {
        return;
    }
    let out = out_dir("sprt");
    let (code, stdout, stderr) = run_match(
        &gnugo("{game}"),
        &engine("random --seed {game}"),
        &out,
        &[
            "--games", "40", "--size", "7", "--time", "none", "--sprt", "0", "200", "0.05", "0.05",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let n = results(&out).len();
    assert!((8..40).contains(&n), "{n} games: {stdout}");
    assert!(
        stdout.contains("H1 accepted") && stdout.contains("stopped early"),
        "{stdout}"
    );
}

/// The built-in engine also serves GTP over TCP, and `goref match` plays it there.
#[test]
fn engines_are_reached_over_tcp() {
    use std::io::{BufRead, BufReader};
    let mut server = Command::new(GOREF)
        .args(["engine", "random", "--listen", "127.0.0.1:0"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line.trim().rsplit(' ').next().unwrap().to_string();
    let out = out_dir("tcp");
    let (code, _, stderr) = run_match(
        &format!("tcp://{address}"),
        &engine("random"),
        &out,
        &["--games", "2", "--jobs", "2"],
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(code, 0, "{stderr}");
    let rows = results(&out);
    assert_eq!(rows.len(), 2);
    assert!(rows
        .iter()
        .all(|r| r["end"] != "crash" && r["moves"].as_u64().unwrap() > 10));
}

#[test]
fn check_engine_reports_support_and_compliance() {
    let o = goref(&["check-engine", &engine("random")]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("name              goref-random") && text.contains("compliant"));
    assert!(text.contains("yes time_left"));

    let o = goref(&["check-engine", &engine("faulty --garbage-after 0")]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("NOT compliant") && text.contains("not a move"),
        "{text}"
    );

    if have_gnugo() {
        let o = goref(&["check-engine", &format!("{GNUGO} --mode gtp --level 0")]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{text}");
        assert!(text.contains("name              GNU Go") && text.contains("no  kgs-rules"));
    }
}

/// A TOML file names the engines and settings; the command line overrides it.
#[test]
fn a_config_file_sets_the_match() {
    let out = out_dir("config");
    std::fs::create_dir_all(&out).unwrap();
    let toml = format!(
        "games = 1\nsize = \"7\"\nkomi = 0.5\ntime = \"none\"\nhang_timeout = \"10s\"\n[black]\nname = \"alpha\"\ncommand = \"{GOREF} engine random\"\n[white]\nname = \"beta\"\ncommand = \"{GOREF} engine random\"\n"
    );
    let path = out.join("match.toml");
    std::fs::write(&path, toml).unwrap();
    let o = goref(&[
        "match",
        "--config",
        path.to_str().unwrap(),
        "--games",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.contains("2 of 2 games, 7x7, olympiad rules, komi 0.5, no clock"),
        "{text}"
    );
    assert!(text.contains("alpha") && text.contains("beta"));
}

/// Ctrl-C (SIGINT to goref only, as a terminal sends it to the foreground job; the engines run
/// in their own process groups) finishes the running games, records them, exits with status
/// 130, and the same command afterwards plays the rest.
#[test]
fn ctrl_c_finishes_running_games_and_the_match_resumes() {
    let out = out_dir("ctrl-c");
    let slow = engine("faulty --slow 20ms");
    let args = [
        "match",
        "--black",
        &slow,
        "--white",
        &slow,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--games",
        "10",
        "--jobs",
        "2",
        "--size",
        "4",
    ];
    let child = Command::new(GOREF)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "{text}");
    assert!(text.contains("interrupted"), "{text}");
    let done = results(&out).len();
    assert!((1..10).contains(&done), "{done} games before Ctrl-C");
    // Every recorded game is complete: it has its SGF.
    for row in results(&out) {
        assert!(out.join(row["sgf"].as_str().unwrap()).exists());
    }
    let o = Command::new(GOREF).args(args).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(results(&out).len(), 10);
}
