// peez-http-ceiling: Hummingbird's own ceiling on this machine, for the card path to be measured against in the
// same run (Benchmarks/http/run): one route answering a 1.5 KB PNG-sized body from memory, on the server
// configuration peez serve uses (HTTP/1.1, the server name), nothing else.
//
//   peez-http-ceiling PORT [--nio-executor]
//
// --nio-executor runs Swift concurrency on SwiftNIO's event loops (as peez serve does): the route's task runs on
// the thread that read the request instead of hopping to the cooperative pool and back.
import Foundation
import Hummingbird
import NIOCore
import NIOPosix

let arguments = CommandLine.arguments
guard arguments.count >= 2, let port = Int(arguments[1]) else {
    print("usage: peez-http-ceiling PORT [--nio-executor]")
    exit(2)
}
if arguments.contains("--nio-executor") {
    NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
}
let body = ByteBuffer(bytes: (0..<1_536).map { UInt8(truncatingIfNeeded: $0 &* 31) })
let router = Router()
router.get("card.png") { _, _ in
    Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "no-store"], body: .init(byteBuffer: body))
}
let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "peez"))
Task {
    try await application.runService()
    exit(0)
}
dispatchMain()
