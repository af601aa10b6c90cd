/// One connected window, as `UIScene`: its session, its delegate, its lifecycle state, and the
/// tasks that feed its UI.
///
/// ``Application`` creates scenes and moves them through their lifecycle. When a scene
/// disconnects, its delegate and every task started with ``observe(_:_:)`` are released; its
/// session and drafts stay.
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
    /// The scene's window, set by its delegate when it connects.
    public internal(set) var window: SceneWindow?

    var lifecycle = SceneLifecycle()
    /// The last lifecycle change started for this scene; the next one waits for it (see
    /// ``Application``'s `inTurn`).
    var lifecycleTurn: Task<Void, Never>?
    private var tasks: [Task<Void, Never>] = []

    /// The scene's current lifecycle state.
    public var activationState: SceneLifecycle.State { lifecycle.state }

    init(session: SceneSession, connectionOptions: ConnectionOptions, drafts: SceneDrafts) {
        self.session = session
        self.connectionOptions = connectionOptions
        self.drafts = drafts
    }

    deinit {
        for task in tasks { task.cancel() }
    }

    /// Delivers every element of `sequence` to `handler` on the main actor until the scene
    /// disconnects. Capture the scene's objects weakly in `handler`.
    ///
    /// ```swift
    /// scene.observe(store.events(after: snapshot.sequence)) { [weak self] envelope in
    ///     self?.apply(envelope)
    /// }
    /// ```
    public func observe<Events: AsyncSequence & Sendable>(
        _ sequence: Events,
        _ handler: @escaping @MainActor (Events.Element) -> Void,
        onError: (@MainActor (any Error) -> Void)? = nil
    ) where Events.Element: Sendable {
        guard activationState != .disconnected else { return }
        tasks.append(Task { @MainActor in
            do {
                for try await element in sequence {
                    handler(element)
                }
            } catch {
                if !Task.isCancelled { onError?(error) }
            }
        })
    }

    /// Runs `operation` on the main actor as part of the scene: it is cancelled when the scene
    /// disconnects. For set-up work that must wait, such as reading a model's snapshot.
    public func task(_ operation: @escaping @MainActor () async -> Void) {
        guard activationState != .disconnected else { return }
        tasks.removeAll { $0.isCancelled }
        tasks.append(Task { @MainActor in await operation() })
    }

    /// Number of tasks the scene holds; zero after disconnection.
    public var taskCount: Int { tasks.count }

    func releaseUI() {
        for task in tasks { task.cancel() }
        tasks = []
        window?.tearDown()
        window = nil
        delegate = nil
    }
}
