// The web counter without its screen: verdicts as `peez counter` gives them (Sources/CounterApp/CounterVerdict.swift),
// the hash-chained scan log (ScanLog.swift) reported on sync, and sales journaled before they are sent
// (SaleJournal.swift, CounterSeller.swift). The page (app.js) and the tests drive it.
import { hex } from "./cose.js";
import { accept, enrol, renewalFor, trustOf, verifierOf, wantsWholeList } from "./trust.js";
import { STANDARD_WINDOW } from "./verifier.js";

const WARNING_AGE = 24 * 3600;
const CLOCK_TOLERANCE = 300;
export const MONTHLY_PRICE_DZD = 300;
const GENESIS = "0".repeat(64);
const TIME_RANGE = [1704067200, 4102444799];

/** The device's clock, in whole seconds. */
export function deviceNow() {
  return Math.floor(Date.now() / 1000);
}

/** Whether the vendor secret may be sent to `url`: over https, or to this device itself. */
export function isSafeTransport(url) {
  const { protocol, hostname } = new URL(url);
  return protocol === "https:" || (protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(hostname));
}

async function sha256Hex(text) {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}

export class WebCounter {
  /** The counter held in `store`: its trust data checked again from the signatures, or the reason it cannot be. */
  static async load(store) {
    const counter = new WebCounter(store);
    counter.state = (await store.get("state")) ?? null;
    counter.secret = (await store.get("secret")) ?? null;
    counter.counterID = (await store.get("counterID")) ?? null;
    counter.ownSales = ownRenewals(await store.sales());
    if (counter.state) {
      try {
        counter.trust = await trustOf(counter.state);
      } catch (error) {
        counter.trustProblem = error.message;
      }
    }
    return counter;
  }

  constructor(store) {
    this.store = store;
    this.state = null;
    this.trust = null;
    this.trustProblem = null;
    this.ownSales = new Map();
    this.recent = new Map();
    this.window = STANDARD_WINDOW;
    // The verifier over the trust data held, made again when a sync brings new trust data.
    this.verifierCache = null;
    this.verifierFor = null;
  }

  get enrolled() {
    return this.state !== null && this.secret !== null;
  }

  /** Enrols against the service this page came from: fetches the first bundle with the vendor secret. */
  async enrol({ server, secret, expectedKeyID = null, now = deviceNow() }) {
    if (!isSafeTransport(server)) throw new Error("the vendor secret is sent only over https or to this device itself");
    const bytes = await this.fetchBundle(server, secret, null);
    const { state, trust } = await enrol(bytes, { server, expectedKeyID, now });
    const counterID = this.counterID ?? crypto.randomUUID();
    await this.store.set({ state, secret, counterID });
    Object.assign(this, { state, trust, secret, counterID, trustProblem: null });
  }

  async fetchBundle(server, secret, since, renewalsAfter = null) {
    const url = new URL("v1/counter/bundle", server);
    if (since !== null) url.searchParams.set("since", String(since));
    if (renewalsAfter !== null) url.searchParams.set("renewals_after", String(renewalsAfter));
    const response = await fetch(url, { headers: { Authorization: `Bearer ${secret}`, Accept: "application/cose" }, cache: "no-store" });
    if (!response.ok) throw new Error(`the service answered ${response.status}${await errorText(response)}`);
    return new Uint8Array(await response.arrayBuffer());
  }

  /** A sync: the newest trust data (a delta when it can), then the scan log reported. Keeps what is held when
   *  the new data fails its check. */
  async sync(now = deviceNow()) {
    const whole = wantsWholeList(this.state);
    const bytes = await this.fetchBundle(this.state.server, this.secret, whole ? null : this.trust.version, whole ? null : this.trust.issuedAt);
    const { state, trust } = await accept(bytes, { state: this.state, trust: this.trust, now });
    await this.store.set({ state });
    Object.assign(this, { state, trust });
    return { trust, report: await this.reportScans() };
  }

  /** The verdict on a scanned text at the device's time `now`: {code, result, cannotConfirm, warnings}. */
  async judge(text, now = deviceNow()) {
    const state = this.state;
    if (this.trustProblem !== null || !this.trust) {
      return { code: "cannot_confirm", cannotConfirm: { kind: "trust_unusable", detail: this.trustProblem ?? "no trust data" }, warnings: [] };
    }
    if (now < state.newestServerTime - CLOCK_TOLERANCE) {
      return { code: "cannot_confirm", cannotConfirm: { kind: "clock_behind", device: now, service: state.newestServerTime }, warnings: [] };
    }
    if (now > this.trust.validUntil) {
      return { code: "cannot_confirm", cannotConfirm: { kind: "trust_expired", until: this.trust.validUntil }, warnings: [] };
    }
    const warnings = [];
    const age = now - state.lastSyncAt;
    if (age > WARNING_AGE) warnings.push({ kind: "trust_age", hours: Math.floor(age / 3600) });
    if (this.verifierFor !== this.trust) {
      this.verifierCache = verifierOf(this.trust, this.window);
      this.verifierFor = this.trust;
    }
    const result = await this.verifierCache.verify(text, BigInt(now));
    const first = this.notePresentation(result, now);
    if (first !== null) warnings.push({ kind: "same_presentation", first });
    // An old card of a member who paid since (listed by the service, or sold here): VALID until the renewal's
    // end, the card to be refreshed.
    const renewal = renewalFor(result, withOwnSales(this.trust, this.ownSales), now);
    return { code: renewal ? "valid" : result.verdict, result, renewal, cannotConfirm: null, warnings };
  }

  /** Asks the service for its verdict and the member's live coverage (POST /v1/verify), for an old card refused
   *  offline only as expired or unpaid; null when the service does not answer within `timeoutMs`. */
  async askOnline(text, timeoutMs = 2000) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const response = await fetch(new URL("v1/verify", this.state.server), {
        method: "POST",
        headers: { Authorization: `Bearer ${this.secret}`, "Content-Type": "application/json" },
        body: JSON.stringify({ token: text }),
        signal: controller.signal,
        cache: "no-store",
      });
      if (response.status !== 200) return null;
      const body = await response.json();
      return typeof body?.verdict === "string" ? body : null;
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** When this counter first scanned the same presentation within its window, or null (the same person). */
  notePresentation(result, now) {
    if (result.presentedAt == null || !result.claims) return null;
    const horizon = now - Number(2n * this.window.skew + this.window.displayPeriod);
    for (const [key, first] of this.recent) if (first < horizon) this.recent.delete(key);
    const key = `${result.claims.cti}/${result.presentedAt}`;
    if (this.recent.has(key)) return this.recent.get(key);
    this.recent.set(key, now);
    return null;
  }

  /** Appends a verdict to the scan log: {seq, at, verdict, member, token_id, offline, trust_age, clock_wrong,
   *  presented_at}, hash-chained as `peez counter log` chains it. */
  async record(judgement, now = deviceNow()) {
    const claims = judgement.result?.claims;
    const presentedAt = judgement.result?.presentedAt == null ? null : Number(judgement.result.presentedAt);
    const state = this.state;
    const inRange = (time) => time >= TIME_RANGE[0] && time <= TIME_RANGE[1];
    const clockWrong = now < state.lastSyncAt || now < state.newestServerTime - CLOCK_TOLERANCE || !inRange(now);
    const fields = {
      at: inRange(now) ? now : Math.min(Math.max(state.newestServerTime, TIME_RANGE[0]), TIME_RANGE[1]),
      clock_wrong: clockWrong,
      member: claims?.sub,
      offline: !navigator.onLine,
      presented_at: presentedAt !== null && inRange(presentedAt) ? presentedAt : undefined,
      token_id: claims?.cti,
      trust_age: clockWrong ? 0 : now - state.lastSyncAt,
      verdict: judgement.code,
    };
    return navigator.locks.request("peez-scan-log", async () => {
      const last = await this.store.lastScan();
      const entry = { seq: (last?.seq ?? 0) + 1, ...fields };
      const json = JSON.stringify(entry, Object.keys(entry).sort());
      const hash = await sha256Hex((last?.hash ?? GENESIS) + json);
      await this.store.addScan({ seq: entry.seq, hash, json });
      return entry;
    });
  }

  /** Checks the scan log's chain: {entries, broken: null or the first seq that does not check}. */
  async verifyLog() {
    let previous = GENESIS;
    const records = await this.store.scans();
    for (const [index, record] of records.entries()) {
      if (record.seq !== index + 1 || record.hash !== (await sha256Hex(previous + record.json))) return { entries: index, broken: record.seq };
      previous = record.hash;
    }
    return { entries: records.length, broken: null };
  }

  /** Sends the scan-log entries not yet reported, 500 at a time; the service stores each once. */
  async reportScans() {
    let reported = (await this.store.get("reportedThrough")) ?? 0;
    let stored = 0;
    for (;;) {
      const batch = (await this.store.scans(reported)).slice(0, 500);
      if (batch.length === 0) return { stored };
      const response = await fetch(new URL("v1/counter/scans", this.state.server), {
        method: "POST",
        headers: { Authorization: `Bearer ${this.secret}`, "Content-Type": "application/json" },
        body: JSON.stringify({ counter_id: this.counterID, entries: batch.map((record) => JSON.parse(record.json)) }),
      });
      if (response.status !== 200) throw new Error(`the service did not take the scan log (${response.status}${await errorText(response)})`);
      stored += (await response.json()).stored ?? 0;
      reported = batch[batch.length - 1].seq;
      await this.store.set({ reportedThrough: reported });
    }
  }

  /** Starts a cash sale to the member of an authentic card: the amount checked, the sale journaled with a
   *  fresh idempotency key before anything is sent; then sent. */
  async sell({ claims, months, paid, now = deviceNow() }) {
    if (![1, 2, 3].includes(months)) throw new Error("months must be 1, 2 or 3");
    if (paid !== MONTHLY_PRICE_DZD * months) throw new Error(`${months} month(s) cost ${MONTHLY_PRICE_DZD * months} DZD, not ${paid}`);
    const sale = { key: crypto.randomUUID(), membershipID: claims.sub, name: claims.name, months, amountDZD: paid, at: now, status: "pending" };
    await this.store.putSale(sale);
    return this.send(sale);
  }

  /** Sends a journaled sale under its key: confirmed or refused for good, or still pending (answer unknown). */
  async send(sale) {
    let response;
    try {
      response = await fetch(new URL("v1/activations", this.state.server), {
        method: "POST",
        headers: { Authorization: `Bearer ${this.secret}`, "Content-Type": "application/json", "Idempotency-Key": sale.key },
        body: JSON.stringify({ membership_id: sale.membershipID, months: sale.months, amount_dzd: sale.amountDZD }),
      });
    } catch {
      return { ...sale, problem: "no network: the sale is kept and sent again under the same key" };
    }
    if (response.status === 201) {
      const body = await response.json().catch(() => null);
      if (typeof body?.coverage_end !== "string" || body.coverage_end === "") return { ...sale, problem: "the answer did not say the coverage end" };
      const confirmed = { ...sale, status: "confirmed", coverageEnd: body.coverage_end };
      await this.store.putSale(confirmed);
      this.ownSales = ownRenewals(await this.store.sales());
      return confirmed;
    }
    if ([401, 403, 408, 409, 429].includes(response.status) || response.status >= 500) {
      return { ...sale, problem: `the service answered ${response.status}; the sale is sent again under the same key` };
    }
    const refused = { ...sale, status: "refused", reason: (await errorText(response)).replace(/^: /, "") || `status ${response.status}` };
    await this.store.putSale(refused);
    return refused;
  }

  async pendingSales() {
    return (await this.store.sales()).filter((sale) => sale.status === "pending").sort((a, b) => a.at - b.at);
  }

  /** Sends every pending sale again, under its own key. */
  async retryPending() {
    const results = [];
    for (const sale of await this.pendingSales()) results.push(await this.send(sale));
    return results;
  }
}

/** The renewals this counter sold itself (confirmed sales), by membership id: known here at once, before a sync
 *  brings them (renewed the second after the sale began, paid until the answer's end), as SaleJournal.ownRenewals. */
export function ownRenewals(sales) {
  const renewals = new Map();
  for (const sale of sales) {
    if (sale.status !== "confirmed") continue;
    const paidUntil = Math.floor(Date.parse(sale.coverageEnd) / 1000);
    if (!Number.isSafeInteger(paidUntil) || paidUntil <= sale.at + 1) continue;
    const entry = { membership_id: sale.membershipID, paid_until: paidUntil, renewed_at: sale.at + 1 };
    const held = renewals.get(sale.membershipID);
    if (!held || held.renewed_at < entry.renewed_at) renewals.set(sale.membershipID, entry);
  }
  return renewals;
}

/** `trust` with this counter's own sales added where newer than the service's renewals (CounterTrust.adding). */
function withOwnSales(trust, ownSales) {
  if (ownSales.size === 0) return trust;
  const renewals = new Map(trust.renewals);
  for (const [member, sale] of ownSales) if ((renewals.get(member)?.renewed_at ?? -Infinity) < sale.renewed_at) renewals.set(member, sale);
  return { ...trust, renewals };
}

async function errorText(response) {
  try {
    const body = await response.json();
    return body?.error?.message ? `: ${body.error.message}` : "";
  } catch {
    return "";
  }
}
