import Foundation
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// `POST /v1/counter/scans` against hostile and mistaken bodies, on a real socket.
@Suite("Scan reports")
struct ScanReportTests {
    // The wire itself: entries of any JSON type, so the parser's refusal of each wrong one is tested.
    static func entry(_ seq: Any, verdict: Any = "valid", offline: Any = true, tokenID: Any = "00000000000000a1") -> [String: Any] {
        [
            "seq": seq, "at": ServerHarness.start - 60, "verdict": verdict, "member": "PEEZ-20260131-00001", "token_id": tokenID, "offline": offline,
            "trust_age": 60,
        ]
    }

    @Test func everyWrongFieldOfEveryEntryIsNamedAtOnce() async throws {
        try await ServerHarness.withLiveServer { _, client in
            // The wire itself: bodies of any JSON shape, wrong ones on purpose.
            let body: [String: Any] = [
                "counter_id": "till-1",
                "entries": [
                    Self.entry(1), Self.entry(0, verdict: "green"), Self.entry(1.5, offline: 1, tokenID: "00000000000000A1"), Self.entry(2.0), "scan",
                ],
            ]
            let reply = try await client.send(.post, "/v1/counter/scans", secret: ServerHarness.vendorSecret, json: body)
            #expect(reply.status == .unprocessableContent)
            #expect(
                reply.errorFields == [
                    "counter_id": "must be the counter's UUID",
                    "entries[1].seq": "must be 1 or more",
                    "entries[1].verdict":
                        "must be one of: valid, malformed, unsupported_algorithm, unknown_key, bad_signature, bad_claims, expired, no_paid_period, not_yet_valid, revoked, presentation_required, card_not_bound, bad_device_signature, stale_presentation, future_presentation, cannot_confirm",
                    "entries[2].seq": "must be a whole number",
                    "entries[2].offline": "must be true or false",
                    "entries[2].token_id": "must be 16 lowercase hex digits",
                    "entries[4]": "must be an object",
                ],
                "\(reply.errorFields)"
            )
        }
    }

    @Test func aReportIsOneToFiveHundredEntriesAndAtMost128KiB() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let counter = UUID().uuidString
            let none = try await client.send(
                .post,
                "/v1/counter/scans",
                secret: ServerHarness.vendorSecret,
                json: ["counter_id": counter, "entries": []]
            )
            #expect(none.status == .unprocessableContent && none.errorFields["entries"] != nil)
            let many = (1...501).map { Self.entry($0) }
            let tooMany = try await client.send(
                .post,
                "/v1/counter/scans",
                secret: ServerHarness.vendorSecret,
                json: ["counter_id": counter, "entries": many]
            )
            #expect(tooMany.status == .unprocessableContent && tooMany.errorFields["entries"] != nil)
            let huge =
                Array(#"{"counter_id": "\#(counter)", "entries": [], "padding": ""#.utf8) + [UInt8](repeating: 0x61, count: 140_000)
                + Array(#""}"#.utf8)
            let tooLarge = try await client.send(
                .post,
                "/v1/counter/scans",
                secret: ServerHarness.vendorSecret,
                raw: huge,
                headers: [.contentType: "application/json"]
            )
            #expect(tooLarge.status == .contentTooLarge)
            let full = try await client.send(
                .post,
                "/v1/counter/scans",
                secret: ServerHarness.vendorSecret,
                json: ["counter_id": counter, "entries": Array(many.prefix(500))]
            )
            #expect(full.status == .ok, "\(full.status)")
        }
    }

    @Test func onlyAVendorReportsAndOnlyAnAdminReads() async throws {
        try await ServerHarness.withLiveServer { _, client in
            // The wire itself: bodies of any JSON shape, wrong ones on purpose.
            let body: [String: Any] = ["counter_id": UUID().uuidString, "entries": [Self.entry(1)]]
            #expect(try await client.send(.post, "/v1/counter/scans", secret: ServerHarness.adminSecret, json: body).status == .forbidden)
            #expect(try await client.send(.post, "/v1/counter/scans", secret: ServerHarness.backendSecret, json: body).status == .forbidden)
            #expect(try await client.send(.post, "/v1/counter/scans", json: body).status == .unauthorized)
            #expect(try await client.send(.post, "/v1/counter/scans", secret: ServerHarness.vendorSecret, json: body).status == .ok)
            for path in ["/v1/scans", "/v1/scans/shared"] {
                #expect(try await client.send(.get, path, secret: ServerHarness.vendorSecret).status == .forbidden)
                #expect(try await client.send(.get, path, secret: ServerHarness.backendSecret).status == .forbidden)
                #expect(try await client.send(.get, path, secret: ServerHarness.adminSecret).status == .ok)
            }
            let bad = try await client.send(.get, "/v1/scans?token_id=XYZ&membership_id=someone", secret: ServerHarness.adminSecret)
            #expect(bad.status == .unprocessableContent && Set(bad.errorFields.keys) == ["token_id", "membership_id"])
        }
    }
}
