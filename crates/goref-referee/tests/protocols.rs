//! The settlement protocols through every branch the texts describe.

use goref_referee::marking::{mark, normalize, Dead};
use goref_referee::settle::OLYMPIAD_RESUMPTIONS;
use goref_referee::tromp::{Agreement, Choice, Refused, Step};
use goref_referee::{Action, Protocol, Settled, Settlement};
use goref_rules::{Board, Color, Game, Move, Point, Ruleset};

/// A 5×5 position: Black owns columns a-c, White d-e; a lone white stone `b4` sits in Black's
/// area and a lone black stone `e1` in White's.
const ROWS: [&str; 5] = [".XXO.", "XOXO.", "..XO.", "X.XO.", ".XXOX"];

fn board(rows: &[&str]) -> Board {
    Board::from_ascii(rows).unwrap()
}

fn pt(game: &Game, name: &str) -> Point {
    game.geometry().parse_point(name).unwrap()
}

/// The game after two passes, Black having passed first.
fn passed_game() -> Game {
    let mut game = Game::from_position(board(&ROWS), Color::Black, Ruleset::NSTT);
    game.play(Move::Pass).unwrap();
    game.play(Move::Pass).unwrap();
    game
}

fn dead(game: &Game, names: &[&str]) -> Vec<Point> {
    names.iter().map(|n| pt(game, n)).collect()
}

fn set(game: &Game, names: &[&str]) -> Dead {
    normalize(game.board(), dead(game, names))
}

fn resume_and_pass_twice(game: &mut Game) {
    game.resume();
    game.play(Move::Pass).unwrap();
    game.play(Move::Pass).unwrap();
}

#[test]
fn all_alive_ends_at_once_with_nothing_removed() {
    // TT rules 8-9: no dead-stone phase.
    let game = passed_game();
    let mut s = Settlement::new(Protocol::AllAlive);
    assert_eq!(
        s.on_two_passes(&game),
        Action::Finish {
            dead: Dead::new(),
            ending: Settled::AllAlive
        }
    );
}

#[test]
fn dead_lists_keep_only_stones_and_whole_strings() {
    let game = passed_game();
    // b4 is white and alone; a1 is empty; c3 names the whole black wall.
    let list = normalize(game.board(), dead(&game, &["b4", "a1", "c3"]));
    assert!(list.contains(&pt(&game, "b4")));
    assert!(!list.contains(&pt(&game, "a1")));
    assert!(!list.contains(&pt(&game, "a4")), "a4 is another string");
    for stone in ["b1", "c1", "c5", "b5"] {
        assert!(list.contains(&pt(&game, stone)), "{stone}");
    }
}

#[test]
fn marking_a_string_marks_same_coloured_strings_across_the_adjacent_empty_region() {
    // Reference 003: marking one string marks the other same-coloured strings neighbouring its
    // adjacent empty region(s). Two white stones in one black region go together.
    let b = board(&["XXXXX", "X.O.X", "X...X", "X.O.X", "XXXXX"]);
    let g = b.geometry().clone();
    let c4 = g.parse_point("c4").unwrap();
    let c2 = g.parse_point("c2").unwrap();
    let marked = mark(&b, c4);
    assert!(marked.contains(&c4) && marked.contains(&c2));
    assert_eq!(
        marked.len(),
        2,
        "black stones are never marked with white ones"
    );
    // A white stone in another region is not marked.
    let b = board(&["XXXXX", "X.O.X", "XXXXX", "X.O.X", "XXXXX"]);
    let marked = mark(&b, c4);
    assert!(!marked.contains(&c2));
}

#[test]
fn chinese_equal_lists_are_removed() {
    // Reference 000, Chinese rules: equal lists are removed and the board scored.
    let game = passed_game();
    let mut s = Settlement::new(Protocol::Chinese);
    assert_eq!(s.on_two_passes(&game), Action::AskDeadLists);
    let both = dead(&game, &["b4", "e1"]);
    assert_eq!(
        s.on_dead_lists(&game, Some(&both), Some(&both)),
        Action::Finish {
            dead: set(&game, &["b4", "e1"]),
            ending: Settled::Agreement
        }
    );
}

#[test]
fn chinese_disagreement_resumes_with_the_first_passer_and_four_passes_end_all_alive() {
    // Reference 000: "If the lists differ, play continues, starting with the player who first
    // passed. If both players immediately pass again (four consecutive passes), the game is
    // over and all stones on the board are considered alive."
    let mut game = passed_game();
    let mut s = Settlement::new(Protocol::Chinese);
    s.on_two_passes(&game);
    let black = dead(&game, &["b4"]);
    assert_eq!(
        s.on_dead_lists(&game, Some(&black), Some(&[])),
        Action::Resume {
            first: Color::Black,
            cleanup: false
        }
    );
    resume_and_pass_twice(&mut game);
    assert_eq!(
        s.on_two_passes(&game),
        Action::Finish {
            dead: Dead::new(),
            ending: Settled::FourPasses
        }
    );
}

#[test]
fn chinese_repeats_the_process_when_play_happened_before_the_passes() {
    // "If later in the game both players again pass, the process is repeated."
    let mut game = passed_game();
    let mut s = Settlement::new(Protocol::Chinese);
    s.on_two_passes(&game);
    let black = dead(&game, &["b4"]);
    s.on_dead_lists(&game, Some(&black), None);
    game.resume();
    game.play(Move::Play(pt(&game, "a3"))).unwrap(); // Black fills a point
    game.play(Move::Pass).unwrap();
    game.play(Move::Pass).unwrap();
    assert_eq!(s.on_two_passes(&game), Action::AskDeadLists);
}

#[test]
fn engines_without_lists_remove_nothing_and_are_not_penalised() {
    // Olympiad 3.7.2: no information means no stones removed; reference 000: such programs
    // fall back on counting every stone alive.
    let game = passed_game();
    for protocol in [
        Protocol::Chinese,
        Protocol::Kgs,
        Protocol::Olympiad,
        Protocol::Referee,
    ] {
        let mut s = Settlement::new(protocol);
        s.on_two_passes(&game);
        assert_eq!(
            s.on_dead_lists(&game, None, Some(&[])),
            Action::Finish {
                dead: Dead::new(),
                ending: Settled::Agreement
            },
            "{protocol}"
        );
    }
}

#[test]
fn kgs_asks_for_cleanup_and_the_next_two_passes_end_all_alive() {
    // Reference 000, KGS: after the first disagreement players capture what they think dead;
    // after the next two consecutive passes all stones count alive.
    let mut game = passed_game();
    let mut s = Settlement::new(Protocol::Kgs);
    s.on_two_passes(&game);
    let white = dead(&game, &["e1"]);
    assert_eq!(
        s.on_dead_lists(&game, Some(&[]), Some(&white)),
        Action::Resume {
            first: Color::Black,
            cleanup: true
        }
    );
    game.resume();
    game.play(Move::Play(pt(&game, "a3"))).unwrap();
    game.play(Move::Pass).unwrap();
    game.play(Move::Pass).unwrap();
    assert_eq!(
        s.on_two_passes(&game),
        Action::Finish {
            dead: Dead::new(),
            ending: Settled::CleanupPasses
        }
    );
}

#[test]
fn olympiad_resumes_at_most_three_times_then_asks_the_referee_about_disputed_stones() {
    // Olympiad 3.7.4: resume at most 3 times, the program that passed last moving second; then
    // the tournament director settles the disputed blocks (3.9).
    let mut game = passed_game();
    let mut s = Settlement::new(Protocol::Olympiad);
    let black = dead(&game, &["b4", "e1"]);
    let white = dead(&game, &["b4"]);
    for round in 0..OLYMPIAD_RESUMPTIONS {
        assert_eq!(
            s.on_two_passes(&game),
            Action::AskDeadLists,
            "round {round}"
        );
        assert_eq!(
            s.on_dead_lists(&game, Some(&black), Some(&white)),
            Action::Resume {
                first: Color::Black,
                cleanup: false
            }
        );
        resume_and_pass_twice(&mut game);
    }
    assert_eq!(s.on_two_passes(&game), Action::AskDeadLists);
    assert_eq!(
        s.on_dead_lists(&game, Some(&black), Some(&white)),
        Action::AskReferee {
            disputed: set(&game, &["e1"])
        }
    );
    // The referee keeps e1 alive: only the agreed b4 goes.
    assert_eq!(
        s.on_referee(&game, Some(&[])),
        Action::Finish {
            dead: set(&game, &["b4"]),
            ending: Settled::Referee
        }
    );
    assert_eq!(s.resumptions(), OLYMPIAD_RESUMPTIONS);
}

#[test]
fn referee_settles_disagreements_and_agreed_stones_are_removed() {
    // Reference 000, third-party mediation: each side calls the other's stone dead.
    let game = passed_game();
    let mut s = Settlement::new(Protocol::Referee);
    s.on_two_passes(&game);
    let black = dead(&game, &["b4"]);
    let white = dead(&game, &["e1"]);
    assert_eq!(
        s.on_dead_lists(&game, Some(&black), Some(&white)),
        Action::AskReferee {
            disputed: set(&game, &["b4", "e1"])
        }
    );
    let referee = dead(&game, &["b4", "e1"]);
    assert_eq!(
        s.on_referee(&game, Some(&referee)),
        Action::Finish {
            dead: set(&game, &["b4", "e1"]),
            ending: Settled::Referee
        }
    );
}

#[test]
fn the_referee_settles_only_disputed_stones() {
    // Both players call b4 dead and only Black calls e1 dead: the referee's word counts for
    // e1 alone. It names the black wall c1, which both players think alive: it stays.
    let game = passed_game();
    let mut s = Settlement::new(Protocol::Referee);
    s.on_two_passes(&game);
    let black = dead(&game, &["b4", "e1"]);
    let white = dead(&game, &["b4"]);
    assert_eq!(
        s.on_dead_lists(&game, Some(&black), Some(&white)),
        Action::AskReferee {
            disputed: set(&game, &["e1"])
        }
    );
    let referee = dead(&game, &["e1", "c1"]);
    assert_eq!(
        s.on_referee(&game, Some(&referee)),
        Action::Finish {
            dead: set(&game, &["b4", "e1"]),
            ending: Settled::Referee
        }
    );
    // No answer from the referee: the disputed stone stays, the agreed one goes.
    let mut s = Settlement::new(Protocol::Referee);
    s.on_two_passes(&game);
    s.on_dead_lists(&game, Some(&black), Some(&white));
    assert_eq!(
        s.on_referee(&game, None),
        Action::Finish {
            dead: set(&game, &["b4"]),
            ending: Settled::Referee
        }
    );
}

#[test]
fn japanese_applies_the_status_from_the_copy_to_the_original() {
    // Reference 000, Japanese rules: dispute played out on a copy; a disputed group captured
    // there is dead on the original, one that survives is alive.
    let game = passed_game();
    let mut s = Settlement::new(Protocol::Japanese);
    s.on_two_passes(&game);
    // Black calls its own e1 dead too, White calls b4 dead: both disputed... Black's list
    // names b4 and e1, White's names b4 only: e1 is disputed, b4 agreed.
    let black = dead(&game, &["b4", "e1"]);
    let white = dead(&game, &["b4"]);
    assert_eq!(
        s.on_dead_lists(&game, Some(&black), Some(&white)),
        Action::PlayOutOnCopy {
            first: Color::Black
        }
    );
    let mut copy = game.clone();
    copy.resume();
    copy.play(Move::Pass).unwrap(); // Black
    copy.play(Move::Play(pt(&copy, "e2"))).unwrap(); // White captures e1
    copy.play(Move::Pass).unwrap();
    copy.play(Move::Pass).unwrap();
    assert_eq!(copy.board().get(pt(&copy, "e1")), None);
    assert_eq!(
        s.on_copy_played_out(copy.board()),
        Action::Finish {
            dead: set(&game, &["b4", "e1"]),
            ending: Settled::PlayedOutOnCopy
        }
    );
}

#[test]
fn tromp_marks_alternate_and_two_dones_remove_the_marked_stones() {
    // Reference 003: two consecutive dones end the game with dead groups removed as agreed.
    let game = passed_game();
    let mut a = Agreement::new(game.board().clone(), Color::Black);
    let b4 = pt(&game, "b4");
    assert_eq!(
        a.choose(Color::White, Choice::Done),
        Err(Refused::NotYourTurn)
    );
    assert_eq!(
        a.choose(Color::Black, Choice::Mark(pt(&game, "a1"))),
        Err(Refused::NoStone)
    );
    assert_eq!(a.choose(Color::Black, Choice::Mark(b4)), Ok(Step::Continue));
    assert_eq!(
        a.choose(Color::White, Choice::Mark(b4)),
        Err(Refused::AlreadyMarked)
    );
    assert_eq!(a.choose(Color::White, Choice::Done), Ok(Step::Continue));
    // A mark between dones starts the count again.
    assert_eq!(
        a.choose(Color::Black, Choice::Mark(pt(&game, "e1"))),
        Ok(Step::Continue)
    );
    assert_eq!(a.choose(Color::White, Choice::Done), Ok(Step::Continue));
    assert_eq!(
        a.choose(Color::Black, Choice::Done),
        Ok(Step::Agreed(set(&game, &["b4", "e1"])))
    );
    assert_eq!(a.choose(Color::White, Choice::Done), Err(Refused::Over));
}

#[test]
fn tromp_dispute_clears_marks_resumes_play_and_four_passes_score_as_it_stands() {
    // Reference 003: a dispute removes all markings and play continues; if both pass at once,
    // four consecutive passes score the board as is.
    let mut game = passed_game();
    let mut s = Settlement::new(Protocol::Tromp);
    assert_eq!(
        s.on_two_passes(&game),
        Action::StartMarking {
            first: Color::Black
        }
    );
    let mut a = Agreement::new(game.board().clone(), Color::Black);
    let e1 = pt(&game, "e1");
    a.choose(Color::Black, Choice::Mark(pt(&game, "b4")))
        .unwrap();
    assert_eq!(
        a.choose(Color::White, Choice::Dispute(e1)),
        Err(Refused::NotMarked)
    );
    a.choose(Color::White, Choice::Mark(e1)).unwrap();
    assert_eq!(
        a.choose(Color::Black, Choice::Dispute(e1)),
        Ok(Step::Disputed)
    );
    assert!(a.marked().is_empty());
    assert_eq!(
        s.on_marking_disputed(&game),
        Action::Resume {
            first: Color::Black,
            cleanup: false
        }
    );
    resume_and_pass_twice(&mut game);
    assert_eq!(
        s.on_two_passes(&game),
        Action::Finish {
            dead: Dead::new(),
            ending: Settled::FourPasses
        }
    );
}

/// Plays the agreement phase for two players with fixed beliefs; returns the step it ended
/// with and the number of choices made.
fn run_agreement(game: &Game, black: &Dead, white: &Dead) -> (Step, usize) {
    let mut a = Agreement::new(game.board().clone(), Color::Black);
    for turn in 1.. {
        let by = a.to_act();
        let belief = if by == Color::Black { black } else { white };
        let step = a.choose(by, a.choice_for(belief)).unwrap();
        if step != Step::Continue {
            return (step, turn);
        }
        assert!(turn < 100, "the agreement phase did not end");
    }
    unreachable!()
}

#[test]
fn tromp_for_engines_covers_own_group_other_group_and_both() {
    // Reference 000, considerations: a player marks the opponent's group, or its own, or both.
    let game = passed_game();
    let strings = 6; // an upper bound on the choices each player can make is the string count
    let cases: [(&[&str], &[&str], bool); 5] = [
        (&["b4"], &["b4"], true),             // both call White's b4 dead
        (&["e1"], &["e1"], true),             // Black calls its own e1 dead, White agrees
        (&["b4", "e1"], &["b4", "e1"], true), // both stones, both players
        (&["b4"], &[], false),                // White thinks its b4 alive: dispute
        (&["e1"], &["b4", "e1"], false),      // Black thinks b4 alive: dispute
    ];
    for (black, white, agree) in cases {
        let (b, w) = (set(&game, black), set(&game, white));
        let (step, turns) = run_agreement(&game, &b, &w);
        assert!(
            turns <= 2 * strings + 2,
            "{black:?}/{white:?} took {turns} turns"
        );
        match step {
            Step::Agreed(dead) => {
                assert!(agree, "{black:?}/{white:?}");
                assert_eq!(dead, b);
            }
            Step::Disputed => assert!(!agree, "{black:?}/{white:?}"),
            Step::Continue => unreachable!(),
        }
    }
}

#[test]
fn tiny_boards_with_only_unsettled_stones_end() {
    // Reference 000: "resolve situations where all groups on the board are unsettled (for
    // example, if there are only two or three stones on the board)". Each side calls the
    // other's lone stone dead; under Chinese rules both then pass: four passes, all alive.
    let mut game = Game::rect(5, 5, Ruleset::NSTT).unwrap();
    for mv in ["c3", "d4"] {
        let p = pt(&game, mv);
        game.play(Move::Play(p)).unwrap();
    }
    game.play(Move::Pass).unwrap();
    game.play(Move::Pass).unwrap();
    let mut s = Settlement::new(Protocol::Chinese);
    assert_eq!(s.on_two_passes(&game), Action::AskDeadLists);
    let (c3, d4) = (vec![pt(&game, "c3")], vec![pt(&game, "d4")]);
    assert!(matches!(
        s.on_dead_lists(&game, Some(&d4), Some(&c3)),
        Action::Resume {
            first: Color::Black,
            ..
        }
    ));
    resume_and_pass_twice(&mut game);
    assert!(matches!(
        s.on_two_passes(&game),
        Action::Finish {
            ending: Settled::FourPasses,
            ..
        }
    ));
}

#[test]
fn protocols_parse_by_name() {
    for p in Protocol::ALL {
        assert_eq!(p.name().parse::<Protocol>(), Ok(p));
    }
    assert!("nonsense".parse::<Protocol>().is_err());
}
