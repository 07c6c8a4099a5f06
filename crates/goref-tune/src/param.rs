//! The parameters to tune, as `--param NAME=START,MIN:MAX[,C_END[,R_END]]` gives them
//! (fishtest's parameter line, `name,start,min,max,c_end,r_end`, with the range written
//! `MIN:MAX`): outside text, read without a panic; an error says what is wrong and where.

use serde::{Deserialize, Serialize};

use crate::{Error, ErrorKind};

/// One parameter to tune.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// Its name: `{NAME}` in the engine's command, `{name}` in `--set`.
    pub name: String,
    /// Where the tune starts.
    pub start: f64,
    /// The lowest value the engine is given.
    pub min: f64,
    /// The highest.
    pub max: f64,
    /// Whether the engine takes whole numbers only: START, MIN and MAX were all written as
    /// integers (`10,0:100`, not `10.0,0:100`). The engine is then given θ ± c·Δ rounded
    /// (half away from zero), and the result is reported rounded.
    pub integer: bool,
    /// The perturbation at the last step, when given (else [`Param::default_c_end`]).
    #[serde(default)]
    pub c_end: Option<f64>,
    /// The learning rate at the last step, `a_end / c_end²`, when given (else the schedule's).
    #[serde(default)]
    pub r_end: Option<f64>,
}

/// Names a parameter may not take: the game runner substitutes them in engine commands.
const RESERVED: [&str; 2] = ["game", "color"];

impl Param {
    /// The perturbation at the last step unless given: a twentieth of the range (fishtest's
    /// guides suggest a c_end of the size of the smallest change that matters; a twentieth
    /// keeps θ ± c inside a tenth of the range), and at least 1 for an integer parameter, so
    /// that θ + c and θ − c never round to the same value.
    #[must_use]
    pub fn default_c_end(&self) -> f64 {
        let c = (self.max - self.min) / 20.0;
        if self.integer {
            c.max(1.0)
        } else {
            c
        }
    }

    /// `value` clamped to the range, and rounded for an integer parameter: what the engine is
    /// given.
    ///
    /// ```
    /// let p: goref_tune::Param = "x=10,0:100".parse().unwrap();
    /// assert_eq!(p.engine_value(-3.0), 0.0);
    /// assert_eq!(p.engine_value(41.5), 42.0);
    /// assert_eq!(p.engine_value(141.5), 100.0);
    /// ```
    #[must_use]
    pub fn engine_value(&self, value: f64) -> f64 {
        let v = value.clamp(self.min, self.max);
        if self.integer {
            v.round()
        } else {
            v
        }
    }

    /// `value` as the engine reads it: a whole number without a point for an integer
    /// parameter, else Rust's shortest exact form.
    #[must_use]
    pub fn show(&self, value: f64) -> String {
        let v = self.engine_value(value);
        if self.integer {
            format!("{v:.0}")
        } else {
            format!("{v}")
        }
    }
}

impl std::str::FromStr for Param {
    type Err = Error;

    /// Reads `NAME=START,MIN:MAX[,C_END[,R_END]]`.
    ///
    /// ```
    /// let p: goref_tune::Param = "komi_bonus=-2.5,-10:10".parse().unwrap();
    /// assert_eq!((p.start, p.min, p.max, p.integer), (-2.5, -10.0, 10.0, false));
    /// let e = "x=10,100:0".parse::<goref_tune::Param>().unwrap_err();
    /// assert_eq!(e.to_string(), "--param x=10,100:0: MIN 100 is not below MAX 0 (at character 6)");
    /// ```
    fn from_str(text: &str) -> Result<Param, Error> {
        // `at` is a byte offset (always a character's start): said as a character, from 1.
        let bad = |at: usize, why: String| {
            Error::from(ErrorKind::Param {
                text: text.to_string(),
                at: text.get(..at).map_or(at, |s| s.chars().count()) + 1,
                why,
            })
        };
        let Some((name, rest)) = text.split_once('=') else {
            return Err(bad(
                0,
                "expected NAME=START,MIN:MAX (no '=' after the name)".into(),
            ));
        };
        if name.is_empty() {
            return Err(bad(0, "the name is empty".into()));
        }
        if let Some((i, c)) = name.char_indices().find(|&(i, c)| {
            !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
                || (i == 0 && !(c.is_ascii_alphabetic() || c == '_'))
        }) {
            return Err(bad(
                i,
                format!(
                    "'{c}' in the name (a name is a letter or '_', then letters, digits, '_', \
                     '-' or '.')"
                ),
            ));
        }
        if RESERVED.contains(&name) {
            return Err(bad(
                0,
                format!("'{name}' is a name goref substitutes itself ({{game}}, {{color}})"),
            ));
        }
        // The fields after '=', each with where it starts.
        let mut fields = Vec::new();
        let mut at = name.len() + 1;
        for field in rest.split(',') {
            fields.push((field, at));
            at += field.len() + 1;
        }
        let number = |(field, at): (&str, usize), what: &str| -> Result<f64, Error> {
            let t = field.trim();
            if t.is_empty() {
                return Err(bad(at, format!("{what} is missing")));
            }
            match t.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => Err(bad(at, format!("{what} '{t}' is not a number"))),
            }
        };
        if fields.len() < 2 {
            return Err(bad(
                at - 1,
                "expected START,MIN:MAX after the '=' (no ',' after the start value)".into(),
            ));
        }
        if fields.len() > 4 {
            return Err(bad(
                fields[4].1,
                "too many fields: NAME=START,MIN:MAX[,C_END[,R_END]]".into(),
            ));
        }
        let start = number(fields[0], "START")?;
        let (range, range_at) = fields[1];
        let Some((lo, hi)) = range.split_once(':') else {
            return Err(bad(
                range_at,
                format!("expected MIN:MAX, found '{range}' (no ':')"),
            ));
        };
        let min = number((lo, range_at), "MIN")?;
        let max = number((hi, range_at + lo.len() + 1), "MAX")?;
        if min >= max {
            return Err(bad(range_at, format!("MIN {min} is not below MAX {max}")));
        }
        if !(min..=max).contains(&start) {
            return Err(bad(
                fields[0].1,
                format!("START {start} is outside MIN:MAX {min}:{max}"),
            ));
        }
        let positive = |field: (&str, usize), what: &str| -> Result<f64, Error> {
            let v = number(field, what)?;
            if v > 0.0 {
                Ok(v)
            } else {
                Err(bad(field.1, format!("{what} {v} is not positive")))
            }
        };
        let c_end = fields.get(2).map(|&f| positive(f, "C_END")).transpose()?;
        let r_end = fields.get(3).map(|&f| positive(f, "R_END")).transpose()?;
        let whole = |t: &str| t.trim().parse::<i64>().is_ok();
        Ok(Param {
            name: name.to_string(),
            start,
            min,
            max,
            integer: whole(fields[0].0) && whole(lo) && whole(hi),
            c_end,
            r_end,
        })
    }
}

/// Checks a set of parameters (as a stored state gives them): at least one, no name twice,
/// each a name and a range with its start inside, its constants positive.
///
/// # Errors
///
/// [`ErrorKind::NoParams`], [`ErrorKind::DuplicateParam`], [`ErrorKind::Schedule`].
pub fn check(params: &[Param]) -> Result<(), Error> {
    if params.is_empty() {
        return Err(ErrorKind::NoParams.into());
    }
    for (i, p) in params.iter().enumerate() {
        if params[..i].iter().any(|q| q.name == p.name) {
            return Err(ErrorKind::DuplicateParam(p.name.clone()).into());
        }
        let positive = |v: Option<f64>| v.is_none_or(|v| v.is_finite() && v > 0.0);
        let whole = p.min.is_finite()
            && p.max.is_finite()
            && p.min < p.max
            && (p.min..=p.max).contains(&p.start)
            && positive(p.c_end)
            && positive(p.r_end)
            && !p.name.is_empty();
        if !whole {
            return Err(ErrorKind::Schedule(format!(
                "parameter '{}' is not a name, a range MIN < MAX with START inside, and                  positive constants",
                p.name
            ))
            .into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        text.parse::<Param>().unwrap_err().to_string()
    }

    #[test]
    fn reads_integers_reals_and_the_optional_constants() {
        let p: Param = "x=10,0:100".parse().unwrap();
        assert_eq!(
            p,
            Param {
                name: "x".into(),
                start: 10.0,
                min: 0.0,
                max: 100.0,
                integer: true,
                c_end: None,
                r_end: None,
            }
        );
        assert_eq!(p.default_c_end(), 5.0);
        let p: Param = "Lambda.1=0.5, 0 : 1 ,0.02,0.5".parse().unwrap();
        assert!(!p.integer);
        assert_eq!((p.c_end, p.r_end), (Some(0.02), Some(0.5)));
        assert!((p.default_c_end() - 0.05).abs() < 1e-12);
        // A small integer range still perturbs by 1.
        let p: Param = "n=2,0:4".parse().unwrap();
        assert_eq!(p.default_c_end(), 1.0);
        assert_eq!(p.show(2.5), "3");
        assert_eq!(p.show(-7.0), "0");
    }

    #[test]
    fn bad_input_says_what_and_where() {
        assert_eq!(
            err("x"),
            "--param x: expected NAME=START,MIN:MAX (no '=' after the name) (at character 1)"
        );
        assert_eq!(
            err("=1,0:2"),
            "--param =1,0:2: the name is empty (at character 1)"
        );
        assert!(
            err("x y=1,0:2").contains("' ' in the name"),
            "{}",
            err("x y=1,0:2")
        );
        assert!(err("x y=1,0:2").ends_with("(at character 2)"));
        assert!(err("9x=1,0:2").contains("(at character 1)"));
        assert!(err("game=1,0:2").contains("goref substitutes itself"));
        assert_eq!(
            err("x=10"),
            "--param x=10: expected START,MIN:MAX after the '=' (no ',' after the start value) \
             (at character 5)"
        );
        assert_eq!(
            err("x=abc,0:100"),
            "--param x=abc,0:100: START 'abc' is not a number (at character 3)"
        );
        assert_eq!(
            err("x=10,0-100"),
            "--param x=10,0-100: expected MIN:MAX, found '0-100' (no ':') (at character 6)"
        );
        assert_eq!(
            err("x=10,0:zz"),
            "--param x=10,0:zz: MAX 'zz' is not a number (at character 8)"
        );
        assert_eq!(
            err("x=10,0:"),
            "--param x=10,0:: MAX is missing (at character 8)"
        );
        assert_eq!(
            err("x=200,0:100"),
            "--param x=200,0:100: START 200 is outside MIN:MAX 0:100 (at character 3)"
        );
        assert_eq!(
            err("x=1,0:2,-1"),
            "--param x=1,0:2,-1: C_END -1 is not positive (at character 9)"
        );
        assert!(err("x=1,0:2,1,1,1").contains("too many fields"));
        assert!(err("x=inf,0:2").contains("not a number"));
        assert!(err("x=NaN,0:2").contains("not a number"));
        // Never a panic, whatever the bytes.
        for text in [
            "", "=", ",", ":", "x=,:", "x=1,:", "x=é,0:1", "é=1,0:1", "x=1,0:1,",
        ] {
            let _ = text.parse::<Param>();
        }
    }

    #[test]
    fn a_name_twice_or_none_is_refused() {
        let x: Param = "x=1,0:2".parse().unwrap();
        assert_eq!(
            check(&[x.clone(), x.clone()]).unwrap_err().to_string(),
            "--param x: given twice"
        );
        assert!(check(&[]).is_err());
        assert!(check(&[x]).is_ok());
    }
}
