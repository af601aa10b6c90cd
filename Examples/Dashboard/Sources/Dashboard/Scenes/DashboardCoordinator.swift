import SceneSync
public import SceneSyncUI

/// Owns a dashboard window's navigation: the cluster at the root, a node or an app beside it (in
/// a wide window) or on top of it (in a narrow one).
@MainActor
public final class DashboardCoordinator: Coordinator, ClusterScreenDelegate {
    /// The reports every screen shows.
    public let monitor: ClusterMonitor
    /// The window it navigates.
    public unowned let window: SceneWindow
    /// The window's one navigation stack.
    public let navigation = NavigationController()

    /// Creates the coordinator.
    public init(monitor: ClusterMonitor, window: SceneWindow) {
        self.monitor = monitor
        self.window = window
        super.init()
        window.coordinator = self
    }

    /// A node, or an app, beside the cluster: `/dashboard/node/<name>`, `/dashboard/app/<name>`.
    public override var routes: [any RouteKind] { [NodeScreen.route, AppScreen.route] }

    /// Shows the cluster, and the node or app the window showed if `state` says one: a node
    /// that does not report now is shown as not reporting, since it may come back.
    public override func start(restoring state: NavigationState?) async {
        var screens: [ScreenController] = [makeOverview()]
        if let top = state?.paths["main"]?.dropFirst().first, let detail = makeDetail(for: top) { screens.append(detail) }
        await navigation.setScreens(screens)
        await window.setRoot(navigation)
    }

    // MARK: - ClusterScreenDelegate

    public func clusterScreen(_ screen: ClusterScreen, didSelectNode node: String) async {
        if let current = navigation.topScreen as? NodeScreen, current.node == node { return }
        await show(NodeScreen(monitor: monitor, node: node))
    }

    public func clusterScreen(_ screen: ClusterScreen, didSelectApp app: String) async {
        if let current = navigation.topScreen as? AppScreen, current.app == app { return }
        await show(AppScreen(monitor: monitor, app: app))
    }

    // MARK: - Screens

    private func show(_ detail: ClusterScreen) async {
        guard let root = navigation.screens.first else { return }
        detail.delegate = self
        await navigation.setScreens([root, detail])
    }

    private func makeOverview() -> OverviewScreen {
        let screen = OverviewScreen(monitor: monitor)
        screen.delegate = self
        return screen
    }

    private func makeDetail(for route: Route) -> ClusterScreen? {
        let screen: ClusterScreen
        if let node = NodeScreen.route.argument(of: route) {
            screen = NodeScreen(monitor: monitor, node: node)
        } else if let app = AppScreen.route.argument(of: route) {
            screen = AppScreen(monitor: monitor, app: app)
        } else {
            return nil
        }
        screen.delegate = self
        return screen
    }
}
