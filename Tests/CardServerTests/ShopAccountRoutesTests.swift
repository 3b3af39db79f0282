import Foundation
import HTTPTypes
import HummingbirdTesting
import Membership
import PeezAPI
import TestSupport
import Testing

/// The shops' accounts over the API on a real socket: the team records remittances once per key and reads every
/// balance; a shop's device reads its own account and statement and never another's; statements come as JSON,
/// CSV and journals that the real hledger and beancount (Debian's) load, balance and check against the closing
/// balance the statement states.
@Suite("Shop accounts over the API")
struct ShopAccountRoutesTests {
    static let key = HTTPField.Name("Idempotency-Key")!

    /// Sells `months` to a new member at the harness's shop, cancels nothing.
    static func sell(_ client: any TestClientProtocol, months: [Int]) async throws {
        for (index, count) in months.enumerated() {
            let uuid = try await client.createMember(100 + index)
            let member = try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).decoded(MemberBody.self)
            let reply = try await client.activate(membershipID: member.membership_id, months: count)
            guard reply.status == .created else { throw HarnessError(reply: reply) }
        }
    }

    static func remit(_ client: any TestClientProtocol, _ shop: String, _ body: [String: Any], key: String) async throws -> Reply {
        try await client.send(.post, "/v1/vendors/\(shop)/remittances", secret: ServerHarness.adminSecret, json: body, headers: [Self.key: key])
    }

    @Test func aRemittanceIsRecordedOnceAndTheBalanceIsWhatWasSoldLessWhatWasHandedOver() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let shop = harness.vendor.id.uuidString.lowercased()
            try await Self.sell(client, months: [1, 3, 2])
            let body: [String: Any] = ["amount_dzd": 1_000, "method": "baridimob", "reference": "BM-77", "received_by": "Karim"]
            let first = try await Self.remit(client, shop, body, key: "r-1")
            let again = try await Self.remit(client, shop, body, key: "r-1")
            #expect(first.status == .created && again.status == .created && again.body == first.body)
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            let account = try await client.send(.get, "/v1/vendors/\(shop)/account", secret: ServerHarness.adminSecret).decoded(ShopAccountBody.self)
            #expect(account.balance_dzd == 1_800 - 1_000)
            #expect(account.today_figures.sales == 3 && account.today_figures.sales_dzd == 1_800)
            #expect(account.last_remittance?.reference == "BM-77")
            let list = try await client.send(.get, "/v1/accounts?limit_dzd=500", secret: ServerHarness.adminSecret).decoded(ShopBalanceListBody.self)
            #expect(list.shops.map(\.vendor_id) == [shop] && list.shops.first?.over_limit == true && list.total_owed_dzd == 800)
            #expect(list.shops.first?.age_days == 0)
        }
    }

    @Test func aRemittanceThatMakesNoSenseIsRefusedNamingItsField() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let shop = harness.vendor.id.uuidString.lowercased()
            try await Self.sell(client, months: [1])
            for (body, field) in [
                (["amount_dzd": 301, "method": "cash", "received_by": "K"] as [String: Any], "amount_dzd"),
                (["amount_dzd": -1, "method": "cash", "received_by": "K"], "amount_dzd"),
                (["amount_dzd": 1.5, "method": "cash", "received_by": "K"], "amount_dzd"),
                (["amount_dzd": 100, "currency": "EUR", "method": "cash", "received_by": "K"], "currency"),
                (["amount_dzd": 100, "method": "cheque", "received_by": "K"], "method"),
                (["amount_dzd": 100, "method": "cash"], "received_by"),
            ] {
                let reply = try await Self.remit(client, shop, body, key: UUID().uuidString)
                #expect(reply.status == .unprocessableContent && reply.errorFields[field] != nil, "\(body): \(reply.text)")
            }
            let noKey = try await client.send(
                .post,
                "/v1/vendors/\(shop)/remittances",
                secret: ServerHarness.adminSecret,
                json: ["amount_dzd": 100, "method": "cash", "received_by": "K"]
            )
            #expect(noKey.status == .badRequest)
            let unknown = try await Self.remit(client, UUID().uuidString, ["amount_dzd": 1, "method": "cash", "received_by": "K"], key: "u")
            #expect(unknown.status == .notFound)
            let byShop = try await client.send(
                .post,
                "/v1/vendors/\(shop)/remittances",
                secret: ServerHarness.vendorSecret,
                json: ["amount_dzd": 1, "method": "cash", "received_by": "K"],
                headers: [Self.key: "v"]
            )
            #expect(byShop.status == .forbidden, "a shop does not record what it handed over: \(byShop.text)")
        }
    }

    @Test func theTeamsLimitIsKeptForEveryoneAuditedAndMarksTheShopsPastIt() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let shop = harness.vendor.id.uuidString.lowercased()
            try await Self.sell(client, months: [2])
            let admin = ServerHarness.adminSecret
            #expect(try await client.send(.get, "/v1/accounts/limit", secret: admin).decoded(BalanceLimitBody.self).limit_dzd == nil)
            #expect(try await client.send(.get, "/v1/accounts", secret: admin).decoded(ShopBalanceListBody.self).shops.first?.over_limit == false)

            let set = try await client.send(.put, "/v1/accounts/limit", secret: admin, json: ["limit_dzd": 500])
            #expect(set.status == .ok && set.text.contains(#""limit_dzd":500"#), "\(set.text)")
            var list = try await client.send(.get, "/v1/accounts", secret: admin).decoded(ShopBalanceListBody.self)
            #expect(list.limit_dzd == 500 && list.shops.map(\.vendor_id) == [shop] && list.shops.first?.over_limit == true)
            list = try await client.send(.get, "/v1/accounts?limit_dzd=600", secret: admin).decoded(ShopBalanceListBody.self)
            #expect(list.limit_dzd == 600 && list.shops.first?.over_limit == false, "a query's limit holds for its answer only")
            #expect(try await client.send(.get, "/v1/accounts/limit", secret: admin).decoded(BalanceLimitBody.self).limit_dzd == 500)

            for body in [[:], ["limit_dzd": -1], ["limit_dzd": 1_000_000_001], ["limit_dzd": 2.5], ["limit_dzd": "500"]] as [[String: Any]] {
                let refused = try await client.send(.put, "/v1/accounts/limit", secret: admin, json: body)
                #expect(refused.status == .unprocessableContent && refused.errorFields["limit_dzd"] != nil, "\(body): \(refused.text)")
            }
            #expect(
                try await client.send(.put, "/v1/accounts/limit", secret: ServerHarness.vendorSecret, json: ["limit_dzd": 1]).status == .forbidden
            )

            let removed = try await client.send(.put, "/v1/accounts/limit", secret: admin, json: ["limit_dzd": NSNull()])
            #expect(removed.status == .ok && removed.text.contains(#""limit_dzd":null"#), "\(removed.text)")
            #expect(try await client.send(.get, "/v1/accounts", secret: admin).decoded(ShopBalanceListBody.self).limit_dzd == nil)
            let audit = try await client.send(.get, "/v1/audit", secret: admin).decoded(AuditListBody.self).entries.filter {
                $0.action == "account.limit"
            }
            #expect(audit.map(\.detail) == ["shops owing more than 500 DZD are shown past the limit", "no balance limit"], "\(audit)")
        }
    }

    @Test func aShopSeesItsOwnAccountAndNeverAnothers() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let shop = harness.vendor.id.uuidString.lowercased()
            let other = harness.otherVendor.id.uuidString.lowercased()
            try await Self.sell(client, months: [2])
            let own = try await client.send(.get, "/v1/vendors/\(shop)/account", secret: ServerHarness.vendorSecret)
            #expect(own.status == .ok)
            #expect(try own.decoded(ShopAccountBody.self).balance_dzd == 600)
            for path in ["/v1/vendors/\(shop)/account", "/v1/vendors/\(shop)/statement", "/v1/vendors/\(shop)/entries"] {
                let reply = try await client.send(.get, path, secret: ServerHarness.otherVendorSecret)
                #expect(reply.status == .notFound, "\(path) for another shop: \(reply.text)")
            }
            #expect(try await client.send(.get, "/v1/vendors/\(other)/account", secret: ServerHarness.otherVendorSecret).status == .ok)
            #expect(try await client.send(.get, "/v1/accounts", secret: ServerHarness.vendorSecret).status == .forbidden)
            #expect(try await client.send(.get, "/v1/accounts", secret: ServerHarness.backendSecret).status == .forbidden)
            #expect(try await client.send(.get, "/v1/vendors/\(shop)/account").status == .unauthorized)
        }
    }

    /// Runs `tool` with `arguments`: its exit status and what it printed.
    static func run(_ tool: String, _ arguments: [String], in folder: TemporaryFolder) async throws -> (status: Int32, output: String) {
        let output = folder.file("tool-output.txt")
        let process = try ChildProcess(tool, arguments, standardOutput: .file(output), standardError: .file(output))
        let status = await process.exited()
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    @Test func aStatementLoadsInHledgerAndBeancountAndClosesOnItsBalance() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let shop = harness.vendor.id.uuidString.lowercased()
            try await Self.sell(client, months: [1, 3])
            let remitted = try await Self.remit(
                client,
                shop,
                ["amount_dzd": 700, "method": "ccp", "reference": "=HYPERLINK(\"x\");1", "received_by": "Karim \"K\", Oran"],
                key: "r"
            ).decoded(ShopEntryBody.self)
            let adjusted = try await client.send(
                .post,
                "/v1/vendors/\(shop)/adjustments",
                secret: ServerHarness.adminSecret,
                json: ["amount_dzd": -20, "reason": "till short; counted twice"],
                headers: [Self.key: "a"]
            )
            #expect(adjusted.status == .created)
            let reversed = try await client.send(
                .post,
                "/v1/vendors/\(shop)/entries/\(remitted.seq)/reversal",
                secret: ServerHarness.adminSecret,
                json: ["reason": "wrong shop"],
                headers: [Self.key: "v"]
            )
            #expect(reversed.status == .created, "\(reversed.text)")
            let statement = try await client.send(.get, "/v1/vendors/\(shop)/statement", secret: ServerHarness.adminSecret).decoded(
                ShopStatementBody.self
            )
            #expect(statement.closing_balance_dzd == 1_200 - 20)
            #expect(statement.entries.map(\.kind) == ["remittance", "adjustment", "reversal"])
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            for (format, tool, arguments) in [
                ("hledger", "hledger", ["-f", folder.file("s.journal"), "balance", "--flat", "--no-total", "assets:receivable"]),
                ("beancount", "bean-check", [folder.file("s.beancount")]),
            ] {
                let reply = try await client.send(.get, "/v1/vendors/\(shop)/statement?format=\(format)", secret: ServerHarness.adminSecret)
                #expect(reply.status == .ok)
                let path = folder.file(format == "hledger" ? "s.journal" : "s.beancount")
                try Data(reply.body).write(to: URL(fileURLWithPath: path))
                let (status, output) = try await Self.run(tool, arguments, in: folder)
                #expect(status == 0, "\(tool) refused the journal: \(output)\n\(reply.text)")
                if format == "hledger" { #expect(output.contains("1180 DZD"), "\(output)") }
            }
            // The tools check the closing balance: a journal that states another fails.
            let journal = try await client.send(.get, "/v1/vendors/\(shop)/statement?format=hledger", secret: ServerHarness.adminSecret).text
            try journal.replacingOccurrences(of: "= 1180 DZD", with: "= 1181 DZD").write(
                toFile: folder.file("wrong.journal"),
                atomically: true,
                encoding: .utf8
            )
            #expect(try await Self.run("hledger", ["-f", folder.file("wrong.journal"), "balance"], in: folder).status != 0)
            let csv = try await client.send(.get, "/v1/vendors/\(shop)/statement?format=csv", secret: ServerHarness.adminSecret)
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            let lines = csv.text.components(separatedBy: "\r\n")
            #expect(lines.first == ShopStatementText.csvColumns.joined(separator: ","))
            #expect(lines.contains { $0.contains("\"'=HYPERLINK(\"\"x\"\");1\"") }, "a formula stays text: \(csv.text)")
            #expect(lines.contains { $0.contains("\"Karim \"\"K\"\", Oran\"") })
            #expect(lines.dropLast().last?.hasPrefix("\(statement.to),closing,,2,1200,0,0,0,700,") == true, "\(csv.text)")
        }
    }

    @Test func aStatementsPeriodAndFormatAreChecked() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let shop = harness.vendor.id.uuidString.lowercased()
            for (query, field) in [
                ("from=2026-13-01", "from"), ("to=yesterday", "to"), ("format=xlsx", "format"), ("lang=de", "lang"),
                ("from=2026-03-01&to=2026-02-01", "to"), ("from=2024-01-01&to=2026-01-01", "to"),
            ] {
                let reply = try await client.send(.get, "/v1/vendors/\(shop)/statement?\(query)", secret: ServerHarness.adminSecret)
                #expect(reply.status == .unprocessableContent && reply.errorFields[field] != nil, "\(query): \(reply.text)")
            }
        }
    }

    @Test(arguments: [("en", "Closing balance"), ("fr", "Solde de clôture"), ("ar", "الرصيد الختامي")])
    func aStatementIsAPDFInItsLanguageThatPopplerRendersAndReads(language: String, closing: String) async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let shop = harness.vendor.id.uuidString.lowercased()
            try await Self.sell(client, months: [1, 2])
            _ = try await Self.remit(client, shop, ["amount_dzd": 500, "method": "cash", "received_by": "Karim"], key: "r")
            let reply = try await client.send(.get, "/v1/vendors/\(shop)/statement?format=pdf&lang=\(language)", secret: ServerHarness.adminSecret)
            #expect(reply.status == .ok && reply.headers[.contentType] == "application/pdf")
            #expect(reply.body.starts(with: Array("%PDF-".utf8)))
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            try Data(reply.body).write(to: URL(fileURLWithPath: folder.file("s.pdf")))
            let text = try await Self.run("pdftotext", ["-layout", folder.file("s.pdf"), "-"], in: folder)
            #expect(text.status == 0)
            #expect(text.output.contains(closing), "\(text.output)")
            #expect(text.output.contains("Boucherie Centrale"))
            let picture = try await Self.run("pdftoppm", ["-r", "60", "-png", "-singlefile", folder.file("s.pdf"), folder.file("page")], in: folder)
            #expect(picture.status == 0 && FileManager.default.fileExists(atPath: folder.file("page.png")), "\(picture.output)")
            if let keep = ProcessInfo.processInfo.environment["PEEZ_KEEP_STATEMENT_PAGES"] {
                try? FileManager.default.copyItem(atPath: folder.file("page.png"), toPath: "\(keep)/statement-\(language).png")
            }
        }
    }
}
