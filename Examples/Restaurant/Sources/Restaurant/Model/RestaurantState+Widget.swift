import Foundation
public import SceneSync

extension RestaurantState {
    /// Restaurant's widget: the dishes in the shared order, and when the next order in the kitchen
    /// will be ready (a time, for the widget to show in its own time zone).
    public var widgetSummary: WidgetSummary {
        let next = ordersInPreparation.min { $0.readyAt < $1.readyAt }
        return WidgetSummary(title: "Restaurant", lines: [
            .init(label: "In the order", text: order.count == 1 ? "1 dish" : "\(order.count) dishes"),
            .init(label: "Next ready", text: next.map { "Order \($0.number)" } ?? "Nothing in the kitchen",
                  time: next.map { Int64(($0.readyAt.timeIntervalSince1970 * 1000).rounded(.down)) }),
        ])
    }
}
