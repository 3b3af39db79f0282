import CardServices
import CardToken
import Foundation
import Membership
import PeezBasics
import Testing

@testable import MembershipSQL

/// One storage contract, proven against every real database.
@Suite("Storage conformance")
struct StoreConformanceTests {
    @Test(arguments: StoreKind.available)
    func membershipIDsFollowTheAlgiersDayAndNeverRepeat(kind: StoreKind) async throws {
        try await kind.withStore { store in
            // 2025-11-03 22:30 UTC is already 2025-11-03 23:30 in Algiers; 23:30 UTC is the next day there.
            let first = try await store.createMember(Sample.draft(1), now: 1_762_209_000).member
            let second = try await store.createMember(Sample.draft(2), now: 1_762_209_000).member
            let nextDay = try await store.createMember(Sample.draft(3), now: 1_762_212_600).member
            #expect(first.membershipID == "PEEZ-20251103-00001")
            #expect(second.membershipID == "PEEZ-20251103-00002")
            #expect(nextDay.membershipID == "PEEZ-20251104-00001")
            #expect(try await store.member(membershipID: "PEEZ-20251103-00002") == second)
        }
    }

    @Test(arguments: StoreKind.available)
    func creatingTheSameMemberAgainReturnsTheExistingOne(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let draft = Sample.draft()
            let (member, created) = try await store.createMember(draft, now: 1_000)
            let (again, createdAgain) = try await store.createMember(draft, now: 2_000)
            #expect(created && !createdAgain)
            #expect(again == member)
            var changed = draft
            changed.name = "Someone Else"
            await #expect(throws: MembershipError(.conflict, "")) { try await store.createMember(changed, now: 3_000) }
        }
    }

    @Test(arguments: StoreKind.available)
    func phoneAndEmailAreUnique(kind: StoreKind) async throws {
        try await kind.withStore { store in
            _ = try await store.createMember(Sample.draft(1), now: 1_000)
            var samePhone = Sample.draft(2)
            samePhone.phone = Sample.draft(1).phone
            let error = await #expect(throws: MembershipError.self) { try await store.createMember(samePhone, now: 1_000) }
            #expect(error?.code == .conflict && error?.fields["phone"] != nil)
            let other = try await store.createMember(Sample.draft(3), now: 1_000).member
            let taken = await #expect(throws: MembershipError.self) {
                try await store.updateMember(uuid: other.uuid, patch: MemberPatch(email: Sample.draft(1).email), now: 2_000)
            }
            #expect(taken?.fields["email"] != nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func updatesAreValidatedAndStored(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let member = try await store.createMember(Sample.draft(), now: 1_000).member
            let updated = try await store.updateMember(uuid: member.uuid, patch: MemberPatch(name: "  Amina Benali ", language: .ar), now: 2_000)
            #expect(updated.name == "Amina Benali" && updated.language == .ar)
            #expect(try await store.member(uuid: member.uuid) == updated)
            await #expect(throws: MembershipError(.invalidFields, "")) {
                try await store.updateMember(uuid: member.uuid, patch: MemberPatch(phone: "0550123456"), now: 2_000)
            }
            await #expect(throws: MembershipError(.notFound, "")) { try await store.updateMember(uuid: UUID(), patch: MemberPatch(), now: 2_000) }
        }
    }

    @Test(arguments: StoreKind.available)
    func activationsStackAfterCurrentCoverageWithClampedMonths(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let vendor = try await store.createVendor(name: "Boucherie Centrale", category: "boucherie", neighbourhood: "centre-ville", now: 1_000)
            let member = try await store.createMember(Sample.draft(), now: 1_000).member
            let now = Sample.january31
            let first = try await activate(store, member: member, vendor: vendor, months: 1, now: now)
            let second = try await activate(store, member: member, vendor: vendor, months: 2, now: now + 60)
            #expect(first.period.startsAt == now)
            #expect(AlgiersCalendar.iso8601(first.period.endsAt) == "2026-02-28T10:00:00+01:00")
            #expect(second.period.startsAt == first.period.endsAt, "paid time is never lost or double-counted")
            #expect(AlgiersCalendar.iso8601(second.coverageEnd) == "2026-04-28T10:00:00+01:00")
            #expect(second.card.expiresAt == second.coverageEnd)
            #expect(try await store.card(memberUUID: member.uuid) == second.card)
            #expect(try await store.periods(memberUUID: member.uuid).map(\.id) == [first.period.id, second.period.id])
        }
    }

    @Test(arguments: StoreKind.available)
    func activationAfterCoverageEndedStartsNow(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let vendor = try await store.createVendor(name: "Épicerie", category: "epicerie", neighbourhood: "usto", now: 1_000)
            let member = try await store.createMember(Sample.draft(), now: 1_000).member
            let old = try await activate(store, member: member, vendor: vendor, months: 1, now: Sample.january31)
            let later = old.period.endsAt + 10 * 86_400
            let renewed = try await activate(store, member: member, vendor: vendor, months: 3, now: later)
            #expect(renewed.period.startsAt == later)
        }
    }

    @Test(arguments: StoreKind.available)
    func concurrentActivationsOfOneMemberAllStackExactly(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let vendors = [
                try await store.createVendor(name: "A", category: "boucherie", neighbourhood: "usto", now: 1_000),
                try await store.createVendor(name: "B", category: "epicerie", neighbourhood: "usto", now: 1_000),
            ]
            let member = try await store.createMember(Sample.draft(), now: 1_000).member
            let now = Sample.january31
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        _ = try await activate(store, member: member, vendor: vendors[index % 2], months: 1, now: now)
                    }
                }
                try await group.waitForAll()
            }
            let periods = try await store.periods(memberUUID: member.uuid)
            #expect(periods.count == 16)
            for (previous, next) in zip(periods, periods.dropFirst()) {
                #expect(next.startsAt == previous.endsAt, "periods are contiguous: none overlaps, none is lost")
            }
            #expect(periods.first?.startsAt == now)
            #expect(CoverageSchedule.coverageEnd(periods) == AlgiersCalendar.adding(months: 1, to: periods[15].startsAt))
        }
    }

    @Test(arguments: StoreKind.available)
    func idempotencyKeysProceedReplayRefuseAndRecover(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let desk = try SaleDesk(store: store)
            let body = SaleDesk.body(member.membershipID, months: 1)
            let now = Sample.january31
            let first = try await desk.answer(body, vendor: vendor, now: now, key: "retry-1")
            guard case .sold(let response) = first else {
                Issue.record("the first request with a key sells: \(first)")
                return
            }
            #expect(
                try await desk.answer(body, vendor: vendor, now: now + 1, key: "retry-1") == .replayed(response),
                "a retry replays the first answer"
            )
            await #expect(throws: MembershipError(.idempotencyKeyReused, "")) {
                try await desk.answer(SaleDesk.body(member.membershipID, months: 2), vendor: vendor, now: now + 1, key: "retry-1")
            }
            #expect(
                try await store.beginIdempotentRequest(try SaleDesk.key("retry-1", for: body), now: now + 3, abandonAfter: 60) == .replay(response)
            )
            #expect(try await store.periods(memberUUID: member.uuid).count == 1, "nothing was sold twice")

            let started = try SaleDesk.key("started", for: body)
            #expect(try await store.beginIdempotentRequest(started, now: now + 100, abandonAfter: 60) == .proceed)
            await #expect(throws: MembershipError(.requestInFlight, ""), "a retry while the first is in flight") {
                try await desk.answer(body, vendor: vendor, now: now + 101, key: "started")
            }
            let takenOver = try await desk.answer(body, vendor: vendor, now: now + 161, key: "started")
            if case .sold = takenOver {} else { Issue.record("an attempt whose process died is taken over: \(takenOver)") }

            let crashed = Sample.key("crashed")
            #expect(try await store.beginIdempotentRequest(crashed, now: 200, abandonAfter: 60) == .proceed)
            #expect(
                try await store.beginIdempotentRequest(crashed, now: 261, abandonAfter: 60) == .proceed,
                "an attempt whose process died is taken over"
            )
            try await store.abandonIdempotentRequest(crashed)
            #expect(try await store.beginIdempotentRequest(crashed, now: 262, abandonAfter: 60) == .proceed)
        }
    }

    @Test(arguments: StoreKind.available)
    func aCorruptRowIsAnErrorNamingItsTableAndColumnNotADefault(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            try await activate(store, member: member, vendor: vendor, months: 1, now: 1_000)
            func corrupt(_ sql: String, then read: () async throws -> Void, names column: String) async throws {
                try await store.database.write { db in try await db.execute(sql) }
                do {
                    try await read()
                    Issue.record("\(sql): the corrupt row was read")
                } catch let error as SQLError {
                    #expect(error.code == .unexpectedValue && error.subject == column, "\(error)")
                }
            }
            try await corrupt(
                "UPDATE members SET language = 'xx'",
                then: { _ = try await store.member(uuid: member.uuid) },
                names: "members.language"
            )
            try await store.database.write { db in try await db.execute("UPDATE members SET language = 'fr'") }
            try await corrupt(
                "UPDATE periods SET source = 'gift'",
                then: { _ = try await store.periods(memberUUID: member.uuid) },
                names: "periods.source"
            )
            try await store.database.write { db in try await db.execute("UPDATE periods SET source = 'vendor'") }
            try await corrupt(
                "UPDATE periods SET id = 'not-a-uuid'",
                then: { _ = try await store.periods(memberUUID: member.uuid) },
                names: "periods.id"
            )
            let hash = String(repeating: "cd", count: 32)
            try await store.saveCredential(APICredential(id: UUID(), role: .vendor, vendorID: vendor.id, secretHash: hash, label: "t", createdAt: 1))
            try await corrupt(
                "UPDATE credentials SET role = 'root'",
                then: { _ = try await store.credential(secretHash: hash) },
                names: "credentials.role"
            )
        }
    }

    @Test(arguments: StoreKind.available)
    func startUpWritesAreIdempotentUnderConcurrency(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let draft = try MemberDraft(
                uuid: UUID(),
                name: "Ahmed Mohamed",
                phone: "+213550000001",
                email: "ahmed@example.dz",
                neighbourhood: "usto"
            ).validated()
            let created = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { try await store.createMember(draft, now: 1_000).created } }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(created.filter { $0 }.count == 1, "one creation, seven idempotent repeats: \(created)")

            let id = UUID()
            let vendors = try await withThrowingTaskGroup(of: Vendor.self) { group in
                for name in ["Boucherie Centrale", "Boucherie Centrale", "Autre nom"] {
                    group.addTask { try await store.createVendor(id: id, name: name, category: "boucherie", neighbourhood: "usto", now: 1_000) }
                }
                return try await group.reduce(into: [Vendor]()) { $0.append($1) }
            }
            #expect(Set(vendors).count == 1 && vendors[0].id == id, "every caller gets the vendor as first stored")

            let credential = APICredential(
                id: UUID(),
                role: .admin,
                vendorID: nil,
                secretHash: String(repeating: "ab", count: 32),
                label: "a",
                createdAt: 1
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await store.saveCredential(
                            APICredential(
                                id: UUID(),
                                role: .admin,
                                vendorID: nil,
                                secretHash: credential.secretHash,
                                label: "a",
                                createdAt: 1
                            )
                        )
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.credential(secretHash: credential.secretHash)?.role == .admin)
        }
    }

    @Test(arguments: StoreKind.available)
    func aSaleWhoseClaimWasLostStillRecordsItsKey(kind: StoreKind) async throws {
        try await kind.withStore { store in
            // The claim is written without waiting for the disk; a crash and a quick restart can lose it before
            // the sale commits. The sale's batch must then record the key itself, so a retry replays.
            // (KeyCompletedOnceTests: a key completed once, whatever became of its claim.)
            let response = StoredResponse(Array("sold".utf8))
            let lost = Sample.key("lost-claim")
            try await store.database.writeBatch([SQLMembershipStore.completeIdempotentRequest(lost, with: response, now: 100)])
            #expect(try await store.beginIdempotentRequest(lost, now: 101, abandonAfter: 60) == .replay(response))

            // Another request claimed the key meanwhile: the sale's batch is refused, and that claim left alone.
            let other = Sample.key("claimed-by-another", hash: "h2")
            #expect(try await store.beginIdempotentRequest(other, now: 100, abandonAfter: 60) == .proceed)
            await #expect(throws: SQLError.notNullViolation("idempotency_keys.state")) {
                try await store.database.writeBatch([
                    SQLMembershipStore.completeIdempotentRequest(Sample.key("claimed-by-another", hash: "h1"), with: response, now: 100)
                ])
            }
            #expect(
                try await store.beginIdempotentRequest(other, now: 101, abandonAfter: 60) == .inFlight,
                "another request's claim is left alone"
            )
        }
    }

    @Test(arguments: StoreKind.available)
    func simultaneousFirstAttemptsWithOneKeyProceedExactlyOnce(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let key = Sample.key("raced")
            let decisions = try await withThrowingTaskGroup(of: IdempotencyDecision.self) { group in
                for _ in 0..<12 { group.addTask { try await store.beginIdempotentRequest(key, now: 100, abandonAfter: 60) } }
                return try await group.reduce(into: [IdempotencyDecision]()) { $0.append($1) }
            }
            #expect(decisions.filter { $0 == .proceed }.count == 1)
            #expect(decisions.filter { $0 == .inFlight }.count == 11)
        }
    }

    @Test(arguments: StoreKind.available)
    func failedActivationLeavesNoTrace(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let desk = try SaleDesk(store: store)
            let body = SaleDesk.body(member.membershipID, months: 1)
            let now = Sample.january31
            // The sale's write fails (its table is gone for a moment): nothing of it stays, and its key is free.
            try await store.database.write { db in try await db.execute("ALTER TABLE cards RENAME TO cards_away") }
            await #expect(throws: (any Error).self) { try await desk.answer(body, vendor: vendor, now: now, key: "failing") }
            try await store.database.write { db in try await db.execute("ALTER TABLE cards_away RENAME TO cards") }
            #expect(try await store.periods(memberUUID: member.uuid).isEmpty, "the transaction rolled back")
            #expect(
                try await store.beginIdempotentRequest(try SaleDesk.key("failing", for: body), now: now + 1, abandonAfter: 60) == .proceed,
                "the key is free again"
            )
            await #expect(throws: MembershipError(.invalidFields, "")) {
                try await desk.answer(SaleDesk.body(member.membershipID, months: 2, amountDZD: 300), vendor: vendor, now: now)
            }
            let unknown = SaleDesk.body("PEEZ-20260131-99999", months: 1)
            await #expect(throws: MembershipError(.notFound, "")) { try await desk.answer(unknown, vendor: vendor, now: now, key: "unknown") }
            #expect(
                try await store.beginIdempotentRequest(try SaleDesk.key("unknown", for: unknown), now: now + 1, abandonAfter: 60) == .proceed,
                "the key is free again"
            )
        }
    }

    @Test(arguments: StoreKind.available)
    func cancellationShiftsLaterPeriodsBackAndRevokesOlderCards(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let now = Sample.january31
            let first = try await activate(store, member: member, vendor: vendor, months: 1, now: now)
            let second = try await activate(store, member: member, vendor: vendor, months: 1, now: now + 60)
            let card = try #require(try await store.card(memberUUID: member.uuid))

            let cancelled = try await store.cancelPeriod(id: first.period.id, now: now + 120)
            #expect(cancelled.period.cancelledAt == now + 120)
            let shifted = try #require(try await store.period(id: second.period.id))
            #expect(shifted.startsAt == now + 60, "the later period moves back to when it was bought")
            #expect(cancelled.coverageEnd == shifted.endsAt)
            #expect(try await store.card(memberUUID: member.uuid) == nil, "the next card read issues a fresh card")

            let revocations = try await store.revocations()
            #expect(revocations.tokenIDs.contains(card.tokenID))
            #expect(revocations.members[member.membershipID] == now + 121, "after the change's second, so a card of that second is revoked too")
            #expect(revocations.version == 1, "one cancellation, one change to the list (the card's and the member's records)")
            await #expect(throws: MembershipError(.conflict, "")) { try await store.cancelPeriod(id: first.period.id, now: now + 200) }
            await #expect(throws: MembershipError(.notFound, "")) { try await store.cancelPeriod(id: UUID(), now: now + 200) }
        }
    }

    @Test(arguments: StoreKind.available)
    func aNewDeviceKeyIsKeptAndRevokesEarlierCardsWhileTheSameKeyAgainChangesNothing(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let now = Sample.january31
            _ = try await activate(store, member: member, vendor: vendor, months: 1, now: now)
            let card = try #require(try await store.card(memberUUID: member.uuid))
            let phone = try DeviceKey(rawRepresentation: (0..<32).map { UInt8($0 * 7 + 3) })

            let (bound, changed) = try await store.replaceDeviceKey(memberUUID: member.uuid, with: phone, now: now + 60)
            #expect(changed && bound.deviceKey == phone)
            #expect(try await store.member(uuid: member.uuid)?.deviceKey == phone, "kept in the members row")
            #expect(try await store.cardBasis(memberUUID: member.uuid)?.head.member.deviceKey == phone, "the next card is signed for it")
            #expect(try await store.card(memberUUID: member.uuid) == nil, "the stored card, bound to nothing, is forgotten")
            var revocations = try await store.revocations()
            #expect(revocations.tokenIDs.contains(card.tokenID) && revocations.members[member.membershipID] == now + 61)

            let (again, changedAgain) = try await store.replaceDeviceKey(memberUUID: member.uuid, with: phone, now: now + 120)
            #expect(!changedAgain && again.deviceKey == phone)
            #expect(try await store.revocations().version == revocations.version, "the same key again revokes nothing")

            let (unbound, removed) = try await store.replaceDeviceKey(memberUUID: member.uuid, with: nil, now: now + 180)
            #expect(removed && unbound.deviceKey == nil)
            revocations = try await store.revocations()
            #expect(revocations.members[member.membershipID] == now + 181)
            await #expect(throws: MembershipError(.notFound, "")) { try await store.replaceDeviceKey(memberUUID: UUID(), with: phone, now: now) }
        }
    }

    @Test(arguments: StoreKind.available)
    func aRevocationDeltaHoldsExactlyTheChangesAfterItsVersionEvenUnderConcurrentCancels(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let vendor = try await store.createVendor(name: "Boucherie", category: "boucherie", neighbourhood: "usto", now: Sample.january31)
            var periods: [(member: Member, period: UUID)] = []
            for index in 1...6 {
                let (member, _) = try await store.createMember(Sample.draft(index), now: Sample.january31)
                let sale = try await activate(store, member: member, vendor: vendor, months: 1, now: Sample.january31 + 10)
                periods.append((member, sale.period.id))
            }
            _ = try await store.cancelPeriod(id: periods[0].period, now: Sample.january31 + 100)
            let first = try await store.revocations()
            #expect(first.version == 1 && first.since == nil)

            // Five cancellations at once: each takes its own version, in the order they commit.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for entry in periods.dropFirst() {
                    group.addTask { _ = try await store.cancelPeriod(id: entry.period, now: Sample.january31 + 200) }
                }
                try await group.waitForAll()
            }
            let delta = try await store.revocations(since: first.version)
            #expect(delta.version == 6 && delta.since == 1)
            #expect(Set(delta.members.keys) == Set(periods.dropFirst().map(\.member.membershipID)), "exactly the five newer changes")
            #expect(try await store.revocations(since: 6).members.isEmpty, "nothing newer than the newest version")
            let unknown = try await store.revocations(since: 99)
            #expect(unknown.since == nil && unknown.members.count == 6, "a version the list never had gets the whole list")
        }
    }

    @Test(arguments: StoreKind.available)
    func vendorsSeeTheirOwnActivationsNewestFirst(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = try await store.createVendor(name: "A", category: "boucherie", neighbourhood: "usto", now: 1_000)
            let b = try await store.createVendor(name: "B", category: "pressing", neighbourhood: "usto", now: 1_000)
            let member = try await store.createMember(Sample.draft(), now: 1_000).member
            let old = try await activate(store, member: member, vendor: a, months: 1, now: 10_000)
            _ = try await activate(store, member: member, vendor: b, months: 1, now: 10_500)
            let new = try await activate(store, member: member, vendor: a, months: 1, now: 11_000)
            #expect(try await store.activations(vendorID: a.id, limit: 10).map(\.id) == [new.period.id, old.period.id])
            #expect(try await store.activations(vendorID: nil, limit: 10).count == 3)
            #expect(try await store.activations(vendorID: nil, limit: 2).count == 2)
        }
    }

    @Test(arguments: StoreKind.available)
    func credentialsAreFoundByTheirHashOnly(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let vendor = try await store.createVendor(name: "A", category: "boucherie", neighbourhood: "usto", now: 1_000)
            let credential = APICredential(id: UUID(), role: .vendor, vendorID: vendor.id, secretHash: "abc123", label: "till 1", createdAt: 5)
            try await store.saveCredential(credential)
            #expect(try await store.credential(secretHash: "abc123") == credential)
            #expect(try await store.credential(secretHash: "abc124") == nil)
            #expect(try await store.vendor(id: vendor.id) == vendor)
        }
    }

    @Test(arguments: StoreKind.available)
    func aCardIsMintedOnceAndReissuedOnlyWhenWhatItShowsChanges(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let desk = try SaleDesk(store: store)
            let now = Sample.january31
            let first = try await desk.currentCard(member, now: now)
            #expect(first.expiresAt == now, "no paid time: the card expires as it is issued")
            #expect(try await desk.currentCard(member, now: now + 1_000) == first)

            let sale = try await desk.sell(member, vendor: vendor, months: 1, now: now + 2_000)
            #expect(try await desk.currentCard(member, now: now + 3_000).token == sale.card.token)

            _ = try await store.updateMember(uuid: member.uuid, patch: MemberPatch(language: .ar), now: now + 4_000)
            #expect(try await store.card(memberUUID: member.uuid)?.token == sale.card.token, "the language is not on the card")
            _ = try await store.updateMember(uuid: member.uuid, patch: MemberPatch(name: "Amina Benali"), now: now + 4_000)
            #expect(try await store.card(memberUUID: member.uuid) == nil, "the name is on the card")
            let renamed = try await desk.currentCard(member, now: now + 5_000)
            let claims = CardVerifier(trustedKeys: desk.cards.keyRing.trustedKeys).verify(renamed.token, now: now + 5_000).claims
            #expect(claims?.subject == member.membershipID && claims?.name == "Amina Benali")
            #expect(renamed.issuedAt == now + 5_000 && renamed.expiresAt == sale.coverageEnd)
            await #expect(throws: MembershipError(.notFound, "")) { try await desk.cards.currentCard(memberUUID: UUID()) }
        }
    }

    @Test(arguments: StoreKind.available)
    func aCardMadeForAnOlderVersionIsNeitherServedNorSavedOverANewerOne(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let desk = try SaleDesk(store: store)
            let before = try #require(try await store.cardBasis(memberUUID: member.uuid))  // version 0
            let sale = try await desk.sell(member, vendor: vendor, months: 1, now: 4_000)  // version 1
            // A read that began before the sale signed a card for version 0 and saves it late.
            let late = SQLMembershipStore.saveCard(try desk.cards.sign(from: before.head, coverageEnd: nil, now: 3_000), version: 0)
            _ = try await store.database.writeStatement(late.sql, late.binds)
            #expect(try await store.card(memberUUID: member.uuid) == sale.card)
            // After a cancellation (version 2) deletes the card, a late save for version 1 is stored but not served.
            _ = try await store.cancelPeriod(id: sale.period.id, now: 5_000)
            let stale = SQLMembershipStore.saveCard(sale.card, version: 1)
            _ = try await store.database.writeStatement(stale.sql, stale.binds)
            #expect(try await store.card(memberUUID: member.uuid) == nil)
            let fresh = try await desk.currentCard(member, now: 6_000)
            #expect(fresh.coverageEnd == nil && fresh.issuedAt == 6_000)
        }
    }

    @Test(arguments: StoreKind.available)
    func aCancellationRacingSalesLeavesOneContiguousSchedule(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let now = Sample.january31
            let mistaken = try await activate(store, member: member, vendor: vendor, months: 3, now: now)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { _ = try await activate(store, member: member, vendor: vendor, months: 1, now: now + 60) } }
                group.addTask { _ = try await store.cancelPeriod(id: mistaken.period.id, now: now + 60) }
                try await group.waitForAll()
            }
            let periods = try await store.periods(memberUUID: member.uuid)
            let live = periods.filter { $0.cancelledAt == nil }
            #expect(periods.count == 9 && live.count == 8)
            #expect(live.first?.startsAt == now + 60, "the cancelled months are given back to the sales after them")
            for (previous, next) in zip(live, live.dropFirst()) { #expect(next.startsAt == previous.endsAt) }
            let card = try await SaleDesk(store: store).currentCard(member, now: now + 120)
            #expect(card.coverageEnd == live.last?.endsAt, "the stored card shows the final coverage")
        }
    }
}

/// A ledger written before member versions existed keeps working after the upgrade.
@Suite("Upgrading a ledger")
struct LedgerUpgradeTests {
    @Test(arguments: StoreKind.available)
    func aLedgerFromBeforeMemberVersionsIsCarriedOver(kind: StoreKind) async throws {
        try await kind.withDatabase { database in
            // The schema and data as the first release left them.
            let member = "00000000-0000-4000-8000-00000000000A"  // as the store writes uuids: upper case
            try await database.write { db in
                for statement in Migrations.all(database.dialect)[0].statements { try await db.execute(statement) }
                try await db.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
                try await db.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('001_ledger', 1)")
                try await db.execute(
                    "INSERT INTO members (uuid, membership_id, name, phone, email, neighbourhood, language, created_at) VALUES (?, 'PEEZ-20260131-00001', 'Ahmed', '+213550000001', 'a@example.dz', 'usto', 'fr', 1)",
                    [.text(member)]
                )
                for (seq, ends, cancelled) in [(1, 5_000, nil), (2, 9_000, nil), (3, 12_000, Optional(8_000))] as [(Int64, Int64, Int64?)] {
                    try await db.execute(
                        "INSERT INTO periods (id, member_uuid, seq, months, amount_dzd, source, purchased_at, starts_at, ends_at, cancelled_at) VALUES (?, ?, ?, 1, 300, 'vendor', 1, 1, ?, ?)",
                        [.text(UUID().uuidString), .text(member), .int(seq), .int(ends), cancelled.map(SQLValue.int) ?? .null]
                    )
                }
                try await db.execute(
                    "INSERT INTO cards (member_uuid, token_id, token, png, issued_at, expires_at, coverage_end) VALUES (?, 'aa', 'PEEZ1:OLD', ?, 2, 9000, 9000)",
                    [.text(member), .blob([1])]
                )
            }
            let store = try await SQLMembershipStore(database: database, now: Sample.migratedAt)
            let card = try #require(try await store.card(memberUUID: UUID(uuidString: member)!), "the stored card is still current")
            #expect(card.token == "PEEZ1:OLD")
            let vendor = try await store.createVendor(name: "A", category: "boucherie", neighbourhood: "usto", now: 1_000)
            let sale = try await activate(
                store,
                member: try #require(try await store.member(uuid: UUID(uuidString: member)!)),
                vendor: vendor,
                months: 1,
                now: 100
            )
            #expect(sale.period.startsAt == 9_000, "the sale follows the coverage carried over (a cancelled period takes no room)")
            #expect(try await store.periods(memberUUID: sale.member.uuid).last?.id == sale.period.id, "and takes the next seq")
        }
    }
}

/// One vendor activation with a fresh idempotency key, through the service's sale use case.
@discardableResult
func activate(_ store: SQLMembershipStore, member: Member, vendor: Vendor, months: Int, now: Int64) async throws -> SaleResult {
    try await SaleDesk(store: store).sell(member, vendor: vendor, months: months, now: now)
}
