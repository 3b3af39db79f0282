public import CardWire
import Foundation

/// The counter's journal of cash sales: each sale is written here, with its idempotency key, and flushed to
/// the disk before it is sent; its answer is written when it comes. A process killed at any point leaves the
/// sale either confirmed or pending, never lost and never sent under a second key.
public struct SaleJournal: Sendable {
    /// One line of the journal.
    public struct Record: Codable, Sendable, Equatable {
        public enum Event: String, Codable, Sendable {
            /// Written before the sale is sent.
            case pending
            /// The service recorded the sale (the answer, or a replay of it).
            case confirmed
            /// The service refused the sale; the cash goes back to the member.
            case refused
        }

        public var event: Event
        /// The sale's idempotency key: the same on every attempt.
        public var key: String
        public var at: Int64
        public var membershipID: String?
        public var name: String?
        public var months: Int?
        public var amountDZD: Int?
        /// For a confirmed sale: the member's new coverage end.
        public var coverageEnd: String?
        /// For a refused sale: why.
        public var reason: String?
        /// For a refused sale: why, as the text key the counter words it from (`service.credential_revoked`…), so a
        /// sale refused because this counter's own credential was refused is known as one.
        public var problem: String?

        enum CodingKeys: String, CodingKey {
            case event, key, at, name, months, reason, problem
            case membershipID = "membership_id"
            case amountDZD = "amount_dzd"
            case coverageEnd = "coverage_end"
        }
    }

    /// A sale written as pending and not yet answered.
    public struct PendingSale: Sendable, Equatable {
        public var key: String
        public var membershipID: String
        public var name: String?
        public var months: Int
        public var amountDZD: Int
        public var at: Int64
    }

    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Writes a new sale as pending, under a fresh key, and flushes it before it is sent.
    public func begin(membershipID: String, name: String?, months: Int, amountDZD: Int, now: Int64) throws -> PendingSale {
        let sale = PendingSale(
            key: UUID().uuidString.lowercased(),
            membershipID: membershipID,
            name: name,
            months: months,
            amountDZD: amountDZD,
            at: now
        )
        try append(Record(event: .pending, key: sale.key, at: now, membershipID: membershipID, name: name, months: months, amountDZD: amountDZD))
        return sale
    }

    /// Records the service's answer for the sale under `key`: refused when a `reason` is given (with `problem`, the
    /// refusal's text key), else confirmed.
    public func finish(
        key: String,
        confirmedWith coverageEnd: String? = nil,
        refusedBecause reason: String? = nil,
        problem: String? = nil,
        now: Int64
    ) throws {
        try append(
            Record(event: reason == nil ? .confirmed : .refused, key: key, at: now, coverageEnd: coverageEnd, reason: reason, problem: problem)
        )
    }

    /// Every record, in order. Only a torn last line (a kill in mid-write: no line end after it) is passed over;
    /// any other line that does not read is a cash sale that would be forgotten, so it stops the read with its
    /// line number, and the file is left as it is.
    public func records() throws -> [Record] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var records: [Record] = []
        for (index, line) in lines.enumerated() where !line.isEmpty {
            do {
                records.append(try JSONDecoder().decode(Record.self, from: Data(line)))
            } catch {
                let isTornLastLine = index == lines.count - 1 && bytes.last != UInt8(ascii: "\n")
                guard isTornLastLine else {
                    throw CounterStoreError(
                        "the sale journal \(path) is damaged at line \(index + 1): a cash sale may be lost; keep the file and call the PEEZ team (\(error))"
                    )
                }
            }
        }
        return records
    }

    /// The renewals this counter sold itself, confirmed by the service: known here at once, before any sync brings
    /// them in the trust data (renewed the second after the sale began, by this device's clock; paid until the
    /// answer's end).
    public func ownRenewals() throws -> [RenewalListDocument.Entry] {
        var begun: [String: (membershipID: String, at: Int64)] = [:]
        var renewals: [RenewalListDocument.Entry] = []
        for record in try records() {
            switch record.event {
            case .pending:
                if let membershipID = record.membershipID { begun[record.key] = (membershipID, record.at) }
            case .confirmed:
                guard let sale = begun[record.key], let text = record.coverageEnd, let end = Self.seconds(iso8601: text), end > sale.at + 1 else {
                    continue
                }
                // Any card issued up to the second the sale began is older than it (the sale's own card is no older).
                renewals.append(RenewalListDocument.Entry(membershipID: sale.membershipID, paidUntil: end, renewedAt: sale.at + 1))
            case .refused:
                continue
            }
        }
        return renewals
    }

    /// Seconds since the epoch of an ISO 8601 date-time as the service writes it (with its offset).
    static func seconds(iso8601 text: String) -> Int64? {
        ISO8601DateFormatter().date(from: text).map { Int64($0.timeIntervalSince1970) }
    }

    /// Sales written as pending with no answer recorded, oldest first.
    public func pending() throws -> [PendingSale] {
        let records = try records()
        let answered = Set(records.filter { $0.event != .pending }.map(\.key))
        return records.compactMap { record in
            guard record.event == .pending, !answered.contains(record.key), let membershipID = record.membershipID,
                let months = record.months, let amount = record.amountDZD
            else { return nil }
            return PendingSale(key: record.key, membershipID: membershipID, name: record.name, months: months, amountDZD: amount, at: record.at)
        }
    }

    /// The sales whose cash goes back to the member once the counter is cut off (``CounterCutOff``), oldest first:
    /// those never answered, and those refused because the service refused this counter's own credential.
    public func salesToGiveBack() throws -> [PendingSale] {
        let records = try records()
        var answers: [String: Record] = [:]
        for record in records where record.event != .pending { answers[record.key] = record }
        return records.compactMap { record in
            guard record.event == .pending, let membershipID = record.membershipID, let months = record.months, let amount = record.amountDZD
            else { return nil }
            if let answer = answers[record.key] {
                guard answer.event == .refused, let problem = answer.problem, CounterProblem.deviceRefusals.contains(problem) else { return nil }
            }
            return PendingSale(key: record.key, membershipID: membershipID, name: record.name, months: months, amountDZD: amount, at: record.at)
        }
    }

    /// Closes the journal of a counter cut off for `reason` (a refusal's text key): only the sales to give back
    /// stay, by membership id (no name), each one still unanswered closed as refused for that reason (no
    /// enrolment sends it again: the cash went back), and every other sale leaves, confirmed ones with their
    /// members' names. Rewritten atomically.
    func closeForCutOff(reason: String, now: Int64) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let kept = Set(try salesToGiveBack().map(\.key))
        var closed: Set<String> = []
        var lines: [Record] = []
        for var record in try records() where kept.contains(record.key) {
            // The membership id says whom to make it right with; the member's name leaves with the trust data.
            record.name = nil
            lines.append(record)
            if record.event != .pending { closed.insert(record.key) }
        }
        for key in kept.subtracting(closed).sorted() {
            lines.append(Record(event: .refused, key: key, at: now, reason: "not sent: this counter was cut off", problem: reason))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = try lines.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined()
        try CounterStore.replaceDurably(Data(text.utf8), at: path)
    }

    private func append(_ record: Record) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try ScanLog.appendLine(String(decoding: try encoder.encode(record), as: UTF8.self) + "\n", to: path)
    }
}
