import Foundation
public import SceneSync
public import SceneSyncUI

/// One Chat window: it creates the window and hands it to a ``ChatCoordinator``. The window acts
/// for whoever its device (the browser profile; without one, the window itself) is signed in as.
/// Its restoration activity is its navigation path; its unsent text is in its drafts.
@MainActor
public final class ChatSceneDelegate: SceneDelegate {
    /// The restoration payload.
    public struct WindowState: Codable, Equatable, Sendable {
        /// The window's navigation path.
        public var navigation: NavigationState
    }

    /// The activity type Chat windows save.
    public static let activityType = "com.scenesync.chat.window"
    /// The activity that opens a conversation in a new window; its payload is the conversation's key.
    public static let conversationActivityType = "com.scenesync.chat.conversation"

    /// The shared chat.
    public let chat: ChatController
    /// The coordinator that owns this window's navigation.
    public private(set) var coordinator: ChatCoordinator?
    private var activation: Task<Void, Never>?

    /// Creates the delegate.
    public init(chat: ChatController) {
        self.chat = chat
    }

    public func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions) {
        let window = SceneWindow(scene: scene, title: "Chat")
        let coordinator = ChatCoordinator(chat: chat, window: window, device: options.device ?? "window-\(session.id.rawValue)",
                                      client: options.client)
        self.coordinator = coordinator
        let restored = session.stateRestorationActivity.flatMap { activity -> NavigationState? in
            guard activity.type == Self.activityType else { return nil }
            return try? activity.decodePayload(as: WindowState.self).navigation
        }
        let opened = options.activity.flatMap { activity -> UUID? in
            guard activity.type == Self.conversationActivityType else { return nil }
            return try? activity.decodePayload(as: UUID.self)
        }
        scene.task {
            if let opened {
                await coordinator.start(showing: opened)
            } else {
                await coordinator.start(restoring: restored)
            }
            await coordinator.sceneDidBecomeActive()
        }
    }

    public func sceneDidBecomeActive(_ scene: Scene) {
        guard let coordinator else { return }
        // One at a time: a window whose focus comes and goes does not pile up tasks.
        activation?.cancel()
        activation = Task { await coordinator.sceneDidBecomeActive() }
    }

    public func sceneWillResignActive(_ scene: Scene) {
        coordinator?.sceneWillResignActive()
    }

    public func sceneDidDisconnect(_ scene: Scene) {
        activation?.cancel()
        activation = nil
        coordinator = nil
    }

    public func stateRestorationActivity(for scene: Scene) -> SceneActivity? {
        guard let navigation = scene.window?.navigationState else { return nil }
        return try? SceneActivity(type: Self.activityType, title: scene.window?.visibleScreen?.title,
                                  payload: WindowState(navigation: navigation))
    }
}
