//! Fuzzes every line CGOS's dialogue reads: a client's (`ServerMessage`), a viewer's
//! (`ViewerMessage`) and the door's (`ClientMessage` in each `Expect` state: hello, user name,
//! password, a move with and without analysis, ready, a viewer's `observe`). Invariant: reading
//! never panics, and a line that reads gives a message whose printed line reads back to the
//! same message (`goref_cgos::protocol::reads_back`). The property tests of
//! `crates/goref-cgos/tests/lines.rs` check the same on random lines in CI.
#![no_main]

use goref_cgos::protocol::reads_back;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The door reads UTF-8 lines only (`LineReader` refuses others): the bytes as they are
    // when they are UTF-8, else as the lossy text a careless reader would make of them.
    let line = String::from_utf8_lossy(data);
    if let Err(misread) = reads_back(&line) {
        panic!("{line:?}: {misread:?}");
    }
});
