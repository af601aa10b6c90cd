import ArgumentParser
import Foundation
import LootLogger
import Logging
import PostgresNIO
import SceneSync
import SceneSyncPostgres

/// `scenesync-bench postgres`: durable intents per second on PostgreSQL, through LootLogger's item
/// store on one node and spread over several, beside raw batched inserts of the same rows through
/// postgres-nio in the same run; how long an edit committed on one node takes to reach the
/// subscribers of another; and how long a tap in a window on one real node takes to reach the
/// windows on another.
struct PostgresBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postgres",
        abstract: "Measures durable intents per second on PostgreSQL against raw postgres-nio inserts, and cross-node delivery.",
        discussion: """
            Give a server's administrator URL with --database or SCENESYNC_BENCH_POSTGRES_URL \
            (scripts/test-postgres start DIR prints one). Every configuration gets a fresh database, \
            dropped afterwards. Each node is a PostgresDatabase of its own (its own pool and \
            listener) in this process.
            """)

    @Option(help: "The server's administrator URL (default: SCENESYNC_BENCH_POSTGRES_URL).")
    var database: String?

    @Option(help: "Update intents per configuration with several writers, and for raw batched inserts.")
    var updates = 20_000

    @Option(help: "Update intents per configuration with one writer, and for raw inserts one per transaction.")
    var serialUpdates = 2_000

    @Option(help: "Concurrent writer counts, comma-separated.")
    var writers = CountList([1, 8, 64])

    @Option(help: "Node counts the writers are spread over, comma-separated.")
    var nodes = CountList([1, 3])

    @Option(help: "Items created before timing starts; writers update them in rotation.")
    var items = 1_000

    @Option(help: "Intents per transaction for the raw batched baseline.")
    var batchSize = 64

    @Option(help: ArgumentHelp(
        "Rounds of the intents measure: each round runs the raw loop and then every SceneSync configuration again.",
        discussion: "Each configuration's rate is compared with the raw batched rate of its own round, measured at the round's start; with more than one round, the ratios of every round and their median follow the table."))
    var rounds = 1

    @Option(help: "Subscriber counts on the receiving node for the cross-node delivery figure, comma-separated.")
    var subscribers = CountList([10, 1_000])

    @Option(help: "Edits timed per subscriber count in the cross-node delivery figure.")
    var edits = 300

    @Option(help: "Window counts on node B for the figure with real nodes and windows, comma-separated (0 to skip it).")
    var windows = CountListOrNone([10, 1_000])

    @Option(help: "Timed Add taps per window count in the figure with real nodes and windows.")
    var windowRounds = 100

    @Option(name: .customLong("server"), help: "The scenesync executable for the figure with real nodes (default: the one next to this executable).")
    var serverExecutable: String?

    func validate() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1.") }
        guard batchSize > 1 else { throw ValidationError("--batch-size must be at least 2: the raw batched loop is the baseline beside the raw loop of one intent per transaction.") }
    }

    func run() async throws {
        let text = database ?? ProcessInfo.processInfo.environment["SCENESYNC_BENCH_POSTGRES_URL"]
        guard let text, !text.isEmpty else {
            throw ValidationError("Give --database or SCENESYNC_BENCH_POSTGRES_URL: a PostgreSQL administrator's URL.")
        }
        let admin = try PostgresURL(text)
        var logger = Logger(label: "scenesync-bench") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let server = BenchServer(admin: admin, logger: logger)

        print("PostgreSQL durable intents: LootLogger updates, each acknowledged after its commit (synchronous_commit on)")
        print("load average at start: \(ProcessCPU.loadAverage().map { String(describing: $0) } ?? "unknown")")
        typealias Row = (name: String, round: Int, count: Int, elapsed: Duration, perCommit: Double,
                         commitTime: Duration?, p50: Duration?, p99: Duration?, cpu: CPUReading)
        var rows: [Row] = []
        for round in 1...rounds {
            let suffix = rounds == 1 ? "" : ", round \(round)"
            for perTransaction in [1, batchSize] {
                let count = perTransaction == 1 ? serialUpdates : updates
                progress("raw postgres-nio, \(perTransaction) per transaction, \(count) intents\(suffix)")
                let (elapsed, cpu) = try await server.withFreshDatabase { url in
                    try await RawPostgresWorkload(url: url, intents: count, items: items, perTransaction: perTransaction, logger: logger).run()
                }
                rows.append(("raw, \(perTransaction) per transaction", round, count, elapsed, Double(perTransaction), nil, nil, nil, cpu))
            }
            for nodeCount in nodes.counts {
                for writerCount in writers.counts where writerCount >= nodeCount {
                    let count = writerCount == 1 ? serialUpdates : updates
                    progress("SceneSync, \(writerCount) writers over \(nodeCount) node(s), \(count) intents\(suffix)")
                    let result = try await server.withFreshDatabase { url in
                        try await PostgresIntentWorkload(url: url, nodes: nodeCount, writers: writerCount, intents: count,
                                                         items: items, logger: logger).run()
                    }
                    rows.append(("SceneSync, \(writerCount) writers, \(nodeCount) node\(nodeCount == 1 ? "" : "s")", round, count,
                                 result.elapsed, Double(count) / Double(max(result.commits, 1)),
                                 result.commitTime / max(result.commits, 1), result.latency.p50, result.latency.p99, result.cpu))
                }
            }
        }
        // Each round's configurations against the raw batched rate of the same round.
        var rawBatched: [Int: Double] = [:]
        for row in rows where row.name == "raw, \(batchSize) per transaction" {
            rawBatched[row.round] = Double(row.count) / row.elapsed.seconds
        }
        func ratio(_ row: Row) -> Double { Double(row.count) / row.elapsed.seconds / (rawBatched[row.round] ?? .nan) }
        print("| configuration |\(rounds == 1 ? "" : " round |") intents | intents/s | × raw batched | intents/commit | storage ms a commit (ms between commits) | p50 ms | p99 ms | CPU µs/intent, this process | CPU µs/intent, PostgreSQL |")
        print("|---|\(rounds == 1 ? "" : "---:|")---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for row in rows {
            let rate = Double(row.count) / row.elapsed.seconds
            let perIntent = { (time: Duration) in format(time.seconds * 1_000_000 / Double(row.count), 1) }
            print("| \(row.name) |\(rounds == 1 ? "" : " \(row.round) |") \(row.count) | \(format(rate, 0)) | \(format(ratio(row), 2)) | \(format(row.perCommit, 1)) | "
                  + "\(row.commitTime.map { "\(format($0.milliseconds, 2)) (\(format(row.elapsed.milliseconds * row.perCommit / Double(row.count), 2)))" } ?? "–") | "
                  + "\(row.p50.map { format($0.milliseconds, 2) } ?? "–") | \(row.p99.map { format($0.milliseconds, 2) } ?? "–") | "
                  + "\(perIntent(row.cpu.bench)) | \(row.cpu.postgres.map(perIntent) ?? "–") |")
        }
        if rounds > 1 {
            // Each configuration once, in the order it ran, with its ratio in every round.
            for first in rows where first.round == 1 && first.name.hasPrefix("SceneSync") {
                let each = rows.filter { $0.name == first.name }.map(ratio)
                let sorted = each.sorted()
                let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
                print("\(first.name): × raw batched by round \(each.map { format($0, 2) }.joined(separator: ", ")); median \(format(median, 2))")
            }
        }
        print("(this process runs SceneSync and its writers, or the raw loop; PostgreSQL's is every `postgres` process "
              + "on the machine, read from /proc at 10 ms resolution, without any that exited meanwhile; both over the timed part alone)")

        print("\nCross-node delivery: an edit committed on node A, until every subscriber on node B has it")
        print("| subscribers on B | edits | p50 ms | p99 ms | max ms |")
        print("|---:|---:|---:|---:|---:|")
        for count in subscribers.counts {
            progress("cross-node delivery to \(count) subscribers, \(edits) edits")
            let latency = try await server.withFreshDatabase { url in
                try await CrossNodeDelivery(url: url, subscribers: count, edits: edits, logger: logger).run()
            }
            print("| \(count) | \(edits) | \(format(latency.p50.milliseconds, 2)) | \(format(latency.p99.milliseconds, 2)) | "
                  + "\(format(latency.max.milliseconds, 2)) |")
        }
        #if os(Linux)
        let windowCounts = windows.counts
        if !windowCounts.isEmpty {
            let executable = try await WindowsServerProcess.locate(explicit: serverExecutable)
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("scenesync-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            print("\nReal nodes: a tap of Add in a LootLogger window on node A, until every window on node B has the patch")
            print("(two scenesync processes on one database, raw WebSocket windows, \(windowRounds) taps after 5 untimed)")
            print("| windows on B | taps | p50 ms | p99 ms | max ms |")
            print("|---:|---:|---:|---:|---:|")
            for count in windowCounts {
                progress("a window on node A, \(count) windows on node B, \(windowRounds) taps")
                let (latency, problems) = try await server.withFreshDatabase { url in
                    try await PostgresWindowsAcrossNodes(url: url, executable: executable, scratch: scratch, rounds: windowRounds,
                                                         warmup: 5, interval: .milliseconds(25)).run(windows: count)
                }
                print("| \(count) | \(windowRounds) | \(format(latency.p50.milliseconds, 2)) | \(format(latency.p99.milliseconds, 2)) | "
                      + "\(format(latency.max.milliseconds, 2)) |")
                for problem in problems { print("  note: \(problem)") }
            }
        }
        #endif
        print("load average at end: \(ProcessCPU.loadAverage().map { String(describing: $0) } ?? "unknown")")
    }

    private func format(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }

    private func progress(_ message: String) {
        FileHandle.standardError.write(Data("-> \(message)\n".utf8))
    }
}

/// Makes a fresh database per configuration on the benchmark's server.
struct BenchServer: Sendable {
    let admin: PostgresURL
    let logger: Logger

    func withFreshDatabase<Result: Sendable>(_ body: (PostgresURL) async throws -> Result) async throws -> Result {
        let name = "scenesync_bench_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        try await execute("CREATE DATABASE \(name)")
        do {
            let result = try await body(admin.with(database: name))
            try await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            return result
        } catch {
            try? await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            throw error
        }
    }

    private func execute(_ sql: String) async throws {
        let connection = try await PostgresConnection.connect(configuration: try admin.connectionConfiguration(), id: 1, logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// Started databases, one per node, closed together.
struct BenchNodes: Sendable {
    let databases: [SceneSyncPostgres.PostgresDatabase]

    static func start(url: PostgresURL, count: Int, logger: Logger) async throws -> BenchNodes {
        var databases: [SceneSyncPostgres.PostgresDatabase] = []
        for _ in 0..<count {
            let database = SceneSyncPostgres.PostgresDatabase(url: url, logger: logger, options: .init(maximumConnections: 8))
            try await database.start()
            databases.append(database)
        }
        return BenchNodes(databases: databases)
    }

    func close() async {
        for database in databases { await database.close() }
    }
}

/// LootLogger's item store on each node, writers spread over the nodes, each sending an update
/// intent and waiting for its acknowledgement before the next.
struct PostgresIntentWorkload: Sendable {
    let url: PostgresURL
    let nodes: Int
    let writers: Int
    let intents: Int
    let items: Int
    let logger: Logger

    func run() async throws -> (elapsed: Duration, latency: LatencySummary, cpu: CPUReading, commits: Int, commitTime: Duration) {
        let cluster = try await BenchNodes.start(url: url, count: nodes, logger: logger)
        let storages = cluster.databases.enumerated().map { index, database in
            CountingStorage(database.storage(scope: "lootlogger", node: "node-\(index)"))
        }
        var stores: [ItemStore] = []
        for storage in storages { stores.append(try await ItemStore(storage: storage, logger: logger)) }
        var keys: [UUID] = []
        for index in 0..<items {
            keys.append(try await stores[0].create(name: "Item \(index)", value: String(index % 100), origin: nil).key)
        }
        for store in stores.dropFirst() { try await store.controller.catchUp() }
        let seeded = await stores[0].controller.lastSequence
        let nodeStores = stores
        let itemKeys = keys

        let seedCommits = storages.reduce(0) { $0 + $1.commits }
        let seedCommitTime = storages.reduce(Duration.zero) { $0 + $1.commitTime }
        let clock = ContinuousClock()
        let cpuAtStart = CPUReading.start()
        let start = clock.now
        let samples = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for writer in 0..<writers {
                let store = nodeStores[writer % nodeStores.count]
                group.addTask {
                    let origin = SceneSession.ID()
                    var samples: [Duration] = []
                    var intent = writer
                    while intent < intents {
                        let sent = clock.now
                        _ = try await store.update(itemKeys[intent % itemKeys.count], ItemChanges(valueInDollars: 1_000 + intent), origin: origin)
                        samples.append(sent.duration(to: clock.now))
                        intent += writers
                    }
                    return samples
                }
            }
            var all: [Duration] = []
            for try await writerSamples in group { all += writerSamples }
            return all
        }
        let elapsed = start.duration(to: clock.now)
        let cpu = CPUReading.end().spent(since: cpuAtStart)
        let commits = storages.reduce(0) { $0 + $1.commits } - seedCommits
        let commitTime = storages.reduce(Duration.zero) { $0 + $1.commitTime } - seedCommitTime
        try await stores[0].controller.catchUp()
        let committed = await stores[0].controller.lastSequence - seeded
        for store in stores { await store.controller.close() }
        await cluster.close()
        guard committed == UInt64(intents), samples.count == intents, let latency = LatencySummary(samples) else {
            throw BenchmarkError.miscounted(expected: intents, committed: Int(committed), acknowledged: samples.count)
        }
        return (elapsed, latency, cpu, commits, commitTime)
    }
}

/// The floor: the rows an update intent writes (one event appended, one record upserted), sent
/// straight through postgres-nio on one connection, `perTransaction` intents per transaction in
/// one prepared statement, which is a transaction of its own (SceneSync's commit is one prepared
/// statement too, between `BEGIN` and `COMMIT`).
/// The records exist beforehand, and every update's event and item are its own (item `n % items`
/// set to `1,000 + n`, as SceneSync's writers do), encoded before timing starts.
struct RawPostgresWorkload: Sendable {
    let url: PostgresURL
    let intents: Int
    let items: Int
    let perTransaction: Int
    let logger: Logger

    /// Appends a batch's events and upserts its records in one statement.
    struct Append: PostgresPreparedStatement {
        static let name = "raw_append"
        static let sql = """
            WITH appended AS (
                INSERT INTO raw_event (app, sequence, origin, timestamp, payload)
                SELECT 'lootlogger', e.s, e.o, e.t, e.p FROM unnest($1::bigint[], $2::text[], $3::float8[], $4::bytea[]) AS e (s, o, t, p)
            )
            INSERT INTO raw_record (app, collection, key, value)
            SELECT 'lootlogger', 'items', r.k, r.v FROM unnest($5::text[], $6::bytea[]) AS r (k, v)
            ON CONFLICT (app, collection, key) DO UPDATE SET value = excluded.value
            """
        typealias Row = ()
        let binds: PostgresBindings

        func makeBindings() -> PostgresBindings { binds }
        func decodeRow(_ row: PostgresRow) {}
    }

    func run() async throws -> (elapsed: Duration, cpu: CPUReading) {
        let keys = (0..<items).map { _ in UUID() }
        let rows = try RawGRDBWorkload.encodedRows(keys: keys, intents: intents)
        let origin = SceneSession.ID().rawValue
        let connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1, logger: logger)
        defer { Task { try? await connection.close() } }
        try await connection.query("""
            CREATE TABLE raw_event (app text, sequence bigint, origin text, timestamp float8, payload bytea, PRIMARY KEY (app, sequence))
            """, logger: logger)
        try await connection.query("""
            CREATE TABLE raw_record (app text, collection text, key text, value bytea, PRIMARY KEY (app, collection, key))
            """, logger: logger)
        var seed = PostgresBindings()
        seed.append(keys.map(\.uuidString))
        seed.append(Array(repeating: ByteBuffer(bytes: rows[0].value), count: keys.count))
        try await connection.query(PostgresQuery(unsafeSQL: """
            INSERT INTO raw_record (app, collection, key, value)
            SELECT 'lootlogger', 'items', r.k, r.v FROM unnest($1::text[], $2::bytea[]) AS r (k, v)
            """, binds: seed), logger: logger)
        let clock = ContinuousClock()
        let cpuAtStart = CPUReading.start()
        let start = clock.now
        var next = 0
        while next < intents {
            let end = min(next + perTransaction, intents)
            var binds = PostgresBindings()
            binds.append((next..<end).map { Int64($0 + 1) })
            binds.append(Array(repeating: origin, count: end - next))
            binds.append((next..<end).map { _ in Date().timeIntervalSinceReferenceDate })
            binds.append((next..<end).map { ByteBuffer(bytes: rows[$0].payload) })
            // A key's last update in the batch wins, as SceneSync sends only a key's last change.
            var lastUpdate: [String: Int] = [:]
            for intent in next..<end { lastUpdate[rows[intent].key] = intent }
            let updates = lastUpdate.values.sorted()
            binds.append(updates.map { rows[$0].key })
            binds.append(updates.map { ByteBuffer(bytes: rows[$0].value) })
            for try await _ in try await connection.execute(Append(binds: binds), logger: logger) {}
            next = end
        }
        let elapsed = start.duration(to: clock.now)
        return (elapsed, CPUReading.end().spent(since: cpuAtStart))
    }
}

/// Node A commits edits one at a time; node B's subscribers each wait for them. Latency is from
/// the intent being sent on A until the last of B's subscribers has the event.
struct CrossNodeDelivery: Sendable {
    let url: PostgresURL
    let subscribers: Int
    let edits: Int
    let logger: Logger

    func run() async throws -> LatencySummary {
        let cluster = try await BenchNodes.start(url: url, count: 2, logger: logger)
        let writer = try await ItemStore(storage: cluster.databases[0].storage(scope: "lootlogger", node: "a"), logger: logger)
        let reader = try await ItemStore(storage: cluster.databases[1].storage(scope: "lootlogger", node: "b"), logger: logger)
        let key = try await writer.create(name: "Lamp", origin: nil).key
        try await reader.controller.catchUp()
        let start = await reader.controller.lastSequence
        let received = DeliveryCounter(subscribers: subscribers)
        var tasks: [Task<Void, Never>] = []
        for _ in 0..<subscribers {
            let events = reader.controller.events(after: start)
            tasks.append(Task {
                do {
                    for try await envelope in events { received.record(envelope.sequence) }
                } catch {}
            })
        }
        let clock = ContinuousClock()
        var samples: [Duration] = []
        for edit in 0..<edits {
            let sent = clock.now
            let envelope = try await writer.update(key, ItemChanges(valueInDollars: 2_000 + edit), origin: nil)
            _ = envelope
            let sequence = start + UInt64(edit) + 1
            await received.waitForAll(sequence)
            samples.append(sent.duration(to: clock.now))
        }
        for task in tasks { task.cancel() }
        await writer.controller.close()
        await reader.controller.close()
        await cluster.close()
        guard let summary = LatencySummary(samples) else { throw BenchmarkError.miscounted(expected: edits, committed: 0, acknowledged: 0) }
        return summary
    }
}

/// Counts, per sequence number, the subscribers that have it.
final class DeliveryCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [UInt64: Int] = [:]
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private let subscribers: Int

    init(subscribers: Int) { self.subscribers = subscribers }

    func record(_ sequence: UInt64) {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            counts[sequence, default: 0] += 1
            return counts[sequence] == subscribers ? waiters.removeValue(forKey: sequence) : nil
        }
        waiter?.resume()
    }

    func waitForAll(_ sequence: UInt64) async {
        await withCheckedContinuation { continuation in
            let done = lock.withLock {
                if counts[sequence, default: 0] >= subscribers { return true }
                waiters[sequence] = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
