//! Fuzzes regression suites (`goref regress`'s `.tst` files, gogui-regress's format) as
//! goref-regress's `Suite::parse` reads them: any bytes (not UTF-8, control characters, tabs,
//! CR LF, patterns that are no regular expression, numbers too large). Invariants
//! (`goref_regress::suite::reads_back`): reading never panics; a suite read, written out
//! (`Suite`'s `Display`), reads back to the same steps. The unit test
//! `every_suite_read_writes_out_and_reads_back_the_same` of
//! `crates/goref-regress/src/suite.rs` checks the same on random suites in CI.
#![no_main]

use goref_regress::suite::reads_back;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(misread) = reads_back(data) {
        panic!("{data:?}: {misread:?}");
    }
});
