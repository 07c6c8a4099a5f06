//! Round trips of every message against the JSON the untyped code produced.

use std::time::Duration;

use goref_clock::TimeControl;
use goref_referee::Protocol;
use goref_rules::Color;
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::*;
use crate::room::{Act, Closing, CreateRequest, Players, Room};

/// The views of [`scenarios`] (id `g1`), as the untyped `Room::view` (a `serde_json::Value`
/// built with `json!`) wrote them: taken once from that code, before it returned a
/// [`super::StateView`], and never written again.
const OLD_VIEWS: &str = include_str!("old_views.json");

fn view_json(room: &Room, id: &str, now_ms: u64) -> Value {
    serde_json::to_value(ServerMessage::State(Box::new(room.view(id, now_ms)))).unwrap()
}

fn config(end: Protocol, time: TimeControl, handicap: usize) -> crate::room::GameConfig {
    CreateRequest {
        width: Some(if handicap > 0 { 9 } else { 5 }),
        rules: Some(if handicap > 0 { "nstt" } else { "olympiad" }.into()),
        komi: Some(0.5),
        time: Some(time),
        end: Some(end),
        handicap: Some(handicap),
        ..CreateRequest::default()
    }
    .config()
    .unwrap()
}

/// Applies `acts` in turn (each by `by`, `None` for the server), one second apart.
fn play(mut room: Room, acts: &[(Option<Color>, Act)]) -> Room {
    let mut now = room.created_ms();
    for (by, act) in acts {
        now += 1_000;
        let (_, next) = room
            .prepare(*by, act.clone(), now, Some(400))
            .unwrap_or_else(|r| panic!("{act:?} by {by:?}: {r}"));
        room = next;
        while let Some((_, next)) = room.prepare_adjudication(now) {
            room = next;
        }
    }
    room
}

const B: Option<Color> = Some(Color::Black);
const W: Option<Color> = Some(Color::White);

fn at(x: usize, y: usize) -> Act {
    Act::Play { x, y }
}

/// Games in every state the page shows: each need of the referee, a ko, captures, a running
/// clock with periods, a play-out copy, marks, dead lists, an adjudication, results and notes.
pub(super) fn scenarios() -> Vec<(&'static str, Room, u64)> {
    let none = TimeControl::None;
    let byo = TimeControl::ByoYomi {
        main: Duration::from_secs(60),
        period: Duration::from_secs(10),
        periods: 3,
    };
    let new =
        |end, time, handicap| Room::new(config(end, time, handicap), 1_000_000, 1_000).unwrap();
    let ko = [
        (B, at(2, 0)),
        (W, at(1, 0)),
        (B, at(3, 1)),
        (W, at(0, 1)),
        (B, at(2, 2)),
        (W, at(1, 2)),
        (B, at(1, 1)),
        (W, at(2, 1)),
    ];
    let passes = [(B, Act::Pass), (W, Act::Pass)];
    let mut out = Vec::new();
    out.push(("fresh", new(Protocol::Tromp, none, 0), 1_000_500));
    out.push((
        "ko, captures, byo-yomi running",
        play(new(Protocol::Tromp, byo, 0), &ko),
        1_075_000,
    ));
    let mut handicap = new(
        Protocol::Chinese,
        TimeControl::SuddenDeath {
            main: Duration::from_secs(5),
        },
        2,
    );
    let mut cfg = handicap.config().clone();
    cfg.players = Some(Players {
        black: "ann".into(),
        white: "bo".into(),
    });
    cfg.rated = true;
    handicap = Room::new(cfg, 1_000_000, 0).unwrap();
    out.push(("handicap, accounts, rated", handicap, 1_002_000));
    let marking = play(
        new(Protocol::Tromp, none, 0),
        &[
            ko.as_slice(),
            passes.as_slice(),
            &[(B, Act::Mark { x: 1, y: 0 })],
        ]
        .concat(),
    );
    out.push(("marking", marking.clone(), 1_200_000));
    let disputed = play(marking, &[(W, Act::Dispute { x: 1, y: 0 })]);
    out.push(("disputed", disputed, 1_200_000));
    let lists = play(
        new(Protocol::Chinese, none, 0),
        &[
            ko.as_slice(),
            passes.as_slice(),
            &[(
                B,
                Act::DeadList {
                    points: vec![[1, 0]],
                },
            )],
        ]
        .concat(),
    );
    out.push(("dead lists, one given", lists.clone(), 1_200_000));
    let agreed = play(
        lists,
        &[(
            W,
            Act::DeadList {
                points: vec![[1, 0]],
            },
        )],
    );
    out.push(("dead lists agreed: over", agreed, 1_300_000));
    let japanese = play(
        new(Protocol::Japanese, none, 0),
        &[
            ko.as_slice(),
            passes.as_slice(),
            &[
                (
                    B,
                    Act::DeadList {
                        points: vec![[1, 0]],
                    },
                ),
                (W, Act::DeadList { points: vec![] }),
            ],
        ]
        .concat(),
    );
    out.push((
        "japanese: after lists that differ",
        japanese.clone(),
        1_300_000,
    ));
    if let goref_referee::Need::PlayOutOnCopy { color } = japanese.referee().need() {
        let more = play(japanese, &[(Some(color), at(4, 4))]);
        out.push(("japanese: a move on the copy", more, 1_400_000));
    }
    let referee = play(
        new(Protocol::Referee, none, 0),
        &[ko.as_slice(), passes.as_slice()].concat(),
    );
    out.push(("third party: adjudicated", referee, 1_300_000));
    let resigned = play(
        new(Protocol::AllAlive, byo, 0),
        &[(B, at(2, 2)), (W, Act::Resign)],
    );
    out.push(("resigned", resigned, 1_100_000));
    let (_, closed) = new(Protocol::Tromp, none, 0)
        .prepare_close(1_000_000 + 3_600_000, 3_600_000, 1)
        .unwrap();
    out.push(("closed void, with a note", closed, 5_000_000));
    let _ = Closing::Abandoned;
    out
}

/// `old` (JSON the untyped code wrote) reads as a `T` and writes back as the same JSON value.
#[track_caller]
fn round_trip<T: Serialize + DeserializeOwned + std::fmt::Debug>(old: &Value) -> T {
    let typed: T =
        serde_json::from_value(old.clone()).unwrap_or_else(|e| panic!("{old} does not read: {e}"));
    let again = serde_json::to_value(&typed).unwrap();
    assert_eq!(&again, old, "{typed:?}");
    typed
}

#[test]
fn every_state_of_the_old_views_is_written_the_same_and_reads_back() {
    let old: serde_json::Map<String, Value> = serde_json::from_str(OLD_VIEWS).unwrap();
    let scenarios = scenarios();
    assert_eq!(old.len(), scenarios.len(), "a view for every scenario");
    for (name, room, now) in scenarios {
        let old = &old[name];
        assert_eq!(&view_json(&room, "g1", now), old, "{name}");
        let typed: ServerMessage = round_trip(old);
        let ServerMessage::State(view) = typed else {
            panic!("{name}: not a state")
        };
        assert_eq!(*view, room.view("g1", now), "{name}");
    }
}

#[test]
fn the_scenarios_cover_every_need_a_copy_a_ko_marks_dead_stones_clocks_and_notes() {
    let views: Vec<StateView> = scenarios()
        .into_iter()
        .map(|(_, room, now)| room.view("g", now))
        .collect();
    let has = |f: &dyn Fn(&StateView) -> bool| views.iter().any(f);
    assert!(has(&|v| matches!(v.need, Need::Move { resumed: true, .. })));
    assert!(has(&|v| matches!(v.need, Need::PlayOut { .. })));
    assert!(has(&|v| matches!(v.need, Need::DeadLists { .. })));
    assert!(has(&|v| matches!(v.need, Need::Marking { .. })));
    assert!(has(&|v| v.need == Need::Over));
    assert!(has(&|v| v
        .copy
        .as_ref()
        .is_some_and(|c| !c.moves.is_empty())));
    assert!(has(&|v| v.ko.is_some()));
    assert!(has(&|v| !v.marked.is_empty() && v.to_act.is_some()));
    assert!(has(&|v| !v.dead.is_empty() && v.result.is_some()));
    assert!(has(
        &|v| v.clocks.running.is_some() && v.clocks.black.periods > 0
    ));
    assert!(has(&|v| v.lists_given.black && !v.lists_given.white));
    assert!(has(&|v| !v.notes.is_empty()));
    assert!(has(&|v| v.config.handicap > 0 && v.config.rated));
}

#[test]
fn adjudication_and_disputed_points_read_and_write_as_before() {
    let old: serde_json::Map<String, Value> = serde_json::from_str(OLD_VIEWS).unwrap();
    let mut state = old["marking"].clone();
    state["need"] = json!({"type": "adjudication"});
    state["disputed"] = json!([[1, 0], [2, 1]]);
    let typed: ServerMessage = round_trip(&state);
    let ServerMessage::State(view) = typed else {
        panic!("a state")
    };
    assert_eq!(view.need, Need::Adjudication);
    assert_eq!(view.disputed, vec![[1, 0], [2, 1]]);
}

/// The other messages of the game WebSocket, as the untyped server wrote them
/// (`json!({"type": "hello", "seat": …})` and the like in `server.rs`).
#[test]
fn game_server_messages_read_and_write_as_before() {
    let hello: ServerMessage = round_trip(&json!(
        {"type": "hello", "seat": "B", "version": 3, "lag_allowance_ms": 1000}));
    assert_eq!(
        hello,
        ServerMessage::Hello {
            seat: Some(Side::B),
            version: 3,
            lag_allowance_ms: 1000
        }
    );
    let spectator: ServerMessage = round_trip(&json!(
        {"type": "hello", "seat": null, "version": 0, "lag_allowance_ms": 0}));
    assert!(matches!(spectator, ServerMessage::Hello { seat: None, .. }));
    let presence: ServerMessage =
        round_trip(&json!({"type": "presence", "B": 1, "W": 0, "spectators": 4}));
    assert_eq!(
        presence,
        ServerMessage::Presence {
            black: 1,
            white: 0,
            spectators: 4
        }
    );
    for id in [
        json!(null),
        json!("m7"),
        json!(12),
        json!({"any": [1, "json"]}),
    ] {
        let ack: ServerMessage = round_trip(&json!({"type": "ack", "id": id, "version": 8}));
        assert!(matches!(ack, ServerMessage::Ack { version: 8, .. }));
        let error: ServerMessage = round_trip(&json!({"type": "error", "code": "stale",
            "message": "this message answers version 6 but the game is at version 8: refused \
                        (old or repeated message)", "id": id, "version": 8}));
        assert!(matches!(error, ServerMessage::Error { ref code, .. } if code == "stale"));
    }
}

/// What the page (`web/src/game.jsx`), `goref connect` and the tests send.
#[test]
fn game_client_messages_read_and_write_as_before() {
    let cases = [
        (
            json!({"type": "play", "x": 2, "y": 3, "version": 7, "think_ms": 850}),
            Command::Play { x: 2, y: 3 },
        ),
        (json!({"type": "pass", "version": 0}), Command::Pass),
        (json!({"type": "resign", "version": 4}), Command::Resign),
        (
            json!({"type": "mark", "x": 0, "y": 4, "version": 9, "think_ms": 0}),
            Command::Mark { x: 0, y: 4 },
        ),
        (
            json!({"type": "dispute", "x": 1, "y": 1, "version": 10}),
            Command::Dispute { x: 1, y: 1 },
        ),
        (
            json!({"type": "done", "version": 11, "id": "d"}),
            Command::Done,
        ),
        (
            json!({"type": "dead_list", "points": [[1, 0], [0, 1]], "version": 12}),
            Command::DeadList {
                points: vec![[1, 0], [0, 1]],
            },
        ),
        (
            json!({"type": "dead_list", "points": [], "version": 12}),
            Command::DeadList { points: vec![] },
        ),
        (json!({"type": "sync"}), Command::Sync),
        (json!({"type": "sync", "id": 3}), Command::Sync),
    ];
    for (old, command) in cases {
        let typed: ClientMessage = round_trip(&old);
        assert_eq!(typed.command, command, "{old}");
        assert_eq!(typed.version, old.get("version").and_then(Value::as_u64));
        assert_eq!(ClientMessage::parse(&old.to_string()).unwrap(), typed);
        assert_eq!(typed.command.act().is_none(), command == Command::Sync);
    }
}

/// The refusals of the untyped server, word for word, and the `id` they echoed.
#[test]
fn unreadable_messages_are_typed_errors_with_the_old_words() {
    let refused = |text: &str| ClientMessage::parse(text).unwrap_err();
    let e = refused(r#"{"type": "teleport", "version": 3, "id": "t"}"#);
    assert_eq!(e.kind, ProtocolErrorKind::UnknownType("teleport".into()));
    assert_eq!(e.to_string(), "unknown message type 'teleport'");
    assert_eq!(e.id, Some(json!("t")));
    let long = format!(r#"{{"type": "{}"}}"#, "z".repeat(100));
    assert_eq!(
        refused(&long).to_string(),
        format!("unknown message type '{}'", "z".repeat(32))
    );
    let e = refused(r#"{"type": "play", "x": 1, "version": 3, "id": 9}"#);
    assert_eq!(e.to_string(), "'play' needs x and y");
    assert_eq!(e.id, Some(json!(9)));
    assert_eq!(
        refused(r#"{"type": "dispute", "y": 1}"#).to_string(),
        "'dispute' needs x and y"
    );
    assert_eq!(
        refused(r#"{"type": "dead_list"}"#).to_string(),
        "'dead_list' needs points"
    );
    for text in [
        "{not json",
        r#"{"type": "play", "x": 1, "y": 1, "version": 3, "sneaky": 1}"#,
        r#"{"type": "play", "x": -1, "y": 0, "version": 3}"#,
        r#"{"x": 1, "y": 1}"#,
        "[]",
        "null",
        "",
    ] {
        let e = refused(text);
        assert!(matches!(e.kind, ProtocolErrorKind::Unreadable(_)), "{text}");
        assert!(e.to_string().starts_with("malformed message: "), "{e}");
        assert_eq!((e.code(), e.id), ("malformed", None));
    }
    // Fields of other commands are let through, as before.
    let lenient = ClientMessage::parse(r#"{"type": "pass", "x": 1, "points": [], "version": 2}"#);
    assert_eq!(lenient.unwrap().command, Command::Pass);
}

/// The lobby's messages: what the page (`web/src/lobby.jsx`) and `goref connect` send, and
/// what the untyped `lobby.rs` wrote.
#[test]
fn lobby_messages_read_and_write_as_before() {
    let settings = json!({"width": 9, "rules": "olympiad", "end": "tromp"});
    let challenge: LobbyClientMessage = round_trip(&json!({"type": "challenge", "game": settings}));
    assert_eq!(
        challenge,
        LobbyClientMessage::Challenge {
            game: settings.clone(),
            color: None,
            rated: None
        }
    );
    let page: LobbyClientMessage = round_trip(&json!({"type": "challenge", "game": {"width": 13},
        "color": "black", "rated": false}));
    assert!(matches!(
        page,
        LobbyClientMessage::Challenge {
            color: Some(ColorChoice::Black),
            rated: Some(false),
            ..
        }
    ));
    let _: LobbyClientMessage = round_trip(&json!({"type": "cancel", "challenge": "a1b2"}));
    let _: LobbyClientMessage = round_trip(&json!({"type": "accept", "challenge": "a1b2"}));
    let wait: LobbyClientMessage = round_trip(&json!({"type": "wait", "on": true}));
    assert_eq!(wait, LobbyClientMessage::wait(true));
    for bad in [
        r#"{"type": "wait"}"#,
        r#"{"type": "wait", "on": true, "also": 1}"#,
        r#"{"type": "dance"}"#,
        r#"{"type": "challenge", "game": {}, "color": "green"}"#,
        r#"{"type": "challenge", "game": {}, "color": null}"#,
        r#"{"type": "challenge", "game": {}, "rated": null}"#,
        r#"{"type": "challenge", "color": "black"}"#,
        "[]",
    ] {
        let e = LobbyClientMessage::parse(bad).unwrap_err();
        assert_eq!(e.code(), "malformed", "{bad}");
        assert!(e.to_string().starts_with("malformed message: "), "{e}");
    }

    let account = json!({"name": "alice", "program": false, "td": true, "created_ms": 17});
    let hello: LobbyServerMessage = round_trip(&json!({"type": "hello", "account": account}));
    assert!(matches!(hello, LobbyServerMessage::Hello { ref account } if account.td));
    let old: serde_json::Map<String, Value> = serde_json::from_str(OLD_VIEWS).unwrap();
    let config = old["handicap, accounts, rated"]["config"].clone();
    let game: LobbyServerMessage = round_trip(&json!({"type": "game", "id": "0a1b2c",
        "color": "W", "opponent": "bob", "config": config}));
    assert!(matches!(game, LobbyServerMessage::Game(ref g) if g.color == Side::W));
    let lobby: LobbyServerMessage = round_trip(&json!({"type": "lobby",
        "online": [{"name": "alice", "program": false, "rating": null, "waiting": false},
                   {"name": "gnugo", "program": true, "rating": 1562.0, "waiting": true}],
        "challenges": [{"id": "c0ffee", "by": "gnugo", "program": true, "color": "random",
                        "rated": true, "game": settings}]}));
    let LobbyServerMessage::Lobby {
        online,
        challenges,
        list,
    } = lobby
    else {
        panic!("a lobby")
    };
    assert!(list, "a lobby without `list` has its lists");
    assert_eq!(online[1].rating, Some(1562.0));
    assert_eq!(challenges[0].color, ColorChoice::Random);
    let _: LobbyServerMessage =
        round_trip(&json!({"type": "lobby", "online": [], "challenges": []}));
    let unlisted: LobbyServerMessage =
        round_trip(&json!({"type": "lobby", "online": [], "challenges": [], "list": false}));
    assert!(matches!(
        unlisted,
        LobbyServerMessage::Lobby { list: false, .. }
    ));
    // Changes: only the lists that changed are on the wire.
    let delta: LobbyServerMessage = round_trip(&json!({"type": "lobby_delta",
        "online": [{"name": "gnugo", "program": true, "rating": 1562.0, "waiting": false}],
        "withdrawn": ["c0ffee"]}));
    let LobbyServerMessage::LobbyDelta {
        online,
        gone,
        challenges,
        withdrawn,
    } = delta
    else {
        panic!("a delta")
    };
    assert!(!online[0].waiting);
    assert!(gone.is_empty() && challenges.is_empty());
    assert_eq!(withdrawn, ["c0ffee"]);
    let over: LobbyServerMessage = round_trip(&json!({"type": "game_over", "black": "a",
        "white": "b", "result": "B+R"}));
    assert!(matches!(over, LobbyServerMessage::GameOver { ref result, .. } if result == "B+R"));
    let acks = [
        (
            json!({"type": "ack", "waiting": true}),
            LobbyAck::Waiting { waiting: true },
        ),
        (
            json!({"type": "ack", "waiting": false}),
            LobbyAck::Waiting { waiting: false },
        ),
        (
            json!({"type": "ack", "challenge": "c1"}),
            LobbyAck::Challenge {
                challenge: "c1".into(),
            },
        ),
        (
            json!({"type": "ack", "cancelled": "c1"}),
            LobbyAck::Cancelled {
                cancelled: "c1".into(),
            },
        ),
        (
            json!({"type": "ack", "game": "g1"}),
            LobbyAck::Game { game: "g1".into() },
        ),
    ];
    for (old, ack) in acks {
        let typed: LobbyServerMessage = round_trip(&old);
        assert_eq!(typed, LobbyServerMessage::Ack(ack));
    }
    let _: LobbyServerMessage = round_trip(&json!({"type": "error", "code": "rate_limited",
        "message": "too many messages: slow down"}));
}

#[test]
fn http_bodies_read_and_write_as_before() {
    let e: ErrorBody = round_trip(&json!({"error": "not_found", "message": "no such game"}));
    assert_eq!(e.error, "not_found");
    let login: LoginAnswer = round_trip(&json!({"token": "ab12", "account": {"name": "bot",
        "program": true, "td": false, "created_ms": 1}}));
    assert!(login.account.program);
    let created: GameCreated = round_trip(&json!({"id": "0123ab",
        "black": {"secret": "s1", "link": "/g/0123ab#seat=s1"},
        "white": {"secret": "s2", "link": "/g/0123ab#seat=s2"}, "spectator": "/g/0123ab"}));
    assert_eq!(created.white.secret, "s2");
    let summary = json!({"id": "0123ab", "created_ms": 5, "width": 9, "height": 9,
        "rules": "olympiad", "end": "tromp", "black": "a", "white": "b", "rated": true,
        "accounts": true, "moves": 41, "result": null});
    let list: GameList = round_trip(&json!({"games": [summary]}));
    assert_eq!(list.games[0].moves, 41);
    let rating = json!({"name": "a", "rating": 1561.25, "interval": [1400.5, 1722.0],
        "games": 3, "wins": 2, "losses": 1, "draws": 0});
    let account = json!({"name": "a", "program": true, "td": false, "created_ms": 1});
    let me: MeAnswer = round_trip(&json!({"account": account, "rating": rating}));
    assert_eq!(me.rating.unwrap().interval, (1400.5, 1722.0));
    let _: MeAnswer = round_trip(&json!({"account": account, "rating": null}));
    let player: PlayerAnswer =
        round_trip(&json!({"account": account, "rating": null, "games": [summary]}));
    assert_eq!(player.games.len(), 1);
    // `lobby::players` wrote rated players with their results, the others with two fields;
    // a provisional rating says so (an established one, as before, does not).
    let players: PlayerList = round_trip(&json!({"players": [
        {"name": "a", "program": true, "rating": 1561.0, "interval": [1401.0, 1722.0],
         "games": 3, "wins": 2, "losses": 1, "draws": 0, "provisional": true},
        {"name": "b", "program": true, "rating": 1500.0, "interval": [1450.0, 1550.0],
         "games": 90, "wins": 45, "losses": 45, "draws": 0},
        {"name": "c", "program": false, "rating": null, "games": 0}]}));
    assert_eq!(players.players[2].rating, None);
    assert_eq!(players.players[0].wins, Some(2));
    assert!(players.players[0].provisional && !players.players[1].provisional);
}

/// A JSON value of any shape, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "[a-z_]{0,10}".prop_map(Value::from),
        "\\PC{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{0,9}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Objects that look like messages: a known or unknown `type`, known and unknown fields with
/// values of any kind.
fn message_like() -> impl Strategy<Value = Value> {
    let kind = prop_oneof![
        prop::sample::select(vec![
            "play",
            "pass",
            "resign",
            "mark",
            "dispute",
            "done",
            "dead_list",
            "sync",
            "wait",
            "challenge",
            "cancel",
            "accept"
        ])
        .prop_map(String::from),
        "[a-z_]{0,12}",
    ];
    let field = prop::sample::select(vec![
        "x",
        "y",
        "points",
        "version",
        "think_ms",
        "id",
        "on",
        "game",
        "color",
        "rated",
        "challenge",
        "sneaky",
    ]);
    let number = prop_oneof![(0u64..30).prop_map(Value::from), any_json()];
    let points = prop::collection::vec((0usize..20, 0usize..20), 0..4)
        .prop_map(|ps| json!(ps.into_iter().map(|(x, y)| [x, y]).collect::<Vec<_>>()));
    (
        kind,
        prop::collection::vec((field, prop_oneof![number, points]), 0..6),
    )
        .prop_map(|(kind, fields)| {
            let mut m = serde_json::Map::new();
            m.insert("type".into(), Value::from(kind));
            for (k, v) in fields {
                m.insert(k.to_string(), v);
            }
            Value::Object(m)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any bytes: the parsers never panic, and a refusal is `malformed`.
    #[test]
    fn any_bytes_parse_or_are_refused_as_malformed(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = ClientMessage::parse(&text) {
            prop_assert_eq!(e.code(), "malformed");
        }
        if let Err(e) = LobbyClientMessage::parse(&text) {
            prop_assert_eq!(e.code(), "malformed");
        }
    }

    /// Any JSON: parsed, or refused as `malformed`; what parses writes back to a message that
    /// parses to the same, with no field the input did not have.
    #[test]
    fn any_json_parses_or_is_refused_and_what_parses_round_trips(v in prop_oneof![any_json(), message_like()]) {
        let text = v.to_string();
        match ClientMessage::parse(&text) {
            Ok(m) => {
                let again = serde_json::to_value(&m).unwrap();
                let fields = again.as_object().unwrap();
                for k in fields.keys() {
                    prop_assert!(v.get(k).is_some(), "{} not in {}", k, text);
                }
                prop_assert_eq!(ClientMessage::parse(&again.to_string()).unwrap(), m);
            }
            Err(e) => {
                prop_assert_eq!(e.code(), "malformed");
                prop_assert!(!e.to_string().is_empty());
            }
        }
        match LobbyClientMessage::parse(&text) {
            Ok(m) => prop_assert_eq!(LobbyClientMessage::parse(&m.to_text()).unwrap(), m),
            Err(e) => prop_assert_eq!(e.code(), "malformed"),
        }
    }
}

/// Found by the property test above: a message's `id` that is a tiny float comes back exactly
/// (serde_json's `float_roundtrip`; without it the last digit could differ).
#[test]
fn a_tiny_float_id_round_trips_exactly() {
    let text = r#"{"type": "sync", "id": -6.019437756647596e-233}"#;
    let m = ClientMessage::parse(text).unwrap();
    let again = serde_json::to_value(&m).unwrap();
    assert_eq!(ClientMessage::parse(&again.to_string()).unwrap(), m);
    assert_eq!(again["id"].as_f64(), Some(-6.019437756647596e-233));
}

#[test]
fn the_kind_of_a_lobby_message_is_its_type_on_the_wire() {
    let account: crate::accounts::Account = serde_json::from_value(
        json!({"name": "a", "program": false, "td": false, "created_ms": 0}),
    )
    .unwrap();
    let old: serde_json::Map<String, Value> = serde_json::from_str(OLD_VIEWS).unwrap();
    let config = serde_json::from_value(old["fresh"]["config"].clone()).unwrap();
    let messages = [
        LobbyServerMessage::Hello { account },
        LobbyServerMessage::Game(GameStart {
            id: "g".into(),
            color: Side::B,
            opponent: "b".into(),
            config,
        }),
        LobbyServerMessage::Lobby {
            online: vec![],
            challenges: vec![],
            list: false,
        },
        LobbyServerMessage::LobbyDelta {
            online: vec![],
            gone: vec!["a".into()],
            challenges: vec![],
            withdrawn: vec![],
        },
        LobbyServerMessage::GameOver {
            black: "a".into(),
            white: "b".into(),
            result: "0".into(),
        },
        LobbyServerMessage::Ack(LobbyAck::Waiting { waiting: true }),
        LobbyServerMessage::Error {
            code: "invalid".into(),
            message: "no".into(),
        },
    ];
    for m in messages {
        let wire = serde_json::to_value(&m).unwrap();
        assert_eq!(wire.get("type"), Some(&json!(m.kind())), "{wire}");
        assert_eq!(LobbyServerMessage::parse(&m.to_text()).unwrap(), m);
    }
}

/// A game's third party: absent on the wire and in the store when it is the default removal
/// (configs stored before the field read and write as before: the old views above), else
/// `{"type": "perfect_play", "nodes": N}`; other shapes are refused.
#[test]
fn the_third_party_is_written_only_when_it_is_perfect_play() {
    let old: serde_json::Map<String, Value> = serde_json::from_str(OLD_VIEWS).unwrap();
    let stored = old["fresh"]["config"].clone();
    assert!(stored.get("third_party").is_none());
    let config: GameConfig = round_trip(&stored);
    assert_eq!(config.third_party, ThirdParty::DefaultRemoval);
    let explicit = {
        let mut v = stored.clone();
        v["third_party"] = json!({"type": "default_removal"});
        serde_json::from_value::<GameConfig>(v).unwrap()
    };
    assert_eq!(serde_json::to_value(&explicit).unwrap(), stored);
    let mut perfect = stored.clone();
    perfect["third_party"] = json!({"type": "perfect_play", "nodes": 250_000});
    let config: GameConfig = round_trip(&perfect);
    assert_eq!(
        config.third_party,
        ThirdParty::PerfectPlay { nodes: 250_000 }
    );
    for bad in [
        json!("perfect_play"),
        json!({"type": "perfect_play"}),
        json!({"type": "perfect_play", "nodes": -1}),
        json!({"type": "perfect_play", "nodes": 5, "threads": 2}),
        json!({"type": "oracle"}),
    ] {
        let mut v = stored.clone();
        v["third_party"] = bad.clone();
        assert!(
            serde_json::from_value::<GameConfig>(v).is_err(),
            "{bad} read"
        );
    }
    // A creation request: the field is optional and left out when not given.
    let request: CreateRequest =
        serde_json::from_value(json!({"width": 3, "third_party": perfect["third_party"]})).unwrap();
    assert_eq!(
        request.config().unwrap().third_party,
        ThirdParty::PerfectPlay { nodes: 250_000 }
    );
    let plain = serde_json::to_value(CreateRequest::default()).unwrap();
    assert!(plain.get("third_party").is_none(), "{plain}");
}

/// The play-out event as the store keeps it: `{"type": "play_out", "moves": [[x, y] or
/// null, ...], "note": ...}`.
#[test]
fn a_play_out_is_stored_as_its_moves_and_note() {
    let act = Act::PlayOut {
        moves: vec![Some([0, 2]), None, Some([1, 0]), None, None],
        note: "perfect play (001 §3.9, goref solve): B+8.5".into(),
    };
    let wire = json!({"type": "play_out", "moves": [[0, 2], null, [1, 0], null, null],
        "note": "perfect play (001 §3.9, goref solve): B+8.5"});
    assert_eq!(serde_json::to_value(&act).unwrap(), wire);
    assert_eq!(serde_json::from_value::<Act>(wire).unwrap(), act);
}

proptest! {
    /// Any third party and any play-out write and read back the same.
    #[test]
    fn third_parties_and_play_outs_round_trip(
        nodes in any::<u64>(),
        perfect in any::<bool>(),
        moves in prop::collection::vec(prop::option::of((0usize..25, 0usize..25)), 0..40),
        note in "\\PC{0,40}",
    ) {
        let third = if perfect { ThirdParty::PerfectPlay { nodes } } else { ThirdParty::DefaultRemoval };
        let text = serde_json::to_string(&third).unwrap();
        prop_assert_eq!(serde_json::from_str::<ThirdParty>(&text).unwrap(), third);
        let act = Act::PlayOut { moves: moves.into_iter().map(|m| m.map(|(x, y)| [x, y])).collect(), note };
        let text = serde_json::to_string(&act).unwrap();
        prop_assert_eq!(serde_json::from_str::<Act>(&text).unwrap(), act);
    }
}

// Issue 38 §5: a move's analysis (CGOS's genmove_analyze JSON) as Black's chances: the
// mover's win rate and lead, at the top or in the first candidate, turned for White.
#[test]
fn analysis_is_read_from_the_movers_side_to_blacks() {
    let black =
        AnalysisPoint::read(3, Side::B, r#"{"winrate":0.7,"score":2.5,"visits":9}"#).unwrap();
    assert_eq!(
        (black.number, black.winrate, black.score),
        (3, Some(0.7), Some(2.5))
    );
    let white = AnalysisPoint::read(4, Side::W, r#"{"winrate":0.7,"score":2.5}"#).unwrap();
    assert!((white.winrate.unwrap() - 0.3).abs() < 1e-12);
    assert_eq!(white.score, Some(-2.5));
    let first = AnalysisPoint::read(
        5,
        Side::W,
        r#"{"visits":9,"moves":[{"move":"D4","winrate":0.25,"scoreLead":-1}]}"#,
    )
    .unwrap();
    assert_eq!((first.winrate, first.score), (Some(0.75), Some(1.0)));
    let only_score = AnalysisPoint::read(6, Side::B, r#"{"score":-3}"#).unwrap();
    assert_eq!((only_score.winrate, only_score.score), (None, Some(-3.0)));
    for said in [
        "winrate 0.5",
        r#"{"visits":9}"#,
        r#"{"winrate":1.5}"#,
        r#"{"winrate":"high"}"#,
        "",
    ] {
        assert_eq!(AnalysisPoint::read(1, Side::B, said), None, "{said}");
    }
}
