public import Foundation

/// Why the restaurant refused an intent. Nothing changes when it does.
public enum RestaurantError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No dish on the menu has this number.
    case unknownMenuItem(Int)
    /// An order needs at least one dish.
    case emptyOrder
    /// An order may have at most ``OrderLimits/maximumDishesPerOrder`` dishes.
    case tooManyItems(count: Int, limit: Int)
    /// The kitchen is making as many orders as it may (``OrderLimits/maximumOrdersInPreparation``);
    /// `nextReadyAt` is when the first of them is due.
    case kitchenFull(limit: Int, nextReadyAt: Date?)
    /// The kitchen is making as many orders from this client address as it may
    /// (``OrderLimits/maximumOrdersInPreparationPerClient``); `nextReadyAt` is when the first of
    /// them is due.
    case tooManyOrdersInPreparation(limit: Int, nextReadyAt: Date?)
    /// No line of the shared order has this id (it may have been removed in another window).
    case unknownLine(UUID)
    /// A move to a place outside the order.
    case moveOutOfRange(index: Int, count: Int)
    /// The kitchen has no order with this number (it may have been picked up in another window).
    case unknownOrder(Int)
    /// The order with this number is still being made: it cannot be picked up yet.
    case orderNotReady(Int)
    /// The change could not be saved; nothing of it was kept.
    case notSaved(reason: String)

    /// A short machine-readable code, for the menu API's errors.
    public var code: String {
        switch self {
        case .unknownMenuItem: "unknownMenuItem"
        case .emptyOrder: "emptyOrder"
        case .tooManyItems: "tooManyItems"
        case .kitchenFull: "kitchenFull"
        case .tooManyOrdersInPreparation: "tooManyOrdersInPreparation"
        case .unknownLine: "unknownLine"
        case .moveOutOfRange: "moveOutOfRange"
        case .unknownOrder: "unknownOrder"
        case .orderNotReady: "orderNotReady"
        case .notSaved: "notSaved"
        }
    }

    /// A sentence a person can read.
    public var description: String {
        switch self {
        case let .unknownMenuItem(id):
            "No dish on the menu has the id \(id)."
        case .emptyOrder:
            "An order needs at least one dish."
        case let .tooManyItems(count, limit):
            "An order can have at most \(limit) dishes; this one would have \(count)."
        case let .kitchenFull(limit, _):
            "The kitchen is making \(limit) orders, as many as it can; try again when one of them is ready."
        case let .tooManyOrdersInPreparation(limit, _):
            "The kitchen is already making \(limit) of your orders; try again when one of them is ready."
        case .unknownLine:
            "That dish is no longer in the order; it may have been removed in another window."
        case let .moveOutOfRange(index, count):
            "A dish cannot move to position \(index) of an order of \(count)."
        case let .unknownOrder(number):
            "The kitchen has no order #\(number); it may have been picked up already."
        case let .orderNotReady(number):
            "Order #\(number) is not ready yet, so it cannot be picked up."
        case let .notSaved(reason):
            "The change could not be saved: \(reason)"
        }
    }
}

/// The restaurant's fixed limits; those a server sets are ``OrderLimits``.
public enum RestaurantLimits {
    /// How many orders the kitchen list keeps; older ready ones are forgotten.
    public static let keptKitchenOrders = 50
}
