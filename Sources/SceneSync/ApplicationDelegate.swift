/// The process lifecycle, as `UIApplicationDelegate`: one-time setup, choosing how each connecting
/// scene is configured, and hearing about sessions that were discarded.
@MainActor
public protocol ApplicationDelegate: AnyObject {
    /// One-time, non-UI setup, such as opening model controllers. Called once by
    /// ``Application/launch()``, before any scene connects.
    func applicationDidFinishLaunching(_ application: Application) async throws

    /// Chooses the configuration for a connecting session, from its role and the activity it is
    /// opened with. Called on every connection; a session that was configured before carries its
    /// ``SceneSession/configurationName``, and should get the configuration of that name again.
    func application(
        _ application: Application,
        configurationForConnecting session: SceneSession,
        options: ConnectionOptions
    ) -> SceneConfiguration

    /// Sessions were discarded: their windows were closed for good, now or while the application
    /// was not running. Their per-scene drafts are already deleted; delete anything else that
    /// belonged to those windows alone.
    func application(_ application: Application, didDiscardSceneSessions sessions: [SceneSession]) async
}

extension ApplicationDelegate {
    public func applicationDidFinishLaunching(_ application: Application) async throws {}
    public func application(_ application: Application, didDiscardSceneSessions sessions: [SceneSession]) async {}
}
