import AsyncHTTPClient
import Foundation
public import Membership
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Delivers each reminder as an HTTP POST following Standard Webhooks (`webhook-id` = the reminder id, so a
/// receiver drops a repeat; `webhook-timestamp`; `webhook-signature`), at most `concurrency` at once.
///
/// 2xx is delivered. 408, 429 and 5xx, or no connection, are retried later (honouring `Retry-After`). Any
/// other answer is a refusal for good. A request that timed out after it was sent may have arrived: it is
/// `unknown`, and retried with the same id.
public final class WebhookSink: ReminderSink, Sendable {
    private let url: String
    private let signer: StandardWebhookSigner
    private let concurrency: Int
    private let timeoutSeconds: Int64
    private let client: HTTPClient
    private let clock: WallClock

    public init(
        url: String,
        signer: StandardWebhookSigner,
        concurrency: Int = 32,
        timeoutSeconds: Int64 = 10,
        clock: WallClock
    ) throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "https" || scheme == "http", parsed.host != nil
        else {
            throw ReminderSinkError("'\(url)' is not a webhook address like https://backend.peez.dz/hooks/reminders")
        }
        self.url = url
        self.signer = signer
        self.concurrency = max(1, concurrency)
        self.timeoutSeconds = timeoutSeconds
        self.clock = clock
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5), read: .seconds(timeoutSeconds))
        )
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = self.concurrency
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The request's timeout, and a second for the cancellation to take effect.
    public var longestDeliverySeconds: Int64 { timeoutSeconds + 1 }

    public func deliver(_ messages: [ReminderDelivery], mayStart: @escaping @Sendable (_ id: String) async -> Bool) async -> [ReminderOutcome] {
        var outcomes = [ReminderOutcome](repeating: .retry("not sent", sent: false, retryAfter: nil), count: messages.count)
        await withTaskGroup(of: (Int, ReminderOutcome).self) { group in
            var next = 0
            func start() {
                let index = next
                let message = messages[index]
                group.addTask { (index, await mayStart(message.id) ? await self.post(message) : .leaseLost) }
                next += 1
            }
            while next < min(concurrency, messages.count) { start() }
            for await (index, outcome) in group {
                outcomes[index] = outcome
                if next < messages.count { start() }
            }
        }
        return outcomes
    }

    private func post(_ message: ReminderDelivery) async -> ReminderOutcome {
        // The whole exchange, the answer's body too, ends by this deadline: the run's lease counts on it.
        let deadline = NIODeadline.now() + .seconds(timeoutSeconds)
        let timestamp = clock()
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "webhook-id", value: message.id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(name: "webhook-signature", value: signer.signature(id: message.id, timestamp: timestamp, body: message.body))
        request.body = .bytes(ByteBuffer(bytes: message.body))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch {
            return .retry("no answer: \(error)", sent: Self.mayHaveArrived(error), retryAfter: nil)
        }
        let status = Int(response.status.code)
        let answer = await Self.answer(response.body, before: deadline)
        switch status {
        case 200..<300:
            return .delivered
        case 408, 429, 500..<600:
            return .retry("the receiver answered \(status)", sent: false, retryAfter: Self.retryAfter(response.headers.first(name: "retry-after")))
        default:
            return .failed("the receiver answered \(status)\(answer.isEmpty ? "" : ": " + Self.quoted(answer))")
        }
    }

    /// The first 2 KiB of the answer's body (nothing if it is longer), as far as it came before `deadline`:
    /// AsyncHTTPClient's own deadline ends with the answer's head, and a receiver trickling the body must not
    /// hold the delivery past its lease.
    /// (A timer on the event loop, as AsyncHTTPClient's own: cancelled when done, it is gone at once, where a
    /// sleeping task would stay scheduled until its deadline, tens of thousands at a time in a large run.)
    static func answer(_ body: HTTPClientResponse.Body, before deadline: NIODeadline) async -> String {
        let reading = Task { (try? await body.collect(upTo: 2_048)).map { String(buffer: $0) } ?? "" }
        let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(deadline: deadline) { reading.cancel() }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await reading.value
        } onCancel: {
            reading.cancel()
        }
    }

    /// The receiver's words as kept in a reminder's reason and printed by `peez remind status`: at most 200
    /// characters, control and formatting characters (a terminal's escape sequences, line breaks, direction
    /// overrides) shown as spaces.
    static func quoted(_ answer: String) -> String {
        let scalars = answer.unicodeScalars.prefix(200).map { scalar -> Unicode.Scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: " "
            default: scalar
            }
        }
        return String(String.UnicodeScalarView(scalars))
    }

    /// A request that failed before a connection was made cannot have arrived; one that failed after may have.
    static func mayHaveArrived(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError, error == .connectTimeout { return false }
        if error is NIOConnectionError { return false }
        if let error = error as? IOError, [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode) { return false }
        if error is NIOSSLError { return false }
        return true
    }

    /// `Retry-After` as delay-seconds or an HTTP date (RFC 9110), in seconds from now.
    static func retryAfter(_ value: String?) -> Int64? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int64(value), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, Int64(date.timeIntervalSinceNow))
    }

    public func close() async {
        try? await client.shutdown()
    }
}
