import Foundation
import Hummingbird
import Logging
import Membership
import NIOCore

/// Reading request bodies and writing JSON responses, with errors a client can act on.
enum JSONExchange {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

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

    /// A hash of what a body means rather than how it is spelt: JSON is hashed with its keys sorted, so a
    /// retry whose client serialises keys in another order is still the same request.
    static func requestHash(_ bytes: [UInt8], sha256: ([UInt8]) -> [UInt8]) -> [UInt8] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),
            let canonical = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        else { return sha256(bytes) }
        return sha256(Array(canonical))
    }

    /// Decodes `T` from `bytes`: 400 when it is not a JSON object, 422 naming every field that is missing or of
    /// the wrong kind, all at once.
    static func decode<T: RequestFields>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw APIError.badRequest("The body is not a JSON object.")
        }
        let problems = T.problems(in: object)
        guard problems.isEmpty else {
            throw MembershipError(
                .invalidFields,
                problems.count == 1 ? "A field is missing or invalid." : "\(problems.count) fields are missing or invalid.",
                fields: problems
            )
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, context) {
            throw MembershipError(.invalidFields, "A required field is missing.", fields: [path(context.codingPath + [key]): "is required"])
        } catch let DecodingError.typeMismatch(_, context) {
            throw MembershipError(.invalidFields, "A field has the wrong type.", fields: [path(context.codingPath): "has the wrong type"])
        } catch let DecodingError.valueNotFound(_, context) {
            throw MembershipError(.invalidFields, "A required field is null.", fields: [path(context.codingPath): "is required"])
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw MembershipError(.invalidFields, "A field has an invalid value.", fields: [path(context.codingPath): "is invalid"])
        } catch {
            throw APIError.badRequest("The body is not a JSON object of the expected shape.")
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map(\.stringValue).joined(separator: ".")
    }

    /// Decodes `T` from the request body.
    static func decode<T: RequestFields>(_ type: T.Type, _ request: Request, context: ServerRequestContext) async throws -> T {
        try decode(type, from: try await bodyBytes(request, context: context))
    }

    static func encode(_ value: some Encodable) throws -> [UInt8] {
        Array(try encoder.encode(value))
    }

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        response(bytes: try encode(value), status: status, headers: headers)
    }

    static func response(bytes: [UInt8], status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
