#!/usr/bin/env python3
"""Writes counter-vectors.json: the counter rules both counters must agree on, as data with expected answers.

- `scan_log`: verdicts logged from a clock reading (with the counter's last sync and the newest service time it has
  seen); expected, each entry's JSON as it is chained (keys sorted, absent fields left out, no spaces) and its hash,
  SHA-256 over the previous hash (the genesis for the first) followed by the JSON. A wrong clock is recorded as
  such, with the service's time instead of an out-of-range reading.
- `chains`: scan logs as stored (seq, hash, json) and the first seq whose link does not check, or null.
- `clock`: when the device's clock and the trust data let a card be confirmed: `cannot_confirm` (`clock_behind`,
  `trust_expired`) or null, and the warnings (`trust_age` with whole hours).
- `sales`: a counter's own confirmed sales (the sale journal) and the renewals they count as at that counter at
  once: renewed the second after the sale began, paid until the answer's coverage end; the newest per member.
- `cut_off`: a counter's sales when the service cuts it off (its own credential refused: `device_refusals`) and
  those it keeps and lists, their cash to give back: the ones never answered, and the ones refused for one of
  those codes; every other sale (confirmed, refused for another reason) is forgotten.

The rules are counter-rules.json's (Sources/CounterAssets), the one file both counters read; this script is a
third, independent implementation of them. `peez counter` (Swift) and the web counter (Chromium) run the file.

    python3 Fixtures/vectors/counter-vectors.py
"""
import hashlib
import json
import os
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = json.load(open(os.path.join(HERE, "../../Sources/CounterAssets/counter-rules.json"), encoding="utf-8"))
FIRST, LAST = RULES["time_range"]
TOLERANCE = RULES["clock_tolerance"]
GENESIS = RULES["scan_log_genesis"]
NOW = 1795000000  # 2026-11-18
CTI = "5f2b9c01d3e4a6b7"
MEMBER = "PEEZ-20251103-00001"


def in_range(t):
    return FIRST <= t <= LAST


def entry(seq, scan, last_sync_at, newest_server_time):
    now = scan["now"]
    wrong = now < last_sync_at or now < newest_server_time - TOLERANCE or not in_range(now)
    fields = {
        "seq": seq,
        "at": now if in_range(now) else min(max(newest_server_time, FIRST), LAST),
        "verdict": scan["verdict"],
        "offline": scan["offline"],
        "trust_age": 0 if wrong else now - last_sync_at,
        "clock_wrong": wrong,
    }
    if scan.get("member") is not None:
        fields["member"] = scan["member"]
    if scan.get("token_id") is not None:
        fields["token_id"] = scan["token_id"]
    presented = scan.get("presented_at")
    if presented is not None and in_range(presented):
        fields["presented_at"] = presented
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def link(previous, text):
    return hashlib.sha256((previous + text).encode("utf-8")).hexdigest()


def log_case(id, description, scans, last_sync_at=NOW - 3600, newest_server_time=NOW - 3600):
    previous, expected = GENESIS, []
    for seq, scan in enumerate(scans, start=1):
        text = entry(seq, scan, last_sync_at, newest_server_time)
        previous = link(previous, text)
        expected.append({"json": text, "hash": previous})
    return {"id": id, "description": description, "last_sync_at": last_sync_at, "newest_server_time": newest_server_time,
            "scans": scans, "expected": expected}


def scan(now, verdict="valid", member=MEMBER, token_id=CTI, presented_at=None, offline=False):
    return {"now": now, "verdict": verdict, "member": member, "token_id": token_id, "presented_at": presented_at, "offline": offline}


SCAN_LOG = [
    log_case("three-scans", "a valid card, a bound card's presentation offline, then an unreadable text (no member, no token id)",
             [scan(NOW), scan(NOW + 40, presented_at=NOW + 35, offline=True), scan(NOW + 90, "malformed", None, None)]),
    log_case("clock-behind-last-sync", "the clock set back before the last sync: recorded as wrong, no trust age",
             [scan(NOW - 7200)], last_sync_at=NOW - 3600),
    log_case("clock-behind-service", "the clock more than the tolerance behind the newest service time seen: wrong",
             [scan(NOW - TOLERANCE - 1)], last_sync_at=NOW - 86400, newest_server_time=NOW),
    log_case("clock-within-tolerance", "the clock behind the service's time by the tolerance exactly: not wrong",
             [scan(NOW - TOLERANCE)], last_sync_at=NOW - 86400, newest_server_time=NOW),
    log_case("clock-out-of-range", "a clock reading 1970 and one reading 2200: timed with the service's newest time, wrong",
             [scan(0), scan(7258118400)]),
    log_case("presentation-out-of-range", "a presentation time outside the range is left out of the entry",
             [scan(NOW, presented_at=5), scan(NOW + 1, presented_at=LAST + 1)]),
    log_case("names-in-any-script", "a member name never enters the log; ids and verdicts as given (JSON unescaped)",
             [scan(NOW, "revoked", "PEEZ-20251103-00002", "0123456789abcdef")]),
]


def chain(records):
    return [{"seq": r[0], "hash": r[1], "json": r[2]} for r in records]


base = SCAN_LOG[0]["expected"]
good = [(i + 1, e["hash"], e["json"]) for i, e in enumerate(base)]
CHAINS = [
    {"id": "intact", "description": "the three scans as logged", "records": chain(good), "broken": None},
    {"id": "edited-verdict", "description": "the third entry's verdict edited to valid",
     "records": chain(good[:2] + [(3, good[2][1], good[2][2].replace('"malformed"', '"valid"'))]), "broken": 3},
    {"id": "removed-middle", "description": "the second entry removed (the third renumbered to follow)",
     "records": chain([good[0], (2, good[2][1], good[2][2])]), "broken": 2},
    {"id": "rehashed-without-chain", "description": "the first entry edited and its hash made again from the genesis, the rest left",
     "records": chain([(1, link(GENESIS, good[0][2].replace('"valid"', '"expired"')), good[0][2].replace('"valid"', '"expired"'))] + good[1:]),
     "broken": 2},
]

AGE = RULES["trust_warning_age"]


def clock(id, description, now, last_sync_at, newest_server_time, valid_until, cannot_confirm, warnings=()):
    return {"id": id, "description": description, "now": now, "last_sync_at": last_sync_at, "newest_server_time": newest_server_time,
            "valid_until": valid_until, "expected": {"cannot_confirm": cannot_confirm, "warnings": list(warnings)}}


CLOCK = [
    clock("fresh", "synced an hour ago, the clock right", NOW, NOW - 3600, NOW - 3600, NOW + 6 * 86400, None),
    clock("behind-by-tolerance", "the clock behind the service's time by the tolerance exactly: confirmed", NOW, NOW - 3600, NOW + TOLERANCE, NOW + 86400, None),
    clock("behind-past-tolerance", "one second more behind: cannot confirm", NOW, NOW - 3600, NOW + TOLERANCE + 1, NOW + 86400, "clock_behind"),
    clock("expired-trust", "the trust data's end passed by a second", NOW, NOW - 8 * 86400, NOW - 8 * 86400, NOW - 1, "trust_expired"),
    clock("at-trust-end", "the last second of the trust data: confirmed, with the age warning", NOW, NOW - 7 * 86400, NOW - 7 * 86400, NOW, None,
          [{"kind": "trust_age", "hours": 168}]),
    clock("age-at-limit", "synced exactly the warning age ago: no warning", NOW, NOW - AGE, NOW - AGE, NOW + 86400, None),
    clock("age-past-limit", "a second older: the warning, in whole hours", NOW, NOW - AGE - 1, NOW - AGE - 1, NOW + 86400, None,
          [{"kind": "trust_age", "hours": AGE // 3600}]),
    clock("behind-wins-over-expired", "a clock behind and trust data expired at that reading: the clock is named first",
          NOW - 7200, NOW - 3600, NOW, NOW - 7201, "clock_behind"),
]


def iso(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sale(member, at, status="confirmed", coverage_end=None):
    return {"membership_id": member, "at": at, "status": status, "coverage_end": iso(coverage_end) if coverage_end is not None else None}


def renewal(member, at, paid_until):
    return {"membership_id": member, "renewed_at": at + 1, "paid_until": paid_until}


M2 = "PEEZ-20251103-00002"
SALES = [
    {"id": "one-sale", "description": "one confirmed sale", "sales": [sale(MEMBER, NOW, coverage_end=NOW + 30 * 86400)],
     "expected": [renewal(MEMBER, NOW, NOW + 30 * 86400)]},
    {"id": "pending-and-refused-count-not", "description": "a sale never answered and one refused: no renewal",
     "sales": [sale(MEMBER, NOW, "pending"), sale(M2, NOW, "refused")], "expected": []},
    {"id": "newest-per-member", "description": "two sales to one member: the later one counts; another member's counts too",
     "sales": [sale(MEMBER, NOW, coverage_end=NOW + 30 * 86400), sale(MEMBER, NOW + 600, coverage_end=NOW + 61 * 86400),
               sale(M2, NOW + 5, coverage_end=NOW + 90 * 86400)],
     "expected": [renewal(MEMBER, NOW + 600, NOW + 61 * 86400), renewal(M2, NOW + 5, NOW + 90 * 86400)]},
    {"id": "coverage-not-after-sale", "description": "an answer whose coverage ends before the sale's next second counts not",
     "sales": [sale(MEMBER, NOW, coverage_end=NOW + 1)], "expected": []},
]

DEVICE_REFUSALS = RULES["device_refusals"]


def journaled(member, at, status, refusal=None):
    return {"membership_id": member, "at": at, "status": status, "refusal": refusal}


def cut_off(case_id, description, sales):
    kept = [i for i, s in enumerate(sales) if s["status"] == "pending" or (s["status"] == "refused" and s["refusal"] in DEVICE_REFUSALS)]
    return {"id": case_id, "description": description, "sales": sales, "expected": kept}


CUT_OFF = [
    cut_off("nothing-to-give-back", "a confirmed sale and one refused for the member: nothing is kept",
            [journaled(MEMBER, NOW, "confirmed"), journaled(M2, NOW + 5, "refused", "not_found")]),
    cut_off("pending-kept", "a sale never answered is kept, the confirmed one beside it is not",
            [journaled(MEMBER, NOW, "pending"), journaled(M2, NOW + 5, "confirmed")]),
    cut_off("refused-for-the-device", "sales refused because this counter's credential was revoked or replaced are kept",
            [journaled(MEMBER, NOW, "refused", "credential_revoked"), journaled(M2, NOW + 5, "refused", "credential_expired"),
             journaled(MEMBER, NOW + 9, "refused", "conflict"), journaled(M2, NOW + 12, "pending")]),
    cut_off("no-sale", "no sale at all", []),
]

document = {
    "about": __doc__.strip().split("\n\n")[0],
    "rules": {k: v for k, v in RULES.items() if k != "about"},
    "scan_log": SCAN_LOG,
    "chains": CHAINS,
    "clock": CLOCK,
    "sales": SALES,
    "cut_off": CUT_OFF,
}
with open(os.path.join(HERE, "counter-vectors.json"), "w", encoding="utf-8") as out:
    json.dump(document, out, ensure_ascii=False, indent=1)
    out.write("\n")
print(f"counter-vectors.json: {len(SCAN_LOG)} scan-log cases, {len(CHAINS)} chains, {len(CLOCK)} clock cases, {len(SALES)} sale cases, {len(CUT_OFF)} cut-off cases")
