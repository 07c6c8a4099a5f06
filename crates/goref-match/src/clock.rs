//! Game clocks: absolute sudden death (the Olympiad's, section 1), Fischer, Japanese byo-yomi
//! and Canadian overtime. goref measures each `genmove` itself and tells the engines the
//! settings (`time_settings`, `kgs-time_settings`) and the time left (`time_left`).

use std::time::Duration;

pub use goref_clock::{parse_duration, show, TimeControl};

/// How a time control is announced to engines (GTP).
pub trait Announce {
    /// Arguments of GTP `time_settings main byo_yomi_time byo_yomi_stones`.
    fn time_settings(&self) -> Option<String>;
    /// The KGS form, `kgs-time_settings none|absolute|byoyomi|canadian …`.
    fn kgs_time_settings(&self) -> String;
}

impl Announce for TimeControl {
    /// Arguments of GTP `time_settings main byo_yomi_time byo_yomi_stones` (whole seconds;
    /// GTP 2 §6.3.6): absolute time is `M 0 0`; byo-yomi is told as Canadian with one stone;
    /// Fischer as absolute, the increments showing in `time_left`. `None` without a clock.
    fn time_settings(&self) -> Option<String> {
        let s = |d: Duration| d.as_secs();
        match *self {
            TimeControl::None => None,
            TimeControl::SuddenDeath { main } | TimeControl::Fischer { main, .. } => {
                Some(format!("time_settings {} 0 0", s(main)))
            }
            TimeControl::ByoYomi { main, period, .. } => {
                Some(format!("time_settings {} {} 1", s(main), s(period)))
            }
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => Some(format!(
                "time_settings {} {} {}",
                s(main),
                s(period),
                stones
            )),
        }
    }

    /// The KGS form, `kgs-time_settings none|absolute|byoyomi|canadian …`.
    fn kgs_time_settings(&self) -> String {
        let s = |d: Duration| d.as_secs();
        match *self {
            TimeControl::None => "kgs-time_settings none".into(),
            TimeControl::SuddenDeath { main } | TimeControl::Fischer { main, .. } => {
                format!("kgs-time_settings absolute {}", s(main))
            }
            TimeControl::ByoYomi {
                main,
                period,
                periods,
            } => format!(
                "kgs-time_settings byoyomi {} {} {periods}",
                s(main),
                s(period)
            ),
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => format!(
                "kgs-time_settings canadian {} {} {stones}",
                s(main),
                s(period)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn engines_are_told_the_settings_in_both_forms() {
        let b = TimeControl::ByoYomi {
            main: S(600),
            period: S(30),
            periods: 5,
        };
        assert_eq!(b.time_settings().unwrap(), "time_settings 600 30 1");
        assert_eq!(b.kgs_time_settings(), "kgs-time_settings byoyomi 600 30 5");
        assert_eq!(
            TimeControl::SuddenDeath { main: S(60) }
                .time_settings()
                .unwrap(),
            "time_settings 60 0 0"
        );
        assert_eq!(TimeControl::None.time_settings(), None);
    }
}
