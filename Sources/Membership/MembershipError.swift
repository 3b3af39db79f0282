/// An error of the membership domain: a stable ``code``, a message a person can act on and, for invalid
/// input, each field's problem.
public struct MembershipError: Error, Hashable, CustomStringConvertible, Sendable {
    public let code: Code
    public let message: String
    /// Field name → what is wrong with it, for `invalidFields`.
    public let fields: [String: String]

    public init(_ code: Code, _ message: String, fields: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.fields = fields
    }

    public var description: String {
        fields.isEmpty ? message : message + " " + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
    }

    public static func == (lhs: MembershipError, rhs: MembershipError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A stable error code: an opaque struct over a private enum, so cases can be added later.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Backing: String, Hashable, Sendable {
            case invalidFields = "invalid_fields"
            case notFound = "not_found"
            case conflict
            case idempotencyKeyReused = "idempotency_key_reused"
            case requestInFlight = "request_in_flight"
            case storeUnavailable = "store_unavailable"
        }
        private let backing: Backing
        private init(_ backing: Backing) { self.backing = backing }
        /// The code as it appears in API error bodies.
        public var description: String { backing.rawValue }

        /// One or more fields are invalid; ``MembershipError/fields`` says which and why.
        public static let invalidFields = Code(.invalidFields)
        /// No such member, vendor or period.
        public static let notFound = Code(.notFound)
        /// The change contradicts what is stored (a phone or email already taken, a uuid with other fields).
        public static let conflict = Code(.conflict)
        /// An idempotency key was reused with a different request body.
        public static let idempotencyKeyReused = Code(.idempotencyKeyReused)
        /// A request with the same idempotency key is still being carried out.
        public static let requestInFlight = Code(.requestInFlight)
        /// The ledger's database cannot be used now: it is down or unreachable, no connection came free within a
        /// bounded wait, or the connection was lost before a statement was answered (a write may then have been
        /// recorded or not). Send the request again later; a sale sent again with the same idempotency key is
        /// recorded once.
        public static let storeUnavailable = Code(.storeUnavailable)

        /// Every code there is, for those who must answer each one (the API's status table).
        public static let all: [Code] = [.invalidFields, .notFound, .conflict, .idempotencyKeyReused, .requestInFlight, .storeUnavailable]
    }
}
