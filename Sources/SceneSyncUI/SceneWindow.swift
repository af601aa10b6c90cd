import Foundation
public import SceneSync

/// A scene's window, as `UIWindow`: it composes the navigation bar, the top screen, the tab bar and
/// overlays into one view, routes the user's actions, and sends the first render and then patches
/// to its outlet (a browser connection, or the headless host). While its scene is in the
/// background, patches are held and coalesced, and sent when it comes back.
@MainActor
public final class SceneWindow: SceneUserInterface {
    /// The ids of the nodes every window has.
    public enum NodeID {
        /// The whole window.
        public static let window = ViewNode.Kind.window.rawValue
        /// The navigation bar.
        public static let navigationBar = ViewNode.Kind.navigationBar.rawValue
        /// The visible screen's content.
        public static let screen = ViewNode.Kind.screen.rawValue
        /// The tab bar, when the window has more than one tab.
        public static let tabBar = ViewNode.Kind.tabBar.rawValue
        /// Alerts and notices.
        public static let overlay = ViewNode.Kind.overlay.rawValue
        /// The tab with id `tab`.
        public static func tab(_ tab: String) -> String { "tab-\(tab)" }
    }

    /// One tab of the window.
    public struct Tab {
        /// The tab's id, used in node ids and navigation state.
        public let id: String
        /// The tab's label.
        public var title: String
        /// The tab's icon, shown beside its label; decoration only.
        public var icon: Icon?
        /// The tab's badge, such as an item count.
        public var badge: String?
        /// The tab's navigation stack.
        public let navigation: NavigationController

        /// Creates a tab.
        public init(id: String, title: String, icon: Icon? = nil, badge: String? = nil, navigation: NavigationController) {
            self.id = id
            self.title = title
            self.icon = icon
            self.badge = badge
            self.navigation = navigation
        }
    }

    /// The scene the window belongs to.
    public private(set) weak var scene: Scene?
    /// The window's title.
    public var title: String
    /// The window's tabs; one tab shows no tab bar.
    public private(set) var tabs: [Tab] = [] {
        didSet { findSelectedNavigation() }
    }
    /// The selected tab's id.
    public private(set) var selectedTabID: String = "" {
        didSet { findSelectedNavigation() }
    }
    /// How many patches a background window holds before it gives up and redraws when shown.
    public var backgroundPatchLimit = 256
    /// The coordinator that owns the window's navigation: it lists the kinds of screens the
    /// window's URL path names (``Coordinator/routes``) and builds the screens a URL asks for.
    public weak var coordinator: Coordinator?
    /// The path the other end was last given.
    private var sentPath: String?
    /// How many of the user's actions are running: where they take the window is a new entry in
    /// the browser's history.
    private var actionsRunning = 0
    /// Whether the window is following the browser to a URL it is at already.
    private var followingURL = false

    var outlet: (any WindowOutlet)?
    /// How the outlet the window was last attached to writes resume points.
    var resumePointWriter: (@MainActor (ViewNode, [String: UInt64], String) -> Data?)?
    private var alerts: [Alert] = []
    private var notices: [Notice] = []
    private var noticeCounter = 0
    /// The last sequence number the window's screens applied, per app: what the window shows
    /// once held patches are sent.
    public internal(set) var sequences: [String: UInt64] = [:]
    /// Names the value of ``sequences``: windows with the same id hold the same numbers (0: none).
    /// Both change only in `noteSequence(_:for:)`.
    var sequencesID = 0
    var held: [Patch] = []
    private var heldSets: [String: Int] = [:]
    var needsRedraw = false
    var hasRendered = false
    var resume: (seq: [String: UInt64], route: String)?
    /// The sequence numbers of the last message sent: what the other end has.
    var sentSequences: [String: UInt64] = [:]
    /// What the other end showed when it went away, encoded as it is saved, if it was in step and
    /// within ``resumePointLimit``: bytes rather than the tree, so that a thousand windows closing
    /// at once do not each hold a tree until their scene has saved it.
    var departed: Data?

    /// Creates the window for `scene` and sets it as the scene's window.
    public init(scene: Scene, title: String) {
        self.scene = scene
        self.title = title
        scene.userInterface = self
    }

    // MARK: - Content

    /// Shows one navigation stack, with no tab bar.
    public func setRoot(_ navigation: NavigationController) async {
        await setTabs([Tab(id: "main", title: title, navigation: navigation)], selected: "main")
    }

    /// Shows tabs, each with its own navigation stack.
    public func setTabs(_ tabs: [Tab], selected: String) async {
        self.tabs = tabs
        selectedTabID = tabs.contains { $0.id == selected } ? selected : tabs.first?.id ?? ""
        for tab in tabs { await tab.navigation.attach(to: self) }
        scene?.restorationActivityDidChange()
        redraw()
    }

    /// Selects a tab.
    public func selectTab(_ id: String) {
        guard id != selectedTabID, tabs.contains(where: { $0.id == id }) else { return }
        selectedTabID = id
        scene?.restorationActivityDidChange()
        send([
            .replace(id: NodeID.navigationBar, node: makeNavigationBar(), transition: nil),
            .replace(id: NodeID.screen, node: visibleScreen?.makeNode() ?? emptyScreen, transition: nil),
        ] + tabs.map { .set(NodeID.tab($0.id), [.selected: .bool($0.id == id)]) } + [pathPatch()].compactMap { $0 })
    }

    /// Sets a tab's badge, or removes it with `nil`. A window with one tab shows no tab bar, so
    /// the badge is kept but not shown.
    public func setBadge(_ badge: String?, forTab id: String) {
        guard let index = tabs.firstIndex(where: { $0.id == id }), tabs[index].badge != badge else { return }
        tabs[index].badge = badge
        guard tabs.count > 1 else { return }
        send([.set(NodeID.tab(id), [.badge: badge.map(ViewValue.string) ?? .null])])
    }

    /// The selected tab's navigation stack.
    public private(set) var navigation: NavigationController? {
        didSet { visibleScreenMayHaveChanged() }
    }

    private func findSelectedNavigation() {
        navigation = tabs.first { $0.id == selectedTabID }?.navigation
    }

    /// The screen whose ``ScreenController/isVisible`` is true.
    private weak var shownScreen: ScreenController?

    /// Tells the screen the window shows that it is, and the one it showed before that it no
    /// longer is: every screen asks, per event, and reads its own flag rather than the window's
    /// stacks. Called whenever the selected stack, or the screen on top of a stack, changes.
    func visibleScreenMayHaveChanged() {
        let top = navigation?.topScreen
        let shown = top?.window === self ? top : nil
        guard shown !== shownScreen else { return }
        shownScreen?.isVisible = false
        shown?.isVisible = true
        shownScreen = shown
    }

    /// The screen the window shows now.
    public var visibleScreen: ScreenController? { navigation?.topScreen }

    /// Every tab's path and the selected tab, to save in the restoration activity.
    public var navigationState: NavigationState {
        NavigationState(paths: Dictionary(uniqueKeysWithValues: tabs.map { ($0.id, $0.navigation.path) }), selectedTab: selectedTabID)
    }

    /// A key for what the window shows: the selected tab and its top route.
    public var routeKey: String {
        "\(selectedTabID):\(visibleScreen?.route.description ?? "")"
    }

    // MARK: - Overlays

    /// Presents an alert or confirmation; its handler runs with the name of the button chosen.
    /// An alert with the id of one showing replaces it (a double tap presents one alert).
    public func present(_ alert: Alert) {
        if let index = alerts.firstIndex(where: { $0.id == alert.id }) {
            alerts[index] = alert
            send([.replace(id: alert.id, node: alert.makeNode(), transition: nil)])
            return
        }
        alerts.append(alert)
        send([.insert(parent: NodeID.overlay, index: alerts.count - 1, node: alert.makeNode())])
    }

    /// Shows a passing notice, such as "This item was deleted in another window."
    ///
    /// With `undo`, the notice offers Undo (a button, and ⌘Z or Ctrl+Z in the window outside a
    /// text field), as after a delete: `undo` runs once when the user asks, and the notice goes.
    /// It should put back what was done through the model, as an intent like any other, so that
    /// every window sees it come back.
    public func showNotice(_ message: String, undo: (@MainActor () async throws -> Void)? = nil) {
        noticeCounter += 1
        let notice = Notice(id: "notice-\(noticeCounter)", message: message, undo: undo)
        notices.append(notice)
        send([.insert(parent: NodeID.overlay, index: alerts.count + notices.count - 1, node: notice.makeNode())])
    }

    /// The notices showing now.
    public var noticeMessages: [String] { notices.map(\.message) }

    /// Asks the host to open a new window with `activity`, as dragging a row out does on iPad.
    public func requestNewWindow(with activity: SceneActivity) {
        outlet?.openWindow(with: activity)
    }

    // MARK: - Host

    /// Connects the window to its host. The window is drawn (at once, or when its content is set),
    /// unless the host says the other end still shows what it was last sent — the same route, as of
    /// the same sequence numbers. Then the window is told it has resumed and gets only the patches
    /// from what it shows to what the window would draw now: nothing is redrawn.
    public func attach(_ outlet: any WindowOutlet, resumingFrom seq: [String: UInt64]? = nil, route: String? = nil) {
        self.outlet = outlet
        resumePointWriter = outlet.resumePointWriter
        hasRendered = false
        if let seq, let route { resume = (seq, route) }
        if !tabs.isEmpty { redraw() }
    }

    /// Disconnects the window from its host, remembering what the other end shows if it is in step.
    public func detach() {
        captureResumePoint()
        outlet = nil
        hasRendered = false
    }

    /// Draws the whole window afresh (or tells the host it resumed, see ``attach(_:resumingFrom:route:)``).
    public func redraw() {
        guard let outlet, !tabs.isEmpty else { return }
        held = []
        heldSets = [:]
        needsRedraw = false
        if scene?.activationState == .background && hasRendered {
            needsRedraw = true
            return
        }
        defer { forgetResumePoint() }
        if let resume, let patches = resumePatches(for: resume) {
            self.resume = nil
            hasRendered = true
            outlet.send(.resumed(seq: resume.seq))
            if !patches.isEmpty { outlet.send(.patch(ops: patches, seq: sequences)) }
            sentSequences = sequences
            return
        }
        resume = nil
        hasRendered = true
        sentPath = urlPath
        outlet.send(.render(root: makeRoot(), seq: sequences, route: routeKey))
        sentSequences = sequences
    }

    /// Handles what the user did: back, tabs, alerts and notices here; drafts are kept per scene;
    /// everything else runs the handler the visible screen built the node with.
    ///
    /// - Throws: what the handler throws, or ``ScreenError`` for an action nothing answers.
    public func handle(_ action: UserAction) async throws {
        actionsRunning += 1
        defer { actionsRunning -= 1 }
        if action.node == NodeID.window, action.name == .navigate {
            guard case let .string(path)? = action.value else {
                throw ScreenError.invalidValue(node: action.node, name: action.name.rawValue)
            }
            await navigate(toPath: path)
        } else if action.name == .back, action.node == NodeID.navigationBar || visibleScreen?.hasBackButton(action.node) == true {
            guard let navigation, navigation.screens.count > 1 else {
                throw ScreenError.unknownAction(node: action.node, name: action.name.rawValue)
            }
            if let screen = navigation.screens.last, let unsaved = screen.unsavedWork {
                confirmDiscarding(unsaved, on: screen, in: navigation)
            } else {
                navigation.pop()
            }
        } else if let tab = tabs.first(where: { NodeID.tab($0.id) == action.node }), action.name == .select {
            // As on iPad: the tab shown, selected again, goes back to its first screen, asking
            // first, as Back does, if the screen on top holds unsaved work.
            if tab.id != selectedTabID {
                selectTab(tab.id)
            } else if tab.navigation.screens.count > 1, let screen = tab.navigation.screens.last, let unsaved = screen.unsavedWork {
                confirmDiscarding(unsaved, on: screen, in: tab.navigation, toDepth: 1)
            } else {
                tab.navigation.popToRoot()
            }
        } else if let index = alerts.firstIndex(where: { $0.id == action.node }) {
            guard let chosen = alerts[index].actions.first(where: { $0.name == action.name }) else {
                throw ScreenError.unknownAction(node: action.node, name: action.name.rawValue)
            }
            let alert = alerts.remove(at: index)
            send([.remove(id: alert.id)])
            try await chosen.handler?()
        } else if let index = notices.firstIndex(where: { $0.id == action.node }), action.name == .dismiss {
            notices.remove(at: index)
            send([.remove(id: action.node)])
        } else if let index = notices.firstIndex(where: { $0.id == action.node && $0.undo != nil }), action.name == .tap {
            let notice = notices.remove(at: index)
            send([.remove(id: action.node)])
            try await notice.undo?()
        } else if action.name == .draft, let screen = visibleScreen, screen.answers(.draft, on: action.node) {
            // A node that keeps its own draft, such as a composer.
            try await screen.perform(action)
        } else if action.name == .draft {
            guard let screen = visibleScreen, screen.answers(.commit, on: action.node) else {
                throw ScreenError.unknownAction(node: action.node, name: action.name.rawValue)
            }
            guard case let .string(text)? = action.value else {
                throw ScreenError.invalidValue(node: action.node, name: action.name.rawValue)
            }
            try await scene?.drafts.set(text, for: screen.draftKey(action.node))
        } else if let screen = visibleScreen {
            try await screen.perform(action)
        } else {
            throw ScreenError.unknownAction(node: action.node, name: action.name.rawValue)
        }
    }

    /// The node id of the alert Back shows when it would lose unsaved work.
    public static let discardChangesAlert = "alert-discard-changes"

    /// Asks before going back from `screen` (to the first `depth` screens, or one screen back)
    /// and losing `unsaved`, for Back, a reselected tab or a URL below; Discard forgets it and goes.
    private func confirmDiscarding(_ unsaved: String, on screen: ScreenController, in navigation: NavigationController, toDepth depth: Int? = nil) {
        guard !alerts.contains(where: { $0.id == Self.discardChangesAlert }) else { return }
        present(Alert(id: Self.discardChangesAlert, title: "Discard changes?", message: unsaved, actions: [
            .init("Keep Editing", role: .cancel),
            .init("Discard", role: .destructive) { [weak navigation, weak screen] in
                guard let navigation, let screen, navigation.screens.last === screen else { return }
                await screen.discardUnsavedWork()
                navigation.pop(toDepth: depth ?? navigation.screens.count - 1)
            },
        ]))
    }

    // MARK: - URL

    /// Where the window is, as a URL path under its app: the selected tab's id when the window
    /// has tabs, then, for each screen above the tab's first, its route's name and its argument
    /// if it has one, each a segment, percent-encoded: `""`, `"item/<key>"`,
    /// `"menu/category/Desserts/dish/12"`. A screen of a kind the coordinator does not list in
    /// ``Coordinator/routes`` ends the path.
    ///
    /// The window sends it as its node's `path` whenever it changes: the renderer shows it as the
    /// page's URL, a new history entry when the user went there.
    public var urlPath: String {
        var segments: [String] = tabs.count > 1 ? [selectedTabID] : []
        let kinds = routeKinds
        for route in (navigation?.path ?? []).dropFirst() {
            guard let kind = kinds[route.name], kind.takesArgument == (route.argument != nil) else { break }
            segments.append(route.name)
            if let argument = route.argument { segments.append(argument) }
        }
        return segments.map { $0.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? $0 }.joined(separator: "/")
    }

    /// The navigation a URL path names (see ``urlPath``): the named tab (the first one when the
    /// path names none) with its first screen and the routes the path lists; the other tabs as
    /// they are. `nil` when the path names a tab or a kind of screen the window does not have.
    public func navigationState(forPath path: String) -> NavigationState? {
        guard let firstTab = tabs.first else { return nil }
        var segments: ArraySlice<String> = []
        for raw in path.split(separator: "/") {
            guard let segment = String(raw).removingPercentEncoding else { return nil }
            segments.append(segment)
        }
        var tab = firstTab
        if tabs.count > 1, let first = segments.first {
            guard let named = tabs.first(where: { $0.id == first }) else { return nil }
            tab = named
            segments.removeFirst()
        }
        var routes = Array(tab.navigation.path.prefix(1))
        let kinds = routeKinds
        while let name = segments.popFirst() {
            guard let kind = kinds[name] else { return nil }
            if kind.takesArgument {
                guard let argument = segments.popFirst() else { return nil }
                routes.append(Route(name, argument: argument))
            } else {
                routes.append(Route(name))
            }
        }
        var state = navigationState
        state.paths[tab.id] = routes
        state.selectedTab = tab.id
        return state
    }

    /// Shows the place `path` names (see ``navigationState(forPath:)``), as the browser's Back and
    /// Forward, and a URL opened, ask:
    ///
    /// - a place below the current one in the same tab pops to it, asking first, as Back does, if
    ///   the screen on top holds unsaved work (the URL then names that screen again);
    /// - another tab's place as it is selects that tab;
    /// - anything else the coordinator builds afresh (``Coordinator/start(restoring:)``), as far
    ///   as it still makes sense: an item deleted meanwhile is not shown.
    ///
    /// A path that names nothing here leaves the window where it is, and its own path is sent
    /// again, for the renderer to put in place of the URL.
    public func navigate(toPath path: String) async {
        followingURL = true
        defer { followingURL = false }
        guard let target = navigationState(forPath: path), let tab = tabs.first(where: { $0.id == target.selectedTab }) else {
            return resendPath(history: .replace)
        }
        let wanted = target.paths[tab.id] ?? []
        let current = tab.navigation.path
        if wanted == current {
            if tab.id != selectedTabID { selectTab(tab.id) } else { resendPath(history: .replace) }
        } else if tab.id == selectedTabID, wanted.count < current.count, Array(current.prefix(wanted.count)) == wanted {
            if let screen = tab.navigation.screens.last, let unsaved = screen.unsavedWork {
                resendPath(history: .push)
                confirmDiscarding(unsaved, on: screen, in: tab.navigation, toDepth: wanted.count)
            } else {
                tab.navigation.pop(toDepth: wanted.count)
            }
        } else if let coordinator {
            await coordinator.start(restoring: target)
        } else {
            resendPath(history: .replace)
        }
    }

    /// What a path segment keeps as it is; everything else is percent-encoded.
    private static let segmentCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private var routeKinds: [String: any RouteKind] {
        Dictionary((coordinator?.routes ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The window's path, if the other end was not given it yet: a new history entry when the
    /// user's action took the window there, else in place of the current one.
    private func pathPatch() -> Patch? {
        let path = urlPath
        guard path != sentPath else { return nil }
        sentPath = path
        let history: HistoryChange = actionsRunning > 0 && !followingURL ? .push : .replace
        return .set(NodeID.window, [.path: .string(path), .history: .string(history.rawValue)])
    }

    /// Sends the window's path again, whether or not it changed.
    private func resendPath(history: HistoryChange) {
        sentPath = urlPath
        send([.set(NodeID.window, [.path: .string(urlPath), .history: .string(history.rawValue)])])
    }

    /// How the window's path changed, as its ``ViewNode/Property/history`` says.
    private enum HistoryChange: String {
        /// The user went there: a new history entry.
        case push
        /// In place of the current entry.
        case replace
    }

    /// The whole window as one tree.
    public func makeRoot() -> ViewNode {
        var children = [makeNavigationBar(), visibleScreen?.makeNode() ?? emptyScreen]
        if tabs.count > 1 {
            children.append(ViewNode(id: NodeID.tabBar, kind: .tabBar, children: tabs.map { tab in
                ViewNode(id: NodeID.tab(tab.id), kind: .tab, props: ViewNode.props([
                    .label: .string(tab.title), .selected: .bool(tab.id == selectedTabID),
                    .icon: tab.icon.map { .string($0.rawValue) }, .badge: tab.badge.map(ViewValue.string),
                ]))
            }))
        }
        children.append(ViewNode(id: NodeID.overlay, kind: .overlay,
                                 children: alerts.map { $0.makeNode() } + notices.map { $0.makeNode() }))
        return ViewNode(id: NodeID.window, kind: .window,
                        props: ViewNode.props([.title: .string(title), .path: .string(urlPath), .history: .string(HistoryChange.replace.rawValue)]),
                        children: children)
    }

    /// The navigation bar for the visible screen.
    public func makeNavigationBar() -> ViewNode {
        let screens = navigation?.screens ?? []
        let back = screens.count > 1 ? screens[screens.count - 2].title : nil
        return ViewNode(id: NodeID.navigationBar, kind: .navigationBar,
                        props: ViewNode.props([.title: .string(visibleScreen?.title ?? title), .back: back.map(ViewValue.string)]),
                        children: visibleScreen?.barButtons ?? [])
    }

    // MARK: - Internal

    func send(_ patches: [Patch]) {
        guard let outlet, hasRendered, !patches.isEmpty else { return }
        if scene?.activationState == .background {
            guard !needsRedraw else { return }
            for patch in patches { hold(patch) }
            if held.count > backgroundPatchLimit {
                held = []
                heldSets = [:]
                needsRedraw = true
            }
            return
        }
        outlet.send(.patch(ops: patches, seq: sequences))
        sentSequences = sequences
    }

    /// Holds a patch for a background window, folding a `set` into an earlier `set` of the same
    /// node when nothing in between replaced or removed that node.
    private func hold(_ patch: Patch) {
        switch patch {
        case let .set(id, props):
            if let index = heldSets[id], case let .set(_, earlier) = held[index] {
                held[index] = .set(id: id, props: earlier.merging(props) { $1 })
            } else {
                heldSets[id] = held.count
                held.append(patch)
            }
        case let .remove(id), let .replace(id, _, _), let .move(id, _):
            heldSets[id] = nil
            held.append(patch)
        case let .insert(_, _, node):
            heldSets[node.id] = nil
            held.append(patch)
        }
    }

    func navigationDidChange(_ changed: NavigationController, transition: ViewNode.Transition?) {
        scene?.restorationActivityDidChange()
        guard changed === navigation else { return }
        send([
            .replace(id: NodeID.navigationBar, node: makeNavigationBar(), transition: nil),
            .replace(id: NodeID.screen, node: visibleScreen?.makeNode() ?? emptyScreen, transition: transition),
        ] + [pathPatch()].compactMap { $0 })
    }

    // MARK: - SceneUserInterface

    /// The scene came back to the foreground: send what was held, or redraw if too much was.
    public func sceneWillEnterForeground() {
        guard let outlet, hasRendered else { return }
        if needsRedraw {
            redraw()
        } else if !held.isEmpty {
            let patches = held
            held = []
            heldSets = [:]
            outlet.send(.patch(ops: patches, seq: sequences))
            sentSequences = sequences
        }
    }

    /// The scene is disconnecting: keep what the other end shows, so a reconnect is patched.
    public func sceneWillDisconnect() async {
        await persistResumePoint()
    }

    /// The scene disconnected: every screen stops following its models.
    public func sceneDidReleaseUserInterface() {
        for tab in tabs { tab.navigation.stopAll() }
        shownScreen?.isVisible = false
        shownScreen = nil
        outlet = nil
    }

    private var emptyScreen: ViewNode { ViewNode(id: NodeID.screen, kind: .screen) }

    /// A passing notice, and what its Undo does, if it has one.
    private struct Notice {
        let id: String
        let message: String
        let undo: (@MainActor () async throws -> Void)?

        func makeNode() -> ViewNode {
            ViewNode(id: id, kind: .notice, props: ViewNode.props([.message: .string(message), .undo: undo == nil ? nil : .string("Undo")]))
        }
    }
}

extension Scene {
    /// The scene's window, once its delegate made one.
    public var window: SceneWindow? { userInterface as? SceneWindow }
}
