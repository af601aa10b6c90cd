/// How to set up a connecting scene: its name and scene delegate, as `UISceneConfiguration`.
///
/// The application delegate returns one from
/// ``ApplicationDelegate/application(_:configurationForConnecting:options:)``.
public struct SceneConfiguration: Sendable {
    /// The configuration's name, saved on the session so that a reconnecting window gets the same.
    public let name: String
    /// Makes the scene delegate for a connecting scene.
    public let makeDelegate: @MainActor @Sendable () -> any SceneDelegate

    /// Creates a configuration.
    ///
    /// ```swift
    /// SceneConfiguration(name: "Main") { MainSceneDelegate(store: store) }
    /// ```
    public init(
        name: String,
        makeDelegate: @escaping @MainActor @Sendable () -> any SceneDelegate
    ) {
        self.name = name
        self.makeDelegate = makeDelegate
    }
}

/// What a scene is connected with, as `UIScene.ConnectionOptions`.
public struct ConnectionOptions: Sendable, Equatable {
    /// An activity the window was opened to show ("Open in New Window"), as `userActivities`.
    /// A restored window finds its activity on ``SceneSession/stateRestorationActivity`` instead.
    public var activity: SceneActivity?

    /// Creates connection options.
    public init(activity: SceneActivity? = nil) {
        self.activity = activity
    }
}
