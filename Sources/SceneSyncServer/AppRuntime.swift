import Foundation
import Logging
import SceneSync
import SceneSyncMetrics
import SceneSyncUI

/// One hosted app while the server runs: its storage and launched ``SceneSync/Application``, the
/// windows connected to it, "Open in New Window" requests, and the sessions of windows that said
/// they were closing, waiting to be discarded unless they come back.
@MainActor
final class AppRuntime {
    let app: HostedApp
    let application: Application
    /// Makes the app's own parts from the delegate its application was launched with.
    private let partsMaker: @MainActor (HostedApp.LaunchedApp) throws -> HostedApp.Parts
    let settings: WindowConnection.Settings
    let logger: Logger
    /// What the app's model controllers committed and read, for the node's report.
    let logCounters: LogCounters
    /// Encodes what the app's windows are sent, once for a patch they share.
    var encoder = SharedPatchEncoder()
    private var connections: [ObjectIdentifier: WindowConnection] = [:]
    private var pendingDiscards: [SceneSession.ID: Task<Void, Never>] = [:]
    /// Sessions of windows that said they were closing and closed while the server shut down.
    private var closedWhileShuttingDown: Set<SceneSession.ID> = []
    /// "Open in New Window" requests, when the storage has no cluster to keep them in.
    private var openRequests: OpenRequests
    private let openRequestLifetime: Duration
    private var isShuttingDown = false
    /// Waiting for every connection to close and flush, during a shutdown.
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []
    /// The connections open when the shutdown began, which must also flush.
    private var drainingConnections: [WindowConnection] = []

    private init(
        app: HostedApp, application: Application, partsMaker: @escaping @MainActor (HostedApp.LaunchedApp) throws -> HostedApp.Parts,
        settings: WindowConnection.Settings, openRequestLifetime: Duration, logCounters: LogCounters, logger: Logger
    ) {
        self.app = app
        self.partsMaker = partsMaker
        self.logCounters = logCounters
        self.application = application
        self.settings = settings
        self.openRequests = OpenRequests(lifetime: openRequestLifetime)
        self.openRequestLifetime = openRequestLifetime
        self.logger = logger
    }

    /// Opens the app's storage and launches its application: `applicationDidFinishLaunching`
    /// runs, and sessions closed while the server was down are discarded.
    static func launch(
        _ app: HostedApp, configuration: SceneSyncServer.Configuration, policy: AccessPolicy, storage makeStorage: SceneSyncServer.StorageFactory,
        outboundBudget: OutboundBudget, refusals: RefusalReporter, metrics: ServerMetrics
    ) async throws -> AppRuntime {
        var logger = configuration.logger
        logger[metadataKey: "app"] = "\(app.name)"
        let logCounters = LogCounters()
        let storage = LogCountingStorage(try await makeStorage(app, logger), counters: logCounters)
        let delegation = app.makeDelegate(logger)
        let application = Application(delegate: delegation.delegate, storage: storage,
                                      options: .init(
                                          maximumSessions: configuration.maximumSessions,
                                          maximumSessionsPerClient: configuration.maximumSessionsPerAddress), logger: logger)
        // The model controllers the app creates as it launches record with the server's metrics.
        try await metrics.controllers.measuring { try await application.launch() }
        let settings = WindowConnection.Settings(
            policy: policy, rateLimit: configuration.rateLimit, maximumProtocolViolations: configuration.maximumProtocolViolations,
            shutdownRetryAfter: configuration.shutdownRetryAfter,
            closingGracePeriod: configuration.closingGracePeriod, clock: configuration.clock,
            helloTimeout: configuration.connectionLimits.helloTimeout, outboundBudget: outboundBudget, refusals: refusals,
            metrics: metrics.app(app.name))
        return AppRuntime(app: app, application: application, partsMaker: delegation.makeParts, settings: settings,
                          openRequestLifetime: configuration.openRequestLifetime, logCounters: logCounters, logger: logger)
    }

    /// The app's own routes, assets and services.
    func makeParts() throws -> HostedApp.Parts {
        try partsMaker(HostedApp.LaunchedApp(application: application, logger: logger))
    }

    // MARK: - Connections

    /// A connection for a new WebSocket, or `nil` while shutting down.
    func openConnection(client: String, socket: WindowConnection.Socket) -> WindowConnection? {
        guard !isShuttingDown else { return nil }
        let connection = WindowConnection(runtime: self, client: client, socket: socket)
        connections[ObjectIdentifier(connection)] = connection
        settings.metrics.windowConnected()
        return connection
    }

    /// A connection's socket closed and its scene disconnected. A window that said it was closing
    /// has its session discarded after the grace period, or, while the server shuts down, at the
    /// next launch.
    func connectionDidClose(_ connection: WindowConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil { settings.metrics.windowDisconnected() }
        resumeDrainWaitersIfDrained()
        guard let session = connection.session, connection.saidClosing else { return }
        if isShuttingDown {
            closedWhileShuttingDown.insert(session)
        } else {
            scheduleDiscard(of: session)
        }
    }

    /// A window is connecting with `session`: a reload, so its session is kept.
    func cancelDiscard(of session: SceneSession.ID) {
        pendingDiscards.removeValue(forKey: session)?.cancel()
    }

    private func scheduleDiscard(of session: SceneSession.ID) {
        pendingDiscards[session]?.cancel()
        let grace = settings.closingGracePeriod
        let clock = settings.clock
        pendingDiscards[session] = Task { [weak self] in
            try? await clock.sleep(for: grace)
            guard !Task.isCancelled, let self else { return }
            self.pendingDiscards[session] = nil
            guard self.application.connectedScenes[session] == nil else { return }
            do {
                // A reload may have landed on another node (behind a load balancer): it keeps the session.
                if let elsewhere = try await self.application.storage.cluster?.sessionsConnectedElsewhere(),
                   elsewhere.contains(session) { return }
                try await self.application.discard([session])
            } catch {
                self.logger.error("Could not discard a closed window's session", metadata: ["scene.id": "\(session)", "error": "\(error)"])
            }
        }
    }

    /// A connection's writer sent everything it was given, or gave up.
    func connectionDidFlush(_ connection: WindowConnection) {
        resumeDrainWaitersIfDrained()
    }

    /// Waits until every connection closed and `open` ones flushed, or `timeout` passed.
    private func waitUntilDrained(_ open: [WindowConnection], timeout: Duration) async {
        drainingConnections = open
        defer { drainingConnections = [] }
        guard !isDrained else { return }
        let clock = settings.clock
        let timer = Task { [weak self] in
            guard (try? await clock.sleep(for: timeout)) != nil else { return }
            self?.resumeDrainWaiters()
        }
        await withCheckedContinuation { drainWaiters.append($0) }
        timer.cancel()
    }

    private var isDrained: Bool {
        connections.isEmpty && drainingConnections.allSatisfy(\.isFlushed)
    }

    private func resumeDrainWaitersIfDrained() {
        if isDrained { resumeDrainWaiters() }
    }

    private func resumeDrainWaiters() {
        let waiters = drainWaiters
        drainWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - Open in New Window

    /// Keeps `activity` in this process for the window about to open, and returns the URL that
    /// window loads; `nil` on a storage shared by nodes, where ``openURL(for:)`` keeps it.
    func openURLInMemory(for activity: SceneActivity) -> String? {
        guard application.storage.cluster == nil else { return nil }
        return "/\(app.name)?open=\(openRequests.insert(activity))"
    }

    /// Keeps `activity` for the window about to open, and returns the URL that window loads; `nil`
    /// if it could not be kept. On a storage shared by nodes it is kept in the storage, for the
    /// new window to find on whichever node it reaches.
    func openURL(for activity: SceneActivity) async -> String? {
        guard let cluster = application.storage.cluster else { return openURLInMemory(for: activity) }
        let token = SceneSession.ID().rawValue
        do {
            try await cluster.keepOpenRequest(activity, token: token, lifetime: openRequestLifetime)
        } catch {
            logger.error("Could not keep an Open in New Window request", metadata: ["error": "\(error)"])
            return nil
        }
        return "/\(app.name)?open=\(token)"
    }

    /// The activity a new window was opened for; each token works once.
    func takeOpenRequest(_ token: String) async -> SceneActivity? {
        guard let cluster = application.storage.cluster else { return openRequests.take(token) }
        do {
            return try await cluster.takeOpenRequest(token: token)
        } catch {
            logger.error("Could not read an Open in New Window request; the window opens without it",
                         metadata: ["error": "\(error)"])
            return nil
        }
    }

    // MARK: - Shutdown

    /// Tells every window to reconnect later, disconnects every scene (saving their restoration
    /// activities), and leaves closing windows' sessions for the next launch to discard. Waits up
    /// to `flushTimeout` for the windows to be sent what they were told and for their connections
    /// to finish, so that a window that said it was closing just before is counted as closing.
    func shutdown(flushTimeout: Duration = .seconds(2)) async {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        let open = Array(connections.values)
        for connection in open {
            connection.shutdown(retryAfter: settings.shutdownRetryAfter)
        }
        await application.disconnectAll()
        await waitUntilDrained(open, timeout: flushTimeout)
        // Windows still connected at the deadline count as closing if they said so.
        var closing = closedWhileShuttingDown.union(pendingDiscards.keys)
        closing.formUnion(connections.values.filter(\.saidClosing).compactMap(\.session))
        for task in pendingDiscards.values { task.cancel() }
        pendingDiscards = [:]
        if !closing.isEmpty {
            do {
                try await application.storage.markSessionsClosed(closing.sorted(), at: Date())
            } catch {
                logger.error("Could not mark closed windows' sessions", metadata: ["error": "\(error)"])
            }
        }
        await application.terminate()
    }
}
