import ArgumentParser
import Foundation
import Logging
import SceneSyncSQLite

/// `scenesync-bench`: the benchmarks, one subcommand each. Without one it runs ``SQLiteBenchmark``.
///
/// It parses its own options (`--directory`, `--markdown`) wherever they appear, so they apply to
/// every subcommand that reads them; any other option belongs to a subcommand alone, for an option
/// of this command would take a subcommand's option of the same name (such as `postgres
/// --writers`) before the subcommand saw it.
@main
struct BenchmarkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenesync-bench",
        abstract: "Measures SceneSync: durable intents, windows, encoding, widgets, Chat and PostgreSQL.",
        discussion: """
            Without a subcommand it runs `sqlite`. Progress goes to standard error, results to \
            standard output.
            """,
        subcommands: [SQLiteBenchmark.self, WindowsBenchmark.self, EncodingBenchmark.self, WidgetBenchmark.self, ChatBenchmark.self,
                      PostgresBenchmark.self, FloorServerCommand.self],
        defaultSubcommand: SQLiteBenchmark.self)

    @Option(help: "Directory in which the temporary database directories are made (default: the system's temporary directory).")
    var directory: String?

    @Flag(help: "Also print the results as Markdown, for BENCHMARKS.md.")
    var markdown = false
}

/// `scenesync-bench sqlite`, the default: durable intents per second through SceneSync's model
/// controller on SQLite, next to raw GRDB writes of the same rows, measured in one run so their
/// ratio means something.
struct SQLiteBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sqlite",
        abstract: "Measures durable LootLogger update intents per second against a raw GRDB baseline.",
        discussion: """
            Every configuration gets a fresh on-disk database in its own temporary directory, \
            deleted afterwards. Progress goes to standard error, results to standard output.
            `scenesync-bench windows` measures browser windows against a real server instead, and \
            `scenesync-bench encoding` what encoding one message for a window costs.
            """)

    @ParentCommand var parent: BenchmarkCommand

    @Option(help: "Intents per configuration with several writers, and for raw batched inserts.")
    var intents = 20_000

    @Option(help: ArgumentHelp(
        "Intents per configuration that commit one intent at a time (1 writer, raw one per transaction).",
        discussion: "These wait for the disk at every intent, so fewer keep the run short; rates stay comparable."))
    var serialIntents = 5_000

    @Option(help: "Concurrent writer counts, comma-separated.")
    var writers = CountList([1, 8, 64])

    @Option(help: "Items created before timing starts; writers update them in rotation.")
    var items = 1_000

    @Option(help: "Intents per transaction for the raw batched baseline.")
    var batchSize = 64

    func validate() throws {
        guard intents > 0, serialIntents > 0 else { throw ValidationError("Intent counts must be positive.") }
        guard items > 0 else { throw ValidationError("--items must be positive.") }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be positive.") }
    }

    func run() async throws {
        let scratch = parent.directory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory
        let context = try await MachineContext.current(scratchParent: scratch)
        var logger = Logger(label: "scenesync-bench") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning

        var measurements: [BenchmarkResult] = []
        for durability in [SQLiteStorage.Durability.full, .normal] {
            let sync = durability.synchronousPragma
            for perTransaction in [1, batchSize] {
                let count = perTransaction == 1 ? serialIntents : intents
                progress("Raw GRDB, \(perTransaction) per transaction, \(sync), \(count) intents")
                let workload = RawGRDBWorkload(durability: durability, intents: count, items: items, intentsPerTransaction: perTransaction)
                measurements.append(try await ScratchDirectory.with(parent: scratch, name: "raw") { try await workload.run(in: $0) })
            }
            for writerCount in writers.counts {
                let count = writerCount == 1 ? serialIntents : intents
                progress("SceneSync, \(writerCount) writer\(writerCount == 1 ? "" : "s"), \(sync), \(count) intents")
                let workload = SceneSyncWorkload(durability: durability, writers: writerCount, intents: count, items: items, logger: logger)
                measurements.append(try await ScratchDirectory.with(parent: scratch, name: "scenesync") { try await workload.run(in: $0) })
            }
        }

        let report = Report(context: context, measurements: measurements, batchSize: batchSize, loadAverageAtEnd: ProcessCPU.loadAverage())
        print(report.plainText())
        if parent.markdown {
            print("\n" + report.markdown())
        }
    }

    private func progress(_ message: String) {
        FileHandle.standardError.write(Data("-> \(message)\n".utf8))
    }
}

/// A comma-separated list of positive counts, such as `1,8,64`: writers, windows, list sizes.
struct CountList: ExpressibleByArgument, Sendable {
    let counts: [Int]

    init(_ counts: [Int]) {
        self.counts = counts
    }

    init?(argument: String) {
        let counts = argument.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) > 0 }) else { return nil }
        self.counts = counts.compactMap { $0 }
    }

    var defaultValueDescription: String {
        counts.map(String.init).joined(separator: ",")
    }
}

/// Counts as ``CountList`` takes them, or `0` alone for none: a part of a run to skip.
struct CountListOrNone: ExpressibleByArgument, Sendable {
    let counts: [Int]

    init(_ counts: [Int]) {
        self.counts = counts
    }

    init?(argument: String) {
        if argument.trimmingCharacters(in: .whitespaces) == "0" {
            counts = []
        } else if let list = CountList(argument: argument) {
            counts = list.counts
        } else {
            return nil
        }
    }

    var defaultValueDescription: String {
        counts.isEmpty ? "0" : counts.map(String.init).joined(separator: ",")
    }
}
