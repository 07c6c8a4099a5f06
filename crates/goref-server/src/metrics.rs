//! The server's counters for the operator, in one place: kept in memory with atomics
//! (prometheus-client's), updated by the services that see what they count, and written in
//! Prometheus's text exposition format (0.0.4) by `GET /metrics` ([`crate::ops`]).
//!
//! One [`Metrics`] per server, made by [`crate::app::App::new`] and reached through
//! [`crate::games::Games::metrics`]; cloning an [`Arc<Metrics>`] is all it costs a service.
//!
//! | name | kind | what |
//! |---|---|---|
//! | `goref_live_games{pool="default",size="9x9"}` | gauge | games not over in the store (every server of a database shows the same), by pool and board size; read at each scrape |
//! | `goref_moves_total` | counter | moves (a stone or a pass, by a player) stored by this server |
//! | `goref_connections{kind="lobby"\|"game"\|"cgos"}` | gauge | this server's open lobby WebSockets, game WebSockets and logged-in CGOS door connections |
//! | `goref_move_relay_seconds` | histogram | a move's arrival at the games service (a seat's WebSocket, or CGOS's door) to its state handed to the game's other connections here (stored first) |
//! | `goref_pairing_rounds_total` | counter | rounds of continuous pairing this server ran (the leader's) |
//! | `goref_store_errors_total` | counter | store calls that failed on this server (a taken event number, which is a race another server won, is not one) |
//! | `goref_leader` | gauge | 1 when this server leads (fires the clocks, pairs, ...), else 0 |
//!
//! Time is never read here: the relay's two moments are passed in, read from the server's
//! [`crate::clock::Clock`] by who measures.

use std::sync::Mutex;

use prometheus_client::encoding::prometheus_text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

/// The `Content-Type` of `GET /metrics`: Prometheus's text format, version 0.0.4.
pub const CONTENT_TYPE: &str = prometheus_text::CONTENT_TYPE;

/// The buckets of the relay's histogram, in seconds: 0.5 ms to 2.5 s.
pub const RELAY_BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// A kind of connection, as the label `kind` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectionKind {
    /// A lobby WebSocket (`/api/lobby/ws`).
    Lobby,
    /// A game's WebSocket (`/api/games/{id}/ws`), a seat's or a spectator's.
    Game,
    /// A connection of CGOS's door, once logged in.
    Cgos,
}

impl ConnectionKind {
    /// Every kind.
    pub const ALL: [ConnectionKind; 3] = [
        ConnectionKind::Lobby,
        ConnectionKind::Game,
        ConnectionKind::Cgos,
    ];

    /// The label's value.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ConnectionKind::Lobby => "lobby",
            ConnectionKind::Game => "game",
            ConnectionKind::Cgos => "cgos",
        }
    }
}

type SizeLabel = [(&'static str, String); 2];

/// Games not over of one pool and board size, as the store counts them
/// (`Store::live_games_by_size`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveCount {
    /// The pool.
    pub pool: String,
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// How many.
    pub games: u64,
}
type KindLabel = [(&'static str, &'static str); 1];

/// The board size `width`×`height` as the label `size` names it (`9x9`).
#[must_use]
pub fn size_label(width: usize, height: usize) -> String {
    format!("{width}x{height}")
}

/// The server's counters; see the [module](self).
pub struct Metrics {
    registry: Registry,
    live_games: Family<SizeLabel, Gauge>,
    moves: Counter,
    connections: Family<KindLabel, Gauge>,
    relay: Histogram,
    pairing_rounds: Counter,
    store_errors: Counter,
    leader: Gauge,
    /// One scrape at a time sets the live games and writes them.
    scrape: Mutex<()>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    /// Every counter at zero.
    #[must_use]
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let live_games = Family::<SizeLabel, Gauge>::default();
        let moves = Counter::default();
        let connections = Family::<KindLabel, Gauge>::default();
        let relay = Histogram::new(RELAY_BUCKETS);
        let pairing_rounds = Counter::default();
        let store_errors = Counter::default();
        let leader = Gauge::default();
        registry.register(
            "goref_live_games",
            "Games not over in the store, by pool and board size",
            live_games.clone(),
        );
        registry.register(
            "goref_moves",
            "Moves (stones and passes by the players) stored by this server",
            moves.clone(),
        );
        registry.register(
            "goref_connections",
            "Open connections of this server by kind: lobby and game WebSockets, CGOS door",
            connections.clone(),
        );
        registry.register_with_unit(
            "goref_move_relay",
            "From a move's arrival to its state sent to the game's other connections",
            Unit::Seconds,
            relay.clone(),
        );
        registry.register(
            "goref_pairing_rounds",
            "Rounds of continuous pairing run by this server",
            pairing_rounds.clone(),
        );
        registry.register(
            "goref_store_errors",
            "Store calls that failed on this server",
            store_errors.clone(),
        );
        registry.register(
            "goref_leader",
            "1 when this server leads (clocks, pairing, ratings, tournaments), else 0",
            leader.clone(),
        );
        for kind in ConnectionKind::ALL {
            connections.get_or_create_owned(&[("kind", kind.name())]);
        }
        Metrics {
            registry,
            live_games,
            moves,
            connections,
            relay,
            pairing_rounds,
            store_errors,
            leader,
            scrape: Mutex::new(()),
        }
    }

    /// A move was stored.
    pub fn moved(&self) {
        self.moves.inc();
    }

    /// A move that arrived at `arrived_us` was sent out at `sent_us` (unix microseconds, of
    /// one clock).
    pub fn relayed(&self, arrived_us: u64, sent_us: u64) {
        // Microseconds to seconds: exact enough for any latency (f64 has 53 bits).
        #[allow(clippy::cast_precision_loss)]
        let seconds = sent_us.saturating_sub(arrived_us) as f64 / 1e6;
        self.relay.observe(seconds);
    }

    /// A pairing round ran.
    pub fn paired(&self) {
        self.pairing_rounds.inc();
    }

    /// A store call failed.
    pub fn store_failed(&self) {
        self.store_errors.inc();
    }

    /// A connection of `kind` opened: counted until the guard is dropped.
    #[must_use]
    pub fn connected(&self, kind: ConnectionKind) -> Connected {
        let gauge = self
            .connections
            .get_or_create_owned(&[("kind", kind.name())]);
        gauge.inc();
        Connected(gauge)
    }

    /// Open connections of `kind` now.
    #[must_use]
    pub fn connections(&self, kind: ConnectionKind) -> i64 {
        self.connections
            .get_or_create_owned(&[("kind", kind.name())])
            .get()
    }

    /// Moves stored so far.
    #[must_use]
    pub fn moves(&self) -> u64 {
        self.moves.get()
    }

    /// Store calls failed so far.
    #[must_use]
    pub fn store_errors(&self) -> u64 {
        self.store_errors.get()
    }

    /// Pairing rounds so far.
    #[must_use]
    pub fn pairing_rounds(&self) -> u64 {
        self.pairing_rounds.get()
    }

    /// The whole exposition, with the live games (as the store counts them now) and whether
    /// this server leads.
    #[must_use]
    pub fn render(&self, live: &[LiveCount], leads: bool) -> String {
        let _one = self
            .scrape
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.live_games.clear();
        for count in live {
            self.live_games
                .get_or_create(&[
                    ("pool", count.pool.clone()),
                    ("size", size_label(count.width, count.height)),
                ])
                .set(i64::try_from(count.games).unwrap_or(i64::MAX));
        }
        self.leader.set(i64::from(leads));
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_text::encode(&mut text, &self.registry);
        text
    }
}

/// An open connection, counted in [`Metrics`] until dropped.
#[derive(Debug)]
pub struct Connected(Gauge);

impl Drop for Connected {
    fn drop(&mut self) {
        self.0.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample<'a>(
        scrape: &'a prometheus_parse::Scrape,
        name: &str,
    ) -> Vec<&'a prometheus_parse::Sample> {
        scrape.samples.iter().filter(|s| s.metric == name).collect()
    }

    fn parse(text: &str) -> prometheus_parse::Scrape {
        prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap()
    }

    /// The exposition reads back as Prometheus's text format, each family with its type.
    #[test]
    fn the_exposition_is_prometheus_text_that_a_parser_reads() {
        let m = Metrics::new();
        m.moved();
        m.moved();
        m.paired();
        m.store_failed();
        m.relayed(1_000_000, 1_000_700); // 0.7 ms
        m.relayed(1_000_000, 1_030_000); // 30 ms
        m.relayed(2_000_000, 1_000_000); // a clock that went back: 0
        let game = m.connected(ConnectionKind::Game);
        let _lobby = m.connected(ConnectionKind::Lobby);
        let _lobby2 = m.connected(ConnectionKind::Lobby);
        drop(game);
        let live = |pool: &str, size: usize, games: u64| LiveCount {
            pool: pool.into(),
            width: size,
            height: size,
            games,
        };
        let text = m.render(
            &[
                live("default", 9, 3),
                live("default", 19, 1),
                live("p7", 7, 2),
            ],
            true,
        );
        let scrape = parse(&text);
        let value = |name: &str| match sample(&scrape, name)[0].value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            ref other => panic!("{name}: {other:?}"),
        };
        assert_eq!(value("goref_moves_total"), 2.0);
        assert_eq!(value("goref_pairing_rounds_total"), 1.0);
        assert_eq!(value("goref_store_errors_total"), 1.0);
        assert_eq!(value("goref_leader"), 1.0);
        let by = |name: &str, label: &str| -> Vec<(String, f64)> {
            let mut v: Vec<(String, f64)> = sample(&scrape, name)
                .into_iter()
                .map(|s| {
                    let prometheus_parse::Value::Gauge(g) = s.value else {
                        panic!("{name} is a gauge: {:?}", s.value)
                    };
                    (s.labels.get(label).unwrap_or_default().to_string(), g)
                })
                .collect();
            v.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            v
        };
        assert_eq!(
            by("goref_live_games", "size"),
            [
                ("19x19".to_string(), 1.0),
                ("7x7".to_string(), 2.0),
                ("9x9".to_string(), 3.0)
            ]
        );
        assert_eq!(
            by("goref_live_games", "pool"),
            [
                ("default".to_string(), 1.0),
                ("default".to_string(), 3.0),
                ("p7".to_string(), 2.0)
            ]
        );
        assert_eq!(
            by("goref_connections", "kind"),
            [
                ("cgos".to_string(), 0.0),
                ("game".to_string(), 0.0),
                ("lobby".to_string(), 2.0)
            ]
        );
        let relay = sample(&scrape, "goref_move_relay_seconds");
        let prometheus_parse::Value::Histogram(buckets) = &relay[0].value else {
            panic!("a histogram: {:?}", relay[0].value);
        };
        let at = |le: f64| {
            buckets
                .iter()
                .find(|b| b.less_than == le || (b.less_than - le).abs() < 1e-12)
                .map(|b| b.count)
        };
        assert_eq!(at(0.0005), Some(1.0), "the clock that went back counts 0");
        assert_eq!(at(0.001), Some(2.0));
        assert_eq!(at(0.025), Some(2.0));
        assert_eq!(at(0.05), Some(3.0));
        assert_eq!(at(f64::INFINITY), Some(3.0));
        // A later scrape shows the live games as they are then, no others.
        let scrape = parse(&m.render(&[], false));
        assert!(sample(&scrape, "goref_live_games").is_empty());
        assert_eq!(
            sample(&scrape, "goref_leader")[0].value,
            prometheus_parse::Value::Gauge(0.0)
        );
    }
}
