public import Logging
public import SceneSync

/// An app the server hosts: its place in URLs, what the home page says about it, and how to make
/// its application delegate.
///
/// ```swift
/// HostedApp(name: "lootlogger", title: "LootLogger", summary: "An inventory of your possessions.") {
///     LootLoggerAppDelegate(logger: $0)
/// }
/// ```
public struct HostedApp: Sendable {
    /// The app's URL segment, such as `"lootlogger"`: the page is at `/<name>`, its WebSocket at
    /// `/ws/<name>`, and its data in `<dataDirectory>/<name>.sqlite`.
    public let name: String
    /// The app's title, shown on the home page and sent in `welcome`.
    public let title: String
    /// One sentence about the app, shown on the home page.
    public let summary: String
    /// Makes the app's delegate, once, when the server starts.
    public let makeDelegate: @MainActor @Sendable (Logger) -> any ApplicationDelegate

    /// Creates a hosted app.
    ///
    /// - Precondition: `name` is a URL segment of lowercase letters, digits and `-`, and not a
    ///   name the server uses itself (`ws`, `js`, `css`).
    public init(
        name: String,
        title: String,
        summary: String,
        makeDelegate: @escaping @MainActor @Sendable (Logger) -> any ApplicationDelegate
    ) {
        precondition(Self.isValidName(name), "An app's name is a URL segment of a-z, 0-9 and -, not ws, js or css: \(name)")
        self.name = name
        self.title = title
        self.summary = summary
        self.makeDelegate = makeDelegate
    }

    static let reservedNames: Set<String> = ["ws", "js", "css"]

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !reservedNames.contains(name)
            && name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
    }
}
