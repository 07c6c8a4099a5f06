//! The controller against real processes (shell one-liners that misbehave, and GNU Go when it
//! is installed) and against byte streams written by hand.

use std::time::{Duration, Instant};

use goref_gtp::{Engine, EngineSpec, GtpError, Stopped};
use tokio::io::AsyncWriteExt;

use goref_gtp::testing::GNUGO;

fn sh(script: &str) -> EngineSpec {
    EngineSpec::Process {
        argv: vec!["sh".into(), "-c".into(), script.into()],
        cwd: None,
        env: Vec::new(),
    }
}

#[tokio::test]
async fn a_crash_is_seen_at_once_with_its_exit_status() {
    let mut e = Engine::start(&sh("read line; exit 3"), "crasher", None)
        .await
        .unwrap();
    let started = Instant::now();
    let err = e
        .send("genmove b", Duration::from_secs(20))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(err, GtpError::Closed { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("crasher") && text.contains("genmove b") && text.contains("3"),
        "{text}"
    );
    // Later commands fail the same way without waiting.
    assert!(matches!(
        e.send("name", Duration::from_secs(20)).await,
        Err(GtpError::Closed { .. })
    ));
}

#[tokio::test]
async fn a_silent_engine_times_out_and_is_killed_after_the_grace_period() {
    let mut e = Engine::start(&sh("exec sleep 30"), "sleeper", None)
        .await
        .unwrap();
    let started = Instant::now();
    let err = e
        .send("name", Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(matches!(err, GtpError::Timeout { .. }), "{err}");
    assert!(
        err.to_string().contains("no reply to 'name' within 0.300s"),
        "{err}"
    );
    assert_eq!(
        e.shutdown(Duration::from_millis(300)).await,
        Stopped::Killed
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_program_that_does_not_exist_is_a_clear_start_error() {
    let spec = EngineSpec::parse("/nonexistent/engine --gtp").unwrap();
    let Err(err) = Engine::start(&spec, "Black", None).await else {
        panic!("started a program that does not exist");
    };
    let text = err.to_string();
    assert!(
        text.starts_with("Black: cannot start '/nonexistent/engine --gtp'"),
        "{text}"
    );
}

/// Stray output, CRLF, non-UTF-8 bytes and a stale reply with the wrong id, from a real
/// process: the controller still reads the right reply.
#[tokio::test]
async fn replies_are_found_among_stray_output_and_wrong_ids() {
    let script = r#"read a; printf 'debug: \377\376 thinking\r\n=999 stale\r\n\r\n'; printf '=1 first\r\nsecond\r\n\r\n'; read b; printf '?2 no such thing\n\n'; read c"#;
    let mut e = Engine::start(&sh(script), "odd", None).await.unwrap();
    let reply = e
        .send("list_commands", Duration::from_secs(5))
        .await
        .unwrap();
    assert!(reply.success);
    assert_eq!(reply.id, Some(1));
    assert_eq!(reply.text, "first\nsecond");
    let err = e.command("fly", Duration::from_secs(5)).await.unwrap_err();
    assert_eq!(err.to_string(), "odd: 'fly' failed: no such thing");
    assert!(!err.is_fatal());
}

#[tokio::test]
async fn engine_stderr_and_stray_output_go_to_the_log() {
    let buffer = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let log: goref_gtp::Log = buffer.clone();
    let script = r#"read a; echo 'oops on stderr' >&2; printf 'chatter\n= ok\n\n'; read b"#;
    let mut e = Engine::start(&sh(script), "B", Some(log)).await.unwrap();
    e.command("name", Duration::from_secs(5)).await.unwrap();
    drop(e.shutdown(Duration::from_millis(500)).await);
    let text = String::from_utf8(buffer.lock().unwrap().clone()).unwrap();
    assert!(text.contains("[B stderr] oops on stderr"), "{text}");
    assert!(text.contains("[B stdout] chatter"), "{text}");
}

#[tokio::test]
async fn commands_with_line_breaks_are_refused() {
    let (a, b) = tokio::io::duplex(1024);
    let (r, w) = tokio::io::split(a);
    let mut e = Engine::over(r, w, "dup", None);
    let err = e
        .send("play b\nquit", Duration::from_secs(1))
        .await
        .unwrap_err();
    assert!(matches!(err, GtpError::BadCommand { .. }));
    drop(b);
}

/// A reply that arrives in pieces, with the empty line last, is one reply.
#[tokio::test]
async fn replies_split_across_writes_are_joined() {
    let (ours, mut theirs) = tokio::io::duplex(1024);
    let (r, w) = tokio::io::split(ours);
    let mut e = Engine::over(r, w, "slow", None);
    let writer = tokio::spawn(async move {
        for piece in [&b"=1 Q"[..], b"16\r", b"\n", b"\r\n"] {
            tokio::time::sleep(Duration::from_millis(20)).await;
            theirs.write_all(piece).await.unwrap();
        }
        theirs
    });
    let reply = e.send("genmove b", Duration::from_secs(5)).await.unwrap();
    assert_eq!(reply.text, "Q16");
    drop(writer.await.unwrap());
}

#[tokio::test]
async fn gnugo_passes_the_startup_check_and_quits_when_asked() {
    if !goref_gtp::testing::gnugo_there() {
        return;
    }
    let spec = EngineSpec::parse(&format!("{GNUGO} --mode gtp --level 0")).unwrap();
    let mut e = Engine::start(&spec, "gnugo", None).await.unwrap();
    let info = e.check(Duration::from_secs(10)).await.unwrap().clone();
    assert_eq!(info.protocol_version, "2");
    assert_eq!(info.name, "GNU Go");
    assert!(info.supports("genmove") && info.supports("time_left"));
    assert!(!info.supports("kgs-rules"));
    assert!(matches!(
        e.shutdown(Duration::from_secs(5)).await,
        Stopped::Quit(Some(_))
    ));
}

/// An engine's helpers (children in its process group) end with it, even when it exits cleanly
/// after `quit`.
#[tokio::test]
async fn the_process_group_ends_with_the_engine() {
    // A background child that would outlive the engine, then a minimal GTP loop answering
    // `quit` and exiting.
    // (goref numbers its commands: `N quit`.)
    let script = "sleep 300 & while read -r cmd; do echo '= '; echo; \
                  case \"$cmd\" in *quit) exit 0;; esac; done";
    let engine = Engine::start(&sh(script), "helper", None).await.unwrap();
    // goref starts each engine in a process group of its own, whose id is the engine's pid.
    let group = engine.pid().unwrap().to_string();
    let members = || {
        std::process::Command::new("pgrep")
            .args(["-g", &group])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).lines().count())
            .unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while members() < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(members(), 2, "the engine and its helper");
    let how = engine.shutdown(Duration::from_secs(2)).await;
    assert!(
        matches!(how, Stopped::Quit(_)),
        "it quit by itself: {how:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while members() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(members(), 0, "the helper ended with the engine");
}

/// Issue 40: an engine that exits at once has the end of its standard error in the error (the
/// last 20 lines at most, blank ones left out), so that a bad option is seen for what it is.
#[tokio::test]
async fn an_engine_that_exits_has_the_last_lines_of_its_stderr_in_the_error() {
    let script = "for i in $(seq 1 50); do echo \"line $i\" >&2; echo >&2; done; exit 1";
    let mut e = Engine::start(&sh(script), "talker", None).await.unwrap();
    let err = e
        .send("protocol_version", Duration::from_secs(20))
        .await
        .unwrap_err();
    let tail: Vec<String> = (31..=50).map(|i| format!("line {i}")).collect();
    assert_eq!(err.stderr_tail(), tail, "{err}");
    assert!(
        err.to_string()
            .ends_with("(exit status: 1); its standard error ended: line 31 | line 32 | line 33 | line 34 | line 35 | line 36 | line 37 | line 38 | line 39 | line 40 | line 41 | line 42 | line 43 | line 44 | line 45 | line 46 | line 47 | line 48 | line 49 | line 50"),
        "{err}"
    );

    // Long lines: at most 4 KB in all, the last lines whole.
    let script = "for i in 1 2 3; do printf \"$i%.0s\" $(seq 1 3000) >&2; echo >&2; done; exit 2";
    let mut e = Engine::start(&sh(script), "shouter", None).await.unwrap();
    let err = e.send("name", Duration::from_secs(20)).await.unwrap_err();
    let kept: usize = err.stderr_tail().iter().map(String::len).sum();
    assert!(kept <= goref_gtp::controller::STDERR_TAIL_BYTES, "{kept}");
    assert_eq!(
        err.stderr_tail().last().map(String::len),
        Some(3000),
        "{err}"
    );
    assert!(err.stderr_tail().last().unwrap().chars().all(|c| c == '3'));

    // Nothing on standard error: the error says nothing more.
    let mut e = Engine::start(&sh("exit 3"), "mute", None).await.unwrap();
    let err = e.send("name", Duration::from_secs(20)).await.unwrap_err();
    assert!(err.stderr_tail().is_empty(), "{err}");
    assert!(!err.to_string().contains("standard error"), "{err}");
}
