//! `goref match`, `goref engine` and `goref check-engine` on real processes: goref's built-in
//! engines (this binary) and GNU Go (`/usr/games/gnugo`, installed by `.ci/run`).

mod common;

use common::{goref, have_gnugo, out_dir, GNUGO, GOREF};

use std::path::{Path, PathBuf};
use std::process::Command;

use goref_rules::{Color, Game, Preset, Ruleset};
use serde_json::Value;

fn gnugo(seed: &str) -> String {
    format!("{GNUGO} --mode gtp --level 0 --capture-all-dead --seed {seed}")
}

fn engine(args: &str) -> String {
    format!("{GOREF} engine {args}")
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
    let rows = common::results_jsonl(out);
    for row in &rows {
        score_gives_re(out, row);
    }
    rows
}

/// Every record goref writes replays: `goref score` of a game that ended on the board (two
/// passes and whatever dead-stone settlement, a long cycle, the move limit) prints exactly the
/// record's `RE`; a game lost otherwise keeps its `RE` and still replays.
fn score_gives_re(out: &Path, row: &Value) {
    let path = out.join(row["sgf"].as_str().unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    let re = goref_sgf::parse(&text).unwrap().result.unwrap();
    assert_eq!(re, row["result"].as_str().unwrap(), "{row}");
    let scored = goref(&["score", path.to_str().unwrap()]);
    assert!(scored.status.success(), "{}: {scored:?}", path.display());
    let first = String::from_utf8_lossy(&scored.stdout);
    let first = first.lines().next().unwrap_or("");
    let on_board = ["two-passes", "long-cycle", "move-limit", "adjudicated"];
    if on_board.contains(&row["end"].as_str().unwrap()) {
        assert_eq!(first, re, "goref score {}: {text}", path.display());
    }
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
    let game = record.replay(rules).unwrap();
    (record, game)
}

/// Random against random with two games at a time: every game recorded, colours alternate,
/// every SGF replays legally (each move checked again), and two-pass games carry the area
/// score with all stones alive (TT rule 9, Olympiad 3.8).
#[test]
fn random_vs_random_with_two_jobs_records_every_game() {
    let out = out_dir("test", "random");
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
        // PB/PW: each engine's GTP name and version.
        assert_eq!(
            record.black_player.as_deref(),
            Some(concat!("goref-random ", env!("CARGO_PKG_VERSION")))
        );
        // DT, AP, GN, and each engine's command in the root comment.
        assert_eq!(record.date.as_deref().map(str::len), Some(10));
        assert!(record.application.as_deref().unwrap().starts_with("goref:"));
        assert_eq!(record.game_name, Some(format!("game {n}")));
        assert!(record.comment.as_deref().unwrap().contains("engine random"));
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
    let out = out_dir("test", "gnugo-random");
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
        assert!(names.contains(&"GNU Go 3.8".to_string()), "{names:?}");
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
    let out = out_dir("test", "gnugo-gnugo");
    let (code, stdout, stderr) = run_match(
        &gnugo("{game}"),
        &gnugo("1{game}"),
        &out,
        &["--games", "1", "--time", "60s", "--end", "all-alive"],
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

/// Handicap: GTP's fixed points told with `fixed_handicap` (GTP 2 §4.1.1), or Black's engine
/// choosing with `place_free_handicap` and White told with `set_free_handicap`; White moves
/// first after the stones, komi defaults to 0.5, and the record has HA and AB.
#[test]
fn handicap_games_fixed_and_free() {
    if !have_gnugo() {
        return;
    }
    for (style, stones) in [("fixed", 4usize), ("free", 3)] {
        let out = out_dir("test", &format!("handicap-{style}"));
        let (code, _, stderr) = run_match(
            &gnugo("{game}"),
            &engine("random --seed {game}"),
            &out,
            &[
                "--games",
                "1",
                "--time",
                "none",
                "--handicap",
                &stones.to_string(),
                "--handicap-style",
                style,
                "--end",
                "all-alive",
            ],
        );
        assert_eq!(code, 0, "{stderr}");
        let rows = results(&out);
        let (record, game) = replay(&out, &rows[0]);
        assert_eq!(record.handicap, Some(stones as u32), "{style}");
        assert_eq!(record.setup.len(), stones);
        assert!(record.setup.iter().all(|&(c, _)| c == Color::Black));
        assert_eq!(record.moves[0].color, Color::White, "White moves first");
        assert_eq!(record.komi.unwrap().to_string(), "0.5");
        assert_eq!(game.start().stone_count(Color::Black), stones as u32);
        let log = std::fs::read_to_string(out.join("game-0001.log")).unwrap();
        match style {
            "fixed" => {
                let g = game.geometry();
                let mut names: Vec<String> = record.setup.iter().map(|&(_, p)| g.name(p)).collect();
                names.sort();
                assert_eq!(names, ["C3", "C7", "G3", "G7"]);
                assert!(log.contains("fixed_handicap 4"), "{log}");
            }
            _ => {
                assert!(log.contains("place_free_handicap 3"), "{log}");
                assert!(log.contains("set_free_handicap"), "{log}");
            }
        }
    }
    // Handicap where GTP defines no fixed points is refused before any game.
    let out = out_dir("test", "handicap-refused");
    let (code, _, stderr) = run_match(
        &engine("random"),
        &engine("random"),
        &out,
        &["--games", "1", "--size", "6", "--handicap", "2"],
    );
    assert_ne!(code, 0);
    assert!(stderr.contains("fixed handicap"), "{stderr}");
}

/// A crash loses by forfeit (`W+F` when Black crashes) and the engine is started afresh for
/// the next game, where it crashes again as White (`B+F`).
#[test]
fn a_crash_forfeits_and_the_engine_restarts_for_the_next_game() {
    let out = out_dir("test", "crash");
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
    let out = out_dir("test", "hang");
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

    let out = out_dir("test", "slow");
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
    // 1 s at 150 ms a move: the seventh move runs out (fewer than the 30 moves 001 §1 asks
    // on 9×9 before a loss on time goes to the tournament director).
    assert!((12..=14).contains(&row["moves"].as_u64().unwrap()), "{row}");

    // 001 §1 with a minimum of 3 moves: the same flag sends the game to the director, who
    // adjudicates it (3.9's default removal of every block, then 3.8 scoring).
    let out = out_dir("test", "slow-adjudicated");
    let (code, _, stderr) = run_match(
        &engine("faulty --slow 150ms"),
        &engine("random"),
        &out,
        &[
            "--games",
            "1",
            "--time",
            "1s",
            "--lag",
            "0s",
            "--min-moves",
            "3",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let row = &results(&out)[0];
    assert_eq!(row["end"], "adjudicated", "{row}");
    assert!(!row["result"].as_str().unwrap().ends_with('T'), "{row}");
    assert!(row["detail"].as_str().unwrap().contains("001 §1"), "{row}");
}

/// Byo-yomi: the main time runs out but each move fits a period, so nobody loses on time.
#[test]
fn byo_yomi_periods_carry_a_slow_engine() {
    let out = out_dir("test", "byoyomi");
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
    let out = out_dir("test", "illegal-once");
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

    let out = out_dir("test", "illegal-twice");
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

    let out = out_dir("test", "illegal-strict");
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
    let out = out_dir("test", "garbage");
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
    let out = out_dir("test", "resign");
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
    let out = out_dir("test", "nostart");
    let (code, _, stderr) = run_match("/nonexistent/engine --gtp", &engine("random"), &out, &[]);
    assert_eq!(code, 2);
    assert!(
        stderr
            .contains("engine 'engine' (/nonexistent/engine --gtp) cannot play: command not found"),
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
        stderr.contains("engine 'faulty'") && stderr.contains("exited with exit status: 1"),
        "{stderr}"
    );
}

/// A second run on the same --out plays only the games missing from results.jsonl, and a line
/// cut off by a crash is played again.
#[test]
fn a_match_resumes_from_its_results_file() {
    let out = out_dir("test", "resume");
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
    // Another match in the same directory is refused, naming what differs; nothing is mixed.
    let other = engine("random --seed 9{game}");
    let (code, _, stderr) = run_match(&black, &other, &out, &["--games", "6"]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("holds another match") && stderr.contains("engines"),
        "{stderr}"
    );
    let (code, _, stderr) = run_match(&black, &white, &out, &["--games", "6", "--size", "7"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("board"), "{stderr}");
    assert_eq!(results(&out).len(), 5);
}

/// The SPRT stops the match as soon as it decides.
#[test]
fn sprt_stops_a_lopsided_match_early() {
    if !have_gnugo() {
        return;
    }
    let out = out_dir("test", "sprt");
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
    let out = out_dir("test", "tcp");
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
    let out = out_dir("test", "config");
    std::fs::create_dir_all(&out).unwrap();
    let toml = format!(
        "games = 1\nsize = \"7\"\nkomi = 0.5\ntime = \"none\"\nhang_timeout = \"10s\"\nend = \"tromp\"\n[black]\nname = \"alpha\"\ncommand = \"{GOREF} engine random\"\n[white]\nname = \"beta\"\ncommand = \"{GOREF} engine random\"\n"
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
        text.contains("2 of 2 games, 7x7, olympiad rules, komi 0.5, no clock, end tromp"),
        "{text}"
    );
    assert!(text.contains("alpha") && text.contains("beta"));
}

/// The end protocol's default follows the rules: `olympiad` under the olympiad preset,
/// `all-alive` under tromp-taylor and nstt; an unknown name is refused.
#[test]
fn the_end_protocol_defaults_by_preset() {
    for (rules, end) in [
        ("olympiad", "end olympiad"),
        ("tromp-taylor", "end all-alive"),
        ("nstt", "end all-alive"),
    ] {
        let out = out_dir("test", &format!("end-default-{rules}"));
        let (code, stdout, stderr) = run_match(
            &engine("random"),
            &engine("random"),
            &out,
            &[
                "--games", "1", "--size", "5", "--rules", rules, "--time", "none",
            ],
        );
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains(end), "{rules}: {stdout}");
    }
    let out = out_dir("test", "end-unknown");
    let (code, _, stderr) = run_match(
        &engine("random"),
        &engine("random"),
        &out,
        &["--end", "nonsense"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("unknown end protocol 'nonsense'"),
        "{stderr}"
    );
}

/// Ctrl-C (SIGINT to goref only, as a terminal sends it to the foreground job; the engines run
/// in their own process groups) finishes the running games, records them, exits with status
/// 130, and the same command afterwards plays the rest.
#[test]
fn ctrl_c_finishes_running_games_and_the_match_resumes() {
    let out = out_dir("test", "ctrl-c");
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

// ---------------------------------------------------------------------------------------------
// Dead-stone settlement (issue 4): every protocol through its branches with the scripted
// engine, then GNU Go.
//
// The position, on 5×5 with komi 0.5: Black's wall on column c, White's on column d; a white
// stone a3 sits in Black's area and a black stone e3 in White's. Black passes first.
//
//     5 . . X O .        removed      score
//     4 . . X O .        nothing      W+0.5
//     3 O . X O X        a3           B+10.5
//     2 . . X O .        e3           W+6.5
//     1 . . X O .        a3 and e3    B+4.5
//       a b c d e
// ---------------------------------------------------------------------------------------------

const BLACK_MOVES: &str = "c1,c2,c3,c4,c5,e3,pass";
const WHITE_MOVES: &str = "d1,d2,d3,d4,d5,a3,pass";
/// Turns to the first two passes.
const TURNS: u64 = 14;

/// The scripted engine: `moves` then passes; `extra` adds `--dead` and the like.
fn scripted(moves: &str, extra: &str) -> String {
    engine(&format!("scripted --moves {moves} {extra}"))
}

/// One game on the position above under `end`; returns the results row and the output
/// directory.
fn settle(name: &str, black: &str, white: &str, end: &str, extra: &[&str]) -> (Value, PathBuf) {
    let out = out_dir("test", name);
    let mut args = vec!["--games", "1", "--size", "5", "--komi", "0.5", "--end", end];
    if !extra.contains(&"--time") {
        args.extend_from_slice(&["--time", "none"]);
    }
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run_match(black, white, &out, &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(&format!("end {end}")), "{stdout}");
    let rows = results(&out);
    assert_eq!(rows.len(), 1, "{stdout}");
    let row = rows[0].clone();
    // The table counts the settlement.
    let kind = match (row["ending"].as_str(), row["resumptions"].as_u64()) {
        (Some("agreement"), Some(0)) => "agreement 1",
        (Some("agreement" | "cleanup-passes" | "played-out-on-copy"), _) => "play-on 1",
        (Some("four-passes"), _) => "four-passes 1",
        (Some("referee"), _) => "referee 1",
        (Some(_), _) => "two-passes 1",
        (None, _) => "game ends:",
    };
    assert!(stdout.contains(kind), "{kind}: {stdout}");
    // The record replays legally and carries the settlement on its final node.
    let (record, game) = replay(&out, &row);
    assert_eq!(game.is_over(), row["end"] == "two-passes", "{row}");
    assert_eq!(record.result.as_deref(), row["result"].as_str());
    if row["ending"].is_string() {
        let last = record
            .moves
            .last()
            .unwrap()
            .comment
            .clone()
            .unwrap_or_default();
        assert!(
            last.contains("game ends by") && last.contains("dead lists:"),
            "{last}"
        );
    }
    (row, out)
}

fn removed(row: &Value) -> Vec<&str> {
    row["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

fn game_log(out: &Path) -> String {
    std::fs::read_to_string(out.join("game-0001.log")).unwrap()
}

/// Chinese (reference 000): equal lists are removed and the board scored.
#[test]
fn chinese_equal_lists_are_removed() {
    let (row, _) = settle(
        "chinese-agree",
        &scripted(BLACK_MOVES, "--dead a3,e3"),
        &scripted(WHITE_MOVES, "--dead e3,a3"),
        "chinese",
        &[],
    );
    assert_eq!(row["ending"], "agreement", "{row}");
    assert_eq!(removed(&row), ["A3", "E3"]);
    assert_eq!(row["result"], "B+4.5");
    assert_eq!(row["moves"], TURNS);
    assert_eq!(row["resumptions"], 0);
}

/// Chinese: different lists resume play with the player who passed first; two immediate
/// passes (four in all) end the game with every stone alive. Here each side calls only the
/// other's stone dead; then only its own; then one side both.
#[test]
fn chinese_disagreement_plays_on_and_four_passes_count_every_stone() {
    for (i, (black, white)) in [
        ("--dead a3", "--dead e3"),    // each calls the other's stone dead
        ("--dead e3", "--dead a3"),    // each calls its own stone dead
        ("--dead a3,e3", "--dead ''"), // one side calls both, the other none
    ]
    .into_iter()
    .enumerate()
    {
        let (row, out) = settle(
            &format!("chinese-four-{i}"),
            &scripted(BLACK_MOVES, black),
            &scripted(WHITE_MOVES, white),
            "chinese",
            &[],
        );
        assert_eq!(row["ending"], "four-passes", "{row}");
        assert_eq!(row["result"], "W+0.5", "every stone alive: {row}");
        assert!(removed(&row).is_empty());
        assert_eq!(row["moves"], TURNS + 2);
        assert_eq!(row["resumptions"], 1);
        let (record, _) = replay(&out, &row);
        // Black passed first and moves first on resumption.
        assert_eq!(
            record.moves[TURNS as usize].color,
            goref_rules::Color::Black
        );
        assert!(game_log(&out).contains("play resumes with Black to move"));
    }
}

/// Chinese: after play resumed and later stopped again, the process repeats: here Black
/// captures nothing yet plays b3, then both agree that a3 is dead. The next time they
/// disagree again and pass at once: four passes.
#[test]
fn chinese_repeats_the_process_after_play() {
    let (row, _) = settle(
        "chinese-repeat",
        &scripted(&format!("{BLACK_MOVES},b3,pass"), "--dead a3"),
        &scripted(&format!("{WHITE_MOVES},pass,pass"), "--dead '' --dead a3"),
        "chinese",
        &[],
    );
    assert_eq!(row["ending"], "agreement", "{row}");
    assert_eq!(row["resumptions"], 1);
    assert_eq!(removed(&row), ["A3"]);
    assert_eq!(row["result"], "B+10.5");
    assert_eq!(row["moves"], TURNS + 3);

    // Two cycles: lists differ, Black plays b3, they differ again, then four passes.
    let (row, _) = settle(
        "chinese-repeat-twice",
        &scripted(&format!("{BLACK_MOVES},b3,pass"), "--dead a3"),
        &scripted(&format!("{WHITE_MOVES},pass,pass"), "--dead ''"),
        "chinese",
        &[],
    );
    assert_eq!(row["ending"], "four-passes", "{row}");
    assert_eq!(row["resumptions"], 2);
    assert_eq!(row["moves"], TURNS + 3 + 2);
}

/// Reference 000 considerations, Olympiad 3.7.2: an engine without `final_status_list`, one
/// that fails, and one that times out are taken to remove nothing and are not penalised.
#[test]
fn engines_without_dead_lists_remove_nothing_and_are_not_penalised() {
    let (row, out) = settle(
        "no-status",
        &scripted(BLACK_MOVES, ""),
        &scripted(WHITE_MOVES, "--status-fails"),
        "chinese",
        &[],
    );
    assert_eq!(row["ending"], "agreement", "{row}");
    assert_eq!(row["result"], "W+0.5");
    assert_eq!(row["dead_lists"], serde_json::json!([null, null]));
    let log = game_log(&out);
    assert!(log.contains("Black has no final_status_list"), "{log}");
    assert!(log.contains("White gave no dead list"), "{log}");

    let (row, out) = settle(
        "slow-status",
        &scripted(BLACK_MOVES, "--status-delay 2s --dead a3"),
        &scripted(WHITE_MOVES, ""),
        "olympiad",
        &["--command-timeout", "300ms"],
    );
    assert_eq!(row["ending"], "agreement", "{row}");
    assert_eq!(row["result"], "W+0.5");
    assert!(game_log(&out).contains("no reply to 'final_status_list dead'"));
}

/// KGS: after the first disagreement the engines capture what they think dead
/// (`kgs-genmove_cleanup` where listed, else `genmove`); the next two passes end the game
/// with every stone alive.
#[test]
fn kgs_cleans_up_and_the_next_passes_count_every_stone() {
    let (row, out) = settle(
        "kgs",
        &scripted(BLACK_MOVES, "--dead a3 --cleanup a2,a4,b3"),
        &scripted(WHITE_MOVES, "--dead ''"),
        "kgs",
        &[],
    );
    assert_eq!(row["ending"], "cleanup-passes", "{row}");
    assert_eq!(row["moves"], TURNS + 7);
    // a3 was captured in play; nothing removed; Black's area is whole.
    assert!(removed(&row).is_empty());
    assert_eq!(row["result"], "B+10.5");
    let log = game_log(&out);
    assert!(log.contains("kgs-genmove_cleanup b"), "{log}");
    assert!(log.contains("genmove w") && !log.contains("kgs-genmove_cleanup w"));

    // Agreement at the first stop needs no clean-up.
    let (row, _) = settle(
        "kgs-agree",
        &scripted(BLACK_MOVES, "--dead a3"),
        &scripted(WHITE_MOVES, "--dead a3"),
        "kgs",
        &[],
    );
    assert_eq!(row["ending"], "agreement");
    assert_eq!(row["result"], "B+10.5");
}

/// Japanese (reference 000): the dispute is played out on a copy; the status of each
/// disputed group there is applied to the original board, which keeps its position.
#[test]
fn japanese_plays_the_dispute_out_on_a_copy() {
    // Black captures a3 on the copy: it is dead on the original.
    let (row, out) = settle(
        "japanese-dead",
        &scripted(&format!("{BLACK_MOVES},a2,a4,b3"), "--dead a3"),
        &scripted(WHITE_MOVES, "--dead ''"),
        "japanese",
        &[],
    );
    assert_eq!(row["ending"], "played-out-on-copy", "{row}");
    assert_eq!(
        row["moves"], TURNS,
        "the copy's moves stay out of the record"
    );
    assert_eq!(removed(&row), ["A3"]);
    assert_eq!(row["result"], "B+10.5");
    assert!(game_log(&out).contains("played on the copy: B A2, W pass, B A4, W pass, B B3"));

    // White calls e3 dead but does not capture it on the copy: it lives.
    let (row, _) = settle(
        "japanese-alive",
        &scripted(BLACK_MOVES, "--dead ''"),
        &scripted(WHITE_MOVES, "--dead e3"),
        "japanese",
        &[],
    );
    assert_eq!(row["ending"], "played-out-on-copy", "{row}");
    assert!(removed(&row).is_empty());
    assert_eq!(row["result"], "W+0.5");
}

/// Reference 003: marks alternate from each engine's dead list; two dones remove the marked
/// stones; a dispute resumes play and two immediate passes score the board as it stands.
#[test]
fn tromp_marks_disputes_and_dones() {
    let (row, out) = settle(
        "tromp-done",
        &scripted(BLACK_MOVES, "--dead a3,e3"),
        &scripted(WHITE_MOVES, "--dead a3,e3"),
        "tromp",
        &[],
    );
    assert_eq!(row["ending"], "agreement", "{row}");
    assert_eq!(removed(&row), ["A3", "E3"]);
    assert_eq!(row["result"], "B+4.5");
    let log = game_log(&out);
    for step in [
        "Black marks A3 dead: A3",
        "White marks E3 dead: E3",
        "Black done",
        "White done",
    ] {
        assert!(log.contains(step), "{step}: {log}");
    }

    // Black calls its own e3 dead, White thinks it alive: White disputes, play resumes,
    // four passes.
    let (row, out) = settle(
        "tromp-dispute",
        &scripted(BLACK_MOVES, "--dead e3"),
        &scripted(WHITE_MOVES, "--dead ''"),
        "tromp",
        &[],
    );
    assert_eq!(row["ending"], "four-passes", "{row}");
    assert_eq!(row["result"], "W+0.5");
    assert_eq!(row["moves"], TURNS + 2);
    let log = game_log(&out);
    assert!(
        log.contains("Black marks E3 dead: E3") && log.contains("White disputes E3"),
        "{log}"
    );

    // After a dispute, play captures what one side thinks dead; then they agree.
    let (row, _) = settle(
        "tromp-play",
        &scripted(&format!("{BLACK_MOVES},a2,a4,b3,pass"), "--dead a3"),
        &scripted(WHITE_MOVES, "--dead ''"),
        "tromp",
        &[],
    );
    assert_eq!(row["ending"], "agreement", "{row}");
    assert_eq!(row["resumptions"], 1);
    assert_eq!(row["result"], "B+10.5");
}

/// Olympiad 3.7: on disagreement play resumes at most three times, the program that passed
/// last moving second; then the disputed blocks go to the default removal of 3.9 (builtin)
/// or a referee engine; agreed blocks are removed in any case.
#[test]
fn olympiad_resumes_three_times_then_the_referee_decides() {
    // On the position of the tests above both walls die if the other side moves alone, so
    // 3.9 keeps both invaders ("only the most obvious disputed blocks").
    let (row, out) = settle(
        "olympiad-builtin-keeps",
        &scripted(BLACK_MOVES, "--dead a3"),
        &scripted(WHITE_MOVES, "--dead e3"),
        "olympiad",
        &[],
    );
    assert_eq!(row["ending"], "referee", "{row}");
    assert_eq!(row["resumptions"], 3);
    assert_eq!(row["moves"], TURNS + 6);
    assert!(removed(&row).is_empty());
    assert_eq!(row["result"], "W+0.5");
    assert!(game_log(&out).contains("default removal (Olympiad 3.9.2): A3 alive, E3 alive"));

    // Black's columns a-c are pass-alive (eyes a1 and a3-a5) and White's a4 sits in a
    // three-point eye: at most one eye, locally capturable, so it goes. White passed first
    // and moves first on each resumption.
    //     5 . X X O .
    //     4 O X X O .
    //     3 . X X O .
    //     2 X X X O .
    //     1 . X X O .
    let (row, out) = settle(
        "olympiad-builtin",
        &scripted("c1,c2,c3,c4,c5,b1,b2,b3,b4,b5,a2", "--dead a4"),
        &scripted("d1,d2,d3,d4,d5,a4", "--dead ''"),
        "olympiad",
        &[],
    );
    assert_eq!(row["ending"], "referee", "{row}");
    assert_eq!(row["resumptions"], 3);
    assert_eq!(row["moves"], 23 + 6);
    assert_eq!(removed(&row), ["A4"]);
    assert_eq!(row["result"], "B+4.5", "B+0.5 with a4 on the board");
    let log = game_log(&out);
    assert!(
        log.contains("default removal (Olympiad 3.9.2): A4 dead"),
        "{log}"
    );
    assert!(log.contains("play resumes with White to move (resumption 3)"));

    // A referee engine: fed the game, asked final_status_list dead; it names a3 and Black's
    // c1 wall, which nobody disputes and which stays.
    let referee = engine("scripted --dead a3,c1");
    let (row, out) = settle(
        "olympiad-engine",
        &scripted(BLACK_MOVES, "--dead a3,e3"),
        &scripted(WHITE_MOVES, "--dead e3"),
        "olympiad",
        &["--referee", &referee],
    );
    assert_eq!(row["ending"], "referee", "{row}");
    assert_eq!(removed(&row), ["A3", "E3"]);
    assert_eq!(row["result"], "B+4.5");
    let log = game_log(&out);
    assert!(
        log.contains("[referee engine >]") && log.contains("play w A3"),
        "{log}"
    );

    // A program that refuses to resume is taken to pass (3.7.4), not penalised.
    let (row, out) = settle(
        "olympiad-refuses",
        &scripted(&format!("{BLACK_MOVES},refuse,refuse,refuse"), "--dead a3"),
        &scripted(WHITE_MOVES, "--dead ''"),
        "olympiad",
        &[],
    );
    assert_eq!(row["ending"], "referee", "{row}");
    assert_eq!(row["moves"], TURNS + 6);
    assert!(game_log(&out).contains("taken to pass (Olympiad 3.7.4)"));
}

/// Olympiad 3.10.3: the clocks stop during the agreement steps. Each dead list here takes
/// 400 ms, eight of them 3.2 s, against a one-second clock: nobody loses on time.
#[test]
fn clocks_stop_while_engines_settle_dead_stones() {
    let (row, _) = settle(
        "clock-stops",
        &scripted(BLACK_MOVES, "--dead a3 --status-delay 400ms"),
        &scripted(WHITE_MOVES, "--dead e3"),
        "olympiad",
        &["--time", "1s", "--lag", "0s", "--command-timeout", "5s"],
    );
    assert_eq!(row["end"], "two-passes", "{row}");
    assert_eq!(row["ending"], "referee");
}

/// Reference 000, third-party mediation: a referee engine settles the disagreement; one that
/// gives no answer removes no disputed stone.
#[test]
fn referee_engine_settles_disagreements() {
    let (row, _) = settle(
        "referee",
        &scripted(BLACK_MOVES, "--dead a3"),
        &scripted(WHITE_MOVES, "--dead e3"),
        "referee",
        &["--referee", &engine("scripted --dead e3")],
    );
    assert_eq!(row["ending"], "referee", "{row}");
    assert_eq!(row["resumptions"], 0);
    assert_eq!(removed(&row), ["E3"]);
    assert_eq!(row["result"], "W+6.5");

    let (row, out) = settle(
        "referee-fails",
        &scripted(BLACK_MOVES, "--dead a3"),
        &scripted(WHITE_MOVES, "--dead e3"),
        "referee",
        &["--referee", &engine("scripted --status-fails")],
    );
    assert!(removed(&row).is_empty(), "{row}");
    assert!(game_log(&out).contains("the referee engine gave no answer"));
}

/// No protocol loops forever. Engines that always disagree and always pass end, past the 14
/// turns to the first two passes, within: all-alive 0 more turns, chinese / kgs / tromp 2 (the
/// four passes), japanese 0 in the record (2 on the copy), olympiad 6 (three resumptions),
/// referee 0. Whatever the engines do, resumed play also stops at the move limit.
#[test]
fn every_protocol_ends_within_its_bound_when_engines_never_agree() {
    for (end, extra) in [
        ("all-alive", 0),
        ("chinese", 2),
        ("kgs", 2),
        ("japanese", 0),
        ("tromp", 2),
        ("olympiad", 6),
        ("referee", 0),
    ] {
        let (row, _) = settle(
            &format!("bound-{end}"),
            &scripted(BLACK_MOVES, "--dead a3"),
            &scripted(WHITE_MOVES, "--dead e3"),
            end,
            &[],
        );
        assert_eq!(row["moves"], TURNS + extra, "{end}: {row}");
        assert_eq!(row["end"], "two-passes");
    }
    // Resumed play is play: the move limit stops it, scored as it stands.
    let (row, _) = settle(
        "bound-limit",
        &scripted(&format!("{BLACK_MOVES},b1,b2,b4,b5"), "--dead a3"),
        &scripted(WHITE_MOVES, "--dead e3"),
        "chinese",
        &["--move-limit", "17"],
    );
    assert_eq!(row["moves"], 17, "{row}");
    assert_eq!(row["end"], "move-limit");
    assert_eq!(row["resumptions"], 1);
}

/// Two or three stones on the board, each side calling the other's dead: every protocol ends.
#[test]
fn a_board_of_unsettled_stones_ends_under_every_protocol() {
    for end in ["chinese", "kgs", "japanese", "tromp", "olympiad", "referee"] {
        let (row, _) = settle(
            &format!("tiny-{end}"),
            &scripted("c3,pass", "--dead d3"),
            &scripted("d3,b2,pass", "--dead c3"),
            end,
            &[],
        );
        assert_eq!(row["end"], "two-passes", "{end}: {row}");
        assert!(row["moves"].as_u64().unwrap() <= 12, "{end}: {row}");
    }
}

/// GNU Go (which lists dead stones and has kgs-genmove_cleanup) against itself on 9×9 under
/// every protocol: each game ends by passes with a settlement and a score that agrees with
/// the record and the stones removed.
#[test]
fn gnugo_settles_under_every_protocol() {
    if !have_gnugo() {
        return;
    }
    let threads: Vec<_> = [
        "all-alive",
        "chinese",
        "kgs",
        "japanese",
        "tromp",
        "olympiad",
        "referee",
    ]
    .into_iter()
    .map(|end| {
        std::thread::spawn(move || {
            let out = out_dir("test", &format!("gnugo-{end}"));
            let referee = format!("{GNUGO} --mode gtp --level 0");
            // Without --capture-all-dead GNU Go passes with dead stones on the board.
            let (code, stdout, stderr) = run_match(
                &format!("{GNUGO} --mode gtp --level 0 --seed {{game}}"),
                &format!("{GNUGO} --mode gtp --level 0 --seed 7{{game}}"),
                &out,
                &[
                    "--games",
                    "1",
                    "--time",
                    "none",
                    "--end",
                    end,
                    "--referee",
                    &referee,
                ],
            );
            assert_eq!(code, 0, "{end}: {stderr}");
            assert!(stdout.contains("game ends:"), "{stdout}");
            let row = results(&out)[0].clone();
            assert_eq!(row["end"], "two-passes", "{end}: {row}");
            let (_, game) = replay(&out, &row);
            let dead: goref_match::goref_referee::marking::Dead = removed(&row)
                .iter()
                .map(|n| game.geometry().parse_point(n).unwrap())
                .collect();
            let goref_rules::ByColor { black: b, white: w } =
                goref_match::goref_referee::marking::area_without(game.board(), &dead);
            let score = goref_rules::Score {
                black: b,
                white: w,
                komi: game.rules().komi,
            };
            assert_eq!(
                score.outcome().to_sgf(),
                row["result"].as_str().unwrap(),
                "{end}"
            );
            (end, row)
        })
    })
    .collect();
    for t in threads {
        let (end, row) = t.join().unwrap();
        eprintln!(
            "{end}: {} {} moves {}",
            row["ending"], row["result"], row["moves"]
        );
    }
}

/// `--referee perfect` (001 §3.9: "the tournament director may decide the outcome of the game
/// based on perfect hypothetical play-out"): on 3×3, a game sent to the director by 001 §1's
/// minimum-moves rule is decided by perfect play from the position, played out on the board:
/// the result's detail says so, and the record (the play-out after the players' moves)
/// replays to its RE (`results` checks `goref score` of every record). With a budget of one
/// node nothing is proved: the default removal decides, and the detail says why.
#[test]
fn the_perfect_referee_plays_out_a_timing_adjudication() {
    for (referee, perfect) in [("perfect", true), ("perfect:1", false)] {
        let out = out_dir("test", &format!("perfect-timing-{perfect}"));
        let (code, _, stderr) = run_match(
            &engine("faulty --slow 150ms --seed 5"),
            &engine("random --seed 7"),
            &out,
            &[
                "--games",
                "1",
                "--size",
                "3",
                "--time",
                "500ms",
                "--lag",
                "0s",
                "--min-moves",
                "2",
                "--referee",
                referee,
            ],
        );
        assert_eq!(code, 0, "{stderr}");
        let row = &results(&out)[0];
        assert_eq!(row["end"], "adjudicated", "{row}");
        let detail = row["detail"].as_str().unwrap();
        assert!(detail.contains("Black ran out of time"), "{row}");
        let sgf = std::fs::read_to_string(out.join("game-0001.sgf")).unwrap();
        if perfect {
            assert!(detail.contains("perfect play-out (001 §3.9)"), "{row}");
            assert!(
                sgf.contains("perfect play (001 §3.9, goref solve)"),
                "{sgf}"
            );
            // The play-out ends the game by two passes: the record ends with two passes.
            let (_, game) = replay(&out, row);
            assert_eq!(game.end(), Some(goref_rules::End::TwoPasses), "{sgf}");
        } else {
            assert!(
                detail.contains("perfect play not proved within 1 nodes"),
                "{row}"
            );
            assert!(detail.contains("default removal"), "{row}");
        }
    }
}

/// `--referee perfect` settles a dispute over dead stones (`--end referee`): GNU Go as Black
/// against a scripted White that passes and calls Black's stones dead. Perfect play from the
/// position, play resumed, decides: Black keeps the board.
#[test]
fn the_perfect_referee_settles_a_dispute_against_gnugo() {
    if !have_gnugo() {
        return;
    }
    let out = out_dir("test", "perfect-dispute");
    let (code, _, stderr) = run_match(
        &gnugo("1"),
        &engine("scripted --moves pass --dead b2"),
        &out,
        &[
            "--games",
            "1",
            "--size",
            "3",
            "--end",
            "referee",
            "--referee",
            "perfect",
            "--komi",
            "0.5",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let row = &results(&out)[0];
    assert_eq!(row["end"], "adjudicated", "{row}");
    assert_eq!(row["result"], "B+8.5", "{row}");
    assert!(row["detail"]
        .as_str()
        .unwrap()
        .contains("disputed stones: adjudicated by the tournament director's perfect play-out"));
}
