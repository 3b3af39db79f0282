// COSE_Sign1 (RFC 9052, tag 18) as PEEZ uses it: steps 5 and 6 of Docs/card-token.md, and the bytes a
// signature covers (Sources/CardToken/COSESign1.swift).
import { decodeCBOR, head, int64Value, mapValue } from "./cbor.js";
import { TokenError } from "./token-error.js";

const SIGNATURE1 = new TextEncoder().encode("Signature1");

/** The parts of an envelope, from strictly decoded CBOR: 18([bstr, {}, bstr, bstr(64)]) and a protected
 *  header that is a strict map naming EdDSA (-8). */
export function coseParts(item) {
  if (item.type !== "tag" || item.tag !== 18n || item.value.type !== "array") {
    throw new TokenError("notCOSESign1", "the item is not a tag-18 (COSE_Sign1) array");
  }
  const items = item.value.value;
  if (items.length !== 4 || items[0].type !== "bytes" || items[1].type !== "map" || items[2].type !== "bytes" || items[3].type !== "bytes") {
    throw new TokenError("notCOSESign1", "COSE_Sign1 must be [bstr, map, bstr, bstr]");
  }
  if (items[1].value.length !== 0) throw new TokenError("notCOSESign1", "the unprotected header must be empty");
  if (items[3].value.length !== 64) throw new TokenError("notCOSESign1", `the signature is ${items[3].value.length} bytes, not 64`);
  let header;
  try {
    header = decodeCBOR(items[0].value);
  } catch (error) {
    throw new TokenError("invalidProtectedHeader", `the protected header is not strict CBOR: ${error.message}`);
  }
  if (header.type !== "map") throw new TokenError("invalidProtectedHeader", "the protected header is not a map");
  const algorithm = mapValue(header, 1n);
  if (algorithm === undefined) throw new TokenError("invalidProtectedHeader", "the protected header has no algorithm (1)");
  if (int64Value(algorithm) !== -8n) throw new TokenError("unsupportedAlgorithm", "only EdDSA (-8) is accepted");
  return { protectedHeader: items[0].value, header, payload: items[2].value, signature: items[3].value };
}

/** The content type (3) a protected header names, or null. */
export function contentType(header) {
  const value = mapValue(header, 3n);
  if (value === undefined) return null;
  if (value.type !== "text") throw new TokenError("invalidProtectedHeader", "the protected header's content type (3) is not text");
  return value.value;
}

/** An envelope signed by a key its kid names (a card, or a signed document): the parts, the kid (hex) and the
 *  content type. */
export function openEnvelope(item) {
  const parts = coseParts(item);
  const kid = mapValue(parts.header, 4n);
  if (kid?.type !== "bytes" || kid.value.length !== 8) throw new TokenError("invalidProtectedHeader", "the protected header has no 8-byte kid (4)");
  return { ...parts, kid: hex(kid.value), contentType: contentType(parts.header) };
}

/** ["Signature1", protected, h'', payload], deterministically encoded: what the signature covers. */
export function signatureInput(protectedHeader, payload) {
  return concat([
    [0x84], head(3, SIGNATURE1.length), SIGNATURE1,
    head(2, protectedHeader.length), protectedHeader,
    [0x40],
    head(2, payload.length), payload,
  ]);
}

export function concat(parts) {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function hex(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
