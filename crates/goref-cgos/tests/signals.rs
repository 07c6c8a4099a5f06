//! A signal stops the client between games (its own test binary: the handlers are
//! process-wide).

use std::time::Duration;

use goref_cgos::client::{play_session, stop_on_signals, ClientConfig, Progress, SessionEnd};
use goref_cgos::protocol::{ClientMessage, Expect, LineReader};
use goref_gtp::Engine;
use tokio::io::{AsyncWriteExt, BufReader};

#[tokio::test]
async fn sigterm_between_games_makes_the_client_quit() {
    let mut stop = stop_on_signals().unwrap();
    // An engine that is never asked anything: no game starts.
    let (engine_side, _) = tokio::io::duplex(64);
    let (r, w) = tokio::io::split(engine_side);
    let mut engine = Engine::over(r, w, "idle", None);
    let (client, server) = tokio::io::duplex(4096);
    let (sr, mut sw) = tokio::io::split(server);
    let mut lines = LineReader::new(BufReader::new(sr));
    sw.write_all(b"protocol\n").await.unwrap();
    let (cr, cw) = tokio::io::split(client);
    let config = ClientConfig::new("alpha", "secret");
    let mut progress = Progress::default();
    assert!(!*stop.borrow());
    let session = play_session(cr, cw, &mut engine, &config, &mut progress, &mut stop);
    let server_side = async {
        let hello = lines.next_line().await.unwrap().unwrap();
        assert!(ClientMessage::parse(&hello, Expect::Hello).is_ok());
        // SAFETY: raise(3) sends SIGTERM to this process, whose handler tokio installed.
        unsafe {
            libc::raise(libc::SIGTERM);
        }
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        ClientMessage::parse(&line, Expect::Ready).unwrap()
    };
    let (end, last) = tokio::join!(session, server_side);
    assert_eq!(end.unwrap(), SessionEnd::Quit);
    assert_eq!(last, ClientMessage::Quit);
}
