public import CardToken
import Foundation

/// The revocation list, as the card service serves it at `GET /v1/revocations` and as
/// `peez verify --revocations` reads it: one type for the server, the command line and the tests.
///
/// ```json
/// {"version": 12, "token_ids": ["…16 hex…"], "members": {"PEEZ-20251103-00002": 1795423432}}
/// ```
public struct RevocationListDocument: Codable, Sendable, Hashable {
    /// Changes whenever the list does (the service's ETag); absent in a hand-made file.
    public var version: Int64?
    /// Revoked token ids (`cti`), 16 hex digits each.
    public var tokenIDs: [String]
    /// Membership id → every card issued before this time (seconds since the epoch) is revoked.
    public var members: [String: Int64]
    /// In a delta, the version it follows: it holds only the changes after it. Absent for the whole list.
    public var since: Int64?

    enum CodingKeys: String, CodingKey {
        case version
        case tokenIDs = "token_ids"
        case members
        case since
    }

    public init(version: Int64?, tokenIDs: [String], members: [String: Int64], since: Int64? = nil) {
        self.version = version
        self.tokenIDs = tokenIDs
        self.members = members
        self.since = since
    }

    /// A missing list reads as empty, so a hand-made file may hold only what it needs.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(Int64.self, forKey: .version)
        tokenIDs = try container.decodeIfPresent([String].self, forKey: .tokenIDs) ?? []
        members = try container.decodeIfPresent([String: Int64].self, forKey: .members) ?? [:]
        since = try container.decodeIfPresent(Int64.self, forKey: .since)
    }

    /// This list with `delta`'s changes added: a token id revoked in either is revoked, and a member's cutoff
    /// is the later of the two.
    public func applying(_ delta: RevocationListDocument) -> RevocationListDocument {
        var tokenIDs = self.tokenIDs
        var seen = Set(tokenIDs)
        for id in delta.tokenIDs where seen.insert(id).inserted { tokenIDs.append(id) }
        let members = self.members.merging(delta.members) { max($0, $1) }
        return RevocationListDocument(version: delta.version ?? version, tokenIDs: tokenIDs, members: members)
    }

    /// The largest list read: 64 MiB holds about two million revocations.
    public static let maxSize = 64 * 1024 * 1024

    /// Decodes a document, refusing one over ``maxSize`` bytes.
    public static func decode(_ bytes: some Collection<UInt8>) throws(CardWireError) -> RevocationListDocument {
        try BoundedJSON.decode(
            RevocationListDocument.self,
            from: bytes,
            limit: maxSize,
            name: "a revocation list",
            shape: #"{"token_ids": [...], "members": {...}}"#
        )
    }

    /// The list a verifier checks claims against; a token id that is not 16 hex digits is refused.
    public func revocationList() throws(CardWireError) -> RevocationList {
        var list = RevocationList(revokedBefore: members)
        for hex in tokenIDs {
            guard let id = TokenID(hex: hex) else { throw CardWireError(.invalidEntry, "token id '\(hex)' is not 16 hex digits") }
            list.revokedTokenIDs.insert(id)
        }
        return list
    }
}
