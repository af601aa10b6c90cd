public import Foundation

/// The state a ``ModelController`` keeps for one app, and how update events change it.
///
/// State is a value. ``apply(_:)`` is the only way it changes, so replaying an app's log from an
/// empty state reproduces it. `apply` also says which stored records the event touches, so that the
/// state can be saved in the same transaction as the event and loaded again with
/// ``init(records:)`` without replaying a log that may have been trimmed.
public protocol ModelState: Sendable {
    /// The app's update event.
    associatedtype Event: UpdateEvent
    /// What the app announces without keeping it, such as "Ana is typing": see
    /// ``ModelController/announce(origin:_:)``. Apps with none leave it `Never`. It is encoded
    /// only to reach windows on other nodes (see ``SceneSyncCluster``).
    associatedtype Transient: Codable & Sendable = Never

    /// The state of an app that has never recorded anything.
    init()

    /// Loads the state from the records that ``apply(_:)`` saved.
    init(records: RecordSet) throws

    /// Applies one event and returns the records it changes. Must be deterministic: the same
    /// state and event always give the same result.
    mutating func apply(_ event: Event) -> [RecordChange]
}

/// A change to one stored record of an app's state, written in the transaction of its event.
public enum RecordChange: Sendable {
    /// Inserts or replaces the record `key` of `collection` with `value`.
    case save(collection: String, key: String, value: any Encodable & Sendable)
    /// Deletes the record `key` of `collection`, if it exists.
    case delete(collection: String, key: String)
}

/// A change to a stored record, encoded for storage.
public struct EncodedRecordChange: Sendable, Equatable {
    /// The record's collection, such as `"items"`.
    public let collection: String
    /// The record's key within its collection.
    public let key: String
    /// The record's new JSON value, or `nil` to delete it.
    public let value: Data?

    /// Creates an encoded change.
    public init(collection: String, key: String, value: Data?) {
        self.collection = collection
        self.key = key
        self.value = value
    }
}

/// The stored records of one app, as ``ModelState/init(records:)`` receives them.
public struct RecordSet: Sendable {
    /// Raw records by collection, then by key.
    public let collections: [String: [String: Data]]

    /// Creates a record set from raw records.
    public init(collections: [String: [String: Data]]) {
        self.collections = collections
    }

    /// Decodes every record of `collection` as `type`, keyed as stored.
    ///
    /// - Throws: ``StorageError/corruptRecord(collection:key:reason:)`` if one does not decode.
    public func decode<Value: Decodable>(_ collection: String, as type: Value.Type) throws -> [String: Value] {
        let decoder = JSONDecoder()
        var result: [String: Value] = [:]
        for (key, data) in collections[collection] ?? [:] {
            do {
                result[key] = try decoder.decode(Value.self, from: data)
            } catch {
                throw StorageError.corruptRecord(collection: collection, key: key, reason: "\(error)")
            }
        }
        return result
    }
}
