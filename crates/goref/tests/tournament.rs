//! `goref tournament` with real processes: GNU Go at two levels, goref's random engine and the
//! faulty one, engines kept between games, resume, refusals.

mod common;

use common::{goref, have_gnugo, out_dir, GNUGO, GOREF};

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn engine(name: &str, what: &str) -> Vec<String> {
    vec![format!("name={name}"), format!("cmd={GOREF} engine {what}")]
}

/// `n` instances of goref's random engine, `r1`, `r2`, … with their own seeds.
fn randoms(n: usize) -> Vec<Vec<String>> {
    (1..=n)
        .map(|i| engine(&format!("r{i}"), &format!("random --seed {i}")))
        .collect()
}

/// `standings.json` of `out`, and one engine's line of it.
fn standings_of(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("standings.json")).unwrap()).unwrap()
}

fn standing<'a>(standings: &'a Value, name: &str) -> &'a Value {
    standings["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()
}

fn tournament(engines: &[Vec<String>], extra: &[&str], out: &Path) -> Output {
    let mut args: Vec<String> = vec!["tournament".into()];
    for e in engines {
        args.push("--engine".into());
        args.extend(e.iter().cloned());
    }
    args.extend(extra.iter().map(|s| (*s).to_string()));
    args.extend(["--out".into(), out.display().to_string(), "--quiet".into()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    goref(&refs)
}

fn results(out: &Path) -> Vec<Value> {
    let bytes = std::fs::read(out.join("results.jsonl")).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let mut rows: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    rows.sort_by_key(|r| r["game"].as_u64());
    rows
}

/// Every pair plays its games with colours alternating; each game's record scores to its RE.
fn check_round_robin(rows: &[Value], engines: usize, per_pair: usize) {
    let mut by_pair: BTreeMap<(u64, u64), Vec<(u64, u64)>> = BTreeMap::new();
    for r in rows {
        let (b, w) = (r["black"].as_u64().unwrap(), r["white"].as_u64().unwrap());
        by_pair
            .entry((b.min(w), b.max(w)))
            .or_default()
            .push((b, w));
    }
    assert_eq!(by_pair.len(), engines * (engines - 1) / 2);
    for (pair, games) in &by_pair {
        assert_eq!(games.len(), per_pair, "{pair:?}");
        let as_black = games.iter().filter(|(b, _)| *b == pair.0).count();
        assert!(
            as_black.abs_diff(per_pair - as_black) <= 1,
            "{pair:?}: {games:?}"
        );
    }
}

#[test]
fn a_round_robin_of_gnugo_random_and_a_faulty_engine() {
    if !have_gnugo() {
        return;
    }
    let out = out_dir("tournament", "rr");
    let engines = vec![
        // Seeded, and capturing what they think dead before passing: under all-alive
        // scoring GNU Go's games against the random engine are then reproducible wins (an
        // unseeded GNU Go once lost one by 0.5, leaving dead stones on the board).
        vec![
            "name=gnugo0".to_string(),
            format!("cmd={GNUGO} --mode gtp --level 0 --capture-all-dead --seed 1"),
        ],
        vec![
            "name=gnugo1".to_string(),
            format!("cmd={GNUGO} --mode gtp --level 1 --capture-all-dead --seed 2"),
        ],
        engine("random", "random --seed 3"),
        engine("faulty", "faulty --crash-after 5"),
    ];
    let o = tournament(
        &engines,
        &[
            "--size",
            "9",
            "--time",
            "none",
            "--jobs",
            "2",
            "--end",
            "all-alive",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    assert_eq!(rows.len(), 12);
    check_round_robin(&rows, 4, 2);
    // The faulty engine crashes in every game: it loses them all by forfeit.
    for r in rows
        .iter()
        .filter(|r| r["black_name"] == "faulty" || r["white_name"] == "faulty")
    {
        let faulty_colour = if r["black_name"] == "faulty" {
            "B"
        } else {
            "W"
        };
        assert_ne!(r["winner"], faulty_colour, "{r}");
        assert!(r["result"].as_str().unwrap().ends_with('F'), "{r}");
    }
    let standings = standings_of(&out);
    let rank = |name: &str| standing(&standings, name)["rank"].as_u64().unwrap();
    assert!(rank("gnugo0") < rank("random") && rank("gnugo1") < rank("random"));
    assert!(rank("random") < rank("faulty"));
    let rating = |name: &str| standing(&standings, name)["rating"].as_f64().unwrap();
    assert!(rating("gnugo0") > rating("random"), "{standings}");
    for r in &rows {
        if let Some(sgf) = r["sgf"].as_str() {
            let scored = goref(&["score", out.join(sgf).to_str().unwrap()]);
            let first = String::from_utf8_lossy(&scored.stdout);
            if r["end"] == "two-passes" {
                assert_eq!(first.lines().next(), r["result"].as_str(), "{r}");
            }
        }
    }
}

/// Engines stay running between games: each engine's start-up (`list_commands`) is in one
/// game log only; with `restart=always` it is in every game it played.
#[test]
fn engines_are_kept_running_between_games_unless_told_otherwise() {
    let count_startups = |out: &Path| {
        std::fs::read_dir(out.join("games"))
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
            .map(|e| {
                std::fs::read_to_string(e.path())
                    .unwrap()
                    .matches("list_commands")
                    .filter(|_| true)
                    .count()
            })
            .sum::<usize>()
    };
    let out = out_dir("tournament", "kept");
    let engines = randoms(3);
    let o = tournament(&engines, &["--size", "7", "--time", "none"], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    assert_eq!(rows.len(), 6);
    check_round_robin(&rows, 3, 2);
    // One start-up per engine (the command line is logged once, its reply once).
    let kept = count_startups(&out);

    let out = out_dir("tournament", "always");
    let engines: Vec<Vec<String>> = (1..=3)
        .map(|i| {
            let mut e = engine(&format!("r{i}"), &format!("random --seed {i}"));
            e.push("restart=always".into());
            e
        })
        .collect();
    let o = tournament(&engines, &["--size", "7", "--time", "none"], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let always = count_startups(&out);
    assert_eq!(always, 4 * kept, "12 starts against 3: {always} vs {kept}");
}

#[test]
fn a_directory_of_another_tournament_is_refused_and_a_finished_one_resumes_to_itself() {
    let out = out_dir("tournament", "resume");
    let engines = vec![
        engine("a", "random --seed 1"),
        engine("b", "random --seed 2"),
    ];
    let o = tournament(&engines, &["--size", "5", "--time", "none"], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let before = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    // Again: nothing to play, nothing added.
    let o = tournament(&engines, &["--size", "5", "--time", "none"], &out);
    assert!(o.status.success());
    assert_eq!(
        std::fs::read_to_string(out.join("results.jsonl")).unwrap(),
        before
    );
    // Another engine command: refused, naming what differs.
    let other = vec![
        engine("a", "random --seed 9"),
        engine("b", "random --seed 2"),
    ];
    let o = tournament(&other, &["--size", "5", "--time", "none"], &out);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("holds another tournament") && err.contains("engines"),
        "{err}"
    );
    let o = tournament(&engines, &["--size", "7", "--time", "none"], &out);
    assert!(String::from_utf8_lossy(&o.stderr).contains("board"));
}

#[test]
fn a_gauntlet_plays_the_seed_against_every_other_engine() {
    let out = out_dir("tournament", "gauntlet");
    let engines = randoms(4);
    let o = tournament(
        &engines,
        &[
            "--format",
            "gauntlet",
            "--games-per-pair",
            "2",
            "--size",
            "5",
            "--time",
            "none",
            "--jobs",
            "2",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    assert_eq!(rows.len(), 6);
    for r in &rows {
        assert!(r["black"] == 0 || r["white"] == 0, "{r}");
    }
}

#[test]
fn a_torn_last_line_is_played_again() {
    let out = out_dir("tournament", "torn");
    let engines = vec![
        engine("a", "random --seed 1"),
        engine("b", "random --seed 2"),
    ];
    let o = tournament(
        &engines,
        &["--size", "5", "--time", "none", "--games-per-pair", "3"],
        &out,
    );
    assert!(o.status.success());
    let path = out.join("results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut bytes = text.into_bytes();
    // Cut the last line in the middle of a multi-byte character: add one, then cut it.
    bytes.truncate(bytes.len() - 30);
    bytes.extend_from_slice("é".as_bytes());
    bytes.pop();
    std::fs::write(&path, &bytes).unwrap();
    let o = tournament(
        &engines,
        &["--size", "5", "--time", "none", "--games-per-pair", "3"],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    let games: Vec<u64> = rows.iter().map(|r| r["game"].as_u64().unwrap()).collect();
    assert_eq!(games, [1, 2, 3], "each game once");
}

/// A Swiss of 7 engines over 3 rounds: no pair meets twice, 3 games a round (one bye each),
/// and the standings count the byes.
#[test]
fn a_swiss_of_seven_over_three_rounds() {
    let out = out_dir("tournament", "swiss");
    let engines = randoms(7);
    let o = tournament(
        &engines,
        &[
            "--format", "swiss", "--rounds", "3", "--size", "5", "--time", "none", "--jobs", "2",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    assert_eq!(rows.len(), 9);
    let mut pairs: Vec<(u64, u64)> = rows
        .iter()
        .map(|r| {
            let (b, w) = (r["black"].as_u64().unwrap(), r["white"].as_u64().unwrap());
            (b.min(w), b.max(w))
        })
        .collect();
    for round in 1..=3 {
        let playing: Vec<u64> = rows
            .iter()
            .filter(|r| r["round"] == round)
            .flat_map(|r| [r["black"].as_u64().unwrap(), r["white"].as_u64().unwrap()])
            .collect();
        assert_eq!(playing.len(), 6, "round {round}: one engine sits out");
    }
    pairs.sort_unstable();
    pairs.dedup();
    assert_eq!(pairs.len(), 9, "no pair meets twice");
    let standings = standings_of(&out);
    let byes: u64 = standings["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["byes"].as_u64().unwrap())
        .sum();
    assert_eq!(byes, 3);
    let points: f64 = standings["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["points"].as_f64().unwrap())
        .sum();
    assert_eq!(points, 12.0, "9 games and 3 byes");
    assert!(out.join("report.html").exists());
}

/// A knockout of 4: two semi-finals, a final, a champion.
#[test]
fn a_knockout_of_four() {
    let out = out_dir("tournament", "knockout");
    let engines = randoms(4);
    let o = tournament(
        &engines,
        &[
            "--format",
            "knockout",
            "--games-per-pair",
            "2",
            "--size",
            "5",
            "--time",
            "none",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("champion: r"), "{stdout}");
    let rows = results(&out);
    let semis = rows.iter().filter(|r| r["round"] == 1).count();
    let finals = rows.iter().filter(|r| r["round"] == 2).count();
    assert!(semis >= 4 && finals >= 2, "{rows:?}");
    // The semi-finals: seed 1 against seed 4, 2 against 3.
    for r in rows.iter().filter(|r| r["round"] == 1) {
        let pair = [r["black"].as_u64().unwrap(), r["white"].as_u64().unwrap()];
        assert!(pair.contains(&0) == pair.contains(&3), "{r}");
    }
}

/// SIGKILL in the middle, then the same command again: every game is in the results exactly
/// once.
#[test]
fn a_killed_tournament_resumes_without_losing_or_repeating_a_game() {
    let out = out_dir("tournament", "killed");
    let engines = randoms(3);
    let mut args: Vec<String> = vec!["tournament".into()];
    for e in &engines {
        args.push("--engine".into());
        args.extend(e.iter().cloned());
    }
    for a in [
        "--games-per-pair",
        "16",
        "--size",
        "7",
        "--time",
        "none",
        "--jobs",
        "2",
        "--quiet",
    ] {
        args.push(a.into());
    }
    args.extend(["--out".into(), out.display().to_string()]);
    let mut child = Command::new(GOREF)
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let path = out.join("results.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let lines = std::fs::read(&path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
        if lines >= 5 || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = results(&out).len();
    assert!(before < 48, "killed before the end: {before}");
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = goref(&refs);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    let games: Vec<u64> = rows.iter().map(|r| r["game"].as_u64().unwrap()).collect();
    assert_eq!(games, (1..=48).collect::<Vec<u64>>());
    check_round_robin(&rows, 3, 16);
}

/// A gauntlet with openings: each pair goes through the openings in turn, each twice with
/// colours swapped; each game's record starts with its opening's moves.
#[test]
fn a_gauntlet_with_openings() {
    let out = out_dir("tournament", "openings");
    let book = out_dir("tournament", "book");
    std::fs::create_dir_all(&book).unwrap();
    std::fs::write(book.join("a.sgf"), "(;GM[1]SZ[7];B[dd];W[cc])").unwrap();
    std::fs::write(book.join("b.sgf"), "(;GM[1]SZ[7];B[cd];W[ee];B[bb])").unwrap();
    let engines = randoms(3);
    let book_arg = book.display().to_string();
    let o = tournament(
        &engines,
        &[
            "--format",
            "gauntlet",
            "--games-per-pair",
            "4",
            "--openings",
            &book_arg,
            "--size",
            "7",
            "--time",
            "none",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    assert_eq!(rows.len(), 8);
    for opponent in [1u64, 2] {
        let games: Vec<&Value> = rows
            .iter()
            .filter(|r| r["black"] == opponent || r["white"] == opponent)
            .collect();
        let openings: Vec<&str> = games
            .iter()
            .map(|r| r["opening"].as_str().unwrap())
            .collect();
        assert_eq!(openings, ["a", "a", "b", "b"], "opponent {opponent}");
        assert_ne!(games[0]["black"], games[1]["black"], "colours swapped");
        assert_ne!(games[2]["black"], games[3]["black"], "colours swapped");
    }
    for r in &rows {
        let text = std::fs::read_to_string(out.join(r["sgf"].as_str().unwrap())).unwrap();
        let record = goref_sgf::parse(&text).unwrap();
        let first = goref_sgf::write(&record);
        let opening = if r["opening"] == "a" {
            ";B[dd]\n;W[cc]"
        } else {
            ";B[cd]\n;W[ee]\n;B[bb]"
        };
        assert!(first.contains(opening), "{first}");
    }
    // One file with many games: one opening each.
    let out2 = out_dir("tournament", "collection");
    let file = out_dir("tournament", "collection-book").with_extension("sgf");
    std::fs::write(&file, "(;GM[1]SZ[7];B[dd])\n(;GM[1]SZ[7];B[cc];W[ee])").unwrap();
    let file_arg = file.display().to_string();
    let o = tournament(
        &engines[..2],
        &[
            "--games-per-pair",
            "4",
            "--openings",
            &file_arg,
            "--size",
            "7",
            "--time",
            "none",
        ],
        &out2,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let names: Vec<String> = results(&out2)
        .iter()
        .map(|r| r["opening"].as_str().unwrap().to_string())
        .collect();
    let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        names,
        [1, 1, 2, 2].map(|k| format!("{stem}#{k}")),
        "each opening twice"
    );
    // An opening that breaks the rules is refused before any game.
    std::fs::write(book.join("c.sgf"), "(;GM[1]SZ[7];B[dd];W[dd])").unwrap();
    let o = tournament(
        &engines,
        &["--openings", &book_arg, "--size", "7", "--time", "none"],
        &out_dir("tournament", "badbook"),
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("c.sgf"));
}

/// Two engines with `--sprt`: GNU Go against random decides for GNU Go long before the
/// scheduled games are all played.
#[test]
fn an_sprt_stops_a_lopsided_pairing_early() {
    if !have_gnugo() {
        return;
    }
    let out = out_dir("tournament", "sprt");
    let engines = vec![
        vec![
            "name=gnugo".to_string(),
            format!("cmd={GNUGO} --mode gtp --level 0 --capture-all-dead"),
        ],
        engine("random", "random --seed 5"),
    ];
    let o = tournament(
        &engines,
        &[
            "--games-per-pair",
            "200",
            "--sprt",
            "0",
            "200",
            "0.05",
            "0.05",
            "--size",
            "7",
            "--time",
            "none",
            "--jobs",
            "2",
            "--end",
            "all-alive",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("SPRT: AcceptH1"), "{stdout}");
    let played = results(&out).len();
    assert!(played < 60, "stopped early: {played}");
}

/// Time odds: an engine with a clock of its own (1 s) loses on time while its opponent plays
/// without one; the records say each player's time.
#[test]
fn an_engine_may_have_a_clock_of_its_own() {
    let out = out_dir("tournament", "odds");
    let mut slow = engine("slow", "faulty --slow 150ms");
    slow.push("time=1s".into());
    let engines = vec![slow, engine("fast", "random --seed 1")];
    let o = tournament(
        &engines,
        &["--size", "9", "--time", "none", "--lag", "0s"],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["end"], "time", "{r}");
        let slow_colour = if r["black_name"] == "slow" { "B" } else { "W" };
        assert_ne!(r["winner"], slow_colour, "{r}");
        let text = std::fs::read_to_string(out.join(r["sgf"].as_str().unwrap())).unwrap();
        assert!(text.contains("time: Black"), "{text}");
        assert!(!text.contains("TM["), "{text}");
    }
}

/// The TOML form: engines, format and game settings from the file, the command line on top.
#[test]
fn a_config_file_sets_the_tournament() {
    let out = out_dir("tournament", "toml");
    let file = out_dir("tournament", "toml-file").with_extension("toml");
    std::fs::write(
        &file,
        format!(
            r#"format = "round-robin"
games_per_pair = 2
size = "5x5"
rules = "tromp-taylor"
time = "none"
jobs = 2
restart = "auto"
max_failures = 2

[[engine]]
name = "one"
command = "{GOREF} engine random --seed 1"
init = ["name"]

[[engine]]
name = "two"
command = "{GOREF} engine random --seed 2"
restart = "always"
time = "10m"
"#
        ),
    )
    .unwrap();
    let o = goref(&[
        "tournament",
        "--config",
        file.to_str().unwrap(),
        "--games-per-pair",
        "4",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    assert_eq!(rows.len(), 4, "the command line's 4 games per pair");
    assert!(out.join("report.html").exists());
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(report.contains("<svg") && report.contains("one") && report.contains("two"));
    // A key the file does not know is refused, naming it.
    std::fs::write(&file, "formatt = \"swiss\"\n").unwrap();
    let o = goref(&[
        "tournament",
        "--config",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("formatt"));
}

/// An engine that passes the check before the first game but cannot start later forfeits its
/// games; after `--max-failures` in a row it is withdrawn (no more attempts) and the standings
/// say so; the others play on.
#[test]
fn an_engine_that_cannot_start_forfeits_and_is_withdrawn() {
    let out = out_dir("tournament", "ghost");
    std::fs::create_dir_all(&out).unwrap();
    // It starts once (the check), then exits at every start.
    let mark = out.join("started-once");
    let ghost = format!(
        "cmd=sh -c 'test -e {m} && exit 7; touch {m}; exec {GOREF} engine random'",
        m = mark.display()
    );
    let engines = vec![
        engine("a", "random --seed 1"),
        engine("b", "random --seed 2"),
        vec!["name=ghost".into(), ghost],
    ];
    let o = tournament(
        &engines,
        &[
            "--size",
            "5",
            "--time",
            "none",
            "--max-failures",
            "2",
            "--games-per-pair",
            "3",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = results(&out);
    assert_eq!(rows.len(), 9);
    let ghost: Vec<&Value> = rows
        .iter()
        .filter(|r| r["black_name"] == "ghost" || r["white_name"] == "ghost")
        .collect();
    assert_eq!(ghost.len(), 6);
    let tried = ghost
        .iter()
        .filter(|r| r["detail"].as_str().unwrap().contains("could not start"))
        .count();
    let skipped = ghost
        .iter()
        .filter(|r| r["detail"].as_str().unwrap().contains("withdrawn"))
        .count();
    assert_eq!((tried, skipped), (2, 4), "two attempts, then withdrawn");
    let played = rows.iter().filter(|r| r["sgf"].is_string()).count();
    assert_eq!(played, 3, "a and b play their games");
    let standings = standings_of(&out);
    assert_eq!(standing(&standings, "ghost")["withdrawn"], true);
    assert!(String::from_utf8_lossy(&o.stdout).contains("ghost (withdrawn)"));
}
