// The console's requests to the service (Docs/console.md): the session cookie goes along (same origin), a change
// is JSON (the service refuses one that is not, so that no other site's form can make it), and every refusal
// becomes a ConsoleProblem the page words in its own language. The service's English message goes to the
// browser console only, for a support person.
const ROOT = "/console/";
/** The error codes the console words itself; any other is "the service refused: {code}". */
const WORDED = new Set(["unauthenticated", "link_invalid", "not_found", "invalid_fields", "conflict", "rate_limited"]);

let signedOut = () => {};

/** What to do when the service says the session is over (an API answer 401): the sign-in screen. */
export function whenSignedOut(handler) {
  signedOut = handler;
}

export class ConsoleProblem extends Error {
  constructor(key, values = {}, { code = null, status = 0, detail = "" } = {}) {
    super(detail || key);
    this.key = key;
    this.values = values;
    this.code = code;
    this.status = status;
  }
}

async function refusal(response, quiet) {
  let error = null;
  try {
    error = (await response.json())?.error ?? null;
  } catch {
    // Not the service's JSON (a proxy's page): named by its status.
  }
  const code = typeof error?.code === "string" ? error.code : `HTTP ${response.status}`;
  if (typeof error?.message === "string" && !quiet) console.error(`${code}: ${error.message}`, ...(error.fields ? [error.fields] : []));
  const fields = error?.fields && typeof error.fields === "object" ? Object.keys(error.fields).join(", ") : "";
  return new ConsoleProblem(WORDED.has(code) ? `error.${code}` : "error.refused", { code, fields }, { code, status: response.status, detail: error?.message });
}

/** One request: `path` under /console/, `query` its parameters (nulls left out), `body` for a change (`{}` when
 *  none). The answer's JSON (null for 204), or a thrown ConsoleProblem. `quiet`: a 401 is the caller's to handle, and
 *  expected (not signed in yet), so not logged as an error. */
export async function request(method, path, { query = {}, body = {}, quiet = false } = {}) {
  const url = new URL(ROOT + path, location.origin);
  for (const [name, value] of Object.entries(query)) if (value !== null && value !== undefined) url.searchParams.set(name, value);
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (method !== "GET") {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    console.error(error);
    throw new ConsoleProblem("error.unreachable", {}, { detail: error?.message });
  }
  if (!response.ok) {
    const problem = await refusal(response, quiet && response.status === 401);
    if (response.status === 401 && path.startsWith("api/") && !quiet) signedOut(problem);
    throw problem;
  }
  if (response.status === 204) return null;
  try {
    return await response.json();
  } catch (error) {
    console.error(error);
    throw new ConsoleProblem("error.unreadable", {}, { status: response.status, detail: error?.message });
  }
}

export const get = (path, query) => request("GET", path, { query });
export const post = (path, body = {}) => request("POST", path, { body });
