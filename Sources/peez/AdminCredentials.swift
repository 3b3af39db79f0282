import ArgumentParser
import CardQR
import CardServices
import Foundation
import Membership
import MembershipSQL
import PeezBasics

/// One credential on one line: id, role, state, label, vendor, when made and by whom, last use.
private func line(_ credential: APICredential, now: Int64) -> String {
    let vendor = credential.vendorID.map { "  vendor \($0.lowercasedText)" } ?? ""
    let used = credential.lastUsedAt.map { "  last used \(AlgiersCalendar.minuteStamp($0))" } ?? "  never used"
    var state = credential.state(now: now)
    if state == "active", let end = credential.expiresAt { state = "active until \(AlgiersCalendar.minuteStamp(end))" }
    if let revoked = credential.revokedAt { state = "revoked \(AlgiersCalendar.minuteStamp(revoked))" }
    return "\(credential.id.lowercasedText)  \(credential.role.rawValue)  \(state)  \"\(credential.label)\"\(vendor)  "
        + "made \(AlgiersCalendar.minuteStamp(credential.createdAt)) by \(credential.createdBy.isEmpty ? "(not recorded)" : credential.createdBy)\(used)"
}

/// A UUID argument, or a usage error naming it.
private func uuid(_ text: String, _ name: String) throws -> UUID {
    guard let id = UUID(strictText: text) else { throw ValidationError("\(name) must be a UUID like 3f2a…, not '\(text.prefix(40))'") }
    return id
}

extension Peez.Admin {
    /// `peez admin vendors`.
    struct Vendors: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the vendors (shops), with how many active credentials each has.",
            discussion: "Example:\n  peez admin vendors"
        )
        @OptionGroup var store: StoreOptions

        func run() async throws {
            let lines = try await store.withStore { store in
                let now = CardDates.now()
                var lines: [String] = []
                for vendor in try await store.vendors() {
                    let active = try await store.credentials(role: .vendor, vendorID: vendor.id).filter { $0.refusal(now: now) == nil }.count
                    lines.append(
                        "\(vendor.id.lowercasedText)  \(vendor.name)  \(vendor.category)  \(vendor.neighbourhood)  \(active) active credential(s)"
                    )
                }
                return lines
            }
            printNow(lines.isEmpty ? "no vendor" : lines.map(TextRules.terminalSafe).joined(separator: "\n"))
        }
    }

    /// `peez admin credentials`.
    struct Credentials: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List credentials: each device's or system's, with its state and last use (never a secret).",
            discussion: """
                Examples:
                  peez admin credentials
                  peez admin credentials --vendor <vendor id>
                  peez admin credentials --role admin
                """
        )
        @OptionGroup var store: StoreOptions

        @Option(help: "Only this role's: admin, backend or vendor.")
        var role: Role?

        @Option(help: "Only this vendor's (its id).")
        var vendor: String?

        func run() async throws {
            let vendorID = try vendor.map { try uuid($0, "--vendor") }
            let role = role
            let credentials = try await store.withStore { store in try await store.credentials(role: role, vendorID: vendorID) }
            let now = CardDates.now()
            printNow(credentials.isEmpty ? "no credential" : credentials.map { TextRules.terminalSafe(line($0, now: now)) }.joined(separator: "\n"))
        }
    }

    /// `peez admin rename`.
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename a credential.",
            discussion: "Example:\n  peez admin rename <credential id> --label \"till 1 (new phone)\""
        )
        @OptionGroup var store: StoreOptions
        @Argument(help: "The credential's id.") var id: String
        @Option(help: "Its new name.") var label: String

        func run() async throws {
            let (id, label) = (try uuid(id, "the credential id"), label)
            let renamed = try await store.withStore { store in
                try await CredentialService(store: store, now: CardDates.clock).rename(id: id, label: label, by: .commandLine())
            }
            printNow(line(renamed, now: CardDates.now()))
        }
    }

    /// `peez admin revoke`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a credential at once: a stolen phone, a shop that left, a leaked secret.",
            discussion: """
                Every instance of the service refuses it within 5 seconds; the sales it sends after that are \
                refused and listed by peez admin refused-sales.

                Example:
                  peez admin revoke <credential id>
                """
        )
        @OptionGroup var store: StoreOptions
        @Argument(help: "The credential's id (from peez admin credentials).") var id: String

        func run() async throws {
            let id = try uuid(id, "the credential id")
            let revoked = try await store.withStore { store in
                try await CredentialService(store: store, now: CardDates.clock).revoke(id: id, by: .commandLine())
            }
            printNow(line(revoked, now: CardDates.now()))
        }
    }

    /// `peez admin rotate`.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a credential's secret: print the new one, and keep the old one for a grace period.",
            discussion: """
                Example:
                  peez admin rotate <credential id> --grace 3600
                """
        )
        @OptionGroup var store: StoreOptions
        @Argument(help: "The credential's id.") var id: String
        @Option(help: "Seconds the old secret is still accepted (0 to 604800; 0: refused at once).") var grace: Int64 = 0

        func run() async throws {
            let (id, grace) = (try uuid(id, "the credential id"), grace)
            let (issued, previous) = try await store.withStore { store in
                try await CredentialService(store: store, now: CardDates.clock).rotate(id: id, grace: grace, by: .commandLine())
            }
            print(issued.secret)
            printError("new credential \(issued.credential.id.lowercasedText); its secret is shown only this once")
            printError("old: " + line(previous, now: CardDates.now()))
        }
    }

    /// `peez admin cut-off`.
    struct CutOff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cut a shop off: revoke every credential of a vendor and withdraw its unused enrolment codes.",
            discussion: "Example:\n  peez admin cut-off <vendor id>"
        )
        @OptionGroup var store: StoreOptions
        @Argument(help: "The vendor's id.") var vendor: String

        func run() async throws {
            let vendorID = try uuid(vendor, "the vendor id")
            let revoked = try await store.withStore { store in
                try await CredentialService(store: store, now: CardDates.clock).cutOff(vendorID: vendorID, by: .commandLine())
            }
            printNow("\(revoked) credential(s) revoked; the vendor's unused enrolment codes withdrawn")
        }
    }

    /// `peez admin enrolment-code`.
    struct EnrolmentCode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enrolment-code",
            abstract: "Make a one-time code that enrols a shop's phone or computer: a link and a QR code.",
            discussion: """
                The phone opens the link (or scans the QR code from the counter's set-up screen) and gets a \
                credential of its own: no secret is typed or shown. The code works once, within its lifetime.

                Examples:
                  peez admin enrolment-code --vendor <id> --label "Karim's phone" --terminal
                  peez admin enrolment-code --vendor <vendor id> --png code.png
                  PEEZ_PUBLIC_URL=https://cards.peez.dz peez admin enrolment-code --vendor <id>
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "The vendor the device will act for (its id).") var vendor: String
        @Option(help: "Seconds the code lives (60 to 86400).") var lifetime: Int64 = Membership.EnrolmentCode.defaultLifetime
        @Option(help: "The name the enrolled device will carry in lists and the audit trail (\"Karim's phone\").") var label: String?
        @Option(help: "The service's address phones reach (or PEEZ_PUBLIC_URL).") var publicUrl: String?
        @OptionGroup var picture: QROutputOptions

        func run() async throws {
            let (vendorID, lifetime, label) = (try uuid(vendor, "--vendor"), lifetime, label)
            let base = try store.linkBase(flag: publicUrl)
            let (code, expiresAt) = try await store.withStore { store in
                try await CredentialService(store: store, now: CardDates.clock).enrolmentCode(
                    vendorID: vendorID,
                    lifetime: lifetime,
                    label: label,
                    by: .commandLine()
                )
            }
            let link = EnrolmentLink.link(base: base, code: code)
            printNow(link)
            printError(
                "one-time enrolment code for vendor \(vendorID.lowercasedText), valid until \(AlgiersCalendar.minuteStamp(expiresAt)) (Algiers)"
            )
            try picture.draw(link, byteMode: true)
        }
    }

    /// `peez admin audit`.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the audit trail: every administrative action, who, what, when and from where.",
            discussion: "Example:\n  peez admin audit --after 120 --limit 50"
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "Only entries after this one (its number).") var after: Int64 = 0
        @Option(help: "At most this many (1 to 1000).") var limit = 100

        func validate() throws {
            guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000") }
        }

        func run() async throws {
            let (after, limit) = (after, limit)
            let entries = try await store.withStore { store in try await store.audit(after: after, limit: limit) }
            printNow(
                entries.isEmpty
                    ? "no entry"
                    : entries.map {
                        TextRules.terminalSafe(
                            "\($0.seq)  \(AlgiersCalendar.minuteStamp($0.at))  \($0.actor) from \($0.address)  \($0.action) \($0.target)  \($0.detail)"
                        )
                    }.joined(separator: "\n")
            )
        }
    }

    /// `peez admin refused-sales`.
    struct RefusedSales: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refused-sales",
            abstract: "List sales refused because their device's credential was revoked or replaced.",
            discussion: """
                A member may have paid cash for these at a shop: check with the shop and sell again from an \
                enrolled device. Newest first, each with its number: pass the last one's as --before for the \
                next page.

                Examples:
                  peez admin refused-sales
                  peez admin refused-sales --before 120 --limit 50
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "Only sales before this one (its number).") var before: Int64?
        @Option(help: "At most this many (1 to 1000).") var limit = 100

        func validate() throws {
            guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000") }
        }

        func run() async throws {
            let (before, limit) = (before, limit)
            let sales = try await store.withStore { store in try await store.refusedSales(before: before, limit: limit) }
            printNow(
                sales.isEmpty
                    ? "no refused sale"
                    : sales.map {
                        TextRules.terminalSafe(
                            "\($0.seq)  \(AlgiersCalendar.minuteStamp($0.at))  \($0.membershipID ?? "(member not named)")  \($0.months.map { "\($0) month(s)" } ?? "?")  "
                                + "\($0.amountDZD.map { "\($0) DZD" } ?? "?")  \($0.reason)  credential \($0.credentialID.lowercasedText)  key \($0.idempotencyKey)"
                        )
                    }.joined(separator: "\n")
            )
        }
    }
}
