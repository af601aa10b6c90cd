public import Foundation
import SceneSync

/// Rows that stand for model objects of one kind, such as items: each row's node id carries its
/// object's key, and the screen handles every such row at once, given the key, as a table view's
/// delegate does (`tableView(_:didSelectRowAt:)`).
///
/// A list of thousands of rows then costs no handler per row: the screen registers its handlers
/// once with ``ScreenController/handleRows(_:shown:onSelect:onDelete:onMove:actions:)``, builds rows
/// with ``id(for:)``, and SceneSync finds the key of the row acted on.
///
/// ```swift
/// static let rows = KeyedRows<UUID>(prefix: "item-")
/// // in init:
/// handleRows(Self.rows, onSelect: { [weak self] key in await self?.show(key) },
///            onDelete: { [weak self] key in try await self?.store.remove(key, origin: self?.origin) })
/// // in makeContent:
/// .row(id: Self.rows.id(for: item.key), title: item.name).deletable()
/// ```
public struct KeyedRows<Key: Hashable & Sendable>: Sendable {
    /// What every row id of this kind starts with, such as `"item-"`.
    public let prefix: String
    private let format: @Sendable (Key) -> String
    private let parse: @Sendable (Substring) -> Key?

    /// Rows whose ids are `prefix` followed by `format(key)`; `parse` reads the key back.
    public init(prefix: String, format: @escaping @Sendable (Key) -> String, parse: @escaping @Sendable (Substring) -> Key?) {
        self.prefix = prefix
        self.format = format
        self.parse = parse
    }

    /// The node id of the row for `key`.
    public func id(for key: Key) -> String { prefix + format(key) }

    /// The key of the row with node id `id`, if it is a row of this kind.
    public func key(of id: String) -> Key? {
        guard id.hasPrefix(prefix) else { return nil }
        return parse(id.dropFirst(prefix.count))
    }
}

extension KeyedRows where Key == UUID {
    /// Rows whose ids are `prefix` followed by the key's `uuidString` (spelled as `keyString`).
    public init(prefix: String) {
        self.init(prefix: prefix, format: { $0.keyString }, parse: { UUID(uuidString: String($0)) })
    }
}

extension KeyedRows where Key: LosslessStringConvertible {
    /// Rows whose ids are `prefix` followed by the key's `description`, such as `line-12`.
    public init(prefix: String) {
        self.init(prefix: prefix, format: { $0.description }, parse: { Key(String($0)) })
    }
}
