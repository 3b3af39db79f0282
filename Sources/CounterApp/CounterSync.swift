import CardToken
import CardWire
import Foundation
public import Membership

/// Accepting a signed bundle into a counter's state: enrolment pins the first one's keys, every later one must
/// be signed by a key the counter already trusts.
public enum CounterSync {
    /// What an accepted bundle changed, for the person at the counter.
    public struct Changes: Sendable, Equatable {
        public var keysAdded: [String] = []
        public var keysRemoved: [String] = []
        public var tokenIDsAdded = 0
        public var membersAdded = 0
        public var whole = false
        public var revocationVersion: Int64 = 0
        public var validUntil: Int64 = 0
        /// The local clock minus the service's, at sync time.
        public var clockDrift: Int64 = 0
    }

    /// Enrolment: the first bundle, trusted because its own keys sign it (trust on first use, over TLS), and
    /// only if `expectedKeyID` (when given) is among them. A bundle that carries the development key is refused
    /// unless it comes from a development service (it says so): a production counter never trusts that key.
    public static func enrol(_ bytes: [UInt8], server: String, expectedKeyID: String?, now: Int64) throws -> (CounterState, Changes) {
        // Read the keys it claims, then hold it to them: a bundle that does not verify with its own keys is refused.
        let claimed = try CounterBundle.unverifiedKeys(bytes)
        if let expectedKeyID, !claimed.contains(where: { $0.kid == expectedKeyID }) {
            throw CardWireError(
                .untrustedSignature,
                "the service's keys (\(claimed.map(\.kid).joined(separator: ", "))) do not include the expected kid \(expectedKeyID)"
            )
        }
        let bundle = try CounterBundle.open(bytes, trusting: try KeySetDocument(keys: claimed).trustedKeys())
        let development = bundle.development == true
        if !development, let refusal = DevelopmentKey.refusal(in: bundle.keys, what: "the service's bundle") { throw refusal }
        let trust = try CounterTrust(whole: bundle)
        let state = CounterState(
            server: server,
            anchorKeys: bundle.keys,
            bundles: [Data(bytes).base64EncodedString()],
            newestServerTime: bundle.issuedAt,
            lastSyncAt: now,
            development: development ? true : nil
        )
        var changes = Changes(keysAdded: bundle.keys.map(\.kid), whole: true)
        changes.tokenIDsAdded = trust.revocations.tokenIDs.count
        changes.membersAdded = trust.revocations.members.count
        changes.revocationVersion = trust.revocationVersion
        changes.validUntil = bundle.validUntil
        changes.clockDrift = now - bundle.issuedAt
        return (state, changes)
    }

    /// A later sync: `bytes` must be signed by a key `state` trusts now, and must not be older than what it holds.
    /// A counter enrolled against a production service never accepts a bundle signed by, or carrying, the
    /// development key (trust data held from before this rule drops the key at its next sync).
    /// `current` is `state.trust()`, already checked by whoever loaded the state (checking it costs as much as
    /// the whole bundle it holds, so it is done once).
    public static func accept(
        _ bytes: [UInt8],
        into state: CounterState,
        trusting current: CounterTrust,
        now: Int64
    ) throws -> (CounterState, Changes) {
        let signers = state.trustsDevelopmentKey ? current.keys : current.keys.filter { $0.kid != DevelopmentKey.keyID }
        let bundle = try CounterBundle.open(bytes, trusting: try KeySetDocument(keys: signers).trustedKeys())
        if !state.trustsDevelopmentKey, let refusal = DevelopmentKey.refusal(in: bundle.keys, what: "the service's bundle") { throw refusal }
        let next = try current.applying(bundle)
        var updated = state
        let encoded = Data(bytes).base64EncodedString()
        if bundle.revocations.since == nil {
            // A whole bundle starts the chain again, anchored on the keys that vouched for it.
            updated.anchorKeys = current.keys
            updated.bundles = [encoded]
        } else {
            updated.bundles.append(encoded)
        }
        updated.newestServerTime = max(state.newestServerTime, bundle.issuedAt)
        updated.lastSyncAt = now
        var changes = Changes(whole: bundle.revocations.since == nil)
        let before = Set(current.keys.map(\.kid))
        let after = Set(bundle.keys.map(\.kid))
        changes.keysAdded = after.subtracting(before).sorted()
        changes.keysRemoved = before.subtracting(after).sorted()
        changes.tokenIDsAdded = Set(next.revocations.tokenIDs).subtracting(current.revocations.tokenIDs).count
        changes.membersAdded = next.revocations.members.filter { current.revocations.members[$0.key] != $0.value }.count
        changes.revocationVersion = next.revocationVersion
        changes.validUntil = bundle.validUntil
        changes.clockDrift = now - bundle.issuedAt
        return (updated, changes)
    }

    /// Whether the next sync should ask for the whole list rather than a delta: after many deltas the cache
    /// would only grow.
    public static func wantsWholeList(_ state: CounterState) -> Bool {
        state.bundles.count > 32
    }
}

extension CounterSync {
    /// One whole sync: the bundle after the version held (or the whole list), checked and saved, then the
    /// scan log's new entries reported. The trust data is saved before the report is tried, so a report that
    /// fails (its `Result`) loses nothing: the next sync sends it. When the service refuses this counter's own
    /// credential, at either step, the counter is cut off and the ``CounterCutOff`` is thrown.
    public static func run(
        store: CounterStore,
        client: CounterClient,
        now: WallClock
    ) async throws
        -> (changes: Changes, report: Result<ScanLogReport.Outcome, any Error>)
    {
        let (state, trust, _) = try store.load()
        let whole = wantsWholeList(state)
        let bytes: [UInt8]
        do {
            bytes = try await client.fetchBundle(since: whole ? nil : trust.revocationVersion, renewalsAfter: whole ? nil : trust.issuedAt)
        } catch let error as CounterClientError where error.problem.refusesThisDevice {
            throw try await store.cutOff(after: error.problem, client: client, now: now)
        }
        let (updated, changes) = try accept(bytes, into: state, trusting: trust, now: now())
        try store.save(updated)
        do {
            return (changes, .success(try await ScanLogReport(store: store, client: client).run()))
        } catch let error as CounterClientError where error.problem.refusesThisDevice {
            throw try await store.cutOff(after: error.problem, client: client, now: now)
        } catch {
            return (changes, .failure(error))
        }
    }
}
