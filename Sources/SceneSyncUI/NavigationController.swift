/// A stack of screens, as `UINavigationController`: the top one shows; the others keep their state
/// and follow their models, and are drawn afresh when they come back on top.
///
/// Coordinators push and pop; screens never do.
@MainActor
public final class NavigationController {
    /// The screens, bottom first.
    public private(set) var screens: [ScreenController] = [] {
        didSet { topScreen = screens.last }
    }
    weak var window: SceneWindow?

    /// An empty stack.
    public init() {}

    /// The screen on top.
    public private(set) var topScreen: ScreenController? {
        didSet {
            if topScreen !== oldValue { window?.visibleScreenMayHaveChanged() }
        }
    }

    /// The routes of the stack, bottom first: the navigation path as data.
    public var path: [Route] { screens.map(\.route) }

    /// Loads `screen` if needed and puts it on top.
    public func push(_ screen: ScreenController) async {
        await prepare(screen)
        screens.append(screen)
        window?.navigationDidChange(self, transition: .push)
    }

    /// Removes the top screen, never the root one.
    @discardableResult
    public func pop() -> ScreenController? {
        guard screens.count > 1 else { return nil }
        let removed = screens.removeLast()
        removed.stop()
        window?.navigationDidChange(self, transition: .pop)
        return removed
    }

    /// Pops the screens above the first `depth` ones (at least the root stays).
    public func pop(toDepth depth: Int) {
        let depth = max(depth, 1)
        guard screens.count > depth else { return }
        for screen in screens.dropFirst(depth) { screen.stop() }
        screens.removeSubrange(depth...)
        window?.navigationDidChange(self, transition: .pop)
    }

    /// Pops every screen above the root.
    public func popToRoot() {
        pop(toDepth: 1)
    }

    /// Replaces the whole stack, as restoration does.
    public func setScreens(_ newScreens: [ScreenController]) async {
        for screen in newScreens { await prepare(screen) }
        for screen in screens where !newScreens.contains(where: { $0 === screen }) { screen.stop() }
        screens = newScreens
        window?.navigationDidChange(self, transition: nil)
    }

    func attach(to window: SceneWindow) async {
        self.window = window
        for screen in screens {
            screen.window = window
            // Screens loaded before the stack joined the window: what they show is as of these.
            for (app, sequence) in screen.appliedSequences { window.noteSequence(sequence, for: app) }
        }
        window.visibleScreenMayHaveChanged()
    }

    func stopAll() {
        for screen in screens { screen.stop() }
    }

    private func prepare(_ screen: ScreenController) async {
        screen.window = window
        screen.navigation = self
        if !screen.isLoaded {
            screen.isLoaded = true
            await screen.load()
        }
    }
}

/// Owns navigation for a scene's window, as in the coordinator pattern: it creates screens, listens
/// to what they want ("show item X"), and pushes or pops. Screens never navigate themselves.
@MainActor
open class Coordinator {
    /// Creates a coordinator.
    public init() {}

    /// Starts the flow, restoring `state` if the window had one. A window calls it again to show
    /// the place a URL names (see ``SceneWindow/navigate(toPath:)``): it builds the screens afresh,
    /// as far as `state` still makes sense.
    open func start(restoring state: NavigationState?) async {}

    /// The kinds of screens pushed above a tab's first screen, which a window names in its URL
    /// path: `item/<key>`, `category/<name>/dish/<id>`. Routes of other kinds have no URL.
    open var routes: [any RouteKind] { [] }
}
