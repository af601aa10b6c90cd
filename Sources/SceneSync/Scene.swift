/// One connected window, as `UIScene`: its session, its delegate, its lifecycle state, and the
/// tasks that feed its UI.
///
/// ``Application`` creates scenes and moves them through their lifecycle. When a scene
/// disconnects, its delegate, its user interface and every task started with ``task(_:)`` are
/// released; its session and drafts stay.
@MainActor
public final class Scene {
    /// The scene's persistent session.
    public internal(set) var session: SceneSession
    /// The scene's delegate, made from its configuration; `nil` once disconnected.
    public internal(set) var delegate: (any SceneDelegate)?
    /// The options the scene connected with.
    public let connectionOptions: ConnectionOptions
    /// This window's own drafts.
    public let drafts: SceneDrafts
    /// The window's title, for the window's host to show.
    public var title: String?
    /// What draws the scene, such as the UI layer's window; set by the scene's delegate when it
    /// connects, released when the scene disconnects.
    public var userInterface: (any SceneUserInterface)?

    /// Set by the application: saves the restoration activity soon.
    var restorationActivityChanged: (@MainActor (Scene) -> Void)?
    var lifecycle = SceneLifecycle()
    /// The last lifecycle change started for this scene; the next one waits for it (see
    /// ``Application``'s `inTurn`).
    var lifecycleTurn: Task<Void, Never>?
    private let tasks = OwnedTasks()

    /// The scene's current lifecycle state.
    public var activationState: SceneLifecycle.State { lifecycle.state }

    init(session: SceneSession, connectionOptions: ConnectionOptions, drafts: SceneDrafts) {
        self.session = session
        self.connectionOptions = connectionOptions
        self.drafts = drafts
    }

    /// Runs `operation` on the main actor as part of the scene: it is cancelled when the scene
    /// disconnects. For set-up work that must wait, such as reading a model's snapshot.
    public func task(_ operation: @escaping @MainActor () async -> Void) {
        guard activationState != .disconnected else { return }
        tasks.start(operation)
    }

    /// Says that what the scene's restoration activity holds has changed, such as the window's
    /// navigation: the application asks the delegate for the activity and saves it shortly, with
    /// any other change made meanwhile. Without this the activity is saved when the scene goes to
    /// the background or disconnects, which a crash of the process skips.
    public func restorationActivityDidChange() {
        guard activationState != .disconnected else { return }
        restorationActivityChanged?(self)
    }

    /// How many of the tasks started with ``task(_:)`` are still running; zero after disconnection.
    public var taskCount: Int { tasks.count }

    func releaseUI() {
        restorationActivityChanged = nil
        tasks.cancelAll()
        userInterface?.sceneDidReleaseUserInterface()
        userInterface = nil
        delegate = nil
    }
}

/// What draws a scene: the core tells it about the lifecycle moments that concern drawing, without
/// knowing how (or where) the scene is drawn. `SceneSyncUI`'s `SceneWindow` is one.
@MainActor
public protocol SceneUserInterface: AnyObject {
    /// The scene is coming back to the foreground: show what changed while it was hidden.
    func sceneWillEnterForeground()
    /// The scene is about to disconnect: keep whatever lets its window come back without a redraw.
    func sceneWillDisconnect() async
    /// The scene disconnected: stop every task and let go of the screens.
    func sceneDidReleaseUserInterface()
}
