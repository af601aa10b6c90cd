import Foundation
import GRDB
import LootLogger
import SceneSync
import SceneSyncSQLite

/// The floor SceneSync is compared with: the rows an update intent produces (one event appended,
/// one record upserted), written straight through GRDB with no model controller in between.
///
/// The whole loop runs inside one access to GRDB's writer, so it measures SQLite and the disk
/// without any task hops, encoding or bookkeeping per intent. The rows are encoded before timing
/// starts, each update's its own, as SceneSync's are: every update sets a value the item never had.
/// (SQLite leaves a page alone when a row is overwritten with the same bytes, so rows that repeated
/// one value would skip the record table's writes that SceneSync pays for.)
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
        let keys = (0..<items).map { _ in UUID() }
        let rows = try Self.encodedRows(keys: keys, intents: intents)
        try await createSchema(pool, keys: keys.map(\.uuidString), value: rows[0].value)

        let origin = SceneSession.ID().rawValue
        let clock = ContinuousClock()
        let cpuBefore = ProcessCPU.used()
        let start = clock.now
        let commits = try await pool.writeWithoutTransaction { [intents, intentsPerTransaction, rows] db in
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
                        let row = rows[intent]
                        try insertEvent.execute(arguments: [
                            Self.app, Int64(intent + 1), origin, Date().timeIntervalSinceReferenceDate, row.payload,
                        ])
                        try saveRecord.execute(arguments: [Self.app, Self.collection, row.key, row.value])
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

    /// A pool configured as `SQLiteStorage(path:durability:)` configures its own. The setting goes
    /// on the writer once the pool is open: the pool turns WAL on with `synchronous=NORMAL` after
    /// `prepareDatabase` has run, so a setting made there would not hold.
    private func openPool(path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: configuration)
        let setting = try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability.synchronousPragma)")
            return try String.fetchOne(db, sql: "PRAGMA synchronous") ?? "?"
        }
        // 2 is FULL, 1 NORMAL: a baseline that does not sync as it says would be no baseline.
        let expected = durability == .full ? "2" : "1"
        guard setting == expected else {
            throw BenchmarkError.synchronousNotSet(expected: durability.synchronousPragma, got: setting)
        }
        return pool
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

    /// Every update's `itemUpdated` event and the item it saves, encoded before timing starts so
    /// that the loop spends nothing on encoding. Update `n` sets item `n % items` to a value it
    /// never had, as SceneSync's writers do.
    static func encodedRows(keys: [UUID], intents: Int) throws -> [(key: String, payload: Data, value: Data)] {
        let encoder = JSONEncoder()
        let created = Date()
        return try (0..<intents).map { intent in
            let key = keys[intent % keys.count]
            let item = Item(key: key, name: "Item \(intent % keys.count)", serialNumber: "SN\(intent % keys.count)",
                            valueInDollars: 1_000 + intent, dateCreated: created)
            let payload = try encoder.encode(ItemEvent.itemUpdated(item, changed: [.valueInDollars]))
            return (key.uuidString, payload, try encoder.encode(item))
        }
    }
}
