/// How long a client connection may take over each part of its work, and how many may be open at once.
///
/// A client that never finishes its headers, trickles its body a byte at a time, or holds a connection open
/// doing nothing would otherwise keep a socket and a file descriptor forever.
public struct ConnectionLimits: Sendable, Hashable {
    /// How long a connection may wait, with no request in progress, for the first byte of the next one.
    public var idleTimeout: Duration
    /// How long a request's headers may take, from their first byte to the blank line that ends them.
    public var headerTimeout: Duration
    /// How long a request's body may take, from the end of its headers to its last byte.
    public var bodyTimeout: Duration
    /// How many connections may be open at once. A new connection past it closes the keep-alive connection
    /// idle the longest (as nginx and Envoy do), or is refused with a 503 at once when none is idle: a house
    /// full of idle sockets never locks a client out.
    public var maxConnections: Int
    /// How many idle connections one client address may hold; past it, that address's longest-idle one closes.
    public var maxIdlePerAddress: Int

    public init(
        idleTimeout: Duration = .seconds(60),
        headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(30),
        maxConnections: Int = 512,
        maxIdlePerAddress: Int = 128
    ) {
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.maxConnections = maxConnections
        self.maxIdlePerAddress = maxIdlePerAddress
    }

    /// Connections accepted beyond ``maxConnections`` only to be refused with a 503 when none can be closed
    /// for them; more than these wait in the listen backlog.
    var refusalHeadroom: Int { 32 }
}
