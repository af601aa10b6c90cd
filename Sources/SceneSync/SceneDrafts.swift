public import Foundation

/// A small per-scene store for what belongs to one window alone, such as an unsaved draft.
///
/// Drafts outlive disconnection and restarts, and are deleted when the window's session is
/// discarded. Values are Codable and read synchronously; writes are durable when they return.
///
/// ```swift
/// try await scene.drafts.set("Rusty Sp", for: "name")
/// let name = scene.drafts.value(for: "name", as: String.self)
/// ```
@MainActor
public final class SceneDrafts {
    /// The largest encoded draft, in bytes.
    public static let maximumSize = 256 * 1024
    /// The most drafts one window keeps. Keys under `scenesync.` (what SceneSync keeps per window
    /// with ``setData(_:for:limit:)``, such as the UI layer's resume point) are not counted.
    public static let maximumCount = 64
    /// The most bytes one window's drafts take together, the framework's own keys aside.
    public static let maximumTotalSize = 1 << 20
    /// The prefix of the keys SceneSync keeps per window for itself.
    public static let reservedPrefix = "scenesync."

    private let session: SceneSession.ID
    private let storage: any SceneSyncStorage
    private var values: [String: Data]

    init(session: SceneSession.ID, storage: any SceneSyncStorage, values: [String: Data]) {
        self.session = session
        self.storage = storage
        self.values = values
    }

    /// The keys that hold a draft.
    public var keys: [String] { values.keys.sorted() }

    /// The draft for `key` decoded as `type`, or `nil` if there is none or it is not a `type`.
    public func value<Value: Decodable>(for key: String, as type: Value.Type) -> Value? {
        values[key].flatMap { try? JSONDecoder().decode(Value.self, from: $0) }
    }

    /// Saves the draft for `key`, or deletes it when `value` is `nil`.
    ///
    /// - Throws: ``SceneDraftError/tooLarge(key:size:limit:)``, or what the storage throws; the
    ///   previous draft is kept then.
    ///   ``SceneDraftError/tooMany(limit:)`` for a new draft beyond ``maximumCount``, or
    ///   ``SceneDraftError/tooMuch(size:limit:)`` beyond ``maximumTotalSize`` in all.
    public func set<Value: Encodable>(_ value: Value?, for key: String) async throws {
        let data = try value.map { try JSONEncoder().encode($0) }
        if let data {
            if data.count > Self.maximumSize {
                throw SceneDraftError.tooLarge(key: key, size: data.count, limit: Self.maximumSize)
            }
            let others = values.filter { $0.key != key && !$0.key.hasPrefix(Self.reservedPrefix) }
            if values[key] == nil, !key.hasPrefix(Self.reservedPrefix), others.count >= Self.maximumCount {
                throw SceneDraftError.tooMany(limit: Self.maximumCount)
            }
            let total = others.values.reduce(data.count) { $0 + $1.count }
            if total > Self.maximumTotalSize {
                throw SceneDraftError.tooMuch(size: total, limit: Self.maximumTotalSize)
            }
        }
        try await storage.setDraft(data, key: key, session: session)
        values[key] = data
    }

    /// The raw JSON saved for `key`.
    public func data(for key: String) -> Data? { values[key] }

    /// Saves raw JSON under `key` with a limit of the caller's choosing: for what a layer above
    /// keeps per window, such as the UI layer's resume point, under a key of its own.
    ///
    /// - Throws: ``SceneDraftError/tooLarge(key:size:limit:)``, or what the storage throws.
    public func setData(_ data: Data, for key: String, limit: Int) async throws {
        guard data.count <= limit else { throw SceneDraftError.tooLarge(key: key, size: data.count, limit: limit) }
        try await storage.setDraft(data, key: key, session: session)
        values[key] = data
    }

    /// Deletes the draft for `key`.
    public func remove(_ key: String) async throws {
        try await set(String?.none, for: key)
    }
}

/// Why a draft was not saved.
public enum SceneDraftError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The encoded draft is larger than ``SceneDrafts/maximumSize``.
    case tooLarge(key: String, size: Int, limit: Int)
    /// The window already keeps ``SceneDrafts/maximumCount`` drafts.
    case tooMany(limit: Int)
    /// The window's drafts would take more than ``SceneDrafts/maximumTotalSize`` bytes together.
    case tooMuch(size: Int, limit: Int)

    public var description: String {
        switch self {
        case let .tooLarge(key, size, limit): "The draft \(key) is \(size) bytes; at most \(limit) are kept."
        case let .tooMany(limit): "This window keeps at most \(limit) unsaved drafts; save or clear one first."
        case let .tooMuch(size, limit): "This window's unsaved drafts would take \(size) bytes; at most \(limit) are kept."
        }
    }
}
