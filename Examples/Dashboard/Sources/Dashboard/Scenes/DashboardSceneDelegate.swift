import Foundation
public import SceneSync
public import SceneSyncUI

/// One dashboard window: it creates the window and hands it to a ``DashboardCoordinator``. Its
/// restoration activity is its navigation path, so a reloaded window shows the same node or app.
@MainActor
public final class DashboardSceneDelegate: SceneDelegate {
    /// The restoration payload.
    public struct WindowState: Codable, Equatable, Sendable {
        /// The window's navigation path.
        public var navigation: NavigationState
    }

    /// The activity type dashboard windows save.
    public static let activityType = "com.scenesync.dashboard.window"

    /// The reports the window shows.
    public let monitor: ClusterMonitor
    /// The coordinator that owns this window's navigation.
    public private(set) var coordinator: DashboardCoordinator?

    /// Creates the delegate.
    public init(monitor: ClusterMonitor) {
        self.monitor = monitor
    }

    public func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions) {
        let window = SceneWindow(scene: scene, title: "Dashboard")
        let coordinator = DashboardCoordinator(monitor: monitor, window: window)
        self.coordinator = coordinator
        let restored = session.stateRestorationActivity.flatMap { activity -> NavigationState? in
            guard activity.type == Self.activityType else { return nil }
            return try? activity.decodePayload(as: WindowState.self).navigation
        }
        scene.task { await coordinator.start(restoring: restored) }
    }

    public func sceneDidDisconnect(_ scene: Scene) {
        coordinator = nil
    }

    public func stateRestorationActivity(for scene: Scene) -> SceneActivity? {
        guard let navigation = scene.window?.navigationState else { return nil }
        return try? SceneActivity(type: Self.activityType, title: scene.window?.visibleScreen?.title,
                                  payload: WindowState(navigation: navigation))
    }
}
