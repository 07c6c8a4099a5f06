//! Perft for Go: the number of distinct turn sequences from a position, a check of the move
//! generator that anyone can compare, and a benchmark.
//!
//! Small boards (up to [`EXACT_STATE_POINTS`] points) are counted with a transposition table
//! keyed by the *exact* state that decides every later turn: the colouring, the player to move,
//! whether the last turn was a pass, the basic-ko ban, the set of positions already seen (which
//! superko and the long cycle rule consult), and the turns left. Larger boards are counted by
//! plain depth-first search.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::{Color, Game, KoRule, Move};

/// Boards with at most this many points use the exact transposition table.
pub const EXACT_STATE_POINTS: usize = 7;

/// What to count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerftMode {
    /// Sequences of exactly this many turns (a game that ends sooner is not continued).
    Depth(u32),
    /// Every complete game: ended by two passes or by the long cycle rule.
    Games,
}

/// Why a count cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PerftError {
    /// Under simple ko a game can cycle forever, so complete games cannot be counted.
    InfiniteGames,
}

impl std::fmt::Display for PerftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("games under simple ko can go on forever: count with a depth instead")
    }
}

impl std::error::Error for PerftError {}

/// Counts turn sequences from `game` with `threads` threads (at least one).
pub fn perft(game: &Game, mode: PerftMode, threads: usize) -> Result<u128, PerftError> {
    if mode == PerftMode::Games && !game.rules().ko.games_are_finite() {
        return Err(PerftError::InfiniteGames);
    }
    // Split the tree two turns deep into tasks that the threads take in turn.
    let mut tasks = Vec::new();
    let mut leaves = 0u128;
    expand(game, mode, 2, &mut tasks, &mut leaves);
    let next = AtomicUsize::new(0);
    let total = Mutex::new(leaves);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut counter = Counter::new(game);
                let mut sum = 0u128;
                while let Some((task, left)) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
                    sum += counter.count(task, *left);
                }
                *total.lock().expect("no panics while counting") += sum;
            });
        }
    });
    Ok(total.into_inner().expect("no panics while counting"))
}

/// Turns left to count, `None` for complete games.
type Left = Option<u32>;

fn expand(
    game: &Game,
    mode: PerftMode,
    levels: u32,
    tasks: &mut Vec<(Game, Left)>,
    leaves: &mut u128,
) {
    let left = match mode {
        PerftMode::Depth(d) => Some(d),
        PerftMode::Games => None,
    };
    expand_from(game, left, levels, tasks, leaves);
}

fn expand_from(
    game: &Game,
    left: Left,
    levels: u32,
    tasks: &mut Vec<(Game, Left)>,
    leaves: &mut u128,
) {
    if levels == 0 || left == Some(0) || game.is_over() {
        match (left, game.is_over()) {
            (Some(0), _) | (None, true) => *leaves += 1,
            (Some(_), true) => {}
            _ => tasks.push((game.clone(), left)),
        }
        return;
    }
    for mv in game.legal_moves() {
        let mut child = game.clone();
        child.play(mv).expect("legal");
        expand_from(&child, left.map(|d| d - 1), levels - 1, tasks, leaves);
    }
}

struct Counter {
    memo: Option<HashMap<Vec<u64>, u128>>,
}

impl Counter {
    fn new(game: &Game) -> Counter {
        let exact = game.geometry().len() <= EXACT_STATE_POINTS;
        Counter {
            memo: exact.then(HashMap::new),
        }
    }

    fn count(&mut self, game: &Game, left: Left) -> u128 {
        match (left, game.is_over()) {
            (Some(0), _) | (None, true) => return 1,
            (Some(_), true) => return 0,
            _ => {}
        }
        let key = self.memo.as_ref().map(|_| state_key(game, left));
        if let (Some(memo), Some(key)) = (&self.memo, &key) {
            if let Some(&n) = memo.get(key) {
                return n;
            }
        }
        let mut total = 0;
        for mv in game.legal_moves() {
            let mut child = game.clone();
            child.play(mv).expect("legal");
            total += self.count(&child, left.map(|d| d - 1));
        }
        if let (Some(memo), Some(key)) = (&mut self.memo, key) {
            memo.insert(key, total);
        }
        total
    }
}

/// The exact state of a small-board game that decides all later turns.
fn state_key(game: &Game, left: Left) -> Vec<u64> {
    let code = |colors: &[Option<Color>]| {
        colors.iter().fold(0u64, |acc, c| {
            acc * 3
                + match c {
                    None => 0,
                    Some(Color::Black) => 1,
                    Some(Color::White) => 2,
                }
        })
    };
    let positions = 3u64.pow(game.geometry().len() as u32);
    let ko = game.ko().map_or(0, |k| 1 + k.point.index() as u64);
    let mut head = code(game.board().colors());
    head = head * 2 + game.to_move().index() as u64;
    head = head * 2 + u64::from(game.consecutive_passes().min(1));
    head = head * 16 + ko;
    let mut key = vec![head, left.map_or(u64::MAX, u64::from)];
    let situational = game.rules().ko == KoRule::SituationalSuperko;
    let bits = if situational {
        2 * positions
    } else {
        positions
    } as usize;
    let first = key.len();
    key.resize(first + bits.div_ceil(64), 0);
    // Replay the history's colourings from the moves, since only hashes are stored.
    let mut replay = Game::from_position(game.start().clone(), Color::Black, *game.rules());
    let mut mark = |g: &Game| {
        let mut i = code(g.board().colors()) as usize;
        if situational {
            i = i * 2 + g.to_move().index();
        }
        key[first + i / 64] |= 1 << (i % 64);
    };
    mark(&replay);
    for &(_, mv) in game.moves() {
        replay.play(mv).expect("replaying a legal game");
        if situational || matches!(mv, Move::Play(_)) {
            mark(&replay);
        }
    }
    key
}
