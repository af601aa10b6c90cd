import ArgumentParser
import Foundation
import Logging

/// `scenesync-bench windows`: what many browser windows cost the real server, run in its own
/// process: how fast one window's change reaches every other, how many bytes a change costs as the
/// list grows, and how much memory each connected window takes.
struct WindowsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "windows",
        abstract: "Measures fan-out latency, server CPU, patch bytes and server memory per window against a real scenesync server.",
        discussion: """
            Starts the scenesync executable built next to this one (or --server) on a free port of \
            127.0.0.1 with a fresh data folder, once per list size, and stops it with SIGTERM. \
            Linux only: the server's memory and CPU time are read from /proc. Beside the raw \
            windows it measures the fan-out floor (a bare WebSocket server writing the same patch \
            to as many sockets, in a child process), and beside the large run (--huge-windows) \
            the floor with as many windows; Chat (--chat-windows) and the large run get servers \
            of their own. Progress goes to standard error, \
            results to standard output. --markdown and --directory are scenesync-bench's own \
            options, and apply here too.
            """)

    // `scenesync-bench` parses its own options wherever they appear, so `--markdown` and
    // `--directory` after `windows` reach the parent, and are read from it.
    @ParentCommand var parent: BenchmarkCommand

    @Option(help: "Window counts for fan-out latency, comma-separated.")
    var windows = CountList([1, 10, 100, 1_000])

    @Option(help: "Timed rounds per window count up to --large-threshold.")
    var rounds = 200

    @Option(help: "Timed rounds per window count above --large-threshold.")
    var largeRounds = 50

    @Option(help: "Window counts above this get --large-rounds.")
    var largeThreshold = 100

    @Option(help: "Untimed rounds before the timed ones, per window count.")
    var warmup = 5

    @Option(help: ArgumentHelp(
        "Least milliseconds from one Add to the next.",
        discussion: "The server lets a window send 50 actions a second after a burst of 100, so keep this at 20 or more."))
    var intervalMs = 25

    @Option(help: "Microseconds between looks at the windows while a round is under way.")
    var pollMicroseconds = 100

    @Flag(inversion: .prefixedNo, help: "Measure fan-out with WindowClient windows, which decode and apply every patch.")
    var clientWindows = true

    @Flag(inversion: .prefixedNo, help: "Also measure fan-out with raw-socket windows, which decode nothing.")
    var rawWindows = true

    @Option(help: "Windows connecting at once.")
    var connectBatch = 50

    @Option(help: "Windows connected to measure the server's memory per window.")
    var memoryWindows = 1_000

    @Option(help: "List sizes for patch bytes, comma-separated; the first also serves memory and fan-out.")
    var listSizes = CountList([100, 10_000])

    @Option(help: "Concurrent writers seeding the list before the server starts.")
    var seedWriters = 50

    @Option(help: "Seconds to let the server settle before reading its memory.")
    var settleSeconds = 2.0

    @Option(help: "Restaurant windows for the badge and countdown measurement (0 to skip it).")
    var restaurantWindows = 1_000

    @Option(help: "Seconds to listen to the Restaurant windows while a countdown shows.")
    var countdownSeconds = 10.0

    @Option(help: ArgumentHelp(
        "Raw windows connected to measure memory per window on each list size after the first (0 to skip).",
        discussion: "The default, 1,000, is that of --memory-windows: what the windows share (such as the node's one copy of the list's state) is divided among them, so fewer windows read higher. The memory is read at half the windows too: what the second half adds is a window's own memory."))
    var listMemoryWindows = 1_000

    @Flag(inversion: .prefixedNo, help: "Measure the fan-out floor beside the raw windows: the same patch written to as many sockets by a bare loop.")
    var floor = true

    @Option(help: "Chat windows a new message goes to, for its CPU per recipient (0 to skip).")
    var chatWindows = 1_000

    @Option(help: "Timed Chat messages, 100 ms apart.")
    var chatRounds = 30

    @Option(help: ArgumentHelp(
        "Of the Chat windows, how many stay on the conversation list rather than open the conversation.",
        discussion: "A message changes the conversation's row in those windows (it moves to the top and says the message) rather than adding it to a conversation."))
    var chatListWindows = 0

    @Option(help: "Raw LootLogger windows for the large run: memory per window, fan-out latency and CPU (0 to skip).")
    var hugeWindows = 0

    @Option(help: "Timed rounds of the large run.")
    var hugeRounds = 10

    @Option(help: "The scenesync executable (default: the one next to this executable).")
    var server: String?

    func validate() throws {
        guard rounds > 0, largeRounds > 0, warmup >= 0 else { throw ValidationError("Round counts must be positive.") }
        guard intervalMs >= 0, pollMicroseconds > 0 else { throw ValidationError("--interval-ms and --poll-microseconds must be positive.") }
        guard connectBatch > 0, memoryWindows > 0, seedWriters > 0 else { throw ValidationError("Counts must be positive.") }
        guard settleSeconds >= 0 else { throw ValidationError("--settle-seconds cannot be negative.") }
        guard restaurantWindows >= 0, countdownSeconds > 0 else {
            throw ValidationError("--restaurant-windows cannot be negative, and --countdown-seconds must be positive.")
        }
        guard listMemoryWindows >= 0, hugeWindows >= 0 else { throw ValidationError("--list-memory-windows and --huge-windows cannot be negative.") }
        guard chatWindows == 0 || chatWindows >= 2 else { throw ValidationError("--chat-windows must be 0 (to skip Chat) or at least 2.") }
        guard chatRounds > 0, hugeRounds > 0 else { throw ValidationError("--chat-rounds and --huge-rounds must be positive.") }
        guard chatListWindows >= 0, chatWindows == 0 || chatListWindows < chatWindows else {
            throw ValidationError("--chat-list-windows must be at least 0 and fewer than --chat-windows: window 0 sends the messages from the conversation.")
        }
    }

    func run() async throws {
        #if os(Linux)
        let scratchParent = parent.directory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory
        let context = try await MachineContext.current(scratchParent: scratchParent)
        var logger = Logger(label: "scenesync-bench") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let settings = WindowsSettings(
            windowCounts: windows.counts, rounds: rounds, largeRounds: largeRounds, largeThreshold: largeThreshold,
            warmup: warmup, interval: .milliseconds(intervalMs), pollInterval: .microseconds(pollMicroseconds),
            clientWindows: clientWindows, rawWindows: rawWindows, connectBatch: connectBatch, memoryWindows: memoryWindows, listSizes: listSizes.counts, seedWriters: seedWriters,
            settle: .milliseconds(Int(settleSeconds * 1_000)), restaurantWindows: restaurantWindows,
            countdown: .milliseconds(Int(countdownSeconds * 1_000)), listMemoryWindows: listMemoryWindows, floor: floor,
            chatWindows: chatWindows, chatRounds: chatRounds, chatListWindows: chatListWindows, hugeWindows: hugeWindows, hugeRounds: hugeRounds,
            server: server, parent: scratchParent)
        let results = try await WindowsRun(settings: settings, logger: logger).run()
        let report = WindowsReport(context: context, results: results)
        print(report.plainText())
        if parent.markdown {
            print("\n" + report.markdown())
        }
        #else
        throw ValidationError("The windows benchmark reads the server's memory from /proc, so it runs on Linux only.")
        #endif
    }
}

/// How a run is set up, from the command's options.
struct WindowsSettings: Sendable {
    let windowCounts: [Int]
    let rounds: Int
    let largeRounds: Int
    let largeThreshold: Int
    let warmup: Int
    let interval: Duration
    let pollInterval: Duration
    let clientWindows: Bool
    let rawWindows: Bool
    let connectBatch: Int
    let memoryWindows: Int
    let listSizes: [Int]
    let seedWriters: Int
    let settle: Duration
    let restaurantWindows: Int
    let countdown: Duration
    /// Raw windows for memory per window on each list size after the first; 0 for none.
    let listMemoryWindows: Int
    /// Whether to measure the fan-out floor beside the raw windows.
    let floor: Bool
    /// Chat windows; 0 for no Chat section.
    let chatWindows: Int
    let chatRounds: Int
    /// Of the Chat windows, those that stay on the conversation list.
    let chatListWindows: Int
    /// Raw windows of the large run; 0 for none.
    let hugeWindows: Int
    let hugeRounds: Int
    let server: String?
    let parent: URL
}
