//! The CGOS client against a scripted CGOS server (a test fixture over in-memory streams or
//! TCP, not goref's server), with goref's built-in engines run in-process.

use std::io::{BufReader as StdBufReader, BufWriter};
use std::time::Duration;

use goref_cgos::client::{play_session, run, ClientConfig, Progress, SessionEnd};
use goref_cgos::protocol::{
    Answer, CgosMove, CgosResult, CgosWin, ClientMessage, Date, Expect, Gameover, LineReader, Seat,
    ServerMessage, Setup, TimedMove,
};
use goref_cgos::ClientError;
use goref_gtp::engines::{BuiltinEngine, Faults};
use goref_gtp::server::{Answer as GtpAnswer, Handler};
use goref_gtp::{Engine, EngineSpec};
use goref_rules::{Color, Game, Komi, Move, Ruleset};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::watch;

const LIMIT: Duration = Duration::from_secs(20);

/// A built-in engine served on a thread, spoken to over a socket pair.
async fn engine(mut builtin: impl Handler + Send + 'static) -> Engine {
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    std::thread::spawn(move || {
        let read = theirs.try_clone().unwrap();
        let _ = goref_gtp::server::serve(
            &mut builtin,
            StdBufReader::new(read),
            BufWriter::new(theirs),
        );
    });
    ours.set_nonblocking(true).unwrap();
    let stream = tokio::net::UnixStream::from_std(ours).unwrap();
    let (r, w) = stream.into_split();
    let mut engine = Engine::over(r, w, "builtin", None);
    engine.check(LIMIT).await.unwrap();
    engine
}

/// The server's side of one connection.
struct Fake<R, W> {
    lines: LineReader<BufReader<R>>,
    writer: W,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Fake<R, W> {
    fn new(reader: R, writer: W) -> Self {
        Fake {
            lines: LineReader::new(BufReader::new(reader)),
            writer,
        }
    }

    async fn send(&mut self, message: &ServerMessage) {
        let line = format!("{message}\r\n");
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    async fn raw(&mut self, expect: Expect) -> (String, ClientMessage) {
        let line = tokio::time::timeout(LIMIT, self.lines.next_line())
            .await
            .expect("the client answers in time")
            .unwrap()
            .expect("the client's line");
        let message = ClientMessage::parse(&line, expect).unwrap();
        (line, message)
    }

    async fn expect(&mut self, expect: Expect) -> ClientMessage {
        self.raw(expect).await.1
    }

    /// Sends `gameover DATE RESULT [TEXT]`.
    async fn gameover(&mut self, result: &str, text: &str) {
        self.send(&ServerMessage::Gameover(Gameover {
            date: date(),
            result: CgosResult::parse(result).unwrap(),
            text: text.into(),
        }))
        .await;
    }

    /// The handshake; returns the client's lines.
    async fn login(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        self.send(&ServerMessage::Protocol {
            genmove_analyze: true,
        })
        .await;
        lines.push(self.raw(Expect::Hello).await.0);
        self.send(&ServerMessage::Username).await;
        lines.push(self.raw(Expect::Username).await.0);
        self.send(&ServerMessage::Password).await;
        lines.push(self.raw(Expect::Password).await.0);
        lines
    }
}

fn seat(name: &str) -> Seat {
    Seat {
        name: name.into(),
        rating: Some(goref_cgos::Rating {
            elo: 1800,
            provisional: true,
        }),
    }
}

fn config(name: &str, games: Option<usize>) -> ClientConfig {
    let mut config = ClientConfig::new(name, "secret");
    config.games = games;
    config
}

fn date() -> Date {
    Date::new(2026, 11, 27).unwrap()
}

fn setup(size: u8, moves: &[(&str, i64)]) -> Setup {
    Setup {
        game_id: 42,
        size,
        komi: Komi::from_half_points(15),
        main_time_ms: 60_000,
        white: seat("alpha"),
        black: seat("beta"),
        moves: moves
            .iter()
            .map(|(m, t)| TimedMove {
                mv: CgosMove::parse(m).unwrap(),
                ms_left: *t,
            })
            .collect(),
    }
}

fn stones(board: &str) -> (usize, usize) {
    (board.matches('X').count(), board.matches('O').count())
}

/// The played move of a client's answer, on `game`'s board.
fn as_move(game: &Game, message: &ClientMessage) -> Option<Move> {
    match message {
        ClientMessage::Move {
            answer: Answer::Move(m),
            ..
        } => m.to_move(game.geometry()),
        _ => None,
    }
}

/// How the players' engines start.
#[derive(Clone, Copy)]
enum Players {
    Random,
    GnuGo,
}

const GNUGO: &str = "/usr/games/gnugo";

#[tokio::test]
async fn two_clients_play_a_game_to_the_referee_s_score() {
    two_clients_play(Players::Random, 7).await;
}

#[tokio::test]
async fn two_gnu_go_clients_play_a_game_to_the_referee_s_score() {
    if !std::path::Path::new(GNUGO).exists() {
        eprintln!("{GNUGO} is not installed: GNU Go's game is not played");
        return;
    }
    two_clients_play(Players::GnuGo, 9).await;
}

/// Two clients play one game through a referee built on goref's rules core.
async fn two_clients_play(players: Players, size: u8) {
    let (client_a, server_a) = tokio::io::duplex(1 << 16);
    let (client_b, server_b) = tokio::io::duplex(1 << 16);
    let (_stop_tx, stop) = watch::channel(false);
    let mut tasks = Vec::new();
    for (name, stream, seed) in [("alpha", client_a, 3), ("beta", client_b, 4)] {
        let mut stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let mut engine = match players {
                Players::Random => engine(BuiltinEngine::random(seed)).await,
                Players::GnuGo => {
                    let line = format!(
                        "{GNUGO} --mode gtp --level 0 --chinese-rules --capture-all-dead --seed {seed}"
                    );
                    let spec = EngineSpec::parse(&line).unwrap();
                    let mut engine = Engine::start(&spec, name, None).await.unwrap();
                    engine.check(LIMIT).await.unwrap();
                    engine
                }
            };
            let (r, w) = tokio::io::split(stream);
            let mut progress = Progress::default();
            let config = config(name, Some(1));
            let end = play_session(r, w, &mut engine, &config, &mut progress, &mut stop).await;
            let board = match players {
                Players::Random => engine.command("showboard", LIMIT).await.unwrap(),
                Players::GnuGo => String::new(),
            };
            engine.shutdown(Duration::from_secs(2)).await;
            (end.unwrap(), progress, board)
        }));
    }
    let (r, w) = tokio::io::split(server_a);
    let mut white = Fake::new(r, w);
    let (r, w) = tokio::io::split(server_b);
    let mut black = Fake::new(r, w);
    assert_eq!(white.login().await[1], "alpha\n");
    assert_eq!(black.login().await[1], "beta\n");
    let started = std::time::Instant::now();
    let start = setup(size, &[]);
    white.send(&ServerMessage::Setup(start.clone())).await;
    black.send(&ServerMessage::Setup(start)).await;

    // The referee: goref's rules core, CGOS's rules (positional superko, no suicide).
    let side = usize::from(size);
    let rules = Ruleset::NSTT.with_komi(Komi::from_half_points(15));
    let mut game = Game::rect(side, side, rules).unwrap();
    let mut ms_left = 60_000;
    let result = loop {
        let color = game.to_move();
        let (mover, other) = match color {
            Color::White => (&mut white, &mut black),
            Color::Black => (&mut black, &mut white),
        };
        ms_left -= 10;
        mover.send(&ServerMessage::Genmove { color, ms_left }).await;
        let answer = mover.expect(Expect::Move { analyze: false }).await;
        let Some(mv) = as_move(&game, &answer) else {
            break CgosResult::Win {
                winner: color.opponent(),
                by: if matches!(
                    answer,
                    ClientMessage::Move {
                        answer: Answer::Resign,
                        ..
                    }
                ) {
                    CgosWin::Resign
                } else {
                    CgosWin::Illegal
                },
            };
        };
        if game.play(mv).is_err() {
            break CgosResult::Win {
                winner: color.opponent(),
                by: CgosWin::Illegal,
            };
        }
        let mv = CgosMove::from_move(game.geometry(), mv).unwrap();
        other
            .send(&ServerMessage::Play { color, mv, ms_left })
            .await;
        if game.is_over() {
            break CgosResult::try_from(game.outcome()).unwrap();
        }
    };
    // Random engines on 7×7 play on until two passes: a scored game.
    assert!(
        matches!(
            result,
            CgosResult::Win {
                by: CgosWin::Score { .. },
                ..
            } | CgosResult::Draw
        ),
        "{result}"
    );
    assert!(game.moves().len() > 20, "{} moves", game.moves().len());
    eprintln!(
        "{size}x{size}: {result} after {} moves in {:.1}s",
        game.moves().len(),
        started.elapsed().as_secs_f64()
    );
    let over = ServerMessage::Gameover(Gameover {
        date: date(),
        result,
        text: String::new(),
    });
    white.send(&over).await;
    black.send(&over).await;
    // One game each was asked for: both quit.
    assert_eq!(white.expect(Expect::Ready).await, ClientMessage::Quit);
    assert_eq!(black.expect(Expect::Ready).await, ClientMessage::Quit);
    let referee_board = game.board().to_ascii();
    for (task, color) in tasks.into_iter().zip([Color::White, Color::Black]) {
        let (end, progress, board) = task.await.unwrap();
        assert_eq!(end, SessionEnd::Quit);
        assert_eq!(progress.games.len(), 1);
        let record = &progress.games[0];
        assert_eq!(
            (record.game_id, record.color, record.result),
            (42, color, result)
        );
        assert_eq!(record.won(), result.outcome().winner() == Some(color));
        // Every move was relayed: the engine's board is the referee's.
        if let Players::Random = players {
            assert_eq!(board.trim(), referee_board.trim());
        }
    }
}

#[tokio::test]
async fn a_reconnection_replays_the_game_on_a_cleared_board() {
    let mut engine = engine(BuiltinEngine::random(9)).await;
    let config = config("alpha", None);
    let (stop_tx, mut stop) = watch::channel(false);
    let mut progress = Progress::default();
    let mut game = Game::rect(9, 9, Ruleset::NSTT).unwrap();
    game.play(
        CgosMove::parse("C3")
            .unwrap()
            .to_move(game.geometry())
            .unwrap(),
    )
    .unwrap();

    // First connection: the client (White) moves once, then the connection drops.
    let (client, server) = tokio::io::duplex(1 << 16);
    let server_side = async {
        let (r, w) = tokio::io::split(server);
        let mut fake = Fake::new(r, w);
        fake.login().await;
        fake.send(&ServerMessage::Setup(setup(9, &[("C3", 59_000)])))
            .await;
        fake.send(&ServerMessage::Genmove {
            color: Color::White,
            ms_left: 59_000,
        })
        .await;
        fake.expect(Expect::Move { analyze: false }).await
        // `fake` drops here: the connection closes.
    };
    let (r, w) = tokio::io::split(client);
    let (end, first) = tokio::join!(
        play_session(r, w, &mut engine, &config, &mut progress, &mut stop),
        server_side
    );
    assert_eq!(end.unwrap(), SessionEnd::Disconnected);
    let m1 = as_move(&game, &first).expect("a move");
    game.play(m1).expect("a legal move");
    let m1 = CgosMove::from_move(game.geometry(), m1)
        .unwrap()
        .to_string();
    let reply = if game.is_legal(Move::Play(game.geometry().parse_point("E5").unwrap())) {
        "E5"
    } else {
        "F6"
    };
    game.play(Move::Play(game.geometry().parse_point(reply).unwrap()))
        .unwrap();

    // Second connection: setup brings the three moves so far, then genmove.
    let (client, server) = tokio::io::duplex(1 << 16);
    let server_side = async {
        let (r, w) = tokio::io::split(server);
        let mut fake = Fake::new(r, w);
        fake.login().await;
        let moves = [("C3", 59_000), (m1.as_str(), 58_000), (reply, 57_000)];
        fake.send(&ServerMessage::Setup(setup(9, &moves))).await;
        fake.send(&ServerMessage::Info("welcome back".into())).await;
        fake.send(&ServerMessage::Genmove {
            color: Color::White,
            ms_left: 58_000,
        })
        .await;
        let second = fake.expect(Expect::Move { analyze: false }).await;
        fake.gameover("W+Resign", "Resignation").await;
        let ready = fake.expect(Expect::Ready).await;
        stop_tx.send(true).unwrap();
        let quit = fake.expect(Expect::Ready).await;
        (second, ready, quit)
    };
    let (r, w) = tokio::io::split(client);
    let (end, (second, ready, quit)) = tokio::join!(
        play_session(r, w, &mut engine, &config, &mut progress, &mut stop),
        server_side
    );
    assert_eq!(end.unwrap(), SessionEnd::Quit);
    assert_eq!((ready, quit), (ClientMessage::Ready, ClientMessage::Quit));
    let m2 = as_move(&game, &second).expect("a move");
    assert!(
        game.play(m2).is_ok(),
        "the second move is legal on the replayed board"
    );
    // The engine's board holds the replayed game and its own move, nothing twice.
    let board = engine.command("showboard", LIMIT).await.unwrap();
    let expected = stones(&game.board().to_ascii());
    assert_eq!(stones(&board), expected);
    assert_eq!(board.trim(), game.board().to_ascii().trim());
    assert_eq!(progress.games.len(), 1);
    assert!(progress.games[0].won());
    assert_eq!(progress.games[0].text, "Resignation");
}

#[tokio::test]
async fn a_refused_login_ends_with_the_server_s_words() {
    let mut engine = engine(BuiltinEngine::random(1)).await;
    let (client, server) = tokio::io::duplex(4096);
    let (_stop_tx, mut stop) = watch::channel(false);
    let server_side = async {
        let (r, w) = tokio::io::split(server);
        let mut fake = Fake::new(r, w);
        let lines = fake.login().await;
        fake.send(&ServerMessage::Error(
            "Sorry, password doesn't match".into(),
        ))
        .await;
        lines
    };
    let (r, w) = tokio::io::split(client);
    let mut progress = Progress::default();
    let config = config("alpha", None);
    let (end, lines) = tokio::join!(
        play_session(r, w, &mut engine, &config, &mut progress, &mut stop),
        server_side
    );
    // The client does not announce analysis it does not send, even when offered.
    let hello = format!("e1 goref-cgos {}\n", env!("CARGO_PKG_VERSION"));
    assert_eq!(lines, [hello.as_str(), "alpha\n", "secret\n"]);
    match end {
        Err(ClientError::Refused(text)) => assert_eq!(text, "Sorry, password doesn't match"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_time_loss_during_genmove_is_recorded_and_answered() {
    // The engine never answers genmove: the server ends the game on time meanwhile.
    let faults = Faults {
        hang_after: Some(0),
        ..Faults::default()
    };
    let mut engine = engine(BuiltinEngine::faulty(1, faults)).await;
    let (client, server) = tokio::io::duplex(4096);
    let (_stop_tx, mut stop) = watch::channel(false);
    let server_side = async {
        let (r, w) = tokio::io::split(server);
        let mut fake = Fake::new(r, w);
        fake.login().await;
        fake.send(&ServerMessage::Setup(setup(9, &[]))).await;
        fake.send(&ServerMessage::Genmove {
            color: Color::Black,
            ms_left: 100,
        })
        .await;
        tokio::time::sleep(Duration::from_millis(150)).await;
        fake.gameover("W+Time", "").await;
        fake.expect(Expect::Ready).await
    };
    let (r, w) = tokio::io::split(client);
    let mut progress = Progress::default();
    let config = config("beta", Some(1));
    let (end, answer) = tokio::join!(
        play_session(r, w, &mut engine, &config, &mut progress, &mut stop),
        server_side
    );
    assert_eq!(end.unwrap(), SessionEnd::Quit);
    assert_eq!(answer, ClientMessage::Quit);
    let record = &progress.games[0];
    assert_eq!((record.color, record.won()), (Color::Black, false));
    assert_eq!(record.result.to_sgf(), "W+T");
}

#[tokio::test]
async fn a_line_that_is_not_cgos_ends_the_session_with_it_named() {
    let mut engine = engine(BuiltinEngine::random(1)).await;
    let (client, mut server) = tokio::io::duplex(4096);
    let (_stop_tx, mut stop) = watch::channel(false);
    server
        .write_all(b"protocol\nmatch 1 - - 9 7.0 a b -\n")
        .await
        .unwrap();
    let (r, w) = tokio::io::split(client);
    let mut progress = Progress::default();
    let end = play_session(
        r,
        w,
        &mut engine,
        &config("alpha", None),
        &mut progress,
        &mut stop,
    )
    .await;
    match end {
        Err(ClientError::Protocol { line, error }) => {
            assert!(line.starts_with("match 1"), "{line}");
            assert_eq!(error.to_string(), "unknown command 'match'");
        }
        other => panic!("{other:?}"),
    }
    // A genmove before any setup is out of turn.
    let (client, mut server) = tokio::io::duplex(4096);
    server.write_all(b"genmove b 1000\n").await.unwrap();
    let (r, w) = tokio::io::split(client);
    let end = play_session(
        r,
        w,
        &mut engine,
        &config("alpha", None),
        &mut progress,
        &mut stop,
    )
    .await;
    assert!(matches!(end, Err(ClientError::OutOfTurn(_))), "{end:?}");
}

#[tokio::test]
async fn run_connects_over_tcp_and_reconnects_after_a_drop() {
    // The engine: goref's random engine served over TCP in-process.
    let engines = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let spec = EngineSpec::Tcp {
        address: engines.local_addr().unwrap().to_string(),
    };
    std::thread::spawn(move || goref_gtp::engines::serve_tcp(engines, BuiltinEngine::random));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let server = tokio::spawn(async move {
        let mut moves = Vec::new();
        for connection in 0..2 {
            let (stream, _) = listener.accept().await.unwrap();
            let (r, w) = stream.into_split();
            let mut fake = Fake::new(r, w);
            fake.login().await;
            let so_far: Vec<(&str, i64)> = moves
                .iter()
                .map(|m: &String| (m.as_str(), 50_000))
                .collect();
            fake.send(&ServerMessage::Setup(setup(9, &so_far))).await;
            fake.send(&ServerMessage::Genmove {
                color: Color::Black,
                ms_left: 50_000,
            })
            .await;
            let answer = fake.expect(Expect::Move { analyze: false }).await;
            let ClientMessage::Move {
                answer: Answer::Move(m),
                ..
            } = answer
            else {
                panic!("{answer:?}")
            };
            moves.push(m.to_string());
            moves.push("pass".to_string());
            if connection == 1 {
                fake.gameover("B+Time", "").await;
                return (moves, fake.expect(Expect::Ready).await);
            }
        }
        unreachable!()
    });
    let (_stop_tx, stop) = watch::channel(false);
    let mut config = config("beta", Some(1));
    config.retry_delay = Duration::from_millis(10);
    let games = run(&address, &spec, &config, stop).await.unwrap();
    let (moves, last) = server.await.unwrap();
    assert_eq!(last, ClientMessage::Quit);
    assert_eq!(games.len(), 1);
    assert!(games[0].won());
    // The second move was chosen on the replayed board: not the first one's point.
    assert_ne!(moves[0], moves[2]);
}

/// The random engine with `cgos-genmove_analyze`: an analysis line, then `play <move>`.
struct Analysing(BuiltinEngine);

const ANALYSIS: &str = r#"{"moves":[{"move":"pass","winrate":0.5}],"visits":1}"#;

impl Handler for Analysing {
    fn commands(&self) -> Vec<&'static str> {
        let mut commands = self.0.commands();
        commands.push("cgos-genmove_analyze");
        commands
    }

    fn handle(&mut self, name: &str, args: &[&str]) -> GtpAnswer {
        if name != "cgos-genmove_analyze" {
            return self.0.handle(name, args);
        }
        match self.0.handle("genmove", args) {
            GtpAnswer::Success(mv) => GtpAnswer::Success(format!("{ANALYSIS}\nplay {mv}")),
            other => other,
        }
    }
}

#[tokio::test]
async fn analysis_follows_the_move_when_both_sides_announce_it() {
    for offered in [true, false] {
        let mut engine = engine(Analysing(BuiltinEngine::random(5))).await;
        let (client, server) = tokio::io::duplex(1 << 16);
        let (_stop_tx, mut stop) = watch::channel(false);
        let server_side = async {
            let (r, w) = tokio::io::split(server);
            let mut fake = Fake::new(r, w);
            fake.send(&ServerMessage::Protocol {
                genmove_analyze: offered,
            })
            .await;
            let hello = fake.expect(Expect::Hello).await;
            fake.send(&ServerMessage::Username).await;
            fake.expect(Expect::Username).await;
            fake.send(&ServerMessage::Password).await;
            fake.expect(Expect::Password).await;
            fake.send(&ServerMessage::Setup(setup(9, &[]))).await;
            fake.send(&ServerMessage::Genmove {
                color: Color::Black,
                ms_left: 60_000,
            })
            .await;
            let answer = fake.expect(Expect::Move { analyze: offered }).await;
            fake.gameover("B+Resign", "Resignation").await;
            fake.expect(Expect::Ready).await;
            (hello, answer)
        };
        let (r, w) = tokio::io::split(client);
        let mut progress = Progress::default();
        let config = config("beta", Some(1));
        let (end, (hello, answer)) = tokio::join!(
            play_session(r, w, &mut engine, &config, &mut progress, &mut stop),
            server_side
        );
        assert_eq!(end.unwrap(), SessionEnd::Quit);
        let ClientMessage::Hello {
            genmove_analyze, ..
        } = hello
        else {
            panic!("{hello:?}")
        };
        assert_eq!(genmove_analyze, offered);
        let ClientMessage::Move {
            answer: Answer::Move(CgosMove::Play(_)),
            analysis,
        } = answer
        else {
            panic!("{answer:?}")
        };
        assert_eq!(analysis.as_deref(), offered.then_some(ANALYSIS));
    }
}

#[tokio::test]
async fn a_client_replaced_by_another_login_does_not_come_back() {
    let mut engine = engine(BuiltinEngine::random(1)).await;
    let (client, server) = tokio::io::duplex(4096);
    let (_stop_tx, mut stop) = watch::channel(false);
    let server_side = async {
        let (r, w) = tokio::io::split(server);
        let mut fake = Fake::new(r, w);
        fake.login().await;
        fake.send(&ServerMessage::Info(
            "another login is being attempted using this user name".into(),
        ))
        .await;
        // `fake` drops: the connection closes.
    };
    let (r, w) = tokio::io::split(client);
    let mut progress = Progress::default();
    let config = config("alpha", None);
    let (end, ()) = tokio::join!(
        play_session(r, w, &mut engine, &config, &mut progress, &mut stop),
        server_side
    );
    assert_eq!(end.unwrap(), SessionEnd::Replaced);
    // Any other news before a close is a plain disconnection.
    let (client, server) = tokio::io::duplex(4096);
    let server_side = async {
        let (r, w) = tokio::io::split(server);
        let mut fake = Fake::new(r, w);
        fake.login().await;
        fake.send(&ServerMessage::Info("server restarting".into()))
            .await;
    };
    let (r, w) = tokio::io::split(client);
    let (end, ()) = tokio::join!(
        play_session(r, w, &mut engine, &config, &mut progress, &mut stop),
        server_side
    );
    assert_eq!(end.unwrap(), SessionEnd::Disconnected);
}
