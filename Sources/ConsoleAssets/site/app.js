// The console page: signing in, the header (language, range, daily report, signing out), and the panels, each
// loaded on its own and at once (one panel failing shows its own error line; the others still show).
// A panel is a module (panel-*.js) with `load(ctx)` fetching its answer and `render(data, ctx)` building its DOM.
import { whenSignedOut } from "./api.js";
import { wireConfirm } from "./dialog.js";
import { el, line, problemText } from "./dom.js";
import { dateTime, day, today } from "./format.js";
import { lastDays, showRange, wireRange } from "./range.js";
import { currentSession, exchange, signOut, takeSigninCode } from "./session.js";
import { currentLanguage, inLine, loadTexts, nodes, preferredLanguage, setLanguage, text } from "./texts.js";
import sales from "./panel-sales.js";
import renewals from "./panel-renewals.js";
import subscriptions from "./panel-subscriptions.js";
import anomalies from "./panel-anomalies.js";
import reminders from "./panel-reminders.js";
import wallet from "./panel-wallet.js";
import payments from "./panel-payments.js";
import accounts from "./panel-accounts.js";
import counters from "./panel-counters.js";
import members, { wireMembers } from "./panel-members.js";
import audit from "./panel-audit.js";
import checks from "./panel-checks.js";

const PANELS = [checks, sales, renewals, subscriptions, anomalies, reminders, wallet, payments, accounts, counters, members, audit];
const $ = (id) => document.getElementById(id);

let range = lastDays(30);
let session = null;
/** Why the sign-in screen shows (a text key), so that a language change words it again. */
let signinReason = "signin.help";
/** Each panel's latest load: an answer that comes after a newer request was made is dropped. */
const runs = new Map();
const answers = new Map();

const ctx = {
  get lang() {
    return currentLanguage();
  },
  get range() {
    return range;
  },
  refresh: (names) => Promise.all(PANELS.filter((panel) => names.includes(panel.name)).map((panel) => show(panel))),
  /** The line under the header saying what an action did (`state` "done" or "error", for tests and colour). */
  status(message, state = "") {
    $("status").textContent = message;
    $("status").dataset.state = state;
  },
};

/** Loads (unless `reuse` and an answer is at hand) and draws one panel. Its section's data-state is "loading",
 *  then "ready" or "error"; what it showed before stays, dimmed, while a new answer is on its way. */
async function show(panel, { reuse = false } = {}) {
  const section = document.querySelector(`[data-panel="${panel.name}"]`);
  const body = section.querySelector(".panel-body");
  const run = (runs.get(panel.name) ?? 0) + 1;
  runs.set(panel.name, run);
  const latest = () => runs.get(panel.name) === run;
  try {
    let data = answers.get(panel.name);
    if (!reuse || !answers.has(panel.name)) {
      if (section.dataset.state !== "ready") body.replaceChildren(line(text("loading"), "loading"));
      section.dataset.state = "loading";
      section.setAttribute("aria-busy", "true");
      data = await panel.load(ctx);
      if (!latest()) return;
      answers.set(panel.name, data);
    }
    body.replaceChildren(...panel.render(data, ctx));
    section.dataset.state = "ready";
  } catch (error) {
    if (!latest()) return;
    answers.delete(panel.name);
    body.replaceChildren(el("p", { className: "problem", textContent: problemText(error) }));
    section.dataset.state = "error";
  } finally {
    if (latest()) section.removeAttribute("aria-busy");
  }
}

/** Every panel, at once; settles when each shows its answer or its error. `reuse`: panels without charts are
 *  drawn again from the answer at hand (a language change), the others fetched again. */
function showAll({ reuse = false } = {}) {
  return Promise.all(PANELS.map((panel) => show(panel, { reuse: reuse && !panel.charts })));
}

function showHeader() {
  $("actor").textContent = session ? text("session.actor", { actor: inLine(session.actor), time: dateTime(session.expires_at) }) : "";
  $("report-title").textContent = range.from === range.to
    ? text("report.title_day", { day: day(range.from, "full") })
    : text("report.title_range", { from: day(range.from, "long"), to: day(range.to, "long") });
}

function setRange(next) {
  range = next;
  showRange(range);
  showHeader();
}

function showSignin(reason) {
  session = null;
  signinReason = reason;
  runs.clear();
  answers.clear();
  document.body.dataset.signedIn = "false";
  for (const id of ["panels", "controls", "signout", "actor"]) $(id).hidden = true;
  $("signin").hidden = false;
  const command = el("code", { textContent: "peez admin console-link" });
  $("signin-reason").replaceChildren(...nodes(reason, { command }));
  $("signin-reason").className = reason === "signin.help" ? "" : "problem";
  showHeader();
}

function signedIn(answer) {
  session = answer;
  document.body.dataset.signedIn = "true";
  $("signin").hidden = true;
  for (const id of ["panels", "controls", "signout", "actor"]) $(id).hidden = false;
  ctx.status("");
  showHeader();
  return showAll();
}

/** A one-time code in the address: exchanged for a session, or the sign-in screen saying why not. */
async function signInWithLink() {
  const code = takeSigninCode();
  if (code === null) return false;
  ctx.status(text("signin.checking"));
  try {
    const answer = await exchange(code);
    ctx.status("");
    await signedIn(answer);
  } catch (error) {
    ctx.status("");
    if (error.code === "link_invalid" || error.status === 401) showSignin("signin.link_invalid");
    else {
      showSignin("signin.help");
      ctx.status(problemText(error), "error");
    }
  }
  return true;
}

function changeLanguage(code) {
  setLanguage(code);
  $("language").value = currentLanguage();
  ctx.status("");
  showHeader();
  if (session) showAll({ reuse: true });
  else showSignin(signinReason);
}

/** The daily report: the range set to one day, every panel drawn for it, then the browser's print dialog (the
 *  print style sheet leaves the controls out and puts the day in the title). */
function wireReport() {
  $("report-open").addEventListener("click", () => {
    $("report-day").value = today();
    $("report-day").max = today();
    $("report").showModal();
  });
  $("report-cancel").addEventListener("click", () => $("report").close());
  $("report-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = $("report-day").value;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(chosen)) return;
    $("report").close();
    setRange({ from: chosen, to: chosen });
    await showAll();
    // One frame for the layout of what was just drawn, then print.
    requestAnimationFrame(() => window.print());
  });
  addEventListener("beforeprint", () => {
    $("report-meta").textContent = text("report.printed", { time: dateTime(Date.now() / 1000), actor: session?.actor ?? "" });
  });
}

function wire() {
  wireConfirm();
  wireReport();
  wireMembers(ctx);
  wireRange((next) => {
    setRange(next);
    PANELS.filter((panel) => panel.range).forEach((panel) => show(panel));
  });
  $("language").addEventListener("change", (event) => changeLanguage(event.target.value));
  $("signout").addEventListener("click", async () => {
    try {
      await signOut();
    } catch (error) {
      // The cookie may outlive a failed request; the screen still leaves the data, and says so.
      console.error(error);
    }
    showSignin("signin.signed_out");
  });
  // Any API answer saying the session is over (expired, or its admin credential revoked): the sign-in screen.
  whenSignedOut(() => {
    if (session) showSignin("signin.expired");
  });
  // A sign-in link opened while the page is open.
  addEventListener("hashchange", signInWithLink);
}

async function start() {
  await loadTexts();
  setLanguage(preferredLanguage());
  $("language").value = currentLanguage();
  setRange(range);
  wire();
  try {
    if (!(await signInWithLink())) {
      const answer = await currentSession();
      if (answer) await signedIn(answer);
      else showSignin("signin.help");
    }
  } catch (error) {
    showSignin("signin.help");
    ctx.status(problemText(error), "error");
  }
  document.body.dataset.ready = "true";
}

start();
