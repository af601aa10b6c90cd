import Foundation
import Logging
import NIOCore
import SceneSync
import SceneSyncUI
import Synchronization

/// One browser window's WebSocket, as the outlet of its scene's window.
///
/// Messages for the window are encoded on the main actor and handed to the socket's event loop,
/// batched with other windows' (``FrameWriter``), so the main actor never waits on the network. A patch that every
/// window of a list is sent alike is encoded once (see ``SharedPatchEncoder``). A window that falls
/// so far behind that its queue goes over its bound in messages or bytes (``OutboundBudget``) is
/// dropped at once, its queue unwritten; it reconnects and is drawn afresh. A socket that has not
/// said `hello` within the hello timeout is closed.
@MainActor
final class WindowConnection: WindowOutlet {
    /// What every connection of an app needs to know.
    struct Settings: Sendable {
        let policy: AccessPolicy
        let rateLimit: SceneSyncServer.RateLimit
        let maximumProtocolViolations: Int
        let shutdownRetryAfter: Int
        let closingGracePeriod: Duration
        let clock: any Clock<Duration>
        /// How long a new socket has to say `hello`, on the continuous clock.
        let helloTimeout: Duration
        let outboundBudget: OutboundBudget
        let refusals: RefusalReporter
        /// The app's windows' metrics: connected, reconnected, fan-out.
        let metrics: AppMetrics
    }

    /// The window's end of its WebSocket: how to write to it, the bytes waiting to be written, and
    /// a way to drop it.
    struct Socket: Sendable {
        /// Writes one message's bytes to the window (shared with every other window sent the same
        /// message), after what was written before; releases them from `queue` once written.
        let write: @Sendable (ByteBuffer) -> Void
        /// Sends the close frame, after every message written before it, with the reason the
        /// server closed the connection for (none if the window closed it); the connection calls
        /// it once, in a task of its own, when nothing more will be written.
        let sendClose: @Sendable (CloseReason?) async -> Void
        /// The messages and bytes written but not yet on the wire, counted against the server's
        /// budget.
        let queue: OutboundBudget.Queue
        /// Closes the TCP connection at once, whatever is unwritten.
        let drop: @Sendable () -> Void
        /// Set by the socket's handler as soon as the window sends a message, before the main
        /// actor handles it: a busy server does not take a window whose `hello` waits in line for
        /// a silent one.
        let heard = Heard()
    }

    /// Whether a socket has sent anything yet.
    final class Heard: Sendable {
        private let flag = Atomic<Bool>(false)

        var value: Bool { flag.load(ordering: .relaxed) }

        func set() { flag.store(true, ordering: .relaxed) }
    }

    /// How long a window has to answer the server's close frame before its connection is dropped.
    static let closeHandshakeGrace = Duration.seconds(1)

    /// Why the server closes a connection.
    enum CloseReason: Equatable, Sendable {
        /// `hello` did not carry the access token.
        case unauthorized
        /// The server is going down.
        case shutdown
        /// The window does not read what it is sent.
        case overflow
        /// The scene could not be connected.
        case failed
        /// The window sent more messages than the protocol allows refused.
        case protocolViolations
        /// The window sent a binary message; the protocol is text.
        case binaryMessage
        /// The window's client has as many connected windows as it may.
        case tooManySessions
        /// The socket did not say `hello` within the hello timeout.
        case noHello
    }

    enum Phase {
        /// Connected; nothing but `hello` is accepted yet.
        case awaitingHello
        /// `hello` is being handled.
        case connecting
        /// The window has a scene.
        case open
        /// The socket is closed or closing; nothing more is sent.
        case closed
    }

    let runtime: AppRuntime
    private let socket: Socket
    /// Closes a socket that has not said `hello` in time.
    private var helloDeadline: Task<Void, Never>?
    var phase = Phase.awaitingHello
    /// The connected scene, from `hello` until the socket closes.
    var scene: Scene?
    /// The session of the window's scene, kept after the scene disconnects.
    var session: SceneSession.ID?
    /// The session the window sent the actions it sends again under: the one it asked for in
    /// `hello`, even when it got another (that session's window was still connected here).
    var actionSession: SceneSession.ID?
    /// Whether the window said it was closing for good (`pagehide`, not a reload).
    var saidClosing = false
    /// How many of the window's messages the protocol refused.
    var violations = 0
    /// Whether the log has said this window sends more than its rate limit.
    var warnedOfFlood = false
    var logger: Logger
    /// Why the server closed the connection, for the writer's close frame; `nil` if the window did.
    private(set) var closeReason: CloseReason?
    /// Whether everything put on the stream has been written, or the writer gave up.
    private(set) var isFlushed = false
    /// Whether ``didClose()`` ran: the socket's end is handled once.
    private var didDetach = false
    /// Sending the close frame, from when nothing more will be written. A task only then: a
    /// connection that waited all its life to send it would keep a task, and its memory, per window.
    private var closing: Task<Void, Never>?

    /// Who the window connects from: its network address, without the port.
    let client: String

    init(runtime: AppRuntime, client: String, socket: Socket) {
        self.runtime = runtime
        self.client = client
        self.socket = socket
        logger = runtime.logger
        let timeout = runtime.settings.helloTimeout
        helloDeadline = Task { [weak self] in
            guard (try? await ContinuousClock().sleep(for: timeout)) != nil else { return }
            self?.helloDeadlinePassed()
        }
    }

    /// Whether the server is done reading from this window.
    var isClosed: Bool { phase == .closed }

    // MARK: - WindowOutlet

    func send(_ update: WindowUpdate) {
        send(ServerMessage(update))
        // Metrics: the first window queued a patch with a new commit ends its fan-out time.
        if case let .patch(_, seq) = update { runtime.settings.metrics.fanout.queued(seq) }
    }

    func send(_ message: ServerMessage) {
        guard phase != .closed, !isFlushed else { return }
        let bytes = runtime.encoder.encode(message)
        guard socket.queue.reserve(bytes.readableBytes) else { return overflow() }
        socket.write(bytes)
    }

    /// The window does not read what it is sent: it is dropped at once, and what waits for it
    /// with it; it reconnects and is drawn afresh.
    private func overflow() {
        runtime.settings.refusals.refused("windowsTooFarBehind", metadata: ["app": "\(runtime.app.name)"])
        logger.debug("Window is not reading; dropping it so that it reconnects and redraws", metadata: [
            "queuedBytes": "\(socket.queue.queuedBytes)",
        ])
        close(.overflow)
        socket.drop()
    }

    /// The window said hello: the deadline for it, and the task that waits for it, go.
    func helloHeard() {
        helloDeadline?.cancel()
        helloDeadline = nil
    }

    private func helloDeadlinePassed() {
        guard phase == .awaitingHello, !socket.heard.value else { return }
        runtime.settings.refusals.refused("windowsWithoutHello", metadata: ["app": "\(runtime.app.name)"])
        close(.noHello)
    }

    /// A resume point is written as the `render` message it amounts to, by the app's encoder, so
    /// that windows closing together on one screen in one state share one encoding (see
    /// ``SharedPatchEncoder``); one too large to keep is not copied out of it.
    var resumePointWriter: (@MainActor (ViewNode, [String: UInt64], String) -> Data?)? {
        { [weak runtime] root, seq, route in
            let message = ServerMessage.render(root: root, seq: seq, route: route)
            guard let runtime else { return WindowProtocol.encode(message) }
            let bytes = runtime.encoder.encode(message)
            return bytes.readableBytes <= SceneWindow.resumePointLimit ? Data(bytes.readableBytesView) : nil
        }
    }

    func openWindow(with activity: SceneActivity) {
        // In this process's memory, `open` goes at once, before the action's `ack`.
        if let url = runtime.openURLInMemory(for: activity) { return send(.open(url: url)) }
        Task {
            guard let url = await runtime.openURL(for: activity) else {
                return send(.error(ref: nil, code: ErrorCode.openFailed, message: "The new window could not be opened. Try again."))
            }
            send(.open(url: url))
        }
    }

    // MARK: - Lifecycle

    /// Stops taking messages and lets the writer send what is queued, then a close frame; drops the
    /// connection if the window has not answered within ``closeHandshakeGrace`` (it may not be
    /// reading at all).
    func close(_ reason: CloseReason) {
        guard phase != .closed else { return }
        phase = .closed
        closeReason = reason
        helloDeadline?.cancel()
        finishWriting()
        let drop = socket.drop
        Task {
            try? await ContinuousClock().sleep(for: Self.closeHandshakeGrace)
            drop()
        }
    }

    /// The server is going down: the window is told when to reconnect, then closed.
    func shutdown(retryAfter: Int) {
        send(.shutdown(retryAfter: retryAfter))
        close(.shutdown)
    }

    /// The socket closed: the window detaches and its scene disconnects, keeping its session,
    /// unless the window said it was closing, in which case the session is discarded after a
    /// grace period that a reload does not outlast.
    func didClose() async {
        guard !didDetach else { return }
        didDetach = true
        phase = .closed
        helloDeadline?.cancel()
        finishWriting()
        let scene = self.scene
        self.scene = nil
        if let scene {
            scene.window?.detach()
            await runtime.application.disconnect(scene)
        }
        runtime.connectionDidClose(self)
    }

    /// Nothing more will be written: the close frame goes after what was.
    private func finishWriting() {
        guard closing == nil else { return }
        let (reason, sendClose) = (closeReason, socket.sendClose)
        closing = Task {
            await sendClose(reason)
            self.writerDidFinish()
        }
    }

    /// The writer has sent everything, or the socket is gone.
    func writerDidFinish() {
        isFlushed = true
        socket.queue.releaseAll()
        runtime.connectionDidFlush(self)
    }
}
