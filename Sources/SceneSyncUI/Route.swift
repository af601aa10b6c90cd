public import Foundation
import SceneSync

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

// MARK: - Typed routes

/// What a route's argument can be: a value written as one segment of a URL path and read back.
public protocol RouteArgument: Sendable {
    /// Reads the argument from its text; `nil` if the text names none.
    init?(routeArgument: String)
    /// The argument as text.
    var routeArgument: String { get }
}

extension String: RouteArgument {
    /// The text itself.
    public init?(routeArgument: String) { self = routeArgument }
    /// The text itself.
    public var routeArgument: String { self }
}

extension Int: RouteArgument {
    /// A decimal integer.
    public init?(routeArgument: String) { self.init(routeArgument, radix: 10) }
    /// In decimal.
    public var routeArgument: String { String(self) }
}

extension UUID: RouteArgument {
    /// A UUID in its usual form.
    public init?(routeArgument: String) { self.init(uuidString: routeArgument) }
    /// `uuidString`'s text, spelled as `keyString` spells it.
    public var routeArgument: String { keyString }
}

/// A kind of screen in an app's navigation, as a typed value: its name, and whether it takes an
/// argument. A window maps its routes to a URL path and back with the kinds its coordinator lists
/// (``Coordinator/routes``).
public protocol RouteKind: Sendable {
    /// The routes' name.
    var name: String { get }
    /// Whether each route of this kind has an argument (a segment of its own in the URL).
    var takesArgument: Bool { get }
}

/// A kind of screen that shows one thing: `RoutePattern<UUID>("item")` makes `item/<uuid>` routes
/// and reads the UUID back, so a coordinator never compares names itself.
///
/// ```swift
/// static let route = RoutePattern<UUID>("item")
/// let route = ItemDetailScreen.route(key)                      // item/3F2A…
/// if let key = ItemDetailScreen.route.argument(of: route) { … }
/// ```
public struct RoutePattern<Argument: RouteArgument>: RouteKind {
    public let name: String
    public var takesArgument: Bool { true }

    /// A kind of screen named `name`.
    public init(_ name: String) {
        self.name = name
    }

    /// The route of the screen that shows `argument`.
    public func callAsFunction(_ argument: Argument) -> Route {
        Route(name, argument: argument.routeArgument)
    }

    /// The argument of `route`, if it is of this kind and its argument reads as an `Argument`.
    public func argument(of route: Route) -> Argument? {
        guard route.name == name, let text = route.argument else { return nil }
        return Argument(routeArgument: text)
    }
}

/// A kind of screen with no argument, such as a list or a form for something new.
public struct RouteName: RouteKind {
    public let name: String
    public var takesArgument: Bool { false }

    /// A kind of screen named `name`.
    public init(_ name: String) {
        self.name = name
    }

    /// The screen's route.
    public func callAsFunction() -> Route {
        Route(name)
    }

    /// Whether `route` is of this kind.
    public func matches(_ route: Route) -> Bool {
        route.name == name && route.argument == nil
    }
}
