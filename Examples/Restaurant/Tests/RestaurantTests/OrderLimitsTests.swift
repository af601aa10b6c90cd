import Foundation
import Restaurant
import SceneSync
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

/// The kitchen's caps, for orders from the windows and from the menu API alike: a refused order
/// stores nothing, and room comes back as orders are made.
struct OrderLimitsTests {
    @Test func theKitchenMakesAtMostItsLimitOfOrdersAtOnce() async throws {
        let manual = ManualClock()
        let clock = KitchenClock(manual, startingAt: testEpoch)
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make(), clock: clock,
                                                  limits: OrderLimits(maximumOrdersInPreparation: 2))
        let first = try await restaurant.submitOrder(menuIDs: [3])                  // 3 minutes
        try await restaurant.submitOrder(menuIDs: [2], client: "192.0.2.1")       // 12 + 2 minutes
        try await restaurant.addToOrder(menuItemID: 1, origin: nil)
        let before = await restaurant.snapshot()

        let full = RestaurantError.kitchenFull(limit: 2, nextReadyAt: first.readyAt)
        await #expect(throws: full) { try await restaurant.submitOrder(menuIDs: [1], client: "192.0.2.9") }
        await #expect(throws: full) { try await restaurant.submitOrder(origin: nil) }
        let after = await restaurant.snapshot()
        #expect(after.sequence == before.sequence, "a refused order stores nothing")
        #expect(after.state.order.map(\.menuItemID) == [1], "the windows' order is kept for later")

        // Past its ready time an order is made, even before the kitchen timer says so.
        manual.advance(by: .seconds(3 * 60))
        let third = try await restaurant.submitOrder(origin: nil)
        #expect(third.number == 3)
        await #expect(throws: RestaurantError.kitchenFull(limit: 2, nextReadyAt: testEpoch.addingTimeInterval(14 * 60))) {
            try await restaurant.submitOrder(menuIDs: [3])
        }
        try await restaurant.markReady(2)
        #expect(try await restaurant.submitOrder(menuIDs: [3]).number == 4)
    }

    @Test func oneClientHasAtMostItsShareOfTheKitchen() async throws {
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make(),
                                                  limits: OrderLimits(maximumOrdersInPreparationPerClient: 2))
        let first = try await restaurant.submitOrder(menuIDs: [3], client: "192.0.2.1")
        try await restaurant.submitOrder(menuIDs: [1], client: "192.0.2.1")
        let before = await restaurant.snapshot().sequence
        await #expect(throws: RestaurantError.tooManyOrdersInPreparation(limit: 2, nextReadyAt: first.readyAt)) {
            try await restaurant.submitOrder(menuIDs: [3], client: "192.0.2.1")
        }
        #expect(await restaurant.snapshot().sequence == before)

        #expect(try await restaurant.submitOrder(menuIDs: [3], client: "192.0.2.2").client == "192.0.2.2", "another address has its own share")
        #expect(try await restaurant.submitOrder(menuIDs: [3]).client == nil)
        try await restaurant.markReady(first.number)
        #expect(try await restaurant.submitOrder(menuIDs: [3], client: "192.0.2.1").client == "192.0.2.1")
    }

    @Test func anOrderHasAtMostItsLimitOfDishesFromEitherPath() async throws {
        let directory = TemporaryDirectory()
        let generous = try await openRestaurant(try SQLiteStorageFile(directory).open(), limits: OrderLimits(maximumDishesPerOrder: 4))
        await #expect(throws: RestaurantError.tooManyItems(count: 5, limit: 4)) {
            try await generous.submitOrder(menuIDs: [1, 1, 1, 1, 1])
        }
        await #expect(throws: RestaurantError.tooManyItems(count: 5, limit: 4), "counted before a single dish is looked up") {
            try await generous.submitOrder(menuIDs: [99, 99, 99, 99, 99])
        }
        for _ in 0..<4 { try await generous.addToOrder(menuItemID: 3, origin: nil) }
        await #expect(throws: RestaurantError.tooManyItems(count: 5, limit: 4)) {
            try await generous.addToOrder(menuItemID: 3, origin: nil)
        }
        await generous.controller.close()

        // A server restarted with a lower limit keeps the windows' order, but sends none larger.
        let strict = try await openRestaurant(try SQLiteStorageFile(directory).open(), limits: OrderLimits(maximumDishesPerOrder: 3))
        let before = await strict.snapshot()
        await #expect(throws: RestaurantError.tooManyItems(count: 4, limit: 3)) { try await strict.submitOrder(origin: nil) }
        let after = await strict.snapshot()
        #expect(after.sequence == before.sequence)
        #expect(after.state.order.count == 4 && after.state.kitchen.isEmpty)
    }

    @Test func refusalsSayWhatToDo() {
        #expect(RestaurantError.kitchenFull(limit: 100, nextReadyAt: nil).description
            == "The kitchen is making 100 orders, as many as it can; try again when one of them is ready.")
        #expect(RestaurantError.tooManyOrdersInPreparation(limit: 10, nextReadyAt: nil).code == "tooManyOrdersInPreparation")
        #expect(OrderLimits() == OrderLimits(maximumDishesPerOrder: 50, maximumOrdersInPreparation: 100, maximumOrdersInPreparationPerClient: 10,
                                             orderBurst: 5, orderInterval: .seconds(2), maximumTrackedClients: 10_000))
    }
}
