// A count table of rows × outcomes from the service's list of {row, outcome, count}: the reminders' channels and
// the wallet's platforms. Known rows and outcomes come in a fixed order, each with its translated name; one the
// page does not know yet is still shown, under its own name.
import { number } from "./format.js";
import { text } from "./texts.js";
import { table } from "./dom.js";

function withUnknown(known, seen) {
  return [...known, ...[...new Set(seen)].filter((name) => !known.includes(name))];
}

/** `items` the service's list; `rowField` the field naming the row; `rows`, `outcomes` the known names, in order;
 *  `rowKey` the text key prefix for a row's name ("channel." + name). */
export function crossTable(items, { rowField, rows, outcomes, rowKey, heading }) {
  const allRows = withUnknown(rows, items.map((item) => item[rowField]));
  const allOutcomes = withUnknown(outcomes, items.map((item) => item.outcome));
  const count = (row, outcome) => items.filter((item) => item[rowField] === row && item.outcome === outcome).reduce((sum, item) => sum + (item.count ?? 0), 0);
  return table(
    [heading, ...allOutcomes.map((outcome) => named("outcome.", outcome))],
    allRows.map((row) => [named(rowKey, row), ...allOutcomes.map((outcome) => number(count(row, outcome)))]),
    { className: "numbers" },
  );
}

/** A known name translated, an unknown one as the service gave it. */
export function named(prefix, name) {
  const translated = text(prefix + name);
  return translated === prefix + name ? name : translated;
}
