//! The server's settings ([`Options`]), read by the games service and every feature.

use std::time::Duration;

use crate::clock::Clock;
use crate::room::{ConfigError, CreateRequest};
use crate::wire::{is_pool_name, DEFAULT_POOL, MAX_POOLS, MAX_POOL_NAME};

/// Server settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Where the server reads the time (tests: [`Clock::tokio`] on a paused runtime).
    pub clock: Clock,
    /// Time forgiven per turn for network lag (goref-clock's lag allowance).
    pub lag_allowance_ms: u64,
    /// The largest WebSocket message accepted; larger ones are refused with an error.
    pub max_message_bytes: usize,
    /// Messages a connection may send a second on average (bursts of twice as many); more are
    /// refused with `rate_limited`.
    pub messages_per_second: u32,
    /// Continuous pairing of the players waiting in the lobby.
    pub pairing: PairingOptions,
    /// The tournament director's account; `None`: the first account created.
    pub td: Option<String>,
    /// Games one client address may create at once; then `create_per_minute` (more get 429
    /// `rate_limited` with `Retry-After`).
    pub create_burst: u32,
    /// Games one client address may create a minute after its burst (0: no limit).
    pub create_per_minute: u32,
    /// Unfinished games one creator may have (more get 429 `too_many_unfinished`).
    pub max_unfinished_per_creator: usize,
    /// A game without any move this long after its creation is closed without a result
    /// (`Void`, with a note).
    pub unstarted_expiry: Duration,
    /// A game the server paired (or a challenge accepted) that nobody has begun this long
    /// after it was made is voided (`Void`, with a note in its record) when one of its
    /// players waits again, and both go back to the lobby.
    pub start_timeout: Duration,
    /// A started game in which nothing happens for this long is closed without a result
    /// (games with a clock are normally finished by it first).
    pub abandoned_expiry: Duration,
    /// How often games due to close are looked for, and idle games leave memory.
    pub upkeep_interval: Duration,
    /// Open connections at most (WebSockets included); more get a short 503 and are closed.
    pub max_connections: usize,
    /// Open connections at most from one client address (an IPv4 address or an IPv6 /64).
    pub max_connections_per_address: usize,
    /// A request's head must arrive within this (slow clients are closed); also the longest
    /// wait for the next request on a kept-alive connection.
    pub header_timeout: Duration,
    /// A connection on which nothing moves for this long is closed (not WebSockets: those
    /// are pinged).
    pub idle_timeout: Duration,
    /// A request (body included) must be answered within this, or gets 408.
    pub request_timeout: Duration,
    /// A WebSocket is pinged after this long without a message from its client.
    pub ping_interval: Duration,
    /// A WebSocket whose client misses this many pings in a row is closed.
    pub missed_pings: u32,
    /// Origins besides the server's own whose pages may open games' WebSockets (exact, such
    /// as `https://club.example`). Requests without `Origin` (programs) are always let in.
    pub allowed_origins: Vec<String>,
    /// A lobby presence (a program or page in the lobby, waiting or not) lives this long
    /// unless its server renews it (every third of it): a dead server's players leave the
    /// lobby of every other server within it.
    pub presence_lease: Duration,
    /// Behind a reverse proxy on the same machine: the client of a request from a loopback
    /// address is the last entry of its `X-Forwarded-For` (for the limits on creating games),
    /// and loopback connections are not capped per address.
    pub trust_forwarded_for: bool,
    /// CGOS's door (`--cgos ADDR`): CGOS's programs join through their own clients.
    pub cgos: Option<CgosOptions>,
    /// Pools besides the default one (whose game is [`Options::pairing`]'s and door
    /// [`Options::cgos`]): each its own pairing game, CGOS door, ratings and standings
    /// (`--pool`). Every server of one database should be given the same pools.
    pub pools: Vec<PoolOptions>,
    /// The most nodes a game's perfect-play adjudication may ask for
    /// ([`crate::room::ThirdParty::PerfectPlay`]); a game asking more is refused. A search
    /// never takes more than this either, whatever a game stored before asked.
    pub max_perfect_nodes: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            clock: Clock::Wall,
            lag_allowance_ms: 1_000,
            max_message_bytes: 4_096,
            messages_per_second: 20,
            pairing: PairingOptions::default(),
            td: None,
            create_burst: 20,
            create_per_minute: 60,
            max_unfinished_per_creator: 50,
            unstarted_expiry: Duration::from_secs(3600),
            start_timeout: Duration::from_secs(120),
            abandoned_expiry: Duration::from_secs(7 * 86_400),
            upkeep_interval: Duration::from_secs(60),
            max_connections: 4_096,
            max_connections_per_address: 256,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(30),
            ping_interval: Duration::from_secs(30),
            missed_pings: 2,
            allowed_origins: Vec::new(),
            trust_forwarded_for: false,
            presence_lease: Duration::from_secs(6),
            cgos: None,
            pools: Vec::new(),
            max_perfect_nodes: DEFAULT_MAX_PERFECT_NODES,
        }
    }
}

/// The default of [`Options::max_perfect_nodes`]: two million nodes, seconds of one core
/// (the 3×3 board's proof under the Olympiad's rules takes about 100,000) and a table of tens
/// of megabytes.
pub const DEFAULT_MAX_PERFECT_NODES: u64 = 2_000_000;

impl Options {
    /// The names of the server's pools, the default first.
    #[must_use]
    pub fn pool_names(&self) -> Vec<String> {
        std::iter::once(DEFAULT_POOL.to_string())
            .chain(self.pools.iter().map(|p| p.name.clone()))
            .collect()
    }

    /// Every pool, the default first: its name, pairing game and this server's door of it.
    #[must_use]
    pub fn all_pools(&self) -> Vec<PoolOptions> {
        std::iter::once(PoolOptions {
            name: DEFAULT_POOL.to_string(),
            game: self.pairing.game.clone(),
            cgos: self.cgos.clone(),
        })
        .chain(self.pools.iter().cloned())
        .collect()
    }

    /// Checks the pools: names that may name one, none twice (nor `default`), at most
    /// [`MAX_POOLS`] with the default, each game one the server plays.
    ///
    /// # Errors
    ///
    /// The first pool that is not.
    pub fn check_pools(&self) -> Result<(), PoolError> {
        if self.pools.len() + 1 > MAX_POOLS {
            return Err(PoolError::TooMany);
        }
        let mut seen = std::collections::HashSet::from([DEFAULT_POOL.to_string()]);
        for pool in &self.pools {
            if !is_pool_name(&pool.name) {
                return Err(PoolError::Name(pool.name.clone()));
            }
            if !seen.insert(pool.name.clone()) {
                return Err(PoolError::Twice(pool.name.clone()));
            }
            pool.game
                .config()
                .map_err(|e| PoolError::Game(pool.name.clone(), e))?;
        }
        Ok(())
    }

    pub(crate) fn conn_limits(&self) -> crate::net::ConnLimits {
        crate::net::ConnLimits {
            max_connections: self.max_connections,
            max_per_address: self.max_connections_per_address,
            header_timeout: self.header_timeout,
            idle_timeout: self.idle_timeout,
            request_timeout: self.request_timeout,
            trust_forwarded_for: self.trust_forwarded_for,
        }
    }
}

/// The server's continuous pairing.
#[derive(Clone, Debug)]
pub struct PairingOptions {
    /// How often the waiting players are paired; `None`: never.
    pub interval: Option<Duration>,
    /// The games it starts (players' names are filled in).
    pub game: CreateRequest,
}

impl Default for PairingOptions {
    /// Every 15 s: 9×9, the Olympiad's rules, 5 minutes each, Tromp's marking protocol.
    fn default() -> PairingOptions {
        PairingOptions {
            interval: Some(Duration::from_secs(15)),
            game: CreateRequest {
                width: Some(9),
                height: Some(9),
                rules: Some("olympiad".into()),
                time: Some(goref_clock::TimeControl::SuddenDeath {
                    main: Duration::from_secs(300),
                }),
                end: Some(goref_referee::Protocol::Tromp),
                ..CreateRequest::default()
            },
        }
    }
}

/// A pool: players wait in it to be paired for its game; its results make its ratings.
#[derive(Clone, Debug)]
pub struct PoolOptions {
    /// Its name ([`is_pool_name`]).
    pub name: String,
    /// The game its players are paired for (players' names filled in).
    pub game: CreateRequest,
    /// This server's CGOS door of the pool: CGOS's programs that log in there wait in it.
    pub cgos: Option<CgosOptions>,
}

/// Why the pools cannot be served.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PoolError {
    /// More than [`MAX_POOLS`] with the default.
    #[error("at most {MAX_POOLS} pools, the default one included")]
    TooMany,
    /// A name that cannot name a pool.
    #[error("pool name {0:?}: 1 to {MAX_POOL_NAME} letters, digits, '-', '_' or '.'")]
    Name(String),
    /// Two pools of one name (or one named as the default).
    #[error("two pools are named {0:?} (the pairing flags' pool is named \"default\")")]
    Twice(String),
    /// A game the server does not play.
    #[error("pool {0}: {1}")]
    Game(String, ConfigError),
}

/// The door's settings.
#[derive(Clone, Debug)]
pub struct CgosOptions {
    /// Where it listens (`127.0.0.1:6867`; port 0: any free port).
    pub listen: String,
    /// The game CGOS players are paired for (a square board, sudden death, CGOS's terms).
    pub game: CreateRequest,
    /// The door's open connections at most (default [`DEFAULT_CGOS_MAX_CONNECTIONS`]); more
    /// get `Error:` and are closed.
    pub max_connections: usize,
    /// The door's open connections at most from one IP address (default
    /// [`DEFAULT_CGOS_MAX_PER_ADDRESS`]).
    pub max_per_address: usize,
    /// The dialogue's bounds.
    pub door: goref_cgos::DoorConfig,
    /// How long the moves of rated games are held back from CGOS's viewers (`v1`): a viewer
    /// sees a move this long after it was played, and the game's end this long after it
    /// ended (`--broadcast-delay`, default none).
    pub broadcast_delay: Duration,
}

/// The default of [`CgosOptions::max_connections`] (`goref serve --cgos-max-connections`).
pub const DEFAULT_CGOS_MAX_CONNECTIONS: usize = 1024;

/// The default of [`CgosOptions::max_per_address`] (`goref serve --cgos-max-per-address`).
pub const DEFAULT_CGOS_MAX_PER_ADDRESS: usize = 16;

/// The largest board CGOS's coordinates name.
const MAX_CGOS_SIZE: usize = 25;

/// Why the CGOS door cannot be opened with the pairing game.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CgosError {
    /// A board that is not square or larger than 25×25.
    #[error("CGOS plays on square boards of at most {MAX_CGOS_SIZE}x{MAX_CGOS_SIZE}, not {width}x{height}")]
    Board {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// A clock that is not sudden death.
    #[error("CGOS plays sudden death: give --pairing-time as a duration (5m)")]
    NotSuddenDeath,
    /// Settings the server refuses.
    #[error("{0}")]
    Settings(#[from] ConfigError),
}

impl CgosOptions {
    /// The door on `listen`, its game made from the server's pairing game (its board, komi and
    /// clock), with `rules`, the end `all-alive` (no dead-stone phase: two passes score the
    /// board as it stands) and `time_gift` as every move's lag allowance; the default caps on
    /// connections.
    ///
    /// # Errors
    ///
    /// The board is not square or larger than 25×25, the clock is not sudden death, or the
    /// settings are refused.
    pub fn new(
        listen: &str,
        pairing: &CreateRequest,
        rules: &str,
        time_gift: Duration,
    ) -> Result<CgosOptions, CgosError> {
        let width = pairing.width.unwrap_or(19);
        let height = pairing.height.unwrap_or(width);
        if width != height || width > MAX_CGOS_SIZE {
            return Err(CgosError::Board { width, height });
        }
        if !matches!(
            pairing.time,
            Some(goref_clock::TimeControl::SuddenDeath { .. })
        ) {
            return Err(CgosError::NotSuddenDeath);
        }
        let game = CreateRequest {
            width: Some(width),
            height: Some(height),
            rules: Some(rules.to_string()),
            komi: pairing.komi,
            time: pairing.time,
            end: Some(goref_referee::Protocol::AllAlive),
            cgos: Some(crate::room::CgosTerms {
                time_gift_ms: u64::try_from(time_gift.as_millis()).unwrap_or(u64::MAX),
            }),
            ..CreateRequest::default()
        };
        game.config()?;
        Ok(CgosOptions {
            listen: listen.to_string(),
            game,
            max_connections: DEFAULT_CGOS_MAX_CONNECTIONS,
            max_per_address: DEFAULT_CGOS_MAX_PER_ADDRESS,
            door: goref_cgos::DoorConfig::default(),
            broadcast_delay: Duration::ZERO,
        })
    }
}
