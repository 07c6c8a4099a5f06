//! Reading and writing SGF records: sizes, game information, setup, passes, the main line,
//! round trips, and errors that name the line and the move.

use goref_rules::{Color, Geometry, Komi, Move, Point, Preset};
use goref_sgf::{parse, preset_from_rules, write, GameRecord, MoveProblem, RecordedMove, SgfError};

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

fn play(g: &Geometry, x: usize, y: usize) -> Move {
    Move::Play(g.at(x, y).unwrap())
}

fn moves(record: &GameRecord) -> Vec<(Color, Move)> {
    record.moves.iter().map(|m| (m.color, m.mv)).collect()
}

fn error(text: &str) -> (SgfError, String) {
    let e = parse(text).expect_err(text);
    let s = e.to_string();
    (e, s)
}

#[test]
fn sizes_square_rectangular_and_default() {
    let r = parse("(;SZ[9])").unwrap();
    assert_eq!((r.width, r.height), (9, 9));
    let r = parse("(;SZ[5:6];B[eb])").unwrap();
    assert_eq!((r.width, r.height), (5, 6));
    let g = r.geometry().unwrap();
    assert_eq!(g.size(), Some((5, 6)));
    assert_eq!(moves(&r), [(Color::Black, play(&g, 4, 1))]);
    // Column f does not exist on a board 5 wide; row f does on one 6 high.
    assert!(parse("(;SZ[5:6];B[af])").is_ok());
    let (e, s) = error("(;SZ[5:6];B[fa])");
    assert_eq!(e.move_number(), Some(1));
    assert_eq!(s, "line 1, column 11: move 1 (B[fa]) is off the 5x6 board");
    let r = parse("(;GM[1])").unwrap();
    assert_eq!((r.width, r.height), (19, 19));
    assert_eq!(r, GameRecord::default());
}

#[test]
fn komi_rules_players_and_result() {
    let r = parse("(;KM[7.5]RU[Chinese]PB[A \\] B]PW[C\\\\D]RE[W+R])").unwrap();
    assert_eq!(r.komi, Some(Komi::from_half_points(15)));
    assert_eq!(r.rules.as_deref(), Some("Chinese"));
    assert_eq!(r.preset(), Some(Preset::Olympiad));
    assert_eq!(r.black_player.as_deref(), Some("A ] B"));
    assert_eq!(r.white_player.as_deref(), Some("C\\D"));
    assert_eq!(r.result.as_deref(), Some("W+R"));
    let r = parse("(;KM[-3])").unwrap();
    assert_eq!(r.komi, Some(Komi::from_half_points(-6)));
    assert_eq!(r.komi.unwrap().to_string(), "-3");
    assert_eq!(
        parse("(;KM[6.50])").unwrap().komi.unwrap().to_string(),
        "6.5"
    );
    assert_eq!(parse("(;)").unwrap().komi, None);
    // Game information may sit in a later node of the main line.
    let r = parse("(;SZ[9];KM[5]PB[x];B[aa])").unwrap();
    assert_eq!(
        (r.komi.unwrap().to_string(), r.black_player),
        ("5".into(), Some("x".into()))
    );
}

#[test]
fn presets_from_rules_text() {
    for (text, preset) in [
        ("tromp-taylor", Some(Preset::TrompTaylor)),
        ("Tromp Taylor", Some(Preset::TrompTaylor)),
        ("TT", Some(Preset::TrompTaylor)),
        ("tromp_taylor", Some(Preset::TrompTaylor)),
        ("NSTT", Some(Preset::Nstt)),
        ("no-suicide tromp-taylor", Some(Preset::Nstt)),
        ("No Suicide Tromp Taylor", Some(Preset::Nstt)),
        ("olympiad", Some(Preset::Olympiad)),
        ("Computer Olympiad", Some(Preset::Olympiad)),
        ("Chinese", Some(Preset::Olympiad)),
        ("CN", Some(Preset::Olympiad)),
        (" cn ", Some(Preset::Olympiad)),
        ("Japanese", None),
        ("", None),
    ] {
        assert_eq!(preset_from_rules(text), preset, "{text}");
    }
    assert_eq!(GameRecord::default().preset(), None);
}

#[test]
fn setup_stones_and_first_player() {
    let r = parse("(;SZ[9]AB[cc][gc:gd]AW[ee]PL[W];W[aa])").unwrap();
    let g = r.geometry().unwrap();
    let at = |x, y| g.at(x, y).unwrap();
    assert_eq!(
        r.setup,
        [
            (Color::Black, at(2, 2)),
            (Color::Black, at(6, 2)),
            (Color::Black, at(6, 3)),
            (Color::White, at(4, 4)),
        ]
    );
    assert_eq!(r.first_player, Some(Color::White));
    let board = r.start_board().unwrap();
    assert_eq!(board.stone_count(Color::Black), 3);
    assert_eq!(board.get(at(4, 4)), Some(Color::White));
    // Setup over several nodes before the first move; AE takes a stone away.
    let r = parse("(;SZ[9]AB[aa][bb];AE[aa]AW[cc];B[dd])").unwrap();
    assert_eq!(
        r.setup,
        [(Color::Black, at(1, 1)), (Color::White, at(2, 2))]
    );
    // A setup string without liberties.
    let (_, s) = error("(;SZ[3]\nAB[ba][ab]\nAW[aa])");
    assert_eq!(
        s,
        "line 3, column 1: setup leaves the string at aa without liberties"
    );
    let (_, s) = error("(;SZ[9];B[aa];AB[bb])");
    assert_eq!(
        s,
        "line 1, column 15: AB after move 1: setup is read only before the first move"
    );
    let (e, _) = error("(;SZ[9]AB[bb]B[aa])");
    assert!(matches!(
        e,
        SgfError::Move {
            problem: MoveProblem::WithSetup,
            number: 1,
            ..
        }
    ));
    let (_, s) = error("(;SZ[9]AB[bb]AW[bb])");
    assert_eq!(
        s,
        "line 1, column 14: point bb is in both AB and AW of one node"
    );
    let (_, s) = error("(;SZ[9]AB[jj])");
    assert_eq!(s, "line 1, column 8: AB point jj is off the 9x9 board");
    let (_, s) = error("(;AB[a])");
    assert!(
        s.starts_with("line 1, column 3: AB[a] is not a list of points"),
        "{s}"
    );
    let (_, s) = error("(;PL[X])");
    assert_eq!(s, "line 1, column 3: PL[X] is not B or W");
}

#[test]
fn start_board_checks_records_built_in_memory() {
    let mut r = GameRecord::new(2, 1);
    r.setup = vec![(Color::Black, Point::new(0)), (Color::White, Point::new(1))];
    let e = r.start_board().unwrap_err();
    assert_eq!(
        e.to_string(),
        "game record: setup leaves the string at aa without liberties"
    );
    r.setup = vec![(Color::Black, Point::new(5))];
    assert!(r
        .start_board()
        .unwrap_err()
        .to_string()
        .contains("off the 2x1 board"));
    let r = GameRecord::new(26, 3);
    assert!(r.start_board().is_err());
}

#[test]
fn passes_and_tt() {
    let r = parse("(;SZ[19];B[];W[tt];B[ss])").unwrap();
    let g = r.geometry().unwrap();
    assert_eq!(
        moves(&r),
        [
            (Color::Black, Move::Pass),
            (Color::White, Move::Pass),
            (Color::Black, play(&g, 18, 18))
        ]
    );
    // tt is a pass on every board up to 19x19.
    assert_eq!(parse("(;SZ[9];B[tt])").unwrap().moves[0].mv, Move::Pass);
    assert_eq!(parse("(;SZ[19:5];B[tt])").unwrap().moves[0].mv, Move::Pass);
    // On a 20x20 board tt is the point at column 19, row 19.
    let r = parse("(;SZ[20];B[tt];W[])").unwrap();
    let g = r.geometry().unwrap();
    assert_eq!(
        moves(&r),
        [(Color::Black, play(&g, 19, 19)), (Color::White, Move::Pass)]
    );
    // On 20x19, tt is a point, and row 19 does not exist.
    let (_, s) = error("(;SZ[20:19];B[tt])");
    assert_eq!(
        s,
        "line 1, column 13: move 1 (B[tt]) is off the 20x19 board"
    );
}

#[test]
fn main_line_follows_first_variations() {
    let text = "(;SZ[9];B[aa](;W[bb](;B[cc])(;B[dd]))(;W[ee];B[ff]))";
    let r = parse(text).unwrap();
    let g = r.geometry().unwrap();
    assert_eq!(
        moves(&r),
        [
            (Color::Black, play(&g, 0, 0)),
            (Color::White, play(&g, 1, 1)),
            (Color::Black, play(&g, 2, 2))
        ]
    );
    // Errors in other variations do not matter.
    assert!(parse("(;SZ[9];B[aa](;W[bb])(;W[zz]))").is_ok());
    // Moves in the root node, comments, and only the first game of a collection.
    let r = parse("(;SZ[9]B[aa]C[root move];W[bb]C[x])(;GM[2]junk)").unwrap();
    assert_eq!(r.moves.len(), 2);
    assert_eq!(r.moves[0].comment.as_deref(), Some("root move"));
    assert_eq!(r.moves[1].comment.as_deref(), Some("x"));
}

#[test]
fn data_files() {
    let r = parse(&data("nine.sgf")).unwrap();
    let g = r.geometry().unwrap();
    assert_eq!(
        (r.width, r.height, r.preset()),
        (9, 9, Some(Preset::TrompTaylor))
    );
    assert_eq!(r.result.as_deref(), Some("B+9.5"));
    assert_eq!(r.moves.len(), 11);
    assert_eq!(
        r.moves.iter().map(|m| m.line).collect::<Vec<_>>(),
        (4..=14).collect::<Vec<_>>()
    );
    assert_eq!(r.moves[4].mv, play(&g, 6, 6));
    assert_eq!(
        r.moves[4].comment.as_deref(),
        Some("The game continued here.")
    );
    assert_eq!(r.moves[9].mv, Move::Pass);

    let r = parse(&data("handicap.sgf")).unwrap();
    assert_eq!(r.setup.len(), 4);
    assert!(r.setup.iter().all(|&(c, _)| c == Color::Black));
    assert_eq!(r.first_player, Some(Color::White));
    assert_eq!(r.komi, Some(Komi::from_half_points(1)));
    assert_eq!(r.preset(), None);
    assert_eq!(
        r.moves[0].comment.as_deref(),
        Some("Escapes: a ] bracket and a \\ backslash.")
    );
    assert_eq!(r.moves[2].mv, Move::Pass);
    assert_eq!(
        r.moves[2].comment.as_deref(),
        Some("A pass written the FF[3] way.")
    );
    assert_eq!(r.moves.len(), 6);
    assert_eq!(r.moves[5].line, 8);
    assert_eq!(r.start_board().unwrap().stone_count(Color::Black), 4);

    let r = parse(&data("wide.sgf")).unwrap();
    let g = r.geometry().unwrap();
    assert_eq!(
        (r.width, r.height, r.preset()),
        (25, 20, Some(Preset::Nstt))
    );
    assert_eq!(r.komi.unwrap().to_string(), "-3");
    assert_eq!(
        moves(&r),
        [
            (Color::Black, play(&g, 0, 0)),
            (Color::White, play(&g, 24, 0)),
            (Color::Black, play(&g, 0, 19)),
            (Color::White, play(&g, 24, 19)),
            (Color::Black, play(&g, 19, 19)),
            (Color::White, play(&g, 12, 9)),
        ]
    );

    for name in ["nine.sgf", "handicap.sgf", "wide.sgf"] {
        let r = parse(&data(name)).unwrap();
        let again = parse(&write(&r)).unwrap();
        assert_eq!(without_lines(&again), without_lines(&r), "{name}");
    }
}

fn without_lines(r: &GameRecord) -> GameRecord {
    let mut r = r.clone();
    for m in &mut r.moves {
        m.line = 0;
    }
    r
}

#[test]
fn written_text() {
    let mut r = GameRecord::new(5, 3);
    r.komi = Some(Komi::from_half_points(-1));
    r.rules = Some("tromp-taylor".into());
    r.black_player = Some("B]\\".into());
    r.result = Some("0".into());
    let g = r.geometry().unwrap();
    r.setup = vec![(Color::White, g.at(4, 2).unwrap())];
    r.first_player = Some(Color::Black);
    r.moves = vec![
        RecordedMove {
            comment: Some("a]b".into()),
            ..RecordedMove::new(Color::Black, play(&g, 1, 2))
        },
        RecordedMove::new(Color::White, Move::Pass),
    ];
    let text = write(&r);
    assert_eq!(
        text,
        "(;FF[4]GM[1]CA[UTF-8]SZ[5:3]KM[-0.5]RU[tromp-taylor]PB[B\\]\\\\]RE[0]AW[ec]PL[B]\n\
         ;B[bc]C[a\\]b]\n\
         ;W[]\n\
         )\n"
    );
    let back = parse(&text).unwrap();
    assert_eq!(
        back.moves.iter().map(|m| m.line).collect::<Vec<_>>(),
        [2, 3]
    );
    assert_eq!(without_lines(&back), r);
}

#[test]
fn big_and_rectangular_boards_round_trip() {
    for (w, h) in [(25, 25), (25, 7), (7, 25), (1, 1), (20, 20), (19, 19)] {
        let g = Geometry::rect(w, h).unwrap();
        let mut r = GameRecord::new(w, h);
        let corners = [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)];
        for (i, &(x, y)) in corners.iter().enumerate() {
            r.moves
                .push(RecordedMove::new(Color::ALL[i % 2], play(&g, x, y)));
        }
        r.moves.push(RecordedMove::new(Color::Black, Move::Pass));
        let text = write(&r);
        if (w, h) == (25, 25) {
            assert!(
                text.contains(";B[aa]\n;W[ya]\n;B[ay]\n;W[yy]\n;B[]\n"),
                "{text}"
            );
        }
        let back = parse(&text).unwrap();
        assert_eq!(without_lines(&back), r, "{w}x{h}");
        assert_eq!(
            back.moves.iter().map(|m| m.line).collect::<Vec<_>>(),
            [2, 3, 4, 5, 6]
        );
    }
}

#[test]
fn errors_name_the_line_and_the_move() {
    let text = "(;GM[1]SZ[19]\n;B[dd];W[pp]\n;B[zz])";
    let (e, s) = error(text);
    assert_eq!(s, "line 3, column 2: move 3 (B[zz]) is off the 19x19 board");
    assert_eq!((e.line(), e.move_number()), (Some(3), Some(3)));

    let (e, s) = error("(;SZ[9]\n;B[cc]\n;W[a])");
    assert_eq!(
        s,
        "line 3, column 2: move 2 (W[a]) is not a point: a move is two letters a-z or A-Z, \
         or empty for a pass"
    );
    assert!(matches!(
        e,
        SgfError::Move {
            number: 2,
            color: Color::White,
            problem: MoveProblem::NotAPoint,
            ..
        }
    ));
    let (_, s) = error("(;SZ[9];B[cc]W[dd])");
    assert_eq!(
        s,
        "line 1, column 14: move 2 (W[dd]) is a second move in one node"
    );
    let (_, s) = error("(;SZ[9];B[abc])");
    assert!(
        s.starts_with("line 1, column 9: move 1 (B[abc]) is not a point"),
        "{s}"
    );

    let (e, s) = error("(;SZ[9]\n;B[cc]\n;W[dd\n;B[ee])");
    assert_eq!(
        s,
        "line 3, column 3: syntax error: '[' is not closed by ']' before the next '[' (in move 2, W)"
    );
    assert!(matches!(
        e,
        SgfError::Syntax {
            line: 3,
            column: 3,
            ..
        }
    ));
    let (_, s) = error("(;SZ[9]\n;B[cc]\n;W[dd]");
    assert_eq!(
        s,
        "line 3, column 7: syntax error: the file ends inside a game tree: missing ')' \
         (after move 2)"
    );
    let (_, s) = error("(;C[unclosed comment;B[aa)");
    assert!(
        s.starts_with("line 1, column 4: syntax error: '[' is never closed"),
        "{s}"
    );

    let (e, s) = error("(;GM[1]\n  SZ[30];B[aa])");
    assert_eq!(s, "line 2, column 3: SZ[30] is not a board size 1-25");
    assert_eq!(e.line(), Some(2));
    assert_eq!(
        error("(;SZ[0])").1,
        "line 1, column 3: SZ[0] is not a board size 1-25"
    );
    assert_eq!(
        error("(;SZ[9:26])").1,
        "line 1, column 3: SZ[9:26] is not a board size 1-25"
    );
    assert_eq!(
        error("(;SZ[big])").1,
        "line 1, column 3: SZ[big] is not a board size 1-25"
    );
    assert_eq!(
        error("(;SZ[9];SZ[9])").1,
        "line 1, column 9: SZ must be in the root node"
    );
    assert_eq!(
        error("(;SZ[9]SZ[9])").1,
        "line 1, column 8: SZ appears twice in one node"
    );

    assert_eq!(
        error("(;KM[abc])").1,
        "line 1, column 3: KM[abc] is not a number"
    );
    assert_eq!(
        error("(;KM[7.25])").1,
        "line 1, column 3: KM[7.25] is not a multiple of 0.5 between -10000 and 10000"
    );
    assert_eq!(
        error("(;FF[4]GM[2])").1,
        "line 1, column 8: game type GM[2] is not Go"
    );
    assert_eq!(
        error("(;GM[x])").1,
        "line 1, column 3: game type GM[x] is not Go"
    );
    assert_eq!(error("").1, "line 1: file has no game");
    assert_eq!(error("just text\n").1, "line 1: file has no game");
    assert_eq!(
        error("\n\n(B[aa])").1,
        "line 3, column 1: syntax error: no game tree: '(' must be followed by ';'"
    );
    assert_eq!(
        error("(;SZ[9]\r\n;B[aa]\r\n;W[bb] x[cc])").1,
        "line 3, column 8: syntax error: property x has no upper-case letter (after move 2)"
    );
    assert_eq!(
        error("(;SZ[9];B[aa];W[bb]é)").1,
        "line 1, column 20: syntax error: unexpected character 'é' (after move 2)"
    );
}

#[test]
fn leading_text_byte_order_mark_and_trailing_games_are_skipped() {
    let r = parse("\u{feff}Header (2024)\n(;SZ[9];B[aa])\n(;SZ[19];B[zz]) trailing junk").unwrap();
    assert_eq!(r.width, 9);
    assert_eq!(r.moves.len(), 1);
    assert_eq!(r.moves[0].line, 2);
}

#[test]
fn long_games_and_deep_trees_do_not_overflow_the_stack() {
    let mut text = String::from("(;SZ[19]");
    for i in 0..100_000 {
        text.push_str(if i % 2 == 0 { ";B[]" } else { ";W[]" });
    }
    text.push(')');
    assert_eq!(parse(&text).unwrap().moves.len(), 100_000);
    let depth = 20_000;
    let text = format!("(;SZ[9]{})", "(;B[aa]".repeat(depth) + &")".repeat(depth));
    assert_eq!(parse(&text).unwrap().moves.len(), depth);
}
