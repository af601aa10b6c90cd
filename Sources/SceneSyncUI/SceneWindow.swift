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
        public static let window = "window"
        /// The navigation bar.
        public static let navigationBar = "navigationBar"
        /// The visible screen's content.
        public static let screen = "screen"
        /// The tab bar, when the window has more than one tab.
        public static let tabBar = "tabBar"
        /// Alerts and notices.
        public static let overlay = "overlay"
        /// The tab with id `tab`.
        public static func tab(_ tab: String) -> String { "tab-\(tab)" }
    }

    /// One tab of the window.
    public struct Tab {
        /// The tab's id, used in node ids and navigation state.
        public let id: String
        /// The tab's label.
        public var title: String
        /// The tab's badge, such as an item count.
        public var badge: String?
        /// The tab's navigation stack.
        public let navigation: NavigationController

        /// Creates a tab.
        public init(id: String, title: String, badge: String? = nil, navigation: NavigationController) {
            self.id = id
            self.title = title
            self.badge = badge
            self.navigation = navigation
        }
    }

    /// The scene the window belongs to.
    public private(set) weak var scene: Scene?
    /// The window's title.
    public var title: String
    /// The window's tabs; one tab shows no tab bar.
    public private(set) var tabs: [Tab] = []
    /// The selected tab's id.
    public private(set) var selectedTabID: String = ""
    /// How many patches a background window holds before it gives up and redraws when shown.
    public var backgroundPatchLimit = 256

    var outlet: (any WindowOutlet)?
    /// How the outlet the window was last attached to writes resume points.
    var resumePointWriter: (@Sendable (ViewNode, [String: UInt64], String) -> Data?)?
    private var alerts: [Alert] = []
    private var notices: [Notice] = []
    private var noticeCounter = 0
    /// The last sequence number the window's screens applied, per app: what the window shows
    /// once held patches are sent.
    public private(set) var sequences: [String: UInt64] = [:]
    var held: [Patch] = []
    private var heldSets: [String: Int] = [:]
    var needsRedraw = false
    var hasRendered = false
    var resume: (seq: [String: UInt64], route: String)?
    /// The sequence numbers of the last message sent: what the other end has.
    var sentSequences: [String: UInt64] = [:]
    /// What the other end showed when it went away, if it was in step.
    var departed: ResumePoint?

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
        ] + tabs.map { .set(NodeID.tab($0.id), [.selected: .bool($0.id == id)]) })
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
    public var navigation: NavigationController? { tabs.first { $0.id == selectedTabID }?.navigation }

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
        outlet.send(.render(root: makeRoot(), seq: sequences, route: routeKey))
        sentSequences = sequences
    }

    /// Handles what the user did: back, tabs, alerts and notices here; drafts are kept per scene;
    /// everything else runs the handler the visible screen built the node with.
    ///
    /// - Throws: what the handler throws, or ``ScreenError`` for an action nothing answers.
    public func handle(_ action: UserAction) async throws {
        if action.node == NodeID.navigationBar, action.name == .back {
            guard let navigation, navigation.screens.count > 1 else {
                throw ScreenError.unknownAction(node: action.node, name: action.name.rawValue)
            }
            if let screen = navigation.screens.last, let unsaved = screen.unsavedWork {
                confirmDiscarding(unsaved, on: screen, in: navigation)
            } else {
                navigation.pop()
            }
        } else if let tab = tabs.first(where: { NodeID.tab($0.id) == action.node }), action.name == .select {
            // As on iPad: the tab shown, selected again, goes back to its first screen.
            if tab.id == selectedTabID { tab.navigation.popToRoot() } else { selectTab(tab.id) }
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

    /// Asks before going back from `screen` and losing `unsaved`; Discard forgets it and goes.
    private func confirmDiscarding(_ unsaved: String, on screen: ScreenController, in navigation: NavigationController) {
        guard !alerts.contains(where: { $0.id == Self.discardChangesAlert }) else { return }
        present(Alert(id: Self.discardChangesAlert, title: "Discard changes?", message: unsaved, actions: [
            .init("Keep Editing", role: .cancel),
            .init("Discard", role: .destructive) { [weak navigation, weak screen] in
                guard let navigation, let screen, navigation.screens.last === screen else { return }
                await screen.discardUnsavedWork()
                navigation.pop()
            },
        ]))
    }

    /// The whole window as one tree.
    public func makeRoot() -> ViewNode {
        var children = [makeNavigationBar(), visibleScreen?.makeNode() ?? emptyScreen]
        if tabs.count > 1 {
            children.append(ViewNode(id: NodeID.tabBar, kind: .tabBar, children: tabs.map { tab in
                var props: [String: ViewValue] = ["label": .string(tab.title), "selected": .bool(tab.id == selectedTabID)]
                if let badge = tab.badge { props["badge"] = .string(badge) }
                return ViewNode(id: NodeID.tab(tab.id), kind: .tab, props: props)
            }))
        }
        children.append(ViewNode(id: NodeID.overlay, kind: .overlay,
                                 children: alerts.map { $0.makeNode() } + notices.map { $0.makeNode() }))
        return ViewNode(id: NodeID.window, kind: .window, props: ["title": .string(title)], children: children)
    }

    /// The navigation bar for the visible screen.
    public func makeNavigationBar() -> ViewNode {
        var props: [String: ViewValue] = ["title": .string(visibleScreen?.title ?? title)]
        if let screens = navigation?.screens, screens.count > 1 {
            props["back"] = .string(screens[screens.count - 2].title)
        }
        return ViewNode(id: NodeID.navigationBar, kind: .navigationBar, props: props, children: visibleScreen?.barButtons ?? [])
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

    func noteSequence(_ sequence: UInt64, for app: String) {
        sequences[app] = max(sequences[app] ?? 0, sequence)
    }

    func navigationDidChange(_ changed: NavigationController, transition: ViewNode.Transition?) {
        scene?.restorationActivityDidChange()
        guard changed === navigation else { return }
        send([
            .replace(id: NodeID.navigationBar, node: makeNavigationBar(), transition: nil),
            .replace(id: NodeID.screen, node: visibleScreen?.makeNode() ?? emptyScreen, transition: transition),
        ])
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
        outlet = nil
    }

    private var emptyScreen: ViewNode { ViewNode(id: NodeID.screen, kind: .screen) }

    /// A passing notice, and what its Undo does, if it has one.
    private struct Notice {
        let id: String
        let message: String
        let undo: (@MainActor () async throws -> Void)?

        func makeNode() -> ViewNode {
            var props: [String: ViewValue] = ["message": .string(message)]
            if undo != nil { props["undo"] = .string("Undo") }
            return ViewNode(id: id, kind: .notice, props: props)
        }
    }
}

extension Scene {
    /// The scene's window, once its delegate made one.
    public var window: SceneWindow? { userInterface as? SceneWindow }
}
