public import Foundation
import Synchronization
public import Logging
public import SceneSync

/// Restaurant's model controller: the menu, the one order every window shares, and the kitchen.
///
/// Windows and the menu API never change anything themselves. They send intents here and render
/// the ``RestaurantEvent``s that come back, each tagged with the scene that caused it. Orders
/// from a window and from `POST /order` go through the same ``submitOrder(origin:)`` and
/// ``submitOrder(menuIDs:)``, and so reach every window alike.
///
/// ```swift
/// let restaurant = try await RestaurantController(menu: try .standard(), storage: storage, logger: logger)
/// try await restaurant.addToOrder(menuItemID: 1, origin: scene.session.id)
/// let order = try await restaurant.submitOrder(origin: scene.session.id)
/// print(order.preparationTime)   // minutes
/// ```
public final class RestaurantController: Sendable {
    /// The app name that keys Restaurant's records and log.
    public static let app = "restaurant"

    /// The menu.
    public let menu: Menu
    /// The kitchen's clock, which dates orders and tells when they are ready.
    public let clock: KitchenClock
    /// The underlying model controller.
    public let controller: ModelController<RestaurantState>
    /// How many dishes an order may have, and how many orders the kitchen makes at once.
    public let limits: OrderLimits

    /// Opens the restaurant on `storage`.
    public init(
        menu: Menu, storage: any SceneSyncStorage, clock: KitchenClock = .system, limits: OrderLimits = .init(),
        options: ModelController<RestaurantState>.Options = .init(), logger: Logger
    ) async throws {
        self.menu = menu
        self.clock = clock
        self.limits = limits
        controller = try await ModelController(app: Self.app, storage: storage, options: options, logger: logger)
    }

    /// The committed state and its sequence number, to render and then follow with ``events(after:)``.
    public func snapshot() async -> ModelController<RestaurantState>.Snapshot {
        await controller.snapshot()
    }

    /// Events after `sequence`, from the log and then live.
    public func events(after sequence: UInt64) -> EventSubscription<RestaurantEvent> {
        controller.events(after: sequence)
    }

    /// Adds the dish `menuItemID` at the end of the shared order.
    ///
    /// - Throws: ``RestaurantError/unknownMenuItem(_:)``, or
    ///   ``RestaurantError/tooManyItems(count:limit:)`` when the order is full.
    @discardableResult
    public func addToOrder(menuItemID: Int, origin: SceneSession.ID?) async throws(RestaurantError) -> OrderLine {
        guard let item = menu.item(menuItemID) else { throw .unknownMenuItem(menuItemID) }
        let line = OrderLine(item: item)
        let limit = limits.maximumDishesPerOrder
        try await perform(origin: origin) { state throws(RestaurantError) in
            guard state.order.count < limit else { throw .tooManyItems(count: state.order.count + 1, limit: limit) }
            return [.itemAdded(line, index: state.order.count)]
        }
        return line
    }

    /// A line taken out of the shared order, with the place it had: what
    /// ``restore(_:origin:)`` puts back.
    public struct RemovedLine: Equatable, Sendable {
        /// The line, as it was.
        public let line: OrderLine
        /// Where it was in the order.
        public let index: Int
    }

    /// Removes the line `lineID` from the shared order.
    ///
    /// - Returns: The line and the place it had, for ``restore(_:origin:)`` (undo).
    /// - Throws: ``RestaurantError/unknownLine(_:)`` if the order has no such line.
    @discardableResult
    public func removeFromOrder(lineID: UUID, origin: SceneSession.ID?) async throws(RestaurantError) -> RemovedLine {
        // The check may run again after another node's commit: its last answer is the one committed.
        let taken = Mutex<OrderLine?>(nil)
        let envelopes = try await perform(origin: origin) { state throws(RestaurantError) in
            guard let index = state.index(ofLine: lineID) else { throw .unknownLine(lineID) }
            taken.withLock { $0 = state.order[index] }
            return [.itemRemoved(lineID: lineID, index: index)]
        }
        guard case let .itemRemoved(_, index)? = envelopes.first?.event, let line = taken.withLock({ $0 }) else {
            throw .notSaved(reason: "The dish was not removed.")
        }
        return RemovedLine(line: line, index: index)
    }

    /// Puts back a line ``removeFromOrder(lineID:origin:)`` took out — its id, dish and price — at
    /// the place it had, or at the end of an order that is now shorter: undo of a delete, as an
    /// intent every window sees. Nothing happens if the order has a line with its id already
    /// (undone twice).
    ///
    /// - Throws: ``RestaurantError/tooManyItems(count:limit:)`` when the order is full.
    public func restore(_ removed: RemovedLine, origin: SceneSession.ID?) async throws(RestaurantError) {
        let limit = limits.maximumDishesPerOrder
        try await perform(origin: origin) { state throws(RestaurantError) in
            guard state.index(ofLine: removed.line.id) == nil else { return [] }
            guard state.order.count < limit else { throw .tooManyItems(count: state.order.count + 1, limit: limit) }
            return [.itemAdded(removed.line, index: min(max(removed.index, 0), state.order.count))]
        }
    }

    /// Moves the line `lineID` to `index` of the shared order (counted after it is taken out).
    public func moveInOrder(lineID: UUID, to index: Int, origin: SceneSession.ID?) async throws(RestaurantError) {
        try await perform(origin: origin) { state throws(RestaurantError) in
            guard let from = state.index(ofLine: lineID) else { throw .unknownLine(lineID) }
            guard state.order.indices.contains(index) else { throw .moveOutOfRange(index: index, count: state.order.count) }
            return from == index ? [] : [.itemMoved(lineID: lineID, from: from, to: index)]
        }
    }

    /// Sends the shared order to the kitchen and empties it, in every window.
    ///
    /// - Throws: ``RestaurantError/emptyOrder`` if it has no dishes,
    ///   ``RestaurantError/unknownMenuItem(_:)`` if one is no longer on the menu,
    ///   ``RestaurantError/tooManyItems(count:limit:)`` beyond ``OrderLimits/maximumDishesPerOrder``,
    ///   or ``RestaurantError/kitchenFull(limit:nextReadyAt:)``.
    @discardableResult
    public func submitOrder(origin: SceneSession.ID?) async throws(RestaurantError) -> KitchenOrder {
        try await submit(origin: origin, client: nil) { state throws(RestaurantError) in (state.order, .sharedOrder) }
    }

    /// Sends an order of the dishes `menuIDs` (which may repeat) to the kitchen, as the menu API's
    /// `POST /order` does for the client at the address `client`; the shared order is left alone.
    ///
    /// - Throws: ``RestaurantError/emptyOrder``, ``RestaurantError/tooManyItems(count:limit:)``
    ///   beyond ``OrderLimits/maximumDishesPerOrder`` dishes,
    ///   ``RestaurantError/unknownMenuItem(_:)`` for the first id not on the menu,
    ///   ``RestaurantError/kitchenFull(limit:nextReadyAt:)``, or
    ///   ``RestaurantError/tooManyOrdersInPreparation(limit:nextReadyAt:)`` when `client` has
    ///   ``OrderLimits/maximumOrdersInPreparationPerClient`` orders in the kitchen.
    @discardableResult
    public func submitOrder(
        menuIDs: [Int], client: String? = nil, origin: SceneSession.ID? = nil
    ) async throws(RestaurantError) -> KitchenOrder {
        guard menuIDs.count <= limits.maximumDishesPerOrder else {
            throw .tooManyItems(count: menuIDs.count, limit: limits.maximumDishesPerOrder)
        }
        var chosen: [OrderLine] = []
        for id in menuIDs {
            guard let item = menu.item(id) else { throw .unknownMenuItem(id) }
            chosen.append(OrderLine(item: item))
        }
        let lines = chosen
        return try await submit(origin: origin, client: client) { _ in (lines, .menuAPI) }
    }

    /// Marks the order `number` ready, unless it already is. Returns whether it changed.
    @discardableResult
    public func markReady(_ number: Int) async throws(RestaurantError) -> Bool {
        let envelopes = try await perform(origin: nil) { state in
            guard let order = state.kitchenOrder(number), !order.isReady else { return [] }
            return [.orderReady(number: number)]
        }
        return !envelopes.isEmpty
    }

    /// Says the ready order `number` was picked up: it leaves the kitchen list in every window.
    ///
    /// - Throws: ``RestaurantError/unknownOrder(_:)`` if the kitchen has no such order (it may have
    ///   been picked up in another window), or ``RestaurantError/orderNotReady(_:)`` while it is
    ///   still being made.
    public func pickUp(_ number: Int, origin: SceneSession.ID?) async throws(RestaurantError) {
        try await perform(origin: origin) { state throws(RestaurantError) in
            guard let order = state.kitchenOrder(number) else { throw .unknownOrder(number) }
            guard order.isReady else { throw .orderNotReady(number) }
            return [.orderPickedUp(number: number)]
        }
    }

    /// When the ready `order` leaves the kitchen list by itself if nobody picks it up:
    /// ``OrderLimits/pickupTime`` after its ready time.
    public func pickupDeadline(for order: KitchenOrder) -> Date {
        Self.pickupDeadline(for: order, after: limits.pickupTime)
    }

    private static func pickupDeadline(for order: KitchenOrder, after time: Duration) -> Date {
        let (seconds, attoseconds) = time.components
        return order.readyAt.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Takes the ready order `number` off the kitchen list if its ``pickupDeadline(for:)`` has
    /// passed, as the kitchen timer does. Returns whether it left.
    @discardableResult
    public func clearUncollected(_ number: Int) async throws(RestaurantError) -> Bool {
        let clock = clock
        let time = limits.pickupTime
        let envelopes = try await perform(origin: nil) { state in
            guard let order = state.kitchenOrder(number), order.isReady,
                  Self.pickupDeadline(for: order, after: time) <= clock.now else { return [] }
            return [.orderUncollected(number: number)]
        }
        return !envelopes.isEmpty
    }

    /// Takes an order into the kitchen. The limits are checked against the state the order is
    /// decided on, so that orders decided one after another cannot pass a limit together.
    private func submit(
        origin: SceneSession.ID?, client: String?,
        _ choose: @escaping @Sendable (RestaurantState) throws(RestaurantError) -> ([OrderLine], KitchenOrder.Source)
    ) async throws(RestaurantError) -> KitchenOrder {
        let menu = menu
        let clock = clock
        let limits = limits
        let envelopes = try await perform(origin: origin) { state throws(RestaurantError) in
            let (lines, source) = try choose(state)
            guard !lines.isEmpty else { throw .emptyOrder }
            guard lines.count <= limits.maximumDishesPerOrder else {
                throw .tooManyItems(count: lines.count, limit: limits.maximumDishesPerOrder)
            }
            try Self.checkRoom(in: state, for: client, limits: limits, now: clock.now)
            var dishes: [MenuItem] = []
            for line in lines {
                guard let item = menu.item(line.menuItemID) else { throw .unknownMenuItem(line.menuItemID) }
                dishes.append(item)
            }
            let minutes = PreparationTime.minutes(for: dishes, ordersAhead: state.ordersInPreparation.count)
            let now = clock.now
            return [.orderSubmitted(KitchenOrder(
                number: state.nextOrderNumber, lines: lines, source: source, preparationTime: minutes,
                submittedAt: now, readyAt: clock.date(minutes, minutesAfter: now), client: client))]
        }
        guard case let .orderSubmitted(order)? = envelopes.first?.event else { throw .notSaved(reason: "The kitchen did not take the order.") }
        return order
    }

    /// Refuses an order when the kitchen, or the client's share of it, is full. An order past its
    /// ready time counts as made, even before the kitchen timer marks it ready.
    private static func checkRoom(
        in state: RestaurantState, for client: String?, limits: OrderLimits, now: Date
    ) throws(RestaurantError) {
        let preparing = state.ordersInPreparation.filter { $0.readyAt > now }
        guard preparing.count < limits.maximumOrdersInPreparation else {
            throw .kitchenFull(limit: limits.maximumOrdersInPreparation, nextReadyAt: preparing.map(\.readyAt).min())
        }
        guard let client else { return }
        let theirs = preparing.filter { $0.client == client }
        guard theirs.count < limits.maximumOrdersInPreparationPerClient else {
            throw .tooManyOrdersInPreparation(limit: limits.maximumOrdersInPreparationPerClient, nextReadyAt: theirs.map(\.readyAt).min())
        }
    }

    @discardableResult
    private func perform(
        origin: SceneSession.ID?,
        _ decide: @escaping @Sendable (RestaurantState) throws(RestaurantError) -> [RestaurantEvent]
    ) async throws(RestaurantError) -> [EventEnvelope<RestaurantEvent>] {
        do {
            return try await controller.perform(origin: origin) { state in try decide(state) }
        } catch let error as RestaurantError {
            throw error
        } catch {
            throw .notSaved(reason: "\(error)")
        }
    }
}
