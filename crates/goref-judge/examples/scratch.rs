use goref_judge::{Budget, Context, Judge};
use goref_rules::{Color, Game, Preset, Ruleset};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = std::fs::read_to_string(&args[0]).unwrap();
    let rec = goref_sgf::parse(&text).unwrap();
    let board = rec.start_board().unwrap();
    let game = Game::from_position(board, Color::Black, Ruleset::OLYMPIAD);
    let judge = Judge::of_game(
        &game,
        Budget {
            capture_nodes: std::env::var("CAP")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(200_000),
            ..Budget::default()
        },
    );
    let g = game.geometry();
    let p = g.parse_point(&args[1]).unwrap();
    let region = judge.region(p);
    let b = game.board();
    println!("   A B C D E F G H J K L M N O P Q R S T");
    for y in 0..19 {
        let mut s = String::new();
        for x in 0..19 {
            let q = g.at(x, y).unwrap();
            let c = match b.get(q) {
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None => '.',
            };
            let c = if region.contains(q) {
                c
            } else if c == '.' {
                ' '
            } else {
                c.to_ascii_lowercase()
            };
            s.push(c);
            s.push(' ');
        }
        println!("{:2} {}", 19 - y, s);
    }
    println!("region {} exact {}", region.points.len(), region.exact);
    let t = std::time::Instant::now();
    let n0 = goref_judge::nodes_visited();
    let v = judge.judge_block(p);
    println!(
        "{:?} {} nodes {:?}",
        v.verdict.name(),
        goref_judge::nodes_visited() - n0,
        t.elapsed()
    );
    if let goref_judge::Verdict::Undecided { reason } = &v.verdict {
        println!("{reason}");
    }
    let _ = Context::fresh(Ruleset::OLYMPIAD);
    let _ = Preset::Olympiad;
}
#[allow(dead_code)]
fn unused() {}
