//! `report.html`: one self-contained page (no network, no external styles, scripts or fonts)
//! that shows a tournament to people: the standings with tie-breaks and ratings, the
//! crosstable, the ratings as games were added, the time each engine took per move, how the
//! games ended and the forfeits, and every game with a link to its record.
//!
//! The plots are SVG drawn by `plotters`' SVG backend, which lays text out without fonts.

use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use plotters::prelude::*;

use goref_match::Ending;
use goref_tournament::standings::{standings, Standing, Standings};
use goref_tournament::GameLine;

use crate::summary::{end_detail, settlement_kind};

/// The report's file name in the output directory.
pub const REPORT_FILE: &str = "report.html";

/// At most this many points on the rating history: the standings of that many prefixes of
/// the games.
const HISTORY_POINTS: usize = 40;

/// The size of the plots' text (`plotters` draws it at this over 1.24 pixels).
const LABEL_SIZE: f64 = 17.0;

/// The width of the plots, in pixels.
const PLOT_WIDTH: u32 = 760;

/// What a run was, shown at the top of the report: every setting that makes its games, the
/// engines as they were run and as they named themselves, goref's version and the run's times.
#[derive(Clone, Debug, Default)]
pub struct RunSettings {
    /// Board, komi, rules, clock, end protocol, openings, … as (name, value), in order.
    pub settings: Vec<(String, String)>,
    /// Each engine in seeding order.
    pub engines: Vec<EngineRow>,
    /// goref's version.
    pub goref_version: String,
    /// When the run started and ended (as people read dates).
    pub started: String,
    /// When the run ended.
    pub ended: String,
}

/// One engine of [`RunSettings`].
#[derive(Clone, Debug, Default)]
pub struct EngineRow {
    /// Its name in the tournament.
    pub name: String,
    /// The command that runs it.
    pub command: String,
    /// What it answered to GTP `name` and `version` (empty when it was not asked).
    pub gtp_name: String,
    /// Its GTP `version`.
    pub gtp_version: String,
}

fn settings_section(page: &mut String, run: &RunSettings) {
    page.push_str("<h2 id=\"settings\">Settings</h2>\n<table class=\"settings\">\n");
    for (k, v) in &run.settings {
        let _ = writeln!(page, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    }
    for (k, v) in [
        ("goref", &run.goref_version),
        ("started", &run.started),
        ("ended", &run.ended),
    ] {
        let _ = writeln!(page, "<tr><th>{k}</th><td>{}</td></tr>", esc(v));
    }
    page.push_str(
        "</table>\n<table class=\"engines\">\n<tr><th>Engine</th><th>Command</th>\
         <th>GTP name</th><th>GTP version</th></tr>\n",
    );
    for e in &run.engines {
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            esc(&e.name),
            esc(&e.command),
            esc(&e.gtp_name),
            esc(&e.gtp_version)
        );
    }
    page.push_str("</table>\n");
}

/// The page of a tournament of `names` (seeding order) in `format` after `games`, with the
/// run's settings when given.
#[must_use]
pub fn report_html(
    format: &str,
    names: &[String],
    games: &[GameLine],
    byes: &[usize],
    run: Option<&RunSettings>,
) -> String {
    let mut games: Vec<&GameLine> = games.iter().collect();
    games.sort_by_key(|g| g.game);
    let owned: Vec<GameLine> = games.iter().map(|&g| g.clone()).collect();
    let table = standings(format, names, &owned, byes);
    let forfeits = owned.iter().filter(|g| g.end.is_forfeit()).count();
    let draws = owned.iter().filter(|g| g.winner().is_none()).count();

    let title = format!(
        "{format}: {} engine{}, {} game{}",
        names.len(),
        plural(names.len()),
        owned.len(),
        plural(owned.len())
    );
    let mut page = String::with_capacity(64 * 1024);
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(page, "<title>{}</title>", esc(&title));
    page.push_str(STYLE);
    page.push_str("</head>\n<body>\n");
    let _ = writeln!(page, "<h1>{}</h1>", esc(&title));
    let _ = writeln!(
        page,
        "<p class=\"sub\">{} forfeit{}, {} draw{}; Black's fitted advantage {:+.0} Elo.</p>",
        forfeits,
        plural(forfeits),
        draws,
        plural(draws),
        table.black_advantage
    );
    page.push_str(
        "<nav><a href=\"#standings\">Standings</a> · <a href=\"#crosstable\">Crosstable</a> · \
         <a href=\"#ratings\">Ratings</a> · <a href=\"#time\">Time</a> · \
         <a href=\"#endings\">Endings</a> · <a href=\"#games\">Games</a>",
    );
    if run.is_some() {
        page.push_str(" · <a href=\"#settings\">Settings</a>");
    }
    page.push_str("</nav>\n");

    if let Some(run) = run {
        settings_section(&mut page, run);
    }
    standings_section(&mut page, &table);
    crosstable_section(&mut page, &table);
    ratings_section(&mut page, format, names, &owned);
    time_section(&mut page, names, &owned);
    endings_section(&mut page, names, &owned);
    games_section(&mut page, &owned);

    page.push_str("</body>\n</html>\n");
    page
}

/// Writes [`report_html`] to `out/report.html`, atomically (a temporary file renamed).
///
/// # Errors
///
/// When the file cannot be written.
pub fn write_report(
    out: &Path,
    format: &str,
    names: &[String],
    games: &[GameLine],
    byes: &[usize],
    run: Option<&RunSettings>,
) -> std::io::Result<()> {
    let html = report_html(format, names, games, byes, run);
    let tmp = out.join(format!("{REPORT_FILE}.tmp"));
    {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(html.as_bytes())?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, out.join(REPORT_FILE))
}

const STYLE: &str = "<style>
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 1.5em auto;
  max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #ccc; }
.sub { color: #555; margin-top: 0; }
nav a { color: #246; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; display: block;
  max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; }
th { background: #f0f0f0; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.self { background: #ddd; }
td.won { font-weight: bold; }
.plot svg { max-width: 100%; height: auto; border: 1px solid #eee; }
.note { color: #666; font-size: 0.9em; }
</style>
";

fn standings_section(page: &mut String, table: &Standings) {
    page.push_str("<h2 id=\"standings\">Standings</h2>\n<table>\n<tr><th>Rank</th><th>Engine</th><th>Games</th><th>Won</th><th>Lost</th><th>Drawn</th><th>Points</th><th>SOS</th><th>SODOS</th><th>SOSOS</th><th>Rating</th><th>95% interval</th></tr>\n");
    for s in &table.engines {
        let tb = |k: &str| num(s.tiebreaks.get(k).copied().unwrap_or(0.0));
        let _ = writeln!(
            page,
            "<tr><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.0}</td><td class=\"n\">{:.0} to {:.0}</td></tr>",
            s.rank,
            esc(&s.name),
            s.games,
            s.wins,
            s.losses,
            s.draws,
            num(s.points),
            tb("sos"),
            tb("sodos"),
            tb("sosos"),
            s.rating,
            s.rating_ci95[0],
            s.rating_ci95[1],
        );
    }
    page.push_str("</table>\n<p class=\"note\">Ranked by points, then SOS (the opponents' points), SODOS (the points of the opponents beaten), SOSOS (the opponents' SOS), then seed. Ratings are Elo, mean 0.</p>\n");
}

fn crosstable_section(page: &mut String, table: &Standings) {
    page.push_str("<h2 id=\"crosstable\">Crosstable</h2>\n<table>\n<tr><th></th>");
    for name in &table.seeding {
        let _ = write!(page, "<th>{}</th>", esc(name));
    }
    page.push_str("</tr>\n");
    for (i, name) in table.seeding.iter().enumerate() {
        let _ = write!(page, "<tr><th>{}</th>", esc(name));
        for j in 0..table.seeding.len() {
            let cell = table
                .crosstable
                .get(i)
                .and_then(|row| row.get(j))
                .map_or("", String::as_str);
            if i == j {
                page.push_str("<td class=\"self\"></td>");
            } else {
                let _ = write!(page, "<td class=\"n\">{}</td>", esc(cell));
            }
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>\n<p class=\"note\">Each cell: the points the row's engine scored against the column's, over the games they played, in seeding order.</p>\n");
}

/// The standings' line of each engine in seeding order (by name, each line used once).
fn by_seed<'a>(names: &[String], table: &'a Standings) -> Vec<Option<&'a Standing>> {
    let mut out: Vec<Option<&Standing>> = vec![None; names.len()];
    for s in &table.engines {
        if let Some(i) = (0..names.len()).find(|&i| out[i].is_none() && names[i] == s.name) {
            out[i] = Some(s);
        }
    }
    out
}

/// The number of games in each prefix the rating history is computed at: at most
/// [`HISTORY_POINTS`], evenly spaced, the last one all the games.
fn prefixes(games: usize) -> Vec<usize> {
    let points = HISTORY_POINTS.min(games);
    let mut ks: Vec<usize> = (1..=points).map(|i| (i * games).div_ceil(points)).collect();
    ks.dedup();
    ks
}

/// One engine's rating after some games: the rating and its 95% interval.
type Point = (f64, f64, f64);

fn ratings_section(page: &mut String, format: &str, names: &[String], games: &[GameLine]) {
    page.push_str("<h2 id=\"ratings\">Ratings as games were added</h2>\n");
    if games.is_empty() || names.is_empty() {
        page.push_str("<p>No games yet.</p>\n");
        return;
    }
    let ks = prefixes(games.len());
    let mut history: Vec<Vec<Point>> = vec![Vec::with_capacity(ks.len()); names.len()];
    for &k in &ks {
        // Ratings come from the games alone: byes change points, not ratings.
        let table = standings(format, names, &games[..k], &[]);
        for (i, s) in by_seed(names, &table).into_iter().enumerate() {
            let p = s.map_or((0.0, 0.0, 0.0), |s| {
                (s.rating, s.rating_ci95[0], s.rating_ci95[1])
            });
            history[i].push(p);
        }
    }
    plot(page, rating_svg(names, &ks, &history));
    let _ = writeln!(
        page,
        "<p class=\"note\">Each engine's rating (line) and its 95% interval (band) after the first k games in game order, at {} points.</p>",
        ks.len()
    );
}

fn time_section(page: &mut String, names: &[String], games: &[GameLine]) {
    page.push_str("<h2 id=\"time\">Time per move</h2>\n");
    let n = names.len();
    let mut played = vec![0usize; n];
    let mut seconds = vec![0.0f64; n];
    let mut moves = vec![0u64; n];
    for g in games {
        for (side, e) in [g.black, g.white].into_iter().enumerate() {
            if e < n {
                played[e] += 1;
                seconds[e] += g.seconds[side];
                moves[e] += u64::from(g.genmoves[side]);
            }
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let mean: Vec<f64> = (0..n)
        .map(|i| {
            if moves[i] == 0 {
                0.0
            } else {
                seconds[i] / moves[i] as f64
            }
        })
        .collect();
    if n > 0 && moves.iter().any(|&m| m > 0) {
        let colors: Vec<RGBColor> = (0..n).map(engine_color).collect();
        plot(
            page,
            bars_svg(
                names,
                &mean,
                &colors,
                "mean seconds per genmove",
                |v| format!("{v:.3} s"),
                false,
            ),
        );
    }
    page.push_str("<table>\n<tr><th>Engine</th><th>Games</th><th>Moves generated</th><th>Seconds in genmove</th><th>Mean seconds per move</th></tr>\n");
    for i in 0..n {
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td></tr>",
            esc(&names[i]),
            played[i],
            moves[i],
            seconds[i],
            if moves[i] == 0 {
                "–".to_string()
            } else {
                format!("{:.3}", mean[i])
            }
        );
    }
    page.push_str("</table>\n");
}

/// The engine that lost a game by forfeit.
fn forfeiter(g: &GameLine) -> Option<usize> {
    if !g.end.is_forfeit() {
        return None;
    }
    g.winner().map(|c| g.id_of(c.opponent()))
}

fn endings_section(page: &mut String, names: &[String], games: &[GameLine]) {
    page.push_str("<h2 id=\"endings\">How games ended</h2>\n");
    if games.is_empty() {
        page.push_str("<p>No games yet.</p>\n");
        return;
    }
    // Games ended by passes are counted by how their dead stones were settled (as the
    // match's table counts them), unless every one was scored with all stones alive.
    let only_all_alive = games
        .iter()
        .filter(|g| g.end == Ending::TwoPasses)
        .all(|g| matches!(settlement_kind(g), None | Some("all-alive")));
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for g in games {
        let kind = match (g.end, settlement_kind(g)) {
            (Ending::TwoPasses, Some(kind)) if !only_all_alive => kind,
            (end, _) => end.name(),
        };
        *counts.entry(kind).or_default() += 1;
    }
    let mut counts: Vec<(&str, usize)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let labels: Vec<String> = counts.iter().map(|(k, _)| (*k).to_string()).collect();
    #[allow(clippy::cast_precision_loss)]
    let values: Vec<f64> = counts.iter().map(|&(_, c)| c as f64).collect();
    let colors: Vec<RGBColor> = counts
        .iter()
        .map(|(k, _)| {
            if FORFEIT_KINDS.contains(k) {
                RGBColor(0xc0, 0x50, 0x40)
            } else {
                RGBColor(0x40, 0x70, 0xb0)
            }
        })
        .collect();
    plot(
        page,
        bars_svg(
            &labels,
            &values,
            &colors,
            "games",
            |v| format!("{v:.0}"),
            true,
        ),
    );
    page.push_str("<p class=\"note\">Red: the loser forfeited.</p>\n<table>\n<tr><th>Ending</th><th>Games</th></tr>\n");
    for (k, c) in &counts {
        let _ = writeln!(page, "<tr><td>{}</td><td class=\"n\">{c}</td></tr>", esc(k));
    }
    page.push_str("</table>\n");
    if !only_all_alive {
        page.push_str("<p class=\"note\">Games ended by two passes, by how their dead stones were settled: agreement (the engines agreed, no play resumed), play-on (settled by further play), four-passes, referee (disputed stones settled by the referee), all-alive. The games' table has each game's settlement.</p>\n");
    }
    page.push_str("<h3>Forfeits by engine</h3>\n");

    let n = names.len();
    let mut by_engine: Vec<BTreeMap<&'static str, usize>> = vec![BTreeMap::new(); n];
    for g in games {
        if let Some(e) = forfeiter(g).filter(|&e| e < n) {
            *by_engine[e].entry(g.end.name()).or_default() += 1;
        }
    }
    let mut kinds: Vec<&str> = FORFEIT_KINDS
        .iter()
        .copied()
        .filter(|k| by_engine.iter().any(|m| m.contains_key(k)))
        .collect();
    for m in &by_engine {
        for k in m.keys() {
            if !kinds.contains(k) {
                kinds.push(k);
            }
        }
    }
    if kinds.is_empty() {
        page.push_str("<p>No forfeits.</p>\n");
        return;
    }
    page.push_str("<table>\n<tr><th>Engine</th>");
    for k in &kinds {
        let _ = write!(page, "<th>{}</th>", esc(k));
    }
    page.push_str("<th>All</th></tr>\n");
    for (i, name) in names.iter().enumerate() {
        let _ = write!(page, "<tr><td>{}</td>", esc(name));
        for k in &kinds {
            match by_engine[i].get(k) {
                Some(c) => {
                    let _ = write!(page, "<td class=\"n\">{c}</td>");
                }
                None => page.push_str("<td></td>"),
            }
        }
        let all: usize = by_engine[i].values().sum();
        let _ = writeln!(page, "<td class=\"n\">{all}</td></tr>");
    }
    page.push_str("</table>\n<p class=\"note\">A forfeit is counted against the engine that lost the game by it.</p>\n");
}

/// The endings that are forfeits, in the order the forfeit table shows them.
const FORFEIT_KINDS: [&str; 5] = ["time", "crash", "hang", "illegal", "fault"];

fn games_section(page: &mut String, games: &[GameLine]) {
    page.push_str("<h2 id=\"games\">Games</h2>\n");
    if games.is_empty() {
        page.push_str("<p>No games yet.</p>\n");
        return;
    }
    page.push_str("<table>\n<tr><th>#</th><th>Round</th><th>Black</th><th>White</th><th>Result</th><th>Ended</th><th>Moves</th><th>Seconds (B/W)</th><th>Record</th><th>Detail</th></tr>\n");
    for g in games {
        let won = |c: char| {
            if g.winner().map(goref_rules::Color::letter) == Some(c) {
                " class=\"won\""
            } else {
                ""
            }
        };
        let record = g.sgf.as_deref().map_or_else(
            || "–".to_string(),
            |p| format!("<a href=\"{}\">SGF</a>", esc(&url_path(p))),
        );
        let _ = writeln!(
            page,
            "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td{}>{}</td><td{}>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1} / {:.1}</td><td>{}</td><td>{}</td></tr>",
            g.game,
            g.round,
            won('B'),
            esc(&g.black_name),
            won('W'),
            esc(&g.white_name),
            esc(&g.result.to_sgf()),
            esc(g.end.name()),
            g.moves,
            g.seconds[0],
            g.seconds[1],
            record,
            esc(&end_detail(g)),
        );
    }
    page.push_str("</table>\n");
}

/// Puts a plot on the page, or says why it could not be drawn.
fn plot(page: &mut String, svg: Result<String, Box<dyn Error>>) {
    match svg {
        Ok(svg) => {
            page.push_str("<div class=\"plot\">\n");
            page.push_str(&svg);
            page.push_str("</div>\n");
        }
        Err(e) => {
            let _ = writeln!(
                page,
                "<p class=\"note\">(The plot could not be drawn: {}.)</p>",
                esc(&e.to_string())
            );
        }
    }
}

/// The colour of the engine of seed `i`, the same in every plot: ten that read well on
/// white, then `plotters`' palette.
fn engine_color(i: usize) -> RGBColor {
    const FIRST: [(u8, u8, u8); 10] = [
        (0x1f, 0x77, 0xb4),
        (0xd6, 0x27, 0x28),
        (0x2c, 0xa0, 0x2c),
        (0xff, 0x7f, 0x0e),
        (0x94, 0x67, 0xbd),
        (0x8c, 0x56, 0x4b),
        (0xe3, 0x77, 0xc2),
        (0x7f, 0x7f, 0x7f),
        (0xbc, 0xbd, 0x22),
        (0x17, 0xbe, 0xcf),
    ];
    let (r, g, b) = FIRST
        .get(i)
        .copied()
        .unwrap_or_else(|| Palette99::pick(i).rgb());
    RGBColor(r, g, b)
}

/// An SVG element for inline use in HTML: without the namespace declaration, which HTML
/// does not need (so that the page names no address).
fn inline_svg(svg: String) -> String {
    svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1)
}

/// The lowest and highest values of `values`, widened to show at least `span` and padded.
fn y_range(values: impl Iterator<Item = f64>, span: f64) -> (f64, f64) {
    let (mut lo, mut hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() || !hi.is_finite() {
        (lo, hi) = (0.0, 0.0);
    }
    if hi - lo < span {
        let mid = (hi + lo) / 2.0;
        (lo, hi) = (mid - span / 2.0, mid + span / 2.0);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

/// The rating history: for engine `i`, `history[i][j]` after the first `ks[j]` games.
fn rating_svg(
    names: &[String],
    ks: &[usize],
    history: &[Vec<Point>],
) -> Result<String, Box<dyn Error>> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (PLOT_WIDTH, 380)).into_drawing_area();
        root.fill(&WHITE)?;
        #[allow(clippy::cast_precision_loss)]
        let x = |k: usize| k as f64;
        let xmax = x(ks.last().copied().unwrap_or(1).max(1));
        let (ylo, yhi) = y_range(
            history
                .iter()
                .flat_map(|h| h.iter().flat_map(|&(r, lo, hi)| [r, lo, hi])),
            100.0,
        );
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..xmax, ylo..yhi)?;
        chart
            .configure_mesh()
            .x_desc("games played")
            .y_desc("rating (Elo)")
            .x_labels(whole_labels(xmax))
            .x_label_formatter(&whole_label)
            .y_label_formatter(&|v| format!("{v:.0}"))
            .label_style(("sans-serif", LABEL_SIZE))
            .axis_desc_style(("sans-serif", LABEL_SIZE))
            .light_line_style(RGBColor(0xee, 0xee, 0xee))
            .draw()?;
        for (i, h) in history.iter().enumerate() {
            let color = engine_color(i);
            if ks.len() > 1 {
                let mut band: Vec<(f64, f64)> =
                    ks.iter().zip(h).map(|(&k, p)| (x(k), p.1)).collect();
                band.extend(ks.iter().zip(h).rev().map(|(&k, p)| (x(k), p.2)));
                chart.draw_series(std::iter::once(Polygon::new(band, color.mix(0.12))))?;
            } else if let (Some(&k), Some(p)) = (ks.first(), h.first()) {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(x(k), p.1), (x(k), p.2)],
                    color.mix(0.5).stroke_width(3),
                )))?;
            }
        }
        for (i, h) in history.iter().enumerate() {
            let color = engine_color(i);
            let line: Vec<(f64, f64)> = ks.iter().zip(h).map(|(&k, p)| (x(k), p.0)).collect();
            chart
                .draw_series(LineSeries::new(line, color.stroke_width(2)))?
                .label(short(&names[i], 30))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", LABEL_SIZE))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(0xbb, 0xbb, 0xbb))
            .draw()?;
        root.present()?;
    }
    Ok(inline_svg(buf))
}

/// Horizontal bars: `values[i]` labelled `labels[i]`, top to bottom.
fn bars_svg(
    labels: &[String],
    values: &[f64],
    colors: &[RGBColor],
    x_desc: &str,
    show: fn(f64) -> String,
    whole: bool,
) -> Result<String, Box<dyn Error>> {
    let n = values.len();
    let labels: Vec<String> = labels.iter().map(|l| short(l, 24)).collect();
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
    let (label_width, rows) = ((widest as u32 * 9 + 20).min(240), n as i32);
    #[allow(clippy::cast_possible_truncation)]
    let height = 80 + 30 * n.max(2) as u32;
    let max = values.iter().copied().fold(0.0f64, f64::max);
    let xmax = if max > 0.0 { max * 1.18 } else { 1.0 };
    // Counts are labelled at whole numbers only (a chart of 2 games read 0, 0.5, 1, 1.5, 2).
    let x_labels = if whole { whole_labels(xmax) } else { 10 };
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (PLOT_WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(label_width)
            // At least two segments: one row alone would make a range of no height, and a bar
            // of negative height (an empty chart).
            .build_cartesian_2d(0.0..xmax, (0..(rows - 1).max(1)).into_segmented())?;
        // Row `i` from the top is segment `rows - 1 - i`.
        let row = |i: usize| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
            let i = i as i32;
            rows - 1 - i
        };
        let mut mesh = chart.configure_mesh();
        if whole {
            mesh.x_label_formatter(&whole_label);
        }
        mesh.disable_y_mesh()
            .light_line_style(RGBColor(0xee, 0xee, 0xee))
            .x_desc(x_desc)
            .x_labels(x_labels)
            .label_style(("sans-serif", LABEL_SIZE))
            .axis_desc_style(("sans-serif", LABEL_SIZE))
            .y_labels(n)
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(s) | SegmentValue::Exact(s) => {
                    let i = usize::try_from(rows - 1 - s).unwrap_or(usize::MAX);
                    labels.get(i).cloned().unwrap_or_default()
                }
                SegmentValue::Last => String::new(),
            })
            .draw()?;
        chart.draw_series(values.iter().enumerate().map(|(i, &v)| {
            let color = colors.get(i).copied().unwrap_or(BLUE);
            let mut bar = Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(row(i))),
                    (v, SegmentValue::Exact(row(i) + 1)),
                ],
                color.filled(),
            );
            bar.set_margin(4, 4, 0, 0);
            bar
        }))?;
        chart.draw_series(values.iter().enumerate().map(|(i, &v)| {
            Text::new(
                show(v),
                (v + xmax * 0.01, SegmentValue::CenterOf(row(i))),
                ("sans-serif", LABEL_SIZE).into_font().color(&BLACK).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Left,
                        plotters::style::text_anchor::VPos::Center,
                    ),
                ),
            )
        }))?;
        root.present()?;
    }
    Ok(inline_svg(buf))
}

/// How many labels an axis from 0 to `max` that counts (games, ordinals) asks for: one a
/// whole number up to 10, so that `plotters` steps by 1 or more, never by a fraction.
fn whole_labels(max: f64) -> usize {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let whole = if max.is_finite() && max > 0.0 {
        max.floor() as usize
    } else {
        0
    };
    (whole + 1).clamp(2, 10)
}

/// A count's label: a whole number, or nothing between whole numbers.
#[allow(clippy::trivially_copy_pass_by_ref)] // plotters passes labels by reference
fn whole_label(v: &f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

/// At most `max` characters of `s`, with an ellipsis when cut.
fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// `s` escaped for HTML text and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A relative path as a URL path: every byte but letters, digits, `-._~/` percent-encoded,
/// so that no path can read as a scheme, a query or a fragment.
fn url_path(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A number of points: whole numbers without decimals.
fn num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_evenly_spaced_and_end_with_all_games() {
        assert_eq!(prefixes(0), Vec::<usize>::new());
        assert_eq!(prefixes(5), vec![1, 2, 3, 4, 5]);
        let ks = prefixes(100);
        assert_eq!(ks.len(), HISTORY_POINTS);
        assert_eq!(ks.last(), Some(&100));
        assert!(ks.windows(2).all(|w| w[1] - w[0] >= 2 && w[1] - w[0] <= 3));
        let ks = prefixes(41);
        assert_eq!(ks.len(), HISTORY_POINTS);
        assert_eq!(ks.last(), Some(&41));
    }

    #[test]
    fn escaping() {
        assert_eq!(
            esc("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
        assert_eq!(url_path("games/0001.sgf"), "games/0001.sgf");
        assert_eq!(url_path("javascript:a b#c?d"), "javascript%3Aa%20b%23c%3Fd");
        assert_eq!(short("abcdef", 4), "abc…");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(2.0), "2");
    }
}
