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

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let deadline = ConnectionDeadline(limits: limits)
            let operations = channel.pipeline.syncOperations
            // Raw bytes (after TLS, if any), before the HTTP codec: the first byte of a request starts its header
            // deadline, and a 408 written from here is still encrypted.
            let codec = try operations.handler(type: HTTPResponseEncoder.self)
            try operations.addHandler(RequestBytesWatcher(deadline: deadline), position: .before(codec))
            // Decoded parts: a request's head, its end, and the end of its response move it on.
            let stateHandler = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(RequestPartsWatcher(deadline: deadline), position: .before(stateHandler))
            // A request that is not HTTP: answered in the API's error shape, not the framework's empty 400.
            try operations.addHandler(ParserErrorResponder(), position: .before(stateHandler))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// The phase a connection is in and the one timer that phase runs. Lives on the connection's event loop.
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
    private(set) var phase: Phase = .idle
    private var timer: Scheduled<Void>?
    /// The context of the raw-bytes handler, from which a timed-out request is answered and the socket closed.
    var context: ChannelHandlerContext?

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    /// Moves to `phase` and starts its timer (none while responding: the service bounds its own work).
    func enter(_ phase: Phase) {
        self.phase = phase
        timer?.cancel()
        timer = nil
        guard let context else { return }
        let limit: Duration
        switch phase {
        case .idle: limit = limits.idleTimeout
        case .readingHead: limit = limits.headerTimeout
        case .readingBody: limit = limits.bodyTimeout
        case .responding: return
        }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(limit)) { [self] in
            expire(phase)
        }
    }

    func cancel() {
        timer?.cancel()
        timer = nil
        context = nil
    }

    /// An idle connection just closes; a request cut off half-read is answered 408 first, as RFC 9110 says.
    private func expire(_ expired: Phase) {
        guard let context, phase == expired else { return }
        if expired != .idle {
            let body = #"{"error":{"code":"request_timeout","message":"the request did not arrive in time; send it again, whole"}}"#
            let head = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: head + body)), promise: nil)
        }
        context.close(promise: nil)
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
        deadline.enter(.idle)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if deadline.phase == .idle { deadline.enter(.readingHead) }
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
