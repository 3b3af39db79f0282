public import Foundation
public import Membership

/// The body of `POST /v1/counter/scans`: a counter's id and its log's new entries.
public struct ScanReport: Codable, Sendable, Equatable {
    public var counterID: UUID
    public var entries: [ScanLogEntry]

    enum CodingKeys: String, CodingKey {
        case counterID = "counter_id"
        case entries
    }

    public init(counterID: UUID, entries: [ScanLogEntry]) {
        self.counterID = counterID
        self.entries = entries
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(counterID.lowercasedText, forKey: .counterID)
        try container.encode(entries, forKey: .entries)
    }
}

/// The service's answer to a scan report.
public struct ScanReportAnswer: Codable, Sendable, Equatable {
    /// An entry refused for good, by its number, and why.
    public struct Refusal: Codable, Sendable, Equatable {
        public var seq: Int
        public var reason: String

        public init(seq: Int, reason: String) {
            self.seq = seq
            self.reason = reason
        }
    }

    /// Entries in the report.
    public var received: Int
    /// Entries stored now.
    public var stored: Int
    /// Entries stored by an earlier report (a retry).
    public var alreadyStored: Int
    /// Entries refused for good: sending them again changes nothing, so the counter moves past them.
    public var refused: [Refusal]

    enum CodingKeys: String, CodingKey {
        case received, stored, refused
        case alreadyStored = "already_stored"
    }

    public init(received: Int, stored: Int, alreadyStored: Int, refused: [Refusal]) {
        self.received = received
        self.stored = stored
        self.alreadyStored = alreadyStored
        self.refused = refused
    }
}
