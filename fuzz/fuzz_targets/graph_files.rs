//! Fuzzes board graph files and shapes (`goref_rules::parse_graph`, read by `--graph` of
//! `goref solve`, `perft` and `bench`). Invariants (`goref_rules::graph_reads_back`): reading
//! never panics; a graph that reads is written in the same format (`goref_rules::graph_text`)
//! and reads back to the same points with the same neighbours, and writes the same text again.
//! The unit test `every_graph_read_is_written_and_read_back_the_same` of
//! `crates/goref-rules/src/graph_spec.rs` checks the same on random texts in CI.
#![no_main]

use goref_rules::graph_reads_back;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(misread) = graph_reads_back(&text) {
        panic!("{text:?}: {misread:?}");
    }
});
