import Foundation
import Logging
public import SceneSync
public import Testing

/// Test bodies every `SceneSyncStorage` must pass, whatever database is under it: a
/// second storage is held to the same contract as SQLite by running these against it.
///
/// ```swift
/// @Test(arguments: StorageConformance.Check.allCases)
/// func myStorageConforms(_ check: StorageConformance.Check) async throws {
///     try await StorageConformance.run(check) {
///         let database = try await MyDatabase.fresh()
///         return StorageConformance.Database { app, node in database.storage(app: app, node: node) }
///     }
/// }
/// ```
///
/// Each check is given a fresh, empty database, on which it opens storages, and records failures
/// through Swift Testing's `#expect`.
public enum StorageConformance {
    /// A fresh database that checks open storages on: as the app whose sessions and drafts they
    /// keep, and as the node (the server process) that opens them.
    public struct Database: Sendable {
        /// Opens a storage on this database for `app`, as node `node`. Storages opened for the same
        /// app share its log; a storage shared by nodes keeps a run mark per node.
        public let open: @Sendable (_ app: String, _ node: String) async throws -> any SceneSyncStorage

        /// Creates a database from the way it opens storages.
        public init(open: @escaping @Sendable (_ app: String, _ node: String) async throws -> any SceneSyncStorage) {
            self.open = open
        }
    }

    /// What a storage must do.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// A new storage holds nothing.
        case startsEmpty
        /// A batch's events and records are there once it commits; a later batch deletes a record.
        case commitsEventsAndRecords
        /// Events come back in order from any point, at most `limit` of them.
        case replaysTheLogInOrder
        /// A batch that does not follow the log without a gap is refused whole.
        case refusesABatchWithAGap
        /// Of two batches racing for the same sequence numbers, one commits and the other is
        /// refused with `StorageError.sequenceConflict(app:expected:got:)`.
        case oneOfTwoRacingBatchesCommits
        /// Two storages on one database (two nodes) racing for the same sequence numbers: one
        /// commits, the other is refused with a typed conflict that names the log's real next number.
        case twoStoragesRacingOnOneDatabaseKeepOneOrder
        /// A storage that hears other writers tells of another storage's commit on its
        /// `SceneSyncStorage.logHeads(app:)`; one that cannot says so with `nil`.
        case hearsOtherWritersOrSaysItCannot
        /// A model controller on one storage follows commits made through another on the same
        /// database: by itself if the storage hears other writers, when asked to catch up if not.
        case aModelControllerFollowsAnotherWriter
        /// Trimming drops the oldest events and keeps the sequence going.
        case trimsTheLogAndKeepsTheSequence
        /// A subscriber that fell behind a trimmed log is told it is too old.
        case aSubscriberBehindATrimmedLogIsTooOld
        /// Apps' logs and records are apart.
        case keepsAppsApart
        /// Apps sharing a database keep their sessions and drafts apart.
        case keepsAppsSessionsAndDraftsApart
        /// Sessions are saved, replaced, listed, marked closed and deleted.
        case keepsSessions
        /// Per-scene storage (drafts) is kept per session and deleted with it.
        case keepsPerSceneStorage
        /// Discarding a session deletes it and its drafts, and nothing of other sessions.
        case discardsSessionsAndTheirDrafts
        /// The run mark is durable and tells a start after a clean stop from one after a crash.
        case remembersWhetherItWasRunning
        /// On a storage shared by nodes, a node's run mark is its own: a second node starting is
        /// not told that the first one crashed.
        case keepsARunMarkPerNode
        /// Transient events announced on one node reach the other node's model controller, with
        /// their origin, and never come back to the node that sent them; a storage of one process
        /// says it has no other nodes (`SceneSyncStorage.cluster` is `nil`).
        case relaysTransientEventsToOtherNodes
        /// Of two nodes asking for one lead, one holds it; when it lets go, the other takes it.
        case givesALeadToOneNodeAtATime
        /// A window connected to one node is in use for the other, until it disconnects or its
        /// node starts again.
        case knowsWhichWindowsAreConnectedElsewhere
        /// An "Open in New Window" request kept on one node is taken once on another, not after
        /// it expired, and not by another app.
        case keepsOpenRequestsForEveryNode
        /// The windows' actions a batch carried out are there once it commits, for every node,
        /// with their first sequence number; a refused batch records none; they go with their
        /// session and with the trimmed part of the log.
        case recordsCommittedActions
        /// Two nodes carrying out the same window action at once (the window's earlier connection
        /// still running it on one, its resend on the other) commit it once: the other attempt's
        /// intents are refused and it ends `SceneActionID.AttemptOutcome.carriedOutElsewhere`.
        /// One attempt's several intents all commit.
        case carriesOutAnActionOnceOnTwoNodes

        public var testDescription: String { rawValue }
    }

    /// Runs `check` against storages on a fresh database made by `fresh`.
    public static func run(_ check: Check, on fresh: @Sendable () async throws -> Database) async throws {
        let database = try await fresh()
        let make = { try await database.open(app, "node-a") }
        switch check {
        case .startsEmpty: try await startsEmpty(try await make())
        case .commitsEventsAndRecords: try await commitsEventsAndRecords(try await make())
        case .replaysTheLogInOrder: try await replaysTheLogInOrder(try await make())
        case .refusesABatchWithAGap: try await refusesABatchWithAGap(try await make())
        case .oneOfTwoRacingBatchesCommits:
            let storage = try await make()
            try await racingBatches(storage, storage)
        case .twoStoragesRacingOnOneDatabaseKeepOneOrder:
            try await racingBatches(try await make(), try await database.open(app, "node-b"))
        case .hearsOtherWritersOrSaysItCannot:
            try await hearsOtherWritersOrSaysItCannot(try await make(), try await database.open(app, "node-b"))
        case .aModelControllerFollowsAnotherWriter:
            try await aModelControllerFollowsAnotherWriter(try await make(), try await database.open(app, "node-b"))
        case .trimsTheLogAndKeepsTheSequence: try await trimsTheLogAndKeepsTheSequence(try await make())
        case .aSubscriberBehindATrimmedLogIsTooOld: try await aSubscriberBehindATrimmedLogIsTooOld(try await make())
        case .keepsAppsApart: try await keepsAppsApart(try await make())
        case .keepsAppsSessionsAndDraftsApart:
            try await keepsAppsSessionsAndDraftsApart(try await database.open("one", "node-a"), try await database.open("two", "node-a"))
        case .keepsSessions: try await keepsSessions(try await make())
        case .keepsPerSceneStorage: try await keepsPerSceneStorage(try await make())
        case .discardsSessionsAndTheirDrafts: try await discardsSessionsAndTheirDrafts(try await make())
        case .remembersWhetherItWasRunning: try await remembersWhetherItWasRunning(try await make())
        case .keepsARunMarkPerNode: try await keepsARunMarkPerNode(try await make(), try await database.open(app, "node-b"))
        case .relaysTransientEventsToOtherNodes:
            try await relaysTransientEventsToOtherNodes(try await make(), try await database.open(app, "node-b"))
        case .givesALeadToOneNodeAtATime:
            try await givesALeadToOneNodeAtATime(try await make(), try await database.open(app, "node-b"))
        case .knowsWhichWindowsAreConnectedElsewhere:
            try await knowsWhichWindowsAreConnectedElsewhere(try await make(), try await database.open(app, "node-b"))
        case .recordsCommittedActions:
            try await recordsCommittedActions(try await make(), try await database.open(app, "node-b"))
        case .carriesOutAnActionOnceOnTwoNodes:
            try await carriesOutAnActionOnceOnTwoNodes(try await make(), try await database.open(app, "node-b"))
        case .keepsOpenRequestsForEveryNode:
            try await keepsOpenRequestsForEveryNode(
                try await make(), try await database.open(app, "node-b"), otherApp: try await database.open("other", "node-b"))
        }
    }

    // MARK: - The log and records

    static let app = "conformance"

    static func event(_ sequence: UInt64, origin: SceneSession.ID? = nil) -> StoredEvent {
        StoredEvent(sequence: sequence, origin: origin, timestamp: Date(timeIntervalSinceReferenceDate: Double(sequence)),
                    payload: Data(#"{"n":\#(sequence)}"#.utf8))
    }

    static func batch(_ sequences: ClosedRange<UInt64>, app: String = app, record: String = "a", value: String = "1",
                      trimThrough: UInt64? = nil) -> CommitBatch {
        CommitBatch(app: app, events: sequences.map { event($0) },
                    changes: [EncodedRecordChange(collection: "c", key: record, value: Data(value.utf8))], trimThrough: trimThrough)
    }

    static func startsEmpty(_ storage: any SceneSyncStorage) async throws {
        let model = try await storage.loadModel(app: app)
        #expect(model.lastSequence == 0)
        #expect(model.firstRetainedSequence == 1)
        #expect(model.records.collections.isEmpty)
        #expect(try await storage.events(app: app, after: 0, limit: 10).isEmpty)
        #expect(try await storage.allSessions().isEmpty)
    }

    static func commitsEventsAndRecords(_ storage: any SceneSyncStorage) async throws {
        let origin = SceneSession.ID()
        try await storage.commit(CommitBatch(
            app: app, events: [event(1, origin: origin), event(2)],
            changes: [
                EncodedRecordChange(collection: "items", key: "a", value: Data("1".utf8)),
                EncodedRecordChange(collection: "items", key: "b", value: Data("2".utf8)),
                EncodedRecordChange(collection: "items", key: "a", value: Data("3".utf8)),
            ],
            trimThrough: nil))
        try await storage.commit(CommitBatch(
            app: app, events: [event(3)], changes: [EncodedRecordChange(collection: "items", key: "b", value: nil)], trimThrough: nil))
        let model = try await storage.loadModel(app: app)
        #expect(model.lastSequence == 3)
        #expect(model.records.collections["items"] == ["a": Data("3".utf8)])
        let events = try await storage.events(app: app, after: 0, limit: 10)
        #expect(events == [event(1, origin: origin), event(2), event(3)])
    }

    static func replaysTheLogInOrder(_ storage: any SceneSyncStorage) async throws {
        for start in stride(from: UInt64(1), through: 91, by: 10) {
            try await storage.commit(batch(start...(start + 9)))
        }
        #expect(try await storage.events(app: app, after: 0, limit: 5).map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(try await storage.events(app: app, after: 42, limit: 3).map(\.sequence) == [43, 44, 45])
        #expect(try await storage.events(app: app, after: 98, limit: 10).map(\.sequence) == [99, 100])
        #expect(try await storage.events(app: app, after: 100, limit: 10).isEmpty)
    }

    static func refusesABatchWithAGap(_ storage: any SceneSyncStorage) async throws {
        try await storage.commit(batch(1...3))
        await #expect(throws: StorageError.sequenceConflict(app: app, expected: 4, got: 5)) {
            try await storage.commit(batch(5...6, record: "b"))
        }
        await #expect(throws: StorageError.sequenceConflict(app: app, expected: 4, got: 3)) {
            try await storage.commit(batch(3...4, record: "b"))
        }
        let model = try await storage.loadModel(app: app)
        #expect(model.lastSequence == 3)
        #expect(model.records.collections["c"]?.keys.sorted() == ["a"])
        #expect(try await storage.events(app: app, after: 0, limit: 10).map(\.sequence) == [1, 2, 3])
    }

    /// Twenty rounds of two batches for the same numbers, through `left` and `right`.
    static func racingBatches(_ left: any SceneSyncStorage, _ right: any SceneSyncStorage) async throws {
        try await left.commit(batch(1...2))
        var winners: Set<String> = ["a"]
        for round in 0..<20 {
            let next = UInt64(3 + round * 2)
            async let leftOutcome = outcome { try await left.commit(batch(next...(next + 1), record: "left")) }
            async let rightOutcome = outcome { try await right.commit(batch(next...(next + 1), record: "right")) }
            let outcomes = await [leftOutcome, rightOutcome]
            #expect(outcomes.filter { $0 == nil }.count == 1, "round \(round): \(outcomes)")
            let conflict = StorageError.sequenceConflict(app: app, expected: next + 2, got: next)
            #expect(outcomes.filter { $0 == conflict }.count == 1, "round \(round): the loser is told why: \(outcomes)")
            if outcomes[0] == nil { winners.insert("left") }
            if outcomes[1] == nil { winners.insert("right") }
            #expect(try await left.loadModel(app: app).lastSequence == next + 1)
            #expect(try await right.loadModel(app: app).lastSequence == next + 1)
        }
        let events = try await right.events(app: app, after: 0, limit: 100)
        #expect(events.map(\.sequence) == Array(1...42))
        let records = try await left.loadModel(app: app).records.collections["c"] ?? [:]
        #expect(Set(records.keys) == winners, "nothing of a refused batch is kept")
    }

    /// `nil` if `body` succeeded, or the storage error it threw.
    private static func outcome(_ body: () async throws -> Void) async -> StorageError? {
        do {
            try await body()
            return nil
        } catch let error as StorageError {
            return error
        } catch {
            return .corruptRecord(collection: "", key: "", reason: "not a StorageError: \(error)")
        }
    }

    static func hearsOtherWritersOrSaysItCannot(_ listening: any SceneSyncStorage, _ writing: any SceneSyncStorage) async throws {
        guard let heads = listening.logHeads(app: app) else {
            // It says it cannot: nothing more to hold it to.
            return
        }
        try await writing.commit(batch(1...3))
        let heard = await first(of: heads, timeout: .seconds(10)) { $0 >= 3 }
        #expect(heard == 3, "the other storage's commit was heard")
    }

    /// The first element of `stream` that satisfies `condition`, or `nil` after `timeout`.
    private static func first(
        of stream: AsyncStream<UInt64>, timeout: Duration, where condition: @escaping @Sendable (UInt64) -> Bool
    ) async -> UInt64? {
        await withTaskGroup(of: UInt64?.self) { group in
            group.addTask {
                for await value in stream where condition(value) { return value }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let result = await group.next() ?? nil
            group.cancelAll()
            return result
        }
    }

    static func aModelControllerFollowsAnotherWriter(_ first: any SceneSyncStorage, _ second: any SceneSyncStorage) async throws {
        let logger = Logger(label: "conformance")
        let one = try await ModelController<Counter>(app: app, storage: first, logger: logger)
        let two = try await ModelController<Counter>(app: app, storage: second, logger: logger)
        let recorder = EventRecorder(two.events(after: 0))
        let origin = SceneSession.ID()
        try await one.perform(origin: origin) { _ in [.added, .added] }
        if first.logHeads(app: app) == nil { try await two.catchUp() }
        let received = try await recorder.waitForEvents(count: 2, timeout: .seconds(10))
        #expect(received.map(\.sequence) == [1, 2])
        #expect(received.allSatisfy { $0.origin == origin }, "the other writer's events keep their origin")
        #expect(await two.state.count == 2)
        // The follower's own intent now takes the next number.
        #expect(try await two.perform(origin: nil) { _ in [.added] }.map(\.sequence) == [3])
        await one.close()
        await two.close()
    }

    static func trimsTheLogAndKeepsTheSequence(_ storage: any SceneSyncStorage) async throws {
        try await storage.commit(batch(1...10))
        try await storage.commit(batch(11...12, trimThrough: 8))
        let model = try await storage.loadModel(app: app)
        #expect(model.lastSequence == 12)
        #expect(model.firstRetainedSequence == 9)
        #expect(try await storage.events(app: app, after: 0, limit: 10).map(\.sequence) == [9, 10, 11, 12])
        try await storage.commit(batch(13...13))
        #expect(try await storage.loadModel(app: app).lastSequence == 13)
    }

    static func aSubscriberBehindATrimmedLogIsTooOld(_ storage: any SceneSyncStorage) async throws {
        try await storage.commit(batch(1...10))
        try await storage.commit(batch(11...20, trimThrough: 15))
        let controller = try await ModelController<Counter>(app: app, storage: storage, logger: .init(label: "conformance"))
        var iterator = controller.events(after: 3).makeAsyncIterator()
        await #expect(throws: SubscriptionError.tooOld(requested: 3, oldestAvailable: 16)) { _ = try await iterator.next() }
        await controller.close()
    }

    static func keepsAppsApart(_ storage: any SceneSyncStorage) async throws {
        try await storage.commit(batch(1...2, app: "one", record: "x"))
        try await storage.commit(batch(1...5, app: "two", record: "y"))
        #expect(try await storage.loadModel(app: "one").lastSequence == 2)
        #expect(try await storage.loadModel(app: "one").records.collections["c"]?.keys.sorted() == ["x"])
        #expect(try await storage.loadModel(app: "two").lastSequence == 5)
        #expect(try await storage.events(app: "one", after: 0, limit: 10).count == 2)
    }

    // MARK: - Sessions and per-scene storage

    static func keepsAppsSessionsAndDraftsApart(_ one: any SceneSyncStorage, _ two: any SceneSyncStorage) async throws {
        let first = session()
        let second = session()
        try await one.saveSession(first)
        try await two.saveSession(second)
        try await one.setDraft(Data("1".utf8), key: "draft", session: first.id)
        try await two.setDraft(Data("2".utf8), key: "draft", session: second.id)
        #expect(try await one.allSessions().map(\.id) == [first.id])
        #expect(try await two.allSessions().map(\.id) == [second.id])
        #expect(try await two.session(id: first.id) == nil)
        #expect(try await two.drafts(session: first.id).isEmpty)
        try await two.deleteSessions([first.id])
        #expect(try await one.session(id: first.id) != nil, "another app cannot discard this app's session")
        #expect(try await one.drafts(session: first.id) == ["draft": Data("1".utf8)])
    }

    static func keepsARunMarkPerNode(_ nodeA: any SceneSyncStorage, _ nodeB: any SceneSyncStorage) async throws {
        guard nodeA.logHeads(app: app) != nil else {
            // A storage that cannot hear other writers belongs to one process: one mark.
            return
        }
        #expect(try await nodeA.setRunning(true) == false)
        #expect(try await nodeB.setRunning(true) == false, "a second node starting is not told the first crashed")
        #expect(try await nodeB.setRunning(false) == true)
        #expect(try await nodeA.setRunning(true) == true, "node A restarting without a clean stop finds its own mark")
    }

    static func remembersWhetherItWasRunning(_ storage: any SceneSyncStorage) async throws {
        #expect(try await storage.setRunning(true) == false, "a new storage was not running")
        #expect(try await storage.setRunning(false) == true, "a clean stop finds it running")
        #expect(try await storage.setRunning(true) == false, "a start after a clean stop")
        #expect(try await storage.setRunning(true) == true, "a start after a crash finds it still running")
    }

    static func session(closed: Date? = nil) -> SceneSession {
        let created = Date(timeIntervalSinceReferenceDate: 1_000_000)
        return SceneSession(configurationName: "Main",
                            stateRestorationActivity: SceneActivity(type: "com.example.window", title: "Items"),
                            createdAt: created, lastSeenAt: created.addingTimeInterval(60), closedAt: closed)
    }

    static func keepsSessions(_ storage: any SceneSyncStorage) async throws {
        var first = session()
        let second = session()
        try await storage.saveSession(first)
        try await storage.saveSession(second)
        #expect(try await storage.session(id: first.id) == first)
        first.lastSeenAt = first.lastSeenAt.addingTimeInterval(3_600)
        try await storage.saveSession(first)
        #expect(try await storage.session(id: first.id) == first)
        #expect(Set(try await storage.allSessions().map(\.id)) == [first.id, second.id])

        let closedAt = Date(timeIntervalSinceReferenceDate: 2_000_000)
        try await storage.markSessionsClosed([second.id], at: closedAt)
        #expect(try await storage.session(id: second.id)?.closedAt == closedAt)
        #expect(try await storage.session(id: first.id)?.closedAt == nil)
        #expect(try await storage.session(id: SceneSession.ID()) == nil)
    }

    static func keepsPerSceneStorage(_ storage: any SceneSyncStorage) async throws {
        let one = session()
        let two = session()
        try await storage.saveSession(one)
        try await storage.saveSession(two)
        try await storage.setDraft(Data(#""Rusty Sp""#.utf8), key: "item#name", session: one.id)
        try await storage.setDraft(Data(#""42""#.utf8), key: "item#value", session: one.id)
        try await storage.setDraft(Data(#""other""#.utf8), key: "item#name", session: two.id)
        try await storage.setDraft(Data(#""Rusty Spork""#.utf8), key: "item#name", session: one.id)
        #expect(try await storage.drafts(session: one.id) == ["item#name": Data(#""Rusty Spork""#.utf8), "item#value": Data(#""42""#.utf8)])
        try await storage.setDraft(nil, key: "item#value", session: one.id)
        #expect(try await storage.drafts(session: one.id) == ["item#name": Data(#""Rusty Spork""#.utf8)])
        #expect(try await storage.drafts(session: two.id) == ["item#name": Data(#""other""#.utf8)])
    }

    static func discardsSessionsAndTheirDrafts(_ storage: any SceneSyncStorage) async throws {
        let gone = session()
        let kept = session()
        for session in [gone, kept] {
            try await storage.saveSession(session)
            try await storage.setDraft(Data("1".utf8), key: "draft", session: session.id)
        }
        try await storage.deleteSessions([gone.id])
        #expect(try await storage.session(id: gone.id) == nil)
        #expect(try await storage.drafts(session: gone.id).isEmpty)
        #expect(try await storage.session(id: kept.id) != nil)
        #expect(try await storage.drafts(session: kept.id) == ["draft": Data("1".utf8)])
        #expect(try await storage.allSessions().map(\.id) == [kept.id])
    }
}

/// The smallest model a conformance check opens a model controller on.
struct Counter: ModelState {
    enum Event: UpdateEvent { case added }
    enum Transient: Codable, Equatable, Sendable { case waved(Int) }
    var count = 0
    init() {}
    init(records: RecordSet) throws {}
    mutating func apply(_ event: Event) -> [RecordChange] {
        count += 1
        return []
    }
}
