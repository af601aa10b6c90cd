import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Restaurant
import RestaurantServer
import SceneSyncServer
import SceneSyncServerTesting
import SceneSyncSQLite
import SceneSyncTestSupport
import ServiceLifecycle

/// The real server on a free port, hosting Restaurant with its standard menu and pictures, run
/// as `scenesync` runs it: a service in a `ServiceGroup`, on SQLite files in a folder of its own.
final class LiveRestaurant: Sendable {
    let port: Int
    let directory: TemporaryDirectory
    let menu: Menu
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(port: Int, directory: TemporaryDirectory, menu: Menu, group: ServiceGroup, running: Task<Void, any Error>) {
        self.port = port
        self.directory = directory
        self.menu = menu
        self.group = group
        self.running = running
    }

    static func start(
        directory: TemporaryDirectory = TemporaryDirectory(), clock: KitchenClock = .system, limits: OrderLimits = .init()
    ) async throws -> LiveRestaurant {
        var logger = Logger(label: "restaurant.tests")
        logger.logLevel = .warning
        let menu = try Menu.standard()
        let server = try SceneSyncServer(
            configuration: .init(port: 0, logger: logger),
            apps: [RestaurantApp.hosted(menu: menu, images: DishImages.standard(), clock: clock, limits: limits)]
        ) { app, logger in
            try SQLiteStorage(path: directory.path("\(app.name).sqlite"), logger: logger)
        }
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let running = Task { try await group.run() }
        let port = try await server.waitUntilRunning()
        return LiveRestaurant(port: port, directory: directory, menu: menu, group: group, running: running)
    }

    /// Runs `body` with a server started for it, and stops the server afterwards, whatever `body` does.
    static func run(
        clock: KitchenClock = .system, limits: OrderLimits = .init(), isolation: isolated (any Actor)? = #isolation,
        _ body: (LiveRestaurant) async throws -> Void
    ) async throws {
        let server = try await start(clock: clock, limits: limits)
        do {
            try await body(server)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    /// Shuts the server down gracefully, as SIGTERM does.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
    }

    /// `http://127.0.0.1:<port>/`, as the course's client is pointed at it.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Sends a request with exactly these headers and body; returns the status, headers and body.
    func request(_ path: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil,
                 host: String = "127.0.0.1") async throws -> (status: Int, headers: [String: String], body: Data) {
        var request = URLRequest(url: URL(string: "http://\(host):\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
        return (http.statusCode, fields, data)
    }

    /// A window of Restaurant that said hello and was drawn.
    @MainActor
    func openWindow() async throws -> WindowClient {
        let window = try await WindowClient.connect(port: port, app: RestaurantApp.name)
        window.hello()
        try await window.next(.welcome)
        try await window.waitUntil("the first render") { window.view != nil }
        return window
    }
}
