// Renewals: of the members whose paid time ended in the range, how many paid again; how many end in the 7 and 30
// days from the range's last day (today at the latest), and the service's chart of the ends on each of those days.
import { get } from "./api.js";
import { chart, figures, line } from "./dom.js";
import { day, number, percent } from "./format.js";
import { text } from "./texts.js";

export default {
  name: "renewals",
  range: true,
  charts: true,
  load: (ctx) => get("api/renewals", { from: ctx.range.from, to: ctx.range.to, lang: ctx.lang }),
  render(data) {
    // No paid time ended in the range: there is no rate to give (null), not a rate of zero.
    const explained = data.rate === null || data.rate === undefined
      ? text("renewals.no_rate")
      : text("renewals.renewed", { renewed: number(data.renewed), due: number(data.due) });
    return [
      line(text("range.shown", { from: day(data.from), to: day(data.to) }), "panel-range"),
      figures([
        [text("renewals.rate"), percent(data.rate), "rate"],
        [text("renewals.ending_7"), number(data.ending_7), "ending_7"],
        [text("renewals.ending_30"), number(data.ending_30), "ending_30"],
      ]),
      line(explained, "renewed"),
      line(text("renewals.ahead", { day: day(data.ahead_from) }), "ahead"),
      chart(data.chart, text("renewals.chart")),
    ];
  },
};
