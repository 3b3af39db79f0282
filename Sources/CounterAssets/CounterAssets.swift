import Foundation

/// What both counters show and the web counter is made of: the verdict texts `peez counter` and the page share,
/// and the page's files, built into the binary (no files to install, nothing to build by hand).
public enum CounterAssets {
    /// `counter-texts.json`: the verdict words and lines in English, French and Arabic.
    public static var counterTexts: [UInt8] { PackageResources.counter_texts_json }

    /// `counter-rules.json`: the rules both counters follow (price, months, clock tolerance, time range, batch
    /// sizes, the scan log's genesis).
    public static var counterRules: [UInt8] { PackageResources.counter_rules_json }

    /// The web counter's files by name, as `peez serve` sends them under `/counter/`.
    public static let webFiles: [String: WebFile] = {
        var sources: [(String, [UInt8])] = [
            ("index.html", PackageResources.index_html), ("counter.css", PackageResources.counter_css),
            ("app.js", PackageResources.app_js), ("counter.js", PackageResources.counter_js), ("store.js", PackageResources.store_js),
            ("rules.js", PackageResources.rules_js), ("problems.js", PackageResources.problems_js),
            ("scan-log.js", PackageResources.scan_log_js), ("sales.js", PackageResources.sales_js),
            ("trust.js", PackageResources.trust_js), ("verifier.js", PackageResources.verifier_js), ("keys.js", PackageResources.keys_js),
            ("claims.js", PackageResources.claims_js), ("cose.js", PackageResources.cose_js), ("cbor.js", PackageResources.cbor_js),
            ("base45.js", PackageResources.base45_js), ("token-error.js", PackageResources.token_error_js),
            ("decoder.js", PackageResources.decoder_js), ("zbar.js", PackageResources.zbar_js), ("zbar.wasm", PackageResources.zbar_wasm),
            ("web-texts.json", PackageResources.web_texts_json), ("counter-texts.json", PackageResources.counter_texts_json),
            ("counter-rules.json", PackageResources.counter_rules_json),
            ("manifest.webmanifest", PackageResources.manifest_webmanifest),
            ("icon-192.png", PackageResources.icon_192_png), ("icon-512.png", PackageResources.icon_512_png),
        ]
        // The service worker caches every other file under a name that changes with any of them.
        let version = hexDigest(sources.flatMap { $0.1 })
        let list = "[\"./\", " + sources.map { "\"\($0.0)\"" }.joined(separator: ", ") + "]"
        let worker = String(decoding: PackageResources.sw_js, as: UTF8.self)
            .replacingOccurrences(of: "__PEEZ_COUNTER_VERSION__", with: version)
            .replacingOccurrences(of: "__PEEZ_COUNTER_FILES__", with: list)
        sources.append(("sw.js", Array(worker.utf8)))
        return Dictionary(uniqueKeysWithValues: sources.map { ($0.0, WebFile(name: $0.0, bytes: $0.1)) })
    }()

    /// 64-bit FNV-1a, hex: a name that changes with the bytes (a cache key, not a security check).
    static func hexDigest(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// One file of the web counter, with what an HTTP answer needs.
public struct WebFile: Sendable {
    /// The file's name under `/counter/`.
    public let name: String
    /// Its bytes.
    public let bytes: [UInt8]
    /// Its bytes gzip-compressed, when that is smaller (nil otherwise).
    public let gzipped: [UInt8]?
    /// Its media type.
    public let contentType: String
    /// A strong validator of the file as it is (the identity representation).
    public let etag: String
    /// A strong validator of its gzip representation: another representation has another tag (RFC 9110 §8.8.3).
    public let gzipEtag: String

    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
        let compressed = Gzip.compress(bytes)
        gzipped = compressed.map { $0.count < bytes.count ? $0 : nil } ?? nil
        contentType = Self.contentType(of: name)
        let digest = CounterAssets.hexDigest(bytes)
        etag = "\"" + digest + "\""
        gzipEtag = "\"" + digest + "-gzip\""
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last ?? "" {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "json": return "application/json"
        case "webmanifest": return "application/manifest+json"
        case "png": return "image/png"
        case "wasm": return "application/wasm"
        default: return "application/octet-stream"
        }
    }
}
