// Online payments (Chargily Pay): the range's payments by status as each stands now, what was paid, how many the
// service is still reading back from Chargily, and what Chargily said that sold nothing and needs the team.
import { get } from "./api.js";
import { named } from "./crosstab.js";
import { chart, el, figures, line, ltr, table, tableRow } from "./dom.js";
import { dateTime, day, money, number } from "./format.js";
import { text } from "./texts.js";

const STATUSES = ["paid", "pending", "processing", "failed", "canceled", "expired", "mismatched", "creating"];

/** One word from Chargily that sold nothing: when, what it was, the checkout; for a payment of another amount or
 *  mode, what Chargily said was paid (as the service wrote it). A list, not a table: it reads on a phone. */
function attentionItem(event) {
  return el("li", { className: "attention" }, [
    el("strong", { textContent: named("payment_outcome.", event.outcome) }),
    el("span", { textContent: " · " + dateTime(Date.parse(event.at) / 1000) }),
    el("div", {}, [ltr(event.checkout_id, "ltr id")]),
    ...(event.outcome === "mismatch" ? [el("div", { dir: "auto", textContent: event.detail })] : []),
  ], { outcome: event.outcome, checkout: event.checkout_id });
}

export default {
  name: "payments",
  range: true,
  charts: true,
  load: (ctx) => get("api/payments", { from: ctx.range.from, to: ctx.range.to, lang: ctx.lang }),
  render(data) {
    const byStatus = [...(data.by_status ?? [])].sort((a, b) => STATUSES.indexOf(a.status) - STATUSES.indexOf(b.status));
    const attention = data.attention ?? [];
    return [
      line(text("range.shown", { from: day(data.from), to: day(data.to) }), "panel-range"),
      figures([
        [text("payments.paid"), number(data.paid), "paid"],
        [text("payments.paid_dzd"), money(data.paid_dzd), "paid_dzd"],
        [text("payments.unsettled"), number(data.unsettled), "unsettled"],
      ]),
      table(
        [text("payments.status"), text("payments.count"), text("payments.dzd")],
        byStatus.map((row) => tableRow([named("payment.", row.status), number(row.count), money(row.dzd)], {}, { status: row.status })),
        { className: "numbers" },
      ),
      chart(data.chart, text("chart.payments")),
      el("h3", { textContent: text("payments.attention") }),
      attention.length === 0
        ? line(text("payments.attention_none"), "empty")
        : el("ul", { className: "attention-list" }, attention.map(attentionItem)),
    ];
  },
};
