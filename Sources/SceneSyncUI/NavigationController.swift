/// A stack of screens, as `UINavigationController`: the top one shows; the others keep their state
/// and follow their models, and are drawn afresh when they come back on top.
///
/// Coordinators push and pop; screens never do.
@MainActor
public final class NavigationController {
    /// The screens, bottom first.
    public private(set) var screens: [ScreenController] = []
    weak var window: SceneWindow?

    /// An empty stack.
    public init() {}

    /// The screen on top.
    public var topScreen: ScreenController? { screens.last }

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

    /// Pops every screen above the root.
    public func popToRoot() {
        guard screens.count > 1 else { return }
        for screen in screens.dropFirst() { screen.stop() }
        screens.removeSubrange(1...)
        window?.navigationDidChange(self, transition: .pop)
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

    /// Starts the flow, restoring `state` if the window had one.
    open func start(restoring state: NavigationState?) async {}
}
