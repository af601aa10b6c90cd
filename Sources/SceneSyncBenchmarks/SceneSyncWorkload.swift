import Foundation
import LootLogger
import Logging
import SceneSync
import SceneSyncSQLite

/// Drives LootLogger's item store the way windows do: each writer sends an update intent, waits
/// for its acknowledgement, and only then sends the next.
struct SceneSyncWorkload: Sendable {
    let durability: SQLiteStorage.Durability
    let writers: Int
    let intents: Int
    let items: Int
    let logger: Logger

    /// Opens a store on a fresh database in `directory`, seeds it, and times the updates.
    func run(in directory: ScratchDirectory) async throws -> BenchmarkResult {
        let storage = CountingStorage(try SQLiteStorage(path: directory.databasePath, durability: durability))
        let store = try await ItemStore(storage: storage, logger: logger)
        let keys = try await seed(store)
        let seededSequence = await store.controller.lastSequence
        let seedCommits = storage.commits

        let clock = ContinuousClock()
        let cpuBefore = ProcessCPU.used()
        let start = clock.now
        let samples = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for writer in 0..<writers {
                group.addTask { try await update(store: store, keys: keys, writer: writer, clock: clock) }
            }
            var all: [Duration] = []
            all.reserveCapacity(intents)
            for try await writerSamples in group { all += writerSamples }
            return all
        }
        let elapsed = start.duration(to: clock.now)
        let cpu = ProcessCPU.used() - cpuBefore
        await store.controller.close()

        // Every intent sets a value the item never had, so each must have committed exactly one event.
        let committed = await store.controller.lastSequence - seededSequence
        guard committed == UInt64(intents), samples.count == intents else {
            throw BenchmarkError.miscounted(expected: intents, committed: Int(committed), acknowledged: samples.count)
        }
        return BenchmarkResult(
            workload: .sceneSync(writers: writers),
            durability: durability,
            intents: intents,
            elapsed: elapsed,
            commits: storage.commits - seedCommits,
            cpu: cpu,
            latency: LatencySummary(samples))
    }

    /// Creates the items the writers update, concurrently so that group commit keeps seeding short.
    private func seed(_ store: ItemStore) async throws -> [UUID] {
        let count = items
        return try await withThrowingTaskGroup(of: UUID.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await store.create(
                        name: "Item \(index)", serialNumber: "SN\(index)", value: String(index % 100), origin: nil
                    ).key
                }
            }
            var keys: [UUID] = []
            keys.reserveCapacity(count)
            for try await key in group { keys.append(key) }
            return keys
        }
    }

    /// One writer's loop. It takes every `writers`-th intent, so concurrent writers touch
    /// different items, and sets a value no item has had before, so no update is a no-op.
    private func update(store: ItemStore, keys: [UUID], writer: Int, clock: ContinuousClock) async throws -> [Duration] {
        let origin = SceneSession.ID()
        var samples: [Duration] = []
        samples.reserveCapacity(intents / writers + 1)
        var intent = writer
        while intent < intents {
            let changes = ItemChanges(valueInDollars: 1_000 + intent)
            let sent = clock.now
            try await store.update(keys[intent % keys.count], changes, origin: origin)
            samples.append(sent.duration(to: clock.now))
            intent += writers
        }
        return samples
    }
}

/// Why a benchmark run could not report a figure.
enum BenchmarkError: Error, CustomStringConvertible {
    case miscounted(expected: Int, committed: Int, acknowledged: Int)
    case synchronousNotSet(expected: String, got: String)

    var description: String {
        switch self {
        case let .miscounted(expected, committed, acknowledged):
            "Expected \(expected) updates, but \(committed) events were committed and \(acknowledged) intents acknowledged."
        case let .synchronousNotSet(expected, got):
            "The raw baseline's database has synchronous=\(got), not \(expected)."
        }
    }
}
