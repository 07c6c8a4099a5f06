//! A literal implementation of the rules of Go, written to be read beside the texts and used
//! only to check the fast implementation in `goref-rules`.
//!
//! Every step is the sentence it implements: a point *reaches* a colour (TT rule 3), *clearing*
//! a colour empties the points of that colour that do not reach empty (TT rule 4), a move
//! colours a point and clears the opponent, then itself (TT rule 7), a turn may not repeat an
//! earlier grid colouring (TT rule 6), a player's score is her points plus the empty points that
//! reach only her (TT rule 9). The Olympiad's rules are 3.5 (suicide, basic ko) and 3.6 (long
//! cycle), read the same way. Nothing here is incremental or clever: positions are whole
//! colourings, compared whole.

use goref_rules::{Color, KoRule, Ruleset};

/// A grid colouring (TT rule 2): for each point, black, white or empty.
pub type Colouring = Vec<Option<Color>>;

/// The board as a graph: for each point, the points adjacent to it.
#[derive(Clone, Debug)]
pub struct Graph {
    adjacent: Vec<Vec<usize>>,
}

impl Graph {
    /// A `width` × `height` grid, points numbered row by row from the top left.
    #[must_use]
    pub fn grid(width: usize, height: usize) -> Graph {
        let mut edges = Vec::new();
        for y in 0..height {
            for x in 0..width {
                if x + 1 < width {
                    edges.push((y * width + x, y * width + x + 1));
                }
                if y + 1 < height {
                    edges.push((y * width + x, (y + 1) * width + x));
                }
            }
        }
        Graph::from_edges(width * height, &edges)
    }

    /// Any graph, from its edges.
    #[must_use]
    pub fn from_edges(points: usize, edges: &[(usize, usize)]) -> Graph {
        let mut adjacent = vec![Vec::new(); points];
        for &(a, b) in edges {
            adjacent[a].push(b);
            adjacent[b].push(a);
        }
        Graph { adjacent }
    }

    /// Number of points.
    #[must_use]
    pub fn len(&self) -> usize {
        self.adjacent.len()
    }

    /// Whether there are no points.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.adjacent.is_empty()
    }

    /// TT rule 3: point `p`, not coloured `c`, reaches `c` if there is a path of adjacent
    /// points of `p`'s colour from `p` to a point of colour `c`.
    #[must_use]
    pub fn reaches(&self, grid: &Colouring, p: usize, c: Option<Color>) -> bool {
        let own = grid[p];
        let mut visited = vec![false; grid.len()];
        let mut path_ends = vec![p];
        visited[p] = true;
        while let Some(q) = path_ends.pop() {
            for &r in &self.adjacent[q] {
                if grid[r] == c {
                    return true;
                }
                if grid[r] == own && !visited[r] {
                    visited[r] = true;
                    path_ends.push(r);
                }
            }
        }
        false
    }

    /// TT rule 4: clearing a colour empties all points of that colour that don't reach empty.
    /// Returns the cleared points.
    pub fn clear(&self, grid: &mut Colouring, c: Color) -> Vec<usize> {
        let doomed: Vec<usize> = (0..grid.len())
            .filter(|&p| grid[p] == Some(c) && !self.reaches(grid, p, None))
            .collect();
        for &p in &doomed {
            grid[p] = None;
        }
        doomed
    }

    /// TT rule 9: a player's score is the number of points of her colour, plus the number of
    /// empty points that reach only her colour. Indexed Black, White.
    #[must_use]
    pub fn score(&self, grid: &Colouring) -> [u32; 2] {
        let mut score = [0; 2];
        for (p, &colour) in grid.iter().enumerate() {
            for c in Color::ALL {
                let counts = match colour {
                    Some(owner) => owner == c,
                    None => {
                        self.reaches(grid, p, Some(c)) && !self.reaches(grid, p, Some(c.opponent()))
                    }
                };
                if counts {
                    score[c.index()] += 1;
                }
            }
        }
        score
    }
}

/// Why the literal rules refuse a move (mirrors `goref_rules::Illegal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiteralIllegal {
    /// The game is over.
    GameOver,
    /// The point holds a stone.
    Occupied,
    /// The play would remove its own string.
    Suicide,
    /// Basic ko: an immediate recapture of a single stone.
    Ko,
    /// Superko: the play would recreate an earlier position.
    Superko {
        /// The turn after which that position arose (0: the start).
        repeats_after_turns: usize,
    },
}

/// How the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Two consecutive passes.
    TwoPasses,
    /// A play recreated an earlier position under the long cycle rule.
    LongCycle {
        /// The turn after which that position first arose.
        first_after_turns: usize,
        /// Stones captured by Black and by White since then.
        captures: [u32; 2],
    },
}

/// A position that has occurred: its colouring, who was to move, and the captures so far.
#[derive(Clone, Debug)]
struct Occurred {
    grid: Colouring,
    to_move: Color,
    after_turns: usize,
    captures: [u32; 2],
}

/// A play as Olympiad 3.5 remembers it: where it was and what it captured.
#[derive(Clone, Debug)]
struct PlayMade {
    point: usize,
    captured: Vec<usize>,
    turn: usize,
}

/// A game played by the literal rules.
#[derive(Clone, Debug)]
pub struct LiteralGame {
    graph: Graph,
    rules: Ruleset,
    grid: Colouring,
    to_move: Color,
    turns: usize,
    consecutive_passes: u32,
    last_play: Option<PlayMade>,
    occurred: Vec<Occurred>,
    captures: [u32; 2],
    ending: Option<Ending>,
}

impl LiteralGame {
    /// TT rule 5: starting with an empty grid, the players alternate turns, starting with Black.
    #[must_use]
    pub fn new(graph: Graph, rules: Ruleset) -> LiteralGame {
        let grid = vec![None; graph.len()];
        LiteralGame::from_position(graph, rules, grid, Color::Black)
    }

    /// A game from a set-up colouring.
    #[must_use]
    pub fn from_position(
        graph: Graph,
        rules: Ruleset,
        grid: Colouring,
        to_move: Color,
    ) -> LiteralGame {
        let start = Occurred {
            grid: grid.clone(),
            to_move,
            after_turns: 0,
            captures: [0; 2],
        };
        LiteralGame {
            graph,
            rules,
            grid,
            to_move,
            turns: 0,
            consecutive_passes: 0,
            last_play: None,
            occurred: vec![start],
            captures: [0; 2],
            ending: None,
        }
    }

    /// The grid colouring now.
    #[must_use]
    pub fn grid(&self) -> &Colouring {
        &self.grid
    }

    /// The player whose turn it is.
    #[must_use]
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// How the game ended, if it has.
    #[must_use]
    pub fn ending(&self) -> Option<Ending> {
        self.ending
    }

    /// Area scores, Black then White (TT rule 9).
    #[must_use]
    pub fn score(&self) -> [u32; 2] {
        self.graph.score(&self.grid)
    }

    /// A pass: always allowed while the game goes on; two in a row end it (TT rule 8).
    pub fn pass(&mut self) -> Result<(), LiteralIllegal> {
        if self.ending.is_some() {
            return Err(LiteralIllegal::GameOver);
        }
        self.turns += 1;
        self.to_move = self.to_move.opponent();
        self.consecutive_passes += 1;
        if self.rules.ko == KoRule::SituationalSuperko {
            self.remember();
        }
        if self.consecutive_passes == 2 {
            self.ending = Some(Ending::TwoPasses);
        }
        Ok(())
    }

    /// A play on point `p` by the player to move.
    pub fn play(&mut self, p: usize) -> Result<(), LiteralIllegal> {
        if self.ending.is_some() {
            return Err(LiteralIllegal::GameOver);
        }
        if self.grid[p].is_some() {
            return Err(LiteralIllegal::Occupied);
        }
        let me = self.to_move;
        // TT rule 7: colour the point, clear the opponent colour, then clear one's own.
        let mut grid = self.grid.clone();
        grid[p] = Some(me);
        let captured = self.graph.clear(&mut grid, me.opponent());
        let suicided = self.graph.clear(&mut grid, me);
        // Olympiad 3.5: a play that captures nothing and leaves its own block without a liberty.
        if !self.rules.suicide_allowed && !suicided.is_empty() {
            return Err(LiteralIllegal::Suicide);
        }
        if self.is_ko_recapture(&captured) {
            return Err(LiteralIllegal::Ko);
        }
        let repeated = self.earlier_occurrence(&grid, me.opponent());
        if let Some(earlier) = repeated {
            if self.rules.ko != KoRule::LongCycle {
                return Err(LiteralIllegal::Superko {
                    repeats_after_turns: earlier.after_turns,
                });
            }
        }
        let earlier = repeated.cloned();
        self.grid = grid;
        self.turns += 1;
        self.to_move = me.opponent();
        self.consecutive_passes = 0;
        self.captures[me.index()] += captured.len() as u32;
        self.captures[me.opponent().index()] += suicided.len() as u32;
        self.last_play = Some(PlayMade {
            point: p,
            captured,
            turn: self.turns,
        });
        self.remember();
        if let Some(first) = earlier {
            // Olympiad 3.6: the game ends, judged by the captures between the occurrences.
            self.ending = Some(Ending::LongCycle {
                first_after_turns: first.after_turns,
                captures: [
                    self.captures[0] - first.captures[0],
                    self.captures[1] - first.captures[1],
                ],
            });
        }
        Ok(())
    }

    /// Olympiad 3.5: "A play may not capture a single stone if this stone was played to capture
    /// a single stone in the last preceding play." Under simple ko the last play must also be
    /// the last turn (a pass lifts the ban); under the Olympiad rule passes do not (footnote 2).
    fn is_ko_recapture(&self, captured: &[usize]) -> bool {
        let Some(last) = &self.last_play else {
            return false;
        };
        let applies = match self.rules.ko {
            KoRule::Simple => last.turn == self.turns,
            KoRule::LongCycle => true,
            _ => false,
        };
        applies && last.captured.len() == 1 && captured == [last.point]
    }

    /// The earlier occurrence of `grid` that the ko rule in force forbids or acts on.
    fn earlier_occurrence(&self, grid: &Colouring, next_to_move: Color) -> Option<&Occurred> {
        match self.rules.ko {
            KoRule::Simple => None,
            KoRule::PositionalSuperko | KoRule::LongCycle => {
                self.occurred.iter().find(|o| &o.grid == grid)
            }
            KoRule::SituationalSuperko => self
                .occurred
                .iter()
                .find(|o| &o.grid == grid && o.to_move == next_to_move),
        }
    }

    fn remember(&mut self) {
        self.occurred.push(Occurred {
            grid: self.grid.clone(),
            to_move: self.to_move,
            after_turns: self.turns,
            captures: self.captures,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows: &[&str]) -> Colouring {
        rows.iter()
            .flat_map(|r| r.chars())
            .map(|c| match c {
                'X' => Some(Color::Black),
                'O' => Some(Color::White),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn reach_follows_paths_of_the_points_own_colour() {
        // TT rule 3: the black pair reaches white through itself; the lone empty point in the
        // corner reaches black only.
        let g = Graph::grid(3, 2);
        let colouring = grid(&[".XO", "XX."]);
        assert!(g.reaches(&colouring, 3, Some(Color::White)));
        assert!(g.reaches(&colouring, 0, Some(Color::Black)));
        assert!(!g.reaches(&colouring, 0, Some(Color::White)));
    }

    #[test]
    fn clearing_removes_only_points_that_do_not_reach_empty() {
        // TT rule 4: white at the corner is surrounded; black reaches empty.
        let g = Graph::grid(2, 2);
        let mut colouring = grid(&["OX", "X."]);
        assert_eq!(g.clear(&mut colouring, Color::White), vec![0]);
        assert_eq!(g.clear(&mut colouring, Color::Black), Vec::<usize>::new());
    }
}
