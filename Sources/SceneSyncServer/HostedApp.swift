public import Foundation
public import Hummingbird
public import Logging
public import SceneSync
public import ServiceLifecycle

/// An app the server hosts: its place in URLs, what the home page says about it, how to make its
/// application delegate, and the parts it brings of its own — HTTP routes, assets and services.
///
/// ```swift
/// HostedApp(name: "lootlogger", title: "LootLogger", summary: "An inventory of your possessions.") {
///     LootLoggerAppDelegate(logger: $0)
/// }
/// ```
///
/// An app with an API, pictures and a timer adds them once its application has launched. Its
/// `parts` closure is given the delegate `makeDelegate` made, as its own type, with the model
/// controllers it opened as it launched:
///
/// ```swift
/// HostedApp(name: "restaurant", title: "Restaurant", summary: "…",
///           makeDelegate: { RestaurantAppDelegate(menu: menu, images: images, logger: $0) }) { delegate, launched in
///     guard let restaurant = delegate.restaurant else { throw … }
///     let api = try MenuAPI(restaurant: restaurant, images: images)
///     return HostedApp.Parts(
///         routes: { api.addRoutes(to: $0) },             // GET /categories, GET /menu, POST /order …
///         assets: images?.folder,                       // the dishes' pictures, at /restaurant/assets/
///         services: [KitchenService(timer: KitchenTimer(restaurant: restaurant, logger: launched.logger))])
/// }
/// ```
public struct HostedApp: Sendable {
    /// The app's URL segment, such as `"lootlogger"`: the page is at `/<name>`, its WebSocket at
    /// `/ws/<name>`, its assets under `/<name>/assets/`.
    public let name: String
    /// The app's title, shown on the home page and sent in `welcome`.
    public let title: String
    /// One sentence about the app, shown on the home page.
    public let summary: String
    /// The renderer's modules the app's windows need beyond those every app loads, such as
    /// ``RendererModule/chat`` for split views and conversations; the app's page loads them, and
    /// no other app's page does.
    public let rendererModules: [RendererModule]
    /// Makes the app's delegate, once, when the server starts, with what makes its parts from it.
    let makeDelegate: @MainActor @Sendable (Logger) -> Delegation

    /// An app's delegate as made for one run of the server, and the maker of its parts, which
    /// keeps the delegate with its own type.
    @MainActor
    struct Delegation {
        let delegate: any ApplicationDelegate
        let makeParts: @MainActor (LaunchedApp) throws -> Parts
    }

    /// Creates a hosted app whose application delegate is a `Delegate`.
    ///
    /// - Parameters:
    ///   - name: The app's URL segment (see ``name``).
    ///   - title: The app's title on the home page and in `welcome` (see ``title``).
    ///   - summary: One sentence about the app for the home page (see ``summary``).
    ///   - rendererModules: The renderer's modules the app's windows need beyond those every app
    ///     loads (see ``RendererModule``).
    ///   - makeDelegate: Makes the app's delegate, once, when the server starts, with the app's logger.
    ///   - makeParts: Makes the app's own parts once its application has launched, from the
    ///     delegate `makeDelegate` made (its `applicationDidFinishLaunching` has run) and the
    ///     launched application. An error stops the server's start.
    /// - Precondition: `name` is a URL segment of lowercase letters, digits and `-`, and not a
    ///   name the server uses itself (`ws`, `js`, `css`, `metrics`, `renderer`).
    public init<Delegate: ApplicationDelegate & Sendable>(
        name: String,
        title: String,
        summary: String,
        rendererModules: [RendererModule] = [],
        makeDelegate: @escaping @MainActor @Sendable (Logger) -> Delegate,
        parts makeParts: @escaping @MainActor @Sendable (Delegate, LaunchedApp) throws -> Parts = { _, _ in Parts() }
    ) {
        precondition(Self.isValidName(name), "An app's name is a URL segment of a-z, 0-9 and -, not ws, js, css, metrics or renderer: \(name)")
        self.name = name
        self.title = title
        self.summary = summary
        self.rendererModules = rendererModules
        self.makeDelegate = { logger in
            let delegate = makeDelegate(logger)
            return Delegation(delegate: delegate) { launched in try makeParts(delegate, launched) }
        }
    }

    /// An app's application once it has launched, for its parts to use beside the app's delegate.
    @MainActor
    public struct LaunchedApp {
        /// The launched application, such as for the scenes connected to it.
        public let application: SceneSync.Application
        /// The app's logger.
        public let logger: Logger
    }

    /// What an app adds to the server beside its windows.
    public struct Parts: Sendable {
        /// Adds the app's HTTP routes, at any path it chooses (root paths included). Every route
        /// is behind the server's access policy: `Host` is checked on every request; a mutating
        /// one must come from one of the server's pages or be a JSON request from a native
        /// client; and when the server has an access token, every request carries it as
        /// `Authorization: Bearer …` (see ``SceneSyncServer``).
        public var routes: @Sendable (RouterGroup<AppRequestContext>) -> Void
        /// A folder served read-only at `/<name>/assets/`, with `ETag`s.
        public var assets: URL?
        /// Long-running work of the app, such as a timer, run in the server's service group: they
        /// start with the server, and are told to shut down gracefully after every window was told
        /// and before HTTP stops. One that ends early ends alone; one that fails shuts the server
        /// down gracefully. On a storage shared by nodes they run on one node at a time, the
        /// app's leader, and start on another node when it stops or dies (see
        /// `SceneSyncCluster.leadership(of:)`): what they do must stay safe to do
        /// twice, as an intent the model controller refuses the second time is.
        public var services: [any Service]
        /// The app's widget summary, served at `/<name>/widget.json` (with an `ETag`) and followed
        /// live at `/<name>/widget/events` (Server-Sent Events); `nil` for an app without one.
        public var widget: WidgetFeed?

        /// Creates an app's parts; every one is optional.
        public init(routes: @escaping @Sendable (RouterGroup<AppRequestContext>) -> Void = { _ in }, assets: URL? = nil,
                    services: [any Service] = [], widget: WidgetFeed? = nil) {
            self.routes = routes
            self.assets = assets
            self.services = services
            self.widget = widget
        }
    }

    static let reservedNames: Set<String> = ["ws", "js", "css", "metrics", "renderer"]
    /// What an app keeps under its own path besides its page and its places: its assets and its
    /// widget. A tab or a kind of route is never named so.
    static let ownSegments: Set<String> = ["assets", "widget", "widget.json"]

    /// Whether `name` can be an app's name: a URL segment of a-z, 0-9 and `-`, not one the server
    /// uses itself.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !reservedNames.contains(name)
            && name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
    }
}
