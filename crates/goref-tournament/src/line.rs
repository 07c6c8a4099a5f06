//! The record of one finished (or forfeited) game, as the match driver makes it, the
//! tournament and the queue pass it on, and `results.jsonl` keeps it: one line a game.
//!
//! The result is a [`goref_rules::Outcome`]; on disk it stays as it always was, SGF `RE`
//! under `result` and the winner's letter under `winner`, so files written before still
//! read.
//!
//! ```
//! use goref_referee::Ending;
//! use goref_rules::{Color, Outcome, WinBy};
//! use goref_tournament::pairing::{Pairing, Round};
//! use goref_tournament::GameLine;
//!
//! let names = ["gnugo".to_string(), "random".to_string()];
//! let won = Outcome::win(Color::White, WinBy::Resignation);
//! let line = GameLine::of(1, &Pairing::new(Round::FIRST, 1, 0), names, won, Ending::Resignation);
//! let json = serde_json::to_string(&line).unwrap();
//! assert!(json.contains(r#""round":1,"#)); // rounds are written from 1
//! assert!(json.contains(r#""result":"W+R","winner":"W""#));
//! let back: GameLine = serde_json::from_str(&json).unwrap();
//! assert_eq!(back, line);
//! assert_eq!(back.winner_id(), Some(0));
//! ```

use goref_referee::Ending;
use goref_rules::{Color, Outcome};
use serde::{Deserialize, Serialize};

use crate::pairing::{Pairing, Round, Scored};

/// One finished game: one line of `results.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "Wire", try_from = "Wire")]
pub struct GameLine {
    /// Game number, from 1.
    pub game: usize,
    /// The round (written as its number, from 1).
    pub round: Round,
    /// The engines (indices in seeding order; a match's engine 0 and 1) that had Black and
    /// White.
    pub black: usize,
    /// The engine that had White.
    pub white: usize,
    /// Their names in the tournament, Black's.
    pub black_name: String,
    /// White's name.
    pub white_name: String,
    /// The versions they gave over GTP, Black's.
    pub black_version: Option<String>,
    /// White's version.
    pub white_version: Option<String>,
    /// The result (SGF `RE` on disk, with the winner's letter beside it).
    pub result: Outcome,
    /// How the game ended.
    pub end: Ending,
    /// Why, for forfeits and illegal moves.
    pub detail: Option<String>,
    /// Turns played.
    pub moves: usize,
    /// Seconds in `genmove`, Black's and White's.
    pub seconds: [f64; 2],
    /// `genmove` replies, Black's and White's.
    pub genmoves: [u32; 2],
    /// The record, relative to the output directory (none for a game not played).
    pub sgf: Option<String>,
    /// The opening played first, if any.
    pub opening: Option<String>,
    /// Illegal moves replaced by a pass (Olympiad 3.10.2), Black's and White's.
    pub illegal_passes: [u32; 2],
    /// How the dead-stone settlement ended, after two passes (`agreement`, `four-passes`,
    /// `cleanup-passes`, `played-out-on-copy`, `referee`, `all-alive`).
    pub ending: Option<String>,
    /// Times play resumed after two passes.
    pub resumptions: u32,
    /// The last dead lists of Black and White (`final_status_list dead`), none for a player
    /// that gave none.
    pub dead_lists: [Option<Vec<String>>; 2],
    /// The stones removed before scoring.
    pub removed: Vec<String>,
}

impl GameLine {
    /// Game `number` of `pairing` between the engines named `names` (Black's, White's), ended
    /// `end` with `result`; nothing else recorded yet (no moves, clocks, record or settlement).
    #[must_use]
    pub fn of(
        number: usize,
        pairing: &Pairing,
        names: [String; 2],
        result: Outcome,
        end: Ending,
    ) -> GameLine {
        let [black_name, white_name] = names;
        GameLine {
            game: number,
            round: pairing.round,
            black: pairing.black,
            white: pairing.white,
            black_name,
            white_name,
            black_version: None,
            white_version: None,
            result,
            end,
            detail: None,
            moves: 0,
            seconds: [0.0; 2],
            genmoves: [0; 2],
            sgf: None,
            opening: None,
            illegal_passes: [0; 2],
            ending: None,
            resumptions: 0,
            dead_lists: [None, None],
            removed: Vec::new(),
        }
    }

    /// The colour that won, if any.
    #[must_use]
    pub fn winner(&self) -> Option<Color> {
        self.result.winner()
    }

    /// The engine (index) that won, if any.
    #[must_use]
    pub fn winner_id(&self) -> Option<usize> {
        self.winner().map(|c| self.id_of(c))
    }

    /// The engine (index) that played `color`.
    #[must_use]
    pub fn id_of(&self, color: Color) -> usize {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// Who played whom, in which round.
    #[must_use]
    pub fn pairing(&self) -> Pairing {
        Pairing::new(self.round, self.black, self.white)
    }

    /// The result as pairings and standings count it: a void game counts as a draw (as it
    /// always has: a round cannot be paired on with a game missing).
    #[must_use]
    pub fn scored(&self) -> Scored {
        self.result.into()
    }
}

/// `results.jsonl`'s line as it has always been written: the result as SGF `RE` and the
/// winner's letter beside it.
#[derive(Serialize, Deserialize)]
struct Wire {
    game: usize,
    round: Round,
    black: usize,
    white: usize,
    black_name: String,
    white_name: String,
    black_version: Option<String>,
    white_version: Option<String>,
    result: String,
    winner: Option<char>,
    end: Ending,
    detail: Option<String>,
    moves: usize,
    seconds: [f64; 2],
    genmoves: [u32; 2],
    sgf: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    opening: Option<String>,
    #[serde(default)]
    illegal_passes: [u32; 2],
    #[serde(default)]
    ending: Option<String>,
    #[serde(default)]
    resumptions: u32,
    #[serde(default)]
    dead_lists: [Option<Vec<String>>; 2],
    #[serde(default)]
    removed: Vec<String>,
}

impl From<GameLine> for Wire {
    fn from(l: GameLine) -> Wire {
        Wire {
            game: l.game,
            round: l.round,
            black: l.black,
            white: l.white,
            black_name: l.black_name,
            white_name: l.white_name,
            black_version: l.black_version,
            white_version: l.white_version,
            result: l.result.to_sgf(),
            winner: l.result.winner().map(Color::letter),
            end: l.end,
            detail: l.detail,
            moves: l.moves,
            seconds: l.seconds,
            genmoves: l.genmoves,
            sgf: l.sgf,
            opening: l.opening,
            illegal_passes: l.illegal_passes,
            ending: l.ending,
            resumptions: l.resumptions,
            dead_lists: l.dead_lists,
            removed: l.removed,
        }
    }
}

/// A line of `results.jsonl` whose result cannot be taken.
#[derive(Clone, Debug, PartialEq)]
pub enum LineError {
    /// `result` is not SGF `RE`.
    Result(goref_rules::ParseError),
    /// `winner` names another colour than `result`.
    Disagree {
        /// The line's `result`.
        result: String,
        /// The line's `winner`.
        winner: Option<char>,
    },
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::Result(e) => write!(f, "{e}"),
            LineError::Disagree { result, winner } => {
                write!(f, "result '{result}' and winner {winner:?} disagree")
            }
        }
    }
}

impl std::error::Error for LineError {}

impl TryFrom<Wire> for GameLine {
    type Error = LineError;

    /// The result is read from `RE`; a winner's letter that disagrees with it is refused.
    fn try_from(w: Wire) -> Result<GameLine, LineError> {
        let result: Outcome = w.result.parse().map_err(LineError::Result)?;
        if result.winner().map(Color::letter) != w.winner {
            return Err(LineError::Disagree {
                result: w.result,
                winner: w.winner,
            });
        }
        Ok(GameLine {
            game: w.game,
            round: w.round,
            black: w.black,
            white: w.white,
            black_name: w.black_name,
            white_name: w.white_name,
            black_version: w.black_version,
            white_version: w.white_version,
            result,
            end: w.end,
            detail: w.detail,
            moves: w.moves,
            seconds: w.seconds,
            genmoves: w.genmoves,
            sgf: w.sgf,
            opening: w.opening,
            illegal_passes: w.illegal_passes,
            ending: w.ending,
            resumptions: w.resumptions,
            dead_lists: w.dead_lists,
            removed: w.removed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use goref_rules::{ByColor, WinBy};

    /// Lines as goref wrote them before the result was an `Outcome` (a tournament's with
    /// versions and an opening, a long cycle, a draw, a forfeit) read back, and are written
    /// again byte for byte.
    #[test]
    fn lines_written_before_read_and_write_the_same() {
        let old = [
            r#"{"game":1,"round":1,"black":0,"white":1,"black_name":"a","white_name":"b","black_version":"3.8","white_version":null,"result":"B+3.5","winner":"B","end":"two-passes","detail":null,"moves":61,"seconds":[1.5,2.0],"genmoves":[31,30],"sgf":"game-0001.sgf","opening":"o1","illegal_passes":[0,0],"ending":"agreement","resumptions":0,"dead_lists":[["A1"],null],"removed":["A1"]}"#,
            r#"{"game":2,"round":1,"black":1,"white":0,"black_name":"b","white_name":"a","black_version":null,"white_version":null,"result":"W+","winner":"W","end":"long-cycle","detail":null,"moves":40,"seconds":[0.0,0.0],"genmoves":[20,20],"sgf":"game-0002.sgf","illegal_passes":[0,0],"ending":null,"resumptions":0,"dead_lists":[null,null],"removed":[]}"#,
            r#"{"game":3,"round":2,"black":0,"white":1,"black_name":"a","white_name":"b","black_version":null,"white_version":null,"result":"0","winner":null,"end":"two-passes","detail":null,"moves":2,"seconds":[0.0,0.0],"genmoves":[1,1],"sgf":null,"illegal_passes":[0,0],"ending":null,"resumptions":0,"dead_lists":[null,null],"removed":[]}"#,
            r#"{"game":4,"round":2,"black":1,"white":0,"black_name":"b","white_name":"a","black_version":null,"white_version":null,"result":"B+F","winner":"B","end":"fault","detail":"a could not start","moves":0,"seconds":[0.0,0.0],"genmoves":[0,0],"sgf":null,"illegal_passes":[0,0],"ending":null,"resumptions":0,"dead_lists":[null,null],"removed":[]}"#,
        ];
        let lines: Vec<GameLine> = old
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            lines[0].result,
            Outcome::win(Color::Black, WinBy::Points { half_points: 7 })
        );
        assert_eq!(
            lines[1].result,
            Outcome::win(
                Color::White,
                WinBy::LongCycle {
                    captures: ByColor::default()
                }
            )
        );
        assert_eq!(lines[1].winner_id(), Some(0));
        assert_eq!(lines[2].result, Outcome::Draw);
        assert_eq!(lines[3].result, Outcome::win(Color::Black, WinBy::Forfeit));
        for (line, text) in lines.iter().zip(old) {
            assert_eq!(serde_json::to_string(line).unwrap(), text);
        }
        // The oldest lines (no settlement fields yet) still read.
        let oldest = r#"{"game":1,"round":1,"black":0,"white":1,"black_name":"a","white_name":"b","black_version":null,"white_version":null,"result":"W+R","winner":"W","end":"resignation","detail":null,"moves":9,"seconds":[0.1,0.2],"genmoves":[5,4],"sgf":"g.sgf"}"#;
        let line: GameLine = serde_json::from_str(oldest).unwrap();
        assert_eq!(line.winner(), Some(Color::White));
    }

    #[test]
    fn a_line_whose_result_does_not_read_or_disagrees_is_refused() {
        let with = |result: &str, winner: &str| {
            format!(
                r#"{{"game":1,"round":1,"black":0,"white":1,"black_name":"a","white_name":"b","black_version":null,"white_version":null,"result":"{result}","winner":{winner},"end":"resignation","detail":null,"moves":9,"seconds":[0,0],"genmoves":[5,4],"sgf":null}}"#
            )
        };
        assert!(serde_json::from_str::<GameLine>(&with("W+R", "\"W\"")).is_ok());
        assert!(serde_json::from_str::<GameLine>(&with("W+R", "\"B\"")).is_err());
        assert!(serde_json::from_str::<GameLine>(&with("W+R", "null")).is_err());
        assert!(serde_json::from_str::<GameLine>(&with("Q", "null")).is_err());
        let void = serde_json::from_str::<GameLine>(&with("Void", "null")).unwrap();
        assert_eq!(void.result, Outcome::Void);
    }
}
