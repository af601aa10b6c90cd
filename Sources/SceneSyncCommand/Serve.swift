import ArgumentParser
import CoreMetrics
import Foundation
import Logging
import Prometheus
import Chat
import Dashboard
import LootLogger
import Restaurant
import RestaurantServer
import SceneSync
import SceneSyncPostgres
import SceneSyncServer
import SceneSyncSQLite
import ServiceLifecycle
import UnixSignals

/// `scenesync serve`: runs the server until SIGINT or SIGTERM, then shuts down gracefully.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the apps over HTTP and WebSocket.")

    @Option(help: "The address to listen on. Anything but loopback requires --token.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 for any free port).")
    var port = 8080

    @Option(name: .customLong("data-dir"), help: "The folder for the apps' databases.")
    var dataDirectory = "./data"

    @Option(name: .customLong("database"), help: ArgumentHelp(
        "A PostgreSQL database to share with other nodes (postgres://user@host:port/database), instead of SQLite in --data-dir. Read from SCENESYNC_DATABASE_URL when not given, so that a password stays out of the process list.",
        valueName: "url"))
    var databaseURL: String?

    @Option(name: .customLong("node"), help: ArgumentHelp(
        "This node's name among the nodes on one PostgreSQL database; its run mark is kept under it. By default the host name and the port.",
        valueName: "name"))
    var node: String?

    @Option(help: "An access token every window must present: printable ASCII without spaces, not blank.")
    var token: String?

    @Option(help: "full: commits survive power loss; normal: they survive a crash of the process.")
    var durability = DurabilityOption.full

    @Option(name: .customLong("allowed-host"), help: ArgumentHelp(
        "Another host browsers reach the server by (repeatable): a name, taken with --port, or host:port as is (a proxy's; IPv6 in brackets).",
        valueName: "host[:port]"))
    var allowedHosts: [String] = []

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp(
        "The IP address of a proxy in front of the server (repeatable): its connections skip the limit per address, and its clients are told apart by the last X-Forwarded-For address.",
        valueName: "address"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("log-level"), help: "The least severe log lines to print.")
    var logLevel = LogLevelOption.info

    @Option(name: .customLong("menu"), help: ArgumentHelp(
        "Restaurant's menu: a JSON file of the course server's shape ({\"items\": [{id, name, description, price, category, estimated_prep_time}, …]}).",
        valueName: "file"))
    var menuFile: String?

    @Option(name: .customLong("kitchen-minute"), help: ArgumentHelp(
        "How many seconds a minute of preparation lasts in Restaurant's kitchen, for demonstrations.", valueName: "seconds"))
    var kitchenMinute: Double = 60

    @Option(name: .customLong("max-kitchen-orders"), help: ArgumentHelp(
        "The most orders Restaurant's kitchen prepares at once; more are refused until one is ready.", valueName: "count"))
    var maximumKitchenOrders = OrderLimits().maximumOrdersInPreparation

    @Option(name: .customLong("max-kitchen-orders-per-address"), help: ArgumentHelp(
        "The most orders from one client address Restaurant's kitchen prepares at once.", valueName: "count"))
    var maximumKitchenOrdersPerAddress = OrderLimits().maximumOrdersInPreparationPerClient

    @Option(name: .customLong("max-connections"), help: ArgumentHelp(
        "The most connections open at once (lowered to what the open-file limit allows).", valueName: "count"))
    var maximumConnections = SceneSyncServer.ConnectionLimits().maximumConnections

    @Option(name: .customLong("max-connections-per-address"), help: ArgumentHelp(
        "The most connections open at once from one client address (at most half of --max-connections).", valueName: "count"))
    var maximumConnectionsPerAddress = SceneSyncServer.ConnectionLimits().maximumConnectionsPerAddress

    @Option(name: .customLong("reserved-descriptors"), help: ArgumentHelp(
        "File descriptors kept for everything but connections; the connection limit is lowered to the open-file limit less these.",
        valueName: "count"))
    var reservedDescriptors = SceneSyncServer.ConnectionLimits().reservedFileDescriptors

    @Option(name: .customLong("request-head-timeout"), help: ArgumentHelp(
        "Seconds a new connection has to send its first request's head.", valueName: "seconds"))
    var requestHeadTimeout: Double = 10

    @Option(name: .customLong("hello-timeout"), help: ArgumentHelp(
        "Seconds a window's WebSocket has to say hello before it is closed.", valueName: "seconds"))
    var helloTimeout: Double = 5

    @Option(name: .customLong("ping-interval"), help: ArgumentHelp(
        "Seconds between the pings sent to each window's WebSocket; one that does not answer by the next is closed.",
        valueName: "seconds"))
    var pingInterval: Double = 30

    @Option(name: .customLong("request-body-timeout"), help: ArgumentHelp(
        "Seconds a request's body may take to arrive, from its head.", valueName: "seconds"))
    var requestBodyTimeout: Double = 30

    func validate() throws {
        guard reservedDescriptors >= 0 else { throw ValidationError("--reserved-descriptors cannot be negative.") }
        guard maximumConnections > 0, maximumConnectionsPerAddress > 0 else {
            throw ValidationError("--max-connections and --max-connections-per-address must be at least 1.")
        }
        for allowed in allowedHosts where !SceneSyncServer.isValid(allowedHost: allowed) {
            throw ValidationError("--allowed-host \(allowed.debugDescription) is not a host name or address, with or without a port from 1 to 65535.")
        }
        for proxy in trustedProxies where ClientAddress.canonical(proxy) == nil {
            throw ValidationError("--trusted-proxy \(proxy.debugDescription) is not an IP address.")
        }
        if let token {
            do { try SceneSyncServer.validate(token: token) } catch { throw ValidationError("--token: \(error)") }
        }
        for (name, seconds) in [("--request-head-timeout", requestHeadTimeout), ("--request-body-timeout", requestBodyTimeout),
                                ("--hello-timeout", helloTimeout), ("--ping-interval", pingInterval)] {
            guard seconds.isFinite, seconds > 0, seconds <= 3_600 else {
                throw ValidationError("\(name) must be a number of seconds above 0 and at most 3600.")
            }
        }
        if let node, node.isEmpty || node.utf8.count > 200 || node.contains(where: { $0.isNewline || $0.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) } }) {
            throw ValidationError("--node must be a name of 1 to 200 bytes on one line.")
        }
        guard kitchenMinute.isFinite, kitchenMinute > 0, kitchenMinute <= 3_600 else {
            throw ValidationError("--kitchen-minute must be a number of seconds above 0 and at most 3600.")
        }
        guard maximumKitchenOrders > 0, maximumKitchenOrdersPerAddress > 0 else {
            throw ValidationError("--max-kitchen-orders and --max-kitchen-orders-per-address must be at least 1.")
        }
    }

    /// The apps this command hosts; the dashboard shows `reports`.
    func apps(reports: NodeReports = NodeReports()) throws -> [HostedApp] {
        let menu: Menu
        do {
            menu = try menuFile.map { try Menu(contentsOf: URL(fileURLWithPath: $0)) } ?? Menu.standard()
        } catch {
            throw StartupError(description: "\(menuFile.map { "--menu \($0)" } ?? "The standard menu") cannot be used. \(error)")
        }
        return [
            HostedApp(name: "lootlogger", title: "LootLogger", summary: "An inventory of your possessions, in step in every window.",
                      makeDelegate: { LootLoggerAppDelegate(logger: $0) },
                      parts: { delegate, _ in
                          guard let store = delegate.store else {
                              throw StartupError(description: "LootLogger's application did not open its item store.")
                          }
                          return HostedApp.Parts(widget: .following(store.controller) { $0.widgetSummary })
                      }),
            RestaurantApp.hosted(menu: menu, images: DishImages.standard(),
                                 clock: KitchenClock(minute: .milliseconds(Int64((kitchenMinute * 1000).rounded()))),
                                 limits: OrderLimits(maximumOrdersInPreparation: maximumKitchenOrders,
                                                     maximumOrdersInPreparationPerClient: maximumKitchenOrdersPerAddress)),
            HostedApp(name: ChatController.app, title: "Chat",
                      summary: "Conversations between people, each in as many windows as they like, with drafts per window.",
                      rendererModules: [.chat],
                      makeDelegate: { ChatAppDelegate(logger: $0) },
                      parts: { delegate, _ in
                          guard let chat = delegate.chat else {
                              throw StartupError(description: "Chat's application did not open its chat.")
                          }
                          return HostedApp.Parts(widget: .following(chat.controller) { $0.widgetSummary })
                      }),
            DashboardApp.hosted(reports: reports),
        ]
    }

    func run() async throws {
        var logger = Logger(label: "scenesync")
        logger.logLevel = logLevel.level
        if let raised = OpenFileLimit.raiseToHardLimit() {
            logger.info("Raised the open-file limit", metadata: ["from": "\(raised.from)", "to": "\(raised.to)"])
        }
        let reports = NodeReports()
        let apps = try apps(reports: reports)
        let postgres = try postgresDatabase(logger: logger)
        if let postgres {
            do {
                try await postgres.start()
            } catch {
                throw StartupError(description: "The database \(postgres.url) cannot be used. \(error)")
            }
        }
        do {
            try await serve(apps: apps, reports: reports, postgres: postgres, logger: logger)
        } catch {
            await postgres?.close()
            throw error
        }
        await postgres?.close()
    }

    /// The PostgreSQL database of `--database` or `SCENESYNC_DATABASE_URL`, or `nil` for SQLite.
    private func postgresDatabase(logger: Logger) throws -> PostgresDatabase? {
        let environment = ProcessInfo.processInfo.environment["SCENESYNC_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        guard let text = databaseURL ?? environment else { return nil }
        let url: PostgresURL
        do {
            url = try PostgresURL(text)
        } catch {
            throw StartupError(description: "\(databaseURL == nil ? "SCENESYNC_DATABASE_URL" : "--database") is not a PostgreSQL URL: \(error)")
        }
        return PostgresDatabase(url: url, logger: logger)
    }

    /// This node's name: `--node`, or the host name and the port.
    private var nodeName: String {
        node ?? "\(ProcessInfo.processInfo.hostName):\(port)"
    }

    private func serve(apps: [HostedApp], reports: NodeReports, postgres: PostgresDatabase?, logger: Logger) async throws {
        let folder = URL(fileURLWithPath: dataDirectory, isDirectory: true)
        let durability = durability.storage
        let nodeName = nodeName
        let server = try SceneSyncServer(
            configuration: Self.withMetrics(node: nodeName, .init(
                host: host, port: port, token: token, allowedHosts: allowedHosts, trustedProxies: trustedProxies,
                connectionLimits: .init(
                    maximumConnections: maximumConnections, maximumConnectionsPerAddress: maximumConnectionsPerAddress,
                    helloTimeout: .milliseconds(Int64((helloTimeout * 1000).rounded())),
                    requestHeadTimeout: .milliseconds(Int64((requestHeadTimeout * 1000).rounded())),
                    requestBodyTimeout: .milliseconds(Int64((requestBodyTimeout * 1000).rounded())),
                    pingInterval: .milliseconds(Int64((pingInterval * 1000).rounded())),
                    reservedFileDescriptors: reservedDescriptors),
                logger: logger)),
            apps: apps, reports: reports
        ) { app, logger in
            if let postgres {
                // Every app on one database, its sessions and drafts apart by its name.
                return postgres.storage(scope: app.name, node: nodeName)
            }
            // Each app keeps its data in a file of its own: <data-dir>/<name>.sqlite.
            return try SQLiteStorage(path: folder.appendingPathComponent("\(app.name).sqlite").path, durability: durability, logger: logger)
        }
        let group = ServiceGroup(configuration: .init(
            services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask { try await group.run() }
            // If the server fails to start, the group's error says why.
            guard let port = try? await server.waitUntilRunning() else { return }
            announce(port: port, apps: apps)
        }
    }

    private func announce(port: Int, apps: [HostedApp]) {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let query = token.map { "?token=\($0.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? "")" } ?? ""
        var lines = ["SceneSync serving http://\(authority)\(query.isEmpty ? "" : "/\(query)")"]
        for app in apps {
            lines.append("  \(app.title): http://\(authority)/\(app.name)\(query)  \(app.summary)")
        }
        // Unbuffered, so the address shows at once even when output goes to a pipe.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

/// Why the server did not start: said in one line, without the usage a mistyped option gets.
struct StartupError: Error, CustomStringConvertible {
    let description: String
}

/// `--durability`, as SQLite's `synchronous` setting.
enum DurabilityOption: String, CaseIterable, ExpressibleByArgument {
    case full, normal

    var storage: SQLiteStorage.Durability {
        switch self {
        case .full: .full
        case .normal: .normal
        }
    }
}

/// `--log-level`, as swift-log's levels.
enum LogLevelOption: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}

extension CharacterSet {
    fileprivate static let urlQueryValueAllowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

// MARK: - Metrics

extension Serve {
    /// `configuration` with metrics: swift-metrics bootstrapped, once for the process, with a
    /// Prometheus factory over one registry, which the server serves at `/metrics`; every metric
    /// is labelled with this node's name (`--node`).
    static func withMetrics(node: String, _ configuration: SceneSyncServer.Configuration) -> SceneSyncServer.Configuration {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(SceneSyncServer.MetricsOptions.prometheusFactory(registry: registry))
        var configuration = configuration
        configuration.metrics = SceneSyncServer.MetricsOptions(registry: registry, node: node)
        return configuration
    }
}
