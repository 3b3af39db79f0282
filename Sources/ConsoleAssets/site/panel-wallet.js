// Wallet passes: how many Apple passes and devices and Google pass objects there are, the pushes over the range
// by outcome, and the service's chart per day.
import { get } from "./api.js";
import { crossTable } from "./crosstab.js";
import { chart, figures, line } from "./dom.js";
import { day, number } from "./format.js";
import { text } from "./texts.js";

const PLATFORMS = ["apple", "google"];
const OUTCOMES = ["delivered", "failed", "retried", "superseded"];

export default {
  name: "wallet",
  range: true,
  charts: true,
  load: (ctx) => get("api/wallet", { from: ctx.range.from, to: ctx.range.to, lang: ctx.lang }),
  render(data) {
    return [
      line(text("range.shown", { from: day(data.from), to: day(data.to) }), "panel-range"),
      figures([
        [text("wallet.apple_passes"), number(data.apple_passes), "apple_passes"],
        [text("wallet.apple_devices"), number(data.apple_devices), "apple_devices"],
        [text("wallet.google_objects"), number(data.google_objects), "google_objects"],
        [text("wallet.outbox_waiting"), number(data.outbox_waiting), "outbox_waiting"],
      ]),
      crossTable(data.pushes ?? [], { rowField: "platform", rows: PLATFORMS, outcomes: OUTCOMES, rowKey: "platform.", heading: text("wallet.platform") }),
      chart(data.chart, text("wallet.chart")),
    ];
  },
};
