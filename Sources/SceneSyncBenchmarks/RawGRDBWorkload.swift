import Foundation
import GRDB
import LootLogger
import SceneSync
import SceneSyncSQLite

/// The floor SceneSync is compared with: the rows an update intent produces (one event appended,
/// one record upserted), written straight through GRDB with no model controller in between.
///
/// The whole loop runs inside one access to GRDB's writer, so it measures SQLite and the disk
/// without any task hops, encoding or bookkeeping per intent.
struct RawGRDBWorkload: Sendable {
    let durability: SQLiteStorage.Durability
    let intents: Int
    let items: Int
    /// Intents committed in each transaction: 1 mirrors a lone writer, more mirror group commit.
    let intentsPerTransaction: Int

    private static let app = "lootlogger"
    private static let collection = "items"

    func run(in directory: ScratchDirectory) async throws -> BenchmarkResult {
        let pool = try openPool(path: directory.databasePath)
        let (payload, value) = try Self.encodedRows()
        let keys = (0..<items).map { _ in UUID().uuidString }
        try await createSchema(pool, keys: keys, value: value)

        let origin = SceneSession.ID().rawValue
        let clock = ContinuousClock()
        let cpuBefore = ProcessCPU.used()
        let start = clock.now
        let commits = try await pool.writeWithoutTransaction { [intents, intentsPerTransaction] db in
            let insertEvent = try db.cachedStatement(sql: """
                INSERT INTO event (app, sequence, origin, timestamp, payload) VALUES (?, ?, ?, ?, ?)
                """)
            let saveRecord = try db.cachedStatement(sql: """
                INSERT INTO record (app, collection, key, value) VALUES (?, ?, ?, ?)
                ON CONFLICT (app, collection, key) DO UPDATE SET value = excluded.value
                """)
            var commits = 0
            var next = 0
            while next < intents {
                let end = min(next + intentsPerTransaction, intents)
                try db.inTransaction {
                    for intent in next..<end {
                        try insertEvent.execute(arguments: [
                            Self.app, Int64(intent + 1), origin, Date().timeIntervalSinceReferenceDate, payload,
                        ])
                        try saveRecord.execute(arguments: [Self.app, Self.collection, keys[intent % keys.count], value])
                    }
                    return .commit
                }
                commits += 1
                next = end
            }
            return commits
        }
        let elapsed = start.duration(to: clock.now)
        let cpu = ProcessCPU.used() - cpuBefore
        try pool.close()
        return BenchmarkResult(
            workload: .rawGRDB(intentsPerTransaction: intentsPerTransaction),
            durability: durability,
            intents: intents,
            elapsed: elapsed,
            commits: commits,
            cpu: cpu,
            latency: nil)
    }

    /// A pool configured as `SQLiteStorage(path:durability:)` configures its own.
    private func openPool(path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let pragma = durability.synchronousPragma
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(pragma)")
        }
        return try DatabasePool(path: path, configuration: configuration)
    }

    /// The event log and record tables shaped as SceneSync's, with every record already present
    /// so that each upsert is an update, as a LootLogger edit is.
    private func createSchema(_ pool: DatabasePool, keys: [String], value: Data) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                CREATE TABLE event (
                    app TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    origin TEXT,
                    timestamp REAL NOT NULL,
                    payload BLOB NOT NULL,
                    PRIMARY KEY (app, sequence)
                ) WITHOUT ROWID;
                CREATE TABLE record (
                    app TEXT NOT NULL,
                    collection TEXT NOT NULL,
                    key TEXT NOT NULL,
                    value BLOB NOT NULL,
                    PRIMARY KEY (app, collection, key)
                ) WITHOUT ROWID;
                """)
            for key in keys {
                try db.execute(
                    sql: "INSERT INTO record (app, collection, key, value) VALUES (?, ?, ?, ?)",
                    arguments: [Self.app, Self.collection, key, value])
            }
        }
    }

    /// An `itemUpdated` event and the item it carries, each encoded once, so the rows are the
    /// size SceneSync writes while the loop spends nothing on encoding.
    private static func encodedRows() throws -> (payload: Data, value: Data) {
        let item = Item(name: "Item 42", serialNumber: "SN42", valueInDollars: 1_042)
        let encoder = JSONEncoder()
        let payload = try encoder.encode(ItemEvent.itemUpdated(item, changed: [.valueInDollars]))
        let value = try encoder.encode(item)
        return (payload, value)
    }
}
