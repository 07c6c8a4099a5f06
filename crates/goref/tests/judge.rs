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
