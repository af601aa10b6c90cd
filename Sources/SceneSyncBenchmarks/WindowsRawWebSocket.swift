#if os(Linux)
import Foundation
import Glibc

/// A window reduced to its socket, for the main actor: it says hello, sends actions and waits for
/// whole messages without holding a thread, and reports each message's exact size on the wire.
///
/// `WindowClient` keeps only the messages it decoded, so what crossed the wire can only be measured
/// below it.
@MainActor
final class WindowsRawWebSocket {
    typealias Message = WindowsWebSocketFraming.Message

    private let descriptor: Int32
    private var framing = WindowsWebSocketFraming()
    private var lastRef = 0

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Opens `/ws/<app>` as a page of the server.
    static func open(port: Int, app: String, timeout: Duration = .seconds(10)) async throws(WindowsBenchmarkError) -> WindowsRawWebSocket {
        let socket = WindowsRawWebSocket(descriptor: try WindowsPOSIX.connect(port: port))
        try WindowsPOSIX.write(WindowsWebSocketFraming.upgradeRequest(port: port, app: app), to: socket.descriptor)
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while try !socket.framing.takeUpgradeResponse() {
            try await socket.receive(until: deadline)
        }
        return socket
    }

    /// Says hello as a new, visible and focused window.
    func hello() throws(WindowsBenchmarkError) {
        try WindowsPOSIX.write(WindowsWebSocketFraming.hello, to: descriptor)
    }

    /// Reports `name` on `node`, as the renderer does, and returns the action's `ref`.
    @discardableResult
    func act(_ name: String, on node: String) throws(WindowsBenchmarkError) -> Int {
        lastRef += 1
        try WindowsPOSIX.write(WindowsWebSocketFraming.action(ref: lastRef, name: name, node: node), to: descriptor)
        return lastRef
    }

    /// The next message whose type is `type`, skipping others.
    ///
    /// - Throws: if an `error` message comes first.
    func next(_ type: String, timeout: Duration = .seconds(30)) async throws(WindowsBenchmarkError) -> Message {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            while let message = try framing.nextMessage() {
                if message.type == type { return message }
                if message.type == "error" { throw .unexpected("the server sent an error: \(message.text)") }
            }
            try await receive(until: deadline)
        }
    }

    /// The messages that have already arrived, without waiting: what came when nothing was expected.
    func drain() throws(WindowsBenchmarkError) -> [Message] {
        framing.append(try WindowsPOSIX.readAvailable(from: descriptor))
        var messages: [Message] = []
        while let message = try framing.nextMessage() { messages.append(message) }
        try writePongs()
        return messages
    }

    /// Waits for more bytes, looking every 200 µs rather than blocking a thread of the pool.
    private func receive(until deadline: ContinuousClock.Instant) async throws(WindowsBenchmarkError) {
        while true {
            let bytes = try WindowsPOSIX.readAvailable(from: descriptor)
            if !bytes.isEmpty {
                framing.append(bytes)
                return try writePongs()
            }
            guard ContinuousClock.now < deadline else { throw .timedOut("a message from the server") }
            do { try await Task.sleep(for: .microseconds(200)) } catch { throw .unexpected("cancelled") }
        }
    }

    private func writePongs() throws(WindowsBenchmarkError) {
        for pong in framing.takePongs() { try WindowsPOSIX.write(pong, to: descriptor) }
    }
}
#endif
