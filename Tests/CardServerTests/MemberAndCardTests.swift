import CardCrypto
import CardServer
import CardServices
import CardToken
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Membership
import MembershipSQL
import MembershipSQLite
import PeezAPI
import Synchronization
import TestSupport
import Testing

@Suite("Members and cards over HTTP")
struct MemberAndCardTests {
    @Test func verifyingAnAuthenticCardOfAMemberTheLedgerDoesNotKnowSaysSo() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let stranger = Member(
                uuid: UUID(),
                membershipID: "PEEZ-20250101-00042",
                name: "Inconnu",
                phone: "+213550009999",
                email: "x@example.dz",
                neighbourhood: "usto",
                language: .fr,
                createdAt: harness.now
            )
            let card = try harness.cards.sign(
                from: LedgerHead(member: stranger, version: 0, coverageEnd: nil, lastPeriodSeq: 0),
                coverageEnd: harness.now + 86_400,
                now: harness.now
            )
            let reply = try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": card.token])
            let verdict = try reply.decoded(VerifyBody.self)
            #expect(verdict.verdict == "valid" && verdict.coverage == nil)
            #expect(verdict.detail?.contains("the ledger has no member PEEZ-20250101-00042") == true, "\(reply.text)")
        }
    }

    @Test func aNameWithANulIsRefusedNotCut() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let reply = try await client.send(
                .post,
                "/v1/members",
                secret: ServerHarness.backendSecret,
                json: [
                    "uuid": UUID().uuidString, "name": "Ahmed\u{0}Evil", "phone": "+213770123457", "email": "nul@example.dz", "neighbourhood": "usto",
                ]
            )
            #expect(reply.status == .unprocessableContent)
            let fields = reply.errorFields
            #expect(fields.keys.sorted() == ["name"] && fields["name"]?.contains("U+0000") == true, "\(reply.text)")
        }
    }

    @Test func membersAreCreatedOnceAndValidatedFieldByField() async throws {
        try await ServerHarness.withLiveServer { _, client in
            // The wire itself: a body a client sends, some on purpose as no type would write it.
            let body: [String: Any] = [
                "uuid": UUID().uuidString, "name": "Amina Benali", "phone": "+213770123456",
                "email": "amina@example.dz", "neighbourhood": "gambetta", "language": "ar",
            ]
            let created = try await client.send(.post, "/v1/members", secret: ServerHarness.backendSecret, json: body)
            #expect(created.status == .created)
            #expect(try created.decoded(MemberBody.self).membership_id.hasPrefix("PEEZ-20260131-"))
            let again = try await client.send(.post, "/v1/members", secret: ServerHarness.backendSecret, json: body)
            #expect(try again.status == .ok && again.decoded(MemberBody.self).membership_id == created.decoded(MemberBody.self).membership_id)
            var changed = body
            changed["name"] = "Other"
            #expect(try await client.send(.post, "/v1/members", secret: ServerHarness.backendSecret, json: changed).status == .conflict)

            let invalid = try await client.send(
                .post,
                "/v1/members",
                secret: ServerHarness.backendSecret,
                json: [
                    "uuid": UUID().uuidString, "name": "", "phone": "0550", "email": "x", "neighbourhood": "nowhere",
                ]
            )
            #expect(invalid.status == .unprocessableContent)
            #expect(Set(invalid.errorFields.keys) == ["name", "phone", "email", "neighbourhood"])
            let missing = try await client.send(.post, "/v1/members", secret: ServerHarness.backendSecret, json: ["name": "x"])
            #expect(missing.status == .unprocessableContent && missing.errorCode == "invalid_fields")
        }
    }

    @Test func anOldCardOfAMemberPaidSinceIsValidByTheLedgerAndTheVerdictAndCoverageTellOneStory() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let old = try await client.cardToken(uuid)
            func verify(_ token: String) async throws -> VerifyBody {
                try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": token]).decoded(VerifyBody.self)
            }
            let unpaid = try await verify(old)
            #expect(unpaid.verdict == "no_paid_period" && unpaid.coverage?.status == "none" && unpaid.card_outdated == nil)
            harness.advance(by: 60)
            #expect(try await client.activate(token: old).status == .created)
            let paid = try await verify(old)
            #expect(paid.verdict == "valid" && paid.card_verdict == "no_paid_period" && paid.card_outdated == true, "\(paid)")
            #expect(paid.coverage?.status == "active" && paid.step == nil && paid.detail?.contains("PEEZ app") == true)
            // The sale cancelled: the old card's member has no paid time again, and the old card is revoked.
            let sales = try await client.send(.get, "/v1/activations", secret: ServerHarness.adminSecret)
            let sale = try #require(try sales.decoded(ActivationListBody.self).activations.first { $0.member_uuid == uuid }?.id)
            #expect(try await client.send(.post, "/v1/activations/\(sale)/cancel", secret: ServerHarness.adminSecret).status == .ok)
            let cancelled = try await verify(old)
            #expect(cancelled.verdict == "no_paid_period" && cancelled.card_outdated == nil, "\(cancelled)")
        }
    }

    @Test func memberWithoutPaidTimeGetsACardExpiringAtIssue() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let reply = try await client.send(.get, "/v1/members/\(uuid)/card", secret: ServerHarness.backendSecret)
            #expect(reply.status == .ok)
            let card = try reply.decoded(CardBody.self)
            #expect(card.subscription.status == "none", "never paid: no coverage, not an expired one")
            let token = card.token
            let result = CardVerifier(trustedKeys: TrustedKeySet([harness.signingKey.publicKey])).verify(token, now: harness.now)
            #expect(result.verdict == .noPaidPeriod && result.step == 10, "never valid, not even within the leeway")
            #expect(result.claims?.expiresAt == result.claims?.issuedAt)
            #expect(result.claims?.name == "Ahmed Mohamed")
            let png = try #require(Data(base64Encoded: card.qr_png_base64))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(try await client.cardToken(uuid) == token, "the stored card is served, not re-signed on every read")
        }
    }

    @Test func cardPNGHasAnETagAndScansBackToTheToken() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let token = try await client.cardToken(uuid)
            let reply = try await client.send(.get, "/v1/members/\(uuid)/card.png", secret: ServerHarness.backendSecret)
            #expect(reply.status == .ok && reply.headers[.contentType] == "image/png")
            let etag = try #require(reply.headers[.eTag])
            let cached = try await client.send(
                .get,
                "/v1/members/\(uuid)/card.png",
                secret: ServerHarness.backendSecret,
                headers: [.ifNoneMatch: etag]
            )
            #expect(cached.status == .notModified && cached.body.isEmpty)

            let path = harness.folder.file("card.png")
            try Data(reply.body).write(to: URL(fileURLWithPath: path))
            let scanned = try await ProcessRunner.run(["zbarimg", "--nodbus", "--quiet", "--raw", path])
            #expect(scanned.standardOutput.trimmingCharacters(in: .newlines) == token)
        }
    }

    @Test func renamingAMemberIssuesACardWithTheNewName() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let before = try await client.cardToken(uuid)
            let patched = try await client.send(
                .patch,
                "/v1/members/\(uuid)",
                secret: ServerHarness.backendSecret,
                json: ["name": "Ahmed Ben Mohamed"]
            )
            #expect(try patched.status == .ok && patched.decoded(MemberBody.self).name == "Ahmed Ben Mohamed")
            let after = try await client.cardToken(uuid)
            #expect(after != before)
            let bad = try await client.send(.patch, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret, json: ["phone": "12"])
            #expect(bad.status == .unprocessableContent && bad.errorFields["phone"] != nil)
        }
    }

    @Test func unknownMembersAreNotFound() async throws {
        try await ServerHarness.withLiveServer { _, client in
            for path in ["/v1/members/\(UUID())", "/v1/members/\(UUID())/card", "/v1/members/\(UUID())/card.png", "/v1/members/not-a-uuid"] {
                let reply = try await client.send(.get, path, secret: ServerHarness.backendSecret)
                #expect(reply.status == .notFound && reply.errorCode == "not_found", "\(path)")
            }
        }
    }
}
