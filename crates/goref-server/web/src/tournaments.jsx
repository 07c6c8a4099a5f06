// Tournaments on the server: the list (/tournaments, with the TD's form to create one) and a
// tournament's page (/t/ID): standings and crosstable, games by round (each opens as a
// spectator), join and start. The page asks again every 2 s while the tournament runs.
import { useState } from "preact/hooks";
import { GameFields, readGame } from "./settings.jsx";
import { Loaded, PlayerName, useJSON } from "./parts.jsx";
import { api } from "./session.js";
import { blackScore } from "./util.js";

const FORMATS = [
  ["swiss", "Swiss"],
  ["round-robin", "Round-robin"],
  ["gauntlet", "Gauntlet"],
  ["knockout", "Knockout"],
];

function Unavailable({ status, error }) {
  return status === 404 || status === 405 ? (
    <p class="error" data-testid="load-error">This server has no tournaments yet.</p>
  ) : (
    <p class="error" data-testid="load-error">{error}</p>
  );
}

export function Tournaments({ session }) {
  const { data, error, status, reload } = useJSON("/api/tournaments", 5000);
  const [message, setMessage] = useState("");
  async function create(evt) {
    evt.preventDefault();
    const f = new FormData(evt.target);
    setMessage("");
    try {
      const t = await api("/api/tournaments", {
        method: "POST",
        auth: true,
        body: { name: String(f.get("name")).trim(), format: f.get("format"), rounds: Number(f.get("rounds")), game: readGame(evt.target) },
      });
      if (t && t.id) location.assign(`/t/${t.id}`);
      else reload();
    } catch (e) {
      setMessage(e.message);
    }
  }
  return (
    <main>
      <h2>Tournaments</h2>
      {error ? (
        <Unavailable status={status} error={error} />
      ) : (
        <Loaded data={data}>
          {({ tournaments }) =>
            tournaments.length === 0 ? (
              <p>No tournaments yet.</p>
            ) : (
              <table class="list" data-testid="tournaments">
                <thead>
                  <tr><th>Name</th><th>Format</th><th>State</th><th>Players</th><th>Round</th></tr>
                </thead>
                <tbody>
                  {tournaments.map((t) => (
                    <tr key={t.id}>
                      <td><a href={`/t/${t.id}`}>{t.name}</a></td>
                      <td>{t.format}</td>
                      <td>{t.state}</td>
                      <td class="num">{Array.isArray(t.players) ? t.players.length : t.players}</td>
                      <td class="num">{t.round || ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Loaded>
      )}
      {session && session.account.td && (
        <section>
          <h3>New tournament</h3>
          <p class="help">You are the tournament director. Players join while it is open; you start it.</p>
          <form class="create" onSubmit={create} data-testid="tournament-form">
            <label>Name <input name="name" required maxLength={80} defaultValue="" /></label>
            <label>
              Format
              <select name="format">
                {FORMATS.map(([v, t]) => <option value={v}>{t}</option>)}
              </select>
            </label>
            <label>Rounds <input name="rounds" type="number" min="1" defaultValue="3" /></label>
            <GameFields clock="sudden_death" />
            <button type="submit">Create</button>
          </form>
          {message && <p class="error" role="alert">{message}</p>}
        </section>
      )}
    </main>
  );
}

// What a game scored for `name`: "1", "0", "½", "…" (being played) or "" (void).
function scoreFor(game, name) {
  const b = blackScore(game.result);
  if (!game.result) return "…";
  if (b == null) return "–";
  const s = game.black === name ? b : 1 - b;
  return s === 1 ? "1" : s === 0 ? "0" : "½";
}

function Crosstable({ t }) {
  const names = t.standings && t.standings.length ? t.standings.map((s) => s.name) : t.players || [];
  const games = t.games || [];
  return (
    <table class="list cross" data-testid="crosstable">
      <thead>
        <tr>
          <th>#</th><th>Player</th>
          {names.map((_, j) => <th class="num">{j + 1}</th>)}
        </tr>
      </thead>
      <tbody>
        {names.map((a, i) => (
          <tr key={a}>
            <td class="num">{i + 1}</td>
            <td><PlayerName name={a} /></td>
            {names.map((b, j) => (
              <td class={i === j ? "num self" : "num"}>
                {i !== j &&
                  games
                    .filter((g) => (g.black === a && g.white === b) || (g.black === b && g.white === a))
                    .map((g) => (
                      <a href={`/g/${g.id}`} title={`round ${g.round}: ${g.black} (B) – ${g.white} (W) ${g.result || "playing"}`}>
                        {scoreFor(g, a)}
                      </a>
                    ))}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Standings({ standings }) {
  const keys = [...new Set(standings.flatMap((s) => Object.keys(s.tiebreaks || {})))];
  return (
    <table class="list" data-testid="standings">
      <thead>
        <tr>
          <th>#</th><th>Player</th><th>Points</th><th>Games</th><th>W</th><th>L</th><th>D</th>
          {keys.map((k) => <th>{k.toUpperCase()}</th>)}
        </tr>
      </thead>
      <tbody>
        {standings.map((s) => (
          <tr key={s.name}>
            <td class="num">{s.rank}</td>
            <td><PlayerName name={s.name} /></td>
            <td class="num">{s.points}</td>
            <td class="num">{s.games}</td>
            <td class="num">{s.wins}</td>
            <td class="num">{s.losses}</td>
            <td class="num">{s.draws}</td>
            {keys.map((k) => <td class="num">{s.tiebreaks && s.tiebreaks[k] != null ? String(s.tiebreaks[k]) : ""}</td>)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Rounds({ games }) {
  const rounds = [...new Set(games.map((g) => g.round))].sort((a, b) => a - b);
  return rounds.map((r) => (
    <div class="round" data-testid={`round-${r}`}>
      <h4>Round {r}</h4>
      <ul>
        {games
          .filter((g) => g.round === r)
          .map((g) => (
            <li>
              <PlayerName name={g.black} /> (Black) – <PlayerName name={g.white} /> (White):{" "}
              <a href={`/g/${g.id}`}>{g.result ? `${g.result}, review` : "playing, watch"}</a>
            </li>
          ))}
      </ul>
    </div>
  ));
}

export function Tournament({ id, session }) {
  const [every, setEvery] = useState(5000);
  const { data, error, status, reload } = useJSON(`/api/tournaments/${encodeURIComponent(id)}`, every);
  const [message, setMessage] = useState("");
  const want = data ? (data.state === "running" ? 2000 : data.state === "open" ? 5000 : 0) : 5000;
  if (want !== every) setEvery(want);

  async function post(action) {
    setMessage("");
    try {
      await api(`/api/tournaments/${encodeURIComponent(id)}/${action}`, { method: "POST", auth: true, body: {} });
    } catch (e) {
      setMessage(e.message);
    }
    reload();
  }

  if (error && !data) {
    return (
      <main>
        {status === 404 ? <p class="error" data-testid="load-error">No tournament has this id.</p> : <Unavailable status={status} error={error} />}
      </main>
    );
  }
  return (
    <main class="tournament" data-state={data ? data.state : ""}>
      <Loaded data={data}>
        {(t) => {
          const me = session && session.account.name;
          const joined = me && (t.players || []).some((p) => p.toLowerCase() === me.toLowerCase());
          const isTd = session && (session.account.td || (t.td && t.td.toLowerCase() === me.toLowerCase()));
          const g = (t.game && t.game.settings) || t.game || {};
          return (
            <>
              <h2 data-testid="tournament-name">{t.name}</h2>
              <p data-testid="tournament-info">
                {t.format} · {t.state === "open" ? "open: players may join" : t.state === "running" ? `round ${t.round} of ${t.rounds}` : "over"}
                {" · "}
                {(t.players || []).length} players
                {g.width ? ` · ${g.width}×${g.height ?? g.width}` : ""}
                {g.rules ? ` · ${g.rules}` : ""}
                {t.td ? ` · director ${t.td}` : ""}
              </p>
              <div class="actions">
                {t.state === "open" && session && !joined && (
                  <button data-testid="join" onClick={() => post("join")}>Join</button>
                )}
                {t.state === "open" && joined && <span>You are in.</span>}
                {t.state === "open" && isTd && (
                  <button data-testid="start" onClick={() => post("start")}>Start</button>
                )}
                {t.state === "open" && !session && <span class="help">Log in to join.</span>}
              </div>
              {message && <p class="error" role="alert" data-testid="tournament-message">{message}</p>}
              <h3>Standings</h3>
              {t.standings && t.standings.length ? <Standings standings={t.standings} /> : <p>No games yet.</p>}
              {(t.players || []).length > 1 && (
                <>
                  <h3>Crosstable</h3>
                  <Crosstable t={t} />
                </>
              )}
              <h3>Games</h3>
              {(t.games || []).length ? <Rounds games={t.games} /> : <p>The first round is paired when the director starts the tournament.</p>}
              {t.state === "open" && (t.players || []).length > 0 && (
                <p data-testid="tournament-players">
                  Joined: {t.players.map((p, i) => <>{i ? ", " : ""}<PlayerName name={p} /></>)}
                </p>
              )}
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
