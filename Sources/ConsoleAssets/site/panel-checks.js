// Going live: the go-live check as `peez check` prints it (the service's settings, keys, database, addresses,
// TLS, every certificate's end, Wallet, reminders, backups), each ok, warn or fail with its fix. The findings
// are the service's own words (English), as the operator's terminal shows them; the levels and headings are in
// the page's language.
import { get } from "./api.js";
import { el, figures, line, table, tableRow } from "./dom.js";
import { dateTime } from "./format.js";
import { text } from "./texts.js";

const LEVELS = ["fail", "warn", "ok"];

export default {
  name: "checks",
  range: false,
  charts: false,
  load: () => get("api/checks"),
  render(data) {
    const findings = data.findings ?? [];
    const count = (level) => String(findings.filter((finding) => finding.level === level).length);
    const ordered = [...findings].sort((a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level));
    const rows = ordered.map((finding) =>
      tableRow([
        el("span", { className: `level ${finding.level}`, textContent: text(`checks.${finding.level}`) }),
        el("bdi", { textContent: finding.check }),
        el("div", { className: "finding", dir: "ltr" }, [
          el("span", { textContent: finding.found }),
          finding.fix && finding.level !== "ok" ? el("small", { textContent: `${text("checks.fix")} ${finding.fix}` }) : null,
        ]),
      ], { className: `finding-row ${finding.level}` }, { level: finding.level }));
    return [
      line(text(`checks.summary_${data.level ?? "ok"}`, { time: dateTime(data.checked_at) }), `summary ${data.level ?? "ok"}`),
      figures([[text("checks.fail"), count("fail"), "fail"], [text("checks.warn"), count("warn"), "warn"], [text("checks.ok"), count("ok"), "ok"]]),
      table([text("checks.level"), text("checks.check"), text("checks.found")], rows, { className: "checks" }),
    ];
  },
};
