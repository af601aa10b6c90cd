public import Logging
public import SceneSync
public import SceneSyncUI

/// A headless host for an `Application`: it opens, hides, shows, reloads and closes windows the
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
    /// foreground and active, as a newly shown browser window. Windows opened with the same
    /// `device` are windows of one browser profile.
    public func openWindow(
        session: SceneSession.ID? = nil, activity: SceneActivity? = nil, client: String? = nil, device: String? = nil
    ) async throws -> HostedWindow {
        let scene = try await application.connect(
            session: session, options: ConnectionOptions(activity: activity, device: device), client: client)
        let window = HostedWindow(scene: scene, device: device)
        scene.window?.attach(window)
        try await application.move(scene, to: .foregroundActive)
        if scene.window != nil {
            try await waitUntil("the window's first render") { window.view != nil }
        }
        return window
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
        scene.window?.detach()
        await application.disconnect(scene)
        window.scene = nil
    }

    /// The window was reloaded: it disconnects and connects again with the same session.
    public func reload(_ window: HostedWindow) async throws {
        await disconnect(window)
        let scene = try await application.connect(session: window.sessionID, options: ConnectionOptions(device: window.device))
        window.scene = scene
        window.resetView()
        scene.window?.attach(window)
        try await application.move(scene, to: .foregroundActive)
        if scene.window != nil {
            try await waitUntil("the reloaded window's render") { window.view != nil }
        }
    }

    /// The window's connection came back after it was lost, with the window still showing what it
    /// showed: it reconnects with its session, sequence numbers and route, as a browser that kept
    /// its page does, and is patched up to date rather than redrawn when the server can.
    public func resume(_ window: HostedWindow) async throws {
        await disconnect(window)
        let scene = try await application.connect(session: window.sessionID, options: ConnectionOptions(device: window.device))
        window.scene = scene
        let received = window.messages.count
        scene.window?.attach(window, resumingFrom: window.sequences, route: window.route)
        try await application.move(scene, to: .foregroundActive)
        if scene.window != nil {
            try await waitUntil("the resumed window's first message") { window.messages.count > received }
        }
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
        try await SceneSyncTesting.waitUntil(what(), timeout: timeout, condition)
    }

    /// Sends the action `name` on `node` to the window, as a click or a keystroke in the browser would.
    ///
    /// - Throws: what the window's screen throws for it.
    public func perform(_ name: ActionName, on node: String, value: ViewValue? = nil, in window: HostedWindow) async throws {
        let scene = try window.connectedScene()
        guard let sceneWindow = scene.window else { throw ApplicationError.notConnected(window.sessionID) }
        window.actionCount += 1
        let action = UserAction(ref: window.actionCount, node: node, name: name, value: value)
        // As the server does: once per action, its intents committed with it, and the window's
        // place saved before it returns.
        _ = try await application.carryOut(SceneActionID(session: scene.session.id, ref: action.ref), in: scene, resent: false) {
            try await sceneWindow.handle(action)
        }
    }

    /// Taps a button or bar button.
    public func tap(_ node: String, in window: HostedWindow) async throws {
        try await perform(.tap, on: node, in: window)
    }

    /// Types `text` into a field and commits it, as leaving the field does.
    public func type(_ text: String, into field: String, in window: HostedWindow) async throws {
        try await perform(.draft, on: field, value: .string(text), in: window)
        try await perform(.commit, on: field, value: .string(text), in: window)
    }

    /// Goes back one screen.
    public func back(in window: HostedWindow) async throws {
        try await perform(.back, on: SceneWindow.NodeID.navigationBar, in: window)
    }

    /// The process is going away: every scene disconnects, saving its restoration activity.
    public func terminate() async {
        await application.terminate()
    }
}

/// One window of a ``SceneHost``: it receives what the server would send a browser and keeps the
/// window's view as a `ViewTree`, so a test reads what the user would see.
@MainActor
public final class HostedWindow: WindowOutlet {
    /// The window's session id, kept across reloads.
    public private(set) var sessionID: SceneSession.ID
    /// The window's scene while connected.
    public internal(set) var scene: Scene? {
        didSet { if let scene { sessionID = scene.session.id } }
    }
    /// What the window shows: `nil` before its first render.
    public private(set) var view: ViewTree?
    /// Every update the window received, in order.
    public private(set) var messages: [WindowUpdate] = []
    /// Activities the window asked to open in new windows.
    public private(set) var openRequests: [SceneActivity] = []
    /// The sequence numbers the window has seen, per app.
    public private(set) var sequences: [String: UInt64] = [:]
    /// The route of the last render.
    public private(set) var route: String?
    /// Patches that did not fit the view: a window out of step. Empty in a correct run.
    public private(set) var patchFailures: [ViewTreeError] = []
    /// The browser profile the window is in, if it was opened with one.
    public let device: String?
    var actionCount = 0

    init(scene: Scene, device: String? = nil) {
        self.scene = scene
        self.device = device
        self.sessionID = scene.session.id
    }

    /// The scene's delegate, cast to the app's type.
    public func delegate<Delegate: SceneDelegate>(as type: Delegate.Type) -> Delegate? {
        scene?.delegate as? Delegate
    }

    /// The node with `id`, if the window shows it.
    public func node(_ id: String) -> ViewNode? { view?.node(id) }

    /// The string property `prop` of node `id`.
    public func text(_ id: String, _ prop: String) -> String? { node(id)?.props[prop]?.string }

    /// The string property `property` of node `id`: `window.text(ItemsScreen.NodeID.row(key), .detail)`.
    public func text(_ id: String, _ property: ViewNode.Property) -> String? { node(id)?[property]?.string }

    /// The titles of the rows the window shows, in order.
    public var rowTitles: [String] { view?.nodes(of: .row).compactMap { $0[.title]?.string } ?? [] }

    /// The navigation bar's title.
    public var title: String? { text(SceneWindow.NodeID.navigationBar, "title") }

    /// The messages of the notices the window shows.
    public var noticeTexts: [String] {
        node(SceneWindow.NodeID.overlay)?.children.filter { $0.kind == .notice }.compactMap { $0[.message]?.string } ?? []
    }

    public func send(_ message: WindowUpdate) {
        messages.append(message)
        switch message {
        case let .render(root, seq, route):
            view = ViewTree(root)
            sequences = seq
            self.route = route
        case let .patch(ops, seq):
            do { try view?.apply(ops) } catch { patchFailures.append(error) }
            sequences = seq
        case let .resumed(seq):
            sequences = seq
        }
    }

    public func openWindow(with activity: SceneActivity) {
        openRequests.append(activity)
    }

    func resetView() {
        view = nil
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

    /// A timeout waiting for `waitingFor`.
    public init(waitingFor: String) {
        self.waitingFor = waitingFor
    }
    public var description: String { "Timed out waiting for \(waitingFor)." }
}
