public import Foundation
import Logging
import PostgresNIO
public import SceneSync

/// SceneSync's storage on a ``PostgresDatabase``, for one hosting app (its scope) on one node.
///
/// Apps' logs and records are shared by every node, by app name: each commit is one transaction
/// that takes the app's next sequence numbers under the lock of its `scenesync_model` row, so
/// several nodes writing to one app keep one gap-free order. Scene sessions, drafts and the run
/// mark belong to the scope, and the run mark to the node too. Other nodes' commits are heard
/// through ``logHeads(app:)``.
///
/// Make one with ``PostgresDatabase/storage(scope:node:)``.
public final class PostgresStorage: SceneSyncStorage {
    /// The database the storage lives in.
    public let database: PostgresDatabase
    /// The hosting app whose sessions, drafts and run mark this storage keeps.
    public let scope: String
    /// The node whose run mark this storage keeps.
    public let node: String

    /// The database's ``PostgresDatabase/Options/commitGathering``.
    public var commitGathering: CommitGathering? { database.options.commitGathering }

    init(database: PostgresDatabase, scope: String, node: String) {
        self.database = database
        self.scope = scope
        self.node = node
    }

    var logger: Logger { database.logger }

    // MARK: - Models

    public func loadModel(app: String) async throws -> StoredModel {
        // One statement, so one snapshot: the records and the head agree.
        var binds = PostgresBindings()
        binds.append(app)
        return try await database.perform("load the \(app) model") { [self, binds] connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: Self.loadModelSQL, binds: binds), logger: logger)
            var collections: [String: [String: Data]] = [:]
            var last: UInt64 = 0
            var first: UInt64 = 1
            for try await (collection, key, value, lastSequence, firstRetained)
                in rows.decode((String?, String?, Data?, Int64?, Int64?).self) {
                if let collection, let key, let value {
                    collections[collection, default: [:]][key] = value
                } else if let lastSequence, let firstRetained {
                    last = UInt64(clamping: lastSequence)
                    first = UInt64(clamping: firstRetained)
                }
            }
            return StoredModel(records: RecordSet(collections: collections), lastSequence: last, firstRetainedSequence: first)
        }
    }

    static let loadModelSQL = """
        SELECT NULL::text, NULL::text, NULL::bytea, last_sequence, first_retained FROM scenesync_model WHERE app = $1
        UNION ALL
        SELECT collection, key, value, NULL::bigint, NULL::bigint FROM scenesync_record WHERE app = $1
        """

    /// Commits the batch with one call of the `scenesync_commit` procedure, which writes the
    /// batch and commits it before it answers (see `PostgresDatabase.commitProcedureSQL`): one
    /// round trip. The call is a prepared statement, parsed once per connection, and runs on the
    /// app's commit lane (see `PostgresCommitLane`), one connection kept while commits keep coming,
    /// or on a connection borrowed for it when the lanes keep as many as they may.
    public func commit(_ batch: CommitBatch) async throws {
        guard let firstEvent = batch.events.first, let lastEvent = batch.events.last else { return }
        let app = batch.app
        guard app.utf8.count <= PostgresDatabase.maximumAppNameBytes else {
            throw PostgresStorageError.appNameTooLong(bytes: app.utf8.count, limit: PostgresDatabase.maximumAppNameBytes)
        }
        var expected = firstEvent.sequence
        for event in batch.events {
            guard event.sequence == expected else {
                throw StorageError.sequenceConflict(app: app, expected: expected, got: event.sequence)
            }
            expected += 1
        }
        guard let last = Int64(exactly: lastEvent.sequence) else { throw PostgresStorageError.sequenceOutOfRange(lastEvent.sequence) }
        let previous = Int64(firstEvent.sequence) - 1
        let trim = batch.trimThrough.map { Int64(clamping: $0) } ?? 0
        let statement = CommitCall(binds: Self.commitBinds(batch, previous: previous, last: last, trim: trim))

        try await database.performCommit(app: app, "commit to the \(app) log") { [self] connection in
            let committed: Bool
            do {
                var answer: Bool?
                for try await row in try await connection.execute(statement, logger: logger) { answer = row }
                committed = answer == true
            } catch {
                let sqlState = PostgresStorageError.sqlState(of: error)
                if sqlState == "23505" {
                    // An event with one of these numbers is logged already.
                    let head = try await Self.head(app: app, on: connection, logger: logger)
                    throw StorageError.sequenceConflict(app: app, expected: head + 1, got: firstEvent.sequence)
                }
                // A statement that failed to prepare fails at once on this connection from then
                // on (postgres-nio keeps the error): let the pool open another. A commit refused
                // for a deadlock or a serialization failure (class 40) leaves the connection as
                // it was.
                if sqlState?.hasPrefix("40") != true { try? await connection.close() }
                throw error
            }
            if !committed {
                // Another writer got there first (its commit finished before this call's
                // update, which waited for its lock), or the batch is stale, or another attempt
                // committed one of its actions.
                let head = try await Self.head(app: app, on: connection, logger: logger)
                if head + 1 == firstEvent.sequence {
                    let elsewhere = try await Self.committedElsewhere(batch.actions, on: connection, logger: logger)
                    if !elsewhere.isEmpty { throw StorageError.actionsCommitted(app: app, actions: elsewhere) }
                }
                throw StorageError.sequenceConflict(app: app, expected: head + 1, got: firstEvent.sequence)
            }
        }
    }

    /// The call of `scenesync_commit` as a statement the connection prepares once; its one row
    /// says whether the batch was committed. postgres-nio knows a prepared statement by its name
    /// alone: a change to the SQL takes a new name, and the SQL must stay the same for every
    /// storage that shares a pool.
    struct CommitCall: PostgresPreparedStatement {
        static let name = "scenesync_commit_call_v1"
        static let sql = "CALL scenesync_commit(" + (1...18).map { "$\($0)" }.joined(separator: ", ") + ", NULL)"
        typealias Row = Bool
        let binds: PostgresBindings

        func makeBindings() -> PostgresBindings { binds }
        func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
    }

    /// Those of `actions` that another attempt committed, when either attempt was sent again.
    private static func committedElsewhere(
        _ actions: [CommittedAction], on connection: PostgresConnection, logger: Logger
    ) async throws -> [SceneActionID] {
        guard !actions.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(actions.map(\.action.session.rawValue))
        binds.append(actions.map { Int64($0.action.ref) })
        binds.append(actions.map { Int64(bitPattern: $0.attempt) })
        binds.append(actions.map(\.resent))
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT c.session_id, c.ref FROM scenesync_committed_action AS c
            JOIN unnest($1::text[], $2::bigint[], $3::bigint[], $4::boolean[]) AS a (session_id, ref, attempt, resent)
            ON c.session_id = a.session_id AND c.ref = a.ref
            WHERE c.attempt IS DISTINCT FROM a.attempt AND (a.resent OR c.resent)
            """, binds: binds), logger: logger)
        var elsewhere: [SceneActionID] = []
        for try await (session, ref) in rows.decode((String, Int64).self) {
            guard let id = SceneSession.ID(session), let ref = Int(exactly: ref) else { continue }
            elsewhere.append(SceneActionID(session: id, ref: ref))
        }
        return elsewhere
    }

    /// The app's last sequence number, 0 if it has none.
    private static func head(app: String, on connection: PostgresConnection, logger: Logger) async throws -> UInt64 {
        var binds = PostgresBindings()
        binds.append(app)
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT last_sequence FROM scenesync_model WHERE app = $1", binds: binds), logger: logger)
        var head: UInt64 = 0
        for try await last in rows.decode(Int64.self) { head = UInt64(clamping: last) }
        return head
    }

    /// The arguments of ``CommitCall`` for `batch` (internal for tests).
    static func commitBinds(_ batch: CommitBatch, previous: Int64, last: Int64, trim: Int64) -> PostgresBindings {
        // A later change to a key replaces an earlier one, so only the last change to each key
        // is sent, which also lets one statement write them all.
        struct RecordKey: Hashable { let collection: String, key: String }
        var lastChange: [RecordKey: Int] = [:]
        for (index, change) in batch.changes.enumerated() {
            lastChange[RecordKey(collection: change.collection, key: change.key)] = index
        }
        var savedCollections: [String] = [], savedKeys: [String] = [], savedValues: [Bytea] = []
        var deletedCollections: [String] = [], deletedKeys: [String] = []
        for (index, change) in batch.changes.enumerated()
        where lastChange[RecordKey(collection: change.collection, key: change.key)] == index {
            if let value = change.value {
                savedCollections.append(change.collection)
                savedKeys.append(change.key)
                savedValues.append(Bytea(value))
            } else {
                deletedCollections.append(change.collection)
                deletedKeys.append(change.key)
            }
        }
        var binds = PostgresBindings(capacity: 18)
        binds.append(batch.app)
        binds.append(previous)
        binds.append(last)
        binds.append(trim)
        binds.append(batch.events.map { Int64($0.sequence) })
        binds.append(batch.events.map { $0.origin?.rawValue ?? "" })
        binds.append(batch.events.map { $0.timestamp.timeIntervalSinceReferenceDate })
        binds.append(batch.events.map { Bytea($0.payload) })
        binds.append(savedCollections)
        binds.append(savedKeys)
        binds.append(savedValues)
        binds.append(deletedCollections)
        binds.append(deletedKeys)
        binds.append(batch.actions.map(\.action.session.rawValue))
        binds.append(batch.actions.map { Int64($0.action.ref) })
        binds.append(batch.actions.map { Int64(clamping: $0.sequence) })
        binds.append(batch.actions.map { Int64(bitPattern: $0.attempt) })
        binds.append(batch.actions.map(\.resent))
        return binds
    }

    public func committedAction(_ action: SceneActionID) async throws -> UInt64? {
        var binds = PostgresBindings()
        binds.append(action.session.rawValue)
        binds.append(Int64(action.ref))
        return try await database.perform("read a committed action") { [self, binds] connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT sequence FROM scenesync_committed_action WHERE session_id = $1 AND ref = $2
                """, binds: binds), logger: logger)
            var sequence: UInt64?
            for try await value in rows.decode(Int64.self) { sequence = UInt64(clamping: value) }
            return sequence
        }
    }

    public func events(app: String, after sequence: UInt64, limit: Int) async throws -> [StoredEvent] {
        var binds = PostgresBindings()
        binds.append(app)
        binds.append(Int64(clamping: sequence))
        binds.append(Int64(max(0, limit)))
        return try await database.perform("read the \(app) log") { [self, binds] connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT sequence, origin, timestamp, payload FROM scenesync_event
                WHERE app = $1 AND sequence > $2 ORDER BY sequence LIMIT $3
                """, binds: binds), logger: logger)
            var events: [StoredEvent] = []
            for try await (sequence, origin, timestamp, payload) in rows.decode((Int64, String?, Double, Data).self) {
                events.append(StoredEvent(
                    sequence: UInt64(clamping: sequence),
                    origin: origin.flatMap(SceneSession.ID.init),
                    timestamp: Date(timeIntervalSinceReferenceDate: timestamp),
                    payload: payload))
            }
            return events
        }
    }

    /// Where `app`'s log has got to, whenever another node (or this one) may have committed to
    /// it. Never `nil`.
    ///
    /// The stream yields the app's last sequence number when a notification names the app, when
    /// the database's listener (re)connects (it reads every followed app's head, to catch up on
    /// notifications missed while it was away), and when a poll every
    /// ``PostgresDatabase/Options/headPollInterval`` finds a head it has not yielded, in case a
    /// notification was lost. It never yields a number lower than one it yielded, and buffers
    /// only the newest. It ends when the database closes or the iterating task is cancelled.
    public func logHeads(app: String) -> AsyncStream<UInt64>? {
        database.follow(app: app)
    }

    /// Runs a statement that returns no rows.
    func execute(_ operation: String, _ query: PostgresQuery) async throws {
        try await database.perform(operation) { [self] connection in
            for try await _ in try await connection.query(query, logger: logger) {}
        }
    }

    // MARK: - Sessions and drafts

    public func saveSession(_ session: SceneSession) async throws {
        let data = try JSONEncoder().encode(session)
        var binds = PostgresBindings()
        binds.append(scope)
        binds.append(session.id.rawValue)
        binds.append(session.lastSeenAt.timeIntervalSinceReferenceDate)
        binds.append(session.closedAt?.timeIntervalSinceReferenceDate)
        binds.append(ByteBuffer(bytes: data))
        try await execute("save a scene session", PostgresQuery(unsafeSQL: """
            INSERT INTO scenesync_session (scope, id, last_seen_at, closed_at, data) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (scope, id) DO UPDATE
            SET last_seen_at = excluded.last_seen_at, closed_at = excluded.closed_at, data = excluded.data
            """, binds: binds))
    }

    public func session(id: SceneSession.ID) async throws -> SceneSession? {
        var binds = PostgresBindings()
        binds.append(scope)
        binds.append(id.rawValue)
        return try await readSessions(PostgresQuery(unsafeSQL: """
            SELECT id, closed_at, data FROM scenesync_session WHERE scope = $1 AND id = $2
            """, binds: binds)).first
    }

    public func allSessions() async throws -> [SceneSession] {
        var binds = PostgresBindings()
        binds.append(scope)
        return try await readSessions(PostgresQuery(unsafeSQL: """
            SELECT id, closed_at, data FROM scenesync_session WHERE scope = $1 ORDER BY last_seen_at, id
            """, binds: binds))
    }

    private func readSessions(_ query: PostgresQuery) async throws -> [SceneSession] {
        let rows: [(String, Double?, Data)] = try await database.perform("read scene sessions") { [self] connection in
            var rows: [(String, Double?, Data)] = []
            for try await row in try await connection.query(query, logger: logger).decode((String, Double?, Data).self) {
                rows.append(row)
            }
            return rows
        }
        return try rows.map { id, closedAt, data in
            do {
                var session = try JSONDecoder().decode(SceneSession.self, from: data)
                // Another node may have marked the window closed without rewriting the JSON.
                if let closedAt { session.closedAt = Date(timeIntervalSinceReferenceDate: closedAt) }
                return session
            } catch {
                throw StorageError.corruptSession(id: id, reason: "\(error)")
            }
        }
    }

    public func markSessionsClosed(_ ids: [SceneSession.ID], at date: Date) async throws {
        guard !ids.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(scope)
        binds.append(ids.map(\.rawValue))
        binds.append(date.timeIntervalSinceReferenceDate)
        try await execute("mark scene sessions closed", PostgresQuery(unsafeSQL: """
            UPDATE scenesync_session SET closed_at = $3 WHERE scope = $1 AND id = ANY($2)
            """, binds: binds))
    }

    /// Deletes the sessions and, by the foreign key's cascade, their drafts, in one statement.
    public func deleteSessions(_ ids: [SceneSession.ID]) async throws {
        guard !ids.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(scope)
        binds.append(ids.map(\.rawValue))
        try await execute("delete scene sessions", PostgresQuery(unsafeSQL: """
            WITH actions AS (DELETE FROM scenesync_committed_action WHERE session_id = ANY($2))
            DELETE FROM scenesync_session WHERE scope = $1 AND id = ANY($2)
            """, binds: binds))
    }

    public func drafts(session: SceneSession.ID) async throws -> [String: Data] {
        var binds = PostgresBindings()
        binds.append(scope)
        binds.append(session.rawValue)
        return try await database.perform("read drafts") { [self, binds] connection in
            var drafts: [String: Data] = [:]
            let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT key, value FROM scenesync_draft WHERE scope = $1 AND session_id = $2
                """, binds: binds), logger: logger)
            for try await (key, value) in rows.decode((String, Data).self) {
                drafts[key] = value
            }
            return drafts
        }
    }

    public func setDraft(_ value: Data?, key: String, session: SceneSession.ID) async throws {
        var binds = PostgresBindings()
        binds.append(scope)
        binds.append(session.rawValue)
        binds.append(key)
        let sql: String
        if let value {
            binds.append(ByteBuffer(bytes: value))
            sql = """
                INSERT INTO scenesync_draft (scope, session_id, key, value) VALUES ($1, $2, $3, $4)
                ON CONFLICT (scope, session_id, key) DO UPDATE SET value = excluded.value
                """
        } else {
            sql = "DELETE FROM scenesync_draft WHERE scope = $1 AND session_id = $2 AND key = $3"
        }
        try await execute("save a draft", PostgresQuery(unsafeSQL: sql, binds: binds))
    }

    /// Records whether an application runs on this storage's scope and node, and returns what
    /// was recorded before for them, in one transaction that reads the old mark under its lock.
    /// No window is connected to this node then: sessions it marked connected are marked not.
    public func setRunning(_ running: Bool) async throws -> Bool {
        var key = PostgresBindings()
        key.append(scope)
        key.append(node)
        var mark = key
        mark.append(running)
        return try await database.perform("record the run mark") { [self, key, mark] connection in
            try await connection.withTransaction(logger: logger) { connection in
                var previous = false
                let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                    SELECT running FROM scenesync_run WHERE scope = $1 AND node = $2 FOR UPDATE
                    """, binds: key), logger: logger)
                for try await value in rows.decode(Bool.self) { previous = value }
                try await connection.query(PostgresQuery(unsafeSQL: """
                    INSERT INTO scenesync_run (scope, node, running) VALUES ($1, $2, $3)
                    ON CONFLICT (scope, node) DO UPDATE SET running = excluded.running
                    """, binds: mark), logger: logger)
                // Whether it starts or stops, no window is connected to this node's application.
                try await connection.query(PostgresQuery(unsafeSQL: """
                    UPDATE scenesync_session SET connected_node = NULL WHERE scope = $1 AND connected_node = $2
                    """, binds: key), logger: logger)
                return previous
            }
        }
    }
}

/// Bytes bound as `bytea`, in an array too, written straight from their `Data`: an array of
/// `ByteBuffer`s would first copy each value into a buffer of its own.
struct Bytea: PostgresArrayEncodable, PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { .bytea }
    static var psqlFormat: PostgresFormat { .binary }
    static var psqlArrayType: PostgresDataType { .byteaArray }

    let data: Data

    init(_ data: Data) {
        self.data = data
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeBytes(data)
    }
}
