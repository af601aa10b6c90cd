import ArgumentParser
import Foundation

#if os(Linux)
import Glibc
#endif

/// `scenesync-bench widget`: how soon `scenesync widget` shows something, from the moment the
/// process is started: its first line from the cache, beside its first line from the server.
struct WidgetBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "widget",
        abstract: "Time from starting `scenesync widget` to its first line: cached, and fetched.",
        discussion: """
            Starts a real server, then runs `scenesync widget lootlogger` --runs times with a \
            cache (its first line is the cached summary) and --runs times with an empty cache \
            (its first line is the server's), timing each from spawning the process to the first \
            byte of its output. Runs alternate, so that both see the same machine.
            """)

    @Option(help: "Runs of each kind.")
    var runs = 50

    @Option(help: "The scenesync executable (default: the one next to this executable).")
    var server: String?

    func validate() throws {
        guard runs > 0 else { throw ValidationError("--runs must be positive.") }
    }

    @MainActor
    func run() async throws {
        #if os(Linux)
        let executable = try WindowsServerProcess.locate(explicit: server)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("scenesync-bench-widget-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var problems: [String] = []
        let (cached, fetched) = try await WindowsServerProcess.with(
            executable: executable, dataDirectory: scratch.appendingPathComponent("data"),
            log: scratch.appendingPathComponent("server.log"), problems: &problems
        ) { server in
            let url = "http://127.0.0.1:\(server.port)"
            let warm = scratch.appendingPathComponent("cache").path
            _ = try Self.firstLine(executable, ["widget", "lootlogger", "--server", url, "--cache-dir", warm])
            var cached: [Duration] = []
            var fetched: [Duration] = []
            for run in 0..<runs {
                cached.append(try Self.firstLine(executable, ["widget", "lootlogger", "--server", url, "--cache-dir", warm]))
                let cold = scratch.appendingPathComponent("cold-\(run)").path
                fetched.append(try Self.firstLine(executable, ["widget", "lootlogger", "--server", url, "--cache-dir", cold]))
            }
            return (cached, fetched)
        }
        print("scenesync widget, from spawning the process to the first byte of its output (\(runs) runs each)")
        print("  first line            p50        p90        max")
        for (name, times) in [("cached (target 20 ms)", cached), ("fetched from server", fetched)] {
            let sorted = times.sorted()
            func ms(_ duration: Duration) -> String { String(format: "%7.1f ms", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000) }
            print("  \(name.padding(toLength: 22, withPad: " ", startingAt: 0))\(ms(sorted[sorted.count / 2]))  \(ms(sorted[sorted.count * 9 / 10]))  \(ms(sorted.last!))")
        }
        for problem in problems { print("  note: \(problem)") }
        #else
        throw ValidationError("The widget benchmark runs on Linux only.")
        #endif
    }

    /// Runs `executable` with `arguments`: the time to the first byte it writes, after which it
    /// is let finish.
    private static func firstLine(_ executable: String, _ arguments: [String]) throws -> Duration {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let started = ContinuousClock.now
        try process.run()
        var byte: UInt8 = 0
        let count = read(pipe.fileHandleForReading.fileDescriptor, &byte, 1)
        let elapsed = ContinuousClock.now - started
        _ = try? pipe.fileHandleForReading.readToEnd()
        process.waitUntilExit()
        guard count == 1, process.terminationStatus == 0 else {
            throw ValidationError("scenesync widget wrote nothing or failed (status \(process.terminationStatus))")
        }
        return elapsed
    }
}
