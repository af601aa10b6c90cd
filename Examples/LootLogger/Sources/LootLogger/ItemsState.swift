public import Foundation
public import SceneSync

/// The item store's state: the items in the order the user gave them.
///
/// Order is kept as a rank per item, so a move rewrites one stored record, not the whole list.
public struct ItemsState: ModelState, Equatable {
    public typealias Event = ItemEvent

    /// The items, in order.
    public private(set) var items: [Item] = []
    private var ranks: [Double] = []
    /// Each key's index in `items` (its first, should a key ever repeat), so that an update, the
    /// most common intent, finds its item without scanning the list. Derived from `items`, so `==`
    /// ignores it.
    private var positions: [UUID: Int] = [:]

    static let collection = "items"

    /// An empty inventory.
    public init() {}

    /// Loads the items saved by ``apply(_:)``.
    public init(records: RecordSet) throws {
        let stored = try records.decode(Self.collection, as: StoredItem.self).values.sorted {
            ($0.rank, $0.item.dateCreated, $0.item.key.keyString) < ($1.rank, $1.item.dateCreated, $1.item.key.keyString)
        }
        items = stored.map(\.item)
        ranks = stored.map(\.rank)
        reindex()
    }

    /// The index of the item with `key`.
    public func index(of key: UUID) -> Int? {
        positions[key]
    }

    /// The item with `key`.
    public func item(_ key: UUID) -> Item? {
        index(of: key).map { items[$0] }
    }

    /// The sum of every item's value, in dollars.
    public var totalValue: Int {
        items.reduce(0) { $0 + $1.valueInDollars }
    }

    public mutating func apply(_ event: ItemEvent) -> [RecordChange] {
        switch event {
        case let .itemAdded(item, index):
            let (changes, inserted) = insert(item, at: index)
            if inserted == items.count - 1 {
                // Appending shifts no other item, so only the new key needs an entry.
                positions[item.key] = positions[item.key] ?? inserted
            } else {
                reindex()
            }
            return changes
        case let .itemRemoved(key, index):
            guard items.indices.contains(index), items[index].key == key else { return [] }
            items.remove(at: index)
            ranks.remove(at: index)
            reindex()
            return [.delete(collection: Self.collection, key: key.keyString)]
        case let .itemMoved(key, from, to):
            guard items.indices.contains(from), items[from].key == key else { return [] }
            let item = items.remove(at: from)
            ranks.remove(at: from)
            let (changes, _) = insert(item, at: to)
            reindex()
            return changes
        case let .itemUpdated(item, _):
            guard let index = index(of: item.key) else { return [] }
            items[index] = item
            return [save(index)]
        }
    }

    public static func == (lhs: ItemsState, rhs: ItemsState) -> Bool {
        lhs.items == rhs.items
    }

    /// Inserts `item` at `requested`, clamped to the list; returns the records it changes and
    /// where it went. Leaves `positions` to the caller, which knows whether anything shifted.
    private mutating func insert(_ item: Item, at requested: Int) -> (changes: [RecordChange], index: Int) {
        let index = min(max(requested, 0), items.count)
        let before = index > 0 ? ranks[index - 1] : nil
        let after = index < ranks.count ? ranks[index] : nil
        let rank: Double
        switch (before, after) {
        case (nil, nil): rank = 0
        case let (before?, nil): rank = before + 1
        case let (nil, after?): rank = after - 1
        case let (before?, after?): rank = (before + after) / 2
        }
        items.insert(item, at: index)
        if let before, let after, !(before < rank && rank < after) {
            // No room left between the neighbours' ranks: space every rank out again.
            ranks = items.indices.map(Double.init)
            return (items.indices.map(save), index)
        }
        ranks.insert(rank, at: index)
        return ([save(index)], index)
    }

    /// Rebuilds `positions` after items shifted: O(n), as the array operation that shifted them is.
    private mutating func reindex() {
        var positions = [UUID: Int](minimumCapacity: items.count)
        // Backwards, so that a repeated key keeps its first index, as a linear search would find.
        for index in items.indices.reversed() { positions[items[index].key] = index }
        self.positions = positions
    }

    private func save(_ index: Int) -> RecordChange {
        .save(collection: Self.collection, key: items[index].key.keyString,
              value: StoredItem(item: items[index], rank: ranks[index]))
    }
}

/// An item as stored: its fields and its place in the order.
struct StoredItem: Codable, Sendable {
    var item: Item
    var rank: Double
}
