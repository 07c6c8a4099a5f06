// A game (/g/ID): the board, clocks, moves and the record, live over the game's WebSocket.
// A player's page is seated by the seat link (#seat=SECRET) or by the session token (the
// account's seat, if it plays this game); everyone else watches. A finished game can be
// reviewed move by move.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { BoundedGoban } from "@sabaki/shudan";
import { applyMoved, clockText, durationText, replay, runningClock, wouldBeText } from "./util.js";
import { api, checkSession, getSession, useSession } from "./session.js";
import { PlayerName } from "./parts.jsx";

function useNow(active) {
  const [now, setNow] = useState(performance.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(performance.now()), 200);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

// The tournament director's actions on a game in progress (001 §1, 3.10.2, 3.10.3): decide
// its result, grant a player time, pass in place of the player to move, abort it (no result,
// Void). Each is stored in the game's record with its reason.
function DirectorPanel({ id, timed, onError }) {
  async function act(evt, action) {
    evt.preventDefault();
    const f = new FormData(evt.currentTarget);
    const body = { action, reason: String(f.get("reason") || "").trim() };
    if (action === "result") body.result = String(f.get("result")).trim();
    if (action === "time") Object.assign(body, { color: f.get("color"), seconds: Number(f.get("seconds")) });
    try {
      await api(`/api/games/${id}/td`, { method: "POST", auth: true, body });
      onError("");
    } catch (e) {
      onError(e.message);
    }
  }
  const reason = () => <input name="reason" placeholder="reason (kept in the record)" maxLength={500} required />;
  return (
    <details class="director" data-testid="td-panel">
      <summary>Tournament director</summary>
      <form onSubmit={(e) => act(e, "result")} data-testid="td-decide">
        <input name="result" placeholder="B+R, W+T, B+F, W+3.5, 0" size={10} required />
        {reason()}
        <button type="submit">Decide</button>
      </form>
      {timed && (
        <form onSubmit={(e) => act(e, "time")} data-testid="td-time">
          <select name="color"><option value="B">Black</option><option value="W">White</option></select>
          <input name="seconds" type="number" min="1" defaultValue="60" style="width:5em" /> s
          {reason()}
          <button type="submit">Grant time</button>
        </form>
      )}
      <form onSubmit={(e) => act(e, "pass")} data-testid="td-pass">
        {reason()}
        <button type="submit">Pass for the player to move</button>
      </form>
      <form onSubmit={(e) => act(e, "abort")} data-testid="td-abort">
        {reason()}
        <button type="submit">Abort: no result (Void)</button>
      </form>
    </details>
  );
}

export function Game({ id }) {
  const session = useSession();
  const secret = useMemo(() => new URLSearchParams(location.hash.slice(1)).get("seat"), []);
  const [state, setState] = useState(null);
  const [seat, setSeat] = useState(null);
  const [message, setMessage] = useState("");
  const [connected, setConnected] = useState(false);
  const [deadList, setDeadList] = useState([]);
  const [presence, setPresence] = useState(null);
  const ws = useRef(null);
  const received = useRef(0);
  const latest = useRef(null);

  // Why the game cannot be shown (an unknown game, a wrong seat link): no more retries.
  const [fatal, setFatal] = useState(null);
  const [reviewAt, setReviewAt] = useState(null);

  useEffect(() => {
    let stopped = false;
    let retry = 500;
    let timer = null;
    // A browser is not told why a WebSocket was refused: when it closes before the hello, the
    // game's state over HTTP says whether the game exists; if it does, a seat link was wrong
    // (403) or the session ended (401).
    async function diagnose() {
      try {
        const r = await fetch(`/api/games/${id}`);
        if (r.status === 404) {
          return { fatal: { code: "not_found", text: "There is no game with this id: check the link." } };
        }
        if (!r.ok) return {};
        if (secret) {
          return { fatal: { code: "wrong_secret", text: "This seat link is not valid for this game: ask for the right link, or watch." } };
        }
        if (getSession()) {
          await checkSession();
          if (!getSession()) return { message: "Your session has ended: log in again to play. You are watching meanwhile." };
        }
      } catch {
        // The server is unreachable: try again.
      }
      return {};
    }
    function connect() {
      const proto = location.protocol === "https:" ? "wss" : "ws";
      const token = secret ? null : getSession()?.token;
      const q = secret
        ? `?secret=${encodeURIComponent(secret)}`
        : token
          ? `?token=${encodeURIComponent(token)}`
          : "";
      const sock = new WebSocket(`${proto}://${location.host}/api/games/${id}/ws${q}${q ? "&" : "?"}changes=1`);
      let hello = false;
      ws.current = sock;
      sock.onopen = () => {
        setConnected(true);
        retry = 500;
      };
      sock.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.type === "hello") {
          hello = true;
          setSeat(m.seat);
        } else if (m.type === "state") {
          if (latest.current && m.version < latest.current.version) return;
          received.current = performance.now();
          latest.current = m;
          setState(m);
          if (m.phase !== "dead_lists") setDeadList([]);
        } else if (m.type === "moved") {
          // What a move changed; a change of a state this page has not: the whole, please.
          if (latest.current && m.version <= latest.current.version) return;
          const next = applyMoved(latest.current, m);
          if (!next) {
            sock.send(JSON.stringify({ type: "sync" }));
            return;
          }
          received.current = performance.now();
          latest.current = next;
          setState(next);
        } else if (m.type === "presence") setPresence(m);
        else if (m.type === "error") setMessage(m.message);
        else if (m.type === "ack") setMessage("");
      };
      sock.onclose = async () => {
        setConnected(false);
        if (stopped) return;
        if (!hello) {
          const found = await diagnose();
          if (stopped) return;
          if (found.fatal) {
            setFatal(found.fatal);
            return;
          }
          if (found.message) setMessage(found.message);
        }
        timer = setTimeout(connect, retry);
        retry = Math.min(retry * 2, 8000);
      };
    }
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      ws.current && ws.current.close();
    };
    // Logging in or out on this page connects again, seated by the new session.
  }, [id, secret, session && session.token]);

  // The arrow keys step through a finished game.
  const moveCount = state ? state.moves.length : 0;
  const over = state && state.phase === "over";
  useEffect(() => {
    if (!over) return;
    const onKey = (e) => {
      if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT")) return;
      const at = (n) => setReviewAt(n >= moveCount ? null : Math.max(0, n));
      if (e.key === "ArrowLeft") setReviewAt((r) => Math.max(0, (r ?? moveCount) - 1));
      else if (e.key === "ArrowRight") setReviewAt((r) => (r == null || r + 1 >= moveCount ? null : r + 1));
      else if (e.key === "Home") at(0);
      else if (e.key === "End") at(moveCount);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [over, moveCount]);

  const running = state && state.clocks.running;
  const now = useNow(Boolean(running));

  if (fatal) {
    return (
      <main class="game" data-error={fatal.code}>
        <p class="error" role="alert" data-testid="fatal">{fatal.text}</p>
        {fatal.code === "wrong_secret" ? (
          <p>
            <a data-testid="watch-link" href={`/g/${id}`}>Watch this game</a>
          </p>
        ) : (
          <p><a href="/">The list of games</a></p>
        )}
      </main>
    );
  }
  if (!state) {
    return (
      <main class="game">
        <p>{connected ? "Loading…" : "Connecting…"}</p>
      </main>
    );
  }

  function send(msg) {
    const s = latest.current;
    if (!ws.current || ws.current.readyState !== 1 || !s) {
      setMessage("not connected: reconnecting…");
      return;
    }
    const think_ms = Math.max(0, Math.round(performance.now() - received.current));
    ws.current.send(JSON.stringify({ ...msg, version: s.version, think_ms }));
  }

  const { width, height } = state.config;
  const isMember = (list, [x, y]) => list.some(([a, b]) => a === x && b === y);
  const myTurn =
    seat &&
    (((state.phase === "play" || state.phase === "play_out") && state.to_move === seat) ||
      (state.phase === "marking" && state.to_act === seat));

  const moves = state.moves;
  const reviewing = state.phase === "over" && reviewAt != null && reviewAt < moves.length;

  function onVertexClick(_evt, [x, y]) {
    if (state.phase === "over") return;
    if (!seat) {
      setMessage("You are watching: only the players can play.");
      return;
    }
    if (state.phase === "play" || state.phase === "play_out") send({ type: "play", x, y });
    else if (state.phase === "marking") {
      if (isMember(state.marked, [x, y])) send({ type: "dispute", x, y });
      else send({ type: "mark", x, y });
    } else if (state.phase === "dead_lists") {
      if (state.board[y][x] === 0) return;
      setDeadList((l) => (isMember(l, [x, y]) ? l.filter(([a, b]) => a !== x || b !== y) : [...l, [x, y]]));
    }
  }

  // Reference 000, Japanese: the dispute is played out on a copy of the board, shown as the
  // board to play on; the game's own board is shown beside it, unchanged.
  const copy = state.phase === "play_out" ? state.copy : null;
  const signMap = reviewing
    ? replay(width, height, state.config.handicap || 0, moves, reviewAt)
    : copy
      ? copy.board
      : state.board;
  const markerMap = signMap.map((row) => row.map(() => null));
  const lastMoves = reviewing ? moves.slice(0, reviewAt) : copy && copy.moves.length ? copy.moves : moves;
  const last = lastMoves.length ? lastMoves[lastMoves.length - 1] : null;
  if (last && last.point) markerMap[last.point[1]][last.point[0]] = { type: "point" };
  if (state.ko && !reviewing) markerMap[state.ko[1]][state.ko[0]] = { type: "square" };
  const dimmed = reviewing
    ? []
    : state.phase === "marking"
      ? state.marked
      : state.phase === "over"
        ? state.dead
        : deadList;
  const shownAt = reviewing ? reviewAt : moves.length;
  const step = (n) => setReviewAt(n >= moves.length ? null : Math.max(0, n));
  const elapsed = running ? now - received.current : 0;
  const clocks = ["B", "W"].map((side) =>
    runningClock(state.config.time, state.clocks[side], running === side ? elapsed : 0),
  );
  const names = { B: state.config.black, W: state.config.white };
  const accounts = Boolean(state.config.players);
  const time = state.config.time;
  const who = (side) => {
    const colour = side === "B" ? "Black" : "White";
    return names[side] === colour ? colour : `${names[side]} (${colour})`;
  };
  const phaseText = {
    play: `${who(state.to_move)} to play`,
    marking: `Marking dead stones: ${who(state.to_act)} to mark, dispute or say done`,
    play_out: `The dispute is played out on a copy of the board: ${who(state.to_move)} to play`,
    dead_lists: "Both players: click the dead stones, then send the list",
    adjudication: "The referee decides the disputed stones",
    over: `Game over: ${state.result} (${state.ending})`,
  }[state.phase];

  return (
    <main
      class="game"
      data-phase={state.phase}
      data-version={state.version}
      data-seat={seat || ""}
      data-need={state.need ? state.need.type : ""}
      data-need-color={state.need && state.need.color ? state.need.color : ""}
      data-shown={shownAt}
    >
      <header>
        <span class="rules">
          {width}×{height} · {state.config.rules} · komi {state.config.komi}
          {state.config.handicap ? ` · handicap ${state.config.handicap}` : ""} · {state.config.end}
          {state.config.third_party && state.config.third_party.type === "perfect_play" ? ` (third party: perfect play, ${state.config.third_party.nodes} nodes)` : ""} · {state.time_text}
          {time && time.kind === "fischer" && time.max_s != null ? ` (at most ${durationText(time.max_s)})` : ""}
          {state.config.rated ? " · rated" : ""}
        </span>
        <span class={connected ? "conn ok" : "conn"}>{connected ? "live" : "reconnecting…"}</span>
        {presence && presence.spectators > 0 && (
          <span class="spectators">{presence.spectators} watching</span>
        )}
      </header>
      <div class="layout">
        <div class="board" data-testid="board">
          <BoundedGoban
            maxWidth={Math.min(640, window.innerWidth - 20)}
            maxHeight={Math.min(640, window.innerHeight - 160)}
            signMap={signMap}
            markerMap={markerMap}
            dimmedVertices={dimmed}
            paintMap={!reviewing && (state.phase === "marking" || state.phase === "over") ? state.territory : undefined}
            showCoordinates={true}
            fuzzyStonePlacement={false}
            animateStonePlacement={false}
            busy={reviewing || (!myTurn && state.phase !== "dead_lists")}
            onVertexClick={onVertexClick}
          />
        </div>
        {copy && (
          <div class="board original" data-testid="original-board">
            <p>The game's board (the copy above decides the disputed stones)</p>
            <BoundedGoban
              maxWidth={Math.min(240, window.innerWidth - 20)}
              maxHeight={240}
              signMap={state.board}
              showCoordinates={false}
              busy={true}
            />
          </div>
        )}
        <aside>
          {["B", "W"].map((side, i) => (
            <div class={`player ${side} ${running === side ? "running" : ""}`} data-testid={`player-${side}`}>
              <span class="stone" />
              {presence && (
                <span
                  class={presence[side] > 0 ? "online" : "offline"}
                  title={presence[side] > 0 ? "connected" : "not connected"}
                />
              )}
              <span class="name">{accounts ? <PlayerName name={names[side]} /> : names[side]}</span>
              {seat === side && <span class="you">you</span>}
              <span class="captures">captures {state.captures[side]}</span>
              <span class="clock" data-testid={`clock-${side}`}>{clockText(state.config.time, clocks[i])}</span>
            </div>
          ))}
          {seat && (
            <p class="seat" data-testid="seat">
              You play {seat === "B" ? "Black" : "White"}
              {accounts && getSession() ? ` (as ${getSession().account.name})` : ""}.
            </p>
          )}
          <p class="status" data-testid="status">{phaseText}</p>
          {(state.phase === "marking" || state.phase === "over") && (
            <p class="score" data-testid="score">{wouldBeText(state)}</p>
          )}
          {message && (
            <p class="error" role="alert" data-testid="message">{message}</p>
          )}
          {seat ? (
            <div class="actions">
              {(state.phase === "play" || state.phase === "play_out") && (
                <button data-testid="pass" disabled={!myTurn} onClick={() => send({ type: "pass" })}>Pass</button>
              )}
              {state.phase === "marking" && (
                <button data-testid="done" disabled={!myTurn} onClick={() => send({ type: "done" })}>Done</button>
              )}
              {state.phase === "dead_lists" && !state.lists_given[seat] && (
                <button data-testid="send-list" onClick={() => send({ type: "dead_list", points: deadList })}>
                  Send dead stones ({deadList.length})
                </button>
              )}
              {state.phase !== "over" && (
                <button
                  data-testid="resign"
                  class="resign"
                  onClick={() => confirm("Resign this game?") && send({ type: "resign" })}
                >
                  Resign
                </button>
              )}
            </div>
          ) : (
            <p class="watching">You are watching this game.</p>
          )}
          {session && session.account.td && state.phase !== "over" && (
            <DirectorPanel id={id} timed={Boolean(time && time.kind !== "none")} onError={setMessage} />
          )}
          {state.phase === "marking" && (
            <p class="help">
              Click a stone to mark its string dead (with the same-coloured strings around the same
              empty regions); click a marked stone to dispute: the marks go and play resumes. Two
              dones in a row end the game.
            </p>
          )}
          {state.phase === "over" && (
            <div class="review" data-testid="review">
              <button data-testid="review-first" disabled={shownAt === 0} onClick={() => step(0)} title="first (Home)">|◀</button>
              <button data-testid="review-prev" disabled={shownAt === 0} onClick={() => step(shownAt - 1)} title="previous (←)">◀</button>
              <span data-testid="review-at">
                {shownAt === moves.length ? `end (move ${moves.length})` : shownAt === 0 ? "start" : `move ${shownAt}: ${moves[shownAt - 1].color} ${moves[shownAt - 1].name}`}
              </span>
              <button data-testid="review-next" disabled={shownAt === moves.length} onClick={() => step(shownAt + 1)} title="next (→)">▶</button>
              <button data-testid="review-last" disabled={shownAt === moves.length} onClick={() => step(moves.length)} title="last (End)">▶|</button>
            </div>
          )}
          <p>
            <a data-testid="sgf" href={`/api/games/${id}/sgf`}>
              {state.phase === "over" ? "Download SGF" : "SGF so far"}
            </a>
          </p>
          <AnalysisGraph id={id} moves={moves.length} />
          <h3>Moves</h3>
          <ol class={state.phase === "over" ? "moves reviewable" : "moves"} data-testid="moves">
            {moves.map((m, i) => (
              <li
                key={i}
                class={`${m.color}${reviewing && i === reviewAt - 1 ? " current" : ""}`}
                onClick={state.phase === "over" ? () => step(i + 1) : undefined}
              >
                {m.name}
              </li>
            ))}
          </ol>
          {state.notes.length > 0 && (
            <>
              <h3>Record</h3>
              <ul class="notes" data-testid="notes">
                {state.notes.map((n, i) => (
                  <li key={i}>
                    after move {n.after}: {n.text}
                  </li>
                ))}
              </ul>
            </>
          )}
        </aside>
      </div>
    </main>
  );
}


// The programs' own view of the game, from what they sent with their moves
// (genmove_analyze): Black's win rate move by move (top: Black wins), and Black's lead in
// points when they gave it. Read again as moves come; nothing when no move carries any.
function AnalysisGraph({ id, moves }) {
  const [points, setPoints] = useState([]);
  useEffect(() => {
    let live = true;
    api(`/api/games/${id}/analysis`).then(
      (a) => live && setPoints(a.points),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [id, moves]);
  const rated = points.filter((p) => p.winrate != null);
  const scored = points.filter((p) => p.score != null);
  if (rated.length === 0 && scored.length === 0) return null;
  const [w, h] = [280, 90];
  const last = Math.max(moves, ...points.map((p) => p.number), 1);
  const x = (n) => ((n / last) * w).toFixed(1);
  const maxLead = Math.max(1, ...scored.map((p) => Math.abs(p.score)));
  const line = (ps, y) => ps.map((p) => `${x(p.number)},${y(p).toFixed(1)}`).join(" ");
  const end = points[points.length - 1];
  return (
    <>
      <h3>The programs' view</h3>
      <svg class="analysis" width={w} height={h} viewBox={`0 0 ${w} ${h}`} data-testid="analysis" role="img"
        aria-label="Black's win rate and lead, move by move, as the programs saw them">
        <rect x="0" y="0" width={w} height={h} fill="#fbf7ee" stroke="#b9a57f" />
        <line x1="0" y1={h / 2} x2={w} y2={h / 2} stroke="#b9a57f" stroke-dasharray="3 3" />
        {scored.length > 0 && (
          <polyline data-testid="analysis-score" fill="none" stroke="#c08a2e" stroke-width="1.5"
            points={line(scored, (p) => h / 2 - (p.score / maxLead) * (h / 2 - 2))} />
        )}
        {rated.length > 0 && (
          <polyline data-testid="analysis-winrate" fill="none" stroke="#1d1d1d" stroke-width="2"
            points={line(rated, (p) => (1 - p.winrate) * h)} />
        )}
      </svg>
      <p class="help" data-testid="analysis-last">
        after move {end.number}
        {end.winrate != null && `: Black ${Math.round(end.winrate * 100)}%`}
        {end.score != null && `, Black ${end.score >= 0 ? "+" : ""}${end.score.toFixed(1)} points`}
        {" "}(black line: win rate; brown: lead, ±{maxLead.toFixed(1)} at the edges)
      </p>
    </>
  );
}
