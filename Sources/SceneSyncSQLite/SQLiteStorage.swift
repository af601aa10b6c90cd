public import Foundation
public import GRDB
public import Logging
public import SceneSync

/// SceneSync's storage on SQLite: a `DatabasePool` in WAL mode on a file, or an in-memory database
/// for tests.
///
/// Each commit is one SQLite transaction that appends the events to the log, writes the records
/// they change, and advances the app's sequence number.
///
/// ```swift
/// let storage = try SQLiteStorage(path: "data/scenesync.sqlite")
/// let store = try await ItemStore(storage: storage, logger: logger)
/// ```
public final class SQLiteStorage: SceneSyncStorage {
    /// How hard SQLite works to keep a commit through a power loss.
    public enum Durability: String, Sendable, CaseIterable {
        /// `synchronous=FULL`: the write-ahead log is synced at every commit, so an acknowledged
        /// intent survives a crash of the process and a loss of power. The default.
        case full
        /// `synchronous=NORMAL`: an acknowledged intent survives a crash of the process; the last
        /// commits may be lost if the machine loses power.
        case normal
    }

    /// The underlying database.
    public let writer: any DatabaseWriter
    /// The durability setting the database was opened with.
    public let durability: Durability
    /// Sessions (saved, marked closed, deleted) and drafts, written together when many come at
    /// once, and in the order they were asked for.
    private let gathered: GatheredWrites

    /// Opens (creating if needed) the database file at `path` as a WAL `DatabasePool`, and migrates it.
    public convenience init(path: String, durability: Durability = .full, logger: Logger? = nil) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // The pool turns WAL on with synchronous=NORMAL after `prepareDatabase` has run, so the
        // setting goes on its one writer connection, the only one that commits.
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        }
        try self.init(writer: pool, durability: durability)
        logger?.info("Opened SQLite storage", metadata: ["path": "\(path)", "durability": "\(durability.rawValue)"])
    }

    /// Opens a private in-memory database, for tests.
    public static func inMemory() throws -> SQLiteStorage {
        try SQLiteStorage(writer: DatabaseQueue(), durability: .full)
    }

    /// Uses an existing GRDB database, migrating it.
    public init(writer: any DatabaseWriter, durability: Durability) throws {
        self.writer = writer
        self.durability = durability
        gathered = GatheredWrites(writer: writer)
        try Self.migrator.migrate(writer)
    }

    // MARK: - Models

    public func loadModel(app: String) async throws -> StoredModel {
        try await writer.read { db in
            var collections: [String: [String: Data]] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT collection, key, value FROM record WHERE app = ?", arguments: [app])
            while let row = try rows.next() {
                collections[row[0], default: [:]][row[1]] = row[2] as Data
            }
            let meta = try Row.fetchOne(db, sql: "SELECT lastSequence, firstRetained FROM model WHERE app = ?", arguments: [app])
            let last = UInt64(meta?[0] as Int64? ?? 0)
            let first = UInt64(meta?[1] as Int64? ?? 1)
            return StoredModel(records: RecordSet(collections: collections), lastSequence: last, firstRetainedSequence: first)
        }
    }

    public func commit(_ batch: CommitBatch) async throws {
        guard !batch.events.isEmpty else { return }
        // GRDB's callback API runs the transaction on the writer's queue and resumes the waiting
        // task from there. Its async `write` also goes through an actor and a cancellation handler
        // on the way, work that adds up at hundreds of commits a second; model controllers never
        // cancel a commit, so that handler bought them nothing.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writer.asyncWrite({ db in try Self.write(batch, in: db) }, completion: { _, result in continuation.resume(with: result) })
        }
    }

    /// Writes one batch inside the transaction `commit` opened.
    private static func write(_ batch: CommitBatch, in db: Database) throws {
        guard let firstEvent = batch.events.first, let lastEvent = batch.events.last else { return }
        // Every statement is cached: a busy app commits hundreds of batches a second, and
        // compiling the SQL each time is wasted work. The model row is still read on each
        // commit, because another process may share the file.
        let selectModel = try db.cachedStatement(sql: "SELECT lastSequence, firstRetained FROM model WHERE app = ?")
        let meta = try Row.fetchOne(selectModel, arguments: [batch.app])
        let last = UInt64(meta?[0] as Int64? ?? 0)
        var expected = last + 1
        for event in batch.events {
            guard event.sequence == expected else {
                throw StorageError.sequenceConflict(app: batch.app, expected: expected, got: event.sequence)
            }
            expected += 1
        }
        if !batch.actions.isEmpty {
            let selectAttempt = try db.cachedStatement(sql: "SELECT attempt, resent FROM committedAction WHERE sessionId = ? AND ref = ?")
            var committedElsewhere: [SceneActionID] = []
            for committed in batch.actions {
                let row = try Row.fetchOne(selectAttempt, arguments: [committed.action.session.rawValue, committed.action.ref])
                if let row, (row[0] as Int64?) != Int64(bitPattern: committed.attempt), committed.resent || row[1] as Bool {
                    committedElsewhere.append(committed.action)
                }
            }
            if !committedElsewhere.isEmpty {
                throw StorageError.actionsCommitted(app: batch.app, actions: committedElsewhere)
            }
        }
        let insertEvent = try db.cachedStatement(sql: """
            INSERT INTO event (app, sequence, origin, timestamp, payload) VALUES (?, ?, ?, ?, ?)
            """)
        for event in batch.events {
            try insertEvent.execute(arguments: [
                batch.app, Int64(event.sequence), event.origin?.rawValue,
                event.timestamp.timeIntervalSinceReferenceDate, event.payload,
            ])
        }
        let saveRecord = try db.cachedStatement(sql: """
            INSERT INTO record (app, collection, key, value) VALUES (?, ?, ?, ?)
            ON CONFLICT (app, collection, key) DO UPDATE SET value = excluded.value
            """)
        let deleteRecord = try db.cachedStatement(sql: "DELETE FROM record WHERE app = ? AND collection = ? AND key = ?")
        for change in batch.changes {
            if let value = change.value {
                try saveRecord.execute(arguments: [batch.app, change.collection, change.key, value])
            } else {
                try deleteRecord.execute(arguments: [batch.app, change.collection, change.key])
            }
        }
        if !batch.actions.isEmpty {
            let recordAction = try db.cachedStatement(sql: """
                INSERT INTO committedAction (sessionId, ref, app, sequence, attempt, resent) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (sessionId, ref) DO NOTHING
                """)
            for committed in batch.actions {
                try recordAction.execute(arguments: [
                    committed.action.session.rawValue, committed.action.ref, batch.app, Int64(committed.sequence),
                    Int64(bitPattern: committed.attempt), committed.resent,
                ])
            }
        }
        var firstRetained = UInt64(meta?[1] as Int64? ?? Int64(firstEvent.sequence))
        if let trim = batch.trimThrough {
            let trimLog = try db.cachedStatement(sql: "DELETE FROM event WHERE app = ? AND sequence <= ?")
            try trimLog.execute(arguments: [batch.app, Int64(trim)])
            let trimActions = try db.cachedStatement(sql: "DELETE FROM committedAction WHERE app = ? AND sequence <= ?")
            try trimActions.execute(arguments: [batch.app, Int64(trim)])
            firstRetained = max(firstRetained, trim + 1)
        }
        let saveModel = try db.cachedStatement(sql: """
            INSERT INTO model (app, lastSequence, firstRetained) VALUES (?, ?, ?)
            ON CONFLICT (app) DO UPDATE SET lastSequence = excluded.lastSequence, firstRetained = excluded.firstRetained
            """)
        try saveModel.execute(arguments: [batch.app, Int64(lastEvent.sequence), Int64(firstRetained)])
    }

    public func committedAction(_ action: SceneActionID) async throws -> UInt64? {
        try await writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT sequence FROM committedAction WHERE sessionId = ? AND ref = ?",
                               arguments: [action.session.rawValue, action.ref]).map { UInt64(clamping: $0) }
        }
    }

    public func events(app: String, after sequence: UInt64, limit: Int) async throws -> [StoredEvent] {
        try await writer.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT sequence, origin, timestamp, payload FROM event
                WHERE app = ? AND sequence > ? ORDER BY sequence LIMIT ?
                """, arguments: [app, Int64(clamping: sequence), limit])
            var events: [StoredEvent] = []
            while let row = try rows.next() {
                let origin: String? = row[1]
                events.append(StoredEvent(
                    sequence: UInt64(row[0] as Int64),
                    origin: origin.flatMap(SceneSession.ID.init),
                    timestamp: Date(timeIntervalSinceReferenceDate: row[2]),
                    payload: row[3]))
            }
            return events
        }
    }

    /// `nil`: a SQLite file belongs to one `scenesync` process, so SQLite does not listen for
    /// commits of other writers. Two processes that share a file anyway keep one order (a commit
    /// that does not follow the log is refused), but each learns of the other's commits only when
    /// its own is refused.
    public func logHeads(app: String) -> AsyncStream<UInt64>? { nil }

    /// `nil`: a SQLite file belongs to one `scenesync` process.
    public var cluster: (any SceneSyncCluster)? { nil }

    // MARK: - Sessions and drafts

    public func saveSession(_ session: SceneSession) async throws {
        let data = try JSONEncoder().encode(session)
        try await gathered.write { db in
            try db.execute(sql: """
                INSERT INTO sceneSession (id, lastSeenAt, closedAt, data) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET lastSeenAt = excluded.lastSeenAt, closedAt = excluded.closedAt, data = excluded.data
                """, arguments: [session.id.rawValue, session.lastSeenAt.timeIntervalSinceReferenceDate,
                                 session.closedAt?.timeIntervalSinceReferenceDate, data])
        }
    }

    public func session(id: SceneSession.ID) async throws -> SceneSession? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT id, closedAt, data FROM sceneSession WHERE id = ?", arguments: [id.rawValue])
                .map(Self.decodeSession)
        }
    }

    public func allSessions() async throws -> [SceneSession] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, closedAt, data FROM sceneSession ORDER BY lastSeenAt, id").map(Self.decodeSession)
        }
    }

    public func markSessionsClosed(_ ids: [SceneSession.ID], at date: Date) async throws {
        // Gathered too, so that it commits after every session save called before it.
        try await gathered.write { db in
            for id in ids {
                try db.execute(sql: "UPDATE sceneSession SET closedAt = ? WHERE id = ?",
                               arguments: [date.timeIntervalSinceReferenceDate, id.rawValue])
            }
        }
    }

    public func deleteSessions(_ ids: [SceneSession.ID]) async throws {
        // Gathered too, so that a session saved before it is not saved again after it.
        try await gathered.write { db in
            for id in ids {
                try db.execute(sql: "DELETE FROM sceneDraft WHERE sessionId = ?", arguments: [id.rawValue])
                try db.execute(sql: "DELETE FROM committedAction WHERE sessionId = ?", arguments: [id.rawValue])
                try db.execute(sql: "DELETE FROM sceneSession WHERE id = ?", arguments: [id.rawValue])
            }
        }
    }

    public func drafts(session: SceneSession.ID) async throws -> [String: Data] {
        try await writer.read { db in
            var drafts: [String: Data] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM sceneDraft WHERE sessionId = ?", arguments: [session.rawValue]) {
                drafts[row[0]] = row[1] as Data
            }
            return drafts
        }
    }

    public func setDraft(_ value: Data?, key: String, session: SceneSession.ID) async throws {
        try await gathered.write { db in
            if let value {
                try db.execute(sql: """
                    INSERT INTO sceneDraft (sessionId, key, value) VALUES (?, ?, ?)
                    ON CONFLICT (sessionId, key) DO UPDATE SET value = excluded.value
                    """, arguments: [session.rawValue, key, value])
            } else {
                try db.execute(sql: "DELETE FROM sceneDraft WHERE sessionId = ? AND key = ?", arguments: [session.rawValue, key])
            }
        }
    }

    public func setRunning(_ running: Bool) async throws -> Bool {
        try await writer.write { db in
            let previous = try Bool.fetchOne(db, sql: "SELECT running FROM runState WHERE id = 1") ?? false
            try db.execute(sql: """
                INSERT INTO runState (id, running) VALUES (1, ?)
                ON CONFLICT (id) DO UPDATE SET running = excluded.running
                """, arguments: [running])
            return previous
        }
    }

    private static func decodeSession(_ row: Row) throws -> SceneSession {
        let id: String = row[0]
        do {
            var session = try JSONDecoder().decode(SceneSession.self, from: row[2] as Data)
            // Another process may have marked the window closed without rewriting the JSON.
            if let closed = row[1] as Double? { session.closedAt = Date(timeIntervalSinceReferenceDate: closed) }
            return session
        } catch {
            throw StorageError.corruptSession(id: id, reason: "\(error)")
        }
    }
}
