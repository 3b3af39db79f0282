#!/usr/bin/env python3
"""A stand-in for Google's OAuth 2.0 token endpoint and the Wallet API's generic objects, written from Google's
published contracts, for tests. Plain HTTP on loopback.

POST /token: grant_type urn:ietf:params:oauth:grant-type:jwt-bearer with an RS256 assertion signed by the service
account's key (its public half given), iss = the account's email, scope the Wallet issuer scope, aud = this URL,
iat/exp within an hour: answers {"access_token", "expires_in": 3600, "token_type": "Bearer"}; else 400
{"error": "invalid_grant"}.

The Wallet API's generic objects, each call with a token it issued as Bearer (else 401):
- PATCH /walletobjects/v1/genericObject/<id>, a JSON object whose id is <id>: the fields given replace the held
  object's, 200 with the object; 404 when Google holds no object <id>.
- POST /walletobjects/v1/genericObject (insert), a JSON object with an id: 200 with it; 409 when it exists; 404
  when Google holds no class of its classId.
- POST /walletobjects/v1/genericClass (insert), a JSON object with an id: 200 with it; 409 when it exists.
- GET /walletobjects/v1/genericObject/<id>: 200 with the object, 404 when none.

The user's side: GET /gp/v/save/<jwt> is the "Save to Google Wallet" link opened (pay.google.com's path). The JWT
is RS256, signed by the service account, aud "google", typ "savetowallet"; each object in payload.genericObjects
(and each class in payload.genericClasses) is inserted when Google holds none with its id, and an object Google holds is kept as it is (a link inserts, it
does not update). 200 {"saved": [ids]}; 400 for a JWT that is not the account's.

Objects held at start: SAVED, a comma list of object ids ("none" for none). Every request is appended to LOG as
one JSON line; a request that leaves an object changed or read logs it as "state".

    google-wallet-server.py PORT PUBLIC_KEY CLIENT_EMAIL SAVED LOG
"""
import base64
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

PORT, PUBLIC_KEY, EMAIL, SAVED, LOG = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(","), sys.argv[5]
public_key = serialization.load_pem_public_key(open(PUBLIC_KEY, "rb").read())
issued = set()
objects = {object_id: {"id": object_id} for object_id in SAVED}
classes = set()
# One change at a time, logged in the order it was made.
lock = threading.Lock()


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
        self.log(dict(entry, status=status))

    def body(self):
        return self.rfile.read(int(self.headers.get("content-length", "0")))

    def do_POST(self):
        if self.path in ("/walletobjects/v1/genericObject", "/walletobjects/v1/genericClass"):
            with lock:
                return self.insert()
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

    def authorised(self, entry):
        authorization = self.headers.get("authorization", "")
        if not authorization.startswith("Bearer ") or authorization[7:] not in issued:
            self.answer(401, {"error": {"code": 401, "message": "invalid credentials"}}, entry)
            return False
        return True

    def resource(self, entry):
        try:
            resource = json.loads(self.body())
        except ValueError:
            resource = None
        if not isinstance(resource, dict):
            self.answer(400, {"error": {"code": 400, "message": "not a JSON object"}}, entry)
            return None
        entry["body"] = resource
        return resource

    def do_PATCH(self):
        with lock:
            self.patch()

    def patch(self):
        prefix = "/walletobjects/v1/genericObject/"
        object_id = self.path[len(prefix):] if self.path.startswith(prefix) else None
        entry = {"path": self.path, "object": object_id}
        if not self.authorised(entry):
            return
        resource = self.resource(entry)
        if resource is None:
            return
        if resource.get("id") != object_id:
            return self.answer(400, {"error": {"code": 400, "message": "id mismatch"}}, entry)
        if object_id not in objects:
            return self.answer(404, {"error": {"code": 404, "message": "object not found"}}, entry)
        objects[object_id].update(resource)
        self.answer(200, objects[object_id], dict(entry, state=objects[object_id]))

    def insert(self):
        entry = {"path": self.path, "method": "POST"}
        if not self.authorised(entry):
            return
        resource = self.resource(entry)
        if resource is None:
            return
        object_id = entry["object"] = resource.get("id")
        if not isinstance(object_id, str) or not object_id:
            return self.answer(400, {"error": {"code": 400, "message": "an object needs an id"}}, entry)
        if self.path.endswith("genericClass"):
            if object_id in classes:
                return self.answer(409, {"error": {"code": 409, "message": "the class already exists"}}, entry)
            classes.add(object_id)
            return self.answer(200, resource, entry)
        if object_id in objects:
            return self.answer(409, {"error": {"code": 409, "message": "the object already exists"}}, entry)
        if resource.get("classId") not in classes:
            return self.answer(404, {"error": {"code": 404, "message": "class not found"}}, entry)
        objects[object_id] = resource
        self.answer(200, resource, dict(entry, state=resource))

    def do_GET(self):
        with lock:
            self.read()

    def read(self):
        save, prefix = "/gp/v/save/", "/walletobjects/v1/genericObject/"
        if self.path.startswith(save):
            return self.save(self.path[len(save):])
        entry = {"path": self.path, "method": "GET"}
        if not self.path.startswith(prefix):
            return self.answer(404, {"error": {"code": 404, "message": "not found"}}, entry)
        object_id = entry["object"] = self.path[len(prefix):]
        if not self.authorised(entry):
            return
        if object_id not in objects:
            return self.answer(404, {"error": {"code": 404, "message": "object not found"}}, entry)
        self.answer(200, objects[object_id], dict(entry, state=objects[object_id]))

    def save(self, jwt):
        entry = {"path": "/gp/v/save/", "method": "GET"}
        try:
            head, claims, signature = jwt.split(".")
            public_key.verify(b64(signature), (head + "." + claims).encode(), padding.PKCS1v15(), hashes.SHA256())
            head, claims = json.loads(b64(head)), json.loads(b64(claims))
        except Exception as error:
            return self.answer(400, {"error": {"code": 400, "message": f"not a save JWT of the account: {error}"}}, entry)
        if head.get("alg") != "RS256" or claims.get("iss") != EMAIL or claims.get("aud") != "google" or claims.get("typ") != "savetowallet":
            return self.answer(400, {"error": {"code": 400, "message": "wrong alg, iss, aud or typ"}}, entry)
        saved = []
        classes.update(resource.get("id") for resource in claims.get("payload", {}).get("genericClasses", []))
        for resource in claims.get("payload", {}).get("genericObjects", []):
            object_id = resource.get("id")
            if object_id not in objects:
                objects[object_id] = resource
            saved.append(object_id)
            entry["object"] = object_id
            self.log(dict(entry, status=200, state=objects[object_id], saved=True))
        self.answer(200, {"saved": saved}, dict(entry, saved=saved))

    def log(self, entry):
        with open(LOG, "a") as log:
            log.write(json.dumps(dict(entry, at=time.time())) + "\n")


ThreadingHTTPServer(("127.0.0.1", int(PORT)), Handler).serve_forever()
