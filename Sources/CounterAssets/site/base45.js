// Strict Base45 (RFC 9285), as Docs/card-token.md step 3 and the Swift core (Sources/CardToken/Base45.swift) read it.
import { TokenError } from "./token-error.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:";
const VALUES = new Uint8Array(256).fill(0xff);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

/** Decodes Base45 bytes (ASCII) strictly: only the 45 upper-case characters, no length ≡ 1 (mod 3),
 *  no triplet above 65535 and no final pair above 255. Throws a TokenError "invalidBase45". */
export function decodeBase45(text) {
  if (text.length % 3 === 1) {
    throw new TokenError("invalidBase45", `Base45 text of ${text.length} characters cannot be complete (length ≡ 1 mod 3)`);
  }
  const out = new Uint8Array(Math.floor(text.length / 3) * 2 + (text.length % 3 === 2 ? 1 : 0));
  let o = 0;
  for (let i = 0; i < text.length; i += 3) {
    const chunk = [];
    for (let j = i; j < Math.min(i + 3, text.length); j++) {
      const value = VALUES[text[j]];
      if (value === 0xff) throw new TokenError("invalidBase45", `character 0x${text[j].toString(16)} at position ${j} is not in the Base45 alphabet`);
      chunk.push(value);
    }
    if (chunk.length === 3) {
      const n = chunk[0] + chunk[1] * 45 + chunk[2] * 2025;
      if (n > 0xffff) throw new TokenError("invalidBase45", `the chunk ending at position ${i + 2} encodes ${n}, above 65535`);
      out[o++] = n >> 8;
      out[o++] = n & 0xff;
    } else {
      const n = chunk[0] + chunk[1] * 45;
      if (n > 0xff) throw new TokenError("invalidBase45", `the final pair encodes ${n}, above 255`);
      out[o++] = n;
    }
  }
  return out;
}
