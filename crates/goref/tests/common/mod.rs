//! Helpers shared by the command-line tests: `goref serve` as a process, GNU Go's presence.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

// Not every test binary plays GNU Go.
#[allow(unused_imports)]
pub use goref_gtp::testing::{gnugo_there as have_gnugo, GNUGO};

/// A new PostgreSQL database of its own (`createdb`), named after the test, as a URL; `None`
/// (the test skips) without PostgreSQL, unless GOREF_REQUIRE_PG is set.
pub fn pg_database(name: &str) -> Option<String> {
    goref_pg::testing::fresh_database("goref_serve", name)
}

/// `goref serve` on a free loopback port with the database `db`; killed (SIGKILL) when
/// dropped, if not before.
pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
    /// The first line it printed (where it listens).
    pub first_line: String,
    /// Whether it said it fires the clocks (it leads the servers on its database); its
    /// standard error is passed on as it comes.
    pub leads: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// Starts `goref serve --db DB EXTRA…` (an SQLite file or a `postgres://` URL) and waits for
/// its address.
pub fn serve(db: impl AsRef<std::ffi::OsStr>, extra: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_goref"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(db)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("goref serve starts");
    let leads = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let told = leads.clone();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if line.contains("now fires the clocks") {
                told.store(true, std::sync::atomic::Ordering::SeqCst);
            }
            eprintln!("{line}");
        }
    });
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in '{line}'"))
        .parse()
        .unwrap();
    Server {
        child,
        addr,
        first_line: line,
        leads,
    }
}

impl Server {
    /// Whether it said it leads.
    pub fn leads(&self) -> bool {
        self.leads.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Kills it with SIGKILL: no chance to flush or clean up.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The memory (VmRSS) of process `pid`, in MiB.
pub fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// The games `GET /api/games` lists.
pub async fn games(addr: SocketAddr) -> Vec<serde_json::Value> {
    let (status, body) = goref_server::client::http(addr, "GET", "/api/games", None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    let v = serde_json::from_str::<serde_json::Value>(&body).unwrap();
    v["games"].as_array().unwrap().clone()
}

/// The game's record, replayed by `goref score`: the result it prints is the record's `RE`.
pub async fn check_record(addr: SocketAddr, dir: &Path, id: &str) -> String {
    let (status, sgf) =
        goref_server::client::http(addr, "GET", &format!("/api/games/{id}/sgf"), None)
            .await
            .unwrap();
    assert_eq!(status, 200);
    let path = dir.join(format!("{id}.sgf"));
    std::fs::write(&path, &sgf).unwrap();
    let re = sgf
        .split("RE[")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .unwrap_or_else(|| panic!("no RE in {sgf}"))
        .to_string();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_goref"))
        .arg("score")
        .arg(&path)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(printed.lines().next(), Some(re.as_str()), "{sgf}");
    re
}

/// The goref binary under test.
pub const GOREF: &str = env!("CARGO_BIN_EXE_goref");

/// `goref ARGS`, run to its end.
pub fn goref(args: &[&str]) -> Output {
    Command::new(GOREF).args(args).output().unwrap()
}

/// The rows of `OUT/results.jsonl` in game order; a line that does not read (cut off by a
/// crash) is skipped, as goref skips it.
pub fn results_jsonl(out: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let mut rows: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    rows.sort_by_key(|r| r["game"].as_u64());
    rows
}

/// A temporary folder for test `name` of the test file `file`, emptied (not created).
pub fn out_dir(file: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("goref-{file}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Asks `poll` again every 50 ms (the servers and programs are other processes, which tell
/// nothing) until it answers, at most `within`: the answer.
pub async fn until<T, F>(within: std::time::Duration, what: &str, mut poll: impl FnMut() -> F) -> T
where
    F: std::future::Future<Output = Option<T>>,
{
    let deadline = std::time::Instant::now() + within;
    loop {
        if let Some(answer) = poll().await {
            return answer;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not within {within:?}: {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// `GET path` of `addr`, as JSON (200 asserted).
pub async fn get_json(addr: SocketAddr, path: &str) -> serde_json::Value {
    let (status, body) = goref_server::client::http(addr, "GET", path, None)
        .await
        .unwrap();
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap()
}
