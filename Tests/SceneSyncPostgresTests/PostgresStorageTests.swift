import Foundation
import PostgresNIO
import SceneSync
@testable import SceneSyncPostgres
import Synchronization
import Testing

@Suite(.enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.notConfigured), .timeLimit(.minutes(1)))
struct PostgresStorageTests {
    // MARK: - Scopes and nodes

    @Test func scopesKeepSessionsAndDraftsApart() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                let lootLogger = database.storage(scope: "lootlogger", node: "a")
                let chat = database.storage(scope: "chat", node: "a")
                let session = SceneSession(configurationName: "Main", createdAt: Date(timeIntervalSinceReferenceDate: 1_000.5))
                try await lootLogger.saveSession(session)
                try await lootLogger.setDraft(Data("1".utf8), key: "name", session: session.id)

                #expect(try await lootLogger.session(id: session.id) == session)
                #expect(try await chat.session(id: session.id) == nil)
                #expect(try await chat.allSessions().isEmpty)
                #expect(try await chat.drafts(session: session.id).isEmpty)

                // The same id in another scope is another session.
                var twin = session
                twin.lastSeenAt = Date(timeIntervalSinceReferenceDate: 2_000)
                try await chat.saveSession(twin)
                try await chat.setDraft(Data("2".utf8), key: "name", session: twin.id)
                try await chat.markSessionsClosed([twin.id], at: Date(timeIntervalSinceReferenceDate: 3_000))
                #expect(try await lootLogger.session(id: session.id) == session)
                #expect(try await lootLogger.drafts(session: session.id) == ["name": Data("1".utf8)])

                try await chat.deleteSessions([twin.id])
                #expect(try await chat.allSessions().isEmpty)
                #expect(try await lootLogger.allSessions() == [session])
                #expect(try await lootLogger.drafts(session: session.id) == ["name": Data("1".utf8)])
            }
        }
    }

    @Test func runMarksAreKeptPerScopeAndNode() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { (database) async throws in
                let nodeA = database.storage(scope: "app", node: "a")
                let nodeB = database.storage(scope: "app", node: "b")
                #expect(try await nodeA.setRunning(true) == false)
                // B starts while A runs: B's last run did not crash.
                #expect(try await nodeB.setRunning(true) == false)
                // Another app on node A has its own mark.
                #expect(try await database.storage(scope: "other", node: "a").setRunning(true) == false)
                // A is killed and starts again: its last run did not stop.
                #expect(try await nodeA.setRunning(true) == true)
                #expect(try await nodeB.setRunning(false) == true)
                #expect(try await nodeB.setRunning(true) == false)
            }
            // The mark survives the database.
            try await PostgresTestServer.withDatabase(url) { (database) async throws in
                #expect(try await database.storage(scope: "app", node: "a").setRunning(false) == true)
            }
        }
    }

    // MARK: - Commits

    @Test func aBatchsLastChangeToARecordWins() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                let storage = database.storage(scope: "s", node: "a")
                try await storage.commit(CommitBatch(app: "items", events: [Fixture.event(1)], changes: [
                    EncodedRecordChange(collection: "items", key: "kept", value: Data("0".utf8)),
                    EncodedRecordChange(collection: "items", key: "gone", value: Data("0".utf8)),
                ], trimThrough: nil))
                try await storage.commit(CommitBatch(app: "items", events: [Fixture.event(2), Fixture.event(3)], changes: [
                    EncodedRecordChange(collection: "items", key: "new", value: Data("1".utf8)),
                    EncodedRecordChange(collection: "items", key: "new", value: nil),
                    EncodedRecordChange(collection: "items", key: "gone", value: nil),
                    EncodedRecordChange(collection: "items", key: "back", value: nil),
                    EncodedRecordChange(collection: "items", key: "back", value: Data("2".utf8)),
                    EncodedRecordChange(collection: "items", key: "kept", value: Data("1".utf8)),
                    EncodedRecordChange(collection: "items", key: "kept", value: Data("3".utf8)),
                    EncodedRecordChange(collection: "other", key: "kept", value: Data("4".utf8)),
                    EncodedRecordChange(collection: "items", key: "never", value: nil),
                ], trimThrough: nil))
                let model = try await storage.loadModel(app: "items")
                #expect(model.records.collections == [
                    "items": ["kept": Data("3".utf8), "back": Data("2".utf8)],
                    "other": ["kept": Data("4".utf8)],
                ])
                #expect(model.lastSequence == 3)
            }
        }
    }

    @Test func eventsComeBackExactly() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                let storage = database.storage(scope: "s", node: "a")
                let origin = SceneSession.ID()
                let events = [
                    StoredEvent(sequence: 1, origin: origin, timestamp: Date(timeIntervalSinceReferenceDate: 3),
                                payload: Data(#"{"a":1}"#.utf8)),
                    StoredEvent(sequence: 2, origin: nil, timestamp: Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_7),
                                payload: Data([0, 255, 10])),
                    StoredEvent(sequence: 3, origin: nil, timestamp: Date(timeIntervalSinceReferenceDate: -1.5), payload: Data()),
                ]
                try await storage.commit(CommitBatch(app: "exact", events: events, changes: [], trimThrough: nil))
                #expect(try await storage.events(app: "exact", after: 0, limit: 10) == events)
                #expect(try await storage.events(app: "exact", after: 1, limit: 1) == [events[1]])
            }
        }
    }

    @Test func refusesWhatDoesNotFollowTheLog() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                let storage = database.storage(scope: "s", node: "a")
                // A new app's log starts at 1.
                await #expect(throws: StorageError.sequenceConflict(app: "log", expected: 1, got: 2)) {
                    try await storage.commit(Fixture.batch("log", 2...3))
                }
                await #expect(throws: StorageError.sequenceConflict(app: "log", expected: 1, got: 0)) {
                    try await storage.commit(Fixture.batch("log", 0...1))
                }
                try await storage.commit(Fixture.batch("log", 1...3))
                // A batch that skips a number, or repeats one.
                await #expect(throws: StorageError.sequenceConflict(app: "log", expected: 4, got: 5)) {
                    try await storage.commit(Fixture.batch("log", 5...6, record: "b"))
                }
                await #expect(throws: StorageError.sequenceConflict(app: "log", expected: 4, got: 3)) {
                    try await storage.commit(Fixture.batch("log", 3...4, record: "b"))
                }
                // A gap inside a batch.
                await #expect(throws: StorageError.sequenceConflict(app: "log", expected: 5, got: 6)) {
                    try await storage.commit(CommitBatch(app: "log", events: [Fixture.event(4), Fixture.event(6)], changes: [],
                                                         trimThrough: nil))
                }
                // An event already logged by someone who did not move the head is a conflict too.
                try await PostgresTestServer.withConnection(url) { connection in
                    try await connection.query("""
                        INSERT INTO scenesync_event (app, sequence, timestamp, payload) VALUES ('log', 5, 0, '')
                        """, logger: PostgresTestServer.logger)
                }
                await #expect(throws: StorageError.sequenceConflict(app: "log", expected: 4, got: 4)) {
                    try await storage.commit(Fixture.batch("log", 4...5, record: "b"))
                }
                let model = try await storage.loadModel(app: "log")
                #expect(model.lastSequence == 3)
                #expect(model.records.collections["c"]?.keys.sorted() == ["a"])
                #expect(try await storage.events(app: "log", after: 0, limit: 10).map(\.sequence) == [1, 2, 3, 5])

                let longName = String(repeating: "x", count: 1_001)
                await #expect(throws: PostgresStorageError.appNameTooLong(bytes: 1_001, limit: 1_000)) {
                    try await storage.commit(Fixture.batch(longName, 1...1))
                }
            }
        }
    }

    @Test func aBatchRefusedAtItsCommitIsNotAcknowledged() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                let storage = database.storage(scope: "s", node: "a")
                try await storage.commit(Fixture.batch("log", 1...1))
                // A deferred constraint trigger runs when the transaction commits, after the
                // statement that wrote the rows has finished: the commit itself fails.
                try await PostgresTestServer.withConnection(url) { connection in
                    for statement in [
                        """
                        CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                        BEGIN RAISE EXCEPTION 'refused at commit'; END $$
                        """,
                        """
                        CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT ON scenesync_event
                        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.sequence = 2) EXECUTE FUNCTION refuse_at_commit()
                        """,
                    ] {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresTestServer.logger)
                    }
                }
                for _ in 0..<3 {
                    let error = await #expect(throws: PostgresStorageError.self) {
                        try await storage.commit(Fixture.batch("log", 2...3, record: "b"))
                    }
                    guard case let .database(operation, sqlState, message)? = error else {
                        Issue.record("expected the database's refusal, got \(String(describing: error))")
                        continue
                    }
                    #expect(operation == "commit to the log log")
                    #expect(sqlState == "P0001")
                    #expect(message.contains("refused at commit"))
                }
                var model = try await storage.loadModel(app: "log")
                #expect(model.lastSequence == 1)
                #expect(model.records.collections["c"]?.keys.sorted() == ["a"])
                #expect(try await storage.events(app: "log", after: 0, limit: 10).map(\.sequence) == [1])

                try await PostgresTestServer.withConnection(url) { connection in
                    try await connection.query("DROP TRIGGER refuse_at_commit ON scenesync_event", logger: PostgresTestServer.logger)
                }
                try await storage.commit(Fixture.batch("log", 2...3, record: "b"))
                model = try await storage.loadModel(app: "log")
                #expect(model.lastSequence == 3)
                #expect(model.records.collections["c"]?.keys.sorted() == ["a", "b"])
            }
        }
    }

    /// An app's commits keep one connection between them; one the server ended meanwhile is not
    /// used again, and the next commit takes another.
    @Test func commitsGoOnAfterTheServerEndedTheirConnection() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url, options: .init(commitConnectionIdleTime: .seconds(60))) { database in
                let storage = database.storage(scope: "s", node: "a")
                try await storage.commit(Fixture.batch("log", 1...1))
                let lane = try #require(database.state.withLock { $0.commitLanes["log"] })
                let kept = try #require(lane.keptConnection)
                try await storage.commit(Fixture.batch("log", 2...2))
                #expect(lane.keptConnection === kept)
                try await storage.commit(Fixture.batch("other", 1...1))
                try await PostgresTestServer.withConnection(url) { connection in
                    try await connection.query("""
                        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid()
                        """, logger: PostgresTestServer.logger)
                }
                // Until the client has heard that the kept connection ended.
                let deadline = ContinuousClock.now + .seconds(10)
                while !kept.isClosed, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                // Still kept (the watch gives a closed connection up only after a while): the
                // commit finds it closed and waits for another, rather than being sent on it.
                let keptWhenClosed = lane.keptConnection === kept && kept.isClosed
                try await storage.commit(Fixture.batch("log", 3...3))
                if keptWhenClosed { #expect(lane.requeuedCount == 1) }
                #expect(lane.keptConnection !== kept)
                try await storage.commit(Fixture.batch("other", 2...2))
                #expect(try await storage.loadModel(app: "log").lastSequence == 3)
                #expect(try await storage.loadModel(app: "other").lastSequence == 2)
            }
        }
    }

    /// A lane gives its connection back after the idle time; the next commit takes one again.
    @Test func aLaneGivesItsConnectionBackWhenIdle() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url, options: .init(commitConnectionIdleTime: .milliseconds(300))) { database in
                let storage = database.storage(scope: "s", node: "a")
                try await storage.commit(Fixture.batch("log", 1...1))
                let lane = try #require(database.state.withLock { $0.commitLanes["log"] })
                let deadline = ContinuousClock.now + .seconds(10)
                while lane.isServed, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(!lane.isServed)
                try await storage.commit(Fixture.batch("log", 2...2))
                #expect(try await storage.loadModel(app: "log").lastSequence == 2)
            }
        }
    }

    /// A refused batch leaves nothing behind, not even the app's head row its commit would have
    /// made, with a trim that would have hidden the first events.
    @Test func aRefusedBatchLeavesNoHeadBehind() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                let storage = database.storage(scope: "s", node: "a")
                await #expect(throws: StorageError.sequenceConflict(app: "new", expected: 1, got: 5)) {
                    try await storage.commit(Fixture.batch("new", 5...5, trimThrough: 8))
                }
                let rows = try await PostgresTestServer.withConnection(url) { connection in
                    try await connection.query("SELECT count(*) FROM scenesync_model WHERE app = 'new'", logger: PostgresTestServer.logger)
                        .collect().first?.decode(Int64.self)
                }
                #expect(rows == 0)
                try await storage.commit(Fixture.batch("new", 1...2))
                let model = try await storage.loadModel(app: "new")
                #expect(model.lastSequence == 2)
                #expect(model.firstRetainedSequence == 1)
            }
        }
    }

    /// Commit lanes keep fewer than half the pool's connections, even when several apps commit
    /// for the first time at once: past that, an app commits on a connection borrowed for the
    /// commit.
    @Test func lanesKeepFewerThanHalfThePool() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let options = Database.Options(maximumConnections: 5, commitConnectionIdleTime: .seconds(60))
            try await PostgresTestServer.withDatabase(url, options: options) { database in
                let storage = database.storage(scope: "s", node: "a")
                let apps = (1...6).map { "app\($0)" }
                for round in UInt64(1)...3 {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for app in apps {
                            group.addTask { try await storage.commit(Fixture.batch(app, round...round)) }
                        }
                        try await group.waitForAll()
                    }
                    let served = database.state.withLock { $0.commitLanes.values.count(where: \.isServed) }
                    #expect(served == 2)
                }
                for app in apps {
                    #expect(try await storage.loadModel(app: app).lastSequence == 3)
                }
            }
            // Too small a pool for any: every commit borrows a connection.
            try await PostgresTestServer.withDatabase(url, options: .init(maximumConnections: 2)) { database in
                try await database.storage(scope: "s", node: "a").commit(Fixture.batch("app1", 4...4))
                #expect(database.state.withLock { $0.commitLanes["app1"]?.isServed } == false)
            }
        }
    }

    @Test func aCommitThatCouldNotBePreparedDoesNotSpoilItsConnection() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                let storage = database.storage(scope: "s", node: "a")
                // The commit statement names the event table: without it, the first commit's
                // statement cannot be prepared.
                try await PostgresTestServer.withConnection(url) { connection in
                    try await connection.query("ALTER TABLE scenesync_event RENAME TO scenesync_event_away", logger: PostgresTestServer.logger)
                }
                await #expect(throws: (any Error).self) {
                    try await storage.commit(Fixture.batch("log", 1...1))
                }
                try await PostgresTestServer.withConnection(url) { connection in
                    try await connection.query("ALTER TABLE scenesync_event_away RENAME TO scenesync_event", logger: PostgresTestServer.logger)
                }
                // Every connection the pool lends commits again.
                for sequence in UInt64(1)...8 {
                    try await storage.commit(Fixture.batch("log", sequence...sequence))
                }
                #expect(try await storage.loadModel(app: "log").lastSequence == 8)
            }
        }
    }

    /// Closing the database lets a commit already sent finish, and answers it, before the
    /// connections close: its writer learns that it committed, rather than that its answer was lost.
    @Test func closingLetsACommitUnderWayFinish() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            let database = Database(url: url, logger: PostgresTestServer.logger)
            try await database.start()
            let storage = database.storage(scope: "s", node: "a")
            try await storage.commit(Fixture.batch("log", 1...1))
            try await PostgresTestServer.withConnection(url) { blocker in
                // The app's head row, locked by another transaction: the next commit waits for it.
                try await blocker.query("BEGIN", logger: PostgresTestServer.logger)
                try await blocker.query("SELECT last_sequence FROM scenesync_model WHERE app = 'log' FOR UPDATE",
                                        logger: PostgresTestServer.logger)
                let commit = Task { try await storage.commit(Fixture.batch("log", 2...2)) }
                let deadline = ContinuousClock.now + .seconds(10)
                while try await waitingForLocks(blocker) == 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(try await waitingForLocks(blocker) == 1)
                let closed = Atomic(false)
                let closing = Task {
                    await database.close()
                    closed.store(true, ordering: .releasing)
                }
                try await Task.sleep(for: .milliseconds(300))
                let closedEarly = closed.load(ordering: .acquiring)
                #expect(!closedEarly, "close() waits for the commit under way")
                try await blocker.query("COMMIT", logger: PostgresTestServer.logger)
                try await commit.value
                await closing.value
            }
            // Committed, as its writer was told; and the storage refuses what comes after.
            try await PostgresTestServer.withDatabase(url) { (database) async throws in
                #expect(try await database.storage(scope: "s", node: "a").loadModel(app: "log").lastSequence == 2)
            }
            await #expect(throws: PostgresStorageError.closed) {
                try await storage.commit(Fixture.batch("log", 3...3))
            }
        }
    }

    private func waitingForLocks(_ connection: PostgresConnection) async throws -> Int {
        var count = 0
        for try await waiting in try await connection.query("""
            SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
            """, logger: PostgresTestServer.logger).decode(Int.self) {
            count = waiting
        }
        return count
    }

    @Test func trimsTheLog() async throws {
        try await PostgresTestServer.withFreshDatabase { url in
            try await PostgresTestServer.withDatabase(url) { database in
                let storage = database.storage(scope: "s", node: "a")
                try await storage.commit(Fixture.batch("trim", 1...10))
                try await storage.commit(Fixture.batch("trim", 11...12, trimThrough: 8))
                var model = try await storage.loadModel(app: "trim")
                #expect(model.lastSequence == 12)
                #expect(model.firstRetainedSequence == 9)
                #expect(try await storage.events(app: "trim", after: 0, limit: 10).map(\.sequence) == [9, 10, 11, 12])
                // An older trim does not move the first retained event back.
                try await storage.commit(Fixture.batch("trim", 13...13, trimThrough: 4))
                model = try await storage.loadModel(app: "trim")
                #expect(model.firstRetainedSequence == 9)
                // A batch that trims its own events: as if appended, then trimmed.
                try await storage.commit(Fixture.batch("trim", 14...15, trimThrough: 14))
                model = try await storage.loadModel(app: "trim")
                #expect(model.lastSequence == 15)
                #expect(model.firstRetainedSequence == 15)
                #expect(try await storage.events(app: "trim", after: 0, limit: 10).map(\.sequence) == [15])
            }
        }
    }
}
