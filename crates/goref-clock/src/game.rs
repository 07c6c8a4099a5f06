//! Both players' clocks in one game: who runs, since when, and one lag policy.

use std::time::Duration;

use goref_rules::{ByColor, Color};

use crate::{PlayerClock, TimeControl};

/// A turn that took longer than the player had, lag allowance included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfTime {
    /// The player whose time ran out.
    pub by: Color,
    /// The time the turn was charged (after the lag credit).
    pub used: Duration,
    /// The time the player had for the turn.
    pub available: Duration,
}

/// The clocks of one game.
///
/// Time is a value passed in (`now`: a [`Duration`] since any fixed moment the caller keeps,
/// such as the Unix epoch or the start of a match); nothing here reads a clock.
///
/// **The lag policy**, the same for every front end: a turn is charged the time the referee
/// measured from the start of the turn to the arrival of the answer, less a credit for lag of
/// at most the allowance. A player that reports how long it thought (a web page) is credited
/// the difference between the referee's measure and its report; a player that reports nothing
/// (an engine over GTP) is credited the overrun of its clock. A player loses on time when the
/// charged time exceeds what the clock had: so at the latest at
/// [`deadline`](GameClock::deadline), the start of the turn plus the available time plus the
/// allowance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameClock {
    control: ByColor<TimeControl>,
    lag: Duration,
    left: ByColor<PlayerClock>,
    running: Option<(Color, Duration)>,
}

impl GameClock {
    /// Full clocks under `control`, none running; `lag` is the lag allowance of each turn.
    #[must_use]
    pub fn new(control: TimeControl, lag: Duration) -> GameClock {
        GameClock::with_controls(ByColor::new(control, control), lag)
    }

    /// Full clocks, each player under its own control (time odds).
    #[must_use]
    pub fn with_controls(control: ByColor<TimeControl>, lag: Duration) -> GameClock {
        GameClock {
            control,
            lag,
            left: control.map(|c| c.initial()),
            running: None,
        }
    }

    /// `color`'s time control.
    #[must_use]
    pub fn control(&self, color: Color) -> TimeControl {
        self.control[color]
    }

    /// The time control both players have, or `None` when they differ.
    #[must_use]
    pub fn common_control(&self) -> Option<TimeControl> {
        (self.control.black == self.control.white).then_some(self.control.black)
    }

    /// The lag allowance of each turn.
    #[must_use]
    pub fn lag(&self) -> Duration {
        self.lag
    }

    /// What `color` has left, as of the start of the running turn.
    #[must_use]
    pub fn left(&self, color: Color) -> PlayerClock {
        self.left[color]
    }

    /// Both players' clocks as of the start of the running turn.
    #[must_use]
    pub fn both(&self) -> ByColor<PlayerClock> {
        self.left
    }

    /// The player whose clock runs, if any (never without a time control).
    #[must_use]
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(c, _)| c)
    }

    /// When the running turn started.
    #[must_use]
    pub fn since(&self) -> Option<Duration> {
        self.running.map(|(_, since)| since)
    }

    /// Starts `color`'s turn at `now` (the other clock stops uncharged). Without a time control
    /// no clock runs.
    pub fn start(&mut self, color: Color, now: Duration) {
        if self.control[color].is_timed() {
            self.running = Some((color, now));
        }
    }

    /// Stops the clocks uncharged (dead-stone lists, a referee's decision: Olympiad 3.10.3).
    pub fn stop(&mut self) {
        self.running = None;
    }

    /// The running turn starts again at `now`, uncharged so far (after a restart of the
    /// server, or when a match runner begins to ask the engine).
    pub fn restart(&mut self, now: Duration) {
        if let Some((_, since)) = &mut self.running {
            *since = now;
        }
    }

    /// Gives `color` `extra` main time (a tournament director's grant, Olympiad 3.10.3). A
    /// running turn keeps running.
    pub fn grant(&mut self, color: Color, extra: Duration) {
        self.left[color].main += extra;
    }

    /// The time the running player may still use on this turn, lag not included.
    #[must_use]
    pub fn available(&self, color: Color) -> Option<Duration> {
        self.control[color].available(self.left[color])
    }

    /// When the running player's time is up, lag allowance included.
    #[must_use]
    pub fn deadline(&self) -> Option<Duration> {
        let (color, since) = self.running?;
        Some(since + self.available(color)? + self.lag)
    }

    /// Ends `by`'s turn at `now`: charges the time under the lag policy and stops the clock.
    /// `think` is the player's own measure of its thinking time, when it reports one. Returns
    /// the time charged. A turn of a player whose clock does not run is charged nothing.
    ///
    /// # Errors
    ///
    /// [`OutOfTime`] when the turn took longer than the player had: the player's clock is then
    /// empty and stopped.
    pub fn charge(
        &mut self,
        by: Color,
        now: Duration,
        think: Option<Duration>,
    ) -> Result<Duration, OutOfTime> {
        let Some((color, since)) = self.running.filter(|&(c, _)| c == by) else {
            return Ok(Duration::ZERO);
        };
        self.running = None;
        let Some(available) = self.available(color) else {
            return Ok(Duration::ZERO);
        };
        let elapsed = now.saturating_sub(since);
        let used = match think {
            Some(think) => crate::charged(elapsed, Some(think), self.lag),
            None if elapsed > available && elapsed <= available + self.lag => available,
            None => elapsed,
        };
        match self.control[color].charge(self.left[color], used) {
            Some(left) => {
                self.left[color] = left;
                Ok(used)
            }
            None => {
                self.left[color] = PlayerClock::default();
                Err(OutOfTime {
                    by: color,
                    used,
                    available,
                })
            }
        }
    }

    /// The running player's time is up: its clock empties and stops. Returns who it was.
    pub fn flag(&mut self) -> Option<Color> {
        let (color, _) = self.running.take()?;
        self.left[color] = PlayerClock::default();
        Some(color)
    }

    /// What a display shows for `color` at `now`: the running clock counts down.
    #[must_use]
    pub fn shown(&self, color: Color, now: Duration) -> PlayerClock {
        match self.running {
            Some((c, since)) if c == color => {
                self.control[color].running(self.left[color], now.saturating_sub(since))
            }
            _ => self.left[color],
        }
    }

    /// Whether `color` is in overtime (byo-yomi or Canadian periods).
    #[must_use]
    pub fn in_overtime(&self, color: Color) -> bool {
        let left = self.left[color];
        match self.control[color] {
            TimeControl::ByoYomi { .. } => left.main.is_zero(),
            TimeControl::Canadian { .. } => left.periods > 0,
            _ => false,
        }
    }

    /// Arguments of GTP `time_left COLOR TIME STONES` for `color` (GTP 2 §6.3.6: stones 0 in
    /// main time; in byo-yomi the period and one stone), whole seconds rounded down.
    #[must_use]
    pub fn gtp_time_left(&self, color: Color) -> Option<(u64, u32)> {
        let left = self.left[color];
        match self.control[color] {
            TimeControl::None => None,
            _ if !self.in_overtime(color) => Some((left.main.as_secs(), 0)),
            TimeControl::ByoYomi { period, .. } if left.periods > 0 => Some((period.as_secs(), 1)),
            TimeControl::ByoYomi { .. } => Some((0, 1)),
            _ => Some((left.main.as_secs(), left.periods)),
        }
    }

    /// Seconds left for SGF `BL`/`WL`, and in overtime the periods or stones left (`OB`/`OW`).
    #[must_use]
    pub fn sgf_left(&self, color: Color) -> Option<(f64, Option<u32>)> {
        let left = self.left[color];
        match self.control[color] {
            TimeControl::None => None,
            _ if !self.in_overtime(color) => Some((left.main.as_secs_f64(), None)),
            TimeControl::ByoYomi { period, .. } if left.periods > 0 => {
                Some((period.as_secs_f64(), Some(left.periods)))
            }
            TimeControl::ByoYomi { .. } => Some((0.0, Some(0))),
            _ => Some((left.main.as_secs_f64(), Some(left.periods))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;
    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn an_unreported_overrun_within_the_lag_allowance_empties_the_clock() {
        let mut c = GameClock::new(TimeControl::SuddenDeath { main: S(10) }, S(1));
        c.start(Color::Black, S(0));
        assert_eq!(c.charge(Color::Black, S(6), None), Ok(S(6)));
        assert_eq!(c.gtp_time_left(Color::Black), Some((4, 0)));
        c.start(Color::Black, S(100));
        assert_eq!(c.deadline(), Some(S(105)));
        assert_eq!(c.charge(Color::Black, MS(104_500), None), Ok(S(4)));
        assert_eq!(c.left(Color::Black).main, Duration::ZERO);
        c.start(Color::Black, S(200));
        assert_eq!(
            c.charge(Color::Black, MS(201_001), None),
            Err(OutOfTime {
                by: Color::Black,
                used: MS(1_001),
                available: S(0)
            })
        );
        assert_eq!(c.running(), None);
    }

    #[test]
    fn a_reported_thinking_time_credits_the_wire_time_up_to_the_allowance() {
        let tc = TimeControl::SuddenDeath { main: S(10) };
        let mut c = GameClock::new(tc, S(2));
        c.start(Color::White, S(0));
        // 5 s measured, 4 s reported: 1 s of lag credited.
        assert_eq!(c.charge(Color::White, S(5), Some(S(4))), Ok(S(4)));
        c.start(Color::White, S(0));
        // 5 s measured, 1 s reported: at most 2 s credited.
        assert_eq!(c.charge(Color::White, S(5), Some(S(1))), Ok(S(3)));
        assert_eq!(c.left(Color::White).main, S(3));
        c.start(Color::White, S(0));
        // A report is not a licence to overrun: 4.5 s charged of 3 s left.
        assert!(c.charge(Color::White, MS(6_500), Some(MS(4_500))).is_err());
    }

    #[test]
    fn only_the_running_player_is_charged_and_shown_counting_down() {
        let mut c = GameClock::new(TimeControl::SuddenDeath { main: S(60) }, S(0));
        assert_eq!(c.running(), None);
        c.start(Color::Black, S(10));
        assert_eq!(c.shown(Color::Black, S(25)).main, S(45));
        assert_eq!(c.shown(Color::White, S(25)).main, S(60));
        assert_eq!(c.charge(Color::White, S(30), None), Ok(Duration::ZERO));
        assert_eq!(c.running(), Some(Color::Black));
        c.restart(S(20));
        assert_eq!(c.charge(Color::Black, S(30), None), Ok(S(10)));
        assert_eq!(c.left(Color::Black).main, S(50));
        let mut none = GameClock::new(TimeControl::None, S(1));
        none.start(Color::Black, S(0));
        assert_eq!(none.running(), None);
        assert_eq!(none.deadline(), None);
    }

    #[test]
    fn overtime_is_told_to_engines_and_records() {
        let mut c = GameClock::new(
            TimeControl::ByoYomi {
                main: S(10),
                period: S(30),
                periods: 3,
            },
            S(0),
        );
        assert_eq!(c.gtp_time_left(Color::Black), Some((10, 0)));
        c.start(Color::Black, S(0));
        c.charge(Color::Black, S(35), None).unwrap();
        assert_eq!(c.gtp_time_left(Color::Black), Some((30, 1)));
        assert_eq!(c.sgf_left(Color::Black), Some((30.0, Some(3))));
        let canadian = GameClock::new(
            TimeControl::Canadian {
                main: S(0),
                period: S(60),
                stones: 5,
            },
            S(0),
        );
        assert_eq!(canadian.gtp_time_left(Color::White), Some((60, 5)));
        assert_eq!(canadian.sgf_left(Color::White), Some((60.0, Some(5))));
    }

    /// Time odds: each player under its own control.
    #[test]
    fn each_player_may_have_a_control_of_its_own() {
        let mut c = GameClock::with_controls(
            ByColor::new(
                TimeControl::SuddenDeath { main: S(60) },
                TimeControl::SuddenDeath { main: S(10) },
            ),
            S(0),
        );
        assert_eq!(c.common_control(), None);
        assert_eq!(c.left(Color::Black).main, S(60));
        c.start(Color::White, S(0));
        assert_eq!(c.deadline(), Some(S(10)));
        assert!(c.charge(Color::White, S(11), None).is_err());
        let same = GameClock::new(TimeControl::None, S(0));
        assert_eq!(same.common_control(), Some(TimeControl::None));
    }

    #[test]
    fn a_flag_empties_the_running_clock() {
        let mut c = GameClock::new(TimeControl::SuddenDeath { main: S(5) }, S(1));
        c.start(Color::White, S(0));
        assert_eq!(c.flag(), Some(Color::White));
        assert_eq!(c.left(Color::White), PlayerClock::default());
        assert_eq!(c.flag(), None);
    }
}
