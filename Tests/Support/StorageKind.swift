public import Foundation
public import SceneSyncSQLite
public import Testing

/// The storages every shared test body runs on.
public enum StorageKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory, onDisk

    public var testDescription: String { rawValue }

    /// A fresh storage of this kind; on disk, a new file in a new temporary folder.
    public func make() throws -> SQLiteStorage {
        switch self {
        case .inMemory: try SQLiteStorage.inMemory()
        case .onDisk: try SQLiteStorage(path: TemporaryDirectory().path("scenesync.sqlite"))
        }
    }
}

/// A new folder under the system's temporary directory.
public struct TemporaryDirectory: Sendable {
    /// The folder.
    public let url: URL

    /// Creates the folder.
    public init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("scenesync-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` in the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
