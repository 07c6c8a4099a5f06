//! `goref judge` and `goref score --dead judge` (reference 001 §3.9), on the real binary.

use assert_cmd::Command;

/// A large black group with one two-point eye inside White's pass-alive wall (7×7), after
/// two passes: dead by 3.9, so White owns the board after removal.
const DEAD_GROUP: &str = "(;GM[1]FF[4]SZ[7]KM[0]RU[Chinese]\
AB[aa][ba][ca][da][ea][ab][db][eb][ac][bc][cc][dc][ec][ad][bd][cd][dd][ed]\
AW[fa][fb][gb][fc][fd][gd][ae][be][ce][de][ee][fe][bf][df][ff][gf][ag][bg][cg][dg][eg][fg]\
;B[];W[])";

fn run(args: &[&str], stdin: &str) -> (i32, String) {
    let out = Command::cargo_bin("goref")
        .unwrap()
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn judge_prints_the_result_board_and_verdicts() {
    let (code, out) = run(&["judge", "-"], DEAD_GROUP);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "W+49");
    assert!(lines[1].contains("18 stones removed"), "{out}");
    assert!(out.contains("  7 b b b b b O ."), "{out}");
    assert!(out.contains("B A7 +17: dead"), "{out}");
}

#[test]
fn judge_json_lists_every_block_with_its_verdict() {
    let (code, out) = run(&["judge", "-", "--json"], DEAD_GROUP);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "W+49");
    assert_eq!(v["removed"].as_array().unwrap().len(), 18);
    let verdicts: Vec<&str> = v["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, vec!["dead", "pass-alive"]);
    assert_eq!(v["blocks"][0]["line"][0], "B:pass");
}

#[test]
fn score_dead_judge_removes_what_judge_removes() {
    let (_, plain) = run(&["score", "-"], DEAD_GROUP);
    assert_eq!(plain.lines().next(), Some("W+9"));
    let (code, judged) = run(&["score", "-", "--dead", "judge", "--json"], DEAD_GROUP);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(judged.trim()).unwrap();
    assert_eq!(v["result"], "W+49");
    assert_eq!(v["removed"], 18);
    let (code, _) = run(&["score", "-", "--dead", "everything"], DEAD_GROUP);
    assert_ne!(code, 0);
}

/// 3.9.2 with the programs' dead lists: a block both list is agreed and removed without
/// judgement; a block one lists is disputed and judged; what neither lists stays.
#[test]
fn judge_with_dead_lists_reports_disputed_agreed_and_removed_blocks() {
    // White lists the black group (dead by 3.9) and its own wall; Black lists nothing.
    let (code, out) = run(
        &[
            "judge",
            "-",
            "--dead-black-list",
            "",
            "--dead-white-list",
            "A7,F7",
        ],
        DEAD_GROUP,
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.lines().next(), Some("W+49"));
    assert!(out.contains("2 disputed, 0 agreed"), "{out}");
    assert!(out.contains("B A7 +17: disputed, dead"), "{out}");
    assert!(out.contains("W F7 +21: disputed, pass-alive"), "{out}");
    // Both list the black group: agreed, removed, nothing judged.
    let (code, out) = run(
        &[
            "judge",
            "-",
            "--dead-black-list",
            "B7",
            "--dead-white-list",
            "E4",
            "--json",
        ],
        DEAD_GROUP,
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["disputes"], "lists");
    assert_eq!(v["blocks"].as_array().unwrap().len(), 0);
    assert_eq!(v["agreed"][0].as_array().unwrap().len(), 18);
    assert_eq!(v["agreed"][0][0], "A7");
    assert_eq!(v["result"], "W+49");
    // Only Black lists White's pass-alive wall: disputed, kept; the black group stays (no
    // one disputes it), so the score is the board as it stands.
    let (code, out) = run(
        &["judge", "-", "--dead-black-list", "F7", "--json"],
        DEAD_GROUP,
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["removed"].as_array().unwrap().len(), 0);
    assert_eq!(v["blocks"][0]["verdict"], "pass-alive");
    assert_eq!(v["result"], "W+9");
}

#[test]
fn judge_reads_dead_lists_from_a_json_file_and_rejects_bad_points() {
    let dir = std::env::temp_dir().join(format!("goref-judge-lists-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("lists.json");
    std::fs::write(&good, r#"{"black": [], "white": ["D6"]}"#).unwrap();
    let (code, out) = run(
        &[
            "judge",
            "-",
            "--dead-lists",
            good.to_str().unwrap(),
            "--json",
        ],
        DEAD_GROUP,
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["blocks"][0]["verdict"], "dead");
    assert_eq!(v["removed"].as_array().unwrap().len(), 18);
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"black": ["Z9"]}"#).unwrap();
    let (code, out) = run(
        &["judge", "-", "--dead-lists", bad.to_str().unwrap()],
        DEAD_GROUP,
    );
    assert_eq!(code, 2);
    assert!(out.is_empty());
    let (code, _) = run(&["judge", "-", "--dead-white-list", "A7;B7"], DEAD_GROUP);
    assert_eq!(code, 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two eyes that self-capture kills (`crates/goref-judge/tests/hard`), on a 6×6 board after
/// two passes: with suicide illegal Black's group is pass-alive (its corner eye's empty points
/// both touch it) and both White stones are removed; under tromp-taylor White alone kills the
/// group by lifting its corner (a5 is suicide, 000 rule 7) and refilling it, so White's e6
/// can become pass-alive and stays, and Black's group is only "alive" (001 §3.9.1).
const SELF_CAPTURE_KILLS: &str = "(;GM[1]FF[4]SZ[6]KM[0]\
AW[aa][ea]\
AB[ca][bb][cb][db][eb][fb][ac][bc][cc][dc][ec][fc][ad][bd][cd][dd][ed][fd]\
[ae][be][ce][de][ee][fe][af][bf][cf][df][ef][ff]\
;B[];W[])";

#[test]
fn judge_follows_the_suicide_rule_of_the_rules_named() {
    let verdicts = |rules: &str| {
        let (code, out) = run(
            &["judge", "-", "--json", "--rules", rules],
            SELF_CAPTURE_KILLS,
        );
        assert_eq!(code, 0, "{out}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        let names: Vec<String> = v["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["verdict"].as_str().unwrap().to_string())
            .collect();
        (names, v["removed"].as_array().unwrap().len())
    };
    for rules in ["nstt", "olympiad"] {
        assert_eq!(
            verdicts(rules),
            (vec!["dead".into(), "pass-alive".into(), "dead".into()], 2),
            "{rules}"
        );
    }
    assert_eq!(
        verdicts("tromp-taylor"),
        (vec!["dead".into(), "alive".into(), "alive".into()], 1)
    );
}
