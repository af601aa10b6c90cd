/// One window's UI lifecycle, as `UIWindowSceneDelegate`. Every method has an empty default.
///
/// A scene delegate sets up the window's coordinators when the scene connects, and frees them when
/// it disconnects. It never owns user data: that belongs to model controllers, and survives the
/// delegate.
@MainActor
public protocol SceneDelegate: AnyObject {
    /// The scene is connecting. Set up its UI here; a restored window finds its activity on
    /// `session.stateRestorationActivity`, a window opened for an activity finds it in `options`.
    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions)
    /// The scene is about to become visible.
    func sceneWillEnterForeground(_ scene: Scene)
    /// The scene is visible and receives input.
    func sceneDidBecomeActive(_ scene: Scene)
    /// The scene is about to stop receiving input.
    func sceneWillResignActive(_ scene: Scene)
    /// The scene is no longer visible. Its restoration activity is saved right after this.
    func sceneDidEnterBackground(_ scene: Scene)
    /// The scene was disconnected: release everything held for its UI. Its session and the user's
    /// data live on, and the window may connect again.
    func sceneDidDisconnect(_ scene: Scene)
    /// What it takes to recreate this window, or `nil` to keep nothing.
    func stateRestorationActivity(for scene: Scene) -> SceneActivity?
}

extension SceneDelegate {
    public func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions) {}
    public func sceneWillEnterForeground(_ scene: Scene) {}
    public func sceneDidBecomeActive(_ scene: Scene) {}
    public func sceneWillResignActive(_ scene: Scene) {}
    public func sceneDidEnterBackground(_ scene: Scene) {}
    public func sceneDidDisconnect(_ scene: Scene) {}
    public func stateRestorationActivity(for scene: Scene) -> SceneActivity? { nil }
}
