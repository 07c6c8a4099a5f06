//! Clocks kept by the server: sudden death, Fischer and byo-yomi, with a lag allowance.
//!
//! The server charges each turn the time between the turn's start (the previous stored event)
//! and the arrival of the player's message, less a credit for network lag: the page reports how
//! long the player thought (`think_ms`, measured in the browser from the moment it showed the
//! position), and the server forgives the difference between its own measure and that report,
//! up to the lag allowance per turn. A player whose time is up is flagged by the server when
//! their remaining time plus the lag allowance has passed.

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
    /// Checks the numbers.
    pub fn validate(&self) -> Result<(), String> {
        let ok = |v: u32, what: &str| {
            if v > MAX_SECONDS {
                Err(format!("{what} {v} s is more than {MAX_SECONDS} s"))
            } else {
                Ok(())
            }
        };
        match *self {
            TimeControl::None => Ok(()),
            TimeControl::SuddenDeath { main_s } => {
                ok(main_s, "main time")?;
                if main_s == 0 {
                    return Err("sudden death needs a main time above 0".into());
                }
                Ok(())
            }
            TimeControl::Fischer {
                main_s,
                increment_s,
                max_s,
            } => {
                ok(main_s, "main time")?;
                ok(increment_s, "increment")?;
                if main_s == 0 && increment_s == 0 {
                    return Err("Fischer time needs a main time or an increment above 0".into());
                }
                if let Some(max) = max_s {
                    ok(max, "maximum time")?;
                    if max < main_s {
                        return Err("the maximum time is below the main time".into());
                    }
                }
                Ok(())
            }
            TimeControl::ByoYomi {
                main_s,
                period_s,
                periods,
            } => {
                ok(main_s, "main time")?;
                ok(period_s, "period")?;
                if period_s == 0 || periods == 0 || periods > 100 {
                    return Err("byo-yomi needs periods of at least 1 s, 1 to 100 of them".into());
                }
                Ok(())
            }
            TimeControl::Canadian {
                main_s,
                period_s,
                stones,
            } => {
                ok(main_s, "main time")?;
                ok(period_s, "period")?;
                if period_s == 0 || stones == 0 || stones > 1000 {
                    return Err(
                        "Canadian time needs a period of at least 1 s for 1 to 1000 stones".into(),
                    );
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

    /// A player's clock at the start of the game.
    #[must_use]
    pub fn initial(&self) -> PlayerClock {
        match *self {
            TimeControl::None => PlayerClock::default(),
            TimeControl::SuddenDeath { main_s }
            | TimeControl::Fischer { main_s, .. }
            | TimeControl::Canadian { main_s, .. } => PlayerClock {
                main_ms: ms(main_s),
                periods: 0,
            },
            TimeControl::ByoYomi {
                main_s, periods, ..
            } => PlayerClock {
                main_ms: ms(main_s),
                periods,
            },
        }
    }

    /// Milliseconds a player may still use on the current turn before losing on time (`None`
    /// when untimed).
    #[must_use]
    pub fn available_ms(&self, clock: PlayerClock) -> Option<u64> {
        match *self {
            TimeControl::None => None,
            TimeControl::SuddenDeath { .. } | TimeControl::Fischer { .. } => Some(clock.main_ms),
            TimeControl::ByoYomi { period_s, .. } => {
                Some(clock.main_ms + u64::from(clock.periods) * ms(period_s))
            }
            TimeControl::Canadian { period_s, .. } if clock.periods == 0 => {
                Some(clock.main_ms + ms(period_s))
            }
            TimeControl::Canadian { .. } => Some(clock.main_ms),
        }
    }

    /// The clock after a turn that used `used_ms`, or `None` when the time ran out.
    #[must_use]
    pub fn charge(&self, clock: PlayerClock, used_ms: u64) -> Option<PlayerClock> {
        if let Some(available) = self.available_ms(clock) {
            if used_ms > available {
                return None;
            }
        }
        Some(match *self {
            TimeControl::None => clock,
            TimeControl::SuddenDeath { .. } => PlayerClock {
                main_ms: clock.main_ms - used_ms,
                periods: 0,
            },
            TimeControl::Fischer {
                increment_s, max_s, ..
            } => {
                let mut main_ms = clock.main_ms - used_ms + ms(increment_s);
                if let Some(max) = max_s {
                    main_ms = main_ms.min(ms(max));
                }
                PlayerClock {
                    main_ms,
                    periods: 0,
                }
            }
            TimeControl::ByoYomi { period_s, .. } => {
                if used_ms <= clock.main_ms {
                    PlayerClock {
                        main_ms: clock.main_ms - used_ms,
                        periods: clock.periods,
                    }
                } else {
                    // Each whole period overrun is lost; the one the turn ended in is kept.
                    let over = used_ms - clock.main_ms;
                    let lost = ((over - 1) / ms(period_s)) as u32;
                    PlayerClock {
                        main_ms: 0,
                        periods: clock.periods - lost,
                    }
                }
            }
            TimeControl::Canadian {
                period_s, stones, ..
            } => {
                // In main time, a turn that overruns it starts the first period.
                let (left, turns) = if clock.periods == 0 {
                    if used_ms <= clock.main_ms {
                        return Some(PlayerClock {
                            main_ms: clock.main_ms - used_ms,
                            periods: 0,
                        });
                    }
                    (ms(period_s) - (used_ms - clock.main_ms), stones)
                } else {
                    (clock.main_ms - used_ms, clock.periods)
                };
                if turns <= 1 {
                    // The period's last stone: a new period starts.
                    PlayerClock {
                        main_ms: ms(period_s),
                        periods: stones,
                    }
                } else {
                    PlayerClock {
                        main_ms: left,
                        periods: turns - 1,
                    }
                }
            }
        })
    }

    /// The clock of a player charged `used_ms` but whose turn did not end (what the page shows
    /// while a clock runs): main time first, then periods.
    #[must_use]
    pub fn running(&self, clock: PlayerClock, used_ms: u64) -> PlayerClock {
        match *self {
            TimeControl::ByoYomi { period_s, .. } if used_ms > clock.main_ms => {
                let over = used_ms - clock.main_ms;
                let lost = (over / ms(period_s)) as u32;
                PlayerClock {
                    main_ms: 0,
                    periods: clock.periods.saturating_sub(lost),
                }
            }
            TimeControl::Canadian {
                period_s, stones, ..
            } if clock.periods == 0 && used_ms > clock.main_ms => PlayerClock {
                main_ms: ms(period_s).saturating_sub(used_ms - clock.main_ms),
                periods: stones,
            },
            TimeControl::None => clock,
            _ => PlayerClock {
                main_ms: clock.main_ms.saturating_sub(used_ms),
                periods: clock.periods,
            },
        }
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
    let credit = match client_think_ms {
        Some(think) => server_elapsed_ms
            .saturating_sub(think)
            .min(lag_allowance_ms),
        None => 0,
    };
    server_elapsed_ms - credit
}

fn ms(seconds: u32) -> u64 {
    u64::from(seconds) * 1000
}

fn minsec(seconds: u32) -> String {
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fischer_adds_the_increment_up_to_the_maximum() {
        let tc = TimeControl::Fischer {
            main_s: 10,
            increment_s: 5,
            max_s: Some(12),
        };
        let c = tc.initial();
        assert_eq!(c.main_ms, 10_000);
        let c = tc.charge(c, 1_000).unwrap();
        assert_eq!(c.main_ms, 12_000);
        let c = tc.charge(c, 9_000).unwrap();
        assert_eq!(c.main_ms, 8_000);
        assert_eq!(tc.charge(c, 8_001), None);
    }

    #[test]
    fn byo_yomi_keeps_a_period_used_within_it_and_loses_overruns() {
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
        let c = tc.charge(c, 10_000).unwrap();
        assert_eq!(c.periods, 3);
        let c = tc.charge(c, 10_001).unwrap();
        assert_eq!(c.periods, 2);
        assert_eq!(tc.charge(c, 20_001), None);
        assert_eq!(tc.running(c, 15_000).periods, 1);
    }

    #[test]
    fn canadian_gives_so_many_stones_a_period() {
        let tc = TimeControl::Canadian {
            main_s: 1,
            period_s: 10,
            stones: 2,
        };
        let c = tc.initial();
        assert_eq!(tc.available_ms(c), Some(11_000));
        // Overrunning main time by 3 s starts the period: 7 s left for one more stone.
        let c = tc.charge(c, 4_000).unwrap();
        assert_eq!(
            c,
            PlayerClock {
                main_ms: 7_000,
                periods: 1
            }
        );
        // The period's last stone: a fresh period.
        let c = tc.charge(c, 6_000).unwrap();
        assert_eq!(
            c,
            PlayerClock {
                main_ms: 10_000,
                periods: 2
            }
        );
        let c = tc.charge(c, 9_000).unwrap();
        assert_eq!(
            c,
            PlayerClock {
                main_ms: 1_000,
                periods: 1
            }
        );
        assert_eq!(tc.charge(c, 1_001), None);
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
        assert!(TimeControl::SuddenDeath { main_s: 90_000 }
            .validate()
            .is_err());
        let parsed: TimeControl =
            serde_json::from_str(r#"{"kind":"fischer","main_s":60,"increment_s":2}"#).unwrap();
        assert!(parsed.validate().is_ok());
    }
}
