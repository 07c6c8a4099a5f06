//! `report.html` of constructed tournaments: escaped names, one link per record, a plot per
//! chart, nothing fetched from elsewhere, and a small file.

use goref_match::Ending;
use goref_runner::report::{report_html, write_report, REPORT_FILE};
use goref_tournament::pairing::{Pairing, Round};
use goref_tournament::GameLine;

fn names() -> Vec<String> {
    vec![
        "<b>x</b>".to_string(),
        "Leela & co".to_string(),
        "gnugo \"level 10\"".to_string(),
    ]
}

/// Game `number` (from 1) of a round robin of three, with a mix of endings; games whose
/// number is a multiple of 7 are forfeits not played (no record).
fn game(number: usize) -> GameLine {
    let names = names();
    let pairs = [(0, 1), (1, 2), (2, 0), (1, 0), (2, 1), (0, 2)];
    let (black, white) = pairs[(number - 1) % pairs.len()];
    let pairing = Pairing::new(Round::from_index((number - 1) / 3), black, white);
    let line = |result: &str, end: Ending, detail: Option<&str>| GameLine {
        black_version: Some("1.0".to_string()),
        detail: detail.map(str::to_string),
        moves: 100 + number,
        seconds: [1.5 * (black + 1) as f64, 0.75 * (white + 1) as f64],
        genmoves: [50, 50],
        sgf: Some(format!("games/{number:04}.sgf")),
        ..GameLine::of(
            number,
            &pairing,
            [names[black].clone(), names[white].clone()],
            result.parse().unwrap(),
            end,
        )
    };
    if number.is_multiple_of(7) {
        return GameLine {
            moves: 0,
            seconds: [0.0; 2],
            genmoves: [0; 2],
            sgf: None,
            ..line(
                "W+F",
                Ending::Fault,
                Some("<b>x</b> could not start: no such file"),
            )
        };
    }
    match number % 5 {
        0 => line("B+R", Ending::Resignation, None),
        1 => line("W+3.5", Ending::TwoPasses, None),
        2 => line("B+T", Ending::Time, Some("White's time ran out")),
        3 => line("0", Ending::TwoPasses, None),
        _ => line("W+F", Ending::Crash, Some("exited <signal 9>")),
    }
}

fn tournament(games: usize) -> Vec<GameLine> {
    (1..=games).map(game).collect()
}

#[test]
fn names_and_details_are_escaped() {
    let html = report_html("round-robin", &names(), &tournament(12), &[], None);
    assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"));
    assert!(!html.contains("<b>x</b>"), "a raw engine name");
    assert!(html.contains("Leela &amp; co"));
    assert!(!html.contains("Leela & co"));
    assert!(html.contains("gnugo &quot;level 10&quot;"));
    assert!(html.contains("exited &lt;signal 9&gt;"));
    assert!(!html.contains("<signal"));
}

#[test]
fn one_link_per_game_with_a_record() {
    let games = tournament(12);
    let html = report_html("round-robin", &names(), &games, &[], None);
    let with_records: Vec<&GameLine> = games.iter().filter(|g| g.sgf.is_some()).collect();
    assert_eq!(
        with_records.len(),
        11,
        "game 7 is a forfeit without a record"
    );
    assert_eq!(html.matches("<a href=\"games/").count(), with_records.len());
    for g in with_records {
        let link = format!("<a href=\"{}\">", g.sgf.as_deref().unwrap());
        assert_eq!(html.matches(&link).count(), 1, "{link}");
    }
}

#[test]
fn a_plot_per_chart_and_nothing_from_elsewhere() {
    let html = report_html("round-robin", &names(), &tournament(12), &[], None);
    // Ratings over the games, time per move, endings.
    assert_eq!(html.matches("<svg").count(), 3);
    assert_eq!(html.matches("</svg>").count(), 3);
    for outside in [
        "http://", "https://", "<script", "<link", "<img", "@import", "url(",
    ] {
        assert!(!html.contains(outside), "{outside}");
    }
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
}

#[test]
fn the_sections_show_the_tournament() {
    let games = tournament(12);
    let html = report_html("round-robin", &names(), &games, &[], None);
    assert!(html.contains("<title>round-robin: 3 engines, 12 games</title>"));
    for section in [
        "Standings",
        "Crosstable",
        "Ratings as games were added",
        "Time per move",
        "How games ended",
        "Forfeits by engine",
        "95% interval",
        "SOS",
        "SODOS",
        "SOSOS",
    ] {
        assert!(html.contains(section), "{section}");
    }
    // The endings that occurred, counted.
    let count = |end: Ending| games.iter().filter(|g| g.end == end).count();
    for end in [
        Ending::Fault,
        Ending::Time,
        Ending::Crash,
        Ending::TwoPasses,
    ] {
        let row = format!(
            "<tr><td>{}</td><td class=\"n\">{}</td></tr>",
            end.name(),
            count(end)
        );
        assert!(html.contains(&row), "{row}");
    }
    // The forfeit not played is explained.
    assert!(html.contains("&lt;b&gt;x&lt;/b&gt; could not start: no such file"));
}

#[test]
fn no_games_yet() {
    let html = report_html("swiss", &names(), &[], &[], None);
    assert!(html.contains("No games yet."));
    assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"));
    assert!(!html.contains("<b>x</b>"));
    let html = report_html("swiss", &[], &[], &[], None);
    assert!(html.contains("0 engines, 0 games"));
}

#[test]
fn games_out_of_order_are_shown_in_game_order() {
    let mut games = tournament(6);
    games.reverse();
    let html = report_html("round-robin", &names(), &games, &[], None);
    let first = html.find("games/0001.sgf").unwrap();
    let last = html.find("games/0006.sgf").unwrap();
    assert!(first < last);
}

#[test]
fn the_report_stays_small() {
    let small = report_html("round-robin", &names(), &tournament(12), &[], None);
    let big = report_html("round-robin", &names(), &tournament(100), &[], None);
    eprintln!(
        "report.html: {} bytes for 12 games, {} bytes for 100 games",
        small.len(),
        big.len()
    );
    assert!(big.len() < 500 * 1024, "{} bytes", big.len());
    assert_eq!(big.matches("<svg").count(), 3);
    assert_eq!(
        big.matches("<a href=\"games/").count(),
        (1..=100).filter(|n: &usize| !n.is_multiple_of(7)).count()
    );
}

#[test]
fn write_report_replaces_the_file() {
    let dir = std::env::temp_dir().join(format!("goref-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(REPORT_FILE), "old").unwrap();
    let games = tournament(12);
    write_report(&dir, "round-robin", &names(), &games, &[], None).unwrap();
    let written = std::fs::read_to_string(dir.join(REPORT_FILE)).unwrap();
    assert_eq!(
        written,
        report_html("round-robin", &names(), &games, &[], None)
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from(REPORT_FILE)]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The bars of the endings chart: the heights of its filled rectangles (blue: an ending on the
/// board, red: a forfeit).
fn ending_bar_heights(html: &str) -> Vec<f64> {
    let section = html
        .split("id=\"endings\"")
        .nth(1)
        .and_then(|s| s.split("Forfeits by engine").next())
        .expect("an endings section");
    section
        .split("<rect")
        .skip(1)
        .filter(|r| {
            let r = r.to_ascii_uppercase();
            r.contains("FILL=\"#4070B0\"") || r.contains("FILL=\"#C05040\"")
        })
        .map(|r| {
            let h = r.split("height=\"").nth(1).expect("a height");
            h[..h.find('"').unwrap()].parse::<f64>().unwrap()
        })
        .collect()
}

/// Every game ended the same way: the chart has one bar, of positive height (it once had a
/// range of no height and a bar of negative height).
#[test]
fn a_chart_of_one_ending_draws_its_bar() {
    let games: Vec<GameLine> = tournament(12)
        .into_iter()
        .map(|g| GameLine {
            end: Ending::TwoPasses,
            ..g
        })
        .collect();
    let heights = ending_bar_heights(&report_html("round-robin", &names(), &games, &[], None));
    assert_eq!(heights.len(), 1, "{heights:?}");
    assert!(heights[0] > 10.0, "{heights:?}");
    // Several endings: one bar each, all positive.
    let heights = ending_bar_heights(&report_html(
        "round-robin",
        &names(),
        &tournament(12),
        &[],
        None,
    ));
    assert!(
        heights.len() > 2 && heights.iter().all(|&h| h > 0.0),
        "{heights:?}"
    );
}

/// The run's settings and engines are shown, escaped, and linked from the navigation.
#[test]
fn the_settings_of_the_run_are_shown() {
    use goref_runner::report::{EngineRow, RunSettings};
    let run = RunSettings {
        settings: vec![
            ("board".into(), "9x9".into()),
            ("komi".into(), "7.5".into()),
            ("openings".into(), "<none>".into()),
        ],
        engines: vec![EngineRow {
            name: "gnugo".into(),
            command: "/usr/games/gnugo --mode gtp".into(),
            gtp_name: "GNU Go".into(),
            gtp_version: "3.8".into(),
        }],
        goref_version: "0.1.0".into(),
        started: "Fri, 27 Nov 2026 04:20:42 GMT".into(),
        ended: "Fri, 27 Nov 2026 04:30:00 GMT".into(),
    };
    let html = report_html("round-robin", &names(), &tournament(3), &[], Some(&run));
    for text in [
        "href=\"#settings\"",
        "<th>board</th><td>9x9</td>",
        "<th>komi</th><td>7.5</td>",
        "&lt;none&gt;",
        "<code>/usr/games/gnugo --mode gtp</code>",
        "<td>GNU Go</td><td>3.8</td>",
        "Fri, 27 Nov 2026 04:20:42 GMT",
    ] {
        assert!(html.contains(text), "{text}");
    }
    let without = report_html("round-robin", &names(), &tournament(3), &[], None);
    assert!(!without.contains("id=\"settings\""));
}

/// Issue 40: every game ended by passes has its settlement in the games' Detail, before the
/// detail of a forfeit; games without one (resignations, lines from before settlements were
/// recorded) have none.
#[test]
fn each_settlement_is_told_in_the_games_detail() {
    use goref_runner::summary::{end_detail, settlement_detail};
    let settled = |ending: &str, resumptions: u32, removed: &[&str]| GameLine {
        ending: Some(ending.to_string()),
        resumptions,
        removed: removed.iter().map(|s| (*s).to_string()).collect(),
        ..game(1)
    };
    assert_eq!(game(1).end, Ending::TwoPasses);
    assert_eq!(settlement_detail(&game(1)), None, "no settlement recorded");
    assert_eq!(
        end_detail(&settled("referee", 3, &["A4", "B5"])),
        "referee after 3 resumptions of play, 2 stones removed"
    );
    assert_eq!(
        end_detail(&settled("agreement", 0, &[])),
        "agreement, no stones removed"
    );
    assert_eq!(
        end_detail(&settled("agreement", 1, &["C3"])),
        "agreement after 1 resumption of play, 1 stone removed"
    );
    assert_eq!(end_detail(&settled("all-alive", 0, &[])), "all-alive");
    // A resignation has no settlement even if a line says one; a forfeit keeps its detail.
    let resigned = GameLine {
        ending: Some("agreement".to_string()),
        ..game(5)
    };
    assert_eq!(resigned.end, Ending::Resignation);
    assert_eq!(end_detail(&resigned), "");
    assert_eq!(end_detail(&game(2)), "White's time ran out");

    let games = vec![
        settled("referee", 3, &["A4"]),
        settled("agreement", 0, &[]),
        game(2),
    ];
    let html = report_html("round-robin", &names(), &games, &[], None);
    assert!(html.contains("<td>referee after 3 resumptions of play, 1 stone removed</td></tr>"));
    assert!(html.contains("<td>agreement, no stones removed</td></tr>"));
    assert!(html.contains("<tr><td>referee</td><td class=\"n\">1</td></tr>"));
    assert!(html.contains("<tr><td>agreement</td><td class=\"n\">1</td></tr>"));
    assert!(!html.contains("<tr><td>two-passes</td>"), "{html}");
}

/// The labels under a plot's x axis (plotters writes them centred, one em below the axis).
fn x_labels(svg: &str) -> Vec<String> {
    svg.split("<text ")
        .skip(1)
        .filter(|t| {
            let attributes = &t[..t.find('>').unwrap()];
            attributes.contains("dy=\"0.76em\" text-anchor=\"middle\"")
                && !attributes.contains("transform")
        })
        .map(|t| {
            let text = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
            text.trim().to_string()
        })
        .collect()
}

/// Issue 40: the axes that count (games played in the rating plot, games in the endings
/// chart) are labelled with whole numbers, each once, in order: two games read
/// `0 0 0 1 1 1 1 1 2 2 2` under the ratings, and the endings counted in steps of 0.5.
#[test]
fn axes_that_count_games_have_whole_labels_each_once() {
    for n in [1, 2, 3, 5, 7, 12, 40] {
        let html = report_html("round-robin", &names(), &tournament(n), &[], None);
        let svgs: Vec<&str> = html.split("<svg").skip(1).collect();
        assert_eq!(svgs.len(), 3, "{n} games");
        for (plot, svg) in [("ratings", svgs[0]), ("endings", svgs[2])] {
            let labels: Vec<u32> = x_labels(svg)
                .iter()
                .filter(|l| !l.is_empty())
                .map(|l| {
                    l.parse()
                        .unwrap_or_else(|_| panic!("{plot}, {n} games: label {l:?}"))
                })
                .collect();
            assert!(labels.len() >= 2, "{plot}, {n} games: {labels:?}");
            assert!(
                labels.windows(2).all(|w| w[0] < w[1]),
                "{plot}, {n} games: {labels:?}"
            );
            assert!(
                labels.iter().all(|&l| l as usize <= n.max(2) + n / 4),
                "{plot}, {n} games: {labels:?}"
            );
        }
    }
}
