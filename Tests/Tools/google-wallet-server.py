#!/usr/bin/env python3
"""A stand-in for Google's OAuth 2.0 token endpoint and the Wallet API's generic objects, written from Google's
published contracts, for tests. Plain HTTP on loopback.

POST /token: grant_type urn:ietf:params:oauth:grant-type:jwt-bearer with an RS256 assertion signed by the service
account's key (its public half given), iss = the account's email, scope the Wallet issuer scope, aud = this URL,
iat/exp within an hour: answers {"access_token", "expires_in": 3600, "token_type": "Bearer"}; else 400
{"error": "invalid_grant"}. PATCH /walletobjects/v1/genericObject/<id>: a token it issued as Bearer (else 401),
a JSON object whose id is <id>: 200 with the object for ids in SAVED (a comma list of object ids), 404 otherwise.
Every request is appended to LOG as one JSON line.

    google-wallet-server.py PORT PUBLIC_KEY CLIENT_EMAIL SAVED LOG
"""
import base64
import json
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

PORT, PUBLIC_KEY, EMAIL, SAVED, LOG = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(","), sys.argv[5]
public_key = serialization.load_pem_public_key(open(PUBLIC_KEY, "rb").read())
issued = set()


def b64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def assertion_problem(assertion):
    try:
        head, claims, signature = assertion.split(".")
        public_key.verify(b64(signature), (head + "." + claims).encode(), padding.PKCS1v15(), hashes.SHA256())
        head, claims = json.loads(b64(head)), json.loads(b64(claims))
    except Exception as error:
        return f"bad signature: {error}"
    now = time.time()
    if head.get("alg") != "RS256" or claims.get("iss") != EMAIL:
        return "wrong alg or iss"
    if "https://www.googleapis.com/auth/wallet_object.issuer" not in claims.get("scope", "").split():
        return "wrong scope"
    if claims.get("aud") != f"http://127.0.0.1:{PORT}/token":
        return "wrong aud"
    if not (claims.get("iat", 0) <= now + 60 and now < claims.get("exp", 0) <= claims["iat"] + 3600):
        return "bad times"
    return None


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body, entry):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        with open(LOG, "a") as log:
            log.write(json.dumps(dict(entry, status=status, at=time.time())) + "\n")

    def body(self):
        return self.rfile.read(int(self.headers.get("content-length", "0")))

    def do_POST(self):
        form = urllib.parse.parse_qs(self.body().decode())
        if self.path != "/token":
            return self.answer(404, {"error": "not_found"}, {"path": self.path})
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return self.answer(400, {"error": "unsupported_grant_type"}, {"path": "/token"})
        problem = assertion_problem(form.get("assertion", [""])[0])
        if problem:
            return self.answer(400, {"error": "invalid_grant", "error_description": problem}, {"path": "/token", "problem": problem})
        token = f"ya29.test-{len(issued)}"
        issued.add(token)
        self.answer(200, {"access_token": token, "expires_in": 3600, "token_type": "Bearer"}, {"path": "/token"})

    def do_PATCH(self):
        prefix = "/walletobjects/v1/genericObject/"
        object_id = self.path[len(prefix):] if self.path.startswith(prefix) else None
        body = self.body()
        authorization = self.headers.get("authorization", "")
        entry = {"path": self.path, "object": object_id}
        if not authorization.startswith("Bearer ") or authorization[7:] not in issued:
            return self.answer(401, {"error": {"code": 401, "message": "invalid credentials"}}, entry)
        try:
            resource = json.loads(body)
        except ValueError:
            return self.answer(400, {"error": {"code": 400, "message": "not JSON"}}, entry)
        entry["body"] = resource
        if resource.get("id") != object_id:
            return self.answer(400, {"error": {"code": 400, "message": "id mismatch"}}, entry)
        if object_id not in SAVED:
            return self.answer(404, {"error": {"code": 404, "message": "object not found"}}, entry)
        self.answer(200, resource, entry)


ThreadingHTTPServer(("127.0.0.1", int(PORT)), Handler).serve_forever()
