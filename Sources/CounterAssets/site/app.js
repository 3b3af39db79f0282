// The web counter's screen: enrolment, the three inputs (a scanner typing, the camera, a picture), the verdict as
// `peez counter` words it, selling, pending sales, sync, and the cut-off once PEEZ cut this phone off. The logic
// is counter.js's; this file only shows it.
import { WebCounter, deviceNow, isSafeTransport } from "./counter.js";
import { asProblem } from "./problems.js";
import { MONTHLY_PRICE_DZD, SYNC_EVERY_SECONDS } from "./rules.js";
import { salesToGiveBack } from "./sales.js";
import { CounterStore } from "./store.js";
import { qrDecoder } from "./decoder.js";

const $ = (id) => document.getElementById(id);
const WORDS = {
  valid: "valid", expired: "expired", no_paid_period: "no_paid_period", presentation_required: "presentation_required", revoked: "revoked",
  cannot_confirm: "cannot_confirm",
};
let texts = {};
let language = "fr";
let counter;
let lastSellable = null;
let months = 1;

/** The text `key` with its placeholders filled in one pass: a value is never read as a template itself (a member
 * named "{membership_id}" is shown as written). */
function text(key, values = {}) {
  const template = texts[language]?.[key] ?? texts.en?.[key] ?? key;
  return template.replace(/\{([a-z_]+)\}/g, (placeholder, name) => (Object.hasOwn(values, name) ? String(values[name]) : placeholder));
}

/** The text `key` in the plural form the language's rules give `count` (CLDR, through Intl.PluralRules: Arabic
 *  has six), falling back to `key.other`, then `key`. */
function plural(key, count, values) {
  const form = new Intl.PluralRules(language).select(count);
  const forms = texts[language] ?? {};
  const chosen = forms[`${key}.${form}`] !== undefined ? `${key}.${form}` : forms[`${key}.other`] !== undefined ? `${key}.other` : key;
  return text(chosen, values);
}

/** What went wrong, in the shop's language (problems.js): the detail goes to the console for a support person. */
function say(error) {
  const problem = asProblem(error);
  if (problem.detail) console.warn(`${problem.key}: ${problem.detail}`);
  return text(problem.key, problem.values);
}

/** Why a sale was refused for good, as journaled: a text key and its values. */
function refusalText(sale) {
  return text(sale.refusal?.key ?? "problem.unexpected", sale.refusal?.values);
}

/** A time as the CLI writes it: `2026-12-31 23:59 (Algiers)`, Algiers being UTC+1 all year. */
function time(seconds) {
  // Unbreakable (a no-break space, non-breaking hyphens) and isolated left to right, so that a narrow screen
  // does not split the date and an Arabic line does not reorder its digits and dashes.
  const stamp = new Date((Number(seconds) + 3600) * 1000).toISOString().slice(0, 16).replace("T", "\u00a0").replaceAll("-", "\u2011");
  return text("time", { time: `\u2066${stamp}\u2069` });
}

async function loadTexts() {
  const [counterTexts, webTexts] = await Promise.all(["counter-texts.json", "web-texts.json"].map((file) => fetch(file).then((r) => r.json())));
  for (const code of ["en", "fr", "ar"]) texts[code] = { ...counterTexts.languages[code], ...webTexts.languages[code] };
}

function applyLanguage(code) {
  language = code;
  document.documentElement.lang = code;
  document.documentElement.dir = code === "ar" ? "rtl" : "ltr";
  document.title = text("title");
  for (const element of document.querySelectorAll("[data-text]")) element.textContent = text(element.dataset.text);
  for (const button of document.querySelectorAll("[data-months]")) {
    const count = Number(button.dataset.months);
    button.textContent = plural("sell.months", count, { months: count, amount: count * MONTHLY_PRICE_DZD });
  }
  $("language").value = code;
  // A past answer's line was written in the language before: it leaves rather than stay in another language.
  for (const id of ["sell-result", "pending-result", "input-problem", "enrol-problem"]) clearLine(id);
  showStatus();
  renderPending();
  if (counter?.cutOff) renderCutOff();
}

function showStatus() {
  if (!counter?.state) return;
  const trust = counter.trust;
  const parts = [trust ? text("status", { synced: time(counter.state.lastSyncAt), until: time(trust.validUntil) }) : ""];
  if (!navigator.onLine) parts.push(text("status.offline"));
  $("status").textContent = parts.filter(Boolean).join(" · ");
}

/** A paragraph of `line` in which the membership id `id` is one unbreakable piece (a span of class `id`), so a
 *  narrow screen never splits it across lines. */
function withID(line, id, element = document.createElement("p")) {
  const at = id ? line.indexOf(id) : -1;
  if (at < 0) {
    element.textContent = line;
    return element;
  }
  const piece = Object.assign(document.createElement("span"), { className: "id", textContent: id });
  element.replaceChildren(line.slice(0, at), piece, line.slice(at + id.length));
  return element;
}

/** The lines under the verdict word, as `peez counter` writes them. */
function explanation(judgement, word, now) {
  const reason = judgement.cannotConfirm;
  if (reason) {
    if (reason.kind === "clock_behind") {
      return [text("cannot_confirm.clock_behind", { device: time(reason.device), service: time(reason.service) }), text("cannot_confirm.clock_behind.next")];
    }
    if (reason.kind === "trust_expired") return [text("cannot_confirm.trust_expired", { until: time(reason.until) }), text("cannot_confirm.trust_expired.next")];
    return [text("cannot_confirm.trust_unusable", { detail: say(reason.problem) }), text("cannot_confirm.trust_unusable.next")];
  }
  const result = judgement.result;
  const lines = [];
  const claims = result.claims;
  if (claims) lines.push(text("member", { name: claims.name ?? text("member.no_name"), membership_id: claims.sub }));
  if (word === "valid") {
    const end = judgement.renewal ? judgement.renewal.paid_until : Number(claims.exp);
    lines.push(text("valid", { end: time(end), days: end > now ? Math.floor((end - now + 86399) / 86400) : 0 }));
    if (judgement.renewal) lines.push(text("valid.renewed"));
  } else if (word === "expired") lines.push(text("expired", { end: time(claims.exp) }));
  else if (word === "no_paid_period") lines.push(text("no_paid_period"));
  else if (word === "presentation_required") lines.push(text("presentation_required"));
  else if (word === "revoked") lines.push(text("revoked"));
  else lines.push(text("invalid", { reason: text("reason." + result.verdict) }));
  return lines;
}

/** A new scan attempt, whatever comes of it: the previous member, verdict and sale leave the screen first. */
function clearVerdict() {
  const panel = $("verdict");
  panel.className = "verdict idle";
  panel.dataset.verdict = "";
  panel.dataset.step = "";
  $("verdict-word").textContent = "";
  $("verdict-lines").replaceChildren();
  $("verdict-warnings").replaceChildren();
  $("input-problem").textContent = "";
  $("sell").hidden = true;
  lastSellable = null;
}

function showVerdict(judgement, now) {
  const word = WORDS[judgement.code] ?? "invalid";
  const panel = $("verdict");
  panel.className = `verdict ${word}`;
  panel.dataset.verdict = judgement.code;
  panel.dataset.step = judgement.result?.step ?? "";
  $("verdict-word").textContent = text("word." + word);
  const membershipID = judgement.result?.claims?.sub;
  $("verdict-lines").replaceChildren(...explanation(judgement, word, now).map((line) => withID(line, membershipID)));
  $("verdict-warnings").replaceChildren(
    ...judgement.warnings.map((warning) =>
      Object.assign(document.createElement("li"), {
        textContent: warning.kind === "trust_age" ? text("warning.trust_age", { hours: warning.hours }) : text("warning.same_presentation", { time: time(warning.first) }),
      }),
    ),
  );
  lastSellable = judgement.result?.claims ?? null;
  $("sell").hidden = lastSellable === null || judgement.cannotConfirm !== null;
  if (lastSellable) {
    // What the member is known to have paid already (the card, a renewal, this counter's sale, the service):
    // a second sale is then a decision, not an accident.
    const paidUntil = judgement.renewal ? judgement.renewal.paid_until : judgement.code === "valid" ? Number(lastSellable.exp) : null;
    const member = text("member", { name: lastSellable.name ?? text("member.no_name"), membership_id: lastSellable.sub });
    withID(paidUntil ? `${member} · ${text("sell.already_paid", { end: time(paidUntil) })}` : member, lastSellable.sub, $("sell-member"));
    $("sell-member").dataset.paidUntil = paidUntil ?? "";
  }
  clearLine("sell-result");
}

/** One scan, from any input: judged, shown, logged. A counter cut off takes no scan. */
async function scan(textScanned) {
  if (!counter.enrolled) return;
  $("input-problem").textContent = "";
  const started = performance.now();
  const now = deviceNow();
  let judgement = await counter.judge(textScanned, now);
  showVerdict(judgement, now);
  $("verdict").dataset.elapsedMs = (performance.now() - started).toFixed(3);
  $("verdict").dataset.count = String(Number($("verdict").dataset.count ?? 0) + 1);
  $("verdict").dataset.source = "offline";
  // An old card refused offline only as expired or unpaid: when the service is reachable, it knows whether the
  // member paid since (a sale at another shop not synced yet).
  if ((judgement.code === "expired" || judgement.code === "no_paid_period") && !judgement.result?.claims?.deviceKey && navigator.onLine) {
    const online = await counter.askOnline(textScanned);
    // Cut off while it asked: the cut-off screen is up, and this scan is neither shown nor logged.
    if (counter.cutOff) return;
    if (online) {
      const paidUntil = online.coverage?.ends_at ? Math.floor(Date.parse(online.coverage.ends_at) / 1000) : null;
      if (online.verdict === "valid" && paidUntil !== null) {
        judgement = { ...judgement, code: "valid", renewal: { paid_until: paidUntil }, online: true };
        showVerdict(judgement, now);
      }
      $("verdict-lines").append(Object.assign(document.createElement("p"), { textContent: text(judgement.online ? "online.confirmed" : "online.same") }));
      $("verdict").dataset.source = "online";
    }
  }
  try {
    await counter.record(judgement, now);
  } catch (error) {
    console.warn(error);
    $("input-problem").textContent = text("scan_log.failed");
  }
}

async function renderPending() {
  if (!counter?.enrolled) return;
  const pending = await counter.sales.pending();
  const list = $("pending-list");
  if (pending.length === 0) {
    list.replaceChildren(Object.assign(document.createElement("li"), { textContent: text("pending.none") }));
    return;
  }
  list.replaceChildren(
    ...pending.map((sale) => {
      const item = document.createElement("li");
      item.dataset.key = sale.key;
      const label = withID(text("pending.item", { who: `${sale.name ?? ""} ${sale.membershipID}`.trim(), months: sale.months, amount: sale.amountDZD }),
        sale.membershipID, document.createElement("span"));
      const retry = Object.assign(document.createElement("button"), { type: "button", textContent: text("pending.retry") });
      retry.addEventListener("click", async () => {
        showSettled(await counter.sendSale(sale));
        renderPending();
      });
      item.append(label, retry);
      return item;
    }),
  );
}

function showSale(sale, where = "sell-result") {
  const who = `${sale.name ?? ""} ${sale.membershipID}`.trim();
  const end = Math.floor(Date.parse(sale.coverageEnd) / 1000);
  const line = sale.status === "confirmed" ? text("sell.confirmed", { who, end: Number.isSafeInteger(end) ? time(end) : sale.coverageEnd })
    : sale.status === "refused" ? text("sell.refused", { reason: refusalText(sale) })
    : text("sell.pending", { problem: say(sale.problem) });
  $(where).textContent = line;
  $(where).dataset.status = sale.status;
  $(where).dataset.key = sale.key;
}

/** Empties an answer's line, and forgets which sale it was of. */
function clearLine(id) {
  $(id).textContent = "";
  $(id).dataset.status = "";
  delete $(id).dataset.key;
}

/** Shows an answer to a sale sent again: in place of its "not confirmed yet" line when the sell form still shows
 *  that sale (so the screen never says both), else under the list of pending sales. */
function showSettled(sale) {
  showSale(sale, $("sell-result").dataset.key === sale.key ? "sell-result" : "pending-result");
}

async function sync() {
  if (!counter?.enrolled) return;
  try {
    const { trust } = await counter.sync();
    $("status").textContent = text("sync.done", { until: time(trust.validUntil) });
    await renderAccount();
  } catch (error) {
    // Cut off: the cut-off screen says it all; a failed sync is said only while the counter still works.
    if (counter.cutOff) return;
    $("status").textContent = text("sync.failed", { problem: say(error) });
  }
  await sendPending();
}

/** What the shop owes PEEZ and today's takings, as the service keeps them: shown after each sync, cleared when
 *  the service cannot say (offline, the figures would be stale). */
async function renderAccount() {
  try {
    const account = await counter.account();
    const today = account.today_figures;
    $("account").textContent = text("account.line", {
      owed: account.balance_dzd, sales: today.sales - today.cancellations, amount: today.net_dzd,
    });
    $("account").dataset.owed = String(account.balance_dzd);
  } catch (error) {
    $("account").textContent = "";
    delete $("account").dataset.owed;
  }
}

/** Sends the sales still pending (each under its own key) and shows each answer that comes: a sale kept while the
 *  network was down is confirmed on screen once it is back. */
async function sendPending() {
  if (!counter?.enrolled) return;
  for (const sale of await counter.sendPending()) if (sale.status !== "pending") showSettled(sale);
  renderPending();
}

/** The cut-off, full screen, in the shop's language: when PEEZ cut this phone off and that it checks no card; the
 *  sales whose cash goes back, with the call to PEEZ, or with none only the call; how to bring it back. */
async function renderCutOff() {
  const mark = counter.cutOff;
  $("cut-off-what").textContent = text(mark.reason === "service.credential_expired" ? "cut_off.replaced" : "cut_off.revoked", { date: time(mark.at) });
  const sales = salesToGiveBack(await counter.store.sales());
  $("cut-off-next").textContent = text(sales.length > 0 ? "cut_off.give_back" : "cut_off.call");
  $("cut-off-sales").replaceChildren(
    ...sales.map((sale) => {
      const who = `${sale.name ?? ""} ${sale.membershipID}`.trim();
      const item = withID(text("cut_off.sale", { who, months: sale.months, amount: sale.amountDZD, time: time(sale.at) }), sale.membershipID,
        document.createElement("li"));
      item.dataset.key = sale.key;
      return item;
    }),
  );
}

/** Shows the cut-off instead of the counter, on this load and every later one (the mark is kept): no scan input,
 *  no sale, no sync; only the language and enrolling again with a new code from PEEZ. */
function showCutOff() {
  clearInterval(syncing);
  syncing = null;
  stopCamera?.();
  stopEnrolCamera?.();
  $("counter").hidden = true;
  $("sync").hidden = true;
  $("status").textContent = "";
  $("enrol").hidden = true;
  $("enrol-problem").textContent = "";
  $("cut-off").hidden = false;
  document.body.dataset.cutOff = "true";
  renderCutOff();
  // Another tab of this counter still holds the trust data in memory: it reloads, and so is cut off too.
  peers?.postMessage("cut-off");
}

const peers = "BroadcastChannel" in self ? new BroadcastChannel("peez-counter") : null;

/** The camera reading QR codes into `onCode` (each code held in front of it once, not once a frame), shown in
 *  `video`, toggled by `button` (its texts `startText`, `stopText`); problems said in `problemLine`. */
function cameraReader({ video, button, startText, problemLine, onCode }) {
  let camera = null;
  return async function toggle() {
    if (camera) {
      camera.stop();
      camera = null;
      video.hidden = true;
      button.textContent = text(startText);
      return;
    }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
      video.srcObject = stream;
      video.hidden = false;
      await video.play();
      const decoder = await qrDecoder();
      let running = true;
      let lastCode = null;
      let lastAt = 0;
      camera = { stop: () => { running = false; stream.getTracks().forEach((track) => track.stop()); } };
      button.textContent = text("camera.stop");
      const loop = async () => {
        if (!running) return;
        const started = performance.now();
        try {
          const codes = video.readyState >= 2 ? await decoder.decode(video) : [];
          for (const code of codes) {
            if (code === lastCode && Date.now() - lastAt < 3000) continue;
            lastCode = code;
            lastAt = Date.now();
            await onCode(code, started);
          }
        } catch (error) {
          console.warn(error);
          problemLine.textContent = text("camera.failed");
        } finally {
          if (running) setTimeout(loop, 100);
        }
      };
      loop();
    } catch (error) {
      console.warn(error);
      problemLine.textContent = text("camera.failed");
    }
  };
}

/** The one-time enrolment code in a scanned or opened text: the link PEEZ gives (…/counter/#enrol=CODE) or the
 *  bare code; null for anything else. */
function enrolmentCodeIn(scanned) {
  const candidate = scanned.includes("#enrol=") ? scanned.slice(scanned.indexOf("#enrol=") + 7) : scanned.trim();
  return /^pz[a-z2-7]{26}$/.test(candidate) ? candidate : null;
}

/** Sets the counter up with a one-time code: exchanged for this phone's own credential, never shown. */
async function enrolWithCode(code) {
  const server = new URL("/", location.href).href;
  $("enrol-problem").textContent = text("enrol.with_code");
  try {
    await counter.enrolWithCode({ server, code, label: `web counter, set up ${new Date().toISOString().slice(0, 10)}` });
    stopEnrolCamera?.();
    showCounter();
    peers?.postMessage("enrolled");
  } catch (error) {
    $("enrol-problem").textContent = text("enrol.failed", { problem: say(error) });
  }
}

let stopEnrolCamera = null;
let stopCamera = null;

/** Sets up with the code of an enrolment link in the address, if there is one: the code leaves the address bar at
 *  once (a link shared or bookmarked later holds nothing), then is exchanged. Whether there was one. */
async function enrolFromLink() {
  if (!location.hash.includes("enrol=")) return false;
  const code = enrolmentCodeIn(location.hash);
  history.replaceState(null, "", location.pathname + location.search);
  $("counter").hidden = true;
  $("enrol").hidden = false;
  if (code) await enrolWithCode(code);
  else $("enrol-problem").textContent = text("enrol.not_a_code");
  return true;
}

async function scanPicture(file) {
  clearVerdict();
  try {
    const bitmap = await createImageBitmap(file);
    const codes = await (await qrDecoder()).decode(bitmap);
    if (codes.length === 0) $("input-problem").textContent = text("picture.none");
    for (const code of codes) await scan(code);
    $("verdict").dataset.input = "picture";
  } catch (error) {
    console.warn(error);
    $("input-problem").textContent = text("picture.unreadable");
  }
}

function wire() {
  const toggleCamera = cameraReader({
    video: $("camera"), button: $("camera-button"), startText: "camera.start", problemLine: $("input-problem"),
    onCode: async (code, started) => {
      await scan(code);
      $("verdict").dataset.frameMs = (performance.now() - started).toFixed(3);
      $("verdict").dataset.input = "camera";
    },
  });
  const toggleEnrolCamera = cameraReader({
    video: $("enrol-video"), button: $("enrol-camera"), startText: "enrol.scan_code", problemLine: $("enrol-problem"),
    onCode: async (scanned) => {
      const code = enrolmentCodeIn(scanned);
      if (code) await enrolWithCode(code);
      else $("enrol-problem").textContent = text("enrol.not_a_code");
    },
  });
  stopEnrolCamera = () => { if (!$("enrol-video").hidden) toggleEnrolCamera(); };
  stopCamera = () => { if (!$("camera").hidden) toggleCamera(); };
  $("cut-off-enrol-button").addEventListener("click", () => {
    $("enrol").hidden = false;
    $("enrol").scrollIntoView();
  });
  $("enrol-camera").addEventListener("click", toggleEnrolCamera);
  $("show-secret").addEventListener("change", (event) => { $("secret").type = event.target.checked ? "text" : "password"; });
  $("enrol-picture").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    event.target.value = "";
    if (!file) return;
    try {
      const codes = await (await qrDecoder()).decode(await createImageBitmap(file));
      const code = codes.map(enrolmentCodeIn).find(Boolean);
      if (code) await enrolWithCode(code);
      else $("enrol-problem").textContent = text("enrol.not_a_code");
    } catch (error) {
      console.warn(error);
      $("enrol-problem").textContent = text("picture.unreadable");
    }
  });
  $("language").addEventListener("change", async (event) => {
    await counter.store.set({ language: event.target.value });
    applyLanguage(event.target.value);
    if (!$("counter").hidden) $("scan").focus();
  });
  $("enrol-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const server = new URL("/", location.href).href;
    if (!isSafeTransport(server)) {
      $("enrol-problem").textContent = text("enrol.unsafe");
      return;
    }
    try {
      await counter.enrol({ server, secret: $("secret").value.trim(), expectedKeyID: $("kid").value.trim() || null });
      $("secret").value = "";
      showCounter();
      peers?.postMessage("enrolled");
    } catch (error) {
      $("enrol-problem").textContent = text("enrol.failed", { problem: say(error) });
    }
  });
  $("scan-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = $("scan").value;
    $("scan").value = "";
    if (value.trim() !== "") await scan(value);
  });
  // A keyboard-wedge scanner types into whatever has focus: on a computer, keep it on the scan field unless the
  // vendor is typing elsewhere. On a touch screen, focusing a field opens the keyboard over the camera and the
  // verdict: there the scan field takes the focus only when tapped.
  const wedge = () => !matchMedia("(pointer: coarse)").matches;
  document.addEventListener("click", (event) => {
    if (wedge() && !$("counter").hidden && !event.target.closest("input, select, textarea")) $("scan").focus();
  });
  $("scan").addEventListener("blur", () => setTimeout(() => {
    if (wedge() && !$("counter").hidden && !document.activeElement?.matches("input, select, textarea")) $("scan").focus();
  }, 0));
  $("camera-button").addEventListener("click", toggleCamera);
  $("picture").addEventListener("change", (event) => {
    if (event.target.files[0]) scanPicture(event.target.files[0]);
    event.target.value = "";
  });
  for (const button of document.querySelectorAll("[data-months]")) {
    button.addEventListener("click", () => {
      months = Number(button.dataset.months);
      for (const other of document.querySelectorAll("[data-months]")) other.setAttribute("aria-pressed", String(other === button));
      $("paid").value = "";
      $("paid").focus();
    });
  }
  $("sell-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const paid = Number($("paid").value);
    if (paid !== months * MONTHLY_PRICE_DZD) {
      $("sell-result").textContent = text("sell.amount_wrong", { months, amount: months * MONTHLY_PRICE_DZD });
      return;
    }
    $("sell-button").disabled = true;
    // The previous sale's line leaves first: what shows next is this sale's answer.
    clearLine("sell-result");
    try {
      showSale(await counter.sell({ claims: lastSellable, months, paid, now: deviceNow() }));
    } catch (error) {
      $("sell-result").textContent = say(error);
    } finally {
      $("sell-button").disabled = false;
      $("paid").value = "";
      renderPending();
      $("scan").focus();
    }
  });
  $("sync").addEventListener("click", sync);
  addEventListener("online", () => { showStatus(); sync(); });
  addEventListener("offline", showStatus);
  // A tab that learns another one was cut off, or enrolled again, opens afresh from the store.
  peers?.addEventListener("message", (event) => {
    if ((event.data === "cut-off" && !counter.cutOff) || (event.data === "enrolled" && counter.cutOff)) location.reload();
  });
}

let syncing = null;

function showCounter() {
  // The page syncs by itself while it is open and online, as often as `peez counter` does.
  syncing ??= setInterval(() => navigator.onLine && sync(), SYNC_EVERY_SECONDS * 1000);
  $("enrol").hidden = true;
  $("cut-off").hidden = true;
  delete document.body.dataset.cutOff;
  $("counter").hidden = false;
  $("sync").hidden = false;
  clearVerdict();
  $("verdict-word").textContent = text("scan.waiting");
  showStatus();
  renderPending();
  // Sales kept while offline go out as soon as the page opens online.
  if (navigator.onLine) sendPending();
  $("scan").focus();
}

async function start() {
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("sw.js", { scope: "./" }).catch(() => {});
  await loadTexts();
  const store = await CounterStore.open();
  counter = await WebCounter.load(store);
  counter.onCutOff = showCutOff;
  // For the browser tests and a support person's console: the counter, as this page uses it.
  window.peezCounter = counter;
  const saved = await store.get("language");
  const preferred = (navigator.language ?? "").slice(0, 2);
  wire();
  applyLanguage(saved ?? (["fr", "ar", "en"].includes(preferred) ? preferred : "fr"));
  // A phone PEEZ cut off opens on the cut-off, offline too, and never on its ready screen again.
  if (counter.cutOff) showCutOff();
  // Opened from an enrolment link (or the link followed while the page is open): set up with its code. A phone
  // cut off is brought back only this way (or a code scanned from its cut-off screen).
  addEventListener("hashchange", enrolFromLink);
  if (!(await enrolFromLink())) {
    if (counter.enrolled) showCounter();
    else if (!counter.cutOff) $("enrol").hidden = false;
  }
  document.body.dataset.ready = "true";
}

start();
