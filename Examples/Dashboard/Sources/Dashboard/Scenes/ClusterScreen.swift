import Foundation
import SceneSync
import SceneSyncServer
public import SceneSyncUI

/// What the dashboard's screens ask of their coordinator.
@MainActor
public protocol ClusterScreenDelegate: AnyObject {
    /// The user chose a node.
    func clusterScreen(_ screen: ClusterScreen, didSelectNode node: String) async
    /// The user chose an app.
    func clusterScreen(_ screen: ClusterScreen, didSelectApp app: String) async
}

/// What the dashboard's screens share: a split view whose list pane shows the cluster's nodes and
/// apps, and whose detail pane shows what a subclass shows. Every screen follows the
/// ``ClusterMonitor``: each new snapshot is drawn again and only what changed is sent to the
/// window, as patches. Nothing here changes anything: choosing a row only navigates.
@MainActor
public class ClusterScreen: ScreenController {
    /// Node ids.
    public enum NodeID {
        /// The split view.
        public static let split = "dashboard-split"
        /// The list pane.
        public static let listPane = "dashboard-list"
        /// The detail pane.
        public static let detailPane = "dashboard-detail"
        /// The table of nodes and apps.
        public static let table = "cluster-table"
        /// Its section of nodes.
        public static let nodes = "nodes"
        /// Its section of apps.
        public static let apps = "apps"
        /// What the nodes section shows while no node has reported.
        public static let noNodes = "no-nodes"
        /// The row of the node `name`.
        public static func node(_ name: String) -> String { nodeRows.id(for: name) }
        /// The row of the app `name`.
        public static func app(_ name: String) -> String { appRows.id(for: name) }
        /// The row of the window of session `id`.
        public static func window(_ id: String) -> String { windowRows.id(for: id) }
    }

    /// Node rows, by node name (any text, so written in hexadecimal).
    public nonisolated static let nodeRows = KeyedRows<String>(prefix: "node-", format: hex, parse: unhex)
    /// App rows, by app name (a URL segment).
    public nonisolated static let appRows = KeyedRows<String>(prefix: "app-")
    /// Window rows, by session id.
    public nonisolated static let windowRows = KeyedRows<String>(prefix: "window-", format: hex, parse: unhex)

    /// Who to tell what the user chose.
    public weak var delegate: (any ClusterScreenDelegate)?
    /// The reports.
    public let monitor: ClusterMonitor
    /// What the screen shows now.
    public private(set) var snapshot: ClusterMonitor.Snapshot
    private let focus: ViewNode.SplitPane
    /// The content as the window was last sent it, to send only what changes.
    private var shown: ViewNode?
    private var isFollowing = false

    init(monitor: ClusterMonitor, route: Route, title: String, focus: ViewNode.SplitPane) {
        self.monitor = monitor
        self.focus = focus
        snapshot = monitor.snapshot
        super.init(route: route, title: title)
        handleRows(Self.nodeRows, shown: { [weak self] name in self?.snapshot.node(name) != nil }, onSelect: { [weak self] name in
            guard let self else { return }
            await delegate?.clusterScreen(self, didSelectNode: name)
        })
        handleRows(Self.appRows, shown: { [weak self] name in self?.apps.contains { $0.name == name } == true }, onSelect: { [weak self] name in
            guard let self else { return }
            await delegate?.clusterScreen(self, didSelectApp: name)
        })
        handleRows(Self.windowRows, shown: { [weak self] session in self?.selectWindow(session) != nil }, onSelect: { [weak self] session in
            guard let self, let select = selectWindow(session) else { return }
            await select()
        })
    }

    public override func load() async {
        if !monitor.isCurrent { await monitor.refresh() }
        snapshot = monitor.snapshot
        guard !isFollowing else { return }
        isFollowing = true
        let updates = monitor.updates()
        task { [weak self] in
            for await snapshot in updates {
                guard let self else { return }
                self.show(snapshot)
            }
        }
    }

    public override func makeContent() -> [ViewNode] {
        let content = [ViewNode.split(
            id: NodeID.split, focus: focus,
            primary: .stack(id: NodeID.listPane, children: [
                .table(id: NodeID.table, label: "Cluster", sections: [nodesSection, appsSection]),
            ]),
            secondary: .stack(id: NodeID.detailPane, children: makeDetail()))]
        shown = Self.wrap(content)
        return content
    }

    /// Draws `snapshot`, sending the window what changed.
    func show(_ snapshot: ClusterMonitor.Snapshot) {
        self.snapshot = snapshot
        guard isVisible, let shown else { return }
        let old = shown
        let new = Self.wrap(makeContent())
        update(ViewNode.patches(from: old, to: new))
    }

    // MARK: - For subclasses

    /// The detail pane's content.
    func makeDetail() -> [ViewNode] { [] }

    /// What choosing the row of the window of `session` does here, if the screen shows it.
    func selectWindow(_ session: String) -> (@MainActor () async -> Void)? { nil }

    /// Every app of the snapshot, with its windows on every node.
    var apps: [AppSummary] { AppSummary.apps(of: snapshot.nodes) }

    /// A row for a window.
    func windowRow(_ window: NodeReport.Window, subtitle: String) -> ViewNode {
        .row(id: NodeID.window(window.session), title: window.route ?? "Nothing shown yet", subtitle: subtitle,
             detail: DashboardText.state(of: window))
            .disclosure()
    }

    // MARK: - The list pane

    private var nodesSection: ViewNode {
        let now = snapshot.readAt ?? Date()
        let rows = snapshot.nodes.map { report in
            ViewNode.row(id: NodeID.node(report.node), title: report.node,
                         subtitle: DashboardText.windows(report.apps.reduce(0) { $0 + $1.windowCount }),
                         detail: DashboardText.uptime(since: report.startedAt, now: now))
                .disclosure()
        }
        let empty = ViewNode.emptyState(id: NodeID.noNodes, title: "No Nodes", message: "No node has reported yet.")
        return .section(id: NodeID.nodes, header: "Nodes", footer: snapshot.problem, children: rows.isEmpty ? [empty] : rows)
    }

    private var appsSection: ViewNode {
        // The list pane is narrow: the header says what the number beside each app is.
        .section(id: NodeID.apps, header: "Apps, events per second", children: apps.map { app in
            let last = app.logs.map { DashboardText.sequence($0.lastSequence) }.joined(separator: ", ")
            return .row(id: NodeID.app(app.name), title: app.title,
                        subtitle: [DashboardText.windows(app.windowCount), last.isEmpty ? "no log" : last].joined(separator: " · "),
                        detail: DashboardText.number(app.eventsPerSecond))
                .disclosure()
        })
    }

    private static func wrap(_ content: [ViewNode]) -> ViewNode {
        ViewNode(id: SceneWindow.NodeID.screen, kind: .screen, children: content)
    }
}

/// Text as lowercase hexadecimal of its UTF-8, for node ids made of names that may hold anything.
private func hex(_ text: String) -> String {
    text.utf8.map { byte in
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }.joined()
}

/// The text `hex` wrote, or `nil`.
private func unhex(_ digits: Substring) -> String? {
    let bytes = Array(digits.utf8)
    guard bytes.count % 2 == 0 else { return nil }
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count / 2)
    var index = 0
    while index < bytes.count {
        guard let high = hexValue(bytes[index]), let low = hexValue(bytes[index + 1]) else { return nil }
        result.append(high << 4 | low)
        index += 2
    }
    return String(validating: result, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 48...57: byte - 48
    case 97...102: byte - 87
    default: nil
    }
}
