// Tournaments on the server: the list (/tournaments, with the TD's form to create one) and a
// tournament's page (/t/ID): standings and crosstable, games by round (each opens as a
// spectator), join and start. The page asks again every 2 s while the tournament runs.
import { useState } from "preact/hooks";
import { GameFields, readGame } from "./settings.jsx";
import { Loaded, PlayerName, dateText, useJSON } from "./parts.jsx";
import { api } from "./session.js";
import { blackScore } from "./util.js";

const FORMATS = [
  ["swiss", "Swiss"],
  ["round-robin", "Round-robin"],
  ["gauntlet", "Gauntlet"],
  ["knockout", "Knockout"],
];

// The format's own numbers, as POST /api/tournaments takes them (beside `format`).
const FORMAT_FIELDS = {
  swiss: [["rounds", "Rounds", 3]],
  "round-robin": [["games_per_pair", "Games per pair", 1]],
  gauntlet: [["seeds", "Seeds", 1], ["games_per_pair", "Games per pair", 1]],
  knockout: [["games", "Games per match", 1]],
};

// The format in words, from the tournament's `settings` ({format, rounds | …}).
function formatText(s, format) {
  if (!s) return format;
  const n = (k, one, many) => (s[k] == null ? "" : `, ${s[k]} ${s[k] === 1 ? one : many}`);
  switch (s.format) {
    case "swiss":
      return `Swiss${n("rounds", "round", "rounds")}`;
    case "round-robin":
      return `round-robin${n("games_per_pair", "game per pair", "games per pair")}`;
    case "gauntlet":
      return `gauntlet${n("seeds", "seed", "seeds")}${n("games_per_pair", "game per pair", "games per pair")}`;
    case "knockout":
      return `knockout${n("games", "game per match", "games per match")}`;
    default:
      return s.format || format;
  }
}

// The rows of the standings: the server's {engines: [...]} (or a bare list).
const standingRows = (t) => (Array.isArray(t.standings) ? t.standings : (t.standings && t.standings.engines) || []);

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
  const [format, setFormat] = useState("swiss");
  async function create(evt) {
    evt.preventDefault();
    const f = new FormData(evt.target);
    setMessage("");
    const body = { name: String(f.get("name")).trim(), format, game: readGame(evt.target) };
    for (const [k] of FORMAT_FIELDS[format]) body[k] = Number(f.get(k));
    try {
      const t = await api("/api/tournaments", { method: "POST", auth: true, body });
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
              <select name="format" value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
                {FORMATS.map(([v, t]) => <option value={v}>{t}</option>)}
              </select>
            </label>
            {FORMAT_FIELDS[format].map(([k, text, v]) => (
              <label key={k}>{text} <input name={k} type="number" min="1" defaultValue={v} /></label>
            ))}
            <GameFields clock="sudden_death" />
            <button type="submit">Create</button>
          </form>
          {message && <p class="error" role="alert">{message}</p>}
        </section>
      )}
    </main>
  );
}

// What a game scored for `name`: "1", "0", "½", "…" (being played), "–" (void) or ""
// (not started).
function scoreFor(game, name) {
  const b = blackScore(game.result);
  if (!game.result) return game.id ? "…" : "";
  if (b == null) return "–";
  const s = game.black === name ? b : 1 - b;
  return s === 1 ? "1" : s === 0 ? "0" : "½";
}

function Crosstable({ t }) {
  const rows = standingRows(t);
  const names = rows.length ? rows.map((s) => s.name) : t.players || [];
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
                      <a href={g.id ? `/g/${g.id}` : undefined} title={`round ${g.round}: ${g.black} (B) – ${g.white} (W) ${g.result || "playing"}`}>
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

// Points and tie-breaks: whole or in halves, as Go counts them.
const points = (x) => (Number.isInteger(x) ? String(x) : Number(x).toFixed(1));

function Standings({ standings, withdraw }) {
  const order = ["sos", "sodos", "sosos"];
  const rank = (k) => (order.includes(k) ? order.indexOf(k) : order.length);
  const keys = [...new Set(standings.flatMap((s) => Object.keys(s.tiebreaks || {})))].sort(
    (a, b) => rank(a) - rank(b) || a.localeCompare(b),
  );
  const byes = standings.some((s) => s.byes);
  return (
    <table class="list" data-testid="standings">
      <thead>
        <tr>
          <th>#</th><th>Player</th><th>Points</th><th>Games</th><th>W</th><th>L</th><th>D</th>
          {byes && <th>Byes</th>}
          {keys.map((k) => <th>{k.toUpperCase()}</th>)}
          {withdraw && <th></th>}
        </tr>
      </thead>
      <tbody>
        {standings.map((s) => (
          <tr key={s.name}>
            <td class="num">{s.rank}</td>
            <td>
              <PlayerName name={s.name} />
              {s.withdrawn && <span class="badge withdrawn">withdrawn</span>}
            </td>
            <td class="num">{points(s.points)}</td>
            <td class="num">{s.games}</td>
            <td class="num">{s.wins}</td>
            <td class="num">{s.losses}</td>
            <td class="num">{s.draws}</td>
            {byes && <td class="num">{s.byes || 0}</td>}
            {keys.map((k) => <td class="num">{s.tiebreaks && s.tiebreaks[k] != null ? points(s.tiebreaks[k]) : ""}</td>)}
            {withdraw && (
              <td>{!s.withdrawn && <button class="small" data-testid={`withdraw-${s.name}`} onClick={() => withdraw(s.name)}>Withdraw</button>}</td>
            )}
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
              {g.id ? (
                <a href={`/g/${g.id}`}>{g.result ? `${g.result}, review` : "playing, watch"}</a>
              ) : (
                g.result || "not started"
              )}
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

  async function post(action, body = {}) {
    setMessage("");
    try {
      await api(`/api/tournaments/${encodeURIComponent(id)}/${action}`, { method: "POST", auth: true, body });
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
          const rows = standingRows(t);
          const rounds = t.settings && t.settings.format === "swiss" ? t.settings.rounds : t.rounds;
          const withdraw =
            isTd && t.state === "running"
              ? (name) => {
                  const reason = prompt(`Withdraw ${name}: the reason (kept in the log)`, "");
                  if (reason !== null) post("withdraw", { player: name, reason });
                }
              : null;
          return (
            <>
              <h2 data-testid="tournament-name">{t.name}</h2>
              <p data-testid="tournament-info">
                {formatText(t.settings, t.format)} ·{" "}
                {t.state === "open" ? "open: players may join" : t.state === "running" ? `round ${t.round}${rounds ? ` of ${rounds}` : ""}` : "over"}
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
              {rows.length ? <Standings standings={rows} withdraw={withdraw} /> : <p>No games yet.</p>}
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
              {(t.log || []).length > 0 && (
                <>
                  <h3>Director's log</h3>
                  <ul class="notes" data-testid="tournament-log">
                    {t.log.map((l) => <li>{dateText(l.at_ms)}: {l.text}</li>)}
                  </ul>
                </>
              )}
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
