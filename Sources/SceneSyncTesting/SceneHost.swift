public import Logging
public import SceneSync

/// A headless host for an ``Application``: it opens, hides, shows, reloads and closes windows the
/// way a browser does, without one, so that tests can drive scenes directly.
///
/// ```swift
/// let host = try await SceneHost.launch(delegate: AppDelegate(store: store), storage: storage)
/// let window = try await host.openWindow()
/// try await host.hide(window)     // didEnterBackground; restoration activity saved
/// try await host.reload(window)   // disconnect, then connect the same session again
/// ```
@MainActor
public final class SceneHost {
    /// The hosted application.
    public let application: Application

    /// Hosts an application that has already launched.
    public init(application: Application) {
        self.application = application
    }

    /// Creates, launches and hosts an application.
    public static func launch(
        delegate: any ApplicationDelegate,
        storage: any SceneSyncStorage,
        options: Application.Options = .init(),
        logger: Logger = Logger(label: "scenesync.host")
    ) async throws -> SceneHost {
        let application = Application(delegate: delegate, storage: storage, options: options, logger: logger)
        try await application.launch()
        return SceneHost(application: application)
    }

    /// Opens a window: connects a scene (restoring `session` if given) and brings it to the
    /// foreground and active, as a newly shown browser window.
    public func openWindow(session: SceneSession.ID? = nil, activity: SceneActivity? = nil) async throws -> HostedWindow {
        let scene = try await application.connect(session: session, options: ConnectionOptions(activity: activity))
        try await application.move(scene, to: .foregroundActive)
        return HostedWindow(scene: scene)
    }

    /// The window's tab was hidden: the scene goes to the background.
    public func hide(_ window: HostedWindow) async throws {
        try await application.move(try window.connectedScene(), to: .background)
    }

    /// The window's tab was shown again.
    public func show(_ window: HostedWindow) async throws {
        try await application.move(try window.connectedScene(), to: .foregroundActive)
    }

    /// The window's connection dropped: the scene disconnects, its session stays.
    public func disconnect(_ window: HostedWindow) async {
        guard let scene = window.scene else { return }
        await application.disconnect(scene)
        window.scene = nil
    }

    /// The window was reloaded: it disconnects and connects again with the same session.
    public func reload(_ window: HostedWindow) async throws {
        await disconnect(window)
        let scene = try await application.connect(session: window.sessionID)
        try await application.move(scene, to: .foregroundActive)
        window.scene = scene
    }

    /// The window was closed for good: its session is discarded.
    public func close(_ window: HostedWindow) async throws {
        window.scene = nil
        try await application.discard([window.sessionID])
    }

    /// Waits until `condition` holds, checking it on the main actor between other work, such as
    /// a window applying the events it was sent.
    ///
    /// - Throws: ``HostTimeout`` if it does not hold within `timeout`.
    public func waitUntil(
        timeout: Duration = .seconds(30),
        _ what: @autoclosure () -> String = "a condition",
        _ condition: () -> Bool
    ) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !condition() {
            guard clock.now < deadline else { throw HostTimeout(waitingFor: what()) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The process is going away: every scene disconnects, saving its restoration activity.
    public func terminate() async {
        await application.disconnectAll()
    }
}

/// One window of a ``SceneHost``.
@MainActor
public final class HostedWindow {
    /// The window's session id, kept across reloads.
    public private(set) var sessionID: SceneSession.ID
    /// The window's scene while connected.
    public internal(set) var scene: Scene? {
        didSet { if let scene { sessionID = scene.session.id } }
    }

    init(scene: Scene) {
        self.scene = scene
        self.sessionID = scene.session.id
    }

    /// The scene's delegate, cast to the app's type.
    public func delegate<Delegate: SceneDelegate>(as type: Delegate.Type) -> Delegate? {
        scene?.delegate as? Delegate
    }

    func connectedScene() throws -> Scene {
        guard let scene else { throw ApplicationError.notConnected(sessionID) }
        return scene
    }
}

/// A condition a ``SceneHost`` waited for did not come true in time.
public struct HostTimeout: Error, CustomStringConvertible {
    /// What was waited for.
    public let waitingFor: String
    public var description: String { "Timed out waiting for \(waitingFor)." }
}
