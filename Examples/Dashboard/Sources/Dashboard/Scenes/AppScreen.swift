import Foundation
import SceneSync
import SceneSyncServer
public import SceneSyncUI

/// One app beside the list: its logs, and its windows on each node. Choosing a window shows its node.
@MainActor
public final class AppScreen: ClusterScreen {
    /// The screen's kind of route, whose argument is the app's name.
    public static let route = RoutePattern<String>("app")
    /// The detail pane's table.
    public static let table = "app-windows"
    /// The form of the app's logs.
    public static let logs = "app-logs"
    /// What the detail pane shows while no node reports the app.
    public static let missing = "app-missing"

    /// The app shown.
    public let app: String

    /// Creates the screen for the app named `app`.
    public init(monitor: ClusterMonitor, app: String) {
        self.app = app
        let title = AppSummary.apps(of: monitor.snapshot.nodes).first { $0.name == app }?.title ?? app
        super.init(monitor: monitor, route: Self.route(app), title: title, focus: .secondary)
    }

    /// The section of the app's windows on the node `name`.
    public static func section(node name: String) -> String { "app-node-\(ClusterScreen.nodeRows.id(for: name))" }

    override func makeDetail() -> [ViewNode] {
        guard let summary = apps.first(where: { $0.name == app }) else {
            return [.emptyState(id: Self.missing, title: "Not Hosted", message: "No node that reports now hosts this app.")]
        }
        let logs = ViewNode.form(id: Self.logs, sections: [
            .section(id: "app-log", header: "Log", footer: "As the node that has seen the most of it reports it.",
                     children: summary.logs.flatMap { log in
                         // An app with one log (every example) needs no log names.
                         let named = summary.logs.count > 1 ? " (\(log.name))" : ""
                         return [
                             ViewNode.label(id: "log-\(log.name)-sequence", label: "Last sequence number\(named)",
                                            value: DashboardText.sequence(log.lastSequence)),
                             ViewNode.label(id: "log-\(log.name)-rate", label: "Events per second\(named)",
                                            value: DashboardText.rate(log.eventsPerSecond)),
                         ]
                     }),
        ])
        let nodes = summary.nodes.map { entry in
            ViewNode.section(id: Self.section(node: entry.node), header: entry.node,
                             footer: entry.app.windowsNotListed > 0
                                 ? "\(DashboardText.windows(entry.app.windowCount)), \(entry.app.windowsNotListed) not listed"
                                 : DashboardText.windows(entry.app.windowCount),
                             children: entry.app.windows.map { windowRow($0, subtitle: DashboardText.session($0.session)) })
        }
        return [logs, .table(id: Self.table, label: "\(summary.title) windows", sections: nodes)]
    }

    override func selectWindow(_ session: String) -> (@MainActor () async -> Void)? {
        guard let entry = apps.first(where: { $0.name == app })?.nodes.first(where: { $0.app.windows.contains { $0.session == session } })
        else { return nil }
        return { [weak self] in
            guard let self else { return }
            await delegate?.clusterScreen(self, didSelectNode: entry.node)
        }
    }
}
