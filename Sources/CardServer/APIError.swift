import Foundation
public import Hummingbird
import Logging
import Membership
import PeezAPI
import PeezBasics

/// An error the API answers with: its HTTP status, a stable code, a message a person can act on and, for
/// invalid input, each field's problem. Every error body has the one shape `{"error": {"code", "message",
/// "fields"?}}`.
public struct APIError: Error, HTTPResponseError, CustomStringConvertible {
    public let status: HTTPResponse.Status
    /// The stable code in the body, e.g. `invalid_fields`.
    public let code: String
    public let message: String
    /// Field name → what is wrong with it.
    public let fields: [String: String]

    public init(_ status: HTTPResponse.Status, code: String, _ message: String, fields: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// No valid credentials (401, with a `WWW-Authenticate` challenge).
    static func unauthenticated(_ message: String) -> APIError { APIError(.unauthorized, code: "unauthenticated", message) }
    /// Valid credentials that may not do this (403).
    /// A credential no longer accepted: 401 with `credential_revoked` or `credential_expired`, saying when.
    static func refused(_ credential: APICredential, _ refusal: CredentialRefusal) -> APIError {
        switch refusal {
        case .revoked(let at):
            return APIError(
                .unauthorized,
                code: "credential_revoked",
                "This credential (\(credential.label)) was revoked at \(AlgiersCalendar.iso8601(at)); nothing is done with it. Ask PEEZ to enrol this device again."
            )
        case .expired(let at):
            return APIError(
                .unauthorized,
                code: "credential_expired",
                "This credential (\(credential.label)) was replaced and stopped being accepted at \(AlgiersCalendar.iso8601(at)); use its new secret."
            )
        }
    }

    static func forbidden(_ message: String) -> APIError { APIError(.forbidden, code: "forbidden", message) }
    /// A request that is not well formed: not JSON, a missing header (400).
    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, code: "bad_request", message) }
    /// A body over the size limit (413).
    static func payloadTooLarge(_ limit: Int) -> APIError {
        APIError(.contentTooLarge, code: "payload_too_large", "The request body is larger than \(limit) bytes.")
    }

    /// The status each domain error code is answered with. A code missing here is a code added to the domain
    /// and not to the API: ``init(_:)`` answers it as the service's failure, and a test holds every code to it.
    static let statuses: [MembershipError.Code: HTTPResponse.Status] = [
        .invalidFields: .unprocessableContent, .idempotencyKeyReused: .unprocessableContent, .notFound: .notFound,
        .conflict: .conflict, .requestInFlight: .conflict, .storeUnavailable: .serviceUnavailable,
    ]

    /// Seconds a client should wait before sending a request again whose twin is still in flight.
    static let inFlightRetryAfterSeconds = 1
    /// Seconds a client should wait before sending a request again that the database could not serve.
    static let storeUnavailableRetryAfterSeconds = 5

    /// A domain error as the API answers it.
    init(_ error: MembershipError) {
        guard let status = Self.statuses[error.code] else {
            self.init(.internalServerError, code: "internal", "The service has no answer for its error \(error.code); the error is logged.")
            return
        }
        self.init(status, code: error.code.description, error.message, fields: error.fields)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ErrorBody(error: .init(code: code, message: message, fields: fields.isEmpty ? nil : fields))
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer realm=\"peez\"" }
        if code == MembershipError.Code.requestInFlight.description { headers[.retryAfter] = String(Self.inFlightRetryAfterSeconds) }
        if code == MembershipError.Code.storeUnavailable.description { headers[.retryAfter] = String(Self.storeUnavailableRetryAfterSeconds) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONExchange.encoder.encode(body))))
    }
}

/// The one error body every route answers with.
typealias ErrorBody = ServiceErrorBody

/// Renders every error in the one error shape: API and domain errors as they say, the framework's own (no
/// route, body too large) translated, and anything else as a 500 whose detail goes to the log, not the client.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The methods each path serves, for a 405's `Allow`.
    let allowedMethods: AllowedMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as MembershipError {
            let answer = APIError(error)
            if answer.status == .internalServerError { context.logger.error("a domain error the API does not map", metadata: ["error": "\(error)"]) }
            return try answer.response(from: request, context: context)
        } catch let error as MalformedRequestBody {
            return try APIError.badRequest(error.reason).response(from: request, context: context)
        } catch let error as HTTPError {
            let translated: APIError
            switch error.status {
            case .notFound:
                let allowed = allowedMethods.methods(for: request.uri.path)
                guard allowed.isEmpty else {
                    var response = try APIError(
                        .methodNotAllowed,
                        code: "method_not_allowed",
                        "\(request.method) is not served on \(request.uri.path); use \(allowed.joined(separator: " or "))."
                    )
                    .response(from: request, context: context)
                    response.headers[.allow] = allowed.joined(separator: ", ")
                    return response
                }
                translated = APIError(.notFound, code: "not_found", "No route for \(request.method) \(request.uri.path).")
            case .contentTooLarge: translated = .payloadTooLarge(context.maxUploadSize)
            default: translated = .badRequest(error.body ?? "The request is not well formed.")
            }
            return try translated.response(from: request, context: context)
        } catch  where error is CancellationError || Task.isCancelled {
            // The client hung up (the server cancels its handler) or the service is shutting down: not a
            // failure of the service, so no 5xx and no error log. 499 is the common code for it.
            context.logger.debug("request cancelled", metadata: ["error": "\(error)"])
            return Response(status: .init(code: 499, reasonPhrase: "Client Closed Request"))
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            let body = ErrorBody(error: .init(code: "internal", message: "The service failed; the error is logged.", fields: nil))
            return Response(
                status: .internalServerError,
                headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: try JSONExchange.encoder.encode(body)))
            )
        }
    }
}
