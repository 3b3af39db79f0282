// The range of days the sales, renewals, reminders and wallet panels cover: two days (inclusive, Algiers days)
// picked in the header, or the last 7, 30 or 90 days ending today. The service takes at most 366 days.
import { addDays, daysBetween, today } from "./format.js";
import { text } from "./texts.js";

const $ = (id) => document.getElementById(id);
const PRESETS = [7, 30, 90];
const LONGEST = 366;

export function lastDays(count) {
  const to = today();
  return { from: addDays(to, 1 - count), to };
}

/** The inputs and presets showing `range` (a preset pressed when the range is exactly it). */
export function showRange(range) {
  $("range-from").value = range.from;
  $("range-to").value = range.to;
  for (const count of PRESETS) {
    const preset = lastDays(count);
    $(`range-${count}`).setAttribute("aria-pressed", String(preset.from === range.from && preset.to === range.to));
  }
  $("range-problem").textContent = "";
}

/** Calls `changed(range)` with each new valid range the operator picks; an impossible one is said and ignored. */
export function wireRange(changed) {
  const picked = () => {
    const from = $("range-from").value;
    const to = $("range-to").value;
    if (!from || !to) return;
    const span = daysBetween(from, to);
    if (span < 0 || span >= LONGEST) {
      $("range-problem").textContent = text("range.invalid", { days: LONGEST });
      return;
    }
    changed({ from, to });
  };
  $("range-from").addEventListener("change", picked);
  $("range-to").addEventListener("change", picked);
  for (const count of PRESETS) $(`range-${count}`).addEventListener("click", () => changed(lastDays(count)));
}
