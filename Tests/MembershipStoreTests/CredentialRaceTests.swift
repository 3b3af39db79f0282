import CardServices
import Foundation
import Membership
import MembershipSQL
import MembershipSQLite
import Synchronization
import TestSupport
import Testing

/// The credentials' guards under races, as two service instances on one database meet them (two stores, two
/// connection pools; for SQLite two handles on one file): each guard is decided in the transaction that acts,
/// so no round — of hundreds — slips past one.
@Suite("Credential races")
struct CredentialRaceTests {
    static let rounds = 150
    static let operator_ = AuditActor(label: "ops laptop", credentialID: nil, address: "192.0.2.7")

    /// Two stores on one brand-new database of `kind`, as two instances of the service.
    static func withTwoInstances(_ kind: StoreKind, _ body: (SQLMembershipStore, SQLMembershipStore) async throws -> Void) async throws {
        switch kind {
        case .postgres:
            try await StoreKind.withPostgresInstances(2) { try await body($0[0], $0[1]) }
        case .sqlite:
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let (first, second) = (
                try await SQLiteDatabase.open(path: folder.file("ledger.sqlite")), try await SQLiteDatabase.open(path: folder.file("ledger.sqlite"))
            )
            defer {
                Task {
                    try? await first.close()
                    try? await second.close()
                }
            }
            let a = try await SQLMembershipStore(database: first, now: Sample.migratedAt)
            try await body(a, try await SQLMembershipStore(database: second, now: Sample.migratedAt))
        }
    }

    /// Runs both at once; each result, or the error it threw.
    static func race<A: Sendable, B: Sendable>(
        _ first: @escaping @Sendable () async throws -> A,
        _ second: @escaping @Sendable () async throws -> B
    ) async -> (Result<A, any Error>, Result<B, any Error>) {
        async let a = Self.result(first)
        async let b = Self.result(second)
        return await (a, b)
    }

    static func result<T: Sendable>(_ body: @Sendable () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    static let now = WallClock { 1_795_000_000 }

    @Test(arguments: StoreKind.available)
    func twoAdminsRevokingEachOtherAtOnceAlwaysLeaveOne(kind: StoreKind) async throws {
        try await Self.withTwoInstances(kind) { a, b in
            let (viaA, viaB) = (CredentialService(store: a, now: Self.now), CredentialService(store: b, now: Self.now))
            var survivor = try await viaA.create(role: .admin, vendorID: nil, label: "first", by: Self.operator_).credential
            var bothAnswered = 0
            for round in 0..<Self.rounds {
                let other = try await viaA.create(
                    role: .admin,
                    vendorID: nil,
                    label: "admin \(round)",
                    by: AuditActor(credential: survivor, address: "a")
                )
                .credential
                let current = survivor
                let (one, two) = await Self.race(
                    { try await viaA.revoke(id: other.id, by: AuditActor(credential: current, address: "a")) },
                    { try await viaB.revoke(id: current.id, by: AuditActor(credential: other, address: "b")) }
                )
                if case .success = one, case .success = two { bothAnswered += 1 }
                let lasting = try await a.credentials(role: .admin, vendorID: nil).filter { $0.revokedAt == nil && $0.expiresAt == nil }
                try #require(lasting.count == 1, "round \(round): \(lasting.count) admin credentials left")
                survivor = lasting[0]
            }
            #expect(bothAnswered == 0, "\(bothAnswered) rounds revoked both")
        }
    }

    @Test(arguments: StoreKind.available)
    func rotatingTheLastAdminAndRevokingItsSuccessorWithTheOldSecretIsRefused(kind: StoreKind) async throws {
        try await Self.withTwoInstances(kind) { a, _ in
            let service = CredentialService(store: a, now: Self.now)
            let only = try await service.create(role: .admin, vendorID: nil, label: "ops", by: Self.operator_).credential
            let (next, old) = try await service.rotate(id: only.id, grace: 3_600, by: AuditActor(credential: only, address: "a"))
            let refused = await #expect(throws: MembershipError.self) {
                try await service.revoke(id: next.credential.id, by: AuditActor(credential: old, address: "a"))
            }
            #expect(refused?.code == .conflict)
            // Revoking the old one revokes the device's successor too: also the last lasting admin, refused.
            await #expect(throws: MembershipError.self) { try await service.revoke(id: only.id, by: Self.operator_) }
            #expect(try await a.credential(id: next.credential.id)?.revokedAt == nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func aRedemptionRacingACutOffLeavesNoActiveCredential(kind: StoreKind) async throws {
        try await Self.withTwoInstances(kind) { a, b in
            let (viaA, viaB) = (CredentialService(store: a, now: Self.now), CredentialService(store: b, now: Self.now))
            var enrolledThenCut = 0
            for round in 0..<Self.rounds {
                let shop = try await a.createVendor(name: "Shop \(round)", category: "butcher", neighbourhood: "usto", now: Self.now())
                let device = try await viaA.create(role: .vendor, vendorID: shop.id, label: "till", by: Self.operator_).credential
                let (code, _) = try await viaA.enrolmentCode(vendorID: shop.id, by: AuditActor(credential: device, address: "shop"))
                let (enrolment, _) = await Self.race(
                    { try await viaB.enrol(code: code, label: "thief's phone", address: "b") },
                    { try await viaA.cutOff(vendorID: shop.id, by: Self.operator_) }
                )
                if case .success = enrolment { enrolledThenCut += 1 }
                let active = try await a.credentials(role: .vendor, vendorID: shop.id).filter { $0.revokedAt == nil }
                try #require(active.isEmpty, "round \(round): \(active.count) active credential(s) of a cut-off shop")
            }
            print("redemptions that won the race and were then cut off: \(enrolledThenCut) of \(Self.rounds)")
        }
    }

    @Test(arguments: StoreKind.available)
    func codesAShopsDeviceMakesWhileItIsCutOffEnrolNothing(kind: StoreKind) async throws {
        try await Self.withTwoInstances(kind) { a, b in
            let (viaA, viaB) = (CredentialService(store: a, now: Self.now), CredentialService(store: b, now: Self.now))
            for round in 0..<(Self.rounds / 5) {
                let shop = try await a.createVendor(name: "Shop \(round)", category: "butcher", neighbourhood: "usto", now: Self.now())
                let device = AuditActor(
                    credential: try await viaA.create(role: .vendor, vendorID: shop.id, label: "till", by: Self.operator_).credential,
                    address: "shop"
                )
                let codes = Mutex<[String]>([])
                let (_, cut) = await Self.race(
                    {
                        for _ in 0..<8 {
                            guard let (code, _) = try? await viaA.enrolmentCode(vendorID: shop.id, by: device) else { continue }
                            codes.withLock { $0.append(code) }
                        }
                    },
                    { try await viaB.cutOff(vendorID: shop.id, by: Self.operator_) }
                )
                _ = try cut.get()
                for code in codes.withLock({ $0 }) {
                    await #expect(throws: EnrolmentRefusal.revoked, "round \(round)") { try await viaB.enrol(code: code, label: "x", address: "b") }
                }
                #expect(try await a.credentials(role: .vendor, vendorID: shop.id).allSatisfy { $0.revokedAt != nil })
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func aRevokedPhonesCodesAndRotationsLetNothingBackIn(kind: StoreKind) async throws {
        try await Self.withTwoInstances(kind) { a, b in
            let (viaA, viaB) = (CredentialService(store: a, now: Self.now), CredentialService(store: b, now: Self.now))
            let shop = try await a.createVendor(name: "Shop", category: "butcher", neighbourhood: "usto", now: Self.now())
            // The thief's first move: a code for a device of his own; then the operator revokes the phone.
            let phone = try await viaA.create(role: .vendor, vendorID: shop.id, label: "Karim's phone", by: Self.operator_).credential
            let (code, _) = try await viaA.enrolmentCode(vendorID: shop.id, by: AuditActor(credential: phone, address: "shop"))
            _ = try await viaB.revoke(id: phone.id, by: Self.operator_)
            await #expect(throws: EnrolmentRefusal.revoked) { try await viaA.enrol(code: code, label: "thief", address: "x") }

            // A rotation racing the revocation: whichever lands first, neither secret stays in.
            for round in 0..<Self.rounds {
                let device = try await viaA.create(role: .vendor, vendorID: shop.id, label: "till \(round)", by: Self.operator_).credential
                let (rotation, _) = await Self.race(
                    { try await viaA.rotate(id: device.id, grace: 3_600, by: AuditActor(credential: device, address: "shop")) },
                    { try await viaB.revoke(id: device.id, by: Self.operator_) }
                )
                if case .success(let rotated) = rotation {
                    let successor = try await a.credential(id: rotated.issued.credential.id)
                    try #require(successor?.revokedAt != nil, "round \(round): the rotated secret stayed active after its device was revoked")
                }
                try #require(try await a.credential(id: device.id)?.revokedAt != nil)
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func revokingARevokedCredentialWritesNothing(kind: StoreKind) async throws {
        try await Self.withTwoInstances(kind) { a, _ in
            let service = CredentialService(store: a, now: Self.now)
            let shop = try await a.createVendor(name: "Shop", category: "butcher", neighbourhood: "usto", now: Self.now())
            let till = try await service.create(role: .vendor, vendorID: shop.id, label: "till", by: Self.operator_).credential
            _ = try await service.revoke(id: till.id, by: Self.operator_)
            let before = try await a.audit(after: 0, limit: 1_000).count
            let again = try await service.revoke(id: till.id, by: Self.operator_)
            #expect(again.revokedAt != nil)
            #expect(try await a.audit(after: 0, limit: 1_000).count == before, "no second credential.revoke")
        }
    }
}
