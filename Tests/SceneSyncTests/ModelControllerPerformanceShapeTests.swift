import Foundation
import Logging
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Synchronization
import Testing

/// The pipeline that makes intents fast must keep every guarantee: the actor goes on checking
/// intents while a commit is in flight, but none is acknowledged or broadcast before its own commit,
/// and an event that cannot be encoded (found only at commit time now) keeps nothing.
struct ModelControllerPerformanceShapeTests {
    let logger = Logger(label: "test")

    @Test func intentsAreCheckedWhileACommitIsInFlightButAcknowledgedOnlyAfterTheirOwn() async throws {
        let storage = InstrumentedStorage(try SQLiteStorage.inMemory())
        let controller = try await ModelController<Journal>(app: "journal", storage: storage, logger: logger)
        let recorder = EventRecorder(controller.events(after: 0))
        let decided = Mutex<[Int]>([])
        let acknowledged = Mutex(0)
        let send: @Sendable (Int) async throws -> Void = { index in
            try await controller.perform(origin: nil) { state in
                decided.withLock { $0.append(state.lines.count) }
                return [.appended("line \(index)", index: state.lines.count)]
            }
            acknowledged.withLock { $0 += 1 }
        }

        storage.hold()
        let first = Task { try await send(0) }
        try await waitUntilTrue { storage.waitingCommits == 1 }
        let rest = (1...20).map { index in Task { try await send(index) } }
        try await waitUntilTrue { decided.withLock { $0.count } == 21 }

        // Each was checked against the committed state plus every intent queued before it.
        #expect(decided.withLock { $0.sorted() } == Array(0...20))
        #expect(acknowledged.withLock { $0 } == 0)
        #expect(await controller.lastSequence == 0)
        #expect(await controller.state.lines.isEmpty)
        #expect(recorder.envelopes.isEmpty)

        storage.release()
        try await first.value
        for task in rest { try await task.value }
        #expect(storage.batchSizes == [1, 20])
        let received = try await recorder.waitForEvents(count: 21)
        #expect(received.map(\.sequence) == Array(1...21))
        #expect(await controller.state.lines.count == 21)
    }

    @Test(arguments: StorageKind.allCases)
    func anUnencodableEventKeepsNothingAndFailsWhatWasQueuedWithOrAfterIt(kind: StorageKind) async throws {
        let base = try kind.make()
        let storage = InstrumentedStorage(base)
        let controller = try await ModelController<Gauge>(app: "gauge", storage: storage, logger: logger)
        let recorder = EventRecorder(controller.events(after: 0))
        try await controller.perform(origin: nil) { _ in [.read(1)] }

        // Alone in its batch.
        await #expect(throws: ModelControllerError.self) { try await controller.perform(origin: nil) { _ in [.read(.nan)] } }
        #expect(await controller.state.readings == [1])

        // In one batch: one before it, one checked after it. All three fail.
        storage.hold()
        let blocker = Task { try await controller.perform(origin: nil) { _ in [.read(2)] } }
        try await waitUntilTrue { storage.waitingCommits == 1 }
        let queued = [3.0, .infinity, 4].map { value in
            Task { try await controller.perform(origin: nil) { _ in [.read(value)] } }
        }
        try await waitUntilTrue { await controller.pendingCount == 5 }
        storage.release()
        #expect(try await blocker.value.map(\.sequence) == [2])
        for task in queued {
            await #expect(throws: ModelControllerError.self) { try await task.value }
        }

        #expect(await controller.state.readings == [1, 2])
        #expect(try await controller.perform(origin: nil) { _ in [.read(5)] }.map(\.sequence) == [3])
        let received = try await recorder.waitForEvents(count: 3)
        #expect(received.map(\.event) == [.read(1), .read(2), .read(5)])
        #expect(try await base.events(app: "gauge", after: 0, limit: 10).map(\.sequence) == [1, 2, 3])
        let reopened = try await ModelController<Gauge>(app: "gauge", storage: base, logger: logger)
        #expect(await reopened.state.readings == [1, 2, 5])
    }

}

/// Readings of a number; JSON cannot hold NaN or infinity, so those events cannot be encoded.
struct Gauge: ModelState, Equatable {
    enum Event: UpdateEvent {
        case read(Double)
    }

    private(set) var readings: [Double] = []

    init() {}

    init(records: RecordSet) throws {
        readings = try records.decode("readings", as: Double.self).sorted { Int($0.key)! < Int($1.key)! }.map(\.value)
    }

    mutating func apply(_ event: Event) -> [RecordChange] {
        guard case let .read(value) = event else { return [] }
        readings.append(value)
        return [.save(collection: "readings", key: String(readings.count - 1), value: value)]
    }
}

extension ModelController where State == Gauge {
    /// How many readings the next intent would see, committed or queued. It asks with an intent
    /// that is refused, which changes nothing and does not wait for any commit.
    var pendingCount: Int {
        get async {
            do {
                try await perform(origin: nil) { state in throw GaugePeek(count: state.readings.count) }
            } catch let peek as GaugePeek {
                return peek.count
            } catch {}
            return -1
        }
    }
}

struct GaugePeek: Error {
    let count: Int
}
