//! Fuzzes what players send the server: any sequence of actions (JSON, as a page or a program
//! would send them; a line starting with `S` is the server's or the TD's own, such as a TD's
//! decision, grant of time or pass) on a small game under any end protocol. Invariants: an
//! action is either refused with a code or becomes a stored event; the stored events alone,
//! replayed into a fresh room as a restart does, give the same game and the same record;
//! nothing panics.
#![no_main]

use goref_server::room::{Act, CreateRequest, Room};
use goref_rules::Color;
use libfuzzer_sys::fuzz_target;

const ENDS: [&str; 7] = [
    "all-alive", "chinese", "kgs", "japanese", "tromp", "olympiad", "referee",
];

fuzz_target!(|data: &[u8]| {
    let [end, size, rest @ ..] = data else {
        return;
    };
    let rules = ["tromp-taylor", "nstt", "olympiad"][(size / 16 % 3) as usize];
    let request: CreateRequest = serde_json::from_value(serde_json::json!({
        "width": 2 + (size % 4) as usize,
        "height": 2 + (size / 4 % 4) as usize,
        "end": ENDS[*end as usize % ENDS.len()],
        "rules": rules,
    }))
    .unwrap();
    let config = request.config().unwrap();
    let mut room = Room::new(config.clone(), 0, 1_000).unwrap();
    let mut events = Vec::new();
    let text = String::from_utf8_lossy(rest);
    for (i, line) in text.lines().take(400).enumerate() {
        let Some((seat, json)) = line.split_at_checked(1) else {
            continue;
        };
        let by = match seat {
            "B" => Some(Color::Black),
            "S" => None,
            _ => Some(Color::White),
        };
        let Ok(act) = serde_json::from_str::<Act>(json) else {
            continue;
        };
        let now = 1_000 * (i as u64 + 1);
        match room.prepare(by, act, now, Some(10)) {
            Ok((event, next)) => {
                events.push(event);
                room = next;
                if let Some((event, next)) = room.prepare_adjudication(now) {
                    events.push(event);
                    room = next;
                }
            }
            Err(refusal) => assert!(!refusal.code().is_empty()),
        }
    }
    let mut replayed = Room::new(config, 0, 1_000).unwrap();
    for e in &events {
        replayed.commit(e).expect("a stored event replays");
    }
    assert_eq!(replayed.version(), room.version());
    assert_eq!(replayed.sgf(), room.sgf());
});
