import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request that is not valid HTTP/1.1 (a broken request line, headers too large, a bad
/// Content-Length) in the API's one error shape, then closes the connection. Without it the framework answers
/// an empty 400. An error in a request already handed on (a body cut off by a client that hung up) belongs to
/// the handler reading it, and goes on to it: answered here, that handler would wait for the rest forever.
final class ParserErrorResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var answered = false
    /// A request head went on and its end has not.
    private var requestInProgress = false
    /// The connection's deadline: the start of the request being read (to tell a version fault from a malformed
    /// request line), and the raw writer a CONNECT is answered through (the codec would strip that answer's body).
    private let deadline: ConnectionDeadline

    init(deadline: ConnectionDeadline) {
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch unwrapInboundIn(data) {
        case .head(let head) where head.method == .connect:
            answered = true
            deadline.answerAndClose("501 Not Implemented", code: "not_implemented", message: "CONNECT is not served: this is an API, not a proxy.")
            return
        case .head: requestInProgress = true
        case .end: requestInProgress = false
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, !requestInProgress, parserError != .invalidEOFState else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        let (status, code, message) = Self.answer(for: parserError, namesAnotherVersion: deadline.requestStart.namesAnotherHTTPVersion)
        answer(context: context, status: status, code: code, message: message)
    }

    /// Writes the error (`message` is fixed text, safe in JSON as it is) and closes the connection.
    private func answer(context: ChannelHandlerContext, status: HTTPResponse.Status, code: String, message: String) {
        answered = true
        let body = #"{"error":{"code":""# + code + #"","message":""# + message + #""}}"#
        let head = HTTPResponse(
            status: status,
            headerFields: [
                .contentType: "application/json; charset=utf-8", .contentLength: String(body.utf8.count), .connection: "close",
            ]
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// The status, code and message for a parser error; the messages are fixed text, safe to put in JSON as is.
    /// A version error is the version's fault (505) only when the request line is well formed and names
    /// another version; a broken request line or bare LF line ends are the request's fault (400).
    static func answer(for error: HTTPParserError, namesAnotherVersion: Bool) -> (HTTPResponse.Status, String, String) {
        switch error {
        case .headerOverflow:
            return (.requestHeaderFieldsTooLarge, "headers_too_large", "The request headers are too large.")
        case .invalidContentLength, .unexpectedContentLength:
            return (.badRequest, "bad_request", "The Content-Length header is not a valid length.")
        case .invalidVersion where namesAnotherVersion:
            return (.httpVersionNotSupported, "http_version_not_supported", "Only HTTP/1.0 and HTTP/1.1 are served.")
        default:
            return (.badRequest, "bad_request", "The request is not valid HTTP/1.1.")
        }
    }
}
