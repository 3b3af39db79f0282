import PeezAPI

extension LedgerChecker {
    /// Every scan a counter reported and was answered for is stored once, as reported, and nothing is stored that
    /// no report sent (a report refused stores nothing of its own).
    func checkScans(_ findings: inout Findings) {
        guard let stored = final.scans else { return }
        let reports = history.filter { $0.kind == .scanReport }
        let counters = Set(reports.compactMap(\.value))
        let ours = stored.filter { counters.contains($0.counter_id) }
        let storedCount = Dictionary(ours.map { ("\($0.counter_id) \($0.seq)", 1) }, uniquingKeysWith: +)
        let storedMember = Dictionary(ours.map { ("\($0.counter_id) \($0.seq)", $0.membership_id ?? "") }, uniquingKeysWith: { first, _ in first })
        var sent: [String: String] = [:]
        for report in reports where report.outcome != .refused {
            for entry in report.entries ?? [] {
                let parts = entry.split(separator: " ")
                sent["\(report.value ?? "") \(parts[0])"] = String(parts[1])
            }
        }
        for report in reports where report.outcome == .ok {
            let refused = Set(report.refusedEntries ?? [])
            for entry in report.entries ?? [] {
                let parts = entry.split(separator: " ")
                guard let seq = Int(parts[0]), !refused.contains(seq) else { continue }
                let key = "\(report.value ?? "") \(seq)"
                findings.expect(
                    storedCount[key] == 1 && storedMember[key] == String(parts[1]),
                    "a scan reported is stored once, as reported",
                    "scan \(seq) of counter \(report.value ?? "") (report \(report.index), \(parts[1])) is stored \(storedCount[key] ?? 0) time(s)"
                        + (storedMember[key].map { " as \($0)" } ?? ""),
                    member: nil
                )
            }
        }
        for (key, count) in storedCount {
            findings.expect(
                count == 1 && sent[key] != nil && sent[key] == storedMember[key],
                "no scan stored that no report sent",
                "scan \(key) is stored \(count) time(s) as \(storedMember[key] ?? ""); the reports sent it as \(sent[key] ?? "nothing")",
                member: nil
            )
        }
    }
}
