import Foundation
import Membership
import PeezAPI

extension CardService {
    /// A sale of `months` for `amountDZD` worked out on `head`, however it was paid (cash at a shop, `vendorID`; or
    /// online, none): the period placed after the member's coverage, the card signed for it, the answer a sale
    /// gives, recorded under `key`. One sale use case for every channel.
    func sale(
        months: Int,
        amountDZD: Int,
        source: SubscriptionPeriod.Source,
        vendorID: UUID?,
        after head: LedgerHead,
        key: IdempotencyKey,
        now: Int64
    ) throws -> SaleRecord {
        let period = CoverageSchedule.placed(
            SubscriptionPeriod(
                id: UUID(),
                memberUUID: head.member.uuid,
                months: months,
                amountDZD: amountDZD,
                source: source,
                vendorID: vendorID,
                purchasedAt: now,
                startsAt: now,
                endsAt: now
            ),
            after: head.coverageEnd
        )
        let card = try sign(from: head, coverageEnd: period.endsAt, now: now)
        return SaleRecord(
            period: period,
            periodSeq: head.lastPeriodSeq + 1,
            card: card,
            key: key,
            response: StoredResponse(try APIJSON.encode(ActivationBody(member: head.member, period: period, card: card, now: now))),
            recordedAt: now,
            renewsEnd: head.coverageEnd,
            cohortAsRead: head.cohortMonth
        )
    }
}
