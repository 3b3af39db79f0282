import CardCrypto
import CardServices
import Foundation
import Membership
import MembershipSQL
import Synchronization
import Testing

/// Each device its own credential, on every real database: created, renamed, revoked, rotated with a grace
/// period; one-time enrolment codes used once, whoever races; every action in the audit trail.
@Suite("Credential lifecycle")
struct CredentialLifecycleTests {
    final class Clock: Sendable {
        let seconds = Mutex<Int64>(1_795_000_000)
        var now: WallClock { WallClock { self.seconds.withLock { $0 } } }
        func advance(_ by: Int64) { seconds.withLock { $0 += by } }
    }

    static let operator_ = AuditActor(label: "ops laptop", credentialID: nil, address: "192.0.2.7")

    @Test(arguments: StoreKind.available)
    func aDevicesCredentialIsMadeNamedRotatedAndRevokedAndEachStepIsAudited(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let clock = Clock()
            let service = CredentialService(store: store, now: clock.now)
            let shop = try await store.createVendor(name: "Boucherie Centrale", category: "butcher", neighbourhood: "centre-ville", now: clock.now())
            let till = try await service.create(role: .vendor, vendorID: shop.id, label: " till 1 ", by: Self.operator_)
            #expect(till.credential.label == "till 1" && till.credential.createdBy == "ops laptop" && till.secret.hasPrefix("peez_vendor_"))
            #expect(try await store.credential(secretHash: APISecret.hash(till.secret, sha256: SHA256.hash))?.id == till.credential.id)
            await #expect(throws: MembershipError.self) { try await service.create(role: .vendor, vendorID: nil, label: "x", by: Self.operator_) }
            await #expect(throws: MembershipError.self) { try await service.create(role: .vendor, vendorID: UUID(), label: "x", by: Self.operator_) }

            let renamed = try await service.rename(id: till.credential.id, label: "till 1 (Karim's phone)", by: Self.operator_)
            #expect(renamed.label == "till 1 (Karim's phone)")

            // Rotated with an hour's grace: the old secret still works until then, the new one at once.
            clock.advance(10)
            let (rotated, previous) = try await service.rotate(id: till.credential.id, grace: 3600, by: Self.operator_)
            #expect(rotated.credential.vendorID == shop.id && rotated.credential.label == renamed.label)
            #expect(previous.refusal(now: clock.now()) == nil && previous.expiresAt == clock.now() + 3600)
            clock.advance(3600)
            #expect(try await store.credential(id: previous.id)?.refusal(now: clock.now()) == .expired(at: clock.now()))
            await #expect(throws: MembershipError.self) { try await service.rotate(id: previous.id, grace: 0, by: Self.operator_) }

            // The stolen phone: revoked now, once.
            let revoked = try await service.revoke(id: rotated.credential.id, by: Self.operator_)
            #expect(revoked.revokedAt == clock.now() && revoked.state(now: clock.now()) == "revoked")
            clock.advance(5)
            _ = try await service.revoke(id: rotated.credential.id, by: Self.operator_)
            #expect(try await store.credential(id: rotated.credential.id)?.revokedAt == revoked.revokedAt, "the first revocation's time is kept")
            // (and the second revocation wrote nothing: one credential.revoke below)

            let trail = try await store.audit(after: 0, limit: 100)
            #expect(
                trail.map(\.action) == [
                    "credential.create", "credential.rename", "credential.rotate", "credential.revoke",
                ]
            )
            #expect(trail.allSatisfy { $0.actor == "ops laptop" && $0.address == "192.0.2.7" })
            #expect(trail.map(\.seq) == Array(trail.map(\.seq).sorted()) && Set(trail.map(\.seq)).count == trail.count)
            #expect(!trail.contains { $0.detail.contains(till.secret) || $0.detail.contains(rotated.secret) }, "no secret in the trail")
            // Each detail also fact by fact, for the console to say in its reader's language.
            #expect(
                trail.map { $0.values ?? [] } == [
                    [AuditValue("role", "vendor"), AuditValue("label", "till 1"), AuditValue("vendor", shop.id.lowercasedText)],
                    [AuditValue("label", "till 1 (Karim's phone)")],
                    [AuditValue("new_credential", rotated.credential.id.lowercasedText), AuditValue("grace_seconds", "3600")],
                    [AuditValue("role", "vendor"), AuditValue("label", "till 1 (Karim's phone)")],
                ]
            )
            // An entry written before the facts were kept reads as such (nil), not as one with none.
            _ = try await store.database.write { db in
                try await db.execute("UPDATE audit_log SET detail_values = NULL WHERE seq = ?", [.int(trail[0].seq)])
            }
            #expect(try await store.audit(after: 0, limit: 1).first?.values == nil)
            #expect(try await service.list(role: .vendor, vendorID: shop.id).count == 2)
        }
    }

    @Test(arguments: StoreKind.available)
    func theLastActiveAdminCredentialCannotBeRevoked(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let clock = Clock()
            let service = CredentialService(store: store, now: clock.now)
            let first = try await service.create(role: .admin, vendorID: nil, label: "ops", by: Self.operator_)
            let error = await #expect(throws: MembershipError.self) { try await service.revoke(id: first.credential.id, by: Self.operator_) }
            #expect(error?.code == .conflict)
            let second = try await service.create(role: .admin, vendorID: nil, label: "ops 2", by: Self.operator_)
            _ = try await service.revoke(id: first.credential.id, by: Self.operator_)
            await #expect(throws: MembershipError.self) { try await service.revoke(id: second.credential.id, by: Self.operator_) }
        }
    }

    @Test(arguments: StoreKind.available)
    func anEnrolmentCodeEnrolsOneDeviceOnceWithinItsLifetime(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let clock = Clock()
            let service = CredentialService(store: store, now: clock.now)
            let shop = try await store.createVendor(name: "Pharmacie Es-Salam", category: "pharmacy", neighbourhood: "usto", now: clock.now())
            let (code, expiresAt) = try await service.enrolmentCode(vendorID: shop.id, by: Self.operator_)
            #expect(EnrolmentCode.isWellFormed(code) && expiresAt == clock.now() + EnrolmentCode.defaultLifetime)

            // Eight devices race with one code: exactly one is enrolled, the others are told it was used.
            let outcomes = try await withThrowingTaskGroup(of: Result<APICredential, EnrolmentRefusal>.self) { group in
                for device in 0..<8 {
                    group.addTask {
                        do {
                            return .success(try await service.enrol(code: code, label: "phone \(device)", address: "198.51.100.\(device)").credential)
                        } catch let refusal as EnrolmentRefusal {
                            return .failure(refusal)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let enrolled = outcomes.compactMap { try? $0.get() }
            #expect(enrolled.count == 1 && enrolled.first?.vendorID == shop.id && enrolled.first?.role == .vendor)
            #expect(outcomes.filter { if case .failure(.used) = $0 { return true } else { return false } }.count == 7)

            // Unknown, malformed, expired and withdrawn codes are each named.
            await #expect(throws: EnrolmentRefusal.unknown) { try await service.enrol(code: EnrolmentCode.generate(), label: "x", address: "-") }
            await #expect(throws: EnrolmentRefusal.unknown) {
                try await service.enrol(code: "'; DROP TABLE credentials; --", label: "x", address: "-")
            }
            let (late, _) = try await service.enrolmentCode(vendorID: shop.id, lifetime: 60, by: Self.operator_)
            clock.advance(60)
            await #expect(throws: EnrolmentRefusal.expired) { try await service.enrol(code: late, label: "x", address: "-") }
            let (withdrawn, _) = try await service.enrolmentCode(vendorID: shop.id, by: Self.operator_)
            #expect(try await service.cutOff(vendorID: shop.id, by: Self.operator_) == 1)
            await #expect(throws: EnrolmentRefusal.revoked) { try await service.enrol(code: withdrawn, label: "x", address: "-") }
            #expect(try await store.credentials(role: .vendor, vendorID: shop.id).allSatisfy { $0.revokedAt != nil })
            await #expect(throws: MembershipError.self) { try await service.enrolmentCode(vendorID: shop.id, lifetime: 30, by: Self.operator_) }
            let actions = try await store.audit(after: 0, limit: 100).map(\.action)
            #expect(actions.filter { $0 == "credential.enrol" }.count == 1 && actions.last == "vendor.cut_off")
        }
    }

    @Test(arguments: StoreKind.available)
    func aCodeMadeForANamedPhoneNamesTheDeviceItEnrolsAndNoLabelDisguisesItself(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let clock = Clock()
            let service = CredentialService(store: store, now: clock.now)
            let shop = try await store.createVendor(name: "Shop", category: "butcher", neighbourhood: "usto", now: clock.now())
            let (code, _) = try await service.enrolmentCode(vendorID: shop.id, label: "Karim's phone", by: Self.operator_)
            let enrolled = try await service.enrol(code: code, label: "web counter, set up 2026-11-27", address: "198.51.100.7")
            #expect(enrolled.credential.label == "Karim's phone", "the shop's name for it, not the page's")
            let (unnamed, _) = try await service.enrolmentCode(vendorID: shop.id, by: Self.operator_)
            #expect(try await service.enrol(code: unnamed, label: "till 2", address: "-").credential.label == "till 2")
            for hostile in ["Karim\u{202E}enohp", "till\u{1B}[2J", "a\rb", "x\u{0}y"] {
                let refused = await #expect(throws: MembershipError.self) {
                    try await service.create(role: .vendor, vendorID: shop.id, label: hostile, by: Self.operator_)
                }
                #expect(refused?.fields["label"]?.contains("must not contain control or bidirectional override characters") == true, "\(hostile)")
                await #expect(throws: MembershipError.self) { try await service.enrolmentCode(vendorID: shop.id, label: hostile, by: Self.operator_) }
            }
            // 100 characters as JSON Schema's maxLength counts them, Unicode scalars: "Ĵ🏻" is one letter to the eye, two
            // scalars (a schemathesis run found a 101-scalar label accepted).
            let hundred = String(repeating: "a", count: 98) + "Ĵ🏻"
            #expect(try await service.create(role: .vendor, vendorID: shop.id, label: hundred, by: Self.operator_).credential.label == hundred)
            let tooLong = await #expect(throws: MembershipError.self) {
                try await service.create(role: .vendor, vendorID: shop.id, label: "a" + hundred, by: Self.operator_)
            }
            #expect(tooLong?.fields["label"] == "must be 1 to 100 characters")
        }
    }

    @Test(arguments: StoreKind.available)
    func aSaleRefusedToAWithdrawnCredentialIsKeptOnceUnderItsKey(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let credential = UUID()
            let sale = RefusedSale(
                at: 5,
                credentialID: credential,
                vendorID: nil,
                idempotencyKey: "k-1",
                membershipID: "PEEZ-20251103-00001",
                months: 2,
                amountDZD: 600,
                reason: "credential_revoked"
            )
            func keep(_ sale: RefusedSale, max: Int = 100) async throws {
                try await store.recordRefusedSale(sale, keyScope: credential.uuidString, maxPerCredential: max)
            }
            try await keep(sale)
            try await keep(sale)  // retried under the same key
            var other = sale
            other.idempotencyKey = "k-2"
            try await keep(other)
            #expect(try await store.refusedSales(before: nil, limit: 10).map(\.idempotencyKey) == ["k-2", "k-1"])
            // At most so many a credential: a thief's phone retrying without end adds nothing past it.
            for index in 3...10 {
                other.idempotencyKey = "k-\(index)"
                try await keep(other, max: 5)
            }
            #expect(try await store.refusedSales(before: nil, limit: 100).count == 5)
        }
    }

    @Test(arguments: StoreKind.available)
    func refusedSalesArePagedNewestFirstEachOnceByTheirNumber(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let credential = UUID()
            for index in 1...7 {
                let sale = RefusedSale(
                    at: Int64(index),
                    credentialID: credential,
                    vendorID: nil,
                    idempotencyKey: "k-\(index)",
                    membershipID: nil,
                    months: nil,
                    amountDZD: nil,
                    reason: "credential_revoked"
                )
                try await store.recordRefusedSale(sale, keyScope: credential.uuidString, maxPerCredential: 100)
            }
            var pages: [[String]] = []
            var before: Int64?
            while true {
                let page = try await store.refusedSales(before: before, limit: 3)
                if page.isEmpty { break }
                pages.append(page.map(\.idempotencyKey))
                before = page.last?.seq
            }
            #expect(pages == [["k-7", "k-6", "k-5"], ["k-4", "k-3", "k-2"], ["k-1"]])
        }
    }

    @Test(arguments: StoreKind.available)
    func aRetryOfASaleSoldBeforeTheRevocationIsNotListedAsRefused(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            let vendor = try await store.createVendor(name: "V", category: "boucherie", neighbourhood: "usto", now: 1)
            let (member, _) = try await store.createMember(Sample.draft(1), now: 1_767_225_600)
            _ = try await desk.answer(SaleDesk.body(member.membershipID, months: 1), vendor: vendor, now: 1_767_225_700, key: "sold-then-stolen")
            // The desk sells under the scope "vendor-1": the credential's, as the service keys a vendor's sales.
            let scope = "vendor-1"
            let retry = RefusedSale(
                at: 5,
                credentialID: UUID(),
                vendorID: vendor.id,
                idempotencyKey: "sold-then-stolen",
                membershipID: member.membershipID,
                months: 1,
                amountDZD: 300,
                reason: "credential_revoked"
            )
            try await store.recordRefusedSale(retry, keyScope: scope, maxPerCredential: 100)
            #expect(try await store.refusedSales(before: nil, limit: 10).isEmpty, "the sale stands: nothing to give back")
        }
    }
}
