//! goref's built-in engines, run as real processes by `goref engine NAME`: `random` plays the
//! light playout policy of the rules core, `faulty` does the same but misbehaves on purpose
//! (crash, hang, garbage, slow answers, illegal moves, resignation) for tests, and `scripted`
//! plays a given move list and answers `final_status_list dead` with given lists (to drive the
//! dead-stone protocols through every branch), and `tunable` has a parameter `x` (set at start
//! or by the GTP command `set_param x V`) whose best value is known ([`Tunable`]): the test
//! engine of `goref tune`.

use std::io::{self, BufReader, Write};
use std::time::Duration;

use goref_rules::playout::{random_move, Rng};
use goref_rules::{Color, End, Game, Komi, Move, Point, Preset, Ruleset};

use crate::server::{serve, Answer, Handler};
use crate::vertex::{format_move, parse_color, parse_move};

/// Misbehaviours of the `faulty` engine. Counts are of `genmove` commands this process has
/// answered: "after N" acts on the genmove after the first N.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    /// Exit with status 3 and no reply.
    pub crash_after: Option<usize>,
    /// Never answer.
    pub hang_after: Option<usize>,
    /// Print bytes that are not UTF-8 and then a reply that is no vertex.
    pub garbage_after: Option<usize>,
    /// Answer `resign`.
    pub resign_after: Option<usize>,
    /// Sleep this long before every genmove reply.
    pub slow: Option<Duration>,
    /// Genmove numbers (from 1) answered with an illegal move (an occupied point).
    pub illegal_at: Vec<usize>,
    /// Refuse every `boardsize` (an engine that starts but cannot be set up for a game).
    pub refuse_boardsize: bool,
}

/// What the `scripted` engine plays and says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    /// Replies to successive `genmove`s (vertices, `pass`, `resign`, or `refuse` for a `?`
    /// reply), sent as written even when illegal; once used up, the engine passes.
    pub moves: Vec<String>,
    /// With `Some`, the engine lists `kgs-genmove_cleanup` and answers it from these moves
    /// (then passes); with `None` it does not know the command.
    pub cleanup: Option<Vec<String>>,
    /// With `Some`, the engine lists `final_status_list` and answers successive
    /// `final_status_list dead` with these lists, the last one repeated; with `None` it does
    /// not know the command.
    pub dead: Option<Vec<Vec<String>>>,
    /// `final_status_list` answers `? cannot tell`.
    pub status_fails: bool,
    /// Wait this long before answering `final_status_list`.
    pub status_delay: Option<Duration>,
}

/// The `tunable` engine's parameter: each `genmove` plays the greedy move (the legal move
/// that fills no own eye and leaves the mover the largest area score, Tromp-Taylor counting,
/// ties broken at random) with probability [`Tunable::greedy_probability`], a peak of 1 at
/// `x = peak` falling linearly to 0 at `peak ± width`; otherwise it passes. So the engine is
/// strongest at `x = peak`, and a tuner started away from it has a slope to climb everywhere
/// in the band. (Passing, not a random move, is the penalty: greedy against random moves wins
/// only 3 games in 4 on 7×7, too gentle a slope for a test to climb in a few hundred games;
/// with passes, x = 40 against x = 60 wins 5 games in 100 on 5×5.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tunable {
    /// The parameter (`set_param x V` changes it).
    pub x: f64,
    /// Where the engine is strongest.
    pub peak: f64,
    /// How far from the peak the greedy moves stop altogether.
    pub width: f64,
}

impl Tunable {
    /// The peak of `goref engine tunable` unless told otherwise.
    pub const PEAK: f64 = 60.0;
    /// The width unless told otherwise.
    pub const WIDTH: f64 = 60.0;

    /// The chance that a move is the greedy one: `max(0, 1 - |x - peak| / width)`.
    ///
    /// ```
    /// use goref_gtp::engines::Tunable;
    /// let t = Tunable { x: 60.0, peak: 60.0, width: 60.0 };
    /// assert_eq!(t.greedy_probability(), 1.0);
    /// assert_eq!(Tunable { x: 30.0, ..t }.greedy_probability(), 0.5);
    /// assert_eq!(Tunable { x: -5.0, ..t }.greedy_probability(), 0.0);
    /// ```
    #[must_use]
    pub fn greedy_probability(&self) -> f64 {
        if !self.x.is_finite() || self.width <= 0.0 {
            return 0.0;
        }
        (1.0 - (self.x - self.peak).abs() / self.width).max(0.0)
    }
}

/// A built-in engine: the board kept with the rules core, moves by the random policy.
pub struct BuiltinEngine {
    name: &'static str,
    width: usize,
    height: usize,
    rules: Ruleset,
    game: Game,
    rng: Rng,
    candidates: Vec<Point>,
    genmoves: usize,
    faults: Faults,
    script: Option<Script>,
    tunable: Option<Tunable>,
    /// `kgs-genmove_cleanup` and `final_status_list` commands answered so far.
    cleanups: usize,
    statuses: usize,
    /// Black's handicap stones on the empty board (`set_free_handicap`,
    /// `place_free_handicap`); White moves first after them.
    handicap: Vec<Point>,
    /// The starting position of a record read by `loadsgf` (its setup stones and who moves
    /// first), until the next `boardsize` or `clear_board`.
    start: Option<(Vec<Option<Color>>, Color)>,
}

impl BuiltinEngine {
    /// The `random` engine.
    #[must_use]
    pub fn random(seed: u64) -> BuiltinEngine {
        BuiltinEngine::new("goref-random", seed, Faults::default())
    }

    /// The `faulty` engine.
    #[must_use]
    pub fn faulty(seed: u64, faults: Faults) -> BuiltinEngine {
        BuiltinEngine::new("goref-faulty", seed, faults)
    }

    /// The `scripted` engine.
    #[must_use]
    pub fn scripted(script: Script) -> BuiltinEngine {
        let mut engine = BuiltinEngine::new("goref-scripted", 0, Faults::default());
        engine.script = Some(script);
        engine
    }

    /// The `tunable` engine.
    #[must_use]
    pub fn tunable(seed: u64, tunable: Tunable) -> BuiltinEngine {
        let mut engine = BuiltinEngine::new("goref-tunable", seed, Faults::default());
        engine.tunable = Some(tunable);
        engine
    }

    fn new(name: &'static str, seed: u64, faults: Faults) -> BuiltinEngine {
        let rules = Ruleset::OLYMPIAD;
        BuiltinEngine {
            name,
            width: 19,
            height: 19,
            rules,
            game: Game::rect(19, 19, rules).expect("19x19 is a board"),
            rng: Rng::new(seed),
            candidates: Vec::new(),
            genmoves: 0,
            faults,
            script: None,
            tunable: None,
            cleanups: 0,
            statuses: 0,
            handicap: Vec::new(),
            start: None,
        }
    }

    /// Serves GTP on standard input and output until `quit`.
    pub fn serve_stdio(&mut self) -> io::Result<()> {
        let stdin = io::stdin();
        let stdout = io::stdout();
        serve(self, stdin.lock(), io::BufWriter::new(stdout.lock()))
    }

    /// Rebuilds the game with the current size and rules, replaying `moves`.
    fn rebuild(&mut self, moves: &[(Color, Move)]) -> Result<(), String> {
        let mut game =
            Game::rect(self.width, self.height, self.rules).map_err(|e| e.to_string())?;
        if let Some((colors, to_move)) = &self.start {
            let board = goref_rules::Board::from_colors(game.geometry().clone(), colors)
                .map_err(|e| e.to_string())?;
            game = Game::from_position(board, *to_move, self.rules);
        } else if !self.handicap.is_empty() {
            let mut colors = vec![None; game.geometry().len()];
            for p in &self.handicap {
                colors[p.index()] = Some(Color::Black);
            }
            let board = goref_rules::Board::from_colors(game.geometry().clone(), &colors)
                .map_err(|e| e.to_string())?;
            game = Game::from_position(board, Color::White, self.rules);
        }
        for &(color, mv) in moves {
            play_as(&mut game, color, mv).map_err(|e| e.to_string())?;
        }
        self.game = game;
        Ok(())
    }

    /// The scripted engine's next move from `moves` (`n` from 1), played on its own board when
    /// legal there.
    fn scripted_move(&mut self, color: Color, next: Option<String>) -> Answer {
        let text = next.unwrap_or_else(|| "pass".into());
        if text.eq_ignore_ascii_case("resign") {
            return Answer::Success("resign".into());
        }
        if text.eq_ignore_ascii_case("refuse") {
            return Answer::Failure("refusing to move".into());
        }
        if let Some(mv) = parse_move(self.game.geometry(), &text) {
            let _ = play_as(&mut self.game, color, mv);
        }
        Answer::Success(text)
    }

    fn final_status_list(&mut self, args: &[&str]) -> Answer {
        let Some(script) = &self.script else {
            return Answer::Failure("unknown command".into());
        };
        if let Some(delay) = script.status_delay {
            std::thread::sleep(delay);
        }
        if script.status_fails {
            return Answer::Failure("cannot tell".into());
        }
        if args.first().map(|a| a.to_ascii_lowercase()) != Some("dead".into()) {
            return Answer::Success(String::new());
        }
        let lists = script.dead.as_deref().unwrap_or_default();
        let n = self.statuses.min(lists.len().saturating_sub(1));
        self.statuses += 1;
        Answer::Success(lists.get(n).map(|l| l.join(" ")).unwrap_or_default())
    }

    fn genmove(&mut self, color: Color) -> Answer {
        self.genmoves += 1;
        if let Some(script) = &self.script {
            let next = script.moves.get(self.genmoves - 1).cloned();
            return self.scripted_move(color, next);
        }
        let n = self.genmoves;
        let after = |limit: Option<usize>| limit.is_some_and(|l| n > l);
        if let Some(delay) = self.faults.slow {
            std::thread::sleep(delay);
        }
        if after(self.faults.crash_after) {
            let _ = io::stdout().flush();
            eprintln!("goref-faulty: crashing at genmove {n} as asked");
            std::process::exit(3);
        }
        if after(self.faults.hang_after) {
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        if after(self.faults.garbage_after) {
            return Answer::Noise {
                noise: b"\xff\xfe\x00garbage \xc3\x28\r\n@@@ \x1b[31m\n".to_vec(),
                reply: b"\xc3\x28Z99".to_vec(),
            };
        }
        if after(self.faults.resign_after) {
            return Answer::Success("resign".into());
        }
        if self.faults.illegal_at.contains(&n) {
            // An occupied point if there is one, else a point off the board.
            let occupied = self
                .game
                .geometry()
                .points()
                .find(|&p| self.game.board().get(p).is_some());
            return Answer::Success(match occupied {
                Some(p) => self.game.geometry().name(p),
                None => "Z25".into(),
            });
        }
        if self.game.to_move() != color {
            let to_move = self.game.to_move();
            let _ = play_as(&mut self.game, to_move, Move::Pass);
        }
        if self.game.end() == Some(End::TwoPasses) {
            self.game.resume();
        }
        if self.game.is_over() {
            return Answer::Success("pass".into());
        }
        let greedy = self.tunable.is_some_and(|t| {
            // 53 random bits: a uniform number in [0, 1).
            let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            u < t.greedy_probability()
        });
        let mv = if greedy {
            greedy_move(&self.game, &mut self.rng)
        } else if self.tunable.is_some() {
            // A wasted turn: the penalty that makes the strength fall off steeply.
            Move::Pass
        } else {
            random_move(&self.game, &mut self.rng, &mut self.candidates)
        };
        match self.game.play(mv) {
            Ok(_) => Answer::Success(format_move(self.game.geometry(), mv)),
            Err(e) => Answer::Failure(format!("internal error: {e}")),
        }
    }
}

impl BuiltinEngine {
    /// `set_param x V`: the tunable engine's parameter.
    fn set_param(&mut self, args: &[&str]) -> Answer {
        let Some(tunable) = &mut self.tunable else {
            return Answer::Failure("unknown command".into());
        };
        match args {
            [name, value] if name.eq_ignore_ascii_case("x") => match value.parse::<f64>() {
                Ok(v) if v.is_finite() => {
                    tunable.x = v;
                    Answer::Success(String::new())
                }
                _ => Answer::Failure(format!("'{value}' is not a number")),
            },
            [name, _] => Answer::Failure(format!("no parameter '{name}' (only x)")),
            _ => Answer::Failure("syntax error: set_param x VALUE".into()),
        }
    }

    /// `loadsgf FILE [N]`: the record's board, setup and main line up to (not including) move
    /// `N`, as GNU Go reads it; answers the colour to move.
    fn loadsgf(&mut self, args: &[&str]) -> Answer {
        let Some(file) = args.first() else {
            return Answer::Failure("missing filename".into());
        };
        let record = match std::fs::read(file) {
            Ok(bytes) => goref_sgf::parse(&String::from_utf8_lossy(&bytes)),
            Err(_) => return Answer::Failure(format!("cannot open or parse '{file}'")),
        };
        let Ok(record) = record else {
            return Answer::Failure(format!("cannot open or parse '{file}'"));
        };
        let until = match args.get(1).map(|a| a.parse::<usize>()) {
            None => usize::MAX,
            Some(Ok(n)) if n >= 1 => n,
            Some(_) => return Answer::Failure("move number is not a number from 1".into()),
        };
        let Ok(board) = record.start_board() else {
            return Answer::Failure(format!("cannot load '{file}'"));
        };
        let first = record
            .first_player
            .or_else(|| record.moves.first().map(|m| m.color))
            .unwrap_or(Color::Black);
        let (width, height) = (self.width, self.height);
        (self.width, self.height) = (record.width, record.height);
        self.handicap.clear();
        self.start = Some((board.colors().to_vec(), first));
        let moves: Vec<(Color, Move)> = record
            .moves
            .iter()
            .take(until - 1)
            .map(|m| (m.color, m.mv))
            .collect();
        if let Err(e) = self.rebuild(&moves) {
            (self.width, self.height) = (width, height);
            self.start = None;
            let _ = self.rebuild(&[]);
            return Answer::Failure(format!("cannot load '{file}': {e}"));
        }
        let to_move = record
            .moves
            .get(until - 1)
            .map_or(self.game.to_move(), |m| m.color);
        Answer::Success(match to_move {
            Color::Black => "black".into(),
            Color::White => "white".into(),
        })
    }
}

/// The CPU time this process has used, in seconds.
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the one given.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
    if ok {
        t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
    } else {
        0.0
    }
}

/// The legal move filling no own eye after which the mover's area score (stones and the empty
/// points only they reach) minus the opponent's is largest, ties broken at random; a pass when
/// there is none.
fn greedy_move(game: &Game, rng: &mut Rng) -> Move {
    let color = game.to_move();
    let board = game.board();
    let mut best: Vec<Point> = Vec::new();
    let mut best_margin = i64::MIN;
    for p in board.empty_points() {
        if board.is_own_eye(p, color) {
            continue;
        }
        let mut after = game.clone();
        if after.play(Move::Play(p)).is_err() {
            continue;
        }
        let area = after.board().area();
        let margin = i64::from(area[color]) - i64::from(area[color.opponent()]);
        if margin > best_margin {
            best_margin = margin;
            best.clear();
        }
        if margin == best_margin {
            best.push(p);
        }
    }
    if best.is_empty() {
        Move::Pass
    } else {
        Move::Play(best[rng.below(best.len())])
    }
}

/// Plays `mv` for `color`, passing for the other colour first when it is not its turn, and
/// resuming after two passes.
fn play_as(game: &mut Game, color: Color, mv: Move) -> Result<(), goref_rules::IllegalMove> {
    if game.end() == Some(End::TwoPasses) {
        game.resume();
    }
    if game.to_move() != color {
        game.play(Move::Pass)?;
        if game.end() == Some(End::TwoPasses) {
            game.resume();
        }
    }
    game.play(mv).map(|_| ())
}

impl Handler for BuiltinEngine {
    fn commands(&self) -> Vec<&'static str> {
        let mut commands = self.base_commands();
        if let Some(script) = &self.script {
            if script.cleanup.is_some() {
                commands.push("kgs-genmove_cleanup");
            }
            if script.dead.is_some() || script.status_fails || script.status_delay.is_some() {
                commands.push("final_status_list");
            }
        }
        if self.tunable.is_some() {
            commands.push("set_param");
        }
        commands
    }

    fn handle(&mut self, name: &str, args: &[&str]) -> Answer {
        match name {
            "set_param" if self.tunable.is_some() => self.set_param(args),
            "final_status_list" => self.final_status_list(args),
            "kgs-genmove_cleanup" => {
                let Some(color) = args.first().and_then(|c| parse_color(c)) else {
                    return Answer::Failure("syntax error".into());
                };
                self.cleanups += 1;
                let next = self
                    .script
                    .as_ref()
                    .and_then(|s| s.cleanup.as_ref())
                    .and_then(|c| c.get(self.cleanups - 1).cloned());
                self.scripted_move(color, next)
            }
            _ => self.handle_base(name, args),
        }
    }
}

impl BuiltinEngine {
    fn base_commands(&self) -> Vec<&'static str> {
        vec![
            "name",
            "version",
            "boardsize",
            "rectangular_boardsize",
            "clear_board",
            "komi",
            "play",
            "genmove",
            "undo",
            "showboard",
            "final_score",
            "time_settings",
            "kgs-time_settings",
            "time_left",
            "kgs-rules",
            "goref-rules",
            "set_free_handicap",
            "place_free_handicap",
            "loadsgf",
            "cputime",
        ]
    }

    fn handle_base(&mut self, name: &str, args: &[&str]) -> Answer {
        let ok = |s: &str| Answer::Success(s.to_string());
        let fail = |s: &str| Answer::Failure(s.to_string());
        match name {
            "name" => ok(self.name),
            "version" => ok(env!("CARGO_PKG_VERSION")),
            "boardsize" | "rectangular_boardsize" if self.faults.refuse_boardsize => {
                fail("unacceptable size")
            }
            "boardsize" | "rectangular_boardsize" => {
                let sides: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
                let (w, h) = match (name, sides.as_slice()) {
                    ("boardsize", [n]) => (*n, *n),
                    ("rectangular_boardsize", [w, h]) => (*w, *h),
                    _ => return fail("syntax error"),
                };
                if !(1..=25).contains(&w) || !(1..=25).contains(&h) {
                    return fail("unacceptable size");
                }
                (self.width, self.height) = (w, h);
                self.handicap.clear();
                self.start = None;
                match self.rebuild(&[]) {
                    Ok(()) => ok(""),
                    Err(e) => fail(&e),
                }
            }
            "set_free_handicap" | "place_free_handicap" if !self.game.moves().is_empty() => {
                fail("board not empty")
            }
            "set_free_handicap" => {
                let g = self.game.geometry().clone();
                let mut stones = Vec::new();
                for a in args {
                    match parse_move(&g, a) {
                        Some(Move::Play(p)) if !stones.contains(&p) => stones.push(p),
                        _ => return fail("bad vertex list"),
                    }
                }
                if stones.len() < 2 || stones.len() >= g.len() {
                    return fail("bad vertex list");
                }
                self.handicap = stones;
                match self.rebuild(&[]) {
                    Ok(()) => ok(""),
                    Err(e) => fail(&e),
                }
            }
            "place_free_handicap" => {
                let g = self.game.geometry().clone();
                let n = match args.first().and_then(|a| a.parse::<usize>().ok()) {
                    Some(n) if n >= 2 && n < g.len() => n,
                    _ => return fail("invalid number of stones"),
                };
                let mut stones: Vec<Point> = Vec::new();
                while stones.len() < n {
                    let p = Point::new(self.rng.below(g.len()));
                    if !stones.contains(&p) {
                        stones.push(p);
                    }
                }
                self.handicap = stones;
                if let Err(e) = self.rebuild(&[]) {
                    self.handicap.clear();
                    return fail(&e);
                }
                let names: Vec<String> = self.handicap.iter().map(|&p| g.name(p)).collect();
                ok(&names.join(" "))
            }
            "clear_board" => {
                self.handicap.clear();
                self.start = None;
                match self.rebuild(&[]) {
                    Ok(()) => ok(""),
                    Err(e) => fail(&e),
                }
            }
            "komi" => match args.first().and_then(|k| k.parse::<Komi>().ok()) {
                Some(komi) => {
                    self.rules = self.rules.with_komi(komi);
                    let moves = self.game.moves().to_vec();
                    let _ = self.rebuild(&moves);
                    ok("")
                }
                None => fail("syntax error"),
            },
            "goref-rules" | "kgs-rules" => {
                let preset = match args.first().map(|a| a.to_ascii_lowercase()) {
                    Some(a) if a == "chinese" => Some(Preset::Olympiad),
                    Some(a) if a == "new_zealand" => Some(Preset::TrompTaylor),
                    Some(a) => a.parse::<Preset>().ok(),
                    None => None,
                };
                match preset {
                    Some(p) => {
                        self.rules = Ruleset::preset(p).with_komi(self.rules.komi);
                        let moves = self.game.moves().to_vec();
                        match self.rebuild(&moves) {
                            Ok(()) => ok(""),
                            Err(e) => fail(&e),
                        }
                    }
                    None => fail("unknown rules"),
                }
            }
            "play" => {
                let (Some(color), Some(mv)) = (
                    args.first().and_then(|c| parse_color(c)),
                    args.get(1)
                        .and_then(|v| parse_move(self.game.geometry(), v)),
                ) else {
                    return fail("syntax error");
                };
                match play_as(&mut self.game, color, mv) {
                    Ok(()) => ok(""),
                    Err(_) => fail("illegal move"),
                }
            }
            "genmove" => match args.first().and_then(|c| parse_color(c)) {
                Some(color) => self.genmove(color),
                None => fail("syntax error"),
            },
            "undo" => {
                let mut moves = self.game.moves().to_vec();
                if moves.pop().is_none() {
                    return fail("cannot undo");
                }
                match self.rebuild(&moves) {
                    Ok(()) => ok(""),
                    Err(e) => fail(&e),
                }
            }
            "showboard" => Answer::Success(format!("\n{}", self.game.board().to_ascii())),
            "final_score" => ok(&self.game.score().outcome().to_sgf()),
            "time_settings" | "kgs-time_settings" | "time_left" => ok(""),
            "loadsgf" => self.loadsgf(args),
            "cputime" => ok(&format!("{:.3}", cpu_seconds())),
            _ => fail("unknown command"),
        }
    }
}

/// Serves a fresh engine made by `make` for each connection to `listener`, each on a thread
/// of its own. Runs until the listener fails.
pub fn serve_tcp(
    listener: std::net::TcpListener,
    make: impl Fn(u64) -> BuiltinEngine + Send + Sync + 'static,
) -> io::Result<()> {
    let make = std::sync::Arc::new(make);
    for (n, stream) in listener.incoming().enumerate() {
        let stream = stream?;
        let _ = stream.set_nodelay(true);
        let make = make.clone();
        std::thread::spawn(move || {
            let mut engine = make(n as u64);
            if let Ok(read) = stream.try_clone() {
                let _ = serve(
                    &mut engine,
                    BufReader::new(read),
                    io::BufWriter::new(stream),
                );
            }
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn talk(engine: &mut BuiltinEngine, input: &str) -> String {
        let mut out = Vec::new();
        serve(engine, input.as_bytes(), &mut out).unwrap();
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn handicap_stones_are_set_or_placed_on_an_empty_board_only() {
        let mut e = BuiltinEngine::random(1);
        let out = talk(
            &mut e,
            "boardsize 3\nset_free_handicap a1 c3\nshowboard\nplay b b2\nset_free_handicap a2 b3\nset_free_handicap a1 a1\n",
        );
        // White moves first after the stones: Black's play comes after a pass for White.
        assert!(out.contains("..X\n...\nX.."), "{out}");
        assert!(out.contains("? board not empty"), "{out}");
        let mut e = BuiltinEngine::random(7);
        let out = talk(
            &mut e,
            "boardsize 5\nset_free_handicap a1 a1\nplace_free_handicap 3\nshowboard\n",
        );
        assert!(out.contains("? bad vertex list"), "{out}");
        let placed = out.split("\n\n").nth(2).unwrap();
        assert_eq!(
            placed.split_whitespace().count(),
            4,
            "= and three vertices: {out}"
        );
        assert_eq!(out.matches('X').count(), 3, "{out}");
    }

    #[test]
    fn random_engine_plays_legal_moves_and_refuses_illegal_ones() {
        let mut e = BuiltinEngine::random(1);
        let out = talk(
            &mut e,
            "boardsize 5\nclear_board\nplay b c3\nplay w c3\ngenmove w\n",
        );
        let replies: Vec<&str> = out.split("\n\n").collect();
        assert_eq!(replies[3], "? illegal move");
        let mv = replies[4].strip_prefix("= ").unwrap();
        assert_ne!(mv, "C3");
        assert_eq!(e.game.moves().len(), 2);
    }

    #[test]
    fn scripted_engine_plays_its_moves_and_answers_its_dead_lists() {
        let script = Script {
            moves: vec!["c3".into(), "pass".into()],
            cleanup: Some(vec!["d4".into()]),
            dead: Some(vec![vec!["C4".into()], vec![]]),
            ..Script::default()
        };
        let mut e = BuiltinEngine::scripted(script);
        let out = talk(
            &mut e,
            "boardsize 5\nlist_commands\ngenmove b\nplay w c4\ngenmove b\ngenmove b\nkgs-genmove_cleanup b\nkgs-genmove_cleanup b\nfinal_status_list dead\nfinal_status_list dead\nfinal_status_list dead\n",
        );
        let replies: Vec<&str> = out.split("\n\n").collect();
        assert!(
            replies[1].contains("final_status_list") && replies[1].contains("kgs-genmove_cleanup")
        );
        assert_eq!(
            &replies[2..11],
            ["= c3", "= ", "= pass", "= pass", "= d4", "= pass", "= C4", "= ", "= "]
        );
        // Without lists the commands are unknown.
        let mut e = BuiltinEngine::scripted(Script::default());
        let out = talk(&mut e, "final_status_list dead\nkgs-genmove_cleanup b\n");
        assert_eq!(out, "? unknown command\n\n? unknown command\n\n");
    }

    #[test]
    fn loadsgf_sets_up_a_record_up_to_a_move_and_cputime_counts() {
        let dir = std::env::temp_dir().join(format!("goref-gtp-loadsgf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.sgf");
        std::fs::write(&file, "(;SZ[3]AW[aa];B[bb];W[cc];B[ca])").unwrap();
        let f = file.display();
        let mut e = BuiltinEngine::random(1);
        let out = talk(
            &mut e,
            &format!(
                "loadsgf {f} 2\nshowboard\nloadsgf {f}\nshowboard\nclear_board\nshowboard\n\
                 loadsgf {f}.missing\ncputime\n"
            ),
        );
        // showboard's board ends with a line end of its own: an empty line more.
        let replies: Vec<&str> = out.split("\n\n").map(str::trim).collect();
        let replies: Vec<&str> = replies.into_iter().filter(|r| !r.is_empty()).collect();
        assert_eq!(replies[0], "= white");
        assert_eq!(replies[1], "= \nO..\n.X.\n...");
        assert_eq!(replies[2], "= white");
        assert_eq!(replies[3], "= \nO.X\n.X.\n..O");
        assert_eq!(replies[4..6], ["=", "= \n...\n...\n..."]);
        assert!(replies[6].starts_with("? cannot open"), "{out}");
        let cpu: f64 = replies[7].strip_prefix("= ").unwrap().parse().unwrap();
        assert!(cpu > 0.0, "{out}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn faulty_engine_plays_an_occupied_point_when_told() {
        let faults = Faults {
            illegal_at: vec![2],
            ..Faults::default()
        };
        let mut e = BuiltinEngine::faulty(1, faults);
        let out = talk(&mut e, "boardsize 9\ngenmove b\ngenmove b\n");
        let replies: Vec<&str> = out.split("\n\n").collect();
        // The second genmove names the stone the first one placed.
        assert_eq!(replies[1], replies[2]);
    }

    #[test]
    fn tunable_engine_takes_set_param_and_plays_greedily_at_its_peak() {
        let at = |x| Tunable {
            x,
            peak: 60.0,
            width: 60.0,
        };
        let mut e = BuiltinEngine::tunable(3, at(0.0));
        let out = talk(
            &mut e,
            "list_commands\nset_param x 60\nset_param y 1\nset_param x abc\n",
        );
        let replies: Vec<&str> = out.split("\n\n").collect();
        assert!(replies[0].contains("set_param"), "{out}");
        assert_eq!(replies[1], "= ");
        assert!(replies[2].starts_with("? no parameter 'y'"), "{out}");
        assert!(replies[3].starts_with("? 'abc'"), "{out}");
        assert_eq!(e.tunable, Some(at(60.0)));
        // At the peak every move is greedy: White's stone in atari is taken at once.
        let out = talk(
            &mut e,
            "boardsize 5\nclear_board\nplay b b1\nplay w a1\ngenmove b\n",
        );
        assert!(out.ends_with("= A2\n\n"), "{out}");
        // The random engine knows no set_param.
        let mut r = BuiltinEngine::random(3);
        assert_eq!(talk(&mut r, "set_param x 1\n"), "? unknown command\n\n");
    }
}
