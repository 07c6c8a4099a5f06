//! The table printed at the end of a match.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use goref_match::Ending;
use goref_tournament::stats::{Sprt, SprtCounts, SprtDecision, Wld};
use goref_tournament::GameLine;

/// Why a match stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every game was played.
    Complete,
    /// Ctrl-C: running games were finished (or abandoned after a second Ctrl-C).
    Interrupted,
    /// The SPRT decided.
    Sprt,
}

/// Results so far and what the table needs to describe them.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The two engines' names, engine 0's first.
    pub names: [String; 2],
    /// Every game played, resumed ones included.
    pub reports: Vec<GameLine>,
    /// Games the match was to play.
    pub games_planned: usize,
    /// The settings in one line.
    pub description: String,
    /// The SPRT, if one runs.
    pub sprt: Option<Sprt>,
    /// Why the match stopped.
    pub stop: Stop,
    /// Wall time of this run (not of games resumed from an earlier run).
    pub wall: Duration,
    /// Games found in the results file at start.
    pub resumed: usize,
    /// The signal that stopped the run, if one did (the exit status is 128 + it).
    pub signal: Option<i32>,
}

impl Summary {
    /// Adds one game.
    pub fn add(&mut self, report: GameLine) {
        self.reports.push(report);
    }

    /// Wins, losses and draws of engine `id`.
    #[must_use]
    pub fn wld(&self, id: usize) -> Wld {
        let mut wld = Wld::default();
        for r in &self.reports {
            match r.winner_id() {
                Some(w) if w == id => wld.wins += 1,
                Some(_) => wld.losses += 1,
                None => wld.draws += 1,
            }
        }
        wld
    }

    /// `name1 3 - name2 2 - draws 0` for the progress bar.
    #[must_use]
    pub fn score_line(&self) -> String {
        let w = self.wld(0);
        format!(
            "{} {} - {} {} - draws {}",
            self.names[0], w.wins, self.names[1], w.losses, w.draws
        )
    }

    /// The table.
    #[must_use]
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{} of {}, {}",
            self.reports.len(),
            crate::count(self.games_planned, "game"),
            self.description
        );
        let _ = writeln!(
            t,
            "{:<16} {:>5} {:>5} {:>6} {:>5} {:>8} {:>8}  {:<24} {:>9}",
            "engine",
            "games",
            "wins",
            "losses",
            "draws",
            "B wins",
            "W wins",
            "forfeits lost",
            "s/move"
        );
        for id in 0..2 {
            let wld = self.wld(id);
            let (mut bw, mut bg, mut ww, mut wg) = (0, 0, 0, 0);
            let mut forfeits: BTreeMap<&'static str, u32> = BTreeMap::new();
            let (mut secs, mut moves) = (0.0, 0u32);
            for r in &self.reports {
                let colour = if r.black == id { 0 } else { 1 };
                if r.black == id {
                    bg += 1;
                } else {
                    wg += 1;
                }
                let won = r.winner_id() == Some(id);
                if won && r.black == id {
                    bw += 1;
                }
                if won && r.white == id {
                    ww += 1;
                }
                if r.end.is_forfeit() && !won && r.winner().is_some() {
                    *forfeits.entry(r.end.name()).or_default() += 1;
                }
                secs += r.seconds[colour];
                moves += r.genmoves[colour];
            }
            let forfeits = if forfeits.is_empty() {
                "-".to_string()
            } else {
                forfeits
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let per_move = if moves > 0 {
                format!("{:.4}", secs / f64::from(moves))
            } else {
                "-".into()
            };
            let _ = writeln!(
                t,
                "{:<16} {:>5} {:>5} {:>6} {:>5} {:>8} {:>8}  {:<24} {:>9}",
                truncate(&self.names[id], 16),
                wld.games(),
                wld.wins,
                wld.losses,
                wld.draws,
                format!("{bw}/{bg}"),
                format!("{ww}/{wg}"),
                forfeits,
                per_move
            );
        }
        let _ = writeln!(t, "game ends: {}", self.ends_line());
        let illegal: u32 = self
            .reports
            .iter()
            .map(|r| r.illegal_passes.iter().sum::<u32>())
            .sum();
        if illegal > 0 {
            let _ = writeln!(
                t,
                "illegal moves replaced by a pass (Olympiad 3.10.2): {illegal}"
            );
        }
        let wld = self.wld(0);
        let _ = writeln!(t, "{}", elo_line(&self.names[0], &self.names[1], &wld));
        if let Some(sprt) = &self.sprt {
            let (lower, upper) = sprt.bounds();
            let state = match sprt.decision(SprtCounts::Games(&wld)) {
                SprtDecision::Continue => "no decision yet",
                SprtDecision::AcceptH0 => "H0 accepted",
                SprtDecision::AcceptH1 => "H1 accepted",
            };
            let _ = writeln!(
                t,
                "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.3} in [{:.3}, {:.3}]: {state}",
                sprt.elo0,
                sprt.elo1,
                sprt.alpha,
                sprt.beta,
                sprt.llr(SprtCounts::Games(&wld)),
                lower,
                upper
            );
        }
        match self.stop {
            Stop::Complete => {}
            Stop::Interrupted => {
                let _ = writeln!(t, "interrupted: run the same command again to resume");
            }
            Stop::Sprt => {
                let _ = writeln!(t, "stopped early: the SPRT decided");
            }
        }
        t
    }
}

/// The table's Elo line: `Elo A vs B: +120 ± 85 (95%), LOS 99.2%`, the Elo difference of A
/// over B with its 95% interval from A's `wld` against B. A perfect score has a one-sided bound
/// (`> +34 (95%, every game won)`), or says that it has too few games for one on the winner's
/// side of 0 (four games won of four: 6% of such runs between equals, more than 5%); a score
/// whose interval runs past 0% or 100% says it has too few games for an interval, and one of
/// draws alone that it has none.
#[must_use]
pub fn elo_line(a: &str, b: &str, wld: &Wld) -> String {
    let los = wld
        .los()
        .map_or("-".into(), |l| format!("{:.1}%", 100.0 * l));
    match (wld.perfect_score_bound(), wld.elo()) {
        (Some(bound), _) => {
            let (side, result, beyond) = if wld.wins > 0 {
                ('>', "won", "above")
            } else {
                ('<', "lost", "below")
            };
            let bound_text = format!("{side} {}", signed_whole(bound));
            if (wld.wins > 0) == (bound > 0.0) {
                format!("Elo {a} vs {b}: {bound_text} (95%, every game {result}), LOS {los}")
            } else {
                format!(
                    "Elo {a} vs {b}: every game {result}, too few games for a 95% bound {beyond} \
                     0 ({bound_text}), LOS {los}"
                )
            }
        }
        // Every game drawn: no spread to make an interval of.
        (None, Some(_)) if wld.draws == wld.games() => {
            format!("Elo {a} vs {b}: +0 (every game drawn: no interval), LOS {los}")
        }
        (None, Some((elo, half))) if half.is_finite() => {
            format!(
                "Elo {a} vs {b}: {} ± {} (95%), LOS {los}",
                signed(elo),
                number(half)
            )
        }
        (None, Some((elo, _))) => format!(
            "Elo {a} vs {b}: {}, too few games for a 95% interval, LOS {los}",
            signed_whole(elo)
        ),
        (None, None) => "Elo: no games".to_string(),
    }
}

/// The settlements counted in the table, in this order (games that ended by passes).
pub const SETTLEMENTS: [&str; 5] = [
    "agreement",
    "play-on",
    "four-passes",
    "referee",
    "all-alive",
];

/// What a game that ended by passes counts as in the table: `agreement` (equal lists, or two
/// dones, with no play resumed), `play-on` (settled by further play: agreement after resumed
/// play, KGS clean-up passes, a copy played out), `four-passes`, `referee`, `all-alive`.
#[must_use]
pub fn settlement_kind(report: &GameLine) -> Option<&'static str> {
    match report.ending.as_deref()? {
        "agreement" if report.resumptions == 0 => Some("agreement"),
        "agreement" | "cleanup-passes" | "played-out-on-copy" => Some("play-on"),
        "four-passes" => Some("four-passes"),
        "referee" => Some("referee"),
        _ => Some("all-alive"),
    }
}

impl Summary {
    /// `agreement 3, play-on 1, four-passes 0, referee 0, resignation 2`: see [`ends_line`].
    #[must_use]
    pub fn ends_line(&self) -> String {
        ends_line(&self.reports)
    }
}

/// `agreement 3, play-on 1, four-passes 0, referee 0, resignation 2`: games ended by passes
/// counted by settlement (all four always shown unless every such game was scored all alive),
/// then the other ends.
#[must_use]
pub fn ends_line(reports: &[GameLine]) -> String {
    let mut settled: BTreeMap<&'static str, u32> = BTreeMap::new();
    let mut other: BTreeMap<&'static str, u32> = BTreeMap::new();
    for r in reports {
        match (r.end, settlement_kind(r)) {
            (Ending::TwoPasses, Some(kind)) => *settled.entry(kind).or_default() += 1,
            (end, _) => *other.entry(end.name()).or_default() += 1,
        }
    }
    let mut parts = Vec::new();
    let only_all_alive = settled.keys().all(|&k| k == "all-alive");
    if only_all_alive {
        if let Some(n) = settled.get("all-alive") {
            parts.push(format!("two-passes {n}"));
        }
    } else {
        for kind in SETTLEMENTS {
            let n = settled.get(kind).copied().unwrap_or(0);
            if kind != "all-alive" || n > 0 {
                parts.push(format!("{kind} {n}"));
            }
        }
    }
    parts.extend(other.iter().map(|(k, v)| format!("{k} {v}")));
    parts.join(", ")
}

/// How a game that ended by passes was settled, in words: `agreement, no stones removed`,
/// `referee after 3 resumptions of play, 18 stones removed`, `all-alive`. None for a game that
/// ended otherwise (or whose line predates the settlement's record).
#[must_use]
pub fn settlement_detail(report: &GameLine) -> Option<String> {
    if report.end != Ending::TwoPasses {
        return None;
    }
    let ending = report.ending.as_deref()?;
    let mut text = ending.to_string();
    match report.resumptions {
        0 => {}
        1 => text.push_str(" after 1 resumption of play"),
        n => {
            let _ = write!(text, " after {n} resumptions of play");
        }
    }
    if ending != "all-alive" {
        match report.removed.len() {
            0 => text.push_str(", no stones removed"),
            1 => text.push_str(", 1 stone removed"),
            n => {
                let _ = write!(text, ", {n} stones removed");
            }
        }
    }
    Some(text)
}

/// All a game's line says of how it ended beyond its end's name: the settlement of a game
/// ended by passes ([`settlement_detail`]), then the detail of a forfeit or an illegal move;
/// empty when there is nothing more to say.
#[must_use]
pub fn end_detail(report: &GameLine) -> String {
    [settlement_detail(report), report.detail.clone()]
        .into_iter()
        .flatten()
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

fn truncate(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// `+12.3`; zero as `+0.0`, never `-0.0`.
fn signed(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        // Adding zero turns -0.0 (and what rounds to it) into +0.0.
        format!("{:+.1}", (x * 10.0).round() / 10.0 + 0.0)
    }
}

/// `+34`, rounded to a whole number; zero as `+0`.
fn signed_whole(x: f64) -> String {
    if x.is_infinite() {
        signed(x)
    } else {
        format!("{:+.0}", x.round() + 0.0)
    }
}

fn number(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        "inf".into()
    }
}

/// Counts of a kind of end in reports (for tests and scripts).
#[must_use]
pub fn count_ends(reports: &[GameLine], kind: Ending) -> usize {
    reports.iter().filter(|r| r.end == kind).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 40: the Elo line reads right for sweeps and for scores too short for an
    /// interval: a bound on the winner's side of 0 once there is one (five games won: p =
    /// 0.05^(1/5) = 0.549, +34), words before that (four games won between equals happen 6% of
    /// the time), and no `-0.0 ± inf`.
    #[test]
    fn the_elo_line_reads_right_for_sweeps_and_short_runs() {
        let line = |w, l, d| elo_line("a", "b", &Wld::new(w, l, d));
        assert_eq!(
            line(5, 0, 0),
            "Elo a vs b: > +34 (95%, every game won), LOS 98.7%"
        );
        assert_eq!(
            line(0, 5, 0),
            "Elo a vs b: < -34 (95%, every game lost), LOS 1.3%"
        );
        assert_eq!(
            line(4, 0, 0),
            "Elo a vs b: every game won, too few games for a 95% bound above 0 (> -19), LOS 97.7%"
        );
        assert_eq!(
            line(0, 4, 0),
            "Elo a vs b: every game lost, too few games for a 95% bound below 0 (< +19), LOS 2.3%"
        );
        assert_eq!(
            line(1, 1, 0),
            "Elo a vs b: +0, too few games for a 95% interval, LOS 50.0%"
        );
        assert_eq!(
            line(0, 0, 2),
            "Elo a vs b: +0 (every game drawn: no interval), LOS -"
        );
        assert_eq!(line(0, 0, 0), "Elo: no games");
        let long = line(60, 40, 0);
        assert!(long.starts_with("Elo a vs b: +70.4 ± 70."), "{long}");
        assert!(!line(50, 50, 0).contains("-0.0"), "{}", line(50, 50, 0));
    }
}
