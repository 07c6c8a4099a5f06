//! The game record the referee writes: one for every front end.

use goref_rules::Color;
use goref_sgf::{GameRecord, RecordedMove, Territory};

use crate::referee::Referee;

/// What the record says of one player beyond the game itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerInfo {
    /// The name (`PB`/`PW`): a person's, or a program's GTP `name`.
    pub name: String,
    /// A program's GTP `version`.
    pub version: Option<String>,
    /// The command that ran the program (in the root comment).
    pub command: Option<String>,
}

impl PlayerInfo {
    /// A player known by name only.
    #[must_use]
    pub fn named(name: impl Into<String>) -> PlayerInfo {
        PlayerInfo {
            name: name.into(),
            ..PlayerInfo::default()
        }
    }

    /// `name version`, as `PB`/`PW` carry it.
    #[must_use]
    pub fn full_name(&self) -> String {
        match &self.version {
            Some(v) if !v.trim().is_empty() => format!("{} {}", self.name, v.trim()),
            _ => self.name.clone(),
        }
    }
}

/// What the record says beyond the game: the players, the game's name and date.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordInfo {
    /// Black.
    pub black: PlayerInfo,
    /// White.
    pub white: PlayerInfo,
    /// `GN`.
    pub game_name: Option<String>,
    /// `DT` (`YYYY-MM-DD`).
    pub date: Option<String>,
}

/// The date (`YYYY-MM-DD`, SGF `DT`, proleptic Gregorian calendar, UTC) of a moment given in
/// seconds since the Unix epoch.
///
/// ```
/// assert_eq!(goref_referee::sgf_date(0), "1970-01-01");
/// assert_eq!(goref_referee::sgf_date(951_782_400), "2000-02-29");
/// assert_eq!(goref_referee::sgf_date(1_795_392_000), "2026-11-23");
/// ```
#[must_use]
pub fn sgf_date(unix_seconds: u64) -> String {
    // Days to civil date (H. Hinnant's algorithm), for days since 1970-01-01.
    let z = (unix_seconds / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

impl Referee {
    /// The game record: setup (handicap, `HA`), moves with the clocks after them
    /// (`BL`/`WL`, `OB`/`OW`), the notes as comments on the move they follow, the result, the
    /// removed stones and territory (`TB`/`TW`) of a game scored on the board, and in the root
    /// comment how the game ended and the programs' commands. `goref score` of it gives its
    /// `RE` when the game ended on the board.
    #[must_use]
    pub fn record(&self, info: &RecordInfo) -> GameRecord {
        let game = self.game();
        let (width, height) = game.geometry().size().unwrap_or((0, 0));
        let mut record = GameRecord::new(width, height);
        let rules = self.settings().rules;
        record.komi = Some(rules.komi);
        record.rules = Some(
            rules
                .preset_name()
                .map_or_else(|| rules.to_string(), |p| p.name().to_string()),
        );
        record.black_player = Some(info.black.full_name());
        record.white_player = Some(info.white.full_name());
        record.game_name.clone_from(&info.game_name);
        record.date.clone_from(&info.date);
        record.application = Some(format!("goref:{}", env!("CARGO_PKG_VERSION")));
        record.result = self.result().map(|r| r.outcome.to_sgf());
        record.setup = game
            .geometry()
            .points()
            .filter_map(|p| game.start().get(p).map(|c| (c, p)))
            .collect();
        if !record.setup.is_empty() || game.first_player() != Color::Black {
            record.first_player = Some(game.first_player());
        }
        let mut root_notes = Vec::new();
        let handicap = game.start().stone_count(Color::Black);
        if handicap > 0 && game.first_player() == Color::White {
            record.handicap = Some(handicap);
        }
        match self.clock().common_control() {
            Some(control) => {
                if let Some((tm, ot)) = control.sgf_properties() {
                    record.main_time = Some(tm as f64);
                    record.overtime = ot;
                }
            }
            // Time odds: SGF has one TM; the comment says each player's.
            None => root_notes.push(format!(
                "time: Black {}; White {}",
                self.clock().control(Color::Black),
                self.clock().control(Color::White)
            )),
        }
        let left = self.clock_after_moves();
        record.moves = game
            .moves()
            .iter()
            .enumerate()
            .map(|(i, &(color, mv))| {
                let mut m = RecordedMove::new(color, mv);
                if let Some(Some((secs, periods))) = left.get(i) {
                    m.time_left = Some(*secs);
                    m.periods_left = *periods;
                }
                m
            })
            .collect();
        for note in self.notes() {
            match note
                .after
                .checked_sub(1)
                .and_then(|i| record.moves.get_mut(i))
            {
                Some(m) => {
                    let comment = m.comment.get_or_insert_with(String::new);
                    if !comment.is_empty() {
                        comment.push('\n');
                    }
                    comment.push_str(&note.text);
                }
                None => root_notes.push(note.text.clone()),
            }
        }
        let mut comment = match self.result() {
            Some(r) => {
                let mut c = format!("{} ({}", r.outcome.to_sgf(), r.ending.name());
                if let Some(settled) = r.settled {
                    c.push_str(&format!(", {} by {}", self.settings().end, settled.name()));
                }
                c.push(')');
                if let Some(d) = &r.detail {
                    c.push_str(": ");
                    c.push_str(d);
                }
                c
            }
            None => "unfinished".to_string(),
        };
        for (color, p) in [(Color::Black, &info.black), (Color::White, &info.white)] {
            if let Some(cmd) = &p.command {
                comment.push_str(&format!("\n{color}: {cmd}"));
            }
        }
        for n in root_notes {
            comment.push('\n');
            comment.push_str(&n);
        }
        record.comment = Some(comment);
        if let Some(r) = self.result() {
            if matches!(
                r.ending,
                crate::Ending::TwoPasses | crate::Ending::Adjudicated
            ) {
                let removed: Vec<_> = r.removed.iter().copied().collect();
                record.territory = Some(Territory::of(game.board(), &removed));
            }
        }
        record
    }

    /// The record as SGF text.
    #[must_use]
    pub fn sgf(&self, info: &RecordInfo) -> String {
        goref_sgf::write(&self.record(info))
    }
}
