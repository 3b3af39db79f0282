import CardServer
import Logging
import Synchronization
import Testing

@Suite("Request logger")
struct DeferredMetadataLogHandlerTests {
    /// A handler that keeps what it is given: the metadata set on it and the events it is asked to write.
    final class Events: Sendable {
        let written = Mutex<[LogEvent]>([])
    }

    struct RecordingHandler: LogHandler {
        let events: Events
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        var metadataProvider: Logger.MetadataProvider?
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { events.written.withLock { $0.append(event) } }
    }

    @Test func metadataSetOnTheLoggerReachesTheWrappedHandlerOnlyWithAMessage() throws {
        let recorder = RecordingHandler(events: Events(), metadata: ["service": "peez"])
        let events = recorder.events
        var logger = Logger(label: "test") { _ in DeferredMetadataLogHandler(wrapping: recorder) }
        logger[metadataKey: "hb.request.id"] = "42"
        #expect(logger[metadataKey: "service"] == "peez", "the wrapped handler's metadata is kept")
        logger.logLevel = .info
        logger.debug("not written")
        logger.info("written", metadata: ["service": "given", "route": "/card.png"])

        let written = try #require(events.written.withLock { $0 }.only)
        #expect(written.message == "written" && written.level == .info)
        #expect(written.metadata == ["service": "given", "hb.request.id": "42", "route": "/card.png"], "a message's own metadata wins")
    }
}

extension Array {
    fileprivate var only: Element? { count == 1 ? first : nil }
}
