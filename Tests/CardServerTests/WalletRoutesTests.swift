import CardCrypto
import CardServer
import CardServices
import Foundation
import HTTPTypes
import HummingbirdTesting
import Membership
import MembershipSQL
import PeezAPI
import PeezBasics
import TestSupport
import Testing
import WalletPass

/// Apple Wallet over HTTP: the pass the backend fetches for the app, and the web service Wallet calls, as
/// Apple documents it (register, unregister, changed passes since a tag, the latest pass, logs).
@Suite("Apple Wallet routes")
struct WalletRoutesTests {
    static let base = "/wallet/v1"
    static let passType = WalletCertificates.passTypeIdentifier

    /// A Wallet service signed by a fresh openssl-made chain, its root for checking.
    static func wallet(_ folder: TemporaryFolder) throws -> (@Sendable (ServerHarness) throws -> WalletService, String) {
        let chain = try WalletCertificates(in: folder)
        let identity = try Self.identity(chain)
        return (
            { harness in WalletService(cards: harness.cards, store: harness.store, identity: identity, webServiceURL: "https://cards.peez.dz/wallet")
            }, chain.root
        )
    }

    /// The pass signing identity of an openssl-made chain.
    static func identity(_ chain: WalletCertificates) throws -> PassSigningIdentity {
        let read = { (path: String) in Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
        return try PassSigningIdentity(
            certificatePEM: read(chain.certificate),
            keyPEM: read(chain.key),
            intermediatePEM: read(chain.intermediate),
            passTypeIdentifier: passType,
            teamIdentifier: WalletCertificates.teamIdentifier,
            now: Int64(Date().timeIntervalSince1970) + 1
        )
    }

    static func applePass(_ token: String) -> HTTPFields { [.authorization: "ApplePass \(token)"] }

    @Test func withoutAWalletConfigurationThePassIs501AndWalletsRoutes404() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let pass = try await client.send(.get, "/v1/members/\(uuid)/pass.pkpass", secret: ServerHarness.backendSecret)
            #expect(pass.status == .notImplemented && pass.text.contains("not_configured"), "the member exists; the feature does not: \(pass.text)")
            let device = "\(Self.base)/devices/abc123/registrations/\(Self.passType)"
            #expect(try await client.send(.post, "\(device)/\(uuid)", json: ["pushToken": "ab"], headers: Self.applePass("x")).status == .notFound)
            #expect(try await client.send(.get, device).status == .notFound)
            #expect(try await client.send(.get, "\(Self.base)/passes/\(Self.passType)/\(uuid)").status == .notFound)
            #expect(try await client.send(.post, "\(Self.base)/log", json: ["logs": ["x"]]).status == .notFound)
        }
    }

    @Test func aPassIsBuiltFromTheCardsTokenWithoutDrawingItsPicture() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (wallet, _) = try Self.wallet(folder)
        try await ServerHarness.withLiveServer(wallet: wallet) { harness, client in
            let uuid = try #require(UUID(uuidString: try await client.createMember()))
            // A sale signs a new card and keeps it without a picture; the pass shows that card's token.
            _ = try await client.activate(token: try await client.cardToken(uuid.uuidString.lowercased()))
            let reply = try await client.send(.get, "/v1/members/\(uuid.uuidString.lowercased())/pass.pkpass", secret: ServerHarness.backendSecret)
            #expect(reply.status == .ok, "\(reply.text)")
            let pass = try #require(
                try JSONSerialization.jsonObject(with: Data(try PassArchive(reply.body).files["pass.json"]!)) as? [String: Any]
            )
            let kept = try #require(try await harness.store.card(memberUUID: uuid))
            #expect((pass["barcodes"] as? [[String: Any]])?.first?["message"] as? String == kept.token)
            #expect(kept.png == nil, "a pass draws no QR picture: Wallet draws its own barcode")
        }
    }

    @Test func theBackendsPassChecksWholeAndWalletsWebServiceKeepsItCurrent() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (wallet, root) = try Self.wallet(folder)
        try await ServerHarness.withLiveServer(wallet: wallet) { harness, client in
            let uuid = try await client.createMember()
            _ = try await client.activate(token: try await client.cardToken(uuid))
            let reply = try await client.send(.get, "/v1/members/\(uuid)/pass.pkpass", secret: ServerHarness.backendSecret)
            #expect(reply.status == .ok && reply.headers[.contentType] == "application/vnd.apple.pkpass", "\(reply.text)")
            let lastModified = try #require(reply.headers[.lastModified])
            #expect(HTTPDate.parse(lastModified) != nil, "\(lastModified)")

            // The whole pass, checked as `peez wallet check` checks it (signature to the root, images, keys), at the
            // certificates' time; the barcode is compared with the member's card below (the harness's clock is not now).
            let check = PassCheck(
                reply.body,
                appleRoot: try X509Certificate(pem: Array(try Data(contentsOf: URL(fileURLWithPath: root))), what: "root"),
                verifier: nil,
                now: Int64(Date().timeIntervalSince1970)
            )
            #expect(check.passed, "\(check.findings.filter { !$0.passed })")
            let archive = try PassArchive(reply.body)
            // The wire itself: the pass.json Wallet reads from the archive.
            let pass = try #require(try JSONSerialization.jsonObject(with: Data(archive.files["pass.json"]!)) as? [String: Any])
            let token = try #require(pass["authenticationToken"] as? String)
            #expect(
                token.count >= 16 && pass["serialNumber"] as? String == uuid && pass["webServiceURL"] as? String == "https://cards.peez.dz/wallet"
            )
            #expect((pass["barcodes"] as? [[String: Any]])?.first?["message"] as? String == (try await client.cardToken(uuid)))

            // Registration: 201, then 200 (the push token updated, still one row); a wrong or missing token 401.
            let device = "\(Self.base)/devices/3f2a9c01e4/registrations/\(Self.passType)"
            let register = { (pushToken: String, token: String?) in
                try await client.send(.post, "\(device)/\(uuid)", json: ["pushToken": pushToken], headers: token.map(Self.applePass) ?? [:])
            }
            #expect(try await register("a1b2c3", token).status == .created)
            for _ in 0..<300 { _ = try await register("a1b2c4", token) }
            #expect(try await register("a1b2c5", token).status == .ok)
            #expect(try await harness.store.walletRegistrations(member: UUID(uuidString: uuid)!).map(\.pushToken) == ["a1b2c5"], "one row")
            #expect(try await register("a1b2c3", "not-the-token").status == .unauthorized)
            #expect(try await register("a1b2c3", nil).status == .unauthorized)
            #expect(try await register("not hex!", token).status == .unprocessableContent)
            #expect(
                try await client.send(
                    .post,
                    "\(Self.base)/devices/bad%20id/registrations/\(Self.passType)/\(uuid)",
                    json: ["pushToken": "ab"],
                    headers: Self.applePass(token)
                ).status == .badRequest
            )
            #expect(
                try await client.send(
                    .post,
                    "\(Self.base)/devices/dev1/registrations/pass.other/\(uuid)",
                    json: ["pushToken": "ab"],
                    headers: Self.applePass(token)
                ).status == .notFound
            )
            #expect(
                try await client.send(.get, "/v1/members/\(uuid)", headers: Self.applePass(token)).status == .unauthorized,
                "a pass token is no API credential"
            )

            // Changed passes: the member's pass, with a tag; since that tag, the pass again while its change is
            // under a minute old (the tag stays a minute behind the clock); then nothing until the member changes.
            harness.advance(by: 10)
            let first = try await client.send(.get, device)
            let recent = try first.decoded(WalletUpdatedPassesBody.self)
            #expect(first.status == .ok && recent.serialNumbers == [uuid], "\(first.text)")
            harness.advance(by: 61)
            let again = try await client.send(.get, "\(device)?passesUpdatedSince=\(recent.lastUpdated)")
            let updated = try again.decoded(WalletUpdatedPassesBody.self)
            #expect(again.status == .ok && updated.serialNumbers == [uuid], "\(again.text)")
            #expect(try await client.send(.get, "\(device)?passesUpdatedSince=\(updated.lastUpdated)").status == .noContent)
            #expect(try await client.send(.get, "\(device)?passesUpdatedSince=yesterday").status == .badRequest)
            harness.advance(by: 10)
            #expect(try await client.activate(token: try await client.cardToken(uuid)).status == .created)
            let later = try await client.send(.get, "\(device)?passesUpdatedSince=\(updated.lastUpdated)")
            #expect(try later.status == .ok && later.decoded(WalletUpdatedPassesBody.self).serialNumbers == [uuid], "\(later.text)")

            // The latest pass: 200 with the renewed card and Last-Modified; 304 when not modified since; 401.
            let latest = try await client.send(.get, "\(Self.base)/passes/\(Self.passType)/\(uuid)", headers: Self.applePass(token))
            #expect(latest.status == .ok, "\(latest.text)")
            // The wire itself: the pass.json Wallet reads from the archive.
            let renewed = try #require(
                try JSONSerialization.jsonObject(with: Data(try PassArchive(latest.body).files["pass.json"]!)) as? [String: Any]
            )
            // The wire itself: the pass.json Wallet reads.
            #expect((renewed["barcodes"] as? [[String: Any]])?.first?["message"] as? String == (try await client.cardToken(uuid)), "the renewed card")
            #expect(renewed["authenticationToken"] as? String == token, "the same token: Wallet keeps using it")
            let modified = try #require(latest.headers[.lastModified])
            var conditional = Self.applePass(token)
            conditional[.ifModifiedSince] = modified
            #expect(try await client.send(.get, "\(Self.base)/passes/\(Self.passType)/\(uuid)", headers: conditional).status == .notModified)
            #expect(
                try await client.send(.get, "\(Self.base)/passes/\(Self.passType)/\(uuid)", headers: Self.applePass("wrong")).status == .unauthorized
            )
            #expect(
                try await client.send(.get, "\(Self.base)/passes/\(Self.passType)/not-a-uuid", headers: Self.applePass(token)).status == .notFound
            )

            // Unregister; logs kept.
            #expect(try await client.send(.delete, "\(device)/\(uuid)", headers: Self.applePass(token)).status == .ok)
            #expect(try await client.send(.get, device).status == .noContent)
            #expect(try await client.send(.post, "\(Self.base)/log", json: ["logs": ["Web service error for pass.dz.peez.test"]]).status == .ok)
            #expect(try await client.send(.post, "\(Self.base)/log", json: ["logs": "not a list"]).status == .unprocessableContent)
            #expect(try await harness.store.walletLogs(limit: 5) == ["Web service error for pass.dz.peez.test"])
        }
    }

    /// What an iPhone does after a push, exactly: list the serials changed since its last tag, then fetch each
    /// pass with `If-Modified-Since` its last `Last-Modified`. Every kind of change must come through it.
    struct Phone {
        let client: any TestClientProtocol
        let uuid: String
        let token: String
        var tag: String?
        var lastModified: String?

        var device: String { "\(WalletRoutesTests.base)/devices/iphone0001/registrations/\(WalletRoutesTests.passType)" }

        /// After a push: the passes listed, and the pass.json fetched (nil when the list or the fetch says nothing new).
        // The wire itself: the pass.json Wallet reads from the archive.
        mutating func afterPush() async throws -> [String: Any]? {
            let listed = try await client.send(.get, device + (tag.map { "?passesUpdatedSince=\($0)" } ?? ""))
            guard listed.status == .ok else { return nil }
            let body = try listed.decoded(WalletUpdatedPassesBody.self)
            tag = body.lastUpdated
            guard body.serialNumbers.contains(uuid) else { return nil }
            var headers = WalletRoutesTests.applePass(token)
            if let lastModified { headers[.ifModifiedSince] = lastModified }
            let fetched = try await client.send(.get, "\(WalletRoutesTests.base)/passes/\(WalletRoutesTests.passType)/\(uuid)", headers: headers)
            guard fetched.status == .ok else { return nil }
            lastModified = fetched.headers[.lastModified]
            return try JSONSerialization.jsonObject(with: Data(try PassArchive(fetched.body).files["pass.json"]!)) as? [String: Any]
        }
    }

    // The wire itself: the pass.json Wallet reads from the archive.
    static func coverageText(_ pass: [String: Any]?) -> String? {
        ((pass?["storeCard"] as? [String: Any])?["secondaryFields"] as? [[String: Any]])?.first?["value"] as? String
    }

    @Test func aDeviceFollowingAppleProtocolSeesEveryChangeAReminderAndTwoInOneSecondIncluded() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (wallet, _) = try Self.wallet(folder)
        try await ServerHarness.withLiveServer(wallet: wallet) { harness, client in
            let uuid = try await client.createMember()
            _ = try await client.activate(token: try await client.cardToken(uuid))
            let download = try await client.send(.get, "/v1/members/\(uuid)/pass.pkpass", secret: ServerHarness.backendSecret)
            // The wire itself: the pass.json Wallet reads from the archive.
            let pass = try #require(
                try JSONSerialization.jsonObject(with: Data(try PassArchive(download.body).files["pass.json"]!)) as? [String: Any]
            )
            let token = try #require(pass["authenticationToken"] as? String)
            var phone = Phone(client: client, uuid: uuid, token: token, tag: nil, lastModified: download.headers[.lastModified])
            let registered = try await client.send(.post, "\(phone.device)/\(uuid)", json: ["pushToken": "a1b2c3"], headers: Self.applePass(token))
            #expect(registered.status == .created)
            _ = try await phone.afterPush()  // the first list: the device learns its tag

            // A reminder put on the pass (what the wallet reminder channel does) reaches the device.
            harness.advance(by: 5)
            let member = try #require(UUID(uuidString: uuid))
            let card = try #require(try await harness.store.card(memberUUID: member))
            let end = try #require(card.coverageEnd)
            #expect(
                try await harness.store.putReminderOnWalletPass(
                    member: member,
                    reminder: WalletReminder(threshold: "7d", coverageEnd: end),
                    now: harness.now
                )
            )
            let reminded = try await phone.afterPush()
            #expect(
                Self.coverageText(reminded) == "ENDS_IN_7_DAYS",
                "the reminder is on the pass the device fetched: \(String(describing: reminded))"
            )

            // Two changes in the same second: the device fetched after the first must still get the second.
            harness.advance(by: 5)
            #expect(try await client.activate(token: try await client.cardToken(uuid)).status == .created)
            let afterFirst = try await phone.afterPush()
            #expect(afterFirst != nil, "the sale came through")
            _ = try await client.send(.patch, "/v1/members/\(uuid)", secret: ServerHarness.backendSecret, json: ["name": "Amina Benali"])
            let afterSecond = try await phone.afterPush()
            // The wire itself: the pass.json Wallet reads.
            #expect(
                ((afterSecond?["storeCard"] as? [String: Any])?["primaryFields"] as? [[String: Any]])?.first?["value"] as? String == "Amina Benali",
                "a second change in the same second is not hidden by If-Modified-Since: \(String(describing: afterSecond))"
            )
            #expect(try await phone.afterPush() == nil, "nothing new: nothing fetched")

            // The app downloads the pass again (to see whether it is installed): the pass already in Wallet keeps its token.
            let again = try await client.send(.get, "/v1/members/\(uuid)/pass.pkpass", secret: ServerHarness.backendSecret)
            // The wire itself: the pass.json Wallet reads from the archive.
            let againPass = try #require(
                try JSONSerialization.jsonObject(with: Data(try PassArchive(again.body).files["pass.json"]!)) as? [String: Any]
            )
            #expect(againPass["authenticationToken"] as? String == token, "one token per pass")
            var headers = Self.applePass(token)
            headers[.ifModifiedSince] = nil
            #expect(try await client.send(.get, "\(Self.base)/passes/\(Self.passType)/\(uuid)", headers: headers).status == .ok)

            // A phone key registered after the pass was installed: the pass shows no barcode and says why.
            harness.advance(by: 5)
            #expect(try await DeviceBindingTests.register(try DeviceBindingTests.Phone(), for: uuid, client: client).status == .ok)
            let bound = try await phone.afterPush()
            #expect(bound?["barcodes"] == nil && bound?["voided"] as? Bool == true, "\(String(describing: bound))")
            #expect(Self.coverageText(bound) == "SHOW_IN_APP")
        }
    }

    @Test func aDeviceHoldingTwoPassesMissesNoChangeStampedByAnInstanceWhoseClockIsBehind() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (wallet, _) = try Self.wallet(folder)
        try await ServerHarness.withLiveServer(wallet: wallet) { harness, client in
            var tokens: [String: String] = [:]
            let members = [try await client.createMember(), try await client.createMember(2)]
            let device = "\(Self.base)/devices/familyphone/registrations/\(Self.passType)"
            for uuid in members {
                let download = try await client.send(.get, "/v1/members/\(uuid)/pass.pkpass", secret: ServerHarness.backendSecret)
                // The wire itself: the pass.json Wallet reads from the archive.
                let pass = try #require(
                    try JSONSerialization.jsonObject(with: Data(try PassArchive(download.body).files["pass.json"]!)) as? [String: Any]
                )
                tokens[uuid] = try #require(pass["authenticationToken"] as? String)
                let registered = try await client.send(
                    .post,
                    "\(device)/\(uuid)",
                    json: ["pushToken": "f00d"],
                    headers: Self.applePass(tokens[uuid]!)
                )
                #expect(registered.status == .created)
            }
            // The first member changes on an instance whose clock is right; the phone lists its passes.
            harness.advance(by: 120)
            #expect(try await client.activate(token: try await client.cardToken(members[0])).status == .created)
            harness.advance(by: 2)
            let listed = try await client.send(.get, device).decoded(WalletUpdatedPassesBody.self)
            // The second member changes on another instance, its clock 30 s behind: its pass is stamped before the
            // first's change, yet changed after the phone's tag was given.
            harness.advance(by: -30)
            #expect(try await client.activate(token: try await client.cardToken(members[1])).status == .created)
            harness.advance(by: 30)
            let next = try await client.send(.get, "\(device)?passesUpdatedSince=\(listed.lastUpdated)")
            #expect(next.status == .ok, "\(next.text)")
            #expect(
                (try? next.decoded(WalletUpdatedPassesBody.self).serialNumbers.contains(members[1])) == true,
                "the second pass's change is listed: \(next.text)"
            )
        }
    }

    @Test func aPassTakesABoundedNumberOfDevicesAndTheLogRouteIsRateLimited() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (wallet, _) = try Self.wallet(folder)
        try await ServerHarness.withLiveServer(wallet: wallet) { _, client in
            let uuid = try await client.createMember()
            let download = try await client.send(.get, "/v1/members/\(uuid)/pass.pkpass", secret: ServerHarness.backendSecret)
            // The wire itself: the pass.json Wallet reads from the archive.
            let pass = try #require(
                try JSONSerialization.jsonObject(with: Data(try PassArchive(download.body).files["pass.json"]!)) as? [String: Any]
            )
            let token = try #require(pass["authenticationToken"] as? String)
            for index in 0..<WalletPassLimits.maxDevices {
                let path = "\(Self.base)/devices/device\(index)/registrations/\(Self.passType)/\(uuid)"
                #expect(try await client.send(.post, path, json: ["pushToken": "ab"], headers: Self.applePass(token)).status == .created)
            }
            let extra = "\(Self.base)/devices/device-extra/registrations/\(Self.passType)/\(uuid)"
            let refused = try await client.send(.post, extra, json: ["pushToken": "ab"], headers: Self.applePass(token))
            #expect(refused.status == .forbidden && refused.text.contains("too_many_devices"), "\(refused.text)")
            let again = "\(Self.base)/devices/device0/registrations/\(Self.passType)/\(uuid)"
            #expect(
                try await client.send(.post, again, json: ["pushToken": "cd"], headers: Self.applePass(token)).status == .ok,
                "a device already registered"
            )

            // The burst of 10 is answered, then the rate (2 a second) holds: sent in bursts of 25 at once so that a
            // slow machine cannot refill the bucket between them, until one is refused (500 at most).
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<10 { statuses.append(try await client.send(.post, "\(Self.base)/log", json: ["logs": ["x"]]).status) }
            while !statuses.contains(.tooManyRequests), statuses.count < 500 {
                statuses += try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for _ in 0..<25 { group.addTask { try await client.send(.post, "\(Self.base)/log", json: ["logs": ["x"]]).status } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            #expect(statuses.prefix(10).allSatisfy { $0 == .ok } && statuses.contains(.tooManyRequests), "\(statuses)")
        }
    }

    @Test func aMemberBoundToAPhoneGetsNoWalletPassAndIsToldWhy() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (wallet, _) = try Self.wallet(folder)
        try await ServerHarness.withLiveServer(wallet: wallet) { _, client in
            let uuid = try await client.createMember()
            let phone = try DeviceBindingTests.Phone()
            #expect(try await DeviceBindingTests.register(phone, for: uuid, client: client).status == .ok)
            let refused = try await client.send(.get, "/v1/members/\(uuid)/pass.pkpass", secret: ServerHarness.backendSecret)
            #expect(refused.status == .conflict && refused.text.contains("bound to their phone"), "\(refused.text)")
        }
    }
}
