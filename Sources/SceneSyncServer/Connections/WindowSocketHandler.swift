import Logging
import NIOCore
import NIOWebSocket

/// One window's WebSocket, served on its channel's event loop with no task of its own.
///
/// It sits after NIO's frame decoder and encoder (and its protocol-error handler, which answers a
/// frame over the size limit with 1009 and a malformed one with 1002). On the event loop it puts
/// fragmented messages together, checks that text is UTF-8, answers pings, keeps the window's rate
/// limit and decodes each message; the main actor is handed decoded messages only, in the order
/// they came, one batch at a time (``WindowConnection/receive(_:)``). While a batch is being
/// handled the next messages wait here, and once ``maximumWaiting`` of them wait the socket is not
/// read until the main actor catches up, so a window that floods is held back by TCP.
///
/// What the WebSocket protocol itself refuses closes the socket with the code RFC 6455 gives it:
/// a binary message 1003 (the protocol is text), text that is not UTF-8 1007, fragments adding up
/// to more than the limit 1009, a frame out of sequence or with an unknown opcode 1002. The
/// window's close frame is answered with one of the server's, and the connection closes.
///
/// Messages to the window are written by ``FrameWriter`` on this event loop, and pass through here
/// on their way out: once a close frame has gone, nothing more is written (RFC 6455, section
/// 5.5.1), and a message still on its way fails as on a closed output. The close frame that ends a
/// connection the server closes is written here, when ``WindowConnection/Socket/sendClose`` asks.
///
/// A window whose input ends without a close frame (a TCP half-close: its machine going away, or a
/// hostile client) is closed at once, and its scene disconnects.
final class WindowSocketHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// What the server decided when it accepted the upgrade: the window's app and client, and
    /// what its socket writes through.
    struct Opening: Sendable {
        let runtime: AppRuntime
        /// Who the window connects from: its network address, without the port.
        let client: String
        /// The window's rate limit for messages.
        let rateLimit: SceneSyncServer.RateLimit
        /// The messages and bytes written to the window but not yet on the wire.
        let queue: OutboundBudget.Queue
        let writer: FrameWriter
        let logger: Logger
    }

    /// What the main actor is handed, in order.
    private enum Delivery: Sendable {
        /// A text message, decoded (or refused) here.
        case message(WindowConnection.Inbound)
        /// A binary message: the window is closed with 1003.
        case binary
        /// The socket is done: the window's scene disconnects.
        case ended
    }

    /// How many handled-later messages may wait before the socket is no longer read.
    static let maximumWaiting = 16
    /// How long the window has to answer the server's close frame with its own before the
    /// connection closes anyway.
    static let closeTimeout = TimeAmount.seconds(3)

    private let opening: Opening
    private let maximumMessageSize: Int
    private var bucket: TokenBucket
    private var context: ChannelHandlerContext?
    /// The channel's event loop, kept after the channel closes: its end is still handed on.
    private var loop: (any EventLoop)?
    /// The window's connection, once the main actor has opened it.
    private var connection: WindowConnection?
    /// Set at every message, so that the hello timeout spares a window whose hello waits here.
    private var heard: WindowConnection.Heard?
    /// Deliveries not yet handed to the main actor.
    private var waiting = CircularBuffer<Delivery>(initialCapacity: 2)
    /// Whether the main actor is handling a batch.
    private var isDelivering = false
    /// Whether the window's messages are still taken; false once it was refused or the socket ended.
    private var isTakingMessages = true
    /// Whether ``Delivery/ended`` was queued; it goes once.
    private var isEnded = false
    /// Whether a read was asked for while too many messages waited.
    private var isReadHeld = false
    /// The text message being put together from its fragments.
    private var fragments: ByteBuffer?
    private var sentClose = false
    private var receivedClose = false
    /// Closes the connection if the window does not answer the server's close frame.
    private var closeTimer: Scheduled<Void>?

    init(opening: Opening, maximumMessageSize: Int) {
        self.opening = opening
        self.maximumMessageSize = maximumMessageSize
        bucket = TokenBucket(opening.rateLimit)
    }

    // MARK: - Opening and ending

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let loop = context.eventLoop
        self.loop = loop
        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: loop)
        let (queue, writer) = (opening.queue, opening.writer)
        let socket = WindowConnection.Socket(
            write: { bytes in writer.writeText(bytes, to: channel, through: handler, releasingFrom: queue) },
            sendClose: { reason in
                // Messages go through FrameWriter's list for this event loop, queued on the loop before
                // this: the close frame goes after them.
                guard let reason else { return }
                let written = loop.makePromise(of: Void.self)
                loop.execute { handler.value.serverCloses(code: reason.code, reason: reason.text, written: written) }
                try? await written.futureResult.get()
            },
            queue: queue,
            drop: { channel.close(promise: nil) })
        heard = socket.heard
        let (runtime, client) = (opening.runtime, opening.client)
        Task { @MainActor in
            let connection = runtime.openConnection(client: client, socket: socket)
            loop.execute { handler.value.opened(connection) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        self.context = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            // Nothing more will be read, the window's close frame included: the connection ends.
            fragments = nil
            end()
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        fragments = nil
        end()
        context.fireChannelInactive()
    }

    /// The main actor opened the window's connection, or refused it (the server is going down).
    private func opened(_ connection: WindowConnection?) {
        guard let connection else {
            isTakingMessages = false
            waiting.removeAll()
            sendClose(code: .goingAway, reason: "Shutting down", written: nil)
            // The window's answer must be read, or closing with it unread would reset the connection.
            readAgainIfHeld()
            return
        }
        self.connection = connection
        deliverIfIdle()
    }

    /// The window's messages are no longer taken; its scene disconnects once what came before is
    /// handled.
    private func end() {
        isTakingMessages = false
        guard !isEnded else { return }
        isEnded = true
        enqueue(.ended)
    }

    // MARK: - Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // No extension is negotiated, so no frame may set a reserved bit.
        guard frame.reservedBits.isEmpty else {
            guard !receivedClose else { return }
            return refuse(.protocolError, because: "reserved bits without an extension")
        }
        switch frame.opcode {
        case .connectionClose:
            receivedCloseFrame(frame.unmaskedData)
        case .ping:
            guard frame.fin else { return refuse(.protocolError, because: "a fragmented ping") }
            guard !sentClose else { return }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            break
        case .text, .binary, .continuation:
            guard isTakingMessages else { return }
            read(frame)
        default:
            refuse(.protocolError, because: "an unknown opcode")
        }
    }

    /// Reads a data frame: a whole message, or one of its fragments.
    private func read(_ frame: WebSocketFrame) {
        switch frame.opcode {
        case .text:
            guard fragments == nil else { return refuse(.protocolError, because: "a new message before the last one's end") }
            if frame.fin {
                receive(frame.unmaskedData)
            } else {
                fragments = frame.unmaskedData
            }
        case .binary:
            guard fragments == nil else { return refuse(.protocolError, because: "a new message before the last one's end") }
            heard?.set()
            isTakingMessages = false
            enqueue(.binary)
        default:
            guard var message = fragments else { return refuse(.protocolError, because: "a continuation of no message") }
            guard message.readableBytes + frame.length <= maximumMessageSize else {
                return refuse(.messageTooLarge, because: "fragments adding up to more than the limit")
            }
            fragments = nil
            var data = frame.unmaskedData
            message.writeBuffer(&data)
            if frame.fin {
                receive(message)
            } else {
                fragments = message
            }
        }
    }

    /// A whole text message: checked and decoded here, handled on the main actor.
    private func receive(_ message: ByteBuffer) {
        heard?.set()
        let text = message.withUnsafeReadableBytes { String(validating: $0, as: UTF8.self) }
        guard let text else { return refuse(.dataInconsistentWithMessage, because: "text that is not UTF-8") }
        enqueue(.message(bucket.take() ? WindowConnection.read(text) : .overRateLimit))
    }

    /// The window sent its close frame: it is answered (unless the server's went first) and the
    /// connection closes.
    private func receivedCloseFrame(_ payload: ByteBuffer) {
        guard !receivedClose else { return }
        receivedClose = true
        fragments = nil
        end()
        if sentClose {
            context?.close(promise: nil)
        } else {
            sendClose(code: Self.answer(toClose: payload), reason: nil, written: nil)
        }
    }

    /// The code of the close frame that answers a window's: a normal closure, unless the window's
    /// frame was malformed (a one-byte payload, a code no endpoint may send, a reason that is not
    /// UTF-8).
    static func answer(toClose payload: ByteBuffer) -> WebSocketErrorCode {
        var payload = payload
        guard payload.readableBytes > 0 else { return .normalClosure }
        guard let code = payload.readWebSocketErrorCode() else { return .protocolError }
        if case let .unknown(number) = code, !(3000...4999).contains(number) { return .protocolError }
        let reasonIsText = payload.withUnsafeReadableBytes { String(validating: $0, as: UTF8.self) } != nil
        return reasonIsText ? .normalClosure : .protocolError
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOWebSocketError {
            // NIO's protocol-error handler has sent the close frame and closes the connection.
            sentClose = true
            logWarning(because: "\(error)")
            end()
        } else {
            opening.logger.debug("A window's socket failed", metadata: ["error": "\(error)"])
            context.close(promise: nil)
        }
    }

    /// Closes the socket with `code` for what the WebSocket protocol refuses.
    private func refuse(_ code: WebSocketErrorCode, because reason: String) {
        logWarning(because: reason)
        fragments = nil
        end()
        sendClose(code: code, reason: nil, written: nil)
    }

    private func logWarning(because reason: String) {
        opening.logger.warning("Closed a window's socket for a message the WebSocket refuses", metadata: [
            "reason": "\(reason)", "remote": "\(context?.channel.remoteAddress.map { "\($0)" } ?? "unknown")",
        ])
    }

    // MARK: - Writing

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !sentClose else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        context.write(data, promise: promise)
    }

    /// Writes a frame of a message to the window (``FrameWriter``): from here down the pipeline,
    /// as ``write(context:data:promise:)`` would pass it on, without the way from the pipeline's tail.
    func writeMessage(_ frame: WebSocketFrame, promise: EventLoopPromise<Void>?, flush: Bool) {
        guard let context, !sentClose else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        if flush {
            context.writeAndFlush(wrapOutboundOut(frame), promise: promise)
        } else {
            context.write(wrapOutboundOut(frame), promise: promise)
        }
    }

    /// Flushes what ``writeMessage(_:promise:flush:)`` wrote.
    func flushMessages() {
        context?.flush()
    }

    /// The server closes the connection (``WindowConnection/close(_:)``): its close frame goes
    /// after every message written before, unless a close frame was sent already.
    private func serverCloses(code: WebSocketErrorCode, reason: String, written: EventLoopPromise<Void>) {
        guard !sentClose, context?.channel.isActive == true else { return written.succeed() }
        sendClose(code: code, reason: reason, written: written)
    }

    /// Sends a close frame. If the window's came first the connection closes once it is written;
    /// otherwise the window has ``closeTimeout`` to answer.
    private func sendClose(code: WebSocketErrorCode, reason: String?, written: EventLoopPromise<Void>?) {
        guard let context, !sentClose else {
            written?.succeed()
            return
        }
        sentClose = true
        var payload = context.channel.allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        payload.write(webSocketErrorCode: code)
        if let reason { payload.writeString(reason) }
        let promise = written ?? context.eventLoop.makePromise()
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)), promise: promise)
        let channel = context.channel
        if receivedClose {
            promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
        } else {
            closeTimer = context.eventLoop.scheduleTask(in: Self.closeTimeout) { channel.close(promise: nil) }
        }
    }

    // MARK: - Handing messages to the main actor

    func read(context: ChannelHandlerContext) {
        if waiting.count >= Self.maximumWaiting {
            isReadHeld = true
        } else {
            context.read()
        }
    }

    private func enqueue(_ delivery: Delivery) {
        waiting.append(delivery)
        deliverIfIdle()
    }

    /// Hands everything waiting to the main actor, unless it is handling the last batch or the
    /// connection is not open yet.
    private func deliverIfIdle() {
        guard !isDelivering, let connection, let loop, !waiting.isEmpty else { return }
        isDelivering = true
        let batch = Array(waiting)
        waiting.removeAll(keepingCapacity: true)
        let handler = NIOLoopBound(self, eventLoop: loop)
        Task { @MainActor in
            var keepReading = true
            for delivery in batch {
                switch delivery {
                case let .message(inbound):
                    keepReading = await connection.receive(inbound)
                case .binary:
                    connection.refuseBinaryMessage()
                    keepReading = false
                case .ended:
                    keepReading = false
                }
                if !keepReading {
                    await connection.didClose()
                    break
                }
            }
            loop.execute { [keepReading] in handler.value.delivered(keepReading: keepReading) }
        }
    }

    /// The main actor handled a batch. If the window is done, nothing more is handed on (and the
    /// handler lets go of the connection); otherwise the next batch goes, and the socket is read
    /// again if it was held.
    private func delivered(keepReading: Bool) {
        isDelivering = false
        if keepReading {
            deliverIfIdle()
        } else {
            isTakingMessages = false
            isEnded = true
            waiting.removeAll()
            connection = nil
        }
        readAgainIfHeld()
    }

    /// Reads the socket again if a read was held while too many messages waited.
    private func readAgainIfHeld() {
        guard isReadHeld, waiting.count < Self.maximumWaiting, let context else { return }
        isReadHeld = false
        context.read()
    }
}
