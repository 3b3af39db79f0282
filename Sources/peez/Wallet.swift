import ArgumentParser
import CardCrypto
import CardToken
import CardWire
import Foundation
import WalletPass

extension Peez {
    /// `peez wallet`: Apple Wallet passes.
    struct Wallet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "wallet",
            abstract: "Check Apple Wallet passes (.pkpass).",
            subcommands: [Check.self]
        )
    }
}

extension Peez.Wallet {
    /// `peez wallet check`: why a pass would not open.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a .pkpass as Wallet would, one line a check, each failure naming its fix.",
            discussion: """
                The checks: the archive (bounded), the files Wallet requires, every SHA-1 of manifest.json, the \
                detached signature over the manifest, the WWDR intermediate it must carry and its validity, the \
                pass type and team of the certificate against pass.json, the chain up to --apple-root, the keys \
                pass.json must have, the icon and logo sizes, and the barcode as a valid card for --keys.

                Examples:
                  peez wallet check card.pkpass --apple-root AppleRootCA.pem --keys Keys/public
                  peez wallet check card.pkpass

                Exit status: 0 when every check passes, 1 when any fails, 2 when the file cannot be read.
                """
        )

        @Argument(help: "The .pkpass file.")
        var pass: String

        @Option(help: "Apple's root certificate (PEM) to check the signature's chain up to.")
        var appleRoot: String?

        @Option(help: "Trusted card keys (PEM files, folders, or a key set .json), to check the barcode as a card.")
        var keys: [String] = []

        @Option(help: "Check as if it were this time (seconds since the epoch).")
        var now: Int64?

        func run() async throws {
            let bytes = try KeyFiles.readFile(pass, limit: PassArchive.maxArchiveBytes)
            let root = try appleRoot.map { path in try X509Certificate(pem: try KeyFiles.readFile(path), what: "--apple-root \(path)") }
            let verifier = keys.isEmpty ? nil : CardVerifier(trustedKeys: try TrustedKeyFiles.load(paths: keys))
            let report = PassCheck(bytes, appleRoot: root, verifier: verifier, now: now ?? CardDates.now())
            for finding in report.findings { printNow(finding.description) }
            if keys.isEmpty { printNow("ok    the barcode was not checked as a card: give --keys Keys/public (or the key set) to check it") }
            if !report.passed { throw ExitCode(1) }
        }
    }
}
