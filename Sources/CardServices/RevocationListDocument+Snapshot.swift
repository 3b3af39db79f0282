public import CardWire
public import Membership

extension RevocationListDocument {
    /// The document for the ledger's revocations (or the changes after `snapshot.since`).
    public init(_ snapshot: RevocationSnapshot) {
        self.init(version: snapshot.version, tokenIDs: snapshot.tokenIDs, members: snapshot.members, since: snapshot.since)
    }
}
