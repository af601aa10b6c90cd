public import Foundation

/// What a window needs to be recreated, as `NSUserActivity` does for state restoration: a type
/// and a Codable payload. It describes the state (selected tab, navigation path, unsaved drafts),
/// never the view tree.
///
/// ```swift
/// struct EditingItem: Codable { var key: UUID; var nameDraft: String? }
/// let activity = try SceneActivity(type: "com.lootlogger.edit-item",
///                                   payload: EditingItem(key: key, nameDraft: "Rusty Sp"))
/// let restored = try activity.decodePayload(as: EditingItem.self)
/// ```
public struct SceneActivity: Codable, Equatable, Hashable, Sendable {
    /// Identifies what the activity describes, such as `"com.lootlogger.edit-item"`.
    public let type: String
    /// A human-readable title, such as a window title.
    public var title: String?
    /// The JSON-encoded payload.
    public let payload: Data

    /// The largest payload an activity may carry, in bytes.
    public static let maximumPayloadSize = 64 * 1024

    /// Creates an activity with an encoded payload.
    ///
    /// - Throws: ``SceneActivityError`` if the payload does not encode or is larger than
    ///   ``maximumPayloadSize``.
    public init(type: String, title: String? = nil, payload: some Encodable) throws(SceneActivityError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(payload)
        } catch {
            throw .unencodablePayload(type: type, reason: "\(error)")
        }
        try self.init(type: type, title: title, encodedPayload: data)
    }

    /// Creates an activity with no payload beyond its type.
    public init(type: String, title: String? = nil) {
        self.type = type
        self.title = title
        self.payload = Data("{}".utf8)
    }

    /// Creates an activity from an already encoded JSON payload.
    public init(type: String, title: String? = nil, encodedPayload: Data) throws(SceneActivityError) {
        guard encodedPayload.count <= Self.maximumPayloadSize else {
            throw .payloadTooLarge(size: encodedPayload.count, limit: Self.maximumPayloadSize)
        }
        self.type = type
        self.title = title
        self.payload = encodedPayload
    }

    /// Decodes the payload.
    ///
    /// - Throws: ``SceneActivityError/undecodablePayload(type:reason:)`` if it is not a `Payload`.
    public func decodePayload<Payload: Decodable>(as type: Payload.Type) throws(SceneActivityError) -> Payload {
        do {
            return try JSONDecoder().decode(Payload.self, from: payload)
        } catch {
            throw .undecodablePayload(type: self.type, reason: "\(error)")
        }
    }
}

/// Why a ``SceneActivity`` could not be made or read.
public enum SceneActivityError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The payload could not be encoded.
    case unencodablePayload(type: String, reason: String)
    /// The payload is not what the reader expected.
    case undecodablePayload(type: String, reason: String)
    /// The encoded payload is larger than ``SceneActivity/maximumPayloadSize``.
    case payloadTooLarge(size: Int, limit: Int)

    public var description: String {
        switch self {
        case let .unencodablePayload(type, reason): "The \(type) activity could not be saved: \(reason)"
        case let .undecodablePayload(type, reason): "The \(type) activity could not be read: \(reason)"
        case let .payloadTooLarge(size, limit): "The activity is \(size) bytes; at most \(limit) are kept."
        }
    }
}
