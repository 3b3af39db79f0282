// Trusted Ed25519 keys, as a key set document or a counter bundle publishes them (Docs/card-token.md "The key
// set document"; Sources/CardWire/KeySetDocument.swift), verified through WebCrypto.
import { hex } from "./cose.js";

const SPKI_PREFIX = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];

export class KeyError extends Error {}

/** The raw 32-byte key a PEM SubjectPublicKeyInfo holds, or a KeyError. */
export function rawKeyFromPEM(pem) {
  const match = /^-----BEGIN PUBLIC KEY-----\s+([A-Za-z0-9+/=\s]+?)\s*-----END PUBLIC KEY-----\s*$/.exec(pem.trim() + "\n");
  if (!match) throw new KeyError("not a PEM public key");
  let der;
  try {
    der = Uint8Array.from(atob(match[1].replace(/\s+/g, "")), (c) => c.charCodeAt(0));
  } catch {
    throw new KeyError("the PEM is not base64");
  }
  if (der.length !== 44 || SPKI_PREFIX.some((byte, i) => der[i] !== byte)) throw new KeyError("not an Ed25519 public key");
  return der.slice(12);
}

export function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  try {
    return Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The first 8 bytes of SHA-256 over the raw key, hex: its kid. */
export async function keyID(raw) {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", raw)).slice(0, 8));
}

/** A WebCrypto Ed25519 key for verifying. */
export function importEd25519(raw) {
  return crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
}

/** Whether `signature` by `key` (a CryptoKey) covers `data`. */
export async function verifyEd25519(key, signature, data) {
  try {
    return await crypto.subtle.verify({ name: "Ed25519" }, key, signature, data);
  } catch {
    return false;
  }
}

/** The keys of a key set (the entries of its "keys"), each checked as the Swift core checks them: its PEM an
 *  Ed25519 key whose kid is `kid` and whose raw form is `x`, alg EdDSA, crv Ed25519, a window in order.
 *  Returns [{kid, raw, key, publishedAt, retiredAt}] (times as BigInt or null). */
export async function trustedKeys(entries) {
  if (!Array.isArray(entries)) throw new KeyError("the keys are not a list");
  const out = [];
  for (const [index, entry] of entries.entries()) {
    const fail = (reason) => { throw new KeyError(`key ${index}: ${reason}`); };
    if (typeof entry?.pem !== "string" || typeof entry.kid !== "string") fail("needs a kid and a pem");
    let raw;
    try {
      raw = rawKeyFromPEM(entry.pem);
    } catch (error) {
      fail(error.message);
    }
    const kid = await keyID(raw);
    if (entry.kid !== kid) fail(`claims kid ${entry.kid} but its key's kid is ${kid}`);
    if (entry.x != null && entry.x !== base64url(raw)) fail(`its "x" is not the key its PEM holds`);
    if ((entry.alg ?? "EdDSA") !== "EdDSA" || (entry.crv ?? "Ed25519") !== "Ed25519") fail("only alg EdDSA on crv Ed25519 is supported");
    const publishedAt = time(entry.published_at, fail);
    const retiredAt = time(entry.retired_at, fail);
    if (publishedAt !== null && retiredAt !== null && retiredAt < publishedAt) fail("retired_at is earlier than published_at");
    out.push({ kid, raw, key: await importEd25519(raw), publishedAt, retiredAt });
  }
  return out;
}

function time(value, fail) {
  if (value == null) return null;
  if (!Number.isSafeInteger(value)) fail("a time is not a whole number of seconds");
  return BigInt(value);
}

/** Why a card issued at `iat` may not be vouched for by `entry`, or null (step 9's key window). */
export function windowRefusal(entry, iat, leeway) {
  if (entry.publishedAt !== null && iat < entry.publishedAt - leeway) return "issued before its key was published";
  if (entry.retiredAt !== null && iat > entry.retiredAt + leeway) return "issued after its key was retired";
  return null;
}
