//! Hard life-and-death positions built for goref (shared by `tests/hard_positions.rs` and
//! `benches/judge.rs`). Each is a diagram (`X` Black, `O` White, `.` empty, top row first)
//! whose problem sits inside a wall of the other colour made pass-alive by one-point eyes, and
//! the verdicts 3.9 gives the blocks named by (column, row from the top).

/// A position and the verdict names (`pass-alive`, `dead`, `alive`) expected for some blocks,
/// under the Olympiad rules and, where the ko rule changes them, under positional superko, and
/// where suicide changes them, under tromp-taylor.
pub struct Hard {
    pub name: &'static str,
    pub diagram: &'static str,
    #[allow(dead_code)] // read by the tests, not the benchmark
    pub expected: &'static [((usize, usize), &'static str)],
    /// The verdicts that differ under positional superko (`nstt`), if any.
    #[allow(dead_code)]
    pub superko: &'static [((usize, usize), &'static str)],
    /// The verdicts that differ under `tromp-taylor` (positional superko, suicide legal) from
    /// those under `nstt`, if any.
    #[allow(dead_code)]
    pub suicide: &'static [((usize, usize), &'static str)],
}

pub const HARD: &[Hard] = &[
    // Two eyeless groups sharing two liberties (e1, e2): either colour moving alone captures
    // the other and lives, so neither has at most one eye (footnote 4: seki stays).
    Hard {
        name: "classic seki",
        diagram: "
            . X X O . X O O .
            X X X O . X O . O
            . X X O X O O O O
            X X X X X O . O .
            . X . X X O O O O
            X X X X X O . O .",
        superko: &[],
        suicide: &[],
        expected: &[((3, 0), "alive"), ((5, 0), "alive"), ((1, 0), "pass-alive")],
    },
    // Seki with six shared liberties: White's ring has no eye and no outside liberty; its
    // six liberties are exactly those of Black's two stones inside. Whoever fills them puts
    // itself in atari first, so Black cannot capture White (not locally capturable), and
    // White cannot make two eyes moving alone (capturing Black leaves a two-point eye);
    // Black's two stones, moving alone, fill the six points and capture the ring. Both stay.
    Hard {
        name: "seki with six shared liberties",
        diagram: "
            X X X X X X X . X
            X O O O O O X X X
            X O O . O O X . X
            X O . X . O X X X
            X O . X . O X . X
            X O O . O O X X X
            X O O O O O X . X
            . X X X X X X X X",
        superko: &[],
        suicide: &[],
        expected: &[((1, 1), "alive"), ((3, 3), "alive"), ((0, 0), "pass-alive")],
    },
    // Bent four in the corner (footnote 4): White moving alone lives (b1 leaves a1-a2 and c1),
    // so it stays.
    Hard {
        name: "bent four in the corner",
        diagram: "
            . . . O X .
            . O O O X X
            O O X X . X
            X X X X X X
            . X . X . X
            X X X X X X",
        superko: &[],
        suicide: &[],
        expected: &[((3, 0), "alive"), ((4, 0), "pass-alive")],
    },
    // Moonshine life (footnote 4): two ko-shaped eyes White can never both keep: removed.
    Hard {
        name: "moonshine life",
        diagram: "
            O . O X . X
            . O X X X X
            O X X . X .
            X X X X X X
            . X . X . X
            X X X X X X",
        superko: &[],
        suicide: &[],
        expected: &[
            ((0, 0), "dead"),
            ((2, 0), "dead"),
            ((1, 1), "dead"),
            ((0, 2), "dead"),
        ],
    },
    // Bulky five, empty: White moving alone fills b1, a2, a3 and keeps a1 and b2 as eyes.
    Hard {
        name: "bulky five",
        diagram: "
            . . O X . X
            . . O X X X
            . O O X . X
            O O X X X X
            X X X X X X
            . X . X . X
            X X X X X X",
        superko: &[],
        suicide: &[],
        expected: &[((2, 0), "alive")],
    },
    // Bulky five with Black on the vital point a6: White moving alone captures it and keeps
    // b7 and a6 (not adjacent) as eyes, so 3.9 keeps White (Black would kill it in play).
    // White has no outside liberty, so Black's stone, moving alone, fills White's liberties
    // and captures it: Black's stone does not have at most one eye either. Both stay.
    Hard {
        name: "bulky five with the vital point taken",
        diagram: "
            . . O X . X
            X . O X X X
            . O O X . X
            O O X X X X
            X X X X X X
            . X . X . X
            X X X X X X",
        superko: &[],
        suicide: &[],
        expected: &[((2, 0), "alive"), ((0, 1), "alive")],
    },
    // Flower five (a plus-shaped eye space): White's play in the centre makes four eyes.
    Hard {
        name: "flower five",
        diagram: "
            O O . O O X . X
            O . . . O X X X
            O O . O O X . X
            X O O O X X X X
            X X X X X X . X
            . X . X . X X X",
        superko: &[],
        suicide: &[],
        expected: &[((0, 0), "alive")],
    },
    // Straight three with Black in the middle: White's only way to capture it fills both
    // ends, leaving one eye, and Black captures White in alternate moving: White is dead.
    // Black's stone, moving alone, fills the two ends and captures White, so it stays.
    Hard {
        name: "straight three nakade",
        diagram: "
            . X . O X . X
            O O O O X X X
            X X X X X . X
            . X . X X X X",
        superko: &[],
        suicide: &[],
        expected: &[((3, 0), "dead"), ((1, 0), "alive")],
    },
    // The carpenter's square: White's corner wall around a 3x4 corner, with Black's wall
    // outside. White moving alone makes two eyes in the corner: it stays.
    Hard {
        name: "carpenter's square",
        diagram: "
            . . . . O X . X
            . . . . O X X X
            . . . . O X . X
            O O O O . X X X
            X X X X X X . X
            . X . X . X X X",
        superko: &[],
        suicide: &[],
        expected: &[((4, 0), "alive"), ((0, 3), "alive")],
    },
    // A seki that hangs on a ko: White's eyeless group has one liberty, e3, shared with
    // Black's stone at e4, and can take Black's stone at d1 (c1) for a second. Black's retake
    // at d1 is a ko recapture. Under the Olympiad's basic ko the ban survives passes (3.5,
    // footnote 2), and under positional superko, once White has also taken e4, Black's next
    // retake would repeat a position; so Black never wins the ko and White stays (footnote 4:
    // seki is not removed). Under simple ko Black would win it (`tests/properties.rs`).
    Hard {
        name: "seki that hangs on a ko",
        diagram: "
            . X O O X
            X X X O .
            . X X O O
            X X . X O",
        superko: &[],
        // Under tromp-taylor Black's e3 after White's c1 and two passes is a self-capture
        // that takes its own e4 too (000 rule 7): a position never seen, so after Black's e3
        // again and White's e4, Black's retake at d1 repeats nothing and e3 then captures
        // White's group. 3.9.2 removes it (`tests/hard_positions.rs` replays the line).
        suicide: &[((2, 0), "dead")],
        expected: &[((2, 0), "alive"), ((4, 0), "alive"), ((1, 0), "pass-alive")],
    },
    // A long cycle: Black's play at e3 takes three White stones (d1, e1, e2) and White takes
    // the one back at e2, and the exchange can bring back a position. Under the long cycle
    // rule (3.6) the play that repeats ends the local moving with White's c4 group on the
    // board, so it is not locally capturable and stays; under positional superko that play
    // is illegal and Black captures it, so 3.9.2 removes it.
    Hard {
        name: "long cycle (three taken, one back)",
        diagram: "
            . X O . O
            X X O O .
            . X X X O
            X X . O .",
        superko: &[((2, 0), "dead"), ((4, 0), "dead")],
        suicide: &[],
        expected: &[((2, 0), "alive"), ((4, 0), "alive"), ((3, 3), "dead")],
    },
    // A ten-thousand-year ko: Black's group (a2) and White's inner group (b2) share two
    // liberties, e1 and d2, and White's a1 stone hangs on the ko point b1. Whoever starts the
    // ko gives the other colour the first take (`tests/hard_positions.rs`), so with no ko
    // threats neither starts and it is a seki. Each colour moving alone captures the other
    // and lives (Black takes a1 and fills; White fills e1 and d2), so no block has at most one
    // eye, and all stay, as a seki does (footnote 4).
    Hard {
        name: "ten-thousand-year ko",
        diagram: "
            O . O O . X O
            X O O . X X O
            X X X X X X O
            O O O O O O O
            . O . O . O .",
        superko: &[],
        suicide: &[],
        expected: &[
            ((0, 0), "alive"),
            ((1, 1), "alive"),
            ((0, 1), "alive"),
            ((6, 0), "pass-alive"),
        ],
    },
    // A double ko: White's group has two ko-shaped eyes, d4 and d2, each next to a single
    // White stone Black can take. White moving alone cannot make either eye real (at most one
    // eye), and Black captures the group under local alternate moving under each ko rule
    // (`tests/properties.rs`), so 3.9.2 removes it, as it removes moonshine life.
    Hard {
        name: "double ko",
        diagram: "
            . X O . O
            X X X O O
            . X O . O
            X X X O O",
        superko: &[],
        suicide: &[],
        expected: &[((4, 0), "dead"), ((2, 0), "dead"), ((2, 2), "dead")],
    },
    // Two eyes that self-capture kills: Black's group has a one-point eye at d3 and a corner
    // eye whose empty points b3 and a2 both touch it, around White's a3 stone, and White's f3
    // stone sits beside a second empty point. With suicide illegal both regions are vital
    // (every empty point touches Black) and Black is pass-alive; both White stones are dead.
    // With suicide legal (000 rule 7) White alone plays b3, then a2 takes its own three
    // corner stones off, White refills b3 and a2 around the empty a3 (which touches no Black
    // stone), plays d3 and captures Black at f3: Black is not pass-alive (Benson's form for
    // suicide legal: a vital region has every point next to the block) though it can still
    // become so, and White's e3 stone, never lifted in that line, can become pass-alive:
    // 3.9.2 keeps it under tromp-taylor.
    Hard {
        name: "two eyes that self-capture kills",
        diagram: "
            O . X . O .
            . X X X X X
            X X X X X X",
        superko: &[],
        suicide: &[((2, 0), "alive"), ((4, 0), "alive")],
        expected: &[((0, 0), "dead"), ((2, 0), "pass-alive"), ((4, 0), "dead")],
    },
    // The same corner with nothing else: White alone kills Black only by lifting a3 itself,
    // and a block that leaves the board does not become pass-alive (the block stays in every
    // line of one-sided moving goref considers). So a3 is dead under every preset, and only
    // Black's status changes: pass-alive with suicide illegal, "can become pass-alive" under
    // tromp-taylor (it plays b3 and a2, taking a3, and has two one-point eyes).
    Hard {
        name: "a corner stone that kills only by its own self-capture",
        diagram: "
            O . X . X
            . X X X X
            X X X X X",
        superko: &[],
        suicide: &[((2, 0), "alive")],
        expected: &[((0, 0), "dead"), ((2, 0), "pass-alive")],
    },
    // Eye space rebuilt by self-capture: White's c2-c1 has one liberty (d1) beside Black's
    // d2-e2, and Black's d4 stone sits in the top right. With suicide illegal White can take
    // d4 and d2-e2 only by filling the top right and d1-e1 with stones it can never lift, and
    // leaves one eye: dead, and Black captures it at d1. With suicide legal White fills the
    // top right, takes d4, lifts its own top-right stones by self-capture, refills them
    // around one empty point, takes d2-e2 at e1 and joins at d2: two one-point eyes. 3.9.2
    // keeps it under tromp-taylor.
    Hard {
        name: "eye space rebuilt by self-capture",
        diagram: "
            . X . X .
            X X X . .
            . X O X X
            X X O . .",
        superko: &[],
        suicide: &[((2, 2), "alive")],
        expected: &[
            ((2, 2), "dead"),
            ((3, 0), "alive"),
            ((3, 2), "alive"),
            ((1, 0), "pass-alive"),
        ],
    },
];
