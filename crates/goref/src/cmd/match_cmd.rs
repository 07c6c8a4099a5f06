//! `goref match`: games between two GTP engines, every move checked by goref.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use goref_gtp::EngineSpec;
use goref_match::clock::parse_duration;
use goref_match::config::{EngineEntry, FileConfig};
use goref_match::{Contestant, GameSettings, IllegalPolicy, RefereeSpec, TimeControl};
use goref_rules::{Komi, Preset, Ruleset};
use goref_runner::matches::own_cpu_time;
use goref_runner::{MatchConfig, Stop};
use goref_tournament::stats::Sprt;

/// Arguments of `goref match`. Options given here override the `--config` file.
#[derive(clap::Args)]
pub struct Args {
    /// TOML file with engines and settings (see `goref_match::config`).
    #[arg(long)]
    config: Option<PathBuf>,
    /// First engine (Black in game 1): a command line or `tcp://host:port`. `{game}` in it
    /// becomes the game number.
    #[arg(long)]
    black: Option<String>,
    /// Second engine (White in game 1).
    #[arg(long)]
    white: Option<String>,
    /// Games to play; colours alternate.
    #[arg(long)]
    games: Option<usize>,
    /// Games played at once, each with its own engine processes.
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Directory for SGF files, logs and results.jsonl (running again resumes; a directory of
    /// another match is refused). Default: a new `goref-match-TIME`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Stop when the test decides: ELO0 ELO1 ALPHA BETA (for the first engine).
    #[arg(long, num_args = 4, value_names = ["ELO0", "ELO1", "ALPHA", "BETA"], allow_hyphen_values = true)]
    sprt: Option<Vec<f64>>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// The game settings.
    #[command(flatten)]
    pub game: GameArgs,
}

/// The settings of each game, shared by `goref match` and `goref tournament`. Options given
/// here override the `--config` file.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct GameArgs {
    /// Board size, `N` or `WxH`.
    #[arg(long)]
    pub size: Option<String>,
    /// Komi (default: 7.5 under olympiad, else 0).
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_komi)]
    pub komi: Option<Komi>,
    /// Rules: olympiad (default), tromp-taylor, nstt.
    #[arg(long)]
    pub rules: Option<String>,
    /// Turns after which a game is scored as it stands (default 3 × points + 100).
    #[arg(long)]
    pub move_limit: Option<usize>,
    /// Early adjudication: `exact` ends a game as soon as its winner is certain whatever the
    /// opponent plays (pass-alive blocks and their one-point eyes against every other point
    /// and komi; result the winner by the certain margin, ending `decided`); `perfect` or
    /// `perfect:NODES` also ends it, on boards of at most 32 points, once the solver proves
    /// the value under perfect play within NODES nodes (100000 by default) after a move, the
    /// result that value; `off` (default) plays every game to its end.
    #[arg(long, value_name = "off|exact|perfect[:NODES]")]
    pub adjudicate: Option<String>,
    /// Main time: `10m` (sudden death), `5m+3s` (Fischer), `none`. Default: the Olympiad's
    /// for the board (45/30/10 minutes for 19/13/9).
    #[arg(long)]
    pub time: Option<String>,
    /// Japanese byo-yomi after the main time: `30s/5` (five 30-second periods).
    #[arg(long)]
    pub byoyomi: Option<String>,
    /// Canadian overtime after the main time: `5m/25` (25 stones in 5 minutes).
    #[arg(long)]
    pub canadian: Option<String>,
    /// Clock overrun forgiven per move (default 500ms).
    #[arg(long)]
    pub lag: Option<String>,
    /// A genmove with no reply after this long loses by forfeit (hang), whatever the clock.
    #[arg(long)]
    pub hang_timeout: Option<String>,
    /// Limit for every command but genmove (default 10s).
    #[arg(long)]
    pub command_timeout: Option<String>,
    /// Illegal moves: `olympiad` (3.10.2: first replaced by a pass, second loses) or `strict`.
    #[arg(long)]
    pub illegal: Option<String>,
    /// Handicap stones for Black, 2 to 9 (White moves first; komi defaults to 0.5).
    #[arg(long)]
    pub handicap: Option<usize>,
    /// `fixed` (GTP's fixed_handicap points, default) or `free` (Black's engine chooses with
    /// place_free_handicap; White is told with set_free_handicap).
    #[arg(long)]
    pub handicap_style: Option<String>,
    /// 001 §1: a program whose time runs out after at least N moves of its own does not lose;
    /// the game is adjudicated (3.9 default removal, or the referee engine). Default under the
    /// olympiad preset: 30 on 9x9, 60 on 13x13, 125 on 19x19; none otherwise.
    #[arg(long)]
    pub min_moves: Option<usize>,
    /// A play that would invoke the long-cycle rule: `end` (the game, Olympiad 3.6) or `pass`
    /// (replaced by a pass, as the tournament director may allow, 3.10.2).
    #[arg(long)]
    pub long_cycle: Option<String>,
    /// How a game ends after two passes (crate goref-referee): `all-alive` (Tromp-Taylor 8-9:
    /// every stone counts), `chinese` (equal dead lists removed, else play on; four passes:
    /// all alive), `kgs` (as chinese, then clean-up with kgs-genmove_cleanup and the next two
    /// passes end all alive), `japanese` (disputes played out on a copy), `tromp` (mark /
    /// dispute / done, reference 003), `olympiad` (3.7: agreement, at most three resumptions,
    /// then the default removal of 3.9), `referee` (a third party settles disagreements).
    /// Default: `olympiad` under the olympiad rules, `all-alive` under tromp-taylor and nstt.
    #[arg(long, value_name = "NAME")]
    pub end: Option<String>,
    /// Who settles disputed stones under `olympiad` and `referee`, and decides games sent to
    /// the tournament director by `--min-moves`: `builtin` (goref's default removal, Olympiad
    /// 3.9.2; the default), `perfect` or `perfect:NODES` (perfect play from the position,
    /// 001 §3.9, played out on the board and scored, when `goref solve` proves it within
    /// NODES nodes, 1000000 by default; else the default removal, and the record says so) or
    /// a GTP engine command, fed the game and asked `final_status_list dead`.
    #[arg(long, value_name = "builtin|perfect[:NODES]|CMD")]
    pub referee: Option<String>,
}

fn engine_name(spec: &EngineSpec) -> String {
    match spec {
        EngineSpec::Tcp { address } => address.clone(),
        EngineSpec::Process { argv, .. } => {
            let base = std::path::Path::new(&argv[0])
                .file_name()
                .map_or_else(|| argv[0].clone(), |n| n.to_string_lossy().into_owned());
            if base.starts_with("goref") && argv.get(1).map(String::as_str) == Some("engine") {
                argv.get(2).cloned().unwrap_or(base)
            } else {
                base
            }
        }
    }
}

fn player(
    id: usize,
    cli: Option<&String>,
    file: Option<&EngineEntry>,
    side: &str,
) -> anyhow::Result<Contestant> {
    let (command, entry) = match (cli, file) {
        (Some(c), _) => (c.clone(), None),
        (None, Some(e)) => (e.command.clone(), Some(e)),
        (None, None) => (demo_engine(side), None),
    };
    let mut spec = EngineSpec::parse(&command).map_err(|e| anyhow!("--{side}: {e}"))?;
    if let (Some(e), EngineSpec::Process { cwd, env, .. }) = (entry, &mut spec) {
        cwd.clone_from(&e.cwd);
        *env = e.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    }
    let name = entry
        .and_then(|e| e.name.clone())
        .unwrap_or_else(|| engine_name(&spec));
    Ok(Contestant { id, name, spec })
}

/// The engine of the built-in demo match that runs when no engine is named: GNU Go (when
/// installed) as Black against goref's own `random` engine.
fn demo_engine(side: &str) -> String {
    let me = std::env::current_exe()
        .ok()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "goref".into());
    match side {
        "black" if Path::new(GNUGO).exists() => {
            format!("{GNUGO} --mode gtp --level 0 --capture-all-dead --seed {{game}}")
        }
        _ => format!("\"{me}\" engine random --seed {{game}}"),
    }
}

/// Where Debian installs GNU Go.
const GNUGO: &str = "/usr/games/gnugo";

/// Whether the match names no engine at all (the built-in demo).
fn is_demo(args: &Args, file: &FileConfig) -> bool {
    args.black.is_none() && args.white.is_none() && file.black.is_none() && file.white.is_none()
}

/// Builds the match from the file and the command line.
pub fn config(args: &Args) -> anyhow::Result<MatchConfig> {
    let file = match &args.config {
        Some(path) => FileConfig::read(path).map_err(anyhow::Error::msg)?,
        None => FileConfig::default(),
    };
    let demo = is_demo(args, &file);
    if demo {
        eprintln!(
            "no engines named: playing the built-in demo ({} against goref's random engine)",
            if Path::new(GNUGO).exists() {
                "GNU Go"
            } else {
                "goref's random engine"
            }
        );
    }
    let mut players = [
        player(0, args.black.as_ref(), file.black.as_ref(), "black")?,
        player(1, args.white.as_ref(), file.white.as_ref(), "white")?,
    ];
    if players[0].name == players[1].name {
        players[0].name.push_str("-1");
        players[1].name.push_str("-2");
    }
    let settings = game_settings(&args.game, &file, demo)?;
    let sprt = match args.sprt.as_deref().or(file.sprt.as_ref().map(|s| &s[..])) {
        Some([e0, e1, a, b]) => Some(Sprt::new(*e0, *e1, *a, *b).map_err(anyhow::Error::msg)?),
        Some(_) => bail!("--sprt takes ELO0 ELO1 ALPHA BETA"),
        None => None,
    };
    let games = args
        .games
        .or(file.games)
        .unwrap_or(if demo { 4 } else { 2 });
    let jobs = args.jobs.or(file.jobs).unwrap_or(1).max(1);
    let out = args.out.clone().or(file.out).unwrap_or_else(|| {
        // A directory of its own, so that two matches never mix their results.
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        PathBuf::from(format!("goref-match-{stamp}"))
    });
    Ok(MatchConfig {
        players,
        games,
        jobs,
        settings,
        out,
        sprt,
        progress: !args.quiet,
    })
}

/// The settings of each game from the command line and the file (the command line wins).
/// `demo`: the built-in demo, which plays without a clock by default.
///
/// # Errors
///
/// When a value cannot be read.
pub fn game_settings(
    args: &GameArgs,
    file: &FileConfig,
    demo: bool,
) -> anyhow::Result<GameSettings> {
    let file = file.clone();
    let size = args
        .size
        .clone()
        .or(file.size)
        .unwrap_or_else(|| "9".into());
    let (width, height) = super::parse_size(&size).map_err(anyhow::Error::msg)?;
    let mut settings = GameSettings::new(width, height);
    let rules = args
        .rules
        .clone()
        .or(file.rules)
        .unwrap_or_else(|| "olympiad".into());
    let preset: Preset = rules.parse().map_err(anyhow::Error::msg)?;
    let handicap = args.handicap.or(file.handicap).unwrap_or(0);
    if handicap == 1 || handicap > 9 {
        bail!("--handicap {handicap}: 2 to 9 stones (or 0 for none)");
    }
    settings.handicap = handicap;
    if let Some(style) = args.handicap_style.clone().or(file.handicap_style) {
        settings.handicap_style = style.parse().map_err(|e| anyhow!("{e}"))?;
    }
    let komi = match (args.komi, file.komi) {
        (Some(k), _) => k,
        (None, Some(k)) => super::komi_of(k)?,
        (None, None) if handicap > 0 => Komi::from_f64(0.5).map_err(anyhow::Error::msg)?,
        (None, None) => Ruleset::preset(preset).komi,
    };
    settings.game.min_moves = args.min_moves.or(file.min_moves).or_else(|| {
        (preset == Preset::Olympiad)
            .then(|| goref_match::goref_referee::olympiad_min_moves(width, height))
    });
    if let Some(policy) = args.long_cycle.clone().or(file.long_cycle) {
        settings.game.long_cycle = policy.parse().map_err(|e| anyhow!("--long-cycle: {e}"))?;
    }
    settings.game.rules = Ruleset::preset(preset).with_komi(komi);
    settings.game.end = match args.end.clone().or(file.end) {
        Some(name) => name
            .parse::<goref_match::Protocol>()
            .map_err(|e| anyhow!("{e}"))?,
        None if preset == Preset::Olympiad => goref_match::Protocol::Olympiad,
        None => goref_match::Protocol::AllAlive,
    };
    settings.referee = match args.referee.clone().or(file.referee) {
        None => RefereeSpec::Builtin,
        Some(r) if r.trim().eq_ignore_ascii_case("builtin") => RefereeSpec::Builtin,
        Some(r) if r.trim().eq_ignore_ascii_case("perfect") => RefereeSpec::Perfect {
            budget: RefereeSpec::PERFECT_BUDGET,
        },
        Some(r) if r.trim().to_ascii_lowercase().starts_with("perfect:") => {
            let nodes = r.trim()["perfect:".len()..].replace('_', "");
            RefereeSpec::Perfect {
                budget: nodes.parse().ok().filter(|&n: &u64| n > 0).ok_or_else(|| {
                    anyhow!("--referee {r}: perfect:NODES takes a positive number of nodes")
                })?,
            }
        }
        Some(r) => {
            RefereeSpec::Engine(EngineSpec::parse(&r).map_err(|e| anyhow!("--referee: {e}"))?)
        }
    };
    let time = args.time.clone().or(file.time);
    let byoyomi = args.byoyomi.clone().or(file.byoyomi);
    let canadian = args.canadian.clone().or(file.canadian);
    settings.game.time = match time {
        Some(t) => TimeControl::parse(&t, byoyomi.as_deref(), canadian.as_deref())
            .map_err(anyhow::Error::msg)?,
        None if byoyomi.is_some() || canadian.is_some() => {
            bail!("--byoyomi and --canadian need --time")
        }
        None if demo => TimeControl::None,
        None => TimeControl::olympiad(width, height),
    };
    let duration = |cli: &Option<String>,
                    file: &Option<String>,
                    what: &str|
     -> anyhow::Result<Option<Duration>> {
        cli.clone()
            .or_else(|| file.clone())
            .map(|t| parse_duration(&t).map_err(|e| anyhow!("--{what}: {e}")))
            .transpose()
    };
    if let Some(lag) = duration(&args.lag, &file.lag, "lag")? {
        settings.game.lag = lag;
    }
    settings.hang_timeout = duration(&args.hang_timeout, &file.hang_timeout, "hang-timeout")?;
    if settings.game.time == TimeControl::None && settings.hang_timeout.is_none() {
        settings.hang_timeout = Some(Duration::from_secs(60));
    }
    if let Some(t) = duration(
        &args.command_timeout,
        &file.command_timeout,
        "command-timeout",
    )? {
        settings.command_timeout = t;
    }
    if let Some(limit) = args.move_limit.or(file.move_limit) {
        settings.game.move_limit = Some(limit);
    }
    if let Some(mode) = args.adjudicate.clone().or(file.adjudicate.clone()) {
        settings.game.adjudicate = mode
            .parse::<goref_referee::Adjudicate>()
            .map_err(|e| anyhow!("--adjudicate: {e}"))?;
    }
    if let Some(policy) = args.illegal.clone().or(file.illegal) {
        settings.game.illegal = policy
            .parse::<IllegalPolicy>()
            .map_err(|e| anyhow!("{e}"))?;
    }
    Ok(settings)
}

/// Runs `goref match`: prints the table on standard output; exit status 0, 128 + the signal
/// when stopped by one (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), 2 when an engine
/// fails the check before the first game.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    // A closed standard output (`| head`) ends the printing, not the program.
    let mut stdout = std::io::stdout();
    let config = config(args)?;
    let out = config.out.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let summary = rt
        .block_on(goref_runner::run_match(config))
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("output in {}", out.display()))?;
    let _ = write!(stdout, "{}", summary.table());
    let cpu = own_cpu_time();
    let wall = summary.wall.as_secs_f64();
    let played = summary.reports.len() - summary.resumed;
    if wall > 0.0 {
        let _ =
            writeln!(stdout,
            "this run: {} in {wall:.2}s ({:.2} games/s); goref CPU {:.3}s = {:.2}% of wall time",
            goref_runner::count(played, "game"),
            played as f64 / wall,
            cpu.as_secs_f64(),
            100.0 * cpu.as_secs_f64() / wall
        );
    }
    let _ = writeln!(stdout, "records and results.jsonl in {}", out.display());
    Ok(match summary.stop {
        Stop::Interrupted => super::signal_exit(summary.signal),
        _ => ExitCode::SUCCESS,
    })
}
