// The card and presentation checks of Docs/card-token.md, step by step and in its order, as the Swift core
// runs them (Sources/CardToken/CardVerifier.swift and CardVerifier+Presentation.swift). Every input gets
// exactly one result: {verdict, step, detail, kid, claims, presentedAt}.
import { decodeBase45 } from "./base45.js";
import { CARD_LIMITS, decodeCBOR, int64Value, mapValue } from "./cbor.js";
import { readClaims } from "./claims.js";
import { contentType, coseParts, openEnvelope, signatureInput } from "./cose.js";
import { importEd25519, verifyEd25519, windowRefusal } from "./keys.js";
import { TokenError } from "./token-error.js";

const ASCII = new TextEncoder();
const CARD_PREFIX = ASCII.encode("PEEZ1:");
const PRESENTATION_PREFIX = ASCII.encode("PEEZP1:");
const PRESENTATION_TYPE = "application/peez-presentation";
const MAX_BASE45 = ((CARD_LIMITS.maxBytes + 1) >> 1) * 3;

/** The presentation window by default: 30 s of clock skew either way, 30 s on screen. */
export const STANDARD_WINDOW = { skew: 30n, displayPeriod: 30n };

export class CardVerifier {
  /** keys: from keys.js trustedKeys(); revocations: {tokenIDs: Set of lower-case hex, members: Map of
   *  membership id → BigInt}; leeway and the window in seconds (BigInt). */
  constructor({ keys, revocations = { tokenIDs: new Set(), members: new Map() }, leeway = 300n, window = STANDARD_WINDOW }) {
    this.keys = keys;
    this.revocations = revocations;
    this.leeway = leeway;
    this.window = window;
  }

  /** The verdict on a scanned text (a string) at `now` (seconds since the epoch, BigInt). */
  async verify(text, now) {
    const bytes = trimWhitespace(ASCII.encode(text));
    if (startsWith(bytes, PRESENTATION_PREFIX)) return this.verifyPresentation(bytes, now);
    let envelope, claims;
    try {
      [envelope, claims] = openCard(decodeText(bytes, CARD_PREFIX));
    } catch (error) {
      return refusal(error, bytes);
    }
    const result = await this.verifyCard(envelope, claims, now);
    if (result.verdict === "valid" && result.claims.deviceKey) {
      return { ...result, verdict: "presentation_required", step: 12, detail: "this card is bound to the member's phone and must be shown from it" };
    }
    return result;
  }

  /** Steps 7 to 11 on an opened card. */
  async verifyCard(envelope, claimsItem, now) {
    const kid = envelope.kid;
    const candidates = this.keys.filter((entry) => entry.kid === kid);
    if (candidates.length === 0) return { verdict: "unknown_key", step: 7, detail: `no trusted key has kid ${kid}`, kid };
    const input = signatureInput(envelope.protectedHeader, envelope.payload);
    let signer = null;
    for (const entry of candidates) {
      if (await verifyEd25519(entry.key, envelope.signature, input)) {
        signer = entry;
        break;
      }
    }
    if (!signer) return { verdict: "bad_signature", step: 8, detail: `the signature does not verify with the key(s) of kid ${kid}`, kid };
    let claims;
    try {
      claims = readClaims(claimsItem);
    } catch (error) {
      return { verdict: "bad_claims", step: 9, detail: error.message, kid };
    }
    const outside = windowRefusal(signer, claims.iat, this.leeway);
    if (outside) return { verdict: "bad_claims", step: 9, detail: outside, kid };
    if (claims.exp <= claims.iat) return { verdict: "no_paid_period", step: 10, detail: "the card covers no paid time", kid, claims };
    if (claims.exp < now - this.leeway) return { verdict: "expired", step: 10, detail: "expired", kid, claims };
    if (claims.iat > now + this.leeway) return { verdict: "not_yet_valid", step: 10, detail: "issued later than now", kid, claims };
    const cutoff = this.revocations.members.get(claims.sub);
    if (this.revocations.tokenIDs.has(claims.cti)) return { verdict: "revoked", step: 11, detail: `token ${claims.cti} is on the revocation list`, kid, claims };
    if (cutoff !== undefined && claims.iat < cutoff) return { verdict: "revoked", step: 11, detail: `member ${claims.sub} has earlier cards revoked`, kid, claims };
    return { verdict: "valid", step: null, detail: "", kid, claims };
  }

  /** A `PEEZP1:` text: its envelope (1 to 6, 13), the card in it (4 to 11), binding (14), device signature (15),
   *  freshness (16). */
  async verifyPresentation(bytes, now) {
    let parts;
    try {
      parts = coseParts(decodeCBOR(decodeText(bytes, PRESENTATION_PREFIX)));
      if (contentType(parts.header) !== PRESENTATION_TYPE) {
        throw new TokenError("invalidProtectedHeader", `a presentation's protected header must name the content type ${PRESENTATION_TYPE}`);
      }
    } catch (error) {
      return refusal(error, bytes);
    }
    let card, madeAt;
    try {
      [card, madeAt] = readPresentationPayload(parts.payload);
    } catch (error) {
      return { verdict: "malformed", step: 13, detail: error.message };
    }
    let envelope, claims;
    try {
      [envelope, claims] = openCard(card);
    } catch (error) {
      const result = refusal(error, bytes);
      return { ...result, detail: "the card in the presentation: " + result.detail };
    }
    const result = await this.verifyCard(envelope, claims, now);
    if (result.verdict !== "valid") return result;
    const deviceKey = result.claims.deviceKey;
    if (!deviceKey) return { ...result, verdict: "card_not_bound", step: 14, detail: "the card in the presentation is not bound to a device" };
    const input = signatureInput(parts.protectedHeader, parts.payload);
    if (!(await verifyEd25519(await importEd25519(deviceKey), parts.signature, input))) {
      return { ...result, verdict: "bad_device_signature", step: 15, detail: "the presentation is not signed by the device key the card is bound to" };
    }
    const presented = { ...result, presentedAt: madeAt };
    if (madeAt < now - (this.window.skew + this.window.displayPeriod)) {
      return { ...presented, verdict: "stale_presentation", step: 16, detail: `the presentation was made ${now - madeAt} s ago` };
    }
    if (madeAt > now + this.window.skew) {
      return { ...presented, verdict: "future_presentation", step: 16, detail: `the presentation was made ${madeAt - now} s ahead of this device's clock` };
    }
    return presented;
  }
}

/** Steps 1 to 3: the bytes a text with `prefix` carries in Base45. */
function decodeText(trimmed, prefix) {
  if (trimmed.length === 0) throw new TokenError("missingPrefix", "the text is empty");
  if (!startsWith(trimmed, prefix)) throw new TokenError("missingPrefix", "the text does not start with PEEZ1: (a card) or PEEZP1: (a presentation)");
  const base45 = trimmed.subarray(prefix.length);
  if (base45.length > MAX_BASE45) {
    throw new TokenError("sizeLimitExceeded", `the text is ${base45.length} characters of Base45; at most ${MAX_BASE45} can be a card or a presentation`);
  }
  return decodeBase45(base45);
}

/** Steps 4 to 6 on a card's bytes, and the strict decoding of its payload. */
function openCard(bytes) {
  const envelope = openEnvelope(decodeCBOR(bytes));
  if (envelope.contentType !== null) {
    throw new TokenError("invalidProtectedHeader", "the protected header names a content type; a card has none");
  }
  let claims;
  try {
    claims = decodeCBOR(envelope.payload);
  } catch (error) {
    throw new TokenError(error.code, "the payload: " + error.message);
  }
  return [envelope, claims];
}

/** Step 13: exactly {1: the card's bytes, 2: the time it was made}. */
function readPresentationPayload(payload) {
  const item = decodeCBOR(payload);
  const card = item.type === "map" ? mapValue(item, 1n) : undefined;
  const made = item.type === "map" ? mapValue(item, 2n) : undefined;
  if (item.type !== "map" || item.value.length !== 2 || card?.type !== "bytes" || made?.type !== "uint" || int64Value(made) === null) {
    throw new TokenError("notCOSESign1", "the presentation's payload must be exactly {1: the card's bytes, 2: the time it was made}");
  }
  return [card.value, made.value];
}

/** The result for a text refused while opening, at the step the error belongs to. */
function refusal(error, text) {
  if (!(error instanceof TokenError)) throw error;
  const steps = { missingPrefix: text.length === 0 ? 1 : 2, invalidBase45: 3, notCOSESign1: 5, invalidProtectedHeader: 6, unsupportedAlgorithm: 6 };
  return { verdict: error.code === "unsupportedAlgorithm" ? "unsupported_algorithm" : "malformed", step: steps[error.code] ?? 4, detail: error.message };
}

function trimWhitespace(bytes) {
  const space = (byte) => byte === 0x20 || (byte >= 0x09 && byte <= 0x0d);
  let start = 0;
  let end = bytes.length;
  while (start < end && space(bytes[start])) start++;
  while (end > start && space(bytes[end - 1])) end--;
  return bytes.subarray(start, end);
}

function startsWith(bytes, prefix) {
  return bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);
}
