//! The referee through every protocol, clocks with lag, handicap, the Olympiad's timing and
//! TD options. Time is passed in as values: no test sleeps.

use std::sync::Arc;
use std::time::Duration;

use goref_clock::TimeControl;
use goref_referee::{
    adjudicate, Adjudication, Applied, ClockStart, Ending, IllegalPolicy, Input, LongCyclePolicy,
    Moment, Need, Phase, Protocol, Referee, Refusal, Settings, Settled,
};
use goref_rules::{ByColor, Color, Geometry, Illegal, Move, Point, Ruleset};

const B: Color = Color::Black;
const W: Color = Color::White;

fn t(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// A 5×5 position: Black owns columns a-c, White d-e; a lone white stone `b4` sits in Black's
/// area and a lone black stone `e1` in White's (the position of the protocol tests).
const BLACK: [&str; 10] = ["b5", "c5", "a4", "c4", "c3", "a2", "c2", "b1", "c1", "e1"];
const WHITE: [&str; 6] = ["d5", "b4", "d4", "d3", "d2", "d1"];

fn geometry() -> Arc<Geometry> {
    Arc::new(Geometry::rect(5, 5).unwrap())
}

fn pt(name: &str) -> Point {
    geometry().parse_point(name).unwrap()
}

fn play(r: &mut Referee, by: Color, name: &str) -> Result<Applied, Refusal> {
    let mv = if name == "pass" {
        Move::Pass
    } else {
        Move::Play(pt(name))
    };
    let now = t(r.game().moves().len() as u64);
    r.apply(Input::Play { by, mv }, now)
}

/// The position above, then two passes, Black passing first.
fn passed(protocol: Protocol) -> Referee {
    let mut settings = Settings::new(Ruleset::NSTT);
    settings.end = protocol;
    let mut r = Referee::new(geometry(), settings, t(0)).unwrap();
    // White passes first while Black has more stones to place, so that the last moves are
    // stones and Black passes first at the end.
    let mut white = std::iter::repeat_n(&"pass", BLACK.len() - WHITE.len()).chain(WHITE.iter());
    for b in BLACK {
        play(&mut r, B, b).unwrap();
        let w = white.next().unwrap();
        play(&mut r, W, w).unwrap_or_else(|e| panic!("W {w}: {e}"));
    }
    play(&mut r, B, "pass").unwrap();
    play(&mut r, W, "pass").unwrap();
    r
}

fn lists(r: &mut Referee, black: &[&str], white: &[&str]) {
    for (by, list) in [(B, black), (W, white)] {
        let stones = list.iter().map(|n| pt(n)).collect();
        r.apply(
            Input::DeadList {
                by,
                stones: Some(stones),
            },
            t(100),
        )
        .unwrap();
    }
}

/// The record of a finished game replays, and when the result was scored on the board the
/// record's own dead stones (TB/TW) give exactly its RE, as `goref score` reads it.
fn record_scores_to_its_result(r: &Referee) {
    let res = r.result().expect("over");
    let text = r.sgf(&goref_referee::RecordInfo::default());
    let record = goref_sgf::parse(&text).unwrap();
    assert_eq!(record.result, Some(res.outcome.to_sgf()));
    let game = record.replay(*r.game().rules()).unwrap();
    if res.ending.on_the_board() {
        let outcome = record
            .final_score(&game)
            .map_or_else(|| game.outcome(), |f| f.score.outcome());
        assert_eq!(outcome, res.outcome, "{text}");
    }
}

fn result(r: &Referee) -> (String, Ending, Option<Settled>, Vec<String>) {
    record_scores_to_its_result(r);
    let g = r.game().geometry().clone();
    let res = r.result().expect("over");
    (
        res.outcome.to_sgf(),
        res.ending,
        res.settled,
        res.removed.iter().map(|&p| g.name(p)).collect(),
    )
}

#[test]
fn all_alive_scores_every_stone_at_two_passes() {
    // TT rules 8-9. Black: 10 stones + a3,b3,a1,b2 (a5 touches b5 and a4: black) = 15 with a5;
    // White: 6 stones + e2..e5 = 10; b4 makes a3/b3/b2 neutral? They reach b4 (white) too.
    let r = passed(Protocol::AllAlive);
    let res = r.result().unwrap();
    assert_eq!(res.ending, Ending::TwoPasses);
    assert_eq!(res.settled, Some(Settled::AllAlive));
    let score = res.score.unwrap();
    assert_eq!(
        (score.black, score.white),
        (r.game().board().area().black, r.game().board().area().white)
    );
    assert_eq!(r.need(), Need::Over);
}

#[test]
fn chinese_equal_lists_remove_the_stones_and_score() {
    // Reference 000, Chinese rules: equal lists are removed.
    let mut r = passed(Protocol::Chinese);
    assert_eq!(
        r.need(),
        Need::DeadLists {
            missing: ByColor::new(true, true)
        }
    );
    lists(&mut r, &["b4", "e1"], &["e1", "b4"]);
    let (re, ending, settled, removed) = result(&r);
    assert_eq!(ending, Ending::TwoPasses);
    assert_eq!(settled, Some(Settled::Agreement));
    assert_eq!(removed, ["B4", "E1"]);
    // Black: 9 stones + 10 points (a5 a3 b3 a1 b2 b4 and ... ) — the board with b4 and e1
    // removed, as TT rule 9 counts it.
    let cleared = goref_referee::marking::without(r.game().board(), &r.result().unwrap().removed);
    let goref_rules::ByColor { black: b, white: w } = cleared.area();
    let score = r.result().unwrap().score.unwrap();
    assert_eq!((score.black, score.white), (b, w));
    assert_eq!(re, score.outcome().to_sgf());
}

#[test]
fn chinese_disagreement_resumes_and_four_passes_end_all_alive() {
    let mut r = passed(Protocol::Chinese);
    lists(&mut r, &["b4"], &[]);
    assert_eq!(
        r.need(),
        Need::Move {
            color: B,
            resumed: true,
            cleanup: false
        }
    );
    assert_eq!(r.resumptions(), 1);
    play(&mut r, B, "pass").unwrap();
    play(&mut r, W, "pass").unwrap();
    let (_, ending, settled, removed) = result(&r);
    assert_eq!(
        (ending, settled),
        (Ending::TwoPasses, Some(Settled::FourPasses))
    );
    assert!(removed.is_empty());
}

#[test]
fn a_dead_list_out_of_turn_or_twice_is_refused_with_a_code() {
    let mut r = passed(Protocol::Chinese);
    let twice = Input::DeadList {
        by: W,
        stones: None,
    };
    r.apply(twice.clone(), t(50)).unwrap();
    assert_eq!(r.apply(twice, t(51)), Err(Refusal::AlreadyGiven));
    assert_eq!(Refusal::AlreadyGiven.code(), "already_sent");
    let err = play(&mut r, B, "a5").unwrap_err();
    assert_eq!(
        err,
        Refusal::WrongPhase {
            now: Phase::DeadLists
        }
    );
    assert_eq!(err.code(), "wrong_phase");
    // A player that gives no list removes nothing (001 3.7.2): Black's b4 alone is disputed.
    lists_one(&mut r, B, &["b4"]);
    assert!(matches!(r.need(), Need::Move { color: B, .. }));
    assert!(r
        .notes()
        .iter()
        .any(|n| n.text.contains("White gave no dead list")));
}

fn lists_one(r: &mut Referee, by: Color, list: &[&str]) {
    let stones = list.iter().map(|n| pt(n)).collect();
    r.apply(
        Input::DeadList {
            by,
            stones: Some(stones),
        },
        t(60),
    )
    .unwrap();
}

#[test]
fn kgs_cleanup_then_two_passes_end_all_alive() {
    // Reference 000, KGS: after a disagreement each side captures what it thinks dead.
    let mut r = passed(Protocol::Kgs);
    lists(&mut r, &["b4"], &[]);
    assert_eq!(
        r.need(),
        Need::Move {
            color: B,
            resumed: true,
            cleanup: true
        }
    );
    play(&mut r, B, "b3").unwrap();
    play(&mut r, W, "pass").unwrap();
    play(&mut r, B, "b2").unwrap(); // b4 still has... the captures happen by play
    play(&mut r, W, "pass").unwrap();
    play(&mut r, B, "pass").unwrap();
    let (_, ending, settled, removed) = result(&r);
    assert_eq!(
        (ending, settled),
        (Ending::TwoPasses, Some(Settled::CleanupPasses))
    );
    assert!(removed.is_empty());
}

#[test]
fn japanese_plays_the_dispute_out_on_a_copy_and_applies_the_status() {
    // Reference 000, Japanese rules.
    let mut r = passed(Protocol::Japanese);
    lists(&mut r, &["b4", "e1"], &["b4"]);
    assert_eq!(r.need(), Need::PlayOutOnCopy { color: B });
    assert_eq!(r.phase(), Phase::PlayOut);
    let before = r.game().moves().len();
    play(&mut r, B, "pass").unwrap();
    // White captures e1 on the copy.
    play(&mut r, W, "e2").unwrap();
    assert_eq!(r.copy().unwrap().board().get(pt("e1")), None);
    assert_eq!(
        r.game().board().get(pt("e1")),
        Some(B),
        "the original is untouched"
    );
    play(&mut r, B, "pass").unwrap();
    play(&mut r, W, "pass").unwrap();
    let (_, ending, settled, removed) = result(&r);
    assert_eq!(
        (ending, settled),
        (Ending::TwoPasses, Some(Settled::PlayedOutOnCopy))
    );
    assert_eq!(removed, ["B4", "E1"]);
    assert_eq!(
        r.game().moves().len(),
        before,
        "the copy's moves stay off the record"
    );
    assert!(r
        .notes()
        .iter()
        .any(|n| n.text == "played on the copy: B pass, W E2, B pass, W pass"));
}

#[test]
fn tromp_marking_agreed_and_disputed() {
    // Reference 003: two consecutive dones remove the marked stones; a dispute resumes play
    // and four passes then score the board as it stands.
    let mut r = passed(Protocol::Tromp);
    assert_eq!(r.need(), Need::Marking { to_act: B });
    let refused = r.apply(Input::Done { by: W }, t(70)).unwrap_err();
    assert_eq!(refused.code(), "refused");
    r.apply(
        Input::Mark {
            by: B,
            at: pt("b4"),
        },
        t(70),
    )
    .unwrap();
    r.apply(Input::Done { by: W }, t(71)).unwrap();
    r.apply(Input::Done { by: B }, t(72)).unwrap();
    let (_, _, settled, removed) = result(&r);
    assert_eq!(settled, Some(Settled::Agreement));
    assert_eq!(removed, ["B4"]);

    let mut r = passed(Protocol::Tromp);
    r.apply(
        Input::Mark {
            by: B,
            at: pt("b4"),
        },
        t(70),
    )
    .unwrap();
    r.apply(
        Input::Dispute {
            by: W,
            at: pt("b4"),
        },
        t(71),
    )
    .unwrap();
    assert_eq!(r.phase(), Phase::Play);
    play(&mut r, B, "pass").unwrap();
    play(&mut r, W, "pass").unwrap();
    assert_eq!(result(&r).2, Some(Settled::FourPasses));
}

#[test]
fn olympiad_resumes_three_times_then_the_default_removal_decides() {
    // 001 3.7.4-3.7.5, 3.9.2.
    let mut r = passed(Protocol::Olympiad);
    for resumption in 1..=3 {
        lists(&mut r, &["b4"], &[]);
        assert_eq!(r.resumptions(), resumption);
        let first = r.game().to_move();
        play(&mut r, first, "pass").unwrap();
        play(&mut r, first.opponent(), "pass").unwrap();
    }
    lists(&mut r, &["b4"], &[]);
    let disputed = match r.need() {
        Need::Adjudication { disputed, reason } => {
            assert_eq!(reason, Adjudication::Dispute);
            disputed
        }
        other => panic!("{other:?}"),
    };
    assert!(disputed.contains(&pt("b4")));
    let verdict = adjudicate::by_default_removal(&r).unwrap();
    let Input::Adjudicate {
        dead: Some(named), ..
    } = verdict.clone()
    else {
        panic!("{verdict:?}");
    };
    r.apply(verdict, t(200)).unwrap();
    let (_, _, settled, _) = result(&r);
    assert_eq!(settled, Some(Settled::Referee));
    // What the judge removes of the disputed stones is removed, and nothing else.
    let removed = &r.result().unwrap().removed;
    assert!(removed
        .iter()
        .all(|p| named.contains(p) && disputed.contains(p)));
    assert!(named
        .iter()
        .filter(|p| disputed.contains(p))
        .all(|p| removed.contains(p)));
    assert!(r.notes().iter().any(|n| n.text.contains("default removal")));
}

#[test]
fn the_referee_protocol_asks_the_third_party_at_once() {
    let mut r = passed(Protocol::Referee);
    lists(&mut r, &["b4"], &["e1"]);
    assert!(matches!(r.need(), Need::Adjudication { .. }));
    // A referee that names a stone both players called alive does not remove it.
    r.apply(
        Input::Adjudicate {
            dead: Some(vec![pt("b4"), pt("c3")]),
            note: "the referee engine calls dead B4 C3".into(),
        },
        t(300),
    )
    .unwrap();
    assert_eq!(result(&r).3, ["B4"]);
}

#[test]
fn moves_out_of_turn_and_illegal_moves_are_refused_for_people() {
    let mut r = Referee::new(geometry(), Settings::new(Ruleset::NSTT), t(0)).unwrap();
    assert_eq!(
        play(&mut r, W, "c3").unwrap_err(),
        Refusal::NotYourTurn { to_act: B }
    );
    play(&mut r, B, "c3").unwrap();
    let err = play(&mut r, W, "c3").unwrap_err();
    assert_eq!(
        err,
        Refusal::Illegal {
            at: "C3".into(),
            reason: Illegal::Occupied
        }
    );
    assert_eq!(err.to_string(), "C3 is illegal: occupied");
    assert_eq!(err.code(), "illegal");
    assert_eq!(r.game().moves().len(), 1);
}

#[test]
fn olympiad_3_10_2_replaces_a_first_illegal_move_and_a_second_loses() {
    let mut settings = Settings::new(Ruleset::OLYMPIAD);
    settings.illegal = IllegalPolicy::Olympiad;
    let mut r = Referee::new(geometry(), settings.clone(), t(0)).unwrap();
    play(&mut r, B, "c3").unwrap();
    assert_eq!(
        play(&mut r, W, "c3").unwrap(),
        Applied::Moved {
            color: W,
            mv: Move::Pass,
            replaced: true
        }
    );
    assert_eq!(r.illegal_passes(), ByColor::new(0, 1));
    let note = r.notes().last().unwrap();
    assert_eq!(note.after, 2, "the note goes on the pass");
    assert!(note.text.contains("Olympiad 3.10.2"));
    play(&mut r, B, "c2").unwrap();
    r.apply(
        Input::Unreadable {
            by: W,
            reply: "garbage".into(),
        },
        t(9),
    )
    .unwrap();
    let res = r.result().unwrap();
    assert_eq!(
        (res.ending, res.outcome.to_sgf().as_str()),
        (Ending::Illegal, "B+F")
    );
    assert!(res
        .detail
        .as_ref()
        .unwrap()
        .contains("second illegal move at move 4"));

    settings.illegal = IllegalPolicy::Strict;
    let mut r = Referee::new(geometry(), settings, t(0)).unwrap();
    play(&mut r, B, "c3").unwrap();
    play(&mut r, W, "c3").unwrap();
    assert_eq!(r.result().unwrap().outcome.to_sgf(), "B+F");
}

#[test]
fn clocks_charge_the_mover_with_lag_and_flag_late_moves() {
    let mut settings = Settings::new(Ruleset::TROMP_TAYLOR);
    settings.time = TimeControl::SuddenDeath { main: t(10) };
    settings.lag = t(1);
    let mut r = Referee::new(geometry(), settings.clone(), t(100)).unwrap();
    assert_eq!(r.clock().running(), Some(B));
    assert_eq!(r.clock().deadline(), Some(t(111)));
    let c3 = Input::Play {
        by: B,
        mv: Move::Play(pt("c3")),
    };
    r.apply(c3, t(104)).unwrap();
    assert_eq!(r.clock().left(B).main, t(6));
    assert_eq!(r.clock().running(), Some(W));
    // White reports 3 s of thinking in 5 s measured: 1 s (the allowance) credited.
    r.apply(
        Input::Play {
            by: W,
            mv: Move::Pass,
        },
        Moment {
            now: t(109),
            think: Some(t(3)),
        },
    )
    .unwrap();
    assert_eq!(r.clock().left(W).main, t(6));
    // A timeout before the deadline is refused; after it, Black loses on time.
    assert_eq!(r.apply(Input::Timeout, t(115)), Err(Refusal::NotDue));
    r.apply(Input::Timeout, t(116)).unwrap();
    let res = r.result().unwrap();
    assert_eq!(
        (res.ending, res.outcome.to_sgf().as_str()),
        (Ending::Time, "W+T")
    );

    // A move that arrives after the deadline loses on time too, and is not played.
    let mut r = Referee::new(geometry(), settings.clone(), t(0)).unwrap();
    let late = Input::Play {
        by: B,
        mv: Move::Play(pt("c3")),
    };
    assert_eq!(r.apply(late, t(12)), Ok(Applied::Recorded));
    assert_eq!(r.game().moves().len(), 0);
    assert_eq!(r.result().unwrap().ending, Ending::Time);

    // People: the first move is not timed.
    settings.clock_start = ClockStart::AfterFirstMove;
    let r = Referee::new(geometry(), settings, t(0)).unwrap();
    assert_eq!(r.clock().running(), None);
}

#[test]
fn clocks_stop_while_dead_lists_are_collected() {
    // Olympiad 3.10.3.
    let mut settings = Settings::new(Ruleset::NSTT);
    settings.end = Protocol::Chinese;
    settings.time = TimeControl::SuddenDeath { main: t(60) };
    let mut r = Referee::new(geometry(), settings, t(0)).unwrap();
    play(&mut r, B, "c3").unwrap();
    play(&mut r, W, "pass").unwrap();
    play(&mut r, B, "pass").unwrap();
    assert_eq!(r.clock().running(), None);
    assert_eq!(r.apply(Input::Timeout, t(10_000)), Err(Refusal::NotDue));
}

#[test]
fn handicap_stones_are_set_up_and_white_moves_first() {
    let g = Arc::new(Geometry::rect(9, 9).unwrap());
    let mut settings = Settings::new(Ruleset::TROMP_TAYLOR.with_komi("0.5".parse().unwrap()));
    settings.handicap = goref_referee::handicap::fixed_handicap(&g, 4).unwrap();
    let mut r = Referee::new(g.clone(), settings.clone(), t(0)).unwrap();
    assert_eq!(r.game().board().stone_count(B), 4);
    assert_eq!(r.game().to_move(), W);
    assert_eq!(
        r.apply(
            Input::Play {
                by: B,
                mv: Move::Pass
            },
            t(1)
        ),
        Err(Refusal::NotYourTurn { to_act: W })
    );
    r.apply(
        Input::Play {
            by: W,
            mv: Move::Pass,
        },
        t(1),
    )
    .unwrap();
    r.apply(
        Input::Play {
            by: B,
            mv: Move::Pass,
        },
        t(2),
    )
    .unwrap();
    // Tromp marking by default; nothing marked: 81 points for Black, komi 0.5.
    r.apply(Input::Done { by: W }, t(3)).unwrap();
    r.apply(Input::Done { by: B }, t(4)).unwrap();
    assert_eq!(r.result().unwrap().outcome.to_sgf(), "B+80.5");
    settings.handicap.push(settings.handicap[0]);
    assert!(Referee::new(g, settings, t(0)).is_err());
}

/// 001 §1: a loss on time before the minimum number of moves stands; after it the game is
/// adjudicated (3.9 default removal of every block, 3.8 scoring).
#[test]
fn min_moves_decides_between_a_loss_on_time_and_an_adjudication() {
    let mut settings = Settings::new(Ruleset::OLYMPIAD.with_komi("0.5".parse().unwrap()));
    settings.time = TimeControl::SuddenDeath { main: t(10) };
    settings.min_moves = Some(2);
    settings.illegal = IllegalPolicy::Olympiad;
    // One black move: fewer than 2, Black loses on time.
    let mut r = Referee::new(geometry(), settings.clone(), t(0)).unwrap();
    play(&mut r, B, "c3").unwrap();
    play(&mut r, W, "pass").unwrap();
    r.apply(Input::Timeout, t(12)).unwrap();
    assert_eq!(r.result().unwrap().outcome.to_sgf(), "W+T");
    // Two black moves: adjudicated; Black's two stones own the empty 5×5 board.
    let mut r = Referee::new(geometry(), settings, t(0)).unwrap();
    play(&mut r, B, "c3").unwrap();
    play(&mut r, W, "pass").unwrap();
    play(&mut r, B, "c2").unwrap();
    play(&mut r, W, "pass").unwrap();
    r.apply(Input::Timeout, t(20)).unwrap();
    assert_eq!(r.result(), None);
    match r.need() {
        Need::Adjudication { reason, disputed } => {
            assert_eq!(reason, Adjudication::Timing { by: B });
            assert_eq!(disputed.len(), 2);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(r.clock().running(), None);
    let verdict = adjudicate::by_default_removal(&r).unwrap();
    r.apply(verdict, t(21)).unwrap();
    let res = r.result().unwrap();
    assert_eq!(res.ending, Ending::Adjudicated);
    record_scores_to_its_result(&r);
    assert_eq!(res.outcome.to_sgf(), "B+24.5");
    assert!(res.detail.as_ref().unwrap().contains("001 §1"));
}

/// 3.10.2: the director may replace a play that would invoke the long-cycle rule by a pass.
#[test]
fn a_long_cycle_ends_the_game_or_becomes_a_pass() {
    // 1×3: B a1, W c1, B b1 captures? Use the 2×2 superko game of reference 004 under the
    // Olympiad's long-cycle rule: the 7th move recreates the position after move 1.
    let g = Arc::new(Geometry::rect(2, 2).unwrap());
    let moves = ["a2", "b2", "a1", "b1", "a2", "a1"];
    for policy in [LongCyclePolicy::End, LongCyclePolicy::Pass] {
        let mut settings = Settings::new(Ruleset::OLYMPIAD);
        settings.long_cycle = policy;
        let mut r = Referee::new(g.clone(), settings, t(0)).unwrap();
        for (i, name) in moves.iter().enumerate() {
            let by = if i % 2 == 0 { B } else { W };
            let mv = Move::Play(g.parse_point(name).unwrap());
            r.apply(Input::Play { by, mv }, t(i as u64)).unwrap();
        }
        let repeat = Move::Play(g.parse_point("a2").unwrap());
        assert_eq!(r.game().long_cycle(repeat), Some(1));
        let applied = r.apply(Input::Play { by: B, mv: repeat }, t(10)).unwrap();
        match policy {
            LongCyclePolicy::End => {
                assert_eq!(r.result().unwrap().ending, Ending::LongCycle);
                record_scores_to_its_result(&r);
            }
            LongCyclePolicy::Pass => {
                assert_eq!(
                    applied,
                    Applied::Moved {
                        color: B,
                        mv: Move::Pass,
                        replaced: true
                    }
                );
                assert_eq!(r.result(), None);
                assert_eq!(r.game().moves().last(), Some(&(B, Move::Pass)));
                assert!(r.notes().last().unwrap().text.contains("3.10.2"));
            }
        }
    }
}

#[test]
fn resignation_and_forfeits_end_the_game_in_any_phase() {
    let mut r = passed(Protocol::Chinese);
    r.apply(Input::Resign { by: W }, t(90)).unwrap();
    let res = r.result().unwrap();
    assert_eq!(
        (res.ending, res.outcome.to_sgf().as_str()),
        (Ending::Resignation, "B+R")
    );
    assert_eq!(r.apply(Input::Resign { by: B }, t(91)), Err(Refusal::Over));
    let mut r = Referee::new(geometry(), Settings::new(Ruleset::NSTT), t(0)).unwrap();
    r.apply(
        Input::Forfeit {
            by: B,
            fault: goref_referee::Fault::Crash,
            detail: "Black's engine exited".into(),
        },
        t(1),
    )
    .unwrap();
    assert_eq!(r.result().unwrap().outcome.to_sgf(), "W+F");
    assert!(r.result().unwrap().ending.is_forfeit());
}

#[test]
fn the_move_limit_scores_the_board_as_it_stands() {
    let mut settings = Settings::new(Ruleset::TROMP_TAYLOR);
    settings.move_limit = Some(3);
    let mut r = Referee::new(geometry(), settings, t(0)).unwrap();
    play(&mut r, B, "c3").unwrap();
    play(&mut r, W, "pass").unwrap();
    play(&mut r, B, "c2").unwrap();
    let res = r.result().unwrap();
    assert_eq!(
        (res.ending, res.outcome.to_sgf().as_str()),
        (Ending::MoveLimit, "B+25")
    );
}

#[test]
fn an_opening_is_played_before_the_game_and_checked() {
    let mut settings = Settings::new(Ruleset::TROMP_TAYLOR);
    settings.time = TimeControl::SuddenDeath { main: t(10) };
    settings.opening = vec![Move::Play(pt("c3")), Move::Play(pt("d3")), Move::Pass];
    let mut r = Referee::new(geometry(), settings.clone(), t(0)).unwrap();
    assert_eq!(r.game().moves().len(), 3);
    assert_eq!(
        r.need(),
        Need::Move {
            color: W,
            resumed: false,
            cleanup: false
        }
    );
    assert_eq!(r.clock().left(B).main, t(10), "the opening is not timed");
    play(&mut r, W, "pass").unwrap();
    // Two passes: the opening's pass counts as a turn of the game (TT rule 8).
    assert_eq!(r.phase(), Phase::Marking);
    let record = goref_sgf::parse(&r.sgf(&goref_referee::RecordInfo::default())).unwrap();
    assert_eq!(record.moves.len(), 4);
    settings.opening = vec![Move::Play(pt("c3")), Move::Play(pt("c3"))];
    let err = Referee::new(geometry(), settings, t(0)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "opening move 2 (White C3) is illegal: occupied"
    );
}

/// 001 3.10.3: the TD may grant extra time; 001 §1 and 3.10.2: the TD may decide a game. Both
/// are recorded, neither charges a clock.
#[test]
fn the_td_grants_time_and_decides_a_game_with_the_reason_recorded() {
    let mut settings = Settings::new(Ruleset::TROMP_TAYLOR);
    settings.time = TimeControl::SuddenDeath { main: t(10) };
    let mut r = Referee::new(geometry(), settings, t(0)).unwrap();
    play(&mut r, B, "c3").unwrap();
    assert_eq!(r.clock().left(B).main, t(10));
    let grant = Input::GrantTime {
        color: B,
        extra: t(30),
        note: "TD alice: 30 s for Black (network trouble)".into(),
    };
    r.apply(grant, t(5)).unwrap();
    assert_eq!(
        r.clock().left(B).main,
        t(40),
        "granted on top of what was left"
    );
    assert_eq!(r.clock().running(), Some(W), "White's turn still runs");
    let decide = Input::Decide {
        outcome: "W+R".parse().unwrap(),
        note: "TD alice: Black's program cannot go on".into(),
    };
    r.apply(decide.clone(), t(6)).unwrap();
    let res = r.result().unwrap();
    assert_eq!(
        (res.outcome.to_sgf().as_str(), res.ending),
        ("W+R", Ending::Decision)
    );
    assert_eq!(r.clock().running(), None);
    assert_eq!(r.apply(decide, t(7)), Err(Refusal::Over));
    let sgf = r.sgf(&goref_referee::RecordInfo::default());
    assert!(sgf.contains("RE[W+R]"), "{sgf}");
    assert!(
        sgf.contains("30 s for Black") && sgf.contains("cannot go on"),
        "{sgf}"
    );
    record_scores_to_its_result(&r);
    // No clock, no grant.
    let mut untimed = Referee::new(geometry(), Settings::new(Ruleset::TROMP_TAYLOR), t(0)).unwrap();
    let grant = Input::GrantTime {
        color: W,
        extra: t(1),
        note: String::new(),
    };
    assert_eq!(untimed.apply(grant, t(1)), Err(Refusal::Untimed));
    assert_eq!(Refusal::Untimed.code(), "no_clock");
}

/// 001 §3.9: "the tournament director may decide the outcome of the game based on perfect
/// hypothetical play-out". The players dispute b4 and e1 (the referee protocol sends the
/// dispute to the third party); perfect play from the position, play resumed with Black to
/// move, captures both lone stones: Black keeps columns a-c (15 points), White d-e (10), B+5
/// under NSTT without komi. The play-out stays in the record, which replays to that result.
#[test]
fn perfect_play_decides_a_dispute_by_playing_it_out() {
    let mut r = passed(Protocol::Referee);
    lists(&mut r, &["b4"], &["e1"]);
    let decision = adjudicate::by_perfect_play(&r, 1_000_000).unwrap();
    let Input::PlayOut { moves, note } = decision.clone() else {
        panic!("{decision:?}");
    };
    assert!(note.contains("perfect play (001 §3.9"), "{note}");
    let before = r.game().moves().len();
    r.apply(decision, t(300)).unwrap();
    let (re, ending, settled, removed) = result(&r);
    assert_eq!(re, "B+5");
    assert_eq!(ending, Ending::Adjudicated);
    assert_eq!(settled, None);
    assert!(removed.is_empty());
    // The play-out's moves are on the board, after the players' moves, and end the game by
    // two passes (TT rule 8): b4 and e1 captured.
    assert_eq!(r.game().moves().len(), before + moves.len());
    assert_eq!(r.game().end(), Some(goref_rules::End::TwoPasses));
    assert_ne!(r.game().board().get(pt("b4")), Some(W));
    assert_ne!(r.game().board().get(pt("e1")), Some(B));
    let detail = r.result().unwrap().detail.clone().unwrap();
    assert!(detail.contains("perfect play-out (001 §3.9)"), "{detail}");
    assert!(r.notes().iter().any(|n| n.text == note));
}

/// 001 §1 with `perfect`: a game sent to the director by the minimum-moves rule is decided by
/// perfect play from the position with its history, the value a separate solve of the same
/// moves gives; with too small a budget the default removal decides, and says why.
#[test]
fn perfect_play_decides_a_timing_adjudication_or_falls_back_to_the_default_removal() {
    let g = Arc::new(Geometry::rect(3, 3).unwrap());
    let rules = Ruleset::OLYMPIAD.with_komi("0.5".parse().unwrap());
    let mut settings = Settings::new(rules);
    settings.time = TimeControl::SuddenDeath { main: t(10) };
    settings.min_moves = Some(1);
    let moves = ["b2", "c3", "c2"];
    let start = || {
        let mut r = Referee::new(g.clone(), settings.clone(), t(0)).unwrap();
        for (i, name) in moves.iter().enumerate() {
            let by = if i % 2 == 0 { B } else { W };
            let mv = Move::Play(g.parse_point(name).unwrap());
            r.apply(Input::Play { by, mv }, t(i as u64)).unwrap();
        }
        r.apply(Input::Timeout, t(30)).unwrap();
        assert!(matches!(
            r.need(),
            Need::Adjudication {
                reason: Adjudication::Timing { by: W },
                ..
            }
        ));
        r
    };
    // The value by a separate search of the same game.
    let mut game = goref_rules::Game::rect(3, 3, rules).unwrap();
    for name in moves {
        game.play(Move::Play(g.parse_point(name).unwrap())).unwrap();
    }
    let solved = goref_solve::solve(&game, &goref_solve::Options::default()).unwrap();
    let goref_solve::Verdict::Proven(value) = solved.verdict else {
        panic!("{solved:?}");
    };
    let mut r = start();
    let decision = adjudicate::by_perfect_play(&r, 10_000_000).unwrap();
    assert!(matches!(decision, Input::PlayOut { .. }), "{decision:?}");
    r.apply(decision, t(31)).unwrap();
    let (re, ending, _, _) = result(&r);
    assert_eq!(re, value.to_sgf());
    assert_eq!(ending, Ending::Adjudicated);
    let detail = r.result().unwrap().detail.clone().unwrap();
    assert!(detail.contains("White ran out of time"), "{detail}");
    assert!(detail.contains("perfect play-out"), "{detail}");

    // One node proves nothing: the default removal decides, and the note says so.
    let mut r = start();
    let decision = adjudicate::by_perfect_play(&r, 1).unwrap();
    let Input::Adjudicate { note, .. } = &decision else {
        panic!("{decision:?}");
    };
    assert!(
        note.contains("perfect play not proved within 1 nodes"),
        "{note}"
    );
    assert!(note.contains("default removal"), "{note}");
    r.apply(decision, t(31)).unwrap();
    let (_, ending, _, _) = result(&r);
    assert_eq!(ending, Ending::Adjudicated);
}

/// A play-out must be legal from the position: an illegal move in it is refused, and nothing
/// changes.
#[test]
fn an_illegal_play_out_is_refused() {
    let mut r = passed(Protocol::Referee);
    lists(&mut r, &["b4"], &["e1"]);
    let bad = Input::PlayOut {
        moves: vec![Move::Play(pt("c3"))],
        note: String::new(),
    };
    assert!(matches!(
        r.apply(bad, t(300)),
        Err(Refusal::Illegal {
            reason: Illegal::Occupied,
            ..
        })
    ));
    assert!(matches!(r.need(), Need::Adjudication { .. }));
}

/// A board beyond the solver (more than 32 points): perfect play is not searched, the
/// default removal decides, and the note says why.
#[test]
fn perfect_play_on_a_large_board_falls_back_to_the_default_removal() {
    let g = Arc::new(Geometry::rect(9, 9).unwrap());
    let mut settings = Settings::new(Ruleset::OLYMPIAD);
    settings.time = TimeControl::SuddenDeath { main: t(10) };
    settings.min_moves = Some(1);
    let mut r = Referee::new(g.clone(), settings, t(0)).unwrap();
    for (by, name) in [(B, "e5"), (W, "c3")] {
        let mv = Move::Play(g.parse_point(name).unwrap());
        r.apply(Input::Play { by, mv }, t(1)).unwrap();
    }
    r.apply(Input::Timeout, t(30)).unwrap();
    let decision = adjudicate::by_perfect_play(&r, 1_000_000).unwrap();
    let Input::Adjudicate { note, .. } = &decision else {
        panic!("{decision:?}");
    };
    assert!(
        note.contains("perfect play not searched: the board has 81 points"),
        "{note}"
    );
    assert!(note.contains("default removal"), "{note}");
    r.apply(decision, t(31)).unwrap();
    assert_eq!(result(&r).1, Ending::Adjudicated);
}

/// `Adjudicate::Exact`: random games on 5×5 end as soon as a winner is certain, `Decided`,
/// the winner by the certain margin with the reason in the record; the record replays to a
/// game that the same test decides the same way; played on without it (the same moves, then
/// the winner passing) the game ends with the same winner by at least that margin.
#[test]
fn exact_adjudication_ends_a_decided_game_and_its_record_replays() {
    use goref_referee::Adjudicate;
    use goref_rules::playout::{random_move, Rng};
    let mut decided = 0;
    for preset in goref_rules::Preset::ALL {
        for seed in 0..6 {
            let rules = Ruleset::preset(preset).with_komi("0.5".parse().unwrap());
            let mut settings = Settings::new(rules);
            settings.end = goref_referee::Protocol::AllAlive;
            settings.adjudicate = Adjudicate::Exact;
            let mut exact = Referee::new(geometry(), settings.clone(), t(0)).unwrap();
            settings.adjudicate = Adjudicate::Off;
            let mut full = Referee::new(geometry(), settings, t(0)).unwrap();
            let mut rng = Rng::new(seed);
            let mut buffer = Vec::new();
            while full.result().is_none() {
                let color = full.game().to_move();
                // Once decided, the winner passes (the strategy the decision rests on).
                let winner = exact
                    .result()
                    .filter(|r| r.ending == Ending::Decided)
                    .and_then(|r| r.outcome.winner());
                let mv = if winner == Some(color) {
                    Move::Pass
                } else {
                    random_move(full.game(), &mut rng, &mut buffer)
                };
                if exact.result().is_none() {
                    exact.apply(Input::Play { by: color, mv }, t(1)).unwrap();
                }
                full.apply(Input::Play { by: color, mv }, t(1)).unwrap();
            }
            let res = exact.result().unwrap();
            if res.ending != Ending::Decided {
                assert_eq!(res, full.result().unwrap());
                continue;
            }
            decided += 1;
            let text = exact.sgf(&goref_referee::RecordInfo::default());
            assert!(
                text.contains("decided: ") && text.contains("win is certain"),
                "{text}"
            );
            let record = goref_sgf::parse(&text).unwrap();
            assert_eq!(record.result, Some(res.outcome.to_sgf()));
            let game = record.replay(rules).unwrap();
            let again = goref_judge::decided(&game).unwrap();
            assert_eq!(again.outcome(), res.outcome);
            let goref_rules::Outcome::Win {
                winner,
                by: goref_rules::WinBy::Points { half_points },
            } = full.result().unwrap().outcome
            else {
                panic!("{:?}", full.result());
            };
            assert_eq!(Some(winner), res.outcome.winner());
            assert!(half_points >= again.margin_half_points);
            assert!(full.game().moves().len() > exact.game().moves().len());
        }
    }
    assert!(decided >= 6, "{decided} of 18 decided");
}

/// The names of the adjudication modes read back.
#[test]
fn adjudication_modes_read_and_print() {
    use goref_referee::Adjudicate;
    for (text, mode) in [
        ("off", Adjudicate::Off),
        ("exact", Adjudicate::Exact),
        ("perfect:5000", Adjudicate::Perfect { nodes: 5000 }),
    ] {
        assert_eq!(text.parse::<Adjudicate>().unwrap(), mode);
        assert_eq!(mode.to_string(), text);
    }
    assert_eq!(
        "perfect".parse::<Adjudicate>().unwrap(),
        Adjudicate::Perfect {
            nodes: Adjudicate::PERFECT_NODES
        }
    );
    for bad in ["", "perfect:", "perfect:0", "perfect:-1", "exactly"] {
        assert!(bad.parse::<Adjudicate>().is_err(), "{bad}");
    }
}
