import CardServices
import Foundation
import HTTPTypes
import Membership
import TestSupport
import Testing

@testable import CardServer

/// Failures that used to turn into plausible answers, each now an error a person can act on.
@Suite("No silent fallbacks")
struct NoSilentFallbackTests {
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
