import Foundation
public import SceneSync
public import SceneSyncUI

/// One Restaurant window: it creates the window, hands it to a ``RestaurantCoordinator``, which
/// owns navigation, an ``OrderBadgeController``, which keeps the Order tab's badge, and a
/// ``ReadyNoticeController``, which tells the window when an order is ready. Its restoration
/// activity is the selected tab and each tab's navigation path.
@MainActor
public final class RestaurantSceneDelegate: SceneDelegate {
    /// The restoration payload.
    public struct WindowState: Codable, Equatable, Sendable {
        /// The window's tabs and navigation paths.
        public var navigation: NavigationState
    }

    /// The activity type Restaurant windows save.
    public static let activityType = "com.scenesync.restaurant.window"

    /// The shared restaurant.
    public let restaurant: RestaurantController
    /// The coordinator that owns this window's navigation.
    public private(set) var coordinator: RestaurantCoordinator?
    /// What keeps the Order tab's badge, while the scene is connected.
    public private(set) var badge: OrderBadgeController?
    /// What tells the window that an order is ready, while the scene is connected.
    public private(set) var readyNotices: ReadyNoticeController?
    private let pictures: DishPictures

    /// Creates the delegate.
    public init(restaurant: RestaurantController, pictures: DishPictures) {
        self.restaurant = restaurant
        self.pictures = pictures
    }

    public func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions) {
        let window = SceneWindow(scene: scene, title: "Restaurant")
        let coordinator = RestaurantCoordinator(restaurant: restaurant, pictures: pictures, window: window)
        self.coordinator = coordinator
        let badge = OrderBadgeController(window: window, tab: RestaurantCoordinator.TabID.order)
        self.badge = badge
        let readyNotices = ReadyNoticeController(window: window)
        self.readyNotices = readyNotices
        let restored = session.stateRestorationActivity.flatMap { activity -> NavigationState? in
            guard activity.type == Self.activityType else { return nil }
            return try? activity.decodePayload(as: WindowState.self).navigation
        }
        let restaurant = restaurant
        scene.task {
            // Orders ready from now on are news to this window; those ready before are not.
            let connectedAt = await restaurant.snapshot().sequence
            await coordinator.start(restoring: restored)
            // After the tabs exist, so that the first count has a badge to set.
            badge.start(following: restaurant)
            readyNotices.start(following: restaurant, after: connectedAt)
        }
    }

    public func sceneDidDisconnect(_ scene: Scene) {
        badge?.stop()
        badge = nil
        readyNotices?.stop()
        readyNotices = nil
        coordinator = nil
    }

    public func stateRestorationActivity(for scene: Scene) -> SceneActivity? {
        guard let navigation = scene.window?.navigationState else { return nil }
        return try? SceneActivity(type: Self.activityType, title: scene.window?.visibleScreen?.title,
                                  payload: WindowState(navigation: navigation))
    }
}
