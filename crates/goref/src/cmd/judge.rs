//! `goref judge`: the Computer Olympiad's default removal (reference 001 §3.9) on a finished
//! game. With the two programs' dead lists (`--dead-black-list`, `--dead-white-list`, or
//! `--dead-lists FILE` in JSON) a block both list is agreed and removed, a block one lists is
//! disputed and judged (3.9.2); without lists every block is treated as disputed.
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
    #[arg(long, allow_hyphen_values = true, value_parser = super::parse_komi)]
    komi: Option<Komi>,
    /// Nodes each search may visit before its block is judged undecided (default: 20,000
    /// for the local region and for "at most one eye", 300,000 for "locally capturable")
    #[arg(long)]
    budget: Option<u64>,
    /// Print one JSON object instead of the text report.
    #[arg(long)]
    json: bool,
    /// The stones the Black program lists as dead (3.7.2), e.g. "A1,B2 C3"; a block is listed
    /// when any of its stones is. With lists, only blocks in exactly one list are disputed.
    #[arg(long, value_name = "POINTS", allow_hyphen_values = true)]
    dead_black_list: Option<String>,
    /// The stones the White program lists as dead (3.7.2).
    #[arg(long, value_name = "POINTS", allow_hyphen_values = true)]
    dead_white_list: Option<String>,
    /// A JSON file with both lists: {"black": ["A1", ...], "white": [...]} (what each program
    /// considers dead); `-` is not accepted here (the game may come from standard input).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["dead_black_list", "dead_white_list"])]
    dead_lists: Option<PathBuf>,
}

/// The dead lists of a `--dead-lists` file.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DeadLists {
    #[serde(default)]
    black: Vec<String>,
    #[serde(default)]
    white: Vec<String>,
}

/// Reads one list of point names (separated by commas or white space).
fn parse_points(geometry: &Geometry, names: &[&str], which: &str) -> anyhow::Result<Vec<Point>> {
    names
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .map(|n| {
            geometry
                .parse_point(n)
                .with_context(|| format!("{which} dead list: '{n}' is not a point of the board"))
        })
        .collect()
}

/// The two dead lists, if any were given: Black's, White's.
fn dead_lists(
    args: &Args,
    geometry: &Geometry,
) -> anyhow::Result<Option<(Vec<Point>, Vec<Point>)>> {
    if let Some(path) = &args.dead_lists {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let lists: DeadLists = serde_json::from_str(&text).with_context(|| {
            format!(
                "{}: expected {{\"black\": [...], \"white\": [...]}}",
                path.display()
            )
        })?;
        let black: Vec<&str> = lists.black.iter().map(String::as_str).collect();
        let white: Vec<&str> = lists.white.iter().map(String::as_str).collect();
        return Ok(Some((
            parse_points(geometry, &black, "Black's")?,
            parse_points(geometry, &white, "White's")?,
        )));
    }
    if args.dead_black_list.is_none() && args.dead_white_list.is_none() {
        return Ok(None);
    }
    let split = |s: &Option<String>| -> Vec<String> {
        s.as_deref()
            .unwrap_or("")
            .split(|c: char| c == ',' || c.is_whitespace())
            .map(str::to_string)
            .collect()
    };
    let (black, white) = (split(&args.dead_black_list), split(&args.dead_white_list));
    let black: Vec<&str> = black.iter().map(String::as_str).collect();
    let white: Vec<&str> = white.iter().map(String::as_str).collect();
    Ok(Some((
        parse_points(geometry, &black, "Black's")?,
        parse_points(geometry, &white, "White's")?,
    )))
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
    /// `all` (every block disputed) or `lists` (the programs' dead lists decide).
    disputes: &'static str,
    /// The disputed blocks and their verdicts.
    blocks: Vec<BlockReport>,
    /// The blocks both programs listed (removed without judgement), each by its stones.
    agreed: Vec<Vec<String>>,
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
    /// Search nodes the verdict took.
    nodes: u64,
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
    let geometry = game.geometry();
    let lists = match dead_lists(args, geometry) {
        Ok(lists) => lists,
        Err(e) => {
            eprintln!("goref: {e:#}");
            return Ok(ExitCode::from(2));
        }
    };
    let disputes = match &lists {
        Some((black, white)) => Disputes::Lists { black, white },
        None => Disputes::All,
    };
    let started = Instant::now();
    let judge = Judge::of_game(&game, budget);
    let removal = default_removal(&judge, disputes);
    let seconds = started.elapsed().as_secs_f64();
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
                nodes: v.nodes,
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
        disputes: if lists.is_some() { "lists" } else { "all" },
        blocks,
        agreed: removal
            .agreed
            .iter()
            .map(|&p| {
                let mut stones = game.board().string(p);
                stones.sort_unstable();
                names(&stones)
            })
            .collect(),
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
    let agreed: Vec<Point> = removal
        .agreed
        .iter()
        .flat_map(|&p| game.board().string(p))
        .collect();
    print!(
        "{}",
        drawing(geometry, game.board(), &removal.disputed, &agreed)
    );
    if lists.is_some() {
        println!(
            "{} disputed, {} agreed (removed), {} removed",
            report.blocks.len(),
            report.agreed.len(),
            goref_runner::count(report.removed.len(), "stone")
        );
        println!("X O pass-alive or not disputed   x o alive by default   b w dead by 3.9 or agreed (removed)   ? undecided");
        for a in &report.agreed {
            let more = if a.len() > 1 {
                format!(" +{}", a.len() - 1)
            } else {
                String::new()
            };
            println!("{}{more}: agreed (in both lists), removed", a[0]);
        }
    } else {
        println!("X O pass-alive   x o alive by default   b w dead by 3.9 (removed)   ? undecided");
    }
    for b in &report.blocks {
        if b.verdict == "pass-alive" && lists.is_none() {
            continue;
        }
        let first = &b.stones[0];
        let more = if b.stones.len() > 1 {
            format!(" +{}", b.stones.len() - 1)
        } else {
            String::new()
        };
        let disputed = if lists.is_some() { "disputed, " } else { "" };
        print!("{} {first}{more}: {disputed}{}", b.color, b.verdict);
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

/// The position with column letters and row numbers, each stone drawn by its verdict (a stone
/// not judged as `X` or `O`, an agreed one as `b` or `w`).
fn drawing(
    geometry: &Geometry,
    board: &goref_rules::Board,
    verdicts: &[goref_judge::BlockVerdict],
    agreed: &[Point],
) -> String {
    let mut symbol: Vec<char> = board
        .colors()
        .iter()
        .map(|c| match c {
            Some(Color::Black) => 'X',
            Some(Color::White) => 'O',
            None => '.',
        })
        .collect();
    for &p in agreed {
        symbol[p.index()] = if board.get(p) == Some(Color::Black) {
            'b'
        } else {
            'w'
        };
    }
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: super::Args,
    }

    /// The `--budget` help states the library's default budget.
    #[test]
    fn budget_help_states_the_default() {
        let budget = goref_judge::Budget::default();
        let help = Cli::command().render_long_help().to_string();
        let with_commas = |n: u64| {
            let digits = n.to_string();
            let mut out = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i).is_multiple_of(3) {
                    out.push(',');
                }
                out.push(c);
            }
            out
        };
        assert_eq!(budget.region_nodes, budget.eye_nodes);
        assert!(help.contains(&format!(
            "{} for the local region",
            with_commas(budget.region_nodes)
        )));
        assert!(help.contains(&format!(
            "{} for \"locally capturable\"",
            with_commas(budget.capture_nodes)
        )));
    }
}
