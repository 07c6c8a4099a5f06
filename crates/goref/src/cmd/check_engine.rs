//! `goref check-engine CMD`: does a program speak enough GTP for `goref match`?

use std::process::ExitCode;
use std::time::Duration;

use goref_gtp::{format_move, parse_genmove, Engine, EngineSpec, GenMove, Stopped};
use goref_rules::{Game, Ruleset};

/// Arguments of `goref check-engine`.
#[derive(clap::Args)]
pub struct Args {
    /// The engine: a command line (`"/usr/games/gnugo --mode gtp"`) or `tcp://host:port`.
    command: String,
    /// Board size for the test moves.
    #[arg(long, default_value = "9", value_parser = super::parse_size)]
    size: (usize, usize),
    /// Limit for each reply.
    #[arg(long, default_value = "10s", value_parser = goref_match::clock::parse_duration)]
    timeout: Duration,
}

/// Commands `goref match` cannot do without.
pub const REQUIRED: [&str; 9] = [
    "protocol_version",
    "name",
    "version",
    "list_commands",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
];

/// Commands `goref match` uses when they are there.
pub const OPTIONAL: [(&str, &str); 7] = [
    ("quit", "clean shutdown (else killed)"),
    ("time_settings", "clock settings"),
    ("kgs-time_settings", "byo-yomi and Canadian settings"),
    ("time_left", "time left before each move"),
    ("kgs-rules", "rules hint"),
    ("rectangular_boardsize", "rectangular boards"),
    ("final_status_list", "dead stones (later)"),
];

/// Runs `goref check-engine`: prints what the engine says and supports, plays two test moves,
/// and exits 0 when everything required works, 1 otherwise.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let spec = EngineSpec::parse(&args.command).map_err(anyhow::Error::msg)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(check(&spec, args))
}

async fn check(spec: &EngineSpec, args: &Args) -> anyhow::Result<ExitCode> {
    let t = args.timeout;
    let mut engine = Engine::start(spec, "engine", None).await?;
    let info = engine.check(t).await?.clone();
    let mut ok = true;
    outln!("command           {spec}");
    outln!("protocol_version  {}", info.protocol_version);
    outln!("name              {}", info.name);
    outln!("version           {}", info.version);
    outln!("commands          {}", info.commands.len());
    if info.protocol_version != "2" {
        outln!("warning: protocol version is not 2");
    }
    for c in REQUIRED {
        let yes = info.supports(c) || ["list_commands", "protocol_version"].contains(&c);
        ok &= yes;
        outln!("  {} {c}", if yes { "yes" } else { "NO " });
    }
    for (c, why) in OPTIONAL {
        outln!(
            "  {} {c} ({why})",
            if info.supports(c) { "yes" } else { "no " }
        );
    }
    let (w, h) = args.size;
    let mut game = Game::rect(w, h, Ruleset::OLYMPIAD)?;
    let size = if w == h {
        format!("boardsize {w}")
    } else {
        format!("rectangular_boardsize {w} {h}")
    };
    if let Err(e) = test_game(&mut engine, &mut game, &size, t).await {
        outln!("test game failed: {e:#}");
        ok = false;
    }
    let stopped = engine.shutdown(Duration::from_secs(2)).await;
    outln!("shutdown          {}", stopped_text(&stopped));
    outln!("{}", if ok { "compliant" } else { "NOT compliant" });
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// How the engine stopped, as a sentence for people.
fn stopped_text(stopped: &Stopped) -> String {
    match stopped {
        Stopped::Quit(Some(status)) => format!("quit cleanly ({status})"),
        Stopped::Quit(None) => "quit, exit status unknown".to_string(),
        Stopped::Killed => "killed: it did not exit within 2 s of quit".to_string(),
        Stopped::Disconnected => "connection closed".to_string(),
    }
}

async fn test_game(
    engine: &mut Engine,
    game: &mut Game,
    size: &str,
    t: Duration,
) -> anyhow::Result<()> {
    engine.command(size, t).await?;
    engine.command("clear_board", t).await?;
    engine.command("komi 7.5", t).await?;
    let reply = engine.command("genmove b", t).await?;
    let geometry = game.geometry().clone();
    match parse_genmove(&geometry, &reply) {
        Some(GenMove::Move(mv)) => {
            game.play(mv)
                .map_err(|e| anyhow::anyhow!("genmove b answered an illegal move: {e}"))?;
            outln!("genmove b        {}", format_move(&geometry, mv));
        }
        Some(GenMove::Resign) => outln!("genmove b        resign"),
        None => anyhow::bail!("genmove b answered '{reply}', which is not a move"),
    }
    let reply = engine.command("genmove w", t).await?;
    match parse_genmove(&geometry, &reply) {
        Some(GenMove::Move(mv)) if game.is_legal(mv) => {
            outln!("genmove w        {}", format_move(&geometry, mv));
        }
        Some(GenMove::Resign) => outln!("genmove w        resign"),
        _ => anyhow::bail!("genmove w answered '{reply}', which is not a legal move"),
    }
    Ok(())
}
