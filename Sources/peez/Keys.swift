import ArgumentParser
import CardCrypto
import CardToken
import Foundation

extension Peez {
    /// `peez keys`: signing keys.
    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keys",
            abstract: "Create and inspect Ed25519 signing keys.",
            subcommands: [Generate.self, Show.self, Rotate.self]
        )
    }
}

extension Peez.Keys {
    /// `peez keys generate`: a new key pair on disk.
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate an Ed25519 key pair and print its kid.",
            discussion: """
            Writes OUT/NAME.pem (PKCS#8 private key, mode 0600) and OUT/NAME.pub.pem (public key), the same \
            formats as `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout`. Never overwrites a file.

            Example:
              peez keys generate --out Keys/production --name 2026-11
            """
        )

        @Option(help: "The folder to write the key pair into (created if missing).")
        var out: String

        @Option(help: "The file name stem of the pair.")
        var name: String = "signing-key"

        func validate() throws {
            guard !name.isEmpty, !name.contains("/") else {
                throw ValidationError("--name must be a plain file name stem, without '/'")
            }
        }

        func run() async throws {
            let key = try Ed25519PrivateKey.generate()
            let written = try KeyFiles.writeKeyPair(key, directory: out, name: name)
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
            Writes OUT/signing-key-<UTC time>.pem (0600) and its public half, and copies the public key into the \
            published folder as <kid>.pem. Old public keys stay published, so cards already in members' phones \
            keep verifying. Then restart the service with --signing-key pointing at the new key, and sync the \
            verifiers' key sets.

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
            let stamp = ISO8601DateFormatter().string(from: Date()).filter { $0.isNumber }
            let written = try KeyFiles.writeKeyPair(key, directory: out, name: "signing-key-\(stamp)")
            try FileManager.default.createDirectory(atPath: published, withIntermediateDirectories: true)
            let target = (published as NSString).appendingPathComponent("\(key.keyID.hex).pem")
            try FileManager.default.copyItem(atPath: written.publicKeyPath, toPath: target)
            print(key.keyID.hex)
            printError("new signing key: \(written.privateKeyPath) (mode 0600)")
            printError("published:       \(target)")
            printError("next: restart the service with --signing-key \(written.privateKeyPath)")
        }
    }
}
