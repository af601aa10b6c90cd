import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
public import Logging
public import SceneSync
public import ServiceLifecycle
import Synchronization

/// Serves hosted apps to browsers: a home page, each app's page and the renderer's files over HTTP,
/// one WebSocket per browser window, each window a scene of its app, and each app's own routes,
/// assets and services.
///
/// Run it in a `ServiceGroup`. Inside it runs a group of its own: the HTTP server, the apps'
/// services, and the windows. On graceful shutdown the service group stops them in reverse order:
/// every window is told to reconnect shortly and every scene disconnects (saving its restoration
/// activity), then the apps' services stop, then the HTTP server.
///
/// ```swift
/// let server = try SceneSyncServer(configuration: .init(port: 8080), apps: [lootLogger]) { app, logger in
///     try SQLiteStorage(path: "data/\(app.name).sqlite", logger: logger)
/// }
/// let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// Who may call it: every WebSocket and mutating request must name the server in `Host` (421
/// otherwise). A browser page's request carries `Origin`, which must be the server itself (403
/// otherwise). A request without `Origin` is a native client's: its body must be JSON (415
/// otherwise), and when the server has an access token it must send it as
/// `Authorization: Bearer …` (401 otherwise).
public final class SceneSyncServer: Service, Sendable {
    /// Makes a hosted app's storage when the server starts.
    public typealias StorageFactory = @Sendable (_ app: HostedApp, _ logger: Logger) async throws -> any SceneSyncStorage

    /// How the server was configured.
    public let configuration: Configuration
    /// The apps it hosts, in home-page order.
    public let apps: [HostedApp]
    /// This node's report, made about once a second while the server runs, and the other nodes'.
    public let reports: NodeReports
    let policy: AccessPolicy
    let assets: RendererAssets
    private let makeStorage: StorageFactory
    private let state = Mutex(RunState())
    let connections = OpenConnections()
    /// Logs refused connections, requests and windows, once per flood.
    let refusals: RefusalReporter
    /// The bytes waiting to be written to windows, bounded per window and in total.
    let outboundBudget: OutboundBudget
    /// Writes every window's messages to its socket, batched per event loop.
    let frameWriter: FrameWriter
    /// What the server records its metrics with (see ``MetricsOptions``).
    let metrics: ServerMetrics

    private struct RunState {
        var port: Int?
        var failure: SceneSyncServerError?
        var waiters: [CheckedContinuation<Int, any Error>] = []
        var runtimes: [String: AppRuntime] = [:]
        var isStopping = false
    }

    /// Creates a server; nothing listens until ``run()``.
    ///
    /// - Parameters:
    ///   - configuration: Where the server listens, who may call it, and its limits.
    ///   - apps: The apps it hosts, each at `/<name>`; no two may share a name.
    ///   - reports: Where the server keeps this node's reports, for an app (a dashboard) to read.
    ///   - storage: Makes each app's storage, once, when the server starts.
    /// - Throws: ``SceneSyncServerError`` if the server would listen beyond loopback without an
    ///   access token, the token is blank or not printable ASCII, the port is invalid, or two apps
    ///   share a name.
    public init(configuration: Configuration, apps: [HostedApp], reports: NodeReports = NodeReports(),
                storage: @escaping StorageFactory) throws {
        guard (0...65535).contains(configuration.port) else { throw SceneSyncServerError.invalidPort(configuration.port) }
        if let token = configuration.token { try Self.validate(token: token) }
        let policy = AccessPolicy(host: configuration.host, allowedHosts: configuration.allowedHosts, token: configuration.token)
        guard policy.isLoopback || configuration.token != nil else {
            throw SceneSyncServerError.tokenRequired(host: configuration.host)
        }
        var names: Set<String> = []
        for app in apps where !names.insert(app.name).inserted { throw SceneSyncServerError.duplicateApp(app.name) }
        self.configuration = configuration
        self.apps = apps
        self.reports = reports
        self.policy = policy
        self.assets = RendererAssets(files: StaticFiles(), apps: apps)
        self.makeStorage = storage
        self.metrics = ServerMetrics(configuration.metrics)
        self.refusals = RefusalReporter(logger: configuration.logger, counter: metrics.refusals)
        self.outboundBudget = OutboundBudget(perWindow: configuration.outboundBufferBytes, total: configuration.outboundBufferTotalBytes)
        frameWriter = FrameWriter(maximumFrameSize: configuration.maximumFrameSize)
    }

    /// Checks an access token before a server is made with it: not blank, and printable ASCII
    /// without spaces, so that it travels as it is in a header, a URL and a cookie.
    ///
    /// - Throws: ``SceneSyncServerError/blankToken`` or ``SceneSyncServerError/tokenNotPrintable``.
    public static func validate(token: String) throws(SceneSyncServerError) {
        guard token.contains(where: { !$0.isWhitespace }) else { throw .blankToken }
        guard token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else { throw .tokenNotPrintable }
    }

    /// The port the server listens on, while it does.
    public var port: Int? { state.withLock { $0.port } }

    /// Waits until the server listens, and returns its port.
    ///
    /// - Throws: ``SceneSyncServerError/notRunning`` if the server stopped or failed to start.
    public func waitUntilRunning() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { state in
                if let port = state.port {
                    continuation.resume(returning: port)
                } else if let failure = state.failure {
                    continuation.resume(throwing: failure)
                } else {
                    state.waiters.append(continuation)
                }
            }
        }
    }

    /// Launches every app, then serves until graceful shutdown (or cancellation).
    public func run() async throws {
        let logger = configuration.logger
        if ["0.0.0.0", "::", "[::]"].contains(configuration.host), configuration.allowedHosts.isEmpty {
            logger.warning("Browsers reach this server by a name it does not know yet; list it in allowedHosts (--allowed-host)")
        }
        do {
            var runtimes: [String: AppRuntime] = [:]
            var parts: [(app: HostedApp, parts: HostedApp.Parts)] = []
            for app in apps {
                let runtime = try await AppRuntime.launch(
                    app, configuration: configuration, policy: policy, storage: makeStorage,
                    outboundBudget: outboundBudget, refusals: refusals, metrics: metrics)
                runtimes[app.name] = runtime
                // Known at once, so that a later app's failure still shuts this one down.
                state.withLock { $0.runtimes = runtimes }
                parts.append((app, try await runtime.makeParts()))
            }
            HeapTrim.shared.requestTrim()
            var widgets: [String: WidgetHub] = [:]
            for (app, appParts) in parts {
                if let feed = appParts.widget { widgets[app.name] = WidgetHub(feed: feed, limits: widgetLimits) }
            }
            let limits = configuration.connectionLimits
            let admission = makeAdmission()
            let reporter = refusals
            let http1 = HTTP1Channel.Configuration(
                additionalChannelHandlers: [RequestBodyDeadline(timeout: limits.requestBodyTimeout, reporter: reporter)],
                idleTimeout: TimeAmount(limits.idleTimeout),
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: limits.maximumHeadBytes, maxHeaderListSize: limits.maximumHeadBytes,
                    maxHeaderFieldCount: limits.maximumHeaderCount))
            // Windows' sockets are channel handlers, with no task per window; their pings are
            // WebSocketFrameGuard's timers.
            let upgrade = WindowUpgradeChannel.Upgrade(
                accept: { [self] request, channel in windowOpening(for: request, channel: channel) },
                maximumFrameSize: configuration.maximumFrameSize)
            let http = Application(
                router: makeRouter(appParts: parts, widgets: widgets),
                server: HTTPServerBuilder { responder in
                    QuiescingChannel(
                        base: WindowUpgradeChannel(responder: responder, http1: http1, upgrade: upgrade),
                        connections: self.connections, admission: admission, limits: limits, reporter: reporter,
                        check: RequestHeadCheck(isOwnAuthority: { self.policy.authorities(port: self.boundPort).contains($0) }),
                        controlFrameLimit: self.configuration.rateLimit)
                },
                configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
                onServerRunning: { [self] channel in
                    try? await channel.eventLoop.submit {
                        try channel.pipeline.syncOperations.addHandler(DescriptorReserve(admission: admission, logger: logger), position: .first)
                    }.get()
                    didStart(port: channel.localAddress?.port)
                },
                logger: logger)
            // Graceful shutdown runs from the last service to the first: windows, then the apps'
            // services, then HTTP, so every window is told before its socket closes.
            let appServices = (parts.flatMap { leading($0.parts.services, of: $0.app, runtimes: runtimes) }
                + widgets.values.map { $0 as any Service }).map {
                ServiceGroupConfiguration.ServiceConfiguration(
                    service: $0, successTerminationBehavior: .ignore, failureTerminationBehavior: .gracefullyShutdownGroup)
            }
            let services = [
                ServiceGroupConfiguration.ServiceConfiguration(service: DrainingHTTPServer(
                    base: http, drainTimeout: configuration.connectionDrainTimeout, connections: connections, logger: logger)),
            ] + appServices + [.init(service: makeReporter(runtimes: apps.compactMap { runtimes[$0.name] }),
                                     successTerminationBehavior: .ignore, failureTerminationBehavior: .gracefullyShutdownGroup),
                               .init(service: WindowsService(server: self))]
            var groupConfiguration = ServiceGroupConfiguration(services: services, logger: logger)
            // An app's service that does not stop must not keep the server up for ever.
            groupConfiguration.maximumGracefulShutdownDuration = configuration.connectionDrainTimeout * 4
            let group = ServiceGroup(configuration: groupConfiguration)
            try await group.run()
            // The group may have stopped on its own (a failure), with windows still connected.
            await shutDownApps()
        } catch {
            await shutDownApps()
            didStop()
            throw error
        }
        didStop()
    }

    // MARK: - Internal

    /// An app's services as they run: on a storage shared by nodes, on one node at a time.
    private func leading(_ services: [any Service], of app: HostedApp, runtimes: [String: AppRuntime]) -> [any Service] {
        guard !services.isEmpty, let runtime = runtimes[app.name], let cluster = runtime.application.storage.cluster else {
            return services
        }
        return [LeadingServices(role: "services:\(app.name)", services: services, cluster: cluster, logger: runtime.logger)]
    }

    /// Makes this node's report every second (``NodeReport``), for this node's dashboard and,
    /// through the first app's cluster if there is one, the other nodes'.
    private func makeReporter(runtimes: [AppRuntime]) -> NodeReporter {
        let cluster = runtimes.first?.application.storage.cluster
        reports.attach(cluster: cluster, isProtected: policy.isLoopback || policy.token != nil, logger: configuration.logger)
        let host = ProcessInfo.processInfo.hostName
        // Without a cluster the node is named as `scenesync` names it by default; the port is known once bound.
        return NodeReporter(node: { cluster?.node ?? "\(host):\(self.boundPort)" }, ready: { _ = try? await self.waitUntilRunning() },
                            startedAt: Date(),
                            runtimes: runtimes, reports: reports, cluster: cluster, interval: .seconds(1),
                            logger: configuration.logger)
    }

    /// How many may follow each app's widget.
    private var widgetLimits: WidgetHub.Limits {
        WidgetHub.Limits(maximumFollowers: configuration.maximumWidgetFollowers,
                         maximumFollowersPerAddress: configuration.maximumWidgetFollowersPerAddress)
    }

    /// The bound port, or the configured one before binding.
    var boundPort: Int { state.withLock { $0.port } ?? configuration.port }

    func runtime(named name: String) -> AppRuntime? {
        state.withLock { $0.runtimes[name] }
    }

    /// Counts connections against the configured limits, the total lowered to what the open-file
    /// limit allows.
    private func makeAdmission() -> ConnectionAdmission {
        let limits = configuration.connectionLimits
        var total = limits.maximumConnections
        if let files = OpenFileLimit.current(), files - limits.reservedFileDescriptors < total {
            total = max(1, files - limits.reservedFileDescriptors)
            configuration.logger.notice("The open-file limit lowers the connection limit", metadata: [
                "openFileLimit": "\(files)", "maximumConnections": "\(total)",
            ])
        }
        // One address never takes every slot: at most half of them.
        let perAddress = min(limits.maximumConnectionsPerAddress, max(1, total / 2))
        if perAddress < limits.maximumConnectionsPerAddress {
            configuration.logger.notice("The connection limit lowers the limit per address to half of it", metadata: [
                "maximumConnections": "\(total)", "maximumConnectionsPerAddress": "\(perAddress)",
            ])
        }
        return ConnectionAdmission(maximumTotal: total, maximumPerAddress: perAddress, clients: ClientAddress(trustedProxies: configuration.trustedProxies))
    }

    /// Tells every window to come back later and disconnects every scene; once.
    func shutDownApps() async {
        let runtimes: [AppRuntime] = state.withLock { state in
            guard !state.isStopping else { return [] }
            state.isStopping = true
            return Array(state.runtimes.values)
        }
        for runtime in runtimes { await runtime.shutdown() }
    }

    private func didStart(port: Int?) {
        let waiters = state.withLock { state in
            state.port = port
            if port == nil { state.failure = .notRunning }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters {
            if let port { waiter.resume(returning: port) } else { waiter.resume(throwing: SceneSyncServerError.notRunning) }
        }
        configuration.logger.info("SceneSync listening", metadata: ["host": "\(configuration.host)", "port": "\(port.map(String.init) ?? "?")"])
    }

    private func didStop() {
        let waiters = state.withLock { state in
            // A stopped server listens nowhere: `port` is nil and waiting for it throws.
            state.port = nil
            state.failure = .notRunning
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(throwing: SceneSyncServerError.notRunning) }
    }
}

/// The windows, as a service: when the group shuts down gracefully, every window is told to
/// reconnect shortly and every scene disconnects, before anything else stops.
struct WindowsService: Service {
    let server: SceneSyncServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.shutDownApps()
    }
}

/// The HTTP server, which on graceful shutdown waits for its connections to finish; any still
/// open after the drain timeout (a request a client never finished sending, say), or when the
/// server stops (a window's socket), are closed, so that nothing holds the process.
struct DrainingHTTPServer: Service {
    let base: any Service
    let drainTimeout: Duration
    let connections: OpenConnections
    let logger: Logger

    private enum Finished { case server, drainTimer }

    func run() async throws {
        try await withThrowingTaskGroup(of: Finished.self) { group in
            group.addTask {
                try await base.run()
                return .server
            }
            group.addTask { [drainTimeout, connections, logger] in
                do {
                    try await gracefulShutdown()
                    try await Task.sleep(for: drainTimeout)
                } catch {
                    return .drainTimer
                }
                logger.notice("Closing HTTP connections still open after the drain timeout", metadata: [
                    "timeout": "\(drainTimeout)", "connections": "\(connections.count)",
                ])
                connections.closeAll()
                return .drainTimer
            }
            while let finished = try await group.next() {
                if finished == .server { break }
            }
            group.cancelAll()
            // Windows' sockets are channel handlers, not tasks the server waits for: any still
            // open (one refused while the apps shut down, still waiting for its close frame's
            // answer) close with the server.
            if connections.count > 0 {
                logger.debug("Closing connections left when the HTTP server stopped", metadata: ["connections": "\(connections.count)"])
                connections.closeAll()
            }
        }
    }
}
