import Foundation
import Logging
import Restaurant
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

struct KitchenTimerTests {
    func withTimer(_ restaurant: RestaurantController, _ body: () async throws -> Void) async throws {
        try await withKitchenTimer(restaurant, body)
    }

    @Test func anOrderTurnsReadyWhenItsTimeIsUp() async throws {
        let manual = ManualClock()
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make(), clock: KitchenClock(manual, startingAt: testEpoch))
        let recorder = EventRecorder(restaurant.events(after: 0))
        let slow = try await restaurant.submitOrder(menuIDs: [2])      // 12 minutes
        let quick = try await restaurant.submitOrder(menuIDs: [3])     // 3 + 2 minutes
        // The timer starts four minutes in: it looks at the kitchen then, and sleeps once it has
        // marked ready whatever was due.
        manual.advance(by: .seconds(4 * 60))
        try await withTimer(restaurant) {
            try await waitUntil("the timer to sleep") { manual.sleeperCount > 0 }
            #expect(await restaurant.snapshot().sequence == 2, "nothing is due yet")
            manual.advance(by: .seconds(60))
            #expect(try await recorder.waitForEvents(count: 3).last?.event == .orderReady(number: quick.number))
            manual.advance(by: .seconds(7 * 60))
            #expect(try await recorder.waitForEvents(count: 4).last?.event == .orderReady(number: slow.number))
        }
        #expect(await restaurant.snapshot().state.ordersInPreparation.isEmpty)
    }

    @Test func anOrderDueWhileTheServerWasDownIsReadyOnceAfterARestart() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("restaurant.sqlite")
        let first = try await openRestaurant(try SQLiteStorage(path: path), clock: KitchenClock(ManualClock(), startingAt: testEpoch))
        let order = try await first.submitOrder(menuIDs: [1])
        await first.controller.close()

        // The server comes back 20 minutes later: the 8-minute order fell due meanwhile. (Ready
        // orders are kept an hour for pick-up here, so that it stays to be looked at.)
        let later = ManualClock()
        let keep = OrderLimits(pickupTime: .seconds(60 * 60))
        let second = try await openRestaurant(try SQLiteStorage(path: path),
                                              clock: KitchenClock(later, startingAt: testEpoch.addingTimeInterval(20 * 60)), limits: keep)
        let start = await second.snapshot().sequence
        let recorder = EventRecorder(second.events(after: start))
        try await withTimer(second) {
            let events = try await recorder.waitForEvents(count: 1)
            #expect(events.map(\.event) == [.orderReady(number: order.number)])
        }
        await second.controller.close()

        // And once more: it is not marked ready twice.
        let lastLook = ManualClock()
        let third = try await openRestaurant(try SQLiteStorage(path: path),
                                             clock: KitchenClock(lastLook, startingAt: testEpoch.addingTimeInterval(30 * 60)), limits: keep)
        let sequence = await third.snapshot().sequence
        let afterRestart = EventRecorder(third.events(after: sequence))
        try await withTimer(third) {
            // Asleep until the ready order's pick-up deadline: it has looked, and found nothing due.
            try await waitUntil("the timer to sleep") { lastLook.sleeperCount > 0 || !afterRestart.events.isEmpty }
        }
        #expect(await third.snapshot().sequence == sequence)
        #expect(await third.snapshot().state.kitchenOrder(order.number)?.isReady == true)
    }

    @Test func aNewOrderDueSoonerWakesTheTimer() async throws {
        let manual = ManualClock()
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make(), clock: KitchenClock(manual, startingAt: testEpoch))
        let recorder = EventRecorder(restaurant.events(after: 0))
        try await withTimer(restaurant) {
            try await restaurant.submitOrder(menuIDs: [2])                 // ready at 12 minutes
            try await waitUntil("the timer to sleep") { manual.sleeperCount > 0 }
            try await restaurant.submitOrder(menuIDs: [3])                 // ready at 5 minutes
            manual.advance(by: .seconds(5 * 60))
            #expect(try await recorder.waitForEvents(count: 3).last?.event == .orderReady(number: 2))
        }
    }
}
