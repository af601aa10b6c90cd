import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// A connection that speaks HTTP/1.1 and may become a window's WebSocket.
///
/// HTTP requests go to the server's responder, in the connection's task, as Hummingbird serves
/// them. An upgrade to `/ws/<app>` that the server accepts (see ``Upgrade``) becomes a window
/// whose socket is channel handlers alone (``WindowSocketHandler``): the connection's task ends
/// once the upgrade is done, so a connected window keeps no task, no task stack and no stream of
/// its own while it waits for its next message. A refused upgrade gets `400 Bad Request` and the
/// connection closes.
struct WindowUpgradeChannel: ServerChildChannel, HTTPChannelHandler {
    /// What the server decides about an upgrade request, and how a window's socket is set up.
    struct Upgrade: Sendable {
        /// The window that the request opens, or nil to refuse it. Runs on the connection's event
        /// loop; it must not block.
        let accept: @Sendable (_ request: HTTPRequest, _ channel: any Channel) -> WindowSocketHandler.Opening?
        /// The largest frame a window may send, and the largest message its frames may add up to.
        let maximumFrameSize: Int
    }

    /// What the HTTP upgrade made of the connection.
    enum UpgradeResult: Sendable {
        /// A window's socket, served by its channel handlers from now on.
        case window
        /// Plain HTTP.
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// An upgrade the server refused: it is answered `400` and closed.
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    private let http1: HTTP1Channel.Configuration
    private let upgrade: Upgrade

    init(responder: @escaping HTTPChannelHandler.Responder, http1: HTTP1Channel.Configuration, upgrade: Upgrade) {
        self.responder = Self.redirectingLateUpgrades(responder)
        self.http1 = http1
        self.upgrade = upgrade
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let attempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            let accepted = NIOLoopBoundBox<WindowSocketHandler.Opening?>(nil, eventLoop: channel.eventLoop)
            let upgrade = self.upgrade
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: upgrade.maximumFrameSize,
                shouldUpgrade: { channel, head in
                    attempted.value = true
                    guard let request = try? HTTPRequest(head, secure: false, splitCookie: false),
                          let opening = upgrade.accept(request, channel) else {
                        return channel.eventLoop.makeSucceededFuture(nil)
                    }
                    accepted.value = opening
                    return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        guard let opening = accepted.value else { throw ChannelError.inappropriateOperationForState }
                        try channel.pipeline.syncOperations.addHandler(
                            WindowSocketHandler(opening: opening, maximumMessageSize: upgrade.maximumFrameSize))
                        return UpgradeResult.window
                    }
                })
            let http1 = self.http1
            let serverUpgrade = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandlers(http1.additionalChannelHandlers())
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: http1.idleTimeout.map { .init($0) }, logger: logger))
                        let asyncChannel = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        return attempted.value ? UpgradeResult.failedUpgrade(asyncChannel) : .notUpgraded(asyncChannel)
                    }
                })
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(upgradeConfiguration: serverUpgrade)
            // Requests are taken one at a time by the connection's task; errors are the server's.
            configuration.enablePipelining = false
            configuration.enableErrorHandling = false
            configuration.enableResponseHeaderValidation = false
            configuration.decoderConfiguration.maxHeaderFieldSize = http1.httpDecoder.maxHeaderFieldSize
            configuration.decoderConfiguration.maxHeaderListSize = http1.httpDecoder.maxHeaderListSize
            configuration.decoderConfiguration.maxHeaderFieldCount = http1.httpDecoder.maxHeaderFieldCount
            let result = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            return Value(upgradeResult: result, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .window:
                // The window's handlers have the connection now; nothing waits for it here.
                break
            case let .notUpgraded(http1):
                await handleHTTP(asyncChannel: http1, logger: logger)
            case let .failedUpgrade(http1):
                await refuse(http1, logger: logger)
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("The connection closed before its first request")
        } catch {
            logger.debug("A connection failed before its first request was served", metadata: ["error": "\(error)"])
        }
    }

    /// Answers a refused upgrade with `400` and closes the connection.
    private func refuse(_ channel: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, logger: Logger) async {
        do {
            try await channel.executeThenClose { _, outbound in
                let head = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
                try await outbound.write(contentsOf: [.head(head), .end(nil)])
            }
        } catch {
            logger.trace("Could not answer a refused upgrade", metadata: ["error": "\(error)"])
        }
    }

    /// A WebSocket upgrade can only be read as a connection's first request: one asked for later
    /// on a kept-alive connection is sent to the same address again (`307`) with the connection
    /// closed, so that the client asks again on a new one.
    private static func redirectingLateUpgrades(_ responder: @escaping HTTPChannelHandler.Responder) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                return try await responder(request, writer, channel)
            }
            var target = request.uri.path
            if let query = request.uri.query { target += "?\(query)" }
            try await writer.writeResponse(HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: target]))
            throw LateUpgrade()
        }
    }

    /// Ends a connection after the redirect of a late upgrade.
    private struct LateUpgrade: Error {}
}
