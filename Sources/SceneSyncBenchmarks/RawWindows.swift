#if os(Linux)
import Foundation
import Glibc

/// Windows as raw WebSockets read on the caller's thread, woken by `poll(2)` as soon as a message
/// arrives, which only look for each message's type and decode nothing: their latency is close to
/// the server's own.
struct RawWindows {
    /// One window: its socket and what it has received.
    private struct Window {
        let descriptor: Int32
        let hello: [UInt8]
        var framing = WindowsWebSocketFraming()
        var upgraded = false
    }

    private var windows: [Window] = []
    private static let timeout = Duration.seconds(120)

    /// How many windows are open.
    var count: Int { windows.count }

    /// Opens `count` windows of `app` on a thread of its own, runs `measure` with them there, and
    /// closes them: blocking in `poll(2)` is fine on such a thread, and would starve the
    /// cooperative pool. `measure` is given the windows and how long they took to connect.
    /// `hello` gives window `index` its hello frame (a new, visible, focused window's by default);
    /// `forwardedFor` the client address its upgrade request names in `X-Forwarded-For`, if any.
    static func measure<Result: Sendable>(
        _ count: Int, port: Int, app: String, batch: Int, thread name: String,
        portOf: @escaping @Sendable (Int) -> Int? = { _ in nil },
        hello: @escaping @Sendable (Int) -> [UInt8] = { _ in WindowsWebSocketFraming.hello },
        forwardedFor: @escaping @Sendable (Int) -> String? = { _ in nil },
        _ measure: @escaping @Sendable (inout RawWindows, Duration) throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result {
                    let clock = ContinuousClock()
                    var windows = RawWindows()
                    defer { windows.closeAll() }
                    let start = clock.now
                    try windows.open(count, port: port, app: app, batch: batch, clock: clock, portOf: portOf, hello: hello,
                                     forwardedFor: forwardedFor)
                    return try measure(&windows, start.duration(to: clock.now))
                })
            }
            thread.name = name
            thread.start()
        }
    }

    /// Opens `count` windows of `app`, `batch` at a time, each waiting for its first render. Window
    /// `index` connects to `portOf(index)` if it gives one (another node), else to `port`.
    mutating func open(
        _ count: Int, port defaultPort: Int, app: String, batch: Int, clock: ContinuousClock,
        portOf: (Int) -> Int? = { _ in nil },
        hello: (Int) -> [UInt8] = { _ in WindowsWebSocketFraming.hello },
        forwardedFor: (Int) -> String? = { _ in nil }
    ) throws {
        while windows.count < count {
            let size = min(batch, count - windows.count)
            for _ in 0..<size {
                let port = portOf(windows.count) ?? defaultPort
                let descriptor = try WindowsPOSIX.connect(port: port)
                windows.append(Window(descriptor: descriptor, hello: hello(windows.count)))
                let upgrade = WindowsWebSocketFraming.upgradeRequest(port: port, app: app, forwardedFor: forwardedFor(windows.count - 1))
                try WindowsPOSIX.write(upgrade, to: descriptor)
            }
            try wait(for: Array(windows.count - size..<windows.count), what: "first renders", clock: clock) { _, message in
                message.type == "render"
            }
        }
    }

    /// Writes a client frame to window `index`.
    func send(_ frame: [UInt8], to index: Int) throws {
        try WindowsPOSIX.write(frame, to: windows[index].descriptor)
    }

    /// Reads the windows at `indices` as their messages arrive, handing each message to `handle`,
    /// until `handle` has said of every window that it is done. The upgrade response is taken
    /// first, and answered with `hello`. An `error` message ends the run.
    mutating func wait(
        for indices: [Int], what: String, clock: ContinuousClock,
        handle: (Int, WindowsWebSocketFraming.Message) throws -> Bool
    ) throws {
        let deadline = clock.now.advanced(by: Self.timeout)
        var pending = indices
        while !pending.isEmpty {
            var done: Set<Int> = []
            try read(pending, waitingMilliseconds: 100) { index, message in
                if message.type == "error" { throw WindowsBenchmarkError.unexpected("a raw window was sent \(message.text)") }
                if try handle(index, message) { done.insert(index) }
            }
            pending.removeAll { done.contains($0) }
            guard clock.now < deadline else { throw WindowsBenchmarkError.timedOut("\(what) at \(pending.count) of \(indices.count) raw windows") }
        }
    }

    /// Reads every window until `duration` has passed, handing each message to `handle`.
    mutating func listen(for duration: Duration, clock: ContinuousClock, handle: (Int, WindowsWebSocketFraming.Message) throws -> Void) throws {
        let end = clock.now.advanced(by: duration)
        while clock.now < end {
            let left = clock.now.duration(to: end)
            try read(Array(windows.indices), waitingMilliseconds: Int32(max(1, min(100, left.milliseconds)))) { index, message in
                try handle(index, message)
            }
        }
    }

    /// Sends a normal close on every window and closes its socket.
    mutating func closeAll() {
        for window in windows {
            try? WindowsPOSIX.write(WindowsWebSocketFraming.close, to: window.descriptor)
            close(window.descriptor)
        }
        windows = []
    }

    /// One `poll(2)` over the windows at `indices`, then every whole message they received.
    private mutating func read(_ indices: [Int], waitingMilliseconds: Int32, handle: (Int, WindowsWebSocketFraming.Message) throws -> Void) throws {
        var descriptors = indices.map { pollfd(fd: windows[$0].descriptor, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&descriptors, nfds_t(descriptors.count), waitingMilliseconds)
        guard ready >= 0 || errno == EINTR else { throw WindowsBenchmarkError.socket("poll: \(String(cString: strerror(errno)))") }
        for (slot, index) in indices.enumerated() where descriptors[slot].revents != 0 {
            windows[index].framing.append(try WindowsPOSIX.readAvailable(from: windows[index].descriptor))
            if !windows[index].upgraded {
                guard try windows[index].framing.takeUpgradeResponse() else { continue }
                windows[index].upgraded = true
                try WindowsPOSIX.write(windows[index].hello, to: windows[index].descriptor)
            }
            while let message = try windows[index].framing.nextMessage() { try handle(index, message) }
            for pong in windows[index].framing.takePongs() { try WindowsPOSIX.write(pong, to: windows[index].descriptor) }
        }
    }
}
#endif
