//! Fuzzes what an engine prints, as goref-gtp's `ReplyParser` reads it line by line (any
//! bytes: CR LF, tabs, control bytes, text that is not UTF-8, ids too large for a number).
//! Invariants: reading never panics; a stray line is never blank; a reply's text never ends in
//! blank space; every reply read, printed as an engine would (`Reply`'s `Display`), reads back
//! to the same reply. The unit test `every_reply_read_prints_as_an_engine_would_and_reads_back_the_same`
//! of `crates/goref-gtp/src/reply.rs` checks the same on random output in CI.
#![no_main]

use goref_gtp::reply::{Event, ReplyParser};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut parser = ReplyParser::new();
    for line in data.split(|&b| b == b'\n') {
        match parser.push_line(line) {
            Event::Reply(reply) => {
                assert_eq!(reply.text.trim_end(), reply.text, "{data:?}");
                let printed = reply.to_string();
                let mut again = ReplyParser::new();
                let read: Vec<Event> = printed
                    .split_inclusive('\n')
                    .map(|l| again.push_line(l.as_bytes()))
                    .filter(|e| *e != Event::Pending)
                    .collect();
                assert_eq!(read, [Event::Reply(reply)], "{data:?} printed {printed:?}");
            }
            Event::Stray(text) => assert!(!text.trim().is_empty(), "{data:?}"),
            Event::Pending => {}
        }
    }
});
