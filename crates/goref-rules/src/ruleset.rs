//! Rule dimensions as explicit fields, and the presets the reference texts define.

use std::fmt;
use std::str::FromStr;

/// How repetition is prevented or settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KoRule {
    /// A play may not capture a single stone that was played, on the turn just before, to
    /// capture a single stone. Any turn, a pass included, lifts the ban. Cycles longer than two
    /// plays are not prevented: a game under this rule alone need not end.
    Simple,
    /// A play may not recreate any earlier colouring of the whole grid (TT rule 6 and its
    /// footnote).
    PositionalSuperko,
    /// A play may not recreate an earlier colouring with the same player to move (reference 002:
    /// New Zealand rules).
    SituationalSuperko,
    /// Olympiad 3.5 basic ko, where only an intervening play lifts the ban (footnote 2: two
    /// passes do not), and the long cycle rule of 3.6: a play that recreates an earlier
    /// position ends the game, decided by the captures made between the two occurrences.
    LongCycle,
}

impl KoRule {
    /// The names accepted by [`FromStr`].
    pub const NAMES: [&'static str; 4] = ["simple", "positional", "situational", "long-cycle"];

    /// Whether the rule includes the immediate-recapture ban of basic ko.
    #[must_use]
    pub fn has_basic_ko(self) -> bool {
        matches!(self, KoRule::Simple | KoRule::LongCycle)
    }

    /// Whether every game under this rule ends (positions are finite and may not repeat, or a
    /// repetition ends the game).
    #[must_use]
    pub fn games_are_finite(self) -> bool {
        self != KoRule::Simple
    }
}

impl fmt::Display for KoRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KoRule::Simple => "simple",
            KoRule::PositionalSuperko => "positional",
            KoRule::SituationalSuperko => "situational",
            KoRule::LongCycle => "long-cycle",
        })
    }
}

/// A rules name or a komi that cannot be read.
#[derive(Clone, Debug, PartialEq)]
pub enum ParseError {
    /// Not a ko rule's name.
    UnknownKoRule(String),
    /// Not a preset's name.
    UnknownPreset(String),
    /// Komi that is not a number.
    KomiNotANumber(String),
    /// Komi that is not a multiple of 0.5 within ±10000.
    KomiOutOfRange(f64),
    /// Not a result in SGF `RE` form that names its winner and how.
    UnknownResult(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::UnknownResult(r) => {
                write!(f, "'{r}' is not a result: B+R, W+T, B+F, W+3.5, B+ (long cycle), 0 (Draw) or Void")
            }
            ParseError::UnknownKoRule(s) => write!(
                f,
                "unknown ko rule '{s}': expected one of {}",
                KoRule::NAMES.join(", ")
            ),
            ParseError::UnknownPreset(s) => write!(
                f,
                "unknown rules '{s}': expected tromp-taylor, nstt or olympiad"
            ),
            ParseError::KomiNotANumber(s) => write!(f, "komi '{s}' is not a number"),
            ParseError::KomiOutOfRange(v) => write!(
                f,
                "komi {v} is not a multiple of 0.5 between -10000 and 10000"
            ),
        }
    }
}

impl std::error::Error for ParseError {}

impl FromStr for KoRule {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let choices = [
            ("simple", KoRule::Simple),
            ("positional", KoRule::PositionalSuperko),
            ("psk", KoRule::PositionalSuperko),
            ("positional-superko", KoRule::PositionalSuperko),
            ("situational", KoRule::SituationalSuperko),
            ("ssk", KoRule::SituationalSuperko),
            ("situational-superko", KoRule::SituationalSuperko),
            ("long-cycle", KoRule::LongCycle),
            ("olympiad", KoRule::LongCycle),
        ];
        crate::words::one_of(s, &choices).ok_or_else(|| ParseError::UnknownKoRule(s.to_string()))
    }
}

/// Komi in half points, so that every value is exact (Olympiad 3.8: `score = black - (white +
/// komi)`); any multiple of 0.5, negative allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Komi(i32);

impl Komi {
    /// No komi.
    pub const ZERO: Komi = Komi(0);

    /// Komi from a number of half points.
    #[must_use]
    pub const fn from_half_points(half: i32) -> Komi {
        Komi(half)
    }

    /// Komi in half points.
    #[must_use]
    pub const fn half_points(self) -> i32 {
        self.0
    }

    /// Komi from a number that must be a multiple of 0.5 within ±10000.
    ///
    /// # Errors
    ///
    /// [`ParseError::KomiOutOfRange`] for any other number.
    pub fn from_f64(value: f64) -> Result<Komi, ParseError> {
        let half = value * 2.0;
        if !half.is_finite() || half.fract() != 0.0 || half.abs() > 20_000.0 {
            return Err(ParseError::KomiOutOfRange(value));
        }
        Ok(Komi(half as i32))
    }

    /// Komi as a number.
    #[must_use]
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl fmt::Display for Komi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", HalfPoints(self.0))
    }
}

impl FromStr for Komi {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let value: f64 = s
            .trim()
            .parse()
            .map_err(|_| ParseError::KomiNotANumber(s.to_string()))?;
        Komi::from_f64(value)
    }
}

/// Prints a count of half points as a decimal: `7`, `7.5`, `-0.5`.
pub(crate) struct HalfPoints(pub i32);

impl fmt::Display for HalfPoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        if abs.is_multiple_of(2) {
            write!(f, "{sign}{}", abs / 2)
        } else {
            write!(f, "{sign}{}.5", abs / 2)
        }
    }
}

/// The named rulesets of the reference texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Tromp-Taylor rules 1-10 (references 000, 002): suicide allowed, positional superko.
    TrompTaylor,
    /// No-Suicide Tromp-Taylor (reference 004, comment 7b).
    Nstt,
    /// Computer Olympiad rules (reference 001, section 3), komi 7.5.
    Olympiad,
}

impl Preset {
    /// All presets.
    pub const ALL: [Preset; 3] = [Preset::TrompTaylor, Preset::Nstt, Preset::Olympiad];

    /// The command-line name: `tromp-taylor`, `nstt`, `olympiad`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Preset::TrompTaylor => "tromp-taylor",
            Preset::Nstt => "nstt",
            Preset::Olympiad => "olympiad",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::words::one_of(s, &Preset::ALL.map(|p| (p.name(), p)))
            .ok_or_else(|| ParseError::UnknownPreset(s.to_string()))
    }
}

/// Every rule dimension that differs between the texts, as one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ruleset {
    /// Repetition rule.
    pub ko: KoRule,
    /// Whether a play may remove its own string (TT rule 7) or is illegal (Olympiad 3.5).
    pub suicide_allowed: bool,
    /// Points added to White's area score.
    pub komi: Komi,
}

impl Ruleset {
    /// Tromp-Taylor: suicide allowed, positional superko, no komi (the rules set none).
    pub const TROMP_TAYLOR: Ruleset = Ruleset {
        ko: KoRule::PositionalSuperko,
        suicide_allowed: true,
        komi: Komi::ZERO,
    };

    /// No-Suicide Tromp-Taylor.
    pub const NSTT: Ruleset = Ruleset {
        ko: KoRule::PositionalSuperko,
        suicide_allowed: false,
        komi: Komi::ZERO,
    };

    /// Computer Olympiad: no suicide, basic ko and the long cycle rule, komi 7.5.
    pub const OLYMPIAD: Ruleset = Ruleset {
        ko: KoRule::LongCycle,
        suicide_allowed: false,
        komi: Komi::from_half_points(15),
    };

    /// The ruleset of a preset.
    #[must_use]
    pub fn preset(preset: Preset) -> Ruleset {
        match preset {
            Preset::TrompTaylor => Ruleset::TROMP_TAYLOR,
            Preset::Nstt => Ruleset::NSTT,
            Preset::Olympiad => Ruleset::OLYMPIAD,
        }
    }

    /// The same rules with another komi.
    #[must_use]
    pub fn with_komi(self, komi: Komi) -> Ruleset {
        Ruleset { komi, ..self }
    }

    /// The preset these rules follow, komi aside.
    #[must_use]
    pub fn preset_name(&self) -> Option<Preset> {
        Preset::ALL.into_iter().find(|&p| {
            let r = Ruleset::preset(p);
            r.ko == self.ko && r.suicide_allowed == self.suicide_allowed
        })
    }
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.preset_name() {
            Some(p) => write!(f, "{p}"),
            None => write!(
                f,
                "ko={} suicide={}",
                self.ko,
                if self.suicide_allowed {
                    "allowed"
                } else {
                    "illegal"
                }
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn komi_is_exact_in_half_points() {
        assert_eq!("7.5".parse::<Komi>().unwrap().half_points(), 15);
        assert_eq!("-0.5".parse::<Komi>().unwrap().to_string(), "-0.5");
        assert_eq!("6".parse::<Komi>().unwrap().to_string(), "6");
        assert!("7.25".parse::<Komi>().is_err());
        assert!("NaN".parse::<Komi>().is_err());
    }

    #[test]
    fn presets_round_trip_by_name() {
        for p in Preset::ALL {
            assert_eq!(p.name().parse::<Preset>().unwrap(), p);
            assert_eq!(Ruleset::preset(p).preset_name(), Some(p));
        }
        assert_eq!(Ruleset::OLYMPIAD.komi.to_string(), "7.5");
    }
}
