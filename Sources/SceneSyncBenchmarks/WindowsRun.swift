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
    /// `VmRSS` with half the windows connected and settled, in KiB, where it was read.
    var halfKilobytes: Int?

    /// Everything the windows added, divided among them: what they share (a list's rows, built
    /// once per state) included.
    var kilobytesPerWindow: Double { Double(loadedKilobytes - idleKilobytes) / Double(max(windows, 1)) }

    /// What one more window adds: the growth from half the windows to all of them, per window.
    var marginalKilobytesPerWindow: Double? {
        guard let halfKilobytes, windows > 1 else { return nil }
        return Double(loadedKilobytes - halfKilobytes) / Double(windows - windows / 2)
    }

    /// What the windows add besides their own memory: what they share, in KiB.
    var sharedKilobytes: Double? {
        marginalKilobytesPerWindow.map { Double(loadedKilobytes - idleKilobytes) - $0 * Double(windows) }
    }
}

/// The server's memory with raw windows on a list of one size.
struct WindowsListMemoryResult: Sendable {
    /// Items in the list.
    let items: Int
    let memory: WindowsMemoryResult
}

/// A new Chat message to many raw windows, in a server of its own.
struct WindowsChatResult: Sendable {
    let people: Int
    /// Messages in the conversation before the timed ones.
    let messages: Int
    /// Windows on the conversation list rather than on the conversation.
    let listWindows: Int
    let rounds: ChatRoundResult

    /// The server's CPU time per message and window that received it.
    var cpuPerRecipient: Duration { rounds.serverCPU / max(rounds.rounds * rounds.windows, 1) }
}

/// The large run: many raw LootLogger windows on a server of their own.
struct WindowsHugeResult: Sendable {
    let memory: WindowsMemoryResult
    let fanOut: WindowsFanOutResult
    /// The fan-out floor with as many raw windows and the same patch, or `nil` if not asked for.
    var floor: WindowsFanOutResult?
    /// The server options the run added to the usual ones.
    let extraArguments: [String]
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
    /// Memory per window on each list size after the first, with raw windows.
    let listMemory: [WindowsListMemoryResult]
    /// The fan-out floor at each raw window count (see ``FloorServer``); empty if not asked for.
    let floorFanOut: [WindowsFanOutResult]
    /// The floor's memory with as many windows as ``memory``, or `nil` if the floor was not run.
    let floorMemory: WindowsMemoryResult?
    /// Chat, or `nil` if not asked for.
    let chat: WindowsChatResult?
    /// The large run, or `nil` if not asked for.
    let huge: WindowsHugeResult?
    /// Lines the servers logged at `error` level or above, and trouble stopping them.
    let serverProblems: [String]
    let wallTime: Duration
}

/// Runs the three measurements against real servers, one per list size, each in its own process
/// on a fresh data folder that is deleted afterwards.
///
/// The first server (smallest list) measures memory first, while nothing else has run in it, then
/// the patch, then fan-out; the others measure memory with raw windows, then the patch. Then the
/// fan-out floor runs at each raw window count, and Chat and the large run on servers of their own.
@MainActor
struct WindowsRun {
    let settings: WindowsSettings
    let logger: Logger

    func run() async throws -> WindowsResults {
        let clock = ContinuousClock()
        let start = clock.now
        let executable = try WindowsServerProcess.locate(explicit: settings.server)
        let neededFiles = [settings.windowCounts.max() ?? 0, settings.memoryWindows, settings.restaurantWindows, settings.chatWindows,
                           settings.hugeWindows, settings.listMemoryWindows].max()! + 256
        let fileLimit = WindowsFleet.raiseFileLimit(to: neededFiles)
        guard fileLimit >= neededFiles else {
            throw WindowsBenchmarkError.unexpected("the open-file limit is \(fileLimit); \(neededFiles) are needed (raise the hard limit)")
        }

        var patches: [WindowsPatchResult] = []
        var fanOut: [WindowsFanOutResult] = []
        var rawFanOut: [WindowsFanOutResult] = []
        var memory: WindowsMemoryResult?
        var restaurant: WindowsRestaurantResult?
        var listMemory: [WindowsListMemoryResult] = []
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
                if index > 0, settings.listMemoryWindows > 0 {
                    progress("Memory: \(settings.listMemoryWindows) raw windows on \(items) items")
                    listMemory.append(WindowsListMemoryResult(items: items, memory: try await measureRawMemory(server, windows: settings.listMemoryWindows)))
                }
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
        var floorFanOut: [WindowsFanOutResult] = []
        var floorMemory: WindowsMemoryResult?
        if settings.floor {
            let scratch = settings.parent.appendingPathComponent("scenesync-bench-floor-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            for real in rawFanOut {
                if let floor = try await measureFloor(beside: real, scratch: scratch, problems: &serverProblems) { floorFanOut.append(floor) }
            }
            if let frame = rawFanOut.first?.frame {
                progress("Floor: memory with \(settings.memoryWindows) raw windows")
                floorMemory = try await WindowsFloor.measureMemory(
                    windows: settings.memoryWindows, payload: frame.payload, settle: settings.settle, connectBatch: settings.connectBatch,
                    scratch: scratch, problems: &serverProblems)
            }
        }
        let chat = settings.chatWindows > 0 ? try await measureChat(executable: executable, problems: &serverProblems) : nil
        var huge = settings.hugeWindows > 0 ? try await measureHuge(executable: executable, problems: &serverProblems) : nil
        if settings.floor, let large = huge {
            let scratch = settings.parent.appendingPathComponent("scenesync-bench-floor-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            huge?.floor = try await measureFloor(beside: large.fanOut, scratch: scratch, problems: &serverProblems)
        }
        return WindowsResults(
            settings: settings, server: executable, fileLimit: fileLimit, loadAverageAtEnd: ProcessCPU.loadAverage(),
            fanOut: fanOut, rawFanOut: rawFanOut, patches: patches, memory: memory!, restaurant: restaurant,
            listMemory: listMemory, floorFanOut: floorFanOut, floorMemory: floorMemory, chat: chat, huge: huge,
            serverProblems: serverProblems, wallTime: start.duration(to: clock.now))
    }

    /// The floor with as many raw windows, rounds and the same patch as `real`; `nil` if `real`
    /// captured no patch.
    private func measureFloor(beside real: WindowsFanOutResult, scratch: URL, problems: inout [String]) async throws -> WindowsFanOutResult? {
        guard let frame = real.frame else { return nil }
        progress("Floor: \(real.windows) raw windows, \(settings.warmup) + \(real.rounds) rounds, a \(frame.wireBytes)-byte frame")
        return try await WindowsFloor.measure(
            windows: real.windows, payload: frame.payload, rounds: real.rounds, warmup: settings.warmup, interval: settings.interval,
            connectBatch: settings.connectBatch, scratch: scratch, problems: &problems)
    }

    /// `VmRSS` idle, then with half of `count` raw windows and with all of them, connected and
    /// settled, each with its first render: the second step is what a window costs by itself.
    private func measureRawMemory(_ server: WindowsServerProcess, windows count: Int) async throws -> WindowsMemoryResult {
        await server.waitUntilIdle()
        try await Task.sleep(for: settings.settle)
        let idle = try server.residentKilobytes()
        let (pid, settle, port, batch) = (server.pid, settings.settle, server.port, settings.connectBatch)
        let (half, loaded, connectTime) = try await RawWindows.measure(
            count / 2, port: port, app: WindowsFleet.app, batch: batch, thread: "scenesync-bench memory windows"
        ) { windows, halfTime in
            Thread.sleep(forTimeInterval: settle.seconds)
            let half = try WindowsServerProcess.residentKilobytes(pid: pid)
            let clock = ContinuousClock()
            let start = clock.now
            try windows.open(count, port: port, app: WindowsFleet.app, batch: batch, clock: clock)
            let connectTime = halfTime + start.duration(to: clock.now)
            Thread.sleep(forTimeInterval: settle.seconds)
            return (half, try WindowsServerProcess.residentKilobytes(pid: pid), connectTime)
        }
        let closeTime = await server.waitUntilIdle()
        return WindowsMemoryResult(windows: count, idleKilobytes: idle, loadedKilobytes: loaded, connectTime: connectTime, closeTime: closeTime,
                                   halfKilobytes: half)
    }

    /// A new Chat message to `chatWindows` raw windows, on a conversation of 100 messages between
    /// up to 10 people, in a server of its own: the same seed and rounds as `scenesync-bench chat`.
    private func measureChat(executable: String, problems: inout [String]) async throws -> WindowsChatResult {
        let scratch = settings.parent.appendingPathComponent("scenesync-bench-windows-chat-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let data = scratch.appendingPathComponent("data", isDirectory: true)
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let people = min(10, settings.chatWindows)
        let messages = 100
        progress("Chat: seeding \(people) people and \(messages) messages")
        let seed = try await ChatSeed.make(people: people, long: 1, short: messages, in: data)
        progress("Chat: \(settings.chatWindows) windows, \(settings.warmup) + \(settings.chatRounds) messages")
        let result = try await WindowsServerProcess.with(
            executable: executable, dataDirectory: data, log: scratch.appendingPathComponent("server.log"), problems: &problems
        ) { server in
            try await ChatRounds(
                port: server.port, serverPID: server.pid, conversation: seed.short, devices: seed.devices, firstNumber: messages + 1,
                rounds: settings.chatRounds, warmup: settings.warmup, interval: .milliseconds(100), batch: settings.connectBatch,
                listWindows: settings.chatListWindows
            ).run(windows: settings.chatWindows)
        }
        return WindowsChatResult(people: people, messages: messages, listWindows: settings.chatListWindows, rounds: result)
    }

    /// `hugeWindows` raw LootLogger windows on a server of their own with the first list size:
    /// its memory idle and with them, then Add's fan-out to all of them.
    ///
    /// Every window comes from 127.0.0.1, and the server keeps at most 2,048 sessions per client
    /// address and half its connection limit per address. So the server is told that 127.0.0.1 is
    /// a trusted proxy (`--trusted-proxy`), which takes it out of the connection limit per address,
    /// and the windows name client addresses in `X-Forwarded-For`, 1,000 windows to an address,
    /// as a proxy's clients would.
    private func measureHuge(executable: String, problems: inout [String]) async throws -> WindowsHugeResult {
        let items = settings.listSizes.first ?? 100
        let count = settings.hugeWindows
        let scratch = settings.parent.appendingPathComponent("scenesync-bench-windows-huge-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let data = scratch.appendingPathComponent("data", isDirectory: true)
        progress("Large run: seeding \(items) items")
        _ = try await WindowsSeed.items(items, writers: settings.seedWriters, in: data, logger: logger)
        let extra = ["--trusted-proxy", "127.0.0.1"]
        return try await WindowsServerProcess.with(
            executable: executable, dataDirectory: data, log: scratch.appendingPathComponent("server.log"), arguments: extra, problems: &problems
        ) { server in
            await server.waitUntilIdle()
            try await Task.sleep(for: settings.settle)
            let idle = try server.residentKilobytes()
            let (pid, settle) = (server.pid, settings.settle)
            let fanOut = WindowsRawFanOut(
                port: server.port, serverPID: server.pid, rounds: settings.hugeRounds, warmup: settings.warmup, interval: settings.interval,
                connectBatch: settings.connectBatch)
            progress("Large run: opening \(count) raw windows, then \(settings.warmup) + \(settings.hugeRounds) rounds")
            let (loaded, connectTime, result) = try await RawWindows.measure(
                count, port: server.port, app: WindowsFleet.app, batch: settings.connectBatch, thread: "scenesync-bench large run",
                forwardedFor: { "10.0.\($0 / 1_000 / 250).\($0 / 1_000 % 250 + 1)" }
            ) { windows, connectTime in
                Thread.sleep(forTimeInterval: settle.seconds)
                let loaded = try WindowsServerProcess.residentKilobytes(pid: pid)
                return (loaded, connectTime, try fanOut.measure(&windows, connectTime: connectTime))
            }
            progress("Large run: closing the windows and waiting for the server to finish with them")
            let closeTime = await server.waitUntilIdle(timeout: .seconds(600))
            let memory = WindowsMemoryResult(windows: count, idleKilobytes: idle, loadedKilobytes: loaded, connectTime: connectTime, closeTime: closeTime)
            return WindowsHugeResult(memory: memory, fanOut: result, extraArguments: extra)
        }
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
