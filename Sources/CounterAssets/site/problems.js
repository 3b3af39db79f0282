// What went wrong between the counter and the service, as the screen says it: a text key of web-texts.json (or
// counter-texts.json) with its values, never a browser's or the service's English; the detail (the browser's
// words, the service's message) is kept for a support person, not shown.
import { DEVICE_REFUSALS } from "./rules.js";
import { TrustError } from "./trust.js";

/** A problem the screen words from `key` and `values`; `detail` is for the console only. */
export class CounterProblem extends Error {
  constructor(key, values = {}, detail = "") {
    super(detail || key);
    this.key = key;
    this.values = values;
    this.detail = detail;
  }
}

/** The service error codes a counter words itself (Docs/openapi.json's error codes); any other is named by the
 *  answer's status. */
const SERVICE_CODES = new Set([
  "not_found", "invalid_fields", "conflict", "idempotency_key_reused", "request_in_flight", "unauthenticated",
  "forbidden", "rate_limited", "payload_too_large", "bad_request", "credential_revoked", "credential_expired",
  "enrolment_code_unknown", "enrolment_code_used", "enrolment_code_expired", "enrolment_code_revoked",
]);

/** Refusals of this device itself (counter-rules.json's `device_refusals`): the same request sent again would be
 *  refused again, and the counter is cut off. Never a lost network or any other answer. */
export const DEVICE_REFUSED = new Set(DEVICE_REFUSALS.map((code) => `service.${code}`));

/** The fetch itself failed (no network, the service down, a TLS error): the browser's TypeError. */
export function unreachable(error) {
  return new CounterProblem("problem.unreachable", {}, error?.message ?? String(error));
}

/** A refusal or failure answered by the service, named by its error code when the counter knows it. */
export async function answered(response) {
  let code = null;
  let message = "";
  try {
    const body = await response.json();
    code = typeof body?.error?.code === "string" ? body.error.code : null;
    message = typeof body?.error?.message === "string" ? body.error.message : "";
  } catch {
    // Not the service's JSON (a proxy's page): named by its status.
  }
  const key = code !== null && SERVICE_CODES.has(code) ? `service.${code}` : "problem.status";
  return new CounterProblem(key, { status: response.status }, message || `status ${response.status}`);
}

/** Any error as a problem the screen can word: a CounterProblem or a TrustError as it is, anything else (a
 *  storage failure, a bug) as `fallback`, its message kept as the detail. */
export function asProblem(error, fallback = "problem.unexpected") {
  if (error instanceof CounterProblem) return error;
  if (error instanceof TrustError) return new CounterProblem(`trust.${error.code}`, {}, error.message);
  return new CounterProblem(fallback, {}, error?.message ?? String(error));
}
