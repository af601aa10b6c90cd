public import Foundation
public import SceneSync

/// The restaurant's state: the order every window shares, and the orders in the kitchen.
public struct RestaurantState: ModelState, Equatable {
    public static func == (lhs: RestaurantState, rhs: RestaurantState) -> Bool {
        lhs.order == rhs.order && lhs.kitchen == rhs.kitchen && lhs.lastOrderNumber == rhs.lastOrderNumber
    }

    public typealias Event = RestaurantEvent

    /// The shared order's dishes, in the order the user gave them.
    public private(set) var order: [OrderLine] = []
    /// The orders the kitchen has, oldest first: those still being made, and the ready ones not
    /// yet picked up (at most ``RestaurantLimits/keptKitchenOrders`` in all).
    public private(set) var kitchen: [KitchenOrder] = []
    /// The number of the last order submitted, kept apart from ``kitchen`` so that numbers never
    /// repeat once orders leave it.
    public private(set) var lastOrderNumber = 0

    static let orderCollection = "order"
    static let orderKey = "current"
    static let kitchenCollection = "kitchen"
    static let countersCollection = "counters"
    static let lastOrderNumberKey = "lastOrderNumber"

    /// A restaurant that has never taken an order.
    public init() {}

    /// Loads the state saved by ``apply(_:)``.
    public init(records: RecordSet) throws {
        order = try records.decode(Self.orderCollection, as: [OrderLine].self)[Self.orderKey] ?? []
        orderTotalInCents = order.reduce(0) { $0 + $1.priceInCents }
        kitchen = try records.decode(Self.kitchenCollection, as: KitchenOrder.self).values.sorted { $0.number < $1.number }
        // A restaurant saved before orders could leave the list has no counter: its newest order's number is the last.
        let saved = try records.decode(Self.countersCollection, as: Int.self)[Self.lastOrderNumberKey] ?? 0
        lastOrderNumber = max(saved, kitchen.last?.number ?? 0)
    }

    /// The number the next submitted order gets.
    public var nextOrderNumber: Int { lastOrderNumber + 1 }

    /// The orders the kitchen is still making, oldest first.
    public var ordersInPreparation: [KitchenOrder] { kitchen.filter { !$0.isReady } }

    /// The shared order's total, in cents; kept as the order changes, so reading it costs nothing.
    public private(set) var orderTotalInCents = 0

    /// The index of the shared order's line `id`.
    public func index(ofLine id: UUID) -> Int? { order.firstIndex { $0.id == id } }

    /// The kitchen's order numbered `number`.
    public func kitchenOrder(_ number: Int) -> KitchenOrder? { kitchen.first { $0.number == number } }

    public mutating func apply(_ event: RestaurantEvent) -> [RecordChange] {
        switch event {
        case let .itemAdded(line, index):
            order.insert(line, at: min(max(index, 0), order.count))
            orderTotalInCents += line.priceInCents
            return [saveOrder()]
        case let .itemRemoved(id, index):
            guard order.indices.contains(index), order[index].id == id else { return [] }
            orderTotalInCents -= order.remove(at: index).priceInCents
            return [saveOrder()]
        case let .itemMoved(id, from, to):
            guard order.indices.contains(from), order[from].id == id else { return [] }
            let line = order.remove(at: from)
            order.insert(line, at: min(max(to, 0), order.count))
            return [saveOrder()]
        case let .orderSubmitted(submitted):
            guard kitchenOrder(submitted.number) == nil else { return [] }
            kitchen.append(submitted)
            lastOrderNumber = max(lastOrderNumber, submitted.number)
            var changes: [RecordChange] = [
                save(submitted), .save(collection: Self.countersCollection, key: Self.lastOrderNumberKey, value: lastOrderNumber),
            ]
            if submitted.source == .sharedOrder {
                order = []
                orderTotalInCents = 0
                changes.append(.delete(collection: Self.orderCollection, key: Self.orderKey))
            }
            return changes + forgetOldReadyOrders()
        case let .orderReady(number):
            guard let index = kitchen.firstIndex(where: { $0.number == number }), !kitchen[index].isReady else { return [] }
            kitchen[index].isReady = true
            return [save(kitchen[index])] + forgetOldReadyOrders()
        case let .orderPickedUp(number), let .orderUncollected(number):
            // Only a ready order leaves; the kitchen list forgets it, its number stays taken.
            guard let index = kitchen.firstIndex(where: { $0.number == number }), kitchen[index].isReady else { return [] }
            kitchen.remove(at: index)
            return [.delete(collection: Self.kitchenCollection, key: String(number))]
        }
    }

    /// Keeps the kitchen list to its limit by forgetting the oldest ready orders; orders still
    /// being made are always kept.
    private mutating func forgetOldReadyOrders() -> [RecordChange] {
        var excess = kitchen.count - RestaurantLimits.keptKitchenOrders
        guard excess > 0 else { return [] }
        var changes: [RecordChange] = []
        kitchen.removeAll { order in
            guard excess > 0, order.isReady else { return false }
            excess -= 1
            changes.append(.delete(collection: Self.kitchenCollection, key: String(order.number)))
            return true
        }
        return changes
    }

    /// The shared order is saved as one record: it is short (at most
    /// ``OrderLimits/maximumDishesPerOrder`` dishes), and a move then rewrites it once.
    private func saveOrder() -> RecordChange {
        order.isEmpty
            ? .delete(collection: Self.orderCollection, key: Self.orderKey)
            : .save(collection: Self.orderCollection, key: Self.orderKey, value: order)
    }

    private func save(_ order: KitchenOrder) -> RecordChange {
        .save(collection: Self.kitchenCollection, key: String(order.number), value: order)
    }
}
