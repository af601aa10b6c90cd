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

    private static let timeout = Duration.seconds(120)

    /// One window: its socket and what it has received.
    private struct Window {
        let descriptor: Int32
        var framing = WindowsWebSocketFraming()
        var upgraded = false
        var rendered = false
    }

    func run(windows count: Int) async throws -> WindowsFanOutResult {
        // Blocking in poll(2) is fine on a thread of its own, and would starve the cooperative pool.
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try measure(count) }) }
            thread.name = "scenesync-bench raw windows"
            thread.start()
        }
    }

    private func measure(_ count: Int) throws -> WindowsFanOutResult {
        let clock = ContinuousClock()
        var windows: [Window] = []
        defer {
            for window in windows {
                try? WindowsPOSIX.write(WindowsWebSocketFraming.close, to: window.descriptor)
                close(window.descriptor)
            }
        }
        let connectStart = clock.now
        while windows.count < count {
            let batch = min(connectBatch, count - windows.count)
            for _ in 0..<batch {
                let descriptor = try WindowsPOSIX.connect(port: port)
                windows.append(Window(descriptor: descriptor))
                try WindowsPOSIX.write(WindowsWebSocketFraming.upgradeRequest(port: port, app: WindowsFleet.app), to: descriptor)
            }
            try wait(&windows, indices: Array(windows.count - batch..<windows.count), what: "first renders", clock: clock) { _, window, message in
                window.rendered = window.rendered || message.type == "render"
                return window.rendered
            }
        }
        let connectTime = connectStart.duration(to: clock.now)

        var roundLatencies: [Duration] = []
        var windowLatencies: [Duration] = []
        var cpuBefore: Duration?
        for round in 0..<(warmup + rounds) {
            if round == warmup { cpuBefore = WindowsServerProcess.cpuTime(pid: serverPID) }
            let ref = round + 1
            var arrivals = [ContinuousClock.Instant?](repeating: nil, count: count)
            var acknowledged = false
            let sent = clock.now
            try WindowsPOSIX.write(WindowsWebSocketFraming.action(ref: ref, name: "tap", node: "add"), to: windows[0].descriptor)
            try wait(&windows, indices: Array(windows.indices), what: "the patch", clock: clock) { index, _, message in
                if message.type == "patch", arrivals[index] == nil { arrivals[index] = clock.now }
                if index == 0, message.text == #"{"ref":\#(ref),"type":"ack","v":1}"# { acknowledged = true }
                return arrivals[index] != nil && (index != 0 || acknowledged)
            }
            if round >= warmup {
                let latencies = arrivals.map { sent.duration(to: $0!) }
                roundLatencies.append(latencies.max()!)
                windowLatencies += latencies
            }
            let next = sent.advanced(by: interval)
            if clock.now < next { Thread.sleep(forTimeInterval: clock.now.duration(to: next).seconds) }
        }
        let cpuAfter = WindowsServerProcess.cpuTime(pid: serverPID)
        return WindowsFanOutResult(
            windows: count, rounds: rounds, roundLatencies: roundLatencies, windowLatencies: windowLatencies,
            connectTime: connectTime, serverCPU: cpuBefore.flatMap { before in cpuAfter.map { $0 - before } }, meanPollGap: nil)
    }

    /// Reads the windows at `indices` as their messages arrive, handing each message to `handle`,
    /// until `handle` has said of every window that it is done. The upgrade response is taken
    /// first, and answered with `hello`.
    private func wait(
        _ windows: inout [Window], indices: [Int], what: String, clock: ContinuousClock,
        handle: (Int, inout Window, WindowsWebSocketFraming.Message) throws -> Bool
    ) throws {
        let deadline = clock.now.advanced(by: Self.timeout)
        var pending = indices
        while !pending.isEmpty {
            var descriptors = pending.map { pollfd(fd: windows[$0].descriptor, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), 100)
            guard ready >= 0 || errno == EINTR else { throw WindowsBenchmarkError.socket("poll: \(String(cString: strerror(errno)))") }
            var done: Set<Int> = []
            for (slot, index) in pending.enumerated() where descriptors[slot].revents != 0 {
                windows[index].framing.append(try WindowsPOSIX.readAvailable(from: windows[index].descriptor))
                if !windows[index].upgraded {
                    guard try windows[index].framing.takeUpgradeResponse() else { continue }
                    windows[index].upgraded = true
                    try WindowsPOSIX.write(WindowsWebSocketFraming.hello, to: windows[index].descriptor)
                }
                while let message = try windows[index].framing.nextMessage() {
                    if message.type == "error" { throw WindowsBenchmarkError.unexpected("a raw window was sent \(message.text)") }
                    if try handle(index, &windows[index], message) { done.insert(index) }
                }
                for pong in windows[index].framing.takePongs() { try WindowsPOSIX.write(pong, to: windows[index].descriptor) }
            }
            pending.removeAll { done.contains($0) }
            guard clock.now < deadline else { throw WindowsBenchmarkError.timedOut("\(what) at \(pending.count) of \(indices.count) raw windows") }
        }
    }
}
#endif
