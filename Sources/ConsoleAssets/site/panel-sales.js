// Sales over the range: the totals, the service's chart (stacked bars, a day a bar, a shop a colour), each shop.
import { get } from "./api.js";
import { chart, figures, line, own, table } from "./dom.js";
import { day, money, number } from "./format.js";
import { text } from "./texts.js";

export default {
  name: "sales",
  range: true,
  charts: true,
  load: (ctx) => get("api/sales", { from: ctx.range.from, to: ctx.range.to, lang: ctx.lang }),
  render(data) {
    const total = data.total ?? {};
    const shops = data.shops ?? [];
    const counts = (row) => [number(row.sales), number(row.months), money(row.amount_dzd), number(row.cancelled)];
    return [
      line(text("range.shown", { from: day(data.from), to: day(data.to) }), "panel-range"),
      figures([
        [text("sales.sales"), number(total.sales), "sales"],
        [text("sales.months"), number(total.months), "months"],
        [text("sales.amount"), money(total.amount_dzd), "amount"],
        [text("sales.cancelled"), number(total.cancelled), "cancelled"],
      ]),
      chart(data.chart, text("sales.chart")),
      shops.length === 0
        ? line(text("sales.none"), "empty")
        : table(
          [text("sales.shop"), text("sales.sales"), text("sales.months"), text("sales.amount"), text("sales.cancelled")],
          shops.map((shop) => [own(shop.name), ...counts(shop)]),
          { className: "numbers", foot: [text("sales.total"), ...counts(total)] },
        ),
    ];
  },
};
