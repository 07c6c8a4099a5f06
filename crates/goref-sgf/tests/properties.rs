//! Property tests: any record written reads back the same; no input makes the reader panic,
//! and every error names a line.

use goref_rules::{Color, Geometry, Komi, Move, Point};
use goref_sgf::{parse, write, GameRecord, RecordedMove, Territory};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 +.:-]{0,12}",
        prop::collection::vec(any::<char>(), 0..12).prop_map(String::from_iter),
        prop::collection::vec(
            prop::sample::select(vec!['\\', ']', '[', '\n', '\r', ':', 'a']),
            0..8
        )
        .prop_map(String::from_iter),
    ]
}

/// Root game information beyond the players and result.
#[derive(Clone, Debug)]
struct Info {
    date: Option<String>,
    application: Option<String>,
    game_name: Option<String>,
    comment: Option<String>,
    handicap: Option<u32>,
    main_time: Option<f64>,
    overtime: Option<String>,
}

fn info() -> impl Strategy<Value = Info> {
    (
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(0u32..20),
        prop::option::of(prop_oneof![
            0.0f64..1e7,
            (0u32..100_000).prop_map(f64::from)
        ]),
        prop::option::of(text()),
    )
        .prop_map(
            |(date, application, game_name, comment, handicap, main_time, overtime)| Info {
                date,
                application,
                game_name,
                comment,
                handicap,
                main_time,
                overtime,
            },
        )
}

/// Seconds with three decimals (as they are written), some negative (an overrun clock).
fn seconds() -> impl Strategy<Value = f64> {
    (-5_000i64..100_000_000).prop_map(|ms| ms as f64 / 1000.0)
}

prop_compose! {
    fn record()(width in 1usize..=25, height in 1usize..=25)(
        width in Just(width),
        height in Just(height),
        komi in prop::option::of(-40i32..40),
        rules in prop::option::of(text()),
        black_player in prop::option::of(text()),
        white_player in prop::option::of(text()),
        result in prop::option::of(text()),
        first_player in prop::option::of(prop::sample::select(Color::ALL.to_vec())),
        setup in prop::collection::vec(
            (prop::sample::select(Color::ALL.to_vec()), 0..width * height), 0..12),
        moves in prop::collection::vec(
            (
                prop::sample::select(Color::ALL.to_vec()),
                prop::option::of(0..width * height),
                prop::option::of(text()),
                prop::option::of(seconds()),
                prop::option::of(0u32..30),
            ),
            0..40,
        ),
        info in info(),
        territory in prop::option::of(prop::collection::vec(
            prop::option::of(prop::sample::select(Color::ALL.to_vec())),
            width * height,
        )),
    ) -> GameRecord {
        let mut record = GameRecord::new(width, height);
        record.komi = komi.map(Komi::from_half_points);
        record.rules = rules;
        record.black_player = black_player;
        record.white_player = white_player;
        record.result = result;
        record.first_player = first_player;
        record.date = info.date;
        record.application = info.application;
        record.game_name = info.game_name;
        record.comment = info.comment;
        record.handicap = info.handicap;
        record.main_time = info.main_time;
        record.overtime = info.overtime;
        // As parse returns it: each side's points in point order, no point in both.
        record.territory = territory.map(|owners| {
            let of = |color| {
                owners
                    .iter()
                    .enumerate()
                    .filter(|&(_, &o)| o == Some(color))
                    .map(|(i, _)| Point::new(i))
                    .collect()
            };
            Territory {
                black: of(Color::Black),
                white: of(Color::White),
            }
        });
        // Setup as parse returns it: one colour a point, in point order, every string alive.
        let mut colors = vec![None; width * height];
        for (c, i) in setup {
            colors[i] = Some(c);
        }
        record.setup = colors
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.map(|c| (c, Point::new(i))))
            .collect();
        if record.start_board().is_err() {
            record.setup.clear();
        }
        record.moves = moves
            .into_iter()
            .map(|(color, point, comment, time_left, periods_left)| RecordedMove {
                comment,
                time_left,
                periods_left,
                ..RecordedMove::new(color, point.map_or(Move::Pass, |i| Move::Play(Point::new(i))))
            })
            .collect();
        record
    }
}

/// Text built mostly of SGF's own characters, so that much of it gets past the first byte.
fn sgf_like() -> impl Strategy<Value = String> {
    let pieces = vec![
        "(", ")", ";", "[", "]", "\\", " ", "\n", "\r", "B", "W", "AB", "AW", "AE", "PL", "SZ",
        "KM", "GM", "RU", "C", "HA", "TM", "BL", "WL", "OB", "OW", "TB", "TW", "AP", "DT", "[-1]",
        "[abc]", "[1.5]", "[aa]", "[tt]", "[]", "[19]", "[5:6]", "[1]", "[7.5]", "[aa:cc]", "[zz]",
        "[B]", "(;", ";B[", ";W[", "é", "x", "0",
    ];
    prop::collection::vec(prop::sample::select(pieces), 0..60).prop_map(|v| v.concat())
}

fn check(text: &str) {
    match parse(text) {
        Ok(record) => {
            // A record that was read has a board and a start position.
            record.start_board().unwrap();
            // And writes out to a file that reads back the same.
            let again = parse(&write(&record)).unwrap();
            assert_eq!(strip(&again), strip(&record));
        }
        Err(e) => {
            assert!(e.line().is_some_and(|l| l >= 1), "{e:?}");
            assert!(e.to_string().starts_with("line "), "{e}");
        }
    }
}

fn strip(r: &GameRecord) -> GameRecord {
    let mut r = r.clone();
    for m in &mut r.moves {
        m.line = 0;
    }
    r
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn written_records_read_back_the_same(record in record()) {
        let text = write(&record);
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(strip(&back), record.clone());
        // Moves are on increasing lines, each after the root's.
        let lines: Vec<usize> = back.moves.iter().map(|m| m.line).collect();
        prop_assert!(lines.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(lines.first().is_none_or(|&l| l >= 2));
        let geometry = Geometry::rect(record.width, record.height).unwrap();
        prop_assert_eq!(geometry.len(), record.width * record.height);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn sgf_like_text_never_panics(text in sgf_like()) {
        check(&text);
        check(&format!("(;{text}"));
        check(&format!("(;SZ[9];B[aa]{text})"));
    }
}

fn data_files() -> Vec<String> {
    ["nine.sgf", "handicap.sgf", "wide.sgf"]
        .iter()
        .map(|name| {
            let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
            std::fs::read_to_string(path).unwrap()
        })
        .collect()
}

#[test]
fn truncated_and_damaged_files_never_panic() {
    let mut texts = data_files();
    texts.push(write(&parse(&texts[0]).unwrap()));
    for text in &texts {
        for (i, _) in text.char_indices() {
            check(&text[..i]);
            // Without one character.
            let next = text[i..].chars().next().map_or(0, char::len_utf8);
            check(&format!("{}{}", &text[..i], &text[i + next..]));
            // With one character changed into SGF punctuation.
            for c in ["]", "[", "(", ")", ";", "\\"] {
                check(&format!("{}{c}{}", &text[..i], &text[i + next..]));
            }
        }
    }
}

#[test]
fn every_truncation_that_fails_names_a_line_within_the_file() {
    for text in data_files() {
        let last_line = text.lines().count().max(1);
        for (i, _) in text.char_indices() {
            if let Err(e) = parse(&text[..i]) {
                let line = e.line().unwrap();
                assert!((1..=last_line).contains(&line), "{e}");
            }
        }
    }
}
