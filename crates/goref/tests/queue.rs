//! `goref tournament --queue` and `goref worker` on a real PostgreSQL (CI runs this file under
//! `pg_virtualenv`, which starts a throw-away cluster and sets the `PG*` variables; without
//! them the tests are skipped, unless GOREF_REQUIRE_PG is set, as in CI).
//!
//!     pg_virtualenv cargo test -p goref --test queue

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;

/// The cluster's own database (`PGDATABASE`), as a URL; `None` (the test skips) without
/// PostgreSQL, unless GOREF_REQUIRE_PG is set.
fn database() -> Option<String> {
    goref_pg::testing::postgres_there().then(|| {
        format!(
            "postgres:///{}",
            std::env::var("PGDATABASE").expect("PGDATABASE")
        )
    })
}

/// A process killed when the test ends.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn goref() -> Command {
    Command::new(env!("CARGO_BIN_EXE_goref"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("goref-queue-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Three engines that think `slow` a move, round-robin, two games a pair, 5×5.
fn config(dir: &Path, tag: &str, slow: &str) -> PathBuf {
    let bin = env!("CARGO_BIN_EXE_goref");
    let mut text = format!(
        "size = \"5x5\"\ngames_per_pair = 2\nout = \"{}\"\n",
        dir.join("out").display()
    );
    for (i, name) in ["r1", "r2", "r3"].iter().enumerate() {
        text.push_str(&format!(
            "[[engine]]\nname = \"{name}\"\ncommand = \"{bin} engine faulty --slow {slow} --seed {}\"\n",
            i + 1
        ));
    }
    let _ = tag;
    let path = dir.join("t.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn coordinator(url: &str, config: &Path, dir: &Path) -> Process {
    let log = std::fs::File::create(dir.join("coordinator.log")).unwrap();
    Process(
        goref()
            .args(["tournament", "--quiet", "--queue", url, "--config"])
            .arg(config)
            .stdout(log)
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    )
}

/// A worker; its id, from its first line.
fn worker(url: &str, extra: &[&str]) -> (Process, String) {
    let mut child = goref()
        .args(["worker", "--queue", url, "--lease", "2s"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    err.read_line(&mut line).unwrap();
    let id = line
        .strip_prefix("goref worker ")
        .and_then(|r| r.split(':').next())
        .unwrap_or_else(|| panic!("no id in '{line}'"))
        .to_string();
    // Keep reading its stderr so that it never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut rest = String::new();
        while err.read_line(&mut rest).is_ok_and(|n| n > 0) {
            eprint!("[worker] {rest}");
            rest.clear();
        }
    });
    (Process(child), id)
}

async fn sql(url: &str) -> goref_queue::Connection {
    let conn = goref_queue::connect(url).await.unwrap();
    goref_queue::migrate(&conn.client).await.unwrap();
    conn
}

/// The queued tournament's id, once the coordinator has written it.
fn tournament_id(dir: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read_to_string(dir.join("out/queue.json")) {
            if let Ok(v) = serde_json::from_str::<Value>(&text) {
                return v["tournament"].as_str().unwrap().to_string();
            }
        }
        assert!(
            Instant::now() < deadline,
            "the coordinator did not queue the tournament"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn wait_exit(p: &mut Process, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = p.0.try_wait().unwrap() {
            return status;
        }
        assert!(start.elapsed() < limit, "did not finish within {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// 13 §3: three workers, one killed with SIGKILL in the middle of a game: the game goes to
/// another worker when its lease runs out, and every game lands exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_one_killed_mid_game_every_game_lands_exactly_once() {
    let Some(url) = database() else { return };
    let dir = temp_dir("kill");
    let cfg = config(&dir, "kill", "60ms");
    let mut coord = coordinator(&url, &cfg, &dir);
    let id = tournament_id(&dir);
    let only = ["--tournament", id.as_str()];
    let (mut doomed, doomed_id) = worker(&url, &only);
    let db = sql(&url).await;
    // Wait until the doomed worker is playing a game, then kill it.
    let deadline = Instant::now() + Duration::from_secs(60);
    let killed_game: i32 = loop {
        assert!(Instant::now() < deadline, "the worker never claimed a game");
        let rows = db
            .client
            .query(
                "SELECT number FROM queue_games WHERE state = 'running' AND worker LIKE $1",
                &[&format!("{doomed_id}-%")],
            )
            .await
            .unwrap();
        if let Some(r) = rows.first() {
            break r.get(0);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    doomed.0.kill().unwrap(); // SIGKILL
    doomed.0.wait().unwrap();
    let (_w2, _) = worker(&url, &only);
    let (_w3, _) = worker(&url, &only);
    let status = wait_exit(&mut coord, Duration::from_secs(240));
    assert!(status.success(), "{status}");
    let results = std::fs::read_to_string(dir.join("out/results.jsonl")).unwrap();
    let mut numbers: Vec<u64> = results
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["game"]
                .as_u64()
                .unwrap()
        })
        .collect();
    numbers.sort_unstable();
    assert_eq!(
        numbers,
        (1..=6).collect::<Vec<u64>>(),
        "each game once:\n{results}"
    );
    for l in results.lines() {
        let line: Value = serde_json::from_str(l).unwrap();
        let sgf = dir.join("out").join(line["sgf"].as_str().unwrap());
        let text = std::fs::read_to_string(&sgf).unwrap();
        assert!(text.contains(&format!("RE[{}]", line["result"].as_str().unwrap())));
    }
    let row = db
        .client
        .query_one(
            "SELECT attempts, worker FROM queue_games WHERE number = $1 AND state = 'done'",
            &[&killed_game],
        )
        .await
        .unwrap();
    let (attempts, by): (i32, String) = (row.get(0), row.get(1));
    assert!(attempts >= 2, "the killed game was played again");
    assert!(!by.starts_with(&doomed_id), "by another worker");
    let standings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/standings.json")).unwrap())
            .unwrap();
    assert_eq!(standings["games"], 6);
    // The queue says so too.
    let out = goref()
        .args(["tournament", "--queue", &url, "--status"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.contains(" done ") && l.trim_end().ends_with('6')),
        "{text}"
    );
    // Each worker's line: its games and its throughput.
    assert!(text.contains("games/min"), "{text}");
    let busy = text
        .lines()
        .filter(|l| l.contains(&id))
        .filter_map(|l| l.split_whitespace().nth(5)?.parse::<f64>().ok())
        .filter(|&rate| rate > 0.0)
        .count();
    assert!(busy >= 1, "some worker has a throughput: {text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// 13 §3: the first worker's engine versions are the tournament's; a worker whose engine
/// answers another name or version is refused, and the queue shows why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_with_other_engine_versions_is_refused() {
    let Some(url) = database() else { return };
    let dir = temp_dir("versions");
    let cfg = config(&dir, "versions", "300ms");
    let _coord = coordinator(&url, &cfg, &dir);
    let id = tournament_id(&dir);
    let (_first, first_id) = worker(&url, &["--tournament", &id]);
    let db = sql(&url).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while db
        .client
        .query(
            "SELECT 1 FROM queue_workers WHERE id LIKE $1",
            &[&format!("{first_id}-%")],
        )
        .await
        .unwrap()
        .is_empty()
    {
        assert!(
            Instant::now() < deadline,
            "the first worker did not register"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let random = format!("r1={} engine random", env!("CARGO_BIN_EXE_goref"));
    let (mut other, other_id) = worker(&url, &["--tournament", &id, "--engine-command", &random]);
    let status = wait_exit(&mut other, Duration::from_secs(60));
    assert_eq!(status.code(), Some(2), "refused");
    let row = db
        .client
        .query_one(
            "SELECT refused FROM queue_workers WHERE id LIKE $1",
            &[&format!("{other_id}-%")],
        )
        .await
        .unwrap();
    let refused: Option<String> = row.get(0);
    let refused = refused.expect("recorded as refused");
    assert!(
        refused.contains("goref-random") && refused.contains("goref-faulty"),
        "{refused}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
