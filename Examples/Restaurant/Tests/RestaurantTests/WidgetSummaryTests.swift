import Foundation
import Restaurant
import SceneSync
import Testing

/// Restaurant's widget: the dishes in the shared order, and when the next order will be ready.
struct WidgetSummaryTests {
    @Test func itShowsTheOrderAndTheNextOrderReadyWithItsTime() {
        var state = RestaurantState()
        #expect(state.widgetSummary.lines.map(\.text) == ["0 dishes", "Nothing in the kitchen"])
        _ = state.apply(.itemAdded(OrderLine(id: UUID(), menuItemID: 1, name: "Pho", priceInCents: 900), index: 0))
        #expect(state.widgetSummary.lines[0].text == "1 dish")

        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for (number, minutes) in [(1, 20), (2, 12)] {
            _ = state.apply(.orderSubmitted(KitchenOrder(
                number: number, lines: [], source: .menuAPI, preparationTime: minutes,
                submittedAt: now, readyAt: now.addingTimeInterval(Double(minutes) * 60))))
        }
        let next = state.widgetSummary.lines[1]
        #expect(next.label == "Next ready")
        #expect(next.text == "Order 2")
        #expect(next.time == Int64(1_800_000_000_000 + 12 * 60_000))
        _ = state.apply(.orderReady(number: 2))
        #expect(state.widgetSummary.lines[1].text == "Order 1")
        #expect(state.widgetSummary.lines[1].time == Int64(1_800_000_000_000 + 20 * 60_000))
    }
}
