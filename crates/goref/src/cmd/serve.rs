//! `goref serve`: games served to people and programs over HTTP and WebSocket (crate
//! goref-server).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use clap::Args as ClapArgs;
use goref_clock::TimeControl;
use goref_match::clock::parse_duration;
use goref_server::lobby::PairingOptions;
use goref_server::room::CreateRequest;

#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Address to listen on (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// SQLite database file (created if missing), or a PostgreSQL database:
    /// `postgres://user@host/db` (what it leaves out comes from the PG* variables; the schema
    /// is created or brought up to date at start).
    #[arg(long, default_value = "goref.db")]
    pub db: PathBuf,
    /// Time forgiven per turn for network lag, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub lag_ms: u64,
    /// Messages a connection may send a second (bursts of twice as many); more are refused.
    #[arg(long, default_value_t = 20)]
    pub rate: u32,
    /// How often the players waiting in the lobby are paired (`off`: never).
    #[arg(long, default_value = "15s")]
    pub pairing_interval: String,
    /// The board of paired games, `N` or `WxH`.
    #[arg(long, default_value = "9x9")]
    pub pairing_size: String,
    /// The rules of paired games (`tromp-taylor`, `nstt`, `olympiad`).
    #[arg(long, default_value = "olympiad")]
    pub pairing_rules: String,
    /// The clock of paired games: `none`, `5m` (sudden death), `5m+3s` (Fischer).
    #[arg(long, default_value = "5m")]
    pub pairing_time: String,
    /// How paired games settle dead stones after two passes (one of the seven protocols).
    #[arg(long, default_value = "tromp")]
    pub pairing_end: String,
    /// The komi of paired games (default: the rules').
    #[arg(long)]
    pub pairing_komi: Option<f64>,
    /// Open CGOS's door on this address (`127.0.0.1:6867`): CGOS's programs join through
    /// their own clients (cgosclient.py, cgosGtp) and are paired with the others for a game
    /// on the pairing board, komi and clock (sudden death), under --cgos-rules, with no
    /// dead-stone phase (end all-alive). Off by default.
    #[arg(long)]
    pub cgos: Option<String>,
    /// A pool besides the default one (which the --pairing-… flags and --cgos define),
    /// repeatable: `name=NAME,size=WxH[,komi=K][,time=T][,rules=R][,end=E][,cgos=ADDR]`.
    /// Players wait in the pools they name (`goref connect --pool NAME`); each pool pairs
    /// for its game and has its ratings and standings; `cgos=ADDR` opens a CGOS door of its
    /// own (its board square, its clock sudden death). What a pool leaves out is the
    /// default pool's (rules, end, time) or the rules' (komi). Give every server of one
    /// database the same pools.
    #[arg(long = "pool", value_name = "SPEC")]
    pub pools: Vec<String>,
    /// The rules of CGOS games (CGOS's own: positional superko, suicide illegal: nstt).
    #[arg(long, default_value = "nstt")]
    pub cgos_rules: String,
    /// Every move's free time in CGOS games (CGOS's "time gift"): a move is charged its time
    /// less this, never below zero.
    #[arg(long, default_value = "250ms", value_parser = parse_duration)]
    pub cgos_time_gift: Duration,
    /// The CGOS door's open connections at most; more get `Error:` and are closed.
    #[arg(long, default_value_t = goref_server::options::DEFAULT_CGOS_MAX_CONNECTIONS, value_parser = at_least_one)]
    pub cgos_max_connections: usize,
    /// The CGOS door's open connections at most from one IP address.
    #[arg(long, default_value_t = goref_server::options::DEFAULT_CGOS_MAX_PER_ADDRESS, value_parser = at_least_one)]
    pub cgos_max_per_address: usize,
    /// How long the moves of rated games are held back from CGOS's viewers (`v1` clients of
    /// the door): a viewer sees a move this long after it was played, and a game's end this
    /// long after it ended (the web page and the API show games as they are).
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub broadcast_delay: Duration,
    /// The tournament director's account (default: the first account created).
    #[arg(long)]
    pub td: Option<String>,
    /// Games one client address may create at once (then --create-per-minute).
    #[arg(long, default_value_t = 20)]
    pub create_burst: u32,
    /// Games one client address may create a minute after its burst; more get HTTP 429
    /// (0: no limit).
    #[arg(long, default_value_t = 60)]
    pub create_per_minute: u32,
    /// Unfinished games one creator (client address) may have; more get HTTP 429.
    #[arg(long, default_value_t = 50)]
    pub max_unfinished: usize,
    /// A game without any move this long after its creation is closed without a result
    /// (Void, with a note in its record).
    #[arg(long, default_value = "1h", value_parser = parse_duration)]
    pub unstarted_expiry: Duration,
    /// A game between accounts (paired, or a challenge accepted) that nobody has begun this
    /// long after it was made is voided (Void, with a note in its record) when one of its
    /// players waits again: both go back to the lobby.
    #[arg(long, default_value = "2m", value_parser = parse_duration)]
    pub start_timeout: Duration,
    /// A started game in which nothing happens for this long is closed without a result
    /// (a game with a clock is finished by its clock first).
    #[arg(long, default_value = "168h", value_parser = parse_duration)]
    pub abandoned_expiry: Duration,
    /// Open connections at most (WebSockets included); more get a short 503 and are closed.
    /// Kept below the limit on open files.
    #[arg(long, default_value_t = 4096)]
    pub max_connections: usize,
    /// Open connections at most from one client address (IPv4 address or IPv6 /64).
    #[arg(long, default_value_t = 256)]
    pub max_connections_per_address: usize,
    /// A request's head must arrive within this (slow clients are closed); also the longest
    /// wait for the next request on a kept-alive connection.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,
    /// A connection on which nothing moves for this long is closed (WebSockets are pinged
    /// instead).
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// A request (its body included) must be answered within this, or gets 408.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// A WebSocket is pinged after this long without a message from its client.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub ping_interval: Duration,
    /// A WebSocket whose client misses this many pings in a row is closed.
    #[arg(long, default_value_t = 2)]
    pub missed_pings: u32,
    /// An origin besides the server's own whose pages may open games (repeatable), such as
    /// https://club.example. Programs, which send no Origin, are always let in.
    #[arg(long = "allow-origin")]
    pub allow_origins: Vec<String>,
    /// Behind a reverse proxy on this machine: take the client's address for the limits from
    /// the last X-Forwarded-For entry of requests from loopback, and do not cap loopback
    /// connections per address (the proxy should).
    #[arg(long)]
    pub trust_forwarded_for: bool,
    /// A player in the lobby stays listed this long after its instance stops renewing it (an
    /// instance that died): several instances on one PostgreSQL database.
    #[arg(long, default_value = "6s", value_parser = parse_duration)]
    pub presence_lease: Duration,
    /// The most nodes a game may ask its perfect-play adjudication to search (settings
    /// `"third_party": {"type": "perfect_play", "nodes": N}`); a game asking more is refused.
    /// Searches run two at a time, each on one thread.
    #[arg(long, default_value_t = goref_server::options::DEFAULT_MAX_PERFECT_NODES)]
    pub max_perfect_nodes: u64,
}

/// A count of at least one (a cap of 0 would refuse every connection).
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

fn pairing(args: &Args) -> anyhow::Result<PairingOptions> {
    let interval = if args.pairing_interval.trim().eq_ignore_ascii_case("off") {
        None
    } else {
        Some(
            goref_clock::parse_duration(&args.pairing_interval)
                .map_err(|e| anyhow!("--pairing-interval: {e}"))?,
        )
        .filter(|d| !d.is_zero())
    };
    let (width, height) =
        super::parse_size(&args.pairing_size).map_err(|e| anyhow!("--pairing-size: {e}"))?;
    let time = TimeControl::parse(&args.pairing_time, None, None)
        .map_err(|e| anyhow!("--pairing-time: {e}"))?;
    let end = args
        .pairing_end
        .parse()
        .map_err(|e| anyhow!("--pairing-end: {e}"))?;
    let game = CreateRequest {
        width: Some(width),
        height: Some(height),
        rules: Some(args.pairing_rules.clone()),
        komi: args.pairing_komi,
        time: Some(time),
        end: Some(end),
        ..CreateRequest::default()
    };
    game.config()
        .map_err(|e| anyhow!(e))
        .context("the settings of paired games")?;
    Ok(PairingOptions { interval, game })
}

/// A `--pool` spec's fields, before they are a pool.
#[derive(Debug, Default, PartialEq)]
struct PoolSpec {
    name: String,
    size: Option<String>,
    komi: Option<f64>,
    time: Option<String>,
    rules: Option<String>,
    end: Option<String>,
    cgos: Option<String>,
}

impl std::str::FromStr for PoolSpec {
    type Err = anyhow::Error;

    /// `name=NAME,size=WxH,komi=K,time=T,rules=R,end=E,cgos=ADDR` (any order; `name` required,
    /// each field at most once).
    fn from_str(text: &str) -> anyhow::Result<PoolSpec> {
        let mut spec = PoolSpec::default();
        let mut seen = std::collections::HashSet::new();
        for field in text.split(',').map(str::trim).filter(|f| !f.is_empty()) {
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| anyhow!("{field:?} is not KEY=VALUE"))?;
            let (key, value) = (key.trim(), value.trim().to_string());
            if !seen.insert(key.to_string()) {
                bail!("{key} given twice");
            }
            match key {
                "name" => spec.name = value,
                "size" => spec.size = Some(value),
                "komi" => {
                    spec.komi = Some(
                        value
                            .parse()
                            .map_err(|_| anyhow!("komi {value:?} is not a number"))?,
                    );
                }
                "time" => spec.time = Some(value),
                "rules" => spec.rules = Some(value),
                "end" => spec.end = Some(value),
                "cgos" => spec.cgos = Some(value),
                _ => bail!("unknown field {key:?} (name, size, komi, time, rules, end, cgos)"),
            }
        }
        if spec.name.is_empty() {
            bail!("no name=NAME");
        }
        Ok(spec)
    }
}

impl Args {
    /// The pool `spec` (`--pool`), its defaults the default pool's.
    fn pool(&self, spec: &str) -> anyhow::Result<goref_server::options::PoolOptions> {
        let with = |e: anyhow::Error| anyhow!("--pool {spec}: {e:#}");
        let spec: PoolSpec = spec.parse().map_err(with)?;
        let default = pairing(self)?.game;
        let (width, height) = match &spec.size {
            Some(size) => super::parse_size(size).map_err(|e| with(e.into()))?,
            None => (default.width.unwrap_or(9), default.height.unwrap_or(9)),
        };
        let time = match &spec.time {
            Some(t) => TimeControl::parse(t, None, None).map_err(|e| with(anyhow!("time: {e}")))?,
            None => default.time.unwrap_or(TimeControl::None),
        };
        let end = match &spec.end {
            Some(e) => e.parse().map_err(|e| with(anyhow!("end: {e}")))?,
            None => default.end.unwrap_or_default(),
        };
        let game = CreateRequest {
            width: Some(width),
            height: Some(height),
            rules: spec.rules.clone().or(default.rules),
            komi: spec.komi,
            time: Some(time),
            end: Some(end),
            ..CreateRequest::default()
        };
        game.config().map_err(|e| with(anyhow!(e)))?;
        let cgos = match &spec.cgos {
            Some(addr) => Some(self.cgos_door(addr, &game).map_err(with)?),
            None => None,
        };
        Ok(goref_server::options::PoolOptions {
            name: spec.name,
            game,
            cgos,
        })
    }

    /// A CGOS door on `addr` for the pool of game `game`, with the --cgos-… flags.
    fn cgos_door(
        &self,
        addr: &str,
        game: &CreateRequest,
    ) -> anyhow::Result<goref_server::options::CgosOptions> {
        Ok(goref_server::options::CgosOptions {
            max_connections: self.cgos_max_connections,
            max_per_address: self.cgos_max_per_address,
            broadcast_delay: self.broadcast_delay,
            ..goref_server::options::CgosOptions::new(
                addr,
                game,
                &self.cgos_rules,
                self.cgos_time_gift,
            )?
        })
    }

    /// The server's options.
    ///
    /// # Errors
    ///
    /// A pairing setting that cannot be read.
    pub fn options(&self) -> anyhow::Result<goref_server::Options> {
        let opts = goref_server::Options {
            lag_allowance_ms: self.lag_ms,
            messages_per_second: self.rate,
            create_burst: self.create_burst,
            create_per_minute: self.create_per_minute,
            max_unfinished_per_creator: self.max_unfinished,
            unstarted_expiry: self.unstarted_expiry,
            start_timeout: self.start_timeout,
            abandoned_expiry: self.abandoned_expiry,
            max_connections: self.max_connections,
            max_connections_per_address: self.max_connections_per_address,
            header_timeout: self.header_timeout,
            idle_timeout: self.idle_timeout,
            request_timeout: self.request_timeout,
            ping_interval: self.ping_interval,
            missed_pings: self.missed_pings,
            allowed_origins: self.allow_origins.clone(),
            trust_forwarded_for: self.trust_forwarded_for,
            presence_lease: self.presence_lease,
            max_perfect_nodes: self.max_perfect_nodes,
            cgos: match &self.cgos {
                Some(addr) => Some(
                    self.cgos_door(addr, &pairing(self)?.game)
                        .map_err(|e| anyhow!("--cgos: {e}"))?,
                ),
                None => None,
            },
            pools: self
                .pools
                .iter()
                .map(|spec| self.pool(spec))
                .collect::<anyhow::Result<_>>()?,
            pairing: pairing(self)?,
            td: self.td.clone(),
            ..goref_server::Options::default()
        };
        opts.check_pools().map_err(|e| anyhow!("--pool: {e}"))?;
        Ok(opts)
    }
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let db = goref_server::Database::from_arg(&args.db);
    goref_server::run(&args.listen, &db, args.options()?)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn the_flags_defaults_are_the_servers() {
        let cli = Cli::try_parse_from(["serve"]).unwrap();
        assert_eq!(
            format!("{:?}", cli.args.options().unwrap()),
            format!("{:?}", goref_server::Options::default())
        );
        let cli = Cli::try_parse_from([
            "serve",
            "--unstarted-expiry",
            "15m",
            "--allow-origin",
            "https://club.example",
            "--allow-origin",
            "https://other.example",
            "--max-perfect-nodes",
            "50000",
        ])
        .unwrap();
        let opts = cli.args.options().unwrap();
        assert_eq!(opts.unstarted_expiry, Duration::from_secs(900));
        assert_eq!(opts.allowed_origins.len(), 2);
        assert_eq!(opts.max_perfect_nodes, 50_000);
    }

    // Issue 38 §2: `--pool` adds a pool with its game and maybe its door; what it leaves out
    // is the default pool's; a spec that cannot be read says what and where.
    #[test]
    fn pools_are_read_from_their_specs() {
        let cli = Cli::try_parse_from([
            "serve",
            "--pairing-time",
            "2m",
            "--pool",
            "name=small,size=7,komi=9",
            "--pool",
            "name=big, size=13x13, time=10m, rules=nstt, end=all-alive, cgos=127.0.0.1:0",
        ])
        .unwrap();
        let opts = cli.args.options().unwrap();
        assert_eq!(
            opts.pool_names(),
            ["default", "small", "big"],
            "the default pool first"
        );
        let small = opts.pools[0].game.config().unwrap();
        assert_eq!((small.width, small.height, small.komi), (7, 7, 9.0));
        assert_eq!(
            (small.rules.as_str(), small.time),
            (
                "olympiad",
                TimeControl::SuddenDeath {
                    main: Duration::from_secs(120)
                }
            )
        );
        assert!(opts.pools[0].cgos.is_none());
        let big = opts.pools[1].game.config().unwrap();
        assert_eq!((big.width, big.rules.as_str()), (13, "nstt"));
        assert_eq!(big.end, goref_referee::Protocol::AllAlive);
        let door = opts.pools[1].cgos.as_ref().unwrap().game.config().unwrap();
        assert_eq!((door.width, door.time), (13, big.time));
        assert!(door.cgos.is_some());
        for (spec, says) in [
            ("size=9", "no name=NAME"),
            ("name=a,name=b", "name given twice"),
            ("name=a,colour=red", "unknown field \"colour\""),
            ("name=a,komi=lots", "komi \"lots\" is not a number"),
            ("name=a,size=9x9x9", "9x9x9"),
            ("name=a,time=fast", "time: "),
            (
                "name=a,size=9x7,cgos=127.0.0.1:0",
                "CGOS plays on square boards",
            ),
            ("name=default", "two pools are named \"default\""),
            ("name=a/b", "pool name \"a/b\""),
        ] {
            let cli = Cli::try_parse_from(["serve", "--pool", spec]).unwrap();
            let error = format!("{:#}", cli.args.options().unwrap_err());
            assert!(error.starts_with("--pool"), "{spec}: {error}");
            assert!(error.contains(says), "{spec}: {error}");
        }
        let cli =
            Cli::try_parse_from(["serve", "--pool", "name=a", "--pool", "name=a,size=7"]).unwrap();
        let error = cli.args.options().unwrap_err().to_string();
        assert!(error.contains("two pools are named \"a\""), "{error}");
    }

    #[test]
    fn cgos_games_are_the_pairing_board_komi_and_clock_under_cgos_terms() {
        let cli = Cli::try_parse_from([
            "serve",
            "--cgos",
            "127.0.0.1:6867",
            "--pairing-komi",
            "7.5",
            "--cgos-time-gift",
            "400ms",
        ])
        .unwrap();
        let cgos = cli.args.options().unwrap().cgos.unwrap();
        let config = cgos.game.config().unwrap();
        assert_eq!(
            (
                config.width,
                config.rules.as_str(),
                config.komi,
                config.end.name()
            ),
            (9, "nstt", 7.5, "all-alive")
        );
        assert_eq!(config.cgos.unwrap().time_gift_ms, 400);
        // The door's caps: CgosOptions' defaults, or the flags.
        assert_eq!(
            (cgos.max_connections, cgos.max_per_address),
            (
                goref_server::options::DEFAULT_CGOS_MAX_CONNECTIONS,
                goref_server::options::DEFAULT_CGOS_MAX_PER_ADDRESS
            )
        );
        let cli = Cli::try_parse_from([
            "serve",
            "--cgos",
            "127.0.0.1:6867",
            "--cgos-max-connections",
            "300",
            "--cgos-max-per-address",
            "2",
        ])
        .unwrap();
        let cgos = cli.args.options().unwrap().cgos.unwrap();
        assert_eq!((cgos.max_connections, cgos.max_per_address), (300, 2));
        assert_eq!(cgos.broadcast_delay, Duration::ZERO);
        let cli = Cli::try_parse_from([
            "serve",
            "--cgos",
            "127.0.0.1:6867",
            "--broadcast-delay",
            "30s",
        ])
        .unwrap();
        let cgos = cli.args.options().unwrap().cgos.unwrap();
        assert_eq!(cgos.broadcast_delay, Duration::from_secs(30));
        assert!(Cli::try_parse_from(["serve", "--cgos-max-per-address", "0"]).is_err());
        // CGOS plays sudden death on square boards.
        for flags in [["--pairing-time", "5m+3s"], ["--pairing-size", "9x7"]] {
            let mut args = vec!["serve", "--cgos", "127.0.0.1:6867"];
            args.extend(flags);
            let error = Cli::try_parse_from(args)
                .unwrap()
                .args
                .options()
                .unwrap_err();
            assert!(error.to_string().starts_with("--cgos: "), "{error}");
        }
    }
}
