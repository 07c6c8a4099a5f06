// The page of `goref serve`: the list of games and the form to create one (at /), and a game
// (at /g/ID, with #seat=SECRET for a player). Every text from the server is shown as text
// (Preact escapes it); nothing is inserted as HTML.
import { render } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { BoundedGoban } from "@sabaki/shudan";
import "@sabaki/shudan/css/goban.css";
import "./style.css";
import { clockText, runningClock, wouldBeText } from "./util.js";

function Home() {
  const [games, setGames] = useState(null);
  const [created, setCreated] = useState(null);
  const [error, setError] = useState("");
  useEffect(() => {
    fetch("/api/games")
      .then((r) => r.json())
      .then((j) => setGames(j.games))
      .catch(() => setGames([]));
  }, [created]);

  async function create(evt) {
    evt.preventDefault();
    const f = new FormData(evt.target);
    const num = (k) => Number(f.get(k));
    const kind = f.get("time");
    const time =
      kind === "none"
        ? { kind: "none" }
        : kind === "sudden_death"
          ? { kind, main_s: Math.round(num("main_min") * 60) }
          : kind === "fischer"
            ? { kind, main_s: Math.round(num("main_min") * 60), increment_s: num("increment_s") }
            : kind === "canadian"
              ? {
                  kind,
                  main_s: Math.round(num("main_min") * 60),
                  period_s: num("period_s"),
                  stones: num("periods"),
                }
              : {
                kind,
                main_s: Math.round(num("main_min") * 60),
                period_s: num("period_s"),
                periods: num("periods"),
              };
    const body = {
      width: num("width"),
      height: num("height"),
      rules: f.get("rules"),
      komi: num("komi"),
      end: f.get("end"),
      handicap: num("handicap"),
      black: f.get("black"),
      white: f.get("white"),
      time,
    };
    setError("");
    const r = await fetch("/api/games", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const j = await r.json();
    if (!r.ok) setError(j.message || "refused");
    else setCreated(j);
  }

  const origin = location.origin;
  return (
    <main class="home">
      <h1>goref</h1>
      <p class="lead">A referee for the game of Go: every move checked by the server.</p>
      <section>
        <h2>New game</h2>
        <form class="create" onSubmit={create} data-testid="create-form">
          <label>Black <input name="black" maxLength={40} placeholder="Black" /></label>
          <label>White <input name="white" maxLength={40} placeholder="White" /></label>
          <label>Width <input name="width" type="number" min="2" max="25" value="9" /></label>
          <label>Height <input name="height" type="number" min="2" max="25" value="9" /></label>
          <label>
            Rules
            <select name="rules">
              <option value="tromp-taylor">Tromp-Taylor</option>
              <option value="nstt">No-suicide Tromp-Taylor</option>
              <option value="olympiad">Computer Olympiad</option>
            </select>
          </label>
          <label>Komi <input name="komi" type="number" step="0.5" value="7.5" /></label>
          <label>
            End of game
            <select name="end">
              <option value="tromp">Mark, dispute, done (Tromp)</option>
              <option value="all-alive">All stones alive</option>
              <option value="chinese">Dead lists, else play on (Chinese)</option>
              <option value="kgs">Dead lists, else capture them (KGS)</option>
              <option value="japanese">Dead lists, else play it out on a copy (Japanese)</option>
              <option value="olympiad">Dead lists, play on up to 3 times, then the referee (Olympiad)</option>
              <option value="referee">Dead lists, else the referee decides</option>
            </select>
          </label>
          <label>Handicap <input name="handicap" type="number" min="0" max="9" value="0" /></label>
          <label>
            Clock
            <select name="time">
              <option value="fischer">Fischer</option>
              <option value="sudden_death">Sudden death</option>
              <option value="byo_yomi">Byo-yomi</option>
              <option value="canadian">Canadian</option>
              <option value="none">None</option>
            </select>
          </label>
          <label>Main (min) <input name="main_min" type="number" min="0" step="0.5" value="10" /></label>
          <label>Increment (s) <input name="increment_s" type="number" min="0" value="10" /></label>
          <label>Periods / stones <input name="periods" type="number" min="1" value="5" /></label>
          <label>Period (s) <input name="period_s" type="number" min="1" value="30" /></label>
          <button type="submit">Create</button>
        </form>
        {error && <p class="error">{error}</p>}
        {created && (
          <div class="links" data-testid="links">
            <p>Send each player their own link; keep the others secret.</p>
            <p>
              Black: <a data-testid="black-link" href={created.black.link}>{origin + created.black.link}</a>
            </p>
            <p>
              White: <a data-testid="white-link" href={created.white.link}>{origin + created.white.link}</a>
            </p>
            <p>
              Spectators: <a data-testid="spectator-link" href={created.spectator}>{origin + created.spectator}</a>
            </p>
          </div>
        )}
      </section>
      <section>
        <h2>Games</h2>
        {games === null ? (
          <p>Loading…</p>
        ) : games.length === 0 ? (
          <p>No games yet.</p>
        ) : (
          <table class="games">
            <thead>
              <tr>
                <th>Black</th><th>White</th><th>Board</th><th>Rules</th><th>End</th><th>Moves</th><th>Result</th><th></th>
              </tr>
            </thead>
            <tbody>
              {games.map((g) => (
                <tr key={g.id}>
                  <td>{g.black}</td>
                  <td>{g.white}</td>
                  <td>{g.width}×{g.height}</td>
                  <td>{g.rules}</td>
                  <td>{g.end}</td>
                  <td>{g.moves}</td>
                  <td>{g.result || "playing"}</td>
                  <td>
                    <a href={`/g/${g.id}`}>view</a>
                    {g.result && (
                      <>
                        {" · "}
                        <a href={`/api/games/${g.id}/sgf`}>SGF</a>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </main>
  );
}

function useNow(active) {
  const [now, setNow] = useState(performance.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(performance.now()), 200);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

function Game({ id }) {
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

  useEffect(() => {
    let stopped = false;
    let retry = 500;
    function connect() {
      const proto = location.protocol === "https:" ? "wss" : "ws";
      const q = secret ? `?secret=${encodeURIComponent(secret)}` : "";
      const sock = new WebSocket(`${proto}://${location.host}/api/games/${id}/ws${q}`);
      ws.current = sock;
      sock.onopen = () => {
        setConnected(true);
        retry = 500;
      };
      sock.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.type === "hello") setSeat(m.seat);
        else if (m.type === "state") {
          if (latest.current && m.version < latest.current.version) return;
          received.current = performance.now();
          latest.current = m;
          setState(m);
          if (m.phase !== "dead_lists") setDeadList([]);
        } else if (m.type === "presence") setPresence(m);
        else if (m.type === "error") setMessage(m.message);
        else if (m.type === "ack") setMessage("");
      };
      sock.onclose = () => {
        setConnected(false);
        if (!stopped) {
          setTimeout(connect, retry);
          retry = Math.min(retry * 2, 8000);
        }
      };
    }
    connect();
    return () => {
      stopped = true;
      ws.current && ws.current.close();
    };
  }, [id, secret]);

  const running = state && state.clocks.running;
  const now = useNow(Boolean(running));

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

  function onVertexClick(_evt, [x, y]) {
    if (!seat) {
      setMessage("You are watching: only the players' links can play.");
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
  const signMap = copy ? copy.board : state.board;
  const markerMap = signMap.map((row) => row.map(() => null));
  const lastMoves = copy && copy.moves.length ? copy.moves : state.moves;
  const last = lastMoves.length ? lastMoves[lastMoves.length - 1] : null;
  if (last && last.point) markerMap[last.point[1]][last.point[0]] = { type: "point" };
  if (state.ko) markerMap[state.ko[1]][state.ko[0]] = { type: "square" };
  const dimmed =
    state.phase === "marking" ? state.marked : state.phase === "over" ? state.dead : deadList;
  const elapsed = running ? now - received.current : 0;
  const clocks = ["B", "W"].map((side) =>
    runningClock(state.config.time, state.clocks[side], running === side ? elapsed : 0),
  );
  const names = { B: state.config.black, W: state.config.white };
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
    <main class="game" data-phase={state.phase} data-version={state.version}>
      <header>
        <a href="/">goref</a>
        <span class="rules">
          {width}×{height} · {state.config.rules} · komi {state.config.komi}
          {state.config.handicap ? ` · handicap ${state.config.handicap}` : ""} · {state.config.end} · {state.time_text}
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
            maxHeight={Math.min(640, window.innerHeight - 120)}
            signMap={signMap}
            markerMap={markerMap}
            dimmedVertices={dimmed}
            paintMap={state.phase === "marking" || state.phase === "over" ? state.territory : undefined}
            showCoordinates={true}
            fuzzyStonePlacement={false}
            animateStonePlacement={false}
            busy={!myTurn && state.phase !== "dead_lists"}
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
              <span class="name">{names[side]}</span>
              {seat === side && <span class="you">you</span>}
              <span class="captures">captures {state.captures[side]}</span>
              <span class="clock" data-testid={`clock-${side}`}>{clockText(state.config.time, clocks[i])}</span>
            </div>
          ))}
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
          {state.phase === "marking" && (
            <p class="help">
              Click a stone to mark its string dead (with the same-coloured strings around the same
              empty regions); click a marked stone to dispute: the marks go and play resumes. Two
              dones in a row end the game.
            </p>
          )}
          {state.phase === "over" && (
            <p>
              <a data-testid="sgf" href={`/api/games/${id}/sgf`}>Download SGF</a>
            </p>
          )}
          <h3>Moves</h3>
          <ol class="moves" data-testid="moves">
            {state.moves.map((m, i) => (
              <li key={i} class={m.color}>{m.name}</li>
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

const match = location.pathname.match(/^\/g\/([0-9a-zA-Z]+)$/);
render(match ? <Game id={match[1]} /> : <Home />, document.getElementById("app"));
