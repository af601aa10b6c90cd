import Foundation
import SceneSyncSQLite

/// The storages every shared test body runs on.
enum StorageKind: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, onDisk

    var testDescription: String { rawValue }

    /// A fresh storage of this kind; on disk, a new file in a new temporary folder.
    func make() throws -> SQLiteStorage {
        switch self {
        case .inMemory: try SQLiteStorage.inMemory()
        case .onDisk: try SQLiteStorage(path: TemporaryDirectory().path("scenesync.sqlite"))
        }
    }
}

/// A new folder under the system's temporary directory.
struct TemporaryDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("scenesync-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

import Testing
