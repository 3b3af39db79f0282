import Foundation
import PeezAPI

extension LedgerChecker {
    /// Every checkout ends as the gateway says once the service has heard or read it back: one paid is one period
    /// of its months in the app, stored once; one failed or cancelled sells nothing; and every period sold in the
    /// app is the period of exactly one paid payment.
    func checkPayments(_ findings: inout Findings) {
        let payments = Dictionary(final.payments.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let periods = Dictionary(grouping: ledger.flatMap(\.periods)) { $0.id }
        for checkout in history where checkout.kind == .checkout && checkout.outcome == .ok {
            guard let id = checkout.payment, let payment = payments[id] else {
                findings.expect(
                    false,
                    "a checkout answered is a payment",
                    "checkout \(checkout.index) was answered as payment \(checkout.payment ?? "none"), which the service does not list",
                    member: checkout.member
                )
                continue
            }
            let gateway = checkout.checkout.flatMap { final.gateway[$0] }
            findings.expect(
                payment.status == gateway,
                "a payment ends as the gateway says",
                "payment \(id) (checkout \(checkout.index), \(checkout.detail ?? "")) is \(payment.status); Chargily has it \(gateway ?? "not at all")",
                member: checkout.member
            )
            let sold = payment.period_id.flatMap { periods[$0] } ?? []
            if payment.status == "paid" {
                let period = sold.first
                findings.expect(
                    sold.count == 1 && period?.member_uuid == checkout.member && period?.months == checkout.months && period?.vendor_id == nil,
                    "a paid checkout is one period in the app",
                    "payment \(id) is paid as period \(payment.period_id ?? "none"); the ledger holds it \(sold.count) time(s)"
                        + (period.map { " as \($0.months) month(s) at \($0.vendor_id ?? "the app") for \($0.member_uuid)" } ?? ""),
                    member: checkout.member
                )
            } else {
                findings.expect(
                    payment.period_id == nil,
                    "an unpaid checkout sells nothing",
                    "payment \(id) is \(payment.status) and names period \(payment.period_id ?? "")",
                    member: checkout.member
                )
            }
        }
        let paidBy = Dictionary(grouping: final.payments.filter { $0.status == "paid" }) { $0.period_id ?? "" }
        for period in ledger.flatMap(\.periods) where period.vendor_id == nil {
            findings.expect(
                paidBy[period.id]?.count == 1,
                "every period in the app is one paid payment",
                "period \(period.id) (\(period.months) month(s) in the app) is the period of \(paidBy[period.id]?.count ?? 0) paid payment(s)",
                member: period.member_uuid
            )
        }
    }
}
