//! Game clocks of Go: sudden death, Fischer, Japanese byo-yomi and Canadian overtime.
//!
//! One concept: a [`TimeControl`] (what each player is given) and a value-type [`PlayerClock`]
//! (what one player has left), with pure functions to tell the time available on a turn, to
//! charge a finished turn ([`TimeControl::charge`], `None` when the time ran out) and to show a
//! clock while it runs. A [`GameClock`] holds both players' clocks, which one runs and since
//! when, and charges each turn under one lag policy, for every front end:
//!
//! ```
//! use std::time::Duration;
//! use goref_clock::{GameClock, TimeControl};
//! use goref_rules::Color;
//!
//! let s = Duration::from_secs;
//! let mut clock = GameClock::new(TimeControl::SuddenDeath { main: s(60) }, s(1));
//! clock.start(Color::Black, s(100)); // time is a value: seconds since any fixed moment
//! assert_eq!(clock.deadline(), Some(s(100 + 60 + 1)));
//! clock.charge(Color::Black, s(110), None).unwrap();
//! assert_eq!(clock.left(Color::Black).main, s(50));
//! // A turn that overruns the clock by more than the lag allowance loses on time.
//! clock.start(Color::Black, s(200));
//! assert!(clock.charge(Color::Black, s(252), None).is_err());
//! ```

use std::fmt;
use std::time::Duration;

mod game;
#[cfg(feature = "serde")]
mod wire;

pub use game::{GameClock, OutOfTime};

/// How much time each player has.
///
/// With the `serde` feature it reads and writes as the server's API has it:
/// `{"kind": "byo_yomi", "main_s": 600, "period_s": 30, "periods": 5}` (`none`,
/// `sudden_death`, `fischer` with `increment_s` and an optional `max_s`, `byo_yomi`,
/// `canadian` with `stones`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// No clock.
    None,
    /// All turns in `main`.
    SuddenDeath {
        /// The whole game's time.
        main: Duration,
    },
    /// `main`, plus `increment` after each turn, never above `max` (when given).
    Fischer {
        /// Time at the start.
        main: Duration,
        /// Added after each turn.
        increment: Duration,
        /// The most the clock may hold, if bounded.
        max: Option<Duration>,
    },
    /// `main`, then `periods` periods of `period`: a turn within a period keeps it, each period
    /// overrun is lost, the last one lost loses the game.
    ByoYomi {
        /// Main time.
        main: Duration,
        /// Each period's length.
        period: Duration,
        /// Periods after main time.
        periods: u32,
    },
    /// `main`, then `stones` turns in every period of `period`.
    Canadian {
        /// Main time.
        main: Duration,
        /// Each period's length.
        period: Duration,
        /// Turns to play in each period.
        stones: u32,
    },
}

/// One player's clock.
///
/// With the `serde` feature: `{"main_ms": 59000, "periods": 0}` (whole milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PlayerClock {
    /// Main time left (Canadian overtime: time left in the period).
    pub main: Duration,
    /// Byo-yomi periods left; Canadian: turns left in the period (0 while in main time).
    pub periods: u32,
}

/// A time control that cannot be read or used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeError {
    /// A time above the largest accepted.
    TooLong {
        /// Which time.
        what: &'static str,
        /// Its value.
        value: Duration,
        /// The largest accepted.
        max: Duration,
    },
    /// Not enough time to play at all (what is missing, in words).
    NoTime(&'static str),
    /// Overtime without a main time.
    OvertimeWithoutMain,
    /// More than one kind of overtime.
    TwoOvertimes,
    /// Overtime that is not `TIME/COUNT`.
    NotTimeCount {
        /// Which overtime.
        what: &'static str,
        /// The text given.
        text: String,
    },
    /// A count that is not a positive number.
    BadCount {
        /// Which overtime.
        what: &'static str,
        /// The text given.
        text: String,
    },
    /// A duration that cannot be read.
    Duration {
        /// The text given.
        text: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeError::TooLong { what, value, max } => write!(
                f,
                "{what} {} s is more than {} s",
                value.as_secs_f64(),
                max.as_secs_f64()
            ),
            TimeError::NoTime(why) => f.write_str(why),
            TimeError::OvertimeWithoutMain => {
                f.write_str("overtime needs a main time (use --time 0s for none)")
            }
            TimeError::TwoOvertimes => {
                f.write_str("choose one of Fischer increment, --byoyomi and --canadian")
            }
            TimeError::NotTimeCount { what, text } => {
                write!(f, "{what} '{text}' is not TIME/COUNT")
            }
            TimeError::BadCount { what, text } => {
                write!(f, "{what} '{text}': count must be a positive number")
            }
            TimeError::Duration { text, why } => write!(f, "'{text}' {why}"),
        }
    }
}

impl std::error::Error for TimeError {}

impl TimeControl {
    /// Checks the numbers: every time at most `max`, and enough time to play at all.
    ///
    /// # Errors
    ///
    /// The [`TimeError`] that says which number is wrong.
    pub fn validate(&self, max: Duration) -> Result<(), TimeError> {
        let ok = |v: Duration, what: &'static str| {
            if v > max {
                Err(TimeError::TooLong {
                    what,
                    value: v,
                    max,
                })
            } else {
                Ok(())
            }
        };
        match *self {
            TimeControl::None => Ok(()),
            TimeControl::SuddenDeath { main } => {
                ok(main, "main time")?;
                if main.is_zero() {
                    return Err(TimeError::NoTime("sudden death needs a main time above 0"));
                }
                Ok(())
            }
            TimeControl::Fischer {
                main,
                increment,
                max: cap,
            } => {
                ok(main, "main time")?;
                ok(increment, "increment")?;
                if main.is_zero() && increment.is_zero() {
                    return Err(TimeError::NoTime(
                        "Fischer time needs a main time or an increment above 0",
                    ));
                }
                if let Some(cap) = cap {
                    ok(cap, "maximum time")?;
                    if cap < main {
                        return Err(TimeError::NoTime("the maximum time is below the main time"));
                    }
                }
                Ok(())
            }
            TimeControl::ByoYomi {
                main,
                period,
                periods,
            } => {
                ok(main, "main time")?;
                ok(period, "period")?;
                if period.is_zero() || periods == 0 || periods > 100 {
                    return Err(TimeError::NoTime(
                        "byo-yomi needs periods of at least 1 s, 1 to 100 of them",
                    ));
                }
                Ok(())
            }
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => {
                ok(main, "main time")?;
                ok(period, "period")?;
                if period.is_zero() || stones == 0 || stones > 1000 {
                    return Err(TimeError::NoTime(
                        "Canadian time needs a period of at least 1 s for 1 to 1000 stones",
                    ));
                }
                Ok(())
            }
        }
    }

    /// Whether a clock runs at all.
    #[must_use]
    pub fn is_timed(&self) -> bool {
        *self != TimeControl::None
    }

    /// A player's clock at the start of the game (in main time, even when it is 0).
    #[must_use]
    pub fn initial(&self) -> PlayerClock {
        match *self {
            TimeControl::None => PlayerClock::default(),
            // Without main time, the first Canadian period starts with the game.
            TimeControl::Canadian {
                main,
                period,
                stones,
            } if main.is_zero() => PlayerClock {
                main: period,
                periods: stones,
            },
            TimeControl::SuddenDeath { main }
            | TimeControl::Fischer { main, .. }
            | TimeControl::Canadian { main, .. } => PlayerClock { main, periods: 0 },
            TimeControl::ByoYomi { main, periods, .. } => PlayerClock { main, periods },
        }
    }

    /// The time a player may still use on the current turn before losing on time (`None` when
    /// untimed).
    #[must_use]
    pub fn available(&self, clock: PlayerClock) -> Option<Duration> {
        match *self {
            TimeControl::None => None,
            TimeControl::SuddenDeath { .. } | TimeControl::Fischer { .. } => Some(clock.main),
            TimeControl::ByoYomi { period, .. } => Some(clock.main + period * clock.periods),
            TimeControl::Canadian { period, .. } if clock.periods == 0 => Some(clock.main + period),
            TimeControl::Canadian { .. } => Some(clock.main),
        }
    }

    /// The clock after a turn that used `used`, or `None` when the time ran out.
    #[must_use]
    pub fn charge(&self, clock: PlayerClock, used: Duration) -> Option<PlayerClock> {
        if let Some(available) = self.available(clock) {
            if used > available {
                return None;
            }
        }
        Some(match *self {
            TimeControl::None => clock,
            TimeControl::SuddenDeath { .. } => PlayerClock {
                main: clock.main - used,
                periods: 0,
            },
            TimeControl::Fischer { increment, max, .. } => {
                let mut main = clock.main - used + increment;
                if let Some(max) = max {
                    main = main.min(max);
                }
                PlayerClock { main, periods: 0 }
            }
            TimeControl::ByoYomi { period, .. } => {
                if used <= clock.main {
                    PlayerClock {
                        main: clock.main - used,
                        periods: clock.periods,
                    }
                } else {
                    // Each whole period overrun is lost; the one the turn ended in is kept.
                    let over = used - clock.main;
                    let lost = (over.as_nanos() - 1) / period.as_nanos().max(1);
                    PlayerClock {
                        main: Duration::ZERO,
                        periods: clock.periods.saturating_sub(lost as u32),
                    }
                }
            }
            TimeControl::Canadian { period, stones, .. } => {
                // In main time, a turn that overruns it starts the first period.
                let (left, turns) = if clock.periods == 0 {
                    if used <= clock.main {
                        return Some(PlayerClock {
                            main: clock.main - used,
                            periods: 0,
                        });
                    }
                    (period.saturating_sub(used - clock.main), stones)
                } else {
                    (clock.main - used, clock.periods)
                };
                if turns <= 1 {
                    // The period's last stone: a new period starts.
                    PlayerClock {
                        main: period,
                        periods: stones,
                    }
                } else {
                    PlayerClock {
                        main: left,
                        periods: turns - 1,
                    }
                }
            }
        })
    }

    /// The clock of a player charged `used` but whose turn did not end (what a running clock
    /// shows): main time first, then periods.
    #[must_use]
    pub fn running(&self, clock: PlayerClock, used: Duration) -> PlayerClock {
        match *self {
            TimeControl::ByoYomi { period, .. } if used > clock.main => {
                let over = used - clock.main;
                let lost = over.as_nanos() / period.as_nanos();
                PlayerClock {
                    main: Duration::ZERO,
                    periods: clock.periods.saturating_sub(lost as u32),
                }
            }
            TimeControl::Canadian { period, stones, .. }
                if clock.periods == 0 && used > clock.main =>
            {
                PlayerClock {
                    main: period.saturating_sub(used - clock.main),
                    periods: stones,
                }
            }
            TimeControl::None => clock,
            _ => PlayerClock {
                main: clock.main.saturating_sub(used),
                periods: clock.periods,
            },
        }
    }
}

/// The time a turn is charged: `elapsed` as measured by the referee, less a credit for lag,
/// the credit being what the player's own measure (`think`) says was spent on the wire, at most
/// `lag_allowance`.
#[must_use]
pub fn charged(elapsed: Duration, think: Option<Duration>, lag_allowance: Duration) -> Duration {
    let credit = match think {
        Some(think) => elapsed.saturating_sub(think).min(lag_allowance),
        None => Duration::ZERO,
    };
    elapsed - credit
}

/// The forms people write and the Olympiad's defaults.
impl TimeControl {
    /// The Olympiad's time for a board (reference 001, section 1): 45 minutes sudden death on
    /// 19×19, 30 on 13×13, 10 on 9×9; other sizes scale with the number of points from 9×9.
    #[must_use]
    pub fn olympiad(width: usize, height: usize) -> TimeControl {
        let minutes = match (width, height) {
            (19, 19) => 45,
            (13, 13) => 30,
            (9, 9) => 10,
            _ => (10 * width * height).div_ceil(81).clamp(1, 45) as u64,
        };
        TimeControl::SuddenDeath {
            main: Duration::from_secs(60 * minutes),
        }
    }

    /// Reads the command line's forms: `none`, `10m` (sudden death), `5m+3s` (Fischer), and
    /// with `byoyomi` (`30s/5`: five 30-second periods) or `canadian` (`5m/25`: 25 stones in
    /// five minutes) the overtime after `time`.
    ///
    /// # Errors
    ///
    /// The [`TimeError`] that says which part cannot be read.
    pub fn parse(
        time: &str,
        byoyomi: Option<&str>,
        canadian: Option<&str>,
    ) -> Result<TimeControl, TimeError> {
        let time = time.trim();
        if time.eq_ignore_ascii_case("none") {
            if byoyomi.is_some() || canadian.is_some() {
                return Err(TimeError::OvertimeWithoutMain);
            }
            return Ok(TimeControl::None);
        }
        let (main, increment) = match time.split_once('+') {
            Some((m, i)) => (parse_duration(m)?, Some(parse_duration(i)?)),
            None => (parse_duration(time)?, None),
        };
        let split =
            |text: &str, what: &'static str| -> Result<(Duration, u32), TimeError> {
                let (d, n) = text
                    .split_once('/')
                    .ok_or_else(|| TimeError::NotTimeCount {
                        what,
                        text: text.to_string(),
                    })?;
                let n: u32 = n.trim().parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    TimeError::BadCount {
                        what,
                        text: text.to_string(),
                    }
                })?;
                Ok((parse_duration(d)?, n))
            };
        match (increment, byoyomi, canadian) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => {
                Err(TimeError::TwoOvertimes)
            }
            (Some(increment), None, None) => Ok(TimeControl::Fischer {
                main,
                increment,
                max: None,
            }),
            (None, Some(b), None) => {
                let (period, periods) = split(b, "byo-yomi")?;
                Ok(TimeControl::ByoYomi {
                    main,
                    period,
                    periods,
                })
            }
            (None, None, Some(c)) => {
                let (period, stones) = split(c, "canadian overtime")?;
                Ok(TimeControl::Canadian {
                    main,
                    period,
                    stones,
                })
            }
            (None, None, None) => Ok(TimeControl::SuddenDeath { main }),
        }
    }
}

impl TimeControl {
    /// SGF `TM` (main time in whole seconds) and `OT` (overtime in words), `None` without a
    /// clock.
    #[must_use]
    pub fn sgf_properties(&self) -> Option<(u64, Option<String>)> {
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

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::None => f.write_str("no clock"),
            TimeControl::SuddenDeath { main } => write!(f, "{} sudden death", show(main)),
            TimeControl::Fischer {
                main, increment, ..
            } => {
                write!(f, "{}+{} Fischer", show(main), show(increment))
            }
            TimeControl::ByoYomi {
                main,
                period,
                periods,
            } => write!(f, "{} + {periods}x{} byo-yomi", show(main), show(period)),
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => write!(
                f,
                "{} + {stones} stones/{} Canadian",
                show(main),
                show(period)
            ),
        }
    }
}

/// `90s`, `10m`, `1.5s`.
#[must_use]
pub fn show(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 && s % 60.0 == 0.0 {
        format!("{}m", s / 60.0)
    } else {
        format!("{s}s")
    }
}

/// Reads `10m`, `30s`, `1.5s`, `250ms`, `1h`, or a number of seconds.
///
/// # Errors
///
/// [`TimeError::Duration`] naming the text.
pub fn parse_duration(text: &str) -> Result<Duration, TimeError> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let value: f64 = number.trim().parse().map_err(|_| TimeError::Duration {
        text: text.to_string(),
        why: "is not a duration like 30s, 10m, 250ms",
    })?;
    let scale = match unit {
        "ms" => 0.001,
        "s" | "sec" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(TimeError::Duration {
                text: text.to_string(),
                why: "has an unknown unit (ms, s, m, h)",
            })
        }
    };
    let secs = value * scale;
    if !(0.0..=1e7).contains(&secs) {
        return Err(TimeError::Duration {
            text: text.to_string(),
            why: "is not a duration between 0 and 10^7 s",
        });
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;
    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn command_line_forms_parse() {
        assert_eq!(
            TimeControl::parse("10m", None, None).unwrap(),
            TimeControl::SuddenDeath { main: S(600) }
        );
        assert_eq!(
            TimeControl::parse("5m+3s", None, None).unwrap(),
            TimeControl::Fischer {
                main: S(300),
                increment: S(3),
                max: None
            }
        );
        assert_eq!(
            TimeControl::parse("10m", Some("30s/5"), None).unwrap(),
            TimeControl::ByoYomi {
                main: S(600),
                period: S(30),
                periods: 5
            }
        );
        assert_eq!(
            TimeControl::parse("10m", None, Some("5m/25")).unwrap(),
            TimeControl::Canadian {
                main: S(600),
                period: S(300),
                stones: 25
            }
        );
        assert!(TimeControl::parse("10x", None, None).is_err());
        assert!(TimeControl::parse("1m+1s", Some("30s/5"), None).is_err());
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
    }

    /// Reference 001, section 1: 45, 30 and 10 minutes for 19×19, 13×13 and 9×9.
    #[test]
    fn olympiad_defaults_by_board_size() {
        for (n, minutes) in [(19, 45), (13, 30), (9, 10)] {
            assert_eq!(
                TimeControl::olympiad(n, n),
                TimeControl::SuddenDeath {
                    main: S(60 * minutes)
                }
            );
        }
    }

    #[test]
    fn sudden_death_runs_out_with_the_main_time() {
        let tc = TimeControl::SuddenDeath { main: S(10) };
        let c = tc.charge(tc.initial(), S(6)).unwrap();
        assert_eq!(c.main, S(4));
        assert_eq!(tc.available(c), Some(S(4)));
        assert_eq!(tc.charge(c, MS(4_001)), None);
        assert_eq!(tc.running(c, S(9)).main, Duration::ZERO);
    }

    #[test]
    fn fischer_adds_the_increment_up_to_the_maximum() {
        let tc = TimeControl::Fischer {
            main: S(10),
            increment: S(5),
            max: Some(S(12)),
        };
        let c = tc.initial();
        assert_eq!(c.main, S(10));
        let c = tc.charge(c, S(1)).unwrap();
        assert_eq!(c.main, S(12));
        let c = tc.charge(c, S(9)).unwrap();
        assert_eq!(c.main, S(8));
        assert_eq!(tc.charge(c, MS(8_001)), None);
    }

    #[test]
    fn byo_yomi_keeps_a_period_used_within_it_and_loses_overruns() {
        let tc = TimeControl::ByoYomi {
            main: S(1),
            period: S(10),
            periods: 3,
        };
        let c = tc.initial();
        assert_eq!(tc.available(c), Some(S(31)));
        let c = tc.charge(c, S(11)).unwrap();
        assert_eq!(
            c,
            PlayerClock {
                main: Duration::ZERO,
                periods: 3
            }
        );
        let c = tc.charge(c, S(10)).unwrap();
        assert_eq!(c.periods, 3);
        let c = tc.charge(c, MS(10_001)).unwrap();
        assert_eq!(c.periods, 2);
        assert_eq!(tc.charge(c, MS(20_001)), None);
        assert_eq!(tc.running(c, S(15)).periods, 1);
    }

    #[test]
    fn canadian_gives_so_many_stones_a_period() {
        let tc = TimeControl::Canadian {
            main: S(1),
            period: S(10),
            stones: 2,
        };
        let c = tc.initial();
        assert_eq!(tc.available(c), Some(S(11)));
        // Overrunning main time by 3 s starts the period: 7 s left for one more stone.
        let c = tc.charge(c, S(4)).unwrap();
        assert_eq!(
            c,
            PlayerClock {
                main: S(7),
                periods: 1
            }
        );
        // The period's last stone: a fresh period.
        let c = tc.charge(c, S(6)).unwrap();
        assert_eq!(
            c,
            PlayerClock {
                main: S(10),
                periods: 2
            }
        );
        let c = tc.charge(c, S(9)).unwrap();
        assert_eq!(
            c,
            PlayerClock {
                main: S(1),
                periods: 1
            }
        );
        assert_eq!(tc.charge(c, MS(1_001)), None);
        assert_eq!(
            tc.running(tc.initial(), S(3)),
            PlayerClock {
                main: S(8),
                periods: 2
            }
        );
    }

    #[test]
    fn no_clock_never_runs_out() {
        let tc = TimeControl::None;
        assert!(!tc.is_timed());
        assert_eq!(tc.available(tc.initial()), None);
        assert_eq!(tc.charge(tc.initial(), S(1_000_000)), Some(tc.initial()));
    }

    #[test]
    fn lag_credit_is_bounded_by_the_allowance() {
        assert_eq!(charged(S(5), Some(S(4)), S(2)), S(4));
        assert_eq!(charged(S(5), Some(S(1)), S(2)), S(3));
        assert_eq!(charged(S(5), Some(S(9)), S(2)), S(5));
        assert_eq!(charged(S(5), None, S(2)), S(5));
    }

    #[test]
    fn bad_time_controls_are_refused() {
        let max = S(86_400);
        assert!(TimeControl::SuddenDeath { main: S(0) }
            .validate(max)
            .is_err());
        assert!(TimeControl::ByoYomi {
            main: S(0),
            period: S(0),
            periods: 1
        }
        .validate(max)
        .is_err());
        assert_eq!(
            TimeControl::SuddenDeath { main: S(90_000) }.validate(max),
            Err(TimeError::TooLong {
                what: "main time",
                value: S(90_000),
                max
            })
        );
        assert!(TimeControl::Fischer {
            main: S(60),
            increment: S(2),
            max: None
        }
        .validate(max)
        .is_ok());
    }
}
