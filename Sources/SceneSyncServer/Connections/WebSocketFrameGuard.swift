import Logging
import NIOCore

/// Reads a WebSocket's frame headers from the bytes themselves and closes the connection for what
/// the WebSocket layer lets through:
///
/// - a frame the client did not mask, which RFC 6455 (section 5.1) requires of a server to refuse:
///   close code 1002, then the connection;
/// - control frames (ping, pong) beyond the connection's budget, a token bucket of the server's
///   message rate limit: the WebSocket layer answers every ping by itself, so a flood of them
///   would take the server's time from everyone else. Close code 1008, then the connection.
///
/// It also keeps the connection's pings: every `pingInterval` it writes a ping frame, and a
/// connection from which nothing at all was read since the last one (not its pong, not a message)
/// is taken for gone, a half-open connection whose machine or network went away without closing
/// it: close code 1001, then the connection. The pings are timers on the connection's event loop,
/// not a task per connection, and any frame the client sends counts as an answer. A close frame,
/// the client's or the server's, ends them.
///
/// It sits first in the connection's pipeline, from the moment the server's `101 Switching
/// Protocols` goes out. It reads only headers and skips payloads, so it costs a few comparisons per
/// frame.
final class WebSocketFrameGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// What the frames read so far amount to.
    enum Verdict: Equatable {
        case accepted
        case unmasked
        case controlFlood
    }

    private static let switching = Array("HTTP/1.1 101".utf8)
    /// How long a refused connection's late input is read and dropped before it is closed.
    private static let linger = TimeAmount.seconds(1)
    /// A close frame from the server: 1002, protocol error.
    private static let protocolErrorClose: [UInt8] = [0x88, 0x02, 0x03, 0xEA]
    /// A close frame from the server: 1008, policy violation.
    private static let policyViolationClose: [UInt8] = [0x88, 0x02, 0x03, 0xF0]
    /// A ping frame from the server, without payload.
    private static let ping: [UInt8] = [0x89, 0x00]
    /// A close frame from the server: 1001, going away, "Ping timeout".
    private static let silenceClose: [UInt8] = [0x88, 0x0E, 0x03, 0xE9] + Array("Ping timeout".utf8)

    private let logger: Logger
    private let reporter: RefusalReporter?
    private var controlFrames: TokenBucket
    private var isWebSocket = false
    private var isRefused = false
    /// The bytes of the frame header being read.
    private var header: [UInt8] = []
    /// The bytes of the current frame's payload still to come.
    private var payloadLeft = 0
    /// How often a WebSocket is pinged, or nil for never.
    private let pingInterval: TimeAmount?
    /// Whether anything was read since the last ping.
    private var heard = true
    /// The next ping, while the WebSocket is open.
    private var nextPing: Scheduled<Void>?
    /// Whether the client sent its close frame: it is no longer pinged.
    private var sawClose = false

    init(controlFrameLimit: SceneSyncServer.RateLimit, pingInterval: TimeAmount? = nil, reporter: RefusalReporter? = nil, logger: Logger) {
        self.logger = logger
        self.reporter = reporter
        self.pingInterval = pingInterval
        controlFrames = TokenBucket(controlFrameLimit)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case let .byteBuffer(buffer) = unwrapOutboundIn(data) {
            if !isWebSocket, buffer.readableBytesView.starts(with: Self.switching) {
                isWebSocket = true
                schedulePing(context: context)
            } else if isWebSocket, buffer.readableBytesView.first == 0x88 {
                // The server's close frame (frames are written whole, and no text payload starts
                // with this byte): nothing may follow it, not a ping and not a second close.
                stopPinging()
            }
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopPinging()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopPinging()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isRefused else { return }
        guard isWebSocket else { return context.fireChannelRead(data) }
        heard = true
        defer { if sawClose { stopPinging() } }
        let verdict = read(unwrapInboundIn(data).readableBytesView)
        guard verdict == .accepted else {
            let remote = context.channel.remoteAddress.map { "\($0)" } ?? "unknown"
            let close: [UInt8]
            if verdict == .unmasked {
                logger.warning("Closed a WebSocket that sent an unmasked frame", metadata: ["remote": "\(remote)"])
                close = Self.protocolErrorClose
            } else {
                reporter?.refused("pingFloods")
                logger.debug("Closed a WebSocket that sent more control frames than its budget", metadata: ["remote": "\(remote)"])
                close = Self.policyViolationClose
            }
            return refuse(closingWith: close, context: context)
        }
        context.fireChannelRead(data)
    }

    /// Sends the close frame `frame` and closes the connection: the output is ended once the frame
    /// is written, and what still comes is read and dropped for a moment before the connection
    /// closes (closing with unread input would reset it, and the reset would lose the close frame
    /// on its way). The moment counts from now, not from the write: a peer that is gone may never
    /// take the frame (its socket's buffer full of what it was sent).
    private func refuse(closingWith frame: [UInt8], context: ChannelHandlerContext) {
        isRefused = true
        stopPinging()
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(bytes: frame)))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        channel.eventLoop.scheduleTask(in: Self.linger) { channel.close(promise: nil) }
    }

    private func schedulePing(context: ChannelHandlerContext) {
        guard let pingInterval else { return }
        nextPing = context.eventLoop.assumeIsolated().scheduleTask(in: pingInterval) { [self] in
            ping(context: context)
        }
    }

    private func stopPinging() {
        nextPing?.cancel()
        nextPing = nil
    }

    /// Pings the client, or closes the connection if nothing was read since the last ping.
    private func ping(context: ChannelHandlerContext) {
        nextPing = nil
        guard !isRefused, context.channel.isActive else { return }
        guard heard else {
            let remote = context.channel.remoteAddress.map { "\($0)" } ?? "unknown"
            logger.debug("Closed a WebSocket that did not answer a ping", metadata: ["remote": "\(remote)"])
            return refuse(closingWith: Self.silenceClose, context: context)
        }
        heard = false
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(bytes: Self.ping))), promise: nil)
        schedulePing(context: context)
    }

    /// Reads the frame headers in `bytes`, carrying a header or payload over from the last read,
    /// until the first frame without its mask bit or over the control-frame budget.
    func read(_ bytes: ByteBufferView) -> Verdict {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if payloadLeft > 0 {
                let skipped = min(payloadLeft, bytes.endIndex - index)
                payloadLeft -= skipped
                index += skipped
                continue
            }
            header.append(bytes[index])
            index += 1
            guard header.count >= 2 else { continue }
            guard header[1] & 0x80 != 0 else { return .unmasked }
            let short = Int(header[1] & 0x7F)
            let lengthBytes = short == 126 ? 2 : short == 127 ? 8 : 0
            guard header.count == 2 + lengthBytes + 4 else { continue }
            let length = lengthBytes == 0 ? short : header[2..<2 + lengthBytes].reduce(0) { $0 &<< 8 | Int($1) }
            // A length past Int's range is the frame decoder's to refuse; skip whatever comes.
            payloadLeft = length < 0 ? .max : length
            // Ping and pong (and reserved control opcodes); a close frame ends the connection anyway.
            let opcode = header[0] & 0x0F
            if opcode == 0x8 { sawClose = true }
            header.removeAll(keepingCapacity: true)
            if opcode >= 0x9, !controlFrames.take() { return .controlFlood }
        }
        return .accepted
    }
}
