import Foundation

/// Reads one row of a table, its columns optionally prefixed (in a join). A value that is missing or not of
/// its column's type is an error naming `table.column`: a corrupt row is never read as a default.
struct RowReader {
    let row: SQLRow
    let table: String
    var prefix = ""

    private func checked<T>(_ column: String, _ read: (String) throws -> T) throws -> T {
        do {
            return try read(prefix + column)
        } catch {
            throw SQLError.unexpectedValue("\(table).\(column)")
        }
    }

    func text(_ column: String) throws -> String { try checked(column, row.text) }
    func optionalText(_ column: String) throws -> String? { try checked(column, row.optionalText) }
    func int(_ column: String) throws -> Int64 { try checked(column, row.int) }
    func optionalInt(_ column: String) throws -> Int64? { try checked(column, row.optionalInt) }
    func blob(_ column: String) throws -> [UInt8] { try checked(column, row.blob) }

    func uuid(_ column: String) throws -> UUID {
        guard let uuid = UUID(uuidString: try text(column)) else { throw SQLError.unexpectedValue("\(table).\(column)") }
        return uuid
    }

    func optionalUUID(_ column: String) throws -> UUID? {
        guard let text = try optionalText(column) else { return nil }
        guard let uuid = UUID(uuidString: text) else { throw SQLError.unexpectedValue("\(table).\(column)") }
        return uuid
    }

    /// A column holding one of an enumeration's raw values.
    func value<T: RawRepresentable>(_ column: String, as type: T.Type) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: try text(column)) else { throw SQLError.unexpectedValue("\(table).\(column)") }
        return value
    }
}
