import CardServer
import CounterAssets
import Foundation
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// The web counter's files, on a real socket: what a phone's browser is sent (the browser itself is tested by
/// Tests/Browser/run in Chromium).
@Suite("Web counter files")
struct CounterPageTests {
    static let policy = HTTPField.Name("Content-Security-Policy")!

    @Test func thePageIsServedWithAPolicyThatAllowsNoInlineScriptAndNoOtherOrigin() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let page = try await client.send(.get, "/counter/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let policy = try #require(page.headers[Self.policy])
            #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self' 'wasm-unsafe-eval'"), "\(policy)")
            #expect(!policy.contains("unsafe-inline") && !policy.contains("*") && !policy.contains("http"), "\(policy)")
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            let html = page.text
            #expect(html.contains(#"<script type="module" src="app.js"></script>"#))
            #expect(!html.contains("<script>") && !html.contains("onclick") && !html.contains("style="), "nothing inline for the policy to refuse")
        }
    }

    @Test func withoutTheFinalSlashTheCounterIsSentToTheFolderItsAddressesResolveIn() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let reply = try await client.send(.get, "/counter")
            #expect(reply.status == .movedPermanently)
            #expect(reply.headers[.location] == "/counter/")
        }
    }

    @Test func everyFileIsSentWholeGzippedWhenAskedAndNotAgainWhenUnchanged() async throws {
        try await ServerHarness.withLiveServer { _, client in
            for (name, file) in CounterAssets.webFiles {
                let plain = try await client.send(.get, "/counter/\(name)")
                #expect(plain.status == .ok && plain.body == file.bytes, "\(name)")
                #expect(plain.headers[.contentEncoding] == nil)
                let etag = try #require(plain.headers[.eTag])
                let unchanged = try await client.send(.get, "/counter/\(name)", headers: [.ifNoneMatch: etag])
                #expect(unchanged.status == .notModified && unchanged.body.isEmpty, "\(name)")
                let compressed = try await client.send(.get, "/counter/\(name)", headers: [.acceptEncoding: "br;q=1, gzip;q=0.8"])
                if let gzipped = file.gzipped {
                    #expect(compressed.headers[.contentEncoding] == "gzip" && compressed.body == gzipped, "\(name)")
                    let unpacked = try await ProcessRunner.run(["sh", "-c", "gzip -dc | sha256sum"], input: Data(gzipped)).standardOutput
                    #expect(
                        unpacked == (try await ProcessRunner.run(["sha256sum"], input: Data(file.bytes))).standardOutput,
                        "gunzip gives \(name) back"
                    )
                }
                let refused = try await client.send(.get, "/counter/\(name)", headers: [.acceptEncoding: "gzip;q=0"])
                #expect(refused.headers[.contentEncoding] == nil, "q=0 refuses gzip: \(name)")
            }
        }
    }

    @Test func eachEncodingHasItsOwnTagAndIfNoneMatchComparesWeaklyAndTakesAStar() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let (name, file) = try #require(CounterAssets.webFiles.first { $0.value.gzipped != nil })
            let plain = try await client.send(.get, "/counter/\(name)")
            let compressed = try await client.send(.get, "/counter/\(name)", headers: [.acceptEncoding: "gzip"])
            let (plainTag, gzipTag) = (try #require(plain.headers[.eTag]), try #require(compressed.headers[.eTag]))
            #expect(plainTag != gzipTag, "two representations, two strong validators (RFC 9110 §8.8.3)")
            #expect(plainTag == file.etag && gzipTag == file.gzipEtag)
            // A cache holding the gzip body must not be told its copy is the identity one, nor the other way.
            let crossed = try await client.send(.get, "/counter/\(name)", headers: [.ifNoneMatch: plainTag, .acceptEncoding: "gzip"])
            #expect(crossed.status == .ok && crossed.body == file.gzipped)
            let weak = try await client.send(.get, "/counter/\(name)", headers: [.ifNoneMatch: "W/\(gzipTag)", .acceptEncoding: "gzip"])
            #expect(weak.status == .notModified && weak.headers[.eTag] == gzipTag, "If-None-Match compares weakly")
            let listed = try await client.send(.get, "/counter/\(name)", headers: [.ifNoneMatch: #""other", W/"x",  \#(plainTag) "#])
            #expect(listed.status == .notModified)
            let star = try await client.send(.get, "/counter/\(name)", headers: [.ifNoneMatch: "*"])
            #expect(star.status == .notModified, "* matches any current representation")
            let other = try await client.send(.get, "/counter/\(name)", headers: [.ifNoneMatch: #"W/"0000""#])
            #expect(other.status == .ok && other.body == file.bytes)
        }
    }

    @Test func aNameThatIsNotOneOfTheFilesIsA404AndReachesNothingElse() async throws {
        try await ServerHarness.withLiveServer { _, client in
            for path in [
                "/counter/nothing.js", "/counter/..%2F..%2Fetc%2Fpasswd", "/counter/%2e%2e", "/counter/make-icons.py", "/counter/app.js%00.png",
            ] {
                let reply = try await client.send(.get, path)
                #expect(reply.status == .notFound, "\(path): \(reply.status)")
                #expect(reply.rawJSON["error"] != nil, "the API's error shape: \(reply.text)")
            }
        }
    }

    @Test func theServiceWorkerCachesEveryFileUnderANameThatChangesWithThem() async throws {
        let worker = String(decoding: try #require(CounterAssets.webFiles["sw.js"]).bytes, as: UTF8.self)
        #expect(worker.contains("peez-counter-${VERSION}"))
        #expect(!worker.contains("__PEEZ_COUNTER"), "the placeholders are filled in")
        for name in CounterAssets.webFiles.keys where name != "sw.js" {
            #expect(worker.contains("\"\(name)\""), "the worker caches \(name)")
        }
    }
}
