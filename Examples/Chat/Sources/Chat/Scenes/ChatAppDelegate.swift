public import Logging
public import SceneSync

/// Chat's application delegate: opens the one ``ChatController`` at launch and gives every window
/// a ``ChatSceneDelegate`` sharing it.
@MainActor
public final class ChatAppDelegate: ApplicationDelegate {
    /// The chat, open after launch.
    public private(set) var chat: ChatController?
    /// The bounds the chat opens with.
    public let settings: ChatSettings
    private let logger: Logger

    /// Creates the delegate; the chat opens with `settings`.
    public init(settings: ChatSettings = .init(), logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    public func applicationDidFinishLaunching(_ application: Application) async throws {
        chat = try await ChatController(storage: application.storage, settings: settings, logger: logger)
    }

    public func application(
        _ application: Application,
        configurationForConnecting session: SceneSession,
        options: ConnectionOptions
    ) -> SceneConfiguration {
        guard let chat else { preconditionFailure("Scenes connect only after applicationDidFinishLaunching opened the chat") }
        return SceneConfiguration(name: "Main") { ChatSceneDelegate(chat: chat) }
    }
}
