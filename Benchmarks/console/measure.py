#!/usr/bin/python3
"""Signs in to the console with LINK, times each panel's answer (100 requests each, one after another: p50, p99), then the page's
first load in Chromium (bytes transferred, time until every panel has drawn)."""
import http.client, json, os, shutil, statistics, sys, time, urllib.parse

link, label, work = sys.argv[1], sys.argv[2], sys.argv[3]
url = urllib.parse.urlparse(link)
code = link.split("#signin=")[1]


def request(method, path, body=None, cookie=None):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=300)
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    return answer.status, data, answer.getheader("Set-Cookie")


status, _, set_cookie = request("POST", "/console/api/session", {"code": code})
assert status == 200, status
cookie = set_cookie.split(";")[0]
_, found, _ = request("GET", "/console/api/members?q=ahmed", cookie=cookie)
member = json.loads(found)["members"][0]
panels = [
    ("sales, 30 days", "/console/api/sales?lang=fr"),
    ("sales, 366 days", "/console/api/sales?lang=fr&from=" + time.strftime("%Y-%m-%d", time.gmtime(time.time() + 3600 - 365 * 86400))),
    ("renewals, 30 days", "/console/api/renewals?lang=fr"),
    ("subscriptions, 30 days", "/console/api/subscriptions?lang=fr"),
    ("subscriptions, 366 days", "/console/api/subscriptions?lang=fr&from=" + time.strftime("%Y-%m-%d", time.gmtime(time.time() + 3600 - 365 * 86400))),
    ("cards at two shops, 7 days", "/console/api/anomalies?from=" + time.strftime("%Y-%m-%d", time.gmtime(time.time() + 3600 - 6 * 86400))),
    ("reminders, 30 days", "/console/api/reminders?lang=fr"),
    ("wallet, 30 days", "/console/api/wallet?lang=fr"),
    ("counters", "/console/api/counters"),
    ("members by name prefix", "/console/api/members?q=amina+ben"),
    ("members by phone", "/console/api/members?q=" + urllib.parse.quote(member["phone"])),
    ("members by a surname", "/console/api/members?q=benali"),
    ("members by part of a phone", "/console/api/members?q=" + urllib.parse.quote(member["phone"][6:12])),
    ("members by a part found nowhere", "/console/api/members?q=zqxw"),
    ("one member's timeline", f"/console/api/members/{member['uuid']}?lang=ar"),
    ("audit trail", "/console/api/audit?limit=20"),
]
for name, path in panels:
    times = []
    for _ in range(100):
        started = time.perf_counter()
        status, body, _ = request("GET", path, cookie=cookie)
        times.append((time.perf_counter() - started) * 1000)
        assert status == 200, (name, status, body[:300])
    times.sort()
    print(f"{label:<11} {name:<40} {statistics.median(times):8.1f}ms {times[98]:8.1f}ms", flush=True)

# The page's first load, empty cache: bytes of every file and answer, time until every panel has drawn.
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

options = webdriver.ChromeOptions()
options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900", f"--user-data-dir={work}/profile-{label}"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
try:
    driver.get(f"{url.scheme}://{url.netloc}/console/robots")  # an origin to set the cookie on
    driver.add_cookie({"name": "peez_console", "value": cookie.split("=", 1)[1], "path": "/console"})
    started = time.perf_counter()
    driver.get(f"{url.scheme}://{url.netloc}/console/")
    WebDriverWait(driver, 300).until(lambda d: d.execute_script(
        "const p = [...document.querySelectorAll('[data-panel]')]; return p.length > 0 && p.every(x => x.dataset.state === 'ready')"))
    elapsed = (time.perf_counter() - started) * 1000
    sizes = driver.execute_script("""
        const all = performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'));
        const files = all.filter(e => !e.name.includes('/console/api/'));
        const sum = (list) => list.reduce((total, e) => total + (e.transferSize || e.encodedBodySize || 0), 0);
        return { files: sum(files), answers: sum(all) - sum(files), requests: all.length };
    """)
    print(f"{label:<11} {'page first load: every panel drawn':<40} {elapsed:8.0f}ms  (files {sizes['files'] / 1024:.0f} KB, answers {sizes['answers'] / 1024:.0f} KB, {sizes['requests']} requests)")
finally:
    driver.quit()
