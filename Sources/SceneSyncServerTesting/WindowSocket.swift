import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Opens a WebSocket with exactly the upgrade headers it is given, as a browser would send them.
///
/// HummingbirdWSClient's `WebSocketClient` always writes its own `Host` and `Origin` (the origin as
/// `ws://host`, without the port) and appends extra headers after them, so it cannot act as a page
/// of the server, nor as a page of a foreign site alone. This speaks the upgrade through
/// SwiftNIO's typed client upgrader instead.
enum WindowSocket {
    typealias Channel = NIOAsyncChannel<WebSocketFrame, WebSocketFrame>

    private enum Upgrade: Sendable {
        case websocket(Channel)
        case refused
    }

    /// Connects to `host:port`, asks to upgrade `path` with `headers`, and returns the socket.
    ///
    /// - Throws: ``WindowClientError/upgradeRefused`` if the server answers with anything but 101.
    static func open(host: String, port: Int, path: String, headers: [(String, String)], maximumMessageSize: Int) async throws -> Channel {
        let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: maximumMessageSize) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            // Whole messages, however the server fragments them.
                            try channel.pipeline.syncOperations.addHandler(NIOWebSocketFrameAggregator(
                                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                maxAccumulatedFrameSize: maximumMessageSize))
                            return Upgrade.websocket(try Channel(wrappingChannelSynchronously: channel))
                        }
                    }
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: HTTPHeaders(headers))
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: head,
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.close(promise: nil)
                            return channel.eventLoop.makeSucceededFuture(Upgrade.refused)
                        })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                }
            }
        switch try await upgrade.get() {
        case let .websocket(channel): return channel
        case .refused: throw WindowClientError.upgradeRefused
        }
    }
}
