// A refusal while reading a token, named as the Swift core names it (Sources/CardToken/CardTokenError.swift).

/** code: missingPrefix, invalidBase45, sizeLimitExceeded, truncated, indefiniteLength, nonDeterministicEncoding,
 *  unsupportedCBOR, invalidUTF8, trailingBytes, depthLimitExceeded, notCOSESign1, invalidProtectedHeader,
 *  unsupportedAlgorithm, invalidClaims. */
export class TokenError extends Error {
  constructor(code, reason) {
    super(reason);
    this.code = code;
  }
}
