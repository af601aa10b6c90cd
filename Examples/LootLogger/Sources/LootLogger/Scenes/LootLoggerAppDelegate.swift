public import Logging
public import SceneSync

/// LootLogger's application delegate: opens the one item store at launch and gives every window
/// a ``LootLoggerSceneDelegate`` sharing it.
@MainActor
public final class LootLoggerAppDelegate: ApplicationDelegate {
    /// The shared item store, open after launch.
    public private(set) var store: ItemStore?
    /// Sessions reported discarded, in the order they were reported.
    public private(set) var discardedSessions: [SceneSession.ID] = []
    private let logger: Logger

    /// Creates the delegate.
    public init(logger: Logger) {
        self.logger = logger
    }

    public func applicationDidFinishLaunching(_ application: Application) async throws {
        store = try await ItemStore(storage: application.storage, logger: logger)
    }

    public func application(
        _ application: Application,
        configurationForConnecting session: SceneSession,
        options: ConnectionOptions
    ) -> SceneConfiguration {
        guard let store else { preconditionFailure("Scenes connect only after applicationDidFinishLaunching opened the store") }
        return SceneConfiguration(name: "Main") {
            LootLoggerSceneDelegate(store: store)
        }
    }

    public func application(_ application: Application, didDiscardSceneSessions sessions: [SceneSession]) async {
        discardedSessions += sessions.map(\.id)
    }
}
