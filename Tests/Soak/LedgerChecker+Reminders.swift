import Foundation
import PeezAPI

extension LedgerChecker {
    /// The reminders' outbox, once the last run settled it: every reminder recorded is delivered, each one the
    /// ledger counts delivered was taken by the receiver, every member due at the last run was reminded of their
    /// end, none was sent before it was due (at none of the times the runs acted at), and one is taken again only
    /// after a run was killed while it was in flight (at most the 32 a run sends at once, a kill).
    func checkReminders(_ findings: inout Findings) {
        guard let reminders = final.reminders else { return }
        let runs = history.filter { $0.kind == .remindRun }
        let times = runs.compactMap { $0.value.flatMap(Int64.init) }
        let kills = runs.filter { $0.detail?.hasPrefix("kill") == true }.count
        let open = ["pending", "unknown", "failed", "exhausted"].map { ($0, reminders.states[$0] ?? -1) }
        findings.expect(
            open.allSatisfy { $0.1 == 0 } && runs.last?.outcome == .ok,
            "every reminder recorded is delivered",
            "after the last run (\(runs.last?.detail ?? "none")) the ledger counts \(open.map { "\($0.1) \($0.0)" }.joined(separator: ", "))",
            member: nil
        )
        findings.expect(
            reminders.received.count == reminders.states["delivered"],
            "every reminder delivered was received",
            "the ledger counts \(reminders.states["delivered"] ?? -1) delivered; the receiver took \(reminders.received.count) different ones",
            member: nil
        )
        findings.expect(
            reminders.duplicates <= 32 * kills,
            "a reminder is taken again only after a run was killed sending it",
            "the receiver took \(reminders.duplicates) reminder(s) again; \(kills) run(s) were killed",
            member: nil
        )
        let received = Set(reminders.received)
        let ends = Dictionary(ledger.map { ($0.member_uuid, $0.coverage.ends_at.flatMap(Self.time).map { Int64($0.timeIntervalSince1970) }) }) {
            first,
            _ in first
        }
        if let last = times.last {
            for (member, end) in ends {
                guard let end, let threshold = Self.threshold(end: end, now: last) else { continue }
                let id = "rem_\(member)_\(end)_\(threshold)_push"
                findings.expect(
                    received.contains(id),
                    "every member due is reminded",
                    "reminder \(id), due at \(last), was not received",
                    member: member
                )
            }
        }
        for id in reminders.received {
            let parts = id.split(separator: "_")
            guard parts.count == 5, let end = Int64(parts[2]) else {
                findings.expect(
                    false,
                    "no reminder sent before it was due",
                    "the receiver took \(id), which names no member, end and threshold",
                    member: nil
                )
                continue
            }
            let threshold = String(parts[3])
            findings.expect(
                // A run's clock runs on from the time it acts at: a minute is more than any run here lasts.
                times.contains { Self.threshold(end: end, now: $0) == threshold || Self.threshold(end: end, now: $0 + 60) == threshold },
                "no reminder sent before it was due",
                "reminder \(id) was sent; at none of the times the runs acted at (\(times.sorted())) was its threshold the one due",
                member: String(parts[1])
            )
        }
    }

    /// The reminder due at `now` for a paid time ending at `end`: the most urgent of 1, 3 and 7 days before it
    /// reached, or "ended" within two days after it (the README's rule).
    static func threshold(end: Int64, now: Int64) -> String? {
        let left = end - now
        if left <= 0 { return -left < 2 * 86_400 ? "ended" : nil }
        return [(1, "1d"), (3, "3d"), (7, "7d")].first { left <= Int64($0.0) * 86_400 }?.1
    }
}
