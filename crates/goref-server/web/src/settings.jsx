// The fields of a game's settings (board, rules, komi, handicap, end protocol, clock), shared
// by the form that creates a game with seat links, the lobby's challenge and a tournament.
// Only the fields of the chosen clock are shown.
import { useState } from "preact/hooks";

export const RULES = [
  ["tromp-taylor", "Tromp-Taylor"],
  ["nstt", "No-suicide Tromp-Taylor"],
  ["olympiad", "Computer Olympiad"],
];

export const ENDS = [
  ["tromp", "Mark, dispute, done (Tromp)"],
  ["all-alive", "All stones alive"],
  ["chinese", "Dead lists, else play on (Chinese)"],
  ["kgs", "Dead lists, else capture them (KGS)"],
  ["japanese", "Dead lists, else play it out on a copy (Japanese)"],
  ["olympiad", "Dead lists, play on up to 3 times, then the referee (Olympiad)"],
  ["referee", "Dead lists, else the referee decides"],
];

// Who decides a dispute the end protocol sends to the third party (olympiad, referee).
const THIRD_PARTIES = [
  ["default_removal", "Default removal (Olympiad 3.9.2)"],
  ["perfect_play", "Perfect play (001 §3.9, small boards)"],
];

const CLOCKS = [
  ["fischer", "Fischer"],
  ["sudden_death", "Sudden death"],
  ["byo_yomi", "Byo-yomi"],
  ["canadian", "Canadian"],
  ["none", "None"],
];

export function GameFields({ size = 9, clock = "fischer" }) {
  const [kind, setKind] = useState(clock);
  const [third, setThird] = useState("default_removal");
  return (
    <>
      <label>Width <input name="width" type="number" min="2" max="25" defaultValue={size} /></label>
      <label>Height <input name="height" type="number" min="2" max="25" defaultValue={size} /></label>
      <label>
        Rules
        <select name="rules">
          {RULES.map(([v, t]) => <option value={v}>{t}</option>)}
        </select>
      </label>
      <label>Komi <input name="komi" type="number" step="0.5" defaultValue="7.5" /></label>
      <label>Handicap <input name="handicap" type="number" min="0" max="9" defaultValue="0" title="Black's stones on the fixed points (2 to 9; square boards of 7 or more); White moves first" /></label>
      <label>
        End of game
        <select name="end">
          {ENDS.map(([v, t]) => <option value={v}>{t}</option>)}
        </select>
      </label>
      <label>
        Third party
        <select name="third_party" value={third} onChange={(e) => setThird(e.currentTarget.value)} title="Who decides when the end protocol (olympiad, referee) sends a dispute to the third party">
          {THIRD_PARTIES.map(([v, t]) => <option value={v}>{t}</option>)}
        </select>
      </label>
      {third === "perfect_play" && (
        <label>Nodes <input name="nodes" type="number" min="1" step="1" defaultValue="1000000" title="The most nodes the search may take; the default removal decides if it proves nothing within them" /></label>
      )}
      <label>
        Clock
        <select name="time" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
          {CLOCKS.map(([v, t]) => <option value={v}>{t}</option>)}
        </select>
      </label>
      {kind !== "none" && (
        <label>Main (min) <input name="main_min" type="number" min="0" step="0.5" defaultValue="10" /></label>
      )}
      {kind === "fischer" && (
        <>
          <label>Increment (s) <input name="increment_s" type="number" min="0" defaultValue="10" /></label>
          <label>
            At most (min)
            <input name="max_min" type="number" min="0" step="0.5" placeholder="no cap" title="Fischer's maximum: the clock never holds more than this" />
          </label>
        </>
      )}
      {kind === "byo_yomi" && (
        <label>Periods <input name="periods" type="number" min="1" defaultValue="5" /></label>
      )}
      {kind === "canadian" && (
        <label>Stones <input name="stones" type="number" min="1" defaultValue="25" /></label>
      )}
      {(kind === "byo_yomi" || kind === "canadian") && (
        <label>Period (s) <input name="period_s" type="number" min="1" defaultValue={kind === "canadian" ? 300 : 30} /></label>
      )}
    </>
  );
}

// The settings of a form holding GameFields, as POST /api/games and challenges take them.
export function readGame(form) {
  const f = new FormData(form);
  const num = (k) => Number(f.get(k));
  const kind = f.get("time");
  const main_s = Math.round(num("main_min") * 60);
  let time;
  if (kind === "none") time = { kind };
  else if (kind === "sudden_death") time = { kind, main_s };
  else if (kind === "fischer") {
    time = { kind, main_s, increment_s: num("increment_s") };
    const max = String(f.get("max_min") || "").trim();
    if (max !== "") time.max_s = Math.round(Number(max) * 60);
  } else if (kind === "byo_yomi") time = { kind, main_s, period_s: num("period_s"), periods: num("periods") };
  else time = { kind, main_s, period_s: num("period_s"), stones: num("stones") };
  const game = {
    width: num("width"),
    height: num("height"),
    rules: f.get("rules"),
    komi: num("komi"),
    end: f.get("end"),
    handicap: num("handicap"),
    time,
  };
  // Left out when it is the default, as the server writes it.
  if (f.get("third_party") === "perfect_play") game.third_party = { type: "perfect_play", nodes: num("nodes") };
  return game;
}

const label = (list, v) => (list.find(([k]) => k === v) || [v, v])[1];
export const rulesName = (v) => label(RULES, v);
export const endName = (v) => label(ENDS, v);
