#!/usr/bin/env python3
"""A stand-in for the Chargily Pay v2 API (test mode) and its webhooks, written from Chargily's published contract
(dev.chargily.com/pay-v2: api-reference/authentication, checkouts/create, retrieve, expire, the Checkout object,
webhooks; the fee table of Chargily/chargily-dev-docs docs/chargily-pay-faq.md), for tests. Plain HTTP on loopback.

API, base http://127.0.0.1:PORT/api/v2, each request needing "Authorization: Bearer SECRET_KEY" (else 401
{"message": "Unauthenticated."}). POST /checkouts, JSON: amount (integer >= 50) + currency ("dzd"), success_url
(required URL), optional failure_url, webhook_endpoint, description, locale (ar|en|fr, default ar), payment_method
(edahabia|cib), customer_id, pass_fees_to_customer, chargily_pay_fees_allocation (customer|merchant|split, default
customer), shipping_address, collect_shipping_address, percentage_discount | amount_discount, metadata; items are
refused. Bad input: 422 {"message", "errors": {field: [text]}} as Laravel words it. Answers 200 with the Checkout
object: id (26-character lowercase ULID), entity "checkout", livemode false, amount (after discount), currency, fees,
fees_on_merchant, fees_on_customer (0 until paid, as the docs' examples show), pass_fees_to_customer (null unless
given), chargily_pay_fees_allocation, status "pending", locale, description, metadata, success_url, failure_url,
webhook_endpoint, payment_method (null unless given; set on payment), invoice_id, customer_id (made up if not given),
payment_link_id, created_at, updated_at (unix seconds), shipping_address, collect_shipping_address (0|1), discount
({"type": "percentage"|"amount", "value"} or null), amount_without_discount, checkout_url and url (both
http://127.0.0.1:PORT/checkout/<id>, a page for the customer; the API docs name it checkout_url, the webhook docs url).
GET /checkouts/<id>: the checkout now, 404 {"message"} if unknown. POST /checkouts/<id>/expire: a pending checkout
becomes expired and a checkout.expired event goes out per the plan, in the background; already expired: 400; any
other status: 403 (as the docs say). Statuses: pending, processing, paid, failed, canceled, expired.

Webhooks: POST to the checkout's webhook_endpoint, else to the default endpoint (the dashboard setting), body
{"id", "entity": "event", "livemode": "false" (a string, as the docs' example shows), "type": "checkout.paid" |
"checkout.failed" | "checkout.canceled" | "checkout.expired", "data": the checkout as it now stands, "created_at",
"updated_at"}, encoded as PHP's json_encode does (compact, "\\/" and "\\uXXXX" escapes), headers Content-Type
application/json and a lowercase "signature": hex HMAC-SHA256 of the raw body keyed with SECRET_KEY. 10 s timeout,
no retries. Fees on payment: 10 DA + 2.5 % (at least 25 DA) up to 5,000 DA, 2.5 % up to 100,000 DA, else 2,500 DA.

Control (not Chargily's; no auth; JSON; errors {"error"}):
  POST /_control/checkouts/<id>/pay {"outcome": "paid"|"failed"|"canceled"|"expired"|"processing"}: only from pending
    or processing (else 409); sets status and updated_at and sends the matching event per the plan ("processing" sends
    none); answers {"checkout", "deliveries": [...], "scheduled": [...]} once the synchronous deliveries are done.
  POST /_control/plan {"webhook": "once"|"twice"|"never"|"late"|"wrong_signature"|"unsigned", "late_ms": 500,
    "booleans_as_numbers": false, "livemode_as_string": true, "api_delay_ms": 0, "api_fail_next": 0,
    "api_fail_status": 500}: omitted keys keep their values; answers the plan (GET too). twice: the same bytes twice;
    never: the event is built and kept for replay but not sent; late: sent after late_ms in the background;
    wrong_signature: signed with another key; unsigned: no signature header. booleans_as_numbers: livemode and
    pass_fees_to_customer as 0/1, in events and API answers; livemode_as_string false: the event's livemode as JSON
    false. api_delay_ms: every API answer waits first; api_fail_next: the next N API requests get api_fail_status and
    {"message": "Server Error"}, nothing done.
  POST /_control/checkouts/<id>/send {"type", "status_in_data"}: one more correctly signed event now, its data the
    checkout with status replaced; the stored checkout is unchanged. Answers the delivery.
  POST /_control/checkouts/<id>/replay: the last event built for that checkout again, same bytes and signature header.
  POST /_control/default_webhook {"url"}; GET /_control/checkouts {"checkouts": [...]}; GET /_control/health {"ok"}.
A delivery: {"checkout", "event_id", "type", "url", "signature": "valid"|"wrong"|"none", "status" (the endpoint's
HTTP status or null), "error" (null or why nothing was answered)}. Every request ({"kind": "request", "method",
"path", "status"}) and delivery ({"kind": "delivery", ...}) is appended to LOG as one JSON line.

    chargily-server.py PORT SECRET_KEY LOG      (PORT 0: any free port; prints "listening on PORT")
"""
import hashlib
import hmac
import http.client
import json
import secrets
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, SECRET, LOG = int(sys.argv[1]), sys.argv[2], sys.argv[3]
MINIMUM_AMOUNT = 50
CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"
MODES = ("once", "twice", "never", "late", "wrong_signature", "unsigned")
lock, log_lock = threading.Lock(), threading.Lock()
checkouts, last_shot = {}, {}
plan = {"webhook": "once", "late_ms": 500, "booleans_as_numbers": False, "livemode_as_string": True,
        "api_delay_ms": 0, "api_fail_next": 0, "api_fail_status": 500}
settings = {"default_webhook": None}


def new_id():
    value = (int(time.time() * 1000) << 80) | secrets.randbits(80)
    return "".join(CROCKFORD[(value >> 5 * i) & 31] for i in range(25, -1, -1))


def log(entry):
    with log_lock, open(LOG, "a") as file:
        file.write(json.dumps(dict(entry, at=round(time.time(), 3))) + "\n")


def php_json(value):
    return json.dumps(value, separators=(",", ":")).replace("/", "\\/").encode()


def sign(body, key):
    return hmac.new(key.encode(), body, hashlib.sha256).hexdigest()


def fees_for(amount):
    if amount <= 5000:
        return max(25, 10 + (amount * 25 + 500) // 1000)
    return (amount * 25 + 500) // 1000 if amount < 100000 else 2500


def render(checkout, status=None):
    data = dict(checkout)
    if status is not None:
        data["status"] = status
    if plan["booleans_as_numbers"]:
        for key in ("livemode", "pass_fees_to_customer"):
            if isinstance(data[key], bool):
                data[key] = int(data[key])
    return data


def build_shot(checkout, event_type, status=None, signing="valid"):
    now = int(time.time())
    livemode = 0 if plan["booleans_as_numbers"] else "false" if plan["livemode_as_string"] else False
    event = {"id": new_id(), "entity": "event", "livemode": livemode, "type": event_type,
             "data": render(checkout, status), "created_at": now, "updated_at": now}
    body = php_json(event)
    signature = {"valid": sign(body, SECRET), "wrong": sign(body, "not-" + SECRET), "none": None}[signing]
    shot = {"checkout": checkout["id"], "event_id": event["id"], "type": event_type, "signing": signing,
            "url": checkout["webhook_endpoint"] or settings["default_webhook"], "body": body, "signature": signature}
    last_shot[checkout["id"]] = shot
    return shot


def send(shot):
    result = {"checkout": shot["checkout"], "event_id": shot["event_id"], "type": shot["type"], "url": shot["url"],
              "signature": shot["signing"], "status": None, "error": None}
    if not shot["url"]:
        result["error"] = "no webhook endpoint: none on the checkout and no default set"
    else:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if shot["signature"] is not None:
            headers["signature"] = shot["signature"]  # http.client keeps the name's case; urllib would not
        try:
            target = urllib.parse.urlsplit(shot["url"])
            kind = http.client.HTTPSConnection if target.scheme == "https" else http.client.HTTPConnection
            connection = kind(target.hostname, target.port, timeout=10)
            try:
                connection.request("POST", (target.path or "/") + ("?" + target.query if target.query else ""),
                                   body=shot["body"], headers=headers)
                result["status"] = connection.getresponse().status
            finally:
                connection.close()
        except Exception as error:
            result["error"] = f"{type(error).__name__}: {error}"
    log(dict(result, kind="delivery"))
    return result


def dispatch(checkout, event_type, background):
    """Build the event for checkout and deliver it per the plan: (deliveries done, deliveries scheduled)."""
    mode, late_ms = plan["webhook"], plan["late_ms"]
    signing = {"wrong_signature": "wrong", "unsigned": "none"}.get(mode, "valid")
    shot = build_shot(checkout, event_type, signing=signing)
    count = {"never": 0, "twice": 2}.get(mode, 1)
    delay = late_ms / 1000 if mode == "late" else 0
    if count and (background or delay):
        def later():
            time.sleep(delay)
            for _ in range(count):
                send(shot)
        threading.Thread(target=later, daemon=True).start()
        return [], [{"event_id": shot["event_id"], "type": event_type, "after_ms": int(delay * 1000)}] * count
    return [send(shot) for _ in range(count)], []


def is_url(value):
    if not isinstance(value, str):
        return False
    parts = urllib.parse.urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def is_boolean(value):
    return value in (True, False, 0, 1, "0", "1") and not isinstance(value, float)


def create_checkout(body):
    """Validate a create request as Chargily does: (422 body, None) or (None, the new checkout)."""
    body = body if isinstance(body, dict) else {}
    errors = {}

    def fail(field, text):
        errors.setdefault(field, []).append(text)

    def label(field):
        return field.replace("_", " ")

    amount = body.get("amount")
    if body.get("items") is not None:
        fail("items", "Checkouts with items are not supported by this stand-in; send amount and currency.")
    elif amount is None:
        fail("amount", "The amount field is required when items is not present.")
    elif not isinstance(amount, int) or isinstance(amount, bool):
        fail("amount", "The amount field must be an integer.")
    elif amount < MINIMUM_AMOUNT:
        fail("amount", f"The amount field must be at least {MINIMUM_AMOUNT}.")
    if amount is not None and body.get("currency") is None:
        fail("currency", "The currency field is required when amount is present.")
    elif body.get("currency") is not None and body.get("currency") != "dzd":
        fail("currency", "The selected currency is invalid.")
    if body.get("success_url") is None:
        fail("success_url", "The success url field is required.")
    for field in ("success_url", "failure_url", "webhook_endpoint"):
        if body.get(field) is not None and not is_url(body[field]):
            fail(field, f"The {label(field)} field must be a valid URL.")
    for field in ("description", "customer_id", "shipping_address"):
        if body.get(field) is not None and not isinstance(body[field], str):
            fail(field, f"The {label(field)} field must be a string.")
    for field, allowed in (("locale", ("ar", "en", "fr")), ("payment_method", ("edahabia", "cib")),
                           ("chargily_pay_fees_allocation", ("customer", "merchant", "split"))):
        if body.get(field) is not None and body[field] not in allowed:
            fail(field, f"The selected {label(field)} is invalid.")
    for field in ("pass_fees_to_customer", "collect_shipping_address"):
        if body.get(field) is not None and not is_boolean(body[field]):
            fail(field, f"The {label(field)} field must be true or false.")
    if body.get("metadata") is not None and not isinstance(body["metadata"], (dict, list)):
        fail("metadata", "The metadata field must be an array.")
    percentage, off = body.get("percentage_discount"), body.get("amount_discount")
    if percentage is not None and off is not None:
        fail("percentage_discount", "The percentage discount field is prohibited when amount discount is present.")
    elif percentage is not None and (isinstance(percentage, bool) or not isinstance(percentage, (int, float))
                                     or not 0 <= percentage <= 100):
        fail("percentage_discount", "The percentage discount field must be between 0 and 100.")
    elif off is not None and (isinstance(off, bool) or not isinstance(off, int) or off < 0):
        fail("amount_discount", "The amount discount field must be an integer of at least 0.")
    if not errors:
        discount, final = None, amount
        if percentage is not None:
            discount = {"type": "percentage", "value": int(percentage) if percentage == int(percentage) else percentage}
            final = amount - int(amount * percentage / 100 + 0.5)
        elif off is not None:
            discount, final = {"type": "amount", "value": off}, amount - off
        if final < MINIMUM_AMOUNT:
            fail("amount", f"The amount after discount must be at least {MINIMUM_AMOUNT}.")
    if errors:
        texts = [text for field in errors.values() for text in field]
        more = len(texts) - 1
        message = texts[0] + (f" (and {more} more error{'s' if more > 1 else ''})" if more else "")
        return {"message": message, "errors": errors}, None
    passes = body.get("pass_fees_to_customer")
    passes = None if passes is None else passes in (True, 1, "1")
    allocation = body.get("chargily_pay_fees_allocation") or ("merchant" if passes is False else "customer")
    now, checkout_id = int(time.time()), new_id()
    page = f"http://127.0.0.1:{PORT}/checkout/{checkout_id}"
    return None, {
        "id": checkout_id, "entity": "checkout", "livemode": False, "amount": final, "currency": "dzd",
        "fees": 0, "fees_on_merchant": 0, "fees_on_customer": 0, "pass_fees_to_customer": passes,
        "chargily_pay_fees_allocation": allocation, "status": "pending", "locale": body.get("locale") or "ar",
        "description": body.get("description"), "metadata": body.get("metadata"),
        "success_url": body["success_url"], "failure_url": body.get("failure_url"),
        "webhook_endpoint": body.get("webhook_endpoint"), "payment_method": body.get("payment_method"),
        "invoice_id": None, "customer_id": body.get("customer_id") or new_id(), "payment_link_id": None,
        "created_at": now, "updated_at": now, "shipping_address": body.get("shipping_address"),
        "collect_shipping_address": int(body.get("collect_shipping_address") in (True, 1, "1")),
        "discount": discount, "amount_without_discount": amount if discount else None,
        "checkout_url": page, "url": page}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body, php=False, extra=None, content_type="application/json"):
        data = body if isinstance(body, bytes) else php_json(body) if php else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        log(dict(extra or {}, kind="request", method=self.command, path=self.path, status=status))

    def route(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        parts = [part for part in urllib.parse.urlsplit(self.path).path.split("/") if part]
        if parts[:2] == ["api", "v2"]:
            return self.api(parts[2:], body)
        if parts[:1] == ["_control"]:
            return self.control(parts[1:], body)
        if self.command == "GET" and len(parts) == 2 and parts[0] == "checkout" and parts[1] in checkouts:
            c = checkouts[parts[1]]
            page = f"<!doctype html><title>Chargily Pay stand-in</title><h1>{c['amount']} DZD</h1><p>{c['status']}"
            return self.answer(200, page.encode(), content_type="text/html; charset=utf-8")
        self.answer(404, {"error": "not found"})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = route

    def api(self, parts, body):
        extra = {"body": body} if body is not None else {}
        with lock:
            delay, fail, fail_status = plan["api_delay_ms"], plan["api_fail_next"] > 0, plan["api_fail_status"]
            plan["api_fail_next"] -= fail
        time.sleep(delay / 1000)
        if fail:
            return self.answer(fail_status, {"message": "Server Error"}, True, dict(extra, injected_failure=True))
        if self.headers.get("Authorization") != "Bearer " + SECRET:
            return self.answer(401, {"message": "Unauthenticated."}, True, extra)
        method, found = self.command, len(parts) >= 2 and parts[0] == "checkouts" and parts[1] in checkouts
        if method == "POST" and parts == ["checkouts"]:
            errors, checkout = create_checkout(body)
            if errors:
                return self.answer(422, errors, True, extra)
            with lock:
                checkouts[checkout["id"]] = checkout
            return self.answer(200, render(checkout), True, dict(extra, checkout=checkout["id"]))
        if len(parts) in (2, 3) and parts[0] == "checkouts" and not found:
            return self.answer(404, {"message": "Checkout not found."}, True, extra)
        if method == "GET" and len(parts) == 2 and parts[0] == "checkouts":
            with lock:
                snapshot = render(checkouts[parts[1]])
            return self.answer(200, snapshot, True, dict(extra, checkout=parts[1]))
        if method == "POST" and len(parts) == 3 and parts[0] == "checkouts" and parts[2] == "expire":
            with lock:
                checkout = checkouts[parts[1]]
                status = checkout["status"]
                if status == "pending":
                    checkout.update(status="expired", updated_at=int(time.time()))
                    snapshot = dict(checkout)
            if status == "expired":
                return self.answer(400, {"message": "The checkout has already expired."}, True, extra)
            if status != "pending":
                return self.answer(403, {"message": "Only a pending checkout can be expired."}, True, extra)
            dispatch(snapshot, "checkout.expired", background=True)
            return self.answer(200, render(snapshot), True, dict(extra, checkout=parts[1]))
        self.answer(404, {"message": "The route could not be found."}, True, extra)

    def control(self, parts, body):
        method, body = self.command, body if isinstance(body, dict) else {}
        if method == "GET" and parts == ["health"]:
            return self.answer(200, {"ok": True})
        if method == "GET" and parts == ["checkouts"]:
            with lock:
                stored = [dict(checkout) for checkout in checkouts.values()]
            return self.answer(200, {"checkouts": stored})
        if parts == ["plan"]:
            if method == "POST":
                unknown = set(body) - set(plan)
                numbers = [key for key, value in body.items() if isinstance(plan.get(key), int) and not
                           isinstance(plan[key], bool) and (not isinstance(value, int) or value < 0)]
                if unknown or numbers or body.get("webhook", "once") not in MODES:
                    return self.answer(400, {"error": f"bad plan: unknown keys {sorted(unknown)}, bad numbers "
                                                      f"{sorted(numbers)}, or webhook not one of {list(MODES)}"})
                with lock:
                    plan.update(body)
            return self.answer(200, plan)
        if method == "POST" and parts == ["default_webhook"]:
            settings["default_webhook"] = body.get("url")
            return self.answer(200, {"url": settings["default_webhook"]})
        if method != "POST" or len(parts) != 3 or parts[0] != "checkouts" or parts[2] not in ("pay", "send", "replay"):
            return self.answer(404, {"error": "no such control call"})
        checkout_id, action = parts[1], parts[2]
        if checkout_id not in checkouts:
            return self.answer(404, {"error": f"no checkout {checkout_id}"})
        if action == "pay":
            outcome = body.get("outcome")
            if outcome not in ("paid", "failed", "canceled", "expired", "processing"):
                return self.answer(400, {"error": "outcome must be paid, failed, canceled, expired or processing"})
            with lock:
                checkout = checkouts[checkout_id]
                if checkout["status"] not in ("pending", "processing"):
                    return self.answer(409, {"error": f"checkout is {checkout['status']}", "checkout": checkout})
                checkout.update(status=outcome, updated_at=int(time.time()))
                if outcome in ("paid", "failed"):
                    checkout["payment_method"] = checkout["payment_method"] or "edahabia"
                if outcome == "paid":
                    fees = fees_for(checkout["amount"])
                    share = {"customer": 0, "merchant": 1, "split": 0.5}[checkout["chargily_pay_fees_allocation"]]
                    on_merchant = int(fees * share)
                    checkout.update(fees=fees, fees_on_merchant=on_merchant, fees_on_customer=fees - on_merchant)
                snapshot = dict(checkout)
            done, scheduled = ([], []) if outcome == "processing" else dispatch(snapshot, "checkout." + outcome, False)
            return self.answer(200, {"checkout": snapshot, "deliveries": done, "scheduled": scheduled})
        if action == "send":
            if not isinstance(body.get("type"), str):
                return self.answer(400, {"error": "type (a string) is required"})
            with lock:
                snapshot = dict(checkouts[checkout_id])
            shot = build_shot(snapshot, body["type"], status=body.get("status_in_data"))
            return self.answer(200, send(shot))
        shot = last_shot.get(checkout_id)
        if shot is None:
            return self.answer(409, {"error": "no event was built for this checkout yet"})
        self.answer(200, send(shot))


server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
PORT = server.server_address[1]
signal.signal(signal.SIGTERM, lambda *args: sys.exit(0))
print(f"listening on {PORT}", flush=True)
try:
    server.serve_forever()
finally:
    server.server_close()
