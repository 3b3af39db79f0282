// The audit trail, newest first: who did what from where. Every console action is written there under the name
// its sign-in link was made for. Actions are the service's own names (member.cards_revoked…), shown as given.
import { get } from "./api.js";
import { line, ltr, own, table, tableRow } from "./dom.js";
import { dateTime } from "./format.js";
import { text } from "./texts.js";

const LIMIT = 20;

export default {
  name: "audit",
  range: false,
  charts: false,
  load: () => get("api/audit", { limit: LIMIT }),
  render(data) {
    const entries = [...(data.entries ?? [])].sort((a, b) => b.seq - a.seq);
    if (entries.length === 0) return [line(text("audit.none"), "empty")];
    return [table(
      [text("audit.seq"), text("audit.at"), text("audit.actor"), text("audit.address"), text("audit.action"), text("audit.target"), text("audit.detail")],
      entries.map((entry) => tableRow([
        String(entry.seq), dateTime(entry.at), own(entry.actor), ltr(entry.address), ltr(entry.action, "ltr code"), ltr(entry.target, "ltr uuid"),
        own(entry.detail ?? ""),
      ], { className: "entry" }, { seq: entry.seq })),
      { className: "audit" },
    )];
  },
};
