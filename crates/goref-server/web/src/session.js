// The logged-in account: its session token is kept in localStorage, so that every page of
// the site (and a reload) knows who is playing. Logging out forgets it on this browser.
import { useEffect, useState } from "preact/hooks";

const KEY = "goref.session";
let session = load();
const listeners = new Set();

function load() {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) || "null");
    return s && typeof s.token === "string" && s.account ? s : null;
  } catch {
    return null;
  }
}

export function getSession() {
  return session;
}

export function setSession(s) {
  session = s;
  if (s) localStorage.setItem(KEY, JSON.stringify(s));
  else localStorage.removeItem(KEY);
  for (const f of listeners) f(s);
}

export function useSession() {
  const [s, set] = useState(session);
  useEffect(() => {
    listeners.add(set);
    set(session);
    return () => listeners.delete(set);
  }, []);
  return s;
}

// The JSON of a request, or an Error with the server's message (and `status`).
export async function api(path, { method = "GET", body, auth = false } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth && session) headers.Authorization = `Bearer ${session.token}`;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let j = null;
  try {
    j = await r.json();
  } catch {
    j = null;
  }
  if (!r.ok) {
    const e = new Error((j && j.message) || `${r.status} ${r.statusText}`);
    e.status = r.status;
    e.code = j && j.error;
    if (r.status === 401 && auth) setSession(null);
    throw e;
  }
  return j;
}

export async function logIn(name, password, create) {
  const j = await api("/api/login", { method: "POST", body: { name, password, program: false, create } });
  setSession({ token: j.token, account: j.account });
  return j.account;
}

// Checks the kept session with the server once per page load; forgets it when it has ended.
export async function checkSession() {
  if (!session) return;
  try {
    const j = await api("/api/me", { auth: true });
    setSession({ ...session, account: j.account });
  } catch {
    // 401 forgot it already; a network failure keeps it.
  }
}
