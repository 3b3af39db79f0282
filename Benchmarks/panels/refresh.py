#!/usr/bin/python3
"""Signs in to the console with LINK and keeps CLIENTS clients refreshing the heaviest panels (sales and renewals
over 366 days, cards seen at two shops over 90 days), one request after another each, until STOP exists. Prints
how many answers they got and their p50 and p99 (ms)."""
import http.client, json, os, statistics, sys, threading, time, urllib.parse

link, clients, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]
url = urllib.parse.urlparse(link)


def request(method, path, body=None, cookie=None):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
    headers = {"Content-Type": "application/json", "Origin": f"{url.scheme}://{url.netloc}"}
    if cookie:
        headers["Cookie"] = cookie
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer.status, data, answer.getheader("Set-Cookie")


status, body, set_cookie = request("POST", "/console/api/session", {"code": link.split("#signin=")[1]})
assert status == 200, (status, body[:200])
cookie = set_cookie.split(";")[0]
year_ago = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 3600 - 365 * 86400))
days_ago_89 = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 3600 - 89 * 86400))
panels = [f"/console/api/sales?lang=fr&from={year_ago}", f"/console/api/renewals?lang=fr&from={year_ago}", f"/console/api/anomalies?from={days_ago_89}"]
times, failures = [], []


def refresh(offset):
    turn = offset
    while not os.path.exists(stop):
        started = time.perf_counter()
        status, body, _ = request("GET", panels[turn % len(panels)], cookie=cookie)
        times.append((time.perf_counter() - started) * 1000)
        if status != 200:
            failures.append((status, body[:200]))
        turn += 1


threads = [threading.Thread(target=refresh, args=(offset,)) for offset in range(clients)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
assert not failures, failures[:3]
times.sort()
p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else 0
print(f"{len(times)} {statistics.median(times) if times else 0:.0f}ms {p99:.0f}ms")
