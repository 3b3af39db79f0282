// Cards seen at two shops within minutes of each other: one card cannot be at both, so it was copied (a
// screenshot passed on) or lent. The answer is to revoke the member's cards; the member's app then fetches a new
// one that only the member's phone holds.
import { get } from "./api.js";
import { el, line, ltr, table, tableRow } from "./dom.js";
import { dateTime, duration } from "./format.js";
import { revokeCardsButton } from "./revoke.js";
import { text } from "./texts.js";

function memberCell(card) {
  return el("div", { className: "who" }, [
    el("strong", { dir: "auto", textContent: card.member_name || text("anomalies.no_name") }),
    ltr(card.membership_id, "ltr id"),
  ]);
}

function scanCell(scan) {
  return el("div", { className: "scan" }, [
    el("strong", { dir: "auto", textContent: scan.vendor_name || text("anomalies.unknown_shop") }),
    el("span", { textContent: dateTime(scan.scanned_at) }),
    ltr(scan.counter_id, "ltr uuid"),
  ]);
}

export default {
  name: "anomalies",
  range: true,
  charts: false,
  load: (ctx) => get("api/anomalies", { from: ctx.range.from, to: ctx.range.to }),
  render(data, ctx) {
    const cards = data.cards ?? [];
    const help = line(text("anomalies.help", { within: duration(data.within_seconds ?? 600) }), "help");
    if (cards.length === 0) return [help, line(text("anomalies.none"), "empty")];
    const rows = cards.map((card) => tableRow([
      memberCell(card),
      scanCell(card.earlier),
      scanCell(card.later),
      duration(card.seconds_apart),
      revokeCardsButton({ uuid: card.member_uuid, name: card.member_name, membershipID: card.membership_id, revoked: card.cards_revoked }, ctx),
    ], { className: "anomaly" }, { token: card.token_id, member: card.member_uuid }));
    return [help, table([text("anomalies.member"), text("anomalies.earlier"), text("anomalies.later"), text("anomalies.apart"), text("anomalies.action")], rows)];
  },
};
