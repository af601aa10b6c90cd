public import SceneSync

/// One screen of a window: the server-side counterpart of a `UIViewController`.
///
/// A screen describes its content as ``ViewNode``s, follows the model controllers it shows, and
/// turns their events into precise ``Patch``es, the way a table view controller calls `insertRows`
/// rather than `reloadData`. What the user does reaches the handlers the screen built its nodes
/// with (`onTap:`, `onSelect:`, `onCommit:` …). A handler never changes the view itself: it sends
/// an intent, and the view changes when the event comes back. Nor does it push another screen: it
/// tells the screen's coordinator what the user wants.
///
/// Subclasses override ``load()`` and ``makeContent()``.
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
    /// The handlers of the nodes the window was last sent, by node id.
    private var actionTable: [String: NodeActions] = [:]
    private var followTasks: [Task<Void, Never>] = []
    private var tasks: [Task<Void, Never>] = []
    private var isReloading = false

    /// Creates a screen for `route`.
    public init(route: Route, title: String) {
        self.route = route
        self.title = title
    }

    deinit {
        for task in tasks + followTasks { task.cancel() }
    }

    /// Loads what the screen shows (a model's snapshot) and starts following its events with
    /// ``follow(_:from:_:)``. Called once before the screen is first drawn, and again if the
    /// screen fell so far behind a model's log that it must start over from a fresh snapshot.
    open func load() async {}

    /// The screen's content: the children of its ``ViewNode/Kind/screen`` node.
    open func makeContent() -> [ViewNode] { [] }

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
        for patch in patches { noteActions(of: patch) }
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
        for button in barButtons { actionTable[button.id] = nil }
        barButtons = buttons
        for button in buttons { register(button) }
        guard isVisible, let window else { return }
        window.send([.replace(id: SceneWindow.NodeID.navigationBar, node: window.makeNavigationBar(), transition: nil)])
    }

    /// Follows a model controller's events after `snapshot` (the sequence number of the snapshot
    /// the screen was loaded from), calling `handler` on the main actor for each, until the screen
    /// leaves its stack or its scene disconnects.
    ///
    /// If the log can no longer catch the screen up (it fell too far behind and the log was
    /// trimmed), the screen stops following, ``load()`` runs again from a fresh snapshot, and the
    /// window is drawn afresh: a screen never stops following silently.
    public func follow<State: ModelState>(
        _ controller: ModelController<State>,
        from snapshot: UInt64,
        _ handler: @escaping @MainActor (EventEnvelope<State.Event>) -> Void
    ) {
        let app = controller.app
        noteApplied(snapshot, for: app)
        followTasks.append(Task { @MainActor [weak self] in
            do {
                for try await envelope in controller.events(after: snapshot) {
                    guard let self else { return }
                    self.noteApplied(envelope.sequence, for: app)
                    handler(envelope)
                }
            } catch {
                guard !Task.isCancelled else { return }
                if case SubscriptionError.tooOld = error {} else {
                    // The log could not be read: try again shortly rather than at once.
                    try? await Task.sleep(for: .seconds(1))
                }
                await self?.reloadAfterFallingBehind()
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

    /// The scene this screen acts for, as the origin of its intents.
    public var origin: SceneSession.ID? { window?.scene?.session.id }

    // MARK: - Internal

    /// Runs the handler the node `action.node` was built with.
    ///
    /// - Throws: ``ScreenError`` if the node has no handler for the action, or the action's value
    ///   is not what the handler takes; otherwise what the handler throws.
    func perform(_ action: UserAction) async throws {
        guard let handler = actionTable[action.node]?[action.name] else {
            throw ScreenError.unknownAction(node: action.node, name: action.name.rawValue)
        }
        do {
            try await handler(action.value)
        } catch is ActionValueError {
            throw ScreenError.invalidValue(node: action.node, name: action.name.rawValue)
        }
    }

    private func reloadAfterFallingBehind() async {
        guard !isReloading, !Task.isCancelled else { return }
        isReloading = true
        defer { isReloading = false }
        for task in followTasks { task.cancel() }
        followTasks = []
        await load()
        if isVisible { window?.redraw() }
    }

    private func noteApplied(_ sequence: UInt64, for app: String) {
        appliedSequences[app] = max(appliedSequences[app] ?? 0, sequence)
        window?.noteSequence(sequence, for: app)
    }

    private func noteActions(of patch: Patch) {
        switch patch {
        case let .insert(_, _, node), let .replace(_, node, _): register(node)
        case let .remove(id): actionTable[id] = nil
        case .move, .set: break
        }
    }

    private func register(_ node: ViewNode) {
        if !node.actions.isEmpty { actionTable[node.id] = node.actions }
        for child in node.children { register(child) }
    }

    func draftKey(_ field: String) -> String { "\(route)#\(field)" }

    func stop() {
        willBeRemoved()
        for task in tasks + followTasks { task.cancel() }
        tasks = []
        followTasks = []
    }

    func makeNode() -> ViewNode {
        let content = makeContent()
        actionTable = [:]
        for button in barButtons { register(button) }
        for node in content { register(node) }
        return ViewNode(id: SceneWindow.NodeID.screen, kind: .screen, props: ["route": .string(route.description)], children: content)
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
