public import Hummingbird
import Foundation
import Logging
public import Membership

/// The one error body every route answers with: `{"error": {"code", "message", "fields"?}}`.
struct ErrorBody: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
        var fields: [String: String]?
    }
    var error: Detail
}

extension MembershipError: HTTPResponseError {
    /// The HTTP status each domain error code stands for.
    public var status: HTTPResponse.Status {
        switch code {
        case .invalidFields, .idempotencyKeyReused: return .unprocessableContent
        case .notFound: return .notFound
        case .conflict, .requestInFlight: return .conflict
        case .unauthenticated: return .unauthorized
        case .forbidden: return .forbidden
        case .payloadTooLarge: return .contentTooLarge
        default: return .badRequest
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ErrorBody(error: .init(code: code.description, message: message, fields: fields.isEmpty ? nil : fields))
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if code == .unauthenticated { headers[.wwwAuthenticate] = "Bearer realm=\"peez\"" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(body))))
    }
}

/// Renders every error in the one error shape: domain errors as they say, the framework's own (no route,
/// body too large) translated, and anything else as a 500 whose detail goes to the log, not the client.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as MembershipError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let translated: MembershipError
            switch error.status {
            case .notFound: translated = MembershipError(.notFound, "No route for \(request.method) \(request.uri.path).")
            case .contentTooLarge: translated = MembershipError(.payloadTooLarge, "The request body is larger than \(context.maxUploadSize) bytes.")
            case .methodNotAllowed: translated = MembershipError(.badRequest, "\(request.method) is not allowed on \(request.uri.path).")
            default: translated = MembershipError(.badRequest, error.body ?? "The request is not well formed.")
            }
            var response = try translated.response(from: request, context: context)
            if error.status == .notFound || error.status == .methodNotAllowed { response.status = error.status }
            return response
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            let body = ErrorBody(error: .init(code: "internal", message: "The service failed; the error is logged.", fields: nil))
            return Response(status: .internalServerError, headers: [.contentType: "application/json; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(body))))
        }
    }
}
