// Subscriptions: the figures a subscription business reads (Docs/console.md, "Subscription figures"): monthly
// recurring revenue and what moved it, churn over the grace window, retention by cohort, the mix of lengths sold
// and what reminders brought back, all over the range up to today.
import { get } from "./api.js";
import { chart, el, figures, line, table } from "./dom.js";
import { named } from "./crosstab.js";
import { day, money, number, percent } from "./format.js";
import { text } from "./texts.js";

const signed = (amount, sign) => (amount === 0 ? money(0) : `${sign} ${money(Math.abs(amount))}`);

function bridge(revenue) {
  const row = (key, movement, sign) => [text(key), number(movement.members), signed(movement.dzd, sign)];
  return table(
    [text("subscriptions.movement"), text("subscriptions.members"), text("subscriptions.revenue")],
    [
      [text("subscriptions.start"), number(revenue.start_members), money(revenue.start_dzd)],
      row("subscriptions.new", revenue.new, "+"),
      row("subscriptions.renewed", revenue.renewed, "+"),
      row("subscriptions.returning", revenue.returning, "+"),
      row("subscriptions.ended", revenue.ended, "−"),
    ],
    { className: "numbers", foot: [text("subscriptions.end"), number(revenue.end_members), money(revenue.end_dzd)] },
  );
}

function cohorts(list) {
  const shown = list.filter((cohort) => cohort.members > 0);
  if (shown.length === 0) return line(text("subscriptions.no_cohorts"), "no-cohorts");
  const width = Math.max(...shown.map((cohort) => cohort.retention.length));
  return table(
    [text("subscriptions.cohort"), text("subscriptions.members"), ...Array.from({ length: width }, (_, month) => text("subscriptions.month_n", { n: number(month) }))],
    shown.map((cohort) => [cohort.month, number(cohort.members), ...Array.from({ length: width }, (_, month) => percent(cohort.retention[month]))]),
    { className: "numbers cohorts" },
  );
}

function mix(list) {
  return table(
    [text("subscriptions.length"), text("subscriptions.sales"), text("subscriptions.share"), text("subscriptions.new"), text("subscriptions.renewed"), text("subscriptions.returning")],
    list.map((item) => [
      named("subscriptions.length_", String(item.months)), number(item.sales), percent(item.share), number(item.new), number(item.renewed), number(item.returning),
    ]),
    { className: "numbers mix" },
  );
}

function reminders(list) {
  return table(
    [text("subscriptions.channel"), text("subscriptions.threshold"), text("subscriptions.delivered"), text("subscriptions.brought_back"), text("subscriptions.rate")],
    list.map((item) => [
      named("channel.", item.channel), named("threshold.", item.threshold), number(item.delivered), number(item.renewed), percent(item.rate),
    ]),
    { className: "numbers reminders-effect" },
  );
}

export default {
  name: "subscriptions",
  range: true,
  charts: true,
  load: (ctx) => get("api/subscriptions", { from: ctx.range.from, to: ctx.range.to, lang: ctx.lang }),
  render(data) {
    const churn = data.churn;
    return [
      line(text("range.shown", { from: day(data.from), to: day(data.to) }), "panel-range"),
      figures([
        [text("subscriptions.mrr"), money(data.revenue.end_dzd), "mrr"],
        [text("subscriptions.paying"), number(data.revenue.end_members), "paying"],
        [text("subscriptions.churn", { days: number(data.grace_days) }), percent(churn.rate), "churn"],
      ]),
      line(
        churn.through
          ? text("subscriptions.churn_explained", {
            lapsed: number(churn.lapsed.members), due: number(churn.due.members), through: day(churn.through), days: number(data.grace_days),
          })
          : text("subscriptions.churn_none", { days: number(data.grace_days) }),
        "churn-explained",
      ),
      line(text("subscriptions.in_grace", { members: number(data.revenue.in_grace.members) }), "in-grace"),
      el("h3", { textContent: text("subscriptions.bridge") }),
      bridge(data.revenue),
      chart(data.chart, text("subscriptions.chart")),
      el("h3", { textContent: text("subscriptions.cohorts") }),
      cohorts(data.cohorts),
      el("h3", { textContent: text("subscriptions.mix") }),
      mix(data.mix),
      el("h3", { textContent: text("subscriptions.reminders", { days: number(data.reminder_window_days) }) }),
      data.reminders.length ? reminders(data.reminders) : line(text("subscriptions.no_reminders"), "no-reminders"),
    ];
  },
};
