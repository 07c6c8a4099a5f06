//! The positions goref follows for the HTML report agree with GNU Go's own board: for every
//! `loadsgf` of GNU Go's suites, the stones `position::load` sets are the stones GNU Go lists
//! (`list_stones`) after the same command. Skips (loudly) without GNU Go, fails without it
//! under `GOREF_REQUIRE_GNUGO`.
//!
//! The three suites in `tests/data/gnugo` always; with `GOREF_GNUGO_REGRESSION` naming GNU Go's
//! whole `regression/` folder (from its source), all of its suites: for GNU Go 3.8's 87 suites,
//! 3,170 positions, every one the same (about 10 s).

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

/// Compares every distinct `loadsgf` of the suites (`.tst` files of `folder`, or those named)
/// with GNU Go's board: the number of positions compared.
async fn compare(folder: &Path, names: Option<&[&str]>) -> usize {
    let spec = EngineSpec::parse(&format!("{GNUGO} --mode gtp")).unwrap();
    let mut engine = Engine::start(&spec, "gnugo", None).await.unwrap();
    let mut files: Vec<_> = match names {
        Some(names) => names.iter().map(|n| folder.join(n)).collect(),
        None => std::fs::read_dir(folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "tst"))
            .collect(),
    };
    files.sort();
    let mut seen = BTreeSet::new();
    let mut compared = 0;
    for file in files {
        let suite = Suite::parse(&std::fs::read(&file).unwrap()).unwrap();
        for step in &suite.steps {
            let command = rewrite_paths(step.kind.command(), folder);
            if !command.starts_with("loadsgf") || !seen.insert(command.clone()) {
                continue;
            }
            // A record GNU Go cannot load (one of its suites names a file it lacks) has no
            // position to compare.
            let Ok(answer) = engine.command(&command, LIMIT).await else {
                assert!(!engine.is_closed(), "GNU Go ended at {command}");
                continue;
            };
            compared += 1;
            let mut tracker = Tracker::new();
            tracker.observe(&command, true, &answer);
            let board = tracker
                .board()
                .unwrap_or_else(|why| panic!("{}: {command}: {why}", file.display()));
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
                assert_eq!(ours, gnugo, "{}: {command}: {word} stones", file.display());
            }
        }
    }
    engine.shutdown(Duration::from_secs(2)).await;
    compared
}

#[tokio::test]
async fn loadsgf_positions_are_gnugo_s() {
    if !gnugo_there() {
        return;
    }
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gnugo");
    let compared = compare(&data, Some(&["tiny.tst", "capture.tst", "heikki.tst"])).await;
    assert_eq!(compared, 37, "positions compared");
}

#[tokio::test]
async fn loadsgf_positions_of_a_whole_gnugo_regression_folder_are_gnugo_s() {
    let Some(folder) = std::env::var_os("GOREF_GNUGO_REGRESSION") else {
        eprintln!("skipping: set GOREF_GNUGO_REGRESSION to GNU Go's regression/ folder");
        return;
    };
    if !gnugo_there() {
        return;
    }
    let compared = compare(Path::new(&folder), None).await;
    eprintln!("{compared} positions compared");
    assert!(compared > 0);
}
