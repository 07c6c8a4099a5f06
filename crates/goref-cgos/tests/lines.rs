//! The invariant of the fuzz target `cgos_lines` (`fuzz/fuzz_targets/cgos_lines.rs`), on
//! random lines in CI: every line, read every way the dialogue reads one (a client's
//! [`ServerMessage`](goref_cgos::ServerMessage), a viewer's
//! [`ViewerMessage`](goref_cgos::ViewerMessage), the door's
//! [`ClientMessage`](goref_cgos::ClientMessage) in each state), is an error or a message whose
//! line reads back to the same message; never a panic.

use goref_cgos::protocol::reads_back;
use proptest::prelude::*;

/// Words of the dialogue, and words near them.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(vec![
            "protocol",
            "genmove_analyze",
            "username",
            "password",
            "setup",
            "genmove",
            "play",
            "gameover",
            "info",
            "Error:",
            "match",
            "update",
            "observe",
            "ready",
            "quit",
            "resign",
            "pass",
            "PASS",
            "e1",
            "v1",
            "-",
            "?",
            "b",
            "w",
            "B",
            "W",
            "Draw",
            "draw",
            "Abort",
            "B+Resign",
            "W+Time",
            "b+illegal",
            "B+2.5",
            "W+3",
            "W+0",
            "B+7.25",
            "x(1800?)",
            "name(0)",
            "a(",
            "(12)",
            "7.5",
            "-0.5",
            "7",
            "7.",
            "2024-03-09",
            "2024-02-31",
            "9999-12-31",
            "14:05",
            "24:00",
            "00:00",
            "9",
            "19",
            "25",
            "26",
            "0",
            "D4",
            "d4",
            "t19",
            "Z25",
            "I5",
            "A0",
            "300000",
            "-150",
            "+5",
            "18446744073709551616",
            "{\"a\":1}",
        ])
        .prop_map(str::to_string),
        "[0-9]{1,20}",
        "[A-Za-z][0-9]{1,2}",
        "[!-~]{1,6}",
        "\\PC{1,4}",
    ]
}

/// A line of words with spaces and tabs between, and maybe a line end.
fn line() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec((word(), "[ \t]{1,2}"), 0..14),
        proptest::sample::select(vec!["", "\n", "\r\n", " ", "\t"]),
    )
        .prop_map(|(words, end)| {
            let mut line: String = words.into_iter().map(|(w, s)| w + &s).collect();
            line.push_str(end);
            line
        })
}

/// Lines the dialogue sends, each with some of its words replaced by others.
fn mutated() -> impl Strategy<Value = String> {
    let lines = vec![
        "protocol genmove_analyze",
        "setup 7 19 7.5 1800000 programA(1800?) programB(1800?) E5 1700000 H3 1600000 pass 1500000",
        "genmove w -150",
        "play b pass 0",
        "gameover 2024-03-09 W+Illegal Illegal move error:KO attempted move:D4",
        "info another login is being attempted using this user name",
        "Error: Sorry, password doesn't match",
        "match 1201 2024-03-09 14:05 9 7.5 alpha(1800?) beta(1650) B+2.5",
        "match 1204 - - 9 7.5 alpha(1800?) beta(1650) -",
        "setup 1204 - - 9 7.5 alpha(1800?) beta(1650) 300000 E5 299000 C3 298500",
        "setup 1201 2024-03-09 14:05 9 7.5 a(1) b(2) 300000 E5 299000 resign 1 W+Resign",
        "setup 99 ?",
        "update 1204 D4 297321",
        "update 1204 B+Time",
        "gameover 1204 W+Resign 100000 80000",
        "e1 cgosPython 1.0.0 genmove_analyze",
        "v1 cgosview 0.32",
        "oldpw newpw",
        "Q16 {\"winrate\":0.51}",
        "ready",
        "observe 1204",
    ];
    (
        proptest::sample::select(lines),
        proptest::collection::vec((0usize..16, word()), 1..3),
    )
        .prop_map(|(line, changes)| {
            let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
            for (at, with) in changes {
                let at = at % (words.len() + 1);
                if at == words.len() {
                    words.push(with);
                } else {
                    words[at] = with;
                }
            }
            words.join(" ")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn protocol_lines_read_as_errors_or_messages_that_read_back(line in line()) {
        prop_assert_eq!(reads_back(&line), Ok(()));
    }

    #[test]
    fn changed_protocol_lines_read_as_errors_or_messages_that_read_back(line in mutated()) {
        prop_assert_eq!(reads_back(&line), Ok(()));
    }

    #[test]
    fn any_bytes_read_as_errors_or_messages_that_read_back(
        bytes in proptest::collection::vec(any::<u8>(), 0..200),
    ) {
        let line = String::from_utf8_lossy(&bytes);
        prop_assert_eq!(reads_back(&line), Ok(()));
    }
}
