import Foundation
import GRDB
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Synchronization
import Testing

/// What is particular to SQLite; what every storage must do is in `StorageConformanceTests`.
struct SQLiteStorageTests {
    func event(_ sequence: UInt64) -> StoredEvent {
        StoredEvent(sequence: sequence, origin: nil, timestamp: Date(), payload: Data("{}".utf8))
    }

    func batch(_ sequences: ClosedRange<UInt64>, trimThrough: UInt64? = nil, record: String = "a") -> CommitBatch {
        CommitBatch(app: "test", events: sequences.map(event),
                    changes: [EncodedRecordChange(collection: "c", key: record, value: Data("1".utf8))],
                    trimThrough: trimThrough)
    }

    @Test(arguments: SQLiteStorage.Durability.allCases)
    func aFileDatabaseUsesWALAndTheChosenDurability(durability: SQLiteStorage.Durability) async throws {
        let storage = try SQLiteStorage(path: TemporaryDirectory().path("wal.sqlite"), durability: durability)
        let (mode, synchronous) = try await storage.writer.write { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        #expect(mode == "wal")
        #expect(synchronous == (durability == .full ? 2 : 1))
        #expect(storage.writer is DatabasePool)
    }

    @Test func aCorruptRecordIsATypedErrorNotACrash() async throws {
        let storage = try SQLiteStorage.inMemory()
        try await storage.commit(CommitBatch(
            app: "test", events: [event(1)],
            changes: [EncodedRecordChange(collection: "c", key: "k", value: Data("not json".utf8))],
            trimThrough: nil))
        let model = try await storage.loadModel(app: "test")
        #expect(throws: StorageError.self) { try model.records.decode("c", as: Int.self) }
    }
}

/// SQLite, in memory and in a file, held to the contract every storage must keep.
struct StorageConformanceTests {
    @Test(arguments: StorageKind.allCases, StorageConformance.Check.allCases)
    func sqliteConforms(kind: StorageKind, check: StorageConformance.Check) async throws {
        try await StorageConformance.run(check) { kind.conformanceDatabase() }
    }
}

extension StorageKind {
    /// A fresh database as `scenesync` lays SQLite out: a file per app (in memory: a database per
    /// app), which every storage opened for that app shares.
    func conformanceDatabase() -> StorageConformance.Database {
        let folder = TemporaryDirectory()
        let memory = Mutex<[String: DatabaseQueue]>([:])
        return StorageConformance.Database { [self] app, _ in
            switch self {
            case .inMemory:
                let queue = try memory.withLock { queues in
                    if let queue = queues[app] { return queue }
                    let queue = try DatabaseQueue()
                    queues[app] = queue
                    return queue
                }
                return try SQLiteStorage(writer: queue, durability: .full)
            case .onDisk:
                return try SQLiteStorage(path: folder.path("\(app).sqlite"))
            }
        }
    }
}
