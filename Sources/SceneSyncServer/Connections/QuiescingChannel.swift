import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// Wraps the server's child channel to guard it (see ``RequestHeadGuard``) and so that a graceful
/// shutdown can finish: connections that have
/// not sent a byte yet are closed at once, and every connection is known, so that any still open
/// after the drain timeout can be dropped.
///
/// Browsers open spare connections ahead of need. Until a request arrives on one, the HTTP
/// upgrade pipeline has no handler that answers the server's quiesce event, so the shutdown would
/// wait for the browser to give the connection up, which can take minutes.
struct QuiescingChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let connections: OpenConnections
    let admission: ConnectionAdmission
    let limits: SceneSyncServer.ConnectionLimits
    let reporter: RefusalReporter
    /// Checks each connection's first request head whole.
    let check: RequestHeadCheck
    /// How many ping and pong frames a WebSocket may send at once, and per second after that.
    let controlFrameLimit: SceneSyncServer.RateLimit

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        connections.insert(channel)
        let refusal = admission.admit(channel)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
                RequestHeadGuard(limits: limits, refusal: refusal, check: check, reporter: reporter, logger: logger), position: .first)
            try channel.pipeline.syncOperations.addHandler(
                WebSocketFrameGuard(controlFrameLimit: controlFrameLimit, pingInterval: TimeAmount(limits.pingInterval),
                                    reporter: reporter, logger: logger), position: .first)
            try channel.pipeline.syncOperations.addHandler(UntouchedConnectionCloser(), position: .first)
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(FirstRequestErrorResponder())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Ends its connection's input on a quiesce event if nothing was read from it yet (the HTTP
/// upgrade handler then closes it, as when a client hangs up); leaves the pipeline at the first
/// read, after which the HTTP handlers answer quiesce events themselves.
final class UntouchedConnectionCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}

/// The server's open connections, so that a shutdown can drop the ones that do not finish.
final class OpenConnections: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func insert(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = channels.withLock { $0.removeValue(forKey: id) }
        }
    }

    var count: Int { channels.withLock(\.count) }

    /// Closes every connection still open.
    func closeAll() {
        for channel in channels.withLock({ Array($0.values) }) {
            channel.close(promise: nil)
        }
    }
}
