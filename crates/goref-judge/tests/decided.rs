//! Property tests of exact early adjudication (`goref_judge::decided`): no continuation changes
//! an adjudicated winner or brings its margin under the certain one.
//!
//! Positions come from random games on 5×5, 7×7 and the 5×5 torus under every preset and
//! several komis, with their history (superko and the long cycle rule consult it). At the
//! first position the test calls decided, many playouts run to the end of the game:
//!
//! - the winner passes and the loser plays uniformly among *all* its legal moves (suicides
//!   under Tromp-Taylor, filling its own eyes, passes): the strategy the soundness argument is
//!   about, against an opponent that tries everything;
//! - the winner plays too, at random among its legal moves outside the regions its
//!   pass-alive blocks alone enclose (and not in its own one-point eyes), and the loser plays
//!   the random policy of goref's `random` engine. Such plays only join the winner's blocks
//!   and leave those regions as they are, so the sure area stands. A game this ends by the
//!   long cycle rule (Olympiad 3.6) is decided by captures the winner chose to make, and is
//!   not checked. (A winner that also plays *inside* those regions can lose everything: with
//!   both sides playing the random policy, a 5×5 torus game decided `B+3` ended `W+25` after
//!   Black filled the liberties of its own pass-alive block but one, its eye.)
//!
//! Every game that ends by two passes (or is stopped by the turn cap, in the first kind, where
//! the sure area stands at every turn) must give the same winner by at least the certain
//! margin, scored as the board stands (TT rule 9, 001 §3.8).

use std::sync::Arc;

use goref_judge::{decided, pass_alive};
use goref_rules::playout::{play_random_move, random_move, Rng};
use goref_rules::{End, Game, Geometry, Komi, Move, Outcome, Preset, Ruleset, WinBy};
use proptest::prelude::*;

const SHAPES: [&str; 3] = ["grid:5x5", "grid:7x7", "torus:5x5"];
const KOMIS: [&str; 5] = ["0", "0.5", "7.5", "-3.5", "3"];

/// Cases a property runs: `PROPTEST_CASES` when set, else the default.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Plays a random game from the start; at the first decided position, checks `playouts`
/// continuations of each kind. Returns whether a position was decided.
fn check(
    shape: &str,
    preset: Preset,
    komi: &str,
    seed: u64,
    playouts: usize,
) -> Result<bool, String> {
    let geometry = Arc::new(goref_rules::parse_graph(shape).map_err(|e| e.to_string())?);
    let rules = Ruleset::preset(preset).with_komi(komi.parse::<Komi>().unwrap());
    let mut game = Game::new(Arc::clone(&geometry), rules);
    let mut rng = Rng::new(seed);
    let mut buffer = Vec::new();
    let n = geometry.len();
    let cap = 20 * n;
    while !game.is_over() && game.moves().len() < cap {
        play_random_move(&mut game, &mut rng, &mut buffer);
        let Some(d) = decided(&game) else { continue };
        let want = d.margin_half_points;
        let context = |how: &str, end: &Game| {
            format!(
                "{shape} {preset} komi {komi} seed {seed}: decided {} after {} moves, but {how} gave {} ({:?})\n{}",
                d.outcome().to_sgf(),
                game.moves().len(),
                end.outcome().to_sgf(),
                end.end(),
                game.board().to_ascii()
            )
        };
        let holds = |end: &Game| match end.outcome() {
            Outcome::Win {
                winner,
                by: WinBy::Points { half_points },
            } => winner == d.winner && half_points >= want,
            Outcome::Win {
                winner,
                by: WinBy::LongCycle { .. },
            } => winner == d.winner,
            _ => false,
        };
        for _ in 0..playouts {
            // The winner passes; the loser plays anything legal.
            let mut g = game.clone();
            while !g.is_over() && g.moves().len() < game.moves().len() + cap {
                let mv = if g.to_move() == d.winner {
                    Move::Pass
                } else {
                    let legal = g.legal_moves();
                    legal[rng.below(legal.len())]
                };
                g.play(mv).map_err(|e| e.to_string())?;
                if !holds(&g) && g.is_over() {
                    return Err(context("the winner passing", &g));
                }
            }
            if !holds(&g) {
                return Err(context("the winner passing (at the cap)", &g));
            }
            // The winner plays too, anywhere but inside the regions its pass-alive blocks
            // alone enclose; the loser plays at random.
            let mut g = game.clone();
            while !g.is_over() && g.moves().len() < game.moves().len() + cap {
                let mv = if g.to_move() == d.winner {
                    outside_safe_regions(&g, &mut rng)
                } else {
                    random_move(&g, &mut rng, &mut buffer)
                };
                g.play(mv).map_err(|e| e.to_string())?;
            }
            match g.end() {
                Some(End::TwoPasses) if !holds(&g) => {
                    return Err(context("the winner playing outside its regions", &g));
                }
                _ => {}
            }
        }
        return Ok(true);
    }
    Ok(false)
}

/// A random legal move of the player to move that is not inside a region (a maximal connected
/// set of points not of its colour) bordered only by its pass-alive blocks, nor a one-point
/// eye of its own; a pass when there is none.
fn outside_safe_regions(game: &Game, rng: &mut Rng) -> Move {
    let color = game.to_move();
    let board = game.board();
    let g = board.geometry();
    let alive = pass_alive(g, board.colors(), color, game.rules().suicide_allowed).alive;
    let mut safe = vec![false; g.len()];
    let mut seen = vec![false; g.len()];
    for start in g.points() {
        if seen[start.index()] || board.get(start) == Some(color) {
            continue;
        }
        let (mut region, mut stack, mut healthy) = (vec![start], vec![start], true);
        seen[start.index()] = true;
        while let Some(p) = stack.pop() {
            for &q in g.neighbors(p) {
                if board.get(q) == Some(color) {
                    healthy &= alive[q.index()];
                } else if !seen[q.index()] {
                    seen[q.index()] = true;
                    region.push(q);
                    stack.push(q);
                }
            }
        }
        for p in region {
            safe[p.index()] = healthy;
        }
    }
    let moves: Vec<Move> = game
        .legal_moves()
        .into_iter()
        .filter(|&m| match m {
            Move::Play(p) => !safe[p.index()] && !board.is_own_eye(p, color),
            Move::Pass => true,
        })
        .collect();
    moves[rng.below(moves.len())]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    #[test]
    fn no_continuation_changes_a_decided_winner(
        shape in 0usize..SHAPES.len(),
        preset in 0usize..3,
        komi in 0usize..KOMIS.len(),
        seed in any::<u64>(),
    ) {
        let result = check(SHAPES[shape], Preset::ALL[preset], KOMIS[komi], seed, 30);
        prop_assert!(result.is_ok(), "{}", result.unwrap_err());
    }
}

/// The property is not vacuous: random games on these boards are decided before they end,
/// under every preset, and every decision holds.
#[test]
fn random_games_are_often_decided_and_every_decision_holds() {
    for preset in Preset::ALL {
        for shape in SHAPES {
            let mut decided = 0;
            for seed in 0..12u64 {
                let komi = KOMIS[seed as usize % KOMIS.len()];
                if check(shape, preset, komi, seed, 8).unwrap() {
                    decided += 1;
                }
            }
            eprintln!("{shape} {preset}: {decided} of 12 decided");
            assert!(
                decided >= 4,
                "{shape} {preset}: only {decided} of 12 decided"
            );
        }
    }
}

/// The geometry's name is what `parse_graph` reads (a guard on the shapes above).
#[test]
fn the_shapes_parse() {
    for shape in SHAPES {
        let g: Geometry = goref_rules::parse_graph(shape).unwrap();
        assert!(g.len() >= 25);
    }
}
