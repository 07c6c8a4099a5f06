//! goref's own third party, in place of a referee engine or a tournament director: the
//! Olympiad's default removal (001 §3.9.2, crate goref-judge), or perfect play (001 §3.9, crate
//! goref-solve) where the position is small enough to prove.

use goref_judge::{default_removal, Budget, Disputes, Judge};
use goref_rules::{Game, Outcome, Point};
use goref_solve::{solve, Options, Verdict};

use crate::referee::{move_name, Adjudication, Input, Need, Referee};

/// The referee's adjudication, decided by 3.9's default removal: the disputed blocks when the
/// players' lists disagree (3.9.2), every block after a loss on time past the minimum number
/// of moves (001 §1). `None` when no adjudication is needed. A judge that fails (it never
/// should) removes no disputed stone, and says so.
#[must_use]
pub fn by_default_removal(referee: &Referee) -> Option<Input> {
    let Need::Adjudication { disputed, reason } = referee.need() else {
        return None;
    };
    let game = referee.game();
    let g = game.geometry();
    let listed: Vec<Point> = disputed.iter().copied().collect();
    let judged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let judge = Judge::of_game(game, Budget::default());
        let disputes = match reason {
            Adjudication::Dispute => Disputes::Lists {
                black: &listed,
                white: &[],
            },
            Adjudication::Timing { .. } => Disputes::All,
        };
        let removal = default_removal(&judge, disputes);
        let verdicts: Vec<String> = removal
            .disputed
            .iter()
            .map(|v| format!("{} {}", g.name(v.block.anchor()), v.verdict.name()))
            .collect();
        (removal.removed, verdicts)
    }));
    let names: Vec<String> = disputed.iter().map(|&p| g.name(p)).collect();
    Some(match judged {
        Ok((removed, verdicts)) => Input::Adjudicate {
            dead: Some(removed),
            note: match reason {
                Adjudication::Dispute => format!(
                    "disputed {}: default removal (Olympiad 3.9.2): {}",
                    names.join(" "),
                    verdicts.join(", ")
                ),
                Adjudication::Timing { .. } => format!(
                    "every block judged by the default removal (Olympiad 3.9.2): {}",
                    verdicts.join(", ")
                ),
            },
        },
        Err(_) => Input::Adjudicate {
            dead: None,
            note: "the default removal failed: no disputed stone removed".into(),
        },
    })
}

/// The referee's adjudication decided by perfect play from the position, with its history
/// (001 §3.9: "the tournament director may decide the outcome of the game based on perfect
/// hypothetical play-out"): when the value is proved within `budget` nodes, a
/// [`Input::PlayOut`] of a principal variation to the end of the game (play resumed after two
/// passes), which the referee plays on the board and scores, so that the record replays to
/// the result. When the proof does not complete within the budget (or the board is beyond the
/// solver), 3.9's default removal, [`by_default_removal`], whose note says that perfect play
/// was not proved and why. `None` when no adjudication is needed.
#[must_use]
pub fn by_perfect_play(referee: &Referee, budget: u64) -> Option<Input> {
    let Need::Adjudication { .. } = referee.need() else {
        return None;
    };
    let mut game = referee.game().clone();
    game.resume();
    let options = Options {
        budget: Some(budget),
        // The table grows as it fills, up to this (tens of megabytes): a referee runs beside
        // the games of a tournament.
        table_entries: 1 << 18,
        principal_variation: true,
        progress: None,
        // One thread: the games of a tournament run beside each other.
        threads: 1,
    };
    let solved = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| solve(&game, &options)));
    let g = game.geometry();
    let why_not = match solved {
        Ok(Ok(report)) => match report.verdict {
            Verdict::Proven(value) => {
                let line: Vec<String> = report.pv.iter().map(|&mv| move_name(g, mv)).collect();
                return Some(Input::PlayOut {
                    note: format!(
                        "perfect play (001 §3.9, goref solve): {value} from here, {} to move, proved in {} nodes; the tournament director plays it out: {}",
                        game.to_move(),
                        report.nodes,
                        if line.is_empty() { "nothing to play".to_string() } else { line.join(" ") }
                    ),
                    moves: report.pv,
                });
            }
            Verdict::Undecided {
                lower: Some(value),
                upper: Some(same),
            } if value == same => format!(
                "perfect play proved {} but found no line to play out within {budget} nodes more",
                value.to_sgf()
            ),
            Verdict::Undecided { lower, upper } => {
                let bound =
                    |b: Option<goref_solve::Value>| b.map_or("?".to_string(), |v| v.to_sgf());
                format!(
                    "perfect play not proved within {budget} nodes (the value lies in {}..{})",
                    bound(lower),
                    bound(upper)
                )
            }
        },
        Ok(Err(e)) => format!("perfect play not searched: {e}"),
        Err(_) => "perfect play failed".to_string(),
    };
    let fallback = by_default_removal(referee)?;
    Some(match fallback {
        Input::Adjudicate { dead, note } => Input::Adjudicate {
            dead,
            note: format!("{why_not}: the default judge decides; {note}"),
        },
        other => other,
    })
}

/// The value under perfect play from `game` (its history included), when the solver proves it
/// within `nodes` nodes (one thread, no line): the result and why, for
/// [`crate::Adjudicate::Perfect`]. `None` when it is not proved, or the board is beyond the
/// solver. The search is deterministic: `goref score` proves it again from the record with
/// the nodes the reason names.
#[must_use]
pub fn perfect_value(game: &Game, nodes: u64) -> Option<(Outcome, String)> {
    let options = Options {
        budget: Some(nodes),
        table_entries: 1 << 16,
        principal_variation: false,
        progress: None,
        threads: 1,
    };
    let solved = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| solve(game, &options)));
    let Ok(Ok(report)) = solved else {
        return None;
    };
    let Verdict::Proven(value) = report.verdict else {
        return None;
    };
    let outcome = value.to_sgf().parse::<Outcome>().ok()?;
    Some((
        outcome,
        format!(
            "decided by perfect play (001 §3.9, goref solve): {value} from here, {} to move, proved in {} nodes",
            game.to_move(),
            report.nodes
        ),
    ))
}
