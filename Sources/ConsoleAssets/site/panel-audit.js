// The audit trail, newest first: who did what from where. Every console action is written there under the name
// its sign-in link was made for. Actions and their details are said in the console's language (the detail fact by
// fact, from the entry's values); an entry kept before its values were shows its detail as written.
import { get } from "./api.js";
import { line, ltr, own, table, tableRow } from "./dom.js";
import { dateTime } from "./format.js";
import { named } from "./crosstab.js";
import { text } from "./texts.js";

const LIMIT = 20;

/** One fact of an entry's detail in the console's language: a role by its name, changed fields by theirs. */
function fact({ name, value }) {
  const said = name === "role" ? named("role.", value)
    : name === "fields" ? value.split(",").map((field) => named("member.", field)).join(", ")
    : value;
  return `${named("audit.value.", name)}: ${said}`;
}

/** What an entry says beyond its action: its facts one by one, else the detail as the service wrote it. */
function detail(entry) {
  return Array.isArray(entry.values) ? entry.values.map(fact).join(" · ") : entry.detail ?? "";
}

export default {
  name: "audit",
  range: true,
  charts: false,
  load: (ctx) => get("api/audit", { from: ctx.range.from, to: ctx.range.to, limit: LIMIT }),
  render(data) {
    const entries = [...(data.entries ?? [])].sort((a, b) => b.seq - a.seq);
    if (entries.length === 0) return [line(text("audit.none"), "empty")];
    return [table(
      [text("audit.seq"), text("audit.at"), text("audit.actor"), text("audit.address"), text("audit.action"), text("audit.target"), text("audit.detail")],
      entries.map((entry) => tableRow([
        String(entry.seq), dateTime(entry.at), own(entry.actor), ltr(entry.address), named("action.", entry.action), ltr(entry.target, "ltr uuid"),
        own(detail(entry)),
      ], { className: "entry" }, { seq: entry.seq })),
      { className: "audit" },
    )];
  },
};
