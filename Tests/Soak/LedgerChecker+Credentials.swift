import Foundation

extension LedgerChecker {
    /// How long after a revocation answered by one instance another may still accept the credential: the
    /// README's bound (the database's notification, or 5 s of trust in a credential read while an instance's
    /// listener is down). The instance that answered refuses it at once.
    public static let revocationBound = 5.0

    /// No credential authorises a sale sent after its revocation was answered (plus the bound, on another
    /// instance) or after its rotation's grace ended (give or take the instances' clocks' steps and the second
    /// the end is written in); and no enrolment code gives more than one credential.
    func checkCredentials(_ findings: inout Findings) {
        let revocations = Dictionary(grouping: history.filter { $0.kind == .credentialRevoke && $0.outcome == .ok }) { $0.credential ?? "" }
        let rotations = Dictionary(grouping: history.filter { $0.kind == .credentialRotate && $0.outcome == .ok && $0.expiresAt != nil }) {
            $0.credential ?? ""
        }
        let offsets = [0] + history.filter { $0.kind == .fault }.compactMap { $0.value.flatMap(Int.init) }
        let clockSpread = Double((offsets.max() ?? 0) - (offsets.min() ?? 0))
        for sale in history where sale.kind == .sale && sale.outcome == .ok {
            guard let credential = sale.credential, let sent = sale.answeredAttemptInvoked else { continue }
            // A sale replayed tells of one made before (checked against the ledger above), authorises nothing new.
            for revocation in revocations[credential] ?? [] where sale.detail != "replayed" {
                let bound = revocation.instance == sale.instance ? 0 : Self.revocationBound
                findings.expect(
                    sent <= revocation.completed + bound,
                    "no credential authorises a request begun after its revocation",
                    "sale \(sale.index) with credential \(credential) was sent at \(Self.seconds(sent)) to instance \(sale.instance ?? 0) and "
                        + "accepted; revocation \(revocation.index) was answered by instance \(revocation.instance ?? 0) at "
                        + "\(Self.seconds(revocation.completed))",
                    member: sale.member
                )
            }
            for rotation in rotations[credential] ?? [] where sale.detail != "replayed" {
                let end = (rotation.expiresAt ?? 0) + 1 + clockSpread
                findings.expect(
                    sent <= end,
                    "no credential authorises a request begun after its rotation's grace",
                    "sale \(sale.index) with credential \(credential) was sent at \(Self.seconds(sent)) and accepted; rotation \(rotation.index) "
                        + "ended its grace at \(Self.seconds(rotation.expiresAt ?? 0)) (instances' clocks up to \(Int(clockSpread)) s apart)",
                    member: sale.member
                )
            }
        }
        let redeemed = Dictionary(grouping: history.filter { $0.kind == .enrolment && $0.outcome == .ok }) { $0.code ?? "" }
        for (code, redemptions) in redeemed {
            findings.expect(
                redemptions.count == 1,
                "an enrolment code enrols one device",
                "code …\(code.suffix(4)) was redeemed \(redemptions.count) times: operations \(redemptions.map(\.index)), "
                    + "credentials \(redemptions.compactMap(\.credential))",
                member: nil
            )
        }
    }

    /// A moment of the run, as its history shows them.
    static func seconds(_ time: Double) -> String { String(format: "%.3f s", time) }
}
