// The web counter's scan log: every verdict appended as one entry, hash-chained as `peez counter log` chains it
// (Sources/CounterApp/ScanLog.swift, the entry's rules Sources/Membership/ScanReport.swift), checked link by link,
// and reported to the service in batches on sync.
import { hex } from "./cose.js";
import { answered, unreachable } from "./problems.js";
import { CLOCK_TOLERANCE, SCAN_LOG_GENESIS, SCAN_REPORT_BATCH, TIME_RANGE } from "./rules.js";

async function sha256Hex(text) {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}

const inRange = (time) => time >= TIME_RANGE[0] && time <= TIME_RANGE[1];

/** The fields of the entry for a verdict given when the device's clock read `now` (ScanLogEntry.recorded): a
 *  clock behind the last sync or the service's newest time, or out of range, is recorded as wrong, with the
 *  service's time instead of its own. */
export function scanEntryFields({ now, verdict, member, tokenID, presentedAt, offline, lastSyncAt, newestServerTime }) {
  const clockWrong = now < lastSyncAt || now < newestServerTime - CLOCK_TOLERANCE || !inRange(now);
  return {
    at: inRange(now) ? now : Math.min(Math.max(newestServerTime, TIME_RANGE[0]), TIME_RANGE[1]),
    clock_wrong: clockWrong,
    member: member ?? undefined,
    offline,
    presented_at: presentedAt != null && inRange(presentedAt) ? presentedAt : undefined,
    token_id: tokenID ?? undefined,
    trust_age: clockWrong ? 0 : now - lastSyncAt,
    verdict,
  };
}

/** An entry's JSON as it is chained: its keys sorted, absent fields left out. */
export function entryJSON(entry) {
  return JSON.stringify(entry, Object.keys(entry).sort());
}

/** The hash chaining `json` after the entry whose hash is `previous` (the genesis for the first). */
export function chainHash(previous, json) {
  return sha256Hex(previous + json);
}

/** Checks a chain of records ({seq, hash, json}): {entries, broken: null or the first seq that does not check}. */
export async function checkChain(records) {
  let previous = SCAN_LOG_GENESIS;
  for (const [index, record] of records.entries()) {
    if (record.seq !== index + 1 || record.hash !== (await chainHash(previous, record.json))) return { entries: index, broken: record.seq };
    previous = record.hash;
  }
  return { entries: records.length, broken: null };
}

export class ScanLogBook {
  constructor(store) {
    this.store = store;
  }

  /** Appends the entry of `fields` (scanEntryFields) after the last one, one writer at a time across tabs. */
  async append(fields) {
    return navigator.locks.request("peez-scan-log", async () => {
      const last = await this.store.lastScan();
      const entry = { seq: (last?.seq ?? 0) + 1, ...fields };
      const json = entryJSON(entry);
      await this.store.addScan({ seq: entry.seq, hash: await chainHash(last?.hash ?? SCAN_LOG_GENESIS, json), json });
      return entry;
    });
  }

  /** Checks the whole log's chain. */
  async verify() {
    return checkChain(await this.store.scans());
  }

  /** Sends the entries not yet reported, a batch at a time, to `server` as `counterID`; the service stores each
   *  once. Throws a CounterProblem when the service cannot be reached or does not take them. */
  async report({ server, secret, counterID }) {
    let reported = (await this.store.get("reportedThrough")) ?? 0;
    let stored = 0;
    for (;;) {
      const batch = (await this.store.scans(reported)).slice(0, SCAN_REPORT_BATCH);
      if (batch.length === 0) return { stored };
      let response;
      try {
        response = await fetch(new URL("v1/counter/scans", server), {
          method: "POST",
          headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
          body: JSON.stringify({ counter_id: counterID, entries: batch.map((record) => JSON.parse(record.json)) }),
        });
      } catch (error) {
        throw unreachable(error);
      }
      if (response.status !== 200) throw await answered(response);
      stored += (await response.json()).stored ?? 0;
      reported = batch[batch.length - 1].seq;
      await this.store.set({ reportedThrough: reported });
    }
  }
}
