import CardCrypto
import CardServer
import CardServices
import CardToken
import Foundation
import Membership
import PeezAPI
import PeezBasics

/// Development mode's demo data and fixed, published API secrets. Never used outside --development.
enum DevelopmentData {
    static let signingKeyPath = "Keys/development/signing-key.pem"
    static let adminSecret = DevelopmentSecrets.admin
    static let backendSecret = DevelopmentSecrets.backend
    static let vendorSecret = DevelopmentSecrets.vendor
    static let memberUUID = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
    static let vendorID = UUID(uuidString: "00000000-0000-4000-8000-000000000101")!
    /// The demo member registered on 3 November 2025 (10:00, Algiers), the first that day, so on a fresh
    /// database its membership id is PEEZ-20251103-00001, the one `make demo` prints a card for.
    static let memberRegisteredAt = AlgiersCalendar.startOfDay("2025-11-03")! + 10 * 3600

    /// Loads the demo vendor and member and the demo secrets, once: every write is idempotent, so several
    /// instances starting together on one database each seed it and all start.
    /// The demo member is given a paid month whenever it has no coverage left, sold by the demo shop (under
    /// one idempotency key a day, so instances starting together sell it once): a newcomer's first card is
    /// a valid one, as `make demo`'s is.
    /// Returns the demo member's membership id (a database seeded by an older version keeps its own).
    @discardableResult
    static func seed(cards: CardService, store: any MembershipStore) async throws -> String {
        let now = cards.now()
        try await Provisioning.saveCredential(store: store, secret: adminSecret, role: .admin, vendorID: nil, label: "development admin", now: now)
        try await Provisioning.saveCredential(
            store: store,
            secret: backendSecret,
            role: .backend,
            vendorID: nil,
            label: "development backend",
            now: now
        )
        if try await store.credential(secretHash: APISecret.hash(vendorSecret, sha256: SHA256.hash)) == nil {
            let vendor = try await store.createVendor(
                id: vendorID,
                name: "Boucherie Centrale",
                category: "boucherie",
                neighbourhood: "centre-ville",
                now: now
            )
            try await Provisioning.saveCredential(
                store: store,
                secret: vendorSecret,
                role: .vendor,
                vendorID: vendor.id,
                label: "development vendor",
                now: now
            )
        }
        let draft = try MemberDraft(
            uuid: memberUUID,
            name: "Ahmed Mohamed",
            phone: "+213550000001",
            email: "ahmed.mohamed@example.dz",
            neighbourhood: "centre-ville"
        ).validated()
        let member = try await store.createMember(draft, now: memberRegisteredAt).member
        if (CoverageSchedule.coverageEnd(try await store.periods(memberUUID: member.uuid)) ?? 0) <= now {
            let sales = ActivationService(ledger: store, cards: cards)
            do {
                _ = try await sales.sell(
                    ActivationService.SaleRequest(
                        body: ActivationRequest(card_token: nil, membership_id: member.membershipID, months: 1, amount_dzd: Pricing.monthlyPriceDZD),
                        vendorID: vendorID,
                        keyScope: "development-demo-data",
                        idempotencyKey: "demo-month-\(AlgiersCalendar.dayStamp(now))"
                    )
                )
            } catch let error as MembershipError where error.code == .requestInFlight {
                // Another instance starting on the same database is selling today's demo month right now.
            }
        }
        return member.membershipID
    }

    static func printGuide(baseURL: String, membershipID: String) {
        printNow(
            """

            DEVELOPMENT MODE: demo data and these published, development-only API secrets:
              admin    \(adminSecret)
              backend  \(backendSecret)
              vendor   \(vendorSecret)   (Boucherie Centrale)
              member   Ahmed Mohamed, uuid \(memberUUID.uuidString.lowercased()), membership id \(membershipID)
                       (`make demo` prints a card for this member)

            Try:
              curl -s -H 'Authorization: Bearer \(backendSecret)' \(baseURL)/v1/members/\(memberUUID.uuidString.lowercased())/card
              curl -s -H 'Authorization: Bearer \(vendorSecret)' -H 'Idempotency-Key: '$(cat /proc/sys/kernel/random/uuid) \\
                   -d '{"membership_id": "\(membershipID)", "months": 1, "amount_dzd": 300}' \(baseURL)/v1/activations
            """
        )
    }
}
