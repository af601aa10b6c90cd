import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOWebSocket

extension SceneSyncServer {
    /// Decides an upgrade to `/ws/<app>`, on the connection's event loop: the request must be a
    /// `GET` of a hosted app's path, name this server in `Host`, and come from one of its pages
    /// (`Origin`). A refused upgrade gets `400` and no socket.
    ///
    /// An accepted one becomes a window served by channel handlers (``WindowSocketHandler``):
    /// what the scene sends goes to the channel through the server's ``FrameWriter``, and the
    /// window's messages reach the main actor decoded, in order.
    func windowOpening(for request: HTTPRequest, channel: any Channel) -> WindowSocketHandler.Opening? {
        guard request.method == .get, let name = Self.appName(inWindowPath: request.path ?? ""),
              let runtime = runtime(named: name) else { return nil }
        if let refusal = policy.refusal(for: request, port: boundPort, requireOrigin: true) {
            configuration.logger.notice("Refused a WebSocket", metadata: ["app": "\(name)", "reason": "\(refusal)"])
            return nil
        }
        let client = ClientAddress(trustedProxies: configuration.trustedProxies)
            .client(peer: channel.remoteAddress, headers: request.headerFields)
        return WindowSocketHandler.Opening(
            runtime: runtime, client: client, rateLimit: configuration.rateLimit,
            queue: OutboundBudget.Queue(budget: outboundBudget, messageLimit: configuration.outboundBufferLimit),
            writer: frameWriter, logger: configuration.logger)
    }

    /// The app a window's path names: `/ws/<app>`, with or without a query.
    static func appName(inWindowPath path: String) -> String? {
        let route = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard route.hasPrefix("/ws/") else { return nil }
        let name = route.dropFirst(4)
        guard !name.isEmpty, !name.contains("/") else { return nil }
        return String(name)
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
