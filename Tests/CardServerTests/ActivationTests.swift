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
            let sale = try reply.decoded(ActivationBody.self)
            #expect(sale.period.months == 2 && sale.period.amount_dzd == 600 && sale.period.status == "active")
            let newToken = sale.card.token
            let verdict = CardVerifier(trustedKeys: TrustedKeySet([harness.signingKey.publicKey])).verify(newToken, now: harness.now)
            #expect(verdict.verdict == .valid)
            #expect(verdict.claims.map { Int64($0.expiresAt) } == AlgiersCalendar.adding(months: 2, to: harness.now))
            #expect(try await client.cardToken(uuid) == newToken, "the fresh card is the member's card now")
        }
    }

    @Test func periodsStackAfterCurrentCoverage() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let membershipID = try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).decoded(MemberBody.self)
                .membership_id
            #expect(try await client.activate(membershipID: membershipID, months: 1).status == .created)
            harness.advance(by: 86_400)
            #expect(try await client.activate(membershipID: membershipID, months: 2).status == .created)
            let subscription = try await client.send(.get, "/v1/members/\(uuid)/subscription", secret: ServerHarness.backendSecret)
            let body = try subscription.decoded(SubscriptionBody.self)
            let periods = body.periods
            try #require(periods.count == 2)
            #expect(periods[0].status == "scheduled", "newest first: the second period waits for the first")
            #expect(periods[0].starts_at == periods[1].ends_at)
            #expect(periods[1].ends_at == "2026-02-28T10:00:00+01:00", "Jan 31 + 1 month is clamped to Feb 28")
            #expect(body.coverage.ends_at == "2026-04-28T10:00:00+01:00")
        }
    }

    @Test func aMembershipIDWithSomethingAfterANulSellsNothing() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let membershipID = try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).decoded(MemberBody.self)
                .membership_id
            let reply = try await client.activate(membershipID: membershipID + "\u{0}anything", months: 1)
            #expect(reply.status == .unprocessableContent)
            #expect(reply.errorFields == ["membership_id": "must look like PEEZ-20251103-00002"])
            let periods =
                try await client.send(.get, "/v1/members/\(uuid)/subscription", secret: ServerHarness.backendSecret).decoded(SubscriptionBody.self)
                .periods
            #expect(periods.isEmpty)
        }
    }

    @Test func aSaleThatNamesNoMemberSaysWhatToSend() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let reply = try await client.activate(months: 1)
            #expect(reply.status == .unprocessableContent)
            let fields = reply.errorFields
            #expect(fields["card_token"]?.contains("membership_id") == true && fields["card_token"]?.contains("not both") == false)
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
                try await client.send(.get, "/v1/members/\(uuid)/subscription", secret: ServerHarness.backendSecret).decoded(SubscriptionBody.self)
                .periods
            #expect(periods.count == 1, "the retry sold nothing twice")

            let reused = try await client.activate(token: token, months: 2, key: "counter-7-sale-42")
            #expect(reused.status == .unprocessableContent && reused.errorCode == "idempotency_key_reused")
            let otherVendor = try await client.activate(token: token, months: 1, secret: ServerHarness.otherVendorSecret, key: "counter-7-sale-42")
            #expect(otherVendor.status == .created, "keys belong to the credential that sent them")
        }
    }

    @Test func aRetryWhileTheFirstIsInFlightIsAConflict() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let membershipID = try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).decoded(MemberBody.self)
                .membership_id
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
            let cardBefore = try second.decoded(ActivationBody.self).card.token
            let firstID = try first.decoded(ActivationBody.self).period.id

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
            let cancellation = try cancelled.decoded(CancellationBody.self)
            #expect(cancellation.period.status == "cancelled")
            #expect(cancellation.coverage.ends_at == "2026-02-28T10:00:00+01:00")

            let verdict = try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": cardBefore])
            #expect(try verdict.decoded(VerifyBody.self).verdict == "revoked")
            let revocations = try await client.send(.get, "/v1/revocations", secret: ServerHarness.vendorSecret, headers: [.ifNoneMatch: etag])
            #expect(revocations.status == .ok && revocations.headers[.eTag] != etag)
            #expect(
                try await client.activate(token: cardBefore, months: 1).status == .created,
                "a revoked card still identifies its member for a renewal"
            )
            harness.advance(by: 1)
            let fresh = try await client.cardToken(uuid)
            #expect(
                try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": fresh]).decoded(VerifyBody.self)
                    .verdict
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
            let mine = try await client.send(.get, "/v1/activations", secret: ServerHarness.vendorSecret).decoded(ActivationListBody.self)
            let all = try await client.send(.get, "/v1/activations?limit=10", secret: ServerHarness.adminSecret).decoded(ActivationListBody.self)
            #expect(mine.activations.count == 1 && all.activations.count == 2)
        }
    }

    @Test func verifyGivesTheCounterVerdictAndLiveCoverage() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let reply = try await client.activate(token: try await client.cardToken(uuid), months: 3)
            let token = try reply.decoded(ActivationBody.self).card.token
            let verified = try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": token]).decoded(
                VerifyBody.self
            )
            #expect(verified.verdict == "valid")
            #expect(verified.coverage?.status == "active")
            let garbage = try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": "HC1:nope"])
            let garbageVerdict = try garbage.decoded(VerifyBody.self)
            #expect(garbage.status == .ok && garbageVerdict.verdict == "malformed" && garbageVerdict.sub == nil)
        }
    }
}
