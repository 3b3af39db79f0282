public import CardCrypto
public import CardToken
import Foundation

/// The folder of public keys a card service publishes (`Keys/public`): one `*.pem` file a key, and the keys'
/// validity windows in `windows.json` beside them, a map from kid to window:
///
/// ```json
/// {"46211e5d86abc761": {"published_at": 1795423432, "retired_at": null}}
/// ```
///
/// `peez keys rotate` records a new key's publication, `peez keys retire` a key's retirement; `peez serve`
/// publishes both in its key set. A key with no entry has no recorded window.
public struct PublishedKeyFolder: Sendable {
    /// The name of the windows file inside the folder.
    public static let windowsFileName = "windows.json"
    /// The largest windows file read.
    public static let maxWindowsFileSize = 1024 * 1024

    /// The folder's path.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The windows file's path.
    public var windowsPath: String { (path as NSString).appendingPathComponent(Self.windowsFileName) }

    /// Every public key in the folder, none when the folder does not exist.
    public func keys() throws -> [Ed25519PublicKey] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try KeySetLoader.load(paths: [path]).keys.compactMap { $0 as? Ed25519PublicKey }
    }

    /// The recorded windows by kid; none when the file does not exist.
    public func windows() throws -> [KeyID: KeyValidityWindow] {
        guard FileManager.default.fileExists(atPath: windowsPath) else { return [:] }
        let bytes = try KeyFiles.readFile(windowsPath, limit: Self.maxWindowsFileSize)
        let byHex: [String: KeyValidityWindow]
        do {
            byHex = try BoundedJSON.decode(
                [String: KeyValidityWindow].self,
                from: bytes,
                limit: Self.maxWindowsFileSize,
                name: "a key windows file",
                shape: #"{"<kid>": {"published_at": …, "retired_at": …}}"#
            )
        } catch {
            throw CardWireError(error.code, "\(windowsPath): \(error.reason)")
        }
        var result: [KeyID: KeyValidityWindow] = [:]
        for (hex, window) in byHex {
            guard let kid = KeyID(hex: hex) else {
                throw CardWireError(.invalidEntry, "\(windowsPath): '\(hex)' is not a kid (16 hex digits)")
            }
            result[kid] = window
        }
        return result
    }

    /// Records `window` as the window of `kid`, keeping every other entry; the file is replaced atomically.
    public func record(_ window: KeyValidityWindow, for kid: KeyID) throws {
        var byHex = Dictionary(uniqueKeysWithValues: try windows().map { ($0.key.hex, $0.value) })
        byHex[kid.hex] = window
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try encoder.encode(byHex).write(to: URL(fileURLWithPath: windowsPath), options: .atomic)
    }
}
