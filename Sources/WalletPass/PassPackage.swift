import CPeezOpenSSL
import Foundation
import ZIPFoundation

/// A `.pkpass`: the pass's files, `manifest.json` (the SHA-1 of each), `signature` (the identity's detached
/// CMS signature of the manifest), in one ZIP archive.
public enum PassPackage {
    /// The images every PEEZ pass carries, built into peez from `Sources/WalletPass/images`.
    public static let images: [(name: String, bytes: [UInt8])] = [
        ("icon.png", PackageResources.icon_png), ("icon@2x.png", PackageResources.icon_2x_png), ("icon@3x.png", PackageResources.icon_3x_png),
        ("logo.png", PackageResources.logo_png), ("logo@2x.png", PackageResources.logo_2x_png), ("logo@3x.png", PackageResources.logo_3x_png),
    ]

    /// The languages whose strings every pass carries.
    public static let languages = ["en", "fr", "ar"]

    /// The files of `pass` before the manifest: `pass.json`, the images and each language's `pass.strings`.
    public static func files(of pass: MembershipPass, identity: PassSigningIdentity, now: Int64) throws -> [(name: String, bytes: [UInt8])] {
        [("pass.json", try pass.json(passTypeIdentifier: identity.passTypeIdentifier, teamIdentifier: identity.teamIdentifier, now: now))]
            + images + languages.map { ("\($0).lproj/pass.strings", MembershipPass.stringsFile($0)) }
    }

    /// The signed `.pkpass` archive of `pass`.
    public static func build(_ pass: MembershipPass, identity: PassSigningIdentity, now: Int64) throws -> [UInt8] {
        let files = try files(of: pass, identity: identity, now: now)
        let manifest = manifest(of: files)
        return try archive(files + [("manifest.json", manifest), ("signature", try identity.sign(manifest))])
    }

    /// `manifest.json`: each file's name and the lower-case hex SHA-1 of its bytes, keys sorted.
    public static func manifest(of files: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        let entries = files.sorted { $0.name < $1.name }.map { "\"\($0.name)\":\"\(sha1Hex($0.bytes))\"" }
        return Array(("{" + entries.joined(separator: ",") + "}").utf8)
    }

    /// The lower-case hex SHA-1 of `bytes` (OpenSSL).
    public static func sha1Hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        var length: UInt32 = 0
        _ = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha1(), nil)
        return digest.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// The files as a ZIP archive, each deflated.
    static func archive(_ files: [(name: String, bytes: [UInt8])]) throws -> [UInt8] {
        let archive = try Archive(accessMode: .create)
        for file in files {
            let data = Data(file.bytes)
            try archive.addEntry(with: file.name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        guard let data = archive.data else { throw WalletError(.invalidArchive, "the pass archive could not be written") }
        return Array(data)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
