import Foundation
import GRDB
import Logging
import LootLogger
import SceneSync
import SceneSyncSQLite

/// Fills LootLogger's database before the server opens it, through the app's own item store, so
/// the server starts on a list of a known size without the benchmark's windows adding to it.
enum WindowsSeed {
    /// Creates `count` items in `<dataDirectory>/lootlogger.sqlite` with `writers` concurrent
    /// writers (group commit keeps 10,000 items to seconds), closes the database, and returns the
    /// keys in list order.
    ///
    /// Values run from 10 to 99 dollars, so that setting one to 7 always changes it.
    static func items(_ count: Int, writers: Int, in dataDirectory: URL, logger: Logger) async throws -> [UUID] {
        let path = dataDirectory.appendingPathComponent("\(ItemStore.app).sqlite").path
        let storage = try SQLiteStorage(path: path)
        let store = try await ItemStore(storage: storage, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<min(writers, count) {
                group.addTask {
                    for index in stride(from: writer, to: count, by: writers) {
                        try await store.create(name: "Item \(index)", serialNumber: "SN\(index)", value: String(10 + index % 90), origin: nil)
                    }
                }
            }
            try await group.waitForAll()
        }
        let keys = await store.items.map(\.key)
        await store.controller.close()
        // Closing checkpoints the write-ahead log, so the server opens a settled file.
        try (storage.writer as? DatabasePool)?.close()
        guard keys.count == count else { throw WindowsBenchmarkError.unexpected("seeded \(keys.count) items, not \(count)") }
        return keys
    }
}
