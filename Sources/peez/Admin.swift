public import ArgumentParser
import CardServices
import Foundation
import Membership

extension Role: ExpressibleByArgument {}

extension Peez {
    /// `peez admin`: operator tasks on the ledger.
    struct Admin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Operator tasks: vendors, credentials, enrolment codes, the audit trail, the console, daily reports, shops' cash.",
            discussion: """
                Every command works on the ledger directly, over the same rules as the API's admin routes, and \
                each change is written to the audit trail as "peez admin (<user>)" from "local".
                """,
            subcommands: [
                CreateToken.self, Vendors.self, Credentials.self, Rename.self, Revoke.self, Rotate.self, CutOff.self,
                EnrolmentCode.self, Audit.self, RefusedSales.self, ConsoleLink.self, Report.self, Balances.self, BalanceLimit.self, Remit.self,
                Adjust.self,
                Reverse.self, Commission.self, Statement.self, Statements.self,
            ]
        )
    }
}

extension Peez.Admin {
    /// `peez admin create-token`: a new credential and its secret.
    struct CreateToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an API secret (admin, backend, or a vendor device's) and print it once.",
            discussion: """
                Only the secret's SHA-256 is stored: keep the printed secret, it cannot be shown again. A shop's \
                phone is better enrolled with a one-time code (peez admin enrolment-code): no secret to type.

                The ledger must exist (a typo in --database is an error, not a new empty ledger); on a new \
                install, before the service first started, give --create-database.

                Example:
                  peez admin create-token --role admin --label "ops laptop"
                  peez admin create-token --role vendor --vendor <id> --label "till 2"
                  peez admin create-token --database /var/lib/peez/peez.sqlite --create-database
                """
        )

        @OptionGroup var store: StoreOptions

        @Flag(help: "Create the ledger if it does not exist yet (a new install, before the service first started).")
        var createDatabase = false

        @Option(help: "admin, backend or vendor.")
        var role: Role = .admin

        @Option(help: "The vendor a vendor credential acts for (its id, from peez admin vendors).")
        var vendor: String?

        @Option(help: "A note saying who or what holds the secret.")
        var label = "created with peez admin create-token"

        func validate() throws {
            guard (role == .vendor) == (vendor != nil) else { throw ValidationError("--vendor goes with --role vendor, and only with it") }
            if let vendor, UUID(strictText: vendor) == nil { throw ValidationError("--vendor must be a vendor's id (a UUID)") }
        }

        func run() async throws {
            let (role, label, vendorID) = (role, label, vendor.flatMap(UUID.init(strictText:)))
            let issued = try await store.withStore(creating: createDatabase) { store in
                try await CredentialService(store: store, now: CardDates.clock).create(
                    role: role,
                    vendorID: vendorID,
                    label: label,
                    by: .commandLine()
                )
            }
            print(issued.secret)
            printError("\(role.rawValue) secret created (credential \(issued.credential.id.lowercasedText)); it is shown only this once.")
        }
    }
}
