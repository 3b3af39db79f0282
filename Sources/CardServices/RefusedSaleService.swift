import CardToken
public import Foundation
public import Membership
public import PeezAPI

/// A sale sent with a vendor credential no longer accepted (a stolen phone's pending sales, retried later): kept
/// for the operator, so the shop can give the member's cash back — as far as its request can be read, its
/// membership id only when well formed (never a control character), once per idempotency key, at most
/// ``maxPerCredential`` per credential (a thief's phone cannot fill the table), and never a retry of a sale that
/// was sold before the credential was withdrawn (that sale stands: nothing to give back).
public struct RefusedSaleService: Sendable {
    let store: any AuditStore
    let cards: CardService

    /// The most refused sales kept for one credential.
    public static let maxPerCredential = 100

    public init(store: any AuditStore, cards: CardService) {
        self.store = store
        self.cards = cards
    }

    /// Keeps the refused sale of `credential` (refused for `refusal`) sent under `idempotencyKey` with `body`
    /// (nil when it could not be read).
    public func keep(_ body: ActivationRequest?, idempotencyKey: String, credential: APICredential, refusal: CredentialRefusal) async throws {
        var membershipID = body?.membership_id
        if membershipID == nil, let token = body?.card_token {
            membershipID = try? await cards.verify(token).claims?.subject
        }
        try await store.recordRefusedSale(
            RefusedSale(
                at: cards.now(),
                credentialID: credential.id,
                vendorID: credential.vendorID,
                idempotencyKey: String(idempotencyKey.prefix(IdempotencyKey.maxLength)),
                membershipID: membershipID.flatMap { Member.isMembershipID($0) ? $0 : nil },
                months: body?.months,
                amountDZD: body?.amount_dzd,
                reason: refusal.isRevocation ? "credential_revoked" : "credential_expired"
            ),
            keyScope: credential.id.uuidString,
            maxPerCredential: Self.maxPerCredential
        )
    }
}
