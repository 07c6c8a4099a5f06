//! The command line's output contract, checked on the real binary.

use assert_cmd::Command;

fn goref() -> Command {
    Command::cargo_bin("goref").unwrap()
}

fn stdout_of(args: &[&str], stdin: &str) -> (i32, String, String) {
    let out = goref().args(args).write_stdin(stdin).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Reference 004, rule 10: the bundled 2×2 game, White wins by 4 (first stdout line).
#[test]
fn score_without_a_file_scores_the_bundled_example() {
    let (code, out, _) = stdout_of(&["score"], "");
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("W+4"));
}

/// Reference 004, rule 9: after 1.B[b1] 2.W[a2] 3.B[b2] and two passes on 3×2, Black wins by 3;
/// the file's KM is used unless `--komi` overrides it.
#[test]
fn score_reads_rectangular_size_and_komi() {
    let sgf = "(;GM[1]FF[4]SZ[3:2]KM[0.5];B[bb];W[aa];B[ba];W[];B[])";
    let (code, out, err) = stdout_of(&["score", "-"], sgf);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().next(), Some("B+2.5"));
    let (_, out, _) = stdout_of(&["score", "-", "--komi", "-0.5"], sgf);
    assert_eq!(out.lines().next(), Some("B+3.5"));
}

#[test]
fn score_json_has_the_promised_fields() {
    let sgf = "(;SZ[3:2];B[bb];W[aa];B[ba])";
    let (code, out, _) = stdout_of(&["score", "-", "--json", "--rules", "nstt"], sgf);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "B+3");
    assert_eq!(v["black"], 4);
    assert_eq!(v["white"], 1);
    assert_eq!(v["komi"], 0.0);
    assert_eq!(v["moves"], 3);
    assert_eq!(v["end"], "record-ended");
    assert_eq!(v["rules"], "nstt");
}

/// Reference 004, rule 7 example: 4.W[a1] is suicide, illegal under NSTT: exit status 1 and one
/// stderr line naming the move number, colour, point and reason. Legal under Tromp-Taylor.
#[test]
fn an_illegal_move_is_reported_on_one_line_with_status_1() {
    let sgf = "(;SZ[3:2];B[bb];W[aa];B[ba];W[ab])";
    let (code, out, err) = stdout_of(&["score", "-", "--rules", "nstt"], sgf);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    for part in ["move 4", "White", "A1", "suicide"] {
        assert!(err.contains(part), "{part} missing from {err}");
    }
    let (code, _, _) = stdout_of(&["score", "-", "--rules", "tromp-taylor"], sgf);
    assert_eq!(code, 0);
}

/// Olympiad 3.6: a long cycle ends the game; the result is `B+` (no margin) or `0`.
#[test]
fn long_cycle_results_print_without_a_margin() {
    // 3×2: a2 b2 a1 c2 b1 c1 a2 b1 a1 b2 (see the rules crate's reference tests).
    let sgf = "(;SZ[3:2]RU[olympiad];B[aa];W[ba];B[ab];W[ca];B[bb];W[cb];B[aa];W[bb];B[ab];W[ba])";
    let (code, out, err) = stdout_of(&["score", "-", "--json"], sgf);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "B+");
    assert_eq!(v["end"], "long-cycle");
    assert_eq!(v["rules"], "olympiad");
    assert_eq!(v["komi"], 0.0, "KM absent: komi 0, not the preset's 7.5");
}

#[test]
fn a_malformed_file_gets_an_error_that_says_where() {
    let (code, out, err) = stdout_of(&["score", "-"], "(;SZ[9]\n;B[ee]\n;W[zz])");
    assert_ne!(code, 0);
    assert!(out.is_empty());
    assert!(err.contains("line 3"), "{err}");
}

/// Perft: on 1×1 the only Tromp-Taylor game is two passes; on 2×2 the first turn has 5 options.
#[test]
fn perft_prints_one_number() {
    let (code, out, _) = stdout_of(&["perft", "--size", "1x1", "--games"], "");
    assert_eq!((code, out.trim()), (0, "1"));
    let (_, out, _) = stdout_of(&["perft", "--size", "2x2", "--depth", "1"], "");
    assert_eq!(out.trim(), "5");
    let (code, _, err) = stdout_of(&["perft", "--size", "9x9", "--games"], "");
    assert_ne!(code, 0);
    assert!(err.contains("depth"), "{err}");
}

/// With no engine named, `goref match` plays the built-in demo (GNU Go when installed against
/// the random engine) and writes one SGF a game and the results file.
#[test]
fn match_without_engines_plays_the_demo() {
    let dir = std::env::temp_dir().join(format!("goref-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = goref()
        .args(["match", "--games", "2", "--quiet", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sgfs = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "sgf")
        })
        .count();
    assert_eq!(sgfs, 2);
    let results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A record where play resumed after two passes (a dead-stone protocol's play-on, reference
/// 000 "Chinese rules") replays: Black passed first, so Black moves first again.
#[test]
fn play_resumed_after_two_passes_replays() {
    let sgf = "(;SZ[3:2]KM[0];B[bb];W[aa];B[];W[];B[ba];W[];B[])";
    let (code, out, err) = stdout_of(&["score", "-", "--rules", "nstt", "--json"], sgf);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["end"], "two-passes");
    assert_eq!(v["moves"], 7);
    // Reference 004, rule 9: B 2 stones + 2 territory, W 1 stone.
    assert_eq!(
        (v["black"].as_u64(), v["white"].as_u64()),
        (Some(4), Some(1))
    );
    assert_eq!(v["result"], "B+3");
}

/// A 5×5 game as goref writes it: komi 0.5, Black's wall on column c, White's on d, a white
/// stone at a2 inside Black's side and a black stone at e2 inside White's, two passes; both
/// stones removed as dead, so TB is columns a and b, TW column e, and RE the score of the
/// cleared board (TT rule 9: 15 against 10 + 0.5).
fn written_with_territory(result: Option<&str>, passes: bool) -> String {
    use goref_rules::{Game, Komi, Move, Ruleset};
    use goref_sgf::{GameRecord, RecordedMove, Territory};
    let komi = Komi::from_half_points(1);
    let mut game = Game::rect(5, 5, Ruleset::TROMP_TAYLOR.with_komi(komi)).unwrap();
    let g = game.geometry().clone();
    let mut names = vec![
        "c1", "d1", "c2", "d2", "c3", "d3", "c4", "d4", "c5", "d5", "e2", "a2",
    ];
    if passes {
        names.extend(["pass", "pass"]);
    }
    for name in names {
        let mv = match g.parse_point(name) {
            Some(p) => Move::Play(p),
            None => Move::Pass,
        };
        game.play(mv).unwrap();
    }
    let dead = [g.parse_point("a2").unwrap(), g.parse_point("e2").unwrap()];
    let mut record = GameRecord::new(5, 5);
    record.komi = Some(komi);
    record.rules = Some("tromp-taylor".into());
    record.application = Some("goref:test".into());
    record.result = Some(result.map_or_else(
        || {
            let goref_rules::ByColor { black, white } = game.board().without(&dead).area();
            goref_rules::Score { black, white, komi }.outcome().to_sgf()
        },
        str::to_string,
    ));
    record.moves = game
        .moves()
        .iter()
        .map(|&(c, mv)| RecordedMove::new(c, mv))
        .collect();
    record.territory = Some(Territory::of(game.board(), &dead));
    goref_sgf::write(&record)
}

/// TT rule 9 after removal (001 §3.7.2, §3.8): `goref score` of a record goref wrote, with its
/// dead stones in TB/TW, gives exactly its RE; `--dead none` counts every stone.
#[test]
fn score_of_a_written_record_gives_its_result() {
    let sgf = written_with_territory(None, true);
    let re = goref_sgf::parse(&sgf).unwrap().result.unwrap();
    assert_eq!(re, "B+4.5");
    let (code, out, err) = stdout_of(&["score", "-"], &sgf);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().next(), Some(re.as_str()));
    let (_, out, _) = stdout_of(&["score", "-", "--json"], &sgf);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "B+4.5");
    assert_eq!(
        (v["black"].as_u64(), v["white"].as_u64()),
        (Some(15), Some(10))
    );
    assert_eq!(v["margin"], 4.5);
    assert_eq!(v["removed"], 2);
    // Every stone alive: both sides' areas are neutral, 6 stones each.
    let (_, out, _) = stdout_of(&["score", "-", "--json", "--dead", "none"], &sgf);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "W+0.5");
    assert!(v.get("removed").is_none(), "{v}");
}

/// A game that did not end by two passes (here a resignation) gives its own RE; TB/TW do not
/// apply, and the counts are the board's as it stands.
#[test]
fn score_of_a_resigned_game_ignores_the_territory() {
    let sgf = written_with_territory(Some("W+R"), false);
    let (code, out, err) = stdout_of(&["score", "-", "--json"], &sgf);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["end"], "resignation");
    assert_eq!(v["result"], "W+R");
    assert_eq!(
        (v["black"].as_u64(), v["white"].as_u64()),
        (Some(6), Some(6)),
        "{v}"
    );
    assert!(v.get("removed").is_none(), "{v}");
}

/// A record closed without a result (`RE[Void]`: the server's games never begun or
/// abandoned, or aborted by the TD) replays and gives `Void`, whatever its board (here two
/// passes, which alone would score it).
#[test]
fn score_of_a_void_record_is_void() {
    let sgf = "(;GM[1]FF[4]SZ[5]KM[0.5]RE[Void]C[Void (aborted)];B[cc];W[dd];B[];W[]\
               C[aborted by the TD (td) without a result: the network broke])";
    let (code, out, err) = stdout_of(&["score", "-"], sgf);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().next(), Some("Void"), "{out}");
    let (_, out, _) = stdout_of(&["score", "-", "--json"], sgf);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (&v["result"], &v["winner"], &v["end"], &v["moves"]),
        (
            &serde_json::json!("Void"),
            &serde_json::Value::Null,
            &serde_json::json!("void"),
            &serde_json::json!(4)
        ),
        "{v}"
    );
}

/// Olympiad 3.6.2: a long cycle with equal captures is a draw, `0`, with margin 0 like a
/// long-cycle win (not the margin of the board's points).
#[test]
fn a_long_cycle_draw_has_margin_0() {
    let sgf = "(;SZ[3:2]RU[olympiad];B[cb];W[];B[ba];W[ab];B[aa];W[];B[ca];W[bb];B[cb];W[ba];\
               B[];W[aa];B[ca];W[];B[ba];W[ab];B[aa])";
    let (code, out, err) = stdout_of(&["score", "-", "--json"], sgf);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["end"], "long-cycle");
    assert_eq!(v["result"], "0");
    assert_eq!(v["winner"], serde_json::Value::Null);
    assert_eq!(v["margin"], 0.0);
    assert_ne!(
        v["black"], v["white"],
        "the board alone would not be a draw"
    );
}

/// TT rule 5, 001 §3.2: Black starts. A record whose first move is White's on an empty board,
/// without PL, is refused with status 1 and one line that says why, under every preset.
#[test]
fn white_first_on_an_empty_board_is_refused() {
    for rules in ["tromp-taylor", "nstt", "olympiad"] {
        let (code, out, err) = stdout_of(&["score", "-", "--rules", rules], "(;SZ[9]\n;W[ee])");
        assert_eq!(code, 1, "{rules}");
        assert!(out.is_empty());
        assert_eq!(
            err.trim(),
            "goref: <stdin>: line 2: move 1 (White E5): White may not move first on an empty \
             board (TT rule 5, 001 §3.2) without PL or setup stones"
        );
    }
    let (code, _, err) = stdout_of(&["score", "-"], "(;SZ[9]AB[cc][gg]\n;W[ee])");
    assert_eq!(code, 0, "handicap stones: White moves first. {err}");
}

/// `score` and `judge` choose the same rules: the file's RU when it names a preset, else
/// Tromp-Taylor.
#[test]
fn score_and_judge_default_to_the_same_rules() {
    let sgf = "(;SZ[3:2];B[bb];W[aa];B[ba];W[];B[])";
    for command in ["score", "judge"] {
        let (code, out, err) = stdout_of(&[command, "-", "--json"], sgf);
        assert_eq!(code, 0, "{command}: {err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["rules"], "tromp-taylor", "{command}");
        let with_ru = sgf.replace("SZ[3:2]", "SZ[3:2]RU[Chinese]");
        let (_, out, _) = stdout_of(&[command, "-", "--json"], &with_ru);
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["rules"], "olympiad", "{command}");
    }
}

/// `check-engine` tells how the engine stopped in words, not as Rust debug text; log lines on
/// a stderr that is not a terminal carry no colour codes.
#[test]
fn check_engine_says_how_the_engine_stopped_in_plain_words() {
    let engine = format!("{} engine random", env!("CARGO_BIN_EXE_goref"));
    let out = goref()
        .args(["check-engine", &engine])
        .env("GOREF_LOG", "debug")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let shutdown = stdout
        .lines()
        .find(|l| l.starts_with("shutdown"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        shutdown.contains("quit cleanly (exit status: 0)"),
        "{shutdown}"
    );
    assert!(
        !stdout.contains("Quit(") && !stdout.contains("Some("),
        "{stdout}"
    );
    assert!(!stderr.is_empty(), "debug logging wrote nothing to check");
    assert!(!stderr.contains('\u{1b}'), "colour codes in {stderr:?}");
}

/// Reference 004 holds on any graph: the path of three points is the 1×3 board, so it has the
/// same 907 complete games; a graph file gives the same count as the named shape.
#[test]
fn perft_and_bench_take_board_graphs() {
    let (code, out, err) = stdout_of(&["perft", "--graph", "path:3", "--games"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "907");
    let (_, rect, _) = stdout_of(&["perft", "--size", "1x3", "--games"], "");
    assert_eq!(rect.trim(), "907");
    let file = std::env::temp_dir().join(format!("goref-graph-{}.txt", std::process::id()));
    std::fs::write(&file, "# the path a - b - c\npoints 3\n0 1\n1 2\n").unwrap();
    let (code, out, err) = stdout_of(&["perft", "--graph", file.to_str().unwrap(), "--games"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "907");
    // A ring of 5: every point has two neighbours; counted to a depth.
    let (code, out, _) = stdout_of(&["perft", "--graph", "cycle:5", "--depth", "2"], "");
    assert_eq!(code, 0);
    // Black's 5 plays leave White 4 plays and a pass each (25); after Black's pass, White has
    // 5 plays and a pass (6): 31.
    assert_eq!(out.trim(), "31");
    std::fs::write(&file, "points 3\n0 9\n").unwrap();
    let (code, _, err) = stdout_of(&["perft", "--graph", file.to_str().unwrap(), "--games"], "");
    assert_ne!(code, 0);
    assert!(
        err.contains("line 2") && err.contains("beyond the 3 points"),
        "{err}"
    );
    let (code, out, err) = stdout_of(
        &[
            "bench",
            "--seconds",
            "0.05",
            "--sizes",
            "5",
            "--graph",
            "torus:4x4",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("torus:4x4  tromp-taylor"), "{out}");
}

/// A game on a board graph, which SGF cannot carry, scores from its JSON record (TT rules 8-9
/// on the graph); an illegal move is named with its number and reason.
#[test]
fn score_reads_a_graph_record() {
    let record = r#"{"graph": "path:3", "rules": "tromp-taylor", "komi": 0.5,
                     "moves": [0, "pass", 2, "pass", "pass"]}"#;
    let (code, out, err) = stdout_of(&["score", "-"], record);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().next(), Some("B+2.5"));
    // The same board as a text graph, and a suicide that recreates a position (TT rule 6).
    let record = r#"{"graph": "points 3\n0 1\n1 2\n", "moves": [1, 0]}"#;
    let (code, _, err) = stdout_of(&["score", "-"], record);
    assert_eq!(code, 1);
    assert!(
        err.contains("move 2 (White point 0) is illegal: superko"),
        "{err}"
    );
    let (code, _, err) = stdout_of(&["score", "-"], r#"{"graph": "path:3", "moves": [7]}"#);
    assert_eq!(code, 1);
    assert!(err.contains("point 7 is not on the 3-point graph"), "{err}");
}

/// A record that ends off the board (resignation, time, forfeit, a TD's decision) scores to
/// its own RE; one that reaches two passes is scored on the board whatever its RE says.
#[test]
fn score_gives_the_re_of_a_game_that_ended_off_the_board() {
    for (re, end) in [("W+R", "resignation"), ("B+T", "time"), ("W+F", "forfeit")] {
        let sgf = format!("(;FF[4]SZ[5]KM[0.5]RE[{re}];B[cc];W[dd])");
        let (code, out, _) = stdout_of(&["score", "-"], &sgf);
        assert_eq!(code, 0);
        assert_eq!(out.lines().next(), Some(re));
        assert!(out.contains(end), "{out}");
    }
    let sgf = "(;FF[4]SZ[5]KM[0.5]RE[W+R];B[cc];W[dd];B[];W[])";
    let (_, out, _) = stdout_of(&["score", "-"], sgf);
    assert_eq!(
        out.lines().next(),
        Some("W+0.5"),
        "two passes: the board decides"
    );
}

/// `--part K/N` prints part records whose `--sum` is the whole count; `--sum` refuses parts of
/// another board, a part twice and a missing part.
#[test]
fn perft_parts_sum_to_the_whole_count() {
    let dir = std::env::temp_dir().join(format!("goref-parts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let star = dir.join("star.txt");
    std::fs::write(&star, "points 4\n0 1\n0 2\n0 3\n").unwrap();
    let (code, whole, err) =
        stdout_of(&["perft", "--graph", star.to_str().unwrap(), "--games"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(whole.trim(), "133640193");
    let mut files = Vec::new();
    for k in 1..=3 {
        let part = format!("{k}/3");
        let args = [
            "perft",
            "--graph",
            star.to_str().unwrap(),
            "--games",
            "--part",
            &part,
        ];
        let (code, out, err) = stdout_of(&args, "");
        assert_eq!(code, 0, "{err}");
        assert!(out.starts_with("goref-perft-part 1\n"), "{out}");
        assert!(out.contains(&format!("\npart {k}/3\n")), "{out}");
        assert!(
            out.contains("\nrules tromp-taylor\n") && out.contains("\nmode games\n"),
            "{out}"
        );
        let file = dir.join(format!("part{k}"));
        std::fs::write(&file, out).unwrap();
        files.push(file.to_str().unwrap().to_string());
    }
    let sum = |files: &[&str]| {
        let mut args = vec!["perft", "--sum"];
        args.extend(files);
        stdout_of(&args, "")
    };
    let names: Vec<&str> = files.iter().map(String::as_str).collect();
    let (code, out, err) = sum(&names);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), whole.trim());
    let (code, _, err) = sum(&names[..2]);
    assert_ne!(code, 0);
    assert!(err.contains("missing") && err.contains('3'), "{err}");
    let (code, _, err) = sum(&[names[0], names[1], names[1]]);
    assert_ne!(code, 0);
    assert!(err.contains("twice"), "{err}");
    let (_, other, _) = stdout_of(&["perft", "--size", "1x3", "--games", "--part", "3/3"], "");
    let other_file = dir.join("other");
    std::fs::write(&other_file, other).unwrap();
    let (code, _, err) = sum(&[names[0], names[1], other_file.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("board"), "{err}");
    let (code, _, err) = stdout_of(
        &[
            "perft", "--size", "1x3", "--games", "--rules", "olympiad", "--part", "1/2",
        ],
        "",
    );
    assert_ne!(code, 0);
    assert!(err.contains("parts"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--estimate` prints an estimate with its interval; on 1×3 the start reaches fewer positions
/// than the exact threshold, so the estimate is the exact count.
#[test]
fn perft_estimates_with_an_interval() {
    let (code, out, err) = stdout_of(&["perft", "--size", "1x3", "--games", "--estimate"], "");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("9.070000e2 games, 95% confidence interval [9.070000e2, 9.070000e2]"),
        "{out}"
    );
    let args = [
        "perft",
        "--size",
        "2x2",
        "--games",
        "--estimate",
        "--samples",
        "100",
        "--exact-below",
        "20",
    ];
    let (code, out, err) = stdout_of(&args, "");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("95% confidence interval") && out.contains("100 samples"),
        "{out}"
    );
    assert!(err.contains("effective sample size"), "{err}");
    let (code, _, err) = stdout_of(
        &[
            "perft",
            "--size",
            "1x3",
            "--games",
            "--estimate",
            "--rules",
            "olympiad",
        ],
        "",
    );
    assert_ne!(code, 0);
    assert!(err.contains("estimated"), "{err}");
}
