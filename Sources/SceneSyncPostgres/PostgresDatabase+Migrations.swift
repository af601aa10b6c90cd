import Logging
import PostgresNIO

extension PostgresDatabase {
    /// One released change to the schema.
    struct Migration: Sendable {
        /// Its number in `scenesync_migration`; migrations run in this order.
        let version: Int32
        /// Its statements, one each (the extended query protocol runs one statement at a time).
        let statements: [String]
    }

    /// The schema, one migration per released change. Never edit a released migration: add one.
    static let migrations: [Migration] = [
        Migration(version: 1, statements: [
            // Each app's head: the last sequence number it used, and the oldest one still logged.
            // A commit takes the next numbers under this row's lock.
            """
            CREATE TABLE scenesync_model (
                app text PRIMARY KEY,
                last_sequence bigint NOT NULL,
                first_retained bigint NOT NULL
            )
            """,
            // Timestamps are seconds since 2001-01-01 (Foundation's reference date), as SQLite
            // stores them, so that a `Date` comes back exactly.
            """
            CREATE TABLE scenesync_event (
                app text NOT NULL,
                sequence bigint NOT NULL,
                origin text,
                timestamp double precision NOT NULL,
                payload bytea NOT NULL,
                PRIMARY KEY (app, sequence)
            )
            """,
            """
            CREATE TABLE scenesync_record (
                app text NOT NULL,
                collection text NOT NULL,
                key text NOT NULL,
                value bytea NOT NULL,
                PRIMARY KEY (app, collection, key)
            )
            """,
            // Scene sessions, drafts and run marks belong to a scope: the hosting app's name.
            """
            CREATE TABLE scenesync_session (
                scope text NOT NULL,
                id text NOT NULL,
                last_seen_at double precision NOT NULL,
                closed_at double precision,
                data bytea NOT NULL,
                PRIMARY KEY (scope, id)
            )
            """,
            """
            CREATE TABLE scenesync_draft (
                scope text NOT NULL,
                session_id text NOT NULL,
                key text NOT NULL,
                value bytea NOT NULL,
                PRIMARY KEY (scope, session_id, key),
                FOREIGN KEY (scope, session_id) REFERENCES scenesync_session (scope, id) ON DELETE CASCADE
            )
            """,
            """
            CREATE TABLE scenesync_run (
                scope text NOT NULL,
                node text NOT NULL,
                running boolean NOT NULL,
                PRIMARY KEY (scope, node)
            )
            """,
        ]),
        // What nodes tell each other beyond the log (see `SceneSyncCluster`). Times are the
        // database's own clock, so that nodes whose clocks differ agree on them.
        Migration(version: 2, statements: [
            // Each node's last sign of life; a node not seen for a while is taken for dead.
            """
            CREATE TABLE scenesync_node (
                node text PRIMARY KEY,
                seen_at timestamptz NOT NULL
            )
            """,
            // The node a session's window is connected to, if any.
            "ALTER TABLE scenesync_session ADD COLUMN connected_node text",
            // "Open in New Window" requests, for the new window to take on whichever node it reaches.
            """
            CREATE TABLE scenesync_open_request (
                scope text NOT NULL,
                token text NOT NULL,
                activity bytea NOT NULL,
                expires_at timestamptz NOT NULL,
                PRIMARY KEY (scope, token)
            )
            """,
            "CREATE INDEX scenesync_open_request_expiry ON scenesync_open_request (scope, expires_at)",
        ]),
        // Windows' actions whose intents committed, written in the commit's transaction, so that
        // an action a window sends again (to any node) is not done twice. They go with their
        // session, or with the part of the log that is trimmed.
        Migration(version: 3, statements: [
            """
            CREATE TABLE scenesync_committed_action (
                session_id text NOT NULL,
                ref bigint NOT NULL,
                app text NOT NULL,
                sequence bigint NOT NULL,
                PRIMARY KEY (session_id, ref)
            )
            """,
            "CREATE INDEX scenesync_committed_action_sequence ON scenesync_committed_action (app, sequence)",
        ]),
        // Each node's report for the dashboard (see `SceneSyncCluster.publishReport`): JSON,
        // replaced about once a second, and when the node published it.
        Migration(version: 4, statements: [
            "ALTER TABLE scenesync_node ADD COLUMN report jsonb",
            "ALTER TABLE scenesync_node ADD COLUMN reported_at timestamptz",
        ]),
        // Which attempt at a window's action committed it (`SceneActionID.carryOut`), and
        // whether it was the action sent again: another attempt's commit of the same action is
        // refused if either was. Rows from before have no attempt and were not sent again.
        Migration(version: 5, statements: [
            "ALTER TABLE scenesync_committed_action ADD COLUMN attempt bigint",
            "ALTER TABLE scenesync_committed_action ADD COLUMN resent boolean NOT NULL DEFAULT false",
        ]),
    ]

    /// The key of the transaction-level advisory lock migrations run under: "SceneSyn" in ASCII.
    static let migrationLock: Int64 = 0x5363_656E_6553_796E

    /// Applies the migrations this database lacks, in one transaction, under an advisory lock, so
    /// that of several nodes starting at once one migrates and the others find it done.
    func migrate() async throws {
        let logger = logger
        let applied: [Int32] = try await withConnection { connection in
            try await connection.withTransaction(logger: logger) { connection in
                var lock = PostgresBindings()
                lock.append(Self.migrationLock)
                try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock($1)", binds: lock), logger: logger)
                try await connection.query("""
                    CREATE TABLE IF NOT EXISTS scenesync_migration (
                        version int PRIMARY KEY,
                        applied_at timestamptz NOT NULL
                    )
                    """, logger: logger)
                var done: Set<Int32> = []
                for try await version in try await connection.query("SELECT version FROM scenesync_migration", logger: logger)
                    .decode(Int32.self) {
                    done.insert(version)
                }
                var applied: [Int32] = []
                for migration in Self.migrations where !done.contains(migration.version) {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    var binds = PostgresBindings()
                    binds.append(migration.version)
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "INSERT INTO scenesync_migration (version, applied_at) VALUES ($1, now())", binds: binds),
                        logger: logger)
                    applied.append(migration.version)
                }
                return applied
            }
        }
        if let last = applied.last {
            logger.info("Migrated the PostgreSQL schema", metadata: ["versions": "\(applied.map(String.init).joined(separator: ","))", "to": "\(last)"])
        }
    }
}
