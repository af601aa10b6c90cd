#if os(Linux)
import Foundation
import Logging
import Restaurant

/// The server's memory before and after windows connected.
struct WindowsMemoryResult: Sendable {
    let windows: Int
    /// `VmRSS` of the idle server with no window, in KiB.
    let idleKilobytes: Int
    /// `VmRSS` once every window has its first render and allocations have settled, in KiB.
    let loadedKilobytes: Int
    /// How long the windows took to connect and receive their first render.
    let connectTime: Duration
    /// How long the server stayed busy after the windows closed.
    let closeTime: Duration

    var kilobytesPerWindow: Double { Double(loadedKilobytes - idleKilobytes) / Double(max(windows, 1)) }
}

/// Everything one run measured, with what it was measured on.
struct WindowsResults: Sendable {
    let settings: WindowsSettings
    let server: String
    let fileLimit: Int
    /// The 1-minute load average when the run finished; the context has the one at the start.
    let loadAverageAtEnd: Double?
    /// Fan-out with `WindowClient` windows.
    let fanOut: [WindowsFanOutResult]
    /// Fan-out with raw-socket windows (see ``WindowsRawFanOut``); empty if not asked for.
    let rawFanOut: [WindowsFanOutResult]
    let patches: [WindowsPatchResult]
    let memory: WindowsMemoryResult
    /// Restaurant's badge and countdown, or `nil` if not asked for.
    let restaurant: WindowsRestaurantResult?
    /// Lines the servers logged at `error` level or above, and trouble stopping them.
    let serverProblems: [String]
    let wallTime: Duration
}

/// Runs the three measurements against real servers, one per list size, each in its own process
/// on a fresh data folder that is deleted afterwards.
///
/// The first server (smallest list) measures memory first, while nothing else has run in it, then
/// the patch, then fan-out; the others measure only the patch.
@MainActor
struct WindowsRun {
    let settings: WindowsSettings
    let logger: Logger

    func run() async throws -> WindowsResults {
        let clock = ContinuousClock()
        let start = clock.now
        let executable = try WindowsServerProcess.locate(explicit: settings.server)
        let neededFiles = max(settings.windowCounts.max() ?? 0, settings.memoryWindows) + 256
        let fileLimit = WindowsFleet.raiseFileLimit(to: neededFiles)
        guard fileLimit >= neededFiles else {
            throw WindowsBenchmarkError.unexpected("the open-file limit is \(fileLimit); \(neededFiles) are needed (raise the hard limit)")
        }

        var patches: [WindowsPatchResult] = []
        var fanOut: [WindowsFanOutResult] = []
        var rawFanOut: [WindowsFanOutResult] = []
        var memory: WindowsMemoryResult?
        var restaurant: WindowsRestaurantResult?
        var serverProblems: [String] = []
        for (index, items) in settings.listSizes.enumerated() {
            let scratch = settings.parent.appendingPathComponent("scenesync-bench-windows-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let data = scratch.appendingPathComponent("data", isDirectory: true)
            progress("Seeding \(items) items with \(settings.seedWriters) writers")
            let keys = try await WindowsSeed.items(items, writers: settings.seedWriters, in: data, logger: logger)
            progress("Starting \(executable) on \(items) items")
            try await WindowsServerProcess.with(
                executable: executable, dataDirectory: data, log: scratch.appendingPathComponent("server.log"),
                problems: &serverProblems
            ) { server in
                if index == 0 { memory = try await measureMemory(server) }
                progress("Patch bytes at \(items) items")
                patches.append(try await WindowsPatchSize(port: server.port).run(items: items, editing: keys[0]))
                if index == 0 { (fanOut, rawFanOut) = try await measureFanOut(server) }
                if index == 0, settings.restaurantWindows > 0 {
                    progress("Restaurant: \(settings.restaurantWindows) windows, badge and countdown")
                    // Every round adds a dish to one order, which Restaurant bounds.
                    let dishes = OrderLimits().maximumDishesPerOrder
                    restaurant = try await WindowsRestaurant(
                        port: server.port, serverPID: server.pid,
                        rounds: min(settings.largeRounds, max(1, dishes - settings.warmup)), warmup: min(settings.warmup, dishes - 1),
                        interval: settings.interval, connectBatch: settings.connectBatch, quiet: settings.countdown
                    ).run(windows: settings.restaurantWindows)
                    await server.waitUntilIdle()
                }
            }
        }
        return WindowsResults(
            settings: settings, server: executable, fileLimit: fileLimit, loadAverageAtEnd: ProcessCPU.loadAverage(),
            fanOut: fanOut, rawFanOut: rawFanOut, patches: patches, memory: memory!, restaurant: restaurant, serverProblems: serverProblems, wallTime: start.duration(to: clock.now))
    }

    private func measureMemory(_ server: WindowsServerProcess) async throws -> WindowsMemoryResult {
        progress("Memory: idle server, settling \(settings.settle)")
        await server.waitUntilIdle()
        try await Task.sleep(for: settings.settle)
        let idle = try server.residentKilobytes()
        progress("Memory: opening \(settings.memoryWindows) windows")
        let clock = ContinuousClock()
        let opening = clock.now
        let windows = try await WindowsFleet.open(settings.memoryWindows, port: server.port, batch: settings.connectBatch)
        let connectTime = opening.duration(to: clock.now)
        try await Task.sleep(for: settings.settle)
        let loaded = try server.residentKilobytes()
        progress("Memory: closing the windows and waiting for the server to finish with them")
        let closing = clock.now
        await WindowsFleet.close(windows, batch: settings.connectBatch)
        await server.waitUntilIdle()
        return WindowsMemoryResult(
            windows: windows.count, idleKilobytes: idle, loadedKilobytes: loaded, connectTime: connectTime,
            closeTime: closing.duration(to: clock.now))
    }

    /// Each window count with `WindowClient` windows, then with raw windows (each if asked for).
    private func measureFanOut(_ server: WindowsServerProcess) async throws -> ([WindowsFanOutResult], [WindowsFanOutResult]) {
        var results: [WindowsFanOutResult] = []
        var rawResults: [WindowsFanOutResult] = []
        for count in settings.windowCounts {
            let rounds = count > settings.largeThreshold ? settings.largeRounds : settings.rounds
            let windows = "\(count) window\(count == 1 ? "" : "s"), \(settings.warmup) + \(rounds) rounds"
            if settings.clientWindows {
                progress("Fan-out: \(windows), WindowClient")
                let fanOut = WindowsFanOut(
                    port: server.port, serverPID: server.pid, rounds: rounds, warmup: settings.warmup, interval: settings.interval,
                    pollInterval: settings.pollInterval, connectBatch: settings.connectBatch)
                results.append(try await fanOut.run(windows: count))
                await server.waitUntilIdle()
            }
            guard settings.rawWindows else { continue }
            progress("Fan-out: \(windows), raw windows")
            let raw = WindowsRawFanOut(
                port: server.port, serverPID: server.pid, rounds: rounds, warmup: settings.warmup, interval: settings.interval,
                connectBatch: settings.connectBatch)
            rawResults.append(try await raw.run(windows: count))
            await server.waitUntilIdle()
        }
        return (results, rawResults)
    }

    private func progress(_ message: String) {
        FileHandle.standardError.write(Data("-> \(message)\n".utf8))
    }
}
#endif
