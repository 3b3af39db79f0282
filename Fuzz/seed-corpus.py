#!/usr/bin/env python3
"""Seeds Fuzz/corpus/ from the shared test vectors: each token as text (mode byte 0x00) and, where it
decodes, its raw COSE bytes (mode byte 0x01), so the fuzzer starts next to every rule."""
import json, os, sys

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"

def b45decode(text):
    values = [ALPHABET.index(c) for c in text]
    out = bytearray()
    for i in range(0, len(values), 3):
        chunk = values[i:i + 3]
        n = sum(v * 45 ** k for k, v in enumerate(chunk))
        out += n.to_bytes(2 if len(chunk) == 3 else 1, "big")
    return bytes(out)

here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(here, "corpus")
os.makedirs(corpus, exist_ok=True)
manifest = json.load(open(os.path.join(here, "..", "Fixtures", "vectors", "card-token-vectors.json"), encoding="utf-8"))
count = 0
for vector in manifest["vectors"]:
    token = vector["token"]
    with open(os.path.join(corpus, vector["id"] + ".text"), "wb") as f:
        f.write(b"\x00" + token.encode("utf-8"))
    count += 1
    try:
        raw = b45decode(token.strip()[6:])
    except (ValueError, OverflowError):
        continue
    with open(os.path.join(corpus, vector["id"] + ".cbor"), "wb") as f:
        f.write(b"\x01" + raw)
    count += 1
print(f"seeded {count} inputs into {corpus}", file=sys.stderr)
