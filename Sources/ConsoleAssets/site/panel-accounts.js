// The shops' cash: what each shop owes PEEZ now, since when (its oldest cash not yet handed over), the shops past
// the team's limit (set here for the whole team, audited), and each shop's balance over the range.
import { get, request } from "./api.js";
import { chart, el, figures, line, problemText, table, tableRow } from "./dom.js";
import { day, money, number } from "./format.js";
import { text } from "./texts.js";

/** The limit's form: a whole number of dinars, or empty for none; saved for the team, then the panel is drawn
 *  again with it. */
function limitForm(data, ctx) {
  const current = data.limit_dzd === undefined || data.limit_dzd === null ? "" : String(data.limit_dzd);
  const input = el("input", { id: "accounts-limit", type: "number", min: "0", max: "1000000000", step: "1", inputMode: "numeric", value: current });
  const submit = el("button", { type: "submit", textContent: text("accounts.limit_set") });
  const form = el("form", { className: "inline-form" }, [
    el("label", {}, [el("span", { textContent: text("accounts.limit_label") + " " }), input]),
    submit,
  ]);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (value !== "" && !/^\d{1,10}$/.test(value)) return;
    submit.disabled = true;
    try {
      await request("PUT", "api/accounts/limit", { body: { limit_dzd: value === "" ? null : Number(value) } });
      ctx.status(text(value === "" ? "accounts.limit_removed" : "accounts.limit_saved", { limit: money(Number(value)) }), "done");
      ctx.refresh(["accounts", "audit"]);
    } catch (error) {
      submit.disabled = false;
      ctx.status(problemText(error), "error");
    }
  });
  return form;
}

export default {
  name: "accounts",
  range: true,
  charts: true,
  load: (ctx) => get("api/accounts", { from: ctx.range.from, to: ctx.range.to, lang: ctx.lang }),
  render(data, ctx) {
    const shops = data.shops ?? [];
    return [
      limitForm(data, ctx),
      figures([
        [text("accounts.total"), money(data.total_owed_dzd), "total_owed_dzd"],
        [text("accounts.over_limit"), data.limit_dzd === undefined || data.limit_dzd === null ? "—" : number(data.over_limit), "over_limit"],
      ]),
      shops.length === 0
        ? line(text("accounts.none"), "empty")
        : table(
          [text("accounts.shop"), text("accounts.owed"), text("accounts.since"), text("accounts.age")],
          shops.map((shop) => tableRow(
            [
              el("span", { dir: "auto", textContent: shop.vendor_name }), money(shop.balance_dzd),
              shop.oldest_unremitted_on ? day(shop.oldest_unremitted_on) : "—",
              shop.age_days === undefined ? "—" : text("accounts.days", { days: number(shop.age_days) }),
            ],
            { className: shop.over_limit ? "over-limit" : "" },
            { vendor: shop.vendor_id, owed: String(shop.balance_dzd), over: String(shop.over_limit) },
          )),
          { className: "numbers" },
        ),
      chart(data.chart, text("chart.accounts")),
    ];
  },
};
