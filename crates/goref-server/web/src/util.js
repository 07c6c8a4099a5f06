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
