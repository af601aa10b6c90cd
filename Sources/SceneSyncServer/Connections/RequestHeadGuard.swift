import Logging
import NIOCore

/// Guards a connection until its first request head has arrived: turns the connection away if
/// the server is full, and answers a head that is too slow, too large or has too many fields with
/// a plain HTTP refusal before closing. Once the head is complete it leaves the pipeline.
///
/// It reads bytes ahead of the HTTP decoder, because before the first head the pipeline is still
/// deciding between HTTP and a WebSocket upgrade and has nobody to answer a decoding error or a
/// silent client. Later heads on the same connection are bounded by the decoder's limits and the
/// idle timeout.
final class RequestHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let limits: SceneSyncServer.ConnectionLimits
    private let refusal: ConnectionAdmission.Refusal?
    private let reporter: RefusalReporter
    private let logger: Logger
    private var timeout: Scheduled<Void>?
    private var isDone = false
    /// Bytes of the head read so far.
    private var headBytes = 0
    /// Bytes of the request line, until it ends.
    private var requestLineBytes = 0
    private var hasRequestLine = false
    /// Header lines seen so far.
    private var fieldCount = 0
    /// Bytes of the line being read (an empty one ends the head).
    private var lineBytes = 0
    private var headComplete = false
    /// The head's bytes, kept until it is complete to be checked whole (see ``RequestHeadCheck``).
    private var head: [UInt8] = []
    /// Whether the request is a `HEAD`, whose answer has no body even when it is a refusal.
    private var isHeadRequest = false
    private let check: RequestHeadCheck

    init(
        limits: SceneSyncServer.ConnectionLimits, refusal: ConnectionAdmission.Refusal?, check: RequestHeadCheck,
        reporter: RefusalReporter, logger: Logger
    ) {
        self.limits = limits
        self.check = check
        self.refusal = refusal
        self.reporter = reporter
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        start(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
        context.fireChannelInactive()
    }

    private func start(context: ChannelHandlerContext) {
        guard !isDone, timeout == nil else { return }
        if let refusal {
            reporter.refused(refusal == .serverFull ? "overServerLimit" : "overAddressLimit", metadata: [
                "limit": "\(refusal.rawValue)",
            ])
            return refuse(.serviceUnavailable, context: context)
        }
        let loop = context.eventLoop.assumeIsolated()
        timeout = loop.scheduleTask(in: .init(limits.requestHeadTimeout)) { [self] in
            timeout = nil
            guard !isDone else { return }
            if headBytes == 0 {
                // Nothing was asked: there is nobody to answer.
                isDone = true
                Self.hangUp(context: context)
            } else {
                reporter.refused("slowHeads")
                refuse(.requestTimeout, context: context)
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isDone else {
            // Refused: nothing more is read. Passed: the guard is leaving the pipeline.
            if headComplete { context.fireChannelRead(data) }
            return
        }
        let buffer = unwrapInboundIn(data)
        if let status = scan(buffer.readableBytesView) {
            reporter.refused(status == .uriTooLong ? "longRequestLines" : "largeHeads")
            return refuse(status, context: context)
        }
        if headComplete, let status = check.refusal(for: head) {
            head = []
            reporter.refused(status == .misdirected ? "misdirectedRequests" : "badUpgrades")
            return refuse(status, context: context)
        }
        context.fireChannelRead(data)
        if headComplete {
            head = []
            isDone = true
            timeout?.cancel()
            timeout = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    /// Reads the head's bytes; the refusal due once a limit is passed.
    private func scan(_ bytes: ByteBufferView) -> Status? {
        for byte in bytes {
            headBytes += 1
            head.append(byte)
            if headBytes == 5 { isHeadRequest = head == Array("HEAD ".utf8) }
            if byte == UInt8(ascii: "\n") {
                if !hasRequestLine {
                    hasRequestLine = true
                } else if lineBytes == 0 {
                    headComplete = true
                    return nil
                } else {
                    fieldCount += 1
                    if fieldCount > limits.maximumHeaderCount { return .headerFieldsTooLarge }
                }
                lineBytes = 0
            } else if byte != UInt8(ascii: "\r") {
                lineBytes += 1
                if !hasRequestLine {
                    requestLineBytes += 1
                    if requestLineBytes > limits.maximumRequestLineBytes { return .uriTooLong }
                }
            }
            if headBytes > limits.maximumHeadBytes { return .headerFieldsTooLarge }
        }
        return nil
    }

    /// Answers with `status` in plain bytes (the HTTP encoder is behind this handler) and closes.
    private func refuse(_ status: Status, context: ChannelHandlerContext) {
        isDone = true
        timeout?.cancel()
        timeout = nil
        logger.debug("Refused a connection", metadata: ["status": "\(status.line)"])
        let body = "\(status.reason)\n"
        var head = "HTTP/1.1 \(status.line)\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n"
        for (name, value) in SecurityHeaders.fields { head += "\(name): \(value)\r\n" }
        if status == .serviceUnavailable { head += "Retry-After: 1\r\n" }
        if status == .upgradeRequired { head += "Sec-WebSocket-Version: 13\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n\r\n"
        // An answer to HEAD says how long GET's body would be, and sends none (RFC 9110 §9.3.2).
        if !isHeadRequest { head += body }
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(string: head)))).assumeIsolated().whenComplete { [self] _ in
            guard status != .serviceUnavailable else { return Self.hangUp(context: context) }
            // The client may still be sending the rest of its request. Closing now, with its bytes
            // unread, would reset the connection and could lose the answer on the way: end the
            // output instead, read and drop what comes for a moment, then close.
            context.close(mode: .output, promise: nil)
            timeout = context.eventLoop.assumeIsolated().scheduleTask(in: Self.linger) {
                Self.hangUp(context: context)
            }
        }
    }

    /// How long a refused connection's late input is read and dropped before it is closed.
    static let linger: TimeAmount = .seconds(2)

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client finished sending after a refusal: nothing more to wait for.
        if isDone, !headComplete, let event = event as? ChannelEvent, event == .inputClosed, timeout != nil {
            timeout?.cancel()
            timeout = nil
            return Self.hangUp(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Closes the connection the way a client hanging up would: the upgrade handler behind this
    /// one sees its input end, gives up the request it was waiting for and closes.
    private static func hangUp(context: ChannelHandlerContext) {
        // The decoder behind may hold part of the head; when the input ends it reports it as a
        // parse error, which must not be answered a second time.
        context.fireUserInboundEventTriggered(RequestAnswered())
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        context.close(promise: nil)
    }

    /// The refusals this guard sends.
    enum Status: Equatable {
        case serviceUnavailable, requestTimeout, uriTooLong, headerFieldsTooLarge
        /// An absolute-form target naming another server.
        case misdirected
        /// A WebSocket upgrade without a valid `Sec-WebSocket-Key`.
        case missingWebSocketKey
        /// A WebSocket upgrade of a version other than 13.
        case upgradeRequired

        var line: String {
            switch self {
            case .misdirected: "421 Misdirected Request"
            case .missingWebSocketKey: "400 Bad Request"
            case .upgradeRequired: "426 Upgrade Required"
            case .serviceUnavailable: "503 Service Unavailable"
            case .requestTimeout: "408 Request Timeout"
            case .uriTooLong: "414 URI Too Long"
            case .headerFieldsTooLarge: "431 Request Header Fields Too Large"
            }
        }

        var reason: String {
            switch self {
            case .serviceUnavailable: "The server has too many connections open; try again shortly."
            case .requestTimeout: "The request's head did not arrive in time."
            case .uriTooLong: "The request line is too long."
            case .headerFieldsTooLarge: "The request's header fields are too large or too many."
            case .misdirected: "The request's target names another server."
            case .missingWebSocketKey: "A WebSocket upgrade needs one Sec-WebSocket-Key of 16 bytes in base64."
            case .upgradeRequired: "This server speaks WebSocket version 13 only."
            }
        }
    }
}

/// Told down the pipeline when the connection's request was answered and it is closing: nothing
/// behind may answer again.
struct RequestAnswered {}
