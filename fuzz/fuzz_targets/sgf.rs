//! Fuzzes the SGF reader: any text either reads into a record or is refused with an error
//! naming a line; a record that reads writes back into text that reads into the same record
//! (lines aside), and replaying it under any preset never panics.
#![no_main]

use goref_rules::{Preset, Ruleset};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let record = match goref_sgf::parse(&text) {
        Ok(record) => record,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let written = goref_sgf::write(&record);
    let mut again = goref_sgf::parse(&written)
        .unwrap_or_else(|e| panic!("goref's own output does not read: {e}\n{written}"));
    // Lines are where the moves stood in the text read; everything else must be the same.
    let mut first = record.clone();
    for m in first.moves.iter_mut().chain(again.moves.iter_mut()) {
        m.line = 0;
    }
    assert_eq!(first, again, "{written}");
    for preset in Preset::ALL {
        let _ = record.replay(Ruleset::preset(preset));
    }
});
