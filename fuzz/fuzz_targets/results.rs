//! Fuzzes the results a TD gives (SGF `RE` text, `Outcome::from_str`). Invariants: reading
//! never panics; a result that reads prints in SGF form and reads back to the same outcome; a
//! text that names a winner names the one the outcome has.
#![no_main]

use goref_rules::Outcome;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(outcome) = text.parse::<Outcome>() else {
        return;
    };
    let printed = outcome.to_sgf();
    assert_eq!(printed.parse::<Outcome>().ok(), Some(outcome), "{text:?} -> {printed}");
    match text.trim().chars().next() {
        Some('B' | 'b') => assert_eq!(printed.chars().next(), Some('B')),
        Some('W' | 'w') => assert_eq!(printed.chars().next(), Some('W')),
        _ => assert!(printed == "0" || printed == "Void", "{text:?} -> {printed}"),
    }
});
