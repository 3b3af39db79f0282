// The card's CWT claims (step 9 of Docs/card-token.md; Sources/CardToken/CardClaims.swift and DeviceKey.swift).
import { int64Value, mapValue } from "./cbor.js";
import { hex } from "./cose.js";
import { TokenError } from "./token-error.js";

const MAX_NAME_BYTES = 128;
const SMALL_ORDER = [
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0100000000000000000000000000000000000000000000000000000000000000",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
];

/** Reads the claims map: {sub, exp, iat (BigInt), cti (hex), name, deviceKey (Uint8Array or null)}. Throws
 *  "invalidClaims". Unknown claim keys are ignored. */
export function readClaims(item) {
  const refuse = (reason) => { throw new TokenError("invalidClaims", reason); };
  if (item.type !== "map") refuse("the payload is not a CBOR map of claims");
  const issuer = mapValue(item, 1n);
  if (issuer?.type !== "text") refuse("the issuer claim (1) is missing or not text");
  if (issuer.value !== "PEEZ") refuse(`the issuer is "${issuer.value.slice(0, 32)}", not "PEEZ"`);
  const subject = mapValue(item, 2n);
  if (subject?.type !== "text" || subject.value === "") refuse("the membership id claim (2) is missing, empty or not text");
  const exp = unsigned(mapValue(item, 4n)) ?? refuse("the expiry claim (4) is missing, not an unsigned integer or beyond 2^63 - 1");
  const iat = unsigned(mapValue(item, 6n)) ?? refuse("the issued-at claim (6) is missing, not an unsigned integer or beyond 2^63 - 1");
  const cti = mapValue(item, 7n);
  if (cti?.type !== "bytes" || cti.value.length !== 8) refuse("the token id claim (7) is missing or not 8 bytes");
  const name = mapValue(item, -65537n);
  if (name !== undefined && name.type !== "text") refuse("the name claim (-65537) is not text");
  const confirmation = mapValue(item, 8n);
  const deviceKey = confirmation === undefined ? null : readConfirmation(confirmation);
  if (name !== undefined && new TextEncoder().encode(name.value).length > MAX_NAME_BYTES) {
    refuse(`the name is more than ${MAX_NAME_BYTES} UTF-8 bytes`);
  }
  return { sub: subject.value, exp, iat, cti: hex(cti.value), name: name?.value ?? null, deviceKey };
}

function unsigned(item) {
  return item?.type === "uint" && int64Value(item) !== null ? item.value : null;
}

/** The cnf claim: exactly {1: {1: 1, -1: 6, -2: x}}, x a usable Ed25519 public key. */
function readConfirmation(item) {
  if (item.type !== "map" || item.value.length !== 1 || int64Value(item.value[0][0]) !== 1n || item.value[0][1].type !== "map") {
    throw new TokenError("invalidClaims", "the confirmation claim (8) must be a map holding only a COSE_Key (1)");
  }
  const key = item.value[0][1];
  const x = mapValue(key, -2n);
  if (key.value.length !== 3 || int64Value(mapValue(key, 1n)) !== 1n || int64Value(mapValue(key, -1n)) !== 6n || x?.type !== "bytes") {
    throw new TokenError("invalidClaims", "the confirmation key must be exactly {1: 1 (OKP), -1: 6 (Ed25519), -2: x}");
  }
  checkDeviceKey(x.value);
  return x.value;
}

/** Refuses a device key anyone could forge signatures for: not 32 bytes, non-canonical, or of small order. */
export function checkDeviceKey(raw) {
  if (raw.length !== 32) throw new TokenError("invalidClaims", `the confirmation key: an Ed25519 public key is 32 bytes, not ${raw.length}`);
  if (raw[0] >= 0xed && raw.subarray(1, 31).every((byte) => byte === 0xff) && (raw[31] & 0x7f) === 0x7f) {
    throw new TokenError("invalidClaims", "the confirmation key's y coordinate is not reduced modulo 2^255 - 19");
  }
  const unsigned = raw.slice();
  unsigned[31] &= 0x7f;
  if (SMALL_ORDER.includes(hex(unsigned))) throw new TokenError("invalidClaims", "the confirmation key is a point of small order");
}
