#!/usr/bin/env python3
"""Generates the PEEZ1 card-token and PEEZP1 presentation test vectors from an implementation independent of the Swift one.

CBOR, Base45 and COSE_Sign1 are written here by hand (so malformed inputs can be built byte by byte);
Ed25519 comes from the `cryptography` package. Ed25519 is deterministic and the claims are fixed, so
running this again rewrites card-token-vectors.json byte for byte:

    python3 Fixtures/vectors/generate.py

Keys: Fixtures/keys/vectors-primary.pem and vectors-other.pem (test keys, never used for real cards).
"""
import hashlib
import json
import os
import struct

from cryptography.hazmat.primitives import serialization

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = os.path.join(HERE, "..", "keys")
NOW = 1767225600            # 2026-01-01T00:00:00Z: the clock every vector is verified at
DAY = 86400
LEEWAY = 300

# ---------------------------------------------------------------------------- CBOR (RFC 8949)

class Raw:
    """Bytes spliced into the output as they are."""
    def __init__(self, data): self.data = data

class Tag:
    def __init__(self, tag, value): self.tag, self.value = tag, value

class Map:
    """A map whose entries are written in the order given (so unsorted or repeated keys can be made)."""
    def __init__(self, entries, sort=True): self.entries, self.sort = entries, sort

def head(major, n, width=None):
    if width is None:
        width = 0 if n < 24 else 1 if n < 0x100 else 2 if n < 0x10000 else 4 if n < 0x100000000 else 8
    info = {0: n, 1: 24, 2: 25, 4: 26, 8: 27}[width]
    body = b"" if width == 0 else n.to_bytes(width, "big")
    return bytes([major << 5 | info]) + body

def enc(v):
    if isinstance(v, Raw): return v.data
    if isinstance(v, bool): return b"\xf5" if v else b"\xf4"
    if isinstance(v, int): return head(0, v) if v >= 0 else head(1, -1 - v)
    if isinstance(v, bytes): return head(2, len(v)) + v
    if isinstance(v, str):
        b = v.encode("utf-8"); return head(3, len(b)) + b
    if isinstance(v, list): return head(4, len(v)) + b"".join(enc(x) for x in v)
    if isinstance(v, dict): v = Map(list(v.items()))
    if isinstance(v, Map):
        pairs = [(enc(k), enc(x)) for k, x in v.entries]
        if v.sort: pairs.sort(key=lambda p: p[0])
        return head(5, len(pairs)) + b"".join(k + x for k, x in pairs)
    if isinstance(v, Tag): return head(6, v.tag) + enc(v.value)
    raise TypeError(v)

# ---------------------------------------------------------------------------- Base45 (RFC 9285)

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"

def b45(data):
    out = []
    for i in range(0, len(data) - 1, 2):
        n = data[i] * 256 + data[i + 1]
        out += [ALPHABET[n % 45], ALPHABET[n // 45 % 45], ALPHABET[n // 2025]]
    if len(data) % 2:
        n = data[-1]
        out += [ALPHABET[n % 45], ALPHABET[n // 45]]
    return "".join(out)

# ---------------------------------------------------------------------------- keys and COSE

def load(name):
    with open(os.path.join(KEYS, name + ".pem"), "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return key, hashlib.sha256(raw).digest()[:8], pem.decode()

PRIMARY, PRIMARY_KID, PRIMARY_PEM = load("vectors-primary")
OTHER, OTHER_KID, OTHER_PEM = load("vectors-other")
DEVICE, _, _ = load("vectors-device")
DEVICE_OTHER, _, _ = load("vectors-device-other")

def raw(key):
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

def cnf(key):
    """The cnf claim (RFC 8747): a COSE_Key of type OKP (1) on Ed25519 (6) holding the raw key under -2."""
    return {1: {1: 1, -1: 6, -2: raw(key)}}

def claims(sub="PEEZ-20251103-00002", exp=NOW + 20 * DAY, iat=NOW - 10 * DAY,
           cti=bytes.fromhex("a1b2c3d4e5f60718"), name="Ahmed Mohamed", extra=None, drop=()):
    m = {1: "PEEZ", 2: sub, 4: exp, 6: iat, 7: cti}
    if name is not None: m[-65537] = name
    for k in drop: m.pop(k)
    m.update(extra or {})
    return m

def cose(payload, key=PRIMARY, kid=PRIMARY_KID, protected=None, unprotected=None,
         signature=None, tamper=None, outer=None, trailing=b""):
    """Builds a COSE_Sign1; each keyword replaces one part so exactly one rule is broken."""
    protected = enc({1: -8, 4: kid}) if protected is None else protected
    payload = enc(payload) if not isinstance(payload, bytes) else payload
    sig_structure = enc(["Signature1", protected, b"", payload])
    sig = key.sign(sig_structure) if signature is None else signature
    if tamper: sig = tamper(sig)
    items = [protected, {} if unprotected is None else unprotected, payload, sig]
    return enc(Tag(18, items) if outer is None else outer(items)) + trailing

def token(payload, **parts):
    return "PEEZ1:" + b45(cose(payload, **parts))

PRESENTATION_TYPE = "application/peez-presentation"
SKEW, DISPLAY = 30, 30

def presentation(card, made_at=NOW - 10, device=DEVICE, protected=None, payload=None, tamper=None):
    """A presentation of `card` (COSE bytes) made at `made_at` and signed by `device`."""
    protected = enc({1: -8, 3: PRESENTATION_TYPE}) if protected is None else protected
    payload = enc({1: card, 2: made_at}) if payload is None else payload
    sig = device.sign(enc(["Signature1", protected, b"", payload]))
    if tamper: sig = tamper(sig)
    return "PEEZP1:" + b45(enc(Tag(18, [protected, {}, payload, sig])))

def ok(c, kid=PRIMARY_KID):
    e = {"verdict": "valid", "sub": c[2], "exp": c[4], "iat": c[6], "cti": c[7].hex(), "kid": kid.hex()}
    e["name"] = c.get(-65537)
    return e

# ---------------------------------------------------------------------------- the vectors

V = []
# The spec's verification step that refuses a token with this verdict; a malformed token names its step.
STEP = {"unsupported_algorithm": 6, "unknown_key": 7, "bad_signature": 8, "bad_claims": 9,
        "expired": 10, "no_paid_period": 10, "not_yet_valid": 10, "revoked": 11, "presentation_required": 12,
        "card_not_bound": 14, "bad_device_signature": 15, "stale_presentation": 16, "future_presentation": 16}
def vector(id, description, tok, expected, keys=("primary",), revocations=None, now=NOW, step=None, windows=None):
    if isinstance(expected, str): expected = {"verdict": expected}
    if expected["verdict"] != "valid":
        expected = dict(expected, step=step or STEP[expected["verdict"]])
    v = {"id": id, "description": description, "token": tok, "trusted_keys": list(keys),
         "now": now, "leeway": LEEWAY, "revocations": revocations or {"token_ids": [], "members": {}},
         "expected": expected}
    if windows: v["key_windows"] = windows
    V.append(v)

c = claims(); vector("valid-with-name", "a current card with a display name", token(c), ok(c))
c = claims(name=None); vector("valid-without-name", "a current card without a name", token(c), ok(c))
c = claims(name="أحمد محمد", sub="PEEZ-20251104-00017", cti=bytes.fromhex("0011223344556677"))
vector("valid-arabic-name", "a current card with an Arabic name", token(c), ok(c))
c = claims(name="é" * 64); vector("valid-name-at-limit", "a name of exactly 128 UTF-8 bytes", token(c), ok(c))
c = claims(); vector("valid-scanner-line-ending", "CR LF and spaces around the text, as scanners send", "  " + token(c) + "\r\n", ok(c))
c = claims(extra={99: "future claim"}); e = ok(c)
vector("valid-unknown-claim-ignored", "an unknown claim key is ignored", token(c), e)
c = claims(exp=NOW - 200); vector("valid-expired-within-leeway", "expired 200 s ago, inside the 300 s leeway", token(c), ok(c))
c = claims(iat=NOW + 200); vector("valid-issued-within-leeway", "issued 200 s in the future, inside the leeway", token(c), ok(c))
c = claims(); vector("valid-second-key-in-set", "signed by the second of two trusted keys", token(c, key=OTHER, kid=OTHER_KID), ok(c, OTHER_KID), keys=("primary", "other"))

c = claims(exp=NOW - 301)
vector("expired", "the paid period ended 301 s ago, beyond the leeway", token(c), dict(ok(c), verdict="expired"))
c = claims(exp=NOW - 40 * DAY, iat=NOW - 70 * DAY)
vector("expired-long-ago", "a card that ended 40 days ago", token(c), dict(ok(c), verdict="expired"))
c = claims(exp=NOW - 100, iat=NOW - 100)
vector("no-paid-period", "expires when it was issued (a member who never paid), 100 s ago: inside the leeway, still never valid",
       token(c), dict(ok(c), verdict="no_paid_period"))
c = claims(exp=NOW - DAY, iat=NOW - 100)
vector("no-paid-period-expiry-before-issue", "expires a day before it was issued", token(c), dict(ok(c), verdict="no_paid_period"))
c = claims(exp=NOW + 1, iat=NOW)
vector("valid-one-second-paid", "covers one second of paid time: exp after iat", token(c), ok(c))
c = claims(iat=NOW + 301)
vector("not-yet-valid", "issued 301 s in the future, beyond the leeway", token(c), dict(ok(c), verdict="not_yet_valid"))

c = claims()
vector("bad-signature-flipped-bit", "one bit of the signature flipped", token(c, tamper=lambda s: bytes([s[0] ^ 1]) + s[1:]), {"verdict": "bad_signature", "kid": PRIMARY_KID.hex()})
vector("bad-signature-other-key", "signed by another key but naming the trusted key's kid", token(c, key=OTHER), {"verdict": "bad_signature", "kid": PRIMARY_KID.hex()})
tampered = claims(exp=NOW + 400 * DAY)
forged = token(c)  # re-sign the original, then swap in the longer expiry
good = enc(c); bad = enc(tampered)
sig = PRIMARY.sign(enc(["Signature1", enc({1: -8, 4: PRIMARY_KID}), b"", good]))
vector("bad-signature-altered-claims", "the expiry was changed after signing", token(tampered, signature=sig), {"verdict": "bad_signature", "kid": PRIMARY_KID.hex()})
vector("unknown-key", "signed by a key the verifier does not trust", token(c, key=OTHER, kid=OTHER_KID), {"verdict": "unknown_key", "kid": OTHER_KID.hex()})
vector("unsupported-algorithm-es256", "the protected header names ES256 (-7)", token(c, protected=enc({1: -7, 4: PRIMARY_KID})), "unsupported_algorithm")
vector("unsupported-algorithm-text", "the protected header names an algorithm as text", token(c, protected=enc({1: "EdDSA", 4: PRIMARY_KID})), "unsupported_algorithm")

good_token = token(c)
vector("malformed-empty", "an empty scan", "", "malformed", step=1)
vector("malformed-whitespace-only", "a scan of only whitespace", " \r\n", "malformed", step=1)
vector("malformed-wrong-prefix", "an EU certificate prefix", "HC1:" + good_token[6:], "malformed", step=2)
vector("malformed-lowercase-prefix", "the prefix is case-sensitive", "peez1:" + good_token[6:], "malformed", step=2)
vector("malformed-base45-truncated", "one character cut off (length ≡ 1 mod 3)",
       good_token[:-1] if (len(good_token) - 7) % 3 == 1 else good_token[:-2], "malformed", step=3)
vector("malformed-base45-lowercase", "lower-case letters are not Base45", good_token[:6] + good_token[6:].lower(), "malformed", step=3)
vector("malformed-base45-bad-character", "a '#' is not in the alphabet", good_token[:10] + "#" + good_token[11:], "malformed", step=3)
vector("malformed-base45-triplet-overflow", "a chunk ':::' encodes 91124, above 65535", "PEEZ1::::" + good_token[9:], "malformed", step=3)
vector("malformed-base45-pair-overflow", "a final pair '::' encodes 2024, above 255", "PEEZ1:" + b45(enc(Tag(18, [b"", {}, b"", b""]))) + "::", "malformed", step=3)
vector("malformed-trailing-bytes", "a zero byte after the COSE item", token(c, trailing=b"\x00"), "malformed", step=4)
vector("malformed-indefinite-array", "the COSE array has indefinite length",
       token(c, outer=lambda items: Tag(18, Raw(b"\x9f" + b"".join(enc(i) for i in items) + b"\xff"))), "malformed", step=4)
vector("malformed-indefinite-payload", "the signed claims map has indefinite length",
       token(Raw(b"\xbf" + b"".join(enc(k) + enc(v) for k, v in sorted(c.items(), key=lambda p: enc(p[0]))) + b"\xff")), "malformed", step=4)
vector("malformed-deep-nesting", "a claim nests arrays five deep (limit 4)", token(claims(extra={99: [[[[1]]]]})), "malformed", step=4)
vector("malformed-absurd-bstr-length", "a byte string declares 4 GiB", "PEEZ1:" + b45(enc(Tag(18, Raw(b"\x84\x5a\xff\xff\xff\xff")))), "malformed", step=4)
vector("malformed-absurd-array-count", "an array declares 2^64-1 items", "PEEZ1:" + b45(b"\xd2\x9b" + b"\xff" * 8), "malformed", step=4)
vector("malformed-non-shortest-integer", "the signed expiry uses an 8-byte integer for a 4-byte value",
       token(Map([(k, Raw(head(0, v, 8)) if k == 4 else v) for k, v in c.items()])), "malformed", step=4)
vector("malformed-unsorted-map-keys", "the signed claims map is not in bytewise key order",
       token(Map(list(reversed(sorted(c.items(), key=lambda p: enc(p[0])))), sort=False)), "malformed", step=4)
vector("malformed-duplicate-map-key", "the signed claims map repeats the subject key",
       token(Map(sorted(c.items(), key=lambda p: enc(p[0])) + [(2, "PEEZ-20251103-00003")], sort=False)), "malformed", step=4)
vector("malformed-float-claim", "a claim holds a float, which the format never uses", token(claims(extra={99: Raw(b"\xf9\x3c\x00")})), "malformed", step=4)
vector("malformed-not-tagged", "a bare array without tag 18", token(c, outer=lambda items: items), "malformed", step=5)
vector("malformed-wrong-tag", "tag 17 (COSE_Mac0) instead of 18", token(c, outer=lambda items: Tag(17, items)), "malformed", step=5)
vector("malformed-three-elements", "the COSE array has three elements", token(c, outer=lambda items: Tag(18, items[:3])), "malformed", step=5)
vector("malformed-short-signature", "a 63-byte signature", token(c, tamper=lambda s: s[:63]), "malformed", step=5)
vector("malformed-unprotected-header", "the unprotected header is not empty", token(c, unprotected={4: PRIMARY_KID}), "malformed", step=5)
vector("malformed-missing-kid", "the protected header has no kid", token(c, protected=enc({1: -8})), "malformed", step=6)
vector("malformed-short-kid", "the kid is 7 bytes", token(c, protected=enc({1: -8, 4: PRIMARY_KID[:7]})), "malformed", step=6)
vector("malformed-missing-alg", "the protected header has no algorithm", token(c, protected=enc({4: PRIMARY_KID})), "malformed", step=6)
vector("malformed-content-type-in-header", "a validly signed envelope whose header names a content type (a counter bundle's)",
       token(claims(), protected=enc({1: -8, 3: "application/peez-counter-bundle+json", 4: PRIMARY_KID})), "malformed", step=6)
vector("malformed-too-long", "a text longer than any card can be", "PEEZ1:" + "0" * 3075, "malformed", step=4)
vector("malformed-invalid-utf8-name", "the name is not UTF-8", token(claims(name=Raw(b"\x62\xff\xfe"))), "malformed", step=4)

def bad(id, description, c):
    vector(id, description, token(c), {"verdict": "bad_claims", "kid": PRIMARY_KID.hex()})
bad("bad-claims-missing-expiry", "no exp claim", claims(drop=(4,)))
bad("bad-claims-missing-token-id", "no cti claim", claims(drop=(7,)))
bad("bad-claims-missing-subject", "no sub claim", claims(drop=(2,)))
bad("bad-claims-subject-as-bytes", "sub is a byte string", claims(sub=b"PEEZ-20251103-00002"))
bad("bad-claims-expiry-as-text", "exp is text", claims(exp="2026-01-21"))
bad("bad-claims-negative-issued-at", "iat is negative", claims(iat=-5))
bad("bad-claims-expiry-beyond-int64", "exp is 2^63, beyond a signed 64-bit time", claims(exp=2**63))
bad("bad-claims-short-token-id", "cti is 7 bytes", claims(cti=b"\x01" * 7))
bad("bad-claims-wrong-issuer", "iss is PEEZ2", claims(extra={1: "PEEZ2"}))
bad("bad-claims-name-too-long", "the name is 129 UTF-8 bytes", claims(name="é" * 64 + "x"))
bad("bad-claims-name-not-text", "the name is an integer", claims(name=42))
vector("bad-claims-payload-not-map", "the payload is an array", token(["PEEZ"]), {"verdict": "bad_claims", "kid": PRIMARY_KID.hex()})

c = claims()
vector("revoked-token-id", "the token id is on the revocation list", token(c), dict(ok(c), verdict="revoked"),
       revocations={"token_ids": [c[7].hex()], "members": {}})
vector("revoked-member-before", "the member's cards issued before a later time are revoked", token(c), dict(ok(c), verdict="revoked"),
       revocations={"token_ids": [], "members": {c[2]: c[6] + 1}})
vector("valid-member-revoked-earlier", "a member revocation older than the card does not touch it", token(c), ok(c),
       revocations={"token_ids": ["ffffffffffffffff"], "members": {c[2]: c[6]}})

# Key validity windows: a card must say it was signed while its key was published and not yet retired.
c = claims()
vector("valid-issued-before-key-retired", "the key was retired after it signed the card", token(c), ok(c),
       windows={"primary": {"published_at": c[6] - 30 * DAY, "retired_at": c[6] + DAY}})
vector("valid-issued-within-leeway-of-retirement", "signed 200 s after its key's retirement, inside the leeway", token(c), ok(c),
       windows={"primary": {"retired_at": c[6] - 200}})
vector("bad-claims-issued-after-key-retired", "signed 301 s after its key's retirement", token(c),
       {"verdict": "bad_claims", "kid": PRIMARY_KID.hex()}, windows={"primary": {"retired_at": c[6] - 301}})
vector("bad-claims-issued-before-key-published", "dated a day before its key was published", token(c),
       {"verdict": "bad_claims", "kid": PRIMARY_KID.hex()}, windows={"primary": {"published_at": c[6] + DAY, "retired_at": None}})

# Device-bound cards and their presentations.
bound = claims(extra={8: cnf(DEVICE)})
card = cose(bound)
def shown(c, made_at):
    return dict(ok(c), presented_at=made_at)
vector("presentation-valid", "a bound card presented by its device 10 s ago", presentation(card), shown(bound, NOW - 10))
vector("presentation-valid-oldest", "made 60 s ago: the skew (30 s) plus the display period (30 s)",
       presentation(card, made_at=NOW - SKEW - DISPLAY), shown(bound, NOW - SKEW - DISPLAY))
vector("presentation-valid-newest", "made 30 s ahead of the counter's clock: the skew",
       presentation(card, made_at=NOW + SKEW), shown(bound, NOW + SKEW))
vector("presentation-valid-scanner-line-ending", "CR LF around the presentation, as scanners send",
       " " + presentation(card) + "\r\n", shown(bound, NOW - 10))
vector("presentation-stale", "made 61 s ago: a picture of an old presentation",
       presentation(card, made_at=NOW - SKEW - DISPLAY - 1), dict(shown(bound, NOW - 61), verdict="stale_presentation"))
vector("presentation-stale-hours", "made two hours ago", presentation(card, made_at=NOW - 7200),
       dict(shown(bound, NOW - 7200), verdict="stale_presentation"))
vector("presentation-future", "made 31 s ahead of the counter's clock",
       presentation(card, made_at=NOW + SKEW + 1), dict(shown(bound, NOW + SKEW + 1), verdict="future_presentation"))
vector("presentation-wrong-device-key", "the card is bound to one phone, the presentation signed by another",
       presentation(card, device=DEVICE_OTHER), dict(ok(bound), verdict="bad_device_signature"))
unbound = claims()
vector("presentation-of-unbound-card", "a card without cnf, presented", presentation(cose(unbound)),
       dict(ok(unbound), verdict="card_not_bound"))
vector("bound-card-shown-bare", "a bound card shown as a card, not in a presentation", token(bound),
       dict(ok(bound), verdict="presentation_required"))
c = dict(bound); c[4] = NOW - 400
vector("bound-card-shown-bare-expired", "an expired bound card shown bare: the card's own steps come first", token(c),
       dict(ok(c), verdict="expired"))
vector("presentation-expired-card", "an expired bound card presented: the card's steps before the device's",
       presentation(cose(c)), dict(ok(c), verdict="expired"))
old_card = claims(extra={8: cnf(DEVICE_OTHER)}, cti=bytes.fromhex("0102030405060708"), iat=NOW - 3 * DAY)
vector("presentation-device-key-replaced", "the old phone presents its card after the member's key was replaced: "
       "cards issued before the replacement are revoked", presentation(cose(old_card), device=DEVICE_OTHER),
       dict(ok(old_card), verdict="revoked"), revocations={"token_ids": [], "members": {old_card[2]: NOW - DAY}})
vector("presentation-card-unknown-key", "the card inside is signed by a key the counter does not trust",
       presentation(cose(bound, key=OTHER, kid=OTHER_KID)), {"verdict": "unknown_key", "kid": OTHER_KID.hex()})

flip = lambda s: bytes([s[0] ^ 1]) + s[1:]
vector("presentation-flip-device-signature", "one bit of the device's signature flipped", presentation(card, tamper=flip),
       dict(ok(bound), verdict="bad_device_signature"))
ts = enc({1: card, 2: NOW - 10})
sig = DEVICE.sign(enc(["Signature1", enc({1: -8, 3: PRESENTATION_TYPE}), b"", ts]))
moved = enc({1: card, 2: NOW - 11})
vector("presentation-flip-time", "the time changed after the device signed it (a screenshot made to look fresh)",
       "PEEZP1:" + b45(enc(Tag(18, [enc({1: -8, 3: PRESENTATION_TYPE}), {}, moved, sig]))), dict(ok(bound), verdict="bad_device_signature"))
vector("presentation-flip-card-signature", "one bit of the card's signature flipped inside a valid presentation",
       presentation(cose(bound, tamper=flip)), {"verdict": "bad_signature", "kid": PRIMARY_KID.hex()})
forged_key = bytearray(enc(bound)); at = forged_key.find(raw(DEVICE)); forged_key[at] ^= 1
forged = cose(Raw(bytes(forged_key)), signature=PRIMARY.sign(enc(["Signature1", enc({1: -8, 4: PRIMARY_KID}), b"", enc(bound)])))
vector("presentation-flip-bound-key", "one bit of the card's device key flipped (to bind another phone)",
       presentation(forged), {"verdict": "bad_signature", "kid": PRIMARY_KID.hex()})
vector("presentation-flip-content-type", "the content type altered: \"application/peez-presentatioo\"",
       presentation(card, protected=enc({1: -8, 3: "application/peez-presentatioo"})), "malformed", step=6)
vector("presentation-no-content-type", "the protected header names no content type", presentation(card, protected=enc({1: -8})),
       "malformed", step=6)
vector("presentation-es256", "the protected header names ES256", presentation(card, protected=enc({1: -7, 3: PRESENTATION_TYPE})),
       "unsupported_algorithm")
good = presentation(card)
vector("presentation-flip-base45", "a character of the Base45 text changed to one outside the alphabet",
       good[:20] + "#" + good[21:], "malformed", step=3)
vector("presentation-lowercase-prefix", "the prefix is case-sensitive", "peezp1:" + good[7:], "malformed", step=2)
vector("presentation-payload-extra-key", "the payload holds a third entry", presentation(card, payload=enc({1: card, 2: NOW - 10, 3: 0})),
       "malformed", step=13)
vector("presentation-payload-time-as-text", "the time is text", presentation(card, payload=enc({1: card, 2: "now"})), "malformed", step=13)
vector("presentation-payload-card-as-array", "the card is not a byte string", presentation(card, payload=enc({1: [card], 2: NOW - 10})),
       "malformed", step=13)
vector("presentation-card-is-bundle", "the envelope inside names a content type, as a counter bundle does",
       presentation(cose(bound, protected=enc({1: -8, 3: "application/peez-counter-bundle+json", 4: PRIMARY_KID}))), "malformed", step=6)
vector("presentation-card-not-cose", "the card bytes are not a COSE_Sign1", presentation(enc([1, 2, 3])), "malformed", step=5)
vector("presentation-card-trailing-byte", "a byte after the card's COSE item", presentation(card + b"\x00"), "malformed", step=4)
vector("card-prefix-around-presentation", "a presentation's Base45 behind the card's prefix", "PEEZ1:" + good[7:], "malformed", step=6)
bad_cnf = claims(extra={8: {1: {1: 1, -1: 7, -2: raw(DEVICE)}}})
vector("bad-claims-cnf-wrong-curve", "cnf names curve 7 (Ed448)", token(bad_cnf), {"verdict": "bad_claims", "kid": PRIMARY_KID.hex()})
bad_cnf = claims(extra={8: {1: {1: 1, -1: 6, -2: raw(DEVICE)[:31]}}})
vector("bad-claims-cnf-short-key", "cnf holds a 31-byte key", token(bad_cnf), {"verdict": "bad_claims", "kid": PRIMARY_KID.hex()})
bad_cnf = claims(extra={8: {1: {1: 1, -1: 6, -2: bytes(32)}}})
vector("bad-claims-cnf-small-order-key", "cnf holds the all-zero key, a point of small order", token(bad_cnf),
       {"verdict": "bad_claims", "kid": PRIMARY_KID.hex()})
bad_cnf = claims(extra={8: {3: b"kid"}})
vector("bad-claims-cnf-kid-only", "cnf names a key by kid (3) only, which a verifier cannot use", token(bad_cnf),
       {"verdict": "bad_claims", "kid": PRIMARY_KID.hex()})

missing = [v["id"] for v in V if v["expected"]["verdict"] == "malformed" and v["expected"]["step"] not in (1, 2, 3, 4, 5, 6, 13)]
assert not missing, f"malformed vectors without their step: {missing}"
ids = [v["id"] for v in V]; assert len(ids) == len(set(ids)), "vector ids repeat"

manifest = {
    "format": "PEEZ1 card token and PEEZP1 presentation test vectors",
    "spec": "Docs/card-token.md",
    "how_to_use": "For each vector: trust the named public keys, verify `token` at `now` (seconds since the epoch) "
                  "with `leeway` seconds and the given revocation list (and, where `key_windows` is given, each named key "
                  "trusted only for cards issued inside its `published_at`/`retired_at` window), and expect `expected.verdict` and, for every refusal, `expected.step`: the "
                  "spec's verification step (1-16) that refuses the token; where "
                  "`expected` lists claims or a kid, they must match too. A `PEEZP1:` presentation is checked with the "
                  "`presentation_window` below (its `made_at` no older than now - skew - display_period, no newer than "
                  "now + skew); `expected.presented_at` is its time, given once its device signature verified.",
    "presentation_window": {"skew": SKEW, "display_period": DISPLAY},
    "generator": "Fixtures/vectors/generate.py (independent Python implementation; Ed25519 from the cryptography package)",
    "public_keys": {"primary": PRIMARY_PEM, "other": OTHER_PEM},
    "signing_keys": {"primary": "Fixtures/keys/vectors-primary.pem", "other": "Fixtures/keys/vectors-other.pem"},
    "device_keys": {"device": "Fixtures/keys/vectors-device.pem", "device-other": "Fixtures/keys/vectors-device-other.pem"},
    "vectors": V,
}
with open(os.path.join(HERE, "card-token-vectors.json"), "w", encoding="utf-8") as f:
    json.dump(manifest, f, ensure_ascii=False, indent=1)
    f.write("\n")
print(f"wrote {len(V)} vectors")
