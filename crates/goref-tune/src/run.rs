//! Running a tune: game pairs between `θ + c·Δ` and `θ − c·Δ` (or each against an
//! opponent) played by goref-runner's [`play_job`], `jobs` games at once, steps applied in
//! order, the state written after every pair.
//!
//! The engines: `engine`'s command with `{NAME}` placeholders, substituted for every game
//! (the engine started afresh for each), or, with `set`, one command whose engines are kept
//! running between games and sent `set` (with `{name}` and `{value}` substituted) for every
//! parameter before each game (goref-runner's `per_game` commands).
//!
//! With more than one job, pair `k + 1` may start before pair `k` ends (a slot freed by one of
//! `k`'s games is not left idle): its points are taken from θ as it is then (fishtest's
//! workers do the same), and its step is applied after `k`'s.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use goref_match::game::start_seat;
use goref_match::goref_gtp::EngineSpec;
use goref_match::{Contestant, GameSettings};
use goref_rules::Color;
use goref_runner::tournament::{check_engines, play_job, Fingerprint, Pool};
use goref_runner::{Entrant, Job, Restart, TournamentConfig};
use goref_tournament::pairing::{Pairing, Round};
use goref_tournament::{Format, GameLine};

use crate::param::Param;
use crate::spsa::{Point, Schedule, Spsa};
use crate::state::{self, Settings, StepRecord, TuneFile};
use crate::{plot, Error, ErrorKind};

/// Everything a tune needs.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    /// The engine: a command with `{NAME}` for each parameter, or (with `set`) a command run
    /// as it is.
    pub engine: EngineSpec,
    /// A GTP command sent for each parameter before every game, `{name}` and `{value}`
    /// substituted (`set_param {name} {value}`).
    pub set: Option<String>,
    /// The opponent of both `θ + c·Δ` and `θ − c·Δ`; `None`: they play each other.
    pub opponent: Option<EngineSpec>,
    /// The parameters.
    pub params: Vec<Param>,
    /// The schedule; its steps are the games over 2.
    pub schedule: Schedule,
    /// Whether `schedule.seed` was asked for; if not, a resumed tune keeps its own.
    pub seed_chosen: bool,
    /// Every game's settings.
    pub settings: GameSettings,
    /// Openings (name, moves): pair `k` plays opening `k` modulo their number, in both games.
    pub openings: Vec<(String, Vec<goref_rules::Move>)>,
    /// Games at once.
    pub jobs: usize,
    /// The folder: `tune.json`, `tune.csv`, `tune.svg`, and `games/` (records and logs).
    pub out: PathBuf,
}

/// What a run of a tune did.
#[derive(Clone, Debug)]
pub struct TuneRun {
    /// The state at the end.
    pub spsa: Spsa,
    /// Every step, resumed ones included.
    pub history: Vec<StepRecord>,
    /// Steps that were already in the folder.
    pub resumed: usize,
    /// Games played by this run (of finished pairs).
    pub played: usize,
    /// Of them, games a side forfeited (could not start or be set up, crashed, hung, played
    /// illegally): counted as lost, as fishtest counts crashes.
    pub forfeits: usize,
    /// Whether `stop` ended it before the last step.
    pub interrupted: bool,
    /// This run's wall time.
    pub wall: Duration,
}

/// The records' folder in the tune's folder.
pub const RECORDS: &str = "games";

/// Entrant ids: `θ + c·Δ`, `θ − c·Δ`, the opponent.
const PLUS: usize = 0;
const MINUS: usize = 1;
const OPPONENT: usize = 2;

impl TuneConfig {
    /// Checks what can be checked before any engine runs: the parameters, the schedule, that
    /// every parameter has a place in the command or a `--set`.
    ///
    /// # Errors
    ///
    /// The first thing wrong.
    pub fn check(&self) -> Result<(), Error> {
        Spsa::new(self.params.clone(), self.schedule.clone())?;
        match (&self.set, &self.engine) {
            (Some(set), _) if !set.contains("{value}") => Err(ErrorKind::Placeholder(format!(
                "--set '{set}' has no {{value}}: write the GTP command with {{name}} and \
                     {{value}} where the parameter's name and value go"
            ))
            .into()),
            (Some(_), _) => Ok(()),
            (None, EngineSpec::Tcp { .. }) => Err(ErrorKind::Placeholder(
                "an engine at a TCP address takes its parameters by --set only".into(),
            )
            .into()),
            (None, engine) => {
                let command = engine.to_string();
                match self
                    .params
                    .iter()
                    .find(|p| !command.contains(&format!("{{{}}}", p.name)))
                {
                    Some(p) => Err(ErrorKind::Placeholder(format!(
                        "--engine '{command}' has no {{{}}}: write it where the value of \
                         parameter {} goes, or send it with --set",
                        p.name, p.name
                    ))
                    .into()),
                    None => Ok(()),
                }
            }
        }
    }

    /// What a resumed tune must agree on.
    #[must_use]
    pub fn settings(&self) -> Settings {
        let base = self.tournament(&self.params.iter().map(|p| p.start).collect::<Vec<_>>());
        // The engines as written (placeholders kept), for the fingerprint.
        let mut fingerprinted = base.clone();
        fingerprinted.entrants[PLUS].player.spec = self.engine.clone();
        fingerprinted.entrants.truncate(1);
        if let Some(o) = base.entrants.get(OPPONENT) {
            fingerprinted.entrants.push(o.clone());
        }
        Settings {
            engine: self.engine.to_string(),
            set: self.set.clone(),
            opponent: self.opponent.as_ref().map(ToString::to_string),
            params: self.params.clone(),
            schedule: self.schedule.clone(),
            games: Fingerprint::of(&fingerprinted),
        }
    }

    /// The engine given `values`: its entrant as `id`, named `name`.
    fn tuned(&self, values: &[f64], id: usize, name: &str) -> Entrant {
        let mut spec = self.engine.clone();
        let mut per_game = Vec::new();
        for (p, &v) in self.params.iter().zip(values) {
            let shown = p.show(v);
            match &self.set {
                None => spec = spec.substitute(&p.name, &shown),
                Some(set) => {
                    per_game.push(set.replace("{name}", &p.name).replace("{value}", &shown))
                }
            }
        }
        Entrant {
            player: Contestant {
                id,
                name: name.into(),
                spec,
            },
            init: Vec::new(),
            per_game,
            restart: if self.set.is_none() || names_game(&self.engine) {
                Restart::Always
            } else {
                Restart::Auto
            },
            time: None,
        }
    }

    /// The tournament one pair's games belong to: θ+ (engine 0), θ− (1) and the opponent (2).
    fn tournament_of(&self, point: &Point) -> TournamentConfig {
        let mut t = self.tournament(&point.plus);
        t.entrants[MINUS] = self.tuned(&point.minus, MINUS, "minus");
        t
    }

    fn tournament(&self, values: &[f64]) -> TournamentConfig {
        let mut entrants = vec![
            self.tuned(values, PLUS, "plus"),
            self.tuned(values, MINUS, "minus"),
        ];
        if let Some(spec) = &self.opponent {
            entrants.push(Entrant {
                player: Contestant {
                    id: OPPONENT,
                    name: "opponent".into(),
                    spec: spec.clone(),
                },
                init: Vec::new(),
                per_game: Vec::new(),
                restart: if names_game(spec) {
                    Restart::Always
                } else {
                    Restart::Auto
                },
                time: None,
            });
        }
        TournamentConfig {
            entrants,
            format: Format::RoundRobin {
                games_per_pair: 2 * self.schedule.steps,
            },
            settings: self.settings.clone(),
            jobs: self.jobs,
            out: self.out.clone(),
            max_failures: usize::MAX,
            openings: self.openings.clone(),
            kind: "tune",
            records: RECORDS.into(),
            sprt: None,
        }
    }

    /// Pair `k`'s two games: numbers `2k + 1` and `2k + 2`, the same opening. Against each
    /// other θ+ has Black in the first, θ− in the second; against an opponent θ+ plays the
    /// first and θ− the second, both with Black in even pairs and White in odd ones.
    fn jobs_of(&self, k: usize) -> [Job; 2] {
        let opening = (!self.openings.is_empty()).then(|| k % self.openings.len());
        let pairings = match self.opponent {
            None => [(PLUS, MINUS), (MINUS, PLUS)],
            Some(_) if k.is_multiple_of(2) => [(PLUS, OPPONENT), (MINUS, OPPONENT)],
            Some(_) => [(OPPONENT, PLUS), (OPPONENT, MINUS)],
        };
        [0, 1].map(|i| Job {
            number: 2 * k + 1 + i,
            pairing: Pairing::new(Round::FIRST, pairings[i].0, pairings[i].1),
            opening,
        })
    }
}

/// Whether `spec` names the game or the colour, so that it is started afresh for each game.
fn names_game(spec: &EngineSpec) -> bool {
    let command = spec.to_string();
    command.contains("{game}") || command.contains("{color}")
}

/// The points `engine` scored in `line`: 1 for a win, ½ for a draw (or no winner), 0 for a
/// loss.
fn points(line: &GameLine, engine: usize) -> f64 {
    match line.winner_id() {
        Some(w) if w == engine => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

/// A pair's result for θ + c·Δ: its points minus θ − c·Δ's.
#[must_use]
pub fn pair_result(lines: [&GameLine; 2], opponent: bool) -> f64 {
    if opponent {
        points(lines[0], PLUS) - points(lines[1], MINUS)
    } else {
        lines
            .iter()
            .map(|l| points(l, PLUS) - points(l, MINUS))
            .sum()
    }
}

/// Checks the engines before the first game: each starts and speaks GTP (at θ now), and, with
/// `--set`, takes the parameters.
async fn check(config: &TuneConfig, values: &[f64]) -> Result<(), Error> {
    let mut t = config.tournament(values);
    t.entrants.remove(MINUS);
    check_engines(&t)
        .await
        .map_err(|e| Error::from(ErrorKind::Engine(e.to_string())))?;
    if config.set.is_some() {
        let entrant = &t.entrants[0];
        let mut seat = start_seat(&entrant.player, 0, Color::Black, &config.settings)
            .await
            .map_err(|e| Error::from(ErrorKind::Engine(e.to_string())))?;
        for command in &entrant.per_game {
            if let Err(e) = seat
                .engine
                .command(command, config.settings.command_timeout)
                .await
            {
                seat.engine.shutdown(config.settings.grace).await;
                return Err(ErrorKind::Engine(format!(
                    "the engine ({}) refuses '{command}': {e}",
                    entrant.player.spec
                ))
                .into());
            }
        }
        seat.engine.shutdown(config.settings.grace).await;
    }
    Ok(())
}

/// One pair on its way: its points, its tournament, and the games landed.
struct Pending {
    point: Point,
    lines: [Option<GameLine>; 2],
}

/// Plays the tune, resuming from `config.out`; `on_step` sees each step as it is applied,
/// `stop` ends it early (the running games are abandoned: their pairs are played again on
/// resume).
///
/// # Errors
///
/// When the folder holds another tune or an unreadable state, an engine fails the check
/// before the first game, a game cannot be made at all, or a file cannot be written.
pub async fn run_tune(
    config: TuneConfig,
    stop: impl std::future::Future<Output = ()>,
    mut on_step: impl FnMut(&StepRecord, &Spsa),
) -> Result<TuneRun, Error> {
    let started = Instant::now();
    let mut config = config;
    config.check()?;
    let out = config.out.clone();
    let io = |doing: &'static str, path: PathBuf| {
        move |source| {
            Error::from(ErrorKind::Io {
                doing,
                path,
                source,
            })
        }
    };
    std::fs::create_dir_all(out.join(RECORDS)).map_err(io("create", out.join(RECORDS)))?;
    let stored = state::read(&out)?;
    if let Some((file, _)) = &stored {
        if !config.seed_chosen {
            config.schedule.seed = file.settings.schedule.seed;
        }
    }
    let settings = config.settings();
    let (mut spsa, mut history) = match stored {
        Some((file, spsa)) => {
            if let Some(what) = settings.difference(&file.settings) {
                return Err(ErrorKind::Mismatch { dir: out, what }.into());
            }
            (spsa, file.history)
        }
        None => {
            let spsa = Spsa::new(config.params.clone(), config.schedule.clone())?;
            TuneFile::of(&spsa, &settings, &[]).write(&out)?;
            (spsa, Vec::new())
        }
    };
    let resumed = spsa.done();
    state::write_csv(&out, spsa.params(), &history)?;
    let steps = spsa.schedule().steps;
    let write_plot = |history: &[StepRecord]| -> Result<(), Error> {
        let svg = plot::svg(&config.params, history, steps)?;
        state::write_atomically(&out.join(state::PLOT_FILE), svg.as_bytes())
    };
    let mut outcome = TuneRun {
        spsa: spsa.clone(),
        history: Vec::new(),
        resumed,
        played: 0,
        forfeits: 0,
        interrupted: false,
        wall: Duration::ZERO,
    };
    if spsa.finished() {
        write_plot(&history)?;
        outcome.history = history;
        outcome.wall = started.elapsed();
        return Ok(outcome);
    }
    check(&config, &spsa.values()).await?;
    let jobs = config.jobs.max(1);
    let pool = Arc::new(Pool::default());
    let mut running = tokio::task::JoinSet::new();
    let mut queue: VecDeque<(Arc<TournamentConfig>, usize, Job)> = VecDeque::new();
    let mut pending: BTreeMap<usize, Pending> = BTreeMap::new();
    let mut next = spsa.done();
    let plot_every = (steps / 50).max(1);
    tokio::pin!(stop);
    loop {
        while running.len() < jobs {
            if queue.is_empty() && next < steps {
                let point = spsa.point(next);
                let tournament = Arc::new(config.tournament_of(&point));
                for (i, job) in config.jobs_of(next).into_iter().enumerate() {
                    queue.push_back((tournament.clone(), i, job));
                }
                pending.insert(
                    next,
                    Pending {
                        point,
                        lines: [None, None],
                    },
                );
                next += 1;
            }
            let Some((tournament, i, job)) = queue.pop_front() else {
                break;
            };
            let pool = pool.clone();
            let step = (job.number - 1) / 2;
            running.spawn(async move { (step, i, play_job(&tournament, &pool, job).await) });
        }
        let joined = tokio::select! {
            joined = running.join_next() => joined,
            () = &mut stop => {
                outcome.interrupted = true;
                break;
            }
        };
        let Some(joined) = joined else {
            break;
        };
        let (step, i, line) = joined.map_err(|e| ErrorKind::Game(e.to_string()))?;
        let line = line.map_err(|e| ErrorKind::Game(e.to_string()))?;
        if let Some(p) = pending.get_mut(&step) {
            p.lines[i] = Some(line);
        }
        // The steps whose pairs are whole, in order.
        while let Some(p) = pending.get(&spsa.done()) {
            let [Some(a), Some(b)] = &p.lines else {
                break;
            };
            let k = spsa.done();
            let r = pair_result([a, b], config.opponent.is_some());
            outcome.played += 2;
            outcome.forfeits += [a, b].iter().filter(|l| l.end.is_forfeit()).count();
            spsa.update(k, r)?;
            let record = StepRecord {
                step: k + 1,
                result: r,
                plus: p.point.plus.clone(),
                minus: p.point.minus.clone(),
                theta: spsa.theta().to_vec(),
            };
            history.push(record.clone());
            // The state first: a kill between the two leaves a CSV one line short, which
            // the next start rewrites from the state.
            TuneFile::of(&spsa, &settings, &history).write(&out)?;
            state::append_csv(&out, &record)?;
            if spsa.done() % plot_every == 0 {
                write_plot(&history)?;
            }
            on_step(&record, &spsa);
            pending.remove(&k);
        }
    }
    running.abort_all();
    while running.join_next().await.is_some() {}
    pool.close(config.settings.grace).await;
    write_plot(&history)?;
    outcome.spsa = spsa;
    outcome.history = history;
    outcome.wall = started.elapsed();
    Ok(outcome)
}
