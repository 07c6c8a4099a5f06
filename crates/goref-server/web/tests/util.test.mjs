// Unit tests of the page's helpers (no browser): the replay behind the review of a finished
// game, the fixed handicap points, the clock in words.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyLobbyDelta, applyMoved, blackScore, handicapPoints, pointName, replay, timeText } from "../src/util.js";

const B = (x, y) => ({ color: "B", point: [x, y] });
const W = (x, y) => ({ color: "W", point: [x, y] });
const pass = (color) => ({ color, point: null });

test("replay takes captures, then the mover's own string (Tromp-Taylor's suicide)", () => {
  // White's corner stone at a5 (0, 0) is taken by b5 and a4.
  const moves = [B(1, 0), W(0, 0), B(0, 1)];
  assert.deepEqual(replay(3, 3, 0, moves, 2)[0], [-1, 1, 0]);
  const after = replay(3, 3, 0, moves, 3);
  assert.deepEqual(after, [[0, 1, 0], [1, 0, 0], [0, 0, 0]]);
  // A suicide: White fills a5 again, with no liberty and no capture: it goes.
  assert.deepEqual(replay(3, 3, 0, [...moves, W(0, 0)], 4)[0], [0, 1, 0]);
  // Passes change nothing; count 0 is the empty board.
  assert.deepEqual(replay(3, 3, 0, [pass("B"), ...moves], 4), after);
  assert.deepEqual(replay(2, 2, 0, moves, 0), [[0, 0], [0, 0]]);
});

test("a capture that gives the capturing stone its liberty is not a suicide", () => {
  // Black's a3 (0, 0) has no liberty of its own but takes b3 and a2: it stays.
  const moves = [B(2, 0), W(1, 0), B(1, 1), W(0, 1), B(0, 2), pass("W"), B(0, 0)];
  assert.deepEqual(replay(3, 3, 0, moves, moves.length), [[1, 0, 1], [0, 1, 0], [1, 0, 0]]);
});

test("handicap stones on GTP's fixed points, as goref-referee places them", () => {
  const names = (n, k) => handicapPoints(n, n, k).map(([x, y]) => pointName(x, y, n)).sort().join(" ");
  const sorted = (s) => s.split(" ").sort().join(" ");
  assert.equal(names(9, 2), sorted("G7 C3"));
  assert.equal(names(7, 4), sorted("C5 E5 C3 E3"));
  assert.equal(names(9, 8), sorted("C7 E7 G7 C5 G5 C3 E3 G3"));
  assert.equal(names(13, 9), sorted("D10 G10 K10 D7 G7 K7 D4 G4 K4"));
  assert.equal(names(19, 6), sorted("D16 Q16 D10 Q10 D4 Q4"));
  assert.deepEqual(handicapPoints(5, 5, 2), []);
  assert.deepEqual(handicapPoints(9, 9, 0), []);
  const board = replay(9, 9, 2, [], 0);
  assert.equal(board[6][2] + board[2][6], 2);
});

test("clocks and results in words", () => {
  assert.equal(timeText({ kind: "none" }), "no clock");
  assert.equal(timeText({ kind: "fischer", main_s: 600, increment_s: 10, max_s: 1200 }), "10 min + 10 s Fischer (at most 20 min)");
  assert.equal(timeText({ kind: "byo_yomi", main_s: 300, period_s: 30, periods: 5 }), "5 min + 5×30 s byo-yomi");
  assert.equal(timeText({ kind: "canadian", main_s: 3600, period_s: 300, stones: 25 }), "1 h + 25 stones/5 min Canadian");
  assert.equal(timeText(undefined), "no clock");
  assert.equal(blackScore("B+R"), 1);
  assert.equal(blackScore("W+0.5"), 0);
  assert.equal(blackScore("0"), 0.5);
  assert.equal(blackScore("Void"), null);
  assert.equal(blackScore(null), null);
});

test("a lobby_delta changes only what it names, in the server's order", () => {
  const p = (name, waiting) => ({ name, program: true, rating: null, waiting });
  const c = (id) => ({ id, by: "x", program: true, color: "random", rated: true, game: {} });
  const lobby = { type: "lobby", online: [p("Bob", false), p("carol", false)], challenges: [c("b2")] };
  const after = applyLobbyDelta(lobby, {
    type: "lobby_delta",
    online: [p("alice", true), p("carol", true)],
    gone: ["bob"],
    challenges: [c("a1")],
    withdrawn: ["b2"],
  });
  assert.deepEqual(after.online, [p("alice", true), p("carol", true)]);
  assert.deepEqual(after.challenges.map((x) => x.id), ["a1"]);
  // Absent fields change nothing.
  assert.deepEqual(applyLobbyDelta(after, { type: "lobby_delta" }), after);
});

test("a move's change applies to the state it was made from, and to no other", () => {
  const state = {
    version: 4,
    phase: "play",
    need: { type: "move", color: "W", resumed: false, cleanup: false },
    to_move: "W",
    moves: [B(1, 0), W(0, 0)],
    board: [[-1, 1, 0], [0, 0, 0], [0, 0, 0]],
    territory: [[-1, 1, 0], [0, 0, 0], [0, 0, 0]],
    captures: { B: 0, W: 0 },
    ko: null,
    score: { B: 1, W: 1, komi: 0, result: "0" },
    clocks: { B: { main_ms: 1000, periods: 0 }, W: { main_ms: 1000, periods: 0 }, running: "B" },
    notes: [],
  };
  // Black takes the corner stone at (0, 0) with (0, 1).
  const moved = {
    type: "moved",
    from: 4,
    version: 5,
    need: { type: "move", color: "W", resumed: false, cleanup: false },
    to_move: "W",
    moves: [B(0, 1)],
    board: [[0, 0, 0], [0, 1, 1]],
    territory: [[0, 0, 1], [0, 1, 1], [2, 2, 1]],
    captures: { B: 1, W: 0 },
    ko: [0, 0],
    score: { B: 9, W: 0, komi: 0, result: "B+9" },
    clocks: { B: { main_ms: 900, periods: 0 }, W: { main_ms: 1000, periods: 0 }, running: "W" },
  };
  const after = applyMoved(state, moved);
  assert.deepEqual(after.board, [[0, 1, 0], [1, 0, 0], [0, 0, 0]]);
  assert.deepEqual(after.territory, [[1, 1, 0], [1, 0, 0], [0, 0, 1]]);
  assert.deepEqual(after.moves, [B(1, 0), W(0, 0), B(0, 1)]);
  assert.equal(after.version, 5);
  assert.deepEqual([after.ko, after.captures.B, after.clocks.running, after.phase], [[0, 0], 1, "W", "play"]);
  // The state it came from is unchanged; a state at another version takes nothing.
  assert.deepEqual(state.board[0], [-1, 1, 0]);
  assert.equal(applyMoved(after, moved), null);
  assert.equal(applyMoved(null, moved), null);
});
