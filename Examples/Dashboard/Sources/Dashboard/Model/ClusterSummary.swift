public import Foundation
import SceneSync
public import SceneSyncServer

/// The cluster seen per app rather than per node: each app's windows on every node, and its logs
/// as the node furthest along sees them.
public struct AppSummary: Sendable, Equatable {
    /// The app's name, as in its URL.
    public var name: String
    /// The app's title.
    public var title: String
    /// Its windows on each node that hosts it, by node, in node order.
    public var nodes: [(node: String, app: NodeReport.App)]
    /// Its logs, each as the node that has seen the most of it reports it.
    public var logs: [NodeReport.Log]

    /// Every app of `nodes`, in the order the first node hosting each lists them.
    public static func apps(of nodes: [NodeReport]) -> [AppSummary] {
        var summaries: [AppSummary] = []
        for report in nodes {
            for app in report.apps {
                if let index = summaries.firstIndex(where: { $0.name == app.name }) {
                    summaries[index].nodes.append((report.node, app))
                } else {
                    summaries.append(AppSummary(name: app.name, title: app.title, nodes: [(report.node, app)], logs: []))
                }
            }
        }
        for index in summaries.indices {
            var logs: [String: NodeReport.Log] = [:]
            for log in summaries[index].nodes.flatMap(\.app.logs) where log.lastSequence >= logs[log.name]?.lastSequence ?? 0 {
                logs[log.name] = log
            }
            summaries[index].logs = logs.values.sorted { $0.name < $1.name }
        }
        return summaries
    }

    /// How many windows of the app are connected, on every node.
    public var windowCount: Int { nodes.reduce(0) { $0 + $1.app.windowCount } }

    /// The events per second of all its logs.
    public var eventsPerSecond: Double { logs.reduce(0) { $0 + $1.eventsPerSecond } }

    public static func == (lhs: AppSummary, rhs: AppSummary) -> Bool {
        lhs.name == rhs.name && lhs.title == rhs.title && lhs.logs == rhs.logs
            && lhs.nodes.map(\.node) == rhs.nodes.map(\.node) && lhs.nodes.map(\.app) == rhs.nodes.map(\.app)
    }
}

/// How the dashboard words numbers and states.
public enum DashboardText {
    /// "1 window", "3 windows".
    public static func windows(_ count: Int) -> String { count == 1 ? "1 window" : "\(count) windows" }

    /// "0 events/s", "2.5 events/s".
    public static func rate(_ eventsPerSecond: Double) -> String { "\(number(eventsPerSecond)) events/s" }

    /// A rate to one decimal, without a needless ".0": "0", "2.5", "12".
    public static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded))" : String(format: "%.1f", rounded)
    }

    /// "#421".
    public static func sequence(_ sequence: UInt64) -> String { "#\(sequence)" }

    /// How long a node has been up: "up 42 s", "up 5 min", "up 3 h 10 min", "up 2 d 4 h".
    public static func uptime(since start: Date, now: Date) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(start)))
        switch seconds {
        case ..<60: return "up \(seconds) s"
        case ..<3_600: return "up \(seconds / 60) min"
        case ..<86_400: return "up \(seconds / 3_600) h \(seconds % 3_600 / 60) min"
        default: return "up \(seconds / 86_400) d \(seconds % 86_400 / 3_600) h"
        }
    }

    /// A scene's lifecycle state in words.
    public static func state(of window: NodeReport.Window) -> String {
        switch window.state {
        case .foregroundActive: "Active"
        case .foregroundInactive: "Inactive"
        case .background: "In background"
        case .unattached: "Connecting"
        case .disconnected: "Disconnected"
        }
    }

    /// A session id, short: its first eight digits.
    public static func session(_ id: String) -> String { "Session \(id.prefix(8))" }
}
