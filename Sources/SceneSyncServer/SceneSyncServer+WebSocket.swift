import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

extension SceneSyncServer {
    /// The WebSocket route, `/ws/<app>`: an upgrade must name this server in `Host`, come from
    /// one of its pages (`Origin`), and name a hosted app. A refused upgrade gets Hummingbird's
    /// 400 and no socket.
    func makeWebSocketRouter() -> Router<WindowRequestContext> {
        let router = Router(context: WindowRequestContext.self)
        router.ws("/ws/:app") { request, context in
            guard let name = context.parameters.get("app"), self.runtime(named: name) != nil else { return .dontUpgrade }
            if let refusal = self.policy.refusal(for: request.head, port: self.boundPort, requireOrigin: true) {
                self.configuration.logger.notice("Refused a WebSocket", metadata: ["app": "\(name)", "reason": "\(refusal)"])
                return .dontUpgrade
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let name = context.requestContext.parameters.get("app"), let runtime = self.runtime(named: name) else { return }
            let client = ClientAddress(trustedProxies: self.configuration.trustedProxies)
                .client(peer: context.requestContext.remoteAddress, headers: context.request.headers)
            try await self.serveWindow(runtime, client: client, channel: context.requestContext.channel, inbound: inbound, outbound: outbound)
        }
        return router
    }

    /// Runs one window's connection: reads its messages in order, while what the scene sends it
    /// goes to its channel through the server's ``FrameWriter``. The connection is this task
    /// alone; its close frame gets a task of its own only once it is due.
    ///
    /// Only text messages carry the protocol: a binary one closes the socket with 1003. What the
    /// WebSocket layer refuses (a message over the frame limit, text that is not UTF-8) is thrown
    /// on, once the window has been disconnected, so that the socket closes with the code RFC 6455
    /// gives it (1009, 1007) rather than a normal close.
    private func serveWindow(
        _ runtime: AppRuntime, client: String, channel: any Channel, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        let queue = OutboundBudget.Queue(budget: outboundBudget, messageLimit: configuration.outboundBufferLimit)
        let writer = frameWriter
        let logger = configuration.logger
        let socket = WindowConnection.Socket(
            write: { bytes in
                let size = bytes.readableBytes
                writer.writeText(bytes, to: channel) { queue.release(size) }
            },
            sendClose: { reason in
                // Messages go straight to the channel (FrameWriter); the close frame goes after them.
                guard let reason else { return }
                do {
                    try await outbound.close(reason.code, reason: reason.text)
                } catch {
                    logger.debug("A window's socket closed while writing", metadata: ["error": "\(error)"])
                }
            },
            queue: queue,
            drop: { channel.close(promise: nil) })
        guard let connection = await runtime.openConnection(client: client, socket: socket) else {
            try? await outbound.close(.goingAway, reason: "Shutting down")
            return
        }
        var failure: (any Error)?
        do {
            // The reader keeps the window's rate limit and decodes its messages, so the main
            // actor only handles what is decoded and allowed.
            var bucket = TokenBucket(runtime.settings.rateLimit)
            for try await message in inbound.messages(maxSize: configuration.maximumFrameSize) {
                socket.heard.set()
                guard case let .text(text) = message else {
                    await connection.refuseBinaryMessage()
                    break
                }
                let read = bucket.take() ? WindowConnection.read(text) : .overRateLimit
                guard await connection.receive(read) else { break }
            }
        } catch {
            logger.warning("Closed a window's socket for a message the WebSocket refuses", metadata: ["error": "\(error)"])
            failure = error
        }
        await connection.didClose()
        await connection.closeFrameSent()
        if let failure { throw failure }
    }
}

extension WindowConnection.CloseReason {
    var code: WebSocketErrorCode {
        switch self {
        case .unauthorized, .protocolViolations, .tooManySessions, .noHello: .policyViolation
        case .binaryMessage: .unacceptableData
        case .shutdown, .overflow: .goingAway
        case .failed: .unexpectedServerError
        }
    }

    var text: String {
        switch self {
        case .unauthorized: "Unauthorized"
        case .shutdown: "Server shutting down"
        case .overflow: "Too far behind"
        case .failed: "Could not connect"
        case .protocolViolations: "Too many refused messages"
        case .binaryMessage: "Only text messages"
        case .tooManySessions: "Too many windows"
        case .noHello: "No hello in time"
        }
    }
}

/// The context of a window's WebSocket request: Hummingbird's, and the address it came from.
struct WindowRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    /// The client's address, for the limit on sessions per client.
    let remoteAddress: SocketAddress?
    /// The connection, so that a window that does not read can be dropped at once.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}
