import Foundation
import TestSupport
import Testing

/// `peez admin`'s commands for the shops' cash, on a seeded ledger: balances listed (past the team's limit), a remittance recorded once
/// however often its command is run with its key, a correction reversed once, a month's statements for every shop in one command, and a
/// journal hledger loads.
@Suite("Shops' cash from the command line")
struct ShopAccountCommandTests {
    @Test func theTeamRecordsARemittanceOnceAndWritesEveryShopsStatement() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ledger = folder.file("ledger.sqlite")
        let seeded = try await PeezCommand.run(["dev", "seed", "--members", "60", "--shops", "3", "--database", ledger])
        #expect(seeded.status == 0, "\(seeded.standardError)")
        let balances = try await PeezCommand.run(["admin", "balances", "--limit-dzd", "0", "--database", ledger])
        #expect(balances.status == 0, "\(balances.standardError)")
        let lines = balances.standardOutput.split(separator: "\n")
        #expect(lines.count == 3 && lines.allSatisfy { $0.contains(" owes ") && $0.hasSuffix("OVER LIMIT") }, "\(balances.standardOutput)")
        let shop = String(try #require(lines.first?.split(separator: " ").first))
        // The team's limit, kept in the ledger, marks the list without an option; --none takes it away.
        let limited = try await PeezCommand.run(["admin", "balance-limit", "--dzd", "0", "--database", ledger])
        #expect(limited.standardOutput.contains("more than 0 DZD"), "\(limited.standardOutput)\(limited.standardError)")
        let marked = try await PeezCommand.run(["admin", "balances", "--database", ledger])
        #expect(marked.standardOutput == balances.standardOutput, "\(marked.standardOutput)")
        let unlimited = try await PeezCommand.run(["admin", "balance-limit", "--none", "--database", ledger])
        #expect(unlimited.standardOutput.contains("no balance limit"), "\(unlimited.standardOutput)")
        let owed = try #require(Int(lines[0].split(separator: " ").drop { $0 != "owes" }.dropFirst().first ?? ""))

        let remit = [
            "admin", "remit", "--vendor", shop, "--amount", "300", "--method", "cash", "--received-by", "Karim", "--key", "k-1", "--database", ledger,
        ]
        let first = try await PeezCommand.run(remit)
        let again = try await PeezCommand.run(remit)
        #expect(first.status == 0 && again.status == 0, "\(first.standardError) \(again.standardError)")
        #expect(first.standardOutput == again.standardOutput && again.standardError.contains("nothing more was recorded"))
        let tooMuch = try await PeezCommand.run([
            "admin", "remit", "--vendor", shop, "--amount", String(owed), "--method", "ccp", "--received-by", "K", "--database", ledger,
        ])
        #expect(tooMuch.status != 0 && tooMuch.standardError.contains("more than"), "\(tooMuch.standardError)")
        let after = try await PeezCommand.run(["admin", "balances", "--database", ledger])
        #expect(after.standardOutput.contains("\(shop)") && after.standardOutput.contains("owes \(owed - 300) DZD"), "\(after.standardOutput)")

        // A correction, then its reversal naming it: the balance is back where it was, and an entry is reversed once.
        let adjusted = try await PeezCommand.run([
            "admin", "adjust", "--vendor", shop, "--amount", "-100", "--reason", "counted twice", "--database", ledger,
        ])
        #expect(adjusted.status == 0 && adjusted.standardOutput.contains("adjustment  -100 DZD  counted twice"), "\(adjusted.standardOutput)")
        let entry = try #require(adjusted.standardOutput.split(separator: " ").dropFirst().first.map(String.init))
        let reverse = ["admin", "reverse", "--vendor", shop, "--entry", entry, "--reason", "wrong shop", "--database", ledger]
        let reversed = try await PeezCommand.run(reverse)
        #expect(reversed.status == 0 && reversed.standardOutput.contains("reverses entry \(entry)"), "\(reversed.standardOutput)")
        let twice = try await PeezCommand.run(reverse)
        #expect(twice.status != 0 && twice.standardError.contains("reversed already"), "\(twice.standardError)")
        let restored = try await PeezCommand.run(["admin", "balances", "--database", ledger])
        #expect(restored.standardOutput.contains("owes \(owed - 300) DZD"), "\(restored.standardOutput)")

        let month = AlgiersMonth.current
        let journal = folder.file("shop.journal")
        let written = try await PeezCommand.run([
            "admin", "statement", "--vendor", shop, "--month", month, "--format", "hledger", "--output", journal, "--database", ledger,
        ])
        #expect(written.status == 0, "\(written.standardError)")
        let loaded = try await ProcessRunner.run(["hledger", "-f", journal, "balance", "--flat", "--no-total", "cash"])
        #expect(loaded.status == 0 && loaded.standardOutput.contains("300 DZD"), "\(loaded.standardOutput) \(loaded.standardError)")
        let statements = try await PeezCommand.run([
            "admin", "statements", "--month", month, "--format", "pdf", "--lang", "fr", "--folder", folder.file("out"), "--database", ledger,
        ])
        #expect(statements.status == 0 && statements.standardError.contains("3 statement(s) written"), "\(statements.standardError)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.file("out")).sorted()
        #expect(files.count == 3 && files.allSatisfy { $0.hasSuffix(".pdf") && $0.hasPrefix("peez-statement-") }, "\(files)")

        let commission = try await PeezCommand.run([
            "admin", "commission", "--vendor", shop, "--from", "2099-01-01", "--percent", "5.5", "--database", ledger,
        ])
        #expect(commission.status == 0 && commission.standardOutput.contains("from 2099-01-01  5.5 % of each sale"), "\(commission.standardOutput)")
        let audit = try await PeezCommand.run(["admin", "audit", "--database", ledger])
        #expect(audit.standardOutput.contains("account.remittance") && audit.standardOutput.contains("account.commission"), "\(audit.standardOutput)")
    }
}

/// This month in Algiers as `YYYY-MM`.
enum AlgiersMonth {
    static var current: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 3600)!
        let parts = calendar.dateComponents([.year, .month], from: Date())
        return String(format: "%04d-%02d", parts.year!, parts.month!)
    }
}
