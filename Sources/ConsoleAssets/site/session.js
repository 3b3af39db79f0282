// Signing in with a one-time link (Docs/console.md): `https://host/console/#signin=<code>`. The code is in the
// fragment, which no request carries (no log, no Referer); the page takes it out of the address bar at once (a
// link shared, bookmarked or left in the history holds nothing) and exchanges it for the session cookie.
import { request } from "./api.js";

/** The code of a sign-in link in the address, removed from the address bar; null when there is none. */
export function takeSigninCode() {
  if (!location.hash.startsWith("#signin=")) return null;
  const raw = location.hash.slice("#signin=".length);
  history.replaceState(null, "", location.pathname);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The session for a one-time code: `{actor, expires_at}`; a ConsoleProblem `link_invalid` (401) when the code is
 *  unknown, used or expired. */
export function exchange(code) {
  return request("POST", "api/session", { body: { code } });
}

/** The session this browser holds (`{actor, expires_at}`), or null when it has none. */
export async function currentSession() {
  try {
    return await request("GET", "api/session", { quiet: true });
  } catch (error) {
    if (error.status === 401) return null;
    throw error;
  }
}

export function signOut() {
  return request("DELETE", "api/session");
}
