import Foundation
public import SceneSync
public import SceneSyncUI

/// One LootLogger window: it creates the window and hands it to a ``LootLoggerCoordinator``, which
/// owns navigation. Its restoration activity is the navigation path and whether the list is in edit
/// mode; typed-but-unsaved text is kept in the scene's drafts.
@MainActor
public final class LootLoggerSceneDelegate: SceneDelegate {
    /// The restoration payload.
    public struct WindowState: Codable, Equatable, Sendable {
        /// The window's navigation.
        public var navigation: NavigationState
        /// Whether the item list is in edit mode; `nil` (saved before edit mode was kept) is off.
        public var editing: Bool?
    }

    /// The activity type LootLogger windows save.
    public static let activityType = "com.scenesync.lootlogger.window"
    /// The activity type for "Open in New Window" on an item.
    public static let itemActivityType = "com.scenesync.lootlogger.item"

    /// The shared store.
    public let store: ItemStore
    /// The coordinator that owns this window's navigation.
    public private(set) var coordinator: LootLoggerCoordinator?

    /// Creates the delegate.
    public init(store: ItemStore) {
        self.store = store
    }

    public func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions) {
        let window = SceneWindow(scene: scene, title: "LootLogger")
        let coordinator = LootLoggerCoordinator(store: store, window: window)
        self.coordinator = coordinator
        let restored = session.stateRestorationActivity.flatMap { activity -> WindowState? in
            guard activity.type == Self.activityType else { return nil }
            return try? activity.decodePayload(as: WindowState.self)
        }
        let opened = options.activity.flatMap { activity -> UUID? in
            guard activity.type == Self.itemActivityType else { return nil }
            return try? activity.decodePayload(as: UUID.self)
        }
        scene.task {
            if let opened {
                await coordinator.start(showing: opened)
            } else {
                await coordinator.start(restoring: restored?.navigation, editing: restored?.editing ?? false)
            }
        }
    }

    public func stateRestorationActivity(for scene: Scene) -> SceneActivity? {
        guard let navigation = scene.window?.navigationState else { return nil }
        return try? SceneActivity(type: Self.activityType, title: scene.window?.visibleScreen?.title,
                                  payload: WindowState(navigation: navigation, editing: coordinator?.itemsScreen?.isEditing == true))
    }
}
