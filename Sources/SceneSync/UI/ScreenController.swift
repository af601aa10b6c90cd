/// One screen of a window: the server-side counterpart of a `UIViewController`.
///
/// A screen describes its content as ``ViewNode``s, follows the model controllers it shows, and
/// turns their events into precise ``Patch``es, the way a table view controller calls `insertRows`
/// rather than `reloadData`. It never changes its own view in answer to the user: ``handle(_:)``
/// sends an intent, and the view changes when the event comes back. It never pushes another
/// screen either: it tells its coordinator what the user wants.
///
/// Subclasses override ``load()``, ``makeContent()`` and ``handle(_:)``.
@MainActor
open class ScreenController {
    /// Where this screen is in the app's navigation.
    public let route: Route
    /// The window showing the screen, while it is in a navigation stack.
    public internal(set) weak var window: SceneWindow?
    /// The navigation stack the screen is in.
    public internal(set) weak var navigation: NavigationController?
    /// The title shown in the navigation bar.
    public private(set) var title: String
    /// The bar buttons shown in the navigation bar.
    public private(set) var barButtons: [ViewNode] = []
    var isLoaded = false
    /// The last sequence number the screen applied, per app, for the window to note when the
    /// screen joins it after loading.
    var appliedSequences: [String: UInt64] = [:]
    private var tasks: [Task<Void, Never>] = []

    /// Creates a screen for `route`.
    public init(route: Route, title: String) {
        self.route = route
        self.title = title
    }

    deinit {
        for task in tasks { task.cancel() }
    }

    /// Loads what the screen shows (a model's snapshot) and starts following its events; called
    /// once, before the screen is first drawn.
    open func load() async {}

    /// The screen's content: the children of its ``ViewNode/Kind/screen`` node.
    open func makeContent() -> [ViewNode] { [] }

    /// Handles what the user did to one of the screen's nodes.
    ///
    /// - Throws: ``ScreenError`` for an action the screen does not know; the window reports it.
    open func handle(_ action: UserAction) async throws {
        throw ScreenError.unknownAction(node: action.node, name: action.name)
    }

    /// The screen is about to leave its navigation stack for good.
    open func willBeRemoved() {}

    /// Whether the screen is the one its window shows now.
    public var isVisible: Bool {
        window?.visibleScreen === self
    }

    /// Sends patches to the window if the screen is visible; a hidden screen is drawn afresh
    /// when it shows again.
    public func update(_ patches: [Patch]) {
        guard isVisible, !patches.isEmpty else { return }
        window?.send(patches)
    }

    /// Changes the navigation bar's title.
    public func setTitle(_ title: String) {
        self.title = title
        guard isVisible else { return }
        window?.send([.set(id: SceneWindow.NodeID.navigationBar, props: ["title": .string(title)])])
    }

    /// Changes the navigation bar's buttons.
    public func setBarButtons(_ buttons: [ViewNode]) {
        barButtons = buttons
        guard isVisible, let window else { return }
        window.send([.replace(id: SceneWindow.NodeID.navigationBar, node: window.makeNavigationBar(), transition: nil)])
    }

    /// Follows a model controller's events after `snapshot` (the sequence number of the snapshot
    /// the screen was loaded from), calling `handler` on the main actor for each, until the screen
    /// leaves its stack or its scene disconnects. If the log can no longer catch the screen up
    /// (it fell too far behind), `reload` is called with a fresh snapshot's sequence number and the
    /// window is drawn afresh.
    public func follow<State: ModelState>(
        _ controller: ModelController<State>,
        from snapshot: UInt64,
        reload: (@MainActor () async -> UInt64)? = nil,
        _ handler: @escaping @MainActor (EventEnvelope<State.Event>) -> Void
    ) {
        let app = controller.app
        noteApplied(snapshot, for: app)
        tasks.append(Task { @MainActor [weak self] in
            do {
                for try await envelope in controller.events(after: snapshot) {
                    guard let self else { return }
                    self.noteApplied(envelope.sequence, for: app)
                    handler(envelope)
                }
            } catch {
                guard let self, !Task.isCancelled, let reload else { return }
                let fresh = await reload()
                self.follow(controller, from: fresh, reload: reload, handler)
                self.window?.redraw()
            }
        })
    }

    /// Runs `operation` for as long as the screen is in its stack.
    public func task(_ operation: @escaping @MainActor () async -> Void) {
        tasks.append(Task { @MainActor in await operation() })
    }

    /// The unsaved text the user typed into `field` on this screen, if any.
    public func draft(for field: String) -> String? {
        window?.scene?.drafts.value(for: draftKey(field), as: String.self)
    }

    /// Forgets the unsaved text of `field`.
    public func clearDraft(for field: String) async {
        try? await window?.scene?.drafts.remove(draftKey(field))
    }

    private func noteApplied(_ sequence: UInt64, for app: String) {
        appliedSequences[app] = max(appliedSequences[app] ?? 0, sequence)
        window?.noteSequence(sequence, for: app)
    }

    func draftKey(_ field: String) -> String { "\(route)#\(field)" }

    func stop() {
        willBeRemoved()
        for task in tasks { task.cancel() }
        tasks = []
    }

    func makeNode() -> ViewNode {
        ViewNode(id: SceneWindow.NodeID.screen, kind: .screen, props: ["route": .string(route.description)], children: makeContent())
    }
}

/// An action a screen refused.
public enum ScreenError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The screen has no such node, or the node has no such action.
    case unknownAction(node: String, name: String)
    /// The action's value is missing or of the wrong type.
    case invalidValue(node: String, name: String)

    public var description: String {
        switch self {
        case let .unknownAction(node, name): "Nothing here answers \(name.debugDescription) on \(node.debugDescription)."
        case let .invalidValue(node, name): "The value sent with \(name.debugDescription) on \(node.debugDescription) is not valid."
        }
    }
}
