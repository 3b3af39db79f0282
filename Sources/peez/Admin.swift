public import ArgumentParser
import CardServices
import Foundation
import Membership

extension Role: ExpressibleByArgument {}

extension Peez {
    /// `peez admin`: operator tasks on the ledger.
    struct Admin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Operator tasks: API secrets.",
            subcommands: [CreateToken.self]
        )
    }
}

extension Peez.Admin {
    /// `peez admin create-token`: bootstrap an API secret.
    struct CreateToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an admin or backend API secret and print it once.",
            discussion: """
                Only the secret's SHA-256 is stored: keep the printed secret, it cannot be shown again. Vendor \
                secrets are made with the vendor (POST /v1/vendors).

                The ledger must exist (a typo in --database is an error, not a new empty ledger); on a new \
                install, before the service first started, give --create-database.

                Example:
                  peez admin create-token --role admin --label "ops laptop"
                  peez admin create-token --database /var/lib/peez/peez.sqlite --create-database
                """
        )

        @OptionGroup var store: StoreOptions

        @Flag(help: "Create the ledger if it does not exist yet (a new install, before the service first started).")
        var createDatabase = false

        @Option(help: "admin or backend.")
        var role: Role = .admin

        @Option(help: "A note saying who holds the secret.")
        var label = "created with peez admin create-token"

        func validate() throws {
            guard role != .vendor else { throw ValidationError("vendor secrets are created with their vendor: POST /v1/vendors") }
        }

        func run() async throws {
            let (role, label) = (role, label)
            let secret = try await store.withStore(creating: createDatabase) { store in
                try await Provisioning.createCredential(store: store, role: role, label: label, now: CardDates.now())
            }
            print(secret)
            printError("\(role.rawValue) secret created; it is shown only this once.")
        }
    }
}
