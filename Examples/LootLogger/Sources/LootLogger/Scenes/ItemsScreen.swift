public import Foundation
public import SceneSync

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
    /// Node ids.
    public enum NodeID {
        public static let table = "items-table"
        public static let section = "items"
        public static let empty = "items-empty"
        public static let add = "add"
        public static let edit = "edit"
        public static func row(_ key: UUID) -> String { "item-\(key.uuidString)" }
    }

    /// The row actions.
    public enum Action {
        public static let openInNewWindow = "openInNewWindow"
    }

    /// Who to tell what the user wants.
    public weak var delegate: (any ItemsScreenDelegate)?
    private let store: ItemStore
    private var rows: [UUID] = []
    private var items: [UUID: Item] = [:]
    private var total = 0
    private var isEditing = false

    /// Creates the screen.
    public init(store: ItemStore) {
        self.store = store
        super.init(route: Route("items"), title: "LootLogger")
        setBarButtons(barButtons(editing: false))
    }

    public override func load() async {
        let snapshot = await store.snapshot()
        reset(snapshot.state)
        follow(store.controller, from: snapshot.sequence, reload: { [weak self, store] in
            let fresh = await store.snapshot()
            self?.reset(fresh.state)
            return fresh.sequence
        }) { [weak self] envelope in
            self?.apply(envelope.event)
        }
    }

    public override func makeContent() -> [ViewNode] {
        [.table(id: NodeID.table, label: "Items", editing: isEditing, sections: [
            .section(id: NodeID.section, footer: footer,
                     children: rows.isEmpty ? [emptyState] : rows.compactMap { items[$0].map(Self.row(for:)) })
        ])]
    }

    public override func handle(_ action: UserAction) async throws {
        let origin = window?.scene?.session.id
        switch (action.node, action.name) {
        case (NodeID.add, "tap"):
            try await store.createRandomItem(origin: origin)
        case (NodeID.edit, "tap"):
            isEditing.toggle()
            setBarButtons(barButtons(editing: isEditing))
            update([.set(id: NodeID.table, props: ["editing": .bool(isEditing)])])
        default:
            guard let key = Self.key(fromRow: action.node), items[key] != nil else {
                throw ScreenError.unknownAction(node: action.node, name: action.name)
            }
            switch action.name {
            case "select": await delegate?.itemsScreen(self, didSelect: key)
            case "delete": try await store.remove(key, origin: origin)
            case "move":
                guard let index = action.value?.int else { throw ScreenError.invalidValue(node: action.node, name: action.name) }
                try await store.move(key, to: index, origin: origin)
            case Action.openInNewWindow: delegate?.itemsScreen(self, openInNewWindow: key)
            default: throw ScreenError.unknownAction(node: action.node, name: action.name)
            }
        }
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
            patches.append(.insert(parent: NodeID.section, index: position, node: Self.row(for: item)))
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
            var props: [String: ViewValue] = [:]
            if changed.contains(.name) { props["title"] = .string(item.name) }
            if changed.contains(.serialNumber) { props["subtitle"] = item.serialNumber.map(ViewValue.string) ?? .null }
            if changed.contains(.valueInDollars) { props["detail"] = .string(Self.dollars(item.valueInDollars)) }
            patches.append(.set(id: NodeID.row(item.key), props: props))
            guard changed.contains(.valueInDollars) else { return update(patches) }
        }
        patches.append(.set(id: NodeID.section, props: ["footer": .string(footer)]))
        update(patches)
    }

    private func reset(_ state: ItemsState) {
        rows = state.items.map(\.key)
        items = Dictionary(uniqueKeysWithValues: state.items.map { ($0.key, $0) })
        total = state.totalValue
    }

    private var footer: String {
        let count = items.count
        return "\(count) \(count == 1 ? "item" : "items") — \(Self.dollars(total)) total"
    }

    private var emptyState: ViewNode {
        .emptyState(id: NodeID.empty, title: "No Items", message: "Tap Add to log your first possession.")
    }

    private func barButtons(editing: Bool) -> [ViewNode] {
        [.barButton(id: NodeID.edit, label: editing ? "Done" : "Edit", side: "leading"),
         .barButton(id: NodeID.add, label: "Add", side: "trailing", role: "primary")]
    }

    static func row(for item: Item) -> ViewNode {
        .row(id: NodeID.row(item.key), title: item.name, subtitle: item.serialNumber, detail: dollars(item.valueInDollars),
             disclosure: true, deletable: true, movable: true,
             actions: [(Action.openInNewWindow, "Open in New Window")])
    }

    static func dollars(_ value: Int) -> String { "$\(value)" }

    static func key(fromRow id: String) -> UUID? {
        guard id.hasPrefix("item-") else { return nil }
        return UUID(uuidString: String(id.dropFirst(5)))
    }
}
