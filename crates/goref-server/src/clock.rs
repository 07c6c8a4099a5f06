//! Clocks kept by the server: sudden death, Fischer and byo-yomi, with a lag allowance.
//!
//! The server charges each turn the time between the turn's start (the previous stored event)
//! and the arrival of the player's message, less a credit for network lag: the page reports how
//! long the player thought (`think_ms`, measured in the browser from the moment it showed the
//! position), and the server forgives the difference between its own measure and that report,
//! up to the lag allowance per turn. A player whose time is up is flagged by the server when
//! their remaining time plus the lag allowance has passed.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The time control of a game, as chosen when it is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeControl {
    /// No clock.
    None,
    /// One period of `main_s` seconds for the whole game.
    SuddenDeath { main_s: u32 },
    /// `main_s` seconds, plus `increment_s` seconds after each turn, never above `max_s` (when
    /// given).
    Fischer {
        main_s: u32,
        increment_s: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_s: Option<u32>,
    },
    /// `main_s` seconds, then `periods` periods of `period_s` seconds: a turn within a period
    /// keeps it, each period overrun is lost, the last one lost loses the game.
    ByoYomi {
        main_s: u32,
        period_s: u32,
        periods: u32,
    },
    /// `main_s` seconds, then `stones` turns in every period of `period_s` seconds.
    Canadian {
        main_s: u32,
        period_s: u32,
        stones: u32,
    },
}

/// The largest main time, period or increment accepted (one day).
pub const MAX_SECONDS: u32 = 86_400;

/// One player's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PlayerClock {
    /// Main time left, in milliseconds (Canadian overtime: time left in the period).
    pub main_ms: u64,
    /// Byo-yomi periods left; Canadian: turns left in the period (0 while in main time).
    pub periods: u32,
}

impl TimeControl {
    /// The same time control for the shared clock logic.
    #[must_use]
    pub fn to_clock(&self) -> goref_clock::TimeControl {
        let s = |seconds: u32| Duration::from_secs(u64::from(seconds));
        match *self {
            TimeControl::None => goref_clock::TimeControl::None,
            TimeControl::SuddenDeath { main_s } => {
                goref_clock::TimeControl::SuddenDeath { main: s(main_s) }
            }
            TimeControl::Fischer {
                main_s,
                increment_s,
                max_s,
            } => goref_clock::TimeControl::Fischer {
                main: s(main_s),
                increment: s(increment_s),
                max: max_s.map(s),
            },
            TimeControl::ByoYomi {
                main_s,
                period_s,
                periods,
            } => goref_clock::TimeControl::ByoYomi {
                main: s(main_s),
                period: s(period_s),
                periods,
            },
            TimeControl::Canadian {
                main_s,
                period_s,
                stones,
            } => goref_clock::TimeControl::Canadian {
                main: s(main_s),
                period: s(period_s),
                stones,
            },
        }
    }

    /// Checks the numbers.
    pub fn validate(&self) -> Result<(), String> {
        self.to_clock()
            .validate(Duration::from_secs(u64::from(MAX_SECONDS)))
    }

    /// Whether a clock runs at all.
    #[must_use]
    pub fn is_timed(&self) -> bool {
        *self != TimeControl::None
    }

    /// A player's clock at the start of the game.
    #[must_use]
    pub fn initial(&self) -> PlayerClock {
        self.to_clock().initial().into()
    }

    /// Milliseconds a player may still use on the current turn before losing on time (`None`
    /// when untimed).
    #[must_use]
    pub fn available_ms(&self, clock: PlayerClock) -> Option<u64> {
        self.to_clock().available(clock.into()).map(millis)
    }

    /// The clock after a turn that used `used_ms`, or `None` when the time ran out.
    #[must_use]
    pub fn charge(&self, clock: PlayerClock, used_ms: u64) -> Option<PlayerClock> {
        self.to_clock()
            .charge(clock.into(), Duration::from_millis(used_ms))
            .map(PlayerClock::from)
    }

    /// The clock of a player charged `used_ms` but whose turn did not end (what the page shows
    /// while a clock runs): main time first, then periods.
    #[must_use]
    pub fn running(&self, clock: PlayerClock, used_ms: u64) -> PlayerClock {
        self.to_clock()
            .running(clock.into(), Duration::from_millis(used_ms))
            .into()
    }

    /// A short description: `5:00 + 10 s`, `10:00 + 5 × 30 s`.
    #[must_use]
    pub fn describe(&self) -> String {
        match *self {
            TimeControl::None => "no clock".into(),
            TimeControl::SuddenDeath { main_s } => format!("{} sudden death", minsec(main_s)),
            TimeControl::Fischer {
                main_s,
                increment_s,
                max_s,
            } => match max_s {
                Some(max) => format!(
                    "{} + {increment_s} s Fischer (max {})",
                    minsec(main_s),
                    minsec(max)
                ),
                None => format!("{} + {increment_s} s Fischer", minsec(main_s)),
            },
            TimeControl::ByoYomi {
                main_s,
                period_s,
                periods,
            } => format!("{} + {periods} × {period_s} s byo-yomi", minsec(main_s)),
            TimeControl::Canadian {
                main_s,
                period_s,
                stones,
            } => format!(
                "{} + {stones} stones in {} Canadian",
                minsec(main_s),
                minsec(period_s)
            ),
        }
    }
}

/// The time a turn is charged: the server's measure less a credit for lag, the credit being
/// what the client's own measure says was spent on the wire, at most `lag_allowance_ms`.
#[must_use]
pub fn charged_ms(
    server_elapsed_ms: u64,
    client_think_ms: Option<u64>,
    lag_allowance_ms: u64,
) -> u64 {
    millis(goref_clock::charged(
        Duration::from_millis(server_elapsed_ms),
        client_think_ms.map(Duration::from_millis),
        Duration::from_millis(lag_allowance_ms),
    ))
}

impl From<goref_clock::PlayerClock> for PlayerClock {
    fn from(c: goref_clock::PlayerClock) -> PlayerClock {
        PlayerClock {
            main_ms: millis(c.main),
            periods: c.periods,
        }
    }
}

impl From<PlayerClock> for goref_clock::PlayerClock {
    fn from(c: PlayerClock) -> goref_clock::PlayerClock {
        goref_clock::PlayerClock {
            main: Duration::from_millis(c.main_ms),
            periods: c.periods,
        }
    }
}

/// Whole milliseconds (the server's clocks never hold less).
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn minsec(seconds: u32) -> String {
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The logic is goref-clock's (tested there); here, its milliseconds and JSON.
    #[test]
    fn clocks_are_charged_in_milliseconds() {
        let tc: TimeControl =
            serde_json::from_str(r#"{"kind":"fischer","main_s":10,"increment_s":5,"max_s":12}"#)
                .unwrap();
        assert_eq!(
            serde_json::to_string(&tc).unwrap(),
            r#"{"kind":"fischer","main_s":10,"increment_s":5,"max_s":12}"#
        );
        let c = tc.initial();
        assert_eq!(c.main_ms, 10_000);
        let c = tc.charge(c, 1_000).unwrap();
        assert_eq!(c.main_ms, 12_000);
        let c = tc.charge(c, 9_000).unwrap();
        assert_eq!(c.main_ms, 8_000);
        assert_eq!(tc.charge(c, 8_001), None);

        let tc = TimeControl::ByoYomi {
            main_s: 1,
            period_s: 10,
            periods: 3,
        };
        let c = tc.initial();
        assert_eq!(tc.available_ms(c), Some(31_000));
        let c = tc.charge(c, 11_000).unwrap();
        assert_eq!(
            c,
            PlayerClock {
                main_ms: 0,
                periods: 3
            }
        );
        let c = tc.charge(c, 10_001).unwrap();
        assert_eq!(c.periods, 2);
        assert_eq!(tc.running(c, 15_000).periods, 1);
        assert_eq!(TimeControl::None.available_ms(c), None);

        let tc = TimeControl::Canadian {
            main_s: 1,
            period_s: 10,
            stones: 2,
        };
        assert_eq!(
            tc.charge(tc.initial(), 4_000),
            Some(PlayerClock {
                main_ms: 7_000,
                periods: 1
            })
        );
    }

    #[test]
    fn lag_credit_is_bounded_by_the_allowance() {
        assert_eq!(charged_ms(5_000, Some(4_000), 2_000), 4_000);
        assert_eq!(charged_ms(5_000, Some(1_000), 2_000), 3_000);
        assert_eq!(charged_ms(5_000, Some(9_000), 2_000), 5_000);
        assert_eq!(charged_ms(5_000, None, 2_000), 5_000);
    }

    #[test]
    fn bad_time_controls_are_refused() {
        assert!(TimeControl::SuddenDeath { main_s: 0 }.validate().is_err());
        assert!(TimeControl::ByoYomi {
            main_s: 0,
            period_s: 0,
            periods: 1
        }
        .validate()
        .is_err());
        assert_eq!(
            TimeControl::SuddenDeath { main_s: 90_000 }.validate(),
            Err("main time 90000 s is more than 86400 s".into())
        );
        let parsed: TimeControl =
            serde_json::from_str(r#"{"kind":"fischer","main_s":60,"increment_s":2}"#).unwrap();
        assert!(parsed.validate().is_ok());
    }
}
