//! Game clocks: absolute sudden death (the Olympiad's, section 1), Fischer, Japanese byo-yomi
//! and Canadian overtime. goref measures each `genmove` itself and tells the engines the
//! settings (`time_settings`, `kgs-time_settings`) and the time left (`time_left`).

use std::time::Duration;

pub use goref_clock::{parse_duration, show, TimeControl};

/// How a time control is announced to engines (GTP) and written in records (SGF).
pub trait Announce {
    /// Arguments of GTP `time_settings main byo_yomi_time byo_yomi_stones`.
    fn time_settings(&self) -> Option<String>;
    /// The KGS form, `kgs-time_settings none|absolute|byoyomi|canadian …`.
    fn kgs_time_settings(&self) -> String;
    /// SGF `TM` (main time in seconds) and `OT` (overtime text).
    fn sgf_properties(&self) -> Option<(u64, Option<String>)>;
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

    /// SGF `TM` (main time in seconds) and `OT` (overtime text).
    fn sgf_properties(&self) -> Option<(u64, Option<String>)> {
        match *self {
            TimeControl::None => None,
            TimeControl::SuddenDeath { main } => Some((main.as_secs(), None)),
            TimeControl::Fischer {
                main, increment, ..
            } => Some((main.as_secs(), Some(format!("{} fischer", show(increment))))),
            TimeControl::ByoYomi {
                main,
                period,
                periods,
            } => Some((
                main.as_secs(),
                Some(format!("{periods}x{} byo-yomi", show(period))),
            )),
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => Some((
                main.as_secs(),
                Some(format!("{stones}/{} canadian", show(period))),
            )),
        }
    }
}

/// One player's clock: goref-clock's, with the overtime shown to engines and records, and the
/// lag margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    state: goref_clock::PlayerClock,
    /// Whether the player is in overtime (byo-yomi or Canadian periods).
    overtime: bool,
    /// Whether the player has run out of time.
    flagged: bool,
}

impl Clock {
    /// A full clock.
    #[must_use]
    pub fn new(control: TimeControl) -> Clock {
        let mut state = control.initial();
        let (main, period) = match control {
            TimeControl::ByoYomi { main, period, .. }
            | TimeControl::Canadian { main, period, .. } => (main, period),
            _ => (Duration::MAX, Duration::ZERO),
        };
        // Without main time, the first period starts with the game.
        let overtime = main.is_zero() && period > Duration::ZERO;
        if let (true, TimeControl::Canadian { period, stones, .. }) = (overtime, control) {
            state = goref_clock::PlayerClock {
                main: period,
                periods: stones,
            };
        }
        Clock {
            control,
            state,
            overtime,
            flagged: false,
        }
    }

    /// Whether there is a clock at all.
    #[must_use]
    pub fn is_running(&self) -> bool {
        self.control != TimeControl::None
    }

    /// The longest the next move may take, or `None` without a clock.
    #[must_use]
    pub fn allowance(&self) -> Option<Duration> {
        let available = self.control.available(self.state)?;
        Some(if self.flagged {
            Duration::ZERO
        } else {
            available
        })
    }

    /// Charges a move that took `used`. An overrun of at most `lag` is forgiven (the clock
    /// goes to zero instead). Returns false when the player has run out of time.
    pub fn charge(&mut self, used: Duration, lag: Duration) -> bool {
        let Some(allowance) = self.allowance() else {
            return true;
        };
        if used > allowance + lag {
            self.state = goref_clock::PlayerClock::default();
            self.flagged = true;
            return false;
        }
        if self.flagged {
            return true;
        }
        let used = used.min(allowance);
        if used > self.state.main {
            self.overtime = true;
        }
        self.state = self
            .control
            .charge(self.state, used)
            .expect("a move within the allowance");
        true
    }

    /// In byo-yomi overtime, the time left in the period.
    fn period_left(&self) -> Duration {
        match self.control {
            TimeControl::ByoYomi { period, .. } if !self.flagged => period,
            _ => Duration::ZERO,
        }
    }

    /// Arguments of `time_left COLOR TIME STONES` (GTP 2 §6.3.6: stones 0 in main time), whole
    /// seconds rounded down.
    #[must_use]
    pub fn time_left(&self) -> Option<(u64, u32)> {
        match self.control {
            TimeControl::None => None,
            _ if !self.overtime => Some((self.state.main.as_secs(), 0)),
            TimeControl::ByoYomi { .. } => Some((self.period_left().as_secs(), 1)),
            _ => Some((self.state.main.as_secs(), self.state.periods)),
        }
    }

    /// Seconds left for SGF `BL`/`WL`, and in overtime the periods or stones left (`OB`/`OW`).
    #[must_use]
    pub fn sgf_left(&self) -> Option<(f64, Option<u32>)> {
        match self.control {
            TimeControl::None => None,
            _ if !self.overtime => Some((self.state.main.as_secs_f64(), None)),
            TimeControl::ByoYomi { .. } => {
                Some((self.period_left().as_secs_f64(), Some(self.state.periods)))
            }
            _ => Some((self.state.main.as_secs_f64(), Some(self.state.periods))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;
    const NO_LAG: Duration = Duration::ZERO;

    #[test]
    fn sudden_death_flags_when_main_time_is_gone_and_lag_is_forgiven() {
        let mut c = Clock::new(TimeControl::SuddenDeath { main: S(10) });
        assert!(c.charge(S(6), NO_LAG));
        assert_eq!(c.time_left(), Some((4, 0)));
        // 4.5 s with 1 s lag margin: forgiven, clock at zero.
        assert!(c.charge(Duration::from_millis(4500), S(1)));
        assert_eq!(c.time_left(), Some((0, 0)));
        assert!(!c.charge(Duration::from_millis(1), NO_LAG));
    }

    #[test]
    fn fischer_adds_the_increment_after_each_move() {
        let mut c = Clock::new(TimeControl::Fischer {
            max: None,
            main: S(10),
            increment: S(3),
        });
        assert!(c.charge(S(5), NO_LAG));
        assert_eq!(c.allowance(), Some(S(8)));
        assert!(!c.charge(S(9), NO_LAG));
    }

    #[test]
    fn byo_yomi_keeps_a_period_used_in_part_and_loses_whole_ones() {
        let mut c = Clock::new(TimeControl::ByoYomi {
            main: S(10),
            period: S(30),
            periods: 3,
        });
        assert!(c.charge(S(35), NO_LAG)); // 25 s into the first period: kept
        assert_eq!(c.time_left(), Some((30, 1)));
        assert_eq!(c.allowance(), Some(S(90)));
        assert!(c.charge(S(29), NO_LAG));
        assert_eq!(c.allowance(), Some(S(90)));
        assert!(c.charge(S(45), NO_LAG)); // one period lost
        assert_eq!(c.allowance(), Some(S(60)));
        assert!(!c.charge(S(61), NO_LAG));
    }

    #[test]
    fn canadian_needs_the_stones_within_the_period() {
        let mut c = Clock::new(TimeControl::Canadian {
            main: S(0),
            period: S(10),
            stones: 2,
        });
        assert!(c.charge(S(4), NO_LAG));
        assert_eq!(c.time_left(), Some((6, 1)));
        assert!(c.charge(S(5), NO_LAG)); // two stones in 9 s: a new period
        assert_eq!(c.time_left(), Some((10, 2)));
        assert!(c.charge(S(8), NO_LAG));
        assert!(!c.charge(S(3), NO_LAG)); // 11 s for two stones
    }

    #[test]
    fn without_main_time_overtime_starts_at_once_and_a_flag_empties_the_clock() {
        let mut c = Clock::new(TimeControl::ByoYomi {
            main: S(0),
            period: S(30),
            periods: 2,
        });
        assert_eq!(c.time_left(), Some((30, 1)));
        assert_eq!(c.sgf_left(), Some((30.0, Some(2))));
        let c2 = Clock::new(TimeControl::Canadian {
            main: S(0),
            period: S(60),
            stones: 5,
        });
        assert_eq!(c2.time_left(), Some((60, 5)));
        assert!(!c.charge(S(61), NO_LAG));
        assert_eq!(c.allowance(), Some(Duration::ZERO));
        assert_eq!(c.time_left(), Some((0, 1)));
        assert_eq!(c.sgf_left(), Some((0.0, Some(0))));
    }

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
