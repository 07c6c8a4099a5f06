//! SGF FF\[4\] game records of Go: read the main line of a file, with the line of every move,
//! and write records back.
//!
//! Reading follows the first variation at every branch (the main line), takes the first game
//! of a collection, and refuses what it cannot use with an error that names the line (and
//! column), and for moves the move number:
//!
//! ```
//! use goref_rules::{Color, Move};
//!
//! let record = goref_sgf::parse("(;GM[1]SZ[9]KM[7.5]\n;B[cc]\n;W[]\n)").unwrap();
//! assert_eq!((record.width, record.height), (9, 9));
//! assert_eq!(record.komi.unwrap().to_string(), "7.5");
//! assert_eq!(record.moves[0].line, 2);
//! assert_eq!((record.moves[1].color, record.moves[1].mv), (Color::White, Move::Pass));
//!
//! let err = goref_sgf::parse("(;SZ[9]\n;B[cc]\n;W[zz])").unwrap_err();
//! assert_eq!(err.to_string(), "line 3, column 2: move 2 (W[zz]) is off the 9x9 board");
//!
//! assert_eq!(goref_sgf::parse(&goref_sgf::write(&record)).unwrap().moves.len(), 2);
//! ```
//!
//! A record also replays under the rules, and scores as it ended: after two passes, the
//! stones on the other side's `TB`/`TW` territory are dead and come off before counting.
//!
//! ```
//! use goref_rules::Ruleset;
//! use goref_sgf::Territory;
//!
//! let text = "(;SZ[3:2]KM[0]TM[60]\n;B[bb]BL[59.5]\n;W[aa]\n;B[ba]\n;W[]\n;B[]TB[aa][ca][ab][cb])";
//! let record = goref_sgf::parse(text).unwrap();
//! assert_eq!(record.moves[0].time_left, Some(59.5));
//! let game = record.replay(Ruleset::TROMP_TAYLOR).unwrap();
//! assert_eq!(game.outcome().to_sgf(), "B+3", "every stone alive");
//! let scored = record.final_score(&game).unwrap();
//! assert_eq!(scored.score.outcome().to_sgf(), "B+6", "White's a2 removed");
//!
//! // The territory a writer puts in TB/TW: the final board less its dead stones.
//! assert_eq!(Some(Territory::of(game.board(), &scored.removed)), record.territory);
//!
//! // TT rule 5: Black starts.
//! let white_first = goref_sgf::parse("(;SZ[9]\n;W[ee])").unwrap();
//! assert!(white_first.replay(Ruleset::TROMP_TAYLOR).is_err());
//! ```
//!
//! Coordinates are SGF's: two letters, `a`-`z` then `A`-`Z`, column from the left then row
//! from the top, as [`Geometry::at`] counts. `B[]` is a pass, and so is `B[tt]` on boards no
//! side of which exceeds 19; on larger boards `tt` is the point at column 19, row 19.

mod error;
mod replay;
mod scan;
mod write;

use std::collections::HashMap;
use std::sync::Arc;

use goref_rules::{Board, Color, Geometry, GeometryError, Komi, Move, Point, Preset, SetupError};
use sgf_parse::go::{Move as SgfMove, Point as SgfPoint, Prop};
use sgf_parse::{GameTree, SgfNode, SgfProp};

pub use error::{MoveProblem, SgfError};
pub use replay::{FinalScore, MoveAt, ReplayError};
pub use write::write;

use scan::{clip, Scan, ScanError};

/// A game of Go as an SGF file records it: the board, the game information, the setup, the
/// moves of the main line with their clocks, and the territory at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Columns (`SZ[19]`, or the first number of `SZ[W:H]`); 19 when `SZ` is absent.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `KM`.
    pub komi: Option<Komi>,
    /// `RU`, as written.
    pub rules: Option<String>,
    /// Stones placed before the first move (`AB`, `AW`, less `AE`), in point order when read.
    pub setup: Vec<(Color, Point)>,
    /// `PL`: who moves first.
    pub first_player: Option<Color>,
    /// The main line's moves.
    pub moves: Vec<RecordedMove>,
    /// `PB`.
    pub black_player: Option<String>,
    /// `PW`.
    pub white_player: Option<String>,
    /// `RE`, as written.
    pub result: Option<String>,
    /// `DT`: the date, as written.
    pub date: Option<String>,
    /// `AP`: the program that wrote the file, `name:version` as written.
    pub application: Option<String>,
    /// `GN`: the game's name.
    pub game_name: Option<String>,
    /// `C` of the root node (when the root holds no move): a comment on the whole game.
    pub comment: Option<String>,
    /// `HA`: the number of handicap stones, as the file states it (the stones themselves are
    /// in [`setup`](GameRecord::setup)).
    pub handicap: Option<u32>,
    /// `TM`: each player's main time, in seconds.
    pub main_time: Option<f64>,
    /// `OT`: the overtime system, as written (`5x30 byo-yomi`).
    pub overtime: Option<String>,
    /// `TB`/`TW`: the points each side owns at the end. Written on the last move's node (the
    /// root when there are no moves); read from the last node of the main line that has `TB`
    /// or `TW`.
    pub territory: Option<Territory>,
}

/// The points each side owns at the end of a game (`TB`, `TW`): its territory once dead
/// stones are removed, the points of the removed stones included. A stone of one colour on a
/// point of the other's territory is dead ([`GameRecord::removed_stones`]).
///
/// Under area scoring (TT rule 9, 001 §3.8) a side's score is its stones plus these points.
/// One case is lost in this form: a dead stone whose removal leaves its point reaching both
/// colours is on nobody's territory, so it reads back as alive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Territory {
    /// `TB`: Black's points, in point order when read.
    pub black: Vec<Point>,
    /// `TW`: White's points, in point order when read.
    pub white: Vec<Point>,
}

impl Territory {
    /// The territory of each side on `board` once the strings through the stones at `dead`
    /// are taken off ([`Board::without`]): the empty points that reach only one colour (TT
    /// rule 9, [`Board::territory`]), in point order.
    ///
    /// ```
    /// use goref_rules::Board;
    /// use goref_sgf::Territory;
    ///
    /// // O X .
    /// // . X .   White's a2 is dead: a1, a2, c1 and c2 are Black's.
    /// let board = Board::from_ascii(&["OX.", ".X."]).unwrap();
    /// let a2 = board.geometry().parse_point("a2").unwrap();
    /// let territory = Territory::of(&board, &[a2]);
    /// assert_eq!(territory.black.len(), 4);
    /// assert!(territory.white.is_empty());
    /// ```
    ///
    /// # Panics
    ///
    /// When a point of `dead` is not a point of `board`.
    #[must_use]
    pub fn of(board: &Board, dead: &[Point]) -> Territory {
        let mut territory = Territory::default();
        for (i, owner) in board.without(dead).territory().into_iter().enumerate() {
            match owner {
                Some(Color::Black) => territory.black.push(Point::new(i)),
                Some(Color::White) => territory.white.push(Point::new(i)),
                None => {}
            }
        }
        territory
    }

    /// The points of `color`'s territory.
    #[must_use]
    pub fn of_color(&self, color: Color) -> &[Point] {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }
}

/// One `B` or `W` property of the main line.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedMove {
    /// Who moved.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// The line of the file (from 1) where the `B`/`W` property is; 0 for moves not read
    /// from a file.
    pub line: usize,
    /// `C` of the move's node.
    pub comment: Option<String>,
    /// `BL` or `WL` (the mover's) of the move's node: seconds left on the mover's clock after
    /// the move. Written with three decimals.
    pub time_left: Option<f64>,
    /// `OB` or `OW` (the mover's) of the move's node: overtime periods (or stones) left.
    pub periods_left: Option<u32>,
}

impl RecordedMove {
    /// A move not read from a file: line 0, no comment, no clock.
    #[must_use]
    pub fn new(color: Color, mv: Move) -> RecordedMove {
        RecordedMove {
            color,
            mv,
            line: 0,
            comment: None,
            time_left: None,
            periods_left: None,
        }
    }
}

impl GameRecord {
    /// An empty record of a `width` × `height` board: no game information, setup or moves.
    #[must_use]
    pub fn new(width: usize, height: usize) -> GameRecord {
        GameRecord {
            width,
            height,
            komi: None,
            rules: None,
            setup: Vec::new(),
            first_player: None,
            moves: Vec::new(),
            black_player: None,
            white_player: None,
            result: None,
            date: None,
            application: None,
            game_name: None,
            comment: None,
            handicap: None,
            main_time: None,
            overtime: None,
            territory: None,
        }
    }

    /// The board's geometry.
    pub fn geometry(&self) -> Result<Geometry, GeometryError> {
        Geometry::rect(self.width, self.height)
    }

    /// The starting position: the setup stones on the empty board. Fails when the size is not
    /// a board, a setup point is off it, or a setup string has no liberties (records read by
    /// [`parse`] have been checked for all of these).
    pub fn start_board(&self) -> Result<Board, SgfError> {
        let geometry = self.geometry().map_err(|e| SgfError::Record {
            message: e.to_string(),
        })?;
        let mut colors = vec![None; geometry.len()];
        for &(color, p) in &self.setup {
            let Some(cell) = colors.get_mut(p.index()) else {
                return Err(SgfError::Record {
                    message: format!(
                        "setup point #{} is off the {}x{} board",
                        p.index(),
                        self.width,
                        self.height
                    ),
                });
            };
            *cell = Some(color);
        }
        Board::from_colors(Arc::new(geometry), &colors).map_err(|e| SgfError::Record {
            message: setup_message(&e, self.width),
        })
    }

    /// The preset that `RU` names, if any: see [`preset_from_rules`].
    #[must_use]
    pub fn preset(&self) -> Option<Preset> {
        self.rules.as_deref().and_then(preset_from_rules)
    }
}

impl Default for GameRecord {
    /// An empty 19×19 record: no game information, setup, moves or territory.
    fn default() -> GameRecord {
        GameRecord::new(19, 19)
    }
}

/// The preset a rules text (`RU`) names, ignoring case, spaces, `_` and `-`:
/// `tromp-taylor`, `TT` → Tromp-Taylor; `NSTT`, `no-suicide tromp-taylor` → NSTT;
/// `olympiad`, `computer olympiad`, `Chinese`, `CN` → Olympiad. Anything else is `None`.
#[must_use]
pub fn preset_from_rules(rules: &str) -> Option<Preset> {
    let key: String = rules
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    match key.as_str() {
        "tromptaylor" | "tt" => Some(Preset::TrompTaylor),
        "nstt" | "nosuicidetromptaylor" => Some(Preset::Nstt),
        "olympiad" | "computerolympiad" | "chinese" | "cn" => Some(Preset::Olympiad),
        _ => None,
    }
}

/// Every game of a collection (`(;...)(;...)`), each read as [`parse`] reads one.
///
/// ```
/// let games = goref_sgf::parse_collection("(;SZ[9];B[cc])\n(;SZ[9];B[dd];W[ee])").unwrap();
/// assert_eq!(games.len(), 2);
/// assert_eq!(games[1].moves.len(), 2);
/// let (game, err) = goref_sgf::parse_collection("(;SZ[9];B[cc])(;SZ[9];B[zz])").unwrap_err();
/// assert_eq!(game, 2);
/// assert!(err.to_string().contains("off the 9x9 board"));
/// ```
///
/// # Errors
///
/// The number (from 1) of the first game that does not read, and why (lines and columns count
/// from that game's opening parenthesis).
pub fn parse_collection(text: &str) -> Result<Vec<GameRecord>, (usize, SgfError)> {
    let mut games = Vec::new();
    let mut rest = text;
    loop {
        let extent = match scan::scan(rest) {
            Ok(scan) => scan.start..scan.end,
            Err(ScanError::NoGame) if !games.is_empty() => return Ok(games),
            Err(_) => {
                return Err((
                    games.len() + 1,
                    parse(rest).err().unwrap_or(SgfError::NoGame { line: 1 }),
                ))
            }
        };
        let game = parse(&rest[extent.clone()]).map_err(|e| (games.len() + 1, e))?;
        games.push(game);
        rest = &rest[extent.end..];
    }
}

/// Reads the first game of an SGF collection.
///
/// Takes `SZ` (from the root node), `GM` (must be 1 or absent), `KM`, `RU`, `PB`, `PW`, `RE`,
/// `DT`, `AP`, `GN`, `HA`, `TM`, `OT` (first occurrence on the main line), the root's `C`,
/// setup `AB`/`AW`/`AE`/`PL` (in nodes before the first move), the `B`/`W` moves of the main
/// line with their node's `C` and the mover's `BL`/`WL` and `OB`/`OW`, and `TB`/`TW` from the
/// last node of the main line that has either; other properties are ignored. Text before the
/// first `(;` and after the first game tree is ignored.
///
/// Time is linear in the size of the text, however deep its variations nest.
pub fn parse(text: &str) -> Result<GameRecord, SgfError> {
    let lines = Lines::new(text);
    let scan = scan::scan(text).map_err(|e| match e {
        ScanError::NoGame => SgfError::NoGame { line: 1 },
        ScanError::Syntax { pos, message } => {
            let (line, column) = lines.locate(text, pos);
            SgfError::Syntax {
                line,
                column,
                message,
            }
        }
    })?;
    let reader = Reader {
        text,
        lines: &lines,
        scan: &scan,
    };
    reader.check_game_type()?;
    let trees = sgf_parse::parse(&text[scan.start..scan.end]).map_err(|e| {
        let (line, column) = lines.locate(text, scan.start);
        SgfError::Syntax {
            line,
            column,
            message: format!("sgf-parse: {e}"),
        }
    })?;
    let mut trees = trees.into_iter();
    let result = match trees.next() {
        Some(GameTree::GoGame(root)) => {
            let result = reader.read(&root);
            teardown(root);
            result
        }
        Some(GameTree::Unknown(root)) => {
            teardown(root);
            Err(
                reader.error_at(0, usize::MAX, |line, column| SgfError::NotGo {
                    line,
                    column,
                    value: "?".to_string(),
                }),
            )
        }
        None => Err(
            reader.error_at(0, usize::MAX, |line, column| SgfError::Syntax {
                line,
                column,
                message: "no game tree".to_string(),
            }),
        ),
    };
    for tree in trees {
        match tree {
            GameTree::GoGame(root) => teardown(root),
            GameTree::Unknown(root) => teardown(root),
        }
    }
    result
}

/// Drops a tree without recursion: `sgf-parse` nests each node in its parent, and the derived
/// `Drop` would recurse once per move.
fn teardown<P: SgfProp>(root: SgfNode<P>) {
    let mut stack = vec![root];
    while let Some(mut node) = stack.pop() {
        stack.append(&mut node.children);
    }
}

/// The SGF letter of a coordinate: `a`-`z`, then `A`-`Z`.
pub(crate) fn letter(i: usize) -> char {
    match u8::try_from(i) {
        Ok(i @ 0..=25) => char::from(b'a' + i),
        Ok(i @ 26..=51) => char::from(b'A' + i - 26),
        _ => '?',
    }
}

fn setup_message(error: &SetupError, width: usize) -> String {
    match error {
        SetupError::NoLiberties(p) if width > 0 => format!(
            "setup leaves the string at {}{} without liberties",
            letter(p.index() % width),
            letter(p.index() / width)
        ),
        other => other.to_string(),
    }
}

/// Byte offsets where lines start (after `\n`, `\r\n` or a lone `\r`).
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Lines {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                starts.push(i + 1);
            }
        }
        Lines { starts }
    }

    /// The line (from 1) of a byte offset, in logarithmic time.
    fn line(&self, pos: usize) -> usize {
        self.starts.partition_point(|&s| s <= pos).max(1)
    }

    /// Line and column (both from 1, columns in characters) of a byte offset. Counting the
    /// column takes time in proportion to the line's length: for errors only.
    fn locate(&self, text: &str, pos: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= pos).max(1);
        let start = self.starts[line - 1];
        let column = text
            .get(start..pos.min(text.len()))
            .map_or(pos - start, |s| s.chars().count());
        (line, column + 1)
    }
}

/// Properties read from the main line; a second one in a node is an error.
const READ: [&str; 26] = [
    "B", "W", "AB", "AW", "AE", "PL", "SZ", "KM", "RU", "PB", "PW", "RE", "GM", "C", "DT", "AP",
    "GN", "HA", "TM", "OT", "TB", "TW", "BL", "WL", "OB", "OW",
];

/// Reads `sgf-parse`'s tree, with the scan for positions.
struct Reader<'a> {
    text: &'a str,
    lines: &'a Lines,
    scan: &'a Scan,
}

impl Reader<'_> {
    /// Byte offset of property `prop` of main-line node `node` (the node's `;` when there is no
    /// such property, the tree's `(` when there is no such node).
    fn pos(&self, node: usize, prop: usize) -> usize {
        self.scan.main.get(node).map_or(self.scan.start, |n| {
            n.props.get(prop).map_or(n.pos, |p| p.pos)
        })
    }

    fn error_at(
        &self,
        node: usize,
        prop: usize,
        make: impl FnOnce(usize, usize) -> SgfError,
    ) -> SgfError {
        let (line, column) = self.lines.locate(self.text, self.pos(node, prop));
        make(line, column)
    }

    /// The board point of a point value of property `prop` of node `node`, or an error naming
    /// it when it is off the board.
    fn point_on(
        &self,
        geometry: &Geometry,
        p: &SgfPoint,
        node: usize,
        prop: usize,
        ident: &str,
    ) -> Result<Point, SgfError> {
        geometry.at(p.x.into(), p.y.into()).ok_or_else(|| {
            let (width, height) = geometry.size().unwrap_or((0, 0));
            self.property_error(
                node,
                prop,
                format!(
                    "{ident} point {}{} is off the {width}x{height} board",
                    letter(p.x.into()),
                    letter(p.y.into())
                ),
            )
        })
    }

    fn property_error(&self, node: usize, prop: usize, message: String) -> SgfError {
        self.error_at(node, prop, |line, column| SgfError::Property {
            line,
            column,
            message,
        })
    }

    /// The values of a property as the scan read them (escapes removed).
    fn values(&self, node: usize, prop: usize) -> &[String] {
        self.scan
            .main
            .get(node)
            .and_then(|n| n.props.get(prop))
            .map_or(&[], |p| p.values.as_slice())
    }

    /// The one value of a property, or an error saying how many it has.
    fn single(&self, node: usize, prop: usize, ident: &str) -> Result<&str, SgfError> {
        match self.values(node, prop) {
            [value] => Ok(value),
            values => Err(self.property_error(
                node,
                prop,
                format!("{ident} has {} values: it takes one", values.len()),
            )),
        }
    }

    /// A number of seconds (SGF real: digits with an optional sign and decimals).
    fn seconds(
        &self,
        node: usize,
        prop: usize,
        ident: &str,
        negative: bool,
    ) -> Result<f64, SgfError> {
        let value = self.single(node, prop, ident)?;
        let text = value.trim();
        let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        let well_formed = !whole.is_empty()
            && whole.bytes().all(|b| b.is_ascii_digit())
            && fraction.bytes().all(|b| b.is_ascii_digit())
            && (!digits.contains('.') || !fraction.is_empty());
        match text.parse::<f64>() {
            Ok(seconds) if well_formed && seconds.is_finite() && (negative || seconds >= 0.0) => {
                Ok(seconds)
            }
            _ => Err(self.property_error(
                node,
                prop,
                format!(
                    "{ident}[{}] is not a number of seconds{}",
                    self.raw(node, prop),
                    if negative { "" } else { " (0 or more)" }
                ),
            )),
        }
    }

    /// A whole number, 0 or more.
    fn count(&self, node: usize, prop: usize, ident: &str, what: &str) -> Result<u32, SgfError> {
        let value = self.single(node, prop, ident)?;
        let text = value.trim();
        match text.parse::<u32>() {
            Ok(n) if text.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
            _ => Err(self.property_error(
                node,
                prop,
                format!(
                    "{ident}[{}] is not a number of {what} (a whole number, 0 or more)",
                    self.raw(node, prop)
                ),
            )),
        }
    }

    /// The raw values of a property, `a][b` for several, clipped for messages.
    fn raw(&self, node: usize, prop: usize) -> String {
        self.scan
            .main
            .get(node)
            .and_then(|n| n.props.get(prop))
            .map_or_else(String::new, |p| clip(&p.values.join("][")))
    }

    /// `GM` must be absent or 1 (checked before `sgf-parse`, which fails without saying where
    /// on a `GM` that is not a number, and reads other games with other properties).
    fn check_game_type(&self) -> Result<(), SgfError> {
        let mut gm = self.scan.main[0]
            .props
            .iter()
            .enumerate()
            .filter(|(_, p)| p.ident == "GM");
        if let Some((j, prop)) = gm.next() {
            if let Some((k, _)) = gm.next() {
                return Err(self.property_error(0, k, "GM appears twice in one node".into()));
            }
            if prop.values != ["1"] {
                return Err(self.error_at(0, j, |line, column| SgfError::NotGo {
                    line,
                    column,
                    value: self.raw(0, j),
                }));
            }
        }
        Ok(())
    }

    fn read(&self, root: &SgfNode<Prop>) -> Result<GameRecord, SgfError> {
        let nodes: Vec<&SgfNode<Prop>> = root.main_variation().collect();
        debug_assert!(self.agrees(&nodes), "scan and sgf-parse disagree");
        let (width, height) = self.size(nodes[0])?;
        let geometry = Geometry::rect(width, height)
            .map_err(|_| self.property_error(0, usize::MAX, format!("board {width}x{height}")))?;
        let mut record = GameRecord::new(width, height);
        let mut colors: Vec<Option<Color>> = vec![None; geometry.len()];
        // Where each setup point was last set: (node, property).
        let mut set_by = vec![(0, 0); geometry.len()];
        for (k, node) in nodes.iter().enumerate() {
            let mut node_move = None;
            let mut node_setup = None;
            let mut comment = None;
            // BL/WL and OB/OW of this node, by colour index.
            let mut time_left: [Option<f64>; 2] = [None; 2];
            let mut periods_left: [Option<u32>; 2] = [None; 2];
            // TB/TW of this node.
            let mut territory: Option<Territory> = None;
            let mut seen: Vec<&str> = Vec::new();
            let mut node_points: HashMap<usize, &str> = HashMap::new();
            for (j, prop) in node.properties.iter().enumerate() {
                let ident = ident_of(prop);
                if let Some(&read) = READ.iter().find(|&&r| r == ident) {
                    if seen.contains(&read) && read != "B" && read != "W" {
                        return Err(self.property_error(
                            k,
                            j,
                            format!("{read} appears twice in one node"),
                        ));
                    }
                    seen.push(read);
                }
                let color = match ident.as_str() {
                    "B" | "AB" | "BL" | "OB" | "TB" => Color::Black,
                    _ => Color::White,
                };
                match prop {
                    Prop::B(_) | Prop::W(_) => {}
                    Prop::Invalid(id, _) if id == "B" || id == "W" => {}
                    Prop::AB(points) | Prop::AW(points) | Prop::AE(points) => {
                        self.setup_allowed(k, j, &ident, node_move, &record)?;
                        node_setup = Some(j);
                        let value = match prop {
                            Prop::AE(_) => None,
                            _ => Some(color),
                        };
                        let mut points: Vec<&SgfPoint> = points.iter().collect();
                        points.sort_by_key(|p| (p.y, p.x));
                        for p in points {
                            let point = self.point_on(&geometry, p, k, j, &ident)?;
                            let i = point.index();
                            if let Some(other) = node_points.insert(i, prop_name(prop)) {
                                return Err(self.property_error(
                                    k,
                                    j,
                                    format!(
                                        "point {}{} is in both {other} and {ident} of one node",
                                        letter(p.x.into()),
                                        letter(p.y.into())
                                    ),
                                ));
                            }
                            colors[i] = value;
                            set_by[i] = (k, j);
                        }
                    }
                    Prop::PL(c) => {
                        self.setup_allowed(k, j, &ident, node_move, &record)?;
                        node_setup = Some(j);
                        record.first_player = Some(match c {
                            sgf_parse::Color::Black => Color::Black,
                            sgf_parse::Color::White => Color::White,
                        });
                    }
                    Prop::Invalid(id, _) if matches!(id.as_str(), "AB" | "AW" | "AE") => {
                        return Err(self.property_error(
                            k,
                            j,
                            format!(
                                "{id}[{}] is not a list of points (two letters each, or \
                                 compressed as ul:lr)",
                                self.raw(k, j)
                            ),
                        ));
                    }
                    Prop::Invalid(id, _) if id == "PL" => {
                        return Err(self.property_error(
                            k,
                            j,
                            format!("PL[{}] is not B or W", self.raw(k, j)),
                        ));
                    }
                    Prop::SZ(_) | Prop::Invalid(_, _) if ident == "SZ" && k > 0 => {
                        return Err(self.property_error(
                            k,
                            j,
                            "SZ must be in the root node".to_string(),
                        ));
                    }
                    Prop::KM(value) => {
                        let komi = Komi::from_f64(*value).map_err(|_| self.komi_error(k, j))?;
                        record.komi.get_or_insert(komi);
                    }
                    Prop::Invalid(id, _) if id == "KM" => return Err(self.komi_error(k, j)),
                    Prop::RU(t) => {
                        record.rules.get_or_insert_with(|| t.text.clone());
                    }
                    Prop::PB(t) => {
                        record.black_player.get_or_insert_with(|| t.text.clone());
                    }
                    Prop::PW(t) => {
                        record.white_player.get_or_insert_with(|| t.text.clone());
                    }
                    Prop::RE(t) => {
                        record.result.get_or_insert_with(|| t.text.clone());
                    }
                    Prop::C(t) => comment = Some(t.text.clone()),
                    Prop::DT(t) => {
                        record.date.get_or_insert_with(|| t.text.clone());
                    }
                    Prop::GN(t) => {
                        record.game_name.get_or_insert_with(|| t.text.clone());
                    }
                    Prop::OT(t) => {
                        record.overtime.get_or_insert_with(|| t.text.clone());
                    }
                    // AP is `name:version`; sgf-parse refuses a value without the colon, which
                    // real files have (`AP[hand]`): take the value as written.
                    Prop::AP(_) | Prop::Invalid(_, _) if ident == "AP" => {
                        let value = self.single(k, j, "AP")?.to_string();
                        record.application.get_or_insert(value);
                    }
                    // sgf-parse refuses HA below 2, which real files write: read it here.
                    Prop::HA(_) | Prop::Invalid(_, _) if ident == "HA" => {
                        let n = self.count(k, j, "HA", "handicap stones")?;
                        record.handicap.get_or_insert(n);
                    }
                    Prop::TM(_) | Prop::Invalid(_, _) if ident == "TM" => {
                        let seconds = self.seconds(k, j, "TM", false)?;
                        record.main_time.get_or_insert(seconds);
                    }
                    Prop::BL(_) | Prop::WL(_) | Prop::Invalid(_, _)
                        if ident == "BL" || ident == "WL" =>
                    {
                        time_left[color.index()] = Some(self.seconds(k, j, &ident, true)?);
                    }
                    Prop::OB(_) | Prop::OW(_) | Prop::Invalid(_, _)
                        if ident == "OB" || ident == "OW" =>
                    {
                        periods_left[color.index()] =
                            Some(self.count(k, j, &ident, "periods or stones")?);
                    }
                    Prop::TB(points) | Prop::TW(points) => {
                        let territory = territory.get_or_insert_with(Territory::default);
                        let mut points: Vec<&SgfPoint> = points.iter().collect();
                        points.sort_by_key(|p| (p.y, p.x));
                        for p in points {
                            let point = self.point_on(&geometry, p, k, j, &ident)?;
                            if territory.of_color(color.opponent()).contains(&point) {
                                return Err(self.property_error(
                                    k,
                                    j,
                                    format!(
                                        "point {}{} is in both TB and TW of one node",
                                        letter(p.x.into()),
                                        letter(p.y.into())
                                    ),
                                ));
                            }
                            match color {
                                Color::Black => territory.black.push(point),
                                Color::White => territory.white.push(point),
                            }
                        }
                    }
                    // An empty list (SGF's `elist`), which sgf-parse refuses.
                    Prop::Invalid(id, values)
                        if (id == "TB" || id == "TW")
                            && values.len() == 1
                            && values[0].is_empty() =>
                    {
                        territory.get_or_insert_with(Territory::default);
                    }
                    Prop::Invalid(id, _) if id == "TB" || id == "TW" => {
                        return Err(self.property_error(
                            k,
                            j,
                            format!(
                                "{id}[{}] is not a list of points (two letters each, or \
                                 compressed as ul:lr)",
                                self.raw(k, j)
                            ),
                        ));
                    }
                    Prop::Invalid(id, values)
                        if matches!(
                            id.as_str(),
                            "RU" | "PB" | "PW" | "RE" | "C" | "DT" | "GN" | "OT"
                        ) =>
                    {
                        return Err(self.property_error(
                            k,
                            j,
                            format!("{id} has {} values: it takes one", values.len()),
                        ));
                    }
                    _ => {}
                }
                let mv = match prop {
                    Prop::B(mv) | Prop::W(mv) => Some(Ok(*mv)),
                    Prop::Invalid(id, _) if id == "B" || id == "W" => Some(Err(())),
                    _ => None,
                };
                if let Some(mv) = mv {
                    let number = record.moves.len() + 1;
                    let problem = if node_move.is_some() {
                        Err(MoveProblem::SecondInNode)
                    } else if node_setup.is_some() {
                        Err(MoveProblem::WithSetup)
                    } else {
                        move_on(&geometry, mv)
                    };
                    match problem {
                        Ok(mv) => {
                            node_move = Some(record.moves.len());
                            record.moves.push(RecordedMove {
                                line: self.lines.line(self.pos(k, j)),
                                ..RecordedMove::new(color, mv)
                            });
                        }
                        Err(problem) => {
                            let (line, column) = self.lines.locate(self.text, self.pos(k, j));
                            return Err(SgfError::Move {
                                line,
                                column,
                                number,
                                color,
                                value: self.raw(k, j),
                                problem,
                            });
                        }
                    }
                }
            }
            if let Some(m) = node_move {
                let m = &mut record.moves[m];
                m.comment = comment;
                m.time_left = time_left[m.color.index()];
                m.periods_left = periods_left[m.color.index()];
            } else if k == 0 {
                record.comment = comment;
            }
            if territory.is_some() {
                record.territory = territory;
            }
        }
        if let Err(e) = Board::from_colors(Arc::new(geometry), &colors) {
            let (k, j) = match e {
                SetupError::NoLiberties(p) => set_by[p.index()],
                SetupError::WrongLength { .. } | SetupError::BadDrawing => (0, usize::MAX),
            };
            return Err(self.property_error(k, j, setup_message(&e, width)));
        }
        record.setup = colors
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.map(|c| (c, Point::new(i))))
            .collect();
        Ok(record)
    }

    /// `(width, height)` from the root's `SZ`, 19×19 without one.
    fn size(&self, root: &SgfNode<Prop>) -> Result<(usize, usize), SgfError> {
        for (j, prop) in root.properties.iter().enumerate() {
            let size = match prop {
                Prop::SZ((w, h)) => Some((usize::from(*w), usize::from(*h))),
                Prop::Invalid(id, _) if id == "SZ" => None,
                _ => continue,
            };
            return match size {
                Some((w, h)) if (1..=25).contains(&w) && (1..=25).contains(&h) => Ok((w, h)),
                _ => Err(self.error_at(0, j, |line, column| SgfError::BoardSize {
                    line,
                    column,
                    value: self.raw(0, j),
                })),
            };
        }
        Ok((19, 19))
    }

    fn komi_error(&self, node: usize, prop: usize) -> SgfError {
        self.error_at(node, prop, |line, column| SgfError::Komi {
            line,
            column,
            value: self.raw(node, prop),
        })
    }

    /// Setup (and `PL`) belongs in nodes before the first move, apart from moves.
    fn setup_allowed(
        &self,
        node: usize,
        prop: usize,
        ident: &str,
        node_move: Option<usize>,
        record: &GameRecord,
    ) -> Result<(), SgfError> {
        if node_move.is_some() {
            return Err(self.property_error(
                node,
                prop,
                format!(
                    "{ident} is in the node of move {}: setup and moves belong in separate nodes",
                    record.moves.len()
                ),
            ));
        }
        if !record.moves.is_empty() {
            return Err(self.property_error(
                node,
                prop,
                format!(
                    "{ident} after move {}: setup is read only before the first move",
                    record.moves.len()
                ),
            ));
        }
        Ok(())
    }

    /// Whether the scan's main line has the same nodes and properties as `sgf-parse`'s.
    fn agrees(&self, nodes: &[&SgfNode<Prop>]) -> bool {
        nodes.len() == self.scan.main.len()
            && nodes.iter().zip(&self.scan.main).all(|(node, scanned)| {
                node.properties.len() == scanned.props.len()
                    && node
                        .properties
                        .iter()
                        .zip(&scanned.props)
                        .all(|(p, s)| ident_of(p) == s.ident)
            })
    }
}

/// The identifier of a property, as `sgf-parse` names it.
fn ident_of(prop: &Prop) -> String {
    match prop {
        Prop::Invalid(id, _) | Prop::Unknown(id, _) => id.clone(),
        other => other.identifier(),
    }
}

fn prop_name(prop: &Prop) -> &'static str {
    match prop {
        Prop::AB(_) => "AB",
        Prop::AW(_) => "AW",
        _ => "AE",
    }
}

/// A move value on this board: `tt` is a pass when no side exceeds 19.
fn move_on(geometry: &Geometry, mv: Result<SgfMove, ()>) -> Result<Move, MoveProblem> {
    let Some((width, height)) = geometry.size() else {
        return Err(MoveProblem::NotAPoint);
    };
    match mv {
        Err(()) => Err(MoveProblem::NotAPoint),
        Ok(SgfMove::Pass) => Ok(Move::Pass),
        Ok(SgfMove::Move(SgfPoint { x: 19, y: 19 })) if width <= 19 && height <= 19 => {
            Ok(Move::Pass)
        }
        Ok(SgfMove::Move(p)) => geometry
            .at(p.x.into(), p.y.into())
            .map(Move::Play)
            .ok_or(MoveProblem::OffBoard { width, height }),
    }
}
