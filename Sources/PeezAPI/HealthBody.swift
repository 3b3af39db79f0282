/// `GET /health`'s answer: `ok` when every configured part works, `degraded` when one cannot be used (the card
/// service still serves), each configured part's state and why.
///
/// ```json
/// {"status": "degraded", "parts": {"apple_wallet": {"status": "unavailable", "reason": "…"}, "tls": {"status": "ok"}}}
/// ```
public struct HealthBody: Codable, Sendable, Equatable {
    /// One part's state.
    public struct Part: Codable, Sendable, Equatable {
        /// `ok` or `unavailable`.
        public var status: String
        /// Why it cannot be used (absent when it works).
        public var reason: String?

        public init(status: String, reason: String?) {
            self.status = status
            self.reason = reason
        }
    }

    /// `ok` or `degraded`.
    public var status: String
    /// The parts configured on this service (Apple Wallet, its pushes, Google Wallet, reminders, TLS), by name.
    public var parts: [String: Part]

    public init(status: String, parts: [String: Part]) {
        self.status = status
        self.parts = parts
    }
}
