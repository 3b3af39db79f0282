import Foundation
import PeezBasics
import Synchronization
import TestSupport

/// A member's card in an iPhone's Apple Wallet, as the run's phones keep it: the device, the pass's serial and
/// token (from its `pass.json`), the push token the device registered with. A phone holding two members' cards is
/// two of these with one device, one push token and one tag.
struct WalletPhone: Sendable {
    let device: String
    let member: (id: String, uuid: String)
    let passToken: String
    let pushToken: String
    /// The tag of the last updates the device asked for (Apple's `passesUpdatedSince`), one for all its passes.
    var tag = ""
    /// How many pushes to its token it had acted on.
    var pushesSeen = 0
    /// The member's name the pass it holds shows, and that pass's `Last-Modified`.
    var shown: String?
    var lastModified: String?
    /// Whether its registration was answered 2xx (one whose answer was lost may or may not stand).
    var registered = false
}

/// What a client of the run holds as it goes (the phones holding a pass), for the run's final reads.
final class Held<Element: Sendable>: Sendable {
    private let list = Mutex<[Element]>([])

    var all: [Element] {
        get { list.withLock { $0 } }
        set { list.withLock { $0 = newValue } }
    }
}

extension Workload {
    /// At most this many phones at once.
    static let walletPhones = 6

    /// Members' iPhones until `deadline` (members of even rank: those of odd rank use Google Wallet), as Apple
    /// Wallet behaves (Apple's PassKit web service contract): a pass
    /// downloaded and added registers its device with a push token; a pass removed unregisters it; a phone that was
    /// pushed asks which of its passes changed since its tag and fetches the latest of each. Each registration,
    /// unregistration and update is recorded; the pushes are what the APNs stand-in logs.
    func useWallet(until deadline: ContinuousClock.Instant, apns: APNsStandIn) async {
        var random = SplitMix64.stream(0xA11E7, of: seed)
        var phones: [WalletPhone] = []
        var count = 0
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 200...700, using: &random)))
            count += 1
            // Passes come (below three, at once) more often than they go (never below three); one in four goes onto
            // a phone holding one already (a parent keeping a child's card too).
            let pick = Int.random(in: 0..<20, using: &random)
            if phones.count < Self.walletPhones, pick < 4 || phones.count < 3 {
                let alone = phones.filter { phone in phones.filter { $0.device == phone.device }.count == 1 }
                let onto = pick == 0 && !alone.isEmpty ? alone[Int.random(in: 0..<alone.count, using: &random)] : nil
                if let phone = await addPass(count: count, onto: onto, random: &random) { phones.append(phone) }
            } else if pick == 4, phones.count > 3 {
                let phone = phones.remove(at: Int.random(in: 0..<phones.count, using: &random))
                await removePass(phone, random: &random)
            } else {
                let pushes = apns.requests.compactMap { $0["token"] as? String }
                for device in Self.devices(of: phones) {
                    let held = phones.indices.filter { phones[$0].device == device }
                    let seen = pushes.filter { $0 == phones[held[0]].pushToken }.count
                    guard seen > phones[held[0]].pushesSeen else { continue }
                    for index in held { phones[index].pushesSeen = seen }
                    await update(&phones, device: device, through: clients[Int.random(in: 0..<clients.count, using: &random)])
                }
            }
            walletPhones.all = phones
        }
    }

    /// The devices of `phones`, each once, in a fixed order.
    static func devices(of phones: [WalletPhone]) -> [String] {
        Array(Set(phones.map(\.device))).sorted()
    }

    /// A member adds their card to Wallet, on a new phone or `onto` the phone holding another member's: the pass
    /// downloaded by the app (the backend asks for it), then the device registered with the pass's token. Nil when
    /// the pass could not be had.
    private func addPass(count: Int, onto other: WalletPhone?, random: inout SplitMix64) async -> WalletPhone? {
        var member = members[Int.random(in: 0..<(members.count + 1) / 2, using: &random) * 2]
        if let other, member.uuid == other.member.uuid { member = members[(members.firstIndex { $0.uuid == member.uuid }! + 2) % members.count] }
        let instance = Int.random(in: 0..<clients.count, using: &random)
        let download = await clients[instance].send("GET", "/v1/members/\(member.uuid)/pass.pkpass", secret: adminSecret)
        guard download.status == 200, let pass = await Self.passJSON(download.body), let token = pass["authenticationToken"] as? String else {
            return nil
        }
        // One phone in four is one APNs first answers 429 (too many requests), as the stand-in does for tokens
        // starting "cafe": its push is retried. No token starts as those the stand-in refuses for good.
        let pushToken =
            (Int.random(in: 0..<4, using: &random) == 0 ? "cafe" : "a1a1")
            + (0..<30).map { _ in String(format: "%02x", Int.random(in: 0..<256, using: &random)) }.joined()
        var phone = WalletPhone(
            device: other?.device ?? "phone-\(seed)-\(count)",
            member: member,
            passToken: token,
            pushToken: other?.pushToken ?? pushToken
        )
        (phone.shown, phone.lastModified) = (Self.memberName(in: pass), download.fields["last-modified"])
        (phone.tag, phone.pushesSeen) = (other?.tag ?? "", other?.pushesSeen ?? 0)
        var operation = walletOperation(.walletRegister, phone)
        await send(&operation, "POST", phone, json: ["pushToken": phone.pushToken], random: &random)
        phone.registered = operation.outcome == .ok
        return phone
    }

    /// The pass removed from the phone: its device unregistered.
    private func removePass(_ phone: WalletPhone, random: inout SplitMix64) async {
        var operation = walletOperation(.walletUnregister, phone)
        await send(&operation, "DELETE", phone, json: nil, random: &random)
    }

    /// A pushed phone asks which of its passes changed since its tag, and fetches each listed one that was modified
    /// since the one it holds (`If-Modified-Since`), as Wallet does; it shows what it holds. The tag is kept only
    /// once every listed pass was fetched. One update recorded a pass of the device; the worst outcome returned.
    @discardableResult
    func update(_ phones: inout [WalletPhone], device: String, through client: SoakClient) async -> Outcome {
        let held = phones.indices.filter { phones[$0].device == device }
        guard let first = held.first else { return .ok }
        let invoked = history.now()
        let changed = await client.send(
            "GET",
            "\(Self.walletDevices)/\(device)/registrations/\(WalletCertificates.passTypeIdentifier)?passesUpdatedSince=\(phones[first].tag)",
            secret: ""
        )
        var listed: (serials: [String], tag: String)?
        if changed.status == 200, let body = try? JSONSerialization.jsonObject(with: changed.body) as? [String: Any],
            let serials = body["serialNumbers"] as? [String], let tag = body["lastUpdated"] as? String
        {
            listed = (serials, tag)
        }
        var outcomes: [Outcome] = []
        for index in held {
            var operation = walletOperation(.walletUpdate, phones[index])
            operation.invoked = invoked
            operation.attempts.append(changed.summary)
            operation.outcome = changed.outcome
            if let listed, listed.serials.contains(phones[index].member.uuid) {
                let latest = await client.send(
                    "GET",
                    "/wallet/v1/passes/\(WalletCertificates.passTypeIdentifier)/\(phones[index].member.uuid)",
                    secret: "",
                    headers: ["Authorization": "ApplePass \(phones[index].passToken)"].merging(
                        phones[index].lastModified.map { ["If-Modified-Since": $0] } ?? [:],
                        uniquingKeysWith: { $1 }
                    )
                )
                operation.attempts.append(latest.summary)
                operation.outcome = latest.status == 304 ? .ok : latest.outcome
                if latest.status == 200 {
                    if let pass = await Self.passJSON(latest.body) {
                        (phones[index].shown, phones[index].lastModified) = (Self.memberName(in: pass), latest.fields["last-modified"])
                    } else {
                        operation.outcome = .unknown
                    }
                }
                operation.value = phones[index].shown
            }
            operation.completed = history.now()
            history.record(operation)
            outcomes.append(operation.outcome)
        }
        if let listed, !outcomes.contains(.unknown) {
            for index in held { phones[index].tag = listed.tag }
        }
        return outcomes.contains(.unknown) ? .unknown : outcomes.contains(.refused) ? .refused : .ok
    }

    /// Sends a registration change for `phone`, again to the next instance while its answer is lost (3 times at
    /// most), and records it.
    private func send(_ operation: inout HistoryEntry, _ method: String, _ phone: WalletPhone, json: [String: Any]?, random: inout SplitMix64) async {
        await sendChange(
            &operation,
            method,
            "\(Self.walletDevices)/\(phone.device)/registrations/\(WalletCertificates.passTypeIdentifier)/\(phone.member.uuid)",
            secret: "",
            json: json,
            headers: ["Authorization": "ApplePass \(phone.passToken)"],
            from: Int.random(in: 0..<clients.count, using: &random),
            random: &random
        )
    }

    private func walletOperation(_ kind: HistoryEntry.Kind, _ phone: WalletPhone) -> HistoryEntry {
        var operation = HistoryEntry(
            client: phone.device,
            kind: kind,
            invoked: history.now(),
            completed: 0,
            outcome: .unknown,
            member: phone.member.uuid
        )
        operation.device = phone.device
        operation.value = phone.pushToken
        return operation
    }

    /// Where Wallet's devices talk to the service (the web service URL the instances are given, plus `/v1/devices`).
    static let walletDevices = "/wallet/v1/devices"

    /// The `pass.json` of a pass archive (a zip), read by Python's zipfile as any unzip would.
    static func passJSON(_ archive: Data) async -> [String: Any]? {
        let read = try? await ProcessRunner.run(
            [
                "python3", "-c",
                "import io, sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read())).read('pass.json'))",
            ],
            input: archive
        )
        guard let read, read.status == 0 else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(read.standardOutput.utf8)) as? [String: Any]
    }

    /// The member's name a pass shows (its primary field).
    static func memberName(in pass: [String: Any]) -> String? {
        let card = pass["storeCard"] as? [String: Any]
        return (card?["primaryFields"] as? [[String: Any]])?.first { $0["key"] as? String == "member" }?["value"] as? String
    }
}
