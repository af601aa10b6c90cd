public import Foundation
import SceneSync
public import SceneSyncUI

/// The Order tab: the shared order's dishes with their total, Edit (delete, which the notice can
/// undo, and reorder) and Submit, and below them the orders in the kitchen, each counting down to
/// its ready time. A ready order's row offers "Picked Up" (``pickedUp``) in its menu; picked up, or
/// not picked up within ``OrderLimits/pickupTime``, it leaves the list in every window.
///
/// The screen keeps its own copy of the restaurant's state and applies each event to it, then
/// patches only the rows that changed, in every window. Countdowns tick in the browser from the
/// ready time the row carries: nothing is sent while they run, only when an order is ready.
@MainActor
public final class OrderScreen: ScreenController {
    /// Node ids.
    public enum NodeID {
        /// The table.
        public static let table = "order-table"
        /// The section of the shared order's dishes, whose footer is the total.
        public static let lines = "order-lines"
        /// What the order section shows when the order is empty.
        public static let emptyOrder = "order-empty"
        /// The section of the orders in the kitchen.
        public static let kitchen = "kitchen"
        /// What the kitchen section shows when it has no orders.
        public static let emptyKitchen = "kitchen-empty"
        /// The Edit (or Done) bar button.
        public static let edit = "edit"
        /// The Submit bar button.
        public static let submit = "submit"
        /// The confirmation before submitting.
        public static let confirmSubmit = "confirm-submit"
        /// The alert that the order is empty.
        public static let emptyAlert = "order-empty-alert"
        /// The row of the order line `id`.
        public static func line(_ id: UUID) -> String { lineRows.id(for: id) }
        /// The row of the kitchen's order `number`.
        public static func kitchenOrder(_ number: Int) -> String { kitchenRows.id(for: number) }
    }

    /// The order's rows, keyed by line id.
    public nonisolated static let lineRows = KeyedRows<UUID>(prefix: "line-")
    /// The kitchen's rows, keyed by order number.
    public nonisolated static let kitchenRows = KeyedRows<Int>(prefix: "kitchen-order-")
    /// The row action on a ready order in the kitchen: it was picked up.
    public nonisolated static let pickedUp: ActionName = "pickedUp"

    private let restaurant: RestaurantController
    private let pictures: DishPictures
    private var state = RestaurantState()
    private var isEditing = false

    /// Creates the screen.
    public init(restaurant: RestaurantController, pictures: DishPictures) {
        self.restaurant = restaurant
        self.pictures = pictures
        super.init(route: Route("order"), title: "Order")
        setBarButtons(barButtons(editing: false))
        handleRows(
            Self.lineRows,
            shown: { [weak self] id in self?.state.index(ofLine: id) != nil },
            onDelete: { [weak self] id in try await self?.delete(id) },
            onMove: { [weak self] id, index in try await self?.restaurant.moveInOrder(lineID: id, to: index, origin: self?.origin) })
        // Every kitchen row answers Picked Up; the restaurant refuses it for an order not ready.
        handleRows(
            Self.kitchenRows,
            shown: { [weak self] number in self?.state.kitchenOrder(number) != nil },
            actions: [Self.pickedUp: { [weak self] number in try await self?.restaurant.pickUp(number, origin: self?.origin) }])
    }

    /// The dishes in the order, as this window knows it.
    public var order: [OrderLine] { state.order }
    /// The kitchen's orders, as this window knows them, oldest first.
    public var kitchen: [KitchenOrder] { state.kitchen }

    public override func load() async {
        let snapshot = await restaurant.snapshot()
        state = snapshot.state
        follow(restaurant.controller, from: snapshot.sequence) { [weak self] envelope in
            self?.apply(envelope.event)
        }
    }

    public override func makeContent() -> [ViewNode] {
        [.table(id: NodeID.table, label: "Order", editing: isEditing, sections: [linesSection, kitchenSection])]
    }

    // MARK: - Rendering

    private var linesSection: ViewNode {
        .section(id: NodeID.lines, header: "Your Order", footer: footer,
                 children: state.order.isEmpty ? [emptyOrder] : state.order.map(row(for:)))
    }

    private var kitchenSection: ViewNode {
        .section(id: NodeID.kitchen, header: "In the Kitchen",
                 children: state.kitchen.isEmpty ? [emptyKitchen] : state.kitchen.reversed().map(row(for:)))
    }

    private var footer: String? {
        state.order.isEmpty ? nil : "Total \(Money.format(cents: state.orderTotalInCents))"
    }

    private var emptyOrder: ViewNode {
        .emptyState(id: NodeID.emptyOrder, title: "Your order is empty", message: "Add dishes from the Menu tab.")
    }

    private var emptyKitchen: ViewNode {
        .emptyState(id: NodeID.emptyKitchen, title: "No orders yet", message: "Submitted orders show here until they are picked up.")
    }

    private func row(for line: OrderLine) -> ViewNode {
        .row(id: NodeID.line(line.id), title: line.name, detail: Money.format(cents: line.priceInCents),
             image: pictures.url(for: line.menuItemID))
            .deletable()
            .movable()
    }

    private func row(for order: KitchenOrder) -> ViewNode {
        let count = order.lines.count
        return .row(id: NodeID.kitchenOrder(order.number), title: "Order #\(order.number)",
                    subtitle: "\(count) \(count == 1 ? "dish" : "dishes") · \(Money.format(cents: order.totalInCents))",
                    detail: order.isReady ? "Ready" : nil, countdown: order.isReady ? nil : order.readyAt)
            .rowActions(order.isReady ? [.init(Self.pickedUp, label: "Picked Up")] : [])
    }

    private func barButtons(editing: Bool) -> [ViewNode] {
        [.barButton(id: NodeID.edit, label: editing ? "Done" : "Edit", side: .leading, role: editing ? .done : nil) { [weak self] in
            self?.toggleEditing()
        },
         .barButton(id: NodeID.submit, label: "Submit", side: .trailing, role: .primary) { [weak self] in self?.confirmSubmit() }]
    }

    // MARK: - Events

    private func apply(_ event: RestaurantEvent) {
        // Only what the patches need of the state before the event, and nothing the size of the
        // order: a copy of the state would cost every window a copy of the order on every event.
        let hadLines = !state.order.isEmpty
        let totalBefore = state.orderTotalInCents
        var patches: [Patch] = []
        switch event {
        case let .itemAdded(line, _):
            guard state.index(ofLine: line.id) == nil else { return }
            _ = state.apply(event)
            guard let index = state.index(ofLine: line.id) else { return }
            if !hadLines { patches.append(.remove(id: NodeID.emptyOrder)) }
            patches.append(.insert(parent: NodeID.lines, index: index, node: row(for: line)))
        case let .itemRemoved(id, _):
            guard state.index(ofLine: id) != nil else { return }
            _ = state.apply(event)
            guard state.index(ofLine: id) == nil else { return }
            patches.append(.remove(id: NodeID.line(id)))
            if state.order.isEmpty { patches.append(.insert(parent: NodeID.lines, index: 0, node: emptyOrder)) }
        case let .itemMoved(id, _, _):
            let from = state.index(ofLine: id)
            _ = state.apply(event)
            guard let index = state.index(ofLine: id), index != from else { return }
            return update([.move(id: NodeID.line(id), index: index)])
        case let .orderSubmitted(order):
            let kitchenBefore = state.kitchen
            _ = state.apply(event)
            if order.source == .sharedOrder, hadLines {
                patches.append(.replace(id: NodeID.lines, node: linesSection, transition: nil))
            }
            patches += kitchenPatches(from: kitchenBefore)
        case let .orderReady(number):
            let kitchenBefore = state.kitchen
            _ = state.apply(event)
            patches += kitchenPatches(from: kitchenBefore)
            if let order = state.kitchenOrder(number), order.isReady, kitchenBefore.first(where: { $0.number == number })?.isReady == false {
                patches.append(.set(NodeID.kitchenOrder(number), [
                    .detail: .string("Ready"), .countdown: .null, .actions: row(for: order).props[ViewNode.Property.actions.rawValue] ?? .null,
                ]))
            }
        case .orderPickedUp, .orderUncollected:
            let kitchenBefore = state.kitchen
            _ = state.apply(event)
            patches += kitchenPatches(from: kitchenBefore)
        }
        if totalBefore != state.orderTotalInCents || hadLines == state.order.isEmpty {
            patches.append(.set(NodeID.lines, .footer, to: footer.map(ViewValue.string) ?? .null))
        }
        update(patches)
    }

    /// The kitchen's rows that came and went: a new order goes on top, forgotten ones leave.
    private func kitchenPatches(from before: [KitchenOrder]) -> [Patch] {
        let now = Set(state.kitchen.map(\.number))
        let was = Set(before.map(\.number))
        var patches: [Patch] = before.filter { !now.contains($0.number) }.map { .remove(id: NodeID.kitchenOrder($0.number)) }
        if was.isEmpty, !now.isEmpty { patches.append(.remove(id: NodeID.emptyKitchen)) }
        // Newest first: an added order is the newest.
        for order in state.kitchen.reversed() where !was.contains(order.number) {
            patches.append(.insert(parent: NodeID.kitchen, index: 0, node: row(for: order)))
        }
        if !was.isEmpty, now.isEmpty { patches.append(.insert(parent: NodeID.kitchen, index: 0, node: emptyKitchen)) }
        return patches
    }

    // MARK: - Intents

    /// Removes a dish from the order; the notice in this window offers to put it back.
    private func delete(_ lineID: UUID) async throws {
        let removed = try await restaurant.removeFromOrder(lineID: lineID, origin: origin)
        window?.showNotice("Removed \(removed.line.name) from your order.") { [restaurant, weak self] in
            try await restaurant.restore(removed, origin: self?.origin)
        }
    }

    private func toggleEditing() {
        isEditing.toggle()
        setBarButtons(barButtons(editing: isEditing))
        update([.set(NodeID.table, .editing, to: .bool(isEditing))])
    }

    private func confirmSubmit() {
        guard !state.order.isEmpty else {
            window?.present(Alert(id: NodeID.emptyAlert, title: "Your order is empty", message: "Add dishes from the Menu tab first.",
                                  actions: [.init("OK", role: .cancel)]))
            return
        }
        let count = state.order.count
        window?.present(Alert(
            id: NodeID.confirmSubmit, title: "Submit Order?",
            message: "\(count) \(count == 1 ? "dish" : "dishes") for a total of \(Money.format(cents: state.orderTotalInCents)).",
            actions: [
                .init("Cancel", role: .cancel),
                .init("Submit", role: .primary) { [weak self] in try await self?.submit() },
            ]))
    }

    private func submit() async throws {
        let order = try await restaurant.submitOrder(origin: origin)
        window?.showNotice("Order #\(order.number) is in the kitchen: ready in \(order.preparationTime) minutes.")
    }
}
