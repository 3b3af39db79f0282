import CPeezOpenSSL
import CardCrypto
import Foundation
import PeezBasics

/// A Google Cloud service account's key (the JSON file Google gives: `client_email`, `private_key`, `token_uri`),
/// and the RS256 JSON Web Tokens it signs: the "Save to Google Wallet" JWT and the OAuth 2.0 JWT-bearer
/// assertion (RFC 7523) exchanged for an access token.
public final class GoogleServiceAccount: @unchecked Sendable {
    private let key: OpaquePointer
    public let clientEmail: String
    public let tokenURI: String

    /// Reads the key file's JSON; `invalidConfiguration` naming what is missing.
    public init(json: [UInt8]) throws(WalletError) {
        guard let file = try? JSONDecoder().decode(KeyFile.self, from: Data(json)), !file.client_email.isEmpty,
            URL(string: file.token_uri)?.scheme?.hasPrefix("http") == true
        else {
            throw WalletError(
                .invalidConfiguration,
                "PEEZ_GOOGLE_WALLET_SERVICE_ACCOUNT is not a service account key file (JSON with client_email, private_key, token_uri)"
            )
        }
        let (email, pem, tokenURI) = (file.client_email, file.private_key, file.token_uri)
        guard let bio = copyingBIO(Array(pem.utf8)) else { throw WalletError(.invalidConfiguration, "reading the service account key") }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil), EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
            _ = OpenSSLErrorQueue.drain()
            throw WalletError(.invalidConfiguration, "the service account's private_key is not an RSA key in PEM: download the key file again")
        }
        self.key = key
        self.clientEmail = email
        self.tokenURI = tokenURI
    }

    deinit { EVP_PKEY_free(key) }

    /// An RS256 JWT of `claims` (a JSON object's bytes).
    public func jwt(claims: [UInt8]) throws(WalletError) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let input = Array("\(header).\(Base64URL.encode(claims))".utf8)
        guard let context = EVP_MD_CTX_new() else { throw WalletError(.signingFailed, "allocating a digest context") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1, EVP_DigestSign(context, nil, &length, input, input.count) == 1 else {
            throw WalletError(.signingFailed, "RS256 signing: \(OpenSSLErrorQueue.drain())")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, input, input.count) == 1 else {
            throw WalletError(.signingFailed, "RS256 signing: \(OpenSSLErrorQueue.drain())")
        }
        return String(decoding: input, as: UTF8.self) + "." + Base64URL.encode(signature.prefix(length))
    }

    /// The assertion of the OAuth 2.0 JWT-bearer grant for the Wallet API's scope, valid an hour from `now`.
    public func accessTokenAssertion(now: Int64) throws(WalletError) -> String {
        let claims = AssertionClaims(
            iss: clientEmail,
            scope: "https://www.googleapis.com/auth/wallet_object.issuer",
            aud: tokenURI,
            iat: now,
            exp: now + 3_600
        )
        return try jwt(claims: Self.json(claims))
    }

    /// The fields of Google's service account key file this reads.
    struct KeyFile: Decodable {
        var client_email: String
        var private_key: String
        var token_uri: String
    }

    /// The claims of the JWT-bearer assertion (RFC 7523).
    struct AssertionClaims: Encodable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int64
        var exp: Int64
    }

    /// `value` as JSON with sorted keys, as the JWTs and the Wallet API's bodies are sent; a value that cannot be
    /// encoded (a non-finite number) is an error, never an empty body.
    public static func json(_ value: some Encodable) throws(WalletError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            throw WalletError(.signingFailed, "a Google Wallet document cannot be encoded as JSON: \(error)")
        }
    }
}

/// A member's card as a Google Wallet generic pass object, and the "Save to Google Wallet" link.
public struct GoogleWalletCard: Sendable {
    public var issuerID: String
    /// The object's id within the issuer: the member's uuid.
    public var memberUUID: String
    public var memberName: String
    public var membershipID: String
    public var cardToken: String
    public var coverageEnd: Int64?
    /// False once every period was cancelled: the object is shown as inactive.
    public var active: Bool

    public init(issuerID: String, memberUUID: String, memberName: String, membershipID: String, cardToken: String, coverageEnd: Int64?, active: Bool)
    {
        self.issuerID = issuerID
        self.memberUUID = memberUUID
        self.memberName = memberName
        self.membershipID = membershipID
        self.cardToken = cardToken
        self.coverageEnd = coverageEnd
        self.active = active
    }

    /// `issuer.member`: the object's id.
    public var objectID: String { "\(issuerID).\(memberUUID)" }
    /// `issuer.peez_membership`: the class every member's object belongs to.
    public var classID: String { "\(issuerID).peez_membership" }

    /// The generic object, as the Wallet API's `genericObject` resource has it.
    public var object: GoogleGenericObject {
        let end = coverageEnd.map(AlgiersCalendar.iso8601)
        return GoogleGenericObject(
            id: objectID,
            classId: classID,
            state: active ? "ACTIVE" : "INACTIVE",
            cardTitle: .french("PEEZ"),
            header: .french(memberName),
            subheader: .french(membershipID),
            barcode: .init(type: "QR_CODE", value: cardToken, alternateText: membershipID),
            hexBackgroundColor: "#122c25",
            validTimeInterval: end.map { .init(end: .init(date: $0)) },
            textModulesData: end.map { [.init(id: "coverage_end", header: "Payé jusqu'au · مدفوع حتى", body: String($0.prefix(10)))] }
        )
    }

    /// The save link's claims: `aud` google, `typ` savetowallet, the allowed origins, the class and the object.
    /// The class travels in the link, so Google creates it with the first save (and no class must be made
    /// beforehand through the API): Google inserts a class or object the link carries when it does not exist.
    struct SaveClaims: Encodable {
        struct Payload: Encodable {
            var genericClasses: [GoogleGenericClass]
            var genericObjects: [GoogleGenericObject]
        }
        var iss: String
        var aud = "google"
        var typ = "savetowallet"
        var iat: Int64
        var origins: [String]
        var payload: Payload
    }

    /// The save link: `https://pay.google.com/gp/v/save/` and an RS256 JWT (`aud` google, `typ`
    /// savetowallet, the allowed `origins`) carrying the object.
    public func saveURL(account: GoogleServiceAccount, origins: [String], now: Int64) throws(WalletError) -> String {
        let claims = SaveClaims(
            iss: account.clientEmail,
            iat: now,
            origins: origins,
            payload: .init(genericClasses: [GoogleGenericClass(id: classID)], genericObjects: [object])
        )
        return "https://pay.google.com/gp/v/save/" + (try account.jwt(claims: GoogleServiceAccount.json(claims)))
    }
}

/// A Google Wallet `genericClass` resource: its id (`issuer.peez_membership`) is all a generic class needs; the
/// objects carry what each card shows.
public struct GoogleGenericClass: Encodable, Sendable, Equatable {
    public var id: String

    public init(id: String) { self.id = id }
}

/// A Google Wallet `genericObject` resource, the fields PEEZ sets (the Wallet API's names; absent when nil).
public struct GoogleGenericObject: Encodable, Sendable, Equatable {
    /// A `LocalizedString` with only its default value.
    public struct LocalizedString: Encodable, Sendable, Equatable {
        public struct Translated: Encodable, Sendable, Equatable {
            public var language: String
            public var value: String
        }
        public var defaultValue: Translated

        static func french(_ value: String) -> LocalizedString { LocalizedString(defaultValue: Translated(language: "fr", value: value)) }
    }
    public struct Barcode: Encodable, Sendable, Equatable {
        public var type: String
        public var value: String
        public var alternateText: String
    }
    public struct TimeInterval: Encodable, Sendable, Equatable {
        public struct DateTime: Encodable, Sendable, Equatable {
            public var date: String
        }
        public var end: DateTime
    }
    public struct TextModule: Encodable, Sendable, Equatable {
        public var id: String
        public var header: String
        public var body: String
    }

    public var id: String
    public var classId: String
    public var state: String
    public var cardTitle: LocalizedString
    public var header: LocalizedString
    public var subheader: LocalizedString
    public var barcode: Barcode
    public var hexBackgroundColor: String
    public var validTimeInterval: TimeInterval?
    public var textModulesData: [TextModule]?
}
