//! CGOS's wire: one line of UTF-8 text per message, typed.
//!
//! The server speaks first and drives the dialogue ([`ServerMessage`]); the client answers
//! `protocol`, `username`, `password`, `genmove` and `gameover` ([`ClientMessage`], read in the
//! context of what the server asked: [`Expect`]). A viewer reads lines of its own
//! ([`ViewerMessage`]: `match`, `setup`, `update`, `gameover`) and sends `observe`
//! ([`Expect::Viewer`]). Every message prints as the exact line CGOS
//! sends (without the line end) and reads back to itself; a line that is not a message gives a
//! [`CgosError`] naming what is wrong. Lines are bounded by [`MAX_LINE`].
//!
//! # The dialogue, as zakki/cgos's server runs it
//!
//! Learnt from `server-python/cgos/app/cgos.py` (and `client.py`), for a server that speaks it:
//!
//! - On connection the server sends `protocol genmove_analyze` (`handle_client`). The client's
//!   first line must begin with `e1` (an engine; `genmove_analyze` among its words asks to send
//!   analysis) or `v1` (a viewer, which gives no name and gets `match …` lines at once: see
//!   [`crate::viewer`]); anything else gets `Error: invalid response` and the connection closes
//!   (`_handle_player_protocol`).
//! - `username`: a name of 3 to 18 ASCII letters, digits, `_`, `.`, `-`, not starting with a
//!   digit, else `Error: <why>` and close (`valid_name`). `password`: `<password>` or
//!   `<old> <new>` (a change), at least 3 characters; an unknown name becomes an account on
//!   the spot; a wrong password gets `Error: Sorry, password doesn't match` and close. A
//!   successful login is not acknowledged; an older connection of the same name gets
//!   `info another login is being attempted using this user name` and is closed
//!   (`_handle_player_password`). If the player has a game in progress it gets `setup` with
//!   the moves so far and, on its turn, `genmove` with its clock minus the time since the
//!   last move.
//! - A game: `setup` to both (`init_game`), then, three seconds later, `genmove` to Black
//!   (`start_game`). A move answered is charged `elapsed - timeGift` (never below zero); a
//!   clock below zero loses (`X+Time`, empty text); so does the scheduler's check of the
//!   player to move (`schedule_games`). `resign` gives `X+Resign` with text `Resignation`; a
//!   move that does not read or is illegal gives `X+Illegal` with
//!   `Illegal move error:<reason> move:<sent>` ([`IllegalReason`]) and is stored as a pass.
//!   Otherwise the move goes to the opponent as `play <colour> <move as sent> <ms left>`, and
//!   two passes end the game on the area score minus komi (`B+<f>`, `W+<f>`, `Draw`), with
//!   every stone alive (`_handle_player_genmove`).
//! - `gameover <date> <result> <text>` goes to both players (with a trailing space when the
//!   text is empty: read here, not printed); the server pairs a player again only after
//!   `ready` (`_handle_player_gameover`). `quit` at any time closes the connection; other
//!   lines while no answer is expected are ignored.
//! - `client.py`: when a client's first read holds no line break (an old Python client),
//!   every later read is taken as a whole line.

use std::fmt;

use goref_rules::{Color, Geometry, Illegal, Komi, Move, Outcome, Point, WinBy};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest line accepted, in bytes, without its line end. A 25×25 game's `setup` with
/// a thousand moves and times fits in a sixth of it; so does an engine's analysis.
pub const MAX_LINE: usize = 64 * 1024;

/// The largest board CGOS's coordinates name (`A`..`Z` without `I`).
pub const MAX_SIZE: u8 = 25;

/// What is wrong with a line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CgosError {
    /// The line is longer than [`MAX_LINE`] bytes.
    #[error("line of {len} bytes is longer than the {max} allowed")]
    LineTooLong {
        /// Its length (at least; reading stops past the bound).
        len: usize,
        /// The bound.
        max: usize,
    },
    /// The bytes are not UTF-8.
    #[error("line is not UTF-8")]
    NotUtf8,
    /// A control character (other than tab) inside the line, such as a second line break.
    #[error("control character U+{0:04X} inside the line")]
    ControlCharacter(u32),
    /// Nothing but white space.
    #[error("empty line")]
    Empty,
    /// The first word is no CGOS command.
    #[error("unknown command '{0}'")]
    UnknownCommand(String),
    /// A command lacks an argument.
    #[error("'{command}' lacks its {what}")]
    Missing {
        /// The command.
        command: &'static str,
        /// The argument missing.
        what: &'static str,
    },
    /// A command has words after its last argument.
    #[error("'{command}' has extra words: '{extra}'")]
    Extra {
        /// The command.
        command: &'static str,
        /// What follows its arguments.
        extra: String,
    },
    /// A number that does not read.
    #[error("{what} '{text}' is not a number")]
    BadNumber {
        /// Which number.
        what: &'static str,
        /// The text.
        text: String,
    },
    /// A board size outside 1..=25.
    #[error("board size {0} is not within 1..=25")]
    BadSize(u64),
    /// Komi that is not a decimal multiple of 0.5.
    #[error("komi '{0}' is not a multiple of 0.5")]
    BadKomi(String),
    /// Not `b` or `w`.
    #[error("'{0}' is not a colour (b or w)")]
    BadColor(String),
    /// Not a vertex (`A1`..`Z25` without `I`) or `pass`.
    #[error("'{0}' is not a vertex or pass")]
    BadMove(String),
    /// Not `name(rating)`.
    #[error("'{0}' is not a player as name(rating)")]
    BadPlayer(String),
    /// `setup`'s moves are pairs of a move and a time; one is alone.
    #[error("setup's last move '{0}' has no time")]
    UnpairedMove(String),
    /// Not a date `YYYY-MM-DD`.
    #[error("'{0}' is not a date YYYY-MM-DD")]
    BadDate(String),
    /// Not a CGOS result.
    #[error("'{0}' is not a result (B+2.5, W+Resign, B+Time, W+Illegal, Draw)")]
    BadResult(String),
    /// The first line of a client is not `e1 …` (an engine) or `v1 …` (a viewer).
    #[error("'{0}' is not e1 or v1")]
    NotHello(String),
    /// A user name with white space inside.
    #[error("user name '{0}' has white space inside")]
    BadUsername(String),
    /// More than two words where the password is expected.
    #[error("send <password> or <old_password new_password>")]
    BadPassword,
    /// Another answer than `ready` to `gameover`.
    #[error("'{0}' is not ready")]
    NotReady(String),
    /// A result that CGOS has no word for (a long cycle).
    #[error("result {0} has no CGOS form")]
    NoCgosForm(String),
    /// Not a time of day `HH:MM`.
    #[error("'{0}' is not a time of day HH:MM")]
    BadTime(String),
    /// A game's start given by half: a date without its time, or a time without its date
    /// (both are `-` while the game is played).
    #[error("'{date} {time}' is not a date and a time, nor '- -'")]
    BadStart {
        /// The date's word.
        date: String,
        /// The time's word.
        time: String,
    },
}

// ------------------------------------------------------------------------------------------
// Lines

/// Strips the line end (`\n` or `\r\n`) and surrounding white space, and checks the bound and
/// that no control character other than tab remains.
///
/// # Errors
///
/// [`CgosError::LineTooLong`], [`CgosError::ControlCharacter`].
pub fn clean_line(line: &str) -> Result<&str, CgosError> {
    let body = line
        .strip_suffix('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .unwrap_or(line);
    if body.len() > MAX_LINE {
        return Err(CgosError::LineTooLong {
            len: body.len(),
            max: MAX_LINE,
        });
    }
    let body = body.trim();
    if let Some(c) = body.chars().find(|&c| c.is_control() && c != '\t') {
        return Err(CgosError::ControlCharacter(c as u32));
    }
    Ok(body)
}

/// What reading a line can meet.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The stream failed.
    #[error("read failed: {0}")]
    Io(#[from] std::io::Error),
    /// The line is too long ([`CgosError::LineTooLong`]; the rest of it is skipped) or not
    /// UTF-8.
    #[error(transparent)]
    Line(#[from] CgosError),
}

/// Reads lines (up to `\n`, or the end of the stream) of at most [`MAX_LINE`] bytes, never
/// buffering more. Cancel-safe: a line read in part when [`next_line`](LineReader::next_line)'s
/// future is dropped is kept for the next call, so it can wait in a `select!`.
pub struct LineReader<R> {
    reader: R,
    partial: Vec<u8>,
    /// The rest of a line too long is being skipped.
    skipping: bool,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Lines of `reader`.
    pub fn new(reader: R) -> LineReader<R> {
        LineReader {
            reader,
            partial: Vec::new(),
            skipping: false,
        }
    }

    /// The next line, with its line end; `Ok(None)` at the end of the stream.
    ///
    /// # Errors
    ///
    /// [`ReadError::Io`]; [`ReadError::Line`] for a line too long (reported once, as soon as
    /// the bound is passed; its rest is skipped) or not UTF-8.
    pub async fn next_line(&mut self) -> Result<Option<String>, ReadError> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                self.skipping = false;
                if self.partial.is_empty() {
                    return Ok(None);
                }
                break;
            }
            let (take, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            if self.skipping {
                self.reader.consume(take);
                self.skipping = !done;
                continue;
            }
            if self.partial.len() + take > MAX_LINE + 2 {
                let len = self.partial.len() + take;
                self.reader.consume(take);
                self.partial.clear();
                self.skipping = !done;
                return Err(CgosError::LineTooLong { len, max: MAX_LINE }.into());
            }
            self.partial.extend_from_slice(&available[..take]);
            self.reader.consume(take);
            if done {
                break;
            }
        }
        let line = std::mem::take(&mut self.partial);
        String::from_utf8(line)
            .map(Some)
            .map_err(|_| CgosError::NotUtf8.into())
    }
}

/// Splits off the first word: `(word, rest)` with `rest` trimmed at its start.
fn word(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    if text.is_empty() {
        return None;
    }
    match text.find(char::is_whitespace) {
        Some(i) => Some((&text[..i], text[i..].trim_start())),
        None => Some((text, "")),
    }
}

/// Free text as it goes on a line: control characters but tab (which a line may hold, as
/// [`clean_line`] reads it) become spaces, so that no message can print a second line.
struct Text<'a>(&'a str);

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() && c != '\t' {
                f.write_str(" ")?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

fn number<T: std::str::FromStr>(what: &'static str, text: &str) -> Result<T, CgosError> {
    text.parse().map_err(|_| CgosError::BadNumber {
        what,
        text: text.to_string(),
    })
}

fn arg<'a>(
    rest: &mut &'a str,
    command: &'static str,
    what: &'static str,
) -> Result<&'a str, CgosError> {
    let (w, r) = word(rest).ok_or(CgosError::Missing { command, what })?;
    *rest = r;
    Ok(w)
}

/// `message`, unless its line is longer than [`MAX_LINE`]: a line read just within the bound
/// may print a few bytes longer (`B+3` prints `B+3.0`, komi `7` prints `7.0`), and what reads
/// must print a line that reads back.
fn within_bound<M: fmt::Display>(message: M) -> Result<M, CgosError> {
    struct Count(usize);
    impl fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = fmt::write(&mut count, format_args!("{message}"));
    if count.0 > MAX_LINE {
        Err(CgosError::LineTooLong {
            len: count.0,
            max: MAX_LINE,
        })
    } else {
        Ok(message)
    }
}

fn no_more(rest: &str, command: &'static str) -> Result<(), CgosError> {
    if rest.is_empty() {
        Ok(())
    } else {
        Err(CgosError::Extra {
            command,
            extra: rest.to_string(),
        })
    }
}

// ------------------------------------------------------------------------------------------
// Values

/// A number of half points printed as CGOS prints a Python float holding it: always one
/// decimal (`7.5`, `7.0`, `-0.5`, `0.0`).
struct Decimal(i64);

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let tenths = if abs % 2 == 1 { 5 } else { 0 };
        write!(f, "{sign}{}.{tenths}", abs / 2)
    }
}

/// Reads a decimal (`7`, `7.5`, `-0.50`) that is a multiple of 0.5 as half points.
fn half_points(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty()
        || whole.len() > 9
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
        || (digits.contains('.') && fraction.is_empty())
    {
        return None;
    }
    let half = match fraction.trim_end_matches('0') {
        "" => 0,
        "5" => 1,
        _ => return None,
    };
    let value = whole.parse::<i64>().ok()? * 2 + half;
    Some(if negative { -value } else { value })
}

/// `b` or `w`.
fn color_text(color: Color) -> &'static str {
    match color {
        Color::Black => "b",
        Color::White => "w",
    }
}

fn parse_color(text: &str) -> Result<Color, CgosError> {
    match text {
        "b" | "B" => Ok(Color::Black),
        "w" | "W" => Ok(Color::White),
        _ => Err(CgosError::BadColor(text.to_string())),
    }
}

/// A point as CGOS names it: a column letter (`A`..`Z` without `I`) and a row counted from
/// the bottom (1..=25), read in either case, printed in upper case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vertex {
    column: u8,
    row: u8,
}

impl Vertex {
    /// The vertex of `column` (0 is `A`, 8 is `J`) and `row` (1 is the bottom row); `None`
    /// beyond 25.
    #[must_use]
    pub fn new(column: u8, row: u8) -> Option<Vertex> {
        (column < MAX_SIZE && (1..=MAX_SIZE).contains(&row)).then_some(Vertex { column, row })
    }

    /// The column, 0 for `A`.
    #[must_use]
    pub fn column(self) -> u8 {
        self.column
    }

    /// The row, 1 for the bottom one.
    #[must_use]
    pub fn row(self) -> u8 {
        self.row
    }

    /// Reads `D4`, `t19`.
    ///
    /// # Errors
    ///
    /// [`CgosError::BadMove`].
    pub fn parse(text: &str) -> Result<Vertex, CgosError> {
        let bad = || CgosError::BadMove(text.to_string());
        let mut chars = text.chars();
        let letter = chars.next().ok_or_else(bad)?.to_ascii_uppercase();
        let column = match letter {
            'A'..='H' => letter as u8 - b'A',
            'J'..='Z' => letter as u8 - b'A' - 1,
            _ => return Err(bad()),
        };
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let row: u8 = digits.parse().map_err(|_| bad())?;
        Vertex::new(column, row).ok_or_else(bad)
    }

    /// The point of this vertex on `geometry`'s rectangular board, if it is on it.
    #[must_use]
    pub fn point(self, geometry: &Geometry) -> Option<Point> {
        geometry.parse_point(&self.to_string())
    }

    /// The vertex of a point of a rectangular board of at most 25×25.
    #[must_use]
    pub fn of_point(geometry: &Geometry, point: Point) -> Option<Vertex> {
        Vertex::parse(&geometry.name(point)).ok()
    }
}

impl fmt::Display for Vertex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = b'A' + self.column;
        let letter = if c >= b'I' { c + 1 } else { c } as char;
        write!(f, "{letter}{}", self.row)
    }
}

/// A move on CGOS's wire: a vertex or `pass`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CgosMove {
    /// A stone on this vertex.
    Play(Vertex),
    /// `pass`.
    Pass,
}

impl CgosMove {
    /// Reads a vertex or `pass` (either case).
    ///
    /// # Errors
    ///
    /// [`CgosError::BadMove`].
    pub fn parse(text: &str) -> Result<CgosMove, CgosError> {
        if text.eq_ignore_ascii_case("pass") {
            Ok(CgosMove::Pass)
        } else {
            Vertex::parse(text).map(CgosMove::Play)
        }
    }

    /// goref's move on `geometry`; `None` for a vertex off this board.
    #[must_use]
    pub fn to_move(self, geometry: &Geometry) -> Option<Move> {
        match self {
            CgosMove::Pass => Some(Move::Pass),
            CgosMove::Play(v) => v.point(geometry).map(Move::Play),
        }
    }

    /// The CGOS move of goref's move on a rectangular board of at most 25×25.
    #[must_use]
    pub fn from_move(geometry: &Geometry, mv: Move) -> Option<CgosMove> {
        match mv {
            Move::Pass => Some(CgosMove::Pass),
            Move::Play(p) => Vertex::of_point(geometry, p).map(CgosMove::Play),
        }
    }
}

impl fmt::Display for CgosMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CgosMove::Play(v) => v.fmt(f),
            CgosMove::Pass => f.write_str("pass"),
        }
    }
}

/// A client's answer to `genmove`: a move or `resign`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer {
    /// A vertex or `pass`.
    Move(CgosMove),
    /// `resign`.
    Resign,
}

impl Answer {
    /// Reads a vertex, `pass` or `resign` (either case).
    ///
    /// # Errors
    ///
    /// [`CgosError::BadMove`].
    pub fn parse(text: &str) -> Result<Answer, CgosError> {
        if text.eq_ignore_ascii_case("resign") {
            Ok(Answer::Resign)
        } else {
            CgosMove::parse(text).map(Answer::Move)
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Move(m) => m.fmt(f),
            Answer::Resign => f.write_str("resign"),
        }
    }
}

/// A rating as CGOS prints it: whole Elo points, never negative, `?` while provisional.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rating {
    /// Elo, rounded; CGOS prints negative ratings as 0.
    pub elo: u32,
    /// `?`: the rating is still uncertain.
    pub provisional: bool,
}

impl fmt::Display for Rating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.elo, if self.provisional { "?" } else { "" })
    }
}

/// A player of `setup`: `name(rating)`, or a bare name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Seat {
    /// The account name.
    pub name: String,
    /// The rating, when given.
    pub rating: Option<Rating>,
}

impl Seat {
    fn parse(text: &str) -> Result<Seat, CgosError> {
        let bad = || CgosError::BadPlayer(text.to_string());
        let (name, rating) = match text.split_once('(') {
            None => (text, None),
            Some((name, rest)) => {
                let inner = rest.strip_suffix(')').ok_or_else(bad)?;
                let (digits, provisional) = match inner.strip_suffix('?') {
                    Some(d) => (d, true),
                    None => (inner, false),
                };
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                let elo = digits.parse().map_err(|_| bad())?;
                (name, Some(Rating { elo, provisional }))
            }
        };
        if name.is_empty() || name.contains([')', '(']) {
            return Err(bad());
        }
        Ok(Seat {
            name: name.to_string(),
            rating,
        })
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Text(&self.name).fmt(f)?;
        match self.rating {
            Some(r) => write!(f, "({r})"),
            None => Ok(()),
        }
    }
}

/// A move of `setup` with the time its player had left after it, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimedMove {
    /// The move.
    pub mv: CgosMove,
    /// Its player's time left after it, in ms.
    pub ms_left: i64,
}

/// `setup`: a game starts, or resumes after a reconnection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The server's game number.
    pub game_id: u64,
    /// The board's side, 1..=25.
    pub size: u8,
    /// Komi.
    pub komi: Komi,
    /// Each player's time for the whole game (sudden death), in ms.
    pub main_time_ms: u64,
    /// White (named first on the wire).
    pub white: Seat,
    /// Black.
    pub black: Seat,
    /// The moves so far, Black's first, alternating: empty for a new game.
    pub moves: Vec<TimedMove>,
}

impl Setup {
    /// The colour `name` plays in this game, if it plays.
    #[must_use]
    pub fn color_of(&self, name: &str) -> Option<Color> {
        if self.white.name == name {
            Some(Color::White)
        } else if self.black.name == name {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The colour of the `n`th move (from 0): CGOS has no handicap, Black moves first.
    #[must_use]
    pub fn color_of_move(n: usize) -> Color {
        if n.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        }
    }
}

/// A calendar date `YYYY-MM-DD`, as `gameover` gives the game's day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
    /// The date; `None` for a month outside 1..=12, a day outside 1..=31 or a year past 9999.
    #[must_use]
    pub fn new(year: u16, month: u8, day: u8) -> Option<Date> {
        (year <= 9999 && (1..=12).contains(&month) && (1..=31).contains(&day)).then_some(Date {
            year,
            month,
            day,
        })
    }

    /// The day of a time given in seconds since 1970-01-01 UTC.
    #[must_use]
    pub fn from_unix_seconds(seconds: u64) -> Date {
        // Days to civil date (proleptic Gregorian), after H. Hinnant's public-domain algorithm.
        let days = (seconds / 86_400) as i64 + 719_468;
        let era = days.div_euclid(146_097);
        let doe = days.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = yoe + era * 400 + i64::from(month <= 2);
        Date {
            year: year.clamp(0, 9999) as u16,
            month,
            day,
        }
    }

    /// Seconds since 1970-01-01 UTC at the start of the day (years before 1970 give 0).
    #[must_use]
    pub fn unix_seconds(&self) -> u64 {
        // Civil date to days, after H. Hinnant's public-domain algorithm.
        let (month, day) = (i64::from(self.month), i64::from(self.day));
        let year = i64::from(self.year) - i64::from(month <= 2);
        let era = year.div_euclid(400);
        let yoe = year.rem_euclid(400);
        let mp = (month + 9) % 12;
        let doy = (153 * mp + 2) / 5 + day - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146_097 + doe - 719_468;
        u64::try_from(days).unwrap_or(0) * 86_400
    }

    /// Reads `YYYY-MM-DD`, a day of the calendar (`2026-02-30` is none), from 1970 on (an
    /// archive's day).
    ///
    /// # Errors
    ///
    /// [`CgosError::BadDate`] for anything else.
    pub fn parse_calendar(text: &str) -> Result<Date, CgosError> {
        let date = Date::parse(text)?;
        if date.year < 1970 || Date::from_unix_seconds(date.unix_seconds()) != date {
            return Err(CgosError::BadDate(text.to_string()));
        }
        Ok(date)
    }

    /// Reads `YYYY-MM-DD` as CGOS's lines carry it: four, two and two digits, a month of 1 to
    /// 12 and a day of 1 to 31 (what [`Date::new`] takes).
    ///
    /// # Errors
    ///
    /// [`CgosError::BadDate`] for anything else.
    pub fn parse(text: &str) -> Result<Date, CgosError> {
        let bad = || CgosError::BadDate(text.to_string());
        let parts: Vec<&str> = text.split('-').collect();
        let [y, m, d] = parts[..] else {
            return Err(bad());
        };
        if y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return Err(bad());
        }
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if !(all_digits(y) && all_digits(m) && all_digits(d)) {
            return Err(bad());
        }
        Date::new(
            y.parse().map_err(|_| bad())?,
            m.parse().map_err(|_| bad())?,
            d.parse().map_err(|_| bad())?,
        )
        .ok_or_else(bad)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

// ------------------------------------------------------------------------------------------
// Results

/// How a CGOS game was won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CgosWin {
    /// By this many half points (more than zero): area score minus komi after two passes.
    Score {
        /// The margin in half points.
        half_points: u32,
    },
    /// `Resign`: the opponent resigned.
    Resign,
    /// `Time`: the opponent's clock ran out.
    Time,
    /// `Illegal`: the opponent played an illegal move (or one that does not read).
    Illegal,
}

/// A result as CGOS writes it in `gameover`: `B+2.5`, `W+3.0`, `B+Resign`, `W+Time`,
/// `B+Illegal`, `Draw`, or `Abort` (a game an administrator stopped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CgosResult {
    /// One player won.
    Win {
        /// The winner.
        winner: Color,
        /// How.
        by: CgosWin,
    },
    /// Equal scores.
    Draw,
    /// An administrator stopped the game without a result.
    Abort,
}

impl CgosResult {
    /// Reads a result. Scores may be written with or without their decimal (`B+3`, `B+3.0`);
    /// words in any case.
    ///
    /// # Errors
    ///
    /// [`CgosError::BadResult`].
    pub fn parse(text: &str) -> Result<CgosResult, CgosError> {
        let bad = || CgosError::BadResult(text.to_string());
        if text.eq_ignore_ascii_case("draw") {
            return Ok(CgosResult::Draw);
        }
        if text.eq_ignore_ascii_case("abort") {
            return Ok(CgosResult::Abort);
        }
        let (who, how) = text.split_once('+').ok_or_else(bad)?;
        let winner = parse_color(who).map_err(|_| bad())?;
        let by = match how.to_ascii_lowercase().as_str() {
            "resign" => CgosWin::Resign,
            "time" => CgosWin::Time,
            "illegal" => CgosWin::Illegal,
            score => {
                let half = half_points(score).ok_or_else(bad)?;
                if half <= 0 || half > i64::from(i32::MAX) {
                    return Err(bad());
                }
                CgosWin::Score {
                    half_points: half as u32,
                }
            }
        };
        Ok(CgosResult::Win { winner, by })
    }

    /// The result of a score: `margin` is Black's area minus White's area and komi, in half
    /// points (as [`goref_rules::Score::margin_half_points`]); zero is a draw.
    #[must_use]
    pub fn of_margin(margin: i32) -> CgosResult {
        match margin.signum() {
            0 => CgosResult::Draw,
            s => CgosResult::Win {
                winner: if s > 0 { Color::Black } else { Color::White },
                by: CgosWin::Score {
                    half_points: margin.unsigned_abs(),
                },
            },
        }
    }

    /// goref's outcome of this result: `Illegal` is a forfeit, `Abort` is `Void`.
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        match *self {
            CgosResult::Draw => Outcome::Draw,
            CgosResult::Abort => Outcome::Void,
            CgosResult::Win { winner, by } => Outcome::Win {
                winner,
                by: match by {
                    CgosWin::Score { half_points } => WinBy::Points {
                        half_points: half_points.min(i32::MAX as u32) as i32,
                    },
                    CgosWin::Resign => WinBy::Resignation,
                    CgosWin::Time => WinBy::Time,
                    CgosWin::Illegal => WinBy::Forfeit,
                },
            },
        }
    }

    /// The SGF `RE` of this result (`B+2.5`, `W+R`, `B+T`, `W+F`, `0`), as goref writes it;
    /// `Void` for `Abort`.
    #[must_use]
    pub fn to_sgf(&self) -> String {
        self.outcome().to_sgf()
    }
}

impl TryFrom<Outcome> for CgosResult {
    type Error = CgosError;

    /// CGOS's form of goref's outcome: a forfeit is `Illegal` (CGOS's only forfeit). A long
    /// cycle has no CGOS form (CGOS plays positional superko, where none arises).
    fn try_from(outcome: Outcome) -> Result<CgosResult, CgosError> {
        match outcome {
            Outcome::Draw => Ok(CgosResult::Draw),
            Outcome::Void => Ok(CgosResult::Abort),
            Outcome::Win { winner, by } => {
                let by = match by {
                    WinBy::Points { half_points } if half_points > 0 => CgosWin::Score {
                        half_points: half_points as u32,
                    },
                    WinBy::Resignation => CgosWin::Resign,
                    WinBy::Time => CgosWin::Time,
                    WinBy::Forfeit => CgosWin::Illegal,
                    WinBy::Points { .. } | WinBy::LongCycle { .. } => {
                        return Err(CgosError::NoCgosForm(outcome.to_sgf()))
                    }
                };
                Ok(CgosResult::Win { winner, by })
            }
        }
    }
}

impl fmt::Display for CgosResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CgosResult::Draw => f.write_str("Draw"),
            CgosResult::Abort => f.write_str("Abort"),
            CgosResult::Win { winner, by } => {
                write!(f, "{}+", winner.letter())?;
                match by {
                    CgosWin::Score { half_points } => {
                        write!(f, "{}", Decimal(i64::from(*half_points)))
                    }
                    CgosWin::Resign => f.write_str("Resign"),
                    CgosWin::Time => f.write_str("Time"),
                    CgosWin::Illegal => f.write_str("Illegal"),
                }
            }
        }
    }
}

/// Why CGOS refused a move, in its words (the text after `X+Illegal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// `suicide attempted`.
    Suicide,
    /// `KO attempted`: the move repeats a position (positional superko).
    Ko,
    /// `move to occupied point`.
    Occupied,
    /// `do not understand syntax`: not a vertex, or off the board.
    Syntax,
}

impl IllegalReason {
    /// CGOS's words.
    #[must_use]
    pub fn words(self) -> &'static str {
        match self {
            IllegalReason::Suicide => "suicide attempted",
            IllegalReason::Ko => "KO attempted",
            IllegalReason::Occupied => "move to occupied point",
            IllegalReason::Syntax => "do not understand syntax",
        }
    }

    /// `gameover`'s text for an illegal move: `Illegal move error:<words> move:<move>`, the
    /// move as the player sent it.
    #[must_use]
    pub fn gameover_text(self, sent: &str) -> String {
        format!("Illegal move error:{} move:{}", self.words(), sent)
    }

    /// Reads `gameover`'s text for an illegal move: the reason and the move as sent.
    #[must_use]
    pub fn parse_text(text: &str) -> Option<(IllegalReason, &str)> {
        let rest = text.strip_prefix("Illegal move error:")?;
        [
            IllegalReason::Suicide,
            IllegalReason::Ko,
            IllegalReason::Occupied,
            IllegalReason::Syntax,
        ]
        .into_iter()
        .find_map(|r| {
            let after = rest.strip_prefix(r.words())?.strip_prefix(" move:")?;
            Some((r, after))
        })
    }
}

impl From<Illegal> for IllegalReason {
    /// CGOS's reason for goref's: basic ko and superko are `KO attempted`; a point off the
    /// board is a syntax error, as CGOS reads it.
    fn from(illegal: Illegal) -> IllegalReason {
        match illegal {
            Illegal::Occupied => IllegalReason::Occupied,
            Illegal::Suicide => IllegalReason::Suicide,
            Illegal::Ko { .. } | Illegal::Superko { .. } => IllegalReason::Ko,
            Illegal::OffBoard | Illegal::GameOver => IllegalReason::Syntax,
        }
    }
}

/// `gameover`'s text after a resignation.
pub const RESIGNATION_TEXT: &str = "Resignation";

/// `gameover`: the game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gameover {
    /// The day the game started.
    pub date: Date,
    /// The result.
    pub result: CgosResult,
    /// CGOS's explanation: empty for a score or a time loss, [`RESIGNATION_TEXT`], or an
    /// illegal move's ([`IllegalReason::gameover_text`]).
    pub text: String,
}

// ------------------------------------------------------------------------------------------
// Server to client

/// A line from the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerMessage {
    /// `protocol` or `protocol genmove_analyze`: the first line; the client names itself.
    Protocol {
        /// The server keeps analysis sent after a move.
        genmove_analyze: bool,
    },
    /// `username`: the client sends its name.
    Username,
    /// `password`: the client sends its password.
    Password,
    /// `setup …`: a game starts, or resumes with its moves so far.
    Setup(Setup),
    /// `genmove <b|w> <ms left>`: the client's move, with its time left.
    Genmove {
        /// The colour to play.
        color: Color,
        /// The mover's time left in ms (negative when it has run out).
        ms_left: i64,
    },
    /// `play <b|w> <move> <ms left>`: the opponent's move and its time left after it.
    Play {
        /// The opponent's colour.
        color: Color,
        /// Its move.
        mv: CgosMove,
        /// Its time left, in ms.
        ms_left: i64,
    },
    /// `gameover <date> <result> [text]`: the client answers `ready` to be paired again.
    Gameover(Gameover),
    /// `info <text>`: news for the operator, at any time.
    Info(String),
    /// `Error: <text>`: a refusal; the server closes the connection.
    Error(String),
}

impl ServerMessage {
    /// Reads a line from the server (its line end and surrounding white space are stripped).
    ///
    /// # Errors
    ///
    /// A [`CgosError`] naming what is wrong.
    pub fn parse(line: &str) -> Result<ServerMessage, CgosError> {
        let line = clean_line(line)?;
        if let Some(text) = line.strip_prefix("Error:") {
            return within_bound(ServerMessage::Error(text.trim().to_string()));
        }
        let (command, mut rest) = word(line).ok_or(CgosError::Empty)?;
        let rest = &mut rest;
        let message = match command {
            "protocol" => {
                let genmove_analyze = rest.split_whitespace().any(|w| w == "genmove_analyze");
                *rest = "";
                ServerMessage::Protocol { genmove_analyze }
            }
            "username" => ServerMessage::Username,
            "password" => ServerMessage::Password,
            "info" => {
                let text = rest.to_string();
                *rest = "";
                ServerMessage::Info(text)
            }
            "genmove" => {
                let color = parse_color(arg(rest, "genmove", "colour")?)?;
                let ms_left = number("time left", arg(rest, "genmove", "time left")?)?;
                ServerMessage::Genmove { color, ms_left }
            }
            "play" => {
                let color = parse_color(arg(rest, "play", "colour")?)?;
                let mv = CgosMove::parse(arg(rest, "play", "move")?)?;
                let ms_left = number("time left", arg(rest, "play", "time left")?)?;
                ServerMessage::Play { color, mv, ms_left }
            }
            "gameover" => {
                let date = Date::parse(arg(rest, "gameover", "date")?)?;
                let result = CgosResult::parse(arg(rest, "gameover", "result")?)?;
                let text = rest.to_string();
                *rest = "";
                ServerMessage::Gameover(Gameover { date, result, text })
            }
            "setup" => ServerMessage::Setup(parse_setup(rest)?),
            other => return Err(CgosError::UnknownCommand(other.to_string())),
        };
        no_more(rest, command_name(&message))?;
        within_bound(message)
    }
}

fn command_name(message: &ServerMessage) -> &'static str {
    match message {
        ServerMessage::Protocol { .. } => "protocol",
        ServerMessage::Username => "username",
        ServerMessage::Password => "password",
        ServerMessage::Setup(_) => "setup",
        ServerMessage::Genmove { .. } => "genmove",
        ServerMessage::Play { .. } => "play",
        ServerMessage::Gameover(_) => "gameover",
        ServerMessage::Info(_) => "info",
        ServerMessage::Error(_) => "Error:",
    }
}

fn parse_setup(rest: &mut &str) -> Result<Setup, CgosError> {
    const C: &str = "setup";
    let game_id = number("game id", arg(rest, C, "game id")?)?;
    let size = parse_size(arg(rest, C, "board size")?)?;
    let komi = parse_komi(arg(rest, C, "komi")?)?;
    let main_time_ms = number("main time", arg(rest, C, "main time")?)?;
    let white = Seat::parse(arg(rest, C, "white player")?)?;
    let black = Seat::parse(arg(rest, C, "black player")?)?;
    let mut moves = Vec::new();
    while let Some((mv, r)) = word(rest) {
        let (time, r) = word(r).ok_or_else(|| CgosError::UnpairedMove(mv.to_string()))?;
        moves.push(TimedMove {
            mv: CgosMove::parse(mv)?,
            ms_left: number("move's time left", time)?,
        });
        *rest = r;
    }
    *rest = "";
    Ok(Setup {
        game_id,
        size,
        komi,
        main_time_ms,
        white,
        black,
        moves,
    })
}

impl fmt::Display for ServerMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerMessage::Protocol { genmove_analyze } => f.write_str(if *genmove_analyze {
                "protocol genmove_analyze"
            } else {
                "protocol"
            }),
            ServerMessage::Username => f.write_str("username"),
            ServerMessage::Password => f.write_str("password"),
            ServerMessage::Setup(s) => {
                write!(
                    f,
                    "setup {} {} {} {} {} {}",
                    s.game_id,
                    s.size,
                    Decimal(i64::from(s.komi.half_points())),
                    s.main_time_ms,
                    s.white,
                    s.black
                )?;
                for m in &s.moves {
                    write!(f, " {} {}", m.mv, m.ms_left)?;
                }
                Ok(())
            }
            ServerMessage::Genmove { color, ms_left } => {
                write!(f, "genmove {} {ms_left}", color_text(*color))
            }
            ServerMessage::Play { color, mv, ms_left } => {
                write!(f, "play {} {mv} {ms_left}", color_text(*color))
            }
            ServerMessage::Gameover(g) => {
                write!(f, "gameover {} {}", g.date, g.result)?;
                if !g.text.is_empty() {
                    write!(f, " {}", Text(&g.text))?;
                }
                Ok(())
            }
            ServerMessage::Info(text) if text.is_empty() => f.write_str("info"),
            ServerMessage::Info(text) => write!(f, "info {}", Text(text)),
            ServerMessage::Error(text) => write!(f, "Error: {}", Text(text)),
        }
    }
}

// ------------------------------------------------------------------------------------------
// Client to server

/// Which kind of client the first line announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClientKind {
    /// `e1`: an engine, which logs in and plays.
    Engine,
    /// `v1`: a viewer, which watches.
    Viewer,
}

/// What the server waits for: the context a client's line is read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expect {
    /// After `protocol`: `e1 …` or `v1 …`.
    Hello,
    /// After `username`: the name.
    Username,
    /// After `password`: the password, or the old and a new one.
    Password,
    /// After `genmove`: a move; with `analyze` (the client announced `genmove_analyze` to a
    /// server that offered it), analysis may follow the move.
    Move {
        /// Text after the move is analysis.
        analyze: bool,
    },
    /// After `gameover`: `ready`.
    Ready,
    /// From a viewer (after `v1 …`): `observe <game id>`.
    Viewer,
}

/// A line from a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientMessage {
    /// `e1 <client name and version> [genmove_analyze]` or `v1 …`.
    Hello {
        /// Engine or viewer.
        kind: ClientKind,
        /// The client's description (words separated by single spaces).
        client: String,
        /// The client will send analysis after its moves.
        genmove_analyze: bool,
    },
    /// The user name.
    Username(String),
    /// The password, or `<old> <new>` to change it.
    Password {
        /// The password.
        password: String,
        /// A new password to set.
        new_password: Option<String>,
    },
    /// The answer to `genmove`.
    Move {
        /// The move or `resign`.
        answer: Answer,
        /// Analysis after the move (JSON by convention; see [`compact_analysis`]).
        analysis: Option<String>,
    },
    /// `ready`: the answer to `gameover`.
    Ready,
    /// `observe <game id>`: a viewer asks for a game's moves (`setup`) and then its updates.
    Observe(u64),
    /// `quit`: the client leaves. Read in every context, as CGOS's server does (so a user
    /// name or password `quit` reads as this).
    Quit,
}

impl ClientMessage {
    /// Reads a client's line in the context of what the server asked.
    ///
    /// # Errors
    ///
    /// A [`CgosError`] naming what is wrong; for a move, [`CgosError::BadMove`] (CGOS's
    /// `do not understand syntax`).
    pub fn parse(line: &str, expect: Expect) -> Result<ClientMessage, CgosError> {
        ClientMessage::read(line, expect).and_then(within_bound)
    }

    fn read(line: &str, expect: Expect) -> Result<ClientMessage, CgosError> {
        let line = clean_line(line)?;
        if line.is_empty() {
            return Err(CgosError::Empty);
        }
        if line == "quit" {
            return Ok(ClientMessage::Quit);
        }
        match expect {
            Expect::Hello => {
                let (first, rest) = word(line).ok_or(CgosError::Empty)?;
                let kind = match first {
                    "e1" => ClientKind::Engine,
                    "v1" => ClientKind::Viewer,
                    _ => return Err(CgosError::NotHello(first.to_string())),
                };
                let words: Vec<&str> = rest.split_whitespace().collect();
                let genmove_analyze = words.contains(&"genmove_analyze");
                let client = words
                    .into_iter()
                    .filter(|w| *w != "genmove_analyze")
                    .collect::<Vec<_>>()
                    .join(" ");
                Ok(ClientMessage::Hello {
                    kind,
                    client,
                    genmove_analyze,
                })
            }
            Expect::Username => {
                if line.contains(char::is_whitespace) {
                    return Err(CgosError::BadUsername(line.to_string()));
                }
                Ok(ClientMessage::Username(line.to_string()))
            }
            Expect::Password => {
                let words: Vec<&str> = line.split_whitespace().collect();
                match words[..] {
                    [p] => Ok(ClientMessage::Password {
                        password: p.to_string(),
                        new_password: None,
                    }),
                    [p, n] => Ok(ClientMessage::Password {
                        password: p.to_string(),
                        new_password: Some(n.to_string()),
                    }),
                    _ => Err(CgosError::BadPassword),
                }
            }
            Expect::Move { analyze } => {
                let (mv, rest) = if analyze {
                    word(line).ok_or(CgosError::Empty)?
                } else {
                    (line, "")
                };
                let answer = Answer::parse(mv)?;
                let analysis = (!rest.is_empty()).then(|| rest.to_string());
                Ok(ClientMessage::Move { answer, analysis })
            }
            Expect::Ready => {
                if line == "ready" {
                    Ok(ClientMessage::Ready)
                } else {
                    Err(CgosError::NotReady(line.to_string()))
                }
            }
            Expect::Viewer => {
                let (command, mut rest) = word(line).ok_or(CgosError::Empty)?;
                if command != "observe" {
                    return Err(CgosError::UnknownCommand(command.to_string()));
                }
                let rest = &mut rest;
                let id = number("game id", arg(rest, "observe", "game id")?)?;
                no_more(rest, "observe")?;
                Ok(ClientMessage::Observe(id))
            }
        }
    }

    /// The context this message is read in ([`Expect::Move`] with `analyze` when it carries
    /// analysis); `None` for `quit`, which is read in any.
    #[must_use]
    pub fn expect(&self) -> Option<Expect> {
        Some(match self {
            ClientMessage::Hello { .. } => Expect::Hello,
            ClientMessage::Username(_) => Expect::Username,
            ClientMessage::Password { .. } => Expect::Password,
            ClientMessage::Move { analysis, .. } => Expect::Move {
                analyze: analysis.is_some(),
            },
            ClientMessage::Ready => Expect::Ready,
            ClientMessage::Observe(_) => Expect::Viewer,
            ClientMessage::Quit => return None,
        })
    }
}

impl fmt::Display for ClientMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientMessage::Hello {
                kind,
                client,
                genmove_analyze,
            } => {
                f.write_str(match kind {
                    ClientKind::Engine => "e1",
                    ClientKind::Viewer => "v1",
                })?;
                if !client.is_empty() {
                    write!(f, " {}", Text(client))?;
                }
                if *genmove_analyze {
                    f.write_str(" genmove_analyze")?;
                }
                Ok(())
            }
            ClientMessage::Username(name) => Text(name).fmt(f),
            ClientMessage::Password {
                password,
                new_password,
            } => {
                Text(password).fmt(f)?;
                match new_password {
                    Some(n) => write!(f, " {}", Text(n)),
                    None => Ok(()),
                }
            }
            ClientMessage::Move { answer, analysis } => {
                answer.fmt(f)?;
                match analysis {
                    Some(a) => write!(f, " {}", Text(a)),
                    None => Ok(()),
                }
            }
            ClientMessage::Ready => f.write_str("ready"),
            ClientMessage::Observe(id) => write!(f, "observe {id}"),
            ClientMessage::Quit => f.write_str("quit"),
        }
    }
}

// ------------------------------------------------------------------------------------------
// Server to viewer

/// A time of day `HH:MM`, as viewers' lines give the time a game started (UTC here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimeOfDay {
    hour: u8,
    minute: u8,
}

impl TimeOfDay {
    /// The time; `None` past 23:59.
    #[must_use]
    pub fn new(hour: u8, minute: u8) -> Option<TimeOfDay> {
        (hour < 24 && minute < 60).then_some(TimeOfDay { hour, minute })
    }

    /// The time of day (UTC) of a time given in seconds since 1970-01-01 UTC.
    #[must_use]
    pub fn from_unix_seconds(seconds: u64) -> TimeOfDay {
        let in_day = seconds % 86_400;
        TimeOfDay {
            hour: (in_day / 3600) as u8,
            minute: (in_day / 60 % 60) as u8,
        }
    }

    fn parse(text: &str) -> Result<TimeOfDay, CgosError> {
        let bad = || CgosError::BadTime(text.to_string());
        let (h, m) = text.split_once(':').ok_or_else(bad)?;
        if h.len() != 2 || m.len() != 2 || !(h.bytes().chain(m.bytes())).all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        TimeOfDay::new(h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?).ok_or_else(bad)
    }
}

impl fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

/// When a game started, as viewers' lines give it: `<date> <time>` (CGOS gives it for finished
/// games; a game in play has `- -`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Started {
    /// The day.
    pub date: Date,
    /// The time of day.
    pub time: TimeOfDay,
}

impl Started {
    /// The moment (UTC, to the minute) of a time given in ms since 1970-01-01 UTC.
    #[must_use]
    pub fn from_unix_ms(ms: u64) -> Started {
        Started {
            date: Date::from_unix_seconds(ms / 1000),
            time: TimeOfDay::from_unix_seconds(ms / 1000),
        }
    }
}

/// `<date> <time>`, or `- -` for none.
struct StartedText(Option<Started>);

impl fmt::Display for StartedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(s) => write!(f, "{} {}", s.date, s.time),
            None => f.write_str("- -"),
        }
    }
}

fn parse_started(rest: &mut &str, command: &'static str) -> Result<Option<Started>, CgosError> {
    let date = arg(rest, command, "date")?;
    let time = arg(rest, command, "time")?;
    match (date, time) {
        ("-", "-") => Ok(None),
        ("-", _) | (_, "-") => Err(CgosError::BadStart {
            date: date.to_string(),
            time: time.to_string(),
        }),
        _ => Ok(Some(Started {
            date: Date::parse(date)?,
            time: TimeOfDay::parse(time)?,
        })),
    }
}

fn parse_size(text: &str) -> Result<u8, CgosError> {
    let size: u64 = number("board size", text)?;
    if !(1..=u64::from(MAX_SIZE)).contains(&size) {
        return Err(CgosError::BadSize(size));
    }
    Ok(size as u8)
}

fn parse_komi(text: &str) -> Result<Komi, CgosError> {
    half_points(text)
        .and_then(|h| i32::try_from(h).ok())
        .map(Komi::from_half_points)
        .filter(|k| k.half_points().abs() <= 20_000)
        .ok_or_else(|| CgosError::BadKomi(text.to_string()))
}

/// A game as a viewer's list gives it: `match <id> <date> <time> <size> <komi> <white>
/// <black> <result>`, with `- -` for the date and time and `-` for the result while it is
/// played (cgos.py: a viewer's arrival, `_handle_player_protocol`, and each game's start,
/// `init_game`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// The server's game number.
    pub game_id: u64,
    /// When it started (CGOS gives it for finished games only).
    pub started: Option<Started>,
    /// The board's side, 1..=25.
    pub size: u8,
    /// Komi.
    pub komi: Komi,
    /// White, with its rating.
    pub white: Seat,
    /// Black, with its rating.
    pub black: Seat,
    /// The result, once over.
    pub result: Option<CgosResult>,
}

/// A move as viewers get it, with its player's time left after it (ms); `resign` is one, as
/// CGOS tells an observer of a resignation before the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewedMove {
    /// A vertex, `pass` or `resign`.
    pub answer: Answer,
    /// Its player's time left after it, in ms.
    pub ms_left: i64,
}

/// The answer to `observe`: `setup <id> <date> <time> <size> <komi> <white> <black> <main
/// time> [<move> <ms left>]... [<result>]` (`viewer_respond`: `- -` and no result for a game
/// in play; a finished game's record from CGOS's archive has its date, time and result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewerSetup {
    /// The server's game number.
    pub game_id: u64,
    /// When it started (CGOS gives it for finished games only).
    pub started: Option<Started>,
    /// The board's side, 1..=25.
    pub size: u8,
    /// Komi.
    pub komi: Komi,
    /// White, with its rating.
    pub white: Seat,
    /// Black, with its rating.
    pub black: Seat,
    /// Each player's time for the whole game (sudden death), in ms (CGOS's `level`).
    pub main_time_ms: u64,
    /// The moves so far, Black's first, alternating.
    pub moves: Vec<ViewedMove>,
    /// The result, for a finished game.
    pub result: Option<CgosResult>,
}

/// What `update` tells an observer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Update {
    /// `update <id> <move> <ms left>`: a move and its player's time left after it.
    Move(ViewedMove),
    /// `update <id> <result>`: the game is over.
    Over(CgosResult),
}

/// A line from the server to a viewer (a client that said `v1`).
///
/// ```
/// use goref_cgos::protocol::{Update, ViewerMessage};
///
/// let line = "update 12 D4 299000";
/// let ViewerMessage::Update { game_id: 12, update: Update::Move(m) } =
///     ViewerMessage::parse(line).unwrap() else { panic!() };
/// assert_eq!(m.ms_left, 299_000);
/// let end = ViewerMessage::parse("gameover 12 W+Resign 100000 80000").unwrap();
/// assert_eq!(end.to_string(), "gameover 12 W+Resign 100000 80000");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewerMessage {
    /// `match …`: a game listed on arrival, or a game that starts.
    Match(Match),
    /// `setup …`: the answer to `observe`.
    Setup(ViewerSetup),
    /// `setup <id> ?`: the answer to `observe` of a game the server does not know.
    NoSuchGame(u64),
    /// `update …`: an observed game's move or end.
    Update {
        /// The game.
        game_id: u64,
        /// What happened.
        update: Update,
    },
    /// `gameover <id> <result> <white's time used> <black's time used>`: a game ended, told to
    /// every viewer (cgos.py `gameover`: the times are ms, the main time less what was left).
    Gameover {
        /// The game.
        game_id: u64,
        /// Its result.
        result: CgosResult,
        /// White's time used, ms.
        white_used_ms: i64,
        /// Black's time used, ms.
        black_used_ms: i64,
    },
    /// `info <text>`: news for the viewer.
    Info(String),
    /// `Error: <text>`: a refusal; the server closes the connection.
    Error(String),
}

impl ViewerMessage {
    /// Reads a line from the server to a viewer (its line end and surrounding white space are
    /// stripped).
    ///
    /// # Errors
    ///
    /// A [`CgosError`] naming what is wrong.
    pub fn parse(line: &str) -> Result<ViewerMessage, CgosError> {
        let line = clean_line(line)?;
        if let Some(text) = line.strip_prefix("Error:") {
            return within_bound(ViewerMessage::Error(text.trim().to_string()));
        }
        let (command, mut rest) = word(line).ok_or(CgosError::Empty)?;
        let rest = &mut rest;
        let (message, command) = match command {
            "info" => {
                let text = rest.to_string();
                *rest = "";
                (ViewerMessage::Info(text), "info")
            }
            "match" => {
                const C: &str = "match";
                let game_id = number("game id", arg(rest, C, "game id")?)?;
                let started = parse_started(rest, C)?;
                let size = parse_size(arg(rest, C, "board size")?)?;
                let komi = parse_komi(arg(rest, C, "komi")?)?;
                let white = Seat::parse(arg(rest, C, "white player")?)?;
                let black = Seat::parse(arg(rest, C, "black player")?)?;
                let result = match arg(rest, C, "result")? {
                    "-" => None,
                    r => Some(CgosResult::parse(r)?),
                };
                let m = Match {
                    game_id,
                    started,
                    size,
                    komi,
                    white,
                    black,
                    result,
                };
                (ViewerMessage::Match(m), C)
            }
            "setup" => (parse_viewer_setup(rest)?, "setup"),
            "update" => {
                const C: &str = "update";
                let game_id = number("game id", arg(rest, C, "game id")?)?;
                let what = arg(rest, C, "move or result")?;
                let update = if rest.is_empty() {
                    Update::Over(CgosResult::parse(what)?)
                } else {
                    let answer = Answer::parse(what)?;
                    let ms_left = number("time left", arg(rest, C, "time left")?)?;
                    Update::Move(ViewedMove { answer, ms_left })
                };
                (ViewerMessage::Update { game_id, update }, C)
            }
            "gameover" => {
                const C: &str = "gameover";
                let game_id = number("game id", arg(rest, C, "game id")?)?;
                let result = CgosResult::parse(arg(rest, C, "result")?)?;
                let white_used_ms = number("white's time used", arg(rest, C, "white's time")?)?;
                let black_used_ms = number("black's time used", arg(rest, C, "black's time")?)?;
                let m = ViewerMessage::Gameover {
                    game_id,
                    result,
                    white_used_ms,
                    black_used_ms,
                };
                (m, C)
            }
            other => return Err(CgosError::UnknownCommand(other.to_string())),
        };
        no_more(rest, command)?;
        within_bound(message)
    }
}

fn parse_viewer_setup(rest: &mut &str) -> Result<ViewerMessage, CgosError> {
    const C: &str = "setup";
    let game_id = number("game id", arg(rest, C, "game id")?)?;
    if *rest == "?" {
        *rest = "";
        return Ok(ViewerMessage::NoSuchGame(game_id));
    }
    let started = parse_started(rest, C)?;
    let size = parse_size(arg(rest, C, "board size")?)?;
    let komi = parse_komi(arg(rest, C, "komi")?)?;
    let white = Seat::parse(arg(rest, C, "white player")?)?;
    let black = Seat::parse(arg(rest, C, "black player")?)?;
    let main_time_ms = number("main time", arg(rest, C, "main time")?)?;
    let mut moves = Vec::new();
    let mut result = None;
    // Pairs of a move and a time; a last word alone is the result.
    while let Some((first, r)) = word(rest) {
        match word(r) {
            Some((time, r)) => {
                moves.push(ViewedMove {
                    answer: Answer::parse(first)?,
                    ms_left: number("move's time left", time)?,
                });
                *rest = r;
            }
            None => {
                result = Some(CgosResult::parse(first)?);
                *rest = "";
            }
        }
    }
    Ok(ViewerMessage::Setup(ViewerSetup {
        game_id,
        started,
        size,
        komi,
        white,
        black,
        main_time_ms,
        moves,
        result,
    }))
}

impl fmt::Display for ViewerMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewerMessage::Match(m) => {
                write!(
                    f,
                    "match {} {} {} {} {} {} ",
                    m.game_id,
                    StartedText(m.started),
                    m.size,
                    Decimal(i64::from(m.komi.half_points())),
                    m.white,
                    m.black
                )?;
                match m.result {
                    Some(r) => r.fmt(f),
                    None => f.write_str("-"),
                }
            }
            ViewerMessage::Setup(s) => {
                write!(
                    f,
                    "setup {} {} {} {} {} {} {}",
                    s.game_id,
                    StartedText(s.started),
                    s.size,
                    Decimal(i64::from(s.komi.half_points())),
                    s.white,
                    s.black,
                    s.main_time_ms
                )?;
                for m in &s.moves {
                    write!(f, " {} {}", m.answer, m.ms_left)?;
                }
                match s.result {
                    Some(r) => write!(f, " {r}"),
                    None => Ok(()),
                }
            }
            ViewerMessage::NoSuchGame(id) => write!(f, "setup {id} ?"),
            ViewerMessage::Update { game_id, update } => match update {
                Update::Move(m) => write!(f, "update {game_id} {} {}", m.answer, m.ms_left),
                Update::Over(r) => write!(f, "update {game_id} {r}"),
            },
            ViewerMessage::Gameover {
                game_id,
                result,
                white_used_ms,
                black_used_ms,
            } => write!(
                f,
                "gameover {game_id} {result} {white_used_ms} {black_used_ms}"
            ),
            ViewerMessage::Info(text) if text.is_empty() => f.write_str("info"),
            ViewerMessage::Info(text) => write!(f, "info {}", Text(text)),
            ViewerMessage::Error(text) => write!(f, "Error: {}", Text(text)),
        }
    }
}

// ------------------------------------------------------------------------------------------
// Every reading of a line

/// A line read as a message that prints a line read otherwise (see [`reads_back`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Misread {
    /// Who read it: `server` ([`ServerMessage`]), `viewer` ([`ViewerMessage`]) or the door's
    /// [`Expect`] state.
    pub reader: String,
    /// The message read from the line.
    pub message: String,
    /// The line it prints.
    pub printed: String,
    /// What that line reads as.
    pub again: String,
}

/// Reads `line` every way the dialogue reads a line (a client reads [`ServerMessage`]s, a
/// viewer [`ViewerMessage`]s, the door [`ClientMessage`]s in each [`Expect`] state) and checks
/// that each reading is either an error or a message whose line reads back to the same
/// message (never a panic). The invariant the fuzz target `cgos_lines` and the property tests
/// check.
///
/// # Errors
///
/// The first reading that does not read back.
pub fn reads_back(line: &str) -> Result<(), Misread> {
    fn check<M: fmt::Display + fmt::Debug + PartialEq>(
        reader: &str,
        line: &str,
        parse: impl Fn(&str) -> Result<M, CgosError>,
    ) -> Result<(), Misread> {
        let Ok(message) = parse(line) else {
            return Ok(());
        };
        let printed = message.to_string();
        match parse(&printed) {
            Ok(again) if again == message => Ok(()),
            again => Err(Misread {
                reader: reader.to_string(),
                message: format!("{message:?}"),
                printed,
                again: format!("{again:?}"),
            }),
        }
    }
    check("server", line, ServerMessage::parse)?;
    check("viewer", line, ViewerMessage::parse)?;
    for expect in [
        Expect::Hello,
        Expect::Username,
        Expect::Password,
        Expect::Move { analyze: false },
        Expect::Move { analyze: true },
        Expect::Ready,
        Expect::Viewer,
    ] {
        check(&format!("{expect:?}"), line, |l| {
            ClientMessage::parse(l, expect)
        })?;
    }
    Ok(())
}

/// Analysis as CGOS keeps it: the JSON re-written compactly (no spaces between tokens), at
/// most `max` bytes; `None` when it is not JSON or too long (the move stands either way).
#[must_use]
pub fn compact_analysis(analysis: &str, max: usize) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(analysis).ok()?;
    let compact = serde_json::to_string(&value).ok()?;
    (compact.len() <= max).then_some(compact)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Lines as zakki/cgos's server (`server-python/cgos/app/cgos.py`) and clients send them.
    const SERVER_LINES: &[&str] = &[
        "protocol",
        "protocol genmove_analyze",
        "username",
        "password",
        "setup 12 9 7.0 300000 alpha(1800?) beta(1650)",
        "setup 7 19 7.5 1800000 programA(1800?) programB(1800?) E5 1700000 H3 1600000 pass 1500000",
        "setup 3 9 -3.5 60000 a.b-c_d(0) Xyz",
        "genmove b 299000",
        "genmove w -150",
        "play w D4 297321",
        "play b pass 0",
        "gameover 2024-03-09 B+2.5",
        "gameover 2024-03-09 W+3.0",
        "gameover 2024-03-09 W+Resign Resignation",
        "gameover 2024-03-09 B+Time",
        "gameover 2024-03-09 W+Illegal Illegal move error:KO attempted move:D4",
        "gameover 2024-03-09 Draw",
        "gameover 2024-03-09 Abort",
        "info another login is being attempted using this user name",
        "info",
        "Error: Sorry, password doesn't match",
    ];

    #[test]
    fn every_server_line_reads_and_prints_back() {
        for line in SERVER_LINES {
            let message = ServerMessage::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(message.to_string(), *line);
            for ending in ["\n", "\r\n"] {
                let with_end = format!("{line}{ending}");
                assert_eq!(ServerMessage::parse(&with_end).unwrap(), message, "{line}");
            }
        }
    }

    #[test]
    fn server_lines_read_as_cgos_means_them() {
        let ServerMessage::Setup(setup) = ServerMessage::parse(SERVER_LINES[5]).unwrap() else {
            panic!("not a setup")
        };
        assert_eq!(setup.game_id, 7);
        assert_eq!(setup.size, 19);
        assert_eq!(setup.komi, Komi::from_half_points(15));
        assert_eq!(setup.main_time_ms, 1_800_000);
        assert_eq!(
            setup.white,
            Seat {
                name: "programA".into(),
                rating: Some(Rating {
                    elo: 1800,
                    provisional: true
                })
            }
        );
        assert_eq!(setup.color_of("programB"), Some(Color::Black));
        assert_eq!(setup.color_of("programC"), None);
        let moves: Vec<String> = setup.moves.iter().map(|m| m.mv.to_string()).collect();
        assert_eq!(moves, ["E5", "H3", "pass"]);
        assert_eq!(setup.moves[2].ms_left, 1_500_000);
        // CGOS's own server (`init_game`) puts two spaces before the catch-up moves, and an
        // empty move list leaves a trailing space (`_handle_player_password`).
        let spaced = "setup 7 9 7.0 1000 a(1) b(2)  c3 900 ";
        let ServerMessage::Setup(s) = ServerMessage::parse(spaced).unwrap() else {
            panic!()
        };
        assert_eq!(s.moves.len(), 1);
        assert_eq!(
            ServerMessage::parse("gameover 2024-03-09 B+Time ").unwrap(),
            ServerMessage::Gameover(Gameover {
                date: Date::new(2024, 3, 9).unwrap(),
                result: CgosResult::Win {
                    winner: Color::Black,
                    by: CgosWin::Time
                },
                text: String::new()
            })
        );
        assert_eq!(
            ServerMessage::parse("protocol genmove_analyze").unwrap(),
            ServerMessage::Protocol {
                genmove_analyze: true
            }
        );
        assert_eq!(
            ServerMessage::parse("Error:no user_name").unwrap(),
            ServerMessage::Error("no user_name".into())
        );
    }

    #[test]
    fn malformed_server_lines_name_what_is_wrong() {
        let cases: &[(&str, CgosError)] = &[
            ("", CgosError::Empty),
            ("   \r\n", CgosError::Empty),
            ("match 1 - -", CgosError::UnknownCommand("match".into())),
            (
                "genmove b",
                CgosError::Missing {
                    command: "genmove",
                    what: "time left",
                },
            ),
            ("genmove x 100", CgosError::BadColor("x".into())),
            (
                "genmove b 1.5",
                CgosError::BadNumber {
                    what: "time left",
                    text: "1.5".into(),
                },
            ),
            (
                "username now",
                CgosError::Extra {
                    command: "username",
                    extra: "now".into(),
                },
            ),
            ("play b I5 100", CgosError::BadMove("I5".into())),
            ("play b A26 100", CgosError::BadMove("A26".into())),
            ("play b A0 100", CgosError::BadMove("A0".into())),
            ("setup 1 26 7.5 100 a b", CgosError::BadSize(26)),
            ("setup 1 9 7.25 100 a b", CgosError::BadKomi("7.25".into())),
            ("setup 1 9 inf 100 a b", CgosError::BadKomi("inf".into())),
            (
                "setup 1 9 7.5 100 a(x) b",
                CgosError::BadPlayer("a(x)".into()),
            ),
            (
                "setup 1 9 7.5 100 a(12 b",
                CgosError::BadPlayer("a(12".into()),
            ),
            (
                "setup 1 9 7.5 100 (12) b",
                CgosError::BadPlayer("(12)".into()),
            ),
            (
                "setup 1 9 7.5 100 a b c3",
                CgosError::UnpairedMove("c3".into()),
            ),
            (
                "gameover 2024-13-01 B+R",
                CgosError::BadDate("2024-13-01".into()),
            ),
            (
                "gameover 2024-1-01 B+R",
                CgosError::BadDate("2024-1-01".into()),
            ),
            (
                "gameover 2024-01-01 B+R",
                CgosError::BadResult("B+R".into()),
            ),
            (
                "gameover 2024-01-01 B+0",
                CgosError::BadResult("B+0".into()),
            ),
            (
                "gameover 2024-01-01 X+Time",
                CgosError::BadResult("X+Time".into()),
            ),
            ("info a\nb", CgosError::ControlCharacter(10)),
            ("info a\u{0}b", CgosError::ControlCharacter(0)),
        ];
        for (line, error) in cases {
            assert_eq!(ServerMessage::parse(line).as_ref(), Err(error), "{line:?}");
        }
        let long = format!("info {}", "x".repeat(MAX_LINE));
        assert!(matches!(
            ServerMessage::parse(&long),
            Err(CgosError::LineTooLong { .. })
        ));
    }

    #[test]
    fn client_lines_read_in_their_context_and_print_back() {
        let cases: &[(&str, Expect)] = &[
            ("e1 cgosPython 1.0.0", Expect::Hello),
            ("e1 cgosPython 1.0.0 genmove_analyze", Expect::Hello),
            ("v1 viewer 0.1", Expect::Hello),
            ("e1", Expect::Hello),
            ("myuser", Expect::Username),
            ("mypw", Expect::Password),
            ("oldpw newpw", Expect::Password),
            ("D4", Expect::Move { analyze: false }),
            ("pass", Expect::Move { analyze: false }),
            ("resign", Expect::Move { analyze: false }),
            (
                "Q16 {\"moves\":[{\"move\":\"Q16\",\"winrate\":0.51}]}",
                Expect::Move { analyze: true },
            ),
            ("ready", Expect::Ready),
            ("quit", Expect::Ready),
        ];
        for (line, expect) in cases {
            let m = ClientMessage::parse(line, *expect).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(m.to_string(), *line);
            assert_eq!(
                ClientMessage::parse(&format!("{line}\r\n"), *expect).unwrap(),
                m
            );
        }
        // cgosclient.py sends moves in lower case (`_handle_genmove`: `result.lower()`).
        assert_eq!(
            ClientMessage::parse("q16\n", Expect::Move { analyze: false }).unwrap(),
            ClientMessage::Move {
                answer: Answer::Move(CgosMove::Play(Vertex::new(15, 16).unwrap())),
                analysis: None
            }
        );
        // It announces analysis by a last word (`_handle_protocol`).
        assert_eq!(
            ClientMessage::parse("e1 cgosPython 1.0.0 genmove_analyze", Expect::Hello).unwrap(),
            ClientMessage::Hello {
                kind: ClientKind::Engine,
                client: "cgosPython 1.0.0".into(),
                genmove_analyze: true
            }
        );
        // `quit` is read in every context.
        for expect in [
            Expect::Hello,
            Expect::Password,
            Expect::Move { analyze: true },
        ] {
            assert_eq!(
                ClientMessage::parse("quit", expect).unwrap(),
                ClientMessage::Quit
            );
        }
    }

    #[test]
    fn malformed_client_lines_name_what_is_wrong() {
        let no = Expect::Move { analyze: false };
        let cases: &[(&str, Expect, CgosError)] = &[
            ("x1 client", Expect::Hello, CgosError::NotHello("x1".into())),
            ("e1x", Expect::Hello, CgosError::NotHello("e1x".into())),
            (
                "my user",
                Expect::Username,
                CgosError::BadUsername("my user".into()),
            ),
            ("a b c", Expect::Password, CgosError::BadPassword),
            // Without genmove_analyze, text after the move makes it unreadable, as in CGOS.
            ("d4 {}", no, CgosError::BadMove("d4 {}".into())),
            ("z99", no, CgosError::BadMove("z99".into())),
            ("", no, CgosError::Empty),
            ("Ready", Expect::Ready, CgosError::NotReady("Ready".into())),
        ];
        for (line, expect, error) in cases {
            assert_eq!(
                ClientMessage::parse(line, *expect).as_ref(),
                Err(error),
                "{line:?}"
            );
        }
    }

    /// Lines as zakki/cgos's server sends them to a viewer (`_handle_player_protocol`,
    /// `init_game`, `viewer_respond`, `_handle_player_genmove`, `gameover`).
    const VIEWER_LINES: &[&str] = &[
        "match 1201 2024-03-09 14:05 9 7.5 alpha(1800?) beta(1650) B+2.5",
        "match 1202 2024-03-09 14:07 19 7.0 a.b-c_d(0) Xyz(2400) W+Resign",
        "match 1203 2024-03-10 00:00 9 7.5 a(1) b(2) Draw",
        "match 1204 - - 9 7.5 alpha(1800?) beta(1650) -",
        "setup 1204 - - 9 7.5 alpha(1800?) beta(1650) 300000",
        "setup 1204 - - 9 7.5 alpha(1800?) beta(1650) 300000 E5 299000 C3 298500 pass 297000",
        "setup 1201 2024-03-09 14:05 9 7.5 alpha(1800?) beta(1650) 300000 E5 299000 resign 290000 W+Resign",
        "setup 1203 2024-03-10 00:00 9 7.5 a(1) b(2) 300000 Draw",
        "setup 99 ?",
        "update 1204 D4 297321",
        "update 1204 pass 0",
        "update 1204 resign 120000",
        "update 1204 B+Time",
        "update 1204 W+12.0",
        "gameover 1204 W+Resign 100000 80000",
        "gameover 1204 B+Time 12000 300150",
        "info the server restarts in 5 minutes",
        "info",
        "Error: too many connections from this address",
    ];

    #[test]
    fn every_viewer_line_reads_and_prints_back() {
        for line in VIEWER_LINES {
            let message = ViewerMessage::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(message.to_string(), *line);
            for ending in ["\n", "\r\n"] {
                let with_end = format!("{line}{ending}");
                assert_eq!(ViewerMessage::parse(&with_end).unwrap(), message, "{line}");
            }
            assert_eq!(reads_back(line), Ok(()));
        }
    }

    #[test]
    fn viewer_lines_read_as_cgos_means_them() {
        let ViewerMessage::Match(m) = ViewerMessage::parse(VIEWER_LINES[0]).unwrap() else {
            panic!("not a match")
        };
        assert_eq!(m.game_id, 1201);
        assert_eq!(
            m.started,
            Some(Started {
                date: Date::new(2024, 3, 9).unwrap(),
                time: TimeOfDay::new(14, 5).unwrap()
            })
        );
        assert_eq!((m.size, m.komi), (9, Komi::from_half_points(15)));
        assert_eq!(
            (m.white.name.as_str(), m.black.name.as_str()),
            ("alpha", "beta")
        );
        assert_eq!(m.result, Some(CgosResult::parse("B+2.5").unwrap()));
        let ViewerMessage::Match(live) = ViewerMessage::parse(VIEWER_LINES[3]).unwrap() else {
            panic!("not a match")
        };
        assert_eq!((live.started, live.result), (None, None));
        // A game in play: its moves with their players' time left after each.
        let ViewerMessage::Setup(setup) = ViewerMessage::parse(VIEWER_LINES[5]).unwrap() else {
            panic!("not a setup")
        };
        assert_eq!(setup.main_time_ms, 300_000);
        let moves: Vec<String> = setup.moves.iter().map(|m| m.answer.to_string()).collect();
        assert_eq!(moves, ["E5", "C3", "pass"]);
        assert_eq!(setup.moves[1].ms_left, 298_500);
        assert_eq!(setup.result, None);
        // A finished game's record: a resignation is a move, then the result.
        let ViewerMessage::Setup(over) = ViewerMessage::parse(VIEWER_LINES[6]).unwrap() else {
            panic!("not a setup")
        };
        assert_eq!(over.moves[1].answer, Answer::Resign);
        assert_eq!(over.result, Some(CgosResult::parse("W+Resign").unwrap()));
        // CGOS leaves a space after an empty move list, and two between its archive's moves
        // and the result.
        assert_eq!(
            ViewerMessage::parse("setup 7 - - 9 7.5 a(1) b(2) 300000 ").unwrap(),
            ViewerMessage::parse("setup 7 - - 9 7.5 a(1) b(2) 300000").unwrap()
        );
        assert_eq!(
            ViewerMessage::parse("setup 7 2024-01-02 03:04 9 7.5 a(1) b(2) 300000  B+Time")
                .unwrap()
                .to_string(),
            "setup 7 2024-01-02 03:04 9 7.5 a(1) b(2) 300000 B+Time"
        );
        assert_eq!(
            ViewerMessage::parse("setup 99 ?").unwrap(),
            ViewerMessage::NoSuchGame(99)
        );
        assert_eq!(
            ViewerMessage::parse("update 5 d4 100").unwrap(),
            ViewerMessage::Update {
                game_id: 5,
                update: Update::Move(ViewedMove {
                    answer: Answer::Move(CgosMove::Play(Vertex::new(3, 4).unwrap())),
                    ms_left: 100
                })
            }
        );
        assert_eq!(
            ViewerMessage::parse("gameover 5 B+Time 12000 300150").unwrap(),
            ViewerMessage::Gameover {
                game_id: 5,
                result: CgosResult::Win {
                    winner: Color::Black,
                    by: CgosWin::Time
                },
                white_used_ms: 12_000,
                black_used_ms: 300_150
            }
        );
        assert_eq!(
            Started::from_unix_ms(1_709_993_100_999),
            Started {
                date: Date::new(2024, 3, 9).unwrap(),
                time: TimeOfDay::new(14, 5).unwrap()
            }
        );
    }

    #[test]
    fn malformed_viewer_lines_name_what_is_wrong() {
        let cases: &[(&str, CgosError)] = &[
            ("", CgosError::Empty),
            ("genmove b 100", CgosError::UnknownCommand("genmove".into())),
            (
                "match 1 - - 9 7.5 a b",
                CgosError::Missing {
                    command: "match",
                    what: "result",
                },
            ),
            (
                "match 1 - 10:00 9 7.5 a b -",
                CgosError::BadStart {
                    date: "-".into(),
                    time: "10:00".into(),
                },
            ),
            (
                "match 1 2024-01-01 24:00 9 7.5 a b -",
                CgosError::BadTime("24:00".into()),
            ),
            (
                "match 1 2024-01-01 9:00 9 7.5 a b -",
                CgosError::BadTime("9:00".into()),
            ),
            (
                "match 1 - - 9 7.5 a b B+R",
                CgosError::BadResult("B+R".into()),
            ),
            (
                "match 1 - - 9 7.5 a b - x",
                CgosError::Extra {
                    command: "match",
                    extra: "x".into(),
                },
            ),
            ("setup 1 - - 26 7.5 a b 100", CgosError::BadSize(26)),
            (
                "setup 1 - - 9 7.5 a b 100 c3 d4",
                CgosError::BadNumber {
                    what: "move's time left",
                    text: "d4".into(),
                },
            ),
            (
                "setup 1 - - 9 7.5 a b 100 c3",
                CgosError::BadResult("c3".into()),
            ),
            ("update 1 i9 100", CgosError::BadMove("i9".into())),
            ("update 1 d4", CgosError::BadResult("d4".into())),
            (
                "update 1",
                CgosError::Missing {
                    command: "update",
                    what: "move or result",
                },
            ),
            (
                "gameover 1 B+Time 100",
                CgosError::Missing {
                    command: "gameover",
                    what: "black's time",
                },
            ),
            (
                "gameover 2024-01-01 B+Time",
                CgosError::BadNumber {
                    what: "game id",
                    text: "2024-01-01".into(),
                },
            ),
        ];
        for (line, error) in cases {
            assert_eq!(ViewerMessage::parse(line).as_ref(), Err(error), "{line:?}");
        }
    }

    #[test]
    fn a_viewer_observes_or_quits() {
        assert_eq!(
            ClientMessage::parse("observe 1204\r\n", Expect::Viewer),
            Ok(ClientMessage::Observe(1204))
        );
        assert_eq!(ClientMessage::Observe(1204).to_string(), "observe 1204");
        assert_eq!(
            ClientMessage::parse("quit", Expect::Viewer),
            Ok(ClientMessage::Quit)
        );
        for (line, error) in [
            ("look 5", CgosError::UnknownCommand("look".into())),
            (
                "observe",
                CgosError::Missing {
                    command: "observe",
                    what: "game id",
                },
            ),
            (
                "observe x",
                CgosError::BadNumber {
                    what: "game id",
                    text: "x".into(),
                },
            ),
            (
                "observe 5 6",
                CgosError::Extra {
                    command: "observe",
                    extra: "6".into(),
                },
            ),
        ] {
            assert_eq!(
                ClientMessage::parse(line, Expect::Viewer),
                Err(error),
                "{line}"
            );
        }
    }

    #[test]
    fn what_reads_near_the_bound_prints_a_line_that_reads_back() {
        // `B+3` prints `B+3.0`: a line that reads just within the bound would print past it,
        // so it does not read.
        let text = "x".repeat(MAX_LINE - "gameover 2024-01-01 B+3 ".len());
        let line = format!("gameover 2024-01-01 B+3 {text}");
        assert_eq!(line.len(), MAX_LINE);
        assert!(matches!(
            ServerMessage::parse(&line),
            Err(CgosError::LineTooLong { .. })
        ));
        assert_eq!(reads_back(&line), Ok(()));
        let line = format!("gameover 2024-01-01 B+3.0 {}", &text[2..]);
        assert!(ServerMessage::parse(&line).is_ok());
        // Tabs stay inside free text, and read back.
        let tabbed = "info a\tb";
        assert_eq!(ServerMessage::parse(tabbed).unwrap().to_string(), tabbed);
        assert_eq!(reads_back(tabbed), Ok(()));
    }

    #[test]
    fn scores_print_as_cgos_prints_a_python_float() {
        // cgos.py `_handle_player_genmove`: `sc = ttScore() - komi` (a float), `f"B+{sc}"`.
        let cases = [(5, "B+2.5"), (6, "B+3.0"), (-1, "W+0.5"), (-144, "W+72.0")];
        for (margin, text) in cases {
            let result = CgosResult::of_margin(margin);
            assert_eq!(result.to_string(), text);
            assert_eq!(CgosResult::parse(text).unwrap(), result);
        }
        assert_eq!(CgosResult::of_margin(0).to_string(), "Draw");
        assert_eq!(CgosResult::parse("W+3").unwrap().to_string(), "W+3.0");
        assert_eq!(
            CgosResult::parse("b+resign").unwrap().to_string(),
            "B+Resign"
        );
    }

    #[test]
    fn results_convert_to_and_from_goref_outcomes() {
        for (cgos, sgf) in [
            ("B+2.5", "B+2.5"),
            ("W+3.0", "W+3"),
            ("B+Resign", "B+R"),
            ("W+Time", "W+T"),
            ("B+Illegal", "B+F"),
            ("Draw", "0"),
        ] {
            let result = CgosResult::parse(cgos).unwrap();
            let outcome = result.outcome();
            assert_eq!(outcome.to_sgf(), sgf);
            assert_eq!(result.to_sgf(), sgf);
            assert_eq!(CgosResult::try_from(outcome).unwrap(), result);
            let from_sgf: Outcome = sgf.parse().unwrap();
            assert_eq!(CgosResult::try_from(from_sgf).unwrap(), result);
        }
        assert_eq!(CgosResult::Abort.outcome(), Outcome::Void);
        let cycle = Outcome::Win {
            winner: Color::Black,
            by: WinBy::LongCycle {
                captures: goref_rules::ByColor::new(1, 0),
            },
        };
        assert_eq!(
            CgosResult::try_from(cycle),
            Err(CgosError::NoCgosForm("B+".into()))
        );
        // A score counted by goref's rules core gives CGOS's form of it.
        let score = goref_rules::Score {
            black: 45,
            white: 36,
            komi: Komi::from_half_points(15),
        };
        let result = CgosResult::try_from(score.outcome()).unwrap();
        assert_eq!(result, CgosResult::of_margin(score.margin_half_points()));
        assert_eq!(result.to_string(), "B+1.5");
    }

    #[test]
    fn illegal_moves_are_explained_in_cgos_words() {
        let text = IllegalReason::Ko.gameover_text("d4");
        assert_eq!(text, "Illegal move error:KO attempted move:d4");
        assert_eq!(
            IllegalReason::parse_text(&text),
            Some((IllegalReason::Ko, "d4"))
        );
        assert_eq!(
            IllegalReason::from(Illegal::Superko {
                repeats_after_turns: 3
            }),
            IllegalReason::Ko
        );
        assert_eq!(
            IllegalReason::from(Illegal::OffBoard),
            IllegalReason::Syntax
        );
        assert_eq!(
            IllegalReason::from(Illegal::Suicide).words(),
            "suicide attempted"
        );
        assert_eq!(IllegalReason::parse_text("Resignation"), None);
    }

    #[test]
    fn vertices_match_goref_points_and_skip_i() {
        let g = Geometry::rect(19, 19).unwrap();
        for p in g.points() {
            let v = Vertex::of_point(&g, p).unwrap();
            assert_eq!(v.point(&g), Some(p));
            assert_eq!(v.to_string(), g.name(p));
        }
        let nine = Geometry::rect(9, 9).unwrap();
        let t19 = Vertex::parse("t19").unwrap();
        assert_eq!(t19.point(&nine), None);
        assert_eq!(CgosMove::Play(t19).to_move(&nine), None);
        assert_eq!(CgosMove::Pass.to_move(&nine), Some(Move::Pass));
        assert_eq!(Vertex::parse("Z25").unwrap(), Vertex::new(24, 25).unwrap());
    }

    #[test]
    fn dates_follow_the_calendar() {
        assert_eq!(Date::from_unix_seconds(0).to_string(), "1970-01-01");
        assert_eq!(
            Date::from_unix_seconds(951_782_400).to_string(),
            "2000-02-29"
        );
        assert_eq!(
            Date::from_unix_seconds(1_709_942_399).to_string(),
            "2024-03-08"
        );
        assert_eq!(Date::new(2024, 2, 0), None);
        // A day's start and back, over 60 years of days; days that are not on the calendar
        // are refused.
        for day in (0..22_000u64).step_by(7) {
            let date = Date::from_unix_seconds(day * 86_400 + 3_600);
            assert_eq!(date.unix_seconds(), day * 86_400, "{date}");
            assert_eq!(Date::parse_calendar(&date.to_string()).unwrap(), date);
        }
        assert_eq!(
            Date::parse_calendar("2000-02-29").unwrap().unix_seconds(),
            951_782_400
        );
        for bad in [
            "2023-02-29",
            "2024-04-31",
            "2024-13-01",
            "24-01-01",
            "1969-12-31",
        ] {
            assert_eq!(
                Date::parse_calendar(bad),
                Err(CgosError::BadDate(bad.into())),
                "{bad}"
            );
        }
        // CGOS's lines are read as they come: a day 29 of any February.
        assert!(Date::parse("2023-02-29").is_ok());
    }

    #[test]
    fn analysis_is_kept_compact_and_bounded() {
        let sent = "{\"visits\": 10, \"moves\": [ {\"move\": \"D4\"} ]}";
        assert_eq!(
            compact_analysis(sent, 100).as_deref(),
            Some("{\"moves\":[{\"move\":\"D4\"}],\"visits\":10}")
        );
        assert_eq!(compact_analysis(sent, 10), None);
        assert_eq!(compact_analysis("winrate 0.5", 100), None);
    }

    #[tokio::test]
    async fn lines_are_read_bounded_and_across_cancellation() {
        let long = "x".repeat(MAX_LINE + 10);
        let input = format!("protocol\r\n{long}\nusername\npartial");
        let mut lines = LineReader::new(tokio::io::BufReader::with_capacity(7, input.as_bytes()));
        assert_eq!(
            lines.next_line().await.unwrap().as_deref(),
            Some("protocol\r\n")
        );
        assert!(matches!(
            lines.next_line().await,
            Err(ReadError::Line(CgosError::LineTooLong { .. }))
        ));
        assert_eq!(
            lines.next_line().await.unwrap().as_deref(),
            Some("username\n")
        );
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("partial"));
        assert_eq!(lines.next_line().await.unwrap(), None);
        let bytes: &[u8] = b"info \xff\n";
        let mut lines = LineReader::new(tokio::io::BufReader::new(bytes));
        assert!(matches!(
            lines.next_line().await,
            Err(ReadError::Line(CgosError::NotUtf8))
        ));
        // A line arriving in pieces, its reads dropped half-way, comes whole.
        let (mut tx, rx) = tokio::io::duplex(64);
        let mut lines = LineReader::new(tokio::io::BufReader::new(rx));
        use tokio::io::AsyncWriteExt;
        tx.write_all(b"genmove ").await.unwrap();
        let waited =
            tokio::time::timeout(std::time::Duration::from_millis(20), lines.next_line()).await;
        assert!(waited.is_err());
        tx.write_all(b"b 1000\n").await.unwrap();
        assert_eq!(
            lines.next_line().await.unwrap().as_deref(),
            Some("genmove b 1000\n")
        );
    }

    // -- Properties ------------------------------------------------------------------------

    fn text() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[!-~é日]{1,8}( [!-~é日]{1,8}){0,4}").unwrap()
    }

    fn name() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[A-Za-z][A-Za-z0-9_.-]{0,17}").unwrap()
    }

    fn color() -> impl Strategy<Value = Color> {
        prop_oneof![Just(Color::Black), Just(Color::White)]
    }

    fn cgos_move() -> impl Strategy<Value = CgosMove> {
        prop_oneof![
            1 => Just(CgosMove::Pass),
            9 => (0..MAX_SIZE, 1..=MAX_SIZE)
                .prop_map(|(c, r)| CgosMove::Play(Vertex::new(c, r).unwrap())),
        ]
    }

    fn result() -> impl Strategy<Value = CgosResult> {
        let by = prop_oneof![
            (1u32..2000).prop_map(|half_points| CgosWin::Score { half_points }),
            Just(CgosWin::Resign),
            Just(CgosWin::Time),
            Just(CgosWin::Illegal),
        ];
        prop_oneof![
            8 => (color(), by).prop_map(|(winner, by)| CgosResult::Win { winner, by }),
            1 => Just(CgosResult::Draw),
            1 => Just(CgosResult::Abort),
        ]
    }

    fn seat() -> impl Strategy<Value = Seat> {
        (name(), proptest::option::of((0u32..5000, any::<bool>()))).prop_map(|(name, r)| Seat {
            name,
            rating: r.map(|(elo, provisional)| Rating { elo, provisional }),
        })
    }

    fn server_message() -> impl Strategy<Value = ServerMessage> {
        let setup = (
            any::<u64>(),
            1..=MAX_SIZE,
            -200i32..200,
            any::<u64>(),
            seat(),
            seat(),
            proptest::collection::vec((cgos_move(), any::<i64>()), 0..30),
        )
            .prop_map(|(game_id, size, komi, main_time_ms, white, black, moves)| {
                ServerMessage::Setup(Setup {
                    game_id,
                    size,
                    komi: Komi::from_half_points(komi),
                    main_time_ms,
                    white,
                    black,
                    moves: moves
                        .into_iter()
                        .map(|(mv, ms_left)| TimedMove { mv, ms_left })
                        .collect(),
                })
            });
        let date =
            (0u16..=9999, 1u8..=12, 1u8..=31).prop_map(|(y, m, d)| Date::new(y, m, d).unwrap());
        prop_oneof![
            any::<bool>().prop_map(|genmove_analyze| ServerMessage::Protocol { genmove_analyze }),
            Just(ServerMessage::Username),
            Just(ServerMessage::Password),
            setup,
            (color(), any::<i64>())
                .prop_map(|(color, ms_left)| ServerMessage::Genmove { color, ms_left }),
            (color(), cgos_move(), any::<i64>())
                .prop_map(|(color, mv, ms_left)| ServerMessage::Play { color, mv, ms_left }),
            (date, result(), proptest::option::of(text())).prop_map(|(date, result, text)| {
                ServerMessage::Gameover(Gameover {
                    date,
                    result,
                    text: text.unwrap_or_default(),
                })
            }),
            proptest::option::of(text()).prop_map(|t| ServerMessage::Info(t.unwrap_or_default())),
            text().prop_map(ServerMessage::Error),
        ]
    }

    fn started() -> impl Strategy<Value = Option<Started>> {
        proptest::option::of(
            (0u16..=9999, 1u8..=12, 1u8..=31, 0u8..24, 0u8..60).prop_map(|(y, mo, d, h, mi)| {
                Started {
                    date: Date::new(y, mo, d).unwrap(),
                    time: TimeOfDay::new(h, mi).unwrap(),
                }
            }),
        )
    }

    fn answer() -> impl Strategy<Value = Answer> {
        prop_oneof![
            1 => Just(Answer::Resign),
            9 => cgos_move().prop_map(Answer::Move),
        ]
    }

    fn viewer_message() -> impl Strategy<Value = ViewerMessage> {
        let game = || {
            (
                any::<u64>(),
                started(),
                1..=MAX_SIZE,
                -200i32..200,
                seat(),
                seat(),
            )
        };
        let listed = (game(), proptest::option::of(result())).prop_map(
            |((game_id, started, size, komi, white, black), result)| {
                ViewerMessage::Match(Match {
                    game_id,
                    started,
                    size,
                    komi: Komi::from_half_points(komi),
                    white,
                    black,
                    result,
                })
            },
        );
        let setup = (
            game(),
            any::<u64>(),
            proptest::collection::vec((answer(), any::<i64>()), 0..30),
            proptest::option::of(result()),
        )
            .prop_map(
                |((game_id, started, size, komi, white, black), main_time_ms, moves, result)| {
                    ViewerMessage::Setup(ViewerSetup {
                        game_id,
                        started,
                        size,
                        komi: Komi::from_half_points(komi),
                        white,
                        black,
                        main_time_ms,
                        moves: moves
                            .into_iter()
                            .map(|(answer, ms_left)| ViewedMove { answer, ms_left })
                            .collect(),
                        result,
                    })
                },
            );
        let update = prop_oneof![
            (answer(), any::<i64>())
                .prop_map(|(answer, ms_left)| Update::Move(ViewedMove { answer, ms_left })),
            result().prop_map(Update::Over),
        ];
        prop_oneof![
            listed,
            setup,
            any::<u64>().prop_map(ViewerMessage::NoSuchGame),
            (any::<u64>(), update)
                .prop_map(|(game_id, update)| ViewerMessage::Update { game_id, update }),
            (any::<u64>(), result(), any::<i64>(), any::<i64>()).prop_map(
                |(game_id, result, white_used_ms, black_used_ms)| ViewerMessage::Gameover {
                    game_id,
                    result,
                    white_used_ms,
                    black_used_ms
                }
            ),
            proptest::option::of(text()).prop_map(|t| ViewerMessage::Info(t.unwrap_or_default())),
            text().prop_map(ViewerMessage::Error),
        ]
    }

    fn client_message() -> impl Strategy<Value = ClientMessage> {
        let answer = prop_oneof![
            1 => Just(Answer::Resign),
            9 => cgos_move().prop_map(Answer::Move),
        ];
        let client = proptest::string::string_regex("([!-~]{1,8}( [!-~]{1,8}){0,4})?")
            .unwrap()
            .prop_filter("the analysis word", |c| {
                !c.split(' ').any(|w| w == "genmove_analyze")
            });
        prop_oneof![
            (any::<bool>(), client, any::<bool>()).prop_map(|(engine, client, genmove_analyze)| {
                ClientMessage::Hello {
                    kind: if engine {
                        ClientKind::Engine
                    } else {
                        ClientKind::Viewer
                    },
                    client,
                    genmove_analyze,
                }
            }),
            name()
                .prop_filter("quit", |n| n != "quit")
                .prop_map(ClientMessage::Username),
            (
                "[!-~]{1,16}".prop_filter("quit", |p| p != "quit"),
                proptest::option::of("[!-~]{1,16}")
            )
                .prop_map(|(password, new_password)| ClientMessage::Password {
                    password,
                    new_password
                }),
            (answer, proptest::option::of(text()))
                .prop_map(|(answer, analysis)| ClientMessage::Move { answer, analysis }),
            Just(ClientMessage::Ready),
            any::<u64>().prop_map(ClientMessage::Observe),
            Just(ClientMessage::Quit),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn server_messages_read_back_from_their_lines(m in server_message()) {
            let line = m.to_string();
            prop_assert!(!line.contains(['\n', '\r']));
            prop_assert_eq!(ServerMessage::parse(&line), Ok(m.clone()));
            prop_assert_eq!(ServerMessage::parse(&format!("{line}\r\n")), Ok(m));
        }

        #[test]
        fn viewer_messages_read_back_from_their_lines(m in viewer_message()) {
            let line = m.to_string();
            prop_assert!(!line.contains(['\n', '\r']));
            prop_assert_eq!(ViewerMessage::parse(&line), Ok(m.clone()));
            prop_assert_eq!(ViewerMessage::parse(&format!("{line}\r\n")), Ok(m));
            prop_assert_eq!(reads_back(&line), Ok(()));
        }

        #[test]
        fn client_messages_read_back_from_their_lines(m in client_message()) {
            let line = m.to_string();
            prop_assert!(!line.contains(['\n', '\r']));
            let expect = m.expect().unwrap_or(Expect::Ready);
            prop_assert_eq!(ClientMessage::parse(&line, expect), Ok(m.clone()));
            prop_assert_eq!(ClientMessage::parse(&format!("{line}\n"), expect), Ok(m));
        }

        #[test]
        fn any_text_reads_without_panic_and_what_reads_prints_back(line in "\\PC{0,80}|[a-zA-Z0-9 ()+.?:\t-]{0,80}") {
            prop_assert_eq!(reads_back(&line), Ok(()));
        }

        #[test]
        fn mangled_server_lines_give_typed_errors(m in server_message(), cut in 0usize..200, junk in "[a-z0-9()+.-]{1,3}") {
            // A command word changed, or a valid line with a word inserted after the command,
            // fails with an error, or reads as something that prints back.
            let line = m.to_string();
            let cut = cut.min(line.len());
            let cut = (0..=cut).rev().find(|&i| line.is_char_boundary(i)).unwrap_or(0);
            let mangled = format!("{}{junk}{}", &line[..cut], &line[cut..]);
            match ServerMessage::parse(&mangled) {
                Ok(read) => prop_assert_eq!(ServerMessage::parse(&read.to_string()), Ok(read)),
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
            let garbage = format!("x{junk} {line}");
            prop_assert_eq!(
                ServerMessage::parse(&garbage),
                Err(CgosError::UnknownCommand(format!("x{junk}")))
            );
        }

        #[test]
        fn unexpected_client_lines_name_what_was_expected(line in "[ -~]{1,40}") {
            let trimmed = line.trim();
            prop_assume!(!trimmed.is_empty() && trimmed != "quit");
            let ready = ClientMessage::parse(&line, Expect::Ready);
            if trimmed == "ready" {
                prop_assert_eq!(ready, Ok(ClientMessage::Ready));
            } else {
                prop_assert_eq!(ready, Err(CgosError::NotReady(trimmed.to_string())));
            }
            let first = trimmed.split_whitespace().next().unwrap();
            let hello = ClientMessage::parse(&line, Expect::Hello);
            if first != "e1" && first != "v1" {
                prop_assert_eq!(hello, Err(CgosError::NotHello(first.to_string())));
            } else {
                prop_assert!(hello.is_ok());
            }
        }

        #[test]
        fn lines_come_whole_whatever_the_reads(
            lines in proptest::collection::vec("[ -~]{0,30}", 0..12),
            last in "[ -~]{0,10}",
            capacity in 1usize..40,
        ) {
            let input: String = lines.iter().map(|l| format!("{l}\n")).collect::<String>() + &last;
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let read = runtime.block_on(async {
                let mut reader = LineReader::new(tokio::io::BufReader::with_capacity(capacity, input.as_bytes()));
                let mut read = Vec::new();
                while let Some(line) = reader.next_line().await.unwrap() {
                    read.push(line);
                }
                read
            });
            let expected: Vec<&str> = input.split_inclusive('\n').collect();
            prop_assert_eq!(read, expected);
        }
    }
}
