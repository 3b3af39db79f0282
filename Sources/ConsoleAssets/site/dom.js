// Small builders for the panels' DOM. Text always goes in as text (textContent), never as HTML, and a chart's SVG
// is parsed as SVG: the page's Content-Security-Policy allows no inline script or style, and a member's name is
// data, not markup.
import { ConsoleProblem } from "./api.js";
import { text } from "./texts.js";

/** An element: `props` are its properties (className, textContent, type, id…), `data` its data-* attributes. */
export function el(tag, props = {}, children = [], data = {}) {
  const element = Object.assign(document.createElement(tag), props);
  for (const [name, value] of Object.entries(data)) if (value !== null && value !== undefined) element.dataset[name] = value;
  element.append(...children.filter((child) => child !== null && child !== undefined && child !== ""));
  return element;
}

/** A piece written left to right whatever the line's direction (a membership id, a phone, a uuid, an address),
 *  kept whole in an Arabic line. */
export function ltr(value, className = "ltr") {
  return el("bdi", { className, dir: "ltr", textContent: value || "—" });
}

/** Data in its own direction (a name, a shop, the service's detail line: Arabic or Latin, starting with a digit
 *  or not), isolated so that the line around it keeps its order. */
export function own(value) {
  return el("bdi", { textContent: value || "—" });
}

export function line(content, className = "") {
  return el("p", { className }, Array.isArray(content) ? content : [content]);
}

/** What went wrong, in the page's language: a refusal as the service named it, anything else (a bug in the
 *  page, an answer not as the contract says) as unexpected, its detail in the browser console. */
export function problemText(error) {
  if (error instanceof ConsoleProblem) return text(error.key, error.values);
  console.error(error);
  return text("error.unexpected");
}

export function problemLine(error) {
  const made = el("p", { className: "problem", textContent: problemText(error) });
  made.setAttribute("role", "alert");
  return made;
}

/** Big numbers with their labels. `items`: [label, value, name] (name a data-figure attribute for tests). */
export function figures(items) {
  return el("dl", { className: "figures" }, items.map(([label, value, name]) =>
    el("div", {}, [el("dt", { textContent: label }), el("dd", { textContent: value })], { figure: name })));
}

/** A table in a box that scrolls sideways on a narrow screen (the page itself never does). `rows` are arrays of
 *  cells (text or nodes), or a finished <tr>. */
export function table(headers, rows, { className = "", foot = null } = {}) {
  const head = el("thead", {}, [el("tr", {}, headers.map((header) => el("th", { scope: "col", textContent: header })))]);
  const body = el("tbody", {}, rows.map((row) => (row instanceof HTMLTableRowElement ? row : tableRow(row))));
  const parts = [head, body];
  if (foot) parts.push(el("tfoot", {}, [tableRow(foot)]));
  return el("div", { className: "table-wrap" }, [el("table", { className }, parts)]);
}

export function tableRow(cells, props = {}, data = {}) {
  return el("tr", props, cells.map((cell) => (cell instanceof HTMLTableCellElement ? cell : el("td", {}, [cell]))), data);
}

const SVG = "http://www.w3.org/2000/svg";

/** A chart drawn by the service (a whole SVG document) in a <figure>, scaled to the figure's width. Parsed as
 *  SVG, never as HTML; anything that could run or fetch is dropped as well, though the service draws none. */
export function chart(svg, caption) {
  const figure = el("figure", { className: "chart" });
  const parsed = typeof svg === "string" ? new DOMParser().parseFromString(svg, "image/svg+xml") : null;
  const root = parsed?.documentElement;
  if (!root || root.namespaceURI !== SVG || root.localName !== "svg" || parsed.getElementsByTagName("parsererror").length > 0) {
    figure.append(el("p", { className: "problem", textContent: text("chart.unreadable") }));
  } else {
    for (const element of [...root.querySelectorAll("script, foreignObject")]) element.remove();
    for (const element of [root, ...root.querySelectorAll("*")]) {
      for (const attribute of [...element.attributes]) {
        const value = attribute.value.trim().toLowerCase();
        if (attribute.name.toLowerCase().startsWith("on") || (attribute.localName === "href" && !value.startsWith("#"))) element.removeAttribute(attribute.name);
      }
    }
    // Scales with the figure: a chart drawn with a width and height but no viewBox would otherwise be cropped.
    const width = parseFloat(root.getAttribute("width"));
    const height = parseFloat(root.getAttribute("height"));
    if (!root.hasAttribute("viewBox") && width > 0 && height > 0) root.setAttribute("viewBox", `0 0 ${width} ${height}`);
    // The service labels its chart (in the language asked); one without a label takes the caption.
    root.setAttribute("role", "img");
    if (caption && !root.hasAttribute("aria-label")) root.setAttribute("aria-label", caption);
    figure.append(document.importNode(root, true));
  }
  if (caption) figure.append(el("figcaption", { textContent: caption }));
  return figure;
}

/** A button (type=button, so no form is ever submitted by it). */
export function button(label, onClick, props = {}, data = {}) {
  const made = el("button", { type: "button", textContent: label, ...props }, [], data);
  if (onClick) made.addEventListener("click", onClick);
  return made;
}
