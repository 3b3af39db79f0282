import Foundation
import HTTPTypes
import Membership
import PeezServices
import TestSupport
import Testing

@testable import CardServer

/// Failures that used to turn into plausible answers, each now an error a person can act on.
@Suite("No silent fallbacks")
struct NoSilentFallbackTests {
    @Test func aSaleAnswered201WithoutItsCoverageEndIsNotReportedSoldButSentAgain() async throws {
        for body in ["{\"ok\": true}", "not json", "{\"coverage_end\": \"\"}"] {
            let server = try OneAnswerServer(
                answer:
                    "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            )
            let client = try CounterClient(server: "http://127.0.0.1:\(server.port)", secret: "peez_vendor_test")
            await #expect(throws: CounterClientError.self, "a 201 whose body says no coverage end: \(body)") {
                _ = try await client.sell(membershipID: "PEEZ-20251103-00001", months: 1, amountDZD: 300, key: UUID().uuidString)
            }
        }
    }

    @Test func everyDomainErrorCodeHasItsOwnHTTPStatusAndNoneFallsToAConflict() {
        for code in MembershipError.Code.all {
            #expect(APIError.statuses[code] != nil, "\(code) has no status")
            #expect(APIError(MembershipError(code, "x")).code == code.description)
        }
        #expect(APIError(MembershipError(.notFound, "x")).status == .notFound)
        #expect(APIError(MembershipError(.requestInFlight, "x")).status == .conflict)
    }

    @Test func aVendorCredentialWithoutAVendorIsRefusedNotShownSomeoneElsesSales() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            try await Provisioning.saveCredential(
                store: harness.store,
                secret: "peez_vendor_orphan",
                role: .vendor,
                vendorID: nil,
                label: "t",
                now: harness.now
            )
            let listed = try await client.send(.get, "/v1/activations", secret: "peez_vendor_orphan")
            #expect(listed.status == .forbidden && listed.errorCode == "forbidden", "\(listed.status)")
        }
    }
}
