import Foundation
import HTTPTypes
import Membership
import PeezAPI
import Testing

/// A counter's sale whose key sold before its credential was revoked (its answer lost, or the network's copy of
/// the request delivered first) stands: the counter's retry is answered with that sale, so it keeps the cash,
/// while anything else the revoked credential sends is refused and kept for the operator.
@Suite("A revoked counter's retry")
struct RevokedCounterRetryTests {
    @Test func aRetryOfASaleMadeBeforeTheRevocationIsAnsweredWithItAndNothingElseIsSold() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let member = try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).decoded(MemberBody.self)
            let sold = try await client.activate(membershipID: member.membership_id, months: 2, key: "sale-1")
            #expect(sold.status == .created)
            let credentials = try await client.send(.get, "/v1/credentials?role=vendor", secret: ServerHarness.adminSecret).decoded(
                CredentialListBody.self
            )
            let counter = try #require(credentials.credentials.first { $0.vendor_id == harness.vendor.id.uuidString.lowercased() })
            #expect(try await client.send(.post, "/v1/credentials/\(counter.id)/revoke", secret: ServerHarness.adminSecret).status == .ok)

            let retried = try await client.activate(membershipID: member.membership_id, months: 2, key: "sale-1")
            #expect(retried.status == .created && retried.body == sold.body, "the sale that stands, answered again: \(retried.text)")
            #expect(retried.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")

            let otherBody = try await client.activate(membershipID: member.membership_id, months: 1, key: "sale-1")
            #expect(
                otherBody.status == .unauthorized && otherBody.errorCode == "credential_revoked",
                "another request under the key: \(otherBody.text)"
            )
            let newSale = try await client.activate(membershipID: member.membership_id, months: 1, key: "sale-2")
            #expect(newSale.status == .unauthorized && newSale.errorCode == "credential_revoked", "\(newSale.text)")

            let periods = try await client.send(.get, "/v1/members/\(uuid)/subscription", secret: ServerHarness.adminSecret).decoded(
                SubscriptionBody.self
            )
            #expect(periods.periods.map(\.months) == [2], "one sale, made before the revocation")
            let refused = try await client.send(.get, "/v1/refused-sales", secret: ServerHarness.adminSecret).decoded(RefusedSaleListBody.self)
            // The key that sold is never listed (its sale stands); the new sale is, for the operator to make right.
            #expect(refused.refused_sales.map(\.idempotency_key) == ["sale-2"])
        }
    }

    @Test func aCopyLetThroughBeforeTheWithdrawalAndCarriedOutAfterTheRefusalSellsNothing() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let member = try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).decoded(MemberBody.self)
            let credentials = try await client.send(.get, "/v1/credentials?role=vendor", secret: ServerHarness.adminSecret).decoded(
                CredentialListBody.self
            )
            let counter = try #require(credentials.credentials.first { $0.vendor_id == harness.vendor.id.uuidString.lowercased() })
            // Rotated: the old secret is accepted for 60 s more.
            let rotated = try await client.send(
                .post,
                "/v1/credentials/\(counter.id)/rotate",
                secret: ServerHarness.adminSecret,
                json: ["grace_seconds": 60]
            )
            #expect(rotated.status == .ok || rotated.status == .created, "\(rotated.text)")
            // The network's two copies of one sale: the one answered refused once the grace ended...
            harness.advance(by: 61)
            let refused = try await client.activate(membershipID: member.membership_id, months: 2, key: "sale-1")
            #expect(refused.status == .unauthorized && refused.errorCode == "credential_expired", "\(refused.text)")
            // ...and the other, let through while the secret was still accepted, carried out only now.
            harness.advance(by: -2)
            let late = try await client.activate(membershipID: member.membership_id, months: 2, key: "sale-1")
            #expect(late.status == .unauthorized, "the counter was told nothing was sold; nothing must be: \(late.text)")
            let periods = try await client.send(.get, "/v1/members/\(uuid)/subscription", secret: ServerHarness.adminSecret).decoded(
                SubscriptionBody.self
            )
            #expect(periods.periods.isEmpty, "the refused sale was not made by its other copy")
            // A new sale within the grace is made as before.
            #expect(try await client.activate(membershipID: member.membership_id, months: 1, key: "sale-2").status == .created)
        }
    }
}
