import Foundation
import PeezServices
import TestSupport
import Testing

/// The counter's hash-chained scan log, on real files.
@Suite("Scan log")
struct ScanLogTests {
    static func filledLog(_ folder: TemporaryFolder, count: Int = 5) throws -> ScanLog {
        let log = ScanLog(path: folder.file("scans.log"))
        for index in 1...count {
            try log.append(at: 1_800_000_000 + Int64(index), verdict: index == 3 ? "revoked" : "valid", member: "PEEZ-20251103-0000\(index)",
                           tokenID: String(repeating: "a", count: 15) + String(index), offline: true, trustAge: 3_600)
        }
        return log
    }

    static func rewrite(_ log: ScanLog, _ change: (inout [String]) -> Void) throws {
        var lines = try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n").map(String.init)
        change(&lines)
        try (lines.joined(separator: "\n") + "\n").write(toFile: log.path, atomically: true, encoding: .utf8)
    }

    @Test func anUntouchedLogReadsWholeAndItsChainHolds() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (entries, integrity) = try Self.filledLog(folder).read()
        #expect(integrity == .intact(entries: 5) && entries.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(entries[2].verdict == "revoked" && entries[2].member == "PEEZ-20251103-00003")
        #expect(!(try String(contentsOfFile: folder.file("scans.log"), encoding: .utf8)).contains("PEEZ1:"), "never a token")
    }

    @Test(arguments: ["edited", "removed", "inserted", "cut off the end", "swapped"])
    func everyChangeToTheLogIsFound(change: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = try Self.filledLog(folder)
        try Self.rewrite(log) { lines in
            switch change {
            case "edited": lines[2] = lines[2].replacingOccurrences(of: "revoked", with: "valid")
            case "removed": lines.remove(at: 2)
            case "inserted": lines.insert(lines[1], at: 2)
            case "swapped": lines.swapAt(1, 2)
            default: lines.removeLast()
            }
        }
        guard case .broken(let line, _) = try log.read().integrity else { Issue.record("\(change) was not found"); return }
        #expect(line == (change == "cut off the end" ? 5 : change == "swapped" ? 2 : 3))
    }

    @Test func theCSVExportQuotesWhatNeedsIt() throws {
        let csv = ScanLog.csv([ScanLog.Entry(seq: 1, at: 1_800_000_000, verdict: "valid", member: "PEEZ,\"odd\"", tokenID: nil, offline: true, trustAge: 60)])
        #expect(csv == "seq,time,verdict,member,token_id,offline,trust_age_seconds\r\n1,2027-01-15T09:00:00+01:00,valid,\"PEEZ,\"\"odd\"\"\",,yes,60\r\n")
    }
}
