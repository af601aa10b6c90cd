public import SceneSync

extension ItemsState {
    /// LootLogger's widget: how many items, their total value, and the most valuable one. The
    /// three lines are always there, so the widget's layout does not move as items come and go.
    public var widgetSummary: WidgetSummary {
        let mostValuable = items.max { $0.valueInDollars < $1.valueInDollars }
        return WidgetSummary(title: "LootLogger", lines: [
            .init(label: "Items", text: "\(items.count)"),
            .init(label: "Total value", text: Dollars.format(totalValue)),
            .init(label: "Most valuable", text: mostValuable.map { "\($0.name), \(Dollars.format($0.valueInDollars))" } ?? "—"),
        ])
    }
}
