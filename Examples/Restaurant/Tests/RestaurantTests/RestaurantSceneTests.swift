import Foundation
import Logging
import Restaurant
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import SceneSyncUI
import Testing

/// Restaurant's windows, driven headless: what two windows show as one of them orders.
@MainActor
struct RestaurantSceneTests {
    typealias Order = OrderScreen.NodeID
    typealias TabID = RestaurantCoordinator.TabID

    func launch(
        _ storage: any SceneSyncStorage, clock: KitchenClock = .system, limits: OrderLimits = .init()
    ) async throws -> (SceneHost, RestaurantController) {
        try await launchRestaurant(storage, clock: clock, limits: limits)
    }

    func tab(_ id: String) -> String { SceneWindow.NodeID.tab(id) }

    func badge(_ window: HostedWindow) -> String? { window.text(tab(TabID.order), "badge") }

    /// The titles of the rows in a section of the window's screen.
    func rows(_ section: String, in window: HostedWindow) -> [String] {
        window.node(section)?.children.filter { $0.kind == .row }.compactMap { $0.props["title"]?.string } ?? []
    }

    /// Opens the dish `id` from the Menu tab's category list.
    func openDish(_ id: Int, category: String, in window: HostedWindow, host: SceneHost) async throws {
        try await host.perform("select", on: CategoriesScreen.NodeID.row(category), in: window)
        try await host.perform("select", on: MenuItemsScreen.NodeID.row(id), in: window)
    }

    @Test func addingInOneWindowChangesTheBadgeAndTheOrderInBoth() async throws {
        let (host, restaurant) = try await launch(try StorageKind.inMemory.make())
        let menuWindow = try await host.openWindow()
        let orderWindow = try await host.openWindow()
        try await host.perform("select", on: tab(TabID.order), in: orderWindow)
        let tabs = try #require(menuWindow.node(SceneWindow.NodeID.tabBar)).children
        #expect(tabs.map { $0.props["label"] } == ["Menu", "Order"])
        #expect(badge(menuWindow) == nil && badge(orderWindow) == nil, "no badge at 0")
        #expect(orderWindow.node(Order.emptyOrder) != nil)

        try await openDish(2, category: "soups", in: menuWindow, host: host)
        #expect(menuWindow.title == "Onion Soup")
        #expect(menuWindow.text(MenuItemDetailScreen.NodeID.price, "text") == "$7.25")
        #expect(menuWindow.text(MenuItemDetailScreen.NodeID.image, "src") == "/restaurant/assets/2.png")
        try await host.tap(MenuItemDetailScreen.NodeID.add, in: menuWindow)
        try await host.waitUntil("the badge in both windows") { badge(menuWindow) == "1" && badge(orderWindow) == "1" }
        #expect(menuWindow.noticeTexts == ["Added Onion Soup to your order."])
        #expect(orderWindow.noticeTexts.isEmpty, "the confirmation shows in the window that added")
        #expect(rows(Order.lines, in: orderWindow) == ["Onion Soup"])
        #expect(orderWindow.text(Order.lines, "footer") == "Total $7.25")

        try await host.tap(MenuItemDetailScreen.NodeID.add, in: menuWindow)
        try await host.back(in: menuWindow)
        try await host.perform("select", on: MenuItemsScreen.NodeID.row(1), in: menuWindow)
        try await host.tap(MenuItemDetailScreen.NodeID.add, in: menuWindow)
        try await host.waitUntil("three dishes") { badge(orderWindow) == "3" && badge(menuWindow) == "3" }
        #expect(rows(Order.lines, in: orderWindow) == ["Onion Soup", "Onion Soup", "Tomato Soup"])
        #expect(orderWindow.text(Order.lines, "footer") == "Total $21.00")
        #expect(await restaurant.snapshot().state.order.count == 3)
        #expect(menuWindow.patchFailures.isEmpty && orderWindow.patchFailures.isEmpty)
    }

    @Test func deleteAndMoveInEditModeShowInBothWindows() async throws {
        let (host, restaurant) = try await launch(try StorageKind.inMemory.make())
        let soup = try await restaurant.addToOrder(menuItemID: 1, origin: nil)
        let tart = try await restaurant.addToOrder(menuItemID: 3, origin: nil)
        let onion = try await restaurant.addToOrder(menuItemID: 2, origin: nil)
        let left = try await host.openWindow()
        let right = try await host.openWindow()
        for window in [left, right] { try await host.perform("select", on: tab(TabID.order), in: window) }
        #expect(rows(Order.lines, in: right) == ["Tomato Soup", "Lemon Tart", "Onion Soup"])

        try await host.tap(Order.edit, in: left)
        #expect(left.text(Order.edit, "label") == "Done")
        #expect(left.node(Order.table)?.props["editing"] == true)
        #expect(right.node(Order.table)?.props["editing"] == false, "edit mode is the window's own")
        #expect(left.node(Order.line(soup.id))?.props["deletable"] == true)
        #expect(left.node(Order.line(soup.id))?.props["movable"] == true)

        try await host.perform("move", on: Order.line(onion.id), value: 0, in: left)
        try await host.waitUntil("the move on the right") { rows(Order.lines, in: right).first == "Onion Soup" }
        try await host.perform("delete", on: Order.line(tart.id), in: left)
        try await host.waitUntil("the delete on the right") { rows(Order.lines, in: right) == ["Onion Soup", "Tomato Soup"] }
        try await host.waitUntil("the badges") { badge(left) == "2" && badge(right) == "2" }
        #expect(rows(Order.lines, in: left) == rows(Order.lines, in: right))
        #expect(right.text(Order.lines, "footer") == "Total $13.75")

        // A row the order no longer has answers nothing, whatever a window sends.
        await #expect(throws: (any Error).self) { try await host.perform("delete", on: Order.line(tart.id), in: right) }
        #expect(await restaurant.snapshot().state.order.map(\.id) == [onion.id, soup.id])
        #expect(left.patchFailures.isEmpty && right.patchFailures.isEmpty)
    }

    @Test func submittingEmptiesTheOrderInBothWindowsAndBothShowTheCountdown() async throws {
        let clock = KitchenClock(ManualClock(), startingAt: testEpoch)
        let (host, restaurant) = try await launch(try StorageKind.inMemory.make(), clock: clock)
        let left = try await host.openWindow()
        let right = try await host.openWindow()
        for window in [left, right] { try await host.perform("select", on: tab(TabID.order), in: window) }

        try await host.tap(Order.submit, in: left)
        #expect(left.node(Order.emptyAlert) != nil, "an empty order is not submitted")
        try await host.perform("OK", on: Order.emptyAlert, in: left)
        #expect(await restaurant.snapshot().state.kitchen.isEmpty)

        try await restaurant.addToOrder(menuItemID: 1, origin: nil)
        try await restaurant.addToOrder(menuItemID: 2, origin: nil)
        try await host.waitUntil("two dishes on the left") { rows(Order.lines, in: left).count == 2 }
        try await host.tap(Order.submit, in: left)
        let alert = try #require(left.node(Order.confirmSubmit))
        #expect(alert.props["message"] == "2 dishes for a total of $13.75.")
        #expect(alert.props["buttons"] == [["name": "Cancel", "label": "Cancel", "role": "cancel"], ["name": "Submit", "label": "Submit", "role": "primary"]])
        #expect(right.node(Order.confirmSubmit) == nil)
        try await host.perform("Cancel", on: Order.confirmSubmit, in: left)
        #expect(await restaurant.snapshot().state.kitchen.isEmpty, "Cancel submits nothing")

        try await host.tap(Order.submit, in: left)
        try await host.perform("Submit", on: Order.confirmSubmit, in: left)
        for window in [left, right] {
            try await host.waitUntil("the kitchen's row") { window.node(Order.kitchenOrder(1)) != nil }
            #expect(window.node(Order.emptyOrder) != nil)
            #expect(badge(window) == nil)
            let row = try #require(window.node(Order.kitchenOrder(1)))
            #expect(row.props["title"] == "Order #1")
            #expect(row.props["subtitle"] == "2 dishes · $13.75")
            #expect(row.props["countdown"] == .time(testEpoch.addingTimeInterval(13 * 60)))
            #expect(row.props["detail"] == nil)
        }
        #expect(left.noticeTexts.last == "Order #1 is in the kitchen: ready in 13 minutes.")

        try await restaurant.markReady(1)
        for window in [left, right] {
            try await host.waitUntil("Ready") { window.node(Order.kitchenOrder(1))?.props["detail"] == "Ready" }
            #expect(window.node(Order.kitchenOrder(1))?.props["countdown"] == nil)
        }
        #expect(left.patchFailures.isEmpty && right.patchFailures.isEmpty)
    }

    @Test func aFullKitchenRefusesTheWindowsOrderAndBothWindowsKeepIt() async throws {
        let (host, restaurant) = try await launch(try StorageKind.inMemory.make(), limits: OrderLimits(maximumOrdersInPreparation: 1))
        let left = try await host.openWindow()
        let right = try await host.openWindow()
        for window in [left, right] { try await host.perform("select", on: tab(TabID.order), in: window) }
        let first = try await restaurant.submitOrder(menuIDs: [3])
        try await restaurant.addToOrder(menuItemID: 1, origin: nil)
        try await host.waitUntil("the dish on the left") { rows(Order.lines, in: left) == ["Tomato Soup"] }

        try await host.tap(Order.submit, in: left)
        await #expect(throws: RestaurantError.kitchenFull(limit: 1, nextReadyAt: first.readyAt)) {
            try await host.perform("Submit", on: Order.confirmSubmit, in: left)
        }
        #expect(await restaurant.snapshot().state.kitchen.map(\.number) == [first.number])
        for window in [left, right] {
            #expect(rows(Order.lines, in: window) == ["Tomato Soup"])
            #expect(badge(window) == "1")
            #expect(window.node(Order.kitchenOrder(2)) == nil)
        }

        try await restaurant.markReady(first.number)
        try await host.tap(Order.submit, in: left)
        try await host.perform("Submit", on: Order.confirmSubmit, in: left)
        try await host.waitUntil("the order in the kitchen on the right") { right.node(Order.kitchenOrder(2)) != nil }
    }

    @Test func anOrderThroughTheMenuAPIShowsInEveryWindow() async throws {
        let (host, restaurant) = try await launch(try StorageKind.inMemory.make())
        let left = try await host.openWindow()
        let right = try await host.openWindow()
        try await host.perform("select", on: tab(TabID.order), in: left)
        try await restaurant.addToOrder(menuItemID: 3, origin: nil)
        let order = try await restaurant.submitOrder(menuIDs: [1, 1])
        try await host.waitUntil("the order on the left") { left.node(Order.kitchenOrder(order.number)) != nil }
        #expect(rows(Order.lines, in: left) == ["Lemon Tart"], "the shared order stays")
        try await host.perform("select", on: tab(TabID.order), in: right)
        try await host.waitUntil("the order on the right") { right.node(Order.kitchenOrder(order.number)) != nil }
        #expect(right.node(Order.kitchenOrder(order.number))?.props["subtitle"] == "2 dishes · $13.00")
        #expect(badge(right) == "1")
    }

    @Test func eachWindowsPlaceSurvivesReloadAndRestart() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("restaurant.sqlite")
        var (host, restaurant) = try await launch(try SQLiteStorage(path: path))
        let dish = try await host.openWindow()
        try await openDish(3, category: "desserts", in: dish, host: host)
        let order = try await host.openWindow()
        try await host.perform("select", on: tab(TabID.order), in: order)
        try await restaurant.addToOrder(menuItemID: 3, origin: nil)
        try await host.waitUntil("the order") { rows(Order.lines, in: order) == ["Lemon Tart"] }

        try await host.reload(dish)
        #expect(dish.title == "Lemon Tart")
        try await host.back(in: dish)
        #expect(dish.title == "Desserts")
        try await host.perform("select", on: MenuItemsScreen.NodeID.row(3), in: dish)

        try await host.hide(dish)
        try await host.hide(order)
        await host.terminate()
        (host, restaurant) = try await launch(try SQLiteStorage(path: path))
        let restoredDish = try await host.openWindow(session: dish.sessionID)
        let restoredOrder = try await host.openWindow(session: order.sessionID)
        #expect(restoredDish.title == "Lemon Tart")
        #expect(restoredOrder.node(tab(TabID.order))?.props["selected"] == true)
        #expect(rows(Order.lines, in: restoredOrder) == ["Lemon Tart"])
        try await host.waitUntil("the badge after the restart") { badge(restoredDish) == "1" }
    }

    @Test func theBadgeSubscriptionEndsWhenTheSceneDisconnects() async throws {
        let (host, restaurant) = try await launch(try StorageKind.inMemory.make())
        let baseline = restaurant.controller.subscriberCount
        let window = try await host.openWindow()
        weak let badgeController = try #require(window.delegate(as: RestaurantSceneDelegate.self)?.badge)
        weak let sceneDelegate = window.delegate(as: RestaurantSceneDelegate.self)
        #expect(badgeController?.isSubscribed == true)
        try await restaurant.addToOrder(menuItemID: 1, origin: nil)
        try await host.waitUntil("the badge") { badge(window) == "1" }
        #expect(restaurant.controller.subscriberCount > baseline)

        await host.disconnect(window)
        try await host.waitUntil("the subscriptions to end") { restaurant.controller.subscriberCount == baseline }
        try await host.waitUntil("the badge controller to be released") { badgeController == nil }
        try await host.waitUntil("the scene delegate to be released: no retain cycle keeps it") { sceneDelegate == nil }
    }
}

extension RestaurantSceneTests {
    /// The seed's concern: the sink holds its owner weakly, so letting go of the controller ends
    /// the pipeline even if no one called `stop()`.
    @Test func aBadgeControllerLetGoOfEndsItsSubscriptionWithoutStop() async throws {
        let (host, restaurant) = try await launch(try StorageKind.inMemory.make())
        let window = try await host.openWindow()
        try await restaurant.addToOrder(menuItemID: 1, origin: nil)
        // The window's own pipeline has subscribed once its badge shows.
        try await host.waitUntil("the window's badge") { badge(window) == "1" }
        let sceneWindow = try #require(window.scene?.window)
        let baseline = restaurant.controller.followerCount
        var controller: OrderBadgeController? = OrderBadgeController(window: sceneWindow, tab: TabID.order)
        weak let released = controller
        controller?.start(following: restaurant)
        try await host.waitUntil("the pipeline to subscribe") { restaurant.controller.followerCount == baseline + 1 }
        controller = nil
        #expect(released == nil, "no retain cycle through the sink")
        try await host.waitUntil("the subscription to end") { restaurant.controller.followerCount == baseline }
    }
}
