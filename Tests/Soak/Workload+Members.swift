import CardCrypto
import Foundation
import PeezBasics

extension Workload {
    /// The backend changing members until `deadline`: a new name, the cards bound to a new phone's key, or to
    /// none (a lost phone). Each change is sent again, to the other instance, when its answer is lost.
    func changeMembers(until deadline: ContinuousClock.Instant) async {
        var random = SplitMix64.stream(0x3E3B, of: seed)
        var count = 0
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 150...600, using: &random)))
            count += 1
            let member = members[Int.random(in: 0..<members.count, using: &random)]
            let pick = Int.random(in: 0..<20, using: &random)
            let (kind, method, path, json, value): (HistoryEntry.Kind, String, String, [String: Any]?, String)
            if pick < 8 {
                let name = "Member \(member.id) v\(count)"
                (kind, method, path, json, value) = (.rename, "PATCH", "/v1/members/\(member.uuid)", ["name": name], name)
            } else if pick < 15, let key = try? Ed25519PrivateKey.generate() {
                let text = Base64URL.encode(key.publicKey.rawRepresentation)
                (kind, method, path, json, value) = (.deviceKey, "POST", "/v1/members/\(member.uuid)/device-key", ["public_key": text], text)
            } else {
                (kind, method, path, json, value) = (.deviceKey, "DELETE", "/v1/members/\(member.uuid)/device-key", nil, "none")
            }
            var operation = HistoryEntry(client: "backend", kind: kind, invoked: history.now(), completed: 0, outcome: .unknown, member: member.uuid)
            operation.value = value
            let instance = await sendChange(
                &operation,
                method,
                path,
                secret: adminSecret,
                json: json,
                from: Int.random(in: 0..<clients.count, using: &random),
                random: &random
            )
            // The app shows the card again at once, as it does after a change (from the instance that made it).
            if operation.outcome == .ok { history.record(await fetchCard(of: member, from: instance, by: "backend")) }
        }
    }
}
