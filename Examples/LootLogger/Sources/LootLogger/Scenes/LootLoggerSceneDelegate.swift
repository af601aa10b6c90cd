public import Foundation
public import SceneSync

/// One LootLogger window: it mirrors the item store through its events, remembers which item it
/// is editing and the name typed but not yet saved, and restores both.
///
/// This delegate keeps the window's state as data; the server's screens draw it.
@MainActor
public final class LootLoggerSceneDelegate: SceneDelegate {
    /// The restoration payload: what the window was doing.
    public struct EditingState: Codable, Equatable, Sendable {
        /// The item whose detail is shown, if any.
        public var item: UUID?
        /// The name typed but not yet committed.
        public var nameDraft: String?

        /// Creates an editing state.
        public init(item: UUID? = nil, nameDraft: String? = nil) {
            self.item = item
            self.nameDraft = nameDraft
        }
    }

    /// The activity type LootLogger windows save.
    public static let activityType = "com.scenesync.lootlogger.items"

    /// The shared store.
    public let store: ItemStore
    /// The items as this window last heard of them.
    public private(set) var items: [Item] = []
    /// The sequence number of the last event this window applied.
    public private(set) var sequence: UInt64 = 0
    /// The envelopes this window received, in order.
    public private(set) var received: [EventEnvelope<ItemEvent>] = []
    /// What the window is doing, restored on reconnect.
    public var editing = EditingState()
    /// The activity this window was restored with, if any.
    public private(set) var restoredActivity: SceneActivity?
    private weak var scene: Scene?

    /// Creates the delegate.
    public init(store: ItemStore) {
        self.store = store
    }

    public func scene(_ scene: Scene, willConnectTo session: SceneSession, options: ConnectionOptions) {
        self.scene = scene
        let activity = options.activity ?? session.stateRestorationActivity
        restoredActivity = session.stateRestorationActivity
        if let activity, activity.type == Self.activityType,
           let state = try? activity.decodePayload(as: EditingState.self) {
            editing = state
        }
        scene.task { [weak self, store] in
            let snapshot = await store.snapshot()
            guard let self, let scene = self.scene else { return }
            self.items = snapshot.state.items
            self.sequence = snapshot.sequence
            scene.observe(store.events(after: snapshot.sequence)) { [weak self] envelope in
                self?.apply(envelope)
            }
        }
    }

    public func stateRestorationActivity(for scene: Scene) -> SceneActivity? {
        try? SceneActivity(type: Self.activityType, payload: editing)
    }

    private func apply(_ envelope: EventEnvelope<ItemEvent>) {
        received.append(envelope)
        sequence = envelope.sequence
        switch envelope.event {
        case let .itemAdded(item, index):
            items.insert(item, at: min(index, items.count))
        case let .itemRemoved(key, index):
            if items.indices.contains(index), items[index].key == key { items.remove(at: index) }
            if editing.item == key { editing = EditingState() }
        case let .itemMoved(_, from, to):
            if items.indices.contains(from) { items.insert(items.remove(at: from), at: min(to, items.count)) }
        case let .itemUpdated(item, _):
            if let index = items.firstIndex(where: { $0.key == item.key }) { items[index] = item }
        }
    }
}
