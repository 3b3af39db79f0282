import Foundation
import Testing

/// The image fixtures in `Fixtures/images/images.json`, as data.
struct ImageFixtures: Decodable {
    struct Image: Decodable, CustomTestStringConvertible {
        struct Expected: Decodable {
            var codes: [String]?
            var error: String?
        }

        var file: String
        var description: String
        var expected: Expected

        var testDescription: String { file }
        var path: String { ImageFixtures.folder.appendingPathComponent(file).path }
    }

    var now: Int64
    var images: [Image]

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let folder = fixtures.appendingPathComponent("images")

    static let shared: ImageFixtures = {
        try! JSONDecoder().decode(ImageFixtures.self, from: Data(contentsOf: folder.appendingPathComponent("images.json")))
    }()

    /// The public key the fixture cards are signed with: the test vectors' `primary`.
    static let primaryPublicKeyPEM: String = {
        let url = fixtures.appendingPathComponent("keys/vectors-primary.pub.pem")
        return try! String(contentsOf: url, encoding: .utf8)
    }()
}
