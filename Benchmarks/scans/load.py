#!/usr/bin/env python3
"""Reports SCANS scans to a peez serve --development at URL, then times GET /v1/scans/shared and /health."""
import http.client, json, statistics, sys, threading, time, urllib.parse, uuid

url, total, label = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ADMIN = "peez_admin_DEVELOPMENT_ONLY_not_a_secret"
VENDOR = "peez_vendor_DEVELOPMENT_ONLY_not_a_secret"
host = urllib.parse.urlparse(url)

def request(method, path, secret=None, body=None, connection=None):
    connection = connection or http.client.HTTPConnection(host.hostname, host.port, timeout=120)
    headers = {"Content-Type": "application/json"}
    if secret: headers["Authorization"] = "Bearer " + secret
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    return answer.status, (json.loads(data) if data else None)

shops = [VENDOR] + [request("POST", "/v1/vendors", ADMIN, {"name": f"Shop {i}", "category": "pressing", "neighbourhood": "usto"})[1]["api_secret"]
                    for i in range(3)]
now = int(time.time())
cards = total // 5
entries = {shop: [] for shop in shops}
for card in range(cards):
    for visit in range(5):
        # Each card at one shop through the day; one card in ten also at a second shop, minutes after.
        shop, at = shops[card % 4], now - 86_000 + visit * 17_000 + (card % 997)
        if card % 10 == 0 and visit == 4:
            shop, at = shops[(card + 1) % 4], at - 17_000 + 120
        entries[shop].append({"at": at, "verdict": "valid", "member": "PEEZ-20251103-%05d" % (card % 99_999 + 1),
                              "token_id": "%016x" % (card + 1), "offline": True, "trust_age": 600})
started = time.time()
for shop, scans in entries.items():
    counter = str(uuid.uuid4())
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=120)
    for first in range(0, len(scans), 500):
        batch = [dict(entry, seq=first + index + 1) for index, entry in enumerate(scans[first:first + 500])]
        status, answer = request("POST", "/v1/counter/scans", shop, {"counter_id": counter, "entries": batch}, connection)
        assert status == 200 and answer["stored"] == len(batch), answer
loaded = time.time() - started

reports = []
for _ in range(10):
    start = time.time()
    status, answer = request("GET", "/v1/scans/shared?days=2&limit=1000", ADMIN)
    assert status == 200, answer
    reports.append(time.time() - start)
found = len(answer["cards"])

done = threading.Event()
def keep_reporting():
    for _ in range(10): request("GET", "/v1/scans/shared?days=2&limit=1000", ADMIN)
    done.set()
threading.Thread(target=keep_reporting).start()
health, probe = [], http.client.HTTPConnection(host.hostname, host.port, timeout=30)
while not done.is_set():
    start = time.time()
    request("GET", "/health", connection=probe)
    health.append(time.time() - start)

# The hostile case: two shops report 3,000 scans each of one card, all in the same second.
for shop in shops[:2]:
    counter = str(uuid.uuid4())
    for first in range(0, 3000, 500):
        batch = [{"seq": first + index + 1, "at": now - 30, "verdict": "valid", "member": "PEEZ-20251103-00001",
                  "token_id": "00000000000000ff", "offline": True, "trust_age": 600} for index in range(500)]
        status, answer = request("POST", "/v1/counter/scans", shop, {"counter_id": counter, "entries": batch})
        assert status == 200, answer
hostile = []
for _ in range(5):
    start = time.time()
    status, answer = request("GET", "/v1/scans/shared?days=2&limit=1000", ADMIN)
    assert status == 200, answer
    hostile.append(time.time() - start)

def row(figure, value): print("%-11s %-44s %12s" % (label, figure, value))
row(f"report {total:,} scans ({cards:,} cards)", "")
row("  load: scans stored per second", "%d/s" % (total / loaded))
row("  GET /v1/scans/shared, median of 10", "%.0f ms" % (statistics.median(reports) * 1000))
row("  cards seen at two shops (limit 1000)", str(found))
health.sort()
row(f"  /health during reports, median of {len(health)}", "%.1f ms" % (health[len(health) // 2] * 1000))
row("  /health during reports, slowest", "%.1f ms" % (health[-1] * 1000))
row("  + 2 x 3,000 scans of one card, same second:", "")
row("  GET /v1/scans/shared, median of 5", "%.0f ms" % (statistics.median(hostile) * 1000))
