import Foundation
import PeezAPI

extension LedgerChecker {
    /// A card shows the member as a change left them: its name and the phone key it is bound to are those of a
    /// change not overtaken before the fetch began (the last ones answered by then, allowing another instance the
    /// propagation bound, or any sent while it ran or whose answer was lost). The revocation list the counters
    /// sync revokes every card answered before a change that revokes (a cancellation, a new phone key) was
    /// sent, and no card fetched once every such change was over.
    func checkMembersChanges(_ findings: inout Findings) {
        let fetches = history.filter { $0.kind == .cardFetch && $0.outcome == .ok }
        let changes = Dictionary(grouping: history.filter { [.rename, .deviceKey].contains($0.kind) && $0.outcome != .refused }) {
            "\($0.member ?? "") \($0.kind.rawValue)"
        }
        // A fetch answered without a card is the rule "answers read"'s.
        for fetch in fetches where fetch.value != nil {
            for (kind, shown, initial) in [(HistoryEntry.Kind.rename, fetch.value, nil), (.deviceKey, fetch.deviceKey, "none")] {
                let acceptable = Self.acceptable(changes["\(fetch.member ?? "") \(kind.rawValue)"] ?? [], for: fetch, initial: initial)
                findings.expect(
                    shown.map(acceptable.contains) == true,
                    "a card shows the member as the last change left them",
                    "card fetch \(fetch.index) (instance \(fetch.instance ?? 0)) was answered a card showing \(kind == .rename ? "the name" : "the phone key") "
                        + "\"\(shown ?? "nothing")\"; the changes not overtaken when it began set \(acceptable.sorted())",
                    member: fetch.member
                )
            }
        }
        checkRevocationList(fetches, &findings)
    }

    /// How long after its client gave up a change whose answer was lost may still be carried out.
    public static let lateness = 20.0

    /// The values a fetch may show: those of the changes answered before it began that no later answered change
    /// overtook (with `initial` when none was), and of every change sent before it ended that was not answered
    /// before it began.
    static func acceptable(_ changes: [HistoryEntry], for fetch: HistoryEntry, initial: String?) -> Set<String> {
        func before(_ change: HistoryEntry) -> Bool {
            change.outcome == .ok && change.completed + (change.instance == fetch.instance ? 0 : propagationBound) < fetch.invoked
        }
        let done = changes.filter(before)
        let latest = done.filter { change in !done.contains { $0.invoked > change.completed } }
        let open = changes.filter { !before($0) && $0.invoked < fetch.completed }
        var values = Set((latest + open).compactMap(\.value))
        if done.isEmpty, let initial { values.insert(initial) }
        return values
    }

    /// The revocation list, as read after the run, against the cards fetched: revoked if answered before a change
    /// that revokes was sent; not revoked if fetched after every change that may revoke was over.
    private func checkRevocationList(_ fetches: [HistoryEntry], _ findings: inout Findings) {
        guard !final.membershipIDs.isEmpty else { return }
        let revoking = history.filter {
            ($0.kind == .cancellation && $0.outcome == .ok) || ($0.kind == .deviceKey && $0.outcome == .ok && $0.value != "none")
        }
        let mayRevoke = history.filter { [.cancellation, .deviceKey].contains($0.kind) && $0.outcome != .refused }
        let revokingByMember = Dictionary(grouping: revoking) { $0.member ?? "" }
        let lastChange = Dictionary(grouping: mayRevoke) { $0.member ?? "" }.mapValues { $0.map(\.completed).max() ?? 0 }
        // A request whose answer was lost may still be carried out later: the service finishes what it received
        // even when the client has gone, and a statement may wait for a database connection (5 s) more than once
        // while PostgreSQL is away (a cancellation applied 8 s after its client gave up was seen).
        let lateness = Self.lateness
        for fetch in fetches {
            guard let member = fetch.member, let issued = fetch.issuedAt.flatMap(Self.time)?.timeIntervalSince1970 else { continue }
            let cutOff = final.membershipIDs[member].flatMap { final.revokedBefore[$0] }.map(Double.init)
            let isRevoked = cutOff.map { issued < $0 } ?? false
            if let change = (revokingByMember[member] ?? []).first(where: { fetch.completed < $0.invoked }) {
                findings.expect(
                    isRevoked,
                    "a card answered before a revoking change is revoked",
                    "card \(fetch.tokenID ?? "") (fetch \(fetch.index), issued \(fetch.issuedAt ?? "")) was answered before \(change.kind.rawValue) "
                        + "\(change.index) was sent; the revocation list revokes the member's cards issued before "
                        + "\(cutOff.map { Self.text(Date(timeIntervalSince1970: $0)) } ?? "nothing")",
                    member: member
                )
            } else if fetch.invoked > (lastChange[member] ?? 0) + lateness {
                findings.expect(
                    !isRevoked,
                    "no card fetched after every revoking change is revoked",
                    "card \(fetch.tokenID ?? "") (fetch \(fetch.index), issued \(fetch.issuedAt ?? "")) was fetched after every change to the "
                        + "member's cards was over, and the revocation list revokes the cards issued before "
                        + "\(cutOff.map { Self.text(Date(timeIntervalSince1970: $0)) } ?? "nothing")",
                    member: member
                )
            }
        }
    }
}
