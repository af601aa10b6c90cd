import Foundation
import SceneSync
import SceneSyncServer
public import SceneSyncUI

/// One node beside the list: each of its apps with its windows (what each shows, and its state)
/// and its logs as this node sees them. Choosing a window shows its app on every node.
@MainActor
public final class NodeScreen: ClusterScreen {
    /// The screen's kind of route, whose argument is the node's name.
    public static let route = RoutePattern<String>("node")
    /// The detail pane's table.
    public static let table = "node-windows"
    /// What the detail pane shows while the node does not report.
    public static let missing = "node-missing"

    /// The node shown.
    public let node: String

    /// Creates the screen for the node named `node`.
    public init(monitor: ClusterMonitor, node: String) {
        self.node = node
        super.init(monitor: monitor, route: Self.route(node), title: node, focus: .secondary)
    }

    /// The section of the app `name`.
    public static func section(_ name: String) -> String { "node-app-\(name)" }

    override func makeDetail() -> [ViewNode] {
        guard let report = snapshot.node(node) else {
            return [.emptyState(id: Self.missing, title: "Not Reporting",
                                message: "This node has not reported for a while: it stopped, or cannot reach the database.")]
        }
        return [.table(id: Self.table, label: "Windows on \(node)", sections: report.apps.map { app in
            .section(id: Self.section(app.name), header: app.title, footer: Self.footer(app),
                     children: app.windows.map { windowRow($0, subtitle: DashboardText.session($0.session)) })
        })]
    }

    override func selectWindow(_ session: String) -> (@MainActor () async -> Void)? {
        guard let app = snapshot.node(node)?.apps.first(where: { $0.windows.contains { $0.session == session } }) else { return nil }
        return { [weak self] in
            guard let self else { return }
            await delegate?.clusterScreen(self, didSelectApp: app.name)
        }
    }

    /// "2 windows · lootlogger #42, 1.5 events/s, 10 committed here", and the windows not listed.
    static func footer(_ app: NodeReport.App) -> String {
        var parts = [DashboardText.windows(app.windowCount)]
        if app.windowsNotListed > 0 { parts.append("\(app.windowsNotListed) not listed") }
        for log in app.logs {
            parts.append("\(log.name) \(DashboardText.sequence(log.lastSequence)), \(DashboardText.rate(log.eventsPerSecond)), "
                + "\(log.eventsCommitted) committed here")
        }
        return parts.joined(separator: " · ")
    }
}
