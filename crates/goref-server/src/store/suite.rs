//! One test suite for every [`Store`]: each check runs on a fresh [`SqliteStore`] always and on
//! a fresh [`PgStore`] (a schema of its own) when PostgreSQL is there: `PGDATABASE` set, as
//! `pg_virtualenv` sets it. Without it the PostgreSQL tests are skipped, unless
//! `GOREF_REQUIRE_PG` is set (as in CI), then they fail.
//!
//!     pg_virtualenv cargo test -p goref-server --lib store::

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use goref_clock::{PlayerClock, TimeControl};
use goref_referee::Protocol;
use goref_rules::ByColor;

use super::*;
use crate::room::{Act, Players, Side};
use crate::wire::{Rating, RatingPoint};

fn event(seq: u64, at_ms: u64, x: usize) -> Event {
    Event {
        seq,
        at_ms,
        by: Some(Side::B),
        act: Act::Play { x, y: 0 },
        think_ms: None,
        comment: None,
        clocks: [PlayerClock::default(); 2],
    }
}

fn config() -> GameConfig {
    GameConfig {
        width: 9,
        height: 9,
        rules: "tromp-taylor".into(),
        komi: 7.5,
        time: TimeControl::None,
        end: Protocol::Tromp,
        black: "a".into(),
        white: "b".into(),
        handicap: 0,
        players: None,
        rated: false,
        cgos: None,
        third_party: Default::default(),
        adjudicate: false,
        pool: None,
    }
}

fn game(id: &str, created_ms: u64, creator: &str) -> StoredGame {
    StoredGame {
        id: id.into(),
        created_ms,
        config: config(),
        secret_hashes: ByColor::new("x".into(), "y".into()),
        creator: creator.into(),
    }
}

/// A game between two accounts.
fn played(id: &str, created_ms: u64, black: &str, white: &str, rated: bool) -> StoredGame {
    let mut g = game(id, created_ms, "addr:1");
    g.config.players = Some(Players {
        black: black.into(),
        white: white.into(),
    });
    g.config.black = black.into();
    g.config.white = white.into();
    g.config.rated = rated;
    g
}

fn new_account(name: &str, created_ms: u64) -> NewAccount {
    NewAccount {
        name: name.into(),
        phc: format!("phc-of-{name}"),
        program: false,
        created_ms,
    }
}

async fn sequence_numbers_and_the_event_log(store: Arc<dyn Store>) {
    let g = game("g1", 5, "addr:1.2.3.4");
    store.create(g.clone()).await.unwrap();
    assert!(store.create(g.clone()).await.is_err(), "ids are unique");
    store.append("g1", &event(1, 10, 3), 1).await.unwrap();
    let taken = store.append("g1", &event(1, 11, 4), 1).await.unwrap_err();
    assert!(
        matches!(
            &taken,
            StoreError::SeqTaken(t) if *t == SeqTaken {
                id: "g1".into(),
                seq: 1
            }
        ),
        "a taken seq is refused as such: {taken:#}"
    );
    let orphan = store.append("nope", &event(1, 10, 4), 1).await.unwrap_err();
    assert!(
        matches!(orphan, StoreError::Database(_)),
        "events need their game: {orphan:#}"
    );
    store.append("g1", &event(2, 12, 5), 2).await.unwrap();
    store.append("g1", &event(3, 13, 6), 3).await.unwrap();
    let (loaded, events) = store.load("g1").await.unwrap().unwrap();
    assert_eq!(loaded, g);
    assert_eq!(
        events,
        vec![event(1, 10, 3), event(2, 12, 5), event(3, 13, 6)],
        "the first event with seq 1 stays, and events come back in order"
    );
    assert!(store.load("nope").await.unwrap().is_none());
    // What a server holding the game at a version has to catch up with.
    assert_eq!(
        store.events_after("g1", 1).await.unwrap(),
        vec![event(2, 12, 5), event(3, 13, 6)]
    );
    assert!(store.events_after("g1", 3).await.unwrap().is_empty());
    assert_eq!(store.events_after("g1", 0).await.unwrap(), events);
    assert!(store.events_after("nope", 0).await.unwrap().is_empty());
    assert_eq!(store.unfinished().await.unwrap(), vec!["g1".to_string()]);
    store.finish("g1", "B+R".parse().unwrap()).await.unwrap();
    assert!(store.unfinished().await.unwrap().is_empty());
    let list = store.list(10).await.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].result.as_deref(), Some("B+R"));
    assert_eq!(list[0].moves, 3);
    assert_eq!(list[0].end, "tromp");
    assert_eq!((list[0].width, list[0].created_ms), (9, 5));
}

/// Two writers racing for one seq: exactly one wins, and its event is the one stored.
async fn one_of_two_racing_appends_wins(store: Arc<dyn Store>) {
    store.create(game("race", 1, "")).await.unwrap();
    for seq in 1..=20u64 {
        let (a, b) = (store.clone(), store.clone());
        let one = tokio::spawn(async move { a.append("race", &event(seq, seq, 1), seq).await });
        let two = tokio::spawn(async move { b.append("race", &event(seq, seq, 2), seq).await });
        let (one, two) = (one.await.unwrap(), two.await.unwrap());
        assert!(
            one.is_ok() != two.is_ok(),
            "seq {seq}: exactly one append wins ({one:?}, {two:?})"
        );
        let loser = one.as_ref().err().or(two.as_ref().err()).unwrap();
        assert!(matches!(loser, StoreError::SeqTaken(_)), "{loser:#}");
        let winner = if one.is_ok() { 1 } else { 2 };
        let (_, events) = store.load("race").await.unwrap().unwrap();
        assert_eq!(events.last(), Some(&event(seq, seq, winner)));
    }
}

async fn the_cap_on_unfinished_games_and_the_games_due_to_close(store: Arc<dyn Store>) {
    for (id, created) in [("a1", 100), ("a2", 200)] {
        let done = store.create_limited(game(id, created, "addr:a"), 2);
        assert_eq!(done.await.unwrap(), Created::Stored);
    }
    let full = store.create_limited(game("a3", 300, "addr:a"), 2).await;
    assert_eq!(full.unwrap(), Created::CreatorFull(2));
    assert!(store.load("a3").await.unwrap().is_none(), "nothing stored");
    let other = store.create_limited(game("b1", 300, "addr:b"), 2).await;
    assert_eq!(other.unwrap(), Created::Stored);
    // a1 starts at 1 (event at_ms 1); a2 finishes: a's cap has room again.
    store.append("a1", &event(1, 1, 3), 1).await.unwrap();
    store.finish("a2", "Void".parse().unwrap()).await.unwrap();
    let again = store.create_limited(game("a3", 300, "addr:a"), 2).await;
    assert_eq!(again.unwrap(), Created::Stored);
    assert_eq!(store.started().await.unwrap(), vec!["a1".to_string()]);
    let mut unfinished = store.unfinished().await.unwrap();
    unfinished.sort();
    assert_eq!(unfinished, ["a1", "a3", "b1"]);
    let mut due = store.due_to_close(301, 0, 10).await.unwrap();
    due.sort();
    assert_eq!(due, ["a3", "b1"], "never started");
    assert_eq!(store.due_to_close(0, 2, 10).await.unwrap(), vec!["a1"]);
    assert!(store.due_to_close(300, 1, 10).await.unwrap().is_empty());
    let mut all = store.due_to_close(u64::MAX, u64::MAX, 10).await.unwrap();
    all.sort();
    assert_eq!(all, ["a1", "a3", "b1"], "finished games are never due");
    assert_eq!(
        store
            .due_to_close(u64::MAX, u64::MAX, 1)
            .await
            .unwrap()
            .len(),
        1
    );
}

/// Many simultaneous creations by one creator never overshoot its cap.
async fn the_cap_holds_under_concurrent_creates(store: Arc<dyn Store>) {
    const CAP: usize = 5;
    let tasks: Vec<_> = (0..24)
        .map(|i| {
            let store = store.clone();
            let creator = if i % 3 == 0 { "addr:other" } else { "addr:c" };
            tokio::spawn(async move {
                store
                    .create_limited(game(&format!("c{i}"), i, creator), CAP)
                    .await
            })
        })
        .collect();
    let mut stored = 0;
    let mut refused = 0;
    for t in tasks {
        match t.await.unwrap().unwrap() {
            Created::Stored => stored += 1,
            Created::CreatorFull(n) => {
                assert_eq!(n, CAP, "refused at the cap, not past it");
                refused += 1;
            }
        }
    }
    // 16 creations by addr:c, 8 by addr:other: CAP of each stored.
    assert_eq!((stored, refused), (2 * CAP, 24 - 2 * CAP));
    let unfinished = store.unfinished().await.unwrap();
    assert_eq!(unfinished.len(), 2 * CAP);
    let mut by_c = 0;
    for id in &unfinished {
        let (g, _) = store.load(id).await.unwrap().unwrap();
        by_c += usize::from(g.creator == "addr:c");
    }
    assert_eq!(by_c, CAP);
}

async fn accounts_and_sessions(store: Arc<dyn Store>) {
    let alice = store
        .create_account(new_account("Alice", 10), None)
        .await
        .unwrap()
        .unwrap();
    assert!(alice.td, "the first account directs tournaments");
    let bob = store
        .create_account(new_account("bob", 20), None)
        .await
        .unwrap()
        .unwrap();
    assert!(!bob.td);
    let taken = store.create_account(new_account("ALICE", 30), None).await;
    assert_eq!(
        taken.unwrap(),
        None,
        "names are unique without regard to case"
    );
    let carol = store
        .create_account(new_account("carol", 40), Some("CAROL".into()))
        .await
        .unwrap()
        .unwrap();
    assert!(carol.td, "named by --td");
    let (found, phc) = store.account("aLiCe").await.unwrap().unwrap();
    assert_eq!((found, phc.as_str()), (alice.clone(), "phc-of-Alice"));
    assert!(store.account("dave").await.unwrap().is_none());
    let names: Vec<String> = store
        .accounts()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(names, ["Alice", "bob", "carol"]);

    // Sessions: the latest MAX_SESSIONS of an account are kept.
    let extra = 5;
    // (The server names the account as stored; SQLite's sessions table compares names with
    // their case, so this is not a place to vary it.)
    for i in 0..MAX_SESSIONS + extra {
        store
            .create_session(format!("t{i:02}"), "Alice".into(), 1000 + i as u64)
            .await
            .unwrap();
    }
    store
        .create_session("bob-token".into(), "bob".into(), 1)
        .await
        .unwrap();
    for i in 0..MAX_SESSIONS + extra {
        let session = store.session(&format!("t{i:02}")).await.unwrap();
        if i < extra {
            assert_eq!(session, None, "session {i} is among the oldest: ended");
        } else {
            assert_eq!(session.as_ref(), Some(&alice), "session {i} is kept");
        }
    }
    assert_eq!(store.session("bob-token").await.unwrap(), Some(bob));
    assert_eq!(store.session("nobody").await.unwrap(), None);
    assert!(
        store
            .create_session("x".into(), "dave".into(), 1)
            .await
            .is_err(),
        "a session needs its account"
    );
}

/// A ban is stored: it ends the account's sessions, hides any session made meanwhile, and
/// is lifted (the account logs in again); names without regard to case.
async fn bans_are_stored_and_end_sessions(store: Arc<dyn Store>) {
    let mallory = store
        .create_account(new_account("Mallory", 10), None)
        .await
        .unwrap()
        .unwrap();
    store
        .create_account(new_account("bob", 20), None)
        .await
        .unwrap()
        .unwrap();
    for (token, name) in [("m1", "Mallory"), ("m2", "Mallory"), ("b1", "bob")] {
        store
            .create_session(token.into(), name.into(), 100)
            .await
            .unwrap();
    }
    assert!(!store.is_banned("mallory").await.unwrap());
    assert!(!store.is_banned("nobody").await.unwrap());
    assert_eq!(
        store.set_banned("MALLORY", true).await.unwrap().as_deref(),
        Some("Mallory"),
        "the name as stored"
    );
    assert_eq!(store.set_banned("nobody", true).await.unwrap(), None);
    assert!(store.is_banned("mallory").await.unwrap());
    assert!(!store.is_banned("bob").await.unwrap());
    for token in ["m1", "m2"] {
        assert_eq!(store.session(token).await.unwrap(), None, "{token} ended");
    }
    assert!(
        store.session("b1").await.unwrap().is_some(),
        "others keep theirs"
    );
    // A session made while banned (a login that raced the ban) opens nothing.
    store
        .create_session("m3".into(), "Mallory".into(), 200)
        .await
        .unwrap();
    assert_eq!(store.session("m3").await.unwrap(), None);
    // The account is kept, and its games' lists too.
    assert_eq!(
        store.account("mallory").await.unwrap().map(|(a, _)| a),
        Some(mallory.clone())
    );
    // Lifted: the session made meanwhile opens it again; the ended ones stay ended.
    assert_eq!(
        store.set_banned("mallory", false).await.unwrap().as_deref(),
        Some("Mallory")
    );
    assert!(!store.is_banned("Mallory").await.unwrap());
    assert_eq!(store.session("m3").await.unwrap(), Some(mallory));
    assert_eq!(store.session("m1").await.unwrap(), None);
}

/// The health check's query answers; the live games are counted by board size.
async fn ping_and_live_games_by_size(store: Arc<dyn Store>) {
    store.ping().await.unwrap();
    assert!(store.live_games_by_size().await.unwrap().is_empty());
    let sized = |id: &str, width: usize, height: usize| {
        let mut g = game(id, 1, "");
        g.config.width = width;
        g.config.height = height;
        g
    };
    let mut small = sized("f", 9, 9);
    small.config.pool = Some("small".into());
    for g in [
        sized("a", 9, 9),
        sized("b", 9, 9),
        sized("c", 19, 19),
        sized("d", 13, 7),
        sized("e", 9, 9),
        small,
    ] {
        store.create(g).await.unwrap();
    }
    store.finish("e", "B+R".parse().unwrap()).await.unwrap();
    let counts: Vec<(String, usize, usize, u64)> = store
        .live_games_by_size()
        .await
        .unwrap()
        .into_iter()
        .map(|c| (c.pool, c.width, c.height, c.games))
        .collect();
    let default = DEFAULT_POOL.to_string();
    assert_eq!(
        counts,
        [
            (default.clone(), 9, 9, 2),
            (default.clone(), 13, 7, 1),
            (default, 19, 19, 1),
            ("small".to_string(), 9, 9, 1)
        ],
        "the games not over, by pool, smallest first"
    );
    store.ping().await.unwrap();
}

/// Accounts created at once: one of them, exactly, is the first.
async fn one_first_account_among_simultaneous_ones(store: Arc<dyn Store>) {
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .create_account(new_account(&format!("p{i}"), i), None)
                    .await
            })
        })
        .collect();
    let mut tds = 0;
    for t in tasks {
        tds += usize::from(t.await.unwrap().unwrap().unwrap().td);
    }
    assert_eq!(tds, 1);
    let same: Vec<_> = (0..4)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.create_account(new_account("Same", 9), None).await })
        })
        .collect();
    let mut created = 0;
    for t in same {
        created += usize::from(t.await.unwrap().unwrap().is_some());
    }
    assert_eq!(created, 1, "one name, one account");
}

async fn tournaments_are_replaced_by_id(store: Arc<dyn Store>) {
    assert!(store.tournaments().await.unwrap().is_empty());
    let v1 = "{\"v\":1}".to_string();
    assert!(store
        .save_tournament("t1", 10, v1.clone(), None)
        .await
        .unwrap());
    assert!(store
        .save_tournament("t2", 5, "{\"w\":1}".into(), None)
        .await
        .unwrap());
    assert!(
        !store
            .save_tournament("t1", 10, "{\"other\":1}".into(), None)
            .await
            .unwrap(),
        "a new tournament never replaces one stored under its id"
    );
    assert!(store
        .save_tournament("t1", 99, "{\"v\":2}".into(), Some(v1.clone()))
        .await
        .unwrap());
    assert!(
        !store
            .save_tournament("t1", 99, "{\"v\":3}".into(), Some(v1))
            .await
            .unwrap(),
        "replacing a body no longer stored is refused"
    );
    assert!(
        !store
            .save_tournament("t9", 1, "{}".into(), Some("{}".into()))
            .await
            .unwrap(),
        "nothing to replace"
    );
    assert_eq!(
        store.tournaments().await.unwrap(),
        ["{\"w\":1}", "{\"v\":2}"],
        "oldest first; saving again replaces the body and keeps the creation time"
    );
}

/// Changes made from the same read (two servers' read-modify-write): exactly one is stored.
async fn one_of_two_racing_tournament_changes_wins(store: Arc<dyn Store>) {
    let read = "{\"n\":0}".to_string();
    assert!(store
        .save_tournament("t", 1, read.clone(), None)
        .await
        .unwrap());
    let racing: Vec<_> = (1..=4)
        .map(|n| {
            let (store, read) = (store.clone(), read.clone());
            tokio::spawn(async move {
                let body = format!("{{\"n\":{n}}}");
                let stored = store
                    .save_tournament("t", 1, body.clone(), Some(read))
                    .await
                    .unwrap();
                stored.then_some(body)
            })
        })
        .collect();
    let mut won = Vec::new();
    for t in racing {
        won.extend(t.await.unwrap());
    }
    assert_eq!(won.len(), 1, "one change stored: {won:?}");
    assert_eq!(store.tournaments().await.unwrap(), won);
    let fresh: Vec<_> = (0..4)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .save_tournament("new", 2, format!("{{\"m\":{n}}}"), None)
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut created = 0;
    for t in fresh {
        created += usize::from(t.await.unwrap());
    }
    assert_eq!(created, 1, "one id, one tournament");
}

async fn lists_of_games_and_of_players(store: Arc<dyn Store>) {
    store
        .create(played("r1", 100, "Alice", "bob", true))
        .await
        .unwrap();
    store
        .create(played("r2", 200, "bob", "carol", true))
        .await
        .unwrap();
    store
        .create(played("f1", 300, "alice", "carol", false))
        .await
        .unwrap();
    store.create(game("guest", 400, "addr:1")).await.unwrap();
    store
        .create(played("r3", 500, "carol", "alice", true))
        .await
        .unwrap();
    store.append("r1", &event(1, 150, 0), 1).await.unwrap();
    store.finish("r1", "B+R".parse().unwrap()).await.unwrap();
    store.finish("f1", "W+3.5".parse().unwrap()).await.unwrap();
    store.finish("r3", "W+T".parse().unwrap()).await.unwrap();

    let list = store.list(3).await.unwrap();
    let ids: Vec<&str> = list.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(
        ids,
        ["r3", "guest", "f1"],
        "newest first, at most the limit"
    );
    assert!(list[0].rated && list[0].accounts);
    assert!(!list[1].rated && !list[1].accounts);
    assert_eq!(list[0].black, "carol");
    assert_eq!(store.list(100).await.unwrap().len(), 5);

    let of_alice: Vec<String> = store
        .games_of("ALICE", 10)
        .await
        .unwrap()
        .into_iter()
        .map(|g| g.id)
        .collect();
    assert_eq!(of_alice, ["r3", "f1", "r1"], "either colour, any case");
    assert_eq!(store.games_of("alice", 1).await.unwrap().len(), 1);
    assert_eq!(store.live_games_of("Bob").await.unwrap(), ["r2"]);
    assert!(store.live_games_of("alice").await.unwrap().is_empty());
    let rated: Vec<(String, String, String)> = store
        .rated_results(DEFAULT_POOL)
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.black, r.white, r.result.to_sgf()))
        .collect();
    assert_eq!(
        rated,
        [
            ("Alice".to_string(), "bob".to_string(), "B+R".to_string()),
            ("carol".to_string(), "alice".to_string(), "W+T".to_string()),
        ],
        "finished rated games between accounts, oldest first"
    );
    let r1 = &store.list(100).await.unwrap()[4];
    assert_eq!((r1.id.as_str(), r1.moves), ("r1", 1));
}

static SCHEMAS: AtomicUsize = AtomicUsize::new(0);

use goref_pg::testing::postgres_there;

fn presence(conn: &str, instance: &str, name: &str) -> Presence {
    Presence {
        conn: conn.into(),
        instance: instance.into(),
        name: name.into(),
        program: true,
        waiting: false,
        pools: Vec::new(),
    }
}

fn challenge(id: &str, by: &str, created_ms: u64) -> StoredChallenge {
    StoredChallenge {
        id: id.into(),
        by: by.into(),
        created_ms,
        body: format!("{{\"id\":\"{id}\"}}"),
    }
}

/// Issue 23 §3: the lobby's presences live while their server renews the lease; a dead
/// server's go at the first expiry after their lease, with their accounts' challenges.
async fn lobby_presences_live_by_their_lease(store: Arc<dyn Store>) {
    store
        .enter_lobby(presence("a-1", "a", "Alice"), 1_000)
        .await
        .unwrap();
    store
        .enter_lobby(presence("a-2", "a", "alice"), 1_000)
        .await
        .unwrap();
    store
        .enter_lobby(presence("b-1", "b", "bob"), 1_000)
        .await
        .unwrap();
    let (present, _) = store.lobby(500).await.unwrap();
    let conns: Vec<&str> = present.iter().map(|p| p.conn.as_str()).collect();
    assert_eq!(
        conns,
        ["a-1", "a-2", "b-1"],
        "by name without case, then id"
    );
    // Waiting is per connection; the paired stop waiting on every connection.
    assert!(store.set_waiting("a-2", true, Vec::new()).await.unwrap());
    assert!(store.set_waiting("b-1", true, Vec::new()).await.unwrap());
    assert!(
        !store.set_waiting("zz-9", true, Vec::new()).await.unwrap(),
        "no such connection"
    );
    let (present, _) = store.lobby(500).await.unwrap();
    let waiting: Vec<&str> = present
        .iter()
        .filter(|p| p.waiting)
        .map(|p| p.conn.as_str())
        .collect();
    assert_eq!(waiting, ["a-2", "b-1"]);
    store.stop_waiting(vec!["ALICE".into()]).await.unwrap();
    let (present, _) = store.lobby(500).await.unwrap();
    assert!(present.iter().all(|p| p.waiting == (p.conn == "b-1")));
    // Server a renews, server b does not: after the lease, b's presence is not shown, and the
    // expiry removes it.
    store.renew_lobby("a", 3_000).await.unwrap();
    let (present, _) = store.lobby(2_000).await.unwrap();
    let conns: Vec<&str> = present.iter().map(|p| p.conn.as_str()).collect();
    assert_eq!(conns, ["a-1", "a-2"]);
    assert_eq!(store.expire_lobby(2_000).await.unwrap(), 1);
    assert_eq!(store.expire_lobby(2_000).await.unwrap(), 0);
    // Entering again renews.
    store
        .enter_lobby(presence("b-1", "b", "bob"), 5_000)
        .await
        .unwrap();
    store.leave_lobby("a-1").await.unwrap();
    let (present, _) = store.lobby(2_500).await.unwrap();
    let conns: Vec<&str> = present.iter().map(|p| p.conn.as_str()).collect();
    assert_eq!(conns, ["a-2", "b-1"]);
}

/// Issue 23 §3-4: challenges are rows any server reads; one taker wins; the counts are
/// exact; an account's challenges go with its last connection.
async fn challenges_are_shared_and_taken_once(store: Arc<dyn Store>) {
    store
        .enter_lobby(presence("a-1", "a", "alice"), 10_000)
        .await
        .unwrap();
    store
        .enter_lobby(presence("a-2", "a", "alice"), 10_000)
        .await
        .unwrap();
    store
        .enter_lobby(presence("b-1", "b", "bob"), 10_000)
        .await
        .unwrap();
    assert!(store
        .add_challenge(challenge("c1", "alice", 1), 2, 3)
        .await
        .unwrap());
    assert!(store
        .add_challenge(challenge("c2", "ALICE", 2), 2, 3)
        .await
        .unwrap());
    assert!(
        !store
            .add_challenge(challenge("c3", "alice", 3), 2, 3)
            .await
            .unwrap(),
        "two each"
    );
    assert!(store
        .add_challenge(challenge("c4", "bob", 4), 2, 3)
        .await
        .unwrap());
    assert!(
        !store
            .add_challenge(challenge("c5", "bob", 5), 2, 3)
            .await
            .unwrap(),
        "three in all"
    );
    let (_, open) = store.lobby(1_000).await.unwrap();
    let ids: Vec<&str> = open.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["c1", "c2", "c4"], "oldest first");
    assert_eq!(open[0], challenge("c1", "alice", 1));
    assert!(
        !store.cancel_challenge("c1", "bob").await.unwrap(),
        "not bob's"
    );
    assert!(store.cancel_challenge("c2", "Alice").await.unwrap());
    assert_eq!(
        store.take_challenge("c1", "alice").await.unwrap(),
        Taken::Own
    );
    assert_eq!(
        store.take_challenge("nope", "bob").await.unwrap(),
        Taken::Missing
    );
    // Two takers at once: one gets it.
    let (x, y) = tokio::join!(
        store.take_challenge("c1", "bob"),
        store.take_challenge("c1", "carol")
    );
    let got: Vec<Taken> = vec![x.unwrap(), y.unwrap()];
    assert_eq!(
        got.iter().filter(|t| matches!(t, Taken::Taken(_))).count(),
        1,
        "{got:?}"
    );
    assert!(got.contains(&Taken::Missing));
    // Bob's challenge stays while he is there; alice's next goes with her last connection.
    assert!(store
        .add_challenge(challenge("c6", "alice", 6), 2, 3)
        .await
        .unwrap());
    store.leave_lobby("a-1").await.unwrap();
    let (_, open) = store.lobby(1_000).await.unwrap();
    assert_eq!(open.len(), 2, "alice is still there: {open:?}");
    store.leave_lobby("a-2").await.unwrap();
    let (_, open) = store.lobby(1_000).await.unwrap();
    let ids: Vec<&str> = open.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["c4"]);
    // A dead server's account: its challenges are not shown after the lease, and go at the
    // expiry.
    let (_, open) = store.lobby(20_000).await.unwrap();
    assert!(open.is_empty());
    store.expire_lobby(20_000).await.unwrap();
    store
        .enter_lobby(presence("b-2", "b", "bob"), 30_000)
        .await
        .unwrap();
    let (_, open) = store.lobby(20_000).await.unwrap();
    assert!(
        open.is_empty(),
        "bob's challenge went with his dead server: {open:?}"
    );
}

/// Issue 23 §5: a resume of the clocks is an event of its game's log, ordered with the moves
/// by the log's sequence (a resume and a move racing for one place: one is stored, the other
/// refused as such); it is no activity (the game is due to close as before it) and no move.
async fn a_resume_is_an_event_of_the_log_and_no_activity(store: Arc<dyn Store>) {
    assert!(
        store.legacy_resumes().await.unwrap().is_empty(),
        "a new database has no resumes from before"
    );
    store.create(game("r1", 5, "")).await.unwrap();
    store.append("r1", &event(1, 10, 3), 1).await.unwrap();
    let resume = Event {
        by: None,
        act: Act::Resume,
        ..event(2, 5_000, 0)
    };
    store.append("r1", &resume, 1).await.unwrap();
    let racing_move = store
        .append("r1", &event(2, 5_000, 4), 2)
        .await
        .unwrap_err();
    assert!(
        matches!(racing_move, StoreError::SeqTaken(SeqTaken { seq: 2, .. })),
        "{racing_move:#}"
    );
    store.append("r1", &event(3, 5_001, 4), 2).await.unwrap();
    let (_, events) = store.load("r1").await.unwrap().unwrap();
    assert_eq!(events, vec![event(1, 10, 3), resume, event(3, 5_001, 4)]);
    assert_eq!(store.list(10).await.unwrap()[0].moves, 2);
    // Its last activity is the move at 5001 ms (a resume after it changes nothing).
    let resume_again = Event {
        by: None,
        act: Act::Resume,
        ..event(4, 9_000, 0)
    };
    store.append("r1", &resume_again, 2).await.unwrap();
    assert_eq!(store.due_to_close(0, 5_002, 10).await.unwrap(), ["r1"]);
    assert!(store.due_to_close(0, 5_001, 10).await.unwrap().is_empty());
    assert_eq!(store.started().await.unwrap(), ["r1"]);
}

/// Issue 23 §3: ratings are replaced whole by the leader's refit and read best first.
async fn ratings_are_replaced_whole(store: Arc<dyn Store>) {
    assert!(store.ratings(DEFAULT_POOL).await.unwrap().is_empty());
    let rating = |name: &str, rating: f64| Rating {
        name: name.into(),
        rating,
        interval: (rating - 50.0, rating + 50.0),
        games: 2,
        wins: 1,
        losses: 1,
        draws: 0,
    };
    store
        .save_ratings(
            DEFAULT_POOL,
            vec![
                rating("b", 1400.0),
                rating("a", 1600.0),
                rating("c", 1400.0),
            ],
        )
        .await
        .unwrap();
    let names: Vec<String> = store
        .ratings(DEFAULT_POOL)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.name)
        .collect();
    assert_eq!(names, ["a", "b", "c"], "best first, equal ones by name");
    store
        .save_ratings(DEFAULT_POOL, vec![rating("d", 1500.5)])
        .await
        .unwrap();
    assert_eq!(
        store.ratings(DEFAULT_POOL).await.unwrap(),
        vec![rating("d", 1500.5)]
    );
}

/// Issue 38 §2: each pool has its results and its ratings; a connection waits in the pools
/// it names.
async fn pools_keep_their_results_ratings_and_waiting(store: Arc<dyn Store>) {
    let mut small = played("s1", 100, "alice", "bob", true);
    small.config.pool = Some("small".into());
    store.create(small).await.unwrap();
    store
        .create(played("d1", 200, "bob", "alice", true))
        .await
        .unwrap();
    store.finish("s1", "W+R".parse().unwrap()).await.unwrap();
    store.finish("d1", "B+2.5".parse().unwrap()).await.unwrap();
    let results = |pool: &'static str| {
        let store = store.clone();
        async move {
            store
                .rated_results(pool)
                .await
                .unwrap()
                .into_iter()
                .map(|r| (r.black, r.result.to_sgf()))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(results("small").await, [("alice".into(), "W+R".into())]);
    assert_eq!(
        results(DEFAULT_POOL).await,
        [("bob".into(), "B+2.5".into())]
    );
    assert!(results("other").await.is_empty());
    let listed = store.list(10).await.unwrap();
    let pools: Vec<(&str, &str)> = listed.iter().map(|g| (g.id.as_str(), g.pool())).collect();
    assert_eq!(pools, [("d1", DEFAULT_POOL), ("s1", "small")]);
    // A pool's games by their creation time: from included, to excluded, oldest first.
    let ids = |games: Vec<GameSummary>| games.into_iter().map(|g| g.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.pool_games("small", 100, 101, 10).await.unwrap()),
        ["s1"]
    );
    assert!(store
        .pool_games("small", 0, 100, 10)
        .await
        .unwrap()
        .is_empty());
    assert!(store
        .pool_games("small", 101, 999, 10)
        .await
        .unwrap()
        .is_empty());
    assert_eq!(
        ids(store.pool_games(DEFAULT_POOL, 0, 999, 10).await.unwrap()),
        ["d1"]
    );
    assert!(store
        .pool_games(DEFAULT_POOL, 0, 999, 0)
        .await
        .unwrap()
        .is_empty());

    let rating = |name: &str, rating: f64| Rating {
        name: name.into(),
        rating,
        interval: (rating - 50.0, rating + 50.0),
        games: 1,
        wins: 1,
        losses: 0,
        draws: 0,
    };
    store
        .save_ratings("small", vec![rating("bob", 1600.0)])
        .await
        .unwrap();
    store
        .save_ratings(DEFAULT_POOL, vec![rating("bob", 1400.0)])
        .await
        .unwrap();
    // A refit of one pool replaces its ratings only.
    store
        .save_ratings("small", vec![rating("bob", 1650.0)])
        .await
        .unwrap();
    assert_eq!(
        store.ratings("small").await.unwrap(),
        [rating("bob", 1650.0)]
    );
    assert_eq!(
        store.ratings(DEFAULT_POOL).await.unwrap(),
        [rating("bob", 1400.0)]
    );
    // Anchors by pool: set, changed (the name in any case), freed.
    store
        .set_anchor("small", "GnuGo", Some(1800.0))
        .await
        .unwrap();
    store
        .set_anchor("small", "random", Some(0.0))
        .await
        .unwrap();
    store
        .set_anchor("small", "gnugo", Some(1850.5))
        .await
        .unwrap();
    store.set_anchor("other", "gnugo", Some(1.0)).await.unwrap();
    let anchors = store.anchors("small").await.unwrap();
    assert_eq!(anchors.len(), 2, "{anchors:?}");
    assert!(anchors[0].0.eq_ignore_ascii_case("gnugo") && anchors[0].1 == 1850.5);
    assert_eq!(anchors[1], ("random".to_string(), 0.0));
    store.set_anchor("small", "GNUGO", None).await.unwrap();
    assert_eq!(
        store.anchors("small").await.unwrap(),
        [("random".to_string(), 0.0)]
    );
    assert_eq!(store.anchors("other").await.unwrap().len(), 1);
    assert!(store.anchors(DEFAULT_POOL).await.unwrap().is_empty());
    // Rating histories by pool and account (any case), oldest first, the newest `limit`.
    let point = |at_ms: u64, rating: f64, games: u32| RatingPoint {
        at_ms,
        rating,
        games,
    };
    store
        .append_history("small", vec![("Bob".into(), point(10, 1500.0, 1))])
        .await
        .unwrap();
    store
        .append_history(
            "small",
            vec![
                ("bob".into(), point(20, 1520.5, 2)),
                ("ann".into(), point(20, 1480.0, 1)),
            ],
        )
        .await
        .unwrap();
    store
        .append_history(DEFAULT_POOL, vec![("bob".into(), point(30, 1.0, 9))])
        .await
        .unwrap();
    store.append_history("small", Vec::new()).await.unwrap();
    assert_eq!(
        store.history("small", "BOB", 10).await.unwrap(),
        [point(10, 1500.0, 1), point(20, 1520.5, 2)]
    );
    assert_eq!(
        store.history("small", "bob", 1).await.unwrap(),
        [point(20, 1520.5, 2)]
    );
    assert!(store.history("small", "cid", 10).await.unwrap().is_empty());

    store
        .enter_lobby(presence("a-1", "a", "alice"), 1_000)
        .await
        .unwrap();
    let pools = vec!["small".to_string(), "big".to_string()];
    assert!(store.set_waiting("a-1", true, pools.clone()).await.unwrap());
    let (present, _) = store.lobby(500).await.unwrap();
    assert_eq!((present[0].waiting, &present[0].pools), (true, &pools));
    assert!(store.set_waiting("a-1", false, Vec::new()).await.unwrap());
    let (present, _) = store.lobby(500).await.unwrap();
    assert_eq!((present[0].waiting, present[0].pools.len()), (false, 0));
}

/// A fresh [`PgStore`] in a schema of its own, and the schema's name.
pub(crate) async fn pg_store() -> (Arc<dyn Store>, String) {
    let config = pg::pg_config("").unwrap();
    let schema = format!(
        "goref_test_{}_{}",
        std::process::id(),
        SCHEMAS.fetch_add(1, Ordering::Relaxed)
    );
    let (client, connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .await
        .unwrap();
    (pg_store_in(&schema).await, schema)
}

/// Another [`PgStore`] on `schema` (another server on the same database).
pub(crate) async fn pg_store_in(schema: &str) -> Arc<dyn Store> {
    let mut config = pg::pg_config("").unwrap();
    config.options(format!("-c search_path={schema}"));
    Arc::new(PgStore::connect_config(config).await.unwrap())
}

pub(crate) async fn drop_schema(schema: &str) {
    let config = pg::pg_config("").unwrap();
    let (client, connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .await
        .unwrap();
}

macro_rules! suite {
    ($($check:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $check() {
                    let dir = tempfile::tempdir().unwrap();
                    let store = super::SqliteStore::open(&dir.path().join("t.db")).unwrap();
                    super::$check(std::sync::Arc::new(store)).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $check() {
                    if !super::postgres_there() {
                        return;
                    }
                    let (store, schema) = super::pg_store().await;
                    super::$check(store).await;
                    super::drop_schema(&schema).await;
                }
            )*
        }
    };
}

suite!(
    sequence_numbers_and_the_event_log,
    one_of_two_racing_appends_wins,
    the_cap_on_unfinished_games_and_the_games_due_to_close,
    the_cap_holds_under_concurrent_creates,
    accounts_and_sessions,
    one_first_account_among_simultaneous_ones,
    tournaments_are_replaced_by_id,
    one_of_two_racing_tournament_changes_wins,
    lists_of_games_and_of_players,
    lobby_presences_live_by_their_lease,
    challenges_are_shared_and_taken_once,
    ratings_are_replaced_whole,
    pools_keep_their_results_ratings_and_waiting,
    a_resume_is_an_event_of_the_log_and_no_activity,
    bans_are_stored_and_end_sessions,
    ping_and_live_games_by_size,
);

/// The migrations leave a database that a second start finds up to date, and a database from
/// a newer goref is refused with a message that says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_migrations_apply_once_and_refuse_a_newer_schema() {
    if !postgres_there() {
        return;
    }
    let (store, schema) = pg_store().await;
    store.create(game("m1", 1, "")).await.unwrap();
    let mut config = pg::pg_config("").unwrap();
    config.options(format!("-c search_path={schema}"));
    let again = PgStore::connect_config(config.clone()).await.unwrap();
    assert!(again.load("m1").await.unwrap().is_some(), "data kept");
    let (client, connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
        .batch_execute("INSERT INTO goref_server_migrations (version) VALUES (999)")
        .await
        .unwrap();
    let newer = PgStore::connect_config(config).await;
    let message = format!("{:#}", newer.err().expect("a newer schema is refused"));
    assert!(message.contains("version 999"), "{message}");
    drop_schema(&schema).await;
}

/// A database from before resumes were events of the games' logs: the resumes an older
/// server wrote in `clock_resumes` are read, oldest first (PostgreSQL; SQLite's in
/// `games::tests`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_resumes_from_before_are_read() {
    if !postgres_there() {
        return;
    }
    let (store, schema) = pg_store().await;
    let mut config = pg::pg_config("").unwrap();
    config.options(format!("-c search_path={schema}"));
    let (client, connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
        .batch_execute("INSERT INTO clock_resumes (at_ms) VALUES (9000), (5000)")
        .await
        .unwrap();
    assert_eq!(store.legacy_resumes().await.unwrap(), [5_000, 9_000]);
    drop_schema(&schema).await;
}

/// An SQLite database from before bans: its accounts gain the column, none banned.
#[tokio::test]
async fn an_sqlite_database_from_before_bans_gains_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE accounts (name TEXT PRIMARY KEY COLLATE NOCASE, password TEXT NOT NULL,
                 program INTEGER NOT NULL, td INTEGER NOT NULL, created_ms INTEGER NOT NULL);
             INSERT INTO accounts VALUES ('old', 'phc', 0, 1, 5);",
        )
        .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert!(!store.is_banned("old").await.unwrap());
    assert_eq!(
        store.set_banned("OLD", true).await.unwrap().as_deref(),
        Some("old")
    );
    drop(store);
    let again = SqliteStore::open(&path).unwrap();
    assert!(
        again.is_banned("old").await.unwrap(),
        "kept, and opened twice"
    );
}

#[tokio::test]
async fn an_unreadable_postgres_address_is_an_error_naming_it() {
    let err = PgStore::connect("postgres://[::1").await.err().unwrap();
    assert!(format!("{err:#}").contains("postgres://[::1"), "{err:#}");
}

#[test]
fn passwords_are_left_out_of_messages() {
    assert_eq!(
        pg::redacted("postgres://u:secret@db:5432/g?x=1"),
        "postgres://u:…@db:5432/g?x=1"
    );
    assert_eq!(pg::redacted("postgres://u@db/g"), "postgres://u@db/g");
    assert_eq!(pg::redacted("postgres:///g"), "postgres:///g");
    assert_eq!(
        pg::redacted("postgresql://a:b:c@h/x"),
        "postgresql://a:…@h/x"
    );
    let err = pg::pg_config("postgres://u:secret@[::1").err().unwrap();
    assert!(!err.to_string().contains("secret"), "{err}");
}

/// Issue 38 §2: a database of the one pool there was before pools keeps its ratings and its
/// games as the default pool's, and a connection stored before waits in the default pool.
#[tokio::test]
async fn sqlite_ratings_and_games_from_before_pools_are_the_default_pools() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let rating = Rating {
        name: "Alice".into(),
        rating: 1612.0,
        interval: (1500.0, 1700.0),
        games: 3,
        wins: 2,
        losses: 1,
        draws: 0,
    };
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE games (id TEXT PRIMARY KEY, created_ms INTEGER NOT NULL, \
             config TEXT NOT NULL, black_secret TEXT NOT NULL, white_secret TEXT NOT NULL, \
             moves INTEGER NOT NULL DEFAULT 0, result TEXT);
             CREATE TABLE ratings (name TEXT PRIMARY KEY, body TEXT NOT NULL);
             CREATE TABLE lobby_presence (conn TEXT PRIMARY KEY, instance TEXT NOT NULL, \
             name TEXT NOT NULL, program INTEGER NOT NULL, waiting INTEGER NOT NULL, \
             lease_ms INTEGER NOT NULL);",
        )
        .unwrap();
        conn.execute(
            "INSERT INTO games (id, created_ms, config, black_secret, white_secret) \
             VALUES ('old', 1, ?1, 'x', 'y')",
            [serde_json::to_string(&config()).unwrap()],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO ratings (name, body) VALUES ('Alice', ?1)",
            [serde_json::to_string(&rating).unwrap()],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO lobby_presence VALUES ('a-1', 'a', 'Alice', 1, 1, 9000)",
            [],
        )
        .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(
        store.ratings(DEFAULT_POOL).await.unwrap(),
        std::slice::from_ref(&rating)
    );
    assert!(store.ratings("small").await.unwrap().is_empty());
    let listed = store.list(10).await.unwrap();
    assert_eq!((listed.len(), listed[0].pool()), (1, DEFAULT_POOL));
    let (present, _) = store.lobby(0).await.unwrap();
    assert_eq!((present[0].waiting, present[0].pools.len()), (true, 0));
    drop(store);
    // Opened again: nothing moves twice.
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.ratings(DEFAULT_POOL).await.unwrap(), [rating]);
}
