/// The one shape of every error the card service answers, `{"error": {"code", "message", "fields"?}}`:
/// written by the server, read by its clients (the counter) and the tests.
public struct ServiceErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        /// A stable code, e.g. `invalid_fields`.
        public var code: String
        /// What went wrong, for a person.
        public var message: String
        /// Field name → its problem, for invalid input.
        public var fields: [String: String]?

        public init(code: String, message: String, fields: [String: String]? = nil) {
            self.code = code
            self.message = message
            self.fields = fields
        }
    }

    public var error: Detail

    public init(error: Detail) {
        self.error = error
    }
}
