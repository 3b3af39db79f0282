// The web counter's cash sales, as `peez counter activate` makes them (Sources/CounterApp/SaleJournal.swift and
// CounterSeller.swift): each journaled with a fresh idempotency key before it is sent, sent again under that key
// while its answer is unknown, and its answer journaled; the confirmed ones count at this counter at once.
import { CounterProblem, DEVICE_REFUSED, answered, unreachable } from "./problems.js";
import { MONTHLY_PRICE_DZD, MONTHS_SOLD } from "./rules.js";

/** Answers after which the same sale may and must be sent again under its key: the answer is not known. */
const ANSWER_UNKNOWN = new Set([401, 403, 408, 409, 429]);

export class SalesDesk {
  /** The desk over `store`'s journal, its confirmed sales already counted. */
  static async open(store) {
    const desk = new SalesDesk(store);
    desk.ownSales = ownRenewals(await store.sales());
    return desk;
  }

  constructor(store) {
    this.store = store;
    /** The renewals this counter sold itself, by membership id (ownRenewals). */
    this.ownSales = new Map();
  }

  /** Starts a cash sale to the member of an authentic card: the amount checked, the sale journaled under a fresh
   *  idempotency key before anything is sent; then sent to `service` ({server, secret}). */
  async sell(service, { claims, months, paid, now }) {
    if (!MONTHS_SOLD.includes(months)) throw new CounterProblem("sell.months_wrong");
    if (paid !== MONTHLY_PRICE_DZD * months) throw new CounterProblem("sell.amount_wrong", { months, amount: MONTHLY_PRICE_DZD * months });
    const sale = { key: crypto.randomUUID(), membershipID: claims.sub, name: claims.name, months, amountDZD: paid, at: now, status: "pending" };
    await this.store.putSale(sale);
    return this.send(service, sale);
  }

  /** Sends a journaled sale under its key: confirmed or refused for good (journaled), or still pending with the
   *  `problem` (a CounterProblem) that kept its answer unknown. */
  async send({ server, secret }, sale) {
    let response;
    try {
      response = await fetch(new URL("v1/activations", server), {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json", "Idempotency-Key": sale.key },
        body: JSON.stringify({ membership_id: sale.membershipID, months: sale.months, amount_dzd: sale.amountDZD }),
      });
    } catch (error) {
      return { ...sale, problem: unreachable(error) };
    }
    if (response.status === 201) {
      const body = await response.json().catch(() => null);
      if (typeof body?.coverage_end !== "string" || body.coverage_end === "") return { ...sale, problem: new CounterProblem("problem.answer_unreadable") };
      const confirmed = { ...sale, status: "confirmed", coverageEnd: body.coverage_end };
      await this.store.putSale(confirmed);
      this.ownSales = ownRenewals(await this.store.sales());
      return confirmed;
    }
    const problem = await answered(response);
    // A device cut off (a stolen phone) is refused for good: the sale is not recorded and will not be.
    if (!DEVICE_REFUSED.has(problem.key) && (ANSWER_UNKNOWN.has(response.status) || response.status >= 500)) return { ...sale, problem };
    // Journaled as words a person can read later in any language: the text key and its values, and the detail.
    const refused = { ...sale, status: "refused", refusal: { key: problem.key, values: problem.values, detail: problem.detail } };
    await this.store.putSale(refused);
    return refused;
  }

  /** The sales whose answer never came, oldest first. */
  async pending() {
    return (await this.store.sales()).filter((sale) => sale.status === "pending").sort((a, b) => a.at - b.at);
  }

  /** Sends every pending sale again, under its own key. */
  async retryPending(service) {
    const results = [];
    for (const sale of await this.pending()) results.push(await this.send(service, sale));
    return results;
  }
}

/** The sales whose cash goes back to the member once the counter is cut off, oldest first (SaleJournal's
 *  salesToGiveBack, counter-vectors.json's `cut_off`): never answered, or refused because the service refused this
 *  device's own credential. */
export function salesToGiveBack(sales) {
  return sales.filter((sale) => sale.status === "pending" || (sale.status === "refused" && DEVICE_REFUSED.has(sale.refusal?.key)))
    .sort((a, b) => a.at - b.at);
}

/** The sales a counter cut off for `mark` keeps (SaleJournal.closeForCutOff): those to give back, by membership id
 *  (the member's name leaves with the trust data), each one never answered closed as refused for the cut-off, so
 *  that no later enrolment sends it again (its cash went back). */
export function closedForCutOff(sales, mark) {
  return salesToGiveBack(sales).map(({ name: _name, ...sale }) =>
    sale.status === "pending"
      ? { ...sale, status: "refused", refusal: { key: mark.reason, values: {}, detail: "not sent: this counter was cut off" } }
      : sale);
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
export function withOwnSales(trust, ownSales) {
  if (ownSales.size === 0) return trust;
  const renewals = new Map(trust.renewals);
  for (const [member, sale] of ownSales) if ((renewals.get(member)?.renewed_at ?? -Infinity) < sale.renewed_at) renewals.set(member, sale);
  return { ...trust, renewals };
}
