public import Foundation
import SceneSync
public import SceneSyncUI

/// What the item list asks of its coordinator.
@MainActor
public protocol ItemsScreenDelegate: AnyObject {
    /// The user wants to see an item.
    func itemsScreen(_ screen: ItemsScreen, didSelect key: UUID) async
    /// The user wants an item in a window of its own.
    func itemsScreen(_ screen: ItemsScreen, openInNewWindow key: UUID)
}

/// The item list, as the book's `ItemsViewController`: one row per item, a footer with the count and
/// total value, Add and Edit buttons, delete and reorder in edit mode.
///
/// It turns each ``ItemEvent`` into one patch for one row (and one for the footer), the way the
/// book's controller calls `insertRows` and `deleteRows` rather than `reloadData`.
@MainActor
public final class ItemsScreen: ScreenController {
    /// The screen's route: the window's first screen.
    public static let route = RouteName("items")
    /// Node ids.
    public enum NodeID {
        /// The table of items.
        public static let table = "items-table"
        /// The table's one section, whose footer counts the items and their value.
        public static let section = "items"
        /// What the section shows when there are no items.
        public static let empty = "items-empty"
        /// The Add bar button.
        public static let add = "add"
        /// The Edit (or Done) bar button.
        public static let edit = "edit"
        /// The row of the item with `key`.
        public static func row(_ key: UUID) -> String { rows.id(for: key) }
    }

    /// The item rows: their ids carry the item's key, and the screen handles them all at once.
    public nonisolated static let rows = KeyedRows<UUID>(prefix: "item-")

    /// The row action that opens an item in a window of its own.
    public static let openInNewWindow: ActionName = "openInNewWindow"

    /// Who to tell what the user wants.
    public weak var delegate: (any ItemsScreenDelegate)?
    private let store: ItemStore
    /// The items, shared with every other item list on this node: a window holds no copy of them.
    private var model: SharedModel<ItemsState>?
    private var items: [Item] { model?.state.items ?? [] }
    /// Whether the list is in edit mode (delete buttons, reordering); part of the window's
    /// restoration activity, so a window comes back in it.
    public private(set) var isEditing: Bool

    /// Creates the screen, in edit mode if `editing`.
    public init(store: ItemStore, editing: Bool = false) {
        self.store = store
        isEditing = editing
        super.init(route: Self.route(), title: "LootLogger")
        setBarButtons(barButtons(editing: editing))
        handleRows(
            Self.rows,
            shown: { [weak self] key in self?.model?.state.index(of: key) != nil },
            onSelect: { [weak self] key in
                guard let self else { return }
                await delegate?.itemsScreen(self, didSelect: key)
            },
            onDelete: { [weak self] key in try await self?.delete(key) },
            onMove: { [weak self] key, index in try await self?.store.move(key, to: index, origin: self?.origin) },
            actions: [Self.openInNewWindow: { [weak self] key in
                guard let self else { return }
                delegate?.itemsScreen(self, openInNewWindow: key)
            }])
    }

    /// Deletes the item, and offers to undo it.
    private func delete(_ key: UUID) async throws {
        let removed = try await store.remove(key, origin: origin)
        window?.showNotice("“\(removed.item.name)” deleted.") { [store, weak self] in
            try await store.restore(removed, origin: self?.origin)
        }
    }

    public override func load() async {
        model = await follow(sharing: store.controller) { [weak self] envelope in
            self?.apply(envelope.event)
        }
    }

    public override func makeContent() -> [ViewNode] {
        [.table(id: NodeID.table, label: "Items", editing: isEditing, sections: [
            .section(id: NodeID.section, footer: footer, children: items.isEmpty ? [emptyState] : rows)
        ])]
    }

    /// A row for every item: the same in every window, so built once per state for all of them
    /// (a window opening on 10,000 items shares the rows the last one drew).
    private var rows: [ViewNode] {
        model.map { model in model.oncePerState("lootlogger.rows") { model.state.items.map(row(for:)) } } ?? []
    }

    /// How many items the screen shows.
    public var itemCount: Int { items.count }

    /// Sends the window the patches for `event`, already applied to the shared state. Every item
    /// list shows the same rows, so the patches are worked out once per event for all of them.
    private func apply(_ event: ItemEvent) {
        guard isVisible, let model else { return }
        update(model.once("lootlogger.items") { patches(for: event, in: model.state) })
    }

    private func patches(for event: ItemEvent, in state: ItemsState) -> [Patch] {
        var patches: [Patch] = []
        switch event {
        case let .itemAdded(item, _):
            guard let position = state.index(of: item.key) else { return [] }
            if state.items.count == 1 { patches.append(.remove(id: NodeID.empty)) }
            patches.append(.insert(parent: NodeID.section, index: position, node: row(for: item)))
        case let .itemRemoved(key, _):
            guard state.index(of: key) == nil else { return [] }
            patches.append(.remove(id: NodeID.row(key)))
            if state.items.isEmpty { patches.append(.insert(parent: NodeID.section, index: 0, node: emptyState)) }
        case let .itemMoved(key, _, _):
            guard let position = state.index(of: key) else { return [] }
            patches.append(.move(id: NodeID.row(key), index: position))
        case let .itemUpdated(item, changed):
            guard state.index(of: item.key) != nil else { return [] }
            var props: [ViewNode.Property: ViewValue] = [:]
            if changed.contains(.name) { props[.title] = .string(item.name) }
            if changed.contains(.serialNumber) { props[.subtitle] = item.serialNumber.map(ViewValue.string) ?? .null }
            if changed.contains(.valueInDollars) { props[.detail] = .string(Self.dollars(item.valueInDollars)) }
            patches.append(.set(NodeID.row(item.key), props))
            guard changed.contains(.valueInDollars) else { return patches }
        }
        patches.append(.set(NodeID.section, .footer, to: .string(footer)))
        return patches
    }

    private var footer: String {
        let count = items.count
        return "\(Dollars.grouped(count)) \(count == 1 ? "item" : "items") — \(Self.dollars(model?.state.totalValue ?? 0)) total"
    }

    private var emptyState: ViewNode {
        .emptyState(id: NodeID.empty, title: "No Items", message: "Tap Add to log your first possession.")
    }

    private func barButtons(editing: Bool) -> [ViewNode] {
        [.barButton(id: NodeID.edit, label: editing ? "Done" : "Edit", side: .leading, role: editing ? .done : nil) { [weak self] in
            self?.toggleEditing()
        },
         .barButton(id: NodeID.add, label: "Add", side: .trailing, role: .primary) { [weak self] in try await self?.addItem() }]
    }

    private func row(for item: Item) -> ViewNode {
        .row(id: NodeID.row(item.key), title: item.name, subtitle: item.serialNumber, detail: Self.dollars(item.valueInDollars))
            .disclosure()
            .deletable()
            .movable()
            .rowActions([.init(Self.openInNewWindow, label: "Open in New Window")])
    }

    // MARK: - Intents

    private func addItem() async throws {
        try await store.createRandomItem(origin: origin)
    }

    private func toggleEditing() {
        isEditing.toggle()
        setBarButtons(barButtons(editing: isEditing))
        update([.set(NodeID.table, .editing, to: .bool(isEditing))])
        window?.scene?.restorationActivityDidChange()
    }

    static func dollars(_ value: Int) -> String { Dollars.format(value) }
}
