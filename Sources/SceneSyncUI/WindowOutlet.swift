public import SceneSync

/// Where a window's output goes: a browser connection, or the headless host.
@MainActor
public protocol WindowOutlet: AnyObject {
    /// Delivers an update to the window's renderer.
    func send(_ update: WindowUpdate)
    /// Opens a new window with `activity`.
    func openWindow(with activity: SceneActivity)
}

/// What a window sends its renderer: the whole view, or changes to what it was sent.
public enum WindowUpdate: Equatable, Sendable {
    /// The whole window, drawn afresh; `seq` is what it includes per app, `route` the window's
    /// selected tab and top screen.
    case render(root: ViewNode, seq: [String: UInt64], route: String)
    /// Changes to the window; `seq` is what it includes afterwards.
    case patch(ops: [Patch], seq: [String: UInt64])
    /// The window was resumed without a redraw; it is up to date as of `seq`.
    case resumed(seq: [String: UInt64])
}
