public import Foundation
public import SceneSync

/// What changed in the restaurant. Every window applies these to what it shows.
public enum RestaurantEvent: UpdateEvent {
    /// `line` was added to the shared order at `index`.
    case itemAdded(OrderLine, index: Int)
    /// The line `lineID` was removed from the shared order at `index`.
    case itemRemoved(lineID: UUID, index: Int)
    /// The line `lineID` moved from `from` to `to` in the shared order.
    case itemMoved(lineID: UUID, from: Int, to: Int)
    /// The kitchen got `order`. One from the shared order also empties the shared order.
    case orderSubmitted(KitchenOrder)
    /// The order numbered `number` is ready.
    case orderReady(number: Int)
    /// The ready order numbered `number` was picked up: it leaves the kitchen list.
    case orderPickedUp(number: Int)
    /// The ready order numbered `number` was not picked up within ``OrderLimits/pickupTime``
    /// of its ready time: it leaves the kitchen list by itself.
    case orderUncollected(number: Int)
}
