public import SceneSyncServer

/// The dashboard as the server hosts it, at `/dashboard`: every node of the cluster, each node's
/// windows (app, lifecycle state, route) and each app's events per second and last sequence
/// number, live. Read-only.
///
/// ```swift
/// let reports = NodeReports()
/// let server = try SceneSyncServer(configuration: …, apps: [lootLogger, DashboardApp.hosted(reports: reports)],
///                                  reports: reports) { … }
/// ```
///
/// What it shows (which windows are open, what they show) is for whoever runs the server: it is
/// served on a loopback-bound server, or behind the server's access token, never otherwise (see
/// ``NodeReports``).
public enum DashboardApp {
    /// The app's name: its page is at `/dashboard`.
    public static let name = "dashboard"

    /// The hosted dashboard, showing `reports`.
    public static func hosted(reports: NodeReports) -> HostedApp {
        HostedApp(name: name, title: "Dashboard",
                  summary: "Every node, its windows and each app's events per second, live. Read-only; for whoever runs the server.",
                  makeDelegate: { DashboardAppDelegate(logger: $0) { try await reports.current() } })
    }
}
