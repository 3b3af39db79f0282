// Numbers, money, days, times and durations as the console shows them. Algiers is the service's clock (UTC+1 all
// year): every time and day is Algiers', whatever the operator's computer says.
import { currentLanguage, plural, text } from "./texts.js";

export const ZONE = "Africa/Algiers";
/** Arabic as Algeria writes it: Latin digits (ar-DZ's own default, and said again so no browser differs). */
const LOCALES = { en: "en", fr: "fr-DZ", ar: "ar-DZ" };
const cache = new Map();

function locale() {
  return LOCALES[currentLanguage()] ?? "en";
}

function formatter(kind, options) {
  const key = `${locale()}|${kind}`;
  if (!cache.has(key)) {
    const made = kind.startsWith("date")
      ? new Intl.DateTimeFormat(locale(), { timeZone: ZONE, numberingSystem: "latn", ...options })
      : new Intl.NumberFormat(locale(), { numberingSystem: "latn", ...options });
    cache.set(key, made);
  }
  return cache.get(key);
}

export function number(value) {
  return value === null || value === undefined ? "—" : formatter("number", {}).format(value);
}

export function percent(fraction) {
  return fraction === null || fraction === undefined ? "—" : formatter("percent", { style: "percent", maximumFractionDigits: 1 }).format(fraction);
}

/** An amount in dinars: the language's number and its words for the currency. */
export function money(amount) {
  return text("money", { amount: number(amount) });
}

/** A moment (Unix seconds) as a date and a 24-hour time, as the CLI writes it: an operator compares the two. */
export function dateTime(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  return formatter("datetime", { dateStyle: "medium", timeStyle: "short", hourCycle: "h23" }).format(new Date(seconds * 1000));
}

/** A day (`YYYY-MM-DD`, an Algiers day) in words. Noon UTC is that same day in Algiers. */
export function day(iso, style = "medium") {
  const [year, month, date] = iso.split("-").map(Number);
  return formatter(`date-${style}`, { dateStyle: style }).format(new Date(Date.UTC(year, month - 1, date, 12)));
}

/** Today in Algiers, `YYYY-MM-DD`. */
export function today(now = new Date()) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en", { timeZone: ZONE, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(now).map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}`;
}

export function addDays(iso, count) {
  const [year, month, date] = iso.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, date + count)).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (both `YYYY-MM-DD`). */
export function daysBetween(from, to) {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86400000);
}

/** A length of time in the largest unit that keeps it a whole number worth reading: 40 seconds, 4 minutes,
 *  3 hours, 2 days (rounded down: "5 hours" means at least five). */
export function duration(seconds) {
  const value = Math.max(0, Math.floor(seconds));
  const [unit, count] = value < 60 ? ["seconds", value] : value < 3600 ? ["minutes", Math.floor(value / 60)]
    : value < 172800 ? ["hours", Math.floor(value / 3600)] : ["days", Math.floor(value / 86400)];
  return plural(`duration.${unit}`, count, number(count));
}

export function ago(seconds) {
  return text("ago", { duration: duration(seconds) });
}
