import CardCrypto
import CardServer
import CardToken
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Membership
import MembershipSQL
import MembershipSQLite
import PeezAPI
import PeezBasics
import Synchronization
import TestSupport
import Testing

@Suite("Vendor activations over HTTP")
struct ActivationTests {
    @Test func expiredButAuthenticCardIdentifiesTheMemberAndGetsAFreshCard() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let oldToken = try await client.cardToken(uuid)
            harness.advance(by: 40 * 86_400)
            let reply = try await client.activate(token: oldToken, months: 2)
            #expect(reply.status == .created, "\(String(decoding: reply.body, as: UTF8.self))")
            let period = try #require(reply.json["period"] as? [String: Any])
            #expect(period["months"] as? Int == 2 && period["amount_dzd"] as? Int == 600 && period["status"] as? String == "active")
            let newToken = try #require((reply.json["card"] as? [String: Any])?["token"] as? String)
            let verdict = CardVerifier(trustedKeys: TrustedKeySet([harness.signingKey.publicKey])).verify(newToken, now: harness.now)
            #expect(verdict.verdict == .valid)
            #expect(verdict.claims.map { Int64($0.expiresAt) } == AlgiersCalendar.adding(months: 2, to: harness.now))
            #expect(try await client.cardToken(uuid) == newToken, "the fresh card is the member's card now")
        }
    }

    @Test func periodsStackAfterCurrentCoverage() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let membershipID = try #require(
                try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).json["membership_id"] as? String
            )
            #expect(try await client.activate(membershipID: membershipID, months: 1).status == .created)
            harness.advance(by: 86_400)
            #expect(try await client.activate(membershipID: membershipID, months: 2).status == .created)
            let subscription = try await client.send(.get, "/v1/members/\(uuid)/subscription", secret: ServerHarness.backendSecret)
            let periods = try #require(subscription.json["periods"] as? [[String: Any]])
            #expect(periods.count == 2)
            #expect(periods[0]["status"] as? String == "scheduled", "newest first: the second period waits for the first")
            #expect(periods[0]["starts_at"] as? String == periods[1]["ends_at"] as? String)
            #expect(periods[1]["ends_at"] as? String == "2026-02-28T10:00:00+01:00", "Jan 31 + 1 month is clamped to Feb 28")
            #expect((subscription.json["coverage"] as? [String: Any])?["ends_at"] as? String == "2026-04-28T10:00:00+01:00")
        }
    }

    @Test func aMembershipIDWithSomethingAfterANulSellsNothing() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let membershipID = try #require(
                try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).json["membership_id"] as? String
            )
            let reply = try await client.activate(membershipID: membershipID + "\u{0}anything", months: 1)
            #expect(reply.status == .unprocessableContent)
            #expect(
                (reply.json["error"] as? [String: Any])?["fields"] as? [String: String] == ["membership_id": "must look like PEEZ-20251103-00002"]
            )
            let periods =
                try await client.send(.get, "/v1/members/\(uuid)/subscription", secret: ServerHarness.backendSecret).json["periods"] as? [Any]
            #expect(periods?.isEmpty == true)
        }
    }

    @Test func aSaleThatNamesNoMemberSaysWhatToSend() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let reply = try await client.activate(months: 1)
            #expect(reply.status == .unprocessableContent)
            let fields = (reply.json["error"] as? [String: Any])?["fields"] as? [String: String]
            #expect(fields?["card_token"]?.contains("membership_id") == true && fields?["card_token"]?.contains("not both") == false)
        }
    }

    @Test func retriesReplayTheFirstResponseExactly() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let token = try await client.cardToken(uuid)
            let first = try await client.activate(token: token, months: 1, key: "counter-7-sale-42")
            let retry = try await client.activate(token: token, months: 1, key: "counter-7-sale-42")
            #expect(first.status == .created && retry.status == .created)
            #expect(retry.body == first.body)
            #expect(retry.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            let periods =
                try await client.send(.get, "/v1/members/\(uuid)/subscription", secret: ServerHarness.backendSecret).json["periods"] as? [Any]
            #expect(periods?.count == 1, "the retry sold nothing twice")

            let reused = try await client.activate(token: token, months: 2, key: "counter-7-sale-42")
            #expect(reused.status == .unprocessableContent && reused.errorCode == "idempotency_key_reused")
            let otherVendor = try await client.activate(token: token, months: 1, secret: ServerHarness.otherVendorSecret, key: "counter-7-sale-42")
            #expect(otherVendor.status == .created, "keys belong to the credential that sent them")
        }
    }

    @Test func aRetryWhileTheFirstIsInFlightIsAConflict() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let membershipID = try #require(
                try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).json["membership_id"] as? String
            )
            // The first request has started (its key is recorded) but not finished.
            let body = try JSONSerialization.data(withJSONObject: ["membership_id": membershipID, "months": 1, "amount_dzd": 300])
            let credential = try #require(
                try await harness.store.credential(secretHash: APISecret.hash(ServerHarness.vendorSecret, sha256: SHA256.hash))
            )
            let key = IdempotencyKey(
                scope: credential.id.uuidString,
                key: "in-flight",
                requestHash: Hex.encode(
                    SHA256.hash(try RequestDecoding.canonical(ActivationRequest(membership_id: membershipID, months: 1, amount_dzd: 300)))
                )
            )
            #expect(try await harness.store.claim(key, readingLedgerOf: .membershipID(membershipID), now: harness.now).claimed)

            let retry = try await client.send(
                .post,
                "/v1/activations",
                secret: ServerHarness.vendorSecret,
                raw: Array(body),
                headers: [HTTPField.Name("Idempotency-Key")!: "in-flight"]
            )
            #expect(retry.status == .conflict && retry.errorCode == "request_in_flight")
            #expect(retry.headers[.retryAfter] == "1", "a 409 in flight says when to try again")
            harness.advance(by: 61)
            let afterCrash = try await client.send(
                .post,
                "/v1/activations",
                secret: ServerHarness.vendorSecret,
                raw: Array(body),
                headers: [HTTPField.Name("Idempotency-Key")!: "in-flight"]
            )
            #expect(afterCrash.status == .created, "a key abandoned by a dead process is taken over")
        }
    }

    @Test func badActivationsAreRefusedAndSellNothing() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let token = try await client.cardToken(uuid)
            let wrongAmount = try await client.activate(token: token, months: 2, amount: 300)
            #expect(wrongAmount.status == .unprocessableContent && wrongAmount.errorFields["amount_dzd"] != nil)
            let tooMany = try await client.activate(token: token, months: 4)
            #expect(tooMany.status == .unprocessableContent && tooMany.errorFields["months"] != nil)
            let unknown = try await client.activate(membershipID: "PEEZ-20260131-99999")
            #expect(unknown.status == .notFound)
            var forged = Array(token)
            forged[40] = forged[40] == "A" ? "B" : "A"
            let forgedReply = try await client.activate(token: String(forged))
            #expect(forgedReply.status == .unprocessableContent && forgedReply.errorFields["card_token"] != nil)
            let noKey = try await client.send(
                .post,
                "/v1/activations",
                secret: ServerHarness.vendorSecret,
                json: ["card_token": token, "months": 1, "amount_dzd": 300]
            )
            #expect(noKey.status == .badRequest)
            #expect(try await harness.store.periods(memberUUID: UUID(uuidString: uuid)!).isEmpty)
            // A corrected request may reuse the key of a refused one.
            #expect(try await client.activate(token: token, months: 2, amount: 300, key: "fixed").status == .unprocessableContent)
            #expect(try await client.activate(token: token, months: 2, amount: 600, key: "fixed").status == .created)
        }
    }

    @Test func twoVendorsActivatingTheSameMemberAtOnceBothStack() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let token = try await client.cardToken(uuid)
            async let first = client.activate(token: token, months: 1, secret: ServerHarness.vendorSecret)
            async let second = client.activate(token: token, months: 1, secret: ServerHarness.otherVendorSecret)
            let replies = try await [first, second]
            #expect(replies.allSatisfy { $0.status == .created })
            let periods = try await harness.store.periods(memberUUID: UUID(uuidString: uuid)!)
            #expect(periods.count == 2)
            #expect(periods[1].startsAt == periods[0].endsAt)
            #expect(
                CoverageSchedule.coverageEnd(periods) == AlgiersCalendar.adding(months: 1, to: AlgiersCalendar.adding(months: 1, to: harness.now))
            )
        }
    }

    @Test func cancellationShiftsCoverageAndRevokesEarlierCards() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let token = try await client.cardToken(uuid)
            let first = try await client.activate(token: token, months: 1)
            let second = try await client.activate(token: token, months: 1)
            let cardBefore = try #require((second.json["card"] as? [String: Any])?["token"] as? String)
            let firstID = try #require((first.json["period"] as? [String: Any])?["id"] as? String)

            let revocationsBefore = try await client.send(.get, "/v1/revocations", secret: ServerHarness.vendorSecret)
            let etag = try #require(revocationsBefore.headers[.eTag])
            #expect(
                try await client.send(.get, "/v1/revocations", secret: ServerHarness.vendorSecret, headers: [.ifNoneMatch: etag]).status
                    == .notModified
            )

            harness.advance(by: 60)
            #expect(try await client.send(.post, "/v1/activations/\(firstID)/cancel", secret: ServerHarness.vendorSecret).status == .forbidden)
            let cancelled = try await client.send(.post, "/v1/activations/\(firstID)/cancel", secret: ServerHarness.adminSecret)
            #expect(cancelled.status == .ok)
            #expect((cancelled.json["period"] as? [String: Any])?["status"] as? String == "cancelled")
            #expect((cancelled.json["coverage"] as? [String: Any])?["ends_at"] as? String == "2026-02-28T10:00:00+01:00")

            let verdict = try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": cardBefore])
            #expect(verdict.json["verdict"] as? String == "revoked")
            let revocations = try await client.send(.get, "/v1/revocations", secret: ServerHarness.vendorSecret, headers: [.ifNoneMatch: etag])
            #expect(revocations.status == .ok && revocations.headers[.eTag] != etag)
            #expect(
                try await client.activate(token: cardBefore, months: 1).status == .created,
                "a revoked card still identifies its member for a renewal"
            )
            harness.advance(by: 1)
            let fresh = try await client.cardToken(uuid)
            #expect(
                try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": fresh]).json["verdict"] as? String
                    == "valid"
            )
            #expect(try await client.send(.post, "/v1/activations/\(firstID)/cancel", secret: ServerHarness.adminSecret).status == .conflict)
        }
    }

    @Test func vendorsListOnlyTheirOwnActivations() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let token = try await client.cardToken(uuid)
            _ = try await client.activate(token: token, secret: ServerHarness.vendorSecret)
            _ = try await client.activate(token: token, secret: ServerHarness.otherVendorSecret)
            let mine = try await client.send(.get, "/v1/activations", secret: ServerHarness.vendorSecret).json["activations"] as? [Any]
            let all = try await client.send(.get, "/v1/activations?limit=10", secret: ServerHarness.adminSecret).json["activations"] as? [Any]
            #expect(mine?.count == 1 && all?.count == 2)
        }
    }

    @Test func verifyGivesTheCounterVerdictAndLiveCoverage() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let reply = try await client.activate(token: try await client.cardToken(uuid), months: 3)
            let token = try #require((reply.json["card"] as? [String: Any])?["token"] as? String)
            let verified = try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": token])
            #expect(verified.json["verdict"] as? String == "valid")
            #expect((verified.json["coverage"] as? [String: Any])?["status"] as? String == "active")
            let garbage = try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": "HC1:nope"])
            #expect(garbage.status == .ok && garbage.json["verdict"] as? String == "malformed" && garbage.json["sub"] == nil)
        }
    }
}
