import Foundation
import Logging
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

struct ModelControllerTests {
    let logger = Logger(label: "test")

    func open(_ storage: any SceneSyncStorage, options: ModelController<Journal>.Options = .init()) async throws -> ModelController<Journal> {
        try await ModelController<Journal>(app: "journal", storage: storage, options: options, logger: logger)
    }

    @Test(arguments: StorageKind.allCases)
    func anIntentFromOneSceneReachesEverySubscriberWithItsOrigin(kind: StorageKind) async throws {
        let controller = try await open(try kind.make())
        let first = EventRecorder(controller.events(after: 0))
        let second = EventRecorder(controller.events(after: 0))
        let scene = SceneSession.ID()

        let envelope = try await controller.append("hello", origin: scene)

        #expect(envelope.sequence == 1)
        for recorder in [first, second] {
            let received = try await recorder.waitForEvents(count: 1)
            #expect(received == [envelope])
            #expect(received[0].origin == scene)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func concurrentIntentsGiveEverySubscriberOneGapFreeOrderThatReplaysToTheState(kind: StorageKind) async throws {
        let storage = try kind.make()
        let controller = try await open(storage)
        let recorders = (0..<3).map { _ in EventRecorder(controller.events(after: 0)) }
        let writers = 32, perWriter = 25

        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for line in 0..<perWriter { try await controller.append("w\(writer)-\(line)") }
                }
            }
            try await group.waitForAll()
        }

        let total = writers * perWriter
        let orders = try await recorders.asyncMap { try await $0.waitForEvents(count: total) }
        #expect(orders[0].map(\.sequence) == Array(1...UInt64(total)))
        #expect(orders.allSatisfy { $0 == orders[0] })

        var replayed = Journal()
        for envelope in orders[0] { _ = replayed.apply(envelope.event) }
        let state = await controller.state
        #expect(replayed == state)
        #expect(Set(state.lines).count == total)

        let reopened = try await open(storage)
        #expect(await reopened.state == state)
        #expect(await reopened.lastSequence == UInt64(total))
    }

    @Test(arguments: StorageKind.allCases)
    func subscribingAfterAPointReplaysThenGoesLiveWithoutGapOrDuplicateWhileWritesGoOn(kind: StorageKind) async throws {
        let controller = try await open(try kind.make())
        let total = 600
        let writes = Task {
            for index in 0..<total { try await controller.append("line \(index)") }
        }
        var recorders: [(after: UInt64, recorder: EventRecorder<Journal.Event>)] = []
        while recorders.count < 6 {
            let after = await controller.lastSequence
            recorders.append((after, EventRecorder(controller.events(after: after / 2))))
            try await Task.sleep(for: .milliseconds(3))
        }
        try await writes.value

        for (after, recorder) in recorders {
            let start = after / 2
            let received = try await recorder.waitForEvents(count: total - Int(start))
            #expect(received.map(\.sequence) == Array((start + 1)...UInt64(total)))
        }
    }

    @Test(arguments: StorageKind.allCases)
    func aRefusedIntentChangesNeitherStateNorLog(kind: StorageKind) async throws {
        let storage = try kind.make()
        let controller = try await open(storage)
        try await controller.append("kept")

        await #expect(throws: JournalError.emptyLine) { try await controller.append("") }

        #expect(await controller.state.lines == ["kept"])
        #expect(await controller.lastSequence == 1)
        #expect(try await storage.events(app: "journal", after: 0, limit: 10).count == 1)
        #expect(try await controller.append("next").sequence == 2)
    }

    @Test(arguments: StorageKind.allCases)
    func aFailedCommitKeepsNothingAndTheNextIntentTakesTheNextNumber(kind: StorageKind) async throws {
        let storage = InstrumentedStorage(try kind.make())
        let controller = try await open(storage)
        let recorder = EventRecorder(controller.events(after: 0))
        try await controller.append("one")

        storage.failNextCommits(1)
        await #expect(throws: ModelControllerError.self) { try await controller.append("lost") }

        #expect(await controller.state.lines == ["one"])
        #expect(try await controller.append("two").sequence == 2)
        let received = try await recorder.waitForEvents(count: 2)
        #expect(received.map(\.event) == [.appended("one", index: 0), .appended("two", index: 1)])
        #expect(try await open(storage).state.lines == ["one", "two"])
    }

    /// A node hears that another moved the head while it is reading the log, and the read, begun
    /// before that commit, does not hold it: the node reads again rather than set the head aside,
    /// for no one tells it that head again.
    @Test func aHeadHeardWhileTheLogIsReadIsFollowedToTheEnd() async throws {
        let shared = try SQLiteStorage(path: TemporaryDirectory().path("shared.sqlite"))
        let writer = try await open(shared)
        let follower = InstrumentedStorage(shared, announcingHeads: true)
        let node = try await open(follower)

        try await writer.append("one")
        follower.holdReads()
        follower.announce(1)
        try await waitUntil("the node's read of the log to wait") { follower.waitingReads == 1 }
        try await writer.append("two")
        follower.announce(2)
        // The node takes the announcement while its read, which saw only "one", waits.
        try await Task.sleep(for: .milliseconds(50))
        follower.releaseReads()
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while await node.lastSequence < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await node.lastSequence == 2, "the node followed the log to its end")
        #expect(await node.state == writer.state)
        await node.close()
        await writer.close()
    }

    @Test func intentsThatArriveTogetherCommitTogether() async throws {
        let storage = InstrumentedStorage(try SQLiteStorage(path: TemporaryDirectory().path("group.sqlite")))
        let controller = try await open(storage)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<256 { group.addTask { try await controller.append("line \(index)") } }
            try await group.waitForAll()
        }
        #expect(await controller.lastSequence == 256)
        #expect(storage.commitCount < 256)
        #expect(storage.largestBatch > 1)
    }

    @Test func sequenceNumbersSurviveARestartAndAreNeverReused() async throws {
        let path = TemporaryDirectory().path("restart.sqlite")
        do {
            let controller = try await open(try SQLiteStorage(path: path))
            for index in 0..<5 { try await controller.append("\(index)") }
            try await controller.perform(origin: nil) { _ in [.cleared] }
        }
        let controller = try await open(try SQLiteStorage(path: path))
        #expect(await controller.state.lines.isEmpty)
        #expect(try await controller.append("after").sequence == 7)
    }

    @Test func aSubscriptionEndsWhenItsTaskIsCancelledAndWhenItsIteratorIsReleased() async throws {
        let controller = try await open(try SQLiteStorage.inMemory())
        let recorder = EventRecorder(controller.events(after: 0))
        try await controller.append("one")
        try await recorder.waitForEvents(count: 1)
        #expect(controller.subscriberCount == 1)

        recorder.cancel()
        try await recorder.waitUntilFinished()
        #expect(controller.subscriberCount == 0)

        do {
            var iterator = controller.events(after: 0).makeAsyncIterator()
            #expect(try await iterator.next()?.sequence == 1)
            #expect(controller.subscriberCount == 1)
        }
        #expect(controller.subscriberCount == 0)
    }

    @Test func closingTheControllerEndsSubscriptionsAndRefusesIntents() async throws {
        let controller = try await open(try SQLiteStorage.inMemory())
        let recorder = EventRecorder(controller.events(after: 0))
        try await controller.append("one")
        await controller.close()
        try await recorder.waitUntilFinished()
        #expect(recorder.envelopes.count == 1)
        await #expect(throws: ModelControllerError.closed) { try await controller.append("two") }
    }

    @Test func aSubscriberThatFellBehindCatchesUpFromTheLog() async throws {
        let controller = try await open(try SQLiteStorage.inMemory(), options: .init(subscriberBufferLimit: 4))
        var iterator = controller.events(after: 0).makeAsyncIterator()
        for index in 0..<100 { try await controller.append("line \(index)") }

        var sequences: [UInt64] = []
        while sequences.count < 100, let envelope = try await iterator.next() { sequences.append(envelope.sequence) }
        #expect(sequences == Array(1...100))
    }

    @Test func askingForEventsTheLogNoLongerHoldsIsAnsweredTooOld() async throws {
        let storage = try SQLiteStorage.inMemory()
        let controller = try await open(storage, options: .init(logRetention: 10))
        for index in 0..<40 { try await controller.append("line \(index)") }

        var stale = controller.events(after: 0).makeAsyncIterator()
        await #expect(throws: SubscriptionError.self) { _ = try await stale.next() }
        let oldest = try await storage.events(app: "journal", after: 0, limit: 1)[0].sequence
        #expect(oldest > 1)
        var again = controller.events(after: 0).makeAsyncIterator()
        await #expect(throws: SubscriptionError.tooOld(requested: 0, oldestAvailable: oldest)) {
            _ = try await again.next()
        }

        let snapshot = await controller.snapshot()
        var fresh = controller.events(after: snapshot.sequence - 5).makeAsyncIterator()
        #expect(try await fresh.next()?.sequence == snapshot.sequence - 4)
    }

    @Test func askingForEventsAfterANumberNeverReachedIsAnsweredNotYetReached() async throws {
        let controller = try await open(try SQLiteStorage.inMemory())
        try await controller.append("one")
        var iterator = controller.events(after: 99).makeAsyncIterator()
        await #expect(throws: SubscriptionError.notYetReached(requested: 99, latest: 1)) {
            _ = try await iterator.next()
        }
    }

    @Test func anIntentThatChangesNothingIsAcknowledgedWithoutAnEvent() async throws {
        let controller = try await open(try SQLiteStorage.inMemory())
        let envelopes = try await controller.perform(origin: nil) { _ in [] }
        #expect(envelopes.isEmpty)
        #expect(await controller.lastSequence == 0)
    }
}

extension Array where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
