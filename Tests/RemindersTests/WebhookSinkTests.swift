import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Membership
import Reminders
import Synchronization
import TestSupport
import Testing

/// The webhook sink against a real HTTP receiver on a socket: each kind of answer becomes the outcome the
/// reminders promise (delivered; failed for good; retried, honouring `Retry-After`; unknown after a timeout).
@Suite("Webhook sink outcomes")
struct WebhookSinkTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let message = ReminderDelivery(id: "rem_test_1798758000_3d_push", body: Array(#"{"type":"membership.renewal_reminder"}"#.utf8))

    /// The headers of the deliveries that reached the receiver.
    final class Received: Sendable {
        let headers = Mutex<[HTTPFields]>([])
    }

    /// A receiver answering by path, recording the headers of what reached it.
    static func withReceiver(_ body: @escaping @Sendable (_ port: Int, _ received: Received) async throws -> Void) async throws {
        let received = Received()
        let router = Router()
        router.post("ok") { request, _ -> HTTPResponse.Status in
            received.headers.withLock { $0.append(request.headers) }
            return .noContent
        }
        router.post("gone") { _, _ in
            Response(status: .gone, body: .init(byteBuffer: ByteBuffer(string: "\u{1B}[2J\u{1B}[31mno such hook\r\n\u{202E}gnirts")))
        }
        router.post("busy") { _, _ in Response(status: .tooManyRequests, headers: [.retryAfter: "120"]) }
        router.post("down") { _, _ in
            let inFiveMinutes = Date().addingTimeInterval(300)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return Response(status: .serviceUnavailable, headers: [.retryAfter: formatter.string(from: inFiveMinutes)])
        }
        router.post("timeout") { _, _ in Response(status: .requestTimeout) }
        router.post("trickle") { _, _ in
            // A refusal whose words come a byte at a time, never quite idle long enough for a read timeout.
            Response(
                status: .badRequest,
                body: ResponseBody { writer in
                    for _ in 0..<100 {
                        try await writer.write(ByteBuffer(string: "."))
                        try await Task.sleep(for: .milliseconds(500))
                    }
                    try await writer.finish(nil)
                }
            )
        }
        router.post("slow") { _, _ -> HTTPResponse.Status in
            try await Task.sleep(for: .seconds(6))
            return .noContent
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body(try #require(client.port), received)
        }
    }

    /// One delivery's outcome. The timeout is the sink's own: long enough for a test machine busy with every
    /// other suite, except where the test waits for it.
    static func outcome(port: Int, path: String, timeoutSeconds: Int64 = 30, mayStart: Bool = true) async throws -> ReminderOutcome {
        let sink = try WebhookSink(
            url: "http://127.0.0.1:\(port)/\(path)",
            signer: try StandardWebhookSigner(secrets: secret),
            timeoutSeconds: timeoutSeconds,
            clock: .system
        )
        let outcomes = await sink.deliver([message]) { _ in mayStart }
        await sink.close()
        return try #require(outcomes.first)
    }

    @Test func aTwoHundredIsDeliveredWithTheSignedStandardWebhooksHeaders() async throws {
        try await Self.withReceiver { port, received in
            #expect(try await Self.outcome(port: port, path: "ok") == .delivered)
            let headers = try #require(received.headers.withLock { $0.first })
            let timestamp = try #require(headers[HTTPField.Name("webhook-timestamp")!].flatMap { Int64($0) })
            #expect(headers[HTTPField.Name("webhook-id")!] == Self.message.id)
            #expect(abs(timestamp - Int64(Date().timeIntervalSince1970)) < 60, "signed now, in seconds")
            #expect(
                headers[HTTPField.Name("webhook-signature")!]
                    == (try StandardWebhookSigner(secrets: Self.secret)).signature(id: Self.message.id, timestamp: timestamp, body: Self.message.body)
            )
            #expect(headers[.contentType] == "application/json")
        }
    }

    @Test func aRefusalFailsForGoodWithTheReceiversWordsMadeHarmless() async throws {
        try await Self.withReceiver { port, _ in
            guard case .failed(let reason) = try await Self.outcome(port: port, path: "gone") else {
                Issue.record("a 410 is a refusal for good")
                return
            }
            #expect(reason.hasPrefix("the receiver answered 410: "))
            #expect(reason.contains("no such hook"))
            #expect(
                !reason.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E },
                "no escape sequence or line break reaches a terminal: \(reason.debugDescription)"
            )
        }
    }

    @Test func busyAndUnavailableReceiversAreRetriedWhenTheirRetryAfterSays() async throws {
        try await Self.withReceiver { port, _ in
            #expect(try await Self.outcome(port: port, path: "busy") == .retry("the receiver answered 429", sent: false, retryAfter: 120))
            guard case .retry(_, false, let later?) = try await Self.outcome(port: port, path: "down") else {
                Issue.record("a 503 with an HTTP-date Retry-After is retried then")
                return
            }
            #expect((240...300).contains(later), "\(later) s")
            #expect(try await Self.outcome(port: port, path: "timeout") == .retry("the receiver answered 408", sent: false, retryAfter: nil))
        }
    }

    @Test func noAnswerAfterSendingIsUnknownButNoConnectionIsNotSent() async throws {
        try await Self.withReceiver { port, _ in
            guard case .retry(_, let sent, nil) = try await Self.outcome(port: port, path: "slow", timeoutSeconds: 2) else {
                Issue.record("a request that timed out is retried")
                return
            }
            #expect(sent, "it may have arrived: unknown, retried with the same id")
        }
        let closedPort = TestPorts.unused()
        guard case .retry(_, let sent, nil) = try await Self.outcome(port: closedPort, path: "ok") else {
            Issue.record("a refused connection is retried")
            return
        }
        #expect(!sent, "nothing left this machine")
    }

    @Test func anAnswerWhoseBodyTricklesEndsByTheTimeoutAsARequestDoes() async throws {
        try await Self.withReceiver { port, _ in
            let started = ContinuousClock.now
            let outcome = try await Self.outcome(port: port, path: "trickle", timeoutSeconds: 10)
            #expect(outcome == .failed("the receiver answered 400"), "the status decides; the words that did not come in time are left out")
            // The body would take 50 s; the delivery must end near its 10 s deadline (bounds far apart, for a busy
            // machine: a whole suite on two cores once kept the head past a 4 s deadline, this receiver being in the
            // suite's own process).
            #expect(ContinuousClock.now - started < .seconds(35), "\(ContinuousClock.now - started)")
        }
    }

    @Test func aDeliveryTheLeaseNoLongerAllowsIsNotSent() async throws {
        try await Self.withReceiver { port, received in
            let outcome = try await Self.outcome(port: port, path: "ok", mayStart: false)
            #expect(outcome == .retry("not sent: this run's lease on it ended first", sent: false, retryAfter: nil))
            #expect(received.headers.withLock { $0.isEmpty }, "nothing reached the receiver")
        }
    }

}
