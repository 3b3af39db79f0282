#!/usr/bin/env python3
"""A stand-in for Apple's push service, written from Apple's documented APNs provider API, for tests.

HTTP/2 only, over TLS (hypercorn). POST /3/device/<token>: the provider token must be a bearer ES256 JWT whose
header names the key id and whose claims name the team and an issue time within the hour, signed by the public
key given; apns-topic must be the pass type id; the body an empty JSON object. Answers as APNs does:
200 with apns-id; 410 {"reason": "Unregistered"} for tokens beginning "dead"; 400 {"reason": "BadDeviceToken"}
for tokens beginning "bad0"; 429 {"reason": "TooManyRequests"} the first time a token beginning "cafe" is pushed
(device tokens are hexadecimal); tokens beginning "51ee" are answered only after 60 s (a stalled APNs);
403 for a bad provider token. Every request is appended to LOG as one JSON line.

With CLIENT_CA, it takes certificate-based connections as APNs does: the TLS handshake requires a client
certificate issued under CLIENT_CA (the pass type certificate), and a request without a provider token is then
authenticated by that certificate.

    apns-server.py PORT CERT KEY PUBLIC_KEY KEY_ID TEAM_ID TOPIC LOG [CLIENT_CA]
"""
import asyncio
import ssl
import base64
import json
import sys
import time
import uuid

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
from hypercorn.asyncio import serve
from hypercorn.config import Config

PORT, CERT, KEY, PUBLIC_KEY, KEY_ID, TEAM_ID, TOPIC, LOG = sys.argv[1:9]
CLIENT_CA = sys.argv[9] if len(sys.argv) > 9 else None
public_key = serialization.load_pem_public_key(open(PUBLIC_KEY, "rb").read())
seen_busy = set()


def b64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def provider_token_problem(header):
    if not header.startswith("bearer "):
        return "MissingProviderToken"
    try:
        head, claims, signature = header[7:].split(".")
        raw = b64(signature)
        if len(raw) != 64:
            return "InvalidProviderToken"
        public_key.verify(utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                          (head + "." + claims).encode(), ec.ECDSA(hashes.SHA256()))
        head, claims = json.loads(b64(head)), json.loads(b64(claims))
    except Exception:
        return "InvalidProviderToken"
    if head != {"alg": "ES256", "kid": KEY_ID} or claims.get("iss") != TEAM_ID:
        return "InvalidProviderToken"
    if not isinstance(claims.get("iat"), int) or abs(time.time() - claims["iat"]) > 3600:
        return "ExpiredProviderToken"
    return None


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
    path = scope["path"]
    token = path[len("/3/device/"):] if path.startswith("/3/device/") else ""
    status, reason = 200, None
    if scope.get("http_version") != "2" or scope["method"] != "POST" or not token:
        status, reason = 405 if token else 404, "MethodNotAllowed" if token else "BadPath"
    elif not (CLIENT_CA and "authorization" not in headers) and (problem := provider_token_problem(headers.get("authorization", ""))):
        status, reason = 403, problem
    elif headers.get("apns-topic") != TOPIC:
        status, reason = 400, "BadTopic"
    elif headers.get("apns-push-type", "alert") not in ("alert", "background", "location", "voip", "complication", "fileprovider", "mdm",
                                                         "liveactivity", "pushtotalk"):
        status, reason = 400, "InvalidPushType"
    elif headers.get("apns-priority", "10") not in ("1", "5", "10"):
        status, reason = 400, "BadPriority"
    elif headers.get("apns-push-type") == "background" and headers.get("apns-priority", "10") == "10":
        # Apple: a background push at priority 10 is an error; it must be 5.
        status, reason = 400, "BadPriority"
    elif body.strip() != b"{}":
        status, reason = 400, "BadPayload"
    elif token.startswith("dead"):
        status, reason = 410, "Unregistered"
    elif token.startswith("bad0"):
        status, reason = 400, "BadDeviceToken"
    elif token.startswith("51ee"):
        await asyncio.sleep(60)
    elif token.startswith("cafe") and token not in seen_busy:
        seen_busy.add(token)
        status, reason = 429, "TooManyRequests"
    with open(LOG, "a") as log:
        log.write(json.dumps({"token": token, "status": status, "reason": reason, "at": time.time(),
                              "http_version": scope.get("http_version"), "topic": headers.get("apns-topic"),
                              "push_type": headers.get("apns-push-type"), "priority": headers.get("apns-priority")}) + "\n")
    response = b"" if status == 200 else json.dumps({"reason": reason}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"apns-id", str(uuid.uuid4()).encode()), (b"content-length", str(len(response)).encode())]})
    await send({"type": "http.response.body", "body": response})


config = Config()
config.bind = [f"127.0.0.1:{PORT}"]
config.certfile, config.keyfile = CERT, KEY
config.alpn_protocols = ["h2"]
if CLIENT_CA:
    config.ca_certs = CLIENT_CA
    config.verify_mode = ssl.CERT_REQUIRED
config.accesslog = None
asyncio.run(serve(app, config))
