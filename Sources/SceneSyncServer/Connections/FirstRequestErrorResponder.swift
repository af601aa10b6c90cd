import NIOCore
import NIOHTTP1

/// Answers `400 Bad Request` when a connection's first request cannot be parsed, and closes.
///
/// While the pipeline decides between HTTP and a WebSocket upgrade, nothing else answers a
/// decoding error: the connection would stay open with the client waiting. It sits at the end of
/// the pipeline and leaves at the first request that parses; later requests' errors are answered
/// by the HTTP handlers.
final class FirstRequestErrorResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    private var hasAnswered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is RequestAnswered { hasAnswered = true }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        // A request already answered ends in a parse error of its unread rest: nothing to say.
        guard !hasAnswered else { return }
        hasAnswered = true
        let body = "The request could not be read as HTTP/1.1.\n"
        var headers = HTTPHeaders()
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        for (name, value) in SecurityHeaders.fields { headers.add(name: name, value: value) }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        let pipeline = context.pipeline
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            // The upgrade handler gives up the request it waits for, as when a client hangs up.
            pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            pipeline.close(promise: nil)
        }
    }
}
