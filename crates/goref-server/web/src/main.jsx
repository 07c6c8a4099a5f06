// The page of `goref serve`, routed here from location.pathname: the games and the form that
// creates one with seat links (/), a game (/g/ID, #seat=SECRET for a guest player), the lobby
// (/lobby), players (/players, /players/NAME) and tournaments (/tournaments, /t/ID). Every
// text from the server is shown as text (Preact escapes it); nothing is inserted as HTML.
import { render } from "preact";
import "@sabaki/shudan/css/goban.css";
import "./style.css";
import { Home } from "./home.jsx";
import { Game } from "./game.jsx";
import { Lobby } from "./lobby.jsx";
import { Player, Players } from "./players.jsx";
import { Tournament, Tournaments } from "./tournaments.jsx";
import { TopBar } from "./login.jsx";
import { checkSession, useSession } from "./session.js";

function route(path) {
  let m;
  if ((m = path.match(/^\/g\/([0-9a-zA-Z]+)\/?$/))) return { active: "", page: (s) => <Game id={m[1]} session={s} /> };
  if (/^\/lobby\/?$/.test(path)) return { active: "/lobby", page: (s) => <Lobby session={s} /> };
  if (/^\/players\/?$/.test(path)) return { active: "/players", page: () => <Players /> };
  if ((m = path.match(/^\/players\/([^/]+)\/?$/))) {
    const name = decodeURIComponent(m[1]);
    return { active: "/players", page: () => <Player name={name} /> };
  }
  if (/^\/tournaments\/?$/.test(path)) return { active: "/tournaments", page: (s) => <Tournaments session={s} /> };
  if ((m = path.match(/^\/t\/([^/]+)\/?$/))) {
    const id = decodeURIComponent(m[1]);
    return { active: "/tournaments", page: (s) => <Tournament id={id} session={s} /> };
  }
  return { active: "/", page: () => <Home /> };
}

function App() {
  const session = useSession();
  const { active, page } = route(location.pathname);
  return (
    <>
      <TopBar session={session} active={active} />
      {page(session)}
    </>
  );
}

checkSession();
render(<App />, document.getElementById("app"));
