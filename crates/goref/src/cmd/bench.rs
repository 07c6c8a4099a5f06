//! `goref bench`: random light playouts per second, the usual speed figure of a Go board.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use goref_rules::playout::{playout, Rng};
use goref_rules::{Game, Preset, Ruleset};

/// Arguments of `goref bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Seconds to spend on each board size and preset.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Board sizes to measure.
    #[arg(long, value_delimiter = ',', default_values = ["9", "19"], value_parser = super::parse_size)]
    sizes: Vec<(usize, usize)>,
    /// Board graphs to measure too: named shapes (`torus:9x9`, `cycle:40`) or files.
    #[arg(long, value_name = "SHAPE|FILE")]
    graph: Vec<String>,
}

/// Runs `goref bench`: one line a (size, preset) with playouts/s, moves a playout and ns a move.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    // Every graph read before anything is measured: a missing file fails at once.
    let graphs = args
        .graph
        .iter()
        .map(|spec| Ok((spec, std::sync::Arc::new(super::read_graph(spec)?))))
        .collect::<anyhow::Result<Vec<_>>>()?;
    println!(
        "{:<10} {:<13} {:>12} {:>12} {:>10}",
        "size", "rules", "playouts/s", "moves/game", "ns/move"
    );
    for &(w, h) in &args.sizes {
        for preset in Preset::ALL {
            let m = measure(w, h, preset, Duration::from_secs_f64(args.seconds))?;
            println!(
                "{:<10} {:<13} {:>12.0} {:>12.1} {:>10.0}",
                format!("{w}x{h}"),
                preset.name(),
                m.playouts_per_second(),
                m.moves as f64 / m.playouts as f64,
                m.elapsed.as_nanos() as f64 / m.moves as f64,
            );
        }
    }
    for (spec, geometry) in graphs {
        for preset in Preset::ALL {
            let game = Game::new(geometry.clone(), Ruleset::preset(preset));
            let m = measure_game(&game, Duration::from_secs_f64(args.seconds));
            println!(
                "{:<10} {:<13} {:>12.0} {:>12.1} {:>10.0}",
                spec,
                preset.name(),
                m.playouts_per_second(),
                m.moves as f64 / m.playouts as f64,
                m.elapsed.as_nanos() as f64 / m.moves as f64,
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Totals of one measurement.
pub struct Measurement {
    pub playouts: u64,
    pub moves: u64,
    pub elapsed: Duration,
}

impl Measurement {
    /// Playouts a second.
    #[must_use]
    pub fn playouts_per_second(&self) -> f64 {
        self.playouts as f64 / self.elapsed.as_secs_f64()
    }
}

/// Plays random light playouts from the empty board for at least `budget`.
pub fn measure(
    w: usize,
    h: usize,
    preset: Preset,
    budget: Duration,
) -> anyhow::Result<Measurement> {
    let game = Game::rect(w, h, Ruleset::preset(preset))?;
    Ok(measure_game(&game, budget))
}

/// Light random playouts from `game` for `budget` (at least one).
#[must_use]
pub fn measure_game(game: &Game, budget: Duration) -> Measurement {
    let mut game = game.clone();
    let mut rng = Rng::new(1);
    let max_turns = 3 * game.geometry().len() + 100;
    let started = Instant::now();
    let (mut playouts, mut moves) = (0, 0);
    while started.elapsed() < budget || playouts == 0 {
        game.reset();
        moves += playout(&mut game, &mut rng, max_turns) as u64;
        playouts += 1;
    }
    Measurement {
        playouts,
        moves,
        elapsed: started.elapsed(),
    }
}
