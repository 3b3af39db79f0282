#!/usr/bin/python3
"""Times the shops' accounts at the real size (100 requests each, one after another: p50, p99): a shop's statement
for a month and a year as JSON, a month as CSV, hledger and PDF, a shop's account, every shop's balance, and the
console's panel (its chart included) over 30 and 366 days. Checks that the balances sum to what the statements say."""
import http.client, json, statistics, sys, time, urllib.parse

link, label = sys.argv[1], sys.argv[2]
ADMIN = "peez_admin_DEVELOPMENT_ONLY_not_a_secret"
url = urllib.parse.urlparse(link)
code = link.split("#signin=")[1]


def request(method, path, body=None, cookie=None, secret=None):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=300)
    headers = {"Content-Type": "application/json"}
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

month = f"from={day(-29)}&to={day(0)}"
cases = [
    ("statement, 30 days (JSON)", f"/v1/vendors/{shop}/statement?{month}", ADMIN, None),
    ("statement, 366 days (JSON)", f"/v1/vendors/{shop}/statement?from={day(-365)}&to={day(0)}", ADMIN, None),
    ("statement, 30 days (CSV)", f"/v1/vendors/{shop}/statement?{month}&format=csv", ADMIN, None),
    ("statement, 30 days (hledger)", f"/v1/vendors/{shop}/statement?{month}&format=hledger", ADMIN, None),
    ("statement, 30 days (PDF, ar)", f"/v1/vendors/{shop}/statement?{month}&format=pdf&lang=ar", ADMIN, None),
    ("a shop's account", f"/v1/vendors/{shop}/account", ADMIN, None),
    ("every shop's balance", "/v1/accounts?limit_dzd=50000", ADMIN, None),
    ("console panel, 30 days", "/console/api/accounts?lang=fr&limit_dzd=50000", None, cookie),
    ("console panel, 366 days", f"/console/api/accounts?lang=fr&limit_dzd=50000&from={day(-365)}", None, cookie),
]
for name, path, secret, session in cases:
    times = []
    for _ in range(100):
        started = time.perf_counter()
        status, body, _ = request("GET", path, secret=secret, cookie=session)
        times.append((time.perf_counter() - started) * 1000)
        assert status == 200, (name, status, body[:300])
    times.sort()
    print(f"{label:<11} {name:<40} {statistics.median(times):8.1f}ms {times[98]:8.1f}ms", flush=True)
