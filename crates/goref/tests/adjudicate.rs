//! `--adjudicate exact` (issue 39 part 2) on real processes: games end as soon as their winner
//! is certain, `decided` in results.jsonl, the record's comment says why and `goref score`
//! gives its RE; the same games played to the end (same engines and seeds: the adjudicated
//! game is a prefix of the full one) have the same winners by at least the certain margins.
//!
//! The figures of docs/src/measurements.md come from the ignored test
//! `measure_moves_saved_against_gnugo` (see there).

mod common;

use common::{goref, have_gnugo, out_dir, results_jsonl as results, GNUGO, GOREF};

use std::path::{Path, PathBuf};

use goref_rules::Outcome;
use serde_json::Value;

fn gnugo(seed: &str) -> String {
    format!("{GNUGO} --mode gtp --level 0 --seed {seed}")
}

fn random(seed: &str) -> String {
    format!("{GOREF} engine random --seed {seed}")
}

/// Plays `games` games between `black` and `white` (colours alternating) with `extra`
/// settings, with `--adjudicate exact` or without it.
fn play(
    name: &str,
    black: &str,
    white: &str,
    games: usize,
    extra: &[&str],
    exact: bool,
) -> (PathBuf, Vec<Value>) {
    let out = out_dir("adjudicate", name);
    let games = games.to_string();
    let mut args = vec![
        "match", "--black", black, "--white", white, "--games", &games, "--jobs", "2", "--time",
        "none", "--size", "9", "--quiet", "--out",
    ];
    let dir = out.display().to_string();
    args.push(&dir);
    args.extend_from_slice(extra);
    if exact {
        args.extend_from_slice(&["--adjudicate", "exact"]);
    }
    let o = goref(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    (out, rows)
}

/// The margin of a points result, Black's view in half points (`B+3.5` → 7, `W+2` → -4).
fn margin(result: &str) -> i64 {
    match result.parse::<Outcome>().unwrap() {
        Outcome::Win {
            winner,
            by: goref_rules::WinBy::Points { half_points },
        } => {
            let m = i64::from(half_points);
            if winner == goref_rules::Color::Black {
                m
            } else {
                -m
            }
        }
        Outcome::Draw => 0,
        other => panic!("not a points result: {other}"),
    }
}

/// Compares the same games with and without adjudication; returns (decided games, moves
/// with, moves without).
fn compare(with: &[Value], without: &[Value], out: &Path) -> (usize, u64, u64) {
    assert_eq!(with.len(), without.len());
    let (mut decided, mut moves_with, mut moves_without) = (0, 0, 0);
    for (a, b) in with.iter().zip(without) {
        moves_with += a["moves"].as_u64().unwrap();
        moves_without += b["moves"].as_u64().unwrap();
        assert!(a["moves"].as_u64() <= b["moves"].as_u64(), "{a}\n{b}");
        // A full game that the long cycle rule ended (Olympiad 3.6) was decided by captures
        // both sides chose to make: the certain winner is the one that can keep its win by
        // passing, not one that cannot lose it by playing on. A forfeit (GNU Go refusing a
        // suicide Tromp-Taylor allows, a crash, a hang) is not a result of play either.
        let cycle = ["long-cycle", "fault", "crash", "hang", "illegal", "time"]
            .contains(&b["end"].as_str().unwrap_or(""));
        if !cycle {
            assert_eq!(a["winner"], b["winner"], "same winner\n{a}\n{b}");
        }
        if a["end"] != "decided" {
            assert_eq!(a["moves"], b["moves"], "{a}\n{b}");
            continue;
        }
        decided += 1;
        let certain = margin(a["result"].as_str().unwrap());
        let full = b["result"].as_str().unwrap();
        // The full game's result (on the board, after its settlement) is at least as good
        // for the winner as the certain margin.
        if !cycle && !full.ends_with(['R', 'T', 'F']) {
            let m = margin(full);
            assert!(
                certain.signum() == m.signum() && m.abs() >= certain.abs(),
                "{a}\n{b}"
            );
        }
        let detail = a["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("decided: ") && detail.contains("win is certain"),
            "{a}"
        );
        // The record says so and replays to its RE by the same test.
        let sgf = out.join(a["sgf"].as_str().unwrap());
        let text = std::fs::read_to_string(&sgf).unwrap();
        assert!(text.contains("win is certain"), "{text}");
        let o = goref(&["score", sgf.to_str().unwrap()]);
        let printed = String::from_utf8_lossy(&o.stdout);
        let mut lines = printed.lines();
        assert_eq!(lines.next(), a["result"].as_str(), "{printed}");
        assert!(lines.next().unwrap().ends_with("decided)"), "{printed}");
    }
    (decided, moves_with, moves_without)
}

/// goref's random engine against itself under every preset: the decided games are prefixes
/// of the full ones, with the same winners by at least the certain margins, and replay. (A
/// random winner that plays on can throw its win away, which the decision does not exclude:
/// see crates/goref-judge/tests/decided.rs; these seeds' games do not.)
#[test]
fn random_games_end_when_decided_under_every_preset() {
    let mut decided = 0;
    for rules in ["tromp-taylor", "nstt", "olympiad"] {
        let extra = ["--rules", rules, "--komi", "7.5"];
        let (out, with) = play(
            &format!("rr-{rules}-x"),
            &random("{game}"),
            &random("1{game}"),
            4,
            &extra,
            true,
        );
        let (_, without) = play(
            &format!("rr-{rules}-o"),
            &random("{game}"),
            &random("1{game}"),
            4,
            &extra,
            false,
        );
        let (d, w, o) = compare(&with, &without, &out);
        assert!(w <= o);
        decided += d;
    }
    assert!(decided >= 3, "only {decided} of 12 random games decided");
}

/// A corrupted decision is refused by `goref score`: RE one point more than certain is not
/// what the position decides, and is scored on the board instead.
#[test]
fn score_checks_the_margin_of_a_decided_record() {
    let (out, rows) = play(
        "score-check",
        &random("5"),
        &random("6"),
        2,
        &["--rules", "nstt"],
        true,
    );
    let row = rows
        .iter()
        .find(|r| r["end"] == "decided")
        .expect("a decided game");
    let sgf = out.join(row["sgf"].as_str().unwrap());
    let text = std::fs::read_to_string(&sgf).unwrap();
    let re = row["result"].as_str().unwrap();
    let m = margin(re);
    let bigger = if m > 0 {
        format!("B+{}", (m + 2) as f64 / 2.0)
    } else {
        format!("W+{}", (-m + 2) as f64 / 2.0)
    };
    let bad = out.join("bad.sgf");
    std::fs::write(
        &bad,
        text.replace(&format!("RE[{re}]"), &format!("RE[{bigger}]")),
    )
    .unwrap();
    let o = goref(&["score", bad.to_str().unwrap()]);
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(!printed.contains("decided"), "{printed}");
}

/// A tournament's TOML key `adjudicate = "exact"` reaches its games.
#[test]
fn a_tournament_file_turns_it_on() {
    let out = out_dir("adjudicate", "tournament");
    std::fs::create_dir_all(&out).unwrap();
    let config = out.join("t.toml");
    std::fs::write(
        &config,
        format!(
            "size = \"9\"\nrules = \"nstt\"\nkomi = 7.5\ntime = \"none\"\nadjudicate = \"exact\"\ngames_per_pair = 2\n\n[[engine]]\nname = \"r1\"\ncommand = \"{GOREF} engine random --seed 1{{game}}\"\n\n[[engine]]\nname = \"r2\"\ncommand = \"{GOREF} engine random --seed 2{{game}}\"\n\n[[engine]]\nname = \"r3\"\ncommand = \"{GOREF} engine random --seed 3{{game}}\"\n"
        ),
    )
    .unwrap();
    let dir = out.join("run");
    let o = goref(&[
        "tournament",
        "--config",
        config.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&dir);
    assert_eq!(rows.len(), 6);
    assert!(rows.iter().any(|r| r["end"] == "decided"), "{rows:?}");
}

/// GNU Go (level 0) against goref's random engine and against itself on 9×9, two games each:
/// the same winners with fewer or as many moves.
#[test]
fn gnugo_games_keep_their_winners() {
    if !have_gnugo() {
        return;
    }
    for (name, black, white) in [
        ("gr", gnugo("{game}"), random("{game}")),
        ("gg", gnugo("{game}"), gnugo("1{game}")),
    ] {
        let (out, with) = play(&format!("{name}-x"), &black, &white, 2, &[], true);
        let (_, without) = play(&format!("{name}-o"), &black, &white, 2, &[], false);
        compare(&with, &without, &out);
    }
}

/// The measurement of docs/src/measurements.md: `GAMES` (default 20) games of GNU Go against
/// random and against itself on 9×9 under `RULES` (default olympiad), with and without
/// adjudication. Run with
/// `GAMES=20 cargo test --release -p goref --test adjudicate -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement: minutes of GNU Go games"]
fn measure_moves_saved_against_gnugo() {
    assert!(have_gnugo());
    let games: usize = std::env::var("GAMES")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(20);
    let rules = std::env::var("RULES").unwrap_or_else(|_| "olympiad".into());
    for (name, black, white) in [
        ("gnugo-random", gnugo("{game}"), random("{game}")),
        ("gnugo-gnugo", gnugo("{game}"), gnugo("1{game}")),
    ] {
        let extra = ["--rules", rules.as_str()];
        let (out, with) = play(&format!("m-{name}-x"), &black, &white, games, &extra, true);
        let (_, without) = play(&format!("m-{name}-o"), &black, &white, games, &extra, false);
        let (decided, w, o) = compare(&with, &without, &out);
        println!(
            "{name} ({rules}): {games} games, {decided} decided, moves {w} with, {o} without, saving {:.1}%",
            100.0 * (o - w) as f64 / o as f64
        );
    }
}

/// `--adjudicate perfect:NODES` on 4×4: random games end once the solver proves the value
/// from the position (the result that value); `goref score` proves it again from the record,
/// and a record whose `RE` says otherwise is not taken as decided.
#[test]
fn perfect_play_decides_small_boards_and_replays() {
    let extra = ["--rules", "nstt", "--komi", "0.5", "--size", "4x4"];
    let out = out_dir("adjudicate", "perfect");
    let dir = out.display().to_string();
    let (black, white) = (random("{game}"), random("1{game}"));
    let mut args = vec![
        "match",
        "--black",
        &black,
        "--white",
        &white,
        "--games",
        "2",
        "--time",
        "none",
        "--quiet",
        "--adjudicate",
        "perfect:200000",
        "--out",
        &dir,
    ];
    args.extend_from_slice(&extra);
    let o = goref(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row["end"], "decided", "{row}");
        assert!(
            row["detail"]
                .as_str()
                .unwrap()
                .starts_with("decided by perfect play"),
            "{row}"
        );
        let sgf = out.join(row["sgf"].as_str().unwrap());
        let o = goref(&["score", sgf.to_str().unwrap()]);
        let printed = String::from_utf8_lossy(&o.stdout);
        assert_eq!(printed.lines().next(), row["result"].as_str(), "{printed}");
        assert!(printed.contains("decided)"), "{printed}");
        let re = row["result"].as_str().unwrap();
        let text = std::fs::read_to_string(&sgf).unwrap();
        let other = if re.starts_with('B') {
            "W+0.5"
        } else {
            "B+0.5"
        };
        let bad = out.join("bad.sgf");
        std::fs::write(
            &bad,
            text.replace(&format!("RE[{re}]"), &format!("RE[{other}]")),
        )
        .unwrap();
        let o = goref(&["score", bad.to_str().unwrap()]);
        assert!(!String::from_utf8_lossy(&o.stdout).contains("decided"));
    }
    for bad in ["perfect:", "perfect:0", "perfect:x", "exactly"] {
        let o = goref(&[
            "match",
            "--black",
            &black,
            "--white",
            &white,
            "--games",
            "1",
            "--adjudicate",
            bad,
            "--out",
            &dir,
        ]);
        assert!(!o.status.success(), "{bad}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("adjudicat"),
            "{bad}"
        );
    }
}
