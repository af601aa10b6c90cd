public import Logging

extension SceneSyncServer {
    /// Where the server listens, who may use it, and the limits it applies to windows. Where apps
    /// keep their data is not here: the server is given a ``StorageFactory``.
    public struct Configuration: Sendable {
        /// The address to listen on. Anything but loopback (`127.0.0.0/8`, `::1`, `localhost`)
        /// requires a ``token``.
        public var host: String
        /// The port to listen on; 0 picks a free one (see ``SceneSyncServer/waitUntilRunning()``).
        public var port: Int
        /// The access token every window must send in `hello`, and a native client as
        /// `Authorization: Bearer …`, or `nil` for none.
        public var token: String?
        /// More hosts the server answers to, such as the machine's name on the network when it
        /// listens on `0.0.0.0`. A bare name (`example.local`, `[::1]`) is taken with the server's
        /// own port; `host:port` (`127.0.0.1:8080`, `[::1]:8080`) as it is, for a server reached
        /// through a proxy on another port. Requests naming any other host are refused.
        public var allowedHosts: [String]
        /// The IP addresses of proxies the server trusts, such as nginx in front of several nodes.
        /// A connection from one of them is exempt from the connection limit per address (it still
        /// counts in the total), and its client, for every limit per address, is the last address
        /// of its `X-Forwarded-For` (or the proxy itself without a valid one). Other peers'
        /// `X-Forwarded-For` is ignored. Entries that are not IP addresses are left out; none by
        /// default.
        public var trustedProxies: [String]
        /// How long a window that said `closing` has to come back (a reload) before its session is
        /// discarded.
        public var closingGracePeriod: Duration
        /// How long windows wait before reconnecting after a shutdown, in milliseconds.
        public var shutdownRetryAfter: Int
        /// How long an "Open in New Window" token stays valid.
        public var openRequestLifetime: Duration
        /// How long a graceful shutdown waits, once every window was told and every scene
        /// disconnected, for the last HTTP connections to finish before it drops them.
        public var connectionDrainTimeout: Duration
        /// How many messages a window may send at once, and how many per second after that.
        public var rateLimit: RateLimit
        /// How many messages the protocol refuses (malformed, of an unknown type, before `hello`)
        /// a window may send before it is closed with code 1008; each is answered with an `error`.
        public var maximumProtocolViolations: Int
        /// The largest WebSocket frame or message accepted, in bytes; larger ones close the
        /// connection. Messages under it but over ``WindowProtocol/maximumMessageSize``
        /// are refused with an error, and the connection stays.
        public var maximumFrameSize: Int
        /// How many messages may wait for a slow window before it is disconnected (it reconnects
        /// and is redrawn).
        public var outboundBufferLimit: Int
        /// How many bytes may wait for one slow window before it is disconnected at once, its
        /// queue dropped unwritten (it reconnects and is redrawn). A full render must fit.
        public var outboundBufferBytes: Int
        /// How many bytes may wait for every window together. Over it, a window that has more than
        /// 1/64 of ``outboundBufferBytes`` waiting is disconnected when it is sent more; windows that
        /// keep up are not.
        public var outboundBufferTotalBytes: Int
        /// The most window sessions each app keeps; beyond it, the sessions of windows not
        /// connected go, least recently seen first (see `Application.Options.maximumSessions`).
        public var maximumSessions: Int
        /// The most window sessions each app keeps for one client address; beyond it, that
        /// address's sessions of windows not connected go, least recently seen first, and a window
        /// whose address has only connected ones is refused (`tooManySessions`, close 1008).
        public var maximumSessionsPerAddress: Int
        /// The most Server-Sent Events streams that follow an app's widget (`/<app>/widget/events`)
        /// at once; more are answered `503` with `Retry-After`.
        public var maximumWidgetFollowers: Int
        /// The most widget streams of one app followed at once from one client address.
        public var maximumWidgetFollowersPerAddress: Int
        /// How many connections may be open, from one address and in total, and how soon and how
        /// large their requests' heads must be.
        public var connectionLimits: ConnectionLimits
        /// The server's logger.
        public var logger: Logger
        /// What the server records its metrics with, and whether it serves them at `/metrics`
        /// (see ``SceneSyncServer/MetricsOptions``); by default through `MetricsSystem.factory`, not served.
        public var metrics = MetricsOptions()
        /// The clock timed waits such as ``closingGracePeriod`` run on; tests give a manual one.
        public var clock: any Clock<Duration>

        /// Creates a configuration; every limit has a default.
        public init(
            host: String = "127.0.0.1",
            port: Int = 8080,
            token: String? = nil,
            allowedHosts: [String] = [],
            trustedProxies: [String] = [],
            closingGracePeriod: Duration = .seconds(5),
            shutdownRetryAfter: Int = 500,
            openRequestLifetime: Duration = .seconds(120),
            connectionDrainTimeout: Duration = .seconds(5),
            rateLimit: RateLimit = RateLimit(),
            maximumProtocolViolations: Int = 20,
            maximumFrameSize: Int = 1 << 20,
            outboundBufferLimit: Int = 4096,
            outboundBufferBytes: Int = 8 << 20,
            outboundBufferTotalBytes: Int = 256 << 20,
            maximumSessions: Int = 10_000,
            maximumSessionsPerAddress: Int = 2_048,
            maximumWidgetFollowers: Int = 1_024,
            maximumWidgetFollowersPerAddress: Int = 16,
            connectionLimits: ConnectionLimits = ConnectionLimits(),
            logger: Logger = Logger(label: "scenesync.server"),
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.host = host
            self.port = port
            self.token = token
            self.allowedHosts = allowedHosts
            self.trustedProxies = trustedProxies
            self.closingGracePeriod = closingGracePeriod
            self.shutdownRetryAfter = shutdownRetryAfter
            self.openRequestLifetime = openRequestLifetime
            self.connectionDrainTimeout = connectionDrainTimeout
            self.rateLimit = rateLimit
            self.maximumProtocolViolations = max(0, maximumProtocolViolations)
            self.maximumFrameSize = maximumFrameSize
            self.outboundBufferLimit = outboundBufferLimit
            self.outboundBufferBytes = max(1, outboundBufferBytes)
            self.outboundBufferTotalBytes = max(1, outboundBufferTotalBytes)
            self.maximumSessions = maximumSessions
            self.maximumSessionsPerAddress = maximumSessionsPerAddress
            self.maximumWidgetFollowers = max(1, maximumWidgetFollowers)
            self.maximumWidgetFollowersPerAddress = max(1, maximumWidgetFollowersPerAddress)
            self.connectionLimits = connectionLimits
            self.logger = logger
            self.clock = clock
        }
    }

    /// Whether `allowedHost` is a host ``Configuration/allowedHosts`` can hold: a name or IP address
    /// (IPv6 in brackets when a port follows), optionally with a port from 1 to 65535.
    public static func isValid(allowedHost: String) -> Bool {
        AccessPolicy.split(allowedHost: allowedHost) != nil
    }

    /// A token bucket per connection: `burst` messages at once, refilled at `perSecond`.
    public struct RateLimit: Sendable, Equatable {
        /// How many messages may arrive back to back.
        public var burst: Int
        /// How many messages per second are allowed over time.
        public var perSecond: Double

        /// Creates a rate limit.
        public init(burst: Int = 100, perSecond: Double = 50) {
            self.burst = burst
            self.perSecond = perSecond
        }
    }
}
