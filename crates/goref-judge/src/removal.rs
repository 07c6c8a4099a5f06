//! Default removal (reference 001 §3.9.2) and the score after it (3.8).
//!
//! "Any disputed block that has at most one eye and is locally capturable shall be removed.
//! Blocks, unaffected by disputes, that both programs consider removable shall be removed
//! accordingly."
//!
//! Each program lists the stones it considers removable (3.7.2); a block is in a program's
//! list when any of its stones is. A block in exactly one list is *disputed* and is removed
//! when its verdict is [`Verdict::DeadBy39`]; a block in both lists is *agreed* and removed.
//! All verdicts are taken on the position as play ended. [`Disputes::All`] treats every block
//! as disputed (what a referee does when the programs gave no lists it trusts).

use std::sync::Arc;

use goref_rules::{Board, Color, Point, Score};

use crate::{BlockVerdict, Judge, Verdict};

/// Which blocks are disputed.
#[derive(Clone, Copy, Debug)]
pub enum Disputes<'a> {
    /// The stones each program considers removable (3.7.2): Black's list, White's list.
    Lists {
        /// The stones Black's program lists as dead.
        black: &'a [Point],
        /// The stones White's program lists as dead.
        white: &'a [Point],
    },
    /// Every block is disputed.
    All,
}

/// What the default removal decided.
#[derive(Clone, Debug)]
pub struct Removal {
    /// The verdicts of the disputed blocks.
    pub disputed: Vec<BlockVerdict>,
    /// The blocks both programs listed (removed without judgement), by first stone.
    pub agreed: Vec<Point>,
    /// Every stone removed, in point order.
    pub removed: Vec<Point>,
    /// The position after removal.
    pub board: Board,
    /// Its area score (3.8) with the game's komi.
    pub score: Score,
}

/// Applies 3.9.2 to the judge's position.
#[must_use]
pub fn default_removal(judge: &Judge, disputes: Disputes) -> Removal {
    let blocks = judge.blocks();
    let listed = |list: &[Point]| -> Vec<bool> {
        let mut marked = vec![false; blocks.list.len()];
        for &p in list {
            if let Some(b) = judge
                .board()
                .geometry()
                .contains(p)
                .then(|| blocks.at(p))
                .flatten()
            {
                marked[b] = true;
            }
        }
        marked
    };
    let (disputed_ids, agreed_ids): (Vec<usize>, Vec<usize>) = match disputes {
        Disputes::All => ((0..blocks.list.len()).collect(), Vec::new()),
        Disputes::Lists { black, white } => {
            let (b, w) = (listed(black), listed(white));
            (
                (0..blocks.list.len()).filter(|&i| b[i] != w[i]).collect(),
                (0..blocks.list.len()).filter(|&i| b[i] && w[i]).collect(),
            )
        }
    };
    let anchors: Vec<Point> = disputed_ids
        .iter()
        .map(|&i| blocks.list[i].anchor())
        .collect();
    let disputed: Vec<BlockVerdict> = judge.judge_blocks(&anchors);
    let mut removed: Vec<Point> = agreed_ids
        .iter()
        .flat_map(|&i| blocks.list[i].stones.iter().copied())
        .chain(
            disputed
                .iter()
                .filter(|v| v.verdict.removes())
                .flat_map(|v| v.block.stones.iter().copied()),
        )
        .collect();
    removed.sort_unstable();
    let board = without(judge.board(), &removed);
    let goref_rules::ByColor { black, white } = board.area();
    Removal {
        disputed,
        agreed: agreed_ids
            .iter()
            .map(|&i| blocks.list[i].anchor())
            .collect(),
        removed,
        score: Score {
            black,
            white,
            komi: judge.context().rules.komi,
        },
        board,
    }
}

/// `board` with the stones at `points` taken off.
#[must_use]
pub fn without(board: &Board, points: &[Point]) -> Board {
    let mut colors: Vec<Option<Color>> = board.colors().to_vec();
    for p in points {
        colors[p.index()] = None;
    }
    Board::from_colors(Arc::clone(board.geometry()), &colors)
        .expect("removing stones leaves every string a liberty")
}

/// Whether a verdict keeps the block (anything but [`Verdict::DeadBy39`]).
#[must_use]
pub fn keeps(verdict: &Verdict) -> bool {
    !verdict.removes()
}
