import Foundation
import Restaurant
import SceneSync
import SceneSyncTestSupport
import SceneSyncTesting
import SceneSyncUI
import Testing

/// Removing a dish from the order offers Undo in the window that removed it: the line comes back,
/// with its id, dish and price, at its place, in every window, through the restaurant's controller.
@MainActor
struct OrderUndoTests {
    typealias Order = OrderScreen.NodeID

    func tab(_ id: String) -> String { SceneWindow.NodeID.tab(id) }

    func notices(_ window: HostedWindow) -> [ViewNode] { window.view?.nodes(of: .notice) ?? [] }

    func rows(_ window: HostedWindow) -> [String] {
        window.node(Order.lines)?.children.filter { $0.kind == .row }.compactMap { $0.props["title"]?.string } ?? []
    }

    @Test func undoPutsTheRemovedDishBackAtItsPlaceInEveryWindow() async throws {
        let (host, restaurant) = try await launchRestaurant(try StorageKind.inMemory.make())
        for dish in [1, 3, 2] { try await restaurant.addToOrder(menuItemID: dish, origin: nil) }
        let before = await restaurant.snapshot().state.order
        let removing = try await host.openWindow()
        let other = try await host.openWindow()
        for window in [removing, other] { try await host.perform("select", on: tab(RestaurantCoordinator.TabID.order), in: window) }

        try await host.tap(Order.edit, in: removing)
        try await host.perform("delete", on: Order.line(before[1].id), in: removing)
        try await host.waitUntil("the removal in the other window") { rows(other) == ["Tomato Soup", "Onion Soup"] }
        let notice = try #require(notices(removing).first)
        #expect(notice.props["message"]?.string == "Removed Lemon Tart from your order.")
        #expect(notice.props["undo"]?.string == "Undo")
        #expect(notices(other).isEmpty, "only the window that removed offers to undo")

        try await host.tap(notice.id, in: removing)
        try await host.waitUntil("the dish back in the other window") { rows(other).count == 3 }
        #expect(await restaurant.snapshot().state.order == before, "the same line, id and price, at its place")
        #expect(rows(other) == ["Tomato Soup", "Lemon Tart", "Onion Soup"] && rows(removing) == rows(other))
        #expect(other.text(Order.lines, "footer") == "Total $18.75")
        #expect(notices(removing).isEmpty, "the notice goes once used")
        // Used, it answers nothing more: a second tap undoes nothing twice.
        await #expect(throws: (any Error).self) { try await host.tap(notice.id, in: removing) }
        #expect(await restaurant.snapshot().state.order.count == 3)
        #expect(removing.patchFailures.isEmpty && other.patchFailures.isEmpty)
    }

    @Test func restoringIsAnIntentThatPutsTheLineAtTheEndOfAShorterOrderAndOnlyOnce() async throws {
        let restaurant = try await openRestaurant(try StorageKind.inMemory.make(), limits: OrderLimits(maximumDishesPerOrder: 2))
        let soup = try await restaurant.addToOrder(menuItemID: 1, origin: nil)
        let tart = try await restaurant.addToOrder(menuItemID: 3, origin: nil)
        let removed = try await restaurant.removeFromOrder(lineID: tart.id, origin: nil)
        #expect(removed.line == tart && removed.index == 1)
        try await restaurant.removeFromOrder(lineID: soup.id, origin: nil)
        try await restaurant.restore(removed, origin: nil)
        #expect(await restaurant.snapshot().state.order == [tart], "index 1 of an empty order is its end")
        let sequence = await restaurant.snapshot().sequence
        try await restaurant.restore(removed, origin: nil)
        #expect(await restaurant.snapshot().sequence == sequence, "undone twice: nothing more is committed")

        // A full order takes nothing back.
        let gone = try await restaurant.removeFromOrder(lineID: tart.id, origin: nil)
        for dish in [1, 2] { try await restaurant.addToOrder(menuItemID: dish, origin: nil) }
        await #expect(throws: RestaurantError.tooManyItems(count: 3, limit: 2)) { try await restaurant.restore(gone, origin: nil) }
        #expect(await restaurant.snapshot().state.order.map(\.menuItemID) == [1, 2])
    }
}
