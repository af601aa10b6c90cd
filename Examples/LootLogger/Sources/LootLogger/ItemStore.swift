public import Foundation
import Synchronization
public import Logging
public import SceneSync

/// LootLogger's model controller: the one item store every window shares.
///
/// Windows never change their own lists. They send intents here and render the ``ItemEvent``s that
/// come back, each tagged with the scene that caused it.
///
/// ```swift
/// let store = try await ItemStore(storage: storage, logger: logger)
/// let item = try await store.createRandomItem(origin: scene.session.id)
/// try await store.update(item.key, ItemChanges(value: "42"), origin: scene.session.id)
/// ```
public final class ItemStore: Sendable {
    /// The app name that keys LootLogger's records and log.
    public static let app = "lootlogger"

    /// The underlying model controller.
    public let controller: ModelController<ItemsState>

    /// Opens the item store on `storage`.
    public init(storage: any SceneSyncStorage, options: ModelController<ItemsState>.Options = .init(), logger: Logger) async throws {
        controller = try await ModelController(app: Self.app, storage: storage, options: options, logger: logger)
    }

    /// The committed items, in order.
    public var items: [Item] {
        get async { await controller.state.items }
    }

    /// The committed state and its sequence number, to render and then follow with ``events(after:)``.
    public func snapshot() async -> ModelController<ItemsState>.Snapshot {
        await controller.snapshot()
    }

    /// Events after `sequence`, from the log and then live.
    public func events(after sequence: UInt64) -> EventSubscription<ItemEvent> {
        controller.events(after: sequence)
    }

    /// Adds a random item at the end of the list, as the book's Add button does.
    @discardableResult
    public func createRandomItem(origin: SceneSession.ID?) async throws(ItemStoreError) -> Item {
        try await add(.random(), origin: origin)
    }

    /// Adds an item with the given fields at the end of the list.
    ///
    /// - Throws: ``ItemStoreError`` for a missing or over-long name, an over-long serial number or
    ///   a value that is not a whole number from 0 to 1,000,000,000.
    @discardableResult
    public func create(name: String, serialNumber: String? = nil, value: String = "0", origin: SceneSession.ID?) async throws(ItemStoreError) -> Item {
        let item = Item(
            name: try ItemValidation.name(name),
            serialNumber: try ItemValidation.serialNumber(serialNumber),
            valueInDollars: try ItemValidation.value(value))
        return try await add(item, origin: origin)
    }

    /// An item taken out of the list, with the place it had: what ``restore(_:origin:)`` puts back.
    public struct RemovedItem: Equatable, Sendable {
        /// The item, as it was.
        public let item: Item
        /// Where it was in the list.
        public let index: Int
    }

    /// Removes the item with `key`.
    ///
    /// - Returns: The item and the place it had, for ``restore(_:origin:)`` (undo).
    @discardableResult
    public func remove(_ key: UUID, origin: SceneSession.ID?) async throws(ItemStoreError) -> RemovedItem {
        // The check may run again after another node's commit: its last answer is the one committed.
        let taken = Mutex<Item?>(nil)
        let envelopes = try await perform(origin: origin) { state throws(ItemStoreError) in
            guard let index = state.index(of: key) else { throw .unknownItem(key) }
            taken.withLock { $0 = state.items[index] }
            return [.itemRemoved(key: key, index: index)]
        }
        guard case let .itemRemoved(_, index)? = envelopes.first?.event, let item = taken.withLock({ $0 }) else {
            throw .notSaved(reason: "The item was not removed.")
        }
        return RemovedItem(item: item, index: index)
    }

    /// Puts back an item ``remove(_:origin:)`` took out — its key, fields and creation date — at
    /// the place it had, or at the end of a list that is now shorter: undo of a delete, as an
    /// intent every window sees. Nothing happens if an item with its key is in the list already
    /// (undone twice).
    public func restore(_ removed: RemovedItem, origin: SceneSession.ID?) async throws(ItemStoreError) {
        try await perform(origin: origin) { state in
            guard state.index(of: removed.item.key) == nil else { return [] }
            return [.itemAdded(removed.item, index: min(max(removed.index, 0), state.items.count))]
        }
    }

    /// Moves the item with `key` to `index` (counted in the list after the item is taken out).
    public func move(_ key: UUID, to index: Int, origin: SceneSession.ID?) async throws(ItemStoreError) {
        try await perform(origin: origin) { state throws(ItemStoreError) in
            guard let from = state.index(of: key) else { throw .unknownItem(key) }
            guard state.items.indices.contains(index) else {
                throw .moveOutOfRange(index: index, count: state.items.count)
            }
            return from == index ? [] : [.itemMoved(key: key, from: from, to: index)]
        }
    }

    /// Changes the fields set in `changes` on the item with `key`; the others keep their current
    /// values, whatever other windows did to them. Returns the item as committed.
    @discardableResult
    public func update(_ key: UUID, _ changes: ItemChanges, origin: SceneSession.ID?) async throws(ItemStoreError) -> Item {
        // The typed text is checked before the controller's turn, as it needs no state and every
        // intent waits for the turns before its own; an item that is gone is still told first.
        let name = changes.name.map { text in Result { () throws(ItemStoreError) in try ItemValidation.name(text) } }
        let serial = changes.serialNumber.map { text in Result { () throws(ItemStoreError) in try ItemValidation.serialNumber(text) } }
        let value = changes.value.map { text in Result { () throws(ItemStoreError) in try ItemValidation.value(text) } }
        let envelopes = try await perform(origin: origin) { state throws(ItemStoreError) in
            guard var item = state.item(key) else { throw .unknownItem(key) }
            var changed: Set<Item.Field> = []
            if let name = try name?.get(), name != item.name { item.name = name; changed.insert(.name) }
            if let serial {
                let serial = try serial.get()
                if serial != item.serialNumber { item.serialNumber = serial; changed.insert(.serialNumber) }
            }
            if let value = try value?.get(), value != item.valueInDollars { item.valueInDollars = value; changed.insert(.valueInDollars) }
            return changed.isEmpty ? [] : [.itemUpdated(item, changed: changed)]
        }
        if case let .itemUpdated(item, _)? = envelopes.first?.event { return item }
        guard let item = await controller.state.item(key) else { throw .unknownItem(key) }
        return item
    }

    private func add(_ item: Item, origin: SceneSession.ID?) async throws(ItemStoreError) -> Item {
        _ = try ItemValidation.name(item.name)
        _ = try ItemValidation.serialNumber(item.serialNumber)
        _ = try ItemValidation.value(item.valueInDollars)
        try await perform(origin: origin) { state in [.itemAdded(item, index: state.items.count)] }
        return item
    }

    @discardableResult
    private func perform(
        origin: SceneSession.ID?,
        _ decide: @escaping @Sendable (ItemsState) throws(ItemStoreError) -> [ItemEvent]
    ) async throws(ItemStoreError) -> [EventEnvelope<ItemEvent>] {
        do {
            return try await controller.perform(origin: origin) { state in try decide(state) }
        } catch let error as ItemStoreError {
            throw error
        } catch {
            throw .notSaved(reason: "\(error)")
        }
    }
}
