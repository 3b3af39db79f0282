public import CardToken
import Foundation

/// What a vendor's counter trusts, as the card service signs it: the published keys with their windows, the
/// revocation list (whole, or the changes after a version the counter holds), the service's clock, and how
/// long the counter may rely on it.
///
/// On the wire it is the payload (JSON) of a COSE_Sign1 whose protected header names the content type
/// ``contentType``, signed with the service's card key: a card verifier refuses any envelope with a content
/// type (step 6), and a counter refuses any envelope without this one, so neither is ever taken for the other.
public struct CounterBundle: Codable, Sendable, Hashable {
    /// The protected header's content type (3).
    public static let contentType = "application/peez-counter-bundle+json"
    /// The payload format this code reads.
    public static let format = "peez-counter-bundle/1"
    /// How long a counter may rely on a bundle when the service does not say: 7 days.
    public static let defaultValidity: Int64 = 7 * 86_400
    /// The largest signed bundle read: enough for about two million revocations.
    public static let maxSize = 64 * 1024 * 1024

    /// ``format``.
    public var format: String
    /// The service's clock when it signed the bundle (seconds since the epoch).
    public var issuedAt: Int64
    /// After this, a counter must not answer VALID from this bundle.
    public var validUntil: Int64
    /// The published keys, with their windows.
    public var keys: [KeySetDocument.Key]
    /// The revocation list, or with `since` the changes after that version.
    public var revocations: RevocationListDocument
    /// The members renewed after their phones' cards were issued, or with `after` the sales since then (absent
    /// from a service that lists none).
    public var renewals: RenewalListDocument?
    /// True from a service started with `--development` (absent otherwise): a counter enrolled on such a bundle
    /// may trust the development key; any other counter refuses trust data that carries it.
    public var development: Bool?

    enum CodingKeys: String, CodingKey {
        case format
        case issuedAt = "issued_at"
        case validUntil = "valid_until"
        case keys, revocations, renewals, development
    }

    public init(
        issuedAt: Int64,
        validUntil: Int64,
        keys: [KeySetDocument.Key],
        revocations: RevocationListDocument,
        renewals: RenewalListDocument? = nil,
        development: Bool? = nil
    ) {
        format = Self.format
        self.development = development
        self.issuedAt = issuedAt
        self.validUntil = validUntil
        self.keys = keys
        self.revocations = revocations
        self.renewals = renewals
    }

    /// The bundle signed with `key`: a COSE_Sign1, tag 18, deterministic CBOR.
    public func signed(with key: any CardSigningKey) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = Array(try encoder.encode(self))
        let header = COSESign1.protectedHeader(keyID: key.keyID, contentType: Self.contentType)
        let signature = try key.sign(COSESign1.signatureInput(protectedHeader: header, payload: payload))
        return COSESign1(protectedHeader: header, payload: payload, signature: signature, keyID: key.keyID, contentType: Self.contentType).encoded()
    }

    /// Opens a signed bundle: strict CBOR within ``maxSize``, this content type, a signature by one of
    /// `trustedKeys` whose window holds the bundle's `issued_at`, and a payload of this format. Anything else is
    /// refused with the reason; nothing unverified is returned.
    public static func open(_ bytes: [UInt8], trusting trustedKeys: TrustedKeySet) throws(CardWireError) -> CounterBundle {
        let envelope: COSESign1
        do {
            envelope = try COSESign1(cbor: try CBORDecoder.decode(bytes, limits: .init(maxBytes: maxSize, maxDepth: 4)))
        } catch {
            throw CardWireError(.notADocument, "not a signed counter bundle: \(error.reason)")
        }
        guard envelope.contentType == contentType else {
            throw CardWireError(
                .notADocument,
                "the envelope's content type is \(envelope.contentType.map { "'\($0.prefix(64))'" } ?? "missing"), not \(contentType)"
            )
        }
        let input = envelope.signatureInput
        let candidates = trustedKeys.entries(for: envelope.keyID)
        guard !candidates.isEmpty else {
            throw CardWireError(.untrustedSignature, "the bundle is signed by kid \(envelope.keyID), a key this counter does not trust")
        }
        let signers = candidates.filter { $0.key.isValidSignature(envelope.signature, for: input) }
        guard !signers.isEmpty else {
            throw CardWireError(
                .untrustedSignature,
                "the bundle's signature does not verify with the trusted key kid \(envelope.keyID): its bytes changed after it was signed (damaged on disk or on the way, or altered)"
            )
        }
        let bundle: CounterBundle
        do {
            bundle = try JSONDecoder().decode(CounterBundle.self, from: Data(envelope.payload))
        } catch {
            throw CardWireError(.notADocument, "the signed payload is not a counter bundle: \(error)")
        }
        guard bundle.format == format else {
            throw CardWireError(.notADocument, "the bundle's format is '\(bundle.format.prefix(64))', this counter reads \(format)")
        }
        guard signers.contains(where: { $0.window.refusal(issuedAt: bundle.issuedAt, leeway: 0) == nil }) else {
            throw CardWireError(.untrustedSignature, "the bundle was signed by kid \(envelope.keyID) outside that key's validity window")
        }
        guard bundle.validUntil >= bundle.issuedAt else {
            throw CardWireError(.invalidEntry, "the bundle is valid until before it was issued")
        }
        _ = try bundle.renewals?.validated()
        return bundle
    }

    /// The keys a signed bundle claims, read without checking its signature: only for enrolment, which then
    /// holds the bundle to them with ``open(_:trusting:)``.
    public static func unverifiedKeys(_ bytes: [UInt8]) throws(CardWireError) -> [KeySetDocument.Key] {
        do {
            let envelope = try COSESign1(cbor: try CBORDecoder.decode(bytes, limits: .init(maxBytes: maxSize, maxDepth: 4)))
            return try JSONDecoder().decode(CounterBundle.self, from: Data(envelope.payload)).keys
        } catch {
            throw CardWireError(.notADocument, "not a signed counter bundle: \(error)")
        }
    }

    /// The keys this bundle publishes, as a verifier trusts them.
    public func trustedKeys() throws(CardWireError) -> TrustedKeySet {
        try KeySetDocument(keys: keys).trustedKeys()
    }
}
