import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
public import ServiceLifecycle
import Synchronization

/// Serves hosted apps to browsers: a home page, each app's page and the renderer's files over HTTP,
/// and one WebSocket per browser window, each window a scene of its app.
///
/// Run it in a `ServiceGroup`. On graceful shutdown every window is told to reconnect shortly, every
/// scene disconnects (saving its restoration activity), and then the HTTP server stops.
///
/// ```swift
/// let server = try SceneSyncServer(configuration: .init(port: 8080), apps: [lootLogger])
/// let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
public final class SceneSyncServer: Service, Sendable {
    /// How the server was configured.
    public let configuration: Configuration
    /// The apps it hosts, in home-page order.
    public let apps: [HostedApp]
    let policy: AccessPolicy
    let staticFiles: StaticFiles
    private let state = Mutex(RunState())
    private let connections = OpenConnections()

    private struct RunState {
        var port: Int?
        var failure: SceneSyncServerError?
        var waiters: [CheckedContinuation<Int, any Error>] = []
        var runtimes: [String: AppRuntime] = [:]
        var isStopping = false
        var isHTTPStopped = false
    }

    /// Creates a server; nothing listens until ``run()``.
    ///
    /// - Throws: ``SceneSyncServerError`` if the server would listen beyond loopback without an
    ///   access token, the token is empty, the port is invalid, or two apps share a name.
    public init(configuration: Configuration, apps: [HostedApp]) throws {
        guard (0...65535).contains(configuration.port) else { throw SceneSyncServerError.invalidPort(configuration.port) }
        if let token = configuration.token, token.isEmpty { throw SceneSyncServerError.emptyToken }
        let policy = AccessPolicy(host: configuration.host, allowedHosts: configuration.allowedHosts, token: configuration.token)
        guard policy.isLoopback || configuration.token != nil else {
            throw SceneSyncServerError.tokenRequired(host: configuration.host)
        }
        var names: Set<String> = []
        for app in apps where !names.insert(app.name).inserted { throw SceneSyncServerError.duplicateApp(app.name) }
        self.configuration = configuration
        self.apps = apps
        self.policy = policy
        self.staticFiles = StaticFiles()
    }

    /// The port the server listens on, once it does.
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
            for app in apps {
                runtimes[app.name] = try await AppRuntime.launch(app, configuration: configuration, policy: policy)
            }
            state.withLock { $0.runtimes = runtimes }
            let webSocketResponder = makeWebSocketRouter().buildResponder()
            let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
                http1: .init(idleTimeout: .seconds(60)),
                ws: .init(maxFrameSize: configuration.maximumFrameSize, autoPing: .enabled(timePeriod: .seconds(30)),
                          closeTimeout: .seconds(3)))
            let http = Application(
                router: makeRouter(),
                server: HTTPServerBuilder { responder in
                    QuiescingChannel(
                        base: HTTP1WebSocketUpgradeChannel(
                            responder: responder, webSocketResponder: webSocketResponder, configuration: channelConfiguration),
                        connections: self.connections)
                },
                configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
                onServerRunning: { [self] channel in didStart(port: channel.localAddress?.port) },
                logger: logger)
            let group = ServiceGroup(configuration: .init(services: [http], logger: logger))
            // Detached, so that the HTTP server does not see the parent's graceful shutdown: its
            // WebSocket layer would close every window before they are told to come back.
            let serving = Task.detached { try await group.run() }
            try await withTaskCancellationHandler {
                try await withGracefulShutdownHandler {
                    try await serving.value
                } onGracefulShutdown: {
                    Task { await self.stop(group, serving: serving) }
                }
            } onCancel: {
                serving.cancel()
            }
            // The server may have stopped on its own (a failure), with windows still connected.
            await shutDownApps()
        } catch {
            await shutDownApps()
            didStop()
            throw error
        }
        didStop()
    }

    // MARK: - Internal

    /// The bound port, or the configured one before binding.
    var boundPort: Int { state.withLock { $0.port } ?? configuration.port }

    func runtime(named name: String) -> AppRuntime? {
        state.withLock { $0.runtimes[name] }
    }

    /// Shuts the apps down, then the HTTP server, which waits for its connections to finish; any
    /// still open after ``Configuration/connectionDrainTimeout`` (a request a client never
    /// finished sending, say) are closed, so that nothing holds the process.
    private func stop(_ group: ServiceGroup, serving: Task<Void, any Error>) async {
        await shutDownApps()
        await group.triggerGracefulShutdown()
        Task { _ = await serving.result; self.state.withLock { $0.isHTTPStopped = true } }
        let timeout = configuration.connectionDrainTimeout
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !state.withLock(\.isHTTPStopped) {
            guard clock.now < deadline else {
                configuration.logger.notice("Closing HTTP connections still open after the drain timeout", metadata: [
                    "timeout": "\(timeout)", "connections": "\(connections.count)",
                ])
                connections.closeAll()
                return
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    private func shutDownApps() async {
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
            if state.port == nil { state.failure = .notRunning }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(throwing: SceneSyncServerError.notRunning) }
    }
}
