extension SceneSyncServer {
    /// What one TCP connection, and one client address, may make the server hold before a request
    /// is even read.
    ///
    /// A connection over ``maximumConnections`` or ``maximumConnectionsPerAddress`` is answered
    /// `503 Service Unavailable` with `Retry-After` and closed. A window's WebSocket must say
    /// `hello` within ``helloTimeout``. A connection's first request head
    /// must arrive within ``requestHeadTimeout`` (else `408 Request Timeout`, or a silent close if
    /// it sent nothing), fit in ``maximumHeadBytes`` and ``maximumHeaderCount`` (else `431 Request
    /// Header Fields Too Large`) with a request line of at most ``maximumRequestLineBytes`` (else
    /// `414 URI Too Long`). Between requests a connection may stay quiet for ``idleTimeout``; a later
    /// request's head must also arrive within it, and one over the size limits gets `400`. A
    /// request's body must arrive whole within ``requestBodyTimeout`` of its head, or the
    /// connection is closed.
    public struct ConnectionLimits: Sendable, Equatable {
        /// The most connections open at once. The server lowers it to its open-file limit less
        /// ``reservedFileDescriptors`` when that is smaller, so that accepting never runs out of
        /// descriptors.
        public var maximumConnections: Int
        /// The most connections open at once from one client address. The server lowers it to
        /// half of its effective ``maximumConnections``, so that one address never takes every
        /// slot.
        public var maximumConnectionsPerAddress: Int
        /// How long a window's WebSocket has, once open, to send a `hello` the server accepts;
        /// a socket still silent then is closed with code 1008, so that sockets that say nothing
        /// cannot hold connection slots.
        public var helloTimeout: Duration
        /// How long a new connection has to send its first request's head.
        public var requestHeadTimeout: Duration
        /// How long a request's body may take to arrive, from its head.
        public var requestBodyTimeout: Duration
        /// How long a connection may stay quiet between requests before it is closed. WebSockets
        /// are not affected: they are pinged instead.
        public var idleTimeout: Duration
        /// How often the server sends a window's WebSocket a ping frame. A window that has sent
        /// nothing since one (not its pong, not a message) by the next is taken for gone (a
        /// half-open connection: its machine or network went away without closing it) and is
        /// closed with code 1001. A proxy in front of the
        /// server must allow a WebSocket to be quiet for longer than this (nginx's
        /// `proxy_read_timeout`).
        public var pingInterval: Duration
        /// The largest request head (request line and header fields), in bytes.
        public var maximumHeadBytes: Int
        /// The most header fields in one request.
        public var maximumHeaderCount: Int
        /// The longest request line (method, target and version), in bytes.
        public var maximumRequestLineBytes: Int
        /// File descriptors kept for everything but connections: databases, logs, the listener.
        public var reservedFileDescriptors: Int

        /// Creates connection limits; every one has a default.
        public init(
            maximumConnections: Int = 8_192,
            maximumConnectionsPerAddress: Int = 1_024,
            helloTimeout: Duration = .seconds(5),
            requestHeadTimeout: Duration = .seconds(10),
            requestBodyTimeout: Duration = .seconds(30),
            idleTimeout: Duration = .seconds(60),
            pingInterval: Duration = .seconds(30),
            maximumHeadBytes: Int = 32 * 1024,
            maximumHeaderCount: Int = 100,
            maximumRequestLineBytes: Int = 8 * 1024,
            reservedFileDescriptors: Int = 64
        ) {
            self.maximumConnections = max(1, maximumConnections)
            self.maximumConnectionsPerAddress = max(1, maximumConnectionsPerAddress)
            self.helloTimeout = helloTimeout
            self.requestHeadTimeout = requestHeadTimeout
            self.requestBodyTimeout = requestBodyTimeout
            self.idleTimeout = idleTimeout
            self.pingInterval = max(.milliseconds(100), pingInterval)
            self.maximumHeadBytes = max(256, maximumHeadBytes)
            self.maximumHeaderCount = max(1, maximumHeaderCount)
            self.maximumRequestLineBytes = max(64, min(maximumRequestLineBytes, self.maximumHeadBytes))
            self.reservedFileDescriptors = max(0, reservedFileDescriptors)
        }
    }
}
