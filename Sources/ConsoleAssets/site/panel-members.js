// Finding a member (any part of a name, a phone in any written form, a membership id) and one member's record: the facts, the
// service's timeline of paid time, what happened, and the same card revocation as the anomalies panel.
// The search form is index.html's (it stays as typed while the results under it are drawn again).
import { get } from "./api.js";
import { chart, el, line, ltr, own, table } from "./dom.js";
import { dateTime } from "./format.js";
import { revokeCardsButton } from "./revoke.js";
import { named } from "./crosstab.js";
import { currentLanguage, inLine, text } from "./texts.js";

const $ = (id) => document.getElementById(id);
let query = "";
let selected = null;
/** The last search's answer and the words it was for: opening a member does not search again. */
let found = [];
let foundFor = null;

/** Search on Enter or #member-search-go; a result's button opens that member. */
export function wireMembers(ctx) {
  $("member-search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    query = $("member-search").value.trim();
    selected = null;
    foundFor = null;
    ctx.refresh(["members"]);
  });
}

function paidUntil(member) {
  return member.paid_until ? text("members.paid_until", { time: dateTime(member.paid_until) }) : text("members.not_paid");
}

function result(member, ctx) {
  const open = el("button", { type: "button", className: "member-result" }, [
    el("strong", { dir: "auto", textContent: member.name || text("anomalies.no_name") }),
    ltr(member.membership_id, "ltr id"),
    member.phone ? ltr(member.phone) : null,
    member.neighbourhood ? own(placeName(member)) : null,
    el("small", { textContent: paidUntil(member) }),
  ], { member: member.uuid });
  if (member.uuid === selected) open.setAttribute("aria-current", "true");
  open.addEventListener("click", () => {
    selected = member.uuid;
    ctx.refresh(["members"]);
  });
  return el("li", {}, [open]);
}

/** The member's neighbourhood by its name in the console's language (French names in English), else its id. */
function placeName(member) {
  const names = member.neighbourhood_names;
  return names?.[currentLanguage()] ?? names?.fr ?? member.neighbourhood;
}

function language(code) {
  try {
    return new Intl.DisplayNames([currentLanguage()], { type: "language" }).of(code) ?? code;
  } catch {
    return code ?? "—";
  }
}

function detail({ member, events = [], chart: svg }, ctx) {
  const facts = [
    ["member.membership_id", ltr(member.membership_id, "ltr id")],
    ["member.phone", ltr(member.phone)],
    ["member.email", ltr(member.email)],
    ["member.neighbourhood", own(placeName(member) || "—")],
    ["member.language", member.language ? language(member.language) : "—"],
    ["member.created_at", dateTime(member.created_at)],
    ["member.paid_until", member.paid_until ? dateTime(member.paid_until) : text("members.not_paid")],
    ["member.device_bound", text(member.device_bound ? "yes" : "no")],
    ["member.cards_valid_from", member.cards_valid_from ? dateTime(member.cards_valid_from) : text("member.no_card_revoked")],
  ];
  const sorted = [...events].sort((a, b) => b.at - a.at);
  return el("article", { id: "member-detail" }, [
    el("h3", { dir: "auto", textContent: member.name || text("anomalies.no_name") }),
    el("dl", { className: "facts" }, facts.map(([key, value]) => el("div", {}, [el("dt", { textContent: text(key) }), el("dd", {}, [value])]))),
    el("p", { className: "actions" }, [revokeCardsButton({ uuid: member.uuid, name: member.name, membershipID: member.membership_id }, ctx)]),
    chart(svg, text("member.chart")),
    el("h3", { textContent: text("member.events") }),
    sorted.length === 0
      ? line(text("member.no_events"), "empty")
      : table([text("member.at"), text("member.kind"), text("member.detail")],
        sorted.map((event) => [dateTime(event.at), named("kind.", event.kind), own(event.detail ?? "")]), { className: "events" }),
  ], { member: member.uuid });
}

export default {
  name: "members",
  range: false,
  charts: true,
  async load(ctx) {
    if (!query) return null;
    const asked = query;
    const [answer, record] = await Promise.all([
      foundFor === asked ? null : get("api/members", { q: asked }),
      selected ? get(`api/members/${encodeURIComponent(selected)}`, { lang: ctx.lang }) : null,
    ]);
    if (answer) {
      found = answer.members ?? [];
      foundFor = asked;
    }
    return { found, record };
  },
  render(data, ctx) {
    if (data === null) return [line(text("members.hint"), "help")];
    const parts = [];
    parts.push(data.found.length === 0
      ? line(text("members.none", { query: inLine(query) }), "empty")
      : el("ul", { id: "member-results" }, data.found.map((member) => result(member, ctx))));
    if (data.record) parts.push(detail(data.record, ctx));
    return parts;
  },
};

