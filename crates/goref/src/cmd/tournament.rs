//! `goref tournament`: many engines, every game refereed by goref, standings and ratings.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use goref_gtp::EngineSpec;
use goref_match::config::{EngineEntry, FileConfig};
use goref_match::Contestant;
use goref_runner::tournament::{TournamentError, STANDINGS_FILE};
use goref_runner::{run_tournament_with, Entrant, Restart, TournamentConfig};
use goref_tournament::plan::FormatParams;
use goref_tournament::standings::standings;
use goref_tournament::stats::Sprt;
use goref_tournament::{Format, Plan};

use super::match_cmd::{game_settings, GameArgs};

/// Arguments of `goref tournament`. Options given here override the `--config` file.
#[derive(clap::Args, Clone)]
pub struct Args {
    /// TOML file with the engines (`[[engine]]`) and settings; see docs/src/commands/tournament.md.
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// An engine, as `name=NAME cmd=COMMAND [dir=DIR] [restart=auto|always] [init=GTP]...
    /// [time=T [byoyomi=P/N | canadian=P/N]]` (its own clock: time odds);
    /// repeat for each engine, in seeding order (after the file's).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    engine: Vec<String>,
    /// `round-robin` (default), `gauntlet`, `swiss` or `knockout`.
    #[arg(long)]
    format: Option<String>,
    /// Games each pair plays, colours alternating (default 2); knockout: games of each match.
    #[arg(long)]
    games_per_pair: Option<usize>,
    /// Gauntlet: the first N engines play all the others (default 1).
    #[arg(long)]
    seeds: Option<usize>,
    /// Swiss: rounds (default: engines - 1, at most 5).
    #[arg(long)]
    rounds: Option<usize>,
    /// Knockout: blocks of two games (colours swapped) replayed after a tied match, at most
    /// (default 2); still tied: the better colour-balanced score, then the better seed.
    #[arg(long)]
    max_replays: Option<usize>,
    /// With two engines: stop when the SPRT on game pairs (same opening, colours swapped:
    /// pentanomial) decides, for the first engine: ELO0 ELO1 ALPHA BETA.
    #[arg(long, num_args = 4, value_names = ["ELO0", "ELO1", "ALPHA", "BETA"], allow_hyphen_values = true)]
    sprt: Option<Vec<f64>>,
    /// An SGF file or a folder of them: each pair's games go through these openings in turn,
    /// each opening twice with colours swapped; its moves are played first (told to the engines
    /// with `play`, untimed).
    #[arg(long)]
    pub(crate) openings: Option<PathBuf>,
    /// Games played at once.
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Directory for results.jsonl, standings.json and the records (running again resumes;
    /// a directory of another tournament is refused).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// Failures to start in a row after which an engine is withdrawn (default 3).
    #[arg(long)]
    max_failures: Option<usize>,
    /// No progress lines.
    #[arg(long)]
    quiet: bool,
    /// Hand the games to workers through this PostgreSQL database (`postgres://…`; `goref
    /// worker --queue` on any machine plays them) instead of playing them here.
    #[arg(long, value_name = "URL")]
    pub queue: Option<String>,
    /// With --queue: show the queue's tournaments and workers, and exit.
    #[arg(long, requires = "queue")]
    status: bool,
    /// The game settings.
    #[command(flatten)]
    game: GameArgs,
}

/// The `--engine` values split into engines: a new engine starts at each `name=`, and where a
/// key other than `init` comes again.
fn engine_groups(values: &[String]) -> Vec<Vec<String>> {
    let mut groups: Vec<Vec<String>> = Vec::new();
    for v in values {
        let key = v.split_once('=').map_or("", |(k, _)| k);
        let repeats = groups.last().is_some_and(|g| {
            key != "init"
                && g.iter()
                    .any(|w| w.split_once('=').is_some_and(|(k, _)| k == key))
        });
        if groups.is_empty() || key == "name" || repeats {
            groups.push(Vec::new());
        }
        groups.last_mut().expect("a group").push(v.clone());
    }
    groups
}

/// An engine of `--engine key=value ...`.
fn engine_of_flag(words: &[String]) -> anyhow::Result<EngineEntry> {
    let mut entry = EngineEntry::default();
    for w in words {
        let (key, value) = w.split_once('=').ok_or_else(|| {
            anyhow!("--engine {w}: expected KEY=VALUE (name, cmd, dir, restart, init)")
        })?;
        match key {
            "name" => entry.name = Some(value.to_string()),
            "cmd" | "command" => entry.command = value.to_string(),
            "dir" | "cwd" => entry.cwd = Some(PathBuf::from(value)),
            "restart" => entry.restart = Some(value.to_string()),
            "init" => entry.init.push(value.to_string()),
            "time" => entry.time = Some(value.to_string()),
            "byoyomi" => entry.byoyomi = Some(value.to_string()),
            "canadian" => entry.canadian = Some(value.to_string()),
            _ => bail!(
                "--engine {w}: unknown key '{key}' (name, cmd, dir, restart, init, time, byoyomi, canadian)"
            ),
        }
    }
    if entry.command.is_empty() {
        bail!("--engine {}: cmd=COMMAND is required", words.join(" "));
    }
    Ok(entry)
}

/// Builds the tournament from the file and the command line.
pub fn config(args: &Args) -> anyhow::Result<TournamentConfig> {
    let file = match &args.config {
        Some(path) => FileConfig::read(path).map_err(anyhow::Error::msg)?,
        None => FileConfig::default(),
    };
    let mut entries = file.engine.clone();
    for words in engine_groups(&args.engine) {
        entries.push(engine_of_flag(&words)?);
    }
    if entries.len() < 2 {
        bail!("a tournament needs at least two engines (--engine name=NAME cmd=COMMAND, or [[engine]] in --config)");
    }
    let default_restart: Restart = file
        .restart
        .as_deref()
        .unwrap_or("auto")
        .parse()
        .map_err(anyhow::Error::msg)?;
    let mut entrants = Vec::with_capacity(entries.len());
    for (id, e) in entries.iter().enumerate() {
        let mut spec =
            EngineSpec::parse(&e.command).map_err(|m| anyhow!("engine {}: {m}", id + 1))?;
        if let EngineSpec::Process { cwd, env, .. } = &mut spec {
            cwd.clone_from(&e.cwd);
            *env = e.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        }
        let name = e
            .name
            .clone()
            .unwrap_or_else(|| format!("engine{}", id + 1));
        if entrants.iter().any(|x: &Entrant| x.player.name == name) {
            bail!("two engines are named '{name}': give each a name of its own");
        }
        let restart = match &e.restart {
            Some(r) => r.parse().map_err(anyhow::Error::msg)?,
            None => default_restart,
        };
        let time = match &e.time {
            Some(t) => Some(
                goref_match::TimeControl::parse(t, e.byoyomi.as_deref(), e.canadian.as_deref())
                    .map_err(|m| anyhow!("engine {name}: {m}"))?,
            ),
            None if e.byoyomi.is_some() || e.canadian.is_some() => {
                bail!("engine {name}: byoyomi and canadian need time")
            }
            None => None,
        };
        entrants.push(Entrant {
            player: Contestant { id, name, spec },
            init: e.init.clone(),
            per_game: Vec::new(),
            restart,
            time,
        });
    }
    let games_per_pair = args.games_per_pair.or(file.games_per_pair).unwrap_or(2);
    if entries.len() > 1000 || games_per_pair > 100_000 {
        bail!("at most 1000 engines and 100000 games a pair");
    }
    let name = args
        .format
        .clone()
        .or(file.format.clone())
        .unwrap_or_else(|| "round-robin".into());
    let params = FormatParams {
        games_per_pair,
        seeds: args.seeds.or(file.seeds).unwrap_or(1),
        rounds: args
            .rounds
            .or(file.rounds)
            .unwrap_or_else(|| (entries.len() - 1).min(5)),
        max_replays: args.max_replays.unwrap_or(2),
    };
    let format = Format::named(&name, params)?;
    let settings = game_settings(&args.game, &file, false)?;
    let openings = match args.openings.clone().or(file.openings.clone()) {
        Some(path) => read_openings(&path, &settings)?,
        None => Vec::new(),
    };
    let out = args
        .out
        .clone()
        .or(file.out.clone())
        .ok_or_else(|| anyhow!("--out DIR is required (or out = \"DIR\" in the file)"))?;
    Ok(TournamentConfig {
        entrants,
        format,
        settings,
        jobs: args.jobs.or(file.jobs).unwrap_or(1).clamp(1, 64),
        out,
        max_failures: args.max_failures.or(file.max_failures).unwrap_or(3).max(1),
        openings,
        kind: "tournament",
        records: "games".into(),
        sprt: match args.sprt.as_deref().or(file.sprt.as_ref().map(|s| &s[..])) {
            None => None,
            Some(_) if entries.len() != 2 => bail!("--sprt needs exactly two engines"),
            Some(&[e0, e1, a, b]) => match Sprt::new(e0, e1, a, b) {
                Ok(sprt) => Some(sprt),
                Err(_) => bail!("--sprt takes ELO0 < ELO1 and ALPHA, BETA in (0, 1)"),
            },
            Some(_) => bail!("--sprt takes ELO0 < ELO1 and ALPHA, BETA in (0, 1)"),
        },
    })
}

/// The openings in `path` (an SGF file, or every `.sgf` file of a folder, by name; a file may
/// hold a collection of games, one opening each): each one's main line, checked to be legal under the tournament's rules on its board from the empty
/// board with Black first. `goref tune` reads its openings so too.
pub(crate) fn read_openings(
    path: &std::path::Path,
    settings: &goref_match::GameSettings,
) -> anyhow::Result<Vec<(String, Vec<goref_rules::Move>)>> {
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("reading {}", path.display()))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")))
            .collect();
        files.sort();
        files
    } else {
        vec![path.to_path_buf()]
    };
    if files.is_empty() {
        bail!("{}: no .sgf file", path.display());
    }
    let mut openings = Vec::with_capacity(files.len());
    for file in files {
        let name = file.display().to_string();
        let text = std::fs::read(&file).with_context(|| format!("reading {name}"))?;
        let records = goref_sgf::parse_collection(&String::from_utf8_lossy(&text))
            .map_err(|(game, e)| anyhow!("{name}: game {game}: {e}"))?;
        let stem = file
            .file_stem()
            .map_or_else(|| name.clone(), |s| s.to_string_lossy().into_owned());
        let many = records.len() > 1;
        for (k, record) in records.into_iter().enumerate() {
            let label = if many {
                format!("{stem}#{}", k + 1)
            } else {
                stem.clone()
            };
            if (record.width, record.height) != (settings.width, settings.height) {
                bail!(
                    "{name}: opening {label} is on {}x{}, the tournament on {}x{}",
                    record.width,
                    record.height,
                    settings.width,
                    settings.height
                );
            }
            if !record.setup.is_empty() {
                bail!("{name}: opening {label}: openings are moves from the empty board, not setup stones");
            }
            let game = record
                .replay(settings.game.rules)
                .map_err(|e| anyhow!("{name}: opening {label}: {e}"))?;
            if game.is_over() {
                bail!("{name}: opening {label} ends the game");
            }
            openings.push((label, game.moves().iter().map(|&(_, mv)| mv).collect()));
        }
    }
    Ok(openings)
}

/// Runs `goref tournament`: prints the standings; exit status 0, 128 + the signal when stopped
/// by one (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), 2 when an engine fails the check
/// before the first game.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if let (Some(url), true) = (&args.queue, args.status) {
        return super::queued::print_status(url);
    }
    // A closed standard output (`| head`) ends the printing, not the program.
    let mut stdout = std::io::stdout();
    let config = config(args)?;
    let out = config.out.clone();
    let names: Vec<String> = config
        .entrants
        .iter()
        .map(|e| e.player.name.clone())
        .collect();
    let format = config.format.name();
    let quiet = args.quiet;
    let started = std::time::SystemTime::now();
    let described = goref_runner::tournament::described(&config);
    let commands: Vec<(String, String)> = config
        .entrants
        .iter()
        .map(|e| (e.player.name.clone(), e.player.spec.to_string()))
        .collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // The standings, computed once a game (a rating fit each time) for the file and the bar.
    let table_of = |games: &[goref_tournament::GameLine], byes: &[usize], withdrawn: &[usize]| {
        let mut table = standings(format, &names, games, byes);
        for s in &mut table.engines {
            s.withdrawn = withdrawn.iter().any(|&w| names[w] == s.name);
        }
        table
    };
    let write_standings = |table: &goref_tournament::standings::Standings| -> anyhow::Result<()> {
        let path = out.join(STANDINGS_FILE);
        let tmp = out.join(format!("{STANDINGS_FILE}.tmp"));
        std::fs::write(&tmp, serde_json::to_string_pretty(table)?)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .with_context(|| format!("writing {}", path.display()))
    };
    let expected = Some(Plan::new(&config.format, config.entrants.len()).total());
    let bar = if quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::with_draw_target(
            expected,
            indicatif::ProgressDrawTarget::stderr_with_hz(4),
        )
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games, {elapsed_precise}, eta {eta} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let where_played = match &args.queue {
        Some(url) => rt.block_on(super::queued::coordinate(
            url,
            config_text(args)?,
            opening_files(args)?,
            &config,
        ))?,
        None => goref_runner::Venue::Local,
    };
    let finished = rt
        .block_on(run_tournament_with(
            config,
            where_played.clone(),
            |line, all, byes| {
                // The last result above the bar; the bar says how far, and who leads.
                let settled = goref_runner::summary::settlement_detail(line)
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default();
                let text = format!(
                    "game {} (round {}): {} - {}: {} ({}{settled})",
                    line.game,
                    line.round,
                    line.black_name,
                    line.white_name,
                    line.result,
                    line.end.name()
                );
                if quiet {
                } else if bar.is_hidden() {
                    // Not a terminal (a log): one line a game.
                    eprintln!("{text}");
                } else {
                    bar.println(text);
                }
                bar.set_position(all.len() as u64);
                let table = table_of(all, byes, &[]);
                let leaders: Vec<String> = table
                    .engines
                    .iter()
                    .take(3)
                    .map(|s| format!("{} {}", s.name, s.points))
                    .collect();
                bar.set_message(format!("leading: {}", leaders.join(", ")));
                if let Err(e) = write_standings(&table) {
                    eprintln!("goref: {e:#}");
                }
                goref_runner::Flow::Continue
            },
        ))
        .map_err(|e: TournamentError| anyhow!("{e}"))
        .with_context(|| format!("output in {}", out.display()))?;
    bar.finish_and_clear();
    if let (goref_runner::Venue::Remote(_), Some(url)) = (&where_played, &args.queue) {
        if !finished.interrupted {
            rt.block_on(super::queued::finish(url, &out))?;
        }
    }
    let table = table_of(&finished.games, &finished.byes, &finished.withdrawn);
    write_standings(&table)?;
    let run = goref_runner::report::RunSettings {
        settings: described,
        engines: commands
            .iter()
            .enumerate()
            .map(|(i, (name, command))| {
                let info = finished.engines.get(i);
                let first = |t: &str| t.lines().next().unwrap_or("").trim().to_string();
                goref_runner::report::EngineRow {
                    name: name.clone(),
                    command: command.clone(),
                    gtp_name: info.map(|i| first(&i.name)).unwrap_or_default(),
                    gtp_version: info.map(|i| first(&i.version)).unwrap_or_default(),
                }
            })
            .collect(),
        goref_version: env!("CARGO_PKG_VERSION").to_string(),
        started: httpdate::fmt_http_date(started),
        ended: httpdate::fmt_http_date(std::time::SystemTime::now()),
    };
    goref_runner::report::write_report(
        &out,
        format,
        &names,
        &finished.games,
        &finished.byes,
        Some(&run),
    )
    .with_context(|| format!("writing the report in {}", out.display()))?;
    let cpu = goref_runner::matches::own_cpu_time().as_secs_f64();
    let wall = finished.wall.as_secs_f64();
    let _ = writeln!(
        stdout,
        "{}, {format}; this run: {} in {wall:.1}s; goref CPU {cpu:.2}s = {:.1}% of wall time",
        goref_runner::count(finished.games.len(), "game"),
        finished.games.len() - finished.resumed,
        if wall > 0.0 { 100.0 * cpu / wall } else { 0.0 }
    );
    let _ = writeln!(
        stdout,
        "{:<4} {:<20} {:>5} {:>5} {:>5} {:>5} {:>7} {:>7} {:>7} {:>16}",
        "rank", "engine", "games", "wins", "loss", "draw", "points", "sos", "rating", "95%"
    );
    for s in &table.engines {
        let _ = writeln!(
            stdout,
            "{:<4} {:<20} {:>5} {:>5} {:>5} {:>5} {:>7} {:>7} {:>7.0} {:>16}",
            s.rank,
            if s.withdrawn {
                format!("{} (withdrawn)", s.name)
            } else {
                s.name.clone()
            },
            s.games,
            s.wins,
            s.losses,
            s.draws,
            s.points,
            s.tiebreaks["sos"],
            s.rating,
            format!("[{:.0}, {:.0}]", s.rating_ci95[0], s.rating_ci95[1])
        );
    }
    if !finished.games.is_empty() {
        let _ = writeln!(
            stdout,
            "game ends: {}",
            goref_runner::summary::ends_line(&finished.games)
        );
    }
    if let Some((decision, counts)) = &finished.sprt {
        let _ = writeln!(
            stdout,
            "SPRT: {decision:?} after {} game pairs (pentanomial {:?})",
            counts.pairs(),
            counts.counts
        );
    }
    if let Some(c) = finished.champion {
        let _ = writeln!(stdout, "champion: {}", names[c]);
    }
    let _ = writeln!(
        stdout,
        "results.jsonl, standings.json, report.html and games/ in {}",
        out.display()
    );
    Ok(if finished.interrupted {
        super::signal_exit(finished.signal)
    } else {
        ExitCode::SUCCESS
    })
}

/// The `--config` file's text, for the queue's spec (what a worker rebuilds the tournament
/// from).
fn config_text(args: &Args) -> anyhow::Result<Option<String>> {
    match &args.config {
        Some(p) => Ok(Some(
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?,
        )),
        None => Ok(None),
    }
}

/// The openings `args` (or its `--config` file) names, as files.
fn opening_files(args: &Args) -> anyhow::Result<Vec<(String, String)>> {
    let from_file = match &args.config {
        Some(p) => FileConfig::read(p).map_err(anyhow::Error::msg)?.openings,
        None => None,
    };
    let Some(path) = args.openings.clone().or(from_file) else {
        return Ok(Vec::new());
    };
    let files: Vec<PathBuf> = if path.is_dir() {
        std::fs::read_dir(&path)
            .with_context(|| format!("reading {}", path.display()))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")))
            .collect()
    } else {
        vec![path]
    };
    files
        .into_iter()
        .map(|f| {
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text =
                std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?;
            Ok((name, text))
        })
        .collect()
}
