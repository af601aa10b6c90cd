import Dashboard
import Foundation
import Logging
import SceneSync
import SceneSyncSQLite
import SceneSyncServer
import SceneSyncServerTesting
import SceneSyncUI
import SceneSyncTestSupport
import ServiceLifecycle
import Testing

/// The dashboard on a real server: the node's reporter sees the windows connected over real
/// WebSockets, and the dashboard's window is patched as they change.
@MainActor
struct DashboardServerTests {
    typealias ID = ClusterScreen.NodeID

    /// Runs `body` with a server hosting the dashboard alone on a free port.
    func withServer(token: String? = nil, _ body: (SceneSyncServer, Int) async throws -> Void) async throws {
        var logger = Logger(label: "dashboard.tests")
        logger.logLevel = .warning
        let directory = TemporaryDirectory()
        let reports = NodeReports()
        let server = try SceneSyncServer(configuration: .init(port: 0, token: token, logger: logger),
                                         apps: [DashboardApp.hosted(reports: reports)], reports: reports) { app, logger in
            try SQLiteStorage(path: directory.path("\(app.name).sqlite"), logger: logger)
        }
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let running = Task { try await group.run() }
        do {
            try await body(server, try await server.waitUntilRunning())
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await running.value
    }

    @Test func theDashboardListsItsOwnWindowAndFollowsWhereItGoes() async throws {
        try await withServer { server, port in
            let dashboard = try await WindowClient.connect(port: port, app: DashboardApp.name)
            dashboard.hello()
            try await dashboard.waitUntil("the node listed") { dashboard.view?.nodes(of: .row).contains { $0.id.hasPrefix("node-") } == true }
            let node = try #require(server.reports.local?.node)
            #expect(server.reports.local?.apps.map(\.name) == ["dashboard"])
            let session = try #require(dashboard.session)
            try await dashboard.waitUntil("its own window, on the overview") {
                server.reports.local?.apps.first?.windows == [NodeReport.Window(session: session, state: .foregroundActive, route: "cluster")]
            }
            let renders = dashboard.messages.filter { if case .render = $0 { true } else { false } }.count
            _ = dashboard.act(.select, on: ID.node(node))
            try await dashboard.waitUntil("the node's screen") { dashboard.view?.node(NodeScreen.table) != nil }
            try await dashboard.waitUntil("its own window, on the node, in the node's list") {
                dashboard.view?.node(ID.window(session))?.props["title"]?.string == "node/\(node)"
            }
            #expect(dashboard.view?.node(ID.window(session))?.props["detail"]?.string == "Active")
            dashboard.setVisibility(visible: false, focused: false)
            try await dashboard.waitUntil("the report says it is in the background") {
                server.reports.local?.apps.first?.windows.first?.state == .background
            }
            dashboard.setVisibility(visible: true, focused: true)
            try await dashboard.waitUntil("in the foreground again, as the window shows") {
                dashboard.view?.node(ID.window(session))?.props["detail"]?.string == "Active"
            }
            #expect(dashboard.messages.filter { if case .render = $0 { true } else { false } }.count == renders, "patched, not redrawn")
            #expect(dashboard.problems.isEmpty)
            try await dashboard.close()
        }
    }

    @Test func behindATokenTheDashboardTakesNoWindowWithoutIt() async throws {
        try await withServer(token: "s3cret") { _, port in
            let stranger = try await WindowClient.connect(port: port, app: DashboardApp.name)
            stranger.hello()
            try await stranger.waitUntil("refused") { stranger.isClosed }
            #expect(stranger.view == nil)
            #expect(stranger.messages.contains { $0.errorCode == "unauthorized" })
            let operator_ = try await WindowClient.connect(port: port, app: DashboardApp.name)
            operator_.hello(token: "s3cret")
            try await operator_.waitUntil("drawn") { operator_.view?.node(ID.nodes) != nil }
            try await operator_.close()
        }
    }
}
