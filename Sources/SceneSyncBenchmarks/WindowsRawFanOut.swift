#if os(Linux)
import Foundation
import Glibc

/// Fan-out latency with lean windows: raw WebSockets on a thread of their own, woken by `poll(2)`
/// as soon as a patch arrives, which only look for the message's type and decode nothing.
///
/// `WindowClient`s decode every message and apply it to their view, one window after another on
/// the main actor, so at hundreds of windows the client's work outweighs the server's. These
/// windows cost little more than the read, so their latency is close to the server's own.
struct WindowsRawFanOut: Sendable {
    let port: Int
    let serverPID: Int32
    let rounds: Int
    let warmup: Int
    let interval: Duration
    let connectBatch: Int

    func run(windows count: Int) async throws -> WindowsFanOutResult {
        try await RawWindows.measure(count, port: port, app: WindowsFleet.app, batch: connectBatch,
                                     thread: "scenesync-bench raw windows") { windows, connectTime in
            try measure(&windows, connectTime: connectTime)
        }
    }

    /// Times the rounds on windows already open, on the thread that reads them.
    func measure(_ windows: inout RawWindows, connectTime: Duration) throws -> WindowsFanOutResult {
        let clock = ContinuousClock()
        let count = windows.count

        var roundLatencies: [Duration] = []
        var windowLatencies: [Duration] = []
        var cpuBefore: Duration?
        var frame: WindowsWebSocketFraming.Message?
        for round in 0..<(warmup + rounds) {
            if round == warmup { cpuBefore = WindowsServerProcess.cpuTime(pid: serverPID) }
            let (sent, arrivals) = try Self.tapAdd(&windows, ref: round + 1, clock: clock, what: "the patch") { index, message in
                if index == count - 1 { frame = message }
            }
            if round >= warmup {
                let latencies = arrivals.map { sent.duration(to: $0) }
                roundLatencies.append(latencies.max()!)
                windowLatencies += latencies
            }
            let next = sent.advanced(by: interval)
            if clock.now < next { Thread.sleep(forTimeInterval: clock.now.duration(to: next).seconds) }
        }
        let cpuAfter = WindowsServerProcess.cpuTime(pid: serverPID)
        return WindowsFanOutResult(
            windows: count, rounds: rounds, roundLatencies: roundLatencies, windowLatencies: windowLatencies,
            connectTime: connectTime, serverCPU: cpuBefore.flatMap { before in cpuAfter.map { $0 - before } }, meanPollGap: nil,
            frame: frame)
    }

    /// Window 0 taps Add; returns when it was sent and when each window had the patch, once window 0
    /// also has its `ack`, so that rounds do not overlap. `received` is given each window's patch.
    static func tapAdd(
        _ windows: inout RawWindows, ref: Int, clock: ContinuousClock, what: String,
        received: (Int, WindowsWebSocketFraming.Message) -> Void = { _, _ in }
    ) throws -> (sent: ContinuousClock.Instant, arrivals: [ContinuousClock.Instant]) {
        var arrivals = [ContinuousClock.Instant?](repeating: nil, count: windows.count)
        var acknowledged = false
        let sent = clock.now
        try windows.send(WindowsWebSocketFraming.action(ref: ref, name: "tap", node: "add"), to: 0)
        try windows.wait(for: Array(0..<windows.count), what: what, clock: clock) { index, message in
            if message.type == "patch", arrivals[index] == nil {
                arrivals[index] = clock.now
                received(index, message)
            }
            if index == 0, message.text == #"{"ref":\#(ref),"type":"ack","v":1}"# { acknowledged = true }
            return arrivals[index] != nil && (index != 0 || acknowledged)
        }
        return (sent, arrivals.map { $0! })
    }
}
#endif
