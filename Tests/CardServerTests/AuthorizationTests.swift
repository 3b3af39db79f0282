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
import Synchronization
import TestSupport
import Testing

/// Every route's authorisation, refusals included: who may call what.
@Suite("Authorisation on every route")
struct AuthorizationTests {
    enum Caller: String, CaseIterable, Sendable {
        case anonymous, wrongSecret, admin, backend, vendor

        var secret: String? {
            switch self {
            case .anonymous: return nil
            case .wrongSecret: return "peez_admin_guessed"
            case .admin: return ServerHarness.adminSecret
            case .backend: return ServerHarness.backendSecret
            case .vendor: return ServerHarness.vendorSecret
            }
        }
    }

    /// Each operation with the callers allowed through (all others must get 401 or 403).
    static let matrix: [(String, HTTPRequest.Method, Set<Caller>)] = [
        ("/health", .get, [.anonymous, .admin, .backend, .vendor]),
        ("/metrics", .get, [.admin]),
        ("/v1/members", .post, [.admin, .backend]),
        ("/v1/members/{member}", .get, [.admin, .backend]),
        ("/v1/members/{member}", .patch, [.admin, .backend]),
        ("/v1/members/{member}/card", .get, [.admin, .backend]),
        ("/v1/members/{member}/card.png", .get, [.admin, .backend]),
        ("/v1/members/{member}/subscription", .get, [.admin, .backend]),
        ("/v1/members/{member}/device-key", .post, [.admin, .backend]),
        ("/v1/members/{member}/device-key", .delete, [.admin, .backend]),
        ("/v1/activations", .post, [.vendor]),
        ("/v1/activations", .get, [.admin, .vendor]),
        ("/v1/activations/{period}/cancel", .post, [.admin]),
        ("/v1/verify", .post, [.admin, .backend, .vendor]),
        ("/v1/keys", .get, [.admin, .backend, .vendor]),
        ("/v1/revocations", .get, [.admin, .backend, .vendor]),
        ("/v1/vendors", .post, [.admin]),
        ("/v1/vendors/{vendor}", .get, [.admin, .vendor]),
        ("/v1/vendors", .get, [.admin]),
        ("/v1/vendors/{vendor}/credentials", .get, [.admin]),
        // Another vendor's id (a made-up one): cutting off the vendor whose secret the matrix uses would end it.
        ("/v1/vendors/{anotherVendor}/cut-off", .post, [.admin]),
        ("/v1/vendors/{vendor}/enrolment-codes", .post, [.admin, .vendor]),
        ("/v1/credentials", .get, [.admin]),
        ("/v1/credentials", .post, [.admin]),
        ("/v1/credentials/{credential}", .patch, [.admin]),
        ("/v1/credentials/{credential}/revoke", .post, [.admin]),
        ("/v1/credentials/{credential}/rotate", .post, [.admin]),
        ("/v1/audit", .get, [.admin]),
        ("/v1/refused-sales", .get, [.admin]),
        ("/v1/accounts", .get, [.admin]),
        ("/v1/accounts/limit", .get, [.admin]),
        ("/v1/accounts/limit", .put, [.admin]),
        ("/v1/counter/account", .get, [.vendor]),
        // A shop's account: the team, or the shop's own device.
        ("/v1/vendors/{vendor}/account", .get, [.admin, .vendor]),
        ("/v1/vendors/{vendor}/entries", .get, [.admin, .vendor]),
        ("/v1/vendors/{vendor}/statement", .get, [.admin, .vendor]),
        ("/v1/vendors/{vendor}/remittances", .post, [.admin]),
        ("/v1/vendors/{vendor}/adjustments", .post, [.admin]),
        ("/v1/vendors/{vendor}/entries/{entry}/reversal", .post, [.admin]),
        ("/v1/vendors/{vendor}/commission", .get, [.admin]),
        ("/v1/vendors/{vendor}/commission", .put, [.admin]),
        // A device with no credential yet: the one-time code is the proof.
        ("/v1/enrolments", .post, Self.everyoneWithoutAWrongSecret),
        ("/v1/neighbourhoods", .get, [.admin, .backend, .vendor]),
        ("/v1/categories", .get, [.admin, .backend, .vendor]),
        ("/v1/counter/bundle", .get, [.admin, .vendor]),
        ("/v1/counter/scans", .post, [.vendor]),
        ("/v1/scans", .get, [.admin]),
        ("/v1/scans/shared", .get, [.admin]),
        ("/v1/members/{member}/pass.pkpass", .get, [.admin, .backend]),
        ("/v1/members/{member}/google-wallet", .get, [.admin, .backend]),
        ("/v1/members/{member}/checkouts", .post, [.admin, .backend]),
        ("/v1/payments", .get, [.admin]),
        ("/v1/payments/events", .get, [.admin]),
        ("/v1/payments/{payment}", .get, [.admin, .backend]),
        // Chargily's webhook: no API secret; its signature is the proof (503 here: payments are not configured).
        ("/v1/payments/chargily/webhook", .post, Self.everyoneWithoutAWrongSecret),
        // Apple Wallet's web service: no API secret (Wallet authenticates with the pass's own token, or nothing),
        // so every caller that sends no wrong secret gets through to it (404 here: Wallet is not configured).
        (Self.wallet + "/{serialNumber}", .post, Self.everyoneWithoutAWrongSecret),
        (Self.wallet + "/{serialNumber}", .delete, Self.everyoneWithoutAWrongSecret),
        (Self.wallet, .get, Self.everyoneWithoutAWrongSecret),
        ("/wallet/v1/passes/{passTypeIdentifier}/{serialNumber}", .get, Self.everyoneWithoutAWrongSecret),
        ("/wallet/v1/log", .post, Self.everyoneWithoutAWrongSecret),
        // The web counter's files: public (the page asks for the vendor secret itself).
        ("/counter", .get, Self.everyoneWithoutAWrongSecret),
        ("/counter/{file}", .get, Self.everyoneWithoutAWrongSecret),
        // The console: its files are public, its API needs a session cookie no API secret stands in for.
        ("/console", .get, Self.everyoneWithoutAWrongSecret),
        ("/console/{file}", .get, Self.everyoneWithoutAWrongSecret),
        ("/v1/console/links", .post, [.admin]),
        // The one-time code is the proof (422 here: no code sent); signing out needs nothing.
        ("/console/api/session", .post, Self.everyoneWithoutAWrongSecret),
        ("/console/api/session", .delete, Self.everyoneWithoutAWrongSecret),
        ("/console/api/session", .get, []),
        ("/console/api/sales", .get, []),
        ("/console/api/renewals", .get, []),
        ("/console/api/subscriptions", .get, []),
        ("/console/api/anomalies", .get, []),
        ("/console/api/reminders", .get, []),
        ("/console/api/wallet", .get, []),
        ("/console/api/payments", .get, []),
        ("/console/api/accounts", .get, []),
        ("/console/api/accounts/limit", .put, []),
        ("/console/api/counters", .get, []),
        ("/console/api/checks", .get, []),
        ("/console/api/members", .get, []),
        ("/console/api/members/{member}", .get, []),
        ("/console/api/members/{member}/revoke-cards", .post, []),
        ("/console/api/credentials/{credential}/revoke", .post, []),
        ("/console/api/audit", .get, []),
    ]
    static let wallet = "/wallet/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}"
    static let everyoneWithoutAWrongSecret: Set<Caller> = [.anonymous, .admin, .backend, .vendor]

    @Test func theMatrixNamesEveryOperationOfTheDocument() throws {
        let documented = APIContractTests.documentedOperations
        let named = Set(
            Self.matrix.map { template, method, _ in
                let path = template.replacingOccurrences(of: "{member}", with: "{uuid}").replacingOccurrences(of: "{period}", with: "{id}")
                    .replacingOccurrences(of: "{vendor}", with: "{id}").replacingOccurrences(of: "{anotherVendor}", with: "{id}")
                    .replacingOccurrences(of: "{credential}", with: "{id}").replacingOccurrences(of: "{payment}", with: "{id}")
                    .replacingOccurrences(of: "{entry}", with: "{seq}")
                return "\(method) \(path)"
            }
        )
        #expect(named == documented)
    }

    @Test func everyRouteLetsInExactlyItsRoles() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let member = try await client.createMember()
            let token = try await client.cardToken(member)
            #expect(try await client.activate(token: token).status == .created)
            for (template, method, allowed) in Self.matrix {
                let path = template.replacingOccurrences(of: "{member}", with: member).replacingOccurrences(of: "{serialNumber}", with: member)
                    .replacingOccurrences(of: "{deviceLibraryIdentifier}", with: "device1").replacingOccurrences(
                        of: "{passTypeIdentifier}",
                        with: "pass.dz.peez.card"
                    )
                    .replacingOccurrences(of: "{period}", with: UUID().uuidString).replacingOccurrences(of: "{payment}", with: UUID().uuidString)
                    .replacingOccurrences(of: "{vendor}", with: harness.vendor.id.uuidString)
                    .replacingOccurrences(of: "{anotherVendor}", with: UUID().uuidString)
                    .replacingOccurrences(of: "{credential}", with: UUID().uuidString)
                    .replacingOccurrences(of: "{file}", with: "app.js").replacingOccurrences(of: "{entry}", with: "1")
                for caller in Caller.allCases {
                    let reply = try await client.send(
                        method,
                        path,
                        secret: caller.secret,
                        json: Self.body(for: template, method, token: token),
                        headers: [HTTPField.Name("Idempotency-Key")!: UUID().uuidString]
                    )
                    let refused = reply.status == .unauthorized || reply.status == .forbidden
                    #expect(refused != allowed.contains(caller), "\(method) \(template) as \(caller.rawValue): \(reply.status)")
                    if caller == .anonymous || caller == .wrongSecret, !allowed.contains(caller) {
                        #expect(reply.status == .unauthorized && reply.errorCode == "unauthenticated")
                        #expect(reply.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                    }
                }
            }
        }
    }

    @Test func aVendorActsOnlyAsItself() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let other = try await client.send(.get, "/v1/vendors/\(harness.otherVendor.id)", secret: ServerHarness.vendorSecret)
            let nobody = try await client.send(.get, "/v1/vendors/\(UUID())", secret: ServerHarness.vendorSecret)
            #expect(
                other.status == .notFound && other.body == nobody.body && nobody.status == .notFound,
                "another vendor's id and an unknown id are answered alike, byte for byte"
            )
            let itself = try await client.send(.get, "/v1/vendors/\(harness.vendor.id)", secret: ServerHarness.vendorSecret)
            #expect(try itself.status == .ok && itself.decoded(VendorBody.self).name == "Boucherie Centrale")
        }
    }

    @Test func vendorSecretsAreShownOnceAndWork() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let created = try await client.send(
                .post,
                "/v1/vendors",
                secret: ServerHarness.adminSecret,
                json: ["name": "Boulangerie Es-Senia", "category": "boulangerie-patisserie", "neighbourhood": "es-senia"]
            )
            #expect(created.status == .created)
            let secret = try created.decoded(CreatedVendorBody.self).api_secret
            #expect(secret.hasPrefix("peez_vendor_"))
            #expect(try await client.send(.get, "/v1/keys", secret: secret).status == .ok)
            let bad = try await client.send(
                .post,
                "/v1/vendors",
                secret: ServerHarness.adminSecret,
                json: ["name": "X", "category": "bank", "neighbourhood": "usto"]
            )
            #expect(bad.status == .unprocessableContent && bad.errorFields["category"] != nil)
        }
    }

    static func body(for template: String, _ method: HTTPRequest.Method, token: String) -> Any? {
        switch (template, method) {
        case ("/v1/members", .post):
            return [
                "uuid": UUID().uuidString, "name": "N", "phone": String(format: "+21377%07d", Int.random(in: 0..<9_999_999)),
                "email": "\(UUID().uuidString)@example.dz", "neighbourhood": "usto",
            ]
        case ("/v1/members/{member}", .patch): return ["language": "ar"]
        case ("/v1/activations", .post): return ["card_token": token, "months": 1, "amount_dzd": 300]
        case ("/v1/verify", .post): return ["token": token]
        case ("/v1/members/{member}/device-key", .post):
            return ["public_key": try! DeviceKey(rawRepresentation: Ed25519PrivateKey.generate().publicKey.rawRepresentation).base64url]
        case ("/v1/vendors", .post): return ["name": "V", "category": "pressing", "neighbourhood": "usto"]
        case ("/v1/counter/scans", .post):
            return [
                "counter_id": UUID().uuidString,
                // The wire itself: a report's entry as a counter sends it.
                "entries": [["seq": 1, "at": 1_800_000_000, "verdict": "valid", "offline": true, "trust_age": 0] as [String: Any]],
            ]
        default: return nil
        }
    }
}
