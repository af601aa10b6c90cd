import Foundation
import SceneSync
public import SceneSyncUI
public import SceneSyncServer
import NIOCore
import NIOWebSocket

/// A browser window, for tests: it connects to a SceneSync server over a real WebSocket, speaks
/// the window protocol the way the renderer does, and keeps the view the server draws, so a test
/// can read what the window shows.
///
/// ```swift
/// let window = try await WindowClient.connect(port: port, app: "tally")
/// window.hello()
/// try await window.waitUntil("the first render") { window.view != nil }
/// let ref = window.tap("add")
/// try await window.next("the ack") { $0 == .ack(ref: ref) }
/// ```
@MainActor
public final class WindowClient {
    /// What the window sends as its `Origin`.
    public enum Origin: Sendable, Equatable {
        /// `http://<Host>`: a page the server served, as a browser sends it.
        case sameSite
        /// No `Origin` header.
        case none
        /// This exact value, such as a foreign site's.
        case custom(String)
    }

    /// The app, as in `/ws/<app>`.
    public let app: String
    /// The server's address.
    public let host: String
    /// The server's port.
    public let port: Int
    /// The `Host` header sent.
    public let hostHeader: String
    /// How `Origin` was sent.
    public let origin: Origin
    /// Every message received, in order.
    public private(set) var messages: [ServerMessage] = []
    /// What the window shows: the last render with every patch since applied.
    public private(set) var view: ViewTree?
    /// The session the server welcomed the window to.
    public private(set) var session: String?
    /// The sequence numbers of the last render, patch or resumed; `nil` before the first.
    public private(set) var seq: [String: UInt64]?
    /// The route of the last render.
    public private(set) var route: String?
    /// The browser profile the window said hello from, sent again on ``reconnect(token:resuming:)``.
    public internal(set) var device: String?
    /// Patches that did not fit the view, and messages that did not decode: the window is out of step.
    public private(set) var problems: [String] = []
    /// Whether the socket is closed.
    public private(set) var isClosed = false
    /// The close code the server sent, if it closed the socket.
    public private(set) var closeCode: UInt16?

    let outgoing: AsyncStream<WebSocketFrame>.Continuation
    var lastRef = 0
    var sentClose = false
    private var consumed = 0

    private init(app: String, host: String, port: Int, hostHeader: String, origin: Origin, outgoing: AsyncStream<WebSocketFrame>.Continuation) {
        self.app = app
        self.host = host
        self.port = port
        self.hostHeader = hostHeader
        self.origin = origin
        self.outgoing = outgoing
    }

    /// Opens `/ws/<app>` on the server. `hostHeader` defaults to `host:port`.
    ///
    /// - Throws: ``WindowClientError/upgradeRefused`` if the server refuses the WebSocket.
    public static func connect(
        host: String = "127.0.0.1", port: Int, app: String, hostHeader: String? = nil, origin: Origin = .sameSite,
        maximumMessageSize: Int = 16 << 20
    ) async throws -> WindowClient {
        let hostHeader = hostHeader ?? "\(host):\(port)"
        var headers = [("Host", hostHeader)]
        switch origin {
        case .sameSite: headers.append(("Origin", "http://\(hostHeader)"))
        case .none: break
        case let .custom(value): headers.append(("Origin", value))
        }
        let socket = try await WindowSocket.open(host: host, port: port, path: "/ws/\(app)", headers: headers,
                                                 maximumMessageSize: maximumMessageSize)
        let (frames, outgoing) = AsyncStream.makeStream(of: WebSocketFrame.self)
        let client = WindowClient(app: app, host: host, port: port, hostHeader: hostHeader, origin: origin, outgoing: outgoing)
        Task { await client.run(socket, frames: frames) }
        return client
    }

    /// Connects again as the same window after a reload or a dropped connection: same headers,
    /// and a hello with this window's session, sequence numbers and route.
    public func reconnect(token: String? = nil, resuming: Bool = true) async throws -> WindowClient {
        let client = try await WindowClient.connect(host: host, port: port, app: app, hostHeader: hostHeader, origin: origin)
        client.hello(session: session, seq: seq, route: resuming ? route : nil, token: token, device: device)
        return client
    }

    // MARK: - Waiting

    /// Waits for the next message, after those already waited for, that matches `predicate`, and
    /// returns it; messages before it are passed over.
    ///
    /// - Throws: ``WindowClientError/timedOut(waitingFor:)``, or ``WindowClientError/closed`` if
    ///   the socket closed without one.
    @discardableResult
    public func next(_ what: String = "a message", timeout: Duration = .seconds(10),
                     where predicate: (ServerMessage) -> Bool = { _ in true }) async throws -> ServerMessage {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let index = messages[consumed...].firstIndex(where: predicate) {
                consumed = index + 1
                return messages[index]
            }
            guard !isClosed else { throw WindowClientError.closed }
            guard ContinuousClock.now < deadline else { throw WindowClientError.timedOut(waitingFor: what) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits for the next message of `type`.
    @discardableResult
    public func next(_ type: WindowProtocol.MessageType, timeout: Duration = .seconds(10)) async throws -> ServerMessage {
        try await next("a \(type) message", timeout: timeout) { $0.type == type }
    }

    /// Waits until `condition` holds, such as a row showing in ``view``.
    public func waitUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw WindowClientError.timedOut(waitingFor: what) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    // MARK: - Internal

    private nonisolated func run(_ socket: WindowSocket.Channel, frames: AsyncStream<WebSocketFrame>) async {
        var closeCode: UInt16?
        try? await socket.executeThenClose { inbound, outbound in
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask {
                    for await frame in frames { try await outbound.write(frame) }
                }
                defer { outgoing.finish() }
                for try await frame in inbound {
                    var data = frame.unmaskedData
                    switch frame.opcode {
                    case .text:
                        await receive(String(buffer: data))
                    case .ping:
                        outgoing.yield(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: data))
                    case .connectionClose:
                        closeCode = data.readInteger(as: UInt16.self)
                        await answerClose(code: closeCode)
                        return
                    default:
                        break
                    }
                }
            }
        }
        await didClose(code: closeCode)
    }

    private func receive(_ text: String) {
        let message: ServerMessage
        do {
            message = try JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8))
        } catch {
            problems.append("Undecodable message \(text): \(error)")
            return
        }
        messages.append(message)
        switch message {
        case let .welcome(session, _, _, _):
            self.session = session
        case let .render(root, seq, route):
            view = ViewTree(root)
            self.seq = seq
            self.route = route
        case let .patch(ops, seq):
            do throws(ViewTreeError) {
                guard view != nil else { throw .unknownNode(SceneWindow.NodeID.window) }
                try view?.apply(ops)
            } catch {
                problems.append("Patch did not apply: \(error)")
            }
            self.seq = seq
        case let .resumed(seq):
            self.seq = seq
        case .ack, .error, .open, .shutdown, .pong:
            break
        }
    }

    private func answerClose(code: UInt16?) {
        guard !sentClose else { return }
        sentClose = true
        var data = ByteBuffer()
        data.writeInteger(code ?? 1000)
        write(.connectionClose, data)
    }

    private func didClose(code: UInt16?) {
        isClosed = true
        closeCode = code
        outgoing.finish()
    }
}
