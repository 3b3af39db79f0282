// A strict, bounded CBOR decoder for untrusted bytes: exactly the deterministic encoding the Swift core writes
// (Sources/CardToken/CBOR/CBORDecoder.swift), everything else refused with a named code.
import { TokenError } from "./token-error.js";

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const INT64_MAX = (1n << 63n) - 1n;

/** The card format's bounds: 2,048 bytes, nesting at most 4 deep. */
export const CARD_LIMITS = { maxBytes: 2048, maxDepth: 4 };

/** Decodes exactly one item spanning all of `bytes` (a Uint8Array). Items are
 *  {type: "uint"|"nint", value: BigInt argument}, {type: "bytes", value: Uint8Array}, {type: "text", value},
 *  {type: "array", value: [...]}, {type: "map", value: [[key, value], ...]}, {type: "tag", tag: BigInt, value},
 *  {type: "bool", value}, {type: "null"}. */
export function decodeCBOR(bytes, limits = CARD_LIMITS) {
  if (bytes.length > limits.maxBytes) {
    throw new TokenError("sizeLimitExceeded", `CBOR input is ${bytes.length} bytes; at most ${limits.maxBytes} are accepted`);
  }
  const reader = { bytes, position: 0, limits };
  const value = decodeItem(reader, 0);
  if (reader.position !== bytes.length) {
    throw new TokenError("trailingBytes", `${bytes.length - reader.position} byte(s) follow the CBOR item`);
  }
  return value;
}

/** The integer an item holds, as a BigInt within the signed 64-bit range, or null. */
export function int64Value(item) {
  if (item?.type === "uint") return item.value <= INT64_MAX ? item.value : null;
  if (item?.type === "nint") return item.value <= INT64_MAX ? -1n - item.value : null;
  return null;
}

/** The value of the entry of `map` whose key is the integer `key` (a BigInt), or undefined. */
export function mapValue(map, key) {
  return map.value.find(([k]) => int64Value(k) === key)?.[1];
}

function readByte(r) {
  if (r.position >= r.bytes.length) throw new TokenError("truncated", `CBOR ends in the middle of an item at byte ${r.position}`);
  return r.bytes[r.position++];
}

function readArgument(r, info) {
  const start = r.position - 1;
  if (info < 24) return BigInt(info);
  const sizes = { 24: [1, 24n], 25: [2, 0x100n], 26: [4, 0x10000n], 27: [8, 0x100000000n] };
  if (info === 31) throw new TokenError("indefiniteLength", `indefinite-length item at byte ${start}; only definite lengths are allowed`);
  if (!(info in sizes)) throw new TokenError("unsupportedCBOR", `reserved additional information ${info} at byte ${start}`);
  const [count, minimum] = sizes[info];
  if (r.bytes.length - r.position < count) throw new TokenError("truncated", `CBOR ends inside a ${count}-byte argument at byte ${r.position}`);
  let value = 0n;
  for (let i = 0; i < count; i++) value = (value << 8n) | BigInt(r.bytes[r.position++]);
  if (value < minimum) throw new TokenError("nonDeterministicEncoding", `argument ${value} at byte ${start} is not in its shortest form`);
  return value;
}

function checkedLength(r, length, minimumBytesEach, what) {
  const remaining = r.bytes.length - r.position;
  if (length > BigInt(Math.floor(remaining / minimumBytesEach))) {
    throw new TokenError("truncated", `${what} declares ${length} but only ${remaining} byte(s) are left`);
  }
  return Number(length);
}

function enterContainer(r, depth) {
  if (depth + 1 > r.limits.maxDepth) {
    throw new TokenError("depthLimitExceeded", `items nest more than ${r.limits.maxDepth} deep at byte ${r.position - 1}`);
  }
  return depth + 1;
}

function precedes(bytes, a, b) {
  const length = Math.min(a[1] - a[0], b[1] - b[0]);
  for (let i = 0; i < length; i++) {
    if (bytes[a[0] + i] !== bytes[b[0] + i]) return bytes[a[0] + i] < bytes[b[0] + i];
  }
  return a[1] - a[0] < b[1] - b[0];
}

function decodeItem(r, depth) {
  const initial = readByte(r);
  const major = initial >> 5;
  const info = initial & 0x1f;
  const argument = major === 7 ? 0n : readArgument(r, info);
  switch (major) {
    case 0:
      return { type: "uint", value: argument };
    case 1:
      return { type: "nint", value: argument };
    case 2: {
      const length = checkedLength(r, argument, 1, "a byte string");
      const value = r.bytes.slice(r.position, r.position + length);
      r.position += length;
      return { type: "bytes", value };
    }
    case 3: {
      const length = checkedLength(r, argument, 1, "a text string");
      const start = r.position;
      r.position += length;
      try {
        return { type: "text", value: UTF8.decode(r.bytes.subarray(start, r.position)) };
      } catch {
        throw new TokenError("invalidUTF8", `the text string at byte ${start} is not valid UTF-8`);
      }
    }
    case 4: {
      const count = checkedLength(r, argument, 1, "an array");
      const inner = enterContainer(r, depth);
      const items = [];
      for (let i = 0; i < count; i++) items.push(decodeItem(r, inner));
      return { type: "array", value: items };
    }
    case 5: {
      const count = checkedLength(r, argument, 2, "a map");
      const inner = enterContainer(r, depth);
      const entries = [];
      let previous = null;
      for (let i = 0; i < count; i++) {
        const keyStart = r.position;
        const key = decodeItem(r, inner);
        const range = [keyStart, r.position];
        if (previous && !precedes(r.bytes, previous, range)) {
          throw new TokenError("nonDeterministicEncoding", `map key at byte ${keyStart} is repeated or out of bytewise order`);
        }
        previous = range;
        entries.push([key, decodeItem(r, inner)]);
      }
      return { type: "map", value: entries };
    }
    case 6: {
      const inner = enterContainer(r, depth);
      return { type: "tag", tag: argument, value: decodeItem(r, inner) };
    }
    default:
      if (info === 20 || info === 21) return { type: "bool", value: info === 21 };
      if (info === 22) return { type: "null" };
      if (info === 31) throw new TokenError("indefiniteLength", `a stray "break" byte at byte ${r.position - 1}`);
      throw new TokenError("unsupportedCBOR", `simple value or float (additional information ${info}) at byte ${r.position - 1} is not used by the card format`);
  }
}

/** Writes the CBOR head of `major` with `argument` (a number), shortest form. */
export function head(major, argument) {
  const m = major << 5;
  if (argument < 24) return [m | argument];
  if (argument < 0x100) return [m | 24, argument];
  if (argument < 0x10000) return [m | 25, argument >> 8, argument & 0xff];
  return [m | 26, (argument >>> 24) & 0xff, (argument >> 16) & 0xff, (argument >> 8) & 0xff, argument & 0xff];
}
