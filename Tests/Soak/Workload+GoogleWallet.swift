import Foundation
import PeezAPI
import PeezBasics
import TestSupport

extension Workload {
    /// At most this many members save their card to Google Wallet as a run goes (two more, who have not, do at
    /// its end: see ``SoakRun/googleWalletReads(_:client:deployment:history:)``).
    static let googleSavers = 3

    /// Members of odd rank saving their card to Google Wallet until `deadline`, one every second or two. Later
    /// changes reach the object through the service's outbox, not through the phone.
    func saveToGoogleWallet(until deadline: ContinuousClock.Instant, google: GoogleWalletStandIn) async {
        var random = SplitMix64.stream(0x600613, of: seed)
        var saved: [String] = []
        var count = 0
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 800...2_500, using: &random)))
            let candidates = stride(from: 1, to: members.count, by: 2).map { members[$0] }.filter { !saved.contains($0.uuid) }
            guard saved.count < Self.googleSavers, !candidates.isEmpty else { continue }
            let member = candidates[Int.random(in: 0..<candidates.count, using: &random)]
            count += 1
            // Google shows the card before the member saves it: changes may land meanwhile.
            let look = Duration.milliseconds(Int.random(in: 0...1_500, using: &random))
            let instance = Int.random(in: 0..<clients.count, using: &random)
            if await saveToGoogleWallet(
                member,
                client: "android-\(seed)-\(count)",
                through: instance,
                standIn: google,
                random: &random,
                meanwhile: {
                    try? await Task.sleep(for: look)
                }
            ) {
                saved.append(member.uuid)
            }
        }
    }

    /// A member saving their card to Google Wallet as the app does it: the backend asks the service (through
    /// `instance`) for the member's save link (a member whose cards are bound to their phone removes its key
    /// first, as the service's 409 tells them to: a Wallet barcode is static); `meanwhile` happens while the
    /// member looks at the card Google shows; then the link is opened at Google's stand-in (which keeps an object
    /// it already holds). Recorded; true when saved.
    func saveToGoogleWallet(
        _ member: (id: String, uuid: String),
        client: String,
        through instance: Int,
        standIn google: GoogleWalletStandIn,
        random: inout SplitMix64,
        meanwhile: () async -> Void
    ) async -> Bool {
        var operation = HistoryEntry(client: client, kind: .googleSave, invoked: history.now(), completed: 0, outcome: .unknown, member: member.uuid)
        operation.instance = instance
        let path = "/v1/members/\(member.uuid)/google-wallet"
        var link = await clients[instance].send("GET", path, secret: adminSecret)
        if link.status == 409 {
            var unbind = HistoryEntry(client: client, kind: .deviceKey, invoked: history.now(), completed: 0, outcome: .unknown, member: member.uuid)
            unbind.value = "none"
            let answered = await sendChange(
                &unbind,
                "DELETE",
                "/v1/members/\(member.uuid)/device-key",
                secret: adminSecret,
                json: nil,
                from: instance,
                random: &random
            )
            if unbind.outcome == .ok { link = await clients[answered].send("GET", path, secret: adminSecret) }
        }
        operation.attempts.append(link.summary)
        operation.outcome = link.status == 409 ? .refused : link.outcome
        if link.status == 200, let body = try? JSONDecoder().decode(GoogleWalletLinkBody.self, from: link.body),
            let jwt = body.save_url.split(separator: "/").last
        {
            await meanwhile()
            let opened = await SoakClient(port: google.port).send("GET", "/gp/v/save/\(jwt)", secret: "")
            operation.attempts.append("save \(opened.summary)")
            operation.outcome = opened.status == 200 ? .ok : .unknown
            operation.value = "\(GoogleWalletStandIn.issuerID).\(member.uuid)"
        }
        operation.completed = history.now()
        history.record(operation)
        return operation.outcome == .ok
    }
}
