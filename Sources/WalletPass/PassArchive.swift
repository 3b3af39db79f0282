import Foundation
import ZIPFoundation

/// The files of a `.pkpass` read back, within bounds: a pass is a few hundred kilobytes, so a file claiming or
/// inflating to more, a path leaving the archive, or too many entries is refused before it costs memory.
public struct PassArchive: Sendable {
    public static let maxArchiveBytes = 10 * 1024 * 1024
    public static let maxEntries = 200
    public static let maxFileBytes = 4 * 1024 * 1024
    public static let maxTotalBytes = 16 * 1024 * 1024

    /// Each file's bytes by its path in the archive.
    public let files: [String: [UInt8]]

    public init(_ bytes: [UInt8]) throws(WalletError) {
        guard bytes.count <= Self.maxArchiveBytes else {
            throw WalletError(.invalidArchive, "the file is \(bytes.count) bytes; a pass is at most \(Self.maxArchiveBytes)")
        }
        let archive: Archive
        do {
            archive = try Archive(data: Data(bytes), accessMode: .read)
        } catch {
            throw WalletError(.invalidArchive, "the file is not a ZIP archive (a .pkpass is one): \(error)")
        }
        var files: [String: [UInt8]] = [:]
        var total = 0
        var count = 0
        for entry in archive {
            count += 1
            guard count <= Self.maxEntries else { throw WalletError(.invalidArchive, "the archive has more than \(Self.maxEntries) entries") }
            guard entry.type == .file else { continue }
            let path = entry.path
            guard !path.hasPrefix("/"), !path.split(separator: "/").contains(".."), !path.contains("\\") else {
                throw WalletError(.invalidArchive, "the entry \(path.prefix(80)) leaves the archive's folder")
            }
            guard entry.uncompressedSize <= Int64(Self.maxFileBytes) else {
                throw WalletError(.invalidArchive, "\(path) claims \(entry.uncompressedSize) bytes; a pass file is at most \(Self.maxFileBytes)")
            }
            var content: [UInt8] = []
            do {
                _ = try archive.extract(entry, skipCRC32: false) { chunk in
                    content += chunk
                    guard content.count <= Self.maxFileBytes, total + content.count <= Self.maxTotalBytes else {
                        throw WalletError(.invalidArchive, "\(path) inflates past its bound")
                    }
                }
            } catch let error as WalletError {
                throw error
            } catch {
                throw WalletError(.invalidArchive, "\(path) cannot be read from the archive: \(error)")
            }
            total += content.count
            files[path] = content
        }
        self.files = files
    }
}
