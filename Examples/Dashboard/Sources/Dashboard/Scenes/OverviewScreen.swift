import Foundation
import SceneSync
import SceneSyncServer
public import SceneSyncUI

/// The dashboard's root: the cluster's nodes and apps, with the cluster in figures beside them.
@MainActor
public final class OverviewScreen: ClusterScreen {
    /// The screen's kind of route.
    public static let route = RouteName("cluster")
    /// The detail pane's table of figures.
    public static let figures = "cluster-figures"

    /// Creates the screen.
    public init(monitor: ClusterMonitor) {
        super.init(monitor: monitor, route: Self.route(), title: "Dashboard", focus: .primary)
    }

    override func makeDetail() -> [ViewNode] {
        let apps = apps
        let windows = apps.reduce(0) { $0 + $1.windowCount }
        let rate = apps.reduce(0) { $0 + $1.eventsPerSecond }
        return [.form(id: Self.figures, sections: [
            .section(id: "figures", header: "The Cluster",
                     footer: "Every node reports about once a second. Choose a node or an app to see its windows.",
                     children: [
                         .label(id: "figure-nodes", label: "Nodes", value: "\(snapshot.nodes.count)"),
                         .label(id: "figure-windows", label: "Windows", value: "\(windows)"),
                         .label(id: "figure-rate", label: "Events per second", value: DashboardText.rate(rate)),
                     ]),
        ])]
    }
}
