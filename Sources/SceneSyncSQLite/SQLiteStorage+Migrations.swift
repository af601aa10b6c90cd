import GRDB

extension SQLiteStorage {
    /// The schema, one migration per released change.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE model (
                    app TEXT PRIMARY KEY NOT NULL,
                    lastSequence INTEGER NOT NULL,
                    firstRetained INTEGER NOT NULL
                );
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
                CREATE TABLE sceneSession (
                    id TEXT PRIMARY KEY NOT NULL,
                    lastSeenAt REAL NOT NULL,
                    closedAt REAL,
                    data BLOB NOT NULL
                );
                CREATE TABLE sceneDraft (
                    sessionId TEXT NOT NULL REFERENCES sceneSession(id) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    value BLOB NOT NULL,
                    PRIMARY KEY (sessionId, key)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2: run state") { db in
            // One row: whether an application runs on this database now, to tell a crash at launch.
            try db.execute(sql: """
                CREATE TABLE runState (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    running INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3: committed actions") { db in
            // Windows' actions whose intents committed, so that one sent again is not done twice.
            // They go with their session, or with the part of the log that is trimmed.
            try db.execute(sql: """
                CREATE TABLE committedAction (
                    sessionId TEXT NOT NULL,
                    ref INTEGER NOT NULL,
                    app TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    PRIMARY KEY (sessionId, ref)
                ) WITHOUT ROWID;
                CREATE INDEX committedActionBySequence ON committedAction (app, sequence);
                """)
        }
        migrator.registerMigration("v4: attempts of committed actions") { db in
            // Which attempt at an action committed it, and whether it was the action sent again:
            // another attempt's commit is refused if either was. Actions recorded before have no
            // attempt, and count as another attempt's, not sent again.
            try db.execute(sql: """
                ALTER TABLE committedAction ADD COLUMN attempt INTEGER;
                ALTER TABLE committedAction ADD COLUMN resent INTEGER NOT NULL DEFAULT 0;
                """)
        }
        return migrator
    }
}
