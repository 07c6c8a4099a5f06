//! Certificates: made by `certify`, verified by the literal checker.

use goref_rules::{Game, Move, Preset, Ruleset};
use goref_solve::certificate::{check, Certificate};
use goref_solve::{certify, Options, MAX_CERTIFICATE_LINES};

fn options() -> Options {
    Options {
        threads: 1,
        ..Options::default()
    }
}

fn certified(w: usize, h: usize, preset: Preset, moves: &[&str]) -> Certificate {
    let mut game = Game::rect(
        w,
        h,
        Ruleset::preset(preset).with_komi(goref_rules::Komi::ZERO),
    )
    .unwrap();
    for name in moves {
        let mv = if *name == "pass" {
            Move::Pass
        } else {
            Move::Play(game.geometry().parse_point(name).unwrap())
        };
        game.play(mv).unwrap();
    }
    certify(&game, preset, &options(), MAX_CERTIFICATE_LINES)
        .unwrap()
        .certificate
}

#[test]
fn sizes() {
    for (w, h) in [
        (1, 1),
        (1, 2),
        (1, 3),
        (1, 4),
        (1, 5),
        (1, 6),
        (2, 2),
        (2, 3),
        (3, 3),
    ] {
        for preset in [Preset::Nstt, Preset::TrompTaylor] {
            let t = std::time::Instant::now();
            let c = certified(w, h, preset, &[]);
            let made = t.elapsed();
            let text = c.to_lines().join("\n");
            let read = Certificate::parse(&text).unwrap();
            assert_eq!(read, c);
            let t = std::time::Instant::now();
            let checked = check(&read);
            eprintln!(
                "{w}x{h} {preset}: {} lines, made {made:?}, {} bytes, check {:?} in {:?}",
                c.lines.len(),
                text.len(),
                checked,
                t.elapsed()
            );
        }
    }
}
