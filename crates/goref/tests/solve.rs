//! `goref solve` on the real binary: reference 004's 3×2 example, empty boards, budgets.

use assert_cmd::Command;

fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let out = Command::cargo_bin("goref")
        .unwrap()
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Reference 004, after rule 9: after 1.B[b1] 2.W[a2] 3.B[b2] on 3×2, "Black can kill all
/// White chains: the game will end Black +6"; "B+3" if both pass now.
#[test]
fn solve_gives_reference_004s_perfect_play_result() {
    let sgf = "(;GM[1]FF[4]SZ[3:2]RU[Tromp-Taylor];B[bb];W[aa];B[ba])";
    let (code, out, err) = run(&["solve", "-"], sgf);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "B+6");
    assert!(lines[1].starts_with("pv: W "), "{out}");
    assert!(lines[1].ends_with("pass"), "{out}");
    let ended = "(;GM[1]FF[4]SZ[3:2]RU[Tromp-Taylor];B[bb];W[aa];B[ba];W[];B[])";
    let (code, out, _) = run(&["solve", "-"], ended);
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("B+3"));
}

#[test]
fn solve_json_gives_the_value_and_a_principal_variation() {
    let (code, out, err) = run(&["solve", "--size", "2x2", "--rules", "nstt", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "B+1");
    assert_eq!(v["margin"], 1.0);
    assert_eq!(v["ko"], "positional");
    let pv = v["pv"].as_array().unwrap();
    // Black opens on a point (the four are one under the board's symmetry), and the line
    // ends with Black's pass, the second in a row.
    let first = pv.first().unwrap().as_str().unwrap();
    assert!(["B A1", "B A2", "B B1", "B B2"].contains(&first), "{first}");
    assert_eq!(pv.last().unwrap(), "B pass");
    assert!(v["nodes"].as_u64().unwrap() > 0);
}

#[test]
fn solve_takes_komi_other_ko_rules_and_graphs() {
    let (code, out, _) = run(&["solve", "--size", "1x3", "--komi", "0.5"], "");
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("B+2.5"));
    let (code, out, _) = run(
        &[
            "solve",
            "--size",
            "1x4",
            "--rules",
            "nstt",
            "--ko",
            "situational",
        ],
        "",
    );
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("B+4"));
    let (code, out, _) = run(&["solve", "--graph", "path:3", "--rules", "olympiad"], "");
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("B+3"));
}

#[test]
fn solve_with_a_small_budget_says_undecided() {
    let (code, out, _) = run(&["solve", "--size", "2x2", "--budget", "30"], "");
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("undecided"));
    let (code, out, _) = run(&["solve", "--size", "2x2", "--budget", "30", "--json"], "");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "undecided");
    assert!(v["pv"].as_array().unwrap().is_empty());
}

#[test]
fn solve_refuses_boards_too_large_and_bad_records() {
    let (code, _, err) = run(&["solve", "--size", "7x7"], "");
    assert_eq!(code, 2);
    assert!(err.contains("at most 32"), "{err}");
    let (code, _, err) = run(&["solve", "-"], "(;SZ[3];B[aa];W[aa])");
    assert_eq!(code, 1);
    assert!(err.contains("illegal"), "{err}");
}

/// `--progress` reports the bounds proved on standard error; the last report's bounds meet
/// at the value printed.
#[test]
fn solve_progress_reports_the_bounds_as_they_are_proved() {
    let (code, out, err) = run(
        &["solve", "--size", "3x3", "--rules", "nstt", "--progress"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().next(), Some("B+9"));
    let last = err
        .lines()
        .rev()
        .find(|l| l.starts_with("proved: "))
        .unwrap_or_default();
    assert!(
        last.starts_with("proved: at least B+9, at most B+9 ("),
        "{err}"
    );
}

/// `--threads N`: the threads share the table and the value is the one thread's (the
/// principal variation may differ: it still replays to the value, checked in the crate's
/// tests). `--threads 0` is refused.
#[test]
fn solve_with_threads_gives_the_same_value() {
    for (size, rules) in [
        ("2x3", "nstt"),
        ("3x3", "olympiad"),
        ("1x5", "tromp-taylor"),
    ] {
        let first = |threads: &str| {
            let (code, out, err) = run(
                &[
                    "solve",
                    "--size",
                    size,
                    "--rules",
                    rules,
                    "--threads",
                    threads,
                ],
                "",
            );
            assert_eq!(code, 0, "{err}");
            out.lines().next().unwrap().to_string()
        };
        assert_eq!(first("1"), first("3"), "{size} {rules}");
    }
    let (code, _, err) = run(&["solve", "--size", "2x2", "--threads", "0"], "");
    assert_ne!(code, 0);
    assert!(err.contains("--threads"), "{err}");
}

/// `--certificate FILE` writes reference 004's example with its value and both strategies;
/// `--check FILE` verifies it (exit 0), refuses a corrupted one with the line that fails
/// (exit 1), and says what and where of a file that is not a certificate (exit 2).
#[test]
fn solve_writes_a_certificate_that_check_verifies_and_refuses_corrupted() {
    let dir = std::env::temp_dir().join(format!("goref-cert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cert = dir.join("004.jsonl");
    let path = cert.to_str().unwrap();
    let sgf = "(;GM[1]FF[4]SZ[3:2]RU[Tromp-Taylor];B[bb];W[aa];B[ba])";
    let (code, out, err) = run(&["solve", "-", "--certificate", path], sgf);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().next(), Some("B+6"));
    assert!(
        out.contains(&format!("certificate: {path} (Black's strategy ")),
        "{out}"
    );
    let text = std::fs::read_to_string(&cert).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        r#"{"board":"3x2","rules":"tromp-taylor","komi":0,"moves":["B1","A2","B2"],"value":6}"#
    );
    assert!(lines[1..]
        .iter()
        .any(|l| l.starts_with(r#"{"proves":"black","#)));
    assert!(lines[1..]
        .iter()
        .any(|l| l.starts_with(r#"{"proves":"white","#)));

    let (code, out, err) = run(&["solve", "--check", path], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("verified: B+6 (Black's strategy "), "{out}");
    // From standard input, as JSON.
    let (code, out, _) = run(&["solve", "--check", "-", "--json"], &text);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["verdict"], "verified");
    assert_eq!(v["value"], "B+6");

    // A false value: "value":7 is refused by Black's strategy, at a line of Black's.
    let (code, out, _) = run(
        &["solve", "--check", "-"],
        &text.replacen("\"value\":6", "\"value\":7", 1),
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("refused: <stdin> line "), "{out}");
    assert!(out.contains("a false value: Black's strategy"), "{out}");
    // A missing reply: the last line taken out.
    let cut = lines[..lines.len() - 1].join("\n");
    let (code, out, _) = run(&["solve", "--check", "-"], &cut);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("a reply is missing"), "{out}");
    // A wrong move: the first strategy line's play on a stone (B2 holds Black's stone).
    let first = lines[1];
    let play_at = first.find("\"play\":").unwrap();
    let wrong = format!("{}\"play\":\"B2\"}}", &first[..play_at]);
    let (code, out, _) = run(&["solve", "--check", "-"], &text.replacen(first, &wrong, 1));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("refused: <stdin> line 2: "), "{out}");
    assert!(
        out.contains("is illegal there: the point holds a stone"),
        "{out}"
    );
    // Not a certificate.
    let (code, _, err) = run(&["solve", "--check", "-"], &text.replacen("3x2", "3by2", 1));
    assert_eq!(code, 2);
    assert!(err.contains("line 1: board \"3by2\""), "{err}");
    let (code, _, err) = run(&["solve", "--check", "-"], "");
    assert_eq!(code, 2);
    assert!(err.contains("line 1: no header"), "{err}");
    // A graph has no certificate in this form.
    let (code, _, err) = run(&["solve", "--graph", "cycle:4", "--certificate", path], "");
    assert_eq!(code, 2, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
