import ArgumentParser
import CardCrypto
import CardToken
import CardWire
import Foundation

extension Peez {
    /// `peez keys`: signing keys.
    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keys",
            abstract: "Create and inspect Ed25519 signing keys.",
            subcommands: [Generate.self, Show.self, Rotate.self, Retire.self]
        )
    }
}

extension Peez.Keys {
    /// `peez keys generate`: a new key pair on disk.
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate an Ed25519 key pair and print its kid (with --device, its public key for the device-key route).",
            discussion: """
                Writes OUT/NAME.pem (PKCS#8 private key, mode 0600) and OUT/NAME.pub.pem (public key), the same \
                formats as `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout`. Never overwrites a file.

                With --device the pair plays a member's phone (the app keeps its key in the phone's secure storage): \
                the name defaults to device-key, and what is printed is the raw public key in base64url, the body \
                POST /v1/members/{uuid}/device-key takes as public_key.

                Examples:
                  peez keys generate --out Keys/production --name 2026-11
                  peez keys generate --device --out phone
                """
        )

        @Option(help: "The folder to write the key pair into (created if missing).")
        var out: String

        @Option(help: "The file name stem of the pair (default: signing-key, or device-key with --device).")
        var name: String?

        @Flag(help: "Make a device key pair (a member's phone) and print its public key in base64url.")
        var device = false

        func validate() throws {
            if let name, name.isEmpty || name.contains("/") {
                throw ValidationError("--name must be a plain file name stem, without '/'")
            }
        }

        func run() async throws {
            let key = try Ed25519PrivateKey.generate()
            let written = try KeyFiles.writeKeyPair(key, directory: out, name: name ?? (device ? "device-key" : "signing-key"))
            if device {
                print(try DeviceKey(rawRepresentation: key.publicKey.rawRepresentation).base64url)
                printError("device private key: \(written.privateKeyPath) (mode 0600: it signs this phone's presentations)")
                printError("device public key:  \(written.publicKeyPath) (the line above is the same key, for POST /v1/members/{uuid}/device-key)")
                return
            }
            print(key.keyID.hex)
            printError("private key: \(written.privateKeyPath) (mode 0600, keep it secret)")
            printError("public key:  \(written.publicKeyPath) (copy it into the verifiers' key set)")
        }
    }

    /// `peez keys show`: what a key file holds.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the kid and algorithm of a private or public PEM key file.",
            discussion: """
                Example:
                  peez keys show Keys/public/development.pem
                """
        )

        @Argument(help: "A PEM file: a PKCS#8 private key or a SubjectPublicKeyInfo public key.")
        var file: String

        func run() async throws {
            let (keyID, isPrivate) = try KeyFiles.describeKeyFile(path: file)
            print("kid:       \(keyID.hex)")
            print("algorithm: EdDSA (Ed25519, COSE alg -8)")
            print("kind:      \(isPrivate ? "private key (PKCS#8)" : "public key (SubjectPublicKeyInfo)")")
        }
    }
}

extension Peez.Keys {
    /// `peez keys rotate`: a new signing key, published beside the old ones.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new signing key and publish its public half beside the current keys.",
            discussion: """
                Writes OUT/signing-key-<UTC time>.pem (0600) and its public half, copies the public key into the \
                published folder as <kid>.pem and records its publication time in the folder's windows.json. Old \
                public keys stay published, so cards already in members' phones keep verifying.

                On a first install (no key published yet) it prints where to point the service instead. Otherwise, \
                in two steps: keep signing with the old key while the new one is published (restart the \
                service so it serves the new key set) until every counter has synced it, at least the 7 days a \
                counter bundle lasts, since a counter accepts a new key only from a bundle a key it trusts signed; \
                then restart with --signing-key pointing at the new key and retire the old one (peez keys retire). \
                A counter that missed the whole overlap must be enrolled again.

                Example:
                  peez keys rotate --out /etc/peez/keys --published /etc/peez/public
                """
        )

        @Option(help: "The folder for the new private key (keep it out of git).")
        var out: String

        @Option(help: "The published key-set folder the service serves at /v1/keys.")
        var published = "Keys/public"

        func run() async throws {
            let key = try Ed25519PrivateKey.generate()
            let stamp = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(CardDates.now()))).filter { $0.isNumber }
            // No folder yet: the first key. A folder that cannot be read is an error, not a first install.
            let alreadyPublished =
                FileManager.default.fileExists(atPath: published)
                ? try FileManager.default.contentsOfDirectory(atPath: published).filter { $0.hasSuffix(".pem") } : []
            let written = try KeyFiles.writeKeyPair(key, directory: out, name: "signing-key-\(stamp)")
            try FileManager.default.createDirectory(atPath: published, withIntermediateDirectories: true)
            let target = (published as NSString).appendingPathComponent("\(key.keyID.hex).pem")
            try FileManager.default.copyItem(atPath: written.publicKeyPath, toPath: target)
            let folder = PublishedKeyFolder(path: published)
            try folder.record(KeyValidityWindow(publishedAt: CardDates.now()), for: key.keyID)
            print(key.keyID.hex)
            printError("new signing key: \(written.privateKeyPath) (mode 0600)")
            printError("published:       \(target) (window recorded in \(folder.windowsPath))")
            guard !alreadyPublished.isEmpty else {
                printError("this is the service's first key: start it with --signing-key \(written.privateKeyPath) --published-keys \(published)")
                printError("(with the Debian package: PEEZ_SIGNING_KEY=\(written.privateKeyPath) in /etc/peez/peez.env)")
                return
            }
            printError("next: restart the service (still on the old key) so it publishes the new one; after every counter")
            printError("      has synced (at least 7 days), restart with --signing-key \(written.privateKeyPath), then:")
            printError("      peez keys retire OLD-KID --published \(published)")
        }
    }

    /// `peez keys retire`: a published key stops being trusted for cards signed from now on.
    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record that a published key no longer signs cards.",
            discussion: """
                Sets the key's retired_at in the published folder's windows.json (now, or --at). The key stays \
                published, so the cards it signed before keep verifying until they expire; a card it signs later is \
                refused by every verifier that synced the key set. Run it once the service signs with the new key.

                Example:
                  peez keys retire 46211e5d86abc761 --published /etc/peez/public
                """
        )

        @Argument(help: "The kid of the key to retire (16 hex digits, as `peez keys show` prints it).")
        var kid: String

        @Option(help: "The published key-set folder the service serves at /v1/keys.")
        var published = "Keys/public"

        @Option(help: "When it was retired: YYYY-MM-DD (the end of that day, Algiers time), ISO 8601 or epoch seconds; default now.")
        var at: String?

        func validate() throws {
            guard KeyID(hex: kid) != nil else { throw ValidationError("'\(kid)' is not a kid: give the key's 16 hex digits") }
            if let at, CardDates.parseExpiry(at) == nil {
                throw ValidationError("--at '\(at)' is not a date (YYYY-MM-DD), an ISO 8601 time or epoch seconds")
            }
        }

        func run() async throws {
            let folder = PublishedKeyFolder(path: published)
            guard let keyID = KeyID(hex: kid), try folder.keys().contains(where: { $0.keyID == keyID }) else {
                throw ValidationError("no key with kid \(kid) is published in \(published)")
            }
            var window = try folder.windows()[keyID] ?? .unbounded
            let retiredAt = at.flatMap(CardDates.parseExpiry) ?? CardDates.now()
            if let publishedAt = window.publishedAt, retiredAt < publishedAt {
                throw ValidationError("\(kid) was published at \(CardDates.display(publishedAt)); it cannot retire before that")
            }
            window.retiredAt = retiredAt
            try folder.record(window, for: keyID)
            print("\(kid) retired at \(CardDates.display(retiredAt)) (Algiers), recorded in \(folder.windowsPath)")
        }
    }
}
