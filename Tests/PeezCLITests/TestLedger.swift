import TestSupport
import Testing

/// The ledger a test's `peez serve` instances share: an SQLite file in the test's folder (a development start), or
/// a PostgreSQL database of its own on the shared test server.
enum TestLedger: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// The options that start `peez serve` on a new ledger of this kind in `folder`, its admin secret, and the
    /// PostgreSQL ledger to remove afterwards (nil for SQLite).
    func make(in folder: TemporaryFolder) async throws -> (arguments: [String], admin: String, shared: SharedLedger?) {
        switch self {
        case .sqlite:
            return (["--development", "--database", folder.file("ledger.sqlite")], "peez_admin_DEVELOPMENT_ONLY_not_a_secret", nil)
        case .postgres:
            let ledger = try await SharedLedger.make()
            return (ledger.arguments, ledger.adminSecret, ledger)
        }
    }
}
