public import Logging

/// Wraps a log handler so that metadata set on the logger is kept as given and handed over only with a message
/// that is logged.
///
/// Hummingbird gives every request's logger a request id. swift-log's `StreamLogHandler` renders its whole
/// metadata as text each time a key is set: a fiftieth of a warm `card.png`, for messages that are almost never
/// logged. Through this handler the text is made only for a message that is written.
public struct DeferredMetadataLogHandler: LogHandler {
    private var wrapped: any LogHandler
    public var metadata: Logger.Metadata

    /// The handler `wrapped`, whose metadata this one takes over.
    public init(wrapping wrapped: any LogHandler) {
        self.metadata = wrapped.metadata
        self.wrapped = wrapped
        self.wrapped.metadata = [:]
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.metadata = metadata.merging(event.metadata ?? [:]) { _, given in given }
        wrapped.log(event: event)
    }
}

extension Logger {
    /// A logger for the server: the handler the logging system makes, with its metadata rendered only for a
    /// message logged (see ``DeferredMetadataLogHandler``).
    public static func server(label: String) -> Logger {
        var logger = Logger(label: label)
        logger.handler = DeferredMetadataLogHandler(wrapping: logger.handler)
        return logger
    }
}
