// Small helpers of the page, kept apart so that they read plainly.

// The clock of one side, `used` milliseconds into its turn (as the server counts: main time
// first, then byo-yomi periods).
export function runningClock(time, clock, used) {
  if (!time || time.kind === "none") return clock;
  if (time.kind === "byo_yomi" && used > clock.main_ms) {
    const over = used - clock.main_ms;
    const period = time.period_s * 1000;
    const lost = Math.floor(over / period);
    const periods = Math.max(0, clock.periods - lost);
    return { main_ms: 0, periods, period_left_ms: periods > 0 ? period - (over % period) : 0 };
  }
  if (time.kind === "canadian" && clock.periods === 0 && used > clock.main_ms) {
    return { main_ms: Math.max(0, time.period_s * 1000 - (used - clock.main_ms)), periods: time.stones };
  }
  const main_ms = Math.max(0, clock.main_ms - used);
  if (time.kind === "byo_yomi" && main_ms === 0) {
    return { main_ms, periods: clock.periods, period_left_ms: time.period_s * 1000 };
  }
  return { main_ms, periods: clock.periods };
}

function mmss(ms) {
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

export function clockText(time, clock) {
  if (!time || time.kind === "none") return "";
  if (time.kind === "byo_yomi" && clock.main_ms === 0) {
    return `${mmss(clock.period_left_ms ?? time.period_s * 1000)} (${clock.periods}×${time.period_s}s)`;
  }
  if (time.kind === "byo_yomi") return `${mmss(clock.main_ms)} + ${clock.periods}×${time.period_s}s`;
  if (time.kind === "canadian") {
    return clock.periods === 0
      ? `${mmss(clock.main_ms)} + ${time.stones}/${mmss(time.period_s * 1000)}`
      : `${mmss(clock.main_ms)} (${clock.periods} stones)`;
  }
  return mmss(clock.main_ms);
}

// GTP-style name of a point: columns A-Z without I, rows counted from the bottom.
export function pointName(x, y, height) {
  const letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
  return `${letters[x]}${height - y}`;
}

// The score as it would be if the game ended now with the marked stones removed.
export function wouldBeText(state) {
  const s = state.score;
  const text = `Black ${s.B}, White ${s.W} + ${s.komi} komi`;
  if (state.phase === "over") {
    return state.ending === "resignation" || state.ending === "time" || state.ending === "long-cycle"
      ? `Result: ${state.result}`
      : `${text}: ${state.result}`;
  }
  return `If the game ended now: ${text}: ${s.result}`;
}

// A number of seconds as the forms give them: `10 min`, `30 s`, `1 h 30 min`.
export function durationText(s) {
  s = Number(s) || 0;
  if (s >= 3600 && s % 60 === 0) {
    const h = Math.floor(s / 3600);
    const m = (s % 3600) / 60;
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  if (s >= 60 && s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}

// A time control (goref-clock's JSON form) in words.
export function timeText(time) {
  if (!time || time.kind === "none") return "no clock";
  const main = durationText(time.main_s);
  switch (time.kind) {
    case "sudden_death":
      return `${main} sudden death`;
    case "fischer":
      return `${main} + ${durationText(time.increment_s)} Fischer` +
        (time.max_s != null ? ` (at most ${durationText(time.max_s)})` : "");
    case "byo_yomi":
      return `${main} + ${time.periods}×${durationText(time.period_s)} byo-yomi`;
    case "canadian":
      return `${main} + ${time.stones} stones/${durationText(time.period_s)} Canadian`;
    default:
      return String(time.kind);
  }
}

// Black's handicap stones on GTP's fixed points (as goref-referee's fixed_handicap places
// them): [x, y] with columns from the left and rows from the top; [] when there are none.
export function handicapPoints(width, height, stones) {
  if (!stones || stones < 2 || width !== height || width < 7) return [];
  const n = width;
  const max = n % 2 === 0 || n === 7 ? 4 : 9;
  if (stones > max) return [];
  const edge = n <= 12 ? 2 : 3;
  const [low, mid, high] = [edge, Math.floor(n / 2), n - 1 - edge];
  const corners = [[low, high], [high, low], [low, low], [high, high]];
  const [left, right, top, bottom, center] = [[low, mid], [high, mid], [mid, low], [mid, high], [mid, mid]];
  const points = corners.slice(0, Math.min(stones, 4));
  const more = { 5: [center], 6: [left, right], 7: [left, right, center], 8: [left, right, top, bottom], 9: [left, right, top, bottom, center] };
  return points.concat(more[stones] || []);
}

// The board (rows of 1 Black, -1 White, 0 empty) after the first `count` of `moves` (the
// game state's moves: {color: "B"|"W", point: [x, y] | null}), from the handicap stones.
// Captures are taken as every ruleset takes them: the opponent's strings without liberties
// first, then the mover's own (a suicide, legal only under Tromp-Taylor).
export function replay(width, height, handicap, moves, count) {
  const board = Array.from({ length: height }, () => new Array(width).fill(0));
  for (const [x, y] of handicapPoints(width, height, handicap)) board[y][x] = 1;
  const neighbours = (x, y) =>
    [[x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]].filter(([a, b]) => a >= 0 && b >= 0 && a < width && b < height);
  // The string through (x, y) and whether it has a liberty.
  const string = (x, y) => {
    const sign = board[y][x];
    const seen = new Set([y * width + x]);
    const stack = [[x, y]];
    let free = false;
    while (stack.length) {
      const [a, b] = stack.pop();
      for (const [c, d] of neighbours(a, b)) {
        if (board[d][c] === 0) free = true;
        else if (board[d][c] === sign && !seen.has(d * width + c)) {
          seen.add(d * width + c);
          stack.push([c, d]);
        }
      }
    }
    return { stones: [...seen].map((i) => [i % width, Math.floor(i / width)]), free };
  };
  const removeIfDead = (x, y) => {
    const s = string(x, y);
    if (!s.free) for (const [a, b] of s.stones) board[b][a] = 0;
  };
  for (const m of moves.slice(0, count)) {
    if (!m.point) continue;
    const [x, y] = m.point;
    const sign = m.color === "B" ? 1 : -1;
    board[y][x] = sign;
    for (const [a, b] of neighbours(x, y)) if (board[b][a] === -sign) removeIfDead(a, b);
    removeIfDead(x, y);
  }
  return board;
}

// What a result (SGF RE) scores for Black: 1, 0, ½, or null (no result yet, void).
export function blackScore(result) {
  if (!result) return null;
  const c = result[0].toUpperCase();
  return c === "B" ? 1 : c === "W" ? 0 : c === "0" || c === "D" ? 0.5 : null;
}

// The lobby after a `lobby_delta` from the server: players by name (lower case), challenges
// by id, in the order the server's whole `lobby` gives them.
export function applyLobbyDelta(lobby, delta) {
  const key = (name) => name.toLowerCase();
  const online = new Map((lobby ? lobby.online : []).map((p) => [key(p.name), p]));
  for (const p of delta.online || []) online.set(key(p.name), p);
  for (const name of delta.gone || []) online.delete(key(name));
  const challenges = new Map((lobby ? lobby.challenges : []).map((c) => [c.id, c]));
  for (const c of delta.challenges || []) challenges.set(c.id, c);
  for (const id of delta.withdrawn || []) challenges.delete(id);
  const byKey = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return {
    type: "lobby",
    online: [...online.entries()].sort(byKey).map((e) => e[1]),
    challenges: [...challenges.entries()].sort(byKey).map((e) => e[1]),
  };
}

// The state after a `moved` change (what moves of the play phase changed, sent by the game's
// WebSocket opened with `changes=1`), or null when `state` is not the one it changes (at
// another version): then the page asks for the whole state (`sync`). The same fields as the
// server's StateView::apply, and `state` itself unchanged.
export function applyMoved(state, m) {
  if (!state || state.version !== m.from) return null;
  const set = (grid, cells) => {
    const next = grid.map((row) => row.slice());
    for (const [x, y, v] of cells) if (next[y] && x < next[y].length) next[y][x] = v;
    return next;
  };
  return {
    ...state,
    version: m.version,
    need: m.need,
    to_move: m.to_move,
    moves: [...state.moves, ...m.moves],
    board: set(state.board, m.board),
    territory: set(state.territory, m.territory),
    captures: m.captures,
    ko: m.ko,
    score: m.score,
    clocks: m.clocks,
  };
}
