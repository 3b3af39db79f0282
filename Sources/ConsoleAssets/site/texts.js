// The console's words: console-texts.json, in the language the header's select chose. Every text on the page
// comes through here, so changing the language is re-rendering, never translating what is already shown.
const STORED = "peez.console.lang";
export const LANGUAGES = ["en", "fr", "ar"];

let texts = {};
let language = "en";

export async function loadTexts() {
  const response = await fetch("console-texts.json", { credentials: "same-origin" });
  texts = (await response.json()).languages;
}

export function currentLanguage() {
  return language;
}

/** The language remembered on this browser, else the browser's own when the console speaks it, else English. */
export function preferredLanguage() {
  let saved = null;
  try {
    saved = localStorage.getItem(STORED);
  } catch {
    // Storage refused (a private window's policy): the browser's language is used each time.
  }
  const browser = (navigator.language ?? "").slice(0, 2).toLowerCase();
  return LANGUAGES.includes(saved) ? saved : LANGUAGES.includes(browser) ? browser : "en";
}

export function setLanguage(code) {
  language = LANGUAGES.includes(code) ? code : "en";
  try {
    localStorage.setItem(STORED, language);
  } catch {
    // Not remembered: nothing else depends on it.
  }
  const root = document.documentElement;
  root.lang = language;
  root.dir = language === "ar" ? "rtl" : "ltr";
  document.title = text("title");
  for (const element of document.querySelectorAll("[data-text]")) element.textContent = text(element.dataset.text);
}

function template(key) {
  return texts[language]?.[key] ?? texts.en?.[key] ?? key;
}

/** The text `key` with its placeholders filled in one pass: a value is never read as a template itself (a member
 *  named "{count}" is shown as written). */
export function text(key, values = {}) {
  return template(key).replace(/\{([a-z_0-9]+)\}/g, (placeholder, name) => (Object.hasOwn(values, name) ? String(values[name]) : placeholder));
}

/** The key of `key`'s plural form for `count` (CLDR categories through Intl.PluralRules: Arabic has six, the
 *  file gives one, two, few, many and other in every language; zero falls back to other). */
function pluralKey(key, count) {
  const form = new Intl.PluralRules(language).select(count);
  const forms = texts[language] ?? {};
  return forms[`${key}.${form}`] !== undefined ? `${key}.${form}` : `${key}.other`;
}

/** `text` in the plural form `count` asks for; `count` is written by `shown` (a formatted number). */
export function plural(key, count, shown = String(count), values = {}) {
  return text(pluralKey(key, count), { ...values, count: shown });
}

/** A name or label put into a sentence, isolated (FSI…PDI) in an Arabic one, where a Latin name, or one ending
 *  in a digit or a bracket, would otherwise reorder the line around it. Left as it is in English and French. */
export function inLine(value) {
  return language === "ar" ? `\u2068${value}\u2069` : String(value);
}

/** The text `key` as nodes, where a value may itself be a node (a <code> command, an isolated id): the page
 *  never parses text as HTML. */
export function nodes(key, values = {}) {
  const parts = [];
  const source = template(key);
  let last = 0;
  for (const match of source.matchAll(/\{([a-z_0-9]+)\}/g)) {
    if (!Object.hasOwn(values, match[1])) continue;
    parts.push(source.slice(last, match.index));
    const value = values[match[1]];
    parts.push(value instanceof Node ? value : String(value));
    last = match.index + match[0].length;
  }
  parts.push(source.slice(last));
  return parts.filter((part) => part !== "");
}
