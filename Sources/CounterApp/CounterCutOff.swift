import Foundation
public import Membership

/// A counter the service cut off: it refused the counter's own credential (revoked, as for a stolen phone, or
/// replaced and expired: `device_refusals` in `counter-rules.json`), never merely a network that failed. The mark is
/// kept in the counter's folder (`cut-off.json`) before anything else is done; then the counter forgets its
/// credential, its trust data (member names, renewals) and its scan log, keeps only the sales whose cash goes back
/// to the member, and verifies nothing until it is enrolled again with a new code from PEEZ.
public struct CounterCutOff: Codable, Sendable, Equatable, Error, CustomStringConvertible {
    /// When this counter was told, by its own clock.
    public var at: Int64
    /// The refusal's text key: `service.credential_revoked` or `service.credential_expired`.
    public var reason: String
    /// The service's own words, for a support person.
    public var detail: String

    public init(at: Int64, reason: String, detail: String) {
        self.at = at
        self.reason = reason
        self.detail = detail
    }

    /// Whether the credential was replaced (and its grace ended) rather than revoked.
    public var replaced: Bool { reason == "service.credential_expired" }

    public var description: String { "this counter was cut off by the service at \(at) (\(reason)): \(detail)" }
}

extension CounterStore {
    var cutOffPath: String { folder + "/cut-off.json" }

    /// The mark of a cut-off, when the service cut this counter off. A mark that does not read still cuts it off
    /// (dated by its file), so damaging the file never brings a counter back.
    public func cutOff() -> CounterCutOff? {
        guard FileManager.default.fileExists(atPath: cutOffPath) else { return nil }
        if let data = try? Data(contentsOf: URL(fileURLWithPath: cutOffPath)), let mark = try? JSONDecoder().decode(CounterCutOff.self, from: data) {
            return mark
        }
        let changed = (try? FileManager.default.attributesOfItem(atPath: cutOffPath)[.modificationDate] as? Date) ?? Date()
        return CounterCutOff(
            at: Int64(changed.timeIntervalSince1970),
            reason: "service.credential_revoked",
            detail: "the cut-off mark \(cutOffPath) does not read"
        )
    }

    /// Cuts this counter off after `problem`, the service's refusal of its own credential: the mark first (the
    /// first refusal's time stays when one is held), then each sale never answered is sent once more with
    /// `client` (the service refuses it and keeps it for PEEZ's operator: the member to make it right with), then
    /// what a cut-off counter must not keep is forgotten. Returns the mark, to be thrown or shown.
    public func cutOff(after problem: CounterProblem, client: CounterClient?, now: WallClock) async throws -> CounterCutOff {
        precondition(problem.refusesThisDevice, "only the service's refusal of this counter's own credential cuts it off, not \(problem.key)")
        let mark: CounterCutOff
        if let held = cutOff() {
            mark = held
        } else {
            mark = CounterCutOff(at: now(), reason: problem.key, detail: problem.detail)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try Self.replaceDurably(try encoder.encode(mark), at: cutOffPath)
        }
        if let client {
            let seller = CounterSeller(client: client, journal: saleJournal, attempts: 1)
            for sale in (try? saleJournal.pending()) ?? [] { _ = try? await seller.send(sale, now: now) }
        }
        try forget(after: mark, now: now())
        return mark
    }

    /// Forgets what a cut-off counter must not keep: the vendor secret, the state and its bundles (the trust data,
    /// members' names and renewals), the scan log (members seen, which it can no longer report) with its counter
    /// id and report mark, and every sale but those whose cash goes back. Safe to run again: every command on a
    /// cut-off folder runs it first, so a cut-off interrupted half-way (a kill, a full disk) ends there.
    public func forget(after mark: CounterCutOff, now: Int64) throws {
        let log = scanLog
        let paths = [
            secretPath, secretPath + ".new", statePath, previousPath, statePath + ".new", log.path, log.headPath, log.headPath + ".new",
            folder + "/scans.reported", folder + "/scans.reported.new", folder + "/counter-id", folder + "/counter-id.new",
        ]
        for path in paths where FileManager.default.fileExists(atPath: path) {
            try FileManager.default.removeItem(atPath: path)
        }
        Self.syncFolder(folder)
        try saleJournal.closeForCutOff(reason: mark.reason, now: now)
    }

    /// Ends the cut-off of a counter enrolled again (with a new code from PEEZ): called once the new state is saved.
    public func clearCutOff() throws {
        guard FileManager.default.fileExists(atPath: cutOffPath) else { return }
        try FileManager.default.removeItem(atPath: cutOffPath)
        Self.syncFolder(folder)
    }
}
