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
        // A commit as one procedure that ends with its own `COMMIT`, its writes in one statement
        // (see `commitProcedureSQL` for the procedure now).
        Migration(version: 6, statements: [firstCommitProcedureSQL]),
        // The same procedure, one statement per table, each only when it has rows to touch.
        Migration(version: 7, statements: [commitProcedureSQL]),
    ]

    /// `scenesync_commit`, the procedure a commit calls: one batch of one app, written and
    /// committed in one round trip.
    ///
    /// - The first statement takes the app's next sequence numbers: it creates the app's row if
    ///   it has none (only a batch that starts at 1 may use the new row) or, under the row's lock,
    ///   moves `last_sequence` from `p_previous` (the number before the batch's first) to `p_last`
    ///   (its last), and raises `first_retained` past a trim. If the row does not hold
    ///   `p_previous`, or another attempt committed one of the batch's actions and either attempt
    ///   was sent again, `committed` comes back false, a conflict, and the transaction is rolled
    ///   back (a row made for a batch that does not start at 1 goes with it). A commit racing this
    ///   one holds the row's lock until it ends, and then has moved `last_sequence`, so an action
    ///   it committed that this statement's snapshot cannot see still refuses the batch.
    /// - Then one statement per table, each only when the batch has rows for it: every event
    ///   appended with one `INSERT … SELECT FROM unnest(…)`; the records upserted, and deleted
    ///   (the batch's last change to each key only, so they touch distinct rows, and no key is
    ///   both saved and deleted: the deletion runs after the upsert); events up to
    ///   `p_trim` (0: none) dropped, with the records of windows' actions they carried; and the
    ///   windows' actions the batch carried out recorded (session, ref, first sequence number,
    ///   attempt, sent again), keeping an earlier record of the same attempt's. Events the same
    ///   batch trims are not appended, as if appended then trimmed.
    /// - A taken batch sends one `pg_notify`, `"<app> <last sequence>"`, delivered to other nodes
    ///   when the transaction commits.
    /// - A taken batch ends with `COMMIT`, so the server has committed, or has refused the commit
    ///   and says so, before it answers the `CALL`. A statement sent alone is committed only after
    ///   its answer (at the `Sync` that follows it), and postgres-nio ends a query at that answer,
    ///   so an error at commit time would come too late; and `BEGIN` and `COMMIT` as statements of
    ///   their own cost two more round trips. Called inside a transaction, the procedure fails
    ///   ("invalid transaction termination") instead of committing someone else's work.
    ///
    /// Statements of their own, skipped when they have nothing to do, cost PostgreSQL less than
    /// the first procedure's one statement of data-modifying parts (``firstCommitProcedureSQL``),
    /// which started every part on every commit (BENCHMARKS.md has the figures).
    ///
    /// Arrays: postgres-nio binds arrays of non-optional elements only, so an event without an
    /// origin is sent as an empty string (a scene session id is 32 hex digits, never empty) and
    /// stored as `NULL`; deletions travel in their own arrays.
    static let commitProcedureSQL = """
        CREATE OR REPLACE PROCEDURE scenesync_commit(
            p_app text, p_previous bigint, p_last bigint, p_trim bigint,
            p_sequences bigint[], p_origins text[], p_timestamps double precision[], p_payloads bytea[],
            p_saved_collections text[], p_saved_keys text[], p_saved_values bytea[],
            p_deleted_collections text[], p_deleted_keys text[],
            p_sessions text[], p_refs bigint[], p_action_sequences bigint[], p_attempts bigint[], p_resent boolean[],
            INOUT committed boolean DEFAULT NULL)
        LANGUAGE plpgsql AS $procedure$
        DECLARE
            head bigint;
        BEGIN
            INSERT INTO scenesync_model AS m (app, last_sequence, first_retained)
            VALUES (p_app, CASE WHEN p_previous = 0 THEN p_last ELSE 0 END, GREATEST(1, p_trim + 1))
            ON CONFLICT (app) DO UPDATE SET last_sequence = p_last, first_retained = GREATEST(m.first_retained, p_trim + 1)
            WHERE m.last_sequence = p_previous AND NOT EXISTS (
                SELECT FROM scenesync_committed_action AS c
                JOIN unnest(p_sessions, p_refs, p_attempts, p_resent) AS a (session_id, ref, attempt, resent)
                ON c.session_id = a.session_id AND c.ref = a.ref
                WHERE c.attempt IS DISTINCT FROM a.attempt AND (a.resent OR c.resent))
            RETURNING m.last_sequence INTO head;
            committed := coalesce(head = p_last, false);
            IF NOT committed THEN
                -- The statement may have made the app's row for a batch that does not start at 1.
                ROLLBACK;
                RETURN;
            END IF;
            IF cardinality(p_sequences) > 0 THEN
                INSERT INTO scenesync_event (app, sequence, origin, timestamp, payload)
                SELECT p_app, e.sequence, NULLIF(e.origin, ''), e.timestamp, e.payload
                FROM unnest(p_sequences, p_origins, p_timestamps, p_payloads) AS e (sequence, origin, timestamp, payload)
                WHERE e.sequence > p_trim;
            END IF;
            IF cardinality(p_saved_keys) > 0 THEN
                INSERT INTO scenesync_record (app, collection, key, value)
                SELECT p_app, r.collection, r.key, r.value
                FROM unnest(p_saved_collections, p_saved_keys, p_saved_values) AS r (collection, key, value)
                ON CONFLICT (app, collection, key) DO UPDATE SET value = excluded.value;
            END IF;
            IF cardinality(p_deleted_keys) > 0 THEN
                DELETE FROM scenesync_record AS r
                USING unnest(p_deleted_collections, p_deleted_keys) AS d (collection, key)
                WHERE r.app = p_app AND r.collection = d.collection AND r.key = d.key;
            END IF;
            IF p_trim > 0 THEN
                DELETE FROM scenesync_event WHERE app = p_app AND sequence <= p_trim;
                DELETE FROM scenesync_committed_action WHERE app = p_app AND sequence <= p_trim;
            END IF;
            IF cardinality(p_sessions) > 0 THEN
                INSERT INTO scenesync_committed_action (session_id, ref, app, sequence, attempt, resent)
                SELECT a.session_id, a.ref, p_app, a.sequence, a.attempt, a.resent
                FROM unnest(p_sessions, p_refs, p_action_sequences, p_attempts, p_resent)
                    AS a (session_id, ref, sequence, attempt, resent)
                ON CONFLICT (session_id, ref) DO NOTHING;
            END IF;
            PERFORM pg_notify('\(channel)', p_app || ' ' || p_last);
            COMMIT;
        END
        $procedure$
        """

    /// The first `scenesync_commit` (migration 6), kept as it was released: its writes are the
    /// data-modifying parts of one statement, each run whether or not it has rows. Migration 7
    /// replaces it with ``commitProcedureSQL``, which does the same.
    static let firstCommitProcedureSQL = """
        CREATE PROCEDURE scenesync_commit(
            p_app text, p_previous bigint, p_last bigint, p_trim bigint,
            p_sequences bigint[], p_origins text[], p_timestamps double precision[], p_payloads bytea[],
            p_saved_collections text[], p_saved_keys text[], p_saved_values bytea[],
            p_deleted_collections text[], p_deleted_keys text[],
            p_sessions text[], p_refs bigint[], p_action_sequences bigint[], p_attempts bigint[], p_resent boolean[],
            INOUT committed boolean DEFAULT NULL)
        LANGUAGE plpgsql AS $procedure$
        BEGIN
            WITH head AS (
                INSERT INTO scenesync_model AS m (app, last_sequence, first_retained)
                VALUES (p_app, CASE WHEN p_previous = 0 THEN p_last ELSE 0 END, GREATEST(1, p_trim + 1))
                ON CONFLICT (app) DO UPDATE SET last_sequence = p_last, first_retained = GREATEST(m.first_retained, p_trim + 1)
                WHERE m.last_sequence = p_previous AND NOT EXISTS (
                    SELECT FROM scenesync_committed_action AS c
                    JOIN unnest(p_sessions, p_refs, p_attempts, p_resent) AS a (session_id, ref, attempt, resent)
                    ON c.session_id = a.session_id AND c.ref = a.ref
                    WHERE c.attempt IS DISTINCT FROM a.attempt AND (a.resent OR c.resent))
                RETURNING m.last_sequence
            ), taken AS (
                SELECT FROM head WHERE last_sequence = p_last
            ), appended AS (
                INSERT INTO scenesync_event (app, sequence, origin, timestamp, payload)
                SELECT p_app, e.sequence, NULLIF(e.origin, ''), e.timestamp, e.payload
                FROM unnest(p_sequences, p_origins, p_timestamps, p_payloads) AS e (sequence, origin, timestamp, payload)
                WHERE e.sequence > p_trim AND EXISTS (SELECT FROM taken)
            ), saved AS (
                INSERT INTO scenesync_record (app, collection, key, value)
                SELECT p_app, r.collection, r.key, r.value
                FROM unnest(p_saved_collections, p_saved_keys, p_saved_values) AS r (collection, key, value)
                WHERE EXISTS (SELECT FROM taken)
                ON CONFLICT (app, collection, key) DO UPDATE SET value = excluded.value
            ), deleted AS (
                DELETE FROM scenesync_record AS r
                USING unnest(p_deleted_collections, p_deleted_keys) AS d (collection, key)
                WHERE r.app = p_app AND r.collection = d.collection AND r.key = d.key AND EXISTS (SELECT FROM taken)
            ), trimmed AS (
                DELETE FROM scenesync_event
                WHERE app = p_app AND sequence <= p_trim AND EXISTS (SELECT FROM taken)
            ), acted AS (
                INSERT INTO scenesync_committed_action (session_id, ref, app, sequence, attempt, resent)
                SELECT a.session_id, a.ref, p_app, a.sequence, a.attempt, a.resent
                FROM unnest(p_sessions, p_refs, p_action_sequences, p_attempts, p_resent)
                    AS a (session_id, ref, sequence, attempt, resent)
                WHERE EXISTS (SELECT FROM taken)
                ON CONFLICT (session_id, ref) DO NOTHING
            ), forgotten AS (
                DELETE FROM scenesync_committed_action
                WHERE app = p_app AND sequence <= p_trim AND EXISTS (SELECT FROM taken)
            )
            SELECT true INTO committed FROM taken;
            committed := FOUND;
            IF committed THEN
                PERFORM pg_notify('\(channel)', p_app || ' ' || p_last);
                COMMIT;
            ELSE
                -- `head` may have made the app's row for a batch that does not start at 1.
                ROLLBACK;
            END IF;
        END
        $procedure$
        """

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
