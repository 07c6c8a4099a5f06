//! The JSON forms of time controls and clocks (the server's API and stored events).

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{PlayerClock, TimeControl};

/// Seconds: a whole number when whole, else a decimal.
#[derive(Clone, Copy, Debug)]
struct Seconds(Duration);

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.subsec_nanos() == 0 {
            s.serialize_u64(self.0.as_secs())
        } else {
            s.serialize_f64(self.0.as_secs_f64())
        }
    }
}

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        if !(0.0..=1e9).contains(&v) {
            return Err(serde::de::Error::custom(format!(
                "{v} is not a number of seconds from 0 to 10^9"
            )));
        }
        Ok(Seconds(Duration::from_secs_f64(v)))
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Wire {
    // A struct variant, so that unknown fields are refused here too.
    None {},
    SuddenDeath {
        main_s: Seconds,
    },
    Fischer {
        main_s: Seconds,
        increment_s: Seconds,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_s: Option<Seconds>,
    },
    ByoYomi {
        main_s: Seconds,
        period_s: Seconds,
        periods: u32,
    },
    Canadian {
        main_s: Seconds,
        period_s: Seconds,
        stones: u32,
    },
}

impl Serialize for TimeControl {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let wire = match *self {
            TimeControl::None => Wire::None {},
            TimeControl::SuddenDeath { main } => Wire::SuddenDeath {
                main_s: Seconds(main),
            },
            TimeControl::Fischer {
                main,
                increment,
                max,
            } => Wire::Fischer {
                main_s: Seconds(main),
                increment_s: Seconds(increment),
                max_s: max.map(Seconds),
            },
            TimeControl::ByoYomi {
                main,
                period,
                periods,
            } => Wire::ByoYomi {
                main_s: Seconds(main),
                period_s: Seconds(period),
                periods,
            },
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => Wire::Canadian {
                main_s: Seconds(main),
                period_s: Seconds(period),
                stones,
            },
        };
        wire.serialize(s)
    }
}

impl<'de> Deserialize<'de> for TimeControl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Wire::deserialize(d)? {
            Wire::None {} => TimeControl::None,
            Wire::SuddenDeath { main_s } => TimeControl::SuddenDeath { main: main_s.0 },
            Wire::Fischer {
                main_s,
                increment_s,
                max_s,
            } => TimeControl::Fischer {
                main: main_s.0,
                increment: increment_s.0,
                max: max_s.map(|m| m.0),
            },
            Wire::ByoYomi {
                main_s,
                period_s,
                periods,
            } => TimeControl::ByoYomi {
                main: main_s.0,
                period: period_s.0,
                periods,
            },
            Wire::Canadian {
                main_s,
                period_s,
                stones,
            } => TimeControl::Canadian {
                main: main_s.0,
                period: period_s.0,
                stones,
            },
        })
    }
}

#[derive(Serialize, Deserialize)]
struct WireClock {
    main_ms: u64,
    periods: u32,
}

impl Serialize for PlayerClock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WireClock {
            main_ms: u64::try_from(self.main.as_millis()).unwrap_or(u64::MAX),
            periods: self.periods,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for PlayerClock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = WireClock::deserialize(d)?;
        Ok(PlayerClock {
            main: Duration::from_millis(w.main_ms),
            periods: w.periods,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_and_write_the_api_form() {
        for text in [
            r#"{"kind":"none"}"#,
            r#"{"kind":"sudden_death","main_s":60}"#,
            r#"{"kind":"fischer","main_s":10,"increment_s":5,"max_s":12}"#,
            r#"{"kind":"fischer","main_s":1.5,"increment_s":0}"#,
            r#"{"kind":"byo_yomi","main_s":0,"period_s":30,"periods":5}"#,
            r#"{"kind":"canadian","main_s":300,"period_s":300,"stones":25}"#,
        ] {
            let tc: TimeControl = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&tc).unwrap(), text);
        }
        assert_eq!(
            serde_json::from_str::<TimeControl>(r#"{"kind":"fischer","main_s":10}"#).ok(),
            None,
            "an increment is required"
        );
        assert!(serde_json::from_str::<TimeControl>(r#"{"kind":"none","x":1}"#).is_err());
        assert!(
            serde_json::from_str::<TimeControl>(r#"{"kind":"sudden_death","main_s":-1}"#).is_err()
        );
        let clock = PlayerClock {
            main: Duration::from_millis(59_000),
            periods: 2,
        };
        let text = serde_json::to_string(&clock).unwrap();
        assert_eq!(text, r#"{"main_ms":59000,"periods":2}"#);
        assert_eq!(serde_json::from_str::<PlayerClock>(&text).unwrap(), clock);
    }
}
