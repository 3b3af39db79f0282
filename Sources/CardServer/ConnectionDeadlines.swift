import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// HTTP/1.1 as Hummingbird serves it, with a deadline on every phase of a connection (``ConnectionLimits``) and
/// malformed requests answered in the API's error shape.
struct DeadlineHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let limits: ConnectionLimits
    /// Every open connection, for the cap: see ``ConnectionRegistry``.
    let registry: ConnectionRegistry

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { [registry] value in
            let deadline = ConnectionDeadline(limits: limits, registry: registry)
            switch registry.open(channel) {
            case .admitted(let closing):
                for idle in closing { idle.close(promise: nil) }
            case .refused:
                deadline.refused = true
            }
            channel.closeFuture.whenComplete { _ in registry.close(channel) }
            let operations = channel.pipeline.syncOperations
            // Raw bytes (after TLS, if any), before the HTTP codec: the first byte of a request starts its header
            // deadline, and a 408 written from here is still encrypted.
            let codec = try operations.handler(type: HTTPResponseEncoder.self)
            try operations.addHandler(RequestBytesWatcher(deadline: deadline), position: .before(codec))
            // Decoded parts: a request's head, its end, and the end of its response move it on.
            let stateHandler = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(RequestPartsWatcher(deadline: deadline), position: .before(stateHandler))
            // A request that is not HTTP: answered in the API's error shape, not the framework's empty 400.
            try operations.addHandler(ParserErrorResponder(deadline: deadline), position: .before(stateHandler))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// The phase a connection is in and when it must have moved on. Lives on the connection's event loop.
///
/// A phase's deadline is checked by one timer that looks every ``checkInterval`` while a deadline runs, not by a
/// timer scheduled and cancelled at each phase: a request moves through four phases, and the timers cost 4 % of
/// a warm `card.png` (measured with perf). A phase ends at most one interval after its deadline.
final class ConnectionDeadline {
    enum Phase {
        /// No request in progress: waiting for the next one's first byte.
        case idle
        /// A request's first bytes arrived; its headers have not ended.
        case readingHead
        /// The headers ended; the body has not.
        case readingBody
        /// The whole request arrived; its response is being made.
        case responding
    }

    private let limits: ConnectionLimits
    private let registry: ConnectionRegistry
    private(set) var phase: Phase = .idle
    /// When the current phase must have ended (nil while responding: the service bounds its own work).
    private var deadline: NIODeadline?
    /// The check, while one is scheduled.
    private var timer: Scheduled<Void>?
    /// The context of the raw-bytes handler, from which a timed-out request is answered and the socket closed.
    var context: ChannelHandlerContext?
    /// The connection came past the cap with no idle one to close for it: answered 503 and closed at once.
    var refused = false
    /// The first bytes of the request being read, for the answer to one that is not HTTP.
    let requestStart = RequestStart()

    init(limits: ConnectionLimits, registry: ConnectionRegistry) {
        self.limits = limits
        self.registry = registry
    }

    /// How often a running deadline is checked: a tenth of the shortest limit, between 10 ms and 1 s.
    var checkInterval: TimeAmount {
        let shortest = min(limits.idleTimeout, limits.headerTimeout, limits.bodyTimeout) / 10
        return TimeAmount(min(max(shortest, .milliseconds(10)), .seconds(1)))
    }

    /// Moves to `phase` and sets its deadline (none while responding: the service bounds its own work).
    func enter(_ phase: Phase) {
        if (self.phase == .idle) != (phase == .idle), let channel = context?.channel { registry.setIdle(channel, phase == .idle) }
        self.phase = phase
        if phase == .idle { requestStart.reset() }
        guard let context else { return }
        let limit: Duration
        switch phase {
        case .idle: limit = limits.idleTimeout
        case .readingHead: limit = limits.headerTimeout
        case .readingBody: limit = limits.bodyTimeout
        case .responding:
            deadline = nil
            return
        }
        deadline = .now() + TimeAmount(limit)
        if timer == nil { scheduleCheck(context) }
    }

    /// Looks at the deadline after ``checkInterval``: the phase expires once it has passed; the check goes on
    /// while a deadline runs and stops while the response is made (the next phase starts it again).
    private func scheduleCheck(_ context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: checkInterval) { [self] in
            timer = nil
            guard let deadline, let context = self.context else { return }
            if NIODeadline.now() >= deadline {
                expire()
            } else {
                scheduleCheck(context)
            }
        }
    }

    func cancel() {
        timer?.cancel()
        timer = nil
        context = nil
    }

    /// An idle connection just closes; a request cut off half-read is answered 408 first, as RFC 9110 says.
    private func expire() {
        guard let context else { return }
        if phase != .idle {
            answerAndClose("408 Request Timeout", code: "request_timeout", message: "the request did not arrive in time; send it again, whole")
        } else {
            context.close(promise: nil)
            cancel()
        }
    }

    /// Writes an error in the API's shape as raw bytes, below the HTTP codec (which knows nothing of it: a
    /// timed-out request, a refused connection, a CONNECT whose answer it would strip), then closes. `message`
    /// is fixed text, safe in JSON as it is.
    func answerAndClose(_ status: String, code: String, message: String, headers: String = "") {
        guard let context else { return }
        let body = #"{"error":{"code":""# + code + #"","message":""# + message + #""}}"#
        let head = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\(headers)Connection: close\r\n\r\n"
        let channel = context.channel
        context.writeAndFlush(NIOAny(channel.allocator.buffer(string: head + body))).whenComplete { _ in channel.close(promise: nil) }
        cancel()
    }
}

/// Sees the raw bytes a client sends: bytes that arrive while the connection is idle begin a request.
final class RequestBytesWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadline: ConnectionDeadline

    init(deadline: ConnectionDeadline) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        deadline.context = context
        if deadline.refused {
            if context.channel.isActive { refuse(context: context) }
            return
        }
        deadline.enter(.idle)
    }

    func channelActive(context: ChannelHandlerContext) {
        if deadline.refused { refuse(context: context) }
        context.fireChannelActive()
    }

    /// A connection past the cap with nothing idle to close for it: a 503 at once, then closed.
    private func refuse(context: ChannelHandlerContext) {
        deadline.answerAndClose(
            "503 Service Unavailable",
            code: "too_many_connections",
            message: "every connection is busy; send the request again in a moment",
            headers: "Retry-After: 1\r\n"
        )
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if deadline.phase == .idle { deadline.enter(.readingHead) }
        if deadline.phase == .readingHead { deadline.requestStart.append(unwrapInboundIn(data).readableBytesView) }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline.cancel()
        context.fireChannelInactive()
    }
}

/// Sees decoded request and response parts: a head ends the header phase, a request's end the body phase,
/// and a response's end returns the connection to idle.
final class RequestPartsWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let deadline: ConnectionDeadline

    init(deadline: ConnectionDeadline) {
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadline.enter(.readingBody)
        case .end: deadline.enter(.responding)
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // A pipelined request already being read keeps its own deadline.
        if case .end = unwrapOutboundIn(data), deadline.phase == .responding { deadline.enter(.idle) }
        context.write(data, promise: promise)
    }
}

/// The first bytes of the request being read, up to its first line's end or 8 KiB: enough to tell a request
/// line with an HTTP version this service does not speak (505) from one that is not a request line (400).
final class RequestStart {
    private(set) var bytes: [UInt8] = []
    static let limit = 8 * 1024

    func append(_ more: some Collection<UInt8>) {
        guard bytes.count < Self.limit, !bytes.contains(UInt8(ascii: "\n")) else { return }
        bytes += more.prefix(Self.limit - bytes.count)
    }

    func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Whether the first line is a well-formed request line, `METHOD SP target SP HTTP/d.d CRLF`, whose version
    /// is other than 1.0 and 1.1: only then is the version the fault (505); anything else is a malformed request.
    var namesAnotherHTTPVersion: Bool {
        guard let lineFeed = bytes.firstIndex(of: UInt8(ascii: "\n")), lineFeed > 0, bytes[lineFeed - 1] == UInt8(ascii: "\r") else { return false }
        let parts = bytes[..<(lineFeed - 1)].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        let version = Array(parts[2])
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        guard version.count == 8, version.starts(with: Array("HTTP/".utf8)), isDigit(version[5]), version[6] == UInt8(ascii: "."), isDigit(version[7])
        else {
            return false
        }
        return !(version[5] == UInt8(ascii: "1") && (version[7] == UInt8(ascii: "0") || version[7] == UInt8(ascii: "1")))
    }
}
