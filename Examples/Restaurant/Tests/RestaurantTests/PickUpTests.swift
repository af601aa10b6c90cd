import Foundation
import Logging
import Restaurant
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import SceneSyncUI
import Testing

/// Ready orders leave the kitchen list: picked up from a window, or by themselves when nobody
/// picks them up in time; and every window hears that an order is ready.
@MainActor
struct PickUpTests {
    typealias Order = OrderScreen.NodeID
    typealias TabID = RestaurantCoordinator.TabID

    func withTimer(_ restaurant: RestaurantController, _ body: () async throws -> Void) async throws {
        try await withKitchenTimer(restaurant, body)
    }

    func kitchenRows(in window: HostedWindow) -> [String] {
        window.node(Order.kitchen)?.children.filter { $0.kind == .row }.compactMap { $0.props["title"]?.string } ?? []
    }

    let pickedUpAction: ViewValue = [["name": "pickedUp", "label": "Picked Up"]]

    @Test func pickingUpAReadyOrderInOneWindowTakesItOutOfBoth() async throws {
        let clock = KitchenClock(ManualClock(), startingAt: testEpoch)
        let (host, restaurant) = try await launchRestaurant(try StorageKind.onDisk.make(), clock: clock)
        let left = try await host.openWindow()
        let right = try await host.openWindow()
        for window in [left, right] { try await host.perform("select", on: SceneWindow.NodeID.tab(TabID.order), in: window) }
        let first = try await restaurant.submitOrder(menuIDs: [3])
        let second = try await restaurant.submitOrder(menuIDs: [1])
        try await host.waitUntil("both orders in both windows") {
            kitchenRows(in: left) == ["Order #2", "Order #1"] && kitchenRows(in: right) == ["Order #2", "Order #1"]
        }
        // Not ready: no Picked Up on the row, and a window that sends it anyway is refused.
        #expect(left.node(Order.kitchenOrder(first.number))?.props["actions"] == nil)
        await #expect(throws: RestaurantError.orderNotReady(first.number)) {
            try await host.perform(OrderScreen.pickedUp, on: Order.kitchenOrder(first.number), in: left)
        }

        try await restaurant.markReady(first.number)
        for window in [left, right] {
            try await host.waitUntil("Picked Up on the ready row") {
                window.node(Order.kitchenOrder(first.number))?.props["actions"] == pickedUpAction
            }
            #expect(window.node(Order.kitchenOrder(second.number))?.props["actions"] == nil, "only a ready order")
        }
        let recorder = EventRecorder(restaurant.events(after: await restaurant.snapshot().sequence))
        try await host.perform(OrderScreen.pickedUp, on: Order.kitchenOrder(first.number), in: left)
        for window in [left, right] {
            try await host.waitUntil("the row gone") { kitchenRows(in: window) == ["Order #2"] }
        }
        let events = try await recorder.waitForEvents(count: 1)
        #expect(events.map(\.event) == [.orderPickedUp(number: first.number)])
        #expect(events.map(\.origin) == [left.sessionID], "the window that picked it up is the origin")
        #expect(await restaurant.snapshot().state.kitchen.map(\.number) == [second.number])

        // Picked up already (say, in the other window a moment before): the restaurant refuses it.
        await #expect(throws: RestaurantError.unknownOrder(first.number)) { try await restaurant.pickUp(first.number, origin: nil) }
        await #expect(throws: RestaurantError.unknownOrder(99)) { try await restaurant.pickUp(99, origin: nil) }
        await #expect(throws: RestaurantError.orderNotReady(second.number)) { try await restaurant.pickUp(second.number, origin: nil) }
        #expect(RestaurantError.orderNotReady(2).code == "orderNotReady")
        #expect(RestaurantError.unknownOrder(99).description == "The kitchen has no order #99; it may have been picked up already.")

        // The last one picked up: the kitchen shows its empty state, and numbers go on.
        try await restaurant.markReady(second.number)
        try await host.waitUntil("the second ready") { right.node(Order.kitchenOrder(second.number))?.props["actions"] == pickedUpAction }
        try await host.perform(OrderScreen.pickedUp, on: Order.kitchenOrder(second.number), in: right)
        for window in [left, right] {
            try await host.waitUntil("the empty kitchen") { kitchenRows(in: window).isEmpty && window.node(Order.emptyKitchen) != nil }
        }
        #expect(try await restaurant.submitOrder(menuIDs: [2]).number == 3, "a number is never given twice")
        #expect(left.patchFailures.isEmpty && right.patchFailures.isEmpty)
    }

    @Test func aReadyOrderNobodyPicksUpLeavesByItselfAfterTheDelay() async throws {
        let manual = ManualClock()
        let (host, restaurant) = try await launchRestaurant(try StorageKind.inMemory.make(), clock: KitchenClock(manual, startingAt: testEpoch),
                                                  limits: OrderLimits(pickupTime: .seconds(4 * 60)))
        let window = try await host.openWindow()
        try await host.perform("select", on: SceneWindow.NodeID.tab(TabID.order), in: window)
        let recorder = EventRecorder(restaurant.events(after: 0))
        try await withTimer(restaurant) {
            let tart = try await restaurant.submitOrder(menuIDs: [3])           // ready at 3 minutes
            #expect(restaurant.pickupDeadline(for: tart) == testEpoch.addingTimeInterval(7 * 60))
            try await waitUntil("the timer to sleep") { manual.sleeperCount > 0 }
            manual.advance(by: .seconds(2 * 60 - 1))
            // Ready a second before the tart must leave: the timer wakes then.
            let collected = try await restaurant.submitOrder(menuIDs: [3])      // 3 + 2 minutes after 1:59
            #expect(collected.readyAt == testEpoch.addingTimeInterval(7 * 60 - 1))

            manual.advance(by: .seconds(5 * 60))
            let ready = try await recorder.waitForEvents(count: 4).map(\.event)
            #expect(ready.suffix(2) == [.orderReady(number: tart.number), .orderReady(number: collected.number)])
            // The timer marked them ready at the moment the clock shows, and looked for orders to
            // clear before it went back to sleep.
            try await waitUntil("the timer to sleep again") { manual.sleeperCount > 0 }
            #expect(await restaurant.snapshot().sequence == 4, "a second before the deadline, the ready order stays")
            try await restaurant.pickUp(collected.number, origin: nil)
            try await host.waitUntil("the picked-up order gone") { kitchenRows(in: window) == ["Order #1"] }

            manual.advance(by: .seconds(1))
            let events = try await recorder.waitForEvents(count: 6).map(\.event)
            #expect(events.suffix(2) == [.orderPickedUp(number: collected.number), .orderUncollected(number: tart.number)])
            try await host.waitUntil("the uncollected order gone") { kitchenRows(in: window).isEmpty }
        }
        #expect(await restaurant.snapshot().state.kitchen.isEmpty)
        // Only a ready order past its deadline leaves: asking early changes nothing.
        let early = try await restaurant.submitOrder(menuIDs: [1])
        try await restaurant.markReady(early.number)
        #expect(try await restaurant.clearUncollected(early.number) == false)
        #expect(await restaurant.snapshot().state.kitchenOrder(early.number) != nil)
    }

    @Test func afterARestartAPickedUpOrderIsGoneAndAnExpiredReadyOneGoes() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("restaurant.sqlite")
        let first = try await openRestaurant(try SQLiteStorage(path: path), clock: KitchenClock(ManualClock(), startingAt: testEpoch))
        let picked = try await first.submitOrder(menuIDs: [3])     // ready at 3 minutes
        let forgotten = try await first.submitOrder(menuIDs: [3])  // ready at 5 minutes: gone at 15
        let later = try await first.submitOrder(menuIDs: [1])      // ready at 12 minutes: gone at 22
        try await first.markReady(picked.number)
        try await first.markReady(forgotten.number)
        try await first.pickUp(picked.number, origin: nil)
        await first.controller.close()

        // Back 16 minutes in: the picked-up order is gone; the forgotten one is past its deadline.
        let clock = KitchenClock(ManualClock(), startingAt: testEpoch.addingTimeInterval(16 * 60))
        let second = try await openRestaurant(try SQLiteStorage(path: path), clock: clock)
        let state = await second.snapshot().state
        #expect(state.kitchen.map(\.number) == [forgotten.number, later.number])
        let recorder = EventRecorder(second.events(after: await second.snapshot().sequence))
        try await withTimer(second) {
            let events = try await recorder.waitForEvents(count: 2)
            #expect(events.map(\.event) == [.orderReady(number: later.number), .orderUncollected(number: forgotten.number)])
        }
        await second.controller.close()

        // And it stays gone; the next order's number follows the last one given.
        let third = try await openRestaurant(try SQLiteStorage(path: path), clock: clock)
        #expect(await third.snapshot().state.kitchen.map(\.number) == [later.number])
        try await third.pickUp(later.number, origin: nil)
        await third.controller.close()
        let fourth = try await openRestaurant(try SQLiteStorage(path: path), clock: clock)
        #expect(await fourth.snapshot().state.kitchen.isEmpty)
        #expect(try await fourth.submitOrder(menuIDs: [3]).number == 4)
    }

    @Test func everyWindowIsToldOnceThatAnOrderIsReadyOnTheMenuTabToo() async throws {
        let directory = TemporaryDirectory()
        let (host, restaurant) = try await launchRestaurant(try SQLiteStorage(path: directory.path("restaurant.sqlite")),
                                                  clock: KitchenClock(ManualClock(), startingAt: testEpoch))
        let onMenu = try await host.openWindow()
        try await host.perform("select", on: CategoriesScreen.NodeID.row("soups"), in: onMenu)
        let onOrder = try await host.openWindow()
        try await host.perform("select", on: SceneWindow.NodeID.tab(TabID.order), in: onOrder)
        let order = try await restaurant.submitOrder(menuIDs: [2])
        try await host.waitUntil("the order in the kitchen") { onOrder.node(Order.kitchenOrder(order.number)) != nil }
        #expect(onMenu.noticeTexts.isEmpty && onOrder.noticeTexts.isEmpty, "in the kitchen is no news yet")

        try await restaurant.markReady(order.number)
        for window in [onMenu, onOrder] {
            try await host.waitUntil("the notice") { window.noticeTexts == ["Order #1 is ready"] }
        }
        #expect(onMenu.title == "Soups", "the notice leaves the window where it was")
        #expect(try await restaurant.markReady(order.number) == false)
        // The next order ready is the next notice: nothing came in between.
        let second = try await restaurant.submitOrder(menuIDs: [3])
        try await restaurant.markReady(second.number)
        for window in [onMenu, onOrder] {
            try await host.waitUntil("the second notice") { window.noticeTexts.last == "Order #2 is ready" }
            #expect(window.noticeTexts == ["Order #1 is ready", "Order #2 is ready"], "once each")
        }

        // A window that reloads, reconnects, or opens later is not told again: the next order ready
        // is the first notice it shows.
        try await host.reload(onMenu)
        try await host.resume(onOrder)
        let opened = try await host.openWindow()
        for window in [onMenu, onOrder, opened] { #expect(window.noticeTexts.isEmpty) }

        // The next order is news again, to each of them once.
        let next = try await restaurant.submitOrder(menuIDs: [3])
        try await restaurant.markReady(next.number)
        for window in [onMenu, onOrder, opened] {
            try await host.waitUntil("the next notice") { window.noticeTexts.last == "Order #3 is ready" }
            #expect(window.noticeTexts == ["Order #3 is ready"])
        }
        #expect(onMenu.patchFailures.isEmpty && onOrder.patchFailures.isEmpty && opened.patchFailures.isEmpty)
    }

    @Test func theReadyNoticesEndWhenTheSceneDisconnects() async throws {
        let (host, _) = try await launchRestaurant(try StorageKind.inMemory.make())
        let window = try await host.openWindow()
        weak let notices = try #require(window.delegate(as: RestaurantSceneDelegate.self)?.readyNotices)
        try await host.waitUntil("the notices to follow") { notices?.isFollowing == true }
        await host.disconnect(window)
        try await host.waitUntil("the controller to be released") { notices == nil }
    }
}
