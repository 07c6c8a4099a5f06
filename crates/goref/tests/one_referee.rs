//! One referee for every game: the same inputs given to the referee as the match runner sets
//! it up and to the server's room (through its stored events, and again after a restart that
//! replays them) give the same game and the same record, under every end protocol.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use goref_clock::TimeControl;
use goref_referee::{Input, Need, PlayerInfo, Protocol, RecordInfo, Referee};
use goref_rules::{Color, Geometry, Move, Point, Preset, Ruleset};
use goref_server::room::{Act, GameConfig, Room};
use proptest::prelude::*;

const SIZE: usize = 5;

/// The next input of a random but legal game, chosen by `seed` from what the referee needs.
fn next_input(r: &Referee, seed: u32) -> Option<Input> {
    let pick = |n: usize| (seed as usize / 7) % n.max(1);
    Some(match r.need() {
        Need::Over => return None,
        Need::Move { color, .. } | Need::PlayOutOnCopy { color } => {
            let legal = r.board_in_play().legal_moves();
            let mv = if seed.is_multiple_of(5) {
                Move::Pass
            } else {
                legal[pick(legal.len())]
            };
            if seed % 997 == 1 {
                Input::Resign { by: color }
            } else {
                Input::Play { by: color, mv }
            }
        }
        Need::DeadLists { missing } => {
            let by = if missing.black {
                Color::Black
            } else {
                Color::White
            };
            let board = r.game().board();
            let stones: Vec<Point> = board
                .geometry()
                .points()
                .filter(|&p| board.get(p).is_some())
                .filter(|p| (p.index() as u32 + seed).is_multiple_of(4))
                .collect();
            Input::DeadList {
                by,
                stones: Some(stones),
            }
        }
        Need::Marking { to_act } => {
            let agreement = r.agreement().expect("marking");
            let board = agreement.board();
            let stones: Vec<Point> = board
                .geometry()
                .points()
                .filter(|&p| board.get(p).is_some() && !agreement.marked().contains(&p))
                .collect();
            match (seed % 4, agreement.marked().iter().next()) {
                (0, Some(&at)) => Input::Dispute { by: to_act, at },
                (1 | 2, _) if !stones.is_empty() => Input::Mark {
                    by: to_act,
                    at: stones[pick(stones.len())],
                },
                _ => Input::Done { by: to_act },
            }
        }
        Need::Adjudication { .. } => return goref_referee::adjudicate::by_default_removal(r),
    })
}

/// The server's message for an input, or `None` for the server's own adjudication.
fn act(g: &Geometry, input: &Input) -> (Option<Color>, Act) {
    let xy = |p: Point| g.coords(p).unwrap();
    match input {
        Input::Play {
            by,
            mv: Move::Play(p),
        } => (
            Some(*by),
            Act::Play {
                x: xy(*p).0,
                y: xy(*p).1,
            },
        ),
        Input::Play { by, .. } => (Some(*by), Act::Pass),
        Input::Resign { by } => (Some(*by), Act::Resign),
        Input::DeadList { by, stones } => (
            Some(*by),
            Act::DeadList {
                points: stones
                    .iter()
                    .flatten()
                    .map(|&p| [xy(p).0, xy(p).1])
                    .collect(),
            },
        ),
        Input::Mark { by, at } => (
            Some(*by),
            Act::Mark {
                x: xy(*at).0,
                y: xy(*at).1,
            },
        ),
        Input::Dispute { by, at } => (
            Some(*by),
            Act::Dispute {
                x: xy(*at).0,
                y: xy(*at).1,
            },
        ),
        Input::Done { by } => (Some(*by), Act::Done),
        Input::Adjudicate { dead, note } => (
            None,
            Act::Adjudicate {
                points: dead.iter().flatten().map(|&p| [xy(p).0, xy(p).1]).collect(),
                note: note.clone(),
            },
        ),
        other => panic!("not generated: {other:?}"),
    }
}

/// Plays `seeds` through both; returns the phases the game went through.
fn check(protocol: Protocol, preset: Preset, seeds: &[u32]) -> BTreeSet<&'static str> {
    let mut phases = BTreeSet::new();
    let rules = Ruleset::preset(preset).with_komi("0.5".parse().unwrap());
    let mut match_settings = goref_match::GameSettings::new(SIZE, SIZE);
    match_settings.game.rules = rules;
    match_settings.game.time = TimeControl::None;
    match_settings.game.end = protocol;
    let geometry = Arc::new(Geometry::rect(SIZE, SIZE).unwrap());
    let mut referee = Referee::new(
        geometry.clone(),
        match_settings.referee_settings(Vec::new()),
        Duration::ZERO,
    )
    .unwrap();
    let config = GameConfig {
        width: SIZE,
        height: SIZE,
        rules: preset.name().into(),
        komi: 0.5,
        time: TimeControl::None,
        end: protocol,
        black: "Black".into(),
        white: "White".into(),
        handicap: 0,
        players: None,
        rated: false,
        cgos: None,
        third_party: Default::default(),
        adjudicate: false,
        pool: None,
    };
    let mut room = Room::new(config.clone(), 0, 1_000).unwrap();
    let mut events = Vec::new();
    for (i, &seed) in seeds.iter().enumerate() {
        // Below the match's move limit (3 × 25 + 100 turns), which the server does not have.
        if referee.game().moves().len() > 150 {
            break;
        }
        phases.insert(referee.phase().name());
        let Some(input) = next_input(&referee, seed) else {
            break;
        };
        let now = 10 * (i as u64 + 1);
        let (by, message) = act(&geometry, &input);
        referee
            .apply(input, Duration::from_millis(now))
            .expect("generated inputs are accepted");
        if by.is_some() {
            let (event, next) = room
                .prepare(by, message, now, None)
                .expect("the room accepts what the referee accepted");
            events.push(event);
            room = next;
        }
        // The server decides adjudications itself, as soon as they are needed.
        if let Some((event, next)) = room.prepare_adjudication(now) {
            events.push(event);
            room = next;
        }
    }
    // The server decides an adjudication at once; the match asks its third party next: when
    // the inputs ran out there, the match's referee hears the same decision.
    if let Some(decision) = goref_referee::adjudicate::by_default_removal(&referee) {
        referee
            .apply(
                decision,
                Duration::from_millis(10 * (seeds.len() as u64 + 1)),
            )
            .unwrap();
    }
    // The server dates its records by the game's creation (here the epoch).
    let info = RecordInfo {
        black: PlayerInfo::named("Black"),
        white: PlayerInfo::named("White"),
        game_name: None,
        date: Some(goref_referee::sgf_date(0)),
    };
    assert_eq!(room.referee().result(), referee.result());
    assert_eq!(room.sgf(), referee.sgf(&info));
    // A restart replays the stored events into the same game.
    let mut again = Room::new(config, 0, 1_000).unwrap();
    for e in &events {
        again.commit(e).unwrap();
    }
    assert_eq!(again.sgf(), room.sgf());
    assert_eq!(again.version(), room.version());
    phases
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_match_runners_referee_and_the_servers_room_keep_the_same_record(
        protocol in prop::sample::select(Protocol::ALL.to_vec()),
        preset in prop::sample::select(Preset::ALL.to_vec()),
        seeds in prop::collection::vec(any::<u32>(), 1..300),
    ) {
        check(protocol, preset, &seeds);
    }
}

/// The generated games do reach every phase of every protocol: the property above is not
/// vacuous.
#[test]
fn the_generated_games_reach_every_phase() {
    let mut state = 12345u32;
    let mut seeds = || {
        (0..300)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                state >> 8
            })
            .collect::<Vec<u32>>()
    };
    for (protocol, phase) in [
        (Protocol::Chinese, "dead_lists"),
        (Protocol::Tromp, "marking"),
        (Protocol::Japanese, "play_out"),
        (Protocol::Olympiad, "dead_lists"),
        (Protocol::AllAlive, "over"),
    ] {
        let reached =
            (0..40).any(|_| check(protocol, Preset::TrompTaylor, &seeds()).contains(phase));
        assert!(reached, "{protocol} never reached {phase}");
    }
}
