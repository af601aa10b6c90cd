import Foundation
import GRDB
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import Testing

struct SQLiteStorageTests {
    func event(_ sequence: UInt64) -> StoredEvent {
        StoredEvent(sequence: sequence, origin: nil, timestamp: Date(), payload: Data("{}".utf8))
    }

    func batch(_ sequences: ClosedRange<UInt64>, trimThrough: UInt64? = nil, record: String = "a") -> CommitBatch {
        CommitBatch(app: "test", events: sequences.map(event),
                    changes: [EncodedRecordChange(collection: "c", key: record, value: Data("1".utf8))],
                    trimThrough: trimThrough)
    }

    @Test(arguments: StorageKind.allCases)
    func aBatchThatDoesNotFollowTheLogIsRefusedWhole(kind: StorageKind) async throws {
        let storage = try kind.make()
        try await storage.commit(batch(1...3))

        await #expect(throws: StorageError.sequenceConflict(app: "test", expected: 4, got: 5)) {
            try await storage.commit(batch(5...6, record: "b"))
        }
        await #expect(throws: StorageError.sequenceConflict(app: "test", expected: 4, got: 3)) {
            try await storage.commit(batch(3...4, record: "b"))
        }

        let model = try await storage.loadModel(app: "test")
        #expect(model.lastSequence == 3)
        #expect(model.records.collections["c"]?.keys.sorted() == ["a"])
        #expect(try await storage.events(app: "test", after: 0, limit: 10).map(\.sequence) == [1, 2, 3])
    }

    @Test func trimmingKeepsTheNewestEventsAndTheSequence() async throws {
        let storage = try SQLiteStorage.inMemory()
        try await storage.commit(batch(1...10))
        try await storage.commit(batch(11...12, trimThrough: 8))
        let model = try await storage.loadModel(app: "test")
        #expect(model.lastSequence == 12)
        #expect(model.firstRetainedSequence == 9)
        #expect(try await storage.events(app: "test", after: 0, limit: 10).map(\.sequence) == [9, 10, 11, 12])
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

    @Test func aNewDatabaseStartsEmpty() async throws {
        let model = try await SQLiteStorage.inMemory().loadModel(app: "none")
        #expect(model.lastSequence == 0)
        #expect(model.firstRetainedSequence == 1)
        #expect(model.records.collections.isEmpty)
    }
}
