// Small pieces shared by the pages.
import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "./session.js";

// GET `path` (again every `every` ms when given): {data, error, status, reload}.
export function useJSON(path, every) {
  const [data, setData] = useState(null);
  const [error, setError] = useState("");
  const [status, setStatus] = useState(0);
  const reload = useCallback(
    () =>
      api(path).then(
        (j) => {
          setData(j);
          setError("");
          setStatus(200);
        },
        (e) => {
          setError(e.message);
          setStatus(e.status || 0);
        },
      ),
    [path],
  );
  useEffect(() => {
    reload();
    if (!every) return;
    const t = setInterval(reload, every);
    return () => clearInterval(t);
  }, [reload, every]);
  return { data, error, status, reload };
}

export const playerHref = (name) => `/players/${encodeURIComponent(name)}`;

export function PlayerName({ name, program }) {
  return (
    <>
      <a class="player-link" href={playerHref(name)}>{name}</a>
      {program && <span class="badge program" title="a program">program</span>}
    </>
  );
}

// A request's outcome: loading, failed (with the server's message), or the content.
export function Loaded({ data, error, children }) {
  if (error) return <p class="error" role="alert" data-testid="load-error">{error}</p>;
  if (data == null) return <p>Loading…</p>;
  return children(data);
}

export function dateText(ms) {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

export function GamesTable({ games, testid = "games" }) {
  return (
    <table class="list" data-testid={testid}>
      <thead>
        <tr>
          <th>Black</th><th>White</th><th>Board</th><th>Rules</th><th>End</th><th>Moves</th><th>Result</th><th></th>
        </tr>
      </thead>
      <tbody>
        {games.map((g) => (
          <tr key={g.id}>
            <td>{g.accounts ? <PlayerName name={g.black} /> : g.black}</td>
            <td>{g.accounts ? <PlayerName name={g.white} /> : g.white}</td>
            <td>{g.width}×{g.height}</td>
            <td>{g.rules}</td>
            <td>{g.end}</td>
            <td>{g.moves}</td>
            <td>{g.result || "playing"}{g.rated ? " · rated" : ""}</td>
            <td>
              <a href={`/g/${g.id}`}>{g.result ? "review" : "watch"}</a>
              {" · "}
              <a href={`/api/games/${g.id}/sgf`}>SGF</a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

