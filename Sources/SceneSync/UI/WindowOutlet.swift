/// Where a window's output goes: a browser connection, or the headless host.
@MainActor
public protocol WindowOutlet: AnyObject {
    /// Delivers a message to the window's renderer.
    func send(_ message: ServerMessage)
    /// Opens a new window with `activity`.
    func openWindow(with activity: SceneActivity)
}
