// Every counter device, shop by shop: when it last synced (a counter that has not synced for a day judges cards
// with old trust data, and its sales wait on it), how old its trust data is, whether it is still allowed in; as
// they stood at the end of the range's last day (now, for a range that ends today: only then can one be revoked).
import { get } from "./api.js";
import { el, line, ltr, own, table, tableRow } from "./dom.js";
import { ago, dateTime, duration } from "./format.js";
import { revokeDeviceButton } from "./revoke.js";
import { text } from "./texts.js";

const STALE_AFTER = 24 * 3600;

function status(device, now) {
  if (device.revoked_at) return ["revoked", text("counters.revoked", { time: dateTime(device.revoked_at) })];
  if (device.expires_at && device.expires_at <= now) return ["expired", text("counters.expired", { time: dateTime(device.expires_at) })];
  if (device.expires_at) return ["active", text("counters.expires", { time: dateTime(device.expires_at) })];
  return ["active", text("counters.active")];
}

function lastSync(device, now) {
  if (!device.last_sync_at) return el("span", { textContent: text(device.synced_since ? "report.synced_since" : "counters.never") });
  return el("div", { className: "when" }, [el("span", { textContent: dateTime(device.last_sync_at) }), el("small", { textContent: ago(now - device.last_sync_at) })]);
}

/** An active device not synced for a day: its last sync is older than that, or it never synced and was set up
 *  over a day ago. (A revoked or expired one is not expected to sync.) */
function isStale(device, state, now) {
  if (state !== "active") return false;
  if (device.synced_since) return false;
  const since = device.last_sync_at ?? device.created_at;
  return typeof since === "number" && now - since > STALE_AFTER;
}

function deviceRow(device, now, live, ctx) {
  const [state, said] = status(device, now);
  const stale = isStale(device, state, now);
  const label = el("div", { className: "who" }, [
    el("strong", { dir: "auto", textContent: device.label || text("counters.no_label") }),
    ltr(device.credential_id, "ltr uuid"),
  ]);
  const statusCell = el("div", { className: "status" }, [el("span", { textContent: said }), stale ? el("small", { className: "stale-note", textContent: text("counters.stale") }) : null]);
  return tableRow([
    label,
    lastSync(device, now),
    device.trust_age_seconds === null || device.trust_age_seconds === undefined ? "—" : duration(device.trust_age_seconds),
    statusCell,
    state === "active" && live ? revokeDeviceButton(device, ctx) : "",
  ], { className: `device ${state}${stale ? " stale" : ""}` }, { credential: device.credential_id, state });
}

export default {
  name: "counters",
  range: true,
  charts: false,
  load: (ctx) => get("api/counters", { to: ctx.range.to }),
  render(data, ctx) {
    const now = data.now ?? Math.floor(Date.now() / 1000);
    const live = data.live !== false;
    const devices = data.devices ?? [];
    if (devices.length === 0) return [line(text("counters.none"), "empty")];
    const shops = new Map();
    for (const device of devices) {
      const key = device.vendor_id ?? device.vendor_name;
      if (!shops.has(key)) shops.set(key, { name: device.vendor_name || text("anomalies.unknown_shop"), devices: [] });
      shops.get(key).devices.push(device);
    }
    const sorted = [...shops.entries()].sort(([, a], [, b]) => a.name.localeCompare(b.name, ctx.lang));
    const headers = [text("counters.device"), text("counters.last_sync"), text("counters.trust_age"), text("counters.status"), text("counters.action")];
    const wrap = table(headers, []);
    const tableElement = wrap.querySelector("table");
    tableElement.querySelector("tbody").remove();
    // A body per shop, its name a header over its devices: grouped, still one table to read across.
    for (const [vendor, shop] of sorted) {
      const heading = el("tr", { className: "shop" }, [el("th", { scope: "rowgroup", colSpan: headers.length }, [own(shop.name)])]);
      tableElement.append(el("tbody", {}, [heading, ...shop.devices.map((device) => deviceRow(device, now, live, ctx))], { vendor }));
    }
    return [wrap];
  },
};
