import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// `scenesync-bench floor-server`: the fan-out floor, a WebSocket server that does nothing but
/// hand one ready-made frame to every connection. `scenesync-bench windows` starts it as a child
/// process and measures it with the same raw windows as the real server.
///
/// Why it is the floor: per recipient it does only what any server must do to deliver a change
/// to a window on this stack (Hummingbird and SwiftNIO, as `scenesync` uses): hand the encoded
/// bytes to the connection's channel, whose WebSocket frame encoder writes a header and the
/// payload to the socket. The payload is the exact patch a window of the real server received,
/// encoded once, before the rounds, and shared by every write (a `ByteBuffer` is copied on write,
/// and nothing writes to it). There is no model, no scene, no screen, no diff, no encoding, no
/// queue per window and no task per window: one loop per event loop, run on that loop, so that
/// no write even crosses a thread. Whatever the real server spends above this per recipient is
/// its own.
struct FloorServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor-server",
        abstract: "The fan-out floor: writes one ready-made frame to every WebSocket on an action (for `windows`).",
        shouldDisplay: false)

    @Option(help: "The port to listen on, on 127.0.0.1.")
    var port: Int

    @Option(help: "A file holding the text message's payload to send to every window.")
    var payload: String

    func run() async throws {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: payload))
        } catch {
            throw ValidationError("Cannot read --payload \(payload): \(error)")
        }
        guard !bytes.isEmpty, String(data: bytes, encoding: .utf8) != nil else {
            throw ValidationError("--payload \(payload) must hold a non-empty UTF-8 text message.")
        }
        var logger = Logger(label: "scenesync-bench.floor")
        logger.logLevel = .warning
        let floor = FloorServer(payload: ByteBuffer(bytes: bytes))
        let router = Router()
        router.get("/") { _, _ in "floor" }
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(configuration: .init(ws: .init(maxFrameSize: 1 << 16, autoPing: .disabled))) { request, channel, _ in
                guard request.path?.hasPrefix("/ws/") == true else { return .dontUpgrade }
                return .upgrade([:]) { inbound, _, _ in
                    try await floor.serve(channel, inbound: inbound)
                }
            },
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            logger: logger)
        try await app.runService()
    }
}

/// The floor's connections, grouped by the event loop each is on, and what it does with them.
final class FloorServer: Sendable {
    /// The channels of one event loop, in the order they said hello.
    private struct Loop {
        let eventLoop: any EventLoop
        var channels: [any Channel]
    }

    private let patch: WebSocketFrame
    private let render = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: #"{"root":{},"type":"render","v":1}"#))
    private let loops = Mutex<[ObjectIdentifier: Loop]>([:])

    init(payload: ByteBuffer) {
        patch = WebSocketFrame(fin: true, opcode: .text, data: payload)
    }

    /// One window: `hello` is answered with a stub render, and registers it for the fan-out; an
    /// `action` writes the patch to every window, then acknowledges the action to its sender.
    func serve(_ channel: any Channel, inbound: WebSocketInboundStream) async throws {
        let key = ObjectIdentifier(channel.eventLoop)
        defer {
            loops.withLock { loops in loops[key]?.channels.removeAll { $0 === channel } }
        }
        for try await message in inbound.messages(maxSize: 1 << 16) {
            guard case let .text(text) = message else { continue }
            if text.contains(#""type":"hello""#) {
                // Registered before the render goes out: a window that has its render gets every patch.
                loops.withLock { loops in
                    loops[key, default: Loop(eventLoop: channel.eventLoop, channels: [])].channels.append(channel)
                }
                channel.writeAndFlush(render, promise: nil)
            } else if text.contains(#""type":"action""#), let ref = Self.ref(in: text) {
                fanOut()
                channel.writeAndFlush(
                    WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: #"{"ref":\#(ref),"type":"ack","v":1}"#)), promise: nil)
            }
        }
    }

    /// The bare loop: on each event loop, the same frame to each of its channels.
    private func fanOut() {
        let patch = patch
        for loop in loops.withLock({ Array($0.values) }) {
            let channels = loop.channels
            loop.eventLoop.execute {
                for channel in channels { channel.writeAndFlush(patch, promise: nil) }
            }
        }
    }

    /// The action's `ref`, from `"ref":N`.
    private static func ref(in text: String) -> Int? {
        guard let range = text.range(of: #""ref":"#) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}

#if os(Linux)
import Glibc

/// Runs the floor server as a child process and measures it as the real server is measured.
enum WindowsFloor {
    /// Fan-out against the floor with `count` raw windows, sending `payload` as every window's patch.
    ///
    /// - Throws: if a window received anything but `payload` as the patch.
    @MainActor
    static func measure(
        windows count: Int, payload: [UInt8], rounds: Int, warmup: Int, interval: Duration, connectBatch: Int,
        scratch: URL, problems: inout [String]
    ) async throws -> WindowsFanOutResult {
        try await withFloor(payload: payload, name: "floor-\(count)", scratch: scratch, problems: &problems) { floor in
            let result = try await WindowsRawFanOut(
                port: floor.port, serverPID: floor.pid, rounds: rounds, warmup: warmup, interval: interval, connectBatch: connectBatch
            ).run(windows: count)
            guard result.frame?.payload == payload else {
                throw WindowsBenchmarkError.unexpected("the floor's windows received another patch than the one captured")
            }
            return result
        }
    }

    /// The floor's memory: `VmRSS` idle, then with `count` raw windows connected, each with its
    /// stub render, after `settle`: what a WebSocket connection costs on this stack before any
    /// scene, screen or queue of the real server's.
    @MainActor
    static func measureMemory(
        windows count: Int, payload: [UInt8], settle: Duration, connectBatch: Int, scratch: URL, problems: inout [String]
    ) async throws -> WindowsMemoryResult {
        try await withFloor(payload: payload, name: "floor-memory", scratch: scratch, problems: &problems) { floor in
            try await Task.sleep(for: settle)
            let idle = try floor.residentKilobytes()
            let pid = floor.pid
            let (loaded, connectTime) = try await RawWindows.measure(
                count, port: floor.port, app: WindowsFleet.app, batch: connectBatch, thread: "scenesync-bench floor memory windows"
            ) { _, connectTime in
                Thread.sleep(forTimeInterval: settle.seconds)
                return (try WindowsServerProcess.residentKilobytes(pid: pid), connectTime)
            }
            return WindowsMemoryResult(windows: count, idleKilobytes: idle, loadedKilobytes: loaded, connectTime: connectTime, closeTime: .zero)
        }
    }

    /// Runs `body` with a floor server that sends `payload` as every window's patch.
    @MainActor
    private static func withFloor<Result: Sendable>(
        payload: [UInt8], name: String, scratch: URL, problems: inout [String],
        _ body: (WindowsServerProcess) async throws -> Result
    ) async throws -> Result {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let file = scratch.appendingPathComponent("\(name)-payload.json")
        try Data(payload).write(to: file)
        let executable = try WindowsServerProcess.benchmarkExecutable()
        return try await WindowsServerProcess.with(
            executable: executable, log: scratch.appendingPathComponent("\(name).log"),
            commandLine: { port in ["floor-server", "--port", String(port), "--payload", file.path] }, problems: &problems, body)
    }
}
#endif
