import Foundation
import Restaurant
import SceneSyncServer
import SceneSyncServerTesting
import SceneSyncUI
import Testing

/// Restaurant's windows over real WebSockets: an order through the menu API reaches them, and a
/// full kitchen refuses a window's order with a message it shows.
@Suite(.serialized) @MainActor
struct RestaurantWindowTests {
    @Test func anOrderThroughTheMenuAPIShowsInEveryWindowWithItsDeadline() async throws {
        try await LiveRestaurant.run { server in
            let left = try await server.openWindow()
            let right = try await server.openWindow()
            for window in [left, right] {
                window.act("select", on: SceneWindow.NodeID.tab(RestaurantCoordinator.TabID.order))
                try await window.waitUntil("the Order tab") { window.view?.node(OrderScreen.NodeID.table) != nil }
            }
            let before = Date()
            let answer = try await server.request("/order", method: "POST", headers: ["Content-Type": "application/json"],
                                                  body: Data(#"{"menuIds": [1, 2]}"#.utf8))
            #expect(answer.status == 200)
            let minutes = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Int])["preparation_time"]
            let row = OrderScreen.NodeID.kitchenOrder(1)
            for window in [left, right] {
                try await window.waitUntil("the order in the kitchen") { window.view?.node(row) != nil }
                let countdown = try #require(window.view?.node(row)?.props["countdown"]?.int)
                let expected = before.addingTimeInterval(Double(try #require(minutes)) * 60).timeIntervalSince1970 * 1000
                #expect(abs(Double(countdown) - expected) < 5_000, "the deadline the browser counts down to")
            }
            // The welcome carries the server's clock, which the renderer reads deadlines against.
            guard case let .welcome(_, _, _, time)? = left.messages.first(where: { $0.type == .welcome }) else {
                Issue.record("no welcome")
                return
            }
            #expect(abs(time.timeIntervalSince(before)) < 60)
        }
    }

    @Test func aFullKitchenRefusesAWindowsOrderWithAMessage() async throws {
        try await LiveRestaurant.run(limits: OrderLimits(maximumOrdersInPreparation: 1)) { server in
            let answer = try await server.request("/order", method: "POST", headers: ["Content-Type": "application/json"],
                                                  body: Data(#"{"menuIds": [1]}"#.utf8))
            #expect(answer.status == 200)
            let window = try await server.openWindow()
            let dish = try #require(server.menu.items(in: "soups").first)
            window.act("select", on: CategoriesScreen.NodeID.row("soups"))
            try await window.waitUntil("the soups") { window.view?.node(MenuItemsScreen.NodeID.row(dish.id)) != nil }
            window.act("select", on: MenuItemsScreen.NodeID.row(dish.id))
            try await window.waitUntil("the dish") { window.view?.node(MenuItemDetailScreen.NodeID.add) != nil }
            window.tap(MenuItemDetailScreen.NodeID.add)
            window.act("select", on: SceneWindow.NodeID.tab(RestaurantCoordinator.TabID.order))
            try await window.waitUntil("the dish in the order") { window.view?.node(OrderScreen.NodeID.emptyOrder) == nil
                && window.view?.node(OrderScreen.NodeID.lines)?.children.isEmpty == false }
            window.tap(OrderScreen.NodeID.submit)
            try await window.waitUntil("the confirmation") { window.view?.node(OrderScreen.NodeID.confirmSubmit) != nil }
            let submit = window.act("Submit", on: OrderScreen.NodeID.confirmSubmit)
            @MainActor func refusal() -> String? {
                window.messages.lazy.compactMap { message -> String? in
                    if case let .error(ref?, _, text) = message, ref == submit { text } else { nil }
                }.first
            }
            try await window.waitUntil("the refusal") { refusal() != nil }
            #expect(refusal() == RestaurantError.kitchenFull(limit: 1, nextReadyAt: nil).description)
            #expect(window.view?.node(OrderScreen.NodeID.kitchenOrder(2)) == nil)
            #expect(try await MenuAPITests().storedOrders(server).count == 1)
        }
    }
}
