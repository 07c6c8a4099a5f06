//! `goref judge`: the Computer Olympiad's default removal (reference 001 §3.9) on a finished
//! game, every block treated as disputed.
//!
//! The first line of standard output is the result after removal, in SGF `RE` form. Then the
//! final position, each stone drawn by its block's verdict, and one line a block that is not
//! pass-alive, with the reason (the removing line for dead blocks, the plays that make a block
//! pass-alive, or why a search was undecided).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use goref_judge::{default_removal, Budget, Disputes, Judge, Keep, Verdict};
use goref_rules::{Color, Geometry, Komi, Move, Point, Preset, Ruleset};
use serde::Serialize;

/// Arguments of `goref judge`.
#[derive(clap::Args)]
pub struct Args {
    /// The SGF file of the finished game, `-` for standard input.
    file: PathBuf,
    /// Rules preset (default: the file's RU when recognised, else tromp-taylor, as for
    /// `goref score`).
    #[arg(long, value_parser = super::parse_preset)]
    rules: Option<Preset>,
    /// Komi (default: the file's KM, else 0).
    #[arg(long, allow_hyphen_values = true)]
    komi: Option<Komi>,
    /// Nodes each search may visit before its block is judged undecided.
    #[arg(long)]
    budget: Option<u64>,
    /// Print one JSON object instead of the text report.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report {
    result: String,
    black: u32,
    white: u32,
    komi: f64,
    margin: f64,
    rules: String,
    removed: Vec<String>,
    blocks: Vec<BlockReport>,
    seconds: f64,
}

#[derive(Serialize)]
struct BlockReport {
    color: char,
    stones: Vec<String>,
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<Vec<String>>,
    region_points: usize,
}

/// Runs `goref judge`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let (name, text) = if args.file.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
        ("<stdin>".to_string(), bytes)
    } else {
        let bytes = std::fs::read(&args.file)
            .with_context(|| format!("reading {}", args.file.display()))?;
        (args.file.display().to_string(), bytes)
    };
    let text = String::from_utf8_lossy(&text);
    let record = goref_sgf::parse(&text).with_context(|| name.clone())?;
    let preset = super::score::default_preset(args.rules, &record);
    let komi = args.komi.or(record.komi).unwrap_or(Komi::ZERO);
    let rules = Ruleset::preset(preset).with_komi(komi);
    let game = match record.replay(rules) {
        Ok(game) => game,
        Err(e) => {
            eprintln!("goref: {name}: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut budget = Budget::default();
    if let Some(n) = args.budget {
        budget = Budget {
            region_nodes: n,
            eye_nodes: n,
            capture_nodes: n,
        };
    }
    let started = Instant::now();
    let judge = Judge::of_game(&game, budget);
    let removal = default_removal(&judge, Disputes::All);
    let seconds = started.elapsed().as_secs_f64();
    let geometry = game.geometry();
    let names =
        |points: &[Point]| -> Vec<String> { points.iter().map(|&p| geometry.name(p)).collect() };
    let blocks: Vec<BlockReport> = removal
        .disputed
        .iter()
        .map(|v| {
            let (reason, line) = match &v.verdict {
                Verdict::PassAlive => (None, None),
                Verdict::DeadBy39 { line } => (
                    Some("at most one eye and locally capturable".to_string()),
                    Some(
                        line.iter()
                            .map(|&(c, mv)| move_name(geometry, c, mv))
                            .collect(),
                    ),
                ),
                Verdict::AliveByDefault(Keep::CanBecomePassAlive { plays }) => (
                    Some(format!(
                        "can become pass-alive moving alone ({} plays)",
                        plays.len()
                    )),
                    Some(
                        plays
                            .iter()
                            .map(|&p| move_name(geometry, v.block.color, Move::Play(p)))
                            .collect(),
                    ),
                ),
                Verdict::AliveByDefault(Keep::NotLocallyCapturable) => {
                    (Some("not locally capturable".to_string()), None)
                }
                Verdict::Undecided { reason } => (Some(reason.clone()), None),
            };
            BlockReport {
                color: v.block.color.letter(),
                stones: names(&v.block.stones),
                verdict: v.verdict.name(),
                reason,
                line,
                region_points: v.region_points,
            }
        })
        .collect();
    let outcome = removal.score.outcome();
    let report = Report {
        result: outcome.to_sgf(),
        black: removal.score.black,
        white: removal.score.white,
        komi: komi.as_f64(),
        margin: f64::from(removal.score.margin_half_points()) / 2.0,
        rules: preset.name().to_string(),
        removed: names(&removal.removed),
        blocks,
        seconds,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}", report.result);
    println!(
        "black {} white {} komi {} ({}, {} stones removed, judged in {:.3} s)",
        report.black,
        report.white,
        komi,
        preset,
        report.removed.len(),
        seconds
    );
    print!("{}", drawing(geometry, &removal.disputed));
    println!("X O pass-alive   x o alive by default   b w dead by 3.9 (removed)   ? undecided");
    for b in &report.blocks {
        if b.verdict == "pass-alive" {
            continue;
        }
        let first = &b.stones[0];
        let more = if b.stones.len() > 1 {
            format!(" +{}", b.stones.len() - 1)
        } else {
            String::new()
        };
        print!("{} {first}{more}: {}", b.color, b.verdict);
        if let Some(reason) = &b.reason {
            print!(" ({reason})");
        }
        if let Some(line) = &b.line {
            let shown: Vec<&str> = line.iter().take(12).map(String::as_str).collect();
            let etc = if line.len() > 12 { " ..." } else { "" };
            print!(": {}{etc}", shown.join(" "));
        }
        println!();
    }
    Ok(ExitCode::SUCCESS)
}

fn move_name(geometry: &Geometry, color: Color, mv: Move) -> String {
    match mv {
        Move::Pass => format!("{}:pass", color.letter()),
        Move::Play(p) => format!("{}:{}", color.letter(), geometry.name(p)),
    }
}

/// The position with column letters and row numbers, each stone drawn by its verdict.
fn drawing(geometry: &Geometry, verdicts: &[goref_judge::BlockVerdict]) -> String {
    let mut symbol = vec!['.'; geometry.len()];
    for v in verdicts {
        let black = v.block.color == Color::Black;
        let c = match (&v.verdict, black) {
            (Verdict::PassAlive, true) => 'X',
            (Verdict::PassAlive, false) => 'O',
            (Verdict::AliveByDefault(_), true) => 'x',
            (Verdict::AliveByDefault(_), false) => 'o',
            (Verdict::DeadBy39 { .. }, true) => 'b',
            (Verdict::DeadBy39 { .. }, false) => 'w',
            (Verdict::Undecided { .. }, _) => '?',
        };
        for p in &v.block.stones {
            symbol[p.index()] = c;
        }
    }
    let Some((width, height)) = geometry.size() else {
        let mut s: String = symbol.iter().collect();
        s.push('\n');
        return s;
    };
    let letters: String = (0..width)
        .map(|x| {
            let name = geometry.name(geometry.at(x, 0).expect("on board"));
            format!(" {}", name.chars().next().unwrap_or(' '))
        })
        .collect();
    let mut s = format!("   {letters}\n");
    for y in 0..height {
        s.push_str(&format!("{:>3}", height - y));
        for x in 0..width {
            s.push(' ');
            s.push(symbol[y * width + x]);
        }
        s.push('\n');
    }
    s
}
