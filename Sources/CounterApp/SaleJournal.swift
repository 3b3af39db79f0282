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

        enum CodingKeys: String, CodingKey {
            case event, key, at, name, months, reason
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

    /// Records the service's answer for the sale under `key`.
    public func finish(key: String, confirmedWith coverageEnd: String? = nil, refusedBecause reason: String? = nil, now: Int64) throws {
        try append(Record(event: reason == nil ? .confirmed : .refused, key: key, at: now, coverageEnd: coverageEnd, reason: reason))
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

    private func append(_ record: Record) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try ScanLog.appendLine(String(decoding: try encoder.encode(record), as: UTF8.self) + "\n", to: path)
    }
}
