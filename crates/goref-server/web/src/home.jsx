// The home page: the form that creates a game between guests (with a secret seat link for
// each player) and the list of games.
import { useEffect, useState } from "preact/hooks";
import { GameFields, readGame } from "./settings.jsx";
import { GamesTable } from "./parts.jsx";
import { api } from "./session.js";

export function Home() {
  const [games, setGames] = useState(null);
  const [created, setCreated] = useState(null);
  const [error, setError] = useState("");
  useEffect(() => {
    api("/api/games")
      .then((j) => setGames(j.games))
      .catch(() => setGames([]));
  }, [created]);

  async function create(evt) {
    evt.preventDefault();
    const f = new FormData(evt.target);
    const body = { ...readGame(evt.target), black: f.get("black"), white: f.get("white") };
    setError("");
    try {
      setCreated(await api("/api/games", { method: "POST", body }));
    } catch (e) {
      setError(e.message);
    }
  }

  const origin = location.origin;
  return (
    <main class="home">
      <p class="lead">A referee for the game of Go: every move checked by the server.</p>
      <section>
        <h2>New game with seat links</h2>
        <form class="create" onSubmit={create} data-testid="create-form">
          <label>Black <input name="black" maxLength={40} placeholder="Black" /></label>
          <label>White <input name="white" maxLength={40} placeholder="White" /></label>
          <GameFields />
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
        <p class="help">Players with an account meet in the <a href="/lobby">lobby</a> instead.</p>
      </section>
      <section>
        <h2>Games</h2>
        {games === null ? (
          <p>Loading…</p>
        ) : games.length === 0 ? (
          <p>No games yet.</p>
        ) : (
          <GamesTable games={games} />
        )}
      </section>
    </main>
  );
}
