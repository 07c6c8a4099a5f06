//! Plays on a CGOS server with a GTP engine until the games are played or a signal arrives:
//!
//! ```text
//! cargo run -p goref-cgos --example cgos_client -- HOST:PORT NAME PASSWORD GAMES ENGINE...
//! cargo run -p goref-cgos --example cgos_client -- 127.0.0.1:6867 gnugo-l0 secret 2 \
//!     /usr/games/gnugo --mode gtp --level 0 --chinese-rules --capture-all-dead
//! ```
//!
//! Prints each game's result, and exits 1 on an error (named on standard error).

use goref_cgos::{run, stop_on_signals, ClientConfig};
use goref_gtp::EngineSpec;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 5 {
        eprintln!("usage: cgos_client HOST:PORT NAME PASSWORD GAMES ENGINE...");
        std::process::exit(2);
    }
    let Ok(games) = args[3].parse::<usize>() else {
        eprintln!("GAMES must be a number, not '{}'", args[3]);
        std::process::exit(2);
    };
    let spec = EngineSpec::Process {
        argv: args[4..].to_vec(),
        cwd: None,
        env: Vec::new(),
    };
    let mut config = ClientConfig::new(&args[1], &args[2]);
    config.games = Some(games);
    let stop = match stop_on_signals() {
        Ok(stop) => stop,
        Err(e) => {
            eprintln!("cannot catch signals: {e}");
            std::process::exit(1);
        }
    };
    match run(&args[0], &spec, &config, stop).await {
        Ok(records) => {
            for g in &records {
                let color = if g.color == goref_rules::Color::Black {
                    "black"
                } else {
                    "white"
                };
                println!(
                    "game {} as {color} against {}: {} {}{}",
                    g.game_id,
                    g.opponent,
                    g.result,
                    if g.won() { "won" } else { "not won" },
                    if g.text.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", g.text)
                    }
                );
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
