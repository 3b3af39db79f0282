// The trust data a counter verifies with, from signed counter bundles (Docs/card-token.md "The counter bundle";
// Sources/CardWire/CounterBundle.swift, Sources/CounterApp/CounterState.swift and CounterSync.swift). Nothing
// kept in the browser is believed as written: every bundle's signature is checked again when it is loaded.
import { decodeCBOR } from "./cbor.js";
import { openEnvelope, signatureInput } from "./cose.js";
import { trustedKeys, verifyEd25519, windowRefusal } from "./keys.js";
import { CardVerifier } from "./verifier.js";
import { DEVELOPMENT_KEY_ID } from "./rules.js";

const BUNDLE_TYPE = "application/peez-counter-bundle+json";
const FORMAT = "peez-counter-bundle/1";
const JSON_TEXT = new TextDecoder("utf-8", { fatal: true });

/** A bundle, a sync or stored trust data that cannot be used: `code` is the kind the screen names in the shop's
 *  language (its text is `trust.<code>` in web-texts.json), `message` the detail for a support person:
 *  `malformed`, `unknown_key`, `bad_signature`, `replay`, `out_of_step`, `development_key` or `none`. */
export class TrustError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Opens a signed bundle: strict CBOR within 64 MiB, this content type, a signature by one of `keys` (from
 *  keys.js trustedKeys) valid at its issued_at, a payload of this format. */
export async function openBundle(bytes, keys) {
  let envelope, bundle;
  try {
    envelope = openEnvelope(decodeCBOR(bytes, { maxBytes: 64 * 1024 * 1024, maxDepth: 4 }));
  } catch (error) {
    throw new TrustError("malformed", `not a signed counter bundle: ${error.message}`);
  }
  if (envelope.contentType !== BUNDLE_TYPE) throw new TrustError("malformed", `the envelope's content type is not ${BUNDLE_TYPE}`);
  const input = signatureInput(envelope.protectedHeader, envelope.payload);
  const candidates = keys.filter((key) => key.kid === envelope.kid);
  if (candidates.length === 0) throw new TrustError("unknown_key", `the bundle is signed by kid ${envelope.kid}, a key this counter does not trust`);
  const signers = [];
  for (const entry of candidates) {
    if (await verifyEd25519(entry.key, envelope.signature, input)) signers.push(entry);
  }
  if (signers.length === 0) {
    throw new TrustError("bad_signature", `the bundle's signature does not verify with the trusted key kid ${envelope.kid}: its bytes changed after it was signed (damaged on disk or on the way, or altered)`);
  }
  try {
    bundle = JSON.parse(JSON_TEXT.decode(envelope.payload));
  } catch {
    throw new TrustError("malformed", "the signed payload is not JSON");
  }
  if (bundle?.format !== FORMAT) throw new TrustError("malformed", `the bundle's format is not ${FORMAT}`);
  for (const field of ["issued_at", "valid_until"]) {
    if (!Number.isSafeInteger(bundle[field])) throw new TrustError("malformed", `the bundle's ${field} is not a whole number`);
  }
  if (!Array.isArray(bundle.keys) || typeof bundle.revocations !== "object" || bundle.revocations === null) {
    throw new TrustError("malformed", "the bundle has no keys or revocations");
  }
  if (!signers.some((entry) => windowRefusal(entry, BigInt(bundle.issued_at), 0n) === null)) {
    throw new TrustError("unknown_key", `the bundle was signed by kid ${envelope.kid} outside that key's validity window`);
  }
  if (bundle.valid_until < bundle.issued_at) throw new TrustError("malformed", "the bundle is valid until before it was issued");
  checkRevocations(bundle.revocations);
  if (bundle.renewals != null) checkRenewals(bundle.renewals);
  return bundle;
}

/** The renewal list's checks, as RenewalListDocument.validated makes them. */
function checkRenewals(list) {
  const entries = list.entries;
  if (!Array.isArray(entries) || entries.length > 2_000_000) throw new TrustError("malformed", "the renewal list is not a list of at most 2,000,000 entries");
  const seen = new Set();
  for (const entry of entries) {
    const id = entry?.membership_id;
    if (typeof id !== "string" || id.length < 1 || id.length > 64 || seen.has(id)) throw new TrustError("malformed", "a renewal entry names no member, or one twice");
    if (!Number.isSafeInteger(entry.paid_until) || !Number.isSafeInteger(entry.renewed_at) || entry.paid_until <= entry.renewed_at) {
      throw new TrustError("malformed", `the renewal entry of ${id.slice(0, 40)} is not valid`);
    }
    seen.add(id);
  }
  if (list.after != null && !Number.isSafeInteger(list.after)) throw new TrustError("malformed", "the renewal list's after is not a whole number");
}

/** `held` (membership id → entry) with a newer renewal list applied: a whole list replaces it, a delta's entries
 *  replace each member's older one; entries whose paid time ended before `now` (less the leeway) are dropped. */
function renewalsApplying(held, list, now) {
  const next = list.after == null ? new Map() : new Map(held);
  for (const entry of list.entries) {
    const previous = next.get(entry.membership_id);
    if (!previous || previous.renewed_at <= entry.renewed_at) next.set(entry.membership_id, entry);
  }
  for (const [member, entry] of next) if (entry.paid_until + LEEWAY < now) next.delete(member);
  return next;
}

/** The renewal that answers for a card (`result`), or null: one of its member's, made after the card was issued,
 *  covering now, for a card refused only as expired or unpaid (VALID from the renewal) or a valid card showing
 *  less paid time than the renewal (the member's coverage is the renewal's); never for a revoked card, nor for one
 *  bound to a phone. Mirrors CounterVerdict.renewal. */
export function renewalFor(result, trust, now) {
  const answers = result.verdict === "expired" || result.verdict === "no_paid_period" || result.verdict === "valid";
  const claims = result.claims;
  if (!answers || !claims || claims.deviceKey) return null;
  const cutoff = trust.members.get(claims.sub);
  if (trust.tokenIDs.has(claims.cti) || (cutoff !== undefined && Number(claims.iat) < cutoff)) return null;
  const entry = trust.renewals.get(claims.sub);
  if (!entry || !(Number(claims.iat) < entry.renewed_at)) return null;
  if (now < entry.renewed_at - LEEWAY || now > entry.paid_until + LEEWAY) return null;
  return result.verdict !== "valid" || entry.paid_until > Number(claims.exp) ? entry : null;
}

/** The clock tolerance card dates are judged with (CardVerifier.defaultLeeway), in seconds. */
const LEEWAY = 300;

function checkRevocations(list) {
  const tokenIDs = list.token_ids ?? [];
  const members = list.members ?? {};
  if (!Array.isArray(tokenIDs) || !tokenIDs.every((id) => typeof id === "string" && /^[0-9a-fA-F]{16}$/.test(id))) {
    throw new TrustError("malformed", "a revoked token id is not 16 hex digits");
  }
  if (typeof members !== "object" || !Object.values(members).every(Number.isSafeInteger)) {
    throw new TrustError("malformed", "a revoked member's time is not a whole number");
  }
  for (const field of ["version", "since"]) {
    if (list[field] != null && !Number.isSafeInteger(list[field])) throw new TrustError("malformed", `the revocation ${field} is not a whole number`);
  }
}

/** The trust data of one whole bundle: {keys (JSON entries), tokenIDs: Set, members: Map, version, issuedAt,
 *  validUntil}. A delta cannot start it. */
function wholeTrust(bundle) {
  if (bundle.revocations.since != null) throw new TrustError("out_of_step", "a delta bundle cannot start the trust data; sync the whole list");
  return {
    keys: bundle.keys,
    tokenIDs: new Set((bundle.revocations.token_ids ?? []).map((id) => id.toLowerCase())),
    members: new Map(Object.entries(bundle.revocations.members ?? {})),
    version: bundle.revocations.version ?? 0,
    renewals: renewalsApplying(new Map(), { ...(bundle.renewals ?? { entries: [] }), after: null }, bundle.issued_at),
    issuedAt: bundle.issued_at,
    validUntil: bundle.valid_until,
  };
}

/** `trust` with a newer bundle applied: a delta follows the version held, a whole bundle replaces the list; an
 *  older bundle (a replay) is refused. */
function applying(trust, bundle) {
  if (bundle.issued_at < trust.issuedAt) throw new TrustError("replay", "the bundle was issued before the one held: a replay");
  const revocations = bundle.revocations;
  let next;
  if (revocations.since != null) {
    if (revocations.since !== trust.version) {
      throw new TrustError("out_of_step", `the delta follows revocation version ${revocations.since}, but this counter holds ${trust.version}`);
    }
    next = { ...trust, tokenIDs: new Set(trust.tokenIDs), members: new Map(trust.members) };
    for (const id of revocations.token_ids ?? []) next.tokenIDs.add(id.toLowerCase());
    for (const [member, time] of Object.entries(revocations.members ?? {})) {
      next.members.set(member, Math.max(time, next.members.get(member) ?? time));
    }
    next.version = revocations.version ?? trust.version;
  } else {
    if ((revocations.version ?? 0) < trust.version) throw new TrustError("replay", "the bundle's revocation list is older than the one held");
    next = wholeTrust({ ...bundle, revocations: { ...revocations, since: null }, renewals: null });
    next.renewals = trust.renewals;
  }
  if (bundle.renewals != null) next = { ...next, renewals: renewalsApplying(next.renewals, bundle.renewals, bundle.issued_at) };
  return { ...next, keys: bundle.keys, issuedAt: bundle.issued_at, validUntil: bundle.valid_until };
}

/** The trust data bundles' payloads (already opened: JSON objects) add up to, the first whole, each next applied
 *  as a sync applies it; the signatures are not checked here (the shared vectors build trust data this way). */
export function trustOfPayloads(bundles) {
  let trust = null;
  for (const bundle of bundles) trust = trust ? applying(trust, bundle) : wholeTrust(bundle);
  return trust;
}

/** Rebuilds the trust data from a stored state ({server, anchorKeys, bundles: [Uint8Array], newestServerTime,
 *  lastSyncAt}), checking every signature from the anchor keys on. */
export async function trustOf(state) {
  let keys = await trustedKeys(state.anchorKeys);
  let trust = null;
  for (const bytes of state.bundles) {
    const bundle = await openBundle(bytes, keys);
    trust = trust ? applying(trust, bundle) : wholeTrust(bundle);
    keys = await trustedKeys(bundle.keys);
  }
  if (!trust) throw new TrustError("none", "no trust data is held");
  return { ...trust, trustedKeys: keys };
}

/** Enrolment: the first bundle, trusted on its own keys (and the kid given out of band, if any). */
export async function enrol(bytes, { server, expectedKeyID, now }) {
  let claimed;
  try {
    claimed = JSON.parse(JSON_TEXT.decode(openEnvelope(decodeCBOR(bytes, { maxBytes: 64 * 1024 * 1024, maxDepth: 4 })).payload)).keys;
  } catch (error) {
    throw new TrustError("malformed", `not a signed counter bundle: ${error.message}`);
  }
  if (expectedKeyID && !claimed?.some?.((key) => key.kid === expectedKeyID)) {
    throw new TrustError("unknown_key", `the service's keys do not include the expected kid ${expectedKeyID}`);
  }
  const bundle = await openBundle(bytes, await trustedKeys(claimed));
  const development = bundle.development === true;
  if (!development) refuseDevelopmentKey(bundle);
  wholeTrust(bundle);
  const state = { server, anchorKeys: bundle.keys, bundles: [bytes], newestServerTime: bundle.issued_at, lastSyncAt: now };
  if (development) state.development = true;
  return { state, trust: await trustOf(state) };
}

/** A later sync: `bytes` signed by a key trusted now, not older than what is held. The new state and trust. */
export async function accept(bytes, { state, trust, now }) {
  // A counter enrolled against a production service never takes a bundle signed by, or carrying, the
  // development key (trust data held from before this rule drops the key at its next sync).
  const signers = state.development === true ? trust.trustedKeys : trust.trustedKeys.filter((key) => key.kid !== DEVELOPMENT_KEY_ID);
  const bundle = await openBundle(bytes, signers);
  if (state.development !== true) refuseDevelopmentKey(bundle);
  const next = applying(trust, bundle);
  const whole = bundle.revocations.since == null;
  const updated = {
    ...state,
    anchorKeys: whole ? trust.keys : state.anchorKeys,
    bundles: whole ? [bytes] : [...state.bundles, bytes],
    newestServerTime: Math.max(state.newestServerTime, bundle.issued_at),
    lastSyncAt: now,
  };
  return { state: updated, trust: { ...next, trustedKeys: await trustedKeys(bundle.keys) }, whole };
}

/** Refuses a bundle that carries the development key (its private half is public), for a production counter. */
function refuseDevelopmentKey(bundle) {
  if (bundle.keys.some((key) => key.kid === DEVELOPMENT_KEY_ID)) {
    throw new TrustError("development_key", `the service's bundle carries the development key ${DEVELOPMENT_KEY_ID}, whose private half is public`);
  }
}

/** Whether the next sync should ask for the whole list (too many deltas held). */
export function wantsWholeList(state) {
  return state.bundles.length > 32;
}

/** A card verifier over this trust data. */
export function verifierOf(trust, window) {
  const members = new Map([...trust.members].map(([member, time]) => [member, BigInt(time)]));
  return new CardVerifier({ keys: trust.trustedKeys, revocations: { tokenIDs: trust.tokenIDs, members }, window });
}
