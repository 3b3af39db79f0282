public import Membership

// The console API's answers, as the page reads them (Docs/console.md): times in Unix seconds, days as
// `YYYY-MM-DD` in Algiers, each chart a whole SVG document.

/// A one-time sign-in link to the console.
public struct ConsoleLinkBody: Codable, Sendable {
    public var link: String
    public var expires_at: Int64

    public init(link: String, expires_at: Int64) {
        self.link = link
        self.expires_at = expires_at
    }
}

/// Who is signed in, until when.
public struct ConsoleSessionBody: Codable, Sendable {
    public var actor: String
    public var expires_at: Int64

    public init(actor: String, expires_at: Int64) {
        self.actor = actor
        self.expires_at = expires_at
    }
}

public struct SalesPanelBody: Codable, Sendable {
    public struct Figures: Codable, Sendable {
        public var sales: Int64
        public var months: Int64
        public var amount_dzd: Int64
        public var cancelled: Int64
    }
    public struct Shop: Codable, Sendable {
        /// Absent for sales in the app.
        public var vendor_id: String?
        public var name: String
        public var sales: Int64
        public var months: Int64
        public var amount_dzd: Int64
        public var cancelled: Int64
    }
    public var from: String
    public var to: String
    public var total: Figures
    public var shops: [Shop]
    public var chart: String
}

public struct RenewalsPanelBody: Codable, Sendable {
    public var from: String
    public var to: String
    /// Members whose paid time ended in the range (up to today), and of them those who paid again.
    public var due: Int64
    public var renewed: Int64
    /// renewed / due; absent when nobody was due.
    public var rate: Double?
    /// The members whose paid time ends in the 7 and 30 days from `ahead_from` (the range's last day, or today
    /// if that is later than today), as the ledger stands now; the chart draws those 30 days.
    public var ahead_from: String
    public var ending_7: Int64
    public var ending_30: Int64
    public var chart: String
}

public struct AnomaliesPanelBody: Codable, Sendable {
    public struct Sighting: Codable, Sendable {
        public var vendor_id: String
        public var vendor_name: String
        public var counter_id: String
        public var scanned_at: Int64
    }
    public struct Card: Codable, Sendable {
        public var token_id: String
        public var membership_id: String?
        public var member_uuid: String?
        public var member_name: String?
        public var seconds_apart: Int64
        /// Whether the member's cards were revoked after the two sightings.
        public var cards_revoked: Bool
        public var earlier: Sighting
        public var later: Sighting
    }
    /// The range of days the later scans are in.
    public var from: String
    public var to: String
    public var within_seconds: Int64
    public var cards: [Card]
}

public struct OutcomeCountBody: Codable, Sendable {
    public var channel: String?
    public var platform: String?
    public var outcome: String
    public var count: Int64
}

public struct RemindersPanelBody: Codable, Sendable {
    public struct Outbox: Codable, Sendable {
        public var channel: String
        public var waiting: Int64
        public var oldest_due_at: Int64?
    }
    public var from: String
    public var to: String
    public var by_outcome: [OutcomeCountBody]
    public var outbox: [Outbox]
    public var chart: String
}

public struct WalletPanelBody: Codable, Sendable {
    public var from: String
    public var to: String
    public var apple_passes: Int64
    public var apple_devices: Int64
    public var google_objects: Int64
    public var outbox_waiting: Int64
    public var pushes: [OutcomeCountBody]
    public var chart: String
}

public struct CountersPanelBody: Codable, Sendable {
    public struct Device: Codable, Sendable {
        public var credential_id: String
        public var label: String
        public var vendor_id: String
        public var vendor_name: String
        public var created_at: Int64
        public var last_used_at: Int64?
        /// Its last sync, if it was at or before the range's end.
        public var last_sync_at: Int64?
        /// Whether it synced after the range's end (its last sync before then is not known any more).
        public var synced_since: Bool
        /// How old the device's trust data was at `now`: since its last sync.
        public var trust_age_seconds: Int64?
        /// When it was revoked, if by the range's end.
        public var revoked_at: Int64?
        public var expires_at: Int64?
    }
    /// The moment the devices are shown as of: now, or the range's end when that is earlier.
    public var now: Int64
    /// Whether `now` is the present (a range that ends today): the devices can be acted on.
    public var live: Bool
    public var devices: [Device]
}

public struct MemberListBody: Codable, Sendable {
    public struct Member: Codable, Sendable {
        public var uuid: String
        public var membership_id: String
        public var name: String
        public var phone: String
        public var neighbourhood: String
        /// The neighbourhood's names, `fr` and `ar` (absent for an identifier the service does not know).
        public var neighbourhood_names: [String: String]?
        public var paid_until: Int64?
    }
    public var members: [Member]
}

/// A neighbourhood's names as the console bodies carry them.
func neighbourhoodNames(_ id: String) -> [String: String]? {
    Oran.neighbourhood(id).map { ["fr": $0.fr, "ar": $0.ar] }
}

public struct MemberPanelBody: Codable, Sendable {
    public struct Facts: Codable, Sendable {
        public var uuid: String
        public var membership_id: String
        public var name: String
        public var phone: String
        public var email: String
        public var neighbourhood: String
        /// The neighbourhood's names, `fr` and `ar` (absent for an identifier the service does not know).
        public var neighbourhood_names: [String: String]?
        public var language: String
        public var created_at: Int64
        public var paid_until: Int64?
        public var device_bound: Bool
        /// Cards issued before this time are revoked; 0: none is.
        public var cards_valid_from: Int64
    }
    public struct Event: Codable, Sendable {
        public var at: Int64
        /// joined, sale, cancellation, cards_revoked, device_key, apple_pass, google_pass, scan
        public var kind: String
        public var detail: String
    }
    public var member: Facts
    public var events: [Event]
    public var chart: String
}

public struct RevokedCardsBody: Codable, Sendable {
    public var member_uuid: String
    public var revoked_before: Int64
}

/// The audit trail over a range of days: its newest entries, newest first.
public struct ConsoleAuditBody: Codable, Sendable {
    public struct Entry: Codable, Sendable {
        public var seq: Int64
        public var at: Int64
        public var actor: String
        public var address: String
        public var action: String
        public var target: String
        /// In English, as the command line shows it.
        public var detail: String
        /// The detail's facts one by one (`role`, `label`, `grace_seconds`, …), for the console to say in its
        /// reader's language: empty when the action says it all; absent for entries written before they were kept.
        public var values: [AuditValue]?
    }
    public var from: String
    public var to: String
    public var entries: [Entry]
}
