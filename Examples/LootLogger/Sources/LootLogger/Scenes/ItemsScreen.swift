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
    private var rows: [UUID] = []
    private var items: [UUID: Item] = [:]
    private var total = 0
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
            shown: { [weak self] key in self?.items[key] != nil },
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
        let snapshot = await store.snapshot()
        reset(snapshot.state)
        follow(store.controller, from: snapshot.sequence) { [weak self] envelope in
            self?.apply(envelope.event)
        }
    }

    public override func makeContent() -> [ViewNode] {
        [.table(id: NodeID.table, label: "Items", editing: isEditing, sections: [
            .section(id: NodeID.section, footer: footer,
                     children: rows.isEmpty ? [emptyState] : rows.compactMap { items[$0].map(row(for:)) })
        ])]
    }

    /// How many items the screen shows.
    public var itemCount: Int { items.count }

    private func apply(_ event: ItemEvent) {
        var patches: [Patch] = []
        switch event {
        case let .itemAdded(item, index):
            guard items[item.key] == nil else { return }
            if rows.isEmpty { patches.append(.remove(id: NodeID.empty)) }
            let position = min(max(index, 0), rows.count)
            rows.insert(item.key, at: position)
            items[item.key] = item
            total += item.valueInDollars
            patches.append(.insert(parent: NodeID.section, index: position, node: row(for: item)))
        case let .itemRemoved(key, index):
            guard let item = items.removeValue(forKey: key) else { return }
            if rows.indices.contains(index), rows[index] == key { rows.remove(at: index) } else { rows.removeAll { $0 == key } }
            total -= item.valueInDollars
            patches.append(.remove(id: NodeID.row(key)))
            if rows.isEmpty { patches.append(.insert(parent: NodeID.section, index: 0, node: emptyState)) }
        case let .itemMoved(key, from, to):
            guard items[key] != nil else { return }
            let position = rows.indices.contains(from) && rows[from] == key ? from : rows.firstIndex(of: key)!
            rows.remove(at: position)
            let target = min(max(to, 0), rows.count)
            rows.insert(key, at: target)
            patches.append(.move(id: NodeID.row(key), index: target))
        case let .itemUpdated(item, changed):
            guard let old = items[item.key] else { return }
            items[item.key] = item
            total += item.valueInDollars - old.valueInDollars
            var props: [ViewNode.Property: ViewValue] = [:]
            if changed.contains(.name) { props[.title] = .string(item.name) }
            if changed.contains(.serialNumber) { props[.subtitle] = item.serialNumber.map(ViewValue.string) ?? .null }
            if changed.contains(.valueInDollars) { props[.detail] = .string(Self.dollars(item.valueInDollars)) }
            patches.append(.set(NodeID.row(item.key), props))
            guard changed.contains(.valueInDollars) else { return update(patches) }
        }
        patches.append(.set(NodeID.section, .footer, to: .string(footer)))
        update(patches)
    }

    private func reset(_ state: ItemsState) {
        rows = state.items.map(\.key)
        items = Dictionary(uniqueKeysWithValues: state.items.map { ($0.key, $0) })
        total = state.totalValue
    }

    private var footer: String {
        let count = items.count
        return "\(Dollars.grouped(count)) \(count == 1 ? "item" : "items") — \(Self.dollars(total)) total"
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
