import Foundation
import Restaurant
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

struct RestaurantControllerTests {
    @Test(arguments: StorageKind.allCases)
    func addRemoveAndMoveBroadcastTypedEventsWithTheirOrigin(kind: StorageKind) async throws {
        let restaurant = try await openRestaurant(try kind.make())
        let recorder = EventRecorder(restaurant.events(after: 0))
        let scene = SceneSession.ID()
        let soup = try await restaurant.addToOrder(menuItemID: 1, origin: scene)
        let tart = try await restaurant.addToOrder(menuItemID: 3, origin: scene)
        let again = try await restaurant.addToOrder(menuItemID: 1, origin: nil)
        try await restaurant.moveInOrder(lineID: again.id, to: 0, origin: scene)
        try await restaurant.removeFromOrder(lineID: tart.id, origin: scene)
        let events = try await recorder.waitForEvents(count: 5)
        #expect(events.map(\.event) == [
            .itemAdded(soup, index: 0), .itemAdded(tart, index: 1), .itemAdded(again, index: 2),
            .itemMoved(lineID: again.id, from: 2, to: 0), .itemRemoved(lineID: tart.id, index: 2),
        ])
        #expect(events.map(\.origin) == [scene, scene, nil, scene, scene])
        #expect(soup.name == "Tomato Soup" && soup.priceInCents == 650)
        let state = await restaurant.snapshot().state
        #expect(state.order.map(\.id) == [again.id, soup.id])
        #expect(state.orderTotalInCents == 1_300)
    }

    @Test func refusedIntentsChangeNothing() async throws {
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make())
        let line = try await restaurant.addToOrder(menuItemID: 2, origin: nil)
        let before = await restaurant.snapshot()
        let stranger = UUID()
        await #expect(throws: RestaurantError.unknownMenuItem(42)) { try await restaurant.addToOrder(menuItemID: 42, origin: nil) }
        await #expect(throws: RestaurantError.unknownLine(stranger)) { try await restaurant.removeFromOrder(lineID: stranger, origin: nil) }
        await #expect(throws: RestaurantError.moveOutOfRange(index: 1, count: 1)) {
            try await restaurant.moveInOrder(lineID: line.id, to: 1, origin: nil)
        }
        await #expect(throws: RestaurantError.unknownMenuItem(9)) { try await restaurant.submitOrder(menuIDs: [1, 9]) }
        await #expect(throws: RestaurantError.emptyOrder) { try await restaurant.submitOrder(menuIDs: []) }
        await #expect(throws: RestaurantError.tooManyItems(count: 51, limit: 50)) {
            try await restaurant.submitOrder(menuIDs: Array(repeating: 1, count: 51))
        }
        let after = await restaurant.snapshot()
        #expect(after.sequence == before.sequence)
        #expect(after.state == before.state)
    }

    @Test func theSharedOrderHoldsAtMostAnOrdersDishes() async throws {
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make())
        #expect(restaurant.limits.maximumDishesPerOrder == 50)
        for _ in 0..<50 { try await restaurant.addToOrder(menuItemID: 3, origin: nil) }
        await #expect(throws: RestaurantError.tooManyItems(count: 51, limit: 50)) {
            try await restaurant.addToOrder(menuItemID: 3, origin: nil)
        }
        #expect(await restaurant.snapshot().state.order.count == 50)
    }

    @Test func submittingTheSharedOrderSendsItToTheKitchenAndEmptiesIt() async throws {
        let clock = KitchenClock(ManualClock(), startingAt: testEpoch)
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make(), clock: clock)
        await #expect(throws: RestaurantError.emptyOrder) { try await restaurant.submitOrder(origin: nil) }
        let first = try await restaurant.addToOrder(menuItemID: 1, origin: nil)
        let second = try await restaurant.addToOrder(menuItemID: 2, origin: nil)
        let scene = SceneSession.ID()
        let order = try await restaurant.submitOrder(origin: scene)
        // Slowest dish 12 minutes, plus a minute to plate the second, in an empty kitchen.
        #expect(order == KitchenOrder(number: 1, lines: [first, second], source: .sharedOrder, preparationTime: 13,
                                      submittedAt: testEpoch, readyAt: testEpoch.addingTimeInterval(13 * 60)))
        let state = await restaurant.snapshot().state
        #expect(state.order.isEmpty)
        #expect(state.kitchen == [order])
        #expect(order.totalInCents == 1_375)
    }

    @Test func anOrderFromTheMenuAPILeavesTheSharedOrderAlone() async throws {
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make())
        try await restaurant.addToOrder(menuItemID: 3, origin: nil)
        let order = try await restaurant.submitOrder(menuIDs: [1, 1, 3])
        #expect(order.source == .menuAPI)
        #expect(order.lines.map(\.menuItemID) == [1, 1, 3])
        #expect(await restaurant.snapshot().state.order.map(\.menuItemID) == [3])
    }

    @Test func aBusyKitchenTakesLonger() async throws {
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make())
        #expect(try await restaurant.submitOrder(menuIDs: [3]).preparationTime == 3)
        #expect(try await restaurant.submitOrder(menuIDs: [3]).preparationTime == 3 + 2)
        #expect(try await restaurant.submitOrder(menuIDs: [1, 2, 3]).preparationTime == 12 + 2 + 2 * 2)
        #expect(try await restaurant.markReady(1))
        #expect(try await restaurant.submitOrder(menuIDs: [3]).preparationTime == 3 + 2 * 2)
        #expect(try await restaurant.markReady(1) == false, "ready once")
    }

    @Test func theOrderAndTheKitchenSurviveARestart() async throws {
        let directory = TemporaryDirectory()
        let first = try await openRestaurant(try SQLiteStorageFile(directory).open())
        try await first.addToOrder(menuItemID: 2, origin: nil)
        let submitted = try await first.submitOrder(menuIDs: [1, 3])
        try await first.markReady(submitted.number)
        try await first.addToOrder(menuItemID: 1, origin: nil)
        let before = await first.snapshot()
        await first.controller.close()

        let second = try await openRestaurant(try SQLiteStorageFile(directory).open())
        let after = await second.snapshot()
        #expect(after.state == before.state)
        #expect(after.sequence == before.sequence)
        #expect(after.state.nextOrderNumber == 2)
    }

    @Test func theKitchenForgetsTheOldestReadyOrdersBeyondItsLimit() async throws {
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make())
        let limit = RestaurantLimits.keptKitchenOrders
        for _ in 0..<limit { try await restaurant.submitOrder(menuIDs: [3]) }
        try await restaurant.markReady(2)
        try await restaurant.submitOrder(menuIDs: [3])
        var kitchen = await restaurant.snapshot().state.kitchen
        #expect(kitchen.count == limit)
        #expect(!kitchen.contains { $0.number == 2 }, "the one ready order went")
        #expect(kitchen.first?.number == 1, "orders still being made stay")
        try await restaurant.submitOrder(menuIDs: [3])
        kitchen = await restaurant.snapshot().state.kitchen
        #expect(kitchen.count == limit + 1, "nothing ready to forget")
        #expect(kitchen.last?.number == limit + 2)
    }
}

/// A SQLite file in a folder, opened afresh each time, as a restarted server opens it.
struct SQLiteStorageFile {
    let directory: TemporaryDirectory
    init(_ directory: TemporaryDirectory) { self.directory = directory }
    func open() throws -> any SceneSyncStorage {
        try SQLiteStorage(path: directory.path("restaurant.sqlite"))
    }
}
