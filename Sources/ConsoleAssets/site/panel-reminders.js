// Renewal reminders over the range: how each channel's deliveries ended, what waits in the outbox now (an old
// "oldest due" means a channel is stuck), and the service's chart per day.
import { get } from "./api.js";
import { crossTable, named } from "./crosstab.js";
import { chart, el, line, table } from "./dom.js";
import { dateTime, day, number } from "./format.js";
import { text } from "./texts.js";

// The channels `peez remind run --channel` records reminders for: push (a webhook or JSON Lines) and wallet.
const CHANNELS = ["push", "wallet"];
const OUTCOMES = ["delivered", "failed", "exhausted", "superseded", "retried"];

export default {
  name: "reminders",
  range: true,
  charts: true,
  load: (ctx) => get("api/reminders", { from: ctx.range.from, to: ctx.range.to, lang: ctx.lang }),
  render(data) {
    const outbox = data.outbox ?? [];
    return [
      line(text("range.shown", { from: day(data.from), to: day(data.to) }), "panel-range"),
      crossTable(data.by_outcome ?? [], { rowField: "channel", rows: CHANNELS, outcomes: OUTCOMES, rowKey: "channel.", heading: text("reminders.channel") }),
      el("h3", { textContent: text("reminders.outbox") }),
      outbox.length === 0
        ? line(text("reminders.outbox_empty"), "empty")
        : table(
          [text("reminders.channel"), text("reminders.waiting"), text("reminders.oldest")],
          outbox.map((row) => [named("channel.", row.channel), number(row.waiting), row.oldest_due_at ? dateTime(row.oldest_due_at) : text("none")]),
          { className: "numbers" },
        ),
      chart(data.chart, text("reminders.chart")),
    ];
  },
};
