// The lobby (/lobby): who is here, open challenges (accept one, cancel one's own), a form to
// open one, waiting to be paired. One WebSocket, /api/lobby/ws?token=…; when a game of ours
// starts, the page goes to it (seated by the session token).
import { useEffect, useRef, useState } from "preact/hooks";
import { GameFields, readGame, rulesName } from "./settings.jsx";
import { PlayerName } from "./parts.jsx";
import { checkSession, getSession } from "./session.js";
import { LoginForm } from "./login.jsx";
import { applyLobbyDelta, timeText } from "./util.js";

export function Lobby({ session }) {
  if (!session) {
    return (
      <main>
        <h2>Lobby</h2>
        <p>Log in (or create an account) to challenge others and accept their challenges.</p>
        <LoginForm />
      </main>
    );
  }
  return <LobbyRoom session={session} />;
}

function settingsText(g) {
  const width = g.width ?? 19;
  const height = g.height ?? width;
  const parts = [`${width}×${height}`, rulesName(g.rules ?? "tromp-taylor")];
  parts.push(g.komi != null ? `komi ${g.komi}` : "usual komi");
  if (g.handicap) parts.push(`handicap ${g.handicap}`);
  parts.push(`end: ${g.end ?? "tromp"}`);
  parts.push(timeText(g.time));
  return parts.join(" · ");
}

const colourText = { black: "plays Black", white: "plays White", random: "colour at random" };

function LobbyRoom({ session }) {
  const [lobby, setLobby] = useState(null);
  const [connected, setConnected] = useState(false);
  const [current, setCurrent] = useState([]);
  const [message, setMessage] = useState("");
  const [notes, setNotes] = useState([]);
  const ws = useRef(null);
  const me = session.account.name;

  useEffect(() => {
    let stopped = false;
    let retry = 500;
    let timer = null;
    // A game of ours has started: both the `game` message and the accept's ack say so; the
    // page goes there once.
    const go = (id) => {
      if (stopped) return;
      stopped = true;
      location.assign(`/g/${id}`);
    };
    function connect() {
      const proto = location.protocol === "https:" ? "wss" : "ws";
      const token = getSession()?.token;
      if (!token) return;
      const sock = new WebSocket(`${proto}://${location.host}/api/lobby/ws?token=${encodeURIComponent(token)}`);
      ws.current = sock;
      // The games still on are told before the first lobby; a game after it has just started.
      let seenLobby = false;
      let hello = false;
      sock.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.type === "hello") {
          hello = true;
          retry = 500;
          setConnected(true);
          setCurrent([]);
        } else if (m.type === "lobby") {
          seenLobby = true;
          setLobby(m);
        } else if (m.type === "lobby_delta") {
          setLobby((l) => applyLobbyDelta(l, m));
        } else if (m.type === "game") {
          if (seenLobby) go(m.id);
          else setCurrent((c) => [...c.filter((g) => g.id !== m.id), m]);
        } else if (m.type === "game_over") {
          setNotes((n) => [`${m.black} – ${m.white}: ${m.result}`, ...n].slice(0, 5));
        } else if (m.type === "ack") {
          setMessage("");
          if (m.game) go(m.game);
        } else if (m.type === "error") setMessage(m.message);
      };
      sock.onclose = async () => {
        setConnected(false);
        if (stopped) return;
        // Refused before the hello: the session may have ended.
        if (!hello) await checkSession();
        if (!getSession()) return;
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
  }, [session.token]);

  function send(msg) {
    if (!ws.current || ws.current.readyState !== 1) {
      setMessage("not connected: reconnecting…");
      return;
    }
    ws.current.send(JSON.stringify(msg));
  }

  function challenge(evt) {
    evt.preventDefault();
    const f = new FormData(evt.target);
    send({ type: "challenge", game: readGame(evt.target), color: f.get("color"), rated: f.get("rated") === "on" });
  }

  const online = lobby ? lobby.online : [];
  const challenges = lobby ? lobby.challenges : [];
  const waiting = online.some((p) => p.name === me && p.waiting);
  return (
    <main class="lobby" data-connected={connected ? "yes" : "no"}>
      <h2>
        Lobby <span class={connected ? "conn ok" : "conn"}>{connected ? "live" : "connecting…"}</span>
      </h2>
      {message && <p class="error" role="alert" data-testid="lobby-message">{message}</p>}
      {current.length > 0 && (
        <p class="current" data-testid="current-games">
          Your games in progress:{" "}
          {current.map((g) => (
            <a href={`/g/${g.id}`}>{`against ${g.opponent} (you play ${g.color === "B" ? "Black" : "White"})`} </a>
          ))}
        </p>
      )}
      {notes.length > 0 && (
        <ul class="notes" data-testid="lobby-notes">
          {notes.map((n) => <li>Game over: {n}</li>)}
        </ul>
      )}
      <div class="columns">
        <section>
          <h3>Here now</h3>
          <ul class="online" data-testid="online">
            {online.map((p) => (
              <li key={p.name}>
                <PlayerName name={p.name} program={p.program} />
                <span class="rating">{p.rating == null ? "unrated" : p.rating}</span>
                {p.waiting && <span class="badge waiting">waiting</span>}
              </li>
            ))}
          </ul>
          <label class="toggle">
            <input type="checkbox" data-testid="wait" checked={waiting} onChange={(e) => send({ type: "wait", on: e.currentTarget.checked })} />
            Wait to be paired (the server pairs waiting players at intervals)
          </label>
        </section>
        <section>
          <h3>Open challenges</h3>
          {challenges.length === 0 ? (
            <p>None: open one below.</p>
          ) : (
            <table class="list" data-testid="challenges">
              <thead>
                <tr><th>By</th><th>Game</th><th>Colour</th><th></th></tr>
              </thead>
              <tbody>
                {challenges.map((c) => (
                  <tr key={c.id} data-testid={`challenge-${c.by}`}>
                    <td><PlayerName name={c.by} program={c.program} /></td>
                    <td>{settingsText(c.game || {})}{c.rated ? " · rated" : " · unrated"}</td>
                    <td>{colourText[c.color] || c.color}</td>
                    <td>
                      {c.by.toLowerCase() === me.toLowerCase() ? (
                        <button data-testid="cancel" onClick={() => send({ type: "cancel", challenge: c.id })}>Cancel</button>
                      ) : (
                        <button data-testid="accept" onClick={() => send({ type: "accept", challenge: c.id })}>Accept</button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
      <section>
        <h3>Open a challenge</h3>
        <form class="create" onSubmit={challenge} data-testid="challenge-form">
          <GameFields />
          <label>
            You play
            <select name="color">
              <option value="random">Either colour</option>
              <option value="black">Black</option>
              <option value="white">White</option>
            </select>
          </label>
          <label class="inline"><input type="checkbox" name="rated" defaultChecked /> Rated</label>
          <button type="submit">Challenge</button>
        </form>
        <p class="help">A challenge stays open while you are in the lobby.</p>
      </section>
    </main>
  );
}
