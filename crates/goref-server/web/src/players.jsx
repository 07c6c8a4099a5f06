// The players' standings (ratings from every rated game) and one player's page.
import { useState } from "preact/hooks";
import { GamesTable, Loaded, PlayerName, dateText, useJSON } from "./parts.jsx";
import { timeText } from "./util.js";

const gamesText = (n) => `${n} rated game${n === 1 ? "" : "s"}`;
const ratingText = (r) => (r == null ? "–" : String(Math.round(r)));

// A pool's game in a few words: "13×13, nstt, komi 7.5, 10 min sudden death".
const poolGameText = (g) => `${g.width}×${g.height}, ${g.rules}, komi ${g.komi}, ${timeText(g.time)}`;

// The pool shown: the page's `?pool=` (default: the server's default pool).
function poolOfPage() {
  return new URLSearchParams(window.location.search).get("pool") || "default";
}

// The server's pools as buttons; nothing when it has only the default one.
function PoolPicker({ pool, onPick }) {
  const { data } = useJSON("/api/pools");
  if (!data || data.pools.length < 2) return null;
  return (
    <p class="pools" data-testid="pools">
      {data.pools.map((p) => (
        <button
          key={p.name}
          type="button"
          class={p.name === pool ? "selected" : ""}
          data-testid={`pool-${p.name}`}
          title={poolGameText(p.game) + (p.cgos ? ` · CGOS door ${p.cgos}` : "")}
          onClick={() => onPick(p.name)}
        >
          {p.name}
        </button>
      ))}
      {data.pools
        .filter((p) => p.name === pool)
        .map((p) => (
          <span key="game" class="help" data-testid="pool-game">
            {poolGameText(p.game)}
            {p.cgos ? ` · CGOS door ${p.cgos}` : ""}
          </span>
        ))}
    </p>
  );
}

export function Players() {
  const [pool, setPool] = useState(poolOfPage);
  const pick = (name) => {
    const url = name === "default" ? "/players" : `/players?pool=${encodeURIComponent(name)}`;
    window.history.replaceState(null, "", url);
    setPool(name);
  };
  const { data, error } = useJSON(`/api/players?pool=${encodeURIComponent(pool)}`);
  return (
    <main>
      <h2>Players</h2>
      <PoolPicker pool={pool} onPick={pick} />
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
                      {p.anchor && <span class="badge anchor" title="an anchor: the tournament director fixed its rating">anchor</span>}
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
      <PoolArchive pool={pool} />
    </main>
  );
}

// Today's date in UTC, YYYY-MM-DD (the archive's days are UTC days).
const todayUtc = () => new Date().toISOString().slice(0, 10);

// The pool's archive of one day: its games, and their records as one .tar.gz.
function PoolArchive({ pool }) {
  const [day, setDay] = useState(todayUtc);
  const path = `/api/pools/${encodeURIComponent(pool)}/archive/${day}`;
  const { data, error } = useJSON(path);
  return (
    <section data-testid="archive">
      <h3>
        Archive of{" "}
        <input type="date" value={day} data-testid="archive-day"
          onChange={(e) => e.target.value && setDay(e.target.value)} />
        {" "}(UTC) · <a href={`${path}.tar.gz`} data-testid="archive-tar">the finished games' SGF (.tar.gz)</a>
      </h3>
      <Loaded data={data} error={error}>
        {({ games, truncated }) =>
          games.length === 0 ? (
            <p data-testid="archive-empty">No games of this pool that day.</p>
          ) : (
            <>
              <GamesTable games={games} testid="archive-games" />
              {truncated && <p class="help">The first {games.length} games of the day only.</p>}
            </>
          )
        }
      </Loaded>
    </section>
  );
}

// A player's rating in `pool` after each of its games' refits, as a line over time.
function RatingPlot({ name, pool, named }) {
  const { data } = useJSON(
    `/api/players/${encodeURIComponent(name)}/history?pool=${encodeURIComponent(pool)}`,
  );
  if (!data || data.points.length === 0) return null;
  const ps = data.points;
  const [w, h, pad] = [420, 120, 4];
  const [t0, t1] = [ps[0].at_ms, ps[ps.length - 1].at_ms];
  const rs = ps.map((p) => p.rating);
  const [lo, hi] = [Math.min(...rs), Math.max(...rs)];
  const x = (p, i) =>
    pad + (t1 > t0 ? (p.at_ms - t0) / (t1 - t0) : ps.length > 1 ? i / (ps.length - 1) : 0.5) * (w - 2 * pad);
  const y = (r) => pad + (hi > lo ? (hi - r) / (hi - lo) : 0.5) * (h - 2 * pad);
  return (
    <>
      <h3>Rating{named ? ` in pool ${pool}` : ""}</h3>
      <svg class="rating-plot" width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img"
        data-testid={`rating-plot-${pool}`} aria-label={`${name}'s rating after each game`}>
        <rect x="0" y="0" width={w} height={h} fill="#fbf7ee" stroke="#b9a57f" />
        <polyline fill="none" stroke="#2f6f4f" stroke-width="2"
          points={ps.map((p, i) => `${x(p, i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ")} />
        {ps.length <= 60 && ps.map((p, i) => (
          <circle key={i} cx={x(p, i).toFixed(1)} cy={y(p.rating).toFixed(1)} r="2.5" fill="#2f6f4f">
            <title>{`${Math.round(p.rating)} after ${p.games} rated game${p.games === 1 ? "" : "s"}, ${dateText(p.at_ms)}`}</title>
          </circle>
        ))}
      </svg>
      <p class="help">
        {Math.round(lo)}–{Math.round(hi)} over {ps[ps.length - 1].games} rated games, from {dateText(t0)} to {dateText(t1)}
      </p>
    </>
  );
}

// A player's rated results in `pool` against each opponent, by colour (`GET .../crosstable`);
// `named`: say which pool (the server has several).
function Crosstable({ name, pool, named }) {
  const { data } = useJSON(
    `/api/players/${encodeURIComponent(name)}/crosstable?pool=${encodeURIComponent(pool)}`,
  );
  if (!data || data.opponents.length === 0) return null;
  const wld = (t) => `${t.wins}–${t.losses}–${t.draws}`;
  return (
    <>
      <h3>Against each opponent{named ? ` in pool ${pool}` : ""}</h3>
      <table class="list" data-testid={named ? `crosstable-${pool}` : "crosstable"}>
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
        {({ account, rating, pools, games }) => (
          <>
            <h2 data-testid="player-name">
              {account.name}
              {account.program && <span class="badge program">program</span>}
              {account.td && <span class="badge td">tournament director</span>}
            </h2>
            <p data-testid="player-rating">
              {rating
                ? `Rating ${Math.round(rating.rating)} (95%: ${Math.round(rating.interval[0])}–${Math.round(rating.interval[1])}) · ${gamesText(rating.games)}: ${rating.wins} won, ${rating.losses} lost, ${rating.draws} drawn`
                : pools && Object.keys(pools).length > 0
                  ? "No rated games in the default pool."
                  : "No rated games yet."}
              {" · "}since {dateText(account.created_ms)}
            </p>
            {Object.entries(pools || {}).map(([pool, r]) => (
              <p key={pool} data-testid={`player-rating-${pool}`}>
                {`In pool ${pool}: rating ${Math.round(r.rating)} (95%: ${Math.round(r.interval[0])}–${Math.round(r.interval[1])}) · ${gamesText(r.games)}: ${r.wins} won, ${r.losses} lost, ${r.draws} drawn`}
              </p>
            ))}
            <Crosstables name={account.name} />
            <h3>Games</h3>
            {games.length === 0 ? <p>No games yet.</p> : <GamesTable games={games} testid="player-games" />}
          </>
        )}
      </Loaded>
    </main>
  );
}

// The player's rating plot and crosstable in each of the server's pools where it has rated
// games.
function Crosstables({ name }) {
  const { data } = useJSON("/api/pools");
  const pools = data ? data.pools.map((p) => p.name) : ["default"];
  return pools.map((pool) => (
    <div key={pool}>
      <RatingPlot name={name} pool={pool} named={pools.length > 1} />
      <Crosstable name={name} pool={pool} named={pools.length > 1} />
    </div>
  ));
}
