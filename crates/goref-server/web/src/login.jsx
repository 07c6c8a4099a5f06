// Logging in (or creating an account with a new name) and the bar at the top of every page.
import { useState } from "preact/hooks";
import { logIn, setSession } from "./session.js";
import { playerHref } from "./parts.jsx";

export function LoginForm({ onDone }) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  async function submit(evt, create) {
    evt.preventDefault();
    const form = evt.currentTarget.form || evt.currentTarget;
    const f = new FormData(form);
    setBusy(true);
    setError("");
    try {
      await logIn(String(f.get("name")).trim(), String(f.get("password")), create);
      onDone && onDone();
    } catch (e) {
      setError(
        e.code === "unknown_account"
          ? `${e.message}: choose "Create account" to make one with this name`
          : e.message,
      );
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="login" data-testid="login-form" onSubmit={(e) => submit(e, false)}>
      <label>Name <input name="name" data-testid="login-name" autocomplete="username" required maxLength={40} /></label>
      <label>
        Password <input name="password" type="password" data-testid="login-password" autocomplete="current-password" required />
      </label>
      <button type="submit" data-testid="login-submit" disabled={busy}>Log in</button>
      <button type="button" data-testid="login-create" disabled={busy} onClick={(e) => submit(e, true)}>
        Create account
      </button>
      {error && <p class="error" role="alert" data-testid="login-error">{error}</p>}
    </form>
  );
}

const LINKS = [
  ["/", "Games"],
  ["/lobby", "Lobby"],
  ["/players", "Players"],
  ["/tournaments", "Tournaments"],
];

export function TopBar({ session, active }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <nav class="top">
        <a class="brand" href="/">goref</a>
        {LINKS.map(([href, text]) => (
          <a href={href} class={active === href ? "active" : ""}>{text}</a>
        ))}
        <span class="session">
          {session ? (
            <>
              <a data-testid="account-name" href={playerHref(session.account.name)}>{session.account.name}</a>
              {session.account.td && <span class="badge td" title="tournament director">TD</span>}
              <button class="link" data-testid="logout" onClick={() => setSession(null)}>Log out</button>
            </>
          ) : (
            <button class="link" data-testid="login-open" onClick={() => setOpen(!open)}>Log in</button>
          )}
        </span>
      </nav>
      {!session && open && (
        <div class="login-drop">
          <LoginForm onDone={() => setOpen(false)} />
        </div>
      )}
    </>
  );
}
