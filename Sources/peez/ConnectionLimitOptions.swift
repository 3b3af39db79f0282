import ArgumentParser
import CardServer

/// `peez serve`'s timeouts and connection cap (``ConnectionLimits``).
struct ConnectionLimitOptions: ParsableArguments {
    @Option(help: "Seconds a connection may stay open with no request in progress.")
    var idleTimeout = 60

    @Option(help: "Seconds a request's headers may take to arrive, from their first byte (then 408 and close).")
    var headerTimeout = 10

    @Option(help: "Seconds a request's body may take to arrive, after its headers (then 408 and close).")
    var bodyTimeout = 30

    @Option(
        help: "Connections open at once; at the cap the longest-idle one is closed for a new one, or the new one refused (503) when none is idle."
    )
    var maxConnections = 512

    @Option(help: "Idle connections one client address may hold; past it, its longest-idle one is closed.")
    var maxIdlePerClient = 128

    func validate() throws {
        for (name, value) in [("--idle-timeout", idleTimeout), ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout)] {
            guard (1...3_600).contains(value) else { throw ValidationError("\(name) must be 1 to 3600 seconds") }
        }
        guard (1...100_000).contains(maxConnections) else { throw ValidationError("--max-connections must be 1 to 100000") }
        guard (1...100_000).contains(maxIdlePerClient) else { throw ValidationError("--max-idle-per-client must be 1 to 100000") }
    }

    var limits: ConnectionLimits {
        ConnectionLimits(
            idleTimeout: .seconds(idleTimeout),
            headerTimeout: .seconds(headerTimeout),
            bodyTimeout: .seconds(bodyTimeout),
            maxConnections: maxConnections,
            maxIdlePerAddress: maxIdlePerClient
        )
    }
}
