//! `goref regress`: runs regression suites (gogui-regress's `.tst` format, as GNU Go's
//! `regression/` folder has them) against a GTP engine. The work is `goref_regress`'s; this
//! reads the flags and prints.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use goref_gtp::EngineSpec;
use goref_regress::report::{self, Comparison, RunJson, Totals};
use goref_regress::Options;

/// Arguments of `goref regress`.
#[derive(clap::Args)]
#[command(after_help = "\
A suite is a file of GTP commands, one a line. `ID COMMAND` (ID a number) is a test; the \
line after it, `#? [REGEX]`, is what the whole answer must match (`[!REGEX]`: must not match; \
a trailing `*`: the test is expected to fail). Other commands just run; `#` starts a comment. \
`loadsgf FILE` names FILE relative to the suite's folder (goref sends it absolute).

Verdicts, as gogui-regress writes them: pass (expected pass), FAIL (unexpected failure), fail \
(expected failure), PASS (unexpected pass); skipped (not run after the engine crashed).

Exit status: 0 when no test failed unexpectedly, 1 when one did or an engine crashed, 2 when \
the run could not be done (a file that cannot be read or is not a suite, an engine that would \
not start). The book's chapter `goref regress` has examples.")]
pub struct Args {
    /// Suites: `FILE.tst`, or `@LIST`, a file naming suites one a line (relative to the list's
    /// folder; `@OTHER` lines name lists; `#` lines and blank lines are skipped).
    #[arg(required = true, value_name = "FILE.tst | @LIST")]
    suites: Vec<String>,
    /// The engine: a command line (`"/usr/games/gnugo --mode gtp"`, quoted as a shell reads
    /// it) or `tcp://host:port`. A fresh one for each suite.
    #[arg(long, default_value = "gnugo --mode gtp", value_name = "CMD")]
    engine: String,
    /// Suites run at once, each with its own engine.
    #[arg(long, short = 'j', default_value_t = 1, value_name = "N")]
    jobs: usize,
    /// Print the results as JSON on standard output (`{"tests": [...], "suites": [...],
    /// "totals": {...}}`) instead of the table.
    #[arg(long)]
    json: bool,
    /// Write an HTML report (`index.html`: the table, crashes, each failing test with its
    /// position drawn) and `results.json` into this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Compare with an earlier run's JSON (`--json` output or `results.json`): which tests
    /// newly fail and which newly pass.
    #[arg(long, value_name = "OLD.json")]
    compare: Option<PathBuf>,
    /// The longest the engine may take over one command; then it is stopped, and the suite
    /// ends as for a crash (`30s`, `10m`).
    #[arg(long, default_value = "10m", value_parser = goref_match::clock::parse_duration)]
    timeout: Duration,
}

/// Runs `goref regress`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if args.jobs == 0 {
        anyhow::bail!("--jobs must be at least 1");
    }
    let engine = EngineSpec::parse(&args.engine)
        .map_err(anyhow::Error::msg)
        .context("--engine")?;
    let files = goref_regress::load(&args.suites)?;
    for file in &files {
        for w in &file.suite.warnings {
            eprintln!("goref: {}:{}: warning: {w}", file.path.display(), w.line);
        }
    }
    let before = match &args.compare {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--compare {}", path.display()))?;
            let old: RunJson = serde_json::from_str(&text).with_context(|| {
                format!(
                    "--compare {}: not the JSON of a goref regress run",
                    path.display()
                )
            })?;
            Some(old)
        }
        None => None,
    };
    let options = Options {
        engine,
        jobs: args.jobs,
        timeout: args.timeout,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.jobs.clamp(1, 8))
        .enable_all()
        .build()?;
    // Progress on a terminal: a line a suite as it ends (a run of GNU Go's whole folder
    // takes minutes).
    let progress = std::io::stderr().is_terminal();
    let count = files.len();
    let ended = std::sync::atomic::AtomicUsize::new(0);
    let run = goref_regress::run_with_progress(&files, &options, |_, suite| {
        let n = ended.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if progress {
            let t = Totals::of(suite);
            eprintln!(
                "[{n}/{count}] {}: {} tests, {} FAIL, {} PASS{} ({:.1}s)",
                suite.file,
                t.tests,
                t.unexpected_failures,
                t.unexpected_passes,
                if suite.crash.is_some() {
                    ", crashed"
                } else {
                    ""
                },
                suite.seconds
            );
        }
    });
    // Ctrl-C, SIGTERM, SIGHUP: the engines are killed (with the runtime's tasks) and goref
    // ends with the signal's status.
    let results = match rt.block_on(async {
        tokio::select! {
            results = run => Ok(results),
            signal = super::stopped() => Err(signal),
        }
    }) {
        Ok(results) => results,
        Err(signal) => {
            drop(rt);
            eprintln!("goref: regress stopped by a signal; its engines were stopped");
            return Ok(super::signal_exit(Some(signal)));
        }
    };
    let now: Vec<_> = results.iter().flat_map(|s| s.tests.clone()).collect();
    let comparison = before.map(|old| Comparison::between(&old.tests, &now));
    let json = RunJson::of(&results, comparison.clone());
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--out {}: cannot create the folder", dir.display()))?;
        let index = dir.join("index.html");
        std::fs::write(
            &index,
            report::html(&results, &args.engine, comparison.as_ref()),
        )
        .with_context(|| format!("cannot write {}", index.display()))?;
        let path = dir.join("results.json");
        std::fs::write(&path, serde_json::to_string_pretty(&json)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        outln!("{}", serde_json::to_string(&json)?);
    } else {
        outln!("{}", report::text(&results).trim_end());
        if let Some(c) = &comparison {
            outln!("{}", c.text().trim_end());
        }
        if let Some(dir) = &args.out {
            outln!("report: {}", dir.join("index.html").display());
        }
    }
    Ok(ExitCode::from(Totals::sum(&results).exit_code()))
}
