public import Foundation
public import SceneSync

/// Where a window's output goes: a browser connection, or the headless host.
@MainActor
public protocol WindowOutlet: AnyObject {
    /// Delivers an update to the window's renderer.
    func send(_ update: WindowUpdate)
    /// Opens a new window with `activity`.
    func openWindow(with activity: SceneActivity)
    /// Writes a window's resume point (the tree it was last sent, the sequence numbers and the
    /// route) as a JSON object with the keys `root`, `seq` and `route` (others are ignored), faster
    /// than `JSONEncoder` can: when many windows close at once, each writes one. Called on the
    /// main actor. The writer may answer `nil` for a point larger than
    /// ``SceneWindow/resumePointLimit``: then no resume point is kept, as for any point over the
    /// limit. No writer (the default) leaves the encoding to `JSONEncoder`.
    var resumePointWriter: (@MainActor (_ root: ViewNode, _ seq: [String: UInt64], _ route: String) -> Data?)? { get }
}

extension WindowOutlet {
    public var resumePointWriter: (@MainActor (_ root: ViewNode, _ seq: [String: UInt64], _ route: String) -> Data?)? { nil }
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
