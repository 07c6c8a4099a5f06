//! Fuzzes board graph files and shapes (`goref_rules::parse_graph`, read by `--graph` of
//! `goref solve`, `perft` and `bench`). Invariants: reading never panics; a graph that reads is
//! written in the same format (`goref_rules::graph_text`) and reads back to the same points
//! with the same neighbours, and writes the same text again. The unit test
//! `every_graph_read_is_written_and_read_back_the_same` of `crates/goref-rules/src/graph_spec.rs`
//! checks the same on random texts in CI.
#![no_main]

use goref_rules::{graph_text, parse_graph};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(graph) = parse_graph(&text) else {
        return;
    };
    let written = graph_text(&graph);
    let again = parse_graph(&written).expect("a written graph reads");
    assert_eq!(again.len(), graph.len(), "{text:?}");
    for p in graph.points() {
        let mut a: Vec<usize> = graph.neighbors(p).iter().map(|q| q.index()).collect();
        let mut b: Vec<usize> = again.neighbors(p).iter().map(|q| q.index()).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "{text:?}: point {}", p.index());
    }
    assert_eq!(graph_text(&again), written, "{text:?}");
});
