#!/usr/bin/env python3
"""A Standard Webhooks receiver, written from the specification (https://www.standardwebhooks.com), not from
the sender's code: the tests and the benchmark deliver reminders to it.

For each POST it checks the three headers: webhook-id, webhook-timestamp (within five minutes of its own
clock) and webhook-signature, a space-separated list of `v1,<base64>` signatures of which one must equal the
base64 HMAC-SHA256 of `id.timestamp.body` under the base64-decoded key of a `whsec_` secret. A valid delivery
is answered 204 and counted once by its webhook-id; a repeat is counted as a duplicate (and answered 204, as a
receiver that deduplicates would). A bad signature is answered 401. With --fail-rate it answers that share of
valid deliveries 500 without counting them, to test the sender's retries. With --tolerance it accepts timestamps that
far from its clock (a sender run with --now stamps its own time).

    python3 Tests/Reminders/receiver.py --port 0 --secret whsec_... [--secret ...] [--fail-rate 0.5] [--delay-ms 10] [--log ids.jsonl]

It prints `listening PORT` once ready. GET /stats answers {"received", "duplicates", "bad_signatures",
"failed_on_purpose"}; with --log every first delivery's id and body are appended there, one JSON line each.
"""
import argparse
import asyncio
import base64
import hashlib
import hmac
import json
import random
import sys
import time

TOLERANCE = 300


def keys_from(secrets):
    keys = []
    for secret in secrets:
        if not secret.startswith("whsec_"):
            sys.exit("a secret starts with whsec_")
        encoded = secret[len("whsec_"):]
        keys.append(base64.b64decode(encoded + "=" * (-len(encoded) % 4)))
    return keys


def signature_valid(keys, msg_id, timestamp, body, header):
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = [hmac.new(key, signed, hashlib.sha256).digest() for key in keys]
    for candidate in header.split(" "):
        version, _, encoded = candidate.partition(",")
        if version != "v1":
            continue
        try:
            given = base64.b64decode(encoded, validate=True)
        except ValueError:
            continue
        if any(hmac.compare_digest(given, e) for e in expected):
            return True
    return False


class Receiver:
    def __init__(self, args):
        self.keys = keys_from(args.secret)
        self.fail_rate = args.fail_rate
        self.tolerance = args.tolerance
        self.delay = args.delay_ms / 1000
        self.random = random.Random(args.seed)
        self.seen = set()
        self.duplicates = 0
        self.bad = 0
        self.failed = 0
        self.log = open(args.log, "a", buffering=1) if args.log else None

    def handle(self, method, path, headers, body):
        if method == "GET" and path == "/stats":
            stats = {"received": len(self.seen), "duplicates": self.duplicates, "bad_signatures": self.bad,
                     "failed_on_purpose": self.failed}
            return 200, json.dumps(stats).encode()
        if method != "POST":
            return 405, b""
        msg_id = headers.get("webhook-id", "")
        timestamp = headers.get("webhook-timestamp", "")
        signature = headers.get("webhook-signature", "")
        try:
            fresh = abs(time.time() - int(timestamp)) <= self.tolerance
        except ValueError:
            fresh = False
        if not msg_id or not fresh or not signature_valid(self.keys, msg_id, timestamp, body, signature):
            self.bad += 1
            return 401, b'{"error": "bad signature"}'
        if self.fail_rate and self.random.random() < self.fail_rate:
            self.failed += 1
            return 500, b'{"error": "failing on purpose"}'
        if msg_id in self.seen:
            self.duplicates += 1
        else:
            self.seen.add(msg_id)
            if self.log:
                self.log.write(json.dumps({"id": msg_id, "body": json.loads(body)}, ensure_ascii=False) + "\n")
        return 204, b""

    async def serve(self, reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, _, value = line.partition(":")
                        headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                if self.delay and method == "POST":
                    await asyncio.sleep(self.delay)
                status, answer = self.handle(method, path, headers, body)
                reason = {200: "OK", 204: "No Content", 401: "Unauthorized", 405: "Method Not Allowed", 500: "Internal Server Error"}[status]
                writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(answer)}\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n\r\n".encode() + answer)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--secret", action="append", required=True)
    parser.add_argument("--fail-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--delay-ms", type=float, default=0.0, help="answer each delivery this much later")
    parser.add_argument("--log")
    parser.add_argument("--tolerance", type=int, default=TOLERANCE,
                        help="seconds a webhook-timestamp may be from this clock (a sender acting at another time stamps that time)")
    args = parser.parse_args()
    receiver = Receiver(args)
    server = await asyncio.start_server(receiver.serve, "127.0.0.1", args.port, limit=1 << 20)
    print(f"listening {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
