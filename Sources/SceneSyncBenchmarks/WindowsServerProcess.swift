#if os(Linux)
import Foundation
import Glibc

/// The real `scenesync` server, in a process of its own so that its memory is its own: the
/// benchmark's windows and their decoded views do not count towards it.
@MainActor
final class WindowsServerProcess {
    /// The port the server listens on, on `127.0.0.1`.
    let port: Int
    private let process: Process
    private let log: URL

    private init(port: Int, process: Process, log: URL) {
        self.port = port
        self.process = process
        self.log = log
    }

    /// The server's process id.
    var pid: Int32 { process.processIdentifier }

    /// The `scenesync` executable: `explicit` if given, else the one built next to this benchmark.
    static func locate(explicit: String?) throws(WindowsBenchmarkError) -> String {
        if let explicit {
            guard FileManager.default.isExecutableFile(atPath: explicit) else { throw .server("no executable at \(explicit)") }
            return explicit
        }
        var folders = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        // Run through $PATH or a symlink, argument 0 may not name the build folder; the kernel's
        // record of the executable does.
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            folders.append(URL(fileURLWithPath: resolved).deletingLastPathComponent())
        }
        for folder in folders {
            let candidate = folder.appendingPathComponent("scenesync").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw .server("no scenesync executable next to this one (in \(folders.map(\.path))); build it or pass --server")
    }

    /// This benchmark's own executable, to run its hidden subcommands in a process of their own.
    static func benchmarkExecutable() throws(WindowsBenchmarkError) -> String {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              FileManager.default.isExecutableFile(atPath: path) else {
            throw .server("cannot find this benchmark's executable through /proc/self/exe")
        }
        return path
    }

    /// Runs the server on `dataDirectory` for the length of `body`, then stops it with SIGTERM,
    /// whether `body` succeeds or throws. What the server logged at `error` level, and any trouble
    /// stopping it, go to `problems`: they qualify the figures rather than void them.
    /// `arguments` and `environment` are added to the server's own.
    static func with<T>(
        executable: String, dataDirectory: URL, log: URL, arguments: [String] = [], environment: [String: String] = [:],
        problems: inout [String], _ body: (WindowsServerProcess) async throws -> T
    ) async throws -> T {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        // Every window of a benchmark comes from this one loopback address: the limits per address
        // that guard a real server against one client would stop the benchmark first.
        let oneClient = ["--max-connections", "65536", "--max-connections-per-address", "65536"]
        return try await with(
            executable: executable, log: log, commandLine: { port in ["--port", String(port), "--data-dir", dataDirectory.path] + oneClient + arguments },
            environment: environment, problems: &problems, body)
    }

    /// Runs `executable` with the arguments `commandLine` gives for a free port, for the length of
    /// `body`, as ``with(executable:dataDirectory:log:arguments:environment:problems:_:)`` does:
    /// for a server that is not `scenesync`, such as the fan-out floor.
    static func with<T>(
        executable: String, log: URL, commandLine: (Int) -> [String], environment: [String: String] = [:],
        problems: inout [String], _ body: (WindowsServerProcess) async throws -> T
    ) async throws -> T {
        let port = try WindowsPOSIX.freePort()
        let server = try await start(executable: executable, port: port, log: log, arguments: commandLine(port), environment: environment)
        let result: T
        do {
            result = try await body(server)
        } catch {
            _ = await server.stop()
            throw error
        }
        // Shut down idle, so that SIGTERM does not meet the work closed windows left behind.
        await server.waitUntilIdle()
        problems += server.errorLines()
        if let problem = await server.stop() { problems.append(problem) }
        return result
    }

    /// Starts `executable` with `arguments`, which tell it to listen on `port`.
    private static func start(
        executable: String, port: Int, log: URL, arguments: [String], environment: [String: String]
    ) async throws -> WindowsServerProcess {
        // The log goes to a file, not a pipe: a pipe nobody reads would fill up and stall the server.
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw WindowsBenchmarkError.server("cannot write \(log.path)") }
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try? output.close()
        let server = WindowsServerProcess(port: port, process: process, log: log)
        try await server.waitUntilAnswering(timeout: .seconds(60))
        return server
    }

    /// Waits until `GET /` answers 200.
    private func waitUntilAnswering(timeout: Duration) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while await WindowsPOSIX.httpStatus(port: port, path: "/", timeout: .seconds(2)) != 200 {
            guard process.isRunning else { throw WindowsBenchmarkError.server("exited with status \(process.terminationStatus):\n\(logTail())") }
            guard ContinuousClock.now < deadline else {
                _ = await stop()
                throw WindowsBenchmarkError.timedOut("the server to answer GET / on port \(port)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The server's resident set size (`VmRSS`), in KiB.
    func residentKilobytes() throws(WindowsBenchmarkError) -> Int {
        try Self.residentKilobytes(pid: pid)
    }

    /// The resident set size (`VmRSS`) of the process `pid`, in KiB.
    nonisolated static func residentKilobytes(pid: Int32) throws(WindowsBenchmarkError) -> Int {
        let path = "/proc/\(pid)/status"
        guard let status = try? String(contentsOfFile: path, encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw .server("no VmRSS in \(path)")
        }
        return kilobytes
    }

    /// The CPU time (user and system) the process `pid` has used so far, or `nil` if it cannot be read.
    nonisolated static func cpuTime(pid: Int32) -> Duration? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
        guard ticksPerSecond > 0 else { return nil }
        return .milliseconds((user + system) * 1_000 / ticksPerSecond)
    }

    /// Waits until the server has used under a tenth of a core for half a second, up to `timeout`.
    ///
    /// Every closed window's scene saves its session, one SQLite commit after another, so the
    /// server stays busy for a while after many windows close; the next measurement must not
    /// start before it is done.
    ///
    /// - Returns: how long it took.
    @discardableResult
    func waitUntilIdle(timeout: Duration = .seconds(120)) async -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        var quietSamples = 0
        var previous = Self.cpuTime(pid: pid)
        while quietSamples < 2, start.duration(to: clock.now) < timeout {
            try? await Task.sleep(for: .milliseconds(250))
            let current = Self.cpuTime(pid: pid)
            // /proc counts CPU time in 10 ms ticks, so 25 ms per 250 ms is about the finest test.
            if let current, let previous, current - previous <= .milliseconds(25) { quietSamples += 1 } else { quietSamples = 0 }
            previous = current
        }
        return start.duration(to: clock.now)
    }

    /// Sends SIGTERM and waits for the server to exit, killing it if it takes over a minute.
    ///
    /// - Returns: what went wrong, if it had to be killed or exited with an error.
    func stop() async -> String? {
        guard process.isRunning else { return nil }
        process.terminate()
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard !process.isRunning else {
            kill(pid, SIGKILL)
            while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
            return "The server did not stop within 60 s of SIGTERM and was killed. Its log ended:\n\(logTail())"
        }
        guard process.terminationStatus == 0 else {
            return "The server exited with status \(process.terminationStatus) after SIGTERM. Its log ended:\n\(logTail())"
        }
        return nil
    }

    /// The last lines the server wrote, to say why it failed.
    func logTail(lines: Int = 20) -> String {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return "(no log)" }
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// Lines of the server's log at `error` or `critical` level.
    func errorLines() -> [String] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init).filter { $0.contains(" error ") || $0.contains(" critical ") }
    }
}
#endif
