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
