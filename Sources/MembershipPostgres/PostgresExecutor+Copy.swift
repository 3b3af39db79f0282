import Logging
import MembershipSQL
import NIOCore
import PostgresNIO

extension PostgresExecutor {
    /// Many rows in one `COPY … FROM STDIN` (text format), streamed in pieces of about a megabyte: no statement
    /// to parse or values to bind per row, several times faster than multi-row INSERTs.
    func insertRows(into table: String, columns: [String], _ rows: [[SQLValue]]) async throws {
        guard !rows.isEmpty else { return }
        do {
            try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                var buffer = ByteBuffer()
                buffer.reserveCapacity(1 << 20)
                for row in rows {
                    for (index, value) in row.enumerated() {
                        if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
                        Self.writeCopyText(value, to: &buffer)
                    }
                    buffer.writeInteger(UInt8(ascii: "\n"))
                    if buffer.readableBytes >= 1 << 20 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw SQLError.uniqueViolation(error.serverInfo?[.constraintName] ?? "unique")
        }
    }

    /// One value in COPY's text format: `\N` for NULL; in text, the backslash and the characters that end a
    /// column or a row escaped; bytes as bytea's hex (`\\x…`, its backslash escaped).
    static func writeCopyText(_ value: SQLValue, to buffer: inout ByteBuffer) {
        switch value {
        case .null:
            buffer.writeStaticString("\\N")
        case .int(let number):
            buffer.writeString(String(number))
        case .text(let text):
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        case .blob(let bytes):
            buffer.writeStaticString("\\\\x")
            let hex = Array("0123456789abcdef".utf8)
            for byte in bytes {
                buffer.writeInteger(hex[Int(byte >> 4)])
                buffer.writeInteger(hex[Int(byte & 0x0F)])
            }
        }
    }
}
