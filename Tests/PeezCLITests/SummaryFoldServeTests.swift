import Foundation
import TestSupport
import Testing

/// Sales append their changes to the console's summaries; each `peez serve` folds them into the days' rows within
/// seconds. Two instances selling one shop's day at once, and folding at once, count every sale once.
@Suite("Summaries folded by peez serve")
struct SummaryFoldServeTests {
    static let backend = "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
    static let vendor = "peez_vendor_DEVELOPMENT_ONLY_not_a_secret"

    @Test func twoInstancesSellingOneShopsDayFoldEverySaleOnce() async throws {
        let postgres = try await onOwnThread { try PostgresServer() }
        defer { postgres.remove() }
        try await onOwnThread { try postgres.start() }
        let arguments = ["--development", "--database-url", postgres.url, "--database-connections", "8"]
        let first = try ServiceProcess(arguments: arguments, port: TestPorts.unused())
        defer { first.killHard() }
        try await first.waitUntilReady()
        let second = try ServiceProcess(arguments: arguments, port: TestPorts.unused())
        defer { second.killHard() }
        try await second.waitUntilReady()

        var membershipIDs: [String] = []
        for index in 0..<6 {
            let created = try await first.request(
                "POST",
                "/v1/members",
                secret: Self.backend,
                json: [
                    "uuid": UUID().uuidString.lowercased(), "name": "Fold \(index)", "phone": "+21366100000\(index)",
                    "email": "fold\(index)@example.dz", "neighbourhood": "usto",
                ]
            )
            membershipIDs.append(try #require(created.body["membership_id"] as? String, "\(created.body)"))
        }
        let (instances, members) = ([first, second], membershipIDs)
        let sold = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<90 {
                group.addTask {
                    let months = 1 + index % 3
                    return try await instances[index % 2].request(
                        "POST",
                        "/v1/activations",
                        secret: Self.vendor,
                        json: ["membership_id": members[index % members.count], "months": months, "amount_dzd": 300 * months],
                        headers: ["Idempotency-Key": UUID().uuidString]
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(sold.allSatisfy { $0 == 201 }, "\(sold)")

        // Folded within seconds by the instances, each change once: the days' rows alone say what the ledger says.
        var unfolded = ""
        for _ in 0..<100 {
            unfolded = try postgres.psql("SELECT (SELECT count(*) FROM sales_day_changes) + (SELECT count(*) FROM coverage_day_changes)")
            if unfolded.trimmingCharacters(in: .whitespacesAndNewlines) == "0" { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(unfolded.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "changes left unfolded: \(unfolded)")
        let folded = try postgres.psql("SELECT sum(sales), sum(months), sum(amount_dzd) FROM sales_days")
        let ledger = try postgres.psql("SELECT count(*), sum(months), sum(amount_dzd) FROM periods WHERE cancelled_at IS NULL")
        #expect(folded == ledger, "summaries \(folded) ledger \(ledger)")
        let ending = try postgres.psql("SELECT sum(ending) FROM coverage_days")
        let covered = try postgres.psql("SELECT count(*) FROM members WHERE coverage_end IS NOT NULL")
        #expect(ending == covered, "ends of paid time \(ending), members with one \(covered)")
    }
}
