#if os(Linux)
import LootLogger
import SceneSync
import SceneSyncServer
import SceneSyncUI
import SceneSyncServerTesting

/// What one fan-out configuration measured.
struct WindowsFanOutResult: Sendable {
    /// Windows connected.
    let windows: Int
    /// Rounds timed (after the warm-up).
    let rounds: Int
    /// Per round: from window 0 sending the tap to the patch having reached every window.
    let roundLatencies: [Duration]
    /// Per round and window: from the tap to the patch reaching that window.
    let windowLatencies: [Duration]
    /// How long the windows took to connect and receive their first render.
    let connectTime: Duration
    /// CPU time the server used over the timed rounds, or `nil` if it could not be read.
    let serverCPU: Duration?
    /// The mean time between two looks at the windows, the resolution of every latency above;
    /// `nil` for windows woken by the kernel.
    let meanPollGap: Duration?
    /// The patch the last window received in the last timed round, exactly as received; raw
    /// windows only. The fan-out floor sends these bytes.
    var frame: WindowsWebSocketFraming.Message? = nil

    var round: LatencySummary? { LatencySummary(roundLatencies) }
    var serverCPUPerRound: Duration? { serverCPU.map { $0 / max(rounds, 1) } }
    /// The server's CPU time over the timed rounds per window that received each round's change:
    /// `serverCPU / (rounds × windows)`.
    var serverCPUPerRecipient: Duration? { serverCPU.map { $0 / max(rounds * windows, 1) } }
    var perWindow: LatencySummary? { LatencySummary(windowLatencies) }
}

/// Fan-out latency: one window taps Add, every window's list gains the row.
///
/// A `WindowClient` records no arrival times, so the windows are looked at every `pollInterval`
/// on the main actor, where they take in their messages; a patch found at a look arrived before
/// it, so each latency is over by at most the gap between looks.
@MainActor
struct WindowsFanOut {
    let port: Int
    let serverPID: Int32
    let rounds: Int
    let warmup: Int
    /// The least time from one tap to the next: the server allows a window 50 actions a second.
    let interval: Duration
    let pollInterval: Duration
    let connectBatch: Int

    private static let roundTimeout = Duration.seconds(60)

    func run(windows count: Int) async throws -> WindowsFanOutResult {
        let clock = ContinuousClock()
        let connectStart = clock.now
        let windows = try await WindowsFleet.open(count, port: port, batch: connectBatch)
        let connectTime = connectStart.duration(to: clock.now)
        var roundLatencies: [Duration] = []
        var windowLatencies: [Duration] = []
        roundLatencies.reserveCapacity(rounds)
        windowLatencies.reserveCapacity(rounds * count)
        var polls = 0
        var polling = Duration.zero
        var cpuBefore: Duration?
        for round in 0..<(warmup + rounds) {
            if round == warmup { cpuBefore = WindowsServerProcess.cpuTime(pid: serverPID) }
            let measured = try await self.round(windows, clock: clock)
            polls += measured.polls
            polling += measured.polling
            guard round >= warmup else { continue }
            roundLatencies.append(measured.latencies.max()!)
            windowLatencies += measured.latencies
        }
        let cpuAfter = WindowsServerProcess.cpuTime(pid: serverPID)
        try verify(windows)
        await WindowsFleet.close(windows, batch: connectBatch)
        return WindowsFanOutResult(
            windows: count, rounds: rounds, roundLatencies: roundLatencies, windowLatencies: windowLatencies,
            connectTime: connectTime, serverCPU: cpuBefore.flatMap { before in cpuAfter.map { $0 - before } },
            meanPollGap: polling / max(polls, 1))
    }

    /// One tap and its patch everywhere; waits out the rest of `interval` before returning.
    private func round(_ windows: [WindowClient], clock: ContinuousClock) async throws
        -> (latencies: [Duration], polls: Int, polling: Duration) {
        var scanned = windows.map(\.messages.count)
        var arrivals = [ContinuousClock.Instant?](repeating: nil, count: windows.count)
        var pending = Array(windows.indices)
        let sent = clock.now
        let ref = windows[0].tap(ItemsScreen.NodeID.add)
        var polls = 0
        var lastLook = sent
        while !pending.isEmpty {
            try await Task.sleep(for: pollInterval)
            // Nothing is received while this runs: windows take in messages on the main actor too.
            let look = clock.now
            polls += 1
            lastLook = look
            pending.removeAll { index in
                let messages = windows[index].messages
                defer { scanned[index] = messages.count }
                guard messages[scanned[index]...].contains(where: { $0.type == .patch }) else { return false }
                arrivals[index] = look
                return true
            }
            guard !pending.isEmpty else { break }
            if sent.duration(to: look) > Self.roundTimeout {
                for index in pending { try WindowsFleet.check(windows[index]) }
                throw WindowsBenchmarkError.timedOut("the patch at \(pending.count) of \(windows.count) windows")
            }
        }
        let latencies = arrivals.map { sent.duration(to: $0!) }
        try await windows[0].next("the ack of Add", timeout: Self.roundTimeout) { $0 == .ack(ref: ref) || $0.type == .error }
        try WindowsFleet.check(windows[0])
        let next = sent.advanced(by: interval)
        if clock.now < next { try await Task.sleep(until: next, clock: clock) }
        return (latencies, polls, sent.duration(to: lastLook))
    }

    /// Every window ends up showing the same rows, with nothing that failed to apply.
    private func verify(_ windows: [WindowClient]) throws(WindowsBenchmarkError) {
        let rows = windows[0].view?.nodes(of: .row).count
        for window in windows {
            try WindowsFleet.check(window)
            guard window.view?.nodes(of: .row).count == rows else {
                throw .unexpected("windows disagree on the number of rows after the rounds")
            }
        }
    }
}
#endif
