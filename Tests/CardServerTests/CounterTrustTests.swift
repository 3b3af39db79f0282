import CardCrypto
import CardToken
import CardWire
import CounterApp
import Foundation
import HTTPTypes
import HummingbirdTesting
import PeezAPI
import TestSupport
import Testing

/// The counter's trust data: bundles the service signs, checked and kept on disk by the counter, against a
/// live service (HTTP on loopback) and real files.
@Suite("Counter trust data")
struct CounterTrustTests {
    /// A counter enrolled with the live service, in a folder of its own.
    struct Counter {
        let store: CounterStore
        let client: CounterClient

        init(port: Int, folder: TemporaryFolder) throws {
            store = CounterStore(folder: folder.file("counter"))
            client = try CounterClient(server: "http://127.0.0.1:\(port)", secret: ServerHarness.vendorSecret)
        }

        func enrol(now: Int64) async throws -> CounterSync.Changes {
            let (state, changes) = try CounterSync.enrol(
                try await client.fetchBundle(since: nil),
                server: client.server.absoluteString,
                expectedKeyID: nil,
                now: now
            )
            try store.save(state)
            return changes
        }

        func sync(now: Int64) async throws -> CounterSync.Changes {
            let (state, trust, _) = try store.load()
            let (updated, changes) = try CounterSync.accept(
                try await client.fetchBundle(since: trust.revocationVersion),
                into: state,
                trusting: trust,
                now: now
            )
            try store.save(updated)
            return changes
        }
    }

    /// A member with one paid month and its card token, through the API.
    static func paidMember(_ client: some TestClientProtocol, index: Int) async throws -> (uuid: String, token: String, periodID: String) {
        let uuid = try await client.createMember(index)
        let token = try await client.cardToken(uuid)
        let sale = try await client.activate(token: token)
        let sold = try sale.decoded(ActivationBody.self)
        return (uuid, sold.card.token, sold.period.id)
    }

    @Test func aDeltaSyncAfterAHundredRevocationsBringsExactlyThose() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let counter = try Counter(port: try #require(client.port), folder: folder)
            let kept = try await Self.paidMember(client, index: 1000)
            #expect(try await counter.enrol(now: harness.now).revocationVersion == 0)

            var cancelledMembers: Set<String> = []
            for index in 1...100 {
                let member = try await Self.paidMember(client, index: index)
                let cancel = try await client.send(.post, "/v1/activations/\(member.periodID)/cancel", secret: ServerHarness.adminSecret)
                #expect(cancel.status == .ok)
                cancelledMembers.insert(
                    try await client.send(.get, "/v1/members/\(member.uuid)", secret: ServerHarness.backendSecret).decoded(MemberBody.self)
                        .membership_id
                )
            }
            let changes = try await counter.sync(now: harness.now)
            #expect(!changes.whole && changes.membersAdded == 100 && changes.revocationVersion == 100)
            let (_, trust, _) = try counter.store.load()
            #expect(Set(trust.revocations.members.keys) == cancelledMembers, "exactly the hundred members, nothing else")
            #expect(trust.revocations.tokenIDs.count == 100, "and each one's card")

            let again = try await counter.sync(now: harness.now)
            #expect(again.membersAdded == 0 && again.tokenIDsAdded == 0, "an unchanged list brings nothing")
            let (state, after, _) = try counter.store.load()
            #expect(state.bundles.count == 3, "the whole bundle and two deltas, each kept signed")
            let verdict = CounterVerdict.judge(Array(kept.token.utf8), trust: after, state: state, now: harness.now)
            guard case .card(let result) = verdict.outcome else {
                Issue.record("\(verdict)")
                return
            }
            #expect(result.verdict == .valid)
        }
    }

    @Test func aTamperedOrForeignBundleIsRefusedAndTheTrustDataHeldStaysInUse() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let counter = try Counter(port: try #require(client.port), folder: folder)
            _ = try await counter.enrol(now: harness.now)
            let (state, _, _) = try counter.store.load()
            let held = try String(contentsOfFile: folder.file("counter/state.json"), encoding: .utf8)

            var flipped = try await counter.client.fetchBundle(since: 0)
            flipped[flipped.count / 2] ^= 0x01
            #expect(throws: CardWireError.self) { try CounterSync.accept(flipped, into: state, trusting: try state.trust(), now: harness.now) }

            let stranger = try Ed25519PrivateKey.generate()
            let foreign = try CounterBundle(
                issuedAt: harness.now + 10,
                validUntil: harness.now + 86_400,
                keys: [try KeySetDocument.Key(stranger.publicKey, status: .current)],
                revocations: RevocationListDocument(version: 0, tokenIDs: [], members: [:])
            )
            .signed(with: stranger)
            #expect(throws: CardWireError(.untrustedSignature, "")) {
                try CounterSync.accept(foreign, into: state, trusting: try state.trust(), now: harness.now)
            }

            let card = Array(try await client.cardToken(try await client.createMember(7)).utf8)
            #expect(throws: CardWireError(.notADocument, "")) {
                _ = try CounterBundle.open(card, trusting: TrustedKeySet([harness.signingKey.publicKey]))
            }
            #expect(try String(contentsOfFile: folder.file("counter/state.json"), encoding: .utf8) == held, "nothing refused was written")
        }
    }

    @Test func aCacheWhoseRevocationsWereEditedIsRefusedAndThePreviousOneUsed() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let counter = try Counter(port: try #require(client.port), folder: folder)
            let member = try await Self.paidMember(client, index: 1)
            _ = try await counter.enrol(now: harness.now)
            #expect(try await client.send(.post, "/v1/activations/\(member.periodID)/cancel", secret: ServerHarness.adminSecret).status == .ok)
            _ = try await counter.sync(now: harness.now)
            #expect(try counter.store.load().trust.revocations.members.count == 1)

            // Drop the revocation from the newest bundle's payload: its signature no longer matches.
            let path = folder.file("counter/state.json")
            var state = try JSONDecoder().decode(CounterState.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            var bytes = Array(try #require(Data(base64Encoded: state.bundles.last!)))
            let needle = Array("PEEZ-".utf8)
            let at = try #require((0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle })
            bytes[at] = UInt8(ascii: "X")
            state.bundles[state.bundles.count - 1] = Data(bytes).base64EncodedString()
            try JSONEncoder().encode(state).write(to: URL(fileURLWithPath: path))

            let (_, trust, note) = try counter.store.load()
            #expect(note?.contains("refused") == true, "the edit is reported")
            #expect(trust.revocations.members.isEmpty, "the previous state, which never held the edited bundle, is used")
            try FileManager.default.removeItem(atPath: folder.file("counter/state.previous.json"))
            #expect(throws: CounterStoreError.self) { try counter.store.load() }
        }
    }

    @Test func aSyncKilledBeforeOrBetweenItsRenamesLeavesUsableTrustData() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let counter = try Counter(port: try #require(client.port), folder: folder)
            _ = try await counter.enrol(now: harness.now)
            // Killed after writing the new file, before any rename: a half-written new file is ignored.
            try Data("{\"server\": \"half".utf8).write(to: URL(fileURLWithPath: folder.file("counter/state.json.new")))
            #expect(try counter.store.load().note == nil)
            // Killed between the two renames: only the previous state is there, and it is used.
            _ = try await counter.sync(now: harness.now)
            try FileManager.default.removeItem(atPath: folder.file("counter/state.json"))
            #expect(try counter.store.load().trust.keys.count == 1)
        }
    }

    @Test func aNewKeyEntersThroughABundleTheOldKeySignedAndItsCardsVerifyOffline() throws {
        let old = try Ed25519PrivateKey.generate()
        let new = try Ed25519PrivateKey.generate()
        let start: Int64 = 1_800_000_000
        let none = RevocationListDocument(version: 0, tokenIDs: [], members: [:])
        let first = try CounterBundle(
            issuedAt: start,
            validUntil: start + 604_800,
            keys: [try KeySetDocument.Key(old.publicKey, status: .current)],
            revocations: none
        ).signed(with: old)
        var (state, _) = try CounterSync.enrol(first, server: "https://cards.example", expectedKeyID: old.keyID.hex, now: start)
        #expect(throws: CardWireError.self) { try CounterSync.enrol(first, server: "x", expectedKeyID: new.keyID.hex, now: start) }

        // The old key introduces the new one; after that the new one alone signs.
        let rotation = try CounterBundle(
            issuedAt: start + 3_600,
            validUntil: start + 604_800,
            keys: [
                try KeySetDocument.Key(new.publicKey, status: .current),
                try KeySetDocument.Key(old.publicKey, status: .retired, window: KeyValidityWindow(retiredAt: start + 3_600)),
            ],
            revocations: none
        ).signed(with: old)
        (state, _) = try CounterSync.accept(rotation, into: state, trusting: try state.trust(), now: start + 3_600)
        let later = try CounterBundle(
            issuedAt: start + 7_200,
            validUntil: start + 604_800,
            keys: [try KeySetDocument.Key(new.publicKey, status: .current)],
            revocations: none
        ).signed(with: new)
        (state, _) = try CounterSync.accept(later, into: state, trusting: try state.trust(), now: start + 7_200)

        let card = try CardIssuer(signingKey: new).issue(
            CardClaims(subject: "PEEZ-20251103-00001", expiresAt: start + 86_400, issuedAt: start + 7_300)
        )
        let verdict = CounterVerdict.judge(Array(card.utf8), trust: try state.trust(), state: state, now: start + 7_400)
        guard case .card(let result) = verdict.outcome else {
            Issue.record("\(verdict)")
            return
        }
        #expect(result.verdict == .valid)
        #expect(throws: CardWireError.self, "a replay of an older bundle") {
            try CounterSync.accept(rotation, into: state, trusting: try state.trust(), now: start + 7_500)
        }
    }

    /// The development key, whose private half is in the repository (`make test` keeps it 0600).
    static func developmentKey() throws -> Ed25519PrivateKey {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try KeyFiles.loadPrivateKey(path: root.appendingPathComponent("Keys/development/signing-key.pem").path)
    }

    @Test func aProductionCounterNeverTrustsTheDevelopmentKeyAndADevelopmentCounterMay() throws {
        let development = try Self.developmentKey()
        #expect(development.keyID.hex == DevelopmentKey.keyID)
        let production = try Ed25519PrivateKey.generate()
        let start: Int64 = 1_800_000_000
        let none = RevocationListDocument(version: 0, tokenIDs: [], members: [:])
        func bundle(at time: Int64, keys: [Ed25519PrivateKey], signer: Ed25519PrivateKey, development flag: Bool? = nil) throws -> [UInt8] {
            try CounterBundle(
                issuedAt: time,
                validUntil: time + 604_800,
                keys: try keys.enumerated().map { try KeySetDocument.Key($1.publicKey, status: $0 == 0 ? .current : .retired) },
                revocations: none,
                development: flag
            ).signed(with: signer)
        }
        // A production service that publishes the development key beside its own (the defect of a default folder).
        let leaking = try bundle(at: start, keys: [production, development], signer: production)
        #expect(throws: CardWireError(.developmentKey, "")) {
            try CounterSync.enrol(leaking, server: "https://cards.example", expectedKeyID: production.keyID.hex, now: start)
        }
        // Enrolled on a clean bundle, a later one that carries the key, or is signed by it, is refused.
        let clean = try bundle(at: start, keys: [production], signer: production)
        let (state, _) = try CounterSync.enrol(clean, server: "https://cards.example", expectedKeyID: nil, now: start)
        #expect(state.trustsDevelopmentKey == false)
        #expect(throws: CardWireError(.developmentKey, "")) {
            try CounterSync.accept(
                try bundle(at: start + 60, keys: [production, development], signer: production),
                into: state,
                trusting: try state.trust(),
                now: start + 60
            )
        }
        // A development service says so: its counters trust the key, and keep trusting it.
        let demo = try bundle(at: start, keys: [development], signer: development, development: true)
        let (demoState, _) = try CounterSync.enrol(demo, server: "http://127.0.0.1:8080", expectedKeyID: nil, now: start)
        #expect(demoState.trustsDevelopmentKey)
        let (next, _) = try CounterSync.accept(
            try bundle(at: start + 60, keys: [development], signer: development, development: true),
            into: demoState,
            trusting: try demoState.trust(),
            now: start + 60
        )
        #expect(try next.trust().keys.map(\.kid) == [DevelopmentKey.keyID])
        // A counter holding the key from before the rule (its state says nothing of development) drops it: a bundle
        // signed by the development key is no longer taken, even one that names only an attacker's key.
        var legacy = demoState
        legacy.development = nil
        let attacker = try Ed25519PrivateKey.generate()
        #expect(throws: CardWireError.self) {
            try CounterSync.accept(
                try bundle(at: start + 120, keys: [attacker], signer: development),
                into: legacy,
                trusting: try legacy.trust(),
                now: start + 120
            )
        }
    }

    @Test func expiredTrustDataOrAClockSetBackGiveCannotConfirmNeverValid() throws {
        let key = try Ed25519PrivateKey.generate()
        let start: Int64 = 1_800_000_000
        let bundle = try CounterBundle(
            issuedAt: start,
            validUntil: start + 7 * 86_400,
            keys: [try KeySetDocument.Key(key.publicKey, status: .current)],
            revocations: RevocationListDocument(version: 0, tokenIDs: [], members: [:])
        ).signed(with: key)
        let (state, _) = try CounterSync.enrol(bundle, server: "https://cards.example", expectedKeyID: nil, now: start)
        let trust = try state.trust()
        let card = Array(
            try CardIssuer(signingKey: key).issue(CardClaims(subject: "PEEZ-20251103-00001", expiresAt: start + 60 * 86_400, issuedAt: start)).utf8
        )
        func code(at now: Int64) -> (String, [String]) {
            let verdict = CounterVerdict.judge(card, trust: trust, state: state, now: now)
            return (verdict.code, verdict.warnings.map(\.description))
        }
        #expect(code(at: start + 3_600).0 == "valid" && code(at: start + 3_600).1.isEmpty)
        #expect(code(at: start + 2 * 86_400) == ("valid", ["trust data is 48 h old"]), "old but still valid trust data says so")
        #expect(code(at: start + 7 * 86_400 + 1).0 == "cannot_confirm", "past valid_until")
        #expect(code(at: start - 301).0 == "cannot_confirm", "a clock behind the service's time already seen")
        #expect(code(at: start - 299).0 == "valid", "within the tolerance")
    }

    @Test func theCounterRefusesToSendItsSecretUnencryptedExceptToThisMachine() throws {
        #expect(throws: CounterClientError.self) { try CounterClient(server: "http://cards.peez.dz", secret: "s") }
        #expect(throws: CounterClientError.self) { try CounterClient(server: "ftp://cards.peez.dz", secret: "s") }
        #expect(throws: CounterClientError.self) { try CounterClient(server: "http://127.0.0.1.evil.dz", secret: "s") }
        _ = try CounterClient(server: "https://cards.peez.dz", secret: "s")
        _ = try CounterClient(server: "http://127.0.0.1:8080", secret: "s")
        _ = try CounterClient(server: "http://[::1]:8080", secret: "s")
    }
}
