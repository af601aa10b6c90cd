/// A place in an app's navigation, as data: a name and an optional argument, such as
/// `Route("item", argument: key.uuidString)`. Coordinators turn routes into screens, and a window's
/// routes are saved in its restoration activity.
public struct Route: Codable, Hashable, Sendable, CustomStringConvertible {
    /// What kind of screen, such as `"items"` or `"item"`.
    public var name: String
    /// Which one, such as an item's key.
    public var argument: String?

    /// Creates a route.
    public init(_ name: String, argument: String? = nil) {
        self.name = name
        self.argument = argument
    }

    /// `name` or `name/argument`.
    public var description: String { argument.map { "\(name)/\($0)" } ?? name }
}

/// A window's navigation as data: each tab's path of routes, and the selected tab. Part of the
/// window's restoration activity.
public struct NavigationState: Codable, Equatable, Sendable {
    /// The routes of each tab's navigation stack, bottom first.
    public var paths: [String: [Route]]
    /// The selected tab.
    public var selectedTab: String

    /// Creates a navigation state.
    public init(paths: [String: [Route]], selectedTab: String) {
        self.paths = paths
        self.selectedTab = selectedTab
    }
}
