//! A tune's files in its folder: `tune.json`, the whole state, rewritten (a temporary file
//! renamed over it) after every finished pair; `tune.csv`, `θ` after each step, derived from
//! `tune.json` (rewritten from it when a tune starts, then a line appended a step). A tune
//! killed at any moment resumes from `tune.json`: the pair it was playing is played again,
//! and no step is written twice.
//!
//! `tune.json` is read as outside text: [`TuneFile::parse`] checks that it is whole and
//! consistent (never a panic). Its numbers read back exactly as written (serde_json's
//! `float_roundtrip`), so a resumed tune goes on from the very θ it stopped at.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::param::Param;
use crate::spsa::{Schedule, Spsa};
use crate::{Error, ErrorKind};

/// The state file's name.
pub const STATE_FILE: &str = "tune.json";
/// The trajectory's name.
pub const CSV_FILE: &str = "tune.csv";
/// The plot's name.
pub const PLOT_FILE: &str = "tune.svg";

/// What a resumed tune must agree on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The engine's command, `{NAME}` placeholders as written.
    pub engine: String,
    /// The `--set` template, when the parameters are sent over GTP.
    pub set: Option<String>,
    /// The opponent's command, when θ± play one instead of each other.
    pub opponent: Option<String>,
    /// The parameters as given.
    pub params: Vec<Param>,
    /// The schedule (steps, constants, seed).
    pub schedule: Schedule,
    /// Every game's settings as a tournament's directory keeps them (board, rules, clock,
    /// end, openings, the rest).
    pub games: goref_runner::tournament::Fingerprint,
}

impl Settings {
    /// What differs from `stored` (the folder's), in words, or `None`.
    #[must_use]
    pub fn difference(&self, stored: &Settings) -> Option<String> {
        let field = |name: &str, here: String, there: String| {
            (here != there).then(|| format!("{name}: '{here}' here, '{there}' in the directory"))
        };
        let opt = |s: &Option<String>| s.clone().unwrap_or_else(|| "none".into());
        let params = |s: &Settings| {
            s.params
                .iter()
                .map(|p| serde_json::to_string(p).unwrap_or_default())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let schedule = |s: &Settings| serde_json::to_string(&s.schedule).unwrap_or_default();
        field("engine", self.engine.clone(), stored.engine.clone())
            .or_else(|| field("--set", opt(&self.set), opt(&stored.set)))
            .or_else(|| field("opponent", opt(&self.opponent), opt(&stored.opponent)))
            .or_else(|| {
                let names = |s: &Settings| {
                    s.params
                        .iter()
                        .map(|p| p.name.clone())
                        .collect::<Vec<_>>()
                        .join(",")
                };
                field("parameters", names(self), names(stored))
            })
            .or_else(|| field("parameters' values", params(self), params(stored)))
            .or_else(|| {
                field(
                    "games",
                    self.schedule.steps.saturating_mul(2).to_string(),
                    stored.schedule.steps.saturating_mul(2).to_string(),
                )
            })
            .or_else(|| field("schedule", schedule(self), schedule(stored)))
            .or_else(|| self.games.difference(&stored.games))
    }
}

/// One finished step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step, from 1.
    pub step: usize,
    /// Its result for θ + c·Δ (points minus θ − c·Δ's).
    pub result: f64,
    /// What θ + c·Δ's engine was given.
    pub plus: Vec<f64>,
    /// What θ − c·Δ's engine was given.
    pub minus: Vec<f64>,
    /// θ after it.
    pub theta: Vec<f64>,
}

/// `tune.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneFile {
    /// The answer so far: each parameter as the engine is given it.
    pub params: BTreeMap<String, serde_json::Value>,
    /// Games played.
    pub games: usize,
    /// Steps done (game pairs).
    pub steps: usize,
    /// θ exactly.
    pub theta: Vec<f64>,
    /// What a resumed tune must agree on.
    pub settings: Settings,
    /// Every step.
    pub history: Vec<StepRecord>,
}

impl TuneFile {
    /// The file of a tune in state `spsa`.
    #[must_use]
    pub fn of(spsa: &Spsa, settings: &Settings, history: &[StepRecord]) -> TuneFile {
        let params = spsa
            .params()
            .iter()
            .zip(spsa.values())
            .map(|(p, v)| (p.name.clone(), number(p, v)))
            .collect();
        TuneFile {
            params,
            games: 2 * spsa.done(),
            steps: spsa.done(),
            theta: spsa.theta().to_vec(),
            settings: settings.clone(),
            history: history.to_vec(),
        }
    }

    /// Reads `tune.json`'s text, checking it is whole and consistent: its state can resume.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::State`] saying what is wrong (its path the bare file name).
    pub fn parse(text: &str) -> Result<(TuneFile, Spsa), Error> {
        TuneFile::check(text).map_err(|why| {
            ErrorKind::State {
                path: PathBuf::from(STATE_FILE),
                why,
            }
            .into()
        })
    }

    fn check(text: &str) -> Result<(TuneFile, Spsa), String> {
        let file: TuneFile =
            serde_json::from_str(text).map_err(|e| format!("not a tune's state: {e}"))?;
        let s = &file.settings;
        let spsa = Spsa::resume(
            s.params.clone(),
            s.schedule.clone(),
            file.theta.clone(),
            file.steps,
        )
        .map_err(|e| e.to_string())?;
        if file.history.len() != file.steps || Some(file.games) != file.steps.checked_mul(2) {
            return Err(format!(
                "{} steps, {} games and {} steps in the history do not agree",
                file.steps,
                file.games,
                file.history.len()
            ));
        }
        let n = s.params.len();
        for (i, h) in file.history.iter().enumerate() {
            let finite = |v: &[f64]| v.len() == n && v.iter().all(|x| x.is_finite());
            if h.step != i + 1
                || !h.result.is_finite()
                || !finite(&h.plus)
                || !finite(&h.minus)
                || !finite(&h.theta)
            {
                return Err(format!("step {} of the history is not whole", i + 1));
            }
        }
        if file.history.last().is_some_and(|h| h.theta != file.theta) {
            return Err("θ is not the history's last".into());
        }
        Ok((file, spsa))
    }

    /// Writes it into `dir` atomically: a temporary file, synced, renamed over `tune.json`.
    ///
    /// # Errors
    ///
    /// When the file cannot be written.
    pub fn write(&self, dir: &Path) -> Result<(), Error> {
        let text = serde_json::to_string_pretty(self).map_err(|e| {
            Error::from(ErrorKind::State {
                path: dir.join(STATE_FILE),
                why: e.to_string(),
            })
        })? + "\n";
        write_atomically(&dir.join(STATE_FILE), text.as_bytes())
    }
}

/// A parameter's value in JSON: a whole number for an integer parameter.
fn number(p: &Param, v: f64) -> serde_json::Value {
    #[allow(clippy::cast_possible_truncation)]
    if p.integer && v.abs() < 9e15 {
        serde_json::Value::from(v as i64)
    } else {
        serde_json::Value::from(v)
    }
}

/// Writes `path` so that a reader (or a resumed tune after a kill) sees the old file or the
/// new one, never a part: a temporary file beside it, synced, then renamed over it.
///
/// # Errors
///
/// When it cannot be written.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let io = |doing: &'static str, p: &Path| {
        let path = p.to_path_buf();
        move |source| {
            Error::from(ErrorKind::Io {
                doing,
                path,
                source,
            })
        }
    };
    let mut f = std::fs::File::create(&tmp).map_err(io("create", &tmp))?;
    f.write_all(bytes).map_err(io("write", &tmp))?;
    f.sync_all().map_err(io("write", &tmp))?;
    std::fs::rename(&tmp, path).map_err(io("write", path))
}

/// `tune.csv`'s header: `step,games,result,` then each parameter's name.
#[must_use]
pub fn csv_header(params: &[Param]) -> String {
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    format!("step,games,result,{}\n", names.join(","))
}

/// `tune.csv`'s line of a step: θ after it (exact, shortest form).
#[must_use]
pub fn csv_line(record: &StepRecord) -> String {
    let theta: Vec<String> = record.theta.iter().map(|v| format!("{v}")).collect();
    format!(
        "{},{},{},{}\n",
        record.step,
        2 * record.step,
        record.result,
        theta.join(",")
    )
}

/// Rewrites `tune.csv` in `dir` from the history (atomically).
///
/// # Errors
///
/// When it cannot be written.
pub fn write_csv(dir: &Path, params: &[Param], history: &[StepRecord]) -> Result<(), Error> {
    let mut text = csv_header(params);
    for h in history {
        text.push_str(&csv_line(h));
    }
    write_atomically(&dir.join(CSV_FILE), text.as_bytes())
}

/// Appends a step's line to `tune.csv` in `dir`.
///
/// # Errors
///
/// When it cannot be written.
pub fn append_csv(dir: &Path, record: &StepRecord) -> Result<(), Error> {
    let path = dir.join(CSV_FILE);
    let io = |doing: &'static str| {
        let path = path.clone();
        move |source| {
            Error::from(ErrorKind::Io {
                doing,
                path,
                source,
            })
        }
    };
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .map_err(io("open"))?;
    f.write_all(csv_line(record).as_bytes())
        .map_err(io("write"))
}

/// The state in `dir`, if there is one.
///
/// # Errors
///
/// [`ErrorKind::State`] when `tune.json` cannot be read or is not a tune's whole state.
pub fn read(dir: &Path) -> Result<Option<(TuneFile, Spsa)>, Error> {
    let path = dir.join(STATE_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(ErrorKind::State {
                path,
                why: e.to_string(),
            }
            .into())
        }
    };
    TuneFile::check(&text)
        .map(Some)
        .map_err(|why| ErrorKind::State { path, why }.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use goref_match::GameSettings;

    fn settings(spsa: &Spsa) -> Settings {
        let config = crate::TuneConfig {
            engine: goref_match::goref_gtp::EngineSpec::parse("engine --x {x}").unwrap(),
            set: None,
            opponent: None,
            params: spsa.params().to_vec(),
            schedule: spsa.schedule().clone(),
            seed_chosen: true,
            settings: GameSettings::new(5, 5),
            openings: Vec::new(),
            jobs: 1,
            out: PathBuf::from("unused"),
        };
        config.settings()
    }

    #[test]
    fn a_state_writes_out_and_reads_back_and_a_damaged_one_is_refused() {
        let x: Param = "x=10,0:100".parse().unwrap();
        let mut spsa = Spsa::new(vec![x], Schedule::new(4, 9)).unwrap();
        let mut history = Vec::new();
        for k in 0..2 {
            let p = spsa.point(k);
            spsa.update(k, 1.0).unwrap();
            history.push(StepRecord {
                step: k + 1,
                result: 1.0,
                plus: p.plus,
                minus: p.minus,
                theta: spsa.theta().to_vec(),
            });
        }
        let s = settings(&spsa);
        let file = TuneFile::of(&spsa, &s, &history);
        let text = serde_json::to_string_pretty(&file).unwrap();
        let (back, resumed) = TuneFile::parse(&text).unwrap();
        assert_eq!(back, file);
        assert_eq!(resumed, spsa);
        assert_eq!(back.params["x"], serde_json::json!(spsa.values()[0] as i64));
        assert_eq!(csv_header(spsa.params()), "step,games,result,x\n");
        assert!(csv_line(&history[1]).starts_with("2,4,1,"));
        // A step missing, games that disagree, θ outside its range: refused, saying so.
        let mut short = file.clone();
        short.history.pop();
        let e = TuneFile::parse(&serde_json::to_string(&short).unwrap()).unwrap_err();
        assert!(e.to_string().contains("do not agree"), "{e}");
        let mut out = file.clone();
        out.theta = vec![500.0];
        assert!(TuneFile::parse(&serde_json::to_string(&out).unwrap()).is_err());
        for text in ["", "{}", "[1]", "{\"params\": 3}", &text[..text.len() / 2]] {
            let e = TuneFile::parse(text).unwrap_err();
            assert!(e.to_string().starts_with("tune.json: "), "{e}");
        }
        // The same settings agree; others say what differs.
        assert_eq!(s.difference(&s), None);
        let mut other = s.clone();
        other.schedule.seed = 10;
        assert!(s.difference(&other).unwrap().starts_with("schedule: "));
    }
}
