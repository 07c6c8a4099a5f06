//! goref's own third party: the Olympiad's default removal (001 §3.9, crate goref-judge), in
//! place of a referee engine or a tournament director.

use goref_judge::{default_removal, Budget, Disputes, Judge};
use goref_rules::Point;

use crate::referee::{Adjudication, Input, Need, Referee};

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
