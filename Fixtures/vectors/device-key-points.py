#!/usr/bin/env python3
"""Writes device-key-points.json: Ed25519 public keys and whether each decodes to a curve point (RFC 8032 §5.1.3),
computed here with Python's integers, independently of the service's Swift field arithmetic."""
import base64, json, os, random

P = 2**255 - 19
D = (-121665 * pow(121666, P - 2, P)) % P


def on_curve(raw):
    """True or False for a canonical encoding; None for y >= p (refused earlier as non-canonical)."""
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    if y >= P:
        return None
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = (u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P)) % P
    if (v * x * x) % P not in (u % P, (-u) % P):
        return False
    return not (u == 0 and raw[31] >> 7 == 1)


def main():
    random.seed(20261125)
    vectors = []

    def add(raw, note):
        verdict = on_curve(raw)
        if verdict is not None:
            vectors.append({"public_key": base64.urlsafe_b64encode(raw).rstrip(b"=").decode(), "on_curve": verdict, "note": note})

    add((2).to_bytes(32, "little"), "y = 2, from the hostile client's report: no point")
    add((1).to_bytes(32, "little"), "y = 1, x = 0: the neutral point (small order, refused earlier)")
    add(bytes(31) + b"\x80", "y = 0 with the sign bit: x² = −1 has roots, a point")
    neutral_negative = bytearray((1).to_bytes(32, "little"))
    neutral_negative[31] |= 0x80
    add(bytes(neutral_negative), "y = 1 with the sign bit set: x = 0 cannot be negative, no point")
    add(bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"), "RFC 8032 §7.1 test 1 public key")
    while sum(v["note"] == "random 32 bytes" for v in vectors) < 60:
        add(bytes(random.getrandbits(8) for _ in range(32)), "random 32 bytes")
    document = {
        "description": "Ed25519 public keys (base64url) and whether they decode to a curve point by RFC 8032 §5.1.3, "
        "computed by device-key-points.py with Python integers. The device-key route answers 422 for every key whose "
        "on_curve is false.",
        "vectors": vectors,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device-key-points.json")
    with open(path, "w") as out:
        json.dump(document, out, indent=1, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
