import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// TLS before the HTTP channel, as HummingbirdTLS's `TLSChannel` does, but with the context ``ServerTLS`` holds
/// when each connection opens: a certificate renewed on disk serves new connections, and open ones keep theirs.
struct ReloadingTLSChannel<BaseChannel: ServerChildChannel>: ServerChildChannel {
    typealias Value = BaseChannel.Value

    let base: BaseChannel
    let tls: ServerTLS

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.context))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension ReloadingTLSChannel: HTTPChannelHandler where BaseChannel: HTTPChannelHandler {
    var responder: HTTPChannelHandler.Responder { base.responder }
}
