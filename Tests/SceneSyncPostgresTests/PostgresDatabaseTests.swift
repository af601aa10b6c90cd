import Foundation
import PostgresNIO
import SceneSync
@testable import SceneSyncPostgres
import Testing

@Suite(.enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.notConfigured), .timeLimit(.minutes(1)))
struct PostgresDatabaseTests {
    // MARK: - Migrations

    @Test func nodesStartingAtOnceMigrateOnce() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let first = Database(url: url, logger: PostgresTestServer.logger)
            let second = Database(url: url, logger: PostgresTestServer.logger)
            do {
                async let startFirst: Void = first.start()
                async let startSecond: Void = second.start()
                _ = try await (startFirst, startSecond)
                // Both work, on one schema.
                try await first.storage(scope: "s", node: "a").commit(Fixture.batch("app", 1...2))
                #expect(try await second.storage(scope: "s", node: "b").loadModel(app: "app").lastSequence == 2)
            } catch {
                await first.close()
                await second.close()
                throw error
            }
            await first.close()
            await second.close()

            let applied = try await migrations(url)
            #expect(applied.map(\.version) == [1, 2, 3, 4, 5, 6, 7])

            // Starting later finds nothing to do.
            try await PostgresTestServer.withDatabase(url) { (database) async throws in
                #expect(try await database.storage(scope: "s", node: "a").loadModel(app: "app").lastSequence == 2)
            }
            #expect(try await migrations(url) == applied)
        }
    }

    @Test func aDatabaseFromBeforeTheCommitProcedureWasSplitCommitsWithTheNewOne() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            // The schema as migration 6 left it, with a batch committed through its procedure.
            try await PostgresTestServer.withConnection(url) { connection in
                let logger = PostgresTestServer.logger
                try await connection.query("CREATE TABLE scenesync_migration (version int PRIMARY KEY, applied_at timestamptz NOT NULL)",
                                           logger: logger)
                for migration in Database.migrations where migration.version <= 6 {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO scenesync_migration (version, applied_at) VALUES (\(migration.version), now())",
                                               logger: logger)
                }
            }
            #expect(try await procedureSource(url).contains("WITH head AS"))
            let committed = try await PostgresTestServer.withConnection(url) { connection in
                let call = PostgresStorage.CommitCall(binds: PostgresStorage.commitBinds(
                    Fixture.batch("app", 1...2), previous: 0, last: 2, trim: 0))
                var answers: [Bool] = []
                for try await answer in try await connection.execute(call, logger: PostgresTestServer.logger) { answers.append(answer) }
                return answers
            }
            #expect(committed == [true])
            // Starting migrates to 7, whose procedure takes the next batch, and refuses a stale one.
            try await PostgresTestServer.withDatabase(url) { (database) async throws in
                let storage = database.storage(scope: "s", node: "a")
                try await storage.commit(Fixture.batch("app", 3...4))
                await #expect(throws: StorageError.sequenceConflict(app: "app", expected: 5, got: 3)) {
                    try await storage.commit(Fixture.batch("app", 3...3))
                }
                let model = try await storage.loadModel(app: "app")
                #expect(model.lastSequence == 4)
                #expect(try await storage.events(app: "app", after: 0, limit: 10).map(\.sequence) == [1, 2, 3, 4])
            }
            #expect(try await migrations(url).map(\.version) == [1, 2, 3, 4, 5, 6, 7])
            #expect(try await procedureSource(url).contains("IF cardinality(p_saved_keys) > 0"))
        }
    }

    private func procedureSource(_ url: PostgresURL) async throws -> String {
        try await PostgresTestServer.withConnection(url) { connection in
            var source = ""
            for try await text in try await connection.query("SELECT prosrc FROM pg_proc WHERE proname = 'scenesync_commit'",
                                                             logger: PostgresTestServer.logger).decode(String.self) {
                source += text
            }
            return source
        }
    }

    private func migrations(_ url: PostgresURL) async throws -> [Migration] {
        try await PostgresTestServer.withConnection(url) { connection in
            var rows: [Migration] = []
            let query: PostgresQuery = "SELECT version, applied_at FROM scenesync_migration ORDER BY version"
            for try await (version, appliedAt) in try await connection.query(query, logger: PostgresTestServer.logger)
                .decode((Int32, Date).self) {
                rows.append(Migration(version: version, appliedAt: appliedAt))
            }
            return rows
        }
    }

    private struct Migration: Equatable {
        let version: Int32
        let appliedAt: Date
    }

    // MARK: - Log heads

    @Test func anotherNodeHearsACommit() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            // Polls too rarely to matter: the head must come by notification.
            let options = Database.Options(headPollInterval: .seconds(600))
            try await PostgresTestServer.withDatabase(url, options: options) { writer in
                try await PostgresTestServer.withDatabase(url, options: options) { follower in
                    let storage = follower.storage(scope: "s", node: "b")
                    let heads = HeadRecorder(try #require(storage.logHeads(app: "chat")))
                    let other = HeadRecorder(try #require(storage.logHeads(app: "other")))
                    defer {
                        heads.stop()
                        other.stop()
                    }
                    try await writer.storage(scope: "s", node: "a").commit(Fixture.batch("chat", 1...3))
                    #expect(await heads.waitFor(atLeast: 3))
                    try await writer.storage(scope: "s", node: "a").commit(Fixture.batch("chat", 4...4))
                    #expect(await heads.waitFor(atLeast: 4))
                    #expect(heads.values.allSatisfy { $0 == 3 || $0 == 4 }, "\(heads.values)")
                    #expect(other.values.isEmpty, "a follower of another app hears nothing: \(other.values)")
                }
            }
        }
    }

    @Test func aCommitNotifiesOncePerBatch() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                let storage = database.storage(scope: "s", node: "a")
                try await PostgresTestServer.withConnection(url) { connection in
                    try await connection.listen(on: "scenesync_log") { notifications in
                        try await storage.commit(Fixture.batch("notes", 1...5))
                        try await storage.commit(Fixture.batch("notes", 6...6))
                        // The first two notifications, or what came within 5 seconds.
                        let payloads = await withTaskGroup(of: [String]?.self) { group in
                            group.addTask {
                                var payloads: [String] = []
                                do {
                                    for try await notification in notifications {
                                        payloads.append(notification.payload)
                                        if payloads.count == 2 { break }
                                    }
                                } catch {}
                                return payloads
                            }
                            group.addTask {
                                try? await Task.sleep(for: .seconds(5))
                                return nil
                            }
                            let first = await group.next() ?? nil
                            group.cancelAll()
                            return first ?? []
                        }
                        #expect(payloads == ["notes 5", "notes 6"])
                    }
                }
            }
        }
    }

    @Test func malformedNotificationsAreIgnored() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let options = Database.Options(headPollInterval: .seconds(600))
            try await PostgresTestServer.withDatabase(url, options: options) { database in
                let heads = HeadRecorder(try #require(database.storage(scope: "s", node: "a").logHeads(app: "my app")))
                defer { heads.stop() }
                try await PostgresTestServer.withConnection(url) { connection in
                    for payload in ["garbage", "my app", "my app x", "my app -1", "", "my app 4"] {
                        var binds = PostgresBindings()
                        binds.append(payload)
                        try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_notify('scenesync_log', $1)", binds: binds),
                                                   logger: PostgresTestServer.logger)
                    }
                }
                // The listener kept listening, and an app name may hold spaces.
                #expect(await heads.waitFor(atLeast: 4))
                #expect(heads.values == [4])
            }
        }
    }

    @Test func thePollFindsACommitThatWasNotAnnounced() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let options = Database.Options(headPollInterval: .milliseconds(200))
            try await PostgresTestServer.withDatabase(url, options: options) { database in
                let storage = database.storage(scope: "s", node: "a")
                let heads = HeadRecorder(try #require(storage.logHeads(app: "quiet")))
                defer { heads.stop() }
                let witness = HeadRecorder(try #require(storage.logHeads(app: "witness")))
                defer { witness.stop() }
                // Other writers move heads without NOTIFY.
                func move(_ app: String, to head: Int) async throws {
                    try await PostgresTestServer.withConnection(url) { connection in
                        var binds = PostgresBindings()
                        binds.append(app)
                        binds.append(head)
                        try await connection.query(PostgresQuery(unsafeSQL: """
                            INSERT INTO scenesync_model (app, last_sequence, first_retained) VALUES ($1, $2, 1)
                            ON CONFLICT (app) DO UPDATE SET last_sequence = excluded.last_sequence
                            """, binds: binds), logger: PostgresTestServer.logger)
                    }
                }
                try await move("quiet", to: 7)
                #expect(await heads.waitFor(atLeast: 7, timeout: .seconds(2)))
                // A poll that finds another app's head has read this one again, unchanged.
                try await move("witness", to: 1)
                #expect(await witness.waitFor(atLeast: 1, timeout: .seconds(2)))
                // The next head yielded is the next one written: 7 once, not at every poll.
                try await move("quiet", to: 8)
                #expect(await heads.waitFor(atLeast: 8, timeout: .seconds(2)))
                #expect(heads.values == [7, 8])
            }
        }
    }

    @Test func theListenerCatchesUpAfterReconnecting() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let options = Database.Options(headPollInterval: .seconds(600))
            try await PostgresTestServer.withDatabase(url, options: options) { database in
                let heads = HeadRecorder(try #require(database.storage(scope: "s", node: "a").logHeads(app: "lost")))
                defer { heads.stop() }
                let witness = HeadRecorder(try #require(database.storage(scope: "s", node: "a").logHeads(app: "witness")))
                defer { witness.stop() }
                try await PostgresTestServer.withConnection(url) { connection in
                    // A commit whose notification is lost…
                    try await connection.query("""
                        INSERT INTO scenesync_model (app, last_sequence, first_retained) VALUES ('lost', 9, 1)
                        """, logger: PostgresTestServer.logger)
                    // The listener hears what is announced after it, and has yielded nothing for it.
                    try await connection.query("SELECT pg_notify('scenesync_log', 'witness 1')", logger: PostgresTestServer.logger)
                    #expect(await witness.waitFor(atLeast: 1))
                    #expect(heads.values.isEmpty)
                    // …is found when the listener's connection drops and it listens again.
                    let terminated = try await connection.query("""
                        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                        WHERE datname = current_database() AND query LIKE 'LISTEN%'
                        """, logger: PostgresTestServer.logger).collect()
                    #expect(terminated.count == 1)
                }
                #expect(await heads.waitFor(atLeast: 9))
            }
        }
    }

    @Test func anOutageIsLoggedOnceAndThePasswordNever() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            // Trust authentication ignores the password; it is only there to be looked for.
            var url = url
            url.password = "pa55-w0rd-secret"
            let log = LogRecorder()
            let database = Database(url: url, logger: log.logger, options: .init(headPollInterval: .milliseconds(100)))
            try await database.start()
            let heads = HeadRecorder(try #require(database.storage(scope: "s", node: "a").logHeads(app: "app")))
            defer { heads.stop() }
            let admin = try PostgresTestServer.admin()
            // An outage: every connection to the database is dropped, and new ones are refused for
            // long enough for the listener to fail several times.
            try await PostgresTestServer.withConnection(admin) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(url.database) ALLOW_CONNECTIONS false"),
                                           logger: PostgresTestServer.logger)
                var binds = PostgresBindings()
                binds.append(url.database)
                try await connection.query(PostgresQuery(unsafeSQL: """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1
                    """, binds: binds), logger: PostgresTestServer.logger)
                try await Task.sleep(for: .milliseconds(1_500))
                try await connection.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(url.database) ALLOW_CONNECTIONS true"),
                                           logger: PostgresTestServer.logger)
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while !log.entries.contains(where: { $0.message.contains("again") }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            // Listening again, it hears commits.
            try await database.storage(scope: "s", node: "a").commit(Fixture.batch("app", 1...1))
            #expect(await heads.waitFor(atLeast: 1))
            await database.close()

            let entries = log.entries
            let outages = entries.filter { $0.level == .warning && $0.message.contains("Not listening") }
            #expect(outages.count == 1, "\(outages.map(\.message))")
            #expect(entries.contains { $0.level == .info && $0.message.contains("again") })
            for entry in entries {
                #expect(!"\(entry.message) \(entry.metadata)".contains("pa55-w0rd"), "\(entry)")
            }
        }
    }

    /// postgres-nio loses a query written to a connection that has closed: no answer comes, and
    /// the waiting task does not see its cancellation. The pool can lend such a connection after
    /// an outage; what runs on it fails instead of waiting for good (which stopped the poll that
    /// says a node lives, and with it ``PostgresDatabase/close()``).
    @Test func aQueryOnAConnectionThatClosedFailsRatherThanWaitingForGood() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let connection = try await PostgresConnection.connect(
                configuration: try url.connectionConfiguration(), id: 1, logger: PostgresTestServer.logger)
            try await connection.close()
            let start = ContinuousClock.now
            await #expect(throws: PostgresStorageError.self) {
                try await Database.unlessAnswerLost(on: connection, checkEvery: .milliseconds(50)) {
                    try await connection.query("SELECT 1", logger: PostgresTestServer.logger)
                }
            }
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    /// The one task that watches every wait at the usual interval: several waits at once fail,
    /// and a wait after that task has ended (nothing left to watch) starts it again.
    @Test func waitsOnClosedConnectionsFailTogetherAndAfterTheWatchHasRested() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            func closedConnection(_ id: Int) async throws -> PostgresConnection {
                let connection = try await PostgresConnection.connect(
                    configuration: try url.connectionConfiguration(), id: id, logger: PostgresTestServer.logger)
                try await connection.close()
                return connection
            }
            let first = try await closedConnection(1), second = try await closedConnection(2)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for connection in [first, second] {
                    group.addTask {
                        await #expect(throws: PostgresStorageError.self) {
                            try await Database.unlessAnswerLost(on: connection) {
                                try await connection.query("SELECT 1", logger: PostgresTestServer.logger)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            // With nothing to watch, the watch's task ends after one more look.
            try await Task.sleep(for: Database.lostAnswerCheckInterval * 3)
            let third = try await closedConnection(3)
            await #expect(throws: PostgresStorageError.self) {
                try await Database.unlessAnswerLost(on: third) {
                    try await third.query("SELECT 1", logger: PostgresTestServer.logger)
                }
            }
        }
    }

    /// Work on a connection runs on the connection's event loop, before and after it waits for
    /// an answer, so that an answer resumes it on the thread that read it.
    @Test func workOnAConnectionRunsOnItsEventLoop() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                for _ in 0..<3 {
                    let (before, after) = try await database.perform("check the thread") { connection in
                        let before = connection.eventLoop.inEventLoop
                        try await connection.query("SELECT 1", logger: PostgresTestServer.logger)
                        return (before, connection.eventLoop.inEventLoop)
                    }
                    #expect(before)
                    #expect(after)
                }
            }
        }
    }

    @Test func closingEndsTheStreams() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let database = Database(url: url, logger: PostgresTestServer.logger)
            try await database.start()
            let storage = database.storage(scope: "s", node: "a")
            let heads = HeadRecorder(try #require(storage.logHeads(app: "app")))
            await database.close()
            #expect(await heads.waitForEnd())
            // After closing: a stream that has ended, and storages refuse.
            let late = try #require(storage.logHeads(app: "app"))
            for await _ in late { Issue.record("a closed database yields nothing") }
            await #expect(throws: PostgresStorageError.closed) { try await storage.loadModel(app: "app") }
        }
    }

    @Test func aStorageRefusesBeforeStart() async throws {
        let database = Database(url: PostgresURL(user: "u", host: "127.0.0.1", database: "d"), logger: PostgresTestServer.logger)
        await #expect(throws: PostgresStorageError.notStarted) {
            try await database.storage(scope: "s", node: "a").loadModel(app: "app")
        }
        await database.close()
    }
}
