#!/usr/bin/python3
"""Times the shops' accounts at the real size (100 requests each, one after another: p50, p99): a shop's statement
for a month and a year as JSON, a month as CSV, hledger and PDF, a shop's account, every shop's balance, and the
console's panel (its chart included) over 30 and 366 days; then every balance and the panel again once each shop has
handed over half of what it collected. Checks that the balances sum to what the statements say."""
import http.client, json, statistics, sys, time, urllib.parse

link, label = sys.argv[1], sys.argv[2]
ADMIN = "peez_admin_DEVELOPMENT_ONLY_not_a_secret"
url = urllib.parse.urlparse(link)
code = link.split("#signin=")[1]


def request(method, path, body=None, cookie=None, secret=None, headers=None):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=300)
    headers = {"Content-Type": "application/json", **(headers or {})}
    if cookie:
        headers["Cookie"] = cookie
    if secret:
        headers["Authorization"] = "Bearer " + secret
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    answer = connection.getresponse()
    return answer.status, answer.read(), answer.getheader("Set-Cookie")


def day(offset):
    return time.strftime("%Y-%m-%d", time.gmtime(time.time() + 3600 + offset * 86400))


status, _, set_cookie = request("POST", "/console/api/session", {"code": code})
assert status == 200, status
cookie = set_cookie.split(";")[0]
status, body, _ = request("GET", "/v1/accounts", secret=ADMIN)
shops = json.loads(body)["shops"]
assert status == 200 and len(shops) >= 200, (status, len(shops))  # the 200 seeded, and the development shop
shop = shops[len(shops) // 2]["vendor_id"]
status, body, _ = request("GET", f"/v1/vendors/{shop}/entries?limit=1", secret=ADMIN)
first_day = json.loads(body)["entries"][0]["date"]
status, body, _ = request("GET", f"/v1/vendors/{shop}/statement?from={first_day}&to={day(0)}", secret=ADMIN)
if status == 422:  # more than 367 days: the statement from a year back, its opening balance the years before
    status, body, _ = request("GET", f"/v1/vendors/{shop}/statement?from={day(-365)}&to={day(0)}", secret=ADMIN)
year = json.loads(body)
owed = [s["balance_dzd"] for s in shops if s["vendor_id"] == shop][0]
print(f"{label:<11} one shop: {sum(d['figures']['sales'] for d in year['days'])} sales in the last year, owes {owed} DZD; "
      f"all shops owe {sum(s['balance_dzd'] for s in shops)} DZD", flush=True)

# The team's limit, which the balances and the panel mark shops against.
status, _, _ = request("PUT", "/v1/accounts/limit", {"limit_dzd": 50000}, secret=ADMIN)
assert status == 200, status
month = f"from={day(-29)}&to={day(0)}"
cases = [
    ("statement, 30 days (JSON)", f"/v1/vendors/{shop}/statement?{month}", ADMIN, None),
    ("statement, 366 days (JSON)", f"/v1/vendors/{shop}/statement?from={day(-365)}&to={day(0)}", ADMIN, None),
    ("statement, 30 days (CSV)", f"/v1/vendors/{shop}/statement?{month}&format=csv", ADMIN, None),
    ("statement, 30 days (hledger)", f"/v1/vendors/{shop}/statement?{month}&format=hledger", ADMIN, None),
    ("statement, 30 days (PDF, ar)", f"/v1/vendors/{shop}/statement?{month}&format=pdf&lang=ar", ADMIN, None),
    ("a shop's account", f"/v1/vendors/{shop}/account", ADMIN, None),
    ("every shop's balance", "/v1/accounts", ADMIN, None),
    ("console panel, 30 days", "/console/api/accounts?lang=fr", None, cookie),
    ("console panel, 366 days", f"/console/api/accounts?lang=fr&from={day(-365)}", None, cookie),
]


def measure(name, path, secret, session):
    times = []
    for _ in range(100):
        started = time.perf_counter()
        status, body, _ = request("GET", path, secret=secret, cookie=session)
        times.append((time.perf_counter() - started) * 1000)
        assert status == 200, (name, status, body[:300])
    times.sort()
    print(f"{label:<11} {name:<40} {statistics.median(times):8.1f}ms {times[98]:8.1f}ms", flush=True)


for case in cases:
    measure(*case)

# The hardest case for "since when": every shop having handed over half of what it collected, so each one's oldest
# unremitted day is halfway through its three years (nothing remitted, it is its first day).
for index, owing in enumerate(shops):
    half = owing["balance_dzd"] // 2
    if half <= 0:
        continue
    status, body, _ = request(
        "POST", f"/v1/vendors/{owing['vendor_id']}/remittances",
        {"amount_dzd": min(half, 10_000_000), "method": "bank_transfer", "received_by": "bench"}, secret=ADMIN,
        headers={"Idempotency-Key": f"bench-half-{index}"},
    )
    assert status == 201, (status, body[:300])
measure("every shop's balance, half remitted", "/v1/accounts", ADMIN, None)
measure("console panel, 30 days, half remitted", "/console/api/accounts?lang=fr", None, cookie)
