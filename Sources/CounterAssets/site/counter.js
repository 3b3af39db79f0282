// The web counter without its screen, split as `peez counter` is (Sources/CounterApp): the trust data and the
// verdicts here (CounterVerdict.swift), the scan log in scan-log.js (ScanLog.swift), the sales in sales.js
// (SaleJournal.swift, CounterSeller.swift), the cut-off here too (CounterCutOff.swift). The page (app.js) and the
// tests drive it.
import { CounterProblem, DEVICE_REFUSED, answered, unreachable } from "./problems.js";
import { CLOCK_TOLERANCE, TRUST_WARNING_AGE } from "./rules.js";
import { SalesDesk, closedForCutOff, withOwnSales } from "./sales.js";
import { ScanLogBook, scanEntryFields } from "./scan-log.js";
import { TrustError, accept, enrol, renewalFor, trustOf, verifierOf, wantsWholeList } from "./trust.js";
import { STANDARD_WINDOW } from "./verifier.js";

/** The device's clock, in whole seconds. */
export function deviceNow() {
  return Math.floor(Date.now() / 1000);
}

/** Whether the vendor secret may be sent to `url`: over https, or to this device itself. */
export function isSafeTransport(url) {
  const { protocol, hostname } = new URL(url);
  return protocol === "https:" || (protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(hostname));
}

/** Whether the device's clock and the trust data let a card be confirmed at `now` (CounterVerdict.judge's first
 *  checks): {cannotConfirm: null or {kind, …}, warnings}. `trustProblem` is the TrustError the held data failed
 *  with, if any. */
export function clockCheck({ state, trust, trustProblem = null, now }) {
  if (trustProblem !== null || !trust) {
    return { cannotConfirm: { kind: "trust_unusable", problem: trustProblem ?? new TrustError("none", "no trust data is held") }, warnings: [] };
  }
  if (now < state.newestServerTime - CLOCK_TOLERANCE) {
    return { cannotConfirm: { kind: "clock_behind", device: now, service: state.newestServerTime }, warnings: [] };
  }
  if (now > trust.validUntil) return { cannotConfirm: { kind: "trust_expired", until: trust.validUntil }, warnings: [] };
  const age = now - state.lastSyncAt;
  return { cannotConfirm: null, warnings: age > TRUST_WARNING_AGE ? [{ kind: "trust_age", hours: Math.floor(age / 3600) }] : [] };
}

export class WebCounter {
  /** The counter held in `store`: its trust data checked again from the signatures, or the reason it cannot be.
   *  The cut-off mark is read before anything else: a counter PEEZ cut off finishes forgetting (a cut-off the page
   *  was closed in the middle of ends here) and holds no trust data, whatever else the store held. */
  static async load(store) {
    const cutOff = (await store.get("cutOff")) ?? null;
    const counter = new WebCounter(store, await SalesDesk.open(store));
    if (cutOff) {
      counter.cutOff = cutOff;
      await counter.forget();
      return counter;
    }
    counter.state = (await store.get("state")) ?? null;
    counter.secret = (await store.get("secret")) ?? null;
    counter.counterID = (await store.get("counterID")) ?? null;
    counter.credentialID = (await store.get("credentialID")) ?? null;
    if (counter.state) {
      try {
        counter.trust = await trustOf(counter.state);
      } catch (error) {
        counter.trustProblem = error;
      }
    }
    return counter;
  }

  constructor(store, sales) {
    this.store = store;
    this.log = new ScanLogBook(store);
    this.sales = sales;
    this.state = null;
    this.trust = null;
    this.trustProblem = null;
    this.credentialID = null;
    /** The cut-off mark ({at, reason, detail}) once the service refused this device's own credential, else null. */
    this.cutOff = null;
    this.cuttingOff = null;
    /** Called with the mark when this counter is cut off (the page shows it). */
    this.onCutOff = null;
    this.recent = new Map();
    this.window = STANDARD_WINDOW;
    // The verifier over the trust data held, made again when a sync brings new trust data.
    this.verifierCache = null;
    this.verifierFor = null;
  }

  get enrolled() {
    return this.cutOff === null && this.state !== null && this.secret !== null;
  }

  /** Where and as whom sales and reports go. */
  get service() {
    return { server: this.state.server, secret: this.secret };
  }

  /** Enrols against the service this page came from: fetches the first bundle with the vendor secret. */
  async enrol({ server, secret, expectedKeyID = null, now = deviceNow() }) {
    if (!isSafeTransport(server)) throw new CounterProblem("enrol.unsafe");
    const bytes = await this.fetchBundle(server, secret, null);
    const { state, trust } = await enrol(bytes, { server, expectedKeyID, now });
    const counterID = this.counterID ?? crypto.randomUUID();
    // Enrolling again (with a new code from PEEZ) is the only way out of a cut-off: the mark leaves with this write.
    await this.store.set({ state, secret, counterID, cutOff: undefined });
    Object.assign(this, { state, trust, secret, counterID, trustProblem: null, cutOff: null, cuttingOff: null });
  }

  /** Enrols with a one-time code (from the link PEEZ gave, or its QR code): the code is exchanged for this
   *  device's own credential, which is never shown; then the first bundle is fetched with it. */
  async enrolWithCode({ server, code, label, now = deviceNow() }) {
    if (!isSafeTransport(server)) throw new CounterProblem("enrol.unsafe");
    let response;
    try {
      response = await fetch(new URL("v1/enrolments", server), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ code, label }),
        cache: "no-store",
      });
    } catch (error) {
      throw unreachable(error);
    }
    if (response.status !== 201) throw await answered(response);
    const issued = await response.json().catch(() => null);
    if (typeof issued?.secret !== "string") throw new CounterProblem("problem.answer_unreadable");
    await this.enrol({ server, secret: issued.secret, now });
    // The credential's id (not its secret) names this device to PEEZ: what the operator revokes if it is lost.
    this.credentialID = typeof issued.credential?.id === "string" ? issued.credential.id : null;
    await this.store.set({ credentialID: this.credentialID });
  }

  /** A signed bundle's bytes; a CounterProblem when the service cannot be reached or refuses. */
  async fetchBundle(server, secret, since, renewalsAfter = null) {
    const url = new URL("v1/counter/bundle", server);
    if (since !== null) url.searchParams.set("since", String(since));
    if (renewalsAfter !== null) url.searchParams.set("renewals_after", String(renewalsAfter));
    let response;
    try {
      response = await fetch(url, { headers: { Authorization: `Bearer ${secret}`, Accept: "application/cose" }, cache: "no-store" });
    } catch (error) {
      throw unreachable(error);
    }
    if (!response.ok) throw await answered(response);
    return new Uint8Array(await response.arrayBuffer());
  }

  /** A sync: the newest trust data (a delta when it can), then the scan log reported. Keeps what is held when
   *  the new data fails its check. */
  async sync(now = deviceNow()) {
    const whole = wantsWholeList(this.state);
    let bytes;
    try {
      bytes = await this.fetchBundle(this.state.server, this.secret, whole ? null : this.trust.version, whole ? null : this.trust.issuedAt);
    } catch (error) {
      await this.cutOffIfRefused(error, now);
      throw error;
    }
    const { state, trust } = await accept(bytes, { state: this.state, trust: this.trust, now });
    await this.store.set({ state });
    Object.assign(this, { state, trust });
    try {
      return { trust, report: await this.log.report({ ...this.service, counterID: this.counterID }) };
    } catch (error) {
      await this.cutOffIfRefused(error, now);
      throw error;
    }
  }

  /** The shop's own account as the service keeps it (what it owes PEEZ, today's takings); a CounterProblem when the
   *  service cannot be reached or refuses. Never kept: it is only shown while online. */
  async account() {
    let response;
    try {
      response = await fetch(new URL("v1/counter/account", this.state.server), {
        headers: { Authorization: `Bearer ${this.secret}` },
        cache: "no-store",
      });
    } catch (error) {
      throw unreachable(error);
    }
    if (!response.ok) throw await answered(response);
    const account = await response.json().catch(() => null);
    if (!Number.isSafeInteger(account?.balance_dzd) || !Number.isSafeInteger(account?.today_figures?.sales)) {
      throw new CounterProblem("problem.answer_unreadable");
    }
    return account;
  }

  /** Cuts this counter off when `problem` is the service's refusal of this device's own credential (revoked, or
   *  replaced: DEVICE_REFUSED; never a lost network or another answer), as CounterStore.cutOff does: the mark
   *  first, kept across reloads (the first refusal's time stays); each sale never answered sent once more (the
   *  service refuses it and keeps it for PEEZ's operator); then what a cut-off counter must not keep is forgotten
   *  and the page told. Whether it was such a refusal. */
  async cutOffIfRefused(problem, now = deviceNow()) {
    if (!(problem instanceof CounterProblem) || !DEVICE_REFUSED.has(problem.key)) return false;
    this.cuttingOff ??= (async () => {
      const mark = (await this.store.get("cutOff")) ?? { at: now, reason: problem.key, detail: problem.detail };
      await this.store.set({ cutOff: mark });
      this.cutOff = mark;
      if (this.state !== null && this.secret !== null) {
        for (const sale of await this.sales.pending()) {
          await this.sales.send(this.service, sale).catch((error) => console.warn(error));
        }
      }
      await this.forget();
      this.onCutOff?.(mark);
    })();
    await this.cuttingOff;
    return true;
  }

  /** Forgets, after a cut-off, the credential, the trust data, the scan log and every sale but those whose cash
   *  goes back (CounterStore.forget); safe to run again. */
  async forget() {
    await this.store.forgetAfterCutOff(this.cutOff, closedForCutOff(await this.store.sales(), this.cutOff));
    Object.assign(this, { state: null, secret: null, trust: null, trustProblem: null, counterID: null, credentialID: null });
    this.verifierCache = null;
    this.verifierFor = null;
    this.recent.clear();
    this.sales.ownSales = new Map();
  }

  /** A cash sale (SalesDesk.sell) sent as this device; the service's refusal of its credential cuts it off. */
  async sell(order) {
    return this.afterSale(await this.sales.sell(this.service, order));
  }

  /** A journaled sale sent again under its key (SalesDesk.send). */
  async sendSale(sale) {
    return this.afterSale(await this.sales.send(this.service, sale));
  }

  /** Every sale still pending sent again, each under its own key, until the answers are in or the counter is cut off. */
  async sendPending() {
    const results = [];
    for (const sale of await this.sales.pending()) {
      if (!this.enrolled) break;
      results.push(await this.sendSale(sale));
    }
    return results;
  }

  async afterSale(sale) {
    if (sale.status === "refused" && DEVICE_REFUSED.has(sale.refusal?.key)) {
      await this.cutOffIfRefused(new CounterProblem(sale.refusal.key, sale.refusal.values, sale.refusal.detail));
    }
    return sale;
  }

  /** The verdict on a scanned text at the device's time `now`: {code, result, renewal, cannotConfirm, warnings}. */
  async judge(text, now = deviceNow()) {
    // A counter PEEZ cut off gives no verdict at all, not even a refusal.
    if (this.cutOff !== null) throw new CounterProblem("cut_off.revoked", {}, "this counter was cut off by PEEZ");
    const { cannotConfirm, warnings } = clockCheck({ state: this.state, trust: this.trust, trustProblem: this.trustProblem, now });
    if (cannotConfirm !== null) return { code: "cannot_confirm", cannotConfirm, warnings };
    if (this.verifierFor !== this.trust) {
      this.verifierCache = verifierOf(this.trust, this.window);
      this.verifierFor = this.trust;
    }
    const result = await this.verifierCache.verify(text, BigInt(now));
    const first = this.notePresentation(result, now);
    if (first !== null) warnings.push({ kind: "same_presentation", first });
    // An old card of a member who paid since (listed by the service, or sold here): VALID until the renewal's
    // end, the card to be refreshed.
    const renewal = renewalFor(result, withOwnSales(this.trust, this.sales.ownSales), now);
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
      if (response.status === 401) await this.cutOffIfRefused(await answered(response));
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

  /** Appends a verdict to the scan log, as `peez counter` logs it (nothing once the counter is cut off). */
  async record(judgement, now = deviceNow()) {
    if (this.cutOff !== null) return null;
    const claims = judgement.result?.claims;
    return this.log.append(scanEntryFields({
      now,
      verdict: judgement.code,
      member: claims?.sub,
      tokenID: claims?.cti,
      presentedAt: judgement.result?.presentedAt == null ? null : Number(judgement.result.presentedAt),
      offline: !navigator.onLine,
      lastSyncAt: this.state.lastSyncAt,
      newestServerTime: this.state.newestServerTime,
    }));
  }
}
