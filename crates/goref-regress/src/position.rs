//! The position a suite has set up, followed with goref's own board from the commands sent and
//! the engine's answers, to draw each failing test's position.
//!
//! Why not ask the engine: `showboard` is free text in each engine's own form, and
//! `list_stones` is GNU Go's alone; asking would also send commands the suite does not have.
//! Following the commands needs nothing from the engine and says when it cannot know: the
//! commands that set the board (`boardsize`, `rectangular_boardsize`, `clear_board`,
//! `loadsgf FILE [N|VERTEX]` as GNU Go reads it, `play`, the moves answered to `genmove` and
//! `kgs-genmove_cleanup`, `undo`, the handicap commands, GNU Go's `trymove`, `tryko`, `popgo`
//! and `gg-undo`) are followed exactly, captures and suicide included (the engine accepted the
//! move, so its rules allowed it); a command known to change the board in a way not followed
//! (`restricted_genmove`, GTP 1's `black`, `white`…)
//! makes the position unknown until the next `boardsize`, `clear_board` or `loadsgf`, and so
//! does anything that does not fit (a move on an occupied point, a record that does not read).
//! Every other command is taken to leave the board as it is (GNU Go's `reg_genmove`, `attack`,
//! `owl_attack`… read it and take their reading back).

use std::path::Path;
use std::sync::Arc;

use goref_gtp::vertex::{parse_color, parse_move};
use goref_rules::{Board, Color, Geometry, Move, Point};

/// Commands that change the board in ways the tracker does not follow.
const UNFOLLOWED: &[&str] = &[
    "restricted_genmove",
    "black",
    "white",
    "genmove_black",
    "genmove_white",
    "setup_position",
    "set_position",
    "loadsgf_setup",
];

/// At most this many earlier positions are kept for `undo`.
const MAX_HISTORY: usize = 4096;

/// The board as far as the commands tell it.
#[derive(Clone, Debug)]
pub struct Tracker {
    state: Result<Board, String>,
    size: Option<(usize, usize)>,
    history: Vec<Board>,
}

impl Default for Tracker {
    fn default() -> Tracker {
        Tracker::new()
    }
}

impl Tracker {
    /// Nothing known yet (an engine's board before `boardsize` is its own choice).
    #[must_use]
    pub fn new() -> Tracker {
        Tracker {
            state: Err("no boardsize, clear_board or loadsgf yet".into()),
            size: None,
            history: Vec::new(),
        }
    }

    /// The board, or why it is not known.
    ///
    /// # Errors
    ///
    /// Why the position is not known.
    pub fn board(&self) -> Result<&Board, &str> {
        self.state.as_ref().map_err(String::as_str)
    }

    fn unknown(&mut self, why: String) {
        self.state = Err(why);
        self.history.clear();
    }

    fn empty(&mut self, w: usize, h: usize) {
        match Geometry::rect(w, h) {
            Ok(g) => {
                self.size = Some((w, h));
                self.history.clear();
                self.state = Ok(Board::new(Arc::new(g)));
            }
            Err(e) => self.unknown(format!("board {w}x{h}: {e}")),
        }
    }

    /// Plays `stones` (a colour a move) on the board, keeping the position before for `undo`.
    fn play(&mut self, moves: &[(Color, Move)], command: &str, undoable: bool) {
        let Ok(board) = &self.state else { return };
        let mut next = board.clone();
        for &(color, mv) in moves {
            if let Move::Play(p) = mv {
                if next.get(p).is_some() {
                    let name = next.geometry().name(p);
                    self.unknown(format!("'{command}': {name} is already occupied here"));
                    return;
                }
                next.play_unchecked(p, color);
            }
        }
        let before = std::mem::replace(&mut self.state, Ok(next));
        if let (true, Ok(before)) = (undoable, before) {
            if self.history.len() == MAX_HISTORY {
                self.history.remove(0);
            }
            self.history.push(before);
        }
    }

    /// Takes back `n` moves.
    fn undo(&mut self, n: usize) {
        for _ in 0..n {
            match self.history.pop() {
                Some(before) if self.state.is_ok() => self.state = Ok(before),
                _ => return self.unknown("undo past what was followed".into()),
            }
        }
    }

    /// Follows one command (as sent, paths already absolute) and the engine's answer to it:
    /// `success` for `=`, and its text.
    pub fn observe(&mut self, command: &str, success: bool, answer: &str) {
        let mut words = command.split_whitespace();
        let Some(name) = words.next() else { return };
        let name = name.to_ascii_lowercase();
        let args: Vec<&str> = words.collect();
        if !success {
            // A failed command changes nothing, except a record that failed half-way.
            if name == "loadsgf" {
                self.unknown(format!("'{command}' failed"));
            }
            return;
        }
        let geometry = self.state.as_ref().ok().map(|b| b.geometry().clone());
        let vertex = |text: &str| geometry.as_ref().and_then(|g| parse_move(g, text));
        match name.as_str() {
            "boardsize" => match args.first().and_then(|a| a.parse().ok()) {
                Some(n) => self.empty(n, n),
                None => self.unknown(format!("'{command}': no size")),
            },
            "rectangular_boardsize" => {
                match (
                    args.first().and_then(|a| a.parse().ok()),
                    args.get(1).and_then(|a| a.parse().ok()),
                ) {
                    (Some(w), Some(h)) => self.empty(w, h),
                    _ => self.unknown(format!("'{command}': no size")),
                }
            }
            "clear_board" => match self.size {
                Some((w, h)) => self.empty(w, h),
                None => self.unknown("clear_board before any board size".into()),
            },
            // GNU Go's `trymove`/`tryko` play a move to be taken back by `popgo`.
            "play" | "trymove" | "tryko" => {
                let color = args.first().and_then(|c| parse_color(c));
                match (color, args.get(1).and_then(|v| vertex(v))) {
                    (Some(c), Some(mv)) => self.play(&[(c, mv)], command, true),
                    _ if self.state.is_ok() => {
                        self.unknown(format!("'{command}': not a move on this board"));
                    }
                    _ => {}
                }
            }
            "genmove" | "kgs-genmove_cleanup" => {
                let color = args.first().and_then(|c| parse_color(c));
                let answer = answer.trim();
                if answer.eq_ignore_ascii_case("resign") {
                    return;
                }
                match (color, vertex(answer)) {
                    (Some(c), Some(mv)) => self.play(&[(c, mv)], command, true),
                    _ if self.state.is_ok() => {
                        self.unknown(format!("'{command}' answered '{answer}'"));
                    }
                    _ => {}
                }
            }
            "undo" | "popgo" => self.undo(1),
            // GNU Go's `gg-undo [N]`: N moves (1 without a number).
            "gg-undo" => match args.first().map(|n| n.parse::<usize>()) {
                None => self.undo(1),
                Some(Ok(n)) => self.undo(n),
                Some(Err(_)) => self.unknown(format!("'{command}': not a number of moves")),
            },
            "fixed_handicap" | "place_free_handicap" | "set_free_handicap" => {
                let list = if name == "set_free_handicap" {
                    args.join(" ")
                } else {
                    answer.to_string()
                };
                let stones: Option<Vec<(Color, Move)>> = list
                    .split_whitespace()
                    .map(|v| vertex(v).map(|mv| (Color::Black, mv)))
                    .collect();
                match stones {
                    Some(stones) => self.play(&stones, command, false),
                    None if self.state.is_ok() => {
                        self.unknown(format!("'{command}': stones not on this board"));
                    }
                    None => {}
                }
            }
            "loadsgf" => match args.first() {
                Some(file) => match load(Path::new(file), args.get(1).copied()) {
                    Ok(board) => {
                        self.size = board.geometry().size();
                        self.history.clear();
                        self.state = Ok(board);
                    }
                    Err(why) => self.unknown(format!("'{command}': {why}")),
                },
                None => self.unknown(format!("'{command}': no file")),
            },
            n if UNFOLLOWED.contains(&n) => {
                self.unknown(format!(
                    "'{command}' changes the board in a way not followed"
                ));
            }
            _ => {}
        }
    }
}

/// A node of a record: its properties, each an identifier and its values.
type Node = Vec<(String, Vec<String>)>;

/// The nodes of an SGF text's main line (its first game, the first variation at each
/// branch), each a list of properties (identifier, values), read leniently: text outside
/// properties is skipped, values are taken as written (escapes undone), and no property is
/// checked. GNU Go reads records this way; goref-sgf's reader, which checks what a record
/// means, refuses many of the records in GNU Go's suites (`TM[:(x:)]`, setup after moves).
fn main_line(text: &str) -> Result<Vec<Node>, String> {
    let Some(start) = text.find('(') else {
        return Err("no game in the record".into());
    };
    let mut chars = text[start + 1..].chars().peekable();
    let mut nodes: Vec<Node> = Vec::new();
    let mut ident = String::new();
    while let Some(c) = chars.next() {
        match c {
            // The first variation continues the main line; its end ends it.
            '(' => {}
            ')' => break,
            ';' => {
                nodes.push(Vec::new());
                ident.clear();
            }
            '[' => {
                let mut value = String::new();
                while let Some(v) = chars.next() {
                    match v {
                        '\\' => {
                            if let Some(escaped) = chars.next() {
                                value.push(escaped);
                            }
                        }
                        ']' => break,
                        v => value.push(v),
                    }
                }
                if let Some(node) = nodes.last_mut() {
                    // A value after a value belongs to the same property.
                    match (ident.is_empty(), node.last_mut()) {
                        (true, Some((_, values))) => values.push(value),
                        (true, None) => {}
                        (false, _) => node.push((std::mem::take(&mut ident), vec![value])),
                    }
                }
            }
            // FF[3]'s long names (`AddBlack`) are their capitals.
            c if c.is_ascii_uppercase() => ident.push(c),
            _ => {}
        }
    }
    Ok(nodes)
}

/// The position of `loadsgf FILE [UNTIL]` as GNU Go sets it: along the main line, `AB` and
/// `AW` stones are added wherever they come (a stone on an occupied point is left out), `AE`
/// is ignored (GNU Go 3.8 ignores it), and `B`/`W` moves are played, captures included, until
/// move number `UNTIL` (a number from 1: the moves before it are played) or the first move at
/// vertex `UNTIL`; without `UNTIL`, all of them. A move on an occupied point ends the loading
/// there, as in GNU Go.
///
/// # Errors
///
/// Why the position cannot be known: the file cannot be read, its size is not a board goref
/// has, a point is not one of the board, or `HA` asks for handicap stones the record does not
/// place (GNU Go would place them itself).
pub fn load(file: &Path, until: Option<&str>) -> Result<Board, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let nodes = main_line(&String::from_utf8_lossy(&bytes))?;
    let root = |id: &str| -> Option<&str> {
        nodes
            .first()?
            .iter()
            .find(|(i, _)| i == id)?
            .1
            .first()
            .map(String::as_str)
    };
    let size: usize = match root("SZ") {
        None => 19,
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("SZ[{v}] is not one number"))?,
    };
    let geometry = Arc::new(Geometry::rect(size, size).map_err(|e| e.to_string())?);
    let handicap: u32 = root("HA").and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let (number, at): (Option<usize>, Option<Point>) = match until {
        None => (None, None),
        Some(u) if u.starts_with(|c: char| ('1'..='9').contains(&c)) => (
            Some(u.parse().map_err(|_| format!("move number {u}"))?),
            None,
        ),
        Some(u) => match parse_move(&geometry, u) {
            Some(Move::Play(p)) => (None, Some(p)),
            _ => (None, None),
        },
    };
    // `tt` (or nothing) is a pass on boards up to 19×19.
    let point = |value: &str| -> Result<Option<Point>, String> {
        let v = value.trim().as_bytes();
        if v.is_empty() || (v == b"tt" && size <= 19) {
            return Ok(None);
        }
        match v {
            [x, y] if x.is_ascii_lowercase() && y.is_ascii_lowercase() => geometry
                .at(usize::from(x - b'a'), usize::from(y - b'a'))
                .map(Some)
                .ok_or_else(|| format!("[{value}] is off the {size}x{size} board")),
            _ => Err(format!("[{value}] is not a point")),
        }
    };
    let mut board = Board::new(geometry.clone());
    let mut played = 0;
    for node in &nodes {
        for (id, values) in node {
            match id.as_str() {
                "AB" | "AW" => {
                    let color = if id == "AB" {
                        Color::Black
                    } else {
                        Color::White
                    };
                    let mut colors = board.colors().to_vec();
                    for v in values {
                        if let Some(p) = point(v)? {
                            colors[p.index()].get_or_insert(color);
                        }
                    }
                    board = Board::from_colors(geometry.clone(), &colors)
                        .map_err(|e| format!("the setup is not a position: {e}"))?;
                }
                "B" | "W" | "PL"
                    if handicap > 1
                        && board.stone_count(Color::Black) + board.stone_count(Color::White)
                            == 0 =>
                {
                    let white = id == "W"
                        || values
                            .first()
                            .is_some_and(|v| v.trim().starts_with(['w', 'W', '2']));
                    if white {
                        return Err("HA without its stones (GNU Go would place them)".into());
                    }
                    if id == "B" {
                        play(
                            &mut board,
                            Color::Black,
                            values,
                            &point,
                            number,
                            at,
                            &mut played,
                        )?;
                    }
                }
                "B" | "W" => {
                    let color = if id == "B" {
                        Color::Black
                    } else {
                        Color::White
                    };
                    if !play(&mut board, color, values, &point, number, at, &mut played)? {
                        return Ok(board);
                    }
                }
                _ => {}
            }
        }
    }
    Ok(board)
}

/// Plays one record move on `board`, unless loading stops before it (then `false`).
fn play(
    board: &mut Board,
    color: Color,
    values: &[String],
    point: &impl Fn(&str) -> Result<Option<Point>, String>,
    number: Option<usize>,
    at: Option<Point>,
    played: &mut usize,
) -> Result<bool, String> {
    let mv = point(values.first().map_or("", String::as_str))?;
    if (mv.is_some() && mv == at) || number.is_some_and(|n| *played + 1 == n) {
        return Ok(false);
    }
    if let Some(p) = mv {
        if board.get(p).is_some() {
            // GNU Go stops at a move on an occupied point.
            return Ok(false);
        }
        board.play_unchecked(p, color);
    }
    *played += 1;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ascii(t: &Tracker) -> String {
        t.board().unwrap().to_ascii()
    }

    #[test]
    fn plays_captures_undo_and_unfollowed_commands() {
        let mut t = Tracker::new();
        assert!(t.board().is_err());
        t.observe("boardsize 3", true, "");
        t.observe("play b a2", true, "");
        t.observe("play w a1", true, "");
        t.observe("genmove b", true, "B1");
        assert_eq!(ascii(&t), "...\nX..\n.X.\n");
        t.observe("play w c3", false, "illegal move");
        t.observe("reg_genmove white", true, "C3");
        assert_eq!(ascii(&t), "...\nX..\n.X.\n");
        t.observe("undo", true, "");
        assert_eq!(ascii(&t), "...\nX..\nO..\n");
        t.observe("set_free_handicap c3 c2", true, "");
        assert_eq!(ascii(&t), "..X\nX.X\nO..\n");
        t.observe("trymove b b2", true, "");
        assert_eq!(ascii(&t), "..X\nXXX\nO..\n");
        t.observe("popgo", true, "");
        assert_eq!(ascii(&t), "..X\nX.X\nO..\n");
        t.observe("play w b3", true, "");
        t.observe("play w a3", true, "");
        t.observe("gg-undo 2", true, "");
        assert_eq!(ascii(&t), "..X\nX.X\nO..\n");
        t.observe("black c1", true, "");
        assert!(t.board().unwrap_err().contains("'black c1'"));
        t.observe("clear_board", true, "");
        assert_eq!(ascii(&t), "...\n...\n...\n");
    }

    #[test]
    fn loadsgf_stops_before_the_move_number_or_vertex() {
        let dir = std::env::temp_dir().join(format!("goref-regress-pos-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.sgf");
        std::fs::write(&file, "(;SZ[3]AB[aa];B[bb];W[cc];B[ca])").unwrap();
        let name = file.display().to_string();
        let mut t = Tracker::new();
        t.observe(&format!("loadsgf {name} 2"), true, "white");
        assert_eq!(ascii(&t), "X..\n.X.\n...\n");
        t.observe(&format!("loadsgf {name} C1"), true, "white");
        assert_eq!(ascii(&t), "X..\n.X.\n...\n");
        t.observe(&format!("loadsgf {name}"), true, "white");
        assert_eq!(ascii(&t), "X.X\n.X.\n..O\n");
        t.observe(&format!("loadsgf {name}.missing"), true, "black");
        assert!(t.board().is_err());
        // What goref-sgf would refuse, read as GNU Go reads it: a clock that is no number, a
        // comment with `]` escaped, setup after a move, AE ignored, the first variation
        // followed, a move on an occupied point ending the loading.
        std::fs::write(
            &file,
            "(;SZ[3]TM[:(x:)]C[a \\] b];B[bb]AE[bb];AW[aa](;W[cc];B[bb];W[ca])(;W[ac]))",
        )
        .unwrap();
        t.observe(&format!("loadsgf {name}"), true, "white");
        assert_eq!(ascii(&t), "O..\n.X.\n..O\n");
        t.observe(&format!("loadsgf {name} 2"), true, "white");
        assert_eq!(ascii(&t), "O..\n.X.\n...\n");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
