//! Fuzzes `tune.json` (`goref tune`'s state, read again to resume) as goref-tune's
//! `TuneFile::parse` reads it: any text. Invariants: reading never panics; a state read is
//! whole (its SPSA state has the file's steps and θ), and written out, reads back to the same
//! state (goref-tune reads numbers with serde_json's `float_roundtrip`).
#![no_main]

use goref_tune::TuneFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok((file, spsa)) = TuneFile::parse(text) {
        assert_eq!(spsa.done(), file.steps);
        assert_eq!(spsa.theta(), &file.theta[..]);
        let again = serde_json::to_string(&file).expect("a state read writes out");
        let (back, _) = TuneFile::parse(&again).expect("a state written reads back");
        assert_eq!(back, file);
    }
});
