//! `goref loadtest` against a real `goref serve --cgos` process: CGOS bots and web programs
//! log in, are paired, play random moves, and the figures come back as JSON.

mod common;

use std::net::SocketAddr;
use std::process::Command;

use serde_json::Value;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("goref-loadtest-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The CGOS door's address from the server's first line ("…, CGOS on ADDR").
fn cgos_addr(server: &common::Server) -> SocketAddr {
    server
        .first_line
        .split("CGOS on ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no CGOS address in '{}'", server.first_line))
        .parse()
        .unwrap()
}

/// Runs `goref loadtest ARGS --json` (off the async runtime's threads): its report.
async fn loadtest(args: Vec<String>) -> Value {
    let output = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_goref"))
            .arg("loadtest")
            .args(&args)
            .arg("--json")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not one JSON object ({e}): {stdout}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cgos_bots_and_web_programs_play_and_the_figures_are_json() {
    let dir = temp_dir("json");
    // A rate far above what random players send, so that no move is refused for it.
    let server = common::serve(
        dir.join("goref.db"),
        &[
            "--cgos",
            "127.0.0.1:0",
            "--pairing-interval",
            "300ms",
            "--rate",
            "10000",
        ],
    );
    let cgos = cgos_addr(&server);
    let pid = server.child.id().to_string();
    let web = format!("http://{}", server.addr);
    let cgos_arg = cgos.to_string();
    let report = loadtest(
        [
            "--cgos",
            &cgos_arg,
            "--cgos-bots",
            "4",
            "--web",
            &web,
            "--programs",
            "4",
            "--warmup",
            "2",
            "--seconds",
            "8",
            "--server-pid",
            &pid,
            "--name-prefix",
            "lt",
        ]
        .map(String::from)
        .to_vec(),
    )
    .await;
    let n = |field: &str| {
        report[field]
            .as_f64()
            .unwrap_or_else(|| panic!("{field} in {report}"))
    };
    assert_eq!(report["errors"], 0, "{report}");
    assert_eq!(report["cgos_bots"], 4);
    assert_eq!(report["programs"], 4);
    assert!(n("cgos_moves") > 0.0, "{report}");
    assert!(n("web_moves") > 0.0, "{report}");
    assert_eq!(n("moves"), n("cgos_moves") + n("web_moves"));
    assert!(n("moves_per_s") > 0.0, "{report}");
    assert!(n("games_started") > 0.0, "{report}");
    // Both bots of a CGOS game are in the process: their moves are relayed and timed.
    assert!(report["relay"]["count"].as_u64().unwrap() > 0, "{report}");
    assert!(report["relay"]["p50_ms"].as_f64().unwrap() >= 0.0);
    assert!(report["ack"]["count"].as_u64().unwrap() > 0, "{report}");
    // The server's process was read.
    assert!(n("server_cpu_s") >= 0.0, "{report}");
    assert!(
        n("rss_start_mib") > 0.0 && n("rss_end_mib") > 0.0,
        "{report}"
    );
    // The games are the server's, between the accounts the load test named.
    let games = common::games(server.addr).await;
    let named = |kind: &str| {
        games.iter().any(|g| {
            ["black", "white"].iter().any(|c| {
                g[*c]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with(&format!("lt-{kind}-"))
            })
        })
    };
    assert!(named("cgos") && named("web"), "{games:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--idle`: programs that only keep the lobby open are all connected through the window and
/// are sent nothing, unless they follow the lobby's lists (`--idle-lists`), whose changes (the
/// players' games starting and ending) they are then sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_programs_are_sent_nothing_unless_they_follow_the_lists() {
    let dir = temp_dir("idle");
    let server = common::serve(
        dir.join("goref.db"),
        &["--pairing-interval", "300ms", "--rate", "10000"],
    );
    let pid = server.child.id().to_string();
    let web = format!("http://{}", server.addr);
    for (lists, prefix) in [(false, "la"), (true, "lb")] {
        let mut args = [
            "--web",
            &web,
            "--programs",
            "4",
            "--idle",
            "6",
            "--warmup",
            "2",
            "--seconds",
            "4",
            "--server-pid",
            &pid,
            "--name-prefix",
            prefix,
        ]
        .map(String::from)
        .to_vec();
        if lists {
            args.push("--idle-lists".into());
        }
        let report = loadtest(args).await;
        let n = |field: &str| {
            report[field]
                .as_f64()
                .unwrap_or_else(|| panic!("{field} in {report}"))
        };
        assert_eq!(
            (report["idle"].as_u64(), report["idle_lists"].as_bool()),
            (Some(6), Some(lists))
        );
        assert_eq!(n("idle_connected_start"), 6.0, "{report}");
        assert_eq!(n("idle_connected_end"), 6.0, "{report}");
        // The idle programs are not counted as players never paired.
        assert_eq!(n("never_paired"), 0.0, "{report}");
        assert!(n("web_moves") > 0.0 && n("games_started") > 0.0, "{report}");
        assert!(n("generator_cpu_s") > 0.0, "{report}");
        if lists {
            assert!(n("idle_messages_per_s") > 0.0, "{report}");
            assert!(n("idle_bytes_per_s") > 0.0, "{report}");
        } else {
            assert_eq!(n("idle_messages_per_s"), 0.0, "{report}");
            assert_eq!(n("idle_bytes_per_s"), 0.0, "{report}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
