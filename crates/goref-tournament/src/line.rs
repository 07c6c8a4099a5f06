//! One finished (or forfeited) game of a tournament, as `results.jsonl` keeps it.

use goref_referee::Ending;
use serde::{Deserialize, Serialize};

use crate::pairing::Pairing;

/// One line of `results.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    /// Game number, from 1.
    pub game: usize,
    /// Round, from 1.
    pub round: usize,
    /// The engines (indices in seeding order) that had Black and White.
    pub black: usize,
    pub white: usize,
    /// Their names in the tournament.
    pub black_name: String,
    pub white_name: String,
    /// The versions they gave over GTP.
    pub black_version: Option<String>,
    pub white_version: Option<String>,
    /// SGF `RE`.
    pub result: String,
    /// `B`, `W`, or none for a draw.
    pub winner: Option<char>,
    /// How the game ended.
    pub end: Ending,
    /// Why, for forfeits.
    pub detail: Option<String>,
    /// Turns played.
    pub moves: usize,
    /// Seconds in `genmove`, Black's and White's, and replies.
    pub seconds: [f64; 2],
    pub genmoves: [u32; 2],
    /// The record, relative to the output directory (none for a game not played).
    pub sgf: Option<String>,
    /// The opening played first, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<String>,
    /// Illegal moves replaced by a pass (Olympiad 3.10.2), Black's and White's.
    #[serde(default)]
    pub illegal_passes: [u32; 2],
    /// How the dead-stone settlement ended, after two passes.
    #[serde(default)]
    pub ending: Option<String>,
    /// Times play resumed after two passes.
    #[serde(default)]
    pub resumptions: u32,
    /// The last dead lists of Black and White, none for a player that gave none.
    #[serde(default)]
    pub dead_lists: [Option<Vec<String>>; 2],
    /// The stones removed before scoring.
    #[serde(default)]
    pub removed: Vec<String>,
}

impl GameLine {
    /// Game `number` of `pairing` between the engines named `names` (Black's, White's), ended
    /// `end` with `result` (SGF `RE`) and `winner` (`B`, `W`, none for a draw); nothing else
    /// recorded yet (no moves, clocks, record or settlement).
    #[must_use]
    pub fn new(
        number: usize,
        pairing: &Pairing,
        names: [String; 2],
        result: String,
        winner: Option<char>,
        end: Ending,
    ) -> GameLine {
        let [black_name, white_name] = names;
        GameLine {
            game: number,
            round: pairing.round + 1,
            black: pairing.black,
            white: pairing.white,
            black_name,
            white_name,
            black_version: None,
            white_version: None,
            result,
            winner,
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
}
