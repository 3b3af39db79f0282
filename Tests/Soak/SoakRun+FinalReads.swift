import Foundation
import PeezAPI
import PeezBasics
import TestSupport

extension SoakRun {
    /// Every member's card fetched once more from each instance, once every change sent has had time to land
    /// (``LedgerChecker/lateness``): the cards the revocation list must leave valid.
    static func fetchLastCards(_ workload: Workload, instances: [ServiceUnderTest], history: History) async {
        try? await Task.sleep(for: .seconds(LedgerChecker.lateness + 1))
        for (index, instance) in instances.enumerated() {
            let client = SoakClient(port: instance.port, timeout: 10)
            for member in workload.members {
                history.record(await workload.fetchCard(of: member, from: index, through: client, by: "last-fetch"))
            }
        }
    }

    /// What the service and Chargily's stand-in say once the faults are over: the payments once each the gateway
    /// ended has been heard or read back (60 s at most), the revocation list, and the console's sales panel from
    /// the run's first day to today.
    static func finalReads(_ workload: Workload, client: SoakClient, deployment: Deployment, history: History) async throws -> FinalReads {
        let gatewayClient = SoakClient(port: deployment.chargily.port, timeout: 10)
        let secret = deployment.adminSecret
        var reads = FinalReads(
            membershipIDs: Dictionary((workload.members + workload.reminded).map { ($0.uuid, $0.id) }, uniquingKeysWith: { first, _ in first })
        )
        let begun = ContinuousClock.now
        while true {
            reads.gateway = try await gatewayClient.required("GET", "/_control/checkouts", secret: "", as: GatewayCheckouts.self).statuses
            reads.payments = try await client.required("GET", "/v1/payments?limit=1000", secret: secret, as: PaymentListBody.self).payments
            let waiting = reads.payments.filter { payment in
                payment.checkout_id.flatMap { reads.gateway[$0] }.map { ["paid", "failed", "canceled"].contains($0) && $0 != payment.status } ?? false
            }
            guard !waiting.isEmpty, begun.duration(to: .now) < .seconds(60) else { break }
            try await Task.sleep(for: .seconds(1))
        }
        var scans: [ReportedScanBody] = []
        for member in workload.members + workload.reminded {
            scans += try await client.required("GET", "/v1/scans?membership_id=\(member.id)&limit=1000", secret: secret, as: ScanListBody.self).scans
        }
        reads.scans = scans
        reads.revokedBefore = try await client.required("GET", "/v1/revocations", secret: secret, as: RevocationList.self).members
        let link = try await client.required("POST", "/v1/console/links", secret: secret, as: ConsoleLink.self).link
        let code = link.components(separatedBy: "#signin=").last ?? ""
        let session = try await client.requiredExchange("POST", "/console/api/session", secret: "", json: ["code": code], as: ConsoleSession.self)
        let cookie = String(session.fields["set-cookie"]?.split(separator: ";").first ?? "")
        let from = LedgerChecker.dayText(history.startDate)
        let to = LedgerChecker.dayText(Date())
        reads.sales = try await client.required(
            "GET",
            "/console/api/sales?from=\(from)&to=\(to)",
            secret: "",
            headers: ["Cookie": cookie],
            as: FinalReads.SalesPanel.self
        )
        var accounts: [String: FinalReads.ShopAccount] = [:]
        for shop in workload.shops {
            var entries: [ShopEntryBody] = []
            while true {
                let page = try await client.required(
                    "GET",
                    "/v1/vendors/\(shop.id)/entries?limit=1000&after=\(entries.last?.seq ?? 0)",
                    secret: secret,
                    as: ShopEntryListBody.self
                ).entries
                entries += page
                if page.count < 1000 { break }
            }
            let statement = try await client.required(
                "GET",
                "/v1/vendors/\(shop.id)/statement?from=\(from)&to=\(to)",
                secret: secret,
                as: ShopStatementBody.self
            )
            accounts[shop.id] = FinalReads.ShopAccount(entries: entries, statement: statement)
        }
        reads.accounts = accounts
        return reads
    }

    /// Apple Wallet at the end: each phone's member renamed once more (the last change to their pass, recorded);
    /// once the outbox is empty (60 s at most), each phone pushed since does as Wallet does (the passes changed
    /// since its tag, then each of its passes listed and modified since the one it holds); then the pushes the APNs
    /// stand-in took, and what each phone shows beside the member's name as the service has it.
    static func walletReads(_ workload: Workload, client: SoakClient, deployment: Deployment, history: History) async throws -> FinalReads.Wallet {
        var phones = workload.walletPhones.all.filter(\.registered)
        var renamed: [String: Double] = [:]
        for phone in phones where renamed[phone.member.uuid] == nil {
            renamed[phone.member.uuid] = try await lastRename(phone.member, client: client, deployment: deployment, history: history)
        }
        let waiting = try await waitForWalletOutbox("Apple Wallet", deployment: deployment)
        let start = history.startDate.timeIntervalSince1970
        let pushes = deployment.apns.requests.compactMap { push -> FinalReads.Wallet.Push? in
            guard let token = push["token"] as? String, let at = push["at"] as? Double, let status = push["status"] as? Int else { return nil }
            return FinalReads.Wallet.Push(token: token, at: at - start, status: status)
        }
        for device in Workload.devices(of: phones) {
            let held = phones.filter { $0.device == device }
            let renamedAt = held.compactMap { renamed[$0.member.uuid] }.min() ?? .infinity
            if pushes.contains(where: { $0.token == held[0].pushToken && $0.status == 200 && $0.at >= renamedAt }) {
                // Wallet asks again later when an answer is lost.
                for attempt in 0..<20 {
                    if attempt > 0 { try await Task.sleep(for: .milliseconds(500)) }
                    if await workload.update(&phones, device: device, through: client) != .unknown { break }
                }
            }
        }
        var read: [FinalReads.Wallet.Phone] = []
        for index in phones.indices {
            let member = try await client.required(
                "GET",
                "/v1/members/\(phones[index].member.uuid)",
                secret: deployment.adminSecret,
                as: MemberBody.self
            )
            read.append(
                FinalReads.Wallet.Phone(
                    device: phones[index].device,
                    member: phones[index].member.uuid,
                    memberName: member.name,
                    passName: phones[index].shown
                )
            )
        }
        return FinalReads.Wallet(pushes: pushes, waiting: waiting, phones: read)
    }

    /// The member renamed "Member <id> last" (recorded), sent again while its answer is lost (the instances still
    /// reach PostgreSQL through the faulty proxy); when it was invoked.
    static func lastRename(
        _ member: (id: String, uuid: String),
        client: SoakClient,
        deployment: Deployment,
        history: History
    ) async throws
        -> Double
    {
        let name = "Member \(member.id) last"
        var rename = HistoryEntry(client: "last-change", kind: .rename, invoked: history.now(), completed: 0, outcome: .unknown, member: member.uuid)
        rename.value = name
        repeat {
            if !rename.attempts.isEmpty { try await Task.sleep(for: .milliseconds(250)) }
            let exchange = await client.send("PATCH", "/v1/members/\(member.uuid)", secret: deployment.adminSecret, json: ["name": name])
            (rename.outcome, rename.instance) = (exchange.outcome, 0)
            rename.attempts.append(exchange.summary)
        } while rename.outcome == .unknown && rename.attempts.count < 40
        rename.completed = history.now()
        history.record(rename)
        return rename.invoked
    }

    /// What `peez wallet status` counts waiting on `channel`'s line ("Apple Wallet", "Google Wallet") once it
    /// is nothing or a minute has passed (nil: it could not be read).
    static func waitForWalletOutbox(_ channel: String, deployment: Deployment) async throws -> Int? {
        var waiting: Int?
        let begun = ContinuousClock.now
        repeat {
            if waiting != nil { try await Task.sleep(for: .seconds(1)) }
            let status = try await ProcessRunner.run([deployment.peez, "wallet", "status"] + deployment.ledgerArguments)
            // "Apple Wallet: 3 pass(es) on 2 device(s), 0 update(s) waiting"
            let line = status.standardOutput.split(separator: "\n").first { $0.hasPrefix("\(channel):") } ?? ""
            waiting = line.components(separatedBy: ", ").first { $0.hasSuffix("update(s) waiting") }?.split(separator: " ").first.flatMap { Int($0) }
        } while waiting != 0 && begun.duration(to: .now) < .seconds(60)
        return waiting
    }

    /// Google Wallet at the end: two members who have not saved their card ask for its link, are renamed while
    /// they look at the card Google shows, and save it once the outbox is empty (the rename sent before Google
    /// held their object); once the outbox is empty again (60 s at most), every object Google holds as it holds
    /// it last (from the stand-in's log), beside its member as the service has them, and every update the
    /// stand-in took.
    static func googleWalletReads(
        _ workload: Workload,
        client: SoakClient,
        deployment: Deployment,
        history: History
    ) async throws
        -> FinalReads.GoogleWallet
    {
        let saved = Set(history.all.filter { $0.kind == .googleSave && $0.outcome == .ok }.compactMap(\.member))
        let unsaved = stride(from: 1, to: workload.members.count, by: 2).map { workload.members[$0] }.filter { !saved.contains($0.uuid) }
        var (late, random) = (0, SplitMix64.stream(0x1A7E, of: workload.seed))
        for member in unsaved where late < 2 {
            let done = await workload.saveToGoogleWallet(
                member,
                client: "android-late-\(late)",
                through: 0,
                standIn: deployment.google,
                random: &random
            ) {
                _ = try? await lastRename(member, client: client, deployment: deployment, history: history)
                _ = try? await waitForWalletOutbox("Google Wallet", deployment: deployment)
            }
            if done { late += 1 }
        }
        let waiting = try await waitForWalletOutbox("Google Wallet", deployment: deployment)
        let start = history.startDate.timeIntervalSince1970
        let prefix = GoogleWalletStandIn.issuerID + "."
        var updates: [FinalReads.GoogleWallet.Update] = []
        var held: [String: [String: Any]] = [:]
        for request in deployment.google.requests {
            guard let id = request["object"] as? String, id.hasPrefix(prefix), let at = request["at"] as? Double else { continue }
            let member = String(id.dropFirst(prefix.count))
            if let state = request["state"] as? [String: Any] { held[member] = state }
            if let status = request["status"] as? Int, request["saved"] == nil, request["method"] as? String != "GET" {
                updates.append(FinalReads.GoogleWallet.Update(member: member, at: at - start, status: status))
            }
        }
        var objects: [FinalReads.GoogleWallet.Object] = []
        for (member, state) in held.sorted(by: { $0.key < $1.key }) {
            let subscription = try await client.required(
                "GET",
                "/v1/members/\(member)/subscription",
                secret: deployment.adminSecret,
                as: SubscriptionBody.self
            )
            let name = try await client.required("GET", "/v1/members/\(member)", secret: deployment.adminSecret, as: MemberBody.self).name
            // The wire itself: the generic object as Google's Wallet API holds it.
            let header = (state["header"] as? [String: Any])?["defaultValue"] as? [String: Any]
            let end = ((state["validTimeInterval"] as? [String: Any])?["end"] as? [String: Any])?["date"] as? String
            objects.append(
                FinalReads.GoogleWallet.Object(
                    member: member,
                    shown: "\(header?["value"] as? String ?? "no name") until \(end ?? "no end")",
                    ledger: "\(name) until \(subscription.coverage.ends_at ?? "no end")"
                )
            )
        }
        return FinalReads.GoogleWallet(waiting: waiting, objects: objects, updates: updates)
    }

    /// The reminders' states as `peez remind status` counts them, and what the receiver took.
    static func reminderReads(_ receiver: ReminderReceiver, deployment: Deployment) async throws -> FinalReads.Reminders {
        let status = try await ProcessRunner.run([deployment.peez, "remind", "status", "--limit", "1"] + deployment.ledgerArguments)
        // "pending 0  unknown 0  delivered 12  failed 0  superseded 0  exhausted 0"
        let words = status.standardOutput.split(separator: "\n").first?.split(separator: " ") ?? []
        var states: [String: Int] = [:]
        for index in stride(from: 0, to: words.count - 1, by: 2) { states[String(words[index])] = Int(words[index + 1]) }
        let stats = try await SoakClient(port: receiver.port, timeout: 10).required("GET", "/stats", secret: "", as: [String: Int].self)
        return FinalReads.Reminders(states: states, received: receiver.received, duplicates: stats["duplicates"] ?? 0)
    }

    private struct GatewayCheckouts: Decodable {
        struct Checkout: Decodable {
            let id: String
            let status: String
        }
        let checkouts: [Checkout]
        var statuses: [String: String] { Dictionary(checkouts.map { ($0.id, $0.status) }, uniquingKeysWith: { first, _ in first }) }
    }

    private struct RevocationList: Decodable {
        let members: [String: Int64]
    }

    private struct ConsoleLink: Decodable {
        let link: String
    }

    private struct ConsoleSession: Decodable {
        let actor: String
    }
}
