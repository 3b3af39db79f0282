import Foundation
import Membership
import MembershipSQL
import PeezBasics
import Testing

@testable import CardServices

/// A sale's key is completed once, whatever became of its claim: a claim is written without waiting for the
/// disk, so a PostgreSQL crash can lose it while the sale it guards is under way; then a second copy of the
/// request (the network's, or the counter's retry) claims the key again. Each copy sells on its own ledger head,
/// and only the first to commit may record the key: the other writes nothing and is answered as the first was.
/// (A soak run caught a second period for one key after a database crash.)
@Suite("A sale's key completed once")
struct KeyCompletedOnceTests {
    @Test(arguments: StoreKind.available)
    func aSaleUnderAKeyCompletedClosedOrClaimedByAnotherRequestWritesNothing(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let body = SaleDesk.body(member.membershipID, months: 1)
            /// A sale of `body` under `key`, worked out on the member's ledger as it is now.
            func sale(_ key: IdempotencyKey, at now: Int64) async throws -> (SaleRecord, version: Int64) {
                let head = try #require(try await store.ledgerHead(of: .uuid(member.uuid)))
                desk.clock.set(now)
                let record = try desk.cards.sale(
                    months: 1,
                    amountDZD: 300,
                    source: .vendor,
                    vendorID: vendor.id,
                    after: head,
                    key: key,
                    now: now
                )
                return (record, head.version)
            }

            // Completed: the first copy's claim was lost and both sold; the second to commit writes nothing.
            let key = try SaleDesk.key("k", for: body)
            let (first, firstVersion) = try await sale(key, at: 2_000)
            try await store.commitSale(first, expectedVersion: firstVersion)
            let (second, secondVersion) = try await sale(key, at: 2_001)
            await #expect(throws: IdempotencyKeyTaken(key: key)) { try await store.commitSale(second, expectedVersion: secondVersion) }
            #expect(try await store.periods(memberUUID: member.uuid).map(\.id) == [first.period.id])
            #expect(try await store.idempotentRequest(key, now: 2_002, abandonAfter: 60) == .replay(first.response), "the first answer stands")

            // Closed by a refusal (the credential withdrawn) while a copy let through earlier was under way.
            let closed = try SaleDesk.key("closed", for: body)
            #expect(try await store.closeIdempotencyKey(closed, now: 2_010, abandonAfter: 60) == .refused)
            let (afterRefusal, refusalVersion) = try await sale(closed, at: 2_011)
            await #expect(throws: IdempotencyKeyTaken(key: closed)) { try await store.commitSale(afterRefusal, expectedVersion: refusalVersion) }

            // Claimed by another request under the same key (another body) once the first claim was lost.
            let claimedByOther = IdempotencyKey(scope: "vendor-1", key: "reused", requestHash: "another body")
            #expect(try await store.claim(claimedByOther, readingLedgerOf: .uuid(member.uuid), now: 2_020).claimed)
            let (reused, reusedVersion) = try await sale(try SaleDesk.key("reused", for: body), at: 2_021)
            await #expect(throws: IdempotencyKeyTaken.self) { try await store.commitSale(reused, expectedVersion: reusedVersion) }
            #expect(try await store.periods(memberUUID: member.uuid).count == 1, "none of the three was written")

            // A claim lost with nothing else under the key: the sale records it, with its answer.
            let lost = try SaleDesk.key("lost", for: body)
            let (alone, aloneVersion) = try await sale(lost, at: 2_030)
            try await store.commitSale(alone, expectedVersion: aloneVersion)
            #expect(try await store.idempotentRequest(lost, now: 2_031, abandonAfter: 60) == .replay(alone.response))
        }
    }

    @Test(arguments: StoreKind.available)
    func copiesOfOneSaleWhoseClaimsADatabaseCrashKeepsLosingSellOnceAndAreAnsweredAlike(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let body = SaleDesk.body(member.membershipID, months: 2)
            for round in 0..<5 {
                // A crash losing every claim not yet completed, again and again while the copies run.
                let losing = Task {
                    while !Task.isCancelled {
                        try await store.database.writeStatement("DELETE FROM idempotency_keys WHERE state = 'in_flight'", [])
                        await Task.yield()
                    }
                }
                let answers = await withTaskGroup(of: Result<ActivationService.SaleAnswer, any Error>.self) { group in
                    for _ in 0..<12 {
                        group.addTask {
                            do {
                                return .success(try await desk.answer(body, vendor: vendor, now: 3_000 + Int64(round), key: "copy-\(round)"))
                            } catch {
                                return .failure(error)
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                losing.cancel()
                _ = await losing.result
                var told: Set<StoredResponse> = []
                var sold = 0
                for answer in answers {
                    switch answer {
                    case .success(.sold(let stored)):
                        sold += 1
                        told.insert(stored)
                    case .success(.replayed(let stored)): told.insert(stored)
                    case .success(.refused): Issue.record("no refusal was made")
                    case .failure(let error as MembershipError) where error.code == .requestInFlight: break  // asked to send it again
                    case .failure(let error): Issue.record("\(error)")
                    }
                }
                #expect(sold == 1 && told.count == 1, "round \(round): \(sold) sold, \(told.count) different answers")
            }
            #expect(try await store.periods(memberUUID: member.uuid).count == 5, "one period a key")
        }
    }
}
