//! Fuzzes certificates of perfect play (`goref_solve::certificate`, read by `goref solve
//! --check`). Invariants (`goref_solve::certificate::reads_back`): reading never panics; a
//! certificate that reads is written (`Certificate::to_lines`) as lines that read back to the
//! same certificate and are written the same again; checking it never panics. The tests
//! `the_parser_never_panics_and_what_it_accepts_writes_back_the_same` and
//! `edited_certificates_never_panic` of `crates/goref-solve/tests/certificate.rs` check the
//! same on random texts in CI.
#![no_main]

use goref_solve::certificate::reads_back;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(misread) = reads_back(&text) {
        panic!("{text:?}: {misread:?}");
    }
});
