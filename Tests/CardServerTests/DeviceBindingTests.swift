import CardCrypto
import CardToken
import Foundation
import HTTPTypes
import HummingbirdTesting
import PeezAPI
import PeezBasics
import TestSupport
import Testing

@Suite("Cards bound to the member's phone, over HTTP")
struct DeviceBindingTests {
    /// A phone: a fresh Ed25519 key pair.
    struct Phone {
        let key: Ed25519PrivateKey
        var publicKey: DeviceKey { try! DeviceKey(rawRepresentation: key.publicKey.rawRepresentation) }

        init() throws { key = try Ed25519PrivateKey.generate() }

        func present(_ card: String, at time: Int64) throws -> String {
            try PresentationMaker(cardToken: card, deviceKey: key, publicKey: publicKey).present(at: time)
        }
    }

    static func register(_ phone: Phone, for uuid: String, client: some TestClientProtocol) async throws -> Reply {
        try await client.send(
            .post,
            "/v1/members/\(uuid)/device-key",
            secret: ServerHarness.backendSecret,
            json: ["public_key": phone.publicKey.base64url]
        )
    }

    static func verify(_ text: String, client: some TestClientProtocol) async throws -> VerifyBody {
        try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": text]).decoded(VerifyBody.self)
    }

    @Test func aRegisteredKeyBindsTheNextCardWhichCountersAcceptOnlyAsAFreshPresentation() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            _ = try await client.activate(token: try await client.cardToken(uuid))
            let phone = try Phone()
            let registered = try await Self.register(phone, for: uuid, client: client)
            #expect(registered.status == .ok, "\(registered.text)")
            #expect(try registered.decoded(MemberBody.self).device_key == phone.publicKey.base64url)
            #expect(
                try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).decoded(MemberBody.self).device_key
                    == phone.publicKey.base64url
            )

            let card = try await client.cardToken(uuid)
            let claims = try #require(CardVerifier(trustedKeys: TrustedKeySet([harness.signingKey.publicKey])).verify(card, now: harness.now).claims)
            #expect(claims.deviceKey == phone.publicKey, "the card carries the key in cnf")

            let bare = try await Self.verify(card, client: client)
            #expect(bare.verdict == "presentation_required" && bare.step == 12, "\(bare)")
            let presentation = try phone.present(card, at: harness.now)
            let shown = try await Self.verify(presentation, client: client)
            #expect(shown.verdict == "valid" && shown.presented_at == harness.now && shown.sub == claims.subject, "\(shown)")
            #expect(shown.coverage?.status == "active")

            harness.advance(by: 61)
            let stale = try await Self.verify(presentation, client: client)
            #expect(stale.verdict == "stale_presentation" && stale.step == 16, "\(stale)")
            // The card, presented by another phone that copied it: signed by the wrong key.
            let thief = try Phone()
            let cardBytes = try CardVerifier.open(Array(card.utf8)).0.encoded()
            let payload = Presentation(card: cardBytes, madeAt: harness.now).payload
            let signature = try thief.key.sign(COSESign1.signatureInput(protectedHeader: Presentation.protectedHeader, payload: payload))
            let envelope = COSESign1(protectedHeader: Presentation.protectedHeader, payload: payload, signature: signature, keyID: thief.key.keyID)
            let copied = try await Self.verify(Presentation.prefix + Base45.encode(envelope.encoded()), client: client)
            #expect(copied.verdict == "bad_device_signature" && copied.step == 15, "\(copied)")
        }
    }

    @Test func aShopSellsMonthsToTheMemberWhosePresentationItScannedAndTheNewCardIsBoundToo() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            let phone = try Phone()
            #expect(try await Self.register(phone, for: uuid, client: client).status == .ok)
            let card = try await client.cardToken(uuid)
            let sold = try await client.activate(token: try phone.present(card, at: harness.now), months: 2)
            #expect(sold.status == .created, "\(sold.text)")
            let renewed = try await client.cardToken(uuid)
            let claims = try #require(
                CardVerifier(trustedKeys: TrustedKeySet([harness.signingKey.publicKey])).verify(renewed, now: harness.now).claims
            )
            #expect(claims.deviceKey == phone.publicKey && claims.expiresAt > harness.now + 50 * 86_400, "the sold card is bound to the same phone")
            let shown = try await Self.verify(try phone.present(renewed, at: harness.now), client: client)
            #expect(shown.verdict == "valid" && shown.coverage?.status == "active", "\(shown)")
        }
    }

    @Test func replacingTheKeyRevokesTheOldPhonesCards() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let uuid = try await client.createMember()
            _ = try await client.activate(token: try await client.cardToken(uuid))
            let old = try Phone()
            #expect(try await Self.register(old, for: uuid, client: client).status == .ok)
            let oldCard = try await client.cardToken(uuid)
            #expect(try await Self.verify(try old.present(oldCard, at: harness.now), client: client).verdict == "valid")

            harness.advance(by: 5)
            let new = try Phone()
            #expect(try await Self.register(new, for: uuid, client: client).status == .ok)
            let oldShown = try await Self.verify(try old.present(oldCard, at: harness.now), client: client)
            #expect(oldShown.verdict == "revoked" && oldShown.step == 11, "\(oldShown)")
            let newCard = try await client.cardToken(uuid)
            #expect(newCard != oldCard)
            #expect(try await Self.verify(try new.present(newCard, at: harness.now), client: client).verdict == "valid")
            #expect(throws: CardTokenError(.invalidClaims, "")) { try old.present(newCard, at: harness.now) }

            // The same key again changes nothing: no revocation, the same card.
            harness.advance(by: 5)
            #expect(try await Self.register(new, for: uuid, client: client).status == .ok)
            #expect(try await client.cardToken(uuid) == newCard)
            #expect(try await Self.verify(try new.present(newCard, at: harness.now), client: client).verdict == "valid")

            // Removed (a lost phone): its cards are revoked, and the next card is bound to nothing.
            harness.advance(by: 5)
            let removed = try await client.send(.delete, "/v1/members/\(uuid)/device-key", secret: ServerHarness.backendSecret)
            #expect(try removed.status == .ok && removed.decoded(MemberBody.self).device_key == nil, "\(removed.text)")
            #expect(removed.text.contains("\"device_key\":null"), "the field is sent as null, not left out")
            #expect(try await Self.verify(try new.present(newCard, at: harness.now), client: client).verdict == "revoked")
            let unbound = try await client.cardToken(uuid)
            #expect(try await Self.verify(unbound, client: client).verdict == "valid")
        }
    }

    @Test func unusableKeysAreRefusedFieldByFieldAndOnlyTheBackendMayRegister() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let smallOrder = Base64URL.encode([UInt8](repeating: 0, count: 32))
            let nonCanonical = Base64URL.encode([0xED] + [UInt8](repeating: 0xFF, count: 30) + [0x7F])
            for bad in [
                "", "not base64!", Base64URL.encode([UInt8](repeating: 7, count: 31)), smallOrder, nonCanonical,
                Base64URL.encode([UInt8](repeating: 7, count: 32)) + "=",
            ] {
                let reply = try await client.send(
                    .post,
                    "/v1/members/\(uuid)/device-key",
                    secret: ServerHarness.backendSecret,
                    json: ["public_key": bad]
                )
                #expect(reply.status == .unprocessableContent && reply.errorFields.keys.sorted() == ["public_key"], "\(bad): \(reply.text)")
            }
            let number = try await client.send(.post, "/v1/members/\(uuid)/device-key", secret: ServerHarness.backendSecret, json: ["public_key": 42])
            #expect(number.status == .unprocessableContent)
            let phone = try Phone()
            let unknown = try await Self.register(phone, for: UUID().uuidString.lowercased(), client: client)
            #expect(unknown.status == .notFound)
            let asVendor = try await client.send(
                .post,
                "/v1/members/\(uuid)/device-key",
                secret: ServerHarness.vendorSecret,
                json: ["public_key": phone.publicKey.base64url]
            )
            #expect(asVendor.status == .forbidden)
            let deleteAsVendor = try await client.send(.delete, "/v1/members/\(uuid)/device-key", secret: ServerHarness.vendorSecret)
            #expect(deleteAsVendor.status == .forbidden)
            let anonymous = try await client.send(.delete, "/v1/members/\(uuid)/device-key")
            #expect(anonymous.status == .unauthorized)
            #expect(
                try await client.send(.get, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret).decoded(MemberBody.self).device_key == nil
            )
        }
    }
}
