//! Fuzzes the match and tournament files (`goref match --config`, `goref tournament
//! --config`: TOML). Invariant (`goref_match::config::reads_back`): any text is refused with
//! where, or reads to settings that write out as TOML and read back to the same settings.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    assert!(goref_match::config::reads_back(&text), "{text:?}");
});
