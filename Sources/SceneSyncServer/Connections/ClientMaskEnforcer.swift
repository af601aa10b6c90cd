import Logging
import NIOCore

/// Closes a WebSocket whose client sends an unmasked frame, as RFC 6455 (section 5.1) requires of
/// a server: close code 1002, then the connection.
///
/// The WebSocket layer unmasks frames without saying whether they were masked, so this handler
/// sits first in the connection's pipeline and reads the frame headers from the bytes themselves,
/// from the moment the server's `101 Switching Protocols` goes out. It reads only headers and
/// skips payloads, so it costs a few comparisons per frame.
final class ClientMaskEnforcer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private static let switching = Array("HTTP/1.1 101".utf8)
    /// A close frame from the server: 1002, protocol error.
    private static let protocolErrorClose: [UInt8] = [0x88, 0x02, 0x03, 0xEA]

    private let logger: Logger
    private var isWebSocket = false
    private var isRefused = false
    /// The bytes of the frame header being read.
    private var header: [UInt8] = []
    /// The bytes of the current frame's payload still to come.
    private var payloadLeft = 0

    init(logger: Logger) {
        self.logger = logger
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !isWebSocket, case let .byteBuffer(buffer) = unwrapOutboundIn(data), buffer.readableBytesView.starts(with: Self.switching) {
            isWebSocket = true
        }
        context.write(data, promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isRefused else { return }
        guard isWebSocket else { return context.fireChannelRead(data) }
        guard framesAreMasked(unwrapInboundIn(data).readableBytesView) else {
            isRefused = true
            logger.warning("Closed a WebSocket that sent an unmasked frame", metadata: [
                "remote": "\(context.channel.remoteAddress.map { "\($0)" } ?? "unknown")",
            ])
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(bytes: Self.protocolErrorClose)))).whenComplete { _ in
                channel.close(promise: nil)
            }
            return
        }
        context.fireChannelRead(data)
    }

    /// Reads the frame headers in `bytes`, carrying a header or payload over from the last read;
    /// `false` at the first frame without its mask bit.
    private func framesAreMasked(_ bytes: ByteBufferView) -> Bool {
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
            guard header[1] & 0x80 != 0 else { return false }
            let short = Int(header[1] & 0x7F)
            let lengthBytes = short == 126 ? 2 : short == 127 ? 8 : 0
            guard header.count == 2 + lengthBytes + 4 else { continue }
            let length = lengthBytes == 0 ? short : header[2..<2 + lengthBytes].reduce(0) { $0 &<< 8 | Int($1) }
            // A length past Int's range is the frame decoder's to refuse; skip whatever comes.
            payloadLeft = length < 0 ? .max : length
            header.removeAll(keepingCapacity: true)
        }
        return true
    }
}
