import Foundation
import Logging
import Restaurant
import SceneSync
import SceneSyncTestSupport
import SceneSyncTesting

/// A small menu of our own for tests: two categories, prices with cents.
let testMenu: Menu = {
    // swiftlint:disable:next force_try
    try! Menu(items: [
        MenuItem(id: 1, name: "Tomato Soup", description: "Roasted tomatoes.", price: 6.5, category: "soups", estimatedPrepTime: 8),
        MenuItem(id: 2, name: "Onion Soup", description: "Under a lid of cheese.", price: 7.25, category: "soups", estimatedPrepTime: 12),
        MenuItem(id: 3, name: "Lemon Tart", description: "Sharp and sweet.", price: 5, category: "desserts", estimatedPrepTime: 3),
    ])
}()

/// Opens a restaurant on `storage` with the test menu, `clock` and `limits`.
func openRestaurant(
    _ storage: any SceneSyncStorage, clock: KitchenClock = .system, limits: OrderLimits = .init()
) async throws -> RestaurantController {
    try await RestaurantController(menu: testMenu, storage: storage, clock: clock, limits: limits, logger: Logger(label: "test"))
}

/// Launches Restaurant's windows headless on `storage`, with the test menu, `clock` and `limits`.
@MainActor
func launchRestaurant(
    _ storage: any SceneSyncStorage, clock: KitchenClock = .system, limits: OrderLimits = .init(),
    images: DishImages? = DishImages.standard()
) async throws -> (SceneHost, RestaurantController) {
    let delegate = RestaurantAppDelegate(menu: testMenu, images: images, clock: clock, limits: limits, logger: Logger(label: "test"))
    let host = try await SceneHost.launch(delegate: delegate, storage: storage)
    guard let restaurant = delegate.restaurant else { throw RestaurantNotOpened() }
    return (host, restaurant)
}

struct RestaurantNotOpened: Error {}

/// Runs the kitchen timer of `restaurant` until `body` returns.
func withKitchenTimer(
    _ restaurant: RestaurantController, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
) async throws {
    let running = Task { try await KitchenTimer(restaurant: restaurant, logger: .init(label: "test")).run() }
    defer { running.cancel() }
    try await body()
    running.cancel()
    try await running.value
}

/// A fixed moment to start test clocks at, on a whole second.
let testEpoch = Date(timeIntervalSince1970: 1_795_000_000)
