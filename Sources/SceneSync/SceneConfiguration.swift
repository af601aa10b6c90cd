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
    /// The device the window is on, as its host identifies it: in a browser, the profile, which
    /// every window of it shares (unlike the session, which is the window's own). `nil` when the
    /// host does not say. An app may keep who is signed in per device, as Chat does.
    public var device: String?
    /// Who connected the window, as the host names it: on the server, the peer's network address.
    /// ``Application/connect(session:options:client:)`` sets it to its `client`. An app may bound
    /// what one client creates, as Chat does; behind a proxy every window has the proxy's address.
    public var client: String?

    /// Creates connection options.
    public init(activity: SceneActivity? = nil, device: String? = nil, client: String? = nil) {
        self.activity = activity
        self.device = device
        self.client = client
    }
}
