public import CardToken
public import CardWire
import Foundation
import PeezBasics

/// What a counter keeps on disk: the signed bundles it accepted (the last whole one, then the deltas after
/// it), the keys that vouched for the first of them, and its clock readings. Nothing in it is trusted as
/// written: ``trust()`` checks every signature again, so an edited file is refused, not believed.
public struct CounterState: Codable, Sendable, Equatable {
    /// The card service the counter syncs from.
    public var server: String
    /// The keys that signed the first bundle: the keys pinned at enrolment, or those trusted before the last
    /// whole bundle replaced the chain.
    public var anchorKeys: [KeySetDocument.Key]
    /// The accepted signed bundles, base64: one whole bundle, then each delta applied after it.
    public var bundles: [String]
    /// The newest service time seen in an accepted bundle.
    public var newestServerTime: Int64
    /// The local clock when the last sync succeeded.
    public var lastSyncAt: Int64
    /// True when the counter was enrolled against a development service (its first bundle said so); only then
    /// may its trust data carry the development key.
    public var development: Bool?

    enum CodingKeys: String, CodingKey {
        case server
        case anchorKeys = "anchor_keys"
        case bundles
        case newestServerTime = "newest_server_time"
        case lastSyncAt = "last_sync_at"
        case development
    }

    public init(
        server: String,
        anchorKeys: [KeySetDocument.Key],
        bundles: [String],
        newestServerTime: Int64,
        lastSyncAt: Int64,
        development: Bool? = nil
    ) {
        self.server = server
        self.anchorKeys = anchorKeys
        self.bundles = bundles
        self.newestServerTime = newestServerTime
        self.lastSyncAt = lastSyncAt
        self.development = development
    }

    /// Whether this counter may trust the development key: only when enrolled against a development service.
    public var trustsDevelopmentKey: Bool { development == true }

    /// The trust data these bundles add up to, every signature checked from the anchor keys on: each bundle
    /// must be signed by a key the bundles before it published, each delta must follow the version held.
    public func trust() throws(CardWireError) -> CounterTrust {
        var keys = try KeySetDocument(keys: anchorKeys).trustedKeys()
        var trust: CounterTrust?
        for (index, encoded) in bundles.enumerated() {
            guard let bytes = Data(base64Encoded: encoded) else {
                throw CardWireError(.notADocument, "bundle \(index + 1) of the cache is not base64")
            }
            let bundle = try CounterBundle.open(Array(bytes), trusting: keys)
            if let current = trust {
                trust = try current.applying(bundle)
            } else {
                trust = try CounterTrust(whole: bundle)
            }
            keys = try bundle.trustedKeys()
        }
        guard let trust else { throw CardWireError(.notADocument, "the cache holds no bundle") }
        return trust
    }
}

/// The trust data a counter verifies with, rebuilt from accepted bundles.
public struct CounterTrust: Sendable {
    /// The newest accepted bundle's keys and windows.
    public var keys: [KeySetDocument.Key]
    /// The revocation list, deltas applied.
    public var revocations: RevocationListDocument
    /// The newest accepted bundle's service time.
    public var issuedAt: Int64
    /// After this the counter answers `cannot_confirm`, never VALID.
    public var validUntil: Int64
    /// Why this is an older state than the newest one kept (the newest did not check), nil when it is the newest:
    /// the counter then answers `cannot_confirm` for what it would call valid.
    public var fallback: String?
    /// The members renewed after their phones' cards were issued, deltas applied.
    public var renewals: RenewalListDocument
    /// ``renewals`` by membership id.
    public var renewalsByMember: [String: RenewalListDocument.Entry]

    /// Trust data from one whole bundle; a delta cannot start a chain.
    public init(whole bundle: CounterBundle) throws(CardWireError) {
        guard bundle.revocations.since == nil else {
            throw CardWireError(
                .invalidEntry,
                "a delta bundle (since \(bundle.revocations.since ?? 0)) cannot start the trust data; sync the whole list"
            )
        }
        keys = bundle.keys
        revocations = bundle.revocations
        issuedAt = bundle.issuedAt
        validUntil = bundle.validUntil
        renewals = RenewalListDocument(entries: []).applying(bundle.renewals ?? RenewalListDocument(entries: []), now: bundle.issuedAt)
        renewalsByMember = renewals.byMember
    }

    /// The revocation version held.
    public var revocationVersion: Int64 { revocations.version ?? 0 }

    /// This trust data with a newer bundle applied: a delta must follow the version held; a whole bundle
    /// replaces the list. An older bundle than the one held (a replay) is refused.
    public func applying(_ bundle: CounterBundle) throws(CardWireError) -> CounterTrust {
        guard bundle.issuedAt >= issuedAt else {
            throw CardWireError(
                .invalidEntry,
                "the bundle was issued \(AlgiersCalendar.minuteStamp(bundle.issuedAt)), before the one held (\(AlgiersCalendar.minuteStamp(issuedAt))): a replay"
            )
        }
        var next = self
        if let since = bundle.revocations.since {
            guard since == revocationVersion else {
                throw CardWireError(.invalidEntry, "the delta follows revocation version \(since), but this counter holds \(revocationVersion)")
            }
            next.revocations = revocations.applying(bundle.revocations)
        } else {
            guard (bundle.revocations.version ?? 0) >= revocationVersion else {
                throw CardWireError(
                    .invalidEntry,
                    "the bundle's revocation list (version \(bundle.revocations.version ?? 0)) is older than the one held (\(revocationVersion))"
                )
            }
            next.revocations = bundle.revocations
        }
        if let newer = bundle.renewals {
            next.renewals = renewals.applying(newer, now: bundle.issuedAt)
            next.renewalsByMember = next.renewals.byMember
        }
        next.keys = bundle.keys
        next.issuedAt = bundle.issuedAt
        next.validUntil = bundle.validUntil
        return next
    }

    /// This trust data with the renewals this counter sold itself (``SaleJournal/ownRenewals()``), each kept where
    /// it is newer than the one the service listed.
    public func adding(ownSales: [RenewalListDocument.Entry]) -> CounterTrust {
        guard !ownSales.isEmpty else { return self }
        var next = self
        for sale in ownSales where (next.renewalsByMember[sale.membershipID]?.renewedAt ?? .min) < sale.renewedAt {
            next.renewalsByMember[sale.membershipID] = sale
        }
        return next
    }

    /// A card verifier over this trust data.
    public func verifier(leeway: Int64 = CardVerifier.defaultLeeway) throws(CardWireError) -> CardVerifier {
        CardVerifier(trustedKeys: try KeySetDocument(keys: keys).trustedKeys(), revocations: try revocations.revocationList(), leeway: leeway)
    }
}
