import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import LootLogger
import NIOCore
import SceneSync
@testable import SceneSyncServer
import SceneSyncSQLite
import SceneSyncServerTesting
import ServiceLifecycle

/// Holds the tally's delegate, made by the server when it starts.
@MainActor
final class DelegateBox {
    var tally: TallyAppDelegate?
}

/// A real server on a free port, in a data folder of its own, run as the command runs it: a
/// service in a `ServiceGroup`.
final class TestServer: Sendable {
    let server: SceneSyncServer
    let port: Int
    let directory: URL
    let delegates: DelegateBox
    /// What Tally's parts and windows noted during the run, in order.
    let journal: ShutdownJournal
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(server: SceneSyncServer, port: Int, directory: URL, delegates: DelegateBox, journal: ShutdownJournal,
                 group: ServiceGroup, running: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.directory = directory
        self.delegates = delegates
        self.journal = journal
        self.group = group
        self.running = running
    }

    static func start(
        token: String? = nil,
        closingGracePeriod: Duration = .seconds(5),
        rateLimit: SceneSyncServer.RateLimit = .init(),
        maximumProtocolViolations: Int = 20,
        directory: URL? = nil,
        connectionDrainTimeout: Duration = .seconds(5),
        connectionLimits: SceneSyncServer.ConnectionLimits = .init(),
        maximumSessionsPerAddress: Int = 2_048,
        outboundBufferBytes: Int = 8 << 20,
        maximumWidgetFollowers: Int = 1_024,
        maximumWidgetFollowersPerAddress: Int = 16,
        lootLogger: Bool = false,
        logger: Logger? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> TestServer {
        let directory = directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("scenesync-server-tests-\(UUID().uuidString)")
        let logger = logger ?? {
            var logger = Logger(label: "scenesync.tests")
            logger.logLevel = .warning
            return logger
        }()
        let delegates = DelegateBox()
        let journal = ShutdownJournal()
        var apps = [
            HostedApp(name: TallyAppDelegate.app, title: "Tally", summary: "Lines <counted> & \"shared\".", makeDelegate: { logger in
                let delegate = TallyAppDelegate(logger: logger)
                delegates.tally = delegate
                return delegate
            }, parts: { try TallyParts.make($0, $1, journal: journal) }),
        ]
        if lootLogger {
            apps.append(HostedApp(name: "lootlogger", title: "LootLogger", summary: "An inventory.") { LootLoggerAppDelegate(logger: $0) })
        }
        let server = try SceneSyncServer(
            configuration: .init(port: 0, token: token, closingGracePeriod: closingGracePeriod,
                                 connectionDrainTimeout: connectionDrainTimeout, rateLimit: rateLimit,
                                 maximumProtocolViolations: maximumProtocolViolations, outboundBufferBytes: outboundBufferBytes,
                                 maximumSessionsPerAddress: maximumSessionsPerAddress, maximumWidgetFollowers: maximumWidgetFollowers,
                                 maximumWidgetFollowersPerAddress: maximumWidgetFollowersPerAddress,
                                 connectionLimits: connectionLimits, logger: logger, clock: clock),
            apps: apps
        ) { app, logger in
            try SQLiteStorage(path: directory.appendingPathComponent("\(app.name).sqlite").path, logger: logger)
        }
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let running = Task { try await group.run() }
        let port = try await server.waitUntilRunning()
        return TestServer(server: server, port: port, directory: directory, delegates: delegates, journal: journal,
                          group: group, running: running)
    }

    /// Shuts the server down gracefully, as SIGTERM does.
    func stop(removingData: Bool = true) async throws {
        await group.triggerGracefulShutdown()
        try await running.value
        if removingData { try? FileManager.default.removeItem(at: directory) }
    }

    /// A window of the tally, not yet greeted.
    @MainActor
    func window(hostHeader: String? = nil, origin: WindowClient.Origin = .sameSite, app: String = TallyAppDelegate.app) async throws -> WindowClient {
        try await WindowClient.connect(port: port, app: app, hostHeader: hostHeader, origin: origin)
    }

    /// A window of the tally that said hello and was drawn.
    @MainActor
    func openWindow(session: String? = nil, token: String? = nil, open: String? = nil) async throws -> WindowClient {
        let window = try await window()
        window.hello(session: session, open: open, token: token)
        try await window.next(.welcome)
        try await window.waitUntil("the first render") { window.view != nil }
        return window
    }

    /// An HTTP request with exactly these `Host` and extra headers.
    func request(_ uri: String, method: HTTPRequest.Method = .get, host: String? = nil,
                 headers: HTTPFields = [:], body: String? = nil) async throws -> TestClient.Response {
        let authority = host ?? "127.0.0.1:\(port)"
        return try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            try await client.execute(TestClient.Request(uri, method: method, authority: authority, headers: headers,
                                                        body: body.map { ByteBuffer(string: $0) } ?? (method == .get ? nil : ByteBuffer())))
        }
    }
}

extension TestClient.Response {
    var text: String { body.map { String(buffer: $0) } ?? "" }
}
