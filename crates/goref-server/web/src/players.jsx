// The players' standings (ratings from every rated game) and one player's page.
import { GamesTable, Loaded, PlayerName, dateText, useJSON } from "./parts.jsx";

const ratingText = (r) => (r == null ? "–" : String(Math.round(r)));

export function Players() {
  const { data, error } = useJSON("/api/players");
  return (
    <main>
      <h2>Players</h2>
      <p class="help">Ratings (Elo, rated players' mean at 1500) are fitted to every rated game as games end; a <b>?</b> marks a provisional one (its 95% interval wider than ±100).</p>
      <Loaded data={data} error={error}>
        {({ players }) =>
          players.length === 0 ? (
            <p>No players yet: log in with a new name to create an account.</p>
          ) : (
            <table class="list" data-testid="players">
              <thead>
                <tr><th>#</th><th>Player</th><th>Rating</th><th>95%</th><th>Games</th><th>Wins</th><th>Losses</th><th>Draws</th></tr>
              </thead>
              <tbody>
                {players.map((p, i) => (
                  <tr key={p.name} data-testid={`player-row-${p.name}`}>
                    <td>{p.rating == null ? "" : i + 1}</td>
                    <td><PlayerName name={p.name} program={p.program} /></td>
                    <td class="num">
                      {ratingText(p.rating)}
                      {p.provisional && <span class="provisional" title="provisional: its 95% interval is wider than ±100">?</span>}
                    </td>
                    <td class="num">{p.interval ? `${p.interval[0]}–${p.interval[1]}` : ""}</td>
                    <td class="num">{p.games ?? 0}</td>
                    <td class="num">{p.wins ?? 0}</td>
                    <td class="num">{p.losses ?? 0}</td>
                    <td class="num">{p.draws ?? 0}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </main>
  );
}

// A player's rated results against each opponent, by colour (`GET .../crosstable`).
function Crosstable({ name }) {
  const { data } = useJSON(`/api/players/${encodeURIComponent(name)}/crosstable`);
  if (!data || data.opponents.length === 0) return null;
  const wld = (t) => `${t.wins}–${t.losses}–${t.draws}`;
  return (
    <>
      <h3>Against each opponent</h3>
      <table class="list" data-testid="crosstable">
        <thead>
          <tr><th>Opponent</th><th>Rating</th><th>Games</th><th>With Black (won–lost–drawn)</th><th>With White</th></tr>
        </thead>
        <tbody>
          {data.opponents.map((o) => (
            <tr key={o.name} data-testid={`cross-${o.name}`}>
              <td><PlayerName name={o.name} /></td>
              <td class="num">{ratingText(o.rating)}</td>
              <td class="num">{o.games}</td>
              <td class="num">{wld(o.as_black)}</td>
              <td class="num">{wld(o.as_white)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function Player({ name }) {
  const { data, error, status } = useJSON(`/api/players/${encodeURIComponent(name)}`);
  return (
    <main>
      <Loaded data={data} error={status === 404 ? `No player is called ${name}.` : error}>
        {({ account, rating, games }) => (
          <>
            <h2 data-testid="player-name">
              {account.name}
              {account.program && <span class="badge program">program</span>}
              {account.td && <span class="badge td">tournament director</span>}
            </h2>
            <p data-testid="player-rating">
              {rating
                ? `Rating ${Math.round(rating.rating)} (95%: ${Math.round(rating.interval[0])}–${Math.round(rating.interval[1])}) · ${rating.games} rated games: ${rating.wins} won, ${rating.losses} lost, ${rating.draws} drawn`
                : "No rated games yet."}
              {" · "}since {dateText(account.created_ms)}
            </p>
            <Crosstable name={account.name} />
            <h3>Games</h3>
            {games.length === 0 ? <p>No games yet.</p> : <GamesTable games={games} testid="player-games" />}
          </>
        )}
      </Loaded>
    </main>
  );
}
