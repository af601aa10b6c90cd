public import Foundation
public import SceneSync

/// What changed in the item store. Every window applies these to its own view.
public enum ItemEvent: UpdateEvent {
    /// `item` was inserted at `index`.
    case itemAdded(Item, index: Int)
    /// The item with `key` was removed from `index`.
    case itemRemoved(key: UUID, index: Int)
    /// The item with `key` moved from index `from` to index `to`.
    case itemMoved(key: UUID, from: Int, to: Int)
    /// The item now reads `item`; only the fields in `changed` differ from before.
    case itemUpdated(Item, changed: Set<Item.Field>)
}
