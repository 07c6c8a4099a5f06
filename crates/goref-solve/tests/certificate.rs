//! Certificates (issue 41): made by [`certify`] from the solver's proof, written and read
//! back, and verified by [`check`], which plays by `goref-literal`'s rules and nothing of the
//! search. Corrupted certificates are refused with the line that fails; the parser takes any
//! text without panicking, and what it accepts it writes back the same.

use goref_rules::{Color, End, Game, Komi, Move, Preset, Ruleset};
use goref_solve::certificate::{check, reads_back, Certificate, FormatErrorKind, RefutationKind};
use goref_solve::{certify, solve, Options, Value, Verdict, MAX_CERTIFICATE_LINES};
use proptest::prelude::*;

fn options() -> Options {
    Options {
        threads: 1,
        ..Options::default()
    }
}

fn game_after(w: usize, h: usize, rules: Ruleset, moves: &[&str]) -> Game {
    let mut game = Game::rect(w, h, rules).unwrap();
    for name in moves {
        let mv = if *name == "pass" {
            Move::Pass
        } else {
            Move::Play(game.geometry().parse_point(name).unwrap())
        };
        game.play(mv).unwrap();
    }
    game
}

fn certified(game: &Game, preset: Preset) -> Certificate {
    certify(game, preset, &options(), MAX_CERTIFICATE_LINES)
        .unwrap()
        .certificate
}

/// The certificate written as its file's text.
fn text(c: &Certificate) -> String {
    let mut t = c.to_lines().join("\n");
    t.push('\n');
    t
}

/// Reference 004, after rule 9: on 3×2, after 1.B[b1] 2.W[a2] 3.B[b2], "Black can kill all
/// White chains: the game will end Black +6".
const EXAMPLE_004: [&str; 3] = ["b1", "a2", "b2"];

/// Each board with its value under both presets (the measurements' table; 004's example
/// B+6).
fn boards() -> Vec<(usize, usize, &'static [&'static str], &'static str)> {
    vec![
        (1, 1, &[], "0"),
        (1, 2, &[], "0"),
        (1, 3, &[], "B+3"),
        (1, 4, &[], "B+4"),
        (1, 5, &[], "0"),
        (1, 6, &[], "B+1"),
        (2, 2, &[], "B+1"),
        (2, 3, &[], "0"),
        (3, 3, &[], "B+9"),
        (3, 2, &EXAMPLE_004, "B+6"),
    ]
}

/// The empty boards 1×1 to 1×6, 2×2, 2×3, 3×3 and reference 004's example, under nstt and
/// tromp-taylor: each certificate, written and read back, checks, at the published value,
/// and both strategies have lines. (3×3 takes some 0.2 s in the test build: the solver and
/// the literal rules are optimised there.)
#[test]
fn empty_boards_and_004s_example_are_certified_and_check() {
    for (w, h, moves, value) in boards() {
        for preset in [Preset::Nstt, Preset::TrompTaylor] {
            let game = game_after(w, h, Ruleset::preset(preset), moves);
            let c = certified(&game, preset);
            let what = format!("{w}x{h} {preset} {moves:?}");
            assert_eq!(c.header.value.to_sgf(), value, "{what}");
            let read = Certificate::parse(&text(&c)).unwrap();
            assert_eq!(read, c, "{what}");
            let checked = check(&read).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(checked.value.to_sgf(), value, "{what}");
            assert!(checked.black_lines > 0 && checked.white_lines > 0, "{what}");
            assert_eq!(
                checked.black_lines + checked.white_lines,
                c.lines.len(),
                "{what}"
            );
        }
    }
}

/// The header says what was solved: the board, the preset, a ko rule only when it is not
/// the preset's, komi, the moves, the value; under the long cycle rule and situational
/// superko the certificates check too.
#[test]
fn the_header_names_the_position_and_other_rules_check() {
    let game = game_after(3, 2, Ruleset::TROMP_TAYLOR, &EXAMPLE_004);
    let c = certified(&game, Preset::TrompTaylor);
    assert_eq!(
        c.to_lines()[0],
        r#"{"board":"3x2","rules":"tromp-taylor","komi":0,"moves":["B1","A2","B2"],"value":6}"#
    );
    let rules = Ruleset {
        ko: goref_rules::KoRule::SituationalSuperko,
        ..Ruleset::NSTT.with_komi(Komi::from_half_points(1))
    };
    let c = certified(&game_after(2, 2, rules, &[]), Preset::Nstt);
    assert_eq!(
        c.to_lines()[0],
        r#"{"board":"2x2","rules":"nstt","ko":"situational","komi":0.5,"moves":[],"value":0.5}"#
    );
    check(&Certificate::parse(&text(&c)).unwrap()).unwrap();
    // The Olympiad's rules (komi 0): 2×2 is a drawn long cycle, 0.
    let olympiad = Ruleset::OLYMPIAD.with_komi(Komi::ZERO);
    for (w, h) in [(2, 2), (1, 4), (2, 3)] {
        let game = game_after(w, h, olympiad, &[]);
        let c = certified(&game, Preset::Olympiad);
        let Verdict::Proven(v) = solve(&game, &options()).unwrap().verdict else {
            panic!("unsolved")
        };
        assert_eq!(c.header.value, v);
        assert_eq!(check(&c).unwrap().value, v, "{w}x{h}");
    }
}

/// A position whose game has ended has its value and no strategy lines.
#[test]
fn an_ended_game_is_certified_by_its_score() {
    let game = game_after(
        3,
        2,
        Ruleset::TROMP_TAYLOR,
        &["b1", "a2", "b2", "pass", "pass"],
    );
    let c = certified(&game, Preset::TrompTaylor);
    assert_eq!(c.header.value.to_sgf(), "B+3");
    assert!(c.lines.is_empty());
    assert_eq!(check(&c).unwrap().ends, 2);
}

/// What a certificate cannot say is refused: a graph, stones set up, a game played on after
/// two passes, a ruleset that is no preset's.
#[test]
fn certify_refuses_what_the_form_cannot_say() {
    use goref_solve::CertifyError;
    let refused = |game: &Game, preset| {
        certify(game, preset, &options(), MAX_CERTIFICATE_LINES)
            .map(|_| ())
            .unwrap_err()
    };
    let cycle = goref_rules::Geometry::graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]).unwrap();
    let on_a_graph = Game::new(std::sync::Arc::new(cycle), Ruleset::NSTT);
    assert_eq!(
        refused(&on_a_graph, Preset::Nstt),
        CertifyError::NotFromTheEmptyBoard
    );
    let mut resumed = game_after(2, 2, Ruleset::NSTT, &["a1", "pass", "pass"]);
    resumed.resume();
    resumed.play(Move::Pass).unwrap();
    assert_eq!(refused(&resumed, Preset::Nstt), CertifyError::Resumed);
    let game = game_after(2, 2, Ruleset::TROMP_TAYLOR, &[]);
    assert_eq!(refused(&game, Preset::Nstt), CertifyError::NotAPreset);
    // A budget too small for the proof.
    let small = Options {
        budget: Some(3),
        ..options()
    };
    let game = game_after(2, 3, Ruleset::NSTT, &[]);
    assert_eq!(
        certify(&game, Preset::Nstt, &small, MAX_CERTIFICATE_LINES).map(|_| ()),
        Err(CertifyError::Undecided)
    );
    // Budgets that prove the value but run out while the strategies are extracted:
    // undecided, and the search's line is left as it was (the principal variation is found
    // after them); a budget for both gives the certificate.
    let full = certify(&game, Preset::Nstt, &options(), MAX_CERTIFICATE_LINES).unwrap();
    let (proof, strategies) = (full.report.nodes, full.strategy_nodes);
    assert!(strategies > proof, "{strategies} {proof}");
    for budget in [proof, (proof + strategies) / 2, strategies - 1] {
        let within = Options {
            budget: Some(budget),
            ..options()
        };
        assert_eq!(
            certify(&game, Preset::Nstt, &within, MAX_CERTIFICATE_LINES).map(|_| ()),
            Err(CertifyError::Undecided),
            "{budget}"
        );
    }
    let enough = Options {
        budget: Some(strategies),
        ..options()
    };
    let certified = certify(&game, Preset::Nstt, &enough, MAX_CERTIFICATE_LINES).unwrap();
    assert_eq!(certified.certificate, full.certificate);
    // A limit on the lines.
    assert_eq!(
        certify(&game, Preset::Nstt, &options(), 100).map(|_| ()),
        Err(CertifyError::TooLarge { limit: 100 })
    );
}

/// The certificates of the corruption tests: 004's example and the empty 2×2, under nstt.
fn small_certificates() -> Vec<Certificate> {
    vec![
        certified(&game_after(3, 2, Ruleset::NSTT, &EXAMPLE_004), Preset::Nstt),
        certified(&game_after(2, 2, Ruleset::NSTT, &[]), Preset::Nstt),
    ]
}

/// The game at a strategy line's turn: the header's moves, then the line's.
fn game_at(c: &Certificate, line: &[Move]) -> Game {
    let mut game = Game::rect(c.header.width, c.header.height, c.header.rules()).unwrap();
    for &mv in c.header.moves.iter().chain(line) {
        game.play(mv).unwrap();
    }
    game
}

/// A wrong move: each line's play replaced by every other legal move, and by a play on a
/// stone. The certificate is refused at that line (an illegal play; a reply it then misses;
/// a false value), or, where the other move ends the game within the bound, at a later line
/// its strategy no longer reaches.
#[test]
fn a_wrong_move_is_refused_at_its_line() {
    for c in small_certificates() {
        for i in 0..c.lines.len() {
            let number = i + 2;
            let game = game_at(&c, &c.lines[i].line);
            let mut wrong: Vec<Move> = game
                .legal_moves()
                .into_iter()
                .filter(|&m| m != c.lines[i].play)
                .collect();
            let occupied = game
                .geometry()
                .points()
                .find(|&p| game.board().get(p).is_some());
            wrong.extend(occupied.map(Move::Play));
            for mv in wrong {
                let mut bad = c.clone();
                bad.lines[i].play = mv;
                let refused = check(&bad).expect_err("a wrong move is refused");
                match refused.kind {
                    RefutationKind::Unreached { .. } => {
                        assert!(refused.line > number, "{refused}");
                        // The move ends the game, within the bound.
                        let mut ended = game.clone();
                        ended.play(mv).unwrap();
                        assert!(ended.is_over(), "{refused}");
                    }
                    RefutationKind::IllegalPlay { .. } => {
                        assert_eq!(refused.line, number, "{refused}");
                        assert!(!game.is_legal(mv), "{refused}");
                    }
                    RefutationKind::MissingReply { .. } | RefutationKind::FalseValue { .. } => {
                        assert_eq!(refused.line, number, "{refused}");
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
    }
}

/// A missing reply: each line taken out in turn. The strategy then has no play at a turn it
/// reaches, after the line before it in the strategy (the prover's play, the other side's
/// reply), which is the line refused (the header, line 1, for the first turns).
#[test]
fn a_missing_reply_is_refused_at_the_line_before_it() {
    for c in small_certificates() {
        for i in 0..c.lines.len() {
            let mut bad = c.clone();
            let gone = bad.lines.remove(i);
            let n = gone.line.len();
            let parent = if n < 2 {
                1
            } else {
                2 + bad
                    .lines
                    .iter()
                    .position(|l| {
                        l.proves == gone.proves
                            && l.line == gone.line[..n - 2]
                            && l.play == gone.line[n - 2]
                    })
                    .expect("the line before it")
            };
            // Written and read back, as the checker's input would be.
            let bad = Certificate::parse(&text(&bad)).unwrap();
            let refused = check(&bad).expect_err("a missing reply is refused");
            assert_eq!(refused.line, parent, "{refused}");
            assert!(
                matches!(refused.kind, RefutationKind::MissingReply { proves, .. } if proves == gone.proves),
                "{refused}"
            );
        }
    }
}

/// A false value: half a point more is refused by Black's strategy, half a point less by
/// White's, each at a game end that its turns reach, which the rules score past the claim.
#[test]
fn a_false_value_is_refused_with_the_game_that_disproves_it() {
    for c in small_certificates() {
        let Some(v) = c.header.value.half_points() else {
            panic!("a value in points")
        };
        for (claim, prover) in [(v + 1, Color::Black), (v - 1, Color::White)] {
            let mut bad = c.clone();
            bad.header.value = Value::points(claim);
            let refused = check(&bad).expect_err("a false value is refused");
            let RefutationKind::FalseValue {
                proves, after, end, ..
            } = &refused.kind
            else {
                panic!("{refused}")
            };
            assert_eq!(*proves, prover);
            // The line refused is the prover's last on the way there (or the header).
            assert!(
                refused.line == 1 || bad.lines[refused.line - 2].proves == prover,
                "{refused}"
            );
            let turns: Vec<Move> = after
                .split_whitespace()
                .map(|t| {
                    if t == "pass" {
                        Move::Pass
                    } else {
                        Move::Play(
                            Game::rect(c.header.width, c.header.height, c.header.rules())
                                .unwrap()
                                .geometry()
                                .parse_point(t)
                                .unwrap(),
                        )
                    }
                })
                .collect();
            let ended = game_at(&c, &turns);
            assert_eq!(ended.end(), Some(End::TwoPasses));
            assert_eq!(Value::points(ended.score().margin_half_points()), *end);
            match prover {
                Color::Black => assert!(*end < Value::points(claim)),
                Color::White => assert!(*end > Value::points(claim)),
            }
        }
    }
}

/// A malformed file is a format error with its line, never a panic.
#[test]
fn malformed_certificates_say_what_and_where() {
    let good = text(&small_certificates()[0]);
    /// A text, the line of its error, and what the error must be.
    type Case = (String, usize, fn(&FormatErrorKind) -> bool);
    let cases: Vec<Case> = vec![
        (String::new(), 1, |k| *k == FormatErrorKind::NoHeader),
        (good.replacen("3x2", "3y2", 1), 1, |k| {
            matches!(k, FormatErrorKind::Board(_))
        }),
        (
            good.replacen("tromp-taylor", "japanese", 1)
                .replacen("nstt", "japanese", 1),
            1,
            |k| matches!(k, FormatErrorKind::Rules(_)),
        ),
        (good.replacen("\"komi\":0", "\"komi\":0.3", 1), 1, |k| {
            matches!(k, FormatErrorKind::Komi(_))
        }),
        (
            good.replacen("\"value\":6", "\"value\":\"six\"", 1),
            1,
            |k| matches!(k, FormatErrorKind::Value(_)),
        ),
        (good.replacen("\"play\":\"", "\"play\":\"Z", 1), 2, |k| {
            matches!(k, FormatErrorKind::Vertex(_))
        }),
        (
            good.replacen("\"proves\":\"black\"", "\"proves\":\"red\"", 1),
            2,
            |k| matches!(k, FormatErrorKind::Proves(_)),
        ),
        (good.replacen('\n', "\n\n", 1), 2, |k| {
            *k == FormatErrorKind::BlankLine
        }),
        (good.replacen("}\n", ",\"extra\":1}\n", 2), 1, |k| {
            matches!(k, FormatErrorKind::Json(_))
        }),
        (
            {
                let second = good.lines().nth(1).unwrap();
                good.replacen(second, &format!("{second}\n{second}"), 1)
            },
            3,
            |k| *k == FormatErrorKind::Duplicate { first: 2 },
        ),
    ];
    for (text, line, kind) in cases {
        let e = Certificate::parse(&text).expect_err("malformed");
        assert_eq!(e.line, line, "{e}");
        assert!(kind(&e.kind), "{e}");
    }
    assert_eq!(reads_back(&good), Ok(true));
    assert_eq!(reads_back("{}"), Ok(false));
    // Lower case vertices are read; they are written in goref solve's case.
    let lower = good.replace("\"B1\"", "\"b1\"");
    assert_ne!(lower, good);
    assert_eq!(text_of(&lower), good);
}

fn text_of(t: &str) -> String {
    text(&Certificate::parse(t).unwrap())
}

/// The checker shares nothing with the search: its module names neither the search nor the
/// bit boards.
#[test]
fn the_checker_does_not_use_the_search() {
    let source = include_str!("../src/certificate/check.rs");
    for word in [
        "search::",
        "bits::",
        "strategy::",
        "crate::solve",
        "super::super",
    ] {
        let uses = source
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .any(|l| l.contains(word));
        assert!(!uses, "check.rs uses {word}");
    }
}

/// A random small position with history: `moves` random legal turns from the empty board.
fn random_game(w: usize, h: usize, rules: Ruleset, seed: u64, moves: usize) -> Game {
    let mut rng = seed | 1;
    let mut game = Game::rect(w, h, rules).unwrap();
    for _ in 0..moves {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let legal = game.legal_moves();
        game.play(legal[(rng % legal.len() as u64) as usize])
            .unwrap();
        if game.is_over() {
            break;
        }
    }
    game
}

/// Pieces of the format, mostly good, some not quite.
fn vertex() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just("\"A1\"".to_string()),
        4 => Just("\"b2\"".to_string()),
        4 => Just("\"pass\"".to_string()),
        1 => Just("\"PASS\"".to_string()),
        1 => Just("\"C1\"".to_string()),
        1 => Just("\"#1\"".to_string()),
        1 => Just("\" A1\"".to_string()),
        1 => "\"[A-Za-z0-9#]{0,3}\"",
    ]
}

fn turns() -> impl Strategy<Value = String> {
    prop::collection::vec(vertex(), 0..4).prop_map(|v| v.join(","))
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just("0".to_string()),
        2 => Just("-0.5".to_string()),
        1 => Just("1e1".to_string()),
        2 => Just("7.5".to_string()),
        1 => Just("0.25".to_string()),
        1 => Just("1e400".to_string()),
        4 => "-?[0-9]{1,3}(\\.[05])?",
    ]
}

/// A header, or something like one.
fn header_like() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        6 => number(),
        1 => Just("\"B+\"".to_string()),
        1 => Just("\"W+\"".to_string()),
        1 => Just("\"B+6\"".to_string()),
        1 => Just("null".to_string()),
    ];
    let board = prop_oneof![
        6 => Just("2x2".to_string()),
        3 => Just("2x1".to_string()),
        1 => Just("02x2".to_string()),
        1 => Just("0x3".to_string()),
        1 => Just("26x1".to_string()),
        1 => "[0-9x]{0,4}",
    ];
    let rules = prop_oneof![
        3 => Just("nstt".to_string()),
        3 => Just("tromp-taylor".to_string()),
        3 => Just("olympiad".to_string()),
        1 => Just("NSTT".to_string()),
        1 => Just("tt".to_string()),
    ];
    let ko = prop_oneof![
        6 => Just(String::new()),
        1 => Just(",\"ko\":\"positional\"".to_string()),
        1 => Just(",\"ko\":\"long-cycle\"".to_string()),
        1 => Just(",\"ko\":\"simple\"".to_string()),
        1 => Just(",\"ko\":null".to_string()),
    ];
    (board, rules, ko, number(), turns(), value).prop_map(|(b, r, ko, k, m, v)| {
        format!(r#"{{"board":"{b}","rules":"{r}"{ko},"komi":{k},"moves":[{m}],"value":{v}}}"#)
    })
}

/// A strategy line, or something like one.
fn strategy_like() -> impl Strategy<Value = String> {
    let side = prop_oneof![
        4 => Just("black".to_string()),
        4 => Just("white".to_string()),
        1 => Just("Black".to_string()),
    ];
    let line = (side, turns(), vertex())
        .prop_map(|(s, l, p)| format!(r#"{{"proves":"{s}","line":[{l}],"play":{p}}}"#));
    prop_oneof![
        12 => line,
        1 => ".{0,30}",
        1 => Just(String::new()),
        1 => Just("{}".to_string()),
        1 => Just("[1,2]".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Certificates of random small positions with history (1×n, 2×2, 2×3 after a few
    /// random legal turns, under the three presets, komi 0 or ½) all check, at the value the
    /// solver gives.
    #[test]
    fn random_positions_with_history_are_certified_and_check(
        board in 0usize..7,
        preset in 0usize..3,
        half_komi in 0i32..2,
        seed in any::<u64>(),
        moves in 0usize..7,
    ) {
        let (w, h) = [(1, 3), (1, 4), (1, 5), (1, 6), (2, 2), (2, 3), (3, 2)][board];
        let preset = Preset::ALL[preset];
        let rules = Ruleset::preset(preset).with_komi(Komi::from_half_points(half_komi));
        let game = random_game(w, h, rules, seed, moves);
        let c = certified(&game, preset);
        let Verdict::Proven(v) = solve(&game, &options()).unwrap().verdict else {
            panic!("unsolved")
        };
        prop_assert_eq!(c.header.value, v);
        let read = Certificate::parse(&text(&c)).unwrap();
        prop_assert_eq!(&read, &c);
        let checked = check(&read);
        prop_assert!(checked.is_ok(), "{:?}: {}", game.moves(), checked.unwrap_err());
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The parser on lines made of the format's pieces and of anything: it never panics;
    /// what it accepts, written again, reads back the same, and writing that gives the same
    /// lines; the checker never panics on it either.
    #[test]
    fn the_parser_never_panics_and_what_it_accepts_writes_back_the_same(
        header in header_like(),
        lines in prop::collection::vec(strategy_like(), 0..5),
        bytes in prop::collection::vec(any::<u8>(), 0..40),
    ) {
        let mut made = vec![header];
        made.extend(lines);
        for text in [made.join("\n"), String::from_utf8_lossy(&bytes).into_owned()] {
            prop_assert_eq!(reads_back(&text).map(|_| ()), Ok(()));
        }
    }

    /// Random edits of a good certificate: never a panic, and an accepted edit still writes
    /// back the same; the checker refuses it unless it is the same certificate.
    #[test]
    fn edited_certificates_never_panic(
        at in any::<prop::sample::Index>(),
        cut in 0usize..4,
        insert in "[\\[\\]{}\",:a-z0-9 ]{0,3}",
    ) {
        let good = text(&small_certificates()[0]);
        let mut chars: Vec<char> = good.chars().collect();
        let i = at.index(chars.len());
        let end = (i + cut).min(chars.len());
        chars.splice(i..end, insert.chars());
        let edited: String = chars.into_iter().collect();
        prop_assert_eq!(reads_back(&edited).map(|_| ()), Ok(()));
        if let Ok(c) = Certificate::parse(&edited) {
            let original = Certificate::parse(&good).unwrap();
            if check(&c).is_ok() && c != original {
                // Only an edit that changes nothing the checker reads (a vertex's case, a
                // number's form) or still proves the value may pass: it must still be a
                // proof of the same value from the same position.
                prop_assert_eq!(c.header.value, original.header.value);
                prop_assert_eq!(&c.header.moves, &original.header.moves);
            }
        }
    }
}
