public import Foundation
import Logging
import PostgresNIO
public import SceneSync

/// A PostgreSQL storage is shared by nodes: it is its own ``SceneSync/SceneSyncCluster``.
extension PostgresStorage: SceneSyncCluster {
    /// This storage: every node on the database hears the others through it.
    public var cluster: (any SceneSyncCluster)? { self }

    /// The most "Open in New Window" requests a scope keeps; the oldest go first beyond it.
    static let maximumOpenRequests = 1_024

    /// Sends `payload` to the other nodes as a notification on the transient channel, apart from
    /// the log's.
    ///
    /// - Throws: ``PostgresStorageError/transientTooLarge(bytes:limit:)`` if the payload and the
    ///   app's name take more than PostgreSQL's 7,999 bytes.
    public func sendTransient(_ payload: Data, app: String) async throws {
        try await database.sendTransient(payload, app: app)
    }

    public func transients(app: String) -> AsyncStream<Data> {
        database.followTransients(app: app)
    }

    /// Whether this node holds the lead of `role`: a PostgreSQL advisory lock, held on a
    /// connection of the database's own. The lock is checked, and taken if free, every
    /// ``PostgresDatabase/Options/headPollInterval``: a node that dies lets it go when its
    /// connection closes, and another node takes it within about that interval.
    public func leadership(of role: String) -> AsyncStream<Bool> {
        database.leadership(of: role)
    }

    public func setConnected(_ connected: Bool, session id: SceneSession.ID) async throws {
        var binds = PostgresBindings()
        binds.append(scope)
        binds.append(id.rawValue)
        binds.append(node)
        // A node that connects a window says it lives in the same statement, so that the window is
        // known to be in use at once.
        let sql = connected
            ? """
              WITH alive AS (
                  INSERT INTO scenesync_node (node, seen_at) VALUES ($3, now())
                  ON CONFLICT (node) DO UPDATE SET seen_at = excluded.seen_at
              )
              UPDATE scenesync_session SET connected_node = $3 WHERE scope = $1 AND id = $2
              """
            : "UPDATE scenesync_session SET connected_node = NULL WHERE scope = $1 AND id = $2 AND connected_node = $3"
        try await execute(connected ? "record a connected window" : "record a disconnected window",
                          PostgresQuery(unsafeSQL: sql, binds: binds))
    }

    /// The sessions connected to other nodes seen within ``PostgresDatabase/Options/nodeTimeout``.
    public func sessionsConnectedElsewhere() async throws -> Set<SceneSession.ID> {
        var binds = PostgresBindings()
        binds.append(scope)
        binds.append(node)
        binds.append(Double(database.options.nodeTimeout.timeInterval * 1_000))
        return try await database.perform("read the windows connected to other nodes") { [self, binds] connection in
            var ids: Set<SceneSession.ID> = []
            let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT s.id FROM scenesync_session s JOIN scenesync_node n ON n.node = s.connected_node
                WHERE s.scope = $1 AND s.connected_node <> $2 AND n.seen_at > now() - $3 * interval '1 millisecond'
                """, binds: binds), logger: logger)
            for try await id in rows.decode(String.self) {
                if let id = SceneSession.ID(id) { ids.insert(id) }
            }
            return ids
        }
    }

    public func sessionCount() async throws -> Int {
        var binds = PostgresBindings()
        binds.append(scope)
        return try await database.perform("count scene sessions") { [self, binds] connection in
            var count = 0
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM scenesync_session WHERE scope = $1", binds: binds),
                                              logger: logger)
            for try await value in rows.decode(Int64.self) { count = Int(value) }
            return count
        }
    }

    public func keepOpenRequest(_ activity: SceneActivity, token: String, lifetime: Duration) async throws {
        var binds = PostgresBindings()
        binds.append(scope)
        binds.append(token)
        binds.append(ByteBuffer(bytes: try JSONEncoder().encode(activity)))
        binds.append(Double(lifetime.timeInterval * 1_000))
        try await database.perform("keep an Open in New Window request") { [self, binds] connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: """
                    WITH expired AS (DELETE FROM scenesync_open_request WHERE scope = $1 AND expires_at <= now())
                    INSERT INTO scenesync_open_request (scope, token, activity, expires_at)
                    VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
                    ON CONFLICT (scope, token) DO UPDATE SET activity = excluded.activity, expires_at = excluded.expires_at
                    """, binds: binds), logger: logger)
                var bound = PostgresBindings()
                bound.append(scope)
                bound.append(Self.maximumOpenRequests)
                try await connection.query(PostgresQuery(unsafeSQL: """
                    DELETE FROM scenesync_open_request WHERE scope = $1 AND token IN (
                        SELECT token FROM scenesync_open_request WHERE scope = $1
                        ORDER BY expires_at DESC, token OFFSET $2
                    )
                    """, binds: bound), logger: logger)
            }
        }
    }

    public func takeOpenRequest(token: String) async throws -> SceneActivity? {
        var binds = PostgresBindings()
        binds.append(scope)
        binds.append(token)
        let taken: Data? = try await database.perform("take an Open in New Window request") { [self, binds] connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                DELETE FROM scenesync_open_request WHERE scope = $1 AND token = $2
                RETURNING activity, expires_at > now()
                """, binds: binds), logger: logger)
            var taken: Data?
            for try await (activity, live) in rows.decode((Data, Bool).self) where live { taken = activity }
            return taken
        }
        return try taken.map { try JSONDecoder().decode(SceneActivity.self, from: $0) }
    }

    /// Keeps `report` in the node's row of `scenesync_node` (as `jsonb`), which also says the node
    /// lives: one statement.
    public func publishReport(_ report: Data) async throws {
        var binds = PostgresBindings()
        binds.append(node)
        binds.append(String(decoding: report, as: UTF8.self))
        try await execute("publish this node's report", PostgresQuery(unsafeSQL: """
            INSERT INTO scenesync_node (node, seen_at, report, reported_at) VALUES ($1, now(), $2::jsonb, now())
            ON CONFLICT (node) DO UPDATE SET seen_at = excluded.seen_at, report = excluded.report, reported_at = excluded.reported_at
            """, binds: binds))
    }

    /// The reports published within ``PostgresDatabase/Options/nodeTimeout``, by the database's
    /// clock: a node that stopped publishing drops out as a dead node does.
    public func reports() async throws -> [NodeReportRecord] {
        var binds = PostgresBindings()
        binds.append(Double(database.options.nodeTimeout.timeInterval * 1_000))
        return try await database.perform("read the nodes' reports") { [self, binds] connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT node, report::text, extract(epoch FROM reported_at)::float8 FROM scenesync_node
                WHERE report IS NOT NULL AND reported_at > now() - $1 * interval '1 millisecond'
                ORDER BY node
                """, binds: binds), logger: logger)
            var records: [NodeReportRecord] = []
            for try await (node, report, published) in rows.decode((String, String, Double).self) {
                records.append(NodeReportRecord(node: node, report: Data(report.utf8), publishedAt: Date(timeIntervalSince1970: published)))
            }
            return records
        }
    }
}
