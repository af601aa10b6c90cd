public import Logging
public import SceneSync

/// The dashboard's application delegate: one ``ClusterMonitor`` for every window. The dashboard
/// keeps no model of its own: it shows what the nodes report.
@MainActor
public final class DashboardAppDelegate: ApplicationDelegate {
    /// The reports every window shows.
    public let monitor: ClusterMonitor

    /// Creates the delegate; its windows show what `source` reads, every `interval` while any
    /// window follows it.
    public init(interval: Duration = .seconds(1), logger: Logger, source: @escaping ClusterMonitor.Source) {
        monitor = ClusterMonitor(interval: interval, logger: logger, source: source)
    }

    public func application(
        _ application: Application,
        configurationForConnecting session: SceneSession,
        options: ConnectionOptions
    ) -> SceneConfiguration {
        SceneConfiguration(name: "Main") { [monitor] in DashboardSceneDelegate(monitor: monitor) }
    }
}
