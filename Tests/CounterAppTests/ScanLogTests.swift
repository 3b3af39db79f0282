import CardWire
import CounterApp
import Foundation
import Membership
import TestSupport
import Testing

/// The counter's hash-chained scan log, on real files.
@Suite("Scan log")
struct ScanLogTests {
    /// A counter state synced at `syncedAt`, the service's time then the same.
    static func state(syncedAt: Int64) -> CounterState {
        CounterState(server: "https://cards.example", anchorKeys: [], bundles: [], newestServerTime: syncedAt, lastSyncAt: syncedAt)
    }

    static func filledLog(_ folder: TemporaryFolder, count: Int = 5) throws -> ScanLog {
        let log = ScanLog(path: folder.file("scans.log"))
        for index in 1...count {
            try log.append(
                deviceTime: 1_800_000_000 + Int64(index),
                verdict: index == 3 ? "revoked" : "valid",
                member: "PEEZ-20251103-0000\(index)",
                tokenID: String(repeating: "a", count: 15) + String(index),
                offline: true,
                state: Self.state(syncedAt: 1_800_000_000 - 3_600)
            )
        }
        return log
    }

    @Test func aClockSetBackIsLoggedAsAWrongClockNotANegativeAgeAndTheServiceRulesAcceptIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = ScanLog(path: folder.file("scans.log"))
        let synced: Int64 = 1_800_000_000
        let setBack = try log.append(
            deviceTime: synced - 86_400,
            verdict: "cannot_confirm",
            member: nil,
            tokenID: nil,
            offline: true,
            state: Self.state(syncedAt: synced)
        )
        #expect(setBack.clockWrong && setBack.trustAge == 0 && setBack.at == synced - 86_400)
        let in1970 = try log.append(
            deviceTime: 5,
            verdict: "cannot_confirm",
            member: nil,
            tokenID: nil,
            offline: true,
            state: Self.state(syncedAt: synced)
        )
        #expect(in1970.clockWrong && in1970.at == synced, "a reading outside any real time is replaced by the service time last seen")
        let right = try log.append(
            deviceTime: synced + 60,
            verdict: "valid",
            member: nil,
            tokenID: nil,
            offline: true,
            state: Self.state(syncedAt: synced)
        )
        #expect(!right.clockWrong && right.trustAge == 60)
        for entry in try log.read().entries {
            #expect(entry.problems.isEmpty, "the counter never logs what the service's rules refuse: \(entry)")
        }
    }

    @Test func theSharedRulesNameEachBadValueAndRefuseATimeFarAheadOfTheService() {
        let entry = ScanLog.Entry(
            seq: 0,
            at: 9_223_372_036_854_775_807,
            verdict: "maybe",
            member: "PEEZ-1",
            tokenID: "ABC",
            offline: true,
            trustAge: -1
        )
        #expect(Set(entry.problems.keys) == ["seq", "at", "verdict", "member", "token_id", "trust_age"])
        let ahead = ScanLog.Entry(seq: 1, at: 1_800_000_000 + 86_401, verdict: "valid", member: nil, tokenID: nil, offline: true, trustAge: 0)
        #expect(ahead.problems.isEmpty && ahead.refusal(serviceNow: 1_800_000_000) != nil)
        #expect(ahead.refusal(serviceNow: 1_800_000_001) == nil, "a day ahead is still taken")
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
        guard case .broken(let line, _) = try log.read().integrity else {
            Issue.record("\(change) was not found")
            return
        }
        #expect(line == (change == "cut off the end" ? 5 : change == "swapped" ? 2 : 3))
    }

    @Test func theCSVExportQuotesWhatNeedsIt() throws {
        let csv = ScanLog.csv([
            ScanLog.Entry(seq: 1, at: 1_800_000_000, verdict: "valid", member: "PEEZ,\"odd\"", tokenID: nil, offline: true, trustAge: 60)
        ])
        #expect(
            csv
                == "seq,time,verdict,member,token_id,offline,trust_age_seconds,clock_wrong,presented_at\r\n1,2027-01-15T09:00:00+01:00,valid,\"PEEZ,\"\"odd\"\"\",,yes,60,no,\r\n"
        )
    }
}

/// What the counter shows, filled from its texts.
@Suite("Counter texts")
struct CounterTextsTests {
    @Test func aValueThatLooksLikeAPlaceholderIsShownAsWrittenNotFilledIn() {
        let texts = CounterTexts(.en)
        let line = texts.text("member", ["name": "{membership_id} {name}", "membership_id": "PEEZ-20251103-00001"])
        #expect(line == "{membership_id} {name}  ·  PEEZ-20251103-00001")
        #expect(texts.text("member", [:]) == "{name}  ·  {membership_id}", "a placeholder without a value stays as it is")
    }
}

/// The cash-sale journal: nothing written is ever dropped silently.
@Suite("Sale journal")
struct SaleJournalTests {
    @Test func onlyATornLastLineIsPassedOverAndADamagedMiddleLineStopsWithItsNumber() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let journal = SaleJournal(path: folder.file("sales.journal"))
        let first = try journal.begin(membershipID: "PEEZ-20251103-00001", name: "A", months: 1, amountDZD: 300, now: 1_000)
        _ = try journal.begin(membershipID: "PEEZ-20251103-00002", name: "B", months: 2, amountDZD: 600, now: 1_001)
        // A kill in mid-write leaves half a line with no line end: passed over.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"event":"confirmed","ke"#.utf8))
        try handle.close()
        #expect(try journal.pending().count == 2)
        // A damaged line in the middle is a sale that would be forgotten: an error naming the line, the file kept.
        var text = try String(contentsOfFile: journal.path, encoding: .utf8)
        text = text.replacingOccurrences(of: first.key, with: "\u{0}broken")
        text = text.replacingOccurrences(of: #"{"amount_dzd":300"#, with: #"{"amount_dzd":"#)
        try text.write(toFile: journal.path, atomically: true, encoding: .utf8)
        do {
            _ = try journal.records()
            Issue.record("a damaged middle line was passed over")
        } catch let error as CounterStoreError {
            #expect(error.description.contains("line 1") && error.description.contains("sale journal"), "\(error)")
        }
        #expect(try String(contentsOfFile: journal.path, encoding: .utf8) == text, "the file is left as it is")
    }
}

/// The counter's own identity: made once, and a damaged one is an error, never silently a new till.
@Suite("Counter identity")
struct CounterIdentityTests {
    @Test func aDamagedCounterIDIsAnErrorNotANewTill() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = CounterStore(folder: folder.path)
        let id = try store.counterID()
        #expect(try store.counterID() == id, "made once, then kept")
        try "not-a-uuid\n".write(toFile: folder.file("counter-id"), atomically: true, encoding: .utf8)
        #expect(throws: CounterStoreError.self, "a new id would report every scan again as another till's") { try store.counterID() }
    }
}
