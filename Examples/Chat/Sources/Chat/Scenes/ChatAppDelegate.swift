public import Logging
public import SceneSync

/// Chat's application delegate: opens the one ``ChatController`` at launch and gives every window
/// a ``ChatSceneDelegate`` sharing it.
@MainActor
public final class ChatAppDelegate: ApplicationDelegate {
    /// The chat, open after launch.
    public private(set) var chat: ChatController?
    private let logger: Logger

    /// Creates the delegate.
    public init(logger: Logger) {
        self.logger = logger
    }

    public func applicationDidFinishLaunching(_ application: Application) async throws {
        chat = try await ChatController(storage: application.storage, logger: logger)
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
