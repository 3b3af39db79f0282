import Foundation

extension LedgerChecker {
    /// Google Wallet's outbox once the run is over: nothing is left waiting; every change to a member (a sale, a
    /// cancellation, a new name) answered after their card was saved is followed by an update of the object that
    /// Google accepted; no object Google holds is one the service never gave a link for; and every object Google
    /// holds shows the member as the service has them (a link opened after a change included).
    func checkGoogleWallet(_ findings: inout Findings) {
        guard let google = final.googleWallet else { return }
        Self.expectNothingWaiting(google.waiting, "every Google Wallet update is sent", &findings)
        let saves = history.filter { $0.kind == .googleSave }
        let linked = Set(saves.compactMap(\.member))
        for object in google.objects {
            findings.expect(
                linked.contains(object.member),
                "Google holds only objects whose link was asked for",
                "Google holds an object of \(object.member), for whom no save link was asked",
                member: object.member
            )
            findings.expect(
                object.shown == object.ledger,
                "the object Google holds shows the member as the ledger has them",
                "Google's object shows \(object.shown); the member is \(object.ledger)",
                member: object.member
            )
        }
        for save in saves where save.outcome == .ok {
            guard let member = save.member, let change = lastPassChange(of: member, after: save.completed) else { continue }
            findings.expect(
                google.updates.contains { $0.member == member && $0.status == 200 && $0.at >= change.invoked },
                "every change to a saved card is sent to Google",
                "the card was saved at \(String(format: "%.3f", save.completed)); the \(change.kind.rawValue) invoked at "
                    + "\(String(format: "%.3f", change.invoked)) was followed by no update Google accepted "
                    + "(its last updates: \(google.updates.filter { $0.member == member }.suffix(5).map { String(format: "%.3f %d", $0.at, $0.status) }))",
                member: member
            )
        }
    }
}
