public import SceneSync
import Logging

/// One screen of a window: the server-side counterpart of a `UIViewController`.
///
/// A screen describes its content as ``ViewNode``s, follows the model controllers it shows, and
/// turns their events into precise ``Patch``es, the way a table view controller calls `insertRows`
/// rather than `reloadData`. What the user does reaches the handlers the screen built its nodes
/// with (`onTap:`, `.onSelect`, `.onCommit` …). A handler never changes the view itself: it sends
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
    /// screen joins it after loading: one mark per app, which the screen's followers of that
    /// app raise without looking it up.
    private var appliedMarks: [String: AppliedSequence] = [:]
    var appliedSequences: [String: UInt64] { appliedMarks.mapValues(\.sequence) }
    /// The handlers of the nodes the window was last sent, by node id.
    private var actionTable: [String: NodeActions] = [:]
    /// The ids of the pane bars with a back button in what the window was last sent.
    private var paneBarsWithBack: Set<String> = []
    /// Handlers for keyed rows: given a row's node id, the handlers for its key.
    private var rowHandlers: [@MainActor (String) -> NodeActions?] = []
    /// What each kind of keyed row answers, by the prefix of its rows' ids: enough to check a row
    /// as it is sent without reading its key from its id.
    private var keyedRowActions: [(prefix: String, names: Set<ActionName>)] = [] {
        didSet {
            // Each part with its length first, so that no two different sets read the same.
            func part(_ text: String) -> String { "\(text.utf8.count):\(text)" }
            keyedRowSignature = keyedRowActions.map { rows in
                part(rows.prefix) + "\(rows.names.count);" + rows.names.map(\.rawValue).sorted().map(part).joined()
            }.joined()
        }
    }
    /// ``keyedRowActions`` in one string: screens with the same one check rows alike.
    private var keyedRowSignature = ""
    /// The last patches that a check left as they were, and the keyed rows they were checked
    /// against. A check reads nothing else (the nodes' own handlers are in the patches), so the
    /// next screen sent the very same patches, with the same keyed rows, sends them unchecked:
    /// the thousandth window of a list costs a comparison, not a walk through the patch. It keeps
    /// that one array (and what its nodes' handlers hold) until another passes a check.
    private static var lastPassed: (patches: [Patch], rows: String)?
    /// Stops following each model the screen follows.
    private var unfollows: [@MainActor @Sendable () -> Void] = []
    private let tasks = OwnedTasks()
    /// Reloading after the screen fell behind a model's log, and whether to do it again.
    private var reloadTask: Task<Void, Never>?
    private var needsReload = false
    /// The unanswered actions already logged for this screen ("node action").
    private var reportedUnanswered: Set<String> = []

    /// Creates a screen for `route`.
    public init(route: Route, title: String) {
        self.route = route
        self.title = title
    }

    deinit {
        reloadTask?.cancel()
        let unfollows = self.unfollows
        if !unfollows.isEmpty { Task { @MainActor in for unfollow in unfollows { unfollow() } } }
    }

    /// Stops following every model the screen follows.
    private func stopFollowing() {
        for unfollow in unfollows { unfollow() }
        unfollows = []
    }

    /// Loads what the screen shows (a model's snapshot) and starts following its events with
    /// ``follow(_:from:_:)``. Called once before the screen is first drawn, and again if the
    /// screen fell so far behind a model's log that it must start over from a fresh snapshot.
    open func load() async {}

    /// The screen's content: the children of its ``ViewNode/Kind/screen`` node.
    open func makeContent() -> [ViewNode] { [] }

    /// The screen is about to leave its navigation stack for good.
    open func willBeRemoved() {}

    /// What going back from this screen would lose, such as an edit the model refused, in a
    /// sentence for the user; `nil` (the default) when nothing would be. When it is not `nil`,
    /// Back asks first, as iOS does: "Discard changes?", with Keep Editing and Discard.
    open var unsavedWork: String? { nil }

    /// The user chose Discard: forget what ``unsavedWork`` described (errors, drafts). The screen
    /// leaves its stack right after.
    open func discardUnsavedWork() async {}

    /// The title of the screen below this one in its navigation stack, for a back button; `nil`
    /// for the stack's first screen, or a screen in none.
    public var backTitle: String? {
        guard let screens = navigation?.screens, let index = screens.firstIndex(where: { $0 === self }), index > 0 else { return nil }
        return screens[index - 1].title
    }

    /// Whether `id` is a pane bar (``ViewNode/paneBar(id:title:back:buttons:)``) with a back
    /// button in what the window was last sent.
    func hasBackButton(_ id: String) -> Bool {
        paneBarsWithBack.contains(id)
    }

    /// Whether the screen is the one its window shows now: on top of the window's selected
    /// navigation stack. Its window keeps it up to date.
    public internal(set) var isVisible = false

    /// Sends patches to the window if the screen is visible; a hidden screen is drawn afresh
    /// when it shows again.
    public func update(_ patches: [Patch]) {
        guard isVisible, let window, !patches.isEmpty else { return }
        for patch in patches { noteActions(of: patch) }
        window.send(checked(patches))
    }

    /// Changes the navigation bar's title.
    public func setTitle(_ title: String) {
        self.title = title
        guard isVisible else { return }
        window?.send([.set(SceneWindow.NodeID.navigationBar, [.title: .string(title)])])
    }

    /// Changes the navigation bar's buttons.
    public func setBarButtons(_ buttons: [ViewNode]) {
        for button in barButtons { actionTable[button.id] = nil }
        for button in buttons { register(button) }
        barButtons = buttons.map(checked)
        guard isVisible, let window else { return }
        window.send([.replace(id: SceneWindow.NodeID.navigationBar, node: window.makeNavigationBar(), transition: nil)])
    }

    /// Follows a model controller's events after `snapshot` (the sequence number of the snapshot
    /// the screen was loaded from), calling `handler` on the main actor for each, until the screen
    /// leaves its stack or its scene disconnects.
    ///
    /// Every screen on this node that follows `controller` shares one subscription to it: a change
    /// is handed to the main actor once, and each screen's handler is called in turn, so a change
    /// shown in a thousand windows costs one hand-over, not a thousand.
    ///
    /// If the log can no longer catch the screen up (it fell too far behind and the log was
    /// trimmed), the screen stops following, ``load()`` runs again from a fresh snapshot, and the
    /// window is drawn afresh: a screen never stops following silently.
    public func follow<State: ModelState>(
        _ controller: ModelController<State>,
        from snapshot: UInt64,
        _ handler: @escaping @MainActor (EventEnvelope<State.Event>) -> Void
    ) {
        join(ModelFeed.shared(for: controller, startingAfter: snapshot), after: snapshot, handler)
    }

    /// Follows a model controller with its state shared by every screen on this node: the
    /// returned model's ``SharedModel/state`` is applied once per event, before `handler` is
    /// called with the event, and the screen reads it rather than keeping a copy of its own.
    /// Call it from ``load()``; the screen is in step with the state it returns.
    ///
    /// ```swift
    /// model = await follow(sharing: store.controller) { [weak self] envelope in
    ///     self?.apply(envelope.event)
    /// }
    /// ```
    ///
    /// With `only`, the screen is handed just the events it returns true for. A change reaches
    /// every screen that follows the model, in every window, and most of its cost there is
    /// getting to the screen; `only` is asked first, and an event it turns down costs the screen
    /// that one call. It must not hold the screen, and what it reads must be current without the
    /// events it turns down: values fixed when the screen loads (whose list it is), or a small
    /// object of its own that the screen keeps up to date as it draws (which rows show a badge).
    /// Whatever the screen shows that such an event changes, it reads from the shared model's
    /// ``SharedModel/state`` when it next draws. An event turned down is not noted as applied: the
    /// window's ``SceneWindow/sequences`` move on with the next event the screen is handed.
    ///
    /// ```swift
    /// let personID = person.id
    /// model = await follow(sharing: chat.controller, only: { envelope in
    ///     if case let .conversationsRead(marks) = envelope.event { return marks.contains { $0.person == personID } }
    ///     return true
    /// }) { [weak self] envelope in
    ///     self?.apply(envelope)
    /// }
    /// ```
    public func follow<State: ModelState>(
        sharing controller: ModelController<State>,
        only admits: (@MainActor (EventEnvelope<State.Event>) -> Bool)? = nil,
        _ handler: @escaping @MainActor (EventEnvelope<State.Event>) -> Void
    ) async -> SharedModel<State> {
        let feed = await ModelFeed.sharingState(of: controller)
        join(feed, after: feed.stateSequence, admits: admits, handler)
        return SharedModel(feed: feed)
    }

    /// Follows `feed`'s events after `snapshot` until the screen stops following.
    private func join<State: ModelState>(
        _ feed: ModelFeed<State>, after snapshot: UInt64, admits: (@MainActor (EventEnvelope<State.Event>) -> Bool)? = nil,
        _ handler: @escaping @MainActor (EventEnvelope<State.Event>) -> Void
    ) {
        let app = feed.controller.app
        let mark = appliedMarks[app] ?? AppliedSequence()
        appliedMarks[app] = mark
        noteApplied(snapshot, for: app, in: mark)
        let follower = feed.add(after: snapshot, admits: admits, handler: { [weak self] envelope in
            guard let self else { return }
            self.noteApplied(envelope.sequence, for: app, in: mark)
            handler(envelope)
        }, fellBehind: { [weak self] in
            self?.reloadAfterFallingBehind()
        })
        unfollows.append { feed.remove(follower) }
    }

    /// Handles every row of `rows` at once, given the row's key: selection, deletion and moves in
    /// edit mode, and the row actions named in `actions` (build the rows with the same names in
    /// ``ViewNode/rowActions(_:)``).
    ///
    /// With `isShown`, a row the screen does not show answers nothing, as a node that is not
    /// there; without it, a handler may be given the key of a row the screen no longer shows (a
    /// window out of step, or a hostile one), and the model controller's validation answers it.
    public func handleRows<Key>(
        _ rows: KeyedRows<Key>,
        shown isShown: (@MainActor @Sendable (Key) -> Bool)? = nil,
        onSelect: (@MainActor @Sendable (Key) async throws -> Void)? = nil,
        onDelete: (@MainActor @Sendable (Key) async throws -> Void)? = nil,
        onMove: (@MainActor @Sendable (Key, Int) async throws -> Void)? = nil,
        actions: [ActionName: @MainActor @Sendable (Key) async throws -> Void] = [:]
    ) {
        var names = Set(actions.keys)
        if onSelect != nil { names.insert(.select) }
        if onDelete != nil { names.insert(.delete) }
        if onMove != nil { names.insert(.move) }
        keyedRowActions.append((rows.prefix, names))
        rowHandlers.append { id in
            guard let key = rows.key(of: id), isShown?(key) ?? true else { return nil }
            var handlers = NodeActions()
            if let onSelect { handlers.on(.select) { try await onSelect(key) } }
            if let onDelete { handlers.on(.delete) { try await onDelete(key) } }
            if let onMove { handlers.on(.move, index: { index in try await onMove(key, index) }) }
            for (name, handler) in actions { handlers.on(name) { try await handler(key) } }
            return handlers
        }
    }

    /// Runs `operation` for as long as the screen is in its stack.
    public func task(_ operation: @escaping @MainActor () async -> Void) {
        tasks.start(operation)
    }

    /// The unsaved text the user typed into `field` on this screen, if any.
    public func draft(for field: String) -> String? {
        window?.scene?.drafts.value(for: draftKey(field), as: String.self)
    }

    /// Keeps `text` as the unsaved text of `field`, or forgets it when `text` is empty.
    ///
    /// - Throws: `SceneDraftError`, or what the storage throws.
    public func setDraft(_ text: String, for field: String) async throws {
        guard let drafts = window?.scene?.drafts else { return }
        if text.isEmpty { try await drafts.remove(draftKey(field)) } else { try await drafts.set(text, for: draftKey(field)) }
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
        guard let handler = actions(for: action.node)?[action.name] else {
            throw ScreenError.unknownAction(node: action.node, name: action.name.rawValue)
        }
        do {
            try await handler(action.value)
        } catch is ActionValueError {
            throw ScreenError.invalidValue(node: action.node, name: action.name.rawValue)
        }
    }

    /// Starts over from a fresh snapshot, in a task of its own (the follow task that asks is
    /// cancelled with the others); a request that comes while a reload runs makes it run again.
    private func reloadAfterFallingBehind() {
        needsReload = true
        guard reloadTask == nil else { return }
        reloadTask = Task { @MainActor [weak self] in
            while let screen = self, screen.needsReload, !Task.isCancelled {
                screen.needsReload = false
                screen.stopFollowing()
                await screen.load()
                if screen.isVisible { screen.window?.redraw() }
            }
            self?.reloadTask = nil
        }
    }

    private func noteApplied(_ sequence: UInt64, for app: String, in mark: AppliedSequence) {
        mark.raise(to: sequence)
        window?.noteSequence(sequence, for: app)
    }

    private func noteActions(of patch: Patch) {
        switch patch {
        case let .insert(_, _, node), let .replace(_, node, _): register(node)
        case let .remove(id): actionTable[id] = nil
        case .move, .set: break
        }
    }

    /// Notes the handlers of `node` and its children; a node sent again without handlers loses
    /// those it had. (A removed node's children keep theirs until the next full draw, as no
    /// tree is kept here; their ids are gone from the window, so only a window out of step names
    /// them.)
    private func register(_ node: ViewNode) {
        actionTable[node.id] = node.actions.isEmpty ? nil : node.actions
        if node.kind == .paneBar, node[.back] != nil { paneBarsWithBack.insert(node.id) }
        for child in node.children { register(child) }
    }

    /// Whether the node `id` answers `name`.
    func answers(_ name: ActionName, on id: String) -> Bool {
        actions(for: id)?[name] != nil
    }

    /// Whether `node`, being sent, will answer `name`: its own handlers, or those of the keyed
    /// rows whose ids it starts like. A node is checked right after it is registered, so its own
    /// handlers are its `actions`, with no need to look its id up. A row being sent is shown, so
    /// its key need not be read from its id (which costs more than the rest of sending it, for
    /// every window).
    private func willAnswer(_ name: ActionName, on node: ViewNode) -> Bool {
        if !node.actions.isEmpty { return node.actions[name] != nil }
        return keyedRowActions.contains { node.id.hasPrefix($0.prefix) && $0.names.contains(name) }
    }

    /// The handlers of the node `id`: its own, or those of the keyed rows it is one of.
    private func actions(for id: String) -> NodeActions? {
        actionTable[id] ?? rowHandlers.lazy.compactMap { $0(id) }.first
    }

    func draftKey(_ field: String) -> String { "\(route)#\(field)" }

    func stop() {
        willBeRemoved()
        tasks.cancelAll()
        reloadTask?.cancel()
        stopFollowing()
        // Handlers may hold the screen; a screen out of its stack answers nothing.
        actionTable = [:]
    }

    func makeNode() -> ViewNode {
        let content = makeContent()
        actionTable = [:]
        paneBarsWithBack = []
        for button in barButtons { register(button) }
        for node in content { register(node) }
        return ViewNode(id: SceneWindow.NodeID.screen, kind: .screen, props: ViewNode.props([.route: .string(route.description)]),
                        children: content.map(checked))
    }

    // MARK: - Only what answers is interactive

    /// `patches` with their nodes checked: the same array when that changes nothing, as it does
    /// for every window of a screen whose handlers answer what it offers, so that windows sent
    /// one patch share it down to its encoded bytes.
    private func checked(_ patches: [Patch]) -> [Patch] {
        if let last = Self.lastPassed, last.rows == keyedRowSignature, Self.same(last.patches, patches) { return patches }
        var result: [Patch]?
        for (index, patch) in patches.enumerated() {
            let changed: Patch? = switch patch {
            case let .insert(parent, at, node): changedByCheck(node).map { .insert(parent: parent, index: at, node: $0) }
            case let .replace(id, node, transition): changedByCheck(node).map { .replace(id: id, node: $0, transition: transition) }
            case .remove, .move, .set: nil
            }
            if result == nil, changed != nil { result = Array(patches[..<index]) }
            result?.append(changed ?? patch)
        }
        guard let result else {
            Self.lastPassed = (patches, keyedRowSignature)
            return patches
        }
        return result
    }

    /// Whether `a` and `b` are the same array, not only equal: one kept alive cannot share its
    /// storage's address with another.
    private static func same(_ a: [Patch], _ b: [Patch]) -> Bool {
        a.count == b.count && a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }

    /// `node` as a window may use it: every interactive part it offers is kept only if a handler
    /// of this screen answers it. A row nothing answers a selection of is drawn as plain content
    /// (`selectable: false`); a Delete, a Reorder, a row action, a button or a field nothing answers
    /// is a developer's mistake: it is logged once for the screen and taken away (a button is
    /// disabled, a field read-only), so that no user is shown an action that cannot be done.
    private func checked(_ node: ViewNode) -> ViewNode {
        changedByCheck(node) ?? node
    }

    /// `node` checked, or `nil` when checking changes nothing in it.
    private func changedByCheck(_ node: ViewNode) -> ViewNode? {
        var node = node
        var changed = false
        switch node.kind {
        case .row:
            if !willAnswer(.select, on: node) {
                node[.selectable] = .bool(false)
                changed = true
            }
            for (property, name) in [(ViewNode.Property.deletable, ActionName.delete), (.movable, .move)]
            where node[property]?.bool == true && !willAnswer(name, on: node) {
                reportUnanswered(name, on: node)
                node[property] = nil
                changed = true
            }
            if case let .array(items)? = node[.actions] {
                let kept = items.filter { item in
                    guard let name = ViewNode.actionItemName(item) else { return false }
                    if willAnswer(name, on: node) { return true }
                    reportUnanswered(name, on: node)
                    return false
                }
                if kept.count != items.count {
                    node[.actions] = kept.isEmpty ? nil : .array(kept)
                    changed = true
                }
            }
        case .button, .barButton:
            if node[.disabled]?.bool != true, !willAnswer(.tap, on: node) {
                reportUnanswered(.tap, on: node)
                node[.disabled] = .bool(true)
                changed = true
            }
        case .textField:
            if !willAnswer(.commit, on: node) {
                reportUnanswered(.commit, on: node)
                node[.readOnly] = .bool(true)
                changed = true
            }
        default:
            break
        }
        if !node.children.isEmpty, let children = changedByCheck(node.children) {
            node.children = children
            changed = true
        }
        return changed ? node : nil
    }

    /// `nodes` checked, or `nil` when checking changes none of them.
    private func changedByCheck(_ nodes: [ViewNode]) -> [ViewNode]? {
        var result: [ViewNode]?
        for (index, node) in nodes.enumerated() {
            let changed = changedByCheck(node)
            if result == nil, changed != nil { result = Array(nodes[..<index]) }
            result?.append(changed ?? node)
        }
        return result
    }

    private func reportUnanswered(_ name: ActionName, on node: ViewNode) {
        guard reportedUnanswered.insert("\(node.id) \(name.rawValue)").inserted else { return }
        Self.logger.warning("A screen offers an action nothing answers; it is not shown", metadata: [
            "screen": "\(type(of: self))", "route": "\(route)", "node": "\(node.id)", "kind": "\(node.kind.rawValue)",
            "action": "\(name.rawValue)",
        ])
    }

    /// Where SceneSyncUI tells developers of their mistakes.
    static let logger = Logger(label: "SceneSyncUI")
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

/// The last sequence number a screen applied from one app.
@MainActor
final class AppliedSequence {
    private(set) var sequence: UInt64 = 0

    func raise(to sequence: UInt64) {
        if sequence > self.sequence { self.sequence = sequence }
    }
}
