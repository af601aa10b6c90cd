import CoreMetrics
import Foundation
import Logging
import MetricsTestKit
import SceneSync
import SceneSyncMetrics
import SceneSyncSQLite
import SceneSyncTestSupport
import Synchronization
import Testing

/// What a model controller records through swift-metrics (`SceneSyncMetrics`): with a factory of
/// the test's own, given for the controllers created in a scope, so that nothing is bootstrapped
/// for the process.
struct ModelControllerMetricsTests {
    static let dimensions = [("app", "journal"), ("node", "n1")]

    /// The batches reported to `didPublish`, in order.
    final class Published: Sendable {
        let batches = Mutex<[(app: String, sequence: UInt64, timestamp: Date)]>([])
    }

    static func controller(path: String, metrics: TestMetrics, published: Published? = nil) async throws -> ModelController<Journal> {
        let options = ModelControllerMetrics(factory: metrics, dimensions: [("node", "n1")]) { app, sequence, timestamp in
            published?.batches.withLock { $0.append((app, sequence, timestamp)) }
        }
        return try await options.measuring {
            try await ModelController<Journal>(app: "journal", storage: try SQLiteStorage(path: path), logger: Logger(label: "test"))
        }
    }

    @Test func committedIntentsAreCountedAndTimedPerBatch() async throws {
        let metrics = TestMetrics()
        let published = Published()
        let controller = try await Self.controller(path: TemporaryDirectory().path("journal.sqlite"), metrics: metrics, published: published)
        for line in ["one", "two", "three"] { try await controller.append(line) }
        // Refused intents are not committed, and not counted.
        await #expect(throws: JournalError.emptyLine) { try await controller.append("") }
        // Sent together, intents share batches.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 { group.addTask { try await controller.append("line \(index)") } }
            try await group.waitForAll()
        }

        #expect(metrics.counterTotal(label: ModelControllerMetrics.Name.intents, dimensions: Self.dimensions) == 23)
        let batches = try metrics.expectRecorder(ModelControllerMetrics.Name.batchSize, Self.dimensions).values
        #expect(batches.reduce(0, +) == 23)
        #expect(Array(batches.prefix(3)) == [1, 1, 1])
        let commits = try metrics.expectTimer(ModelControllerMetrics.Name.commitTime, Self.dimensions).values
        #expect(commits.count == batches.count)
        #expect(commits.allSatisfy { $0 > 0 && $0 < 10_000_000_000 })

        let reported = published.batches.withLock { $0 }
        #expect(reported.count == batches.count)
        #expect(reported.allSatisfy { $0.app == "journal" })
        #expect(reported.map(\.sequence) == reported.map(\.sequence).sorted())
        #expect(reported.last?.sequence == 23)
        // Nothing was read from another writer.
        #expect(try metrics.expectTimer(ModelControllerMetrics.Name.crossNodeLag, Self.dimensions).values.isEmpty)
        await controller.close()
    }

    @Test func eventsAnotherWriterCommittedAreTimedFromTheirEnvelope() async throws {
        let path = TemporaryDirectory().path("shared.sqlite")
        let metrics = TestMetrics()
        let published = Published()
        let other = try await ModelController<Journal>(app: "journal", storage: try SQLiteStorage(path: path), logger: Logger(label: "other"))
        let here = try await Self.controller(path: path, metrics: metrics, published: published)
        let started = Date()
        for line in ["one", "two", "three"] { try await other.append(line) }
        try await Task.sleep(for: .milliseconds(50))
        try await here.catchUp()
        let elapsed = Date().timeIntervalSince(started)

        let lags = try metrics.expectTimer(ModelControllerMetrics.Name.crossNodeLag, Self.dimensions).values
        #expect(lags.count == 3)
        #expect(lags.allSatisfy { $0 >= 50_000_000 && Double($0) <= elapsed * 1e9 })
        // What it followed, it did not commit.
        #expect(metrics.counterTotal(label: ModelControllerMetrics.Name.intents, dimensions: Self.dimensions) == 0)
        let reported = published.batches.withLock { $0 }
        #expect(reported.isEmpty)
        await other.close()
        await here.close()
    }

    @Test func outsideAnyScopeControllersRecordNothing() async throws {
        #expect(ModelControllerRecording.makeRecorder == nil)
        let controller = try await ModelController<Journal>(app: "journal", storage: try SQLiteStorage.inMemory(), logger: Logger(label: "test"))
        try await controller.append("one")
        await controller.close()
    }
}
