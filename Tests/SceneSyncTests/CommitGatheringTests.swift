import Foundation
import Logging
@testable import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Synchronization
import Testing

/// On a storage that gathers, a commit that follows a full one waits until as many intents wait,
/// within its bounds; after a small commit, or on a storage that does not gather, it goes at once.
@Suite(.timeLimit(.minutes(1)))
struct CommitGatheringTests {
    let logger = Logger(label: "test")

    /// Intents checked, by every controller of the test.
    final class Count: Sendable {
        private let value = Mutex(0)
        var now: Int { value.withLock { $0 } }
        func add() { value.withLock { $0 += 1 } }
    }
    let checked = Count()

    /// Appends a line, counting its check.
    func append(_ text: String, to controller: ModelController<Journal>) async throws {
        try await controller.perform(origin: nil) { [checked] state in
            checked.add()
            return [.appended(text, index: state.lines.count)]
        }
    }

    /// A controller on `storage` whose last commit held `count` intents: one held at the door,
    /// then `count` checked behind it and committed together.
    func controller(on storage: InstrumentedStorage, lastCommitOf count: Int) async throws -> ModelController<Journal> {
        let controller = try await ModelController<Journal>(app: "journal", storage: storage, logger: logger)
        let before = checked.now
        storage.hold()
        let first = Task { try await append("first", to: controller) }
        try await waitUntilTrue { storage.waitingCommits == 1 }
        let rest = (0..<count).map { index in Task { try await append("line \(index)", to: controller) } }
        try await waitUntilTrue { [checked] in checked.now == before + 1 + count }
        storage.release()
        try await first.value
        for task in rest { try await task.value }
        #expect(storage.batchSizes == [1, count])
        return controller
    }

    /// Appends `count` lines, one task each, started one after another.
    func append(_ count: Int, to controller: ModelController<Journal>, from start: Int) async throws {
        let tasks = (0..<count).map { index in Task { try await append("more \(start + index)", to: controller) } }
        for task in tasks { try await task.value }
    }

    @Test func aCommitAfterAFullOneWaitsUntilItIsAsFull() async throws {
        // A bound no test run reaches: only as many intents as the last commit end the wait.
        let storage = InstrumentedStorage(try SQLiteStorage.inMemory(), gathering: CommitGathering(maximumWait: .seconds(600), minimumBatch: 8))
        let controller = try await controller(on: storage, lastCommitOf: 10)
        // Ten writers come back one by one: one commit of ten, not one of the first and one of the rest.
        try await append(10, to: controller, from: 0)
        #expect(storage.batchSizes == [1, 10, 10])
        #expect(await controller.state.lines.count == 21)
    }

    @Test func withoutGatheringTheFirstToComeBackCommitsAlone() async throws {
        let storage = InstrumentedStorage(try SQLiteStorage.inMemory(), gathering: nil)
        let controller = try await controller(on: storage, lastCommitOf: 10)
        // The first to come back is committed at once (held at the door here), alone.
        storage.hold()
        let before = checked.now
        let first = Task { try await append("more 0", to: controller) }
        try await waitUntilTrue { storage.waitingCommits == 1 }
        let rest = (1..<10).map { index in Task { try await append("more \(index)", to: controller) } }
        try await waitUntilTrue { [checked] in checked.now == before + 10 }
        storage.release()
        try await first.value
        for task in rest { try await task.value }
        #expect(storage.batchSizes == [1, 10, 1, 9])
    }

    @Test func aCommitWaitsNoLongerThanItsBoundAndNotAfterASmallOne() async throws {
        let storage = InstrumentedStorage(try SQLiteStorage.inMemory(), gathering: CommitGathering(maximumWait: .milliseconds(50), minimumBatch: 8))
        let controller = try await controller(on: storage, lastCommitOf: 10)
        // One writer alone: the commit waits, and goes once the bound has passed.
        let alone = Task { try await append("alone", to: controller) }
        try await waitUntilTrue { await controller.isGathering }
        try await alone.value
        #expect(storage.batchSizes == [1, 10, 1])
        // After a commit of one, below the smallest that makes the next wait, a lone intent goes at once.
        let bounded = InstrumentedStorage(try SQLiteStorage.inMemory(), gathering: CommitGathering(maximumWait: .seconds(600), minimumBatch: 8))
        let small = try await self.controller(on: bounded, lastCommitOf: 5)
        try await append("at once", to: small)
        #expect(bounded.batchSizes == [1, 5, 1])
    }

    @Test func closingEndsTheWaitAndCommitsWhatWaits() async throws {
        let storage = InstrumentedStorage(try SQLiteStorage.inMemory(), gathering: CommitGathering(maximumWait: .seconds(600), minimumBatch: 8))
        let controller = try await controller(on: storage, lastCommitOf: 10)
        let waiting = Task { try await append("before closing", to: controller) }
        try await waitUntilTrue { await controller.isGathering }
        await controller.close()
        try await waiting.value
        #expect(storage.batchSizes == [1, 10, 1])
        #expect(await controller.state.lines.last == "before closing")
    }

    /// Another node's commit, heard while a commit waits to be fuller, ends the wait: the log is
    /// read first, and the intent committed after it, without a commit refused on the way.
    @Test func anotherWritersCommitEndsTheWaitAndIsReadFirst() async throws {
        let shared = try SQLiteStorage(path: TemporaryDirectory().path("shared.sqlite"))
        let storage = InstrumentedStorage(shared, announcingHeads: true, gathering: CommitGathering(maximumWait: .seconds(600), minimumBatch: 8))
        let node = try await controller(on: storage, lastCommitOf: 10)
        let waiting = Task { try await append("here", to: node) }
        try await waitUntilTrue { await node.isGathering }
        let elsewhere = try await ModelController<Journal>(app: "journal", storage: shared, logger: logger)
        try await append("elsewhere", to: elsewhere)
        storage.announce(await elsewhere.lastSequence)
        try await waiting.value
        #expect(await node.state.lines.suffix(2) == ["elsewhere", "here"])
        #expect(await node.lastSequence == 13)
        #expect(storage.batchSizes == [1, 10, 1], "the waiting commit was sent before the log was read")
        await elsewhere.close()
        await node.close()
    }

    @Test func sqliteDoesNotGather() throws {
        #expect(try SQLiteStorage.inMemory().commitGathering == nil)
    }
}
