import Foundation
import LootLogger
import SceneSync
import Testing

/// LootLogger's widget: three lines in a fixed order, whatever the items.
struct WidgetSummaryTests {
    @Test func itShowsTheCountTheTotalAndTheMostValuableItem() {
        var state = ItemsState()
        #expect(state.widgetSummary.lines.map(\.text) == ["0", "$0", "—"])
        for (index, (name, value)) in [("Rusty Bear", 12), ("Shiny Mac", 890), ("Fluffy Spork", 40)].enumerated() {
            _ = state.apply(.itemAdded(Item(name: name, valueInDollars: value), index: index))
        }
        #expect(state.widgetSummary.title == "LootLogger")
        #expect(state.widgetSummary.lines.map(\.label) == ["Items", "Total value", "Most valuable"])
        #expect(state.widgetSummary.lines.map(\.text) == ["3", "$942", "Shiny Mac, $890"])
    }
}
