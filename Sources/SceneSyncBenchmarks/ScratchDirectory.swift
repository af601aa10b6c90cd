import Foundation

/// A fresh, empty directory holding one configuration's database, so no configuration sees
/// another's pages, WAL or cache.
struct ScratchDirectory: Sendable {
    let url: URL

    /// The database file inside the directory; SQLite puts its `-wal` and `-shm` files next to it.
    var databasePath: String { url.appendingPathComponent("bench.sqlite").path }

    /// Creates the directory, runs `body` with it, and deletes it with everything in it, even if
    /// `body` throws.
    static func with<T: Sendable>(
        parent: URL,
        name: String,
        _ body: (ScratchDirectory) async throws -> T
    ) async throws -> T {
        let url = parent.appendingPathComponent("scenesync-bench-\(name)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(ScratchDirectory(url: url))
    }
}
