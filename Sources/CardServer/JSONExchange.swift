import Foundation
import Hummingbird
import Logging
import Membership
import NIOCore
import PeezAPI

/// Reading request bodies and writing JSON responses, with errors a client can act on.
enum JSONExchange {
    static var encoder: JSONEncoder { APIJSON.encoder }

    /// The body's bytes, at most `limit` (the context's upload limit unless a route takes more; else 413,
    /// before reading where the length is declared).
    static func bodyBytes(_ request: Request, context: ServerRequestContext, limit: Int? = nil) async throws -> [UInt8] {
        let limit = limit ?? context.maxUploadSize
        let tooLarge = APIError.payloadTooLarge(limit)
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit { throw tooLarge }
        var request = request
        do {
            return Array(try await request.collectBody(upTo: limit).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw tooLarge
        } catch {
            // The client went away or broke off mid-body: its failure, not the service's (no 5xx, no error log).
            context.logger.debug("the request body ended early", metadata: ["error": "\(error)"])
            throw APIError.badRequest("The request body ended before its declared length.")
        }
    }

    /// Decodes `T` from the request body.
    static func decode<T: APIRequest>(_ type: T.Type, _ request: Request, context: ServerRequestContext) async throws -> T {
        try RequestDecoding.decode(type, from: try await bodyBytes(request, context: context))
    }

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        response(bytes: try APIJSON.encode(value), status: status, headers: headers)
    }

    static func response(bytes: [UInt8], status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
