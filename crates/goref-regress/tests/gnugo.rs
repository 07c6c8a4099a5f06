//! The positions goref follows for the HTML report agree with GNU Go's own board: for every
//! `loadsgf` of the GNU Go suites in `tests/data/gnugo`, the stones `position::load` sets are
//! the stones GNU Go lists (`list_stones`) after the same command. Skips (loudly) without GNU
//! Go, fails without it under `GOREF_REQUIRE_GNUGO`.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use goref_gtp::testing::{gnugo_there, GNUGO};
use goref_gtp::{Engine, EngineSpec};
use goref_regress::position::Tracker;
use goref_regress::run::rewrite_paths;
use goref_regress::Suite;
use goref_rules::Color;

const LIMIT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn loadsgf_positions_are_gnugo_s() {
    if !gnugo_there() {
        return;
    }
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gnugo");
    let spec = EngineSpec::parse(&format!("{GNUGO} --mode gtp")).unwrap();
    let mut engine = Engine::start(&spec, "gnugo", None).await.unwrap();
    let mut compared = 0;
    for name in ["tiny.tst", "capture.tst", "heikki.tst"] {
        let suite = Suite::parse(&std::fs::read(data.join(name)).unwrap()).unwrap();
        let mut seen = BTreeSet::new();
        for step in &suite.steps {
            let command = rewrite_paths(step.kind.command(), &data);
            if !command.starts_with("loadsgf") || !seen.insert(command.clone()) {
                continue;
            }
            let answer = engine.command(&command, LIMIT).await.unwrap();
            let mut tracker = Tracker::new();
            tracker.observe(&command, true, &answer);
            let board = tracker
                .board()
                .unwrap_or_else(|why| panic!("{name}: {command}: {why}"));
            for color in [Color::Black, Color::White] {
                let word = if color == Color::Black {
                    "black"
                } else {
                    "white"
                };
                let listed = engine
                    .command(&format!("list_stones {word}"), LIMIT)
                    .await
                    .unwrap();
                let gnugo: BTreeSet<String> =
                    listed.split_whitespace().map(str::to_uppercase).collect();
                let ours: BTreeSet<String> = board
                    .geometry()
                    .points()
                    .filter(|&p| board.get(p) == Some(color))
                    .map(|p| board.geometry().name(p))
                    .collect();
                assert_eq!(ours, gnugo, "{name}: {command}: {word} stones");
            }
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared} positions compared");
    engine.shutdown(Duration::from_secs(2)).await;
}
