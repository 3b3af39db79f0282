public import CardToken
public import Foundation
public import Membership

/// The changes to a member that make the member's earlier cards wrong, as use cases: cancelling a period sold
/// by mistake, binding the member's cards to a new phone or to none. Each is worked out on the member's ledger
/// and recorded with the revocation of every card answered before it (``CardRevocationRule``); a change that
/// collides with another writer is worked out again (``LedgerRetry``).
public struct MemberChangeService: Sendable {
    let ledger: any LedgerStore
    let clock: WallClock

    public init(ledger: any LedgerStore, clock: WallClock) {
        self.ledger = ledger
        self.clock = clock
    }

    /// Cancels the period `id` and lays the member's later periods out again, in the audit trail under `actor` in
    /// the same transaction. An unknown period is `notFound`, one already cancelled a `conflict`. `payment`: the online
    /// payment whose refund (made at the gateway, outside the API) the cancellation records, named in the entry.
    public func cancelPeriod(id: UUID, by actor: AuditActor? = nil, refunding payment: UUID? = nil) async throws -> CancellationResult {
        let now = clock()
        return try await LedgerRetry.run { _ in
            guard let ledger = try await ledger.memberLedger(holdingPeriod: id) else {
                throw MembershipError(.notFound, "No subscription period has id \(id.lowercasedText).")
            }
            guard let index = ledger.periods.firstIndex(where: { $0.id == id }), ledger.periods[index].cancelledAt == nil else {
                throw MembershipError(.conflict, "The period \(id.lowercasedText) is already cancelled.")
            }
            var periods = ledger.periods
            periods[index].cancelledAt = now
            var change = RevokingChange(
                .cancellation,
                to: ledger,
                periods: CoverageSchedule.laidOut(periods),
                deviceKey: ledger.head.member.deviceKey,
                now: now
            )
            let period = periods[index]
            change.audit = actor?.entry(
                "activation.cancel",
                id,
                "\(period.months) month(s) of member \(ledger.head.member.membershipID) (\(period.memberUUID.lowercasedText))"
                    + (payment.map { ", refund of online payment \($0.lowercasedText)" } ?? ""),
                payment.map { [AuditValue("payment", $0.lowercasedText)] } ?? [],
                at: now
            )
            let revokedBefore = try await self.ledger.commitRevokingChange(change, expectedVersion: ledger.head.version)
            return CancellationResult(
                period: change.periodsAfter[index],
                periods: change.periodsAfter,
                coverageEnd: change.coverageEnd,
                revokedBefore: revokedBefore
            )
        }
    }

    /// Revokes every card answered for the member so far (a copied card: seen at two shops at once), in the audit
    /// trail under `actor` in the same transaction. The member's next card is signed after it; counters refuse the
    /// earlier ones once they sync. Returns the time before which the member's cards are revoked. An unknown member
    /// is `notFound`.
    public func revokeCards(memberUUID: UUID, by actor: AuditActor? = nil) async throws -> Int64 {
        let now = clock()
        return try await LedgerRetry.run { _ in
            guard let ledger = try await ledger.memberLedger(of: .uuid(memberUUID)) else {
                throw MembershipError(.notFound, "No member has uuid \(memberUUID.lowercasedText).")
            }
            var change = RevokingChange(.cardsRevoked, to: ledger, periods: ledger.periods, deviceKey: ledger.head.member.deviceKey, now: now)
            change.audit = actor?.entry(
                "member.cards_revoked",
                memberUUID,
                "every card of \(ledger.head.member.membershipID) revoked",
                [AuditValue("membership_id", ledger.head.member.membershipID)],
                at: now
            )
            return try await self.ledger.commitRevokingChange(change, expectedVersion: ledger.head.version)
        }
    }

    /// Binds the member's cards to `key` (nil: to no phone, for a lost one). The next card names the key; every
    /// earlier card is revoked. The same key again changes nothing (`changed` false). An operator's change
    /// (`actor`) is in the audit trail, written in the change's transaction. An unknown member is `notFound`.
    public func replaceDeviceKey(memberUUID: UUID, with key: DeviceKey?, by actor: AuditActor? = nil) async throws -> (member: Member, changed: Bool)
    {
        let now = clock()
        return try await LedgerRetry.run { _ in
            guard let ledger = try await ledger.memberLedger(of: .uuid(memberUUID)) else {
                throw MembershipError(.notFound, "No member has uuid \(memberUUID.lowercasedText).")
            }
            var member = ledger.head.member
            guard member.deviceKey != key else { return (member, false) }
            member.deviceKey = key
            var change = RevokingChange(.deviceKey, to: ledger, periods: ledger.periods, deviceKey: key, now: now)
            change.audit = actor?.entry(
                key == nil ? "member.device_key_removed" : "member.device_key_bound",
                memberUUID,
                key == nil
                    ? "\(member.membershipID)'s cards bound to no phone; every earlier card revoked"
                    : "\(member.membershipID)'s cards bound to a new phone key; every earlier card revoked",
                at: now
            )
            _ = try await self.ledger.commitRevokingChange(change, expectedVersion: ledger.head.version)
            return (member, true)
        }
    }
}
