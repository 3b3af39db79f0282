import CardCrypto
import CardToken
import Foundation
public import Membership
import PeezBasics

/// The counter's record of every verdict it gave: when, which member and card (never the whole token), the
/// verdict, and how old the trust data was. Each line is `hash json`, where the hash is SHA-256 over the
/// previous line's hash and this line's JSON, so a line edited, removed or inserted breaks the chain from
/// there on; a head file beside the log holds the last line's hash, so cutting lines off the end shows too.
public struct ScanLog: Sendable {
    /// One verdict, as the log keeps it and the sync reports it.
    public typealias Entry = ScanLogEntry

    /// What checking the chain found.
    public enum Integrity: Equatable, Sendable {
        case intact(entries: Int)
        /// The first line whose hash does not follow (1-based), and why.
        case broken(line: Int, reason: String)
    }

    public let path: String
    var headPath: String { path + ".head" }
    /// Appending and reading take turns within a process (a session's scans and its own syncs), so a reader
    /// never sees a line without the head that counts it.
    private static let turns = NSLock()
    static var genesis: String { CounterRules.shared.scanLogGenesis }

    public init(path: String) {
        self.path = path
    }

    /// Appends one verdict given when the device's clock read `deviceTime`, and flushes it to the disk;
    /// returns the entry as written. The entry is made by ``ScanLogEntry/recorded(seq:deviceTime:verdict:member:tokenID:offline:lastSyncAt:newestServerTime:tolerance:)``,
    /// the rules the service reads it by: a wrong clock is recorded as such.
    @discardableResult
    public func append(
        deviceTime: Int64,
        verdict: String,
        member: String?,
        tokenID: String?,
        presentedAt: Int64? = nil,
        offline: Bool,
        state: CounterState
    ) throws -> Entry {
        Self.turns.lock()
        defer { Self.turns.unlock() }
        let (count, head) = try readHead()
        let entry = Entry.recorded(
            seq: count + 1,
            deviceTime: deviceTime,
            verdict: verdict,
            member: member,
            tokenID: tokenID,
            offline: offline,
            presentedAt: presentedAt,
            lastSyncAt: state.lastSyncAt,
            newestServerTime: state.newestServerTime,
            tolerance: CounterVerdict.clockTolerance
        )
        let json = try Self.encode(entry)
        let hash = Self.link(head, json)
        try Self.appendLine(hash + " " + json + "\n", to: path)
        try CounterStore.writeDurably(Data("\(entry.seq) \(hash)\n".utf8), to: headPath)
        return entry
    }

    /// Every entry, in order, with the chain checked.
    public func read() throws -> (entries: [Entry], integrity: Integrity) {
        Self.turns.lock()
        defer { Self.turns.unlock() }
        guard FileManager.default.fileExists(atPath: path) else { return ([], .intact(entries: 0)) }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var entries: [Entry] = []
        var previous = Self.genesis
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, String(parts[0]) == Self.link(previous, String(parts[1])),
                let entry = try? JSONDecoder().decode(Entry.self, from: Data(parts[1].utf8)), entry.seq == entries.count + 1
            else {
                return (entries, .broken(line: index + 1, reason: "line \(index + 1) was edited, or a line before it was removed or added"))
            }
            entries.append(entry)
            previous = String(parts[0])
        }
        let (count, head) = try readHead()
        guard count == entries.count, head == previous else {
            return (
                entries,
                .broken(
                    line: entries.count + 1,
                    reason: "the log ends at entry \(entries.count) but its head says \(count): lines were cut off the end"
                )
            )
        }
        return (entries, .intact(entries: entries.count))
    }

    /// The entries as CSV (RFC 4180), with a header line.
    public static func csv(_ entries: [Entry]) -> String {
        func field(_ text: String) -> String {
            text.contains(where: { ",\"\r\n".contains($0) }) ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        var out = "seq,time,verdict,member,token_id,offline,trust_age_seconds,clock_wrong,presented_at\r\n"
        for entry in entries {
            out +=
                [
                    String(entry.seq), AlgiersCalendar.iso8601(entry.at), entry.verdict, entry.member ?? "", entry.tokenID ?? "",
                    entry.offline ? "yes" : "no", String(entry.trustAge), entry.clockWrong ? "yes" : "no",
                    entry.presentedAt.map(AlgiersCalendar.iso8601) ?? "",
                ].map(field).joined(separator: ",") + "\r\n"
        }
        return out
    }

    private func readHead() throws -> (count: Int, hash: String) {
        guard FileManager.default.fileExists(atPath: headPath) else { return (0, Self.genesis) }
        let text: String
        do {
            text = try String(contentsOfFile: headPath, encoding: .utf8)
        } catch {
            // Not a new log: starting the chain again would number entries twice.
            throw CounterStoreError("cannot read \(headPath): \(error.localizedDescription)")
        }
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        guard parts.count == 2, let count = Int(parts[0]) else {
            throw CounterStoreError("\(headPath) is damaged; check the log with peez counter log --verify")
        }
        return (count, String(parts[1]))
    }

    static func encode(_ entry: Entry) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(entry), as: UTF8.self)
    }

    static func link(_ previous: String, _ json: String) -> String {
        Hex.encode(SHA256.hash(Array((previous + json).utf8)))
    }

    static func appendLine(_ line: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CounterStoreError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let bytes = Array(line.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fdatasync(descriptor) == 0 else {
            throw CounterStoreError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
