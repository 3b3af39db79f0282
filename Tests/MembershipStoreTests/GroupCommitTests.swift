import MembershipSQL
import Testing

/// Group commit (``GroupCommit``), as both drivers' `writeBatch` does it: batches written at once share
/// transactions, yet each is answered for itself.
@Suite("Group commit")
struct GroupCommitTests {
    @Test(arguments: StoreKind.available)
    func batchesWrittenAtOnceAreEachCommittedOnceAndOneThatFailsFailsAlone(store: StoreKind) async throws {
        try await store.withDatabase { database in
            // 200 batches of two rows at once; every tenth collides with a row written before (its own negative
            // key) and must leave nothing behind, while the batches around it (in the same transaction) commit whole.
            try await database.write { db in
                try await db.execute("CREATE TABLE scratch (k BIGINT PRIMARY KEY, v TEXT NOT NULL)")
                for index in stride(from: 9, to: 200, by: 10) {
                    try await db.execute("INSERT INTO scratch (k, v) VALUES (?, 'before')", [.int(-Int64(index))])
                }
            }
            let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let first: Int64 = index % 10 == 9 ? -Int64(index) : Int64(index) * 2
                        do {
                            try await database.writeBatch([
                                SQLStatement("INSERT INTO scratch (k, v) VALUES (?, ?)", [.int(Int64(index) * 2 + 1), .text("second \(index)")]),
                                SQLStatement("INSERT INTO scratch (k, v) VALUES (?, ?)", [.int(first), .text("first \(index)")]),
                            ])
                            return (index, true)
                        } catch let error as SQLError where error.code == .uniqueViolation {
                            return (index, false)
                        }
                    }
                }
                return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            let rows = try await database.read { db in try await db.query("SELECT k FROM scratch ORDER BY k", []) }
            let keys = Set(try rows.map { try $0.int("k") })
            for (index, committed) in outcomes {
                let second = Int64(index) * 2 + 1
                var own: Set<Int64> = [second]
                if index % 10 != 9 { own.insert(Int64(index) * 2) }
                if committed {
                    #expect(own.isSubset(of: keys), "batch \(index) was answered as committed")
                } else {
                    #expect(index % 10 == 9 && !keys.contains(second), "batch \(index) failed and left nothing")
                }
            }
            #expect(outcomes.values.filter { $0 }.count == 180, "every batch without a collision committed")
        }
    }

    @Test func batchesWaitingWhenACommitStartsShareItWithinTheBoundsAndTheirResultsGoToEach() async throws {
        let queue = GroupCommit(maxBatches: 40, maxBinds: 70)
        let batches = (0..<100).map { index in queue.enqueue([SQLStatement("INSERT ?", [.int(Int64(index))])]) }
        var groups: [[Int64]] = []
        // The first batch's caller commits every group up to its own; the last one's finds the rest.
        let first = await queue.commitUntilSettled(batches[0]) { group in
            groups.append(group.map { batch in if case .int(let value) = batch[0].binds[0] { value } else { -1 } })
            return group.map { batch in batch[0].binds[0] == .int(7) ? .failure(SQLError.uniqueViolation("k")) : .success(()) }
        }
        #expect(groups == [Array(0..<40)], "one group: the 40 oldest batches, the first among them")
        #expect((try? first.get()) != nil)
        let seventh = await queue.commitUntilSettled(batches[7]) { _ in
            Issue.record("batch 7 was settled already")
            return []
        }
        #expect((try? seventh.get()) == nil, "batch 7's own failure reaches batch 7 alone")
        let last = await queue.commitUntilSettled(batches[99]) { group in
            groups.append(group.map { batch in if case .int(let value) = batch[0].binds[0] { value } else { -1 } })
            return group.map { _ in .success(()) }
        }
        #expect((try? last.get()) != nil)
        #expect(groups.dropFirst().map(\.count) == [40, 20], "the rest in order, 40 at most a group")
        #expect(groups.joined().map { $0 } == Array(0..<100))

        let bound = GroupCommit(maxBatches: 40, maxBinds: 5)
        let wide = (0..<4).map { _ in bound.enqueue([SQLStatement("INSERT ?, ?, ?", [.int(1), .int(2), .int(3)])]) }
        var sizes: [Int] = []
        _ = await bound.commitUntilSettled(wide[3]) { group in
            sizes.append(group.count)
            return group.map { _ in .success(()) }
        }
        #expect(sizes == [1, 1, 1, 1], "three binds a batch against a bound of five: one batch a group")
    }

    @Test func aBatchHoldingAClaimAnotherCommittedFailsUnsentAndTwoWithOneClaimNeverShareAGroup() async throws {
        let queue = GroupCommit()
        func batch(_ value: Int64, claim: String) -> GroupCommit.Batch {
            queue.enqueue([
                SQLStatement("INSERT ?", [.int(value)], claim: SQLClaim(key: claim, refusal: .uniqueViolation("member_changes_pkey")))
            ])
        }
        // Two sales of one member read at the same version, and a third of another member: one group takes the
        // first and the third; the second waits for the next group, where it fails without being sent.
        let batches = [batch(1, claim: "m 2"), batch(2, claim: "m 2"), batch(3, claim: "n 2")]
        var sent: [[Int64]] = []
        let last = await queue.commitUntilSettled(batches[2]) { group in
            sent.append(group.map { batch in if case .int(let value) = batch[0].binds[0] { value } else { -1 } })
            return group.map { _ in .success(()) }
        }
        #expect((try? last.get()) != nil && sent == [[1, 3]])
        let second = await queue.commitUntilSettled(batches[1]) { group in
            sent.append(group.map { batch in if case .int(let value) = batch[0].binds[0] { value } else { -1 } })
            return group.map { _ in .success(()) }
        }
        #expect(sent == [[1, 3]], "the second batch of the claim was never sent")
        #expect(throws: SQLError.uniqueViolation("member_changes_pkey")) { try second.get() }
    }
}
