//! Fuzzes what an engine prints, as goref-gtp's `ReplyParser` reads it line by line (any
//! bytes: CR LF, tabs, control bytes, text that is not UTF-8, ids too large for a number).
//! Invariants (`goref_gtp::reply::reads_back`): reading never panics; a stray line is never
//! blank; a reply's text never ends in blank space; every reply read, printed as an engine
//! would, reads back to the same reply. The unit test
//! `every_reply_read_prints_as_an_engine_would_and_reads_back_the_same` of
//! `crates/goref-gtp/src/reply.rs` checks the same on random output in CI.
#![no_main]

use goref_gtp::reply::reads_back;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(misread) = reads_back(data) {
        panic!("{data:?}: {misread:?}");
    }
});
