import Dashboard
import Foundation
import Logging
import SceneSync
import SceneSyncSQLite
import SceneSyncServer
import SceneSyncTesting
import SceneSyncUI
import Synchronization
import Testing

/// Reports a test sets, as nodes would publish them.
final class FakeReports: Sendable {
    private let reports = Mutex<[NodeReport]>([])
    private let failure = Mutex<String?>(nil)

    func set(_ new: [NodeReport]) { reports.withLock { $0 = new } }
    func fail(_ message: String?) { failure.withLock { $0 = message } }

    func read() throws -> [NodeReport] {
        if let message = failure.withLock({ $0 }) { throw Unreachable(message: message) }
        return reports.withLock { $0 }
    }

    struct Unreachable: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// The dashboard's windows, driven headless against reports the test writes.
@MainActor
struct DashboardSceneTests {
    typealias ID = ClusterScreen.NodeID
    static let started = Date(timeIntervalSince1970: 1_800_000_000)

    static func window(_ session: String, _ state: SceneLifecycle.State, _ route: String?) -> NodeReport.Window {
        NodeReport.Window(session: session, state: state, route: route)
    }

    static func node(_ name: String, lootLogger windows: [NodeReport.Window], sequence: UInt64 = 42, rate: Double = 2.5) -> NodeReport {
        NodeReport(node: name, startedAt: started, reportedAt: started.addingTimeInterval(90), apps: [
            NodeReport.App(name: "lootlogger", title: "LootLogger", windows: windows, logs: [
                NodeReport.Log(name: "lootlogger", lastSequence: sequence, eventsCommitted: 7, eventsPerSecond: rate),
            ]),
            NodeReport.App(name: "chat", title: "Chat", windows: [], logs: [
                NodeReport.Log(name: "chat", lastSequence: 3, eventsCommitted: 0, eventsPerSecond: 0),
            ]),
        ])
    }

    static let first = String(repeating: "a", count: 32)
    static let second = String(repeating: "b", count: 32)

    func launch(_ reports: FakeReports, storage: (any SceneSyncStorage)? = nil) async throws -> SceneHost {
        let delegate = DashboardAppDelegate(interval: .milliseconds(20), logger: Logger(label: "test")) { try reports.read() }
        return try await SceneHost.launch(delegate: delegate, storage: storage ?? SQLiteStorage.inMemory())
    }

    func open(_ name: String, in window: HostedWindow, host: SceneHost) async throws {
        try await host.perform(.select, on: name, in: window)
    }

    @Test func theOverviewListsEveryNodeAndAppWithItsWindowsAndRate() async throws {
        let reports = FakeReports()
        reports.set([
            Self.node("node-a", lootLogger: [Self.window(Self.first, .foregroundActive, "items")]),
            Self.node("node-b", lootLogger: [Self.window(Self.second, .background, "item/K")], sequence: 44, rate: 3),
        ])
        let host = try await launch(reports)
        let window = try await host.openWindow()
        #expect(window.title == "Dashboard")
        #expect(window.text(ID.node("node-a"), "subtitle") == "1 window")
        #expect(window.text(ID.node("node-b"), "title") == "node-b")
        // The log as the node furthest along sees it: #44, 3 events/s.
        #expect(window.text(ID.app("lootlogger"), "subtitle") == "2 windows · #44")
        #expect(window.text(ID.app("lootlogger"), "detail") == "3")
        #expect(window.node(ID.apps)?.props["header"]?.string == "Apps, events per second")
        #expect(window.text(ID.app("chat"), "subtitle") == "0 windows · #3")
        #expect(window.node("figure-nodes")?.props["value"]?.string == "2")
        #expect(window.node("figure-windows")?.props["value"]?.string == "2")
    }

    @Test func aWindowOpenedAfterEveryOneClosedIsDrawnFromTheReportsAsTheyAreNow() async throws {
        let reports = FakeReports()
        reports.set([Self.node("node-a", lootLogger: [])])
        let delegate = DashboardAppDelegate(interval: .milliseconds(20), logger: Logger(label: "test")) { try reports.read() }
        let monitor = delegate.monitor
        let host = try await SceneHost.launch(delegate: delegate, storage: SQLiteStorage.inMemory())
        let first = try await host.openWindow()
        #expect(first.node(ID.node("node-a")) != nil)
        try await host.close(first)
        try await host.waitUntil("nobody following the reports") { monitor.followerCount == 0 }

        // Node A goes, node B comes, while no window reads the reports; then one opens.
        reports.set([Self.node("node-b", lootLogger: [])])
        try await host.waitUntil("the reports last read to age") { !monitor.isCurrent }
        let second = try await host.openWindow()
        let firstDraw = second.messages.compactMap { if case .render(let root, _, _) = $0 { root } else { nil } }.first
        let root = ViewTree(try #require(firstDraw))
        #expect(root.node(ID.node("node-b")) != nil, "drawn from the reports as they are now")
        #expect(root.node(ID.node("node-a")) == nil, "not from what the last window saw")
    }

    @Test func aNodeShowsEachWindowsRouteAndStateAndFollowsThemLiveWithPatches() async throws {
        let reports = FakeReports()
        reports.set([Self.node("node-a", lootLogger: [Self.window(Self.first, .foregroundActive, "items")])])
        let host = try await launch(reports)
        let window = try await host.openWindow()
        try await open(ID.node("node-a"), in: window, host: host)
        try await host.waitUntil("the node's windows") { window.node(ID.window(Self.first)) != nil }
        #expect(window.title == "node-a")
        #expect(window.text(ID.window(Self.first), "title") == "items")
        #expect(window.text(ID.window(Self.first), "detail") == "Active")
        #expect(window.text(ID.window(Self.first), "subtitle") == "Session aaaaaaaa")
        #expect(window.node(NodeScreen.section("lootlogger"))?.props["footer"]?.string
            == "1 window · lootlogger #42, 2.5 events/s, 7 committed here")

        // The LootLogger window navigates and goes to the background: the row changes, by a patch.
        let renders = window.messages.filter { if case .render = $0 { true } else { false } }.count
        reports.set([Self.node("node-a", lootLogger: [Self.window(Self.first, .background, "item/K")])])
        try await host.waitUntil("the new route") { window.text(ID.window(Self.first), "title") == "item/K" }
        #expect(window.text(ID.window(Self.first), "detail") == "In background")
        #expect(window.messages.filter { if case .render = $0 { true } else { false } }.count == renders, "patched, not redrawn")
        #expect(window.patchFailures.isEmpty)

        // A second window opens; the node stops reporting.
        reports.set([Self.node("node-a", lootLogger: [Self.window(Self.first, .background, "item/K"),
                                                      Self.window(Self.second, .foregroundInactive, nil)])])
        try await host.waitUntil("the second window") { window.node(ID.window(Self.second)) != nil }
        #expect(window.text(ID.window(Self.second), "title") == "Nothing shown yet")
        #expect(window.text(ID.window(Self.second), "detail") == "Inactive")
        reports.set([])
        try await host.waitUntil("the node gone") { window.node(NodeScreen.missing) != nil }
        #expect(window.node(ID.noNodes) != nil)
        #expect(window.patchFailures.isEmpty)
    }

    @Test func aWindowsRowLeadsToItsAppAndAnAppsWindowToItsNode() async throws {
        let reports = FakeReports()
        reports.set([
            Self.node("node-a", lootLogger: [Self.window(Self.first, .foregroundActive, "items")]),
            Self.node("node-b", lootLogger: [Self.window(Self.second, .foregroundActive, "item/K")]),
        ])
        let host = try await launch(reports)
        let window = try await host.openWindow()
        try await open(ID.node("node-b"), in: window, host: host)
        try await host.waitUntil("node B") { window.title == "node-b" }
        try await open(ID.window(Self.second), in: window, host: host)
        try await host.waitUntil("LootLogger") { window.title == "LootLogger" }
        #expect(window.node(AppScreen.section(node: "node-a")) != nil && window.node(AppScreen.section(node: "node-b")) != nil)
        #expect(window.node("log-lootlogger-sequence")?.props["value"]?.string == "#42")
        try await open(ID.window(Self.first), in: window, host: host)
        try await host.waitUntil("node A") { window.title == "node-a" }
        // A window the screen does not show answers nothing.
        await #expect(throws: ScreenError.self) { try await host.perform(.select, on: ID.window(String(repeating: "c", count: 32)), in: window) }
    }

    @Test func aReloadedWindowComesBackOnTheSameNode() async throws {
        let reports = FakeReports()
        reports.set([Self.node("node a ✓", lootLogger: [])])
        let host = try await launch(reports)
        let window = try await host.openWindow()
        try await open(ID.node("node a ✓"), in: window, host: host)
        try await host.waitUntil("the node") { window.title == "node a ✓" }
        try await host.reload(window)
        try await host.waitUntil("the node again") { window.title == "node a ✓" && window.node(NodeScreen.table) != nil }
        #expect(window.text(SceneWindow.NodeID.navigationBar, "back") == "Dashboard")
    }

    @Test func reportsThatCannotBeReadSaySoAndKeepTheLastOnes() async throws {
        let reports = FakeReports()
        reports.set([Self.node("node-a", lootLogger: [])])
        let host = try await launch(reports)
        let window = try await host.openWindow()
        reports.fail("the database does not answer")
        try await host.waitUntil("the problem") {
            window.node(ID.nodes)?.props["footer"]?.string == "The nodes' reports could not be read: the database does not answer"
        }
        #expect(window.node(ID.node("node-a")) != nil)
        reports.fail(nil)
        try await host.waitUntil("the problem gone") { window.node(ID.nodes)?.props["footer"] == nil }
    }

    @Test func theReportsAreReadOnlyWhileAWindowFollowsThem() async throws {
        let reports = FakeReports()
        let delegate = DashboardAppDelegate(interval: .milliseconds(20), logger: Logger(label: "test")) { try reports.read() }
        let host = try await SceneHost.launch(delegate: delegate, storage: SQLiteStorage.inMemory())
        #expect(delegate.monitor.followerCount == 0)
        let window = try await host.openWindow()
        #expect(delegate.monitor.followerCount == 1)
        await host.disconnect(window)
        try await host.waitUntil("no follower") { delegate.monitor.followerCount == 0 }
    }

    @Test func textsReadAsAPersonWould() {
        #expect(DashboardText.rate(0) == "0 events/s")
        #expect(DashboardText.rate(2.54) == "2.5 events/s")
        #expect(DashboardText.rate(12) == "12 events/s")
        #expect(DashboardText.uptime(since: Self.started, now: Self.started.addingTimeInterval(42)) == "up 42 s")
        #expect(DashboardText.uptime(since: Self.started, now: Self.started.addingTimeInterval(3_725)) == "up 1 h 2 min")
        #expect(DashboardText.windows(1) == "1 window")
    }
}
