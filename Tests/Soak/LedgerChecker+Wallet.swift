import Foundation

extension LedgerChecker {
    /// Apple Wallet's outbox once the run is over: nothing is left waiting; every change to a member's pass (a sale,
    /// a cancellation, a new name) answered after a device registered for it, and the device never unregistered,
    /// is followed by a push to that device's token that APNs accepted; no push goes to a token no device
    /// registered; and the pass a phone fetches shows the member as the service has them.
    func checkWallet(_ findings: inout Findings) {
        guard let wallet = final.wallet else { return }
        Self.expectNothingWaiting(wallet.waiting, "every Wallet update is pushed", &findings)
        let registrations = history.filter { $0.kind == .walletRegister }
        let tokens = Set(registrations.compactMap(\.value))
        for push in wallet.pushes {
            findings.expect(
                tokens.contains(push.token),
                "a push goes only to a registered device",
                "APNs was sent token \(push.token) at \(String(format: "%.3f", push.at)), which no device registered",
                member: nil
            )
        }
        // A device unregisters one pass at a time (it may hold two members' passes).
        let unregistered = Set(history.filter { $0.kind == .walletUnregister }.map { "\($0.device ?? "") \($0.member ?? "")" })
        for registration in registrations where registration.outcome == .ok {
            guard let device = registration.device, !unregistered.contains("\(device) \(registration.member ?? "")"), let token = registration.value,
                let member = registration.member, let change = lastPassChange(of: member, after: registration.completed)
            else { continue }
            findings.expect(
                wallet.pushes.contains { $0.token == token && $0.status == 200 && $0.at >= change.invoked },
                "every change to a pass is pushed to each device registered for it",
                "\(device) registered at \(String(format: "%.3f", registration.completed)); the \(change.kind.rawValue) invoked at "
                    + "\(String(format: "%.3f", change.invoked)) was followed by no push APNs accepted for its token "
                    + "(its last pushes: \(wallet.pushes.filter { $0.token == token }.suffix(5).map { String(format: "%.3f %d", $0.at, $0.status) }))",
                member: member
            )
        }
        for phone in wallet.phones {
            findings.expect(
                phone.passName != nil && phone.passName == phone.memberName,
                "the pass a phone fetches shows the member as the ledger has them",
                "\(phone.device)'s pass shows \(phone.passName ?? "nothing (not fetched)"); the member is \(phone.memberName ?? "unknown")",
                member: phone.member
            )
        }
    }

    /// That a Wallet outbox had nothing waiting once the run was over (`waiting` as `peez wallet status` counted it).
    static func expectNothingWaiting(_ waiting: Int?, _ invariant: String, _ findings: inout Findings) {
        findings.expect(
            waiting == 0,
            invariant,
            "once the run was over, `peez wallet status` counted \(waiting.map(String.init) ?? "an unreadable number of") update(s) waiting",
            member: nil
        )
    }

    /// The last change to what `member`'s Wallet pass shows (a sale, a cancellation, a new name), answered as made,
    /// invoked after `moment`.
    func lastPassChange(of member: String, after moment: Double) -> HistoryEntry? {
        history.filter { [.sale, .cancellation, .rename].contains($0.kind) && $0.outcome == .ok && $0.member == member && $0.invoked > moment }
            .max { $0.invoked < $1.invoked }
    }
}
