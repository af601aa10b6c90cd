import Foundation
import Logging
public import Restaurant
import SceneSync
public import SceneSyncServer

/// Restaurant as the server hosts it: windows at `/restaurant`, the course's menu API at the
/// server's root (`/categories`, `/menu`, `/order`, `/images/<id>.png`), the dishes' pictures
/// as the app's assets, and the kitchen timer as a service.
///
/// ```swift
/// let server = try SceneSyncServer(configuration: configuration,
///                                  apps: [RestaurantApp.hosted(menu: try .standard(), images: .standard())],
///                                  storage: makeStorage)
/// ```
public enum RestaurantApp {
    /// The app's URL segment.
    public static let name = RestaurantController.app

    /// Hosts Restaurant with `menu`, the dishes' pictures from `images`, the kitchen's `clock`, and
    /// the `limits` on orders from windows and from the menu API.
    public static func hosted(menu: Menu, images: DishImages?, clock: KitchenClock = .system, limits: OrderLimits = .init()) -> HostedApp {
        HostedApp(
            name: name, title: "Restaurant",
            summary: "The course's ordering app: the menu, an order shared by every window, the kitchen's countdown.",
            makeDelegate: { logger in
                RestaurantAppDelegate(menu: menu, images: images, imagesPath: "/\(name)/assets/", clock: clock, limits: limits, logger: logger)
            },
            parts: { delegate, launched in
                guard let restaurant = delegate.restaurant else {
                    throw RestaurantAppError.notLaunched
                }
                let api = try MenuAPI(restaurant: restaurant, images: images)
                return HostedApp.Parts(
                    routes: { api.addRoutes(to: $0) },
                    assets: images?.folder,
                    services: [KitchenService(timer: KitchenTimer(restaurant: restaurant, logger: launched.logger))],
                    widget: .following(restaurant.controller) { $0.widgetSummary })
            })
    }
}

/// Why Restaurant could not be hosted.
public enum RestaurantAppError: Error, CustomStringConvertible {
    /// The application had not opened its restaurant.
    case notLaunched

    public var description: String { "Restaurant's application did not open its restaurant." }
}
