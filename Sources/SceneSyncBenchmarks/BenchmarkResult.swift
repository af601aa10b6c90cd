import SceneSyncSQLite
import SceneSync

/// What one benchmark configuration measured.
struct BenchmarkResult: Sendable {
    /// What wrote the rows.
    enum Workload: Sendable, Equatable {
        /// LootLogger's item store driven by `writers` concurrent tasks.
        case sceneSync(writers: Int)
        /// GRDB directly, committing `intentsPerTransaction` intents in each transaction.
        case rawGRDB(intentsPerTransaction: Int)
    }

    let workload: Workload
    let durability: SQLiteStorage.Durability
    /// Intents acknowledged (SceneSync) or row pairs written (raw GRDB).
    let intents: Int
    /// Wall-clock time from the first intent sent to the last acknowledged.
    let elapsed: Duration
    /// SQLite transactions the intents took.
    let commits: Int
    /// CPU time the whole process used over `elapsed`, on every thread.
    let cpu: Duration
    /// Acknowledgement latencies; `nil` for raw GRDB, which has no one waiting per intent.
    let latency: LatencySummary?

    var intentsPerSecond: Double {
        Double(intents) / max(elapsed.seconds, .leastNonzeroMagnitude)
    }

    var intentsPerCommit: Double {
        Double(intents) / Double(max(commits, 1))
    }

    /// How many cores' worth of CPU the process used on average: well under the core count means
    /// it spent its time waiting, not computing.
    var coresUsed: Double {
        cpu.seconds / max(elapsed.seconds, .leastNonzeroMagnitude)
    }

    var cpuMicrosecondsPerIntent: Double {
        cpu.seconds * 1e6 / Double(max(intents, 1))
    }
}

/// Percentiles of a set of latency samples, by nearest rank.
struct LatencySummary: Sendable {
    let p50: Duration
    let p99: Duration
    let max: Duration

    /// `nil` when there are no samples.
    init?(_ samples: [Duration]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func percentile(_ fraction: Double) -> Duration {
            let rank = Int((fraction * Double(sorted.count)).rounded(.up))
            return sorted[min(Swift.max(rank, 1), sorted.count) - 1]
        }
        p50 = percentile(0.50)
        p99 = percentile(0.99)
        max = sorted[sorted.count - 1]
    }
}

extension Duration {
    var seconds: Double { timeInterval }

    var milliseconds: Double { timeInterval * 1_000 }
}

extension SQLiteStorage.Durability {
    /// The `PRAGMA synchronous` value SQLiteStorage opens its database with.
    var synchronousPragma: String {
        switch self {
        case .full: "FULL"
        case .normal: "NORMAL"
        }
    }
}
