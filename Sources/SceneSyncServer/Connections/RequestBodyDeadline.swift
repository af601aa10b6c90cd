import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request body does not arrive whole within its deadline, counted
/// from the request's head: a client that sends a byte a second would otherwise hold the
/// connection, and the handler waiting for the body, for as long as it likes.
final class RequestBodyDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: Duration
    private let reporter: RefusalReporter
    private var scheduled: Scheduled<Void>?

    init(timeout: Duration, reporter: RefusalReporter) {
        self.timeout = timeout
        self.reporter = reporter
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            scheduled?.cancel()
            scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: .init(timeout)) { [self] in
                scheduled = nil
                reporter.refused("slowBodies")
                context.close(promise: nil)
            }
        case .end:
            scheduled?.cancel()
            scheduled = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
        context.fireChannelInactive()
    }
}
